"""Measures: a number and a unit of length, area, volume or weight ("fünf Kilometer", "80 Zentimeter
breit", "zwei Kilo Äpfel", "2,5 kg"), kept right in the translation.

The model learned some units from Tatoeba's localized pairs, where "five miles" is "acht Kilometer"
and "three inches" "acht Zentimeter": alone it wrote "Sie läuft jeden Morgen fünf Kilometer." as
"She runs five miles every morning.", "acht Zentimeter größer" as "three inches taller", "drei Liter
Milch" as "three cent milk", "sechzehn Kilometer" as "six kilometers". A measure made a span (an
"N" placeholder, as a number) and written in English ("five kilometers") comes out right, but the
model words a sentence around a placeholder less well than around the words it replaces. So the
pipeline checks each translation (``kept``) and translates a text that lost a measure's number,
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

from .spans import Span, english_number, merge

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

_ONES = {"ein": (1, "one"), "zwei": (2, "two"), "drei": (3, "three"), "vier": (4, "four"), "fünf": (5, "five"),
         "sechs": (6, "six"), "sieben": (7, "seven"), "acht": (8, "eight"), "neun": (9, "nine")}
_TEENS = {"zehn": (10, "ten"), "elf": (11, "eleven"), "zwölf": (12, "twelve"), "dreizehn": (13, "thirteen"),
          "vierzehn": (14, "fourteen"), "fünfzehn": (15, "fifteen"), "sechzehn": (16, "sixteen"),
          "siebzehn": (17, "seventeen"), "achtzehn": (18, "eighteen"), "neunzehn": (19, "nineteen")}
_TENS = {"zwanzig": (20, "twenty"), "dreißig": (30, "thirty"), "vierzig": (40, "forty"), "fünfzig": (50, "fifty"),
         "sechzig": (60, "sixty"), "siebzig": (70, "seventy"), "achtzig": (80, "eighty"), "neunzig": (90, "ninety")}
_ROUND = {"hundert": (100, "a hundred"), "tausend": (1000, "a thousand")}
_COMPOUND = re.compile(rf"({'|'.join(_ONES)})und({'|'.join(_TENS)})")

_NUMBER = r"[0-9]+(?:[.,][0-9]+)*"
_DIMENSION = rf"(?:[ \t]+({'|'.join(DIMENSIONS)})(?=[ \t]*[.,;:!?]|[ \t]+und\b))?(?!\w)"
_MEASURE = re.compile(
    rf"(?<![\w.,])(?:({_NUMBER}|[^\W\d_]+)[ \t\u00a0]+({'|'.join(sorted(UNITS, key=len, reverse=True))})"
    rf"|({_NUMBER})[ \t\u00a0]?({'|'.join(sorted(SYMBOLS, key=len, reverse=True))})(?![\w²³/]))"
    + _DIMENSION)
_NOUN_NEXT = re.compile(r"[ \t]+[A-ZÄÖÜ][a-zäöüß]")
_UNIT_WORD = re.compile(rf"(?<!\w)(?:{'|'.join(UNITS)})(?!\w)|[0-9][ \t\u00a0]?(?:k?m|[cm]m|kg|g|m?l)(?![a-zäöüß])")


def number_word(word: str) -> tuple[int, str] | None:
    """A German number word from 2 to 99, or "hundert"/"tausend", as (value, English): "vierundzwanzig"
    -> (24, "twenty-four"); None for any other word ("ein" is mostly the article: left out)."""
    word = word.lower()
    if word in _ONES and word != "ein":
        return _ONES[word]
    for table in (_TEENS, _TENS, _ROUND):
        if word in table:
            return table[word]
    if match := _COMPOUND.fullmatch(word):
        (one, one_en), (ten, ten_en) = _ONES[match[1]], _TENS[match[2]]
        return ten + one, f"{ten_en}-{one_en}"
    return None


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
    """``spans`` (of ``spans.find_spans``) and the measures of ``text`` as spans of kind "measure",
    written in English; a number span inside a measure is part of it, a measure that overlaps any
    other span is left out."""
    found = []
    for measure in find_measures(text):
        if any(s.start < measure.end and measure.start < s.end and s.kind != "number" for s in spans):
            continue
        found.append(Span(measure.start, measure.end, "measure", text[measure.start:measure.end], measure.english))
    return merge(spans, found)


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
