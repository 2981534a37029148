"""model.data.lexicon: the German words a model translates, and compounds of them."""

from __future__ import annotations

import zlib

import pytest

import model.data.lexicon as lexicon_module
from model.data.lexicon import Lexicon, build_lexicon, known_words

PAIRS = [
    ("Anna hat eine Katze.", "Anna has a cat."),
    ("Liebe Anna, wie geht es dir?", "Dear Anna, how are you?"),
    ("Die Katze schläft.", "The cat is sleeping."),
    ("Das Hotel ist alt.", "The hotel is old."),           # "Hotel" / "hotel": case differs, translated
    ("Berlin ist groß.", "Berlin is big."),
    ("Ich wohne in Berlin.", "I live in Berlin."),
    ("Das Arbeitszimmer ist klein.", "The study is small."),
    ("Mein Name ist Tom.", "My name is Tom."),
    ("Die Tür ist offen.", "The door is open."),
    ("Tom kommt.", "Tom is coming."),
    ("Tom!", "Tom!"),
    ("Die Sonne scheint.", "The sun is shining."),
]


def test_known_words_keeps_forms_translated_at_least_as_often_as_copied():
    words = known_words(PAIRS)
    assert words == sorted(words)
    for known in ("Katze", "Hotel", "Liebe", "Name", "Die", "hat", "Sonne", "Arbeitszimmer", "Tür"):
        assert known in words
    for copied in ("Anna", "Berlin", "Tom"):  # always written the same on both sides
        assert copied not in words


def test_known_words_counts_a_form_once_per_pair_and_breaks_ties_for_translated():
    assert known_words([("Max Max", "Max"), ("Max schläft", "He sleeps")]) == ["Max", "schläft"]
    assert known_words([("Max", "Max"), ("Max", "Max"), ("Max", "He")]) == []


def test_known_words_keeps_names_copied_often():
    pairs = [("Tom schläft.", "Tom is sleeping.")] * 19 + [("Anna schläft.", "Anna is sleeping.")]
    assert known_words(pairs) == ["schläft"]
    assert known_words(pairs + [("Tom!", "Tom!")]) == ["Tom", "schläft"]  # 20 copies: MIN_COPIES
    assert known_words(pairs, min_copies=1) == ["Anna", "Tom", "schläft"]


@pytest.fixture()
def lexicon() -> Lexicon:
    return Lexicon(known_words(PAIRS) + ["Repositorium", "Datenbank", "Verbindung", "Schein", "nie"])


@pytest.mark.parametrize("word, initial, expected", [
    ("Katze", False, True),
    ("Anna", False, False),
    ("Anna", True, False),
    ("Tom", True, False),
    ("Schläft", False, False),         # only as written: "schläft" is known, "Schläft" mid-sentence is not
    ("Schläft", True, True),           # at the start of a sentence its lower-case form counts
    ("Repositoriumsname", False, True),     # compound with a linking "s"
    ("Datenbankverbindung", False, True),   # compound of compound-free parts
    ("Sonnenschein", False, True),          # linking "n"
    ("Hotel-Katze", False, True),           # hyphenated: every part known
    ("Anna-Katze", False, True),            # hyphenated: the last part decides, a kind of cat
    ("XYZ-Datenbankverbindung", False, True),   # an acronym before a known compound ("PORT-Befehl")
    ("Katze-Anna", False, False),           # a name last: a name ("Hans-Peter")
    ("Katze-Kowalczyk", False, False),      # an unknown word last
    ("Leonie", False, False),          # short words are never split: "Leo" + "nie" is no compound
    ("Kowalczyk", False, False),
])
def test_knows(lexicon, word, initial, expected):
    assert lexicon.knows(word, initial=initial) is expected


def test_names_are_never_taken_for_compounds():
    pairs = PAIRS + [("Ich wohne in Freiburg.", "I live in Freiburg."), ("Frei!", "Free!"),
                     ("Die Burg ist alt.", "The castle is old."), ("Das Freibad ist offen.", "The pool is open.")]
    lexicon = build_lexicon(pairs)
    assert set(lexicon.words) == set(known_words(pairs))
    # copied more often than translated, fewer than 20 times ("in" too: only capitals are looked up)
    assert set(lexicon.names) == {"Anna", "Berlin", "Freiburg", "Tom", "in"}
    assert lexicon.knows("Burgfreiheit") is False and lexicon.knows("Freiburg") is False
    assert Lexicon(lexicon.words).knows("Freiburg") is True  # without the names: "frei" + "Burg"
    assert len(build_lexicon(pairs, min_copies=1).names) == 0


def test_bytes_round_trip(lexicon):
    data = lexicon.to_bytes()
    assert zlib.decompress(data).decode("utf-8").split("\n") == sorted(lexicon.words)
    assert set(Lexicon.from_bytes(data).words) == set(lexicon.words)
    with_names = Lexicon(["Katze"], names=["Anna", "Katze"])  # a known word is never a name
    assert set(with_names.names) == {"Anna"}
    assert zlib.decompress(with_names.to_bytes()).decode("utf-8") == "Katze\n!Anna"
    again = Lexicon.from_bytes(with_names.to_bytes())
    assert (set(again.words), set(again.names)) == ({"Katze"}, {"Anna"})
    assert len(Lexicon.from_bytes(Lexicon([]).to_bytes())) == 0
    with pytest.raises(ValueError, match="^not a lexicon: "):
        Lexicon.from_bytes(b"Katze\nHund")


def test_a_full_memo_is_emptied_and_answers_stay_right(lexicon, monkeypatch):
    monkeypatch.setattr(lexicon_module, "MEMO_SIZE", 1)
    for _ in range(2):
        assert [lexicon.knows(w) for w in ("Repositoriumsname", "Kowalczyk", "Sonnenschein", "Datenbankverbindung")] \
            == [True, False, True, True]
