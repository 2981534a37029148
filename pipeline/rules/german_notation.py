"""German notation for an English source: its numbers, dates, clock times and amounts written as
German writes them, where English writes them otherwise.

"1,234.50" → "1.234,50", "3.5" → "3,5"; "3/14/2025" → "14.03.2025" (month first, as the United
States write it; "14/3/2025", day first, as Britain does); "2:30 p.m." → "14:30 Uhr", "9am" → "9
Uhr"; "$5.99" → "5,99 $", "€20" → "20 €", "$5 million" → "5 Millionen Dollar"; a date with a
month name, day after month as the United States write it or before it as Britain does, "June 14,
2025", "March 3rd", "14 June 2025", "the 3rd of March" → "14. Juni 2025", "3. März", ..., days from
one to another too ("June 14–16" → "14.–16. Juni"), an abbreviated month as German abbreviates it
("Oct. 5" → "5. Okt."). What could be read two ways stays as written: "3/4/2025" (March or April),
"1,234" is a thousand and more only where its groups are of three digits, and a version's "2.1.3"
keeps its dots. ISO dates ("2025-03-14") are German too and stay.

The repair takes out the "Uhr" the model writes after a time that says it already ("um ⦅N1⦆ Uhr",
⦅N1⦆ "14:30 Uhr").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from .. import tables
from ..spans import Masked, Span, merge
from ..words import ENDS_WITH_PLACEHOLDER, Fix, Word
from .base import Context, Rule

# An English number: thousands apart by commas in groups of three, a decimal point ("1,234.50",
# "12,000", "3.5", "-0.25"); a number with more dots ("2.1.3") is not one.
_NUMBER = r"([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.([0-9]+))?"
_ENGLISH_NUMBER = re.compile(rf"([-+−]?){_NUMBER}")
# A date with slashes: month/day/year or day/month/year, the year of two or four digits.
_SLASH_DATE = re.compile(r"(?<![\w/.])([0-9]{1,2})/([0-9]{1,2})/([0-9]{4}|[0-9]{2})(?![\w/])")
# A clock time with a.m. or p.m. ("2:30 p.m.", "9am", "10:15 AM", "7 P.M.").
# "AM." ends a sentence; "a.m." takes its stops in.
_CLOCK = re.compile(r"(?<![\w.:])(1[0-2]|0?[1-9])(?::([0-5][0-9]))?[ \t\u00a0]?([AaPp])(?:\.[Mm]\.|[Mm](?![\w]))")
# An amount with its currency sign before it, as English writes it ("$5.99", "€ 20", "£1,000").
_AMOUNT = re.compile(rf"(?<![\w.,])([$€£])[ \t\u00a0]?({_NUMBER})(?![\w]|[.,][0-9])")
# An amount with a multiplier ("$5 million", "$1.5 billion", "£3m", "$2bn"): in German the
# multiplier and the currency's name after the number ("5 Millionen Dollar", "1 Milliarde Dollar").
MULTIPLIERS = {english: (plural, singular) for english, plural, singular in tables.rows("english_multipliers", 3)}
CURRENCY_NAMES = tables.pairs("currency_names")
_WORD_MULTIPLIER = "|".join(m for m in MULTIPLIERS if len(m) > 2)
_GLUED_MULTIPLIER = "|".join(m for m in MULTIPLIERS if len(m) <= 2)
_MULTIPLIED = re.compile(rf"(?<![\w.,])([$€£])[ \t\u00a0]?({_NUMBER})"
                         rf"(?:[ \t\u00a0]+({_WORD_MULTIPLIER})|({_GLUED_MULTIPLIER}))(?!\w)")
_NBSP = "\u00a0"
# English month names (and their abbreviations, as German abbreviates them) in German; the table is
# German first, and "Januar" comes before the Austrian "Jänner".
GERMAN_MONTHS = {**{english: german for german, english in reversed(tables.pairs("months").items())},
                 **tables.pairs("english_month_abbreviations")}
_MONTH_NAME = "|".join(sorted(map(re.escape, GERMAN_MONTHS), key=len, reverse=True))
_ORDINAL_DAY = r"(0?[1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)?"
_DAY_TO = r"[ \t]*(?:[-–]|to|through)[ \t]*"
# "June 14", "June 14th, 2025", "June 14–16, 2025" (the month first); a capital, so that "may 5" is not
# one; not before a digit, a word or a decimal ("June 14.5").
_MONTH_FIRST = re.compile(rf"(?<![\w.])({_MONTH_NAME})(?!\w)[ \t\u00a0]+{_ORDINAL_DAY}"
                          rf"(?:{_DAY_TO}{_ORDINAL_DAY})?(?:,?[ \t\u00a0]+([12][0-9]{{3}}))?(?![\w]|[.,:][0-9])")
# "14 June 2025", "14th June", "14–16 June", "3rd of March" (the day first).
_DAY_FIRST = re.compile(rf"(?<![\w.,:/]){_ORDINAL_DAY}(?:{_DAY_TO}{_ORDINAL_DAY})?[ \t\u00a0]+(?:of[ \t]+)?"
                        rf"({_MONTH_NAME})(?!\w)(?:,?[ \t\u00a0]+([12][0-9]{{3}}))?(?![\w]|[.,:][0-9])")
_SENTENCE_END = re.compile(r"[\s\"'”’»)]*")


def german_number(text: str) -> str | None:
    """An English number in German notation ("1,234.50" -> "1.234,50", "3.5" -> "3,5"); None where
    it is not one, or reads the same ("42")."""
    match = _ENGLISH_NUMBER.fullmatch(text)
    if match is None:
        return None
    sign, whole, decimals = match.groups()
    german = sign + whole.replace(",", ".") + (f",{decimals}" if decimals is not None else "")
    return None if german == text else german


def german_date(month_or_day: str, day_or_month: str, year: str) -> str | None:
    """A date with slashes as German writes it ("3/14/2025" -> "14.03.2025", "14/3/2025" ->
    "14.03.2025"); None where either order could be meant ("3/4/2025") or none is a date."""
    first, second = int(month_or_day), int(day_or_month)
    if 1 <= first <= 12 < second <= 31:
        month, day = first, second
    elif 1 <= second <= 12 < first <= 31:
        day, month = first, second
    else:
        return None
    return f"{day:02d}.{month:02d}.{year}"


def german_month_date(month: str, day: str, last: str | None, year: str | None) -> str:
    """A date with an English month name as German writes it: "14. Juni 2025", "14.–16. Juni"."""
    days = f"{int(day)}.–{int(last)}." if last else f"{int(day)}."
    return f"{days} {GERMAN_MONTHS[month]}" + (f" {year}" if year else "")


def month_dates(text: str) -> list[Span]:
    """The dates with an English month name in ``text``, each a span with its German (in order)."""
    found = []
    for match in _MONTH_FIRST.finditer(text):
        month, day, last, year = match.groups()
        found.append((match.start(), match.end(), german_month_date(month, day, last, year)))
    for match in _DAY_FIRST.finditer(text):
        day, last, month, year = match.groups()
        found.append((match.start(), match.end(), german_month_date(month, day, last, year)))
    return _without_overlaps([Span(start, end, "date", text[start:end], german)
                              for start, end, german in sorted(found)])


def _without_overlaps(spans: list[Span]) -> list[Span]:
    """``spans`` in their order, less each one that overlaps one before it (the first found wins)."""
    return [s for k, s in enumerate(spans) if not any(o.start < s.end and s.start < o.end for o in spans[:k])]


def german_multiplied(match: re.Match[str]) -> str:
    """A match of ``_MULTIPLIED`` in German: "$1.5 billion" -> "1,5 Milliarden Dollar"."""
    sign, number, word, glued = match[1], match[2], match[5], match[6]
    plural, singular = MULTIPLIERS[word or glued]
    return f"{german_number(number) or number} {singular if number == '1' else plural} {CURRENCY_NAMES[sign]}"


def german_clock_time(hour: str, minutes: str | None, half: str) -> str:
    """A twelve-hour time as German writes it, on twenty-four hours and with "Uhr" ("2:30 p.m." ->
    "14:30 Uhr", "12 a.m." -> "0 Uhr", "9am" -> "9 Uhr")."""
    value = int(hour) % 12 + (12 if half.lower() == "p" else 0)
    return f"{value}:{minutes} Uhr" if minutes else f"{value} Uhr"


def month_dates_kept(text: str, translation: str) -> bool:
    """Whether ``translation`` writes every date with a month name of ``text`` (an English sentence)
    as German does ("June 14, 2025" as "14. Juni 2025"); the model mostly does, and then its own
    words around it are better than around a span ("am 14. Juni" for "on June 14")."""
    written = " ".join(translation.split())   # a month's genitive s too: "des 7. Januars"
    return all(re.search(rf"(?<![\w.]){re.escape(' '.join(span.target.split()))}s?(?!\w)", written)
               for span in month_dates(text))


def with_german_notation(text: str, spans: Sequence[Span], month_names: bool = False) -> list[Span]:
    """``spans`` (of an English sentence) with its numbers, dates, clock times and amounts in German
    notation (see the module docstring): each a span whose ``target`` is the German, in place of
    the spans it covers; dates with a month name only with ``month_names`` (a second try:
    ``month_dates_kept``). Every number span gets a ``target``, its own text where German writes it
    alike ("2.1.3"): without one, ``spans.replacement`` would read it as a German number ("1,23")."""
    found: list[Span] = []
    for match in _CLOCK.finditer(text):
        end = match.end()
        if match[0].endswith(".") and _SENTENCE_END.fullmatch(text, end):   # "at 2:30 p.m.": the stop
            end -= 1                                                         # ends the sentence too
        found.append(Span(match.start(), end, "time", text[match.start():end], german_clock_time(*match.groups())))
    for match in _SLASH_DATE.finditer(text):
        if (german := german_date(*match.groups())) is not None:
            found.append(Span(match.start(), match.end(), "date", match[0], german))
    if month_names:
        found.extend(month_dates(text))
    for match in _MULTIPLIED.finditer(text):
        found.append(Span(match.start(), match.end(), "amount", match[0], german_multiplied(match)))
    for match in _AMOUNT.finditer(text):
        number = match[2]
        found.append(Span(match.start(), match.end(), "amount", match[0],
                          f"{german_number(number) or number}{_NBSP}{match[1]}"))
    found = _without_overlaps(found)
    for span in spans:   # every number gets its German (its own text where German writes it alike),
        if span.kind == "number" and span.target is None:   # never the German-source conversion
            if not any(f.start < span.end and span.start < f.end for f in found):
                found.append(replace(span, target=german_number(span.text) or span.text))
    taken = [s for s in spans if s.kind != "number" and s.target is None]
    return merge(spans, [f for f in found if not any(s.start < f.end and f.start < s.end
                                                     and not (f.start <= s.start and s.end <= f.end) for s in taken)])


def without_uhr(words: list[Word], slots: dict[str, str]) -> list[Word]:
    """``words`` without the "Uhr" the model wrote after a placeholder whose German says it already
    (⦅N1⦆ "14:30 Uhr": "um ⦅N1⦆ Uhr")."""
    out: list[Word] = []
    for word in words:
        before = ENDS_WITH_PLACEHOLDER.search(out[-1].text) if out else None
        if before and slots.get(before[0], "").endswith(" Uhr") and word.text.startswith("Uhr") \
                and not word.text[3:4].isalnum():
            if rest := word.text[3:]:
                out[-1] = replace(out[-1], text=out[-1].text + rest)
            continue
        out.append(word)
    return out


class GermanNotation(Rule):
    """The rule, for an English source: ``with_german_notation`` finds (the dates with a month name
    in a second try only: ``Pipeline.second_try``, where the first try's translation did not write
    them as German does, ``month_dates_kept``); ``without_uhr`` repairs."""

    name = "german_notation"

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        return with_german_notation(text, spans, month_names=context.second_try)

    def repair(self, masked: Masked) -> Fix | None:
        return without_uhr

    def first_try_checks(self, text: str) -> bool:
        return bool(month_dates(text))

    def first_try_kept(self, text: str, translation: str) -> bool:
        return month_dates_kept(text, translation)


RULE = GermanNotation()
