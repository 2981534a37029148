"""German number words: "zwei" is 2, "vierundzwanzig" 24, as English writes them ("twenty-four").

Used where the pipeline reads numbers written as words: measures and number words that count
(``pipeline.rules.measures``), clock times ("vierzehn Uhr dreißig", ``pipeline.rules.clock``),
the number words of training pairs (``pipeline.augment``). The words are the table
``pipeline/tables/numbers.tsv``.
"""

from __future__ import annotations

import re

from . import tables

NUMBERS = {word: (int(value), english) for word, value, english in tables.rows("numbers", 3)}
ONES = {word: entry for word, entry in NUMBERS.items() if entry[0] < 10}
TEENS = {word: entry for word, entry in NUMBERS.items() if 10 <= entry[0] < 20}
TENS = {word: entry for word, entry in NUMBERS.items() if 20 <= entry[0] < 100}
ROUND = {word: (value, f"a {english}") for word, (value, english) in NUMBERS.items() if value >= 100}
# The number words that translate one to one, "zwei" -> "two" (not "ein", mostly the article "a";
# not sixty to ninety, which training pairs mask rarely): what ``pipeline.augment`` masks in training
# pairs and what ``pipeline.glossary`` reads as a plural's cue.
COUNTING = {word: english for word, (value, english) in NUMBERS.items()
            if 2 <= value <= 12 or value in (20, 30, 40, 50, 100, 1000)}
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
