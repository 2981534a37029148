"""Days of the week in words: their adverbs, lists and ranges, as spans written in English.

* An adverb, or a list of them: "montags" → "on Mondays", "montags und donnerstags" → "on Mondays
  and Thursdays", "dienstags, mittwochs oder freitags" → "on Tuesdays, Wednesdays or Fridays",
  "werktags" → "on working days", "sonn- und feiertags" → "on Sundays and public holidays".
* A range of adverbs or of names: "montags bis freitags", "Montag bis Freitag" → "Monday to
  Friday", "Montag–Freitag" → "Monday–Friday".

The model, trained on short sentences that seldom have them, wrote "donnerstags" as "off",
"mittwochs" as "with weeks", "dienstags bis samstags" as "the day before Saturdays" and "montags
bis freitags" as "on Mondays": in opening hours and appointments, a wrong day (docs/journal/pipeline-rules.md,
"Days of the week"). The model keeps what it translates well, and what a placeholder would spoil:
a name alone ("am Montag", "bis Freitag"), a range of names after "von" ("von Montag bis
Freitag"), and days that open the sentence, which it read as the subject ("Dienstags gehe ich
schwimmen." -> "On Tuesdays Go for a swim."). Abbreviated ranges ("Mo–Fr") are
``pipeline.rules.ranges``'.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import tables
from ..spans import Span, merge
from .base import Finder

_ENGLISH = tables.pairs("weekday_names")
_NAME = "|".join(rf"[{day[0]}{day[0].upper()}]{day[1:]}" for day in _ENGLISH)  # capitalized or not
_ADVERB = rf"(?:{_NAME})s"
_BLANK = r"[ \t\u00a0]+"
_TO = rf"{_BLANK}bis{_BLANK}|[ \t\u00a0]*[–-][ \t\u00a0]*"
# "Montag bis Freitag", "montags bis freitags", "Montag–Freitag"
_RANGE = re.compile(rf"(?<![\w-])({_NAME}|{_ADVERB})({_TO})({_NAME}|{_ADVERB})(?![\w-])")
_FROM = re.compile(r"(?<![\w-])[vV]on[ \t\u00a0]+$")
# An adverb's first half before "und" or "oder", as German leaves it out ("sonn- und feiertags")
_HALF = "|".join(rf"[{day[0]}{day[0].upper()}]{day[1:-3]}-" for day in _ENGLISH if day.endswith("tag"))
_ITEM_WORD = rf"(?:{_ADVERB}|{_HALF})"
# "montags", "montags und donnerstags", "dienstags, mittwochs oder freitags", "sonn- und feiertags"
_LIST = re.compile(rf"(?<![\w-])({_ITEM_WORD})((?:[ \t\u00a0]*,[ \t\u00a0]*{_ITEM_WORD})*"
                   rf"(?:{_BLANK}(?:und|oder){_BLANK}{_ADVERB})?)(?![\w-])")
_OPENING = " \t\u00a0\"'„“”‚‘’»«(-–"
_ANY_DAY = re.compile(rf"(?i:{_NAME})")
_ITEM = re.compile(rf"({_ADVERB})|({_HALF})|(und|oder)|,")


def english(day: str) -> str:
    """A German day's name or adverb in English, without "on": "Montag", "montags" -> "Monday"."""
    return _ENGLISH[day.lower().removesuffix("s")]


def _english_list(text: str) -> str:
    """"on Mondays and Thursdays" for "montags und donnerstags", "on Sundays and public holidays"
    for "sonn- und feiertags" (a first half is a day's name without its "tag")."""
    parts = []
    for match in _ITEM.finditer(text):
        if match[1]:
            parts.append(english(match[1]) + "s")
        elif match[2]:
            parts.append(english(match[2][:-1] + "tag") + "s")
        elif match[3]:
            parts.append(" and " if match[3] == "und" else " or ")
        else:
            parts.append(", ")
    return "on " + "".join(parts)


def with_weekdays(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with the adverbs, lists and ranges of weekdays of ``text`` (outside them) as
    spans written in English (see the module docstring)."""
    if not _ANY_DAY.search(text):
        return list(spans)
    found: list[Span] = []
    for match in _RANGE.finditer(text):
        if _FROM.search(text, 0, match.start()) and not match[1].endswith("s"):
            continue   # "von Montag bis Freitag": the model's, which translates it
        joiner = " to " if match[2].strip() == "bis" else match[2]   # a dash as written
        target = english(match[1]) + joiner + english(match[3])
        found.append(Span(match.start(), match.end(), "phrase", match[0], target))
    for match in _LIST.finditer(text):
        if match[0].endswith("-") or any(f.start < match.end() and match.start() < f.end for f in found):
            continue   # a first half without its end
        found.append(Span(match.start(), match.end(), "phrase", match[0], _english_list(match[0])))
    found = [f for f in found if text[:f.start].strip(_OPENING)]   # not where they open the sentence
    taken = [(s.start, s.end) for s in spans]
    return merge(spans, [f for f in found if not any(s < f.end and f.start < e for s, e in taken)])


RULE = Finder("weekdays", with_weekdays)
