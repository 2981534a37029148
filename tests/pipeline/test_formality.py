"""pipeline/formality.py and Options.formality: German output that addresses the reader as asked,
"Sie" (formal, the default) or "du" (informal), chosen among the model's own hypotheses."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.stub_engine import NBest
from model.search.options import SERVED
from pipeline.formality import address_cuts, addresses, du_imperatives, mismatches
from pipeline.translation import Options, Pipeline


@pytest.mark.parametrize("german, formal, informal", [
    # (words that are not formal, words that are not informal)
    ("Kannst du mir helfen?", 1, 0),
    ("Können Sie mir helfen?", 0, 1),
    ("Ich gebe dir dein Buch und euch eure Karten.", 4, 0),
    ("Du bist spät. Ist das Ihr Auto?", 1, 1),           # "Du" opening a sentence is informal too
    ("Sie kommt morgen.", 0, 0),                          # "Sie" opening a sentence: she, they or you
    ("Er sagt: Sie kommen morgen.", 0, 0),                # after a colon a sentence starts
    ("Tom und sie gehen mit ihr und ihren Freunden.", 0, 0),   # she, her, their: no address
    ("„Sie kommt“, sagte er.", 0, 0),                     # opening quote, then the sentence's start
    ("Ich danke Ihnen.\nIhre Anna", 0, 1),                 # a line's start is a sentence's
    ("Die Durchsicht", 0, 0),                              # "du" inside a word is no word
    ("Könnt ihr mir helfen? Ihr seid spät.", 2, 0),       # "ihr" beside a verb of the plural "you"
    ("Habt ihr Hunger, oder wisst ihr es nicht?", 2, 0),
    ("Er gibt ihr das Buch. Kommt ihr Bruder?", 0, 0),    # "gibt", "kommt": also he/she, so "her"
])
def test_mismatches(german, formal, informal):
    assert (mismatches(german, "formal"), mismatches(german, "informal"), mismatches(german, "any")) == (
        formal, informal, 0)


def test_an_unknown_formality_is_refused():
    with pytest.raises(ValueError) as error:
        mismatches("Hallo", "polite")
    assert str(error.value) == "formality must be one of formal, informal, any, got 'polite'"
    with pytest.raises(ValueError) as error:
        Options(formality="polite")
    assert str(error.value) == "formality must be one of formal, informal, any, got 'polite'"


TABLE = {
    "Will you help me?": [("Kannst du mir helfen?", -0.2), ("Können Sie mir helfen?", -0.5),
                         ("Könnt ihr mir helfen?", -0.6)],
    "Where is your car?": [("Wo ist dein Auto?", -0.1), ("Wo ist euer Auto?", -0.3)],   # no formal one
    "It is raining.": [("Es regnet.", -0.1)],
}


@pytest.fixture(scope="module")
def engine(reverse_checkpoint):
    from model.inference.translator import Translator

    return NBest(Translator.from_checkpoint(reverse_checkpoint, "cpu"), TABLE)


@pytest.mark.parametrize("formality, expected", [
    ("formal", ["Können Sie mir helfen?", "Wo ist dein Auto?", "Es regnet."]),   # none formal: the model's best
    ("informal", ["Kannst du mir helfen?", "Wo ist dein Auto?", "Es regnet."]),
    ("any", ["Kannst du mir helfen?", "Wo ist dein Auto?", "Es regnet."]),
])
def test_the_best_hypothesis_that_addresses_the_reader_as_asked(engine, formality, expected):
    engine.n_best_calls.clear()
    assert Pipeline(engine, Options(formality=formality)).translate(list(TABLE)) == expected
    # only outputs that address the reader the other way are searched again
    assert engine.n_best_calls == {"formal": [["Will you help me?", "Where is your car?"]], "informal": [],
                                   "any": []}[formality]


def test_formal_is_the_default_and_needs_a_beam(engine):
    assert Pipeline(engine, Options()).translate(["Will you help me?"]) == ["Können Sie mir helfen?"]
    greedy = Options(search=replace(SERVED, beam_size=1))
    assert Pipeline(engine, greedy).translate(["Will you help me?"]) == ["Kannst du mir helfen?"]


def test_english_output_has_no_formality(tiny_checkpoint):
    from model.inference.translator import Translator

    german = NBest(Translator.from_checkpoint(tiny_checkpoint, "cpu"), {"Kannst du kommen?": [("Can you come?", -0.1)]})
    pipeline = Pipeline(german, Options(formality="informal"))
    assert pipeline.formality is None and pipeline.translate(["Kannst du kommen?"]) == ["Can you come?"]


@pytest.mark.parametrize("german, formality, cuts", [
    ("Kannst du mir helfen?", "formal", ["Kannst", ""]),              # before "du", and before its verb
    ("Ich glaube, du hast recht.", "formal", ["Ich glaube,", "Ich", ""]),
    ("Also, ich denke, dass du recht hast.", "formal", ["Also, ich denke, dass", "Also, ich denke,", "Also, ich"]),
    ("Du bist spät.", "formal", [""]),
    ("Wo seid ihr?", "formal", ["Wo", ""]),                          # "seid ihr": the plural's verb first
    ("Können Sie mir helfen?", "informal", ["Können", ""]),
    ("Können Sie mir helfen?", "formal", []),                        # addresses the reader as asked
    ("Sie kommt morgen.", "informal", []),                           # she: no address
    ("Kannst du mir helfen?", "any", []),
])
def test_address_cuts_end_before_the_first_word_of_the_other_address(german, formality, cuts):
    assert address_cuts(german, formality) == cuts


@pytest.mark.parametrize("german, start, formal, informal", [
    ("Sie haben recht.", 0, 1, 0),                    # sentence-initial: after a cut, it is the reader
    ("Wie alt sind Sie?", 8, 1, 0),
    ("Wie alt bist?", 8, 0, 0),                       # the address dropped, not changed
    ("Kannst du mir deine Karte geben?", 7, 0, 2),
    ("Kannst du mir deine Karte geben?", 14, 0, 1),   # from the offset on
    ("Wo seid ihr?", 0, 0, 1),
])
def test_addresses_counts_the_asked_address_from_an_offset(german, start, formal, informal):
    assert (addresses(german, "formal", start), addresses(german, "informal", start),
            addresses(german, "any", start)) == (formal, informal, 0)


def test_where_the_beam_has_no_such_hypothesis_the_model_goes_on_before_the_word(reverse_checkpoint):
    from model.inference.translator import Translator

    table = {"Do you have your key?": [("Hast du deinen Key?", -0.2), ("Hast du deinen Key!", -0.4)],
             "Where is your car?": [("Wo ist dein Auto?", -0.1)]}
    continuations = {
        # before "du": the formal verb, but still "deinen" (one word of the other address, not two)
        ("Do you have your key?", ""): [("Haben Sie deinen Key?", -0.7), ("Hast du einen Key?", -0.9)],
        # the second round, before "deinen"
        ("Do you have your key?", "Haben Sie"): [("Haben Sie Ihren Key?", -0.9), ("Haben Sie deinen Key?", -0.7)],
        # one that drops the address instead of changing it is no translation as asked
        ("Where is your car?", "Wo ist"): [("Wo ist Auto?", -0.3), ("Wo ist Ihr Auto?", -0.8)],
    }
    engine = NBest(Translator.from_checkpoint(reverse_checkpoint, "cpu"), table, continuations)
    pipeline = Pipeline(engine, Options(formality="formal"))
    assert pipeline.translate(list(table)) == ["Haben Sie Ihren Key?", "Wo ist Ihr Auto?"]
    assert engine.continue_calls == [
        [("Do you have your key?", "Hast"), ("Do you have your key?", ""), ("Where is your car?", "Wo ist"),
         ("Where is your car?", "Wo"), ("Where is your car?", "")],
        # the second round: not "" again, gone on from in the first
        [("Do you have your key?", "Haben Sie"), ("Do you have your key?", "Haben")]]
    # as the model writes it ("any"), or where the beam has one already: no continuation is asked for
    engine.continue_calls.clear()
    assert Pipeline(engine, Options(formality="any")).translate(list(table)) == ["Hast du deinen Key?", "Wo ist dein Auto?"]
    assert Pipeline(engine, Options(formality="informal")).translate(list(table)) == [
        "Hast du deinen Key?", "Wo ist dein Auto?"]
    assert engine.continue_calls == []


def test_the_continuations_stop_at_the_request_budget(reverse_checkpoint):
    import time

    from model.inference.translator import Translator
    from pipeline import deadline

    table = {"Where is your car?": [("Wo ist dein Auto?", -0.1)]}

    class Slow(NBest):
        def translate_n_best(self, texts, search):   # the wider beam's search outlasts the budget
            time.sleep(0.05)
            return super().translate_n_best(texts, search)

    engine = Slow(Translator.from_checkpoint(reverse_checkpoint, "cpu"), table,
                  {("Where is your car?", "Wo ist"): [("Wo ist Ihr Auto?", -0.8)]})
    with deadline.budget(0.02), pytest.raises(deadline.DeadlineExceeded):
        Pipeline(engine, Options(formality="formal")).translate(list(table))
    assert engine.continue_calls == []


@pytest.mark.parametrize("german, expected", [
    ("Behalte diese Medizin außerhalb der Reichweite von Kindern.", [0]),
    ("Nimm zwei Tabletten am Tag.", [0]),                  # a form only the imperative has
    ("Bitte lies die Anleitung.", [6]),                    # after "Bitte"
    ("Das ist gut. Öffne die Datei.", [13]),               # any sentence's start
    ("Spiele die Musik ab.", [0]),                         # also a noun, but an object follows
    ("Warte mal!", [0]),
    ("Bewahren Sie das Arzneimittel auf.", []),            # the formal imperative
    ("Vergiss es nicht.", [0]),                            # "es" may be its object
    ("Ändere die Datei.", [0]),                            # "ändern": the stem "änder"
    ("Kaufe ich das?", []),                                # a question: a subject follows
    ("Gab es einen Grund? War es gut? Machte es Spaß?", []),   # the past, not the imperative
    ("Spiele für Kinder", []),                             # the noun
    ("Liebe Anna, danke schön.", []),
    ("Suche nach Updates", []),
    ("Frage: Wie geht das?", []),
    ("Heute ist schön.", []),
])
def test_du_imperatives(german, expected):
    assert du_imperatives(german) == expected
    assert mismatches(german, "formal") == len(expected)
