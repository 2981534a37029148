"""pipeline/hints.py: a German noun that a translation carries over as written gets the
dictionary's English (a glossary term), and the sentence is translated again; and
``Coverage.copied``, which finds such words.

The dictionary is a few lines in Ding's format written for these tests (not taken from Ding)."""

from __future__ import annotations

import pytest

from bench.stub_engine import NBest
from model.data.ding import DingDictionary
from pipeline.coverage import Coverage
from pipeline.glossary import Glossary
from pipeline.hints import hint, in_a_name, untranslated, with_hints
from pipeline.translation import Options, Pipeline
from tests.conftest import ding_file

DING = [
    "Gewinn {m} | Gewinne {pl} :: profit; gain | profits; gains",
    "Aufruf {m} | Aufrufe {pl} :: appeal (to sb.); call | appeals; calls",
    "Neuheit {f} | Neuheiten {pl} :: novelty | novelties",
    "Firma {f} | Firmen {pl} :: company; firm | companies; firms",
    "Hotel {n} | Hotels {pl} :: hotel | hotels",
    "Fan {m} | Fans {pl} :: fan; enthusiast | fans; enthusiasts",
    "Herunterladen {n} :: downloading",
    "Download {m} :: downloading",
    "Zumutung {f} :: sth. unreasonable",
    "Strauch {m} | Sträucher {pl} :: bush; shrub | bushes; shrubs",
    "wild {adj} :: wild; fierce",
    "heute {adv} :: today",
    "groß {adj} :: big; large",
    "machen {vt} | er/sie macht :: to make; to do | makes; does",
    "Lindenau {n} [geogr.] :: Lindenau",
]


@pytest.fixture(scope="module")
def coverage(tmp_path_factory) -> Coverage:
    return Coverage.of(DingDictionary(ding_file(tmp_path_factory, DING)))


@pytest.mark.parametrize("word, found", [
    ("Gewinne", ("Gewinn", "profit")),        # a plural: the headword, singular (the glossary inflects it)
    ("Aufruf", ("Aufruf", "appeal")),         # the first sense, its gloss "(to sb.)" left out
    ("Neuheit", ("Neuheit", "novelty")),
    ("Wild", None),                           # its first reading is no noun
    ("Lindenau", None),                       # a place
    ("Zumutung", None),                       # "sth. unreasonable" is a phrase, not a term
    ("Kowalczyk", None),                      # Ding does not know it
    ("Firmengewinne", ("Firmengewinn", "company profit")),   # a compound Ding lacks: its parts
])
def test_hint_is_the_first_reading_of_a_noun(coverage, word, found):
    assert hint(word, coverage) == found


READS = {"Firma", "Gewinne", "Strauch", "heute", "die"}.__contains__


@pytest.mark.parametrize("sentence, word, named", [
    ("Das ist wirklich Florian David Strauch.", "Strauch", True),   # after a first name
    ("Heute leitet Strauch Kowalczyk die Firma.", "Strauch", True),   # beside a word Ding cannot read
    ("Tormann Jonas Strauch hielt den Ball.", "Tormann", False),   # a noun before a first name says who
    ("Die Firma machte Gewinne.", "Gewinne", False),
    ("Gewinne machte die Firma.", "Gewinne", False),
])
def test_in_a_name(sentence, word, named):
    assert in_a_name(sentence, word, READS) is named


@pytest.mark.parametrize("source, output, copied", [
    ("Die Firma machte große Gewinne.", "The company made big Gewinne.", [(21, "Gewinne")]),
    ("Das war eine Neuheit.", "That was a neuheit.", []),   # lower case is too often English ("diagnose")
    ("Das Hotel hat Fans.", "The Hotel has Fans.", []),     # English writes them so ("fans": "fan")
    ("Kein Herunterladen.", "No Herunterladen.", [(3, "Herunterladen")]),
    ("Zwei Downloads.", "Two Downloads.", []),              # "downloads" is "downloading"'s lemma
    ("Die Firma machte Gewinne.", "The Firma made profits.", []),   # not German here: see ``german``
    ("Heute ist heute.", "Heute is heute.", []),               # not German by ``german``
])
def test_copied_finds_german_words_carried_over(coverage, source, output, copied):
    german = {"Gewinne", "Neuheit", "Hotel", "Fans", "Herunterladen", "Downloads"}.__contains__   # "Firma": say, a name
    assert coverage.copied(source, output, german) == copied


def test_untranslated_leaves_names_out(coverage):
    reads = {"Gewinne", "Strauch", "Firma", "die"}.__contains__
    assert untranslated("Die Firma machte Gewinne.", "The Firma made Gewinne.", coverage, reads) == ["Firma", "Gewinne"]
    # the lexicon's names, and a word in a name, are no German left in the English
    assert untranslated("Die Firma machte Gewinne.", "The Firma made Gewinne.", coverage, reads,
                        {"Firma"}.__contains__) == ["Gewinne"]
    assert untranslated("Das ist Florian David Strauch.", "That is Florian David Strauch.", coverage, reads) == []


def test_hints_is_a_bool():
    with pytest.raises(ValueError, match="^hints must be True or False, got 1$"):
        Options(hints=1)


def test_with_hints_adds_terms_the_glossary_lacks_and_keeps_the_users(coverage):
    assert with_hints(None, ["Wild"], coverage) is None
    glossary = with_hints(None, ["Gewinne", "Aufruf", "Gewinne"], coverage)
    assert glossary.entries == (("Gewinn", "profit"), ("Aufruf", "appeal"))
    users = Glossary({"Gewinn": "gain"})
    assert with_hints(users, ["Gewinne", "Neuheit"], coverage).entries == (("Gewinn", "gain"), ("Neuheit", "novelty"))
    assert with_hints(users, ["Gewinne"], coverage) is users


TABLE = {
    "Die Firma machte große Gewinne.": [("The company made big Gewinne.", -0.2)],
    "Die Firma machte große ⦅X1⦆.": [("The company made big ⦅X1⦆.", -0.3)],
    "Das war eine Neuheit.": [("That was a Neuheit.", -0.2)],
    "Das war eine ⦅X1⦆.": [("That was a ⦅X1⦆.", -0.3)],
    "Das ist ⦅X1⦆ Strauch.": [("That is ⦅X1⦆ Strauch.", -0.2)],   # the first names are a span; Ding reads "Strauch"
}


@pytest.fixture(scope="module")
def engine(span_checkpoint):
    from model.inference.translator import Translator

    return NBest(Translator.from_checkpoint(span_checkpoint, "cpu"), TABLE)


def test_a_copied_noun_is_translated_again_with_the_dictionarys_english(engine, coverage):
    pipeline = Pipeline(engine, Options(), coverage=coverage)
    assert pipeline.translate(["Die Firma machte große Gewinne.", "Das war eine Neuheit."]) == [
        "The company made big profits.", "That was a novelty."]
    assert Pipeline(engine, Options(hints=False), coverage=coverage).translate(["Die Firma machte große Gewinne."]) == [
        "The company made big Gewinne."]


def test_a_name_is_no_copied_german_word(engine, coverage):
    assert Pipeline(engine, Options(), coverage=coverage).translate(["Das ist Florian David Strauch."]) == [
        "That is Florian David Strauch."]


def test_the_users_glossary_wins_over_a_hint(engine, coverage):
    pipeline = Pipeline(engine, Options(), coverage=coverage)
    assert pipeline.translate(["Die Firma machte große Gewinne."], glossary=Glossary({"Gewinn": "gain"})) == [
        "The company made big gains."]
