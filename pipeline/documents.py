"""Whole files in, translated files out: ``.txt``, ``.html``, ``.docx``, gettext ``.po``/``.pot``,
``.srt``/``.vtt`` subtitles, ``.json`` string files and ``.md`` Markdown, given a translate function.

``read(extension, data)`` parses the bytes (raising ``DocumentError`` for input that is not what
its extension says, ``DocumentTooLarge`` for a .docx that unpacks to too much) and returns a
document with ``chars``, the amount of text to translate, and ``translate(translate) -> bytes``.
``translate(texts, html=False)`` is the service's signature: plain texts, or HTML fragments whose
inline tags follow the words (``pipeline.markup``). Every document makes one call, so all of its
sentences go to the model as one batch.

- ``.txt`` (UTF-8, with or without a BOM): every line is translated on its own; indentation,
  trailing spaces, blank lines and line endings (``\\n`` or ``\\r\\n``) stay exactly as written.
- ``.html``: the whole document through ``pipeline.markup`` (tags and attributes byte for byte).
- ``.docx``: read with python-docx; nothing in the file is ever executed, and a macro-enabled
  document is refused by python-docx as not being a Word document. See ``_WordDocument``.
- ``.po``/``.pot``: a gettext catalog whose ``msgid`` is German, read with polib: the output is the
  English catalog. See ``_Catalog``.
- ``.srt``/``.vtt``: subtitles, read with srt and webvtt-py. See ``_Subtitles``.
- ``.md``: Markdown through ``pipeline.markdown`` (text and headings translated; code, link
  targets, images and HTML as written).
- ``.json``: a localization file (nested objects of strings, as i18next, FormatJS, vue-i18n and
  Chrome's messages use): keys stay, string values are translated. See ``_JsonStrings``.
"""

from __future__ import annotations

import io
import json
import os
import re
import time
import unicodedata
import zipfile
from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser
from typing import Any

import docx
from docx.oxml import OxmlElement
from lxml import etree

from .segment import lines_like

FORMATS = (".docx", ".html", ".json", ".md", ".po", ".pot", ".srt", ".txt", ".vtt")
SUPPORTED = f"{', '.join(FORMATS[:-1])} or {FORMATS[-1]}"   # the formats, as error messages list them
# A .docx is a zip: its declared sizes are checked before anything is decompressed (zipfile never
# reads past a declared size), so a small upload cannot unpack into gigabytes.
MAX_UNPACKED_BYTES = 64 * 1024 * 1024
MAX_PARTS = 1000

Translate = Callable[..., list[str]]   # (texts, html=False) -> one translation per text
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")   # as app.validation: tab, LF, CR are layout
_BOM = "\ufeff"


class DocumentError(ValueError):
    """The file is not what its extension says (a 400); the message says what is wrong."""


class DocumentTooLarge(DocumentError):
    """The file is bigger than a limit (a 413)."""


def pipeline_translate(pipeline: Any) -> Translate:
    """A ``Pipeline``'s translate function in this module's signature ``(texts, html=False)``:
    plain texts through ``Pipeline.translate`` (ICU plural/select messages by their parts,
    ``pipeline.icu``; a keyboard accelerator onto the translated word, ``pipeline.accelerators``),
    HTML fragments through ``pipeline.markup`` with the
    pipeline's alignment (NFC first: the word spans index the NFC form)."""
    from .accelerators import translate_marked
    from .icu import translate_messages
    from .markup import translate_html

    def translate(texts: list[str], html: bool = False) -> list[str]:
        if html:
            return translate_html([unicodedata.normalize("NFC", t) for t in texts], pipeline.translate_aligned)
        lexicon = pipeline.translator.lexicon
        knows = lexicon.knows if lexicon is not None else None
        return translate_messages(list(texts), lambda units: translate_marked(
            units, pipeline.translate, pipeline.translate_aligned, knows))

    return translate


def extension(path: str) -> str:
    """The lower-case extension of ``path`` when it is one of ``FORMATS``; ValueError otherwise."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in FORMATS:
        raise ValueError(f"{path!r}: unsupported file format; use {SUPPORTED}")
    return suffix


def read(extension: str, data: bytes):
    """The document in ``data`` for the extension (one of ``FORMATS``, lower case)."""
    if extension == ".docx":
        return _WordDocument(data)
    if extension in (".txt", ".html"):
        return _TextDocument(data, html=extension == ".html")
    if extension in (".po", ".pot"):
        return _Catalog(data)
    if extension in (".srt", ".vtt"):
        return _Subtitles(data, extension)
    if extension == ".json":
        return _JsonStrings(data)
    if extension == ".md":
        return _MarkdownFile(data)
    raise ValueError(f"unsupported extension {extension!r}; supported: {', '.join(FORMATS)}")


def _split_line(line: str) -> tuple[str, str, str]:
    """(leading whitespace, text, trailing whitespace, with any "\\r")."""
    text = line.strip()
    lead = line[:len(line) - len(line.lstrip())]
    return lead, text, line[len(lead) + len(text):]


def _utf8(data: bytes) -> str:
    """The text of a text format's file; DocumentError when it is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise DocumentError("file is not UTF-8 text") from None


class _TextDocument:
    def __init__(self, data: bytes, *, html: bool):
        text = _utf8(data)
        bad = _CONTROL.search(text)
        if bad:
            raise DocumentError(f"file contains a control character (U+{ord(bad.group()):04X})")
        self.bom = _BOM if text.startswith(_BOM) else ""
        self.text = text[len(self.bom):]
        self.html = html
        self.chars = len(self.text)

    def translate(self, translate: Translate) -> bytes:
        if self.html:
            out = translate([self.text], html=True)[0] if self.text.strip() else self.text
            return (self.bom + out).encode("utf-8")
        lines = [_split_line(line) for line in self.text.split("\n")]
        todo = [i for i, (_, content, _) in enumerate(lines) if content]
        done = dict(zip(todo, translate([lines[i][1] for i in todo]))) if todo else {}
        out = "\n".join(lead + done.get(i, content) + trail for i, (lead, content, trail) in enumerate(lines))
        return (self.bom + out).encode("utf-8")


# ------------------------------------------------------------------------------------------ .docx
#
# Each paragraph (of the body, of table cells at any depth, of text boxes, headers and footers)
# is translated as one HTML fragment built from its runs, so that the model reads whole sentences
# and each run's formatting follows its words through the markup pipeline's tag projection:
#
#   <w:r>Die Katze </w:r><w:r><w:b/>schläft</w:r><w:r>.</w:r>
#   -> <span data-r="0">Die Katze </span><span data-r="1">schläft</span><span data-r="2">.</span>
#   -> <span data-r="0">The cat</span> is <span data-r="1">sleeping</span><span data-r="2">.</span>
#
# The paragraph's runs are then rebuilt from the output: each piece of text becomes a run with the
# formatting (w:rPr) of the run it came from; text outside every span takes that of the
# paragraph's longest run; adjacent runs with equal formatting are merged. A tab is a point in its
# run's span (<img data-t>); a line break cuts the paragraph into lines translated apart (<br>),
# or is a point inside a hyperlink. Anything else inside a run (a picture, a symbol, a footnote
# mark) is a point of its run (<img data-i>), moved as written. Hyperlinks and tracked insertions
# are <a> around their runs. The rest (fields with their results, bookmarks, comment marks,
# content controls, tracked deletions) is kept as written and untranslated, one point
# (<img data-a>) per stretch. Points are placed next to the words they stood beside, with the
# spaces around them as in the source. Spelling and layout hints (w:proofErr,
# w:lastRenderedPageBreak, w:softHyphen) are stale after translation and dropped. Footnotes,
# endnotes and comments are not translated.

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_TEXT_PARTS = ("document.main+xml", "header+xml", "footer+xml")
_DROPPED = {_W + t for t in ("proofErr", "lastRenderedPageBreak", "softHyphen")}
_FIELD = {_W + t for t in ("fldChar", "instrText", "delInstrText", "delText")}
_CONTAINERS = {_W + "hyperlink", _W + "ins"}


@dataclass
class _Token:
    kind: str                 # text, tab, br, atom or open (a container starts)
    container: int | None
    run: int | None
    value: Any = None         # text, or the index of a break or an atom
    point: int | None = None  # tabs, atoms and breaks inside links: their data-p


@dataclass
class _Paragraph:
    element: Any
    runs: list[Any] = field(default_factory=list)                # data-r: source text runs
    run_scope: list[int | None] = field(default_factory=list)    # the container of each run
    run_chars: list[int] = field(default_factory=list)
    breaks: list[tuple[Any, int]] = field(default_factory=list)  # data-b: (w:br or w:cr, run)
    inline: list[Any] = field(default_factory=list)              # data-i: pictures ... in a run
    atoms: list[list[Any]] = field(default_factory=list)         # data-a: stretches kept as written
    containers: list[Any] = field(default_factory=list)          # data-c
    points: list[int] = field(default_factory=list)              # data-p: offset in the text
    html: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    chars: int = 0
    in_atom: bool = False
    field_depth: int = 0

    def emit(self, html: str) -> None:
        self.html.append(html)
        self.in_atom = False

    def point(self, attribute: str, separator: bool) -> None:
        # A separator (tab, line break) also separates words for the model: a space follows it
        # in the fragment, and the spaces around it are made as in the source afterwards.
        self.emit(f'<img {attribute} data-p="{len(self.points)}">' + (" " if separator else ""))
        self.points.append(self.chars)

    def atom(self, element: Any) -> None:
        if self.in_atom:   # one point for a whole stretch: a field's parts stay together, in order
            self.atoms[-1].append(element)
            return
        self.point(f'data-a="{len(self.atoms)}"', separator=False)
        self.atoms.append([element])
        self.in_atom = True

    def add_text(self, text: str) -> None:
        self.run_chars[-1] += len(text)
        self.chars += len(text)
        self.text.append(text)
        self.emit(escape(text, quote=False))

    def dominant(self, scope: int | None) -> int | None:
        """The run with the most text in ``scope`` (a container, or None: the paragraph)."""
        runs = [i for i, s in enumerate(self.run_scope) if s == scope and self.run_chars[i]]
        return max(runs, key=lambda i: self.run_chars[i]) if runs else None


def _scan(p: Any) -> _Paragraph | None:
    """The paragraph with its HTML fragment, or None when it has no text to translate."""
    para = _Paragraph(p)
    _scan_children(para, [c for c in p if c.tag != _W + "pPr"], None)
    return para if "".join(para.text).strip() else None


def _scan_children(para: _Paragraph, children: list[Any], scope: int | None) -> None:
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


def _scan_run(para: _Paragraph, run: Any, scope: int | None) -> None:
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


class _Reader(HTMLParser):
    """A translated fragment as tokens, in output order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.container: int | None = None
        self.run: int | None = None
        self.tokens: list[_Token] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        point = int(a["data-p"]) if "data-p" in a else None
        if tag == "span":
            self.run = int(a["data-r"])
        elif tag == "a":
            self.container = int(a["data-c"])
            self.tokens.append(_Token("open", self.container, None))
        elif "data-a" in a:
            self.tokens.append(_Token("atom", self.container, None, int(a["data-a"]), point))
        elif "data-t" in a:
            self.tokens.append(_Token("tab", self.container, self.run, None, point))
        elif "data-b" in a:
            self.tokens.append(_Token("br", self.container, self.run, int(a["data-b"]), point))
        elif "data-i" in a:
            self.tokens.append(_Token("inline", self.container, self.run, int(a["data-i"]), point))

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        if tag == "span":
            self.run = None
        elif tag == "a":
            self.container = None

    def handle_data(self, data):
        self.tokens.append(_Token("text", self.container, self.run, data))


def _spacing(para: _Paragraph, tokens: list[_Token]) -> None:
    """The source's leading and trailing spaces, and its spacing around points, in the output."""
    plain = "".join(para.text)
    texts = [t for t in tokens if t.kind == "text" and t.value.strip()]
    if texts:
        texts[0].value = plain[:len(plain) - len(plain.lstrip())] + texts[0].value.lstrip()
        texts[-1].value = texts[-1].value.rstrip() + plain[len(plain.rstrip()):]
    for i, token in enumerate(tokens):
        if token.point is None:
            continue
        at = para.points[token.point]
        if i > 0 and tokens[i - 1].kind == "text" and at > 0:
            before = tokens[i - 1]
            before.value = before.value.rstrip(" ") + (" " if plain[at - 1].isspace() else "")
        if i + 1 < len(tokens) and tokens[i + 1].kind == "text" and at < len(plain):
            after = tokens[i + 1]
            after.value = (" " if plain[at].isspace() else "") + after.value.lstrip(" ")


def _add_content(run: Any, token: _Token, para: _Paragraph) -> None:
    if token.kind == "tab":
        run.append(OxmlElement("w:tab"))
    elif token.kind == "br":
        run.append(deepcopy(para.breaks[token.value][0]))
    elif token.kind == "inline":
        run.append(para.inline[token.value])
    elif len(run) and run[-1].tag == _W + "t":
        run[-1].text += token.value
    else:
        t = OxmlElement("w:t")
        t.text = token.value
        t.set(_XML_SPACE, "preserve")
        run.append(t)


def _rebuild(para: _Paragraph, translated: str) -> None:
    """Replace the paragraph's content with runs made from its translated fragment."""
    reader = _Reader()
    reader.feed(translated)
    reader.close()
    tokens = reader.tokens
    _spacing(para, tokens)
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
        key = etree.tostring(rpr) if rpr is not None else b""
        if last is None or last[0] is not parent or last[2] != key:
            run = OxmlElement("w:r", attrs=dict(source.attrib) if source is not None else None)
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
            p.append(OxmlElement("w:r"))
            p[-1].append(element)


class _WordDocument:
    def __init__(self, data: bytes):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                infos = archive.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError):
            raise DocumentError("file is not a valid .docx document") from None
        unpacked = sum(info.file_size for info in infos)
        if len(infos) > MAX_PARTS:
            raise DocumentTooLarge(f"the .docx has {len(infos)} parts, over the limit of {MAX_PARTS}")
        if unpacked > MAX_UNPACKED_BYTES:
            raise DocumentTooLarge(f"the .docx unpacks to {unpacked} bytes, over the limit of "
                                   f"{MAX_UNPACKED_BYTES} bytes")
        try:
            self.document = docx.Document(io.BytesIO(data))
        except Exception:  # noqa: BLE001 -- whatever fails in parsing an upload is the upload's fault
            raise DocumentError("file is not a valid .docx document") from None
        parts = [part for part in self.document.part.package.iter_parts()
                 if part.content_type.endswith(_TEXT_PARTS) and hasattr(part, "element")]
        scanned = (_scan(p) for part in parts for p in list(part.element.iter(_W + "p")))
        self.paragraphs = [para for para in scanned if para is not None]
        self.chars = sum(para.chars for para in self.paragraphs)

    def translate(self, translate: Translate) -> bytes:
        outputs = translate(["".join(para.html) for para in self.paragraphs], html=True) if self.paragraphs else []
        for para, output in zip(self.paragraphs, outputs, strict=True):
            _rebuild(para, output)
        out = io.BytesIO()
        self.document.save(out)
        return out.getvalue()


# ------------------------------------------------------------------------------------ .po / .pot
#
# A catalog of a program written in German: each msgid (and msgid_plural) is translated into the
# English msgstr (msgstr[0] and msgstr[1]: English has two plural forms), whatever language the
# msgstr held before; msgctxt, comments, references, flags (fuzzy included) and obsolete entries
# are kept, and the header says Language: en with English plural forms, the revision date and
# the machine translation as the last translator. Format directives come
# back exactly, as spans of the pipeline (pipeline.spans), so that GNU msgfmt -c accepts the
# result; a leading or trailing newline of a msgid is kept on its msgstr, as msgfmt -c requires.

_ENGLISH_PLURALS = "nplurals=2; plural=(n != 1);"


class _Catalog:
    def __init__(self, data: bytes):
        import polib  # the parser of the data layer's gettext reader (model.data.gettext)

        text = _utf8(data).removeprefix(_BOM)
        try:
            self.catalog = polib.pofile(text, wrapwidth=78)
        except (OSError, ValueError) as exc:
            raise DocumentError(f"file is not a valid gettext catalog: {str(exc).strip()}") from None
        self.entries = [e for e in self.catalog if not e.obsolete and e.msgid]
        self.chars = sum(len(e.msgid) + len(e.msgid_plural or "") for e in self.entries)

    def translate(self, translate: Translate) -> bytes:
        texts = [text for e in self.entries for text in ([e.msgid, e.msgid_plural] if e.msgid_plural else [e.msgid])]
        cores = [_split_line(text) for text in texts]
        todo = [i for i, (_, core, _) in enumerate(cores) if core]
        done = dict(zip(todo, translate([cores[i][1] for i in todo]))) if todo else {}
        out = iter(lead + done.get(i, core) + trail for i, (lead, core, trail) in enumerate(cores))
        for entry in self.entries:
            if entry.msgid_plural:
                entry.msgstr, entry.msgstr_plural = "", {0: next(out), 1: next(out)}
            else:
                entry.msgstr = next(out)
        self.catalog.metadata["Language"] = "en"
        self.catalog.metadata["PO-Revision-Date"] = time.strftime("%Y-%m-%d %H:%M+0000", time.gmtime())
        self.catalog.metadata["Last-Translator"] = "de-en-nmt machine translation"
        self.catalog.metadata["Content-Type"] = "text/plain; charset=UTF-8"
        if "Plural-Forms" in self.catalog.metadata or any(e.msgid_plural for e in self.entries):
            self.catalog.metadata["Plural-Forms"] = _ENGLISH_PLURALS
        return str(self.catalog).encode("utf-8")


# ------------------------------------------------------------------------------------ .srt / .vtt
#
# Cue numbers, identifiers, timings, cue settings, and WebVTT's header, STYLE and NOTE blocks stay
# byte for byte; only each cue's text is translated. A cue's lines are read as one text (a
# sentence often runs over both lines), with its inline tags (<i>, <b>, <font ...>) as HTML, and
# the translation is cut back into as many lines as the cue had, at the spaces that balance them
# best: a cue stays one cue, on the screen as long as before.

_TAG = re.compile(r"<[^>]*>")


class _Subtitles:
    def __init__(self, data: bytes, extension: str):
        text = _utf8(data).removeprefix(_BOM)
        self.extension = extension
        try:
            if extension == ".srt":
                import srt

                self.cues = list(srt.parse(text))
                texts = [cue.content for cue in self.cues]
            else:
                import webvtt

                self.vtt = webvtt.from_string(text)
                texts = [cue.raw_text for cue in self.vtt.captions]
        except Exception:  # noqa: BLE001 -- whatever fails in parsing an upload is the upload's fault
            raise DocumentError(f"file is not a valid {extension} subtitle file") from None
        self.lines = [[line.strip() for line in t.split("\n") if line.strip()] for t in texts]
        self.chars = sum(len(" ".join(lines)) for lines in self.lines)

    def translate(self, translate: Translate) -> bytes:
        texts = [" ".join(lines) for lines in self.lines]
        tagged = [i for i, t in enumerate(texts) if t and _TAG.search(t)]
        plain = [i for i, t in enumerate(texts) if t and not _TAG.search(t)]
        done = dict(zip(plain, translate([texts[i] for i in plain]) if plain else []))
        done.update(zip(tagged, translate([texts[i] for i in tagged], html=True) if tagged else []))
        out = [lines_like(done[i], len(lines)) if i in done else "\n".join(lines)
               for i, lines in enumerate(self.lines)]
        if self.extension == ".srt":
            import srt

            for cue, text in zip(self.cues, out):
                cue.content = text
            return srt.compose(self.cues, reindex=False).encode("utf-8")
        for cue, text in zip(self.vtt.captions, out):
            cue.text = text
        return self.vtt.content.encode("utf-8")


# ------------------------------------------------------------------------------------------ .json
#
# Localization files map keys (never translated: the program looks them up) to strings, nested in
# objects (i18next, vue-i18n, FormatJS) or lists. Every string value with a letter is translated,
# its format directives ({{name}}, {name}, %s, ICU plurals) protected by the pipeline. The file is
# changed only inside those strings: keys, numbers, order, indentation and line breaks stay byte
# for byte. In Chrome's messages.json (every entry an object with "message"), "description" is a
# note to translators and stays as written.

_JSON_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')
_DESCRIPTION = "description"


class _JsonStrings:
    def __init__(self, data: bytes):
        text = _utf8(data)
        try:
            tree = json.loads(text.removeprefix(_BOM))
        except ValueError as exc:
            raise DocumentError(f"file is not valid JSON: {exc}") from None
        chrome = isinstance(tree, dict) and bool(tree) and all(
            isinstance(v, dict) and "message" in v for v in tree.values())
        self.text = text
        self.values: list[tuple[int, int, str]] = []   # (start, end, decoded) of the strings to translate
        key = None
        for match in _JSON_STRING.finditer(text):
            after = text[match.end():match.end() + 64].lstrip()
            decoded = json.loads(match.group())
            if after.startswith(":"):
                key = decoded
                continue
            if any(c.isalpha() for c in decoded) and not (chrome and key == _DESCRIPTION):
                self.values.append((match.start(), match.end(), decoded))
            key = None
        self.chars = sum(len(value) for _, _, value in self.values)

    def translate(self, translate: Translate) -> bytes:
        cores = [_split_line(value) for _, _, value in self.values]
        done = translate([core for _, core, _ in cores]) if cores else []
        out, position = [], 0
        for (start, end, _), (lead, _, trail), text in zip(self.values, cores, done):
            out += [self.text[position:start], json.dumps(lead + text + trail, ensure_ascii=False)]
            position = end
        out.append(self.text[position:])
        return "".join(out).encode("utf-8")


class _MarkdownFile:
    def __init__(self, data: bytes):
        from .markdown import MarkdownDocument

        text = _utf8(data)
        self.bom = _BOM if text.startswith(_BOM) else ""
        bad = _CONTROL.search(text)
        if bad:
            raise DocumentError(f"file contains a control character (U+{ord(bad.group()):04X})")
        self.document = MarkdownDocument(text[len(self.bom):])
        self.chars = self.document.chars

    def translate(self, translate: Translate) -> bytes:
        return (self.bom + self.document.translate(translate)).encode("utf-8")
