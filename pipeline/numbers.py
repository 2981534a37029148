"""German number words: "zwei" is 2, "vierundzwanzig" 24, as English writes them ("twenty-four").

Used where the pipeline reads numbers written as words: measures and number words that count
(``pipeline.measures``), clock times ("vierzehn Uhr dreißig", ``pipeline.spans``).
"""

from __future__ import annotations

import re

ONES = {"ein": (1, "one"), "zwei": (2, "two"), "drei": (3, "three"), "vier": (4, "four"), "fünf": (5, "five"),
        "sechs": (6, "six"), "sieben": (7, "seven"), "acht": (8, "eight"), "neun": (9, "nine")}
TEENS = {"zehn": (10, "ten"), "elf": (11, "eleven"), "zwölf": (12, "twelve"), "dreizehn": (13, "thirteen"),
         "vierzehn": (14, "fourteen"), "fünfzehn": (15, "fifteen"), "sechzehn": (16, "sixteen"),
         "siebzehn": (17, "seventeen"), "achtzehn": (18, "eighteen"), "neunzehn": (19, "nineteen")}
TENS = {"zwanzig": (20, "twenty"), "dreißig": (30, "thirty"), "vierzig": (40, "forty"), "fünfzig": (50, "fifty"),
        "sechzig": (60, "sixty"), "siebzig": (70, "seventy"), "achtzig": (80, "eighty"), "neunzig": (90, "ninety")}
ROUND = {"hundert": (100, "a hundred"), "tausend": (1000, "a thousand")}
COMPOUND = re.compile(rf"({'|'.join(ONES)})und({'|'.join(TENS)})")


def number_word(word: str) -> tuple[int, str] | None:
    """A German number word from 2 to 99, or "hundert"/"tausend", as (value, English): "vierundzwanzig"
    -> (24, "twenty-four"); None for any other word ("ein" is mostly the article: left out)."""
    word = word.lower()
    if word in ONES and word != "ein":
        return ONES[word]
    for table in (TEENS, TENS, ROUND):
        if word in table:
            return table[word]
    if match := COMPOUND.fullmatch(word):
        (one, one_en), (ten, ten_en) = ONES[match[1]], TENS[match[2]]
        return ten + one, f"{ten_en}-{one_en}"
    return None


def clock_number(word: str) -> int | None:
    """A German number word as a clock's hour or minutes: 0 ("null") to 59, "ein"/"eins" 1; None
    for any other word."""
    word = word.lower()
    if word == "null":
        return 0
    if word in ("ein", "eins"):
        return 1
    value = number_word(word)
    return value[0] if value is not None and value[0] < 60 else None
