""".docx, read with python-docx: nothing in the file is ever executed, and a macro-enabled
document is refused by python-docx as not being a Word document.

Each paragraph (of the body, of table cells at any depth, of text boxes, headers and footers)
is one HTML fragment built from its runs (``paragraphs``). The paragraph's runs are then rebuilt
from the output: each piece of text becomes a run with the formatting (w:rPr) of the run it came
from; text outside every span takes that of the paragraph's longest run; adjacent runs with equal
formatting are merged. A tab is a point in its run's span (<img data-t>); a line break cuts the
paragraph into lines translated apart (<br>), or is a point inside a hyperlink. Anything else
inside a run (a picture, a symbol, a footnote mark) is a point of its run (<img data-i>), moved as
written. Hyperlinks and tracked insertions are <a> around their runs. The rest (fields with their
results, bookmarks, comment marks, content controls, tracked deletions) is kept as written and
untranslated, one point (<img data-a>) per stretch. Points are placed next to the words they stood
beside, with the spaces around them as in the source. Spelling and layout hints (w:proofErr,
w:lastRenderedPageBreak, w:softHyphen) are stale after translation and dropped. Footnotes,
endnotes and comments are not translated. Where the document names the source language (w:lang,
the theme's language, the core properties' dc:language), the translation names the target:
"de-DE" says "en-US" and "en-GB" says "de-DE" (``name_target``).
"""

from __future__ import annotations

import io
from copy import deepcopy
from typing import Any

from lxml import etree

from ..language_pair import DE_EN, LanguagePair
from .base import Budget, Document, DocumentError, Unit
from .paragraphs import Paragraph, Token, counted, read_fragment
from .zips import unzip, xml_error

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_DC = "{http://purl.org/dc/elements/1.1/}"
_TEXT_PARTS = ("document.main+xml", "header+xml", "footer+xml")
_DROPPED = {_W + t for t in ("proofErr", "lastRenderedPageBreak", "softHyphen")}
_FIELD = {_W + t for t in ("fldChar", "instrText", "delInstrText", "delText")}
_CONTAINERS = {_W + "hyperlink", _W + "ins"}


def scan(p: Any) -> Paragraph | None:
    """The paragraph with its HTML fragment, or None when it has no text to translate."""
    para = Paragraph(p)
    _scan_children(para, [c for c in p if c.tag != _W + "pPr"], None)
    return para if "".join(para.text).strip() else None


def _scan_children(para: Paragraph, children: list[Any], scope: int | None) -> None:
    for child in children:
        if not isinstance(child.tag, str) or child.tag in _DROPPED:
            continue   # XML comments, stale hints
        if child.tag == _W + "r":
            plain = para.field_depth == 0 and not any(c.tag in _FIELD for c in child)
            for char in child.iter(_W + "fldChar"):   # the runs of a complex field stay as written
                kind = char.get(_W + "fldCharType")
                para.field_depth = max(0, para.field_depth + (kind == "begin") - (kind == "end"))
            if plain:
                _scan_run(para, child, scope)
            else:
                para.atom(child)
        elif child.tag in _CONTAINERS and scope is None:
            para.emit(f'<a data-c="{len(para.containers)}">')
            para.containers.append(child)
            _scan_children(para, list(child), len(para.containers) - 1)
            para.emit("</a>")
        else:
            para.atom(child)


def _scan_run(para: Paragraph, run: Any, scope: int | None) -> None:
    para.runs.append(run)
    para.run_scope.append(scope)
    para.run_chars.append(0)
    span, is_open = f'<span data-r="{len(para.runs) - 1}">', False
    for child in run:
        tag = child.tag
        if tag == _W + "rPr" or tag in _DROPPED:
            continue
        if tag in (_W + "br", _W + "cr"):
            mark = f'data-b="{len(para.breaks)}"'
            para.breaks.append((child, len(para.runs) - 1))
            if scope is None:    # a new line, translated apart like a line of a .txt file
                if is_open:
                    para.emit("</span>")
                    is_open = False
                para.emit(f"<br {mark}>")
                continue
        if not is_open:
            para.emit(span)
            is_open = True
        if tag == _W + "t":
            para.add_text(child.text or "")
        elif tag == _W + "noBreakHyphen":
            para.add_text("-")
        elif tag == _W + "tab":
            para.point('data-t=""', separator=True)
        elif tag in (_W + "br", _W + "cr"):   # inside <a>: a block there would split the link
            para.point(mark, separator=True)
        else:                                  # a picture, symbol, note mark ...: moved, as written
            para.point(f'data-i="{len(para.inline)}"', separator=False)
            para.inline.append(child)
    if is_open:
        para.emit("</span>")


def _element(tag: str, attrs: dict | None = None) -> Any:
    """python-docx's element maker. python-docx is imported with the first .docx or .pdf, as pypdf
    and python-pptx are with theirs, not with the app: a server that translates text never holds
    it."""
    from docx.oxml import OxmlElement as make

    return make(tag, attrs=attrs)


def _add_content(run: Any, token: Token, para: Paragraph) -> None:
    if token.kind == "tab":
        run.append(_element("w:tab"))
    elif token.kind == "br":
        run.append(deepcopy(para.breaks[token.value][0]))
    elif token.kind == "inline":
        run.append(para.inline[token.value])
    elif len(run) and run[-1].tag == _W + "t":
        run[-1].text += token.value
    else:
        t = _element("w:t")
        t.text = token.value
        t.set(_XML_SPACE, "preserve")
        run.append(t)


def _formatting(run: Any) -> bytes:
    """A run's formatting as runs are compared: its w:rPr as written (b"" without, or without a run)."""
    rpr = run.find(_W + "rPr") if run is not None else None
    return etree.tostring(rpr) if rpr is not None else b""


def _rebuild(para: Paragraph, translated: str) -> None:
    """Replace the paragraph's content with runs made from its translated fragment."""
    tokens = read_fragment(para, translated)
    p = para.element
    for child in [c for c in p if c.tag != _W + "pPr"]:
        p.remove(child)
    for container in para.containers:
        for child in list(container):
            container.remove(child)
    placed: set[int] = set()
    last: tuple[Any, Any, bytes] | None = None   # (parent, run, formatting) that text may extend
    for token in tokens:
        parent = p if token.container is None else para.containers[token.container]
        if token.container is not None and token.container not in placed:
            p.append(parent)
            placed.add(token.container)
        if token.kind == "atom":
            parent.extend(para.atoms[token.value])
            last = None
        if token.kind in ("atom", "open") or (token.kind == "text" and not token.value):
            continue
        owner = para.breaks[token.value][1] if token.kind == "br" else token.run
        owner = owner if owner is not None else para.dominant(token.container)
        source = para.runs[owner] if owner is not None else None
        rpr = source.find(_W + "rPr") if source is not None else None
        key = _formatting(source)
        if last is None or last[0] is not parent or last[2] != key:
            run = _element("w:r", attrs=dict(source.attrib) if source is not None else None)
            if rpr is not None:
                run.append(deepcopy(rpr))
            parent.append(run)
            last = (parent, run, key)
        _add_content(last[1], token, para)
    # Nothing may be lost, even if the fragment came back without one of its points.
    for index, container in enumerate(para.containers):
        if index not in placed:
            p.append(container)
    for atom in para.atoms:
        p.extend(element for element in atom if element.getparent() is None)
    for element in para.inline:
        if element.getparent() in para.runs:   # still in its source run, which is gone
            p.append(_element("w:r"))
            p[-1].append(element)


class WordDocument(Document):
    """A .docx: each paragraph with text of the body, headers and footers, an HTML fragment."""

    def __init__(self, data: bytes, budget: Budget):
        import docx

        unzip(data, ".docx", budget).close()
        try:
            self.document = docx.Document(io.BytesIO(data))
        except etree.XMLSyntaxError as exc:
            raise xml_error(exc, "its XML", ".docx") from None
        except Exception:  # noqa: BLE001 -- whatever fails in parsing an upload is the upload's fault
            raise DocumentError("file is not a valid .docx document") from None
        parts = [part for part in self.document.part.package.iter_parts()
                 if part.content_type.endswith(_TEXT_PARTS) and hasattr(part, "element")]
        self.paragraphs = counted((p for part in parts for p in part.element.iter(_W + "p")), scan, budget)
        self.chars = sum(para.chars for para in self.paragraphs)

    def units(self) -> list[Unit]:
        return [Unit(para.fragment(_formatting), html=True) for para in self.paragraphs]

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        for para, output in zip(self.paragraphs, translations, strict=True):
            _rebuild(para, output)
        name_target(self.document, languages)
        out = io.BytesIO()
        self.document.save(out)
        return out.getvalue()


def name_target(document: Any, languages: LanguagePair) -> None:
    """The target language (its full tag) where a python-docx ``document`` names the source: its
    runs' and styles' w:lang, the theme's w:themeFontLang and the core properties' language."""
    for part in document.part.package.iter_parts():
        element = getattr(part, "element", None)
        if element is None or not hasattr(element, "iter"):
            continue
        for lang in element.iter(_W + "lang", _W + "themeFontLang"):
            for name in (_W + "val", _W + "eastAsia", _W + "bidi"):
                if languages.names_source(lang.get(name)):
                    lang.set(name, languages.target_tag)
        for language in element.iter(_DC + "language"):   # docProps/core.xml, where there is one
            if languages.names_source(language.text):
                language.text = languages.target_tag
