"""Ranges: two numbers, amounts or hours joined by an en dash as one span, and ranges of weekdays.

"3–5" → "3–5", "10–15 €" → "€10–15", "9–18 Uhr" → "9 a.m.–6 p.m.", "Mo–Fr" → "Mon–Fri" (see
``with_ranges``). Runs after the clock times and amounts (``pipeline.rules.clock``,
``pipeline.rules.amounts``), whose spans it joins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import tables
from ..spans import THIN, Span, merge, replacement
from .base import Finder
from .clock import UHR, english_clock_time

# The dash of a range between two numbers: an en dash, perhaps spaced ("3–5", "10 – 15"). A hyphen
# ("3-5") makes one code span already.
_RANGE_DASH = re.compile(f"{THIN}?\u2013{THIN}?")


def with_ranges(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with each range of two numbers joined by an en dash as one span, written with the
    dash as the source writes it: "3–5" -> "3–5", "1,5–2" -> "1.5–2"; of amounts (kind "amount",
    ``with_amounts``) "10–15 €" -> "€10–15", "10 € – 15 €" -> "€10 – €15"; of hours whose end is
    a clock time (kind "time", ``with_clock_times``) "9–18 Uhr" -> "9 a.m.–6 p.m.", "20–22 Uhr" ->
    "8–10 p.m.". As two spans, the model lost or spaced the dash ("innerhalb von 3–5 Werktagen" ->
    "within 3 -5 workdays", "10–15 €" -> "10–€15", "9–18 Uhr" -> "9 - 6 p.m. clock"). A range of
    weekdays is one span too ("Mo–Fr" -> "Mon–Fri", which the model wrote "MoFr")."""
    if "\u2013" not in text and "-" not in text and "/" not in text:
        return list(spans)
    out: list[Span] = []
    for span in spans:
        before = out[-1] if out else None
        if before is None or not _RANGE_DASH.fullmatch(text, before.end, span.start):
            out.append(span)
            continue
        dash, first, last = text[before.end:span.start], replacement(before), replacement(span)
        kinds = (before.kind, span.kind)
        if kinds == ("number", "amount"):  # the amount's sign before the whole range
            first, last = "€" + first, last.removeprefix("€")
        elif kinds in (("number", "time"), ("time", "time")) and span.target is not None:
            first = _range_start(before.text, last)
        elif kinds not in (("number", "number"), ("amount", "amount")) or UHR.match(text, span.end):
            first = None  # a morning hour before "Uhr" ("8–10 Uhr") is the model's, as "8 Uhr" is
        if first is None:
            out.append(span)
            continue
        out[-1] = Span(before.start, span.end, span.kind, text[before.start:span.end], first + dash + last)
    days = [Span(m.start(), m.end(), "abbreviation", m[0], _WEEKDAYS[m[1]] + m[2] + _WEEKDAYS[m[3]])
            for m in _WEEKDAY_RANGE.finditer(text)]
    return merge(out, [d for d in days if not any(s.start < d.end and d.start < s.end for s in out)])


_START_HOUR = re.compile(r"([01]?[0-9]|2[0-3])(?:[:.]([0-5][0-9]))?")
_WEEKDAYS = tables.pairs("weekdays")
# Two weekdays' abbreviations joined by a dash or a slash ("Mo–Fr", "Mo.-Fr.", "Sa/So"); alone,
# "So" and "Do" are words.
_WEEKDAY_RANGE = re.compile(rf"(?<![\w.])({'|'.join(_WEEKDAYS)})\.?({THIN}?[–/-]{THIN}?)({'|'.join(_WEEKDAYS)})"
                            rf"(?:\.(?=[ \t\u00a0]*[\w(]))?(?![\w-])")


def _range_start(text: str, end: str) -> str | None:
    """The start of a range of hours, ``text`` ("9", "9:30", "20"), in English beside its end
    ``end`` ("6 p.m."): "9 a.m.", "9:30 a.m.", "8" where both are p.m. ("8–10 p.m."); None for
    no hour."""
    match = _START_HOUR.fullmatch(text)
    if match is None:
        return None
    hour, minutes = int(match[1]), match[2]
    english = english_clock_time(hour, minutes) or f"{hour} a.m."  # a morning hour alone: None
    if 0 < hour < 12 and not english.endswith("m."):
        english += " a.m."  # "9:30"
    for part in (" a.m.", " p.m."):
        if english.endswith(part) and end.endswith(part) and ":" not in english:
            return english.removesuffix(part)
    return english


RULE = Finder("ranges", with_ranges)
