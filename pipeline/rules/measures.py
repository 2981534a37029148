"""Measures: a number and a unit of length, area, volume or weight ("fünf Kilometer", "80 Zentimeter
breit", "zwei Kilo Äpfel", "2,5 kg"), kept right in the translation.

The model learned some units from Tatoeba's localized pairs, where "five miles" is "acht Kilometer"
and "three inches" "acht Zentimeter": alone it wrote "Sie läuft jeden Morgen fünf Kilometer." as
"She runs five miles every morning.", "acht Zentimeter größer" as "three inches taller", "drei Liter
Milch" as "three cent milk", "sechzehn Kilometer" as "six kilometers". A measure made a span (an
"N" placeholder, as a number) and written in English ("five kilometers") comes out right, but the
model words a sentence around a placeholder less well than around the words it replaces. So the
pipeline checks each translation (``kept``) and translates a sentence that lost a measure's number,
unit or dimension once more, with its measures as spans (``with_measures``). Measured on the 116
German sentences of the whole Tatoeba corpus with a number and a unit word (all of them seen in
training; their references often in miles and inches), release model, beam 4: BLEU 44.49 as the
model writes them, 43.19 with this retry (17 changed, each now with the source's number and unit),
39.47 with every measure a span from the start, 41.43 with the retry but an "X" placeholder.

English: the number as written (digits in English notation, a number word as an English word) and
the unit in American spelling as the model writes it ("kilometers", "liters"), singular after 1;
"of" before the noun a measure counts ("drei Liter Milch" -> "three liters of" + "milk"); a
dimension in the predicate after it is part of the span ("ist 80 Zentimeter breit." -> "is 80
centimeters wide."; "ein 80 Zentimeter breiter Tisch" is left as it is).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..numbers import number_word
from ..spans import Span, english_number, merge
from .base import Context, Rule

# German unit -> English singular, and the forms that count as that unit in an English output.
UNITS = {
    "Kilometer": ("kilometer", ("kilometer", "kilometre", "km")),
    "Meter": ("meter", ("meter", "metre", "m")),
    "Zentimeter": ("centimeter", ("centimeter", "centimetre", "cm")),
    "Millimeter": ("millimeter", ("millimeter", "millimetre", "mm")),
    "Quadratmeter": ("square meter", ("square meter", "square metre", "m²", "sq m", "sqm")),
    "Quadratkilometer": ("square kilometer", ("square kilometer", "square kilometre", "km²", "sq km")),
    "Kubikmeter": ("cubic meter", ("cubic meter", "cubic metre", "m³")),
    "Kilogramm": ("kilogram", ("kilogram", "kilo", "kg")),
    "Kilo": ("kilo", ("kilo", "kilogram", "kg")),
    "Gramm": ("gram", ("gram", "g")),
    "Liter": ("liter", ("liter", "litre", "l")),
    "Milliliter": ("milliliter", ("milliliter", "millilitre", "ml")),
}
# Unit symbols after digits, written as they are; the model wrote "80 cm" as "80 crown", "2,5 kg" as
# "2.5 kit", "500 g Mehl" as "500 flours", "1,80 m" as "1.80".
SYMBOLS = {
    "km": ("km", "kilometer", "kilometre"), "m": ("m", "meter", "metre"), "cm": ("cm", "centimeter", "centimetre"),
    "mm": ("mm", "millimeter", "millimetre"), "km²": ("km²", "square kilometer", "square kilometre", "sq km"),
    "m²": ("m²", "square meter", "square metre", "sq m", "sqm"), "m³": ("m³", "cubic meter", "cubic metre"),
    "kg": ("kg", "kilo", "kilogram"), "g": ("g", "gram"), "l": ("l", "liter", "litre"),
    "ml": ("ml", "milliliter", "millilitre"),
}
# A dimension in the predicate after a measure ("ist 80 Zentimeter breit.").
DIMENSIONS = {"breit": "wide", "hoch": "high", "lang": "long", "tief": "deep", "dick": "thick"}

_NUMBER = r"[0-9]+(?:[.,][0-9]+)*"
_DIMENSION = rf"(?:[ \t]+({'|'.join(DIMENSIONS)})(?=[ \t]*[.,;:!?]|[ \t]+und\b))?(?!\w)"
_MEASURE = re.compile(
    rf"(?<![\w.,])(?:({_NUMBER}|[^\W\d_]+)[ \t\u00a0]+({'|'.join(sorted(UNITS, key=len, reverse=True))})"
    rf"|({_NUMBER})[ \t\u00a0]?({'|'.join(sorted(SYMBOLS, key=len, reverse=True))})(?![\w²³/]))"
    + _DIMENSION)
_NOUN_NEXT = re.compile(r"[ \t]+[A-ZÄÖÜ][a-zäöüß]")
_UNIT_WORD = re.compile(rf"(?<!\w)(?:{'|'.join(UNITS)})(?!\w)|[0-9][ \t\u00a0]?(?:k?m|[cm]m|kg|g|m?l)(?![a-zäöüß])")


@dataclass(frozen=True)
class Measure:
    """``text[start:end]`` of a German text is a measure: ``number`` (its forms in English: the
    number as written in English, and its digits) of ``unit`` (a key of ``UNITS`` or ``SYMBOLS``), then perhaps a
    ``dimension`` (a key of ``DIMENSIONS``); ``counts``: a noun follows that it counts."""

    start: int
    end: int
    numbers: tuple[str, ...]
    unit: str
    singular: bool
    dimension: str | None = None
    counts: bool = False

    @property
    def forms(self) -> tuple[str, ...]:
        """What counts as the unit in an English output: its words and its symbol."""
        return SYMBOLS[self.unit] if self.unit in SYMBOLS else UNITS[self.unit][1]

    @property
    def english(self) -> str:
        """"five kilometers", "80 centimeters wide", "1 liter", "three liters of", "2.5 kg"."""
        unit = self.unit if self.unit in SYMBOLS else UNITS[self.unit][0] + ("" if self.singular else "s")
        words = [self.numbers[0], unit] + ([DIMENSIONS[self.dimension]] if self.dimension else [])
        return " ".join(words) + (" of" if self.counts else "")


def find_measures(text: str) -> list[Measure]:
    """The measures of ``text``, in order."""
    if not _UNIT_WORD.search(text):  # most texts have no unit: skip the longer expression
        return []
    found = []
    for match in _MEASURE.finditer(text):
        number, unit = (match[1], match[2]) if match[1] else (match[3], match[4])
        dimension = match[5]
        if number[0].isdigit():
            english = english_number(number)
            numbers: tuple[str, ...] = (english,) if english == number else (english, number)
            singular = number == "1"
        elif (word := number_word(number)) is not None:
            numbers, singular = (word[1], str(word[0])), False
        else:
            continue
        counts = dimension is None and bool(_NOUN_NEXT.match(text, match.end()))
        found.append(Measure(match.start(), match.end(), numbers, unit, singular, dimension, counts))
    return found


def with_measures(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` (of ``verbatim.find_spans``) and the measures of ``text`` as spans of kind "measure",
    written in English; a number span inside a measure is part of it (its sign too: "-2 mm"), a
    measure that overlaps any other span is left out."""
    found = []
    for measure in find_measures(text):
        overlapping = [s for s in spans if s.start < measure.end and measure.start < s.end]
        if any(s.kind != "number" or s.end > measure.end for s in overlapping):
            continue
        # A sign before the number ("(-2 mm)", "+3 cm") is the number span's: the measure takes it in.
        start = min([measure.start] + [s.start for s in overlapping])
        sign = text[start:measure.start]
        found.append(Span(start, measure.end, "measure", text[start:measure.end], sign + measure.english))
    return merge(spans, found)


# Number words that are not counts: "acht" of "gib acht" / "außer Acht lassen" (attention), those of
# a clock time ("halb drei" is 2:30, "vierzehn Uhr", "drei viertel zwei"), of idioms that English says
# without them ("unter vier Augen": in private, "in zwei Hälften": in half, "ein, zwei Tage": a day
# or two), and capitalized ones inside a sentence ("die Elf", "eine Acht").
_WORD = re.compile(r"[^\W\d_]+")
_ATTENTION = re.compile(r"(?:gib|gebt|geben|gab|gaben|gegeben)(?:[ \t]+\w+)?[ \t]+$|Acht[ \t]+$"
                        r"|^[ \t]+(?:zu[ \t]+)?(?:geben|gegeben|nehmen|genommen|lassen|gelassen)\b", re.IGNORECASE)
_CLOCK_BEFORE = re.compile(r"(?:halb|viertel|viertel[ \t]+(?:nach|vor)|Uhr)[ \t\u00a0]+$", re.IGNORECASE)
_CLOCK_AFTER = re.compile(r"[ \t\u00a0]+(?:Uhr|[Vv]iertel)\b")
_IDIOM_BEFORE = re.compile(r"(?:\bunter|\bein[ \t]*,|\bein[ \t]+oder)[ \t]+$", re.IGNORECASE)
_IDIOM_AFTER = re.compile(r"[ \t]+(?:Augen|Hälften)\b")
_SENTENCE_START = re.compile(r"(?:^|[.!?:][\s\"'„“»«]*|[\"„“»«(][ \t]*)$")


@dataclass(frozen=True)
class NumberWord:
    """``text[start:end]`` of a German text is a number word that counts: ``value`` in ``english``."""

    start: int
    end: int
    value: int
    english: str


def find_number_words(text: str) -> list[NumberWord]:
    """The number words of ``text`` that count something ("in drei bis fünf Werktagen", "vier
    Rechnungen"), from 2 to 99, "hundert" and "tausend" (``number_word``), in order."""
    found = []
    for match in _WORD.finditer(text):
        word = number_word(match[0])
        if word is None:
            continue
        before, after = text[:match.start()], text[match.end():]
        if match[0][0].isupper() and not _SENTENCE_START.search(before[-4:] if len(before) > 4 else before):
            continue
        if match[0].lower() == "acht" and (_ATTENTION.search(before[-24:]) or _ATTENTION.match(after[:16])):
            continue
        if _CLOCK_BEFORE.search(before[-16:]) or _CLOCK_AFTER.match(after):
            continue
        if _IDIOM_BEFORE.search(before[-12:]) and match[0].lower() in ("vier", "zwei") or _IDIOM_AFTER.match(after):
            continue
        found.append(NumberWord(match.start(), match.end(), *word))
    return found


def with_number_words(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` and the number words of ``text`` outside them as number spans written in English
    ("drei" -> "three"): for the second try of a sentence whose translation lost one."""
    found = [Span(w.start, w.end, "number", text[w.start:w.end], w.english) for w in find_number_words(text)
             if not any(s.start < w.end and w.start < s.end for s in spans)]
    return merge(spans, found)


def number_words_kept(source: str, output: str) -> bool:
    """Whether ``output`` has every number word of ``source`` that counts, as a word or in digits
    ("in drei bis fünf Werktagen" -> "in three working days" has lost "five")."""
    words = find_number_words(source)
    if not words:
        return True
    lowered = output.lower()
    return all(_has_number(lowered, w.english) or _has_number(lowered, str(w.value)) for w in words)


def kept(source: str, output: str) -> bool:
    """Whether ``output`` has the number, the unit and the dimension of every measure of ``source``
    (a unit in any spelling or its symbol; a number as a word or in digits)."""
    measures = find_measures(source)
    if not measures:
        return True
    lowered = output.lower()
    return all(any(_has_number(lowered, number.lower()) for number in m.numbers)
               and any(_has_unit(lowered, form, m) for form in m.forms)
               and (m.dimension is None or _has_number(lowered, DIMENSIONS[m.dimension])) for m in measures)


def _has_unit(text: str, form: str, measure: Measure) -> bool:
    """A unit's word at the start of a word, in the plural unless the measure is singular ("80
    centimeter" has lost the plural), or its symbol right after the measure's number ("5 km", "5km";
    the "m" of "I'm" is none)."""
    if len(form) > 3 and form.replace(" ", "").isalpha():
        return re.search(rf"(?<![^\W\d_]){re.escape(form)}{'' if measure.singular else 's'}", text) is not None
    return any(re.search(rf"(?<![\w.,]){re.escape(number.lower())}[ \u00a0]?{re.escape(form)}(?![^\W\d_])", text)
               for number in measure.numbers)


def _has_number(text: str, number: str) -> bool:
    """A number (or word) as a whole: "5" is not in "50" or "1.5", "five" not in "fifty"."""
    number = number.removeprefix("a ")  # "a hundred" may be "one hundred" or "hundred"
    return re.search(rf"(?<![\w.,]){re.escape(number)}(?![^\W_]|[.,][0-9])", text) is not None


class Measures(Rule):
    """The rule, in a second try only (``Pipeline.second_try``: where the first try's translation
    lost a measure's number or unit, or a number word): measures, then number words, as spans."""

    name = "measures"

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        return with_number_words(text, with_measures(text, spans)) if context.second_try else list(spans)

    def first_try_checks(self, text: str) -> bool:
        return bool(find_measures(text)) or bool(find_number_words(text))

    def first_try_kept(self, text: str, translation: str) -> bool:
        return kept(text, translation) and number_words_kept(text, translation)


RULE = Measures()
