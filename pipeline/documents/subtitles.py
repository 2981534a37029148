""".srt and .vtt subtitles, rewritten line by line.

Everything but each cue's text stays byte for byte: cue numbers, identifiers, timing lines (as
written, also where a timestamp is out of range: "00:99:06.000" stays, and so does its cue),
cue settings, WebVTT's header, STYLE, REGION and NOTE blocks, blank lines and line endings. The
srt and webvtt-py libraries were not kept for this: srt writes timings anew ("00:00:03,5" came back
as "00:00:03,005") and webvtt-py drops a cue whose timestamp it cannot read. A cue is a block of
lines whose first or second line holds "-->"; its lines after that are its text, read as one text
(a sentence often runs over both lines) with its inline tags (<i>, <b>, <font ...>) as HTML, and
the translation is cut back into as many lines as the cue had, at the spaces that balance them best:
a cue stays one cue, on the screen as long as before. In an .srt, a block without a timing line
after a cue (a blank line inside a cue's text, which players show with it) is translated as text
of its own. Where a .vtt names the source language (a "Language:" line of its header, a cue's
<lang de> span), it names the target ("de-DE" -> "en-US"); an .srt names none.
"""

from __future__ import annotations

import re

from ..segment import lines_like
from ..language_pair import DE_EN, LanguagePair
from .base import BOM, Budget, Document, DocumentError, Unit, utf8

_TAG = re.compile(r"<[^>]*>")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")    # a line with its ending (none on the last)
_NOT_CUE = re.compile(r"(?:NOTE|STYLE|REGION)(?:[ \t]|$)")       # WebVTT blocks that are no cue
_LANGUAGE_TAG = r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*"
_HEADER_LANGUAGE = re.compile(rf"^(Language[ \t]*:[ \t]*)({_LANGUAGE_TAG})(?=[ \t]*$)", re.MULTILINE)
_LANG_SPAN = re.compile(rf"(<lang(?:\.[\w-]+)*[ \t]+)({_LANGUAGE_TAG})(?=[ \t]*>)")   # <lang en-GB>, <lang.c de>


def _retagged(pattern: re.Pattern[str], text: str, languages: LanguagePair) -> str:
    """``text`` with each tag of the source language that ``pattern`` finds (its second group)
    naming the target."""
    return pattern.sub(lambda m: m[1] + (languages.retag(m[2]) if languages.names_source(m[2]) else m[2]), text)


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(first, end) line indices of each run of non-blank lines."""
    found, first = [], None
    for i, line in enumerate(lines + [""]):
        if line.strip() and first is None:
            first = i
        elif not line.strip() and first is not None:
            found.append((first, i))
            first = None
    return found


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):]


class Subtitles(Document):
    """An .srt/.vtt: each cue's text lines (``texts``: their line ranges) as one text, as HTML where
    it has inline tags."""

    def __init__(self, data: bytes, budget: Budget, *, extension: str):
        text = utf8(data).removeprefix(BOM)
        self.extension = extension
        self.source = _LINE.findall(text)
        blocks = _blocks(self.source)
        vtt = extension == ".vtt"
        if vtt and not (text.startswith("WEBVTT") and (len(text) == 6 or text[6] in " \t\r\n")):
            raise DocumentError("file is not a valid .vtt subtitle file")
        self.texts: list[tuple[int, int]] = []   # line ranges of each cue's text
        timed = False
        for k, (first, end) in enumerate(blocks):
            if vtt and (k == 0 or _NOT_CUE.match(self.source[first])):
                continue   # the header, a note, a style or a region
            timing = next((i for i in range(first, min(first + 2, end)) if "-->" in self.source[i]), None)
            timed = timed or timing is not None
            if timing is not None:
                self.texts.append((timing + 1, end))
            elif not vtt and timed:   # text after a blank line inside an .srt cue
                self.texts.append((first, end))
        if not timed and text.strip() and not vtt:
            raise DocumentError("file is not a valid .srt subtitle file")
        self.lines = [[line.strip() for line in self.source[a:b] if line.strip()] for a, b in self.texts]
        self.chars = sum(len(" ".join(lines)) for lines in self.lines)
        budget.add(self.chars)

    def units(self) -> list[Unit]:
        texts = [" ".join(lines) for lines in self.lines]
        return [Unit(text, html=bool(_TAG.search(text))) for text in texts if text]

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        done = iter(translations)
        cues = [(a, b, len(lines), next(done)) for (a, b), lines in zip(self.texts, self.lines) if lines]
        out = list(self.source)
        for a, b, count, translation in reversed(cues):   # from the end, so that the indices hold
            text = lines_like(translation, count)
            if self.extension == ".vtt" and "<lang" in text:
                text = _retagged(_LANG_SPAN, text, languages)
            new = text.split("\n")
            inner, last = _ending(self.source[a]) or "\n", _ending(self.source[b - 1])
            out[a:b] = [line + inner for line in new[:-1]] + [new[-1] + last]
        if self.extension == ".vtt":
            header_end = _blocks(self.source)[0][1] if self.source else 0
            header = "".join(out[:header_end])
            return (_retagged(_HEADER_LANGUAGE, header, languages) + "".join(out[header_end:])).encode("utf-8")
        return "".join(out).encode("utf-8")
