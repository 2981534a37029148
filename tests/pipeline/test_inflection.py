"""pipeline/inflection.py: German noun forms (Ding's and the rules'), genders, English plurals
and articles. How a glossary uses them: tests/pipeline/test_glossary.py.

The DING lines below (but the last) are real lines of Ding (Debian ``trans-de-en``, © Frank Richter, TU Chemnitz,
GPL-2.0-or-later; https://dict.tu-chemnitz.de/), quoted to test the reader."""

from __future__ import annotations

import os

import pytest

from model.data.ding import load_dictionary, NounForms
from pipeline.inflection import Inflections, english_plural, guess_gender, indefinite_article, noun_forms
from tests.conftest import ding_file

DING_PATH = os.environ.get("DING_PATH", "/usr/share/trans/de-en")
DING = [
    "Termin {m}; Verabredung {f} | Termine {pl}; Verabredungen {pl} | Besuchstermin {m} :: appointment | "
    "appointments | visiting appointment",
    "Lehrer {m}; Lehrerin {f}; Lehrender; Lehrende {f} [school] | Lehrer {pl}; Lehrerinnen {pl}; die Lehrenden "
    "| Aushilfslehrer {m} :: teacher | teachers | supply teacher",
    "Haus {n} | Häuser {pl} | Reihenhaus {n} :: house | houses | non-detached house",
    "Bank {f} [fin.] | Banken {pl} :: bank | banks",
    "Bank {f} (Sitzgelegenheit) | Bänke {pl} :: bench | benches",
    "Student {m}; Studentin {f} | Studenten {pl}; Studentinnen {pl} :: student | students",
    "Auto {n} | Autos {pl} :: car | cars",
    "Zimmer {n} | Zimmer {pl} :: room | rooms",
    "Ordner {f}; Heftmappe {f} | Ordner {pl}; Heftmappen {pl} :: paper folder | paper folders",
    "Ordner {m} [comp.] | Ordner {pl} | aktiver Ordner :: folder | folders | active folder",
    "Mitarbeiter {m}; Mitarbeiterin {f} | Mitarbeiter {pl}; Mitarbeiterinnen {pl} :: staff member | staff members",
    "Arzt {m}; Ärztin {f} | Ärzte {pl}; Ärztinnen {pl} :: doctor | doctors",
    "Essen {n} | Essen {pl} :: meal | meals",
    "Posten {m} | Posten {pl} :: post | posts",
    "Tisch {m} | Tische {pl} :: table | tables",
    "gehen {vi} | gehend | gegangen :: to go | going | gone",
    "Fehler {m} | Fehler {pl} | Tippfehler {m} :: error | errors | typo",
    "Ding {n} | Regenschirme {pl} :: thing | umbrellas",  # made up: a misaligned line
]


@pytest.fixture(scope="module")
def ding(tmp_path_factory) -> Inflections:
    return Inflections.from_path(ding_file(tmp_path_factory, DING))


# ------------------------------------------------------------------------------ Ding's nouns

def test_ding_noun_plurals_are_read_synonym_by_synonym(ding):
    nouns = ding.nouns
    assert nouns["Termin"] == ("m", ("Termine",))
    assert nouns["Verabredung"] == ("f", ("Verabredungen",))
    assert nouns["Lehrer"] == ("m", ("Lehrer",)) and nouns["Lehrerin"] == ("f", ("Lehrerinnen",))
    assert nouns["Bank"] == ("f", ("Banken", "Bänke"))      # two lines, both plurals
    assert nouns["Haus"] == ("n", ("Häuser",))
    assert "Lehrender" not in nouns and "Besuchstermin" not in nouns and "gehen" not in nouns
    assert "Ding" not in nouns  # "Regenschirme" does not start as "Ding" does: a misaligned line


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isfile(DING_PATH), reason="the Ding dictionary (trans-de-en) is not installed")
def test_the_whole_ding_dictionary_gives_plurals():
    nouns = NounForms(load_dictionary(DING_PATH))
    assert nouns["Termin"] == ("m", ("Termine",))
    assert nouns["Arzt"] == ("m", ("Ärzte",))


# ------------------------------------------------------------------------------ noun forms

def forms_of(noun: str, inflections: Inflections | None = None) -> dict[str, tuple[str, bool]]:
    forms, _ = noun_forms(noun, inflections)
    return {form: (f.number, f.ambiguous) for form, f in forms.items()}


def test_ding_forms_are_its_plurals_their_dative_and_the_genitive(ding):
    assert forms_of("Termin", ding) == {"Termin": ("sg", False), "Termine": ("pl", False),
                                        "Terminen": ("pl", False), "Termins": ("sg", False),
                                        "Termines": ("sg", False)}
    assert forms_of("Haus", ding) == {"Haus": ("sg", False), "Häuser": ("pl", False), "Häusern": ("pl", False),
                                      "Hauses": ("sg", False)}
    # a plural like the singular: the words before it decide
    assert forms_of("Lehrer", ding) == {"Lehrer": ("sg", True), "Lehrern": ("pl", False), "Lehrers": ("sg", False)}
    # feminine: no genitive ending
    assert forms_of("Bank", ding) == {"Bank": ("sg", False), "Banken": ("pl", False), "Bänke": ("pl", False),
                                      "Bänken": ("pl", False)}
    # weak masculine: "Studenten" is also the singular's dative and accusative
    assert forms_of("Student", ding) == {"Student": ("sg", False), "Studenten": ("pl", True)}
    assert forms_of("Auto", ding) == {"Auto": ("sg", False), "Autos": ("pl", True)}


def test_a_compound_ding_lacks_is_inflected_as_its_head(ding):
    assert forms_of("Gesprächstermin", ding) == {
        "Gesprächstermin": ("sg", False), "Gesprächstermine": ("pl", False), "Gesprächsterminen": ("pl", False),
        "Gesprächstermins": ("sg", False), "Gesprächstermines": ("sg", False)}
    assert noun_forms("Kaffeehaus", ding)[1] == "n"


@pytest.mark.parametrize("noun, expected", [
    ("Termin", {"Termine", "Terminen", "Termins", "Termines"}),
    ("Arzt", {"Ärzte", "Ärzten", "Arztes"}),
    ("Haus", {"Häuser", "Häusern", "Hauses"}),
    ("Kind", {"Kinder", "Kindern", "Kindes"}),
    ("Lampe", {"Lampen"}),
    ("Rechnung", {"Rechnungen"}),
    ("Lehrerin", {"Lehrerinnen"}),
    ("Vater", {"Väter", "Vätern", "Vaters"}),
    ("Regel", {"Regeln"}),
    ("Auto", {"Autos"}),
    ("API", {"APIs"}),
])
def test_rules_give_the_usual_plurals_without_a_dictionary(noun, expected):
    assert expected <= set(forms_of(noun))
    assert "Hause" not in forms_of("Haus")  # "zu Hause" is no plural


def test_rule_forms_that_ding_lists_as_other_nouns_are_left_out(ding):
    assert "Posten" in forms_of("Post")
    assert "Posten" not in forms_of("Post", ding)  # Ding lacks "Post"; "Posten" is a noun of its own


@pytest.mark.parametrize("noun, gender", [
    ("Besprechung", "f"), ("Lehrerin", "f"), ("Lampe", "f"), ("Mädchen", "n"), ("Rechner", "m"),
    ("Wagen", "m"), ("Nummer", "f"), ("Hausnummer", "f"), ("Tisch", ""), ("Termin", ""), ("Ärztin", "f"),
])
def test_gender_is_guessed_from_the_ending(noun, gender):
    assert guess_gender(noun) == gender


# ------------------------------------------------------------------------------ English

@pytest.mark.parametrize("term, plural", [
    ("appointment", "appointments"), ("box", "boxes"), ("church", "churches"), ("city", "cities"),
    ("day", "days"), ("child", "children"), ("person", "people"), ("knife", "knives"),
    ("chairman", "chairmen"), ("human", "humans"), ("information", "information"), ("sheep", "sheep"),
    ("API", "APIs"), ("dental appointment", "dental appointments"), ("point of view", "points of view"),
    ("Mother", "Mothers"), ("iPhone", "iPhones"), ("potato", "potatoes"), ("photo", "photos"),
])
def test_english_plural(term, plural):
    assert english_plural(term) == plural


@pytest.mark.parametrize("term, article", [
    ("appointment", "an"), ("invoice", "an"), ("car", "a"), ("hour", "an"), ("university", "a"),
    ("user", "a"), ("umbrella", "an"), ("European", "a"), ("FAQ", "an"), ("PDF", "a"), ("one-way ticket", "a"),
])
def test_indefinite_article(term, article):
    assert indefinite_article(term) == article
