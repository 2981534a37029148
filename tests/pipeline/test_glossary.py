"""pipeline/glossary.py: checking entries, German noun forms (Ding's and the rules'), matching in
sentences, the number of each match, English plurals and articles, restoring terms into the
model's output. The pipeline with a glossary on the release model: tests/test_release.py.

The DING lines below (but the last) are real lines of Ding (Debian ``trans-de-en``, © Frank Richter, TU Chemnitz,
GPL-2.0-or-later; https://dict.tu-chemnitz.de/), quoted to test the reader."""

from __future__ import annotations

import os

import pytest

from model.data.ding import load_dictionary, NounForms
from pipeline import words as W
from pipeline.glossary import (
    Glossary, GlossaryError, Inflections, check_entries, english_plural, fit_terms, guess_gender,
    indefinite_article, noun_forms)
from pipeline.rules.verbatim import find_spans
from pipeline.spans import Span, mask, slots_needed
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


def found(glossary: Glossary, sentence: str) -> list[tuple[str, str, str]]:
    return [(s.text, s.kind, s.target) for s in glossary.spans(sentence)]


# ------------------------------------------------------------------------------ entries

def test_entries_are_normalized_and_keep_their_order():
    assert check_entries({" Termin ": "appointment", "Rote  Karte": " red\tcard "}) == (
        ("Termin", "appointment"), ("Rote Karte", "red card"))
    assert check_entries([("Termin", "appointment")]) == (("Termin", "appointment"),)


@pytest.mark.parametrize("entries, message", [
    ({"": "x"}, "a term is empty"),
    ({"  ": "x"}, "a term is empty"),
    ({"Termin": ""}, "the translation of 'Termin' is empty"),
    ({"Termin": " \n"}, "the translation of 'Termin' is empty"),
    ({"Termin": 3}, "the translation of 'Termin' must be a string, got 3"),
    ({"Termin": None}, "the translation of 'Termin' must be a string, got None"),
    ([(3, "x")], "a term must be a string, got 3"),
    ([("Termin",)], "an entry must be a pair of a German term and its English translation, got ('Termin',)"),
    ({"Termin": "appointment", "termin": "date"}, "the term 'termin' is given twice (also as 'Termin')"),
    ({"Termin": "appointment", " TERMIN ": "date"}, "the term 'TERMIN' is given twice (also as 'Termin')"),
    ({"123": "x"}, "the term '123' has no letters"),
    ({"T" * 101: "x"}, f"the term {'T' * 40 + '…'!r} has 101 characters, more than 100"),
    ({"Termin": "a" * 101}, f"the translation {'a' * 40 + '…'!r} has 101 characters, more than 100"),
])
def test_bad_entries_are_refused_with_a_reason(entries, message):
    with pytest.raises(GlossaryError) as error:
        check_entries(entries)
    assert str(error.value) == message


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


# ------------------------------------------------------------------------------ matching

def test_every_inflected_form_becomes_the_term_in_its_number(ding):
    glossary = Glossary({"Termin": "appointment"}, ding)
    assert found(glossary, "Ich habe morgen einen Termin.") == [("Termin", "glossary", "appointment")]
    assert found(glossary, "Die Termine sind morgen.") == [("Termine", "glossary_plural", "appointments")]
    assert found(glossary, "Mit den Terminen bin ich fertig.") == [("Terminen", "glossary_plural", "appointments")]
    assert found(glossary, "Das Ende des Termins war spät.") == [("Termins", "glossary", "appointment")]
    assert found(glossary, "Termin und Termine.") == [("Termin", "glossary", "appointment"),
                                                     ("Termine", "glossary_plural", "appointments")]


def test_rules_alone_find_the_forms_too():
    glossary = Glossary({"Termin": "appointment", "Arzt": "physician"})
    assert found(glossary, "Die Termine der Ärzte.") == [("Termine", "glossary_plural", "appointments"),
                                                        ("Ärzte", "glossary_plural", "physicians")]


@pytest.mark.parametrize("sentence, kind", [
    ("Der Lehrer ist nett.", "glossary"),
    ("Die Lehrer sind nett.", "glossary_plural"),          # masculine: "die" is plural
    ("Zwei Lehrer kamen.", "glossary_plural"),
    ("Ich kenne 3 Lehrer.", "glossary_plural"),
    ("Alle neuen Lehrer kamen.", "glossary_plural"),
    ("Wir suchen neue Lehrer.", "glossary_plural"),        # an adjective in -e and no determiner
    ("Er ist Lehrer.", "glossary"),
    ("Das sagt er, die Lehrer nicht.", "glossary_plural"),
    ("Die Bücher, der Lehrer und wir.", "glossary"),       # the clause starts after the comma
    ("Mit den Lehrern spricht sie.", "glossary_plural"),
])
def test_a_form_like_its_plural_takes_the_number_of_the_words_before_it(ding, sentence, kind):
    [(_, actual, _)] = found(Glossary({"Lehrer": "tutor"}, ding), sentence)
    assert actual == kind


@pytest.mark.parametrize("sentence, kind", [
    ("Wegen des Autos kam er spät.", "glossary"),
    ("Die Autos sind rot.", "glossary_plural"),
    ("Viele Autos parken hier.", "glossary_plural"),
    ("Ich gab dem Studenten das Buch.", "glossary"),
    ("Die Studenten warten.", "glossary_plural"),
    ("Er sprach mit den Studenten.", "glossary_plural"),
    ("Die Ordner sind voll.", "glossary_plural"),           # Ding has it masculine and (wrongly) feminine
])
def test_genitive_and_weak_forms_take_their_number_from_the_determiner(ding, sentence, kind):
    [(_, actual, _)] = found(Glossary({"Auto": "vehicle", "Student": "trainee", "Ordner": "directory"}, ding),
                             sentence)
    assert actual == kind


def test_only_whole_words_match_not_compounds_nor_parts(ding):
    glossary = Glossary({"Termin": "appointment"}, ding)
    for sentence in ("Ich habe einen Zahnarzttermin.", "Die Termin-Erinnerung kam.", "Terminplanung ist alles.",
                     "Termin- und Kostenplanung.", "Der Termin_2 steht.", "Ein Termin5."):
        assert found(glossary, sentence) == [], sentence


def test_case_nouns_never_match_lower_case_lower_case_terms_match_at_a_sentence_start(ding):
    glossary = Glossary({"Essen": "food", "kostenlos": "free of charge", "gehen": "walk"}, ding)
    assert found(glossary, "Wir essen jetzt.") == []
    assert found(glossary, "Das Essen ist kalt.") == [("Essen", "glossary", "food")]
    assert found(glossary, "Der Versand ist kostenlos.") == [("kostenlos", "glossary", "free of charge")]
    assert found(glossary, "Kostenlos ist nichts.") == [("Kostenlos", "glossary", "free of charge")]
    assert found(glossary, "Das ist Kostenlos.") == []
    assert found(glossary, "Gehen wir!") == [("Gehen", "glossary", "walk")]
    assert found(glossary, "Ich werde gehen.") == [("gehen", "glossary", "walk")]
    assert found(glossary, "Er geht.") == []  # verbs match only as written


def test_a_lower_case_term_whose_capitalized_form_is_a_noun_is_not_taken_for_it(ding):
    glossary = Glossary({"essen": "eat"}, ding)
    assert found(glossary, "Wir essen.") == [("essen", "glossary", "eat")]
    assert found(glossary, "Essen ist fertig.") == []  # Ding knows "Essen": the noun


def test_all_caps_text_matches_any_term(ding):
    glossary = Glossary({"Rechnung": "invoice", "kostenlos": "free of charge"}, ding)
    assert found(glossary, "BITTE DIE RECHNUNGEN AUFBEWAHREN") == [("RECHNUNGEN", "glossary_plural", "invoices")]
    assert found(glossary, "VERSAND KOSTENLOS") == [("KOSTENLOS", "glossary", "free of charge")]


def test_terms_of_several_words_inflect_their_last_word_and_the_longest_wins(ding):
    glossary = Glossary({"Termin": "appointment", "fester Termin": "fixed date"}, ding)
    assert found(glossary, "Das ist ein fester Termin.") == [("fester Termin", "glossary", "fixed date")]
    assert found(glossary, "Zwei fester  Termine?") == [("fester  Termine", "glossary_plural", "fixed dates")]
    # it starts lower case: capitalized at a sentence's start too
    assert found(glossary, "Fester Termin.") == [("Fester Termin", "glossary", "fixed date")]


def test_a_term_given_in_the_plural_keeps_its_english_as_given(ding):
    glossary = Glossary({"Termine": "schedule"}, ding)
    assert found(glossary, "Die Termine stehen.") == [("Termine", "glossary", "schedule")]
    assert found(glossary, "Mit den Terminen.") == [("Terminen", "glossary", "schedule")]
    assert found(glossary, "Der Termin steht.") == []


def test_an_entry_own_term_wins_over_another_entry_inflection(ding):
    glossary = Glossary({"Termin": "appointment", "Termine": "calendar"}, ding)
    assert found(glossary, "Die Termine.") == [("Termine", "glossary", "calendar")]
    assert glossary.forms("Termin") == {"Termin": "appointment", "Terminen": "appointments",
                                        "Termins": "appointment", "Termines": "appointment"}
    with pytest.raises(KeyError):
        glossary.forms("Zimmer")


def test_other_spans_win_and_a_term_takes_in_unrepresentable_characters(ding):
    glossary = Glossary({"Termin": "appointment"}, ding)
    text = "Siehe https://example.org/Termin und den Termin."
    spans = find_spans(text)
    terms = glossary.spans(text, spans)
    assert [(s.text, s.kind) for s in terms] == [("Termin", "glossary")]
    assert terms[0].start == text.rindex("Termin")
    unrepresentable = [Span(2, 3, "unrepresentable", "r")]
    assert Glossary({"Termin": "appointment"}).spans("Termin.", unrepresentable)[0].text == "Termin"


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


# ------------------------------------------------------------------------------ restoring

def restored(output: str, german: str, spans: list[Span], style: str = "normal", initial: bool = True) -> str:
    masked = mask(german, spans)
    words = W.from_text(output)
    slots = fit_terms(words, masked, style, initial=initial)
    return W.render(W.restore_words(words, slots))[0]


def term(german: str, text: str, target: str, plural: bool = False) -> Span:
    start = german.index(text)
    return Span(start, start + len(text), "glossary_plural" if plural else "glossary", text, target)


def test_mask_restores_a_term_as_its_english_and_equal_forms_of_other_numbers_apart():
    german = "Der Lehrer lobt die Lehrer."
    spans = [Span(4, 10, "glossary", "Lehrer", "tutor"), Span(20, 26, "glossary_plural", "Lehrer", "tutors")]
    masked = mask(german, spans)
    assert masked.text == "Der ⦅X1⦆ lobt die ⦅X2⦆."
    assert masked.slots == {"⦅X1⦆": "tutor", "⦅X2⦆": "tutors"}
    assert masked.glossary == {"⦅X1⦆": False, "⦅X2⦆": True}
    assert slots_needed(spans) == {"N": 0, "X": 2}
    assert mask("Der Termin, der Termin.", [Span(4, 10, "glossary", "Termin", "date"),
                                            Span(16, 22, "glossary", "Termin", "date")]).text == "Der ⦅X1⦆, der ⦅X1⦆."


def test_a_and_an_are_fitted_to_the_term():
    german = "Ich habe einen Termin."
    assert restored("I have a ⦅X1⦆ tomorrow.", german, [term(german, "Termin", "appointment")]) == \
        "I have an appointment tomorrow."
    assert restored("I have an ⦅X1⦆.", german, [term(german, "Termin", "date")]) == "I have a date."
    assert restored("A ⦅X1⦆.", german, [term(german, "Termin", "appointment")]) == "An appointment."


def test_a_term_opening_the_sentence_is_capitalized_and_its_style_kept():
    german = "Termine sind wichtig."
    span = [term(german, "Termine", "appointments", plural=True)]
    assert restored("⦅X1⦆ are important.", german, span) == "Appointments are important."
    assert restored("⦅X1⦆ are important.", german, span, initial=False) == "appointments are important."
    upper = "TERMINE SIND WICHTIG."
    assert restored("⦅X1⦆ ARE IMPORTANT.", upper, [term(upper, "TERMINE", "appointments", True)], "upper") == \
        "APPOINTMENTS ARE IMPORTANT."


def test_the_is_put_in_where_the_german_has_a_definite_article_and_the_english_none():
    german = "Die Rechnung kommt per Post."
    span = [term(german, "Rechnung", "invoice")]
    assert restored("⦅X1⦆ is coming by post.", german, span) == "The invoice is coming by post."
    assert restored("The ⦅X1⦆ is coming by post.", german, span) == "The invoice is coming by post."
    assert restored("My ⦅X1⦆ is coming.", german, span) == "My invoice is coming."
    german = "Ich war beim Arzt."
    assert restored("I was at ⦅X1⦆.", german, [term(german, "Arzt", "physician")]) == "I was at the physician."
    german = "Meine Rechnung kommt."
    assert restored("⦅X1⦆ is coming.", german, [term(german, "Rechnung", "invoice")]) == "Invoice is coming."


def test_a_plural_term_gets_a_plural_verb_and_loses_glued_letters():
    german = "Die Kunden sind zufrieden."
    span = [term(german, "Kunden", "clients", plural=True)]
    assert restored("Our ⦅X1⦆ is very happy.", german, span) == "Our clients are very happy."
    assert restored("The ⦅X1⦆ often works late.", german, span) == "The clients often work late."
    assert restored("They met the ⦅X1⦆s.", german, span) == "They met the clients."
    german = "Wir helfen Kunden."
    span = [term(german, "Kunden", "clients", plural=True)]
    assert restored("We help ⦅X1⦆ works.", german, span) == "We help clients works."  # not the subject


# ------------------------------------------------------------------------------ bench/glossary.py

def test_the_bench_set_and_its_judge():
    from bench.glossary import DEFAULT_DATA, judge, read_cases

    cases = read_cases(str(DEFAULT_DATA))
    assert len(cases) >= 60 and {number for *_, number in cases} == {"sg", "pl"}
    terms = {}
    for german, term, english, _ in cases:
        assert terms.setdefault(term, english) == english
    glossary = Glossary(terms)  # every term is a valid entry
    assert all(glossary.spans(german) for german, *_ in cases)  # and found in its sentence, even by rules alone
    assert judge("I have an appointment.", "appointment", "sg") == (True, True)
    assert judge("The appointments are here.", "appointment", "sg") == (True, False)
    assert judge("The Appointments are here.", "appointment", "pl") == (True, True)
    assert judge("The meeting is here.", "appointment", "sg") == (False, False)
    assert judge("The guest rooms.", "guest room", "pl") == (True, True)


def test_a_glossary_of_english_terms_is_not_inflected():
    assert Glossary({"Termin": "appointment"}).forms("Termin")["Termine"] == "appointments"
    assert Glossary({"appointment": "Termin"}, source="en").forms("appointment") == {"appointment": "Termin"}


def test_a_glossary_of_another_language_is_refused():
    with pytest.raises(ValueError) as error:
        Glossary({"a": "b"}, source="fr")
    assert str(error.value) == "source must be one of de, en, got 'fr'"
