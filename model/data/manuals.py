"""Manuals translated element by element: the Debian Reference and GNOME's help, as sentence pairs.

Both are instructional prose of a kind the other corpora lack: whole paragraphs that explain
("Wenn das Netzwerk passwortgeschützt ist, geben Sie das Passwort ein, wenn es verlangt wird.").
Their translations are made from gettext catalogs of the original's elements (po4a, itstool), so
a German page has exactly the blocks of its English one, in the same order, and the blocks pair
by position:

* ``read_debian_reference(DIR)``: the ``NAME.de.html`` + ``NAME.en.html`` pages of
  ``/usr/share/debian-reference`` (Debian packages ``debian-reference-de`` and ``-en``, GPL-2+).
  The blocks are the HTML paragraphs, headings, list terms and table cells; code (``pre``) is
  left out.
* ``read_mallard(ROOT)``: the Mallard pages of a help root holding ``C/`` (the English original)
  and ``de/`` (``/usr/share/help``: ``gnome-user-docs``' ``gnome-help`` and
  ``system-admin-guide``, CC BY-SA 3.0, and the help of any other program installed there). The
  blocks are ``p``, ``title``, ``subtitle`` and ``desc``; editors' ``comment`` is left out,
  as its translation is; a key sequence reads "Strg+Alt+T", as Mallard shows it.

A page whose blocks differ in kind or number between the languages (a translation of another
version) is skipped. A paragraph is paired sentence by sentence where both sides split into the
same number of sentences, else kept whole. A block or sentence whose German equals its English (a
command, a package name, a section number, an untranslated string) is left out. Pairs are ``(german, english)`` in page order.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

from lxml import etree

from model.data.corpus import CorpusError, Pair, normalize
from model.data.general import split_sentences

MALLARD = "{http://projectmallard.org/1.0/}"
_HTML_BLOCKS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dt", "li", "caption"})
_HTML_SKIPPED = frozenset({"script", "style", "head", "pre"})
_MALLARD_BLOCKS = frozenset(MALLARD + name for name in ("p", "title", "subtitle", "desc"))


class _Blocks(HTMLParser):
    """``(tag, text)`` of every block element in document order (closing order); a block nested
    in another keeps its own text, the outer one the text around it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str, str]] = []
        self.open: list[tuple[str, list[str]]] = []   # (tag, text parts)
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in _HTML_SKIPPED:
            self.skipping += 1
        elif tag in _HTML_BLOCKS:
            self.open.append((tag, []))
        elif tag == "br" and self.open:
            self.open[-1][1].append(" ")

    def handle_endtag(self, tag):
        if tag in _HTML_SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in _HTML_BLOCKS and self.open and self.open[-1][0] == tag:
            _, parts = self.open.pop()
            self.blocks.append((tag, normalize("".join(parts))))

    def handle_data(self, data):
        if self.open and not self.skipping:
            self.open[-1][1].append(data)


def html_blocks(file: Path) -> list[tuple[str, str]]:
    """``[(tag, text)]`` of one HTML page's blocks, in order."""
    parser = _Blocks()
    try:
        parser.feed(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"cannot read page {str(file)!r}: {exc}") from None
    parser.close()
    return parser.blocks


def _mallard_text(element) -> str:
    """The text a reader sees of a Mallard block: media left out, keys of a sequence joined by "+"."""
    parts = [element.text or ""]
    for child in element:
        if not isinstance(child.tag, str) or child.tag in (MALLARD + "media", MALLARD + "comment"):
            pass                                   # XML comments, processing instructions, images
        elif child.tag == MALLARD + "keyseq":
            parts.append("+".join(_mallard_text(key) for key in child if isinstance(key.tag, str)))
        else:
            parts.append(_mallard_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def mallard_blocks(file: Path) -> list[tuple[str, str]]:
    """``[(tag, text)]`` of one Mallard page's blocks, in order (editors' comments left out)."""
    # Parsed, never resolved: no external entities, no network, no XInclude.
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.parse(str(file), parser).getroot()
    except (OSError, etree.XMLSyntaxError) as exc:
        raise CorpusError(f"cannot read page {str(file)!r}: {exc}") from None
    blocks: list[tuple[str, str]] = []

    def walk(element) -> None:
        for child in element:
            if not isinstance(child.tag, str) or child.tag == MALLARD + "comment":
                continue
            if child.tag in _MALLARD_BLOCKS:
                blocks.append((child.tag.removeprefix(MALLARD), normalize(_mallard_text(child))))
            else:
                walk(child)

    walk(root)
    return blocks


def _paired(de_blocks: list[tuple[str, str]], en_blocks: list[tuple[str, str]]) -> Iterator[Pair]:
    """Sentence pairs of two pages' blocks; nothing where the pages' blocks differ in kind or number."""
    if [tag for tag, _ in de_blocks] != [tag for tag, _ in en_blocks]:
        return
    for (_, de), (_, en) in zip(de_blocks, en_blocks):
        if not de or not en or de == en:
            continue
        de_sentences, en_sentences = split_sentences(de), split_sentences(en)
        if len(de_sentences) == len(en_sentences):    # a section number splits off as a "sentence" of its own
            yield from ((d, e) for d, e in zip(de_sentences, en_sentences) if d != e)
        else:
            yield de, en


def read_debian_reference(path: str | os.PathLike) -> list[Pair]:
    """The distinct sentence pairs of the ``NAME.de.html`` pages that have a ``NAME.en.html``."""
    folder = Path(path)
    pages = [(de_file, de_file.with_name(de_file.name.removesuffix(".de.html") + ".en.html"))
             for de_file in (sorted(folder.glob("*.de.html")) if folder.is_dir() else [])]
    pages = [(de_file, en_file) for de_file, en_file in pages if en_file.is_file()]
    if not pages:
        raise CorpusError(f"not a Debian Reference folder (no NAME.de.html with its NAME.en.html): "
                          f"{os.fspath(path)!r}")
    found: dict[Pair, None] = {}
    for de_file, en_file in pages:
        found.update(dict.fromkeys(_paired(html_blocks(de_file), html_blocks(en_file))))
    return list(found)


def read_mallard(path: str | os.PathLike) -> list[Pair]:
    """The distinct sentence pairs of the ``de/**/*.page`` files that have a ``C/`` original."""
    root = Path(path)
    folders = [root / "de", root / "C"]
    for folder in folders:
        if not folder.is_dir():
            raise CorpusError(f"not a Mallard help root (no {folder.name}/ inside): {os.fspath(path)!r}")
    found: dict[Pair, None] = {}
    for de_file in sorted(folders[0].rglob("*.page")):
        en_file = folders[1] / de_file.relative_to(folders[0])
        if en_file.is_file():
            found.update(dict.fromkeys(_paired(mallard_blocks(de_file), mallard_blocks(en_file))))
    return list(found)
