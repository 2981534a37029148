"""pipeline/numbers.py: German number words."""

import pytest

from pipeline.numbers import clock_number, number_word


@pytest.mark.parametrize("word, expected", [
    ("zwei", (2, "two")), ("Fünf", (5, "five")), ("zwölf", (12, "twelve")), ("sechzehn", (16, "sixteen")),
    ("dreißig", (30, "thirty")), ("vierundzwanzig", (24, "twenty-four")), ("achtundfünfzig", (58, "fifty-eight")),
    ("einundneunzig", (91, "ninety-one")), ("hundert", (100, "a hundred")),
    ("ein", None), ("einen", None), ("zwanzigund", None), ("Haus", None),
])
def test_number_words(word, expected):
    assert number_word(word) == expected


@pytest.mark.parametrize("word, expected", [
    ("null", 0), ("eins", 1), ("Ein", 1), ("vierzehn", 14), ("dreißig", 30), ("neunundfünfzig", 59),
    ("sechzig", None), ("hundert", None), ("Haus", None),
])
def test_clock_numbers(word, expected):
    assert clock_number(word) == expected
