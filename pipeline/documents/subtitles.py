""".srt and .vtt subtitles, read with srt and webvtt-py.

Cue numbers, identifiers, timings, cue settings, and WebVTT's header, STYLE and NOTE blocks stay
byte for byte; only each cue's text is translated. A cue's lines are read as one text (a sentence
often runs over both lines), with its inline tags (<i>, <b>, <font ...>) as HTML, and the
translation is cut back into as many lines as the cue had, at the spaces that balance them best: a
cue stays one cue, on the screen as long as before.
"""

from __future__ import annotations

import re

from ..segment import lines_like
from ..language_pair import DE_EN, LanguagePair
from .base import BOM, Budget, Document, DocumentError, Unit, utf8

_TAG = re.compile(r"<[^>]*>")


class Subtitles(Document):
    """An .srt/.vtt: each cue's text on one line, as HTML where it has inline tags."""

    def __init__(self, data: bytes, budget: Budget, *, extension: str):
        text = utf8(data).removeprefix(BOM)
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

    def units(self) -> list[Unit]:
        texts = [" ".join(lines) for lines in self.lines]
        return [Unit(text, html=bool(_TAG.search(text))) for text in texts if text]

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        done = iter(translations)
        out = [lines_like(next(done), len(lines)) if lines else "" for lines in self.lines]
        if self.extension == ".srt":
            import srt

            for cue, text in zip(self.cues, out):
                cue.content = text
            return srt.compose(self.cues, reindex=False).encode("utf-8")
        for cue, text in zip(self.vtt.captions, out):
            cue.text = text
        return self.vtt.content.encode("utf-8")
