"""Whole files in, translated files out: ``.txt``, ``.html``, ``.docx``, gettext ``.po``/``.pot``,
``.srt``/``.vtt`` subtitles, ``.json`` string files, ``.md`` Markdown, OpenDocument ``.odt``/``.odp``,
``.pptx``, ``.epub`` and ``.pdf`` (translated into a ``.docx``), given a translate function.

``read(extension, data, max_chars=None, *, seconds=READ_SECONDS)`` parses the bytes (raising
``DocumentError`` for input that is not what its extension says, ``DocumentTooLarge`` for a file
over a limit) and returns a document with ``chars``, the amount of text to translate, and
``translate(translate) -> bytes``; ``output_extension`` gives the extension of that result.

Every file is read within a budget (``_Budget``), checked while it is parsed, not after: text is
counted as it is found (paragraph by paragraph, page by page, string by string) and reading stops
with ``DocumentTooLarge`` as soon as it passes ``max_chars`` (None: no limit), or when reading has
taken over ``seconds`` (``READ_SECONDS``, 10; None: no limit). Before anything is extracted: a zip's
declared sizes and parts (MAX_UNPACKED_BYTES, MAX_PARTS) and the tags of its XML (MAX_XML_TAGS);
while it is: paragraphs, empty ones too (MAX_PARAGRAPHS: .docx .odt .odp .pptx), a PDF's content
(MAX_PDF_STREAM_BYTES and MAX_PDF_STREAM_TOKENS per stream, MAX_PDF_CONTENT_BYTES for all pages)
and a .json's nesting (MAX_JSON_DEPTH, a 400; XML over libxml2's 256 levels is a 400 too).
So a small upload cannot hold a worker for long: pypdf is pure Python and keeps gunicorn's
heartbeat alive, so its timeout would never stop it.
``translate(texts, html=False)`` is the service's signature: plain texts, or HTML fragments whose
inline tags follow the words (``pipeline.markup``). Every document makes one call, so all of its
sentences go to the model as one batch.

- ``.txt`` (UTF-8, with or without a BOM): every line is translated on its own; indentation,
  trailing spaces, blank lines and line endings (``\\n`` or ``\\r\\n``) stay exactly as written.
- ``.html``: the whole document through ``pipeline.markup`` (tags and attributes byte for byte,
  but a German ``lang`` says "en").
- ``.docx``: read with python-docx; nothing in the file is ever executed, and a macro-enabled
  document is refused by python-docx as not being a Word document. See ``_WordDocument``.
- ``.po``/``.pot``: a gettext catalog whose ``msgid`` is German, read with polib: the output is the
  English catalog. See ``_Catalog``.
- ``.srt``/``.vtt``: subtitles, read with srt and webvtt-py. See ``_Subtitles``.
- ``.md``: Markdown through ``pipeline.markdown`` (text and headings translated; code, link
  targets, images and HTML as written).
- ``.json``: a localization file (nested objects of strings, as i18next, FormatJS, vue-i18n and
  Chrome's messages use): keys stay, string values are translated. See ``_JsonStrings``.
- ``.odt``/``.odp``: OpenDocument, content.xml read with lxml (no odfpy: see ``_OpenDocument``'s
  notes), paragraphs translated as a .docx's are; every other zip member byte for byte, but for a
  German language in styles.xml and meta.xml, which says English (``_odf_english``).
- ``.pptx``: read with python-pptx; the paragraphs of slides and speaker notes, as a .docx's.
- ``.epub``: each content document's body as an .html file (no ebooklib: it is AGPL).
- ``.pdf``: the text of each page, extracted with pypdf, translated into a .docx (python-docx):
  layout, pictures and fonts are lost. See ``_PdfDocument``.

The zip-based formats share one guard (``_unzip``: MAX_PARTS and MAX_UNPACKED_BYTES checked on
the declared sizes before anything is decompressed) and write back only the members they change
(``_rezip``); the XML read here is parsed with entities, DTDs and the network off (python-docx
and python-pptx resolve no entities either). Nothing in a file is ever run.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import posixpath
import re
import time
import unicodedata
import zipfile
import zlib
from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass, field, fields
from html import escape
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote

import docx
from docx.oxml import OxmlElement
from lxml import etree

from .markup import english_lang
from .segment import lines_like

FORMATS = (".docx", ".epub", ".html", ".json", ".md", ".odp", ".odt", ".pdf", ".po", ".pot", ".pptx", ".srt", ".txt",
           ".vtt")
SUPPORTED = f"{', '.join(FORMATS[:-1])} or {FORMATS[-1]}"   # the formats, as error messages list them
# .docx .pptx .odt .odp .epub are zips: their declared sizes are checked before anything is
# decompressed (zipfile never reads past a declared size), so a small upload cannot unpack into
# gigabytes. MAX_PARTS also bounds a PDF's pages.
MAX_UNPACKED_BYTES = 64 * 1024 * 1024
MAX_PARTS = 1000
# The budgets of reading a file (see the module's notes and ``_Budget``).
READ_SECONDS = 10.0            # read()'s default time budget, per file
MAX_XML_TAGS = 2_000_000       # "<" in a zip's XML, counted before it is parsed: ~20x a big document's
MAX_PARAGRAPHS = 50_000        # paragraphs of a .docx .odt .odp .pptx, empty ones too (table cells)
MAX_PDF_STREAM_BYTES = 4 * 1024 * 1024   # what one PDF stream may unpack to (pypdf's own: 75 MB)
MAX_PDF_CONTENT_BYTES = 8 * 1024 * 1024  # the pages' content streams together, a shared one for each page
MAX_PDF_STREAM_TOKENS = 500_000          # what pypdf may parse of one content stream (its own: 2,000,000)
MAX_JSON_DEPTH = 100           # nesting of a .json: localization files are rarely over 10 deep

Translate = Callable[..., list[str]]   # (texts, html=False) -> one translation per text
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")   # as app.validation: tab, LF, CR are layout
_BOM = "\ufeff"


class DocumentError(ValueError):
    """The file is not what its extension says (a 400); the message says what is wrong."""


class DocumentTooLarge(DocumentError):
    """The file is bigger than a limit (a 413)."""


class _Budget:
    """What reading one file may take: ``max_chars`` characters of text (None: any) and
    ``seconds`` of time (None: any), each checked as reading goes on; also MAX_PARAGRAPHS."""

    def __init__(self, label: str, max_chars: int | None = None, seconds: float | None = None):
        self.label = label
        self.max_chars = max_chars
        self.seconds = seconds
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self.chars = 0
        self.paragraphs = 0

    def add(self, chars: int) -> None:
        """``chars`` more characters of text found; DocumentTooLarge once over ``max_chars``."""
        self.chars += chars
        if self.max_chars is not None and self.chars > self.max_chars:
            raise DocumentTooLarge(f"the {self.label} has more than {self.max_chars} characters of text, over the "
                                   f"limit of {self.max_chars} characters per file")
        self.tick()

    def paragraph(self) -> None:
        """One more paragraph (with text or not) found; DocumentTooLarge over MAX_PARAGRAPHS."""
        self.paragraphs += 1
        if self.paragraphs > MAX_PARAGRAPHS:
            raise DocumentTooLarge(f"the {self.label} has more than {MAX_PARAGRAPHS} paragraphs (empty ones "
                                   f"count too), over the limit of {MAX_PARAGRAPHS}")
        self.tick()

    def tick(self) -> None:
        """DocumentTooLarge once reading has taken over ``seconds``."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise DocumentTooLarge(f"reading the {self.label} took more than {self.seconds:g} seconds, over the "
                                   f"limit of {self.seconds:g} seconds per file: it is too large or too complex")


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


def read(extension: str, data: bytes, max_chars: int | None = None, *, seconds: float | None = READ_SECONDS):
    """The document in ``data`` for the extension (one of ``FORMATS``, lower case), with at most
    ``max_chars`` characters of text (None: no limit), read within ``seconds`` (None: no limit).
    ``DocumentTooLarge`` (a 413) as soon as the file passes a limit, the message naming it;
    ``DocumentError`` (a 400) for a file that is not what its extension says."""
    if extension not in FORMATS:
        raise ValueError(f"unsupported extension {extension!r}; supported: {', '.join(FORMATS)}")
    budget = _Budget(extension, max_chars, seconds)
    if extension == ".docx":
        return _WordDocument(data, budget)
    if extension in (".txt", ".html"):
        return _TextDocument(data, budget, html=extension == ".html")
    if extension in (".po", ".pot"):
        return _Catalog(data, budget)
    if extension in (".srt", ".vtt"):
        return _Subtitles(data, extension, budget)
    if extension == ".json":
        return _JsonStrings(data, budget)
    if extension == ".md":
        return _MarkdownFile(data, budget)
    if extension in (".odt", ".odp"):
        return _OpenDocument(data, extension, budget)
    if extension == ".pptx":
        return _Presentation(data, budget)
    if extension == ".epub":
        return _Epub(data, budget)
    return _PdfDocument(data, budget)


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
    def __init__(self, data: bytes, budget: _Budget, *, html: bool):
        text = _utf8(data)
        budget.add(len(text.removeprefix(_BOM)))
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


# ------------------------------------------------------------------------------ zips and XML
#
# .docx, .pptx, .odt, .odp and .epub are zips. Their declared sizes are checked before anything is
# decompressed (zipfile never reads past a declared size), so a small upload cannot unpack into
# gigabytes, and every member's CRC is checked before any text goes to the model. Only the members
# that hold the text are changed; the others are written back byte for byte. The XML this module
# parses itself is read with entities and DTDs off and nothing fetched, and a DOCTYPE is refused.

_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, RuntimeError,
               NotImplementedError, zlib.error)   # RuntimeError: an encrypted member


_XML_MEMBERS = (".xml", ".rels", ".opf")   # what this module, python-docx or python-pptx parse as XML


def _unzip(data: bytes, label: str, budget: _Budget) -> zipfile.ZipFile:
    """The archive in ``data`` (``label``: its extension, for messages), within MAX_PARTS,
    MAX_UNPACKED_BYTES and MAX_XML_TAGS and with every member readable; DocumentError otherwise.
    The tags are counted as the "<" of the XML members (text and attribute values cannot hold
    one), before any is parsed: a tree of millions of tiny elements takes 15 to 20 times their
    bytes (8 MiB of <text:p/>: ~120 MiB)."""
    invalid = DocumentError(f"file is not a valid {label} document")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except _ZIP_ERRORS:
        raise invalid from None
    unpacked = sum(info.file_size for info in infos)
    if len(infos) > MAX_PARTS:
        raise DocumentTooLarge(f"the {label} has {len(infos)} parts, over the limit of {MAX_PARTS}")
    if unpacked > MAX_UNPACKED_BYTES:
        raise DocumentTooLarge(f"the {label} unpacks to {unpacked} bytes, over the limit of "
                               f"{MAX_UNPACKED_BYTES} bytes")
    tags = 0
    for info in infos:   # each member read once: its CRC checked, its XML's tags counted
        try:
            member = archive.read(info)
        except _ZIP_ERRORS:
            raise invalid from None
        if info.filename.lower().endswith(_XML_MEMBERS):
            tags += member.count(b"<")
        budget.tick()
    if tags > MAX_XML_TAGS:
        raise DocumentTooLarge(f"the {label} has {tags} XML tags, over the limit of {MAX_XML_TAGS}")
    return archive


def _rezip(archive: zipfile.ZipFile, changed: dict[str, bytes], *, mimetype_first: bool = False) -> bytes:
    """The archive with the members in ``changed`` replaced and every other member's bytes as they
    were, in their order; with ``mimetype_first`` (ODF, EPUB) the ``mimetype`` member first and
    stored uncompressed, as those formats require."""
    infos = archive.infolist()
    if mimetype_first:
        infos.sort(key=lambda info: info.filename != "mimetype")   # stable: the rest in order
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as new:
        for info in infos:
            member = zipfile.ZipInfo(info.filename, info.date_time)
            member.external_attr = info.external_attr
            stored = info.compress_type == zipfile.ZIP_STORED or (mimetype_first and info.filename == "mimetype")
            member.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            new.writestr(member, changed[info.filename] if info.filename in changed else archive.read(info))
    return out.getvalue()


def _member(archive: zipfile.ZipFile, name: str, label: str) -> bytes:
    try:
        return archive.read(name)
    except KeyError:
        raise DocumentError(f"file is not a valid {label} document: it has no {name}") from None


_XML_CHUNK = 64 * 1024
_XML_DEPTH = 256   # libxml2's: deeper elements are an error (its XML_PARSE_HUGE is never set)


def _xml_error(exc: Exception, name: str, label: str) -> DocumentError:
    """The DocumentError of XML (the member ``name``; "its XML" where unknown) that lxml refused."""
    if isinstance(exc, etree.XMLSyntaxError) and "Excessive depth" in str(exc):
        return DocumentError(f"file is not a valid {label} document: {name} is nested more than {_XML_DEPTH} "
                             f"elements deep, over the limit of {_XML_DEPTH}")
    return DocumentError(f"file is not a valid {label} document: {name} is not well-formed XML")


def _parse_xml(data: bytes, name: str, label: str, paragraphs: tuple[str, ...] = (),
               budget: _Budget | None = None) -> Any:
    """The root element of the XML member ``name``: no entity expanded, no DTD loaded, nothing
    fetched, and a document with a DOCTYPE refused (none of these formats has one). With
    ``paragraphs`` (tags) the elements of those tags are counted as the tree is built, which stops
    with DocumentTooLarge once they pass MAX_PARAGRAPHS (and at the ``budget``'s deadline)."""
    options = {"resolve_entities": False, "no_network": True, "load_dtd": False}
    try:
        if not paragraphs:
            root = etree.fromstring(data, etree.XMLParser(**options))
        else:
            parser = etree.XMLPullParser(events=("start",), tag=paragraphs, **options)
            count = 0
            for start in range(0, len(data), _XML_CHUNK):
                parser.feed(data[start:start + _XML_CHUNK])
                count += sum(1 for _ in parser.read_events())
                if count > MAX_PARAGRAPHS:
                    raise DocumentTooLarge(f"the {label} has more than {MAX_PARAGRAPHS} paragraphs (empty ones "
                                           f"count too), over the limit of {MAX_PARAGRAPHS}")
                if budget is not None:
                    budget.tick()
            root = parser.close()
    except etree.XMLSyntaxError as exc:
        raise _xml_error(exc, name, label) from None
    if root.getroottree().docinfo.doctype:
        raise DocumentError(f"file is not a valid {label} document: {name} has a DOCTYPE, which is refused")
    return root


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
    breaks: list[tuple[Any, int | None]] = field(default_factory=list)  # data-b: (the break, its run)
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


def _counted(elements: Any, scan: Callable[[Any], _Paragraph | None], budget: _Budget) -> list[_Paragraph]:
    """The paragraphs with text of the paragraph ``elements`` (an iterator: taken one at a time),
    each counted in ``budget`` before it is scanned and its text counted after."""
    paragraphs = []
    for element in elements:
        budget.paragraph()
        para = scan(element)
        if para is not None:
            budget.add(para.chars)
            paragraphs.append(para)
    return paragraphs


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


def _tokens(para: _Paragraph, translated: str) -> list[_Token]:
    """The translated fragment of ``para`` as tokens, spaced as the source was."""
    reader = _Reader()
    reader.feed(translated)
    reader.close()
    _spacing(para, reader.tokens)
    return reader.tokens


def _rebuild(para: _Paragraph, translated: str) -> None:
    """Replace the paragraph's content with runs made from its translated fragment."""
    tokens = _tokens(para, translated)
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
    def __init__(self, data: bytes, budget: _Budget):
        _unzip(data, ".docx", budget).close()
        try:
            self.document = docx.Document(io.BytesIO(data))
        except etree.XMLSyntaxError as exc:
            raise _xml_error(exc, "its XML", ".docx") from None
        except Exception:  # noqa: BLE001 -- whatever fails in parsing an upload is the upload's fault
            raise DocumentError("file is not a valid .docx document") from None
        parts = [part for part in self.document.part.package.iter_parts()
                 if part.content_type.endswith(_TEXT_PARTS) and hasattr(part, "element")]
        self.paragraphs = _counted((p for part in parts for p in part.element.iter(_W + "p")), _scan, budget)
        self.chars = sum(para.chars for para in self.paragraphs)

    def translate(self, translate: Translate) -> bytes:
        outputs = translate(["".join(para.html) for para in self.paragraphs], html=True) if self.paragraphs else []
        for para, output in zip(self.paragraphs, outputs, strict=True):
            _rebuild(para, output)
        self.english_language()
        out = io.BytesIO()
        self.document.save(out)
        return out.getvalue()

    def english_language(self) -> None:
        """The translation's language where the document names German: its runs' and styles'
        w:lang, the theme's w:themeFontLang and the core properties' language."""
        for part in self.document.part.package.iter_parts():
            element = getattr(part, "element", None)
            if element is None or not hasattr(element, "iter"):
                continue
            for lang in element.iter(_W + "lang", _W + "themeFontLang"):
                for name in (_W + "val", _W + "eastAsia", _W + "bidi"):
                    if _german_tag(lang.get(name)):
                        lang.set(name, "en-US")
            for language in element.iter(_DC + "language"):   # docProps/core.xml, where there is one
                if _german_tag(language.text):
                    language.text = "en-US"


_DC = "{http://purl.org/dc/elements/1.1/}"


def _german_tag(tag: str | None) -> bool:
    """Whether a language tag ("de", "de-DE", "de_AT") is German."""
    return (tag or "").strip().lower().replace("_", "-").split("-")[0] == "de"


# ------------------------------------------------------------------------------------ .odt / .odp
#
# OpenDocument text and presentations: zipfile and lxml, not odfpy. Only content.xml holds the
# text to translate, and every other member (pictures, styles.xml, meta.xml, settings, the
# thumbnail, macros, which are never run) must come back byte for byte (a German fo:language or
# dc:language aside, _odf_english): zipfile gives exactly
# that, where odfpy (last released in 2020) loads the whole package into its own object model and
# writes every part back itself; lxml is already the XML library under python-docx and python-pptx.
#
# Each paragraph and heading (text:p, text:h, in tables, lists, frames, text boxes, the slides'
# shapes and their speaker notes) is one HTML fragment, translated as the paragraphs of a .docx
# are: each stretch of text is a <span data-r> of its spans (text:span, nested ones too), whose
# formatting then follows its words; text outside every span takes the paragraph's own. A link
# (text:a) is <a data-c> around its spans; a tab (text:tab) stays between its words, a line break
# (text:line-break) cuts the paragraph into lines translated apart. Anything else in a paragraph
# (a frame with its picture or text box, a note mark, a field, a bookmark) is moved as written,
# inside its span's formatting, next to the words it stood beside; the paragraphs of a text box
# are translated on their own. Whitespace is read as ODF collapses it (text:s counts its spaces)
# and written so that it shows as translated. Footnotes, endnotes (text:note), comments
# (office:annotation) and tracked deletions stay untranslated, as do the headers, footers and
# master pages of styles.xml.

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_ODF_MIMETYPES = {".odt": "application/vnd.oasis.opendocument.text",
                  ".odp": "application/vnd.oasis.opendocument.presentation"}
_ODF_UNTRANSLATED = {_TEXT + "note", _OFFICE + "annotation", _TEXT + "tracked-changes"}
_ODF_DROPPED = {_TEXT + "soft-page-break"}   # a layout hint, stale after translation
_ODF_SPACE = re.compile(r"[ \t\r\n]+")       # what ODF collapses into one space
_SPACES = re.compile(r" +")


def _odf_translated(p: Any) -> _Paragraph | None:
    """``_odf_scan`` of a paragraph outside notes, comments and tracked changes; None inside."""
    return None if any(a.tag in _ODF_UNTRANSLATED for a in p.iterancestors()) else _odf_scan(p)


def _odf_scan(p: Any) -> _Paragraph | None:
    para = _Paragraph(p)
    _odf_children(para, p, (), None)
    return para if "".join(para.text).strip() else None


def _odf_text(para: _Paragraph, text: str, chain: tuple[Any, ...], scope: int | None, *, literal: bool = False) -> None:
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


def _odf_children(para: _Paragraph, element: Any, chain: tuple[Any, ...], scope: int | None) -> None:
    if element.text:
        _odf_text(para, element.text, chain, scope)
    for child in element:
        tag = child.tag
        if not isinstance(tag, str) or tag in _ODF_DROPPED:
            pass   # XML comments, stale hints; their tails are read below
        elif tag == _TEXT + "span":
            _odf_children(para, child, chain + (child,), scope)
        elif tag == _TEXT + "a" and scope is None:
            para.emit(f'<a data-c="{len(para.containers)}">')
            para.containers.append(child)
            _odf_children(para, child, chain, len(para.containers) - 1)
            para.emit("</a>")
        elif tag == _TEXT + "s":
            count = child.get(_TEXT + "c", "1")
            _odf_text(para, " " * (int(count) if count.isdigit() else 1), chain, scope, literal=True)
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
            _odf_text(para, child.tail, chain, scope)


def _odf_append(parent: Any, item: Any) -> None:
    """Text or an element at the end of ``parent``'s content."""
    if not isinstance(item, str):
        item.tail = None
        parent.append(item)
    elif len(parent):
        parent[-1].tail = (parent[-1].tail or "") + item
    else:
        parent.text = (parent.text or "") + item


def _odf_write(parent: Any, text: str, first: bool) -> None:
    """``text`` at the end of ``parent``, each space that ODF would collapse as a text:s."""
    position = 0
    for match in _SPACES.finditer(text):
        keep = 0 if first and match.start() == 0 else 1   # a paragraph's leading space would vanish
        _odf_append(parent, text[position:match.start()] + " " * keep)
        if len(match.group()) > keep:
            extra = etree.SubElement(parent, _TEXT + "s")
            if len(match.group()) - keep > 1:
                extra.set(_TEXT + "c", str(len(match.group()) - keep))
        position = match.end()
    _odf_append(parent, text[position:])


def _odf_rebuild(para: _Paragraph, translated: str) -> None:
    tokens = _tokens(para, translated)
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
            _odf_append(p, parent)
            placed.add(token.container)
            last = None
        if token.kind in ("atom", "tab", "br"):
            items = (para.atoms[token.value] if token.kind == "atom" else
                     [etree.Element(_TEXT + "tab")] if token.kind == "tab" else [deepcopy(para.breaks[token.value][0])])
            for item in items:
                _odf_append(parent, item)
            last, first = None, False
            continue
        if token.kind == "open" or (token.kind == "text" and not token.value):
            continue
        owner = token.run if token.run is not None else para.dominant(token.container)
        chain = para.runs[owner] if owner is not None else ()
        key = tuple((span.tag, sorted(span.attrib.items())) for span in chain)
        if last is None or last[0] is not parent or last[2] != key:
            inner = parent
            for span in chain:   # the spans' formatting, without their old content
                inner = etree.SubElement(inner, span.tag, dict(span.attrib))
            last = (parent, inner, key)
        if token.kind == "inline":
            _odf_append(last[1], para.inline[token.value])
        else:
            _odf_write(last[1], token.value, first)
        first = False
    # Nothing may be lost, even if the fragment came back without one of its points.
    for index, container in enumerate(para.containers):
        if index not in placed:
            _odf_append(p, container)
    for element in [e for atom in para.atoms for e in atom] + para.inline:
        if not any(ancestor is p for ancestor in element.iterancestors()):
            _odf_append(p, element)


class _OpenDocument:
    def __init__(self, data: bytes, extension: str, budget: _Budget):
        self.archive = archive = _unzip(data, extension, budget)
        if _member(archive, "mimetype", extension).strip() != _ODF_MIMETYPES[extension].encode():
            raise DocumentError(f"file is not a valid {extension} document")
        if b"encryption-data" in _member(archive, "META-INF/manifest.xml", extension):
            raise DocumentError(f"encrypted {extension}: it needs a password to be opened")
        self.root = _parse_xml(_member(archive, "content.xml", extension), "content.xml", extension,
                               (_TEXT + "p", _TEXT + "h"), budget)
        body = self.root.find(_OFFICE + "body")
        if self.root.tag != _OFFICE + "document-content" or body is None:
            raise DocumentError(f"file is not a valid {extension} document")
        self.paragraphs = _counted(body.iter(_TEXT + "p", _TEXT + "h"), _odf_translated, budget)
        self.chars = sum(para.chars for para in self.paragraphs)

    def translate(self, translate: Translate) -> bytes:
        if not self.paragraphs:
            return _rezip(self.archive, {}, mimetype_first=True)
        outputs = translate(["".join(para.html) for para in self.paragraphs], html=True)
        for para, output in zip(self.paragraphs, outputs, strict=True):
            _odf_rebuild(para, output)
        content = etree.tostring(self.root, xml_declaration=True, encoding="UTF-8")
        changed = {"content.xml": _odf_english(content)}
        for name in ("styles.xml", "meta.xml"):   # where the default language and the document's are
            if name in self.archive.namelist():
                original = self.archive.read(name)
                if (english := _odf_english(original)) != original:
                    changed[name] = english
        return _rezip(self.archive, changed, mimetype_first=True)


# The translation's language in the document's metadata: a German fo:language (with its country)
# in a style and a German dc:language say English, so that spelling checkers and screen readers
# treat the text as English. Nothing else of those members changes.
_ODF_TAG = re.compile(r"<[A-Za-z][^<>]*+>")
_FO_GERMAN = re.compile(r"""(?<=\s)(fo:language=)(["'])de\2""")
_FO_COUNTRY = re.compile(r"""(?<=\s)(fo:country=)(["'])[A-Za-z]{2}\2""")


def _odf_english(xml: bytes) -> bytes:
    """``xml`` (UTF-8) with German language attributes and dc:language made English."""
    try:
        text = xml.decode("utf-8")
    except UnicodeDecodeError:
        return xml

    def tag(match: re.Match[str]) -> str:
        if not _FO_GERMAN.search(match[0]):
            return match[0]
        english = _FO_GERMAN.sub(lambda m: f"{m[1]}{m[2]}en{m[2]}", match[0])
        return _FO_COUNTRY.sub(lambda m: f"{m[1]}{m[2]}US{m[2]}", english)

    english = _DC_GERMAN.sub(r"\1en\2", _ODF_TAG.sub(tag, text) if "fo:language" in text else text)
    return xml if english == text else english.encode("utf-8")


# ------------------------------------------------------------------------------------------ .pptx
#
# Read with python-pptx, which finds the slides and their speaker notes through the package's
# relationships (and refuses what is no presentation; a macro-enabled one is refused here, though
# nothing in a file is ever run). Every DrawingML paragraph (a:p) of every slide, in its shapes,
# groups and tables, and of its speaker notes is translated as a .docx paragraph is: each run
# (a:r) is a <span data-r>, so that its formatting (a:rPr: bold, colour, a hyperlink) follows its
# words; a tab stays between its words, a line break (a:br) cuts the paragraph into lines
# translated apart, and fields (a:fld: the slide number, a date) are moved as written. Only the
# slides and notes that had text are written anew; every other member of the zip (pictures,
# layouts, masters, charts, SmartArt, media) stays byte for byte, untranslated.

_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_PPTX_KEPT = {_A + "pPr", _A + "endParaRPr"}   # the paragraph's properties, first and last


def _pptx_scan(p: Any) -> _Paragraph | None:
    para = _Paragraph(p)
    for child in p:
        tag = child.tag
        if not isinstance(tag, str) or tag in _PPTX_KEPT:
            continue
        if tag == _A + "r":
            para.runs.append(child)
            para.run_scope.append(None)
            para.run_chars.append(0)
            para.emit(f'<span data-r="{len(para.runs) - 1}">')
            for i, piece in enumerate((child.findtext(_A + "t") or "").split("\t")):
                if i:
                    para.point('data-t=""', separator=True)
                if piece:
                    para.add_text(piece)
            para.emit("</span>")
        elif tag == _A + "br":
            para.emit(f'<br data-b="{len(para.breaks)}">')
            para.breaks.append((child, None))
        else:   # a field, an equation ...: as written
            para.atom(child)
    return para if "".join(para.text).strip() else None


def _pptx_rebuild(para: _Paragraph, translated: str) -> None:
    tokens = _tokens(para, translated)
    p = para.element
    for child in [c for c in p if c.tag not in _PPTX_KEPT]:
        p.remove(child)
    end = p.find(_A + "endParaRPr")
    add = end.addprevious if end is not None else p.append
    last: tuple[Any, bytes] | None = None   # (a:r, formatting) that text may extend
    for token in tokens:
        if token.kind in ("atom", "br"):
            for element in para.atoms[token.value] if token.kind == "atom" else [deepcopy(para.breaks[token.value][0])]:
                add(element)
            last = None
            continue
        if token.kind == "open" or (token.kind == "text" and not token.value):
            continue
        owner = token.run if token.run is not None else para.dominant(None)
        source = para.runs[owner] if owner is not None else None
        rpr = source.find(_A + "rPr") if source is not None else None
        key = etree.tostring(rpr) if rpr is not None else b""
        if last is None or last[1] != key:
            run = etree.Element(_A + "r")
            if rpr is not None:
                run.append(deepcopy(rpr))
            etree.SubElement(run, _A + "t").text = ""
            add(run)
            last = (run, key)
        last[0][-1].text += "\t" if token.kind == "tab" else token.value
    for atom in para.atoms:   # nothing may be lost, even if the fragment came back without a point
        for element in atom:
            if element.getparent() is None:
                add(element)


class _Presentation:
    def __init__(self, data: bytes, budget: _Budget):
        import pptx
        from pptx.opc.constants import CONTENT_TYPE

        self.archive = _unzip(data, ".pptx", budget)
        try:
            presentation = pptx.Presentation(io.BytesIO(data))
        except etree.XMLSyntaxError as exc:
            raise _xml_error(exc, "its XML", ".pptx") from None
        except Exception:  # noqa: BLE001 -- whatever fails in parsing an upload is the upload's fault
            raise DocumentError("file is not a valid .pptx document") from None
        if presentation.part.content_type != CONTENT_TYPE.PML_PRESENTATION_MAIN:
            raise DocumentError("file is not a valid .pptx document: macro-enabled presentations are refused")
        self.parts: list[tuple[Any, list[_Paragraph]]] = []   # (slide or notes part, its paragraphs)
        for slide in presentation.slides:
            for owner in [slide, slide.notes_slide] if slide.has_notes_slide else [slide]:
                paragraphs = _counted(owner.element.iter(_A + "p"), _pptx_scan, budget)
                if paragraphs:
                    self.parts.append((owner.part, paragraphs))
        self.chars = sum(para.chars for _, paragraphs in self.parts for para in paragraphs)

    def translate(self, translate: Translate) -> bytes:
        paragraphs = [para for _, found in self.parts for para in found]
        outputs = translate(["".join(para.html) for para in paragraphs], html=True) if paragraphs else []
        for para, output in zip(paragraphs, outputs, strict=True):
            _pptx_rebuild(para, output)
        return _rezip(self.archive, {part.partname.membername: part.blob for part, _ in self.parts})


# ------------------------------------------------------------------------------------------ .epub
#
# An EPUB is a zip of XHTML documents (no ebooklib: it is AGPL). META-INF/container.xml names the
# package document (OPF), whose manifest lists the content documents (application/xhtml+xml, the
# EPUB 3 navigation document among them). The body of each is translated as an .html file is
# (pipeline.markup: tags and attributes byte for byte, text escaped, so the XHTML stays
# well-formed); everything else, the head, the package document with its metadata, the EPUB 2 table
# of contents (toc.ncx), stylesheets, fonts, pictures, stays byte for byte, untranslated. A book
# whose content documents are encrypted (DRM; META-INF/encryption.xml) is refused; obfuscated fonts
# are fine.

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_XMLENC = "{http://www.w3.org/2001/04/xmlenc#}"
# The body is what lies between the first opening tag and the last closing one, found in linear
# time (a pattern "<body...>(.*)</body>" backtracks quadratically over many <body> tags): an
# attribute's value in XHTML cannot hold a "<", so an opening tag ends before the next one.
_BODY_OPEN = re.compile(r"<body(?:\s[^<>]*)?>", re.I)
_BODY_CLOSE = re.compile(r"</body\s*>", re.I)
_XML_ENCODING = re.compile(r"""^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)""")


def _body(text: str) -> tuple[int, int] | None:
    """Where the body's content begins and ends in an XHTML ``text``; None without a body."""
    opening = _BODY_OPEN.search(text)
    if opening is None:
        return None
    end = None
    for end in _BODY_CLOSE.finditer(text, opening.end()):
        pass
    return (opening.end(), end.start()) if end is not None else None


_DC_GERMAN = re.compile(r"(<(?:[A-Za-z_][\w.-]*:)?language\b[^<>]*+>)[ \t\r\n]*+de(?:[-_][A-Za-z0-9]+)*+[ \t\r\n]*+(</)",
                        re.IGNORECASE)   # the package's <dc:language>de-DE</dc:language>


class _Epub:
    def __init__(self, data: bytes, budget: _Budget):
        self.archive = archive = _unzip(data, ".epub", budget)
        if _member(archive, "mimetype", ".epub").strip() != b"application/epub+zip":
            raise DocumentError("file is not a valid .epub document")
        container = _parse_xml(_member(archive, "META-INF/container.xml", ".epub"), "META-INF/container.xml", ".epub")
        rootfile = container.find(f"{_CONTAINER}rootfiles/{_CONTAINER}rootfile")
        path = rootfile.get("full-path", "") if rootfile is not None else ""
        package = _parse_xml(_member(archive, path, ".epub"), path, ".epub") if path else None
        if package is None or package.tag != _OPF + "package":
            raise DocumentError("file is not a valid .epub document: it has no package document")
        names = set(archive.namelist())
        self.package = (path, _member(archive, path, ".epub"))
        documents = []
        for item in package.iter(_OPF + "item"):
            href = posixpath.normpath(posixpath.join(posixpath.dirname(path), unquote(item.get("href", ""))))
            if item.get("media-type") == "application/xhtml+xml" and href in names and href not in documents:
                documents.append(href)
        if "META-INF/encryption.xml" in names:
            encryption = _parse_xml(archive.read("META-INF/encryption.xml"), "META-INF/encryption.xml", ".epub")
            encrypted = {unquote(r.get("URI", "")) for r in encryption.iter(_XMLENC + "CipherReference")}
            if encrypted & set(documents):
                raise DocumentError("encrypted EPUB: its text is protected (DRM) and cannot be read")
        self.bodies: list[tuple[str, str, str, str]] = []   # (name, before the body's text, it, after it)
        for name in documents:
            budget.tick()
            try:
                text = archive.read(name).decode("utf-8")
            except UnicodeDecodeError:
                raise DocumentError(f"file is not a valid .epub document: {name} is not UTF-8 text") from None
            declared = _XML_ENCODING.match(text.removeprefix(_BOM))
            if declared and declared.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
                raise DocumentError(f"file is not a valid .epub document: {name} is not UTF-8 text")
            body = _body(text)
            if body and text[body[0]:body[1]].strip():
                budget.add(body[1] - body[0])   # the body goes to the model as it is, tags and all
                self.bodies.append((name, text[:body[0]], text[body[0]:body[1]], text[body[1]:]))
        self.chars = sum(len(body) for _, _, body, _ in self.bodies)

    def translate(self, translate: Translate) -> bytes:
        outputs = translate([body for _, _, body, _ in self.bodies], html=True) if self.bodies else []
        # The head's lang (the body's own are translate_html's) and the package's dc:language say English.
        changed = {name: (english_lang(before) + output + after).encode("utf-8")
                   for (name, before, _, after), output in zip(self.bodies, outputs, strict=True)}
        path, package = self.package
        try:
            english = _DC_GERMAN.sub(r"\1en\2", package.decode("utf-8")).encode("utf-8")
        except UnicodeDecodeError:   # a package in another encoding keeps its metadata as written
            english = package
        if english != package:
            changed[path] = english
        return _rezip(self.archive, changed, mimetype_first=True)


# ------------------------------------------------------------------------------------------- .pdf
#
# A PDF is a page description, not a text with a structure: pypdf (BSD) extracts each page's text
# as lines, and the translation comes back as a .docx (python-docx), one paragraph per paragraph
# found and each page after the first starting on a new page. Layout, columns, fonts, pictures,
# tables, links and annotations are lost. Paragraphs are found from the lines: a blank line ends
# one, and so does a line clearly shorter than the page's longest (the last line of a paragraph,
# a heading, a list item) unless the next begins in lower case; a word hyphenated at a line's end
# is joined again ("Zusammen-" "fassung"), unless the next line goes on with "und", "oder" ... as
# German coordination does ("Ein- und Ausgang"). A PDF encrypted with a password is refused (one
# only restricted by its owner, with an empty user password, is read); pages beyond MAX_PARTS are
# refused. A PDF without text (scanned pages) is refused: it needs OCR first.
#
# Pages are read one at a time, and reading stops as soon as the text passes the budget's
# characters or time: pypdf's visitor sees each piece of text as it is shown (and each form
# drawn), so even one page's text is counted while it is extracted, and the time is checked at
# each operator. Only the parsing of a content stream, which comes first, cannot be stopped, and
# pages may share one stream, which pypdf parses again for each (a few microseconds a token, in
# pure Python). So what one stream may unpack to is MAX_PDF_STREAM_BYTES and how much of it may
# be parsed MAX_PDF_STREAM_TOKENS (pypdf's own limits, 75 MB and 2 million tokens, mean up to a
# minute for one page; a page of text has a few thousand), set through pypdf's configuration
# where it has one (pypdf 6 and later); and the pages' content together, a stream that pages
# share counted for each, is at most MAX_PDF_CONTENT_BYTES, checked before each page is parsed.
# The longest a PDF can take is then the time budget and one stream's parsing.

_RESULTS = {".pdf": ".docx"}   # formats whose translation comes back as another
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")   # nor .docx text
_HYPHENATED = re.compile(r"[^\W\d_]-$")
_COORDINATIONS = frozenset(("und", "oder", "bis", "bzw.", "sowie", "als", "wie"))
_SHORT_LINE = 0.75
_PDF_UNCOUNTED = re.compile(r"[\s\-]|" + _NOT_XML.pattern)   # what pdf_paragraphs may drop
_PDF_STREAM_LIMITS = ("zlib_maximum_output_length", "lzw_maximum_output_length", "run_length_maximum_output_length",
                      "array_based_stream_maximum_output_length", "brotli_maximum_output_length")


def output_extension(extension: str) -> str:
    """The extension of the translated file of an ``extension`` file: its own, or .docx for .pdf."""
    return _RESULTS.get(extension, extension)


def pdf_paragraphs(text: str) -> list[str]:
    """The paragraphs in a page's extracted ``text``, each on one line (see the notes above)."""
    lines = [" ".join(line.split()) for line in _NOT_XML.sub("", text).split("\n")]
    width = max(map(len, lines), default=0)
    paragraphs, current = [], ""
    for i, line in enumerate(lines):
        if not line:
            paragraphs.append(current)
            current = ""
            continue
        if not current:
            current = line
        elif not _HYPHENATED.search(current):
            current += " " + line
        elif line.split()[0] in _COORDINATIONS:
            current += " " + line
        else:
            current = (current[:-1] if line[0].islower() else current) + line
        follows = lines[i + 1] if i + 1 < len(lines) else ""
        if len(line) < _SHORT_LINE * width and not _HYPHENATED.search(line) and not follows[:1].islower():
            paragraphs.append(current)
            current = ""
    paragraphs.append(current)
    return [p for p in paragraphs if p]


def _pdf_too_complex() -> DocumentTooLarge:
    return DocumentTooLarge(f"the .pdf has a stream over the limits of reading PDFs: {MAX_PDF_STREAM_BYTES} bytes "
                            f"unpacked, {MAX_PDF_STREAM_TOKENS} tokens parsed")


def _pdf_limits() -> Any:
    """A context in which pypdf unpacks no stream to more than MAX_PDF_STREAM_BYTES and parses
    no more than MAX_PDF_STREAM_TOKENS of one (nothing changed with a pypdf without
    ``apply_configuration``, before 6)."""
    import pypdf

    apply = getattr(pypdf, "apply_configuration", None)
    if apply is None:
        return contextlib.nullcontext()
    known = {f.name for f in fields(pypdf.Configuration)}
    limits = {name: MAX_PDF_STREAM_BYTES for name in _PDF_STREAM_LIMITS}
    limits["stream_parsing_work_maximum_count"] = MAX_PDF_STREAM_TOKENS
    return apply(**{name: value for name, value in limits.items() if name in known})


class _PdfDocument:
    def __init__(self, data: bytes, budget: _Budget):
        with _pdf_limits():
            self._read(data, budget)

    def _read(self, data: bytes, budget: _Budget) -> None:
        import pypdf
        from pypdf import errors
        from pypdf.errors import DependencyError

        too_much = getattr(errors, "LimitReachedError", ())   # pypdf 5.1 and later

        # pypdf warns of each flaw of the file it reads: a client's upload, not the server's state.
        logging.getLogger("pypdf").setLevel(logging.ERROR)
        try:
            reader = pypdf.PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                raise DocumentError("encrypted PDF: it needs a password to be opened")
            count = len(reader.pages)
        except DocumentError:
            raise
        except DependencyError:
            raise DocumentError("encrypted PDF: its encryption cannot be read here") from None
        except Exception:  # noqa: BLE001 -- whatever fails in parsing an upload is the upload's fault
            raise DocumentError("file is not a valid .pdf document") from None
        if count > MAX_PARTS:
            raise DocumentTooLarge(f"the .pdf has {count} pages, over the limit of {MAX_PARTS}")
        self.pages: list[list[str]] = []
        content = 0   # bytes of the pages' content streams, as parsed
        for page in reader.pages:
            budget.tick()
            try:
                contents = page.get_contents()
                content += len(contents.get_data()) if contents is not None else 0
            except too_much:
                raise _pdf_too_complex() from None
            except Exception:  # noqa: BLE001
                raise DocumentError("file is not a valid .pdf document") from None
            if content > MAX_PDF_CONTENT_BYTES:
                raise DocumentTooLarge(f"the .pdf's pages have more than {MAX_PDF_CONTENT_BYTES} bytes of content (a "
                                       f"stream that pages share counts for each), over the limit of "
                                       f"{MAX_PDF_CONTENT_BYTES}")
            seen = [budget.chars]   # at least the page's text so far, in what pdf_paragraphs keeps

            def shown(text: str, *_: Any) -> None:
                seen[0] += len(_PDF_UNCOUNTED.sub("", text))
                if budget.max_chars is not None and seen[0] > budget.max_chars:
                    budget.add(seen[0] - budget.chars)   # raises: over the limit, halfway through the page
                budget.tick()

            try:
                paragraphs = pdf_paragraphs(page.extract_text(visitor_text=shown,
                                                              visitor_operand_before=lambda *_: budget.tick()))
            except DocumentError:
                raise
            except too_much:
                raise _pdf_too_complex() from None
            except Exception:  # noqa: BLE001
                raise DocumentError("file is not a valid .pdf document") from None
            budget.add(sum(len(p) for p in paragraphs))
            self.pages.append(paragraphs)
        self.chars = sum(len(p) for page in self.pages for p in page)
        if not self.chars:
            raise DocumentError("the .pdf has no text to translate (scanned pages need OCR first)")

    def translate(self, translate: Translate) -> bytes:
        done = iter(translate([p for page in self.pages for p in page]))
        document = docx.Document()
        for number, page in enumerate(self.pages):
            paragraphs = [document.add_paragraph(_NOT_XML.sub("", next(done))) for _ in page] or [document.add_paragraph()]
            if number:
                paragraphs[0].paragraph_format.page_break_before = True
        out = io.BytesIO()
        document.save(out)
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
    def __init__(self, data: bytes, budget: _Budget):
        import polib  # the parser of the data layer's gettext reader (model.data.gettext)

        text = _utf8(data).removeprefix(_BOM)
        try:
            self.catalog = polib.pofile(text, wrapwidth=78)
        except (OSError, ValueError) as exc:
            raise DocumentError(f"file is not a valid gettext catalog: {str(exc).strip()}") from None
        self.entries = [e for e in self.catalog if not e.obsolete and e.msgid]
        self.chars = sum(len(e.msgid) + len(e.msgid_plural or "") for e in self.entries)
        budget.add(self.chars)

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
    def __init__(self, data: bytes, extension: str, budget: _Budget):
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
        budget.add(self.chars)

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
# note to translators and stays as written. A file nested over MAX_JSON_DEPTH deep is refused (a
# 400: it is no localization file), before Python's recursion limit would turn it into a 500.

_JSON_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')
_JSON_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')   # linear on valid JSON only
_DESCRIPTION = "description"


def json_depth(text: str) -> int:
    """How deep the arrays and objects of the valid JSON ``text`` are nested (0: a scalar)."""
    depth = deepest = 0
    for match in _JSON_NESTING.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


class _JsonStrings:
    def __init__(self, data: bytes, budget: _Budget):
        text = _utf8(data)
        too_deep = DocumentError(f"the .json is nested more than {MAX_JSON_DEPTH} deep, over the limit of "
                                 f"{MAX_JSON_DEPTH} (localization files are rarely more than 10 deep)")
        try:
            tree = json.loads(text.removeprefix(_BOM))
        except ValueError as exc:
            raise DocumentError(f"file is not valid JSON: {exc}") from None
        except RecursionError:   # deeper than Python's recursion limit: far over ours
            raise too_deep from None
        if json_depth(text) > MAX_JSON_DEPTH:
            raise too_deep
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
                budget.add(len(decoded))
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
    def __init__(self, data: bytes, budget: _Budget):
        from .markdown import MarkdownDocument

        text = _utf8(data)
        self.bom = _BOM if text.startswith(_BOM) else ""
        bad = _CONTROL.search(text)
        if bad:
            raise DocumentError(f"file contains a control character (U+{ord(bad.group()):04X})")
        self.document = MarkdownDocument(text[len(self.bom):])
        self.chars = self.document.chars
        budget.add(self.chars)

    def translate(self, translate: Translate) -> bytes:
        return (self.bom + self.document.translate(translate)).encode("utf-8")
