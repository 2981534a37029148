"""``format=html`` for /translate: translate the text between tags, keep the markup as written.

Like LibreTranslate, tags, attributes, comments and the contents of <script>/<style> stay as they
are; each run of text between two tags is translated on its own (so "ist <b>sehr</b> gut" is three
pieces: the model never sees the tags). Translated text is escaped again, so markup can never be
injected through a translation.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from html.parser import HTMLParser

_SCRIPT = frozenset(("script", "style"))   # parsed as raw text: copied byte for byte
_KEEP = frozenset(("code", "pre", "kbd", "samp", "var"))  # text, but not prose: not translated


class _Pieces(HTMLParser):
    """Splits a document into ("markup", str) and ("text", str) pieces, in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[tuple[str, str]] = []
        self._open: list[str] = []  # open <script>/<code>/... elements

    def handle_starttag(self, tag, attrs):
        self.pieces.append(("markup", self.get_starttag_text() or f"<{tag}>"))
        if tag in _SCRIPT or tag in _KEEP:
            self._open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.pieces.append(("markup", self.get_starttag_text() or f"<{tag}/>"))

    def handle_endtag(self, tag):
        self.pieces.append(("markup", f"</{tag}>"))
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag):]

    def handle_data(self, data):
        if any(tag in _SCRIPT for tag in self._open):
            kind = "markup"
        else:
            kind = "keep" if self._open else "text"
        self.pieces.append((kind, data))

    def handle_comment(self, data):
        self.pieces.append(("markup", f"<!--{data}-->"))

    def handle_decl(self, decl):
        self.pieces.append(("markup", f"<!{decl}>"))

    def handle_pi(self, data):
        self.pieces.append(("markup", f"<?{data}>"))

    def unknown_decl(self, data):
        self.pieces.append(("markup", f"<![{data}]>"))


def html_pieces(document: str) -> list[tuple[str, str]]:
    parser = _Pieces()
    parser.feed(document)
    parser.close()
    return parser.pieces


def translate_html(documents: Sequence[str], translate: Callable[[list[str]], list[str]]) -> list[str]:
    """Translate the text of every document in one call of ``translate`` (one string per text run)."""
    parsed = [html_pieces(doc) for doc in documents]
    runs = [data.strip() for pieces in parsed for kind, data in pieces if kind == "text" and data.strip()]
    done = iter(translate(runs) if runs else [])
    out = []
    for pieces in parsed:
        parts = []
        for kind, data in pieces:
            if kind == "markup":
                parts.append(data)
            elif kind == "keep" or not data.strip():
                parts.append(html.escape(data, quote=False))
            else:
                # Keep the run's surrounding whitespace: it separates words from neighbouring tags.
                lead, trail = data[: len(data) - len(data.lstrip())], data[len(data.rstrip()):]
                parts.append(lead + html.escape(next(done), quote=False) + trail)
        out.append("".join(parts))
    return out
