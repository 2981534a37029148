""".txt and .html files, UTF-8 with or without a BOM (kept as it was).

- ``.txt``: every line is translated on its own; indentation, trailing spaces, blank lines and
  line endings (``\\n`` or ``\\r\\n``) stay exactly as written.
- ``.html``: the whole document as one HTML fragment through ``pipeline.markup`` (tags and
  attributes byte for byte, but the translate function, ``markup.translate_html``, makes a
  ``lang`` of the source language name the target: "de" says "en", or "en" says "de").
"""

from __future__ import annotations

from ..language_pair import DE_EN, LanguagePair
from .base import BOM, Budget, Document, Unit, refuse_control, split_line, utf8


class TextDocument(Document):
    """A .txt (its lines with text, each a plain unit) or an .html (the whole document, one HTML unit)."""

    def __init__(self, data: bytes, budget: Budget, *, html: bool):
        text = utf8(data)
        budget.add(len(text.removeprefix(BOM)))
        refuse_control(text)
        self.bom = BOM if text.startswith(BOM) else ""
        self.text = text[len(self.bom):]
        self.html = html
        self.chars = len(self.text)
        # (indentation, text to translate, what follows it with any "\r"), line by line
        self.lines = [] if html else [split_line(line) for line in self.text.split("\n")]

    def units(self) -> list[Unit]:
        if self.html:
            return [Unit(self.text, html=True)] if self.text.strip() else []
        return [Unit(content) for _, content, _ in self.lines if content]

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        if self.html:
            out = translations[0] if translations else self.text
            return (self.bom + out).encode("utf-8")
        done = iter(translations)
        out = "\n".join(lead + (next(done) if content else content) + trail for lead, content, trail in self.lines)
        return (self.bom + out).encode("utf-8")
