"""Clock times: the time before "Uhr" written as English writes it, and "o'clock" where it belongs.

"14 Uhr" → "2 p.m.", "20:15 Uhr" → "8:15 p.m.", "8 Uhr" → "8 o'clock" (the model's); "halb acht" →
"7:30"; in words too ("sechs Uhr fünfzehn" → "6:15"), with a part of the day ("acht Uhr abends" →
"8 p.m."). The repair takes out the "o'clock" the model writes after a time that says it already
("at ⦅N1⦆ o'clock", ⦅N1⦆ "8:15 p.m.") or after a span that German did not follow with "Uhr".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..numbers import NUMBERS, clock_number, number_word
from ..spans import THIN, Masked, Span, merge
from ..words import ENDS_WITH_PLACEHOLDER, Fix, Word
from .base import Context, Rule

_OCLOCK = re.compile(r"o['’]clock(?![\w'’])", re.IGNORECASE)
_CLOCK_WORD = re.compile(r"clock(?![\w'’])", re.IGNORECASE)

# A clock time with "Uhr": its hour and minutes ("20:15 Uhr", "18.30 Uhr", "14 Uhr"), or its hour,
# "Uhr" and its minutes ("6 Uhr 30").
_CLOCK = re.compile(r"(?<![\w.,:])([01]?[0-9]|2[0-4])(?:[:.]([0-5][0-9]))?(?=[ \t\u00a0]+Uhr(?!\w))"
                    r"(?:[ \t\u00a0]+Uhr[ \t\u00a0]+([0-5][0-9])(?![\w:]|[.,][0-9]|[ \t]+Min))?")
# "halb acht" (half an hour before eight), with the hour as a word or in digits.
_HOURS = ("eins", *(word for word, (value, _) in NUMBERS.items() if 2 <= value <= 12))
_HALF = re.compile(rf"(?<!\w)[Hh]alb[ \t\u00a0]+({'|'.join(_HOURS)}|1[0-2]|[1-9])(?![\w:]|[.,][0-9])")
# A clock time in words: its hour, "Uhr" and perhaps its minutes ("vierzehn Uhr", "sechs Uhr fünfzehn").
_CLOCK_WORDS = re.compile(r"(?<![\w.,:])([^\W\d_]+)[ \t\u00a0]+Uhr(?:[ \t\u00a0]+([^\W\d_]+))?(?!\w)")
_DAY_PART = re.compile(r"[ \t\u00a0]+(morgens|früh|vormittags|mittags|nachmittags|abends|nachts)(?!\w)")
UHR = re.compile(r"[ \t\u00a0]+Uhr")
# English times that "o'clock" does not follow ("8:15 p.m.", "noon"), and ranges ending in one
# ("9 a.m.–6 p.m.", "8–10 p.m.": ``with_ranges``).
_ENGLISH_TIME = r"(?:[0-9]{1,2}:[0-9]{2}(?: [ap]\.m\.)?|[0-9]{1,2} [ap]\.m\.|noon|midnight)"
_NO_OCLOCK = re.compile(rf"(?:(?:{_ENGLISH_TIME}|[0-9]{{1,2}}(?::[0-9]{{2}})?){THIN}?–{THIN}?)?{_ENGLISH_TIME}")


def english_clock_time(hour: int, minutes: str | None = None) -> str | None:
    """A German clock time (24 hours) as English writes it: 14 -> "2 p.m.", 20:15 -> "8:15 p.m.", 0:30
    -> "12:30 a.m.", 12 -> "noon", 24 -> "midnight", 9:30 -> "9:30". None for a morning hour without
    minutes, which stays a number ("um 8 Uhr" -> "at 8 o'clock", as German often means an evening
    hour by it too), and for no time (24:30, 25)."""
    if not 0 <= hour <= 24 or hour == 24 and minutes:
        return None
    if not minutes:
        return {0: "midnight", 12: "noon", 24: "midnight"}.get(hour) or (f"{hour - 12} p.m." if hour > 12 else None)
    if hour in (0, 12):
        return f"12:{minutes} {'a.m.' if hour == 0 else 'p.m.'}"
    return f"{hour - 12}:{minutes} p.m." if hour > 12 else f"{hour}:{minutes}"


def takes_no_oclock(english: str) -> bool:
    """Whether ``english`` is a clock time after which "o'clock" is wrong ("8:15 p.m.", "noon")."""
    return _NO_OCLOCK.fullmatch(english) is not None

def with_clock_times(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with the time before "Uhr" as one span of kind "time" written in English
    (``english_clock_time``) in place of its number or time span; "Uhr" stays with the model, and
    the "o'clock" it writes after such a time goes (``words.restore_words``). "6 Uhr 30" is one span,
    "6:30", and so is "halb acht", "7:30". In words too: "zwanzig Uhr" -> "8 p.m.", "sechs Uhr
    fünfzehn" -> "6:15"; a morning hour alone ("acht Uhr", "8 Uhr") is the model's. A part of the
    day after it joins the span ("acht Uhr abends" -> "8 p.m.", "12 Uhr mittags" -> "noon", "um 6
    Uhr früh" -> "6 a.m."). The model wrote "um 14 Uhr" as "at 14", "um 20:15 Uhr" as "at 20:15
    o'clock", "um halb acht" as "at 2:30" (Tatoeba's "halb drei"), "um sechzehn Uhr" as "at
    sixteen", and "noon a.m." for a span "noon" before "mittags"."""
    if "Uhr" not in text and "alb" not in text:
        return list(spans)
    found = []
    for match in _HALF.finditer(text):
        hour = match[1]
        before = (_HOURS.index(hour) if hour in _HOURS else int(hour) - 1) or 12  # halb eins: 12:30
        english = f"{before}:30"
        if not any(s.start < match.end() and match.start() < s.end and s.kind != "number" for s in spans):
            found.append(Span(match.start(), match.end(), "time", match[0], english))
    clocks = []  # (start, end, hour, minutes, end of "Uhr" or of the minutes after it)
    for match in _CLOCK.finditer(text):
        after = match.end() if match[3] else UHR.match(text, match.end()).end()
        clocks.append((*match.span(), int(match[1]), match[2] or match[3], after, True))
    for match in _CLOCK_WORDS.finditer(text):
        hour, minutes = clock_number(match[1]), number_word(match[2]) if match[2] else None
        if hour is None or hour > 24:
            continue
        if minutes is not None and minutes[0] < 60:  # "sechs Uhr fünfzehn": one span, "6:15"
            clocks.append((*match.span(), hour, f"{minutes[0]:02d}", match.end(), False))
        else:  # not "ein": "um sechs Uhr ein(schlafen)"
            clocks.append((*match.span(1), hour, None, UHR.match(text, match.end(1)).end(), False))
    for start, end, hour, minutes, after, digits in clocks:
        english = english_clock_time(hour, minutes)
        if minutes and english is None and hour < 24:
            english = f"{hour}:{minutes}"
        if (part := _DAY_PART.match(text, after)) is not None:
            english, end = day_part_time(hour, minutes, part[1]), part.end()
        if english is None or any(s.start < end and start < s.end and not (digits and start <= s.start and s.end <= end)
                                  for s in [*spans, *found]):
            continue
        found.append(Span(start, end, "time", text[start:end], english))
    return merge(spans, found)


def day_part_time(hour: int, minutes: str | None, part: str) -> str | None:
    """A German clock time with a part of the day ("acht Uhr abends") as English writes it: "8
    p.m."; None where the hour does not belong to that part ("20 Uhr morgens")."""
    time = f"{hour % 12 or 12}" + (f":{minutes}" if minutes else "")
    if part in ("morgens", "früh", "vormittags") and 1 <= hour <= 11:
        return f"{time} a.m."
    if part == "mittags" and hour in (12, 13, 14):
        return "noon" if hour == 12 and not minutes else f"{time} p.m."
    if part in ("nachmittags", "abends") and (1 <= hour <= 11 or 13 <= hour <= 23):
        return f"{time} p.m."
    if part == "nachts" and hour in (0, 12, 24) and not minutes:
        return "midnight"
    if part == "nachts" and (1 <= hour <= 5 or 9 <= hour <= 11 or 21 <= hour <= 23):
        return f"{time} {'a.m.' if hour <= 5 else 'p.m.'}"
    return None

def oclock_spans(masked: Masked) -> frozenset[str]:
    """The placeholders that an "o'clock" may follow in the output: those the source follows with
    "Uhr" whose English is not a clock time already ("um ⦅N1⦆ Uhr", ⦅N1⦆ "8": "at 8 o'clock"; "der
    ⦅N1⦆-Uhr-Zug": "the 7 o'clock train").
    After any other the model had put it in the wrong place: "am 12.03.2025 um 14:30 Uhr" ->
    "at ⦅N1⦆ o'clock at ⦅N2⦆", ⦅N1⦆ "12.03.2025", ⦅N2⦆ "2:30 p.m."."""
    return frozenset(m[1] for m in _BEFORE_UHR.finditer(masked.text)
                     if m[1] in masked.slots and not takes_no_oclock(masked.slots[m[1]]))


_BEFORE_UHR = re.compile(r"(⦅[NX][0-9]+⦆)(?:[ \t\u00a0]+|[-\u2011])Uhr(?!\w)")  # "8 Uhr", "der 7-Uhr-Zug"


def without_oclock(words: list[Word], slots: dict[str, str], oclock: frozenset[str] | None) -> list[Word]:
    """``words`` without the "o'clock" the model wrote after a clock time that says it already ("um
    20:15 Uhr" -> "at ⦅N1⦆ o'clock", ⦅N1⦆ "8:15 p.m."; ``with_clock_times``) or after a span
    not in ``oclock`` (a date: "at ⦅N1⦆ o'clock at ⦅N2⦆"); punctuation glued to it stays, less a
    stop that the span's English ends with."""
    out: list[Word] = []
    i = 0
    while i < len(words):
        clock = ENDS_WITH_PLACEHOLDER.search(out[-1].text) if out else None
        misplaced = clock and (takes_no_oclock(slots.get(clock[0], "")) or oclock is not None and clock[0] not in oclock)
        taken, rest = _oclock_at(words, i) if misplaced else (0, "")
        if taken:
            if rest.startswith(".") and slots[clock[0]].endswith("."):
                rest = rest[1:]
            if rest:
                out.append(replace(words[i + taken - 1], text=rest, gap=""))
            i += taken
            continue
        out.append(words[i])
        i += 1
    return out


def _oclock_at(words: list[Word], i: int) -> tuple[int, str]:
    """How many of ``words`` from ``i`` on spell "o'clock", and what follows it in the last: one
    word as written, or the word alignment's three ("o", "'", "clock", written together); 0 if
    none."""
    match = _OCLOCK.match(words[i].text)
    if match:
        return 1, words[i].text[match.end():]
    if (i + 2 < len(words) and words[i].text.lower() == "o" and words[i + 1].text in ("'", "’")
            and not words[i + 1].gap and not words[i + 2].gap):
        match = _CLOCK_WORD.match(words[i + 2].text)
        if match:
            return 3, words[i + 2].text[match.end():]
    return 0, ""


class ClockTimes(Rule):
    """The rule: ``with_clock_times`` finds; ``without_oclock`` repairs, with the chunk's
    ``oclock_spans``."""

    name = "clock"

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        return with_clock_times(text, spans)

    def repair(self, masked: Masked) -> Fix | None:
        oclock = oclock_spans(masked)
        return lambda words, slots: without_oclock(words, slots, oclock)


RULE = ClockTimes()
