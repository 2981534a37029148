"""pipeline/profanity.py and tables/profanity.tsv: profane words a translation has and its source has not."""

from __future__ import annotations

import pytest

from pipeline import tables
from pipeline.profanity import excess, profane, strength, without_words


def test_the_table_has_each_word_once_with_a_strength():
    rows = tables.rows("profanity", 3)
    assert {language for language, _, _ in rows} == {"de", "en"}
    assert {s for _, _, s in rows} == {"1", "2"}
    assert len({(language, word) for language, word, _ in rows}) == len(rows)


@pytest.mark.parametrize("word, language, expected", [
    ("fucking", "en", 2), ("Motherfucker", "en", 2), ("bullshit", "en", 2), ("damn", "en", 1),
    ("Arschloch", "de", 2), ("Arsch", "de", 1), ("Drecksscheiße", "de", 2), ("verdammte", "de", 1),
    ("Scheibe", "de", 0), ("fein", "de", 0), ("hell", "en", 0), ("cocktail", "en", 0), ("Dickens", "en", 0),
    ("fuck", "de", 0),   # each language its own words
])
def test_strength(word, language, expected):
    assert strength(word, language) == expected


@pytest.mark.parametrize("source, translation, language, expected", [
    ("Die Zwiebeln fein hacken und glasig anbraten.", "Chop the onions fucking fine.", "de", [16]),
    ("Das Brot in Scheiben schneiden.", "Cut the damn bread.", "de", [8]),
    ("So ein Scheiß!", "What a fucking mess!", "de", []),          # as strong as the source's
    ("Verdammt!", "Fucking hell!", "de", [0]),                   # stronger than the source's
    ("Damn it, the bus is late.", "Verdammt, der Bus ist spät.", "en", []),
    ("Cut the bread thinly.", "Schneide das Scheißbrot dünn.", "en", [13]),
])
def test_excess(source, translation, language, expected):
    assert excess(source, translation, language) == expected


def test_profane_gives_each_word_and_its_strength():
    assert profane("Damn, the fucking Scheibe!", "en") == [(0, 1), (10, 2)]


@pytest.mark.parametrize("text, starts, expected", [
    ("Chop the onions fucking fine.", [16], "Chop the onions fine."),
    ("Well, damn.", [6], "Well."),
    ("It is damn cold and damn late.", [6, 20], "It is cold and late."),
])
def test_without_words(text, starts, expected):
    assert without_words(text, starts) == expected
