"""pipeline/harm.py and Options.checks: no translation loses or adds a negation, or has profanity its
source has not, where the model has a hypothesis without; and one that keeps a fault says so."""

from __future__ import annotations

import pytest

from bench.stub_engine import NBest
from pipeline.harm import faults, warnings
from pipeline.translation import Options, Pipeline

TABLE = {
    # the negation lost by the best hypothesis
    "Brechen Sie die Behandlung nicht ab.": [("Stop the treatment.", -0.2), ("Do not stop the treatment.", -0.5)],
    # profanity the source has not, in the two best
    "Die Zwiebeln fein hacken.": [("Chop the onions fucking.", -0.1), ("Fucking chop the onions.", -0.2),
                                  ("Chop the onions finely.", -0.6)],
    # profanity in every hypothesis: the model goes on before it
    "Den Knoblauch fein schneiden.": [("Slice the garlic damn fine.", -0.1)],
    # a negation lost in every hypothesis: the model's best stays, with a warning
    "Trinken Sie keinen Alkohol.": [("Drink alcohol.", -0.1), ("Drink some alcohol.", -0.3)],
    "Guten Morgen.": [("Good morning.", -0.1)],
}
CONTINUATIONS = {("Den Knoblauch fein schneiden.", "Slice the garlic"): [("Slice the garlic finely.", -0.9)]}


@pytest.fixture(scope="module")
def engine(tiny_checkpoint):
    from model.inference.translator import Translator

    return NBest(Translator.from_checkpoint(tiny_checkpoint, "cpu"), TABLE, CONTINUATIONS)


def test_harm_is_weighed_before_the_score(engine):
    engine.n_best_calls.clear()
    engine.continue_calls.clear()
    assert Pipeline(engine, Options()).translate(list(TABLE)) == [
        "Do not stop the treatment.", "Chop the onions finely.", "Slice the garlic finely.", "Drink alcohol.",
        "Good morning."]
    # only outputs that do harm are searched again; only a fault with a place is gone on before
    assert engine.n_best_calls == [list(TABLE)[:4]]
    assert engine.continue_calls == [[("Den Knoblauch fein schneiden.", "Slice the garlic"),
                                      ("Den Knoblauch fein schneiden.", "Slice the"),
                                      ("Den Knoblauch fein schneiden.", "Slice")]]


def test_without_checks_the_model_s_best_stays(engine):
    assert Pipeline(engine, Options(checks=())).translate(list(TABLE)) == [
        "Stop the treatment.", "Chop the onions fucking.", "Slice the garlic damn fine.", "Drink alcohol.",
        "Good morning."]
    assert Pipeline(engine, Options(checks=("negation",))).translate(list(TABLE)[:2]) == [
        "Do not stop the treatment.", "Chop the onions fucking."]


def test_profanity_every_search_kept_is_taken_out(tiny_checkpoint):
    from model.inference.translator import Translator

    engine = NBest(Translator.from_checkpoint(tiny_checkpoint, "cpu"),
                   {"Den Knoblauch fein schneiden.": [("Slice the garlic damn fine.", -0.1)]})
    assert Pipeline(engine, Options()).translate(["Den Knoblauch fein schneiden."]) == ["Slice the garlic fine."]


@pytest.mark.parametrize("checks", [("negation", "rudeness"), ["negation"], "negation"])
def test_unknown_checks_are_refused(checks):
    with pytest.raises(ValueError) as error:
        Options(checks=checks)
    assert str(error.value) == f"checks must be a tuple of check names (negation, profanity), got {checks!r}"


@pytest.mark.parametrize("source, translation, language, formality, expected", [
    ("Trinken Sie keinen Alkohol.", "Drink alcohol.", "de", None, ["negation"]),
    ("Die Zwiebeln fein hacken.", "Chop the fucking onions.", "de", None, ["profanity"]),
    ("Keep this medicine away from children.", "Behalte diese Medizin fern von Kindern.", "en", "formal",
     ["formality"]),
    ("Keep this medicine away from children.", "Behalte diese Medizin fern von Kindern.", "en", "informal", []),
    ("Do not drink it.", "Trink es.", "en", "informal", ["negation"]),
    ("Guten Morgen.", "Good morning.", "de", None, []),
])
def test_warnings(source, translation, language, formality, expected):
    assert warnings(source, translation, language, formality) == expected


def test_faults_have_places_where_they_can():
    assert faults("Trinken Sie keinen Alkohol.", "Drink damn alcohol.", "de") == [-1, 6]
    assert faults("Trinken Sie keinen Alkohol.", "Drink damn alcohol.", "de", ("profanity",)) == [6]
