""".srt and .vtt subtitles, read with srt and webvtt-py.

Cue numbers, identifiers, timings, cue settings, and WebVTT's header, STYLE and NOTE blocks stay
byte for byte; only each cue's text is translated. A cue's lines are read as one text (a sentence
often runs over both lines), with its inline tags (<i>, <b>, <font ...>) as HTML, and the
translation is cut back into as many lines as the cue had, at the spaces that balance them best: a
cue stays one cue, on the screen as long as before. Where a .vtt names the source language (a
"Language:" line of its header, a cue's <lang de> span), it names the target ("de-DE" -> "en-US");
an .srt names none.
"""

from __future__ import annotations

import re

from ..segment import lines_like
from ..language_pair import DE_EN, LanguagePair
from .base import BOM, Budget, Document, DocumentError, Unit, utf8

_TAG = re.compile(r"<[^>]*>")
_LANGUAGE_TAG = r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*"
_HEADER_LANGUAGE = re.compile(rf"^(Language[ \t]*:[ \t]*)({_LANGUAGE_TAG})(?=[ \t]*$)", re.MULTILINE)
_LANG_SPAN = re.compile(rf"(<lang(?:\.[\w-]+)*[ \t]+)({_LANGUAGE_TAG})(?=[ \t]*>)")   # <lang en-GB>, <lang.c de>


def _retagged(pattern: re.Pattern[str], text: str, languages: LanguagePair) -> str:
    """``text`` with each tag of the source language that ``pattern`` finds (its second group)
    naming the target."""
    return pattern.sub(lambda m: m[1] + (languages.retag(m[2]) if languages.names_source(m[2]) else m[2]), text)


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
            cue.text = _retagged(_LANG_SPAN, text, languages) if "<lang" in text else text
        header, blank, rest = self.vtt.content.partition("\n\n")   # the header ends at its first blank line
        return (_retagged(_HEADER_LANGUAGE, header, languages) + blank + rest).encode("utf-8")
