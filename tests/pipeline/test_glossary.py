"""pipeline/glossary.py: checking entries, matching in sentences, the number of each match,
restoring terms into the model's output. The noun forms and English plurals it uses:
tests/pipeline/test_inflection.py (whose Ding lines these tests read too). The pipeline with a
glossary on the release model: tests/test_release.py."""

from __future__ import annotations

import pytest

from pipeline import words as W
from pipeline.glossary import Glossary, GlossaryError, check_entries, fit_terms
from pipeline.inflection import Inflections
from pipeline.rules.verbatim import find_spans
from pipeline.spans import Span, mask, slots_needed
from tests.conftest import ding_file
from tests.pipeline.test_inflection import DING


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
