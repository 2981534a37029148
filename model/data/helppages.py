"""LibreOffice's help (``libreoffice-help-de`` + ``libreoffice-help-en-us``) as paragraph pairs.

Both packages install the same HTML pages under ``/usr/share/libreoffice/help/{de,en-US}/``, and
the paragraphs, headings and table cells of a page carry the same ``id`` in both languages
(``<p id="par_id3147762">``). ``read_help(root)`` pairs the texts of equal ids of equal pages:
instructional German ("Wählen Sie Format - Zeichen."). Inline markup is dropped and its text
kept; a paragraph whose German equals its English one (untranslated) is left out.
"""

from __future__ import annotations

import os
from html.parser import HTMLParser
from pathlib import Path

from model.data.corpus import CorpusError, Pair, normalize

LANGUAGES = ("de", "en-US")
_BLOCKS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "li"})
_SKIPPED = frozenset({"script", "style", "head"})


class _Paragraphs(HTMLParser):
    """Texts of the block elements that have an ``id``, by id (nested blocks: the innermost)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: dict[str, str] = {}
        self.open: list[tuple[str, str | None, list[str]]] = []   # (tag, id, text parts)
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in _SKIPPED:
            self.skipping += 1
        elif tag in _BLOCKS:
            self.open.append((tag, dict(attrs).get("id"), []))
        elif tag == "br" and self.open:
            self.open[-1][2].append(" ")

    def handle_endtag(self, tag):
        if tag in _SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in _BLOCKS and self.open and self.open[-1][0] == tag:
            _, ident, parts = self.open.pop()
            if ident:
                self.texts.setdefault(ident, normalize("".join(parts)))

    def handle_data(self, data):
        if self.open and not self.skipping:
            self.open[-1][2].append(data)


def page_texts(file: Path) -> dict[str, str]:
    """``{id: text}`` of one help page."""
    parser = _Paragraphs()
    try:
        parser.feed(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"cannot read help page {str(file)!r}: {exc}") from None
    parser.close()
    return parser.texts


def read_help(root: str | os.PathLike) -> list[Pair]:
    """The distinct ``(german, english)`` paragraph pairs of the pages found in both languages."""
    folders = [Path(root) / language for language in LANGUAGES]
    for folder in folders:
        if not folder.is_dir():
            raise CorpusError(f"not a LibreOffice help folder (no {folder.name}/ inside): {os.fspath(root)!r}")
    found: dict[Pair, None] = {}
    for de_file in sorted(folders[0].rglob("*.html")):
        en_file = folders[1] / de_file.relative_to(folders[0])
        if not en_file.is_file():
            continue
        english = page_texts(en_file)
        for ident, de in page_texts(de_file).items():
            en = english.get(ident)
            if de and en and de != en:
                found.setdefault((de, en))
    return list(found)
