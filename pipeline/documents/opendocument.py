""".odt and .odp: OpenDocument text and presentations, read with zipfile and lxml, not odfpy.

Only content.xml holds the text to translate, and every other member (pictures, styles.xml,
meta.xml, settings, the thumbnail, macros, which are never run) must come back byte for byte (a
fo:language or dc:language of the source language aside, ``_name_target``): zipfile gives exactly that, where odfpy
(last released in 2020) loads the whole package into its own object model and writes every part
back itself; lxml is already the XML library under python-docx and python-pptx.

Each paragraph and heading (text:p, text:h, in tables, lists, frames, text boxes, the slides'
shapes and their speaker notes) is one HTML fragment (``paragraphs``), translated as the
paragraphs of a .docx are: each stretch of text is a <span data-r> of its spans (text:span,
nested ones too), whose formatting then follows its words; text outside every span takes the
paragraph's own. A link (text:a) is <a data-c> around its spans; a tab (text:tab) stays between
its words, a line break (text:line-break) cuts the paragraph into lines translated apart.
Anything else in a paragraph (a frame with its picture or text box, a note mark, a field, a
bookmark) is moved as written, inside its span's formatting, next to the words it stood beside;
the paragraphs of a text box are translated on their own. Whitespace is read as ODF collapses it
(text:s counts its spaces) and written so that it shows as translated. Footnotes, endnotes
(text:note), comments (office:annotation) and tracked deletions stay untranslated, as do the
headers, footers and master pages of styles.xml.
"""

from __future__ import annotations

import re
from copy import deepcopy
from typing import Any

from lxml import etree

from ..language_pair import DE_EN, LanguagePair
from .base import Budget, Document, DocumentError, Unit, dc_language
from .paragraphs import Paragraph, counted, read_fragment
from .zips import parse_xml, read_member, rezip, unzip

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
MEDIA_TYPES = {".odt": "application/vnd.oasis.opendocument.text",
                  ".odp": "application/vnd.oasis.opendocument.presentation"}
_ODF_UNTRANSLATED = {_TEXT + "note", _OFFICE + "annotation", _TEXT + "tracked-changes"}
_ODF_DROPPED = {_TEXT + "soft-page-break"}   # a layout hint, stale after translation
_ODF_SPACE = re.compile(r"[ \t\r\n]+")       # what ODF collapses into one space
_SPACES = re.compile(r" +")


def _translated(p: Any) -> Paragraph | None:
    """``scan`` of a paragraph outside notes, comments and tracked changes; None inside."""
    return None if any(a.tag in _ODF_UNTRANSLATED for a in p.iterancestors()) else scan(p)


def scan(p: Any) -> Paragraph | None:
    para = Paragraph(p)
    _children(para, p, (), None)
    return para if "".join(para.text).strip() else None


def _text(para: Paragraph, text: str, chain: tuple[Any, ...], scope: int | None, *, literal: bool = False) -> None:
    """A stretch of text inside the spans of ``chain``: a run of its own."""
    if not literal:
        text = _ODF_SPACE.sub(" ", text)
        if not para.text or para.text[-1].endswith(" "):   # collapsed into the space before, or leading
            text = text.lstrip(" ")
    if not text:
        return
    para.runs.append(chain)
    para.run_scope.append(scope)
    para.run_chars.append(0)
    para.emit(f'<span data-r="{len(para.runs) - 1}">')
    para.add_text(text)
    para.emit("</span>")


def _children(para: Paragraph, element: Any, chain: tuple[Any, ...], scope: int | None) -> None:
    if element.text:
        _text(para, element.text, chain, scope)
    for child in element:
        tag = child.tag
        if not isinstance(tag, str) or tag in _ODF_DROPPED:
            pass   # XML comments, stale hints; their tails are read below
        elif tag == _TEXT + "span":
            _children(para, child, chain + (child,), scope)
        elif tag == _TEXT + "a" and scope is None:
            para.emit(f'<a data-c="{len(para.containers)}">')
            para.containers.append(child)
            _children(para, child, chain, len(para.containers) - 1)
            para.emit("</a>")
        elif tag == _TEXT + "s":
            count = child.get(_TEXT + "c", "1")
            _text(para, " " * (int(count) if count.isdigit() else 1), chain, scope, literal=True)
        elif tag == _TEXT + "tab":
            para.point('data-t=""', separator=True)
        elif tag == _TEXT + "line-break":
            mark = f'data-b="{len(para.breaks)}"'
            para.breaks.append((child, None))
            if scope is None:
                para.emit(f"<br {mark}>")
            else:
                para.point(mark, separator=True)
        elif chain:   # a frame, note mark, field ... inside spans: moved with their formatting
            para.runs.append(chain)
            para.run_scope.append(scope)
            para.run_chars.append(0)
            para.emit(f'<span data-r="{len(para.runs) - 1}">')
            para.point(f'data-i="{len(para.inline)}"', separator=False)
            para.inline.append(child)
            para.emit("</span>")
        else:
            para.atom(child)
        if child.tail:
            _text(para, child.tail, chain, scope)


def _append(parent: Any, item: Any) -> None:
    """Text or an element at the end of ``parent``'s content."""
    if not isinstance(item, str):
        item.tail = None
        parent.append(item)
    elif len(parent):
        parent[-1].tail = (parent[-1].tail or "") + item
    else:
        parent.text = (parent.text or "") + item


def _write_text(parent: Any, text: str, first: bool) -> None:
    """``text`` at the end of ``parent``, each space that ODF would collapse as a text:s."""
    position = 0
    for match in _SPACES.finditer(text):
        keep = 0 if first and match.start() == 0 else 1   # a paragraph's leading space would vanish
        _append(parent, text[position:match.start()] + " " * keep)
        if len(match.group()) > keep:
            extra = etree.SubElement(parent, _TEXT + "s")
            if len(match.group()) - keep > 1:
                extra.set(_TEXT + "c", str(len(match.group()) - keep))
        position = match.end()
    _append(parent, text[position:])


def _formatting(chain: tuple[Any, ...]) -> tuple:
    """A run's formatting as runs are compared: the spans it lies in, with their attributes."""
    return tuple((span.tag, sorted(span.attrib.items())) for span in chain)


def _rebuild(para: Paragraph, translated: str) -> None:
    tokens = read_fragment(para, translated)
    p = para.element
    p.text = None
    for element in [p, *para.containers]:
        element.text = None
        for child in list(element):
            element.remove(child)
    placed: set[int] = set()
    last: tuple[Any, Any, tuple] | None = None   # (parent, innermost span, formatting) text may extend
    first = True
    for token in tokens:
        parent = p if token.container is None else para.containers[token.container]
        if token.container is not None and token.container not in placed:
            _append(p, parent)
            placed.add(token.container)
            last = None
        if token.kind in ("atom", "tab", "br"):
            items = (para.atoms[token.value] if token.kind == "atom" else
                     [etree.Element(_TEXT + "tab")] if token.kind == "tab" else [deepcopy(para.breaks[token.value][0])])
            for item in items:
                _append(parent, item)
            last, first = None, False
            continue
        if token.kind == "open" or (token.kind == "text" and not token.value):
            continue
        owner = token.run if token.run is not None else para.dominant(token.container)
        chain = para.runs[owner] if owner is not None else ()
        key = _formatting(chain)
        if last is None or last[0] is not parent or last[2] != key:
            inner = parent
            for span in chain:   # the spans' formatting, without their old content
                inner = etree.SubElement(inner, span.tag, dict(span.attrib))
            last = (parent, inner, key)
        if token.kind == "inline":
            _append(last[1], para.inline[token.value])
        else:
            _write_text(last[1], token.value, first)
        first = False
    # Nothing may be lost, even if the fragment came back without one of its points.
    for index, container in enumerate(para.containers):
        if index not in placed:
            _append(p, container)
    for element in [e for atom in para.atoms for e in atom] + para.inline:
        if not any(ancestor is p for ancestor in element.iterancestors()):
            _append(p, element)


class OpenDocument(Document):
    """An .odt/.odp: each paragraph and heading with text of content.xml, an HTML fragment."""

    def __init__(self, data: bytes, budget: Budget, *, extension: str):
        self.archive = archive = unzip(data, extension, budget)
        if read_member(archive, "mimetype", extension).strip() != MEDIA_TYPES[extension].encode():
            raise DocumentError(f"file is not a valid {extension} document")
        if b"encryption-data" in read_member(archive, "META-INF/manifest.xml", extension):
            raise DocumentError(f"encrypted {extension}: it needs a password to be opened")
        self.root = parse_xml(read_member(archive, "content.xml", extension), "content.xml", extension,
                              paragraphs=(_TEXT + "p", _TEXT + "h"), budget=budget)
        body = self.root.find(_OFFICE + "body")
        if self.root.tag != _OFFICE + "document-content" or body is None:
            raise DocumentError(f"file is not a valid {extension} document")
        self.paragraphs = counted(body.iter(_TEXT + "p", _TEXT + "h"), _translated, budget)
        self.chars = sum(para.chars for para in self.paragraphs)

    def units(self) -> list[Unit]:
        return [Unit(para.fragment(_formatting), html=True) for para in self.paragraphs]

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        if not self.paragraphs:
            return rezip(self.archive, {}, mimetype_first=True)
        for para, output in zip(self.paragraphs, translations, strict=True):
            _rebuild(para, output)
        content = etree.tostring(self.root, xml_declaration=True, encoding="UTF-8")
        changed = {"content.xml": _name_target(content, languages)}
        for name in ("styles.xml", "meta.xml"):   # where the default language and the document's are
            if name in self.archive.namelist():
                original = self.archive.read(name)
                if (named := _name_target(original, languages)) != original:
                    changed[name] = named
        return rezip(self.archive, changed, mimetype_first=True)


# The translation's language in the document's metadata: a fo:language of the source language
# (with its country) in a style and a dc:language of it name the target ("de" and "DE" say "en"
# and "US"), so that spelling checkers and screen readers treat the text as the target language.
# Nothing else of those members changes.
_ODF_TAG = re.compile(r"<[A-Za-z][^<>]*+>")
_FO_LANGUAGE = re.compile(r"""(?<=\s)(fo:language=)(["'])([A-Za-z]{2,3})\2""")
_FO_COUNTRY = re.compile(r"""(?<=\s)(fo:country=)(["'])[A-Za-z]{2}\2""")


def _name_target(xml: bytes, languages: LanguagePair) -> bytes:
    """``xml`` (UTF-8) with the source language's fo:language (and its fo:country) and dc:language
    naming the target."""
    try:
        text = xml.decode("utf-8")
    except UnicodeDecodeError:
        return xml

    def tag(match: re.Match[str]) -> str:
        language = _FO_LANGUAGE.search(match[0])
        if language is None or language[3] != languages.source:   # ODF writes it in lower case
            return match[0]
        named = _FO_LANGUAGE.sub(lambda m: f"{m[1]}{m[2]}{languages.target}{m[2]}", match[0])
        return _FO_COUNTRY.sub(lambda m: f"{m[1]}{m[2]}{languages.region}{m[2]}", named)

    named = dc_language(_ODF_TAG.sub(tag, text) if "fo:language" in text else text, languages)
    return xml if named == text else named.encode("utf-8")
