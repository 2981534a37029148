"""pipeline/coverage.py: which content words of a source its translation leaves out, and the
pipeline taking a hypothesis of the beam that leaves fewer out (``Options.coverage_weight``).

The dictionary is a few lines in Ding's format written for these tests (not taken from Ding)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.stub_engine import NBest
from model.data.ding import DingDictionary
from model.search.options import SERVED
from pipeline.coverage import Coverage
from pipeline.translation import Options, Pipeline
from tests.conftest import ding_file

DING = [
    "Sohn {m} | Söhne {pl} :: son | sons",
    "Fieber {n} :: fever; temperature",
    "Halsschmerzen {pl} :: sore throat",
    "gestern {adv} :: yesterday",
    "gehen {vi} | gehend | gegangen | er/sie geht | ich/er/sie ging :: to go | going | gone | goes | went",
    "Kind {n} | Kinder {pl} :: child | children",
    "Park {m} | Parks {pl} :: park | parks",
    "mit {prp} :: with",
    "die {art} :: the",
    "den {art} :: the",
    "Gesetz {n} | Gesetze {pl} :: law | laws",
    "neu {adj} :: new",
    "arbeiten {vi} | arbeitend | gearbeitet :: to work | working | worked",
    "etw. haben {vt} | habend | gehabt | er/sie hat :: to have sth. | having | had | has",
    "müssen {v} | er/sie muss :: to have to; must",
    "Auto {n} | Autos {pl} :: car | cars",
    "kaufen {vt} | kaufend | gekauft :: to buy | buying | bought",
    "Einer {m} [sport] :: single sculler",
    "einer {pron} :: one",
    "heute {adv} :: today",
    "Geräusch {n} :: noise; sound",
    "machen {vt} | er/sie macht :: to make; to do | makes; does",
    "Akku {m} :: battery",
    "Fenster {n} :: window",
    "Hotel {n} | Hotels {pl} :: hotel | hotels",
    "Pack {m} | Packs {pl} :: pack | packs",
    "Wartung {f} :: maintenance",
    "Modus {m} :: mode",
    "Köln {n} (Stadt in Deutschland) [geogr.] :: Cologne",
    "Parkstadt {f} [geogr.] :: Parkstadt",
]


@pytest.fixture(scope="module")
def coverage(tmp_path_factory) -> Coverage:
    return Coverage.of(DingDictionary(ding_file(tmp_path_factory, DING)))


@pytest.mark.parametrize("word, read", [
    ("Sohn", True), ("Söhne", True), ("gekauft", True), ("Parks", True),   # itself, a form Ding lists
    ("Kinds", True),                          # a lemma (simplemma) Ding has
    ("Köln", False), ("Parkstadt", False),    # a place is a name
    ("Kowalczyk", False), ("Akkupacks", False),   # unknown; a compound (``compound``)
])
def test_reads_says_whether_ding_reads_a_word(coverage, word, read):
    assert coverage.reads(word) is read


@pytest.mark.parametrize("word, parts", [
    ("Akkupacks", ("Akku", "Packs")), ("Wartungsmodus", ("Wartungs", "Modus")),   # a linking "s"
    ("Akkusöhne", ("Akku", "Söhne")), ("Parksohn", ("Park", "Sohn")), ("Akkupack", ("Akku", "Pack")),
    ("Morlaixparks", None), ("Sohnmachen", None),  # a part Ding lacks; a head that is no noun
    ("Akkusohn", ("Akku", "Sohn")), ("Akkupak", None), ("akkupacks", None),   # under 8 letters; no capital
])
def test_a_compound_is_two_parts_ding_reads_the_head_a_noun(coverage, word, parts):
    assert coverage.compound(word) == parts


def test_place_says_where_ding_knows_a_place(coverage):
    assert coverage.place("Köln") and coverage.place("Parkstadt") and not coverage.place("Akku")


@pytest.mark.parametrize(("source", "output", "missing"), [
    # a noun left out; "hat" is an auxiliary, "gestern" an adverb: not judged
    ("Mein Sohn hat seit gestern Fieber und Halsschmerzen.", "My son has had a fever since yesterday.",
     ["Halsschmerzen"]),
    ("Mein Sohn hat seit gestern Fieber und Halsschmerzen.", "My son has a temperature and a sore throat.", []),
    # a form Ding lists ("ging"), an English irregular form ("went") and plurals, by their lemmas
    ("Ich ging mit den Kindern in den Park.", "I went to the park with the children.", []),
    ("Ich ging mit den Kindern in den Park.", "I was in the park.", ["ging", "Kindern"]),
    # an inflected English word by its first letters; a modal verb is not judged
    ("Ich muss heute arbeiten.", "I have to work today.", []),
    ("Ich muss heute arbeiten.", "I must today.", ["arbeiten"]),
    ("Wir haben das Auto verkauft und ein Fahrrad gekauft.", "We sold the car and a bicycle.", ["gekauft"]),
    # a compound Ding lacks is judged by its head
    ("Das neue Klimaschutzgesetz", "The new climate protection", ["Klimaschutzgesetz"]),
    ("Das neue Klimaschutzgesetz", "The new climate protection law", []),
    # a lower-case word is no noun: "einer" is the pronoun, not "Einer" (a sculler)
    ("Das ist einer meiner Söhne.", "That is one of my boys.", ["Söhne"]),
    # a capitalized word opening a sentence is read as its lower-case word where Ding has one
    ("Einer geht, die Kinder bleiben.", "One goes, the kids stay.", ["Kinder"]),
    # a word the output has as written is translated where English writes it so; unknown words are not
    # judged; a copy of a German word leaves it German in the English, untranslated
    ("Der Park heißt Tiergarten.", "The Park is called Tiergarten.", []),
    ("Das Hotel hat ein Fenster.", "The hotel has a window.", []),
    ("Das Hotel hat ein Fenster.", "The hotel has a Fenster.", ["Fenster"]),
    ("Es macht ein Geräusch, wenn ich abbiege.", "It's making a noise.", []),
    ("", "", []),
])
def test_missing(coverage, source, output, missing):
    assert coverage.missing(source, output) == missing


TABLE = {
    "Ich muss heute arbeiten.": [("I must today.", -0.5), ("I have to work today.", -0.8), ("I work.", -0.9)],
    "Das Auto ist neu.": [("The car is new.", -0.3), ("The car is brand new.", -0.4)],
    "Ich ging in den Park.": [("I went.", -0.2), ("I went to the park.", -2.0)],
}


@pytest.fixture(scope="module")
def engine(tiny_checkpoint):
    from model.inference.translator import Translator

    return NBest(Translator.from_checkpoint(tiny_checkpoint, "cpu"), TABLE)


def test_an_output_that_leaves_a_word_out_takes_a_hypothesis_that_does_not(engine, coverage):
    pipeline = Pipeline(engine, Options(), coverage=coverage)
    engine.n_best_calls.clear()
    assert pipeline.translate(["Ich muss heute arbeiten.", "Das Auto ist neu."]) == [
        "I have to work today.", "The car is new."]
    assert engine.n_best_calls == [["Ich muss heute arbeiten."]]   # only the output that left a word out


def test_a_hypothesis_far_below_the_best_is_not_taken(engine, coverage):
    # "I went to the park." covers "Park" but scores 1.8 below the best: more than one word's weight
    assert Pipeline(engine, Options(), coverage=coverage).translate(["Ich ging in den Park."]) == [
        "I went."]
    assert Pipeline(engine, Options(coverage_weight=2.0), coverage=coverage).translate(
        ["Ich ging in den Park."]) == ["I went to the park."]


@pytest.mark.parametrize(("source", "output", "translations", "gaps"), [
    # each judged word with the output word that translates it; a left-out one between two that
    # are translated: after the one before it, before the one after it
    ("Mein Sohn hat seit gestern Fieber und Halsschmerzen.", "My son has had a fever since yesterday.",
     [("Sohn", (3, 6)), ("Fieber", (17, 22)), ("Halsschmerzen", None)], ["My son has had a fever"]),
    # the first word left out: only before the next translated one (in the source's order); none
    # translated: no place
    ("Ich muss heute arbeiten und ein Auto kaufen.", "I have to buy a car today.",
     [("arbeiten", None), ("Auto", (16, 19)), ("kaufen", (10, 13))], ["I have to buy a "]),
    ("Ich ging mit den Kindern in den Park.", "I was with the children.",
     [("ging", None), ("Kindern", (15, 23)), ("Park", None)], ["I was with the ", "I was with the children"]),
    ("Ich ging in den Park.", "Hello.", [("ging", None), ("Park", None)], []),
    ("Mein Sohn hat seit gestern Fieber und Halsschmerzen.", "My son has a temperature and a sore throat.",
     [("Sohn", (3, 6)), ("Fieber", (13, 24)), ("Halsschmerzen", (31, 35))], []),
])
def test_translations_and_gaps(coverage, source, output, translations, gaps):
    assert coverage.translations(source, output) == translations
    assert [output[:offset] for offset in coverage.gaps(source, output)] == gaps


GAPS = {
    ("Ich ging in den Park.", "I went"): [("I went to the park.", -0.9), ("I went home.", -0.3)],
    ("Mein Sohn hat Fieber.", "My son"): [("My son has a fever.", -1.7)],
}


GAPS_ON = Options(gap_words=4)


@pytest.fixture(scope="module")
def gapped(tiny_checkpoint):
    from model.inference.translator import Translator

    table = {"Ich ging in den Park.": [("I went.", -0.2), ("I left.", -0.4)],
             "Mein Sohn hat Fieber.": [("My son is ill.", -0.5)]}
    return NBest(Translator.from_checkpoint(tiny_checkpoint, "cpu"), table, GAPS)


def test_still_leaving_a_word_out_the_model_goes_on_where_it_belongs(gapped, coverage):
    # "I went." leaves "Park" out and so does every hypothesis of the beam: the model's next words
    # after "went" (the word before it) are tried, and one that translates it is taken
    gapped.continue_calls.clear()
    assert Pipeline(gapped, GAPS_ON, coverage=coverage).translate(["Ich ging in den Park."]) == ["I went to the park."]
    assert gapped.continue_calls == [[("Ich ging in den Park.", "I went")]]


def test_a_continuation_far_below_the_best_is_not_taken(gapped, coverage):
    # 1.2 below the best, more than one word's weight: kept as it was; at weight 2 taken
    assert Pipeline(gapped, GAPS_ON, coverage=coverage).translate(["Mein Sohn hat Fieber."]) == ["My son is ill."]
    assert Pipeline(gapped, replace(GAPS_ON, coverage_weight=2.0), coverage=coverage).translate(
        ["Mein Sohn hat Fieber."]) == ["My son has a fever."]


def test_no_continuations_with_gap_words_zero_or_where_nothing_is_left_out(gapped, engine, coverage):
    gapped.continue_calls.clear()
    assert Pipeline(gapped, Options(), coverage=coverage).translate(["Ich ging in den Park."]) == ["I went."]
    assert gapped.continue_calls == []   # off by default (bench/README.md)
    engine.continue_calls.clear()
    assert Pipeline(engine, GAPS_ON, coverage=coverage).translate(["Das Auto ist neu."]) == ["The car is new."]
    assert engine.continue_calls == []


@pytest.mark.parametrize(("value", "message"), [
    (-1, "gap_words must be an integer >= 0, got -1"),
    (1.5, "gap_words must be an integer >= 0, got 1.5"),
    (True, "gap_words must be an integer >= 0, got True"),
])
def test_bad_gap_words(value, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        Options(gap_words=value)


@pytest.mark.parametrize("options", [Options(coverage_weight=0), Options(search=replace(SERVED, beam_size=1))])
def test_off_with_weight_zero_or_greedy_search(engine, coverage, options):
    engine.n_best_calls.clear()
    assert Pipeline(engine, options, coverage=coverage).translate(["Ich muss heute arbeiten."]) == ["I must today."]
    assert engine.n_best_calls == []


def test_off_without_a_dictionary(engine):
    assert Pipeline(engine, Options()).translate(["Ich muss heute arbeiten."]) == ["I must today."]


@pytest.mark.parametrize(("weight", "message"), [
    (-1, "coverage_weight must be a number >= 0, got -1"),
    (float("inf"), "coverage_weight must be a number >= 0, got inf"),
    (float("nan"), "coverage_weight must be a number >= 0, got nan"),
    ("1", "coverage_weight must be a number >= 0, got '1'"),
    (True, "coverage_weight must be a number >= 0, got True"),
])
def test_bad_weights(weight, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        Options(coverage_weight=weight)
