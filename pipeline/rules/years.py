"""Years: the model reads a year as digits first, and as a number span only if it lost it.

A number span tells the model nothing of what it counts: "Ich arbeite seit ⦅N1⦆ bei einer Bank."
came out as "I've been working in a bank for ⦅N1⦆." and "Im Jahr ⦅N1⦆ hatten wir ⦅N2⦆ Millionen
Besucher." as "We had ⦅N2⦆ million visitors in the year." (the year lost, then put back at the
wrong place); with the digits, "since 2019" and "in 2025". The model saw years as digits in all its
training pairs and copies them well, but not always, so a sentence whose translation does not
have each of its years as often as the source (``kept``) is translated once more with them as
spans (``Pipeline.second_try``, with the measures and number words of ``pipeline.rules.measures``).

A year here is a number span of four digits from 1500 to 2099 that does not count a noun or an
amount after it ("2000 Yen", "1800 Kalorien", "1999 €" stay spans), unless "Jahr", "seit" or a
month comes before it ("im Jahre 2003 Mitglied"). Dates ("1. April 1999") are spans of their own
and stay so.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from .. import tables
from ..spans import Span
from .base import Context, Rule
from .verbatim import find_spans

_YEAR = re.compile(r"1[5-9][0-9]{2}|20[0-9]{2}")
_MONTHS = "|".join(tables.pairs("months"))
_CUE = re.compile(rf"(?<!\w)(?:[Jj]ahr(?:e|es)?|seit|Seit|{_MONTHS})[ \t\u00a0]+$")
# What follows a count rather than a year: a noun, a currency or another sign.
_COUNTED = re.compile(r"[ \t\u00a0]*(?:[A-ZÄÖÜ]|[€$£¥%‰°])")


def is_year(text: str, span: Span) -> bool:
    """Whether ``span`` (of ``text``) is a number span that is a year."""
    if span.kind != "number" or not _YEAR.fullmatch(span.text):
        return False
    return not _COUNTED.match(text, span.end) or _CUE.search(text, 0, span.start) is not None


def without_years(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` less the years: the model reads those as the digits they are."""
    return [s for s in spans if not is_year(text, s)]


def may_have_years(source: str) -> bool:
    """Whether ``source`` has four digits that could be a year (else ``kept`` holds for any output)."""
    return _YEAR.search(source) is not None


def kept(source: str, output: str) -> bool:
    """Whether ``output`` has each year of ``source`` as often as ``source`` has it (as digits)."""
    if _YEAR.search(source) is None:  # most texts
        return True
    years = Counter(s.text for s in find_spans(source) if is_year(source, s))
    return all(len(re.findall(rf"(?<![0-9]){year}(?![0-9])", output)) == n for year, n in years.items())


class Years(Rule):
    """The rule: in a first try a year is no span (``without_years``); in the second try it stays
    one, where the first try's translation lost a year (``kept``)."""

    name = "years"

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        return list(spans) if context.second_try else without_years(text, spans)

    def first_try_checks(self, text: str) -> bool:
        return may_have_years(text)

    def first_try_kept(self, text: str, translation: str) -> bool:
        return kept(text, translation)


RULE = Years()
