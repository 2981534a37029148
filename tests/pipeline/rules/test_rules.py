"""pipeline/rules: the ordered rules of the pipeline, and switching each off (Options.without_rules)."""

from dataclasses import replace

import pytest

from bench.stub_engine import CopyEngine
from commands.cli import DEFAULT_CHECKPOINT
from model.inference.translator import Translator
from model.search.options import SERVED
from pipeline.rules import ENGLISH_RULES, NAMES, RULES, rules_for
from pipeline.translation import Options, Pipeline

pytestmark = pytest.mark.slow   # loads the release checkpoint
GREEDY = replace(SERVED, beam_size=1)

TEXTS = ["Wir treffen uns um 14 Uhr.", "Das kostet 49,99 €.", "Hallo Lukas, wie geht es dir?",
         "Das dauert ca. 5 Min.", "Geöffnet Mo–Fr von 9–18 Uhr.", "Drücken Sie Strg+C.",
         "Wir haben montags bis freitags geöffnet."]
# What the copying stub engine gives back with every rule: each span written as English writes it.
EVERY_RULE = ["Wir treffen uns um 2 p.m. Uhr.", "Das kostet €49.99.", "Hello Lukas, wie geht es dir?",
              "Das dauert approx. 5 minutes.", "Geöffnet Mon–Fri von 9 a.m.–6 p.m. Uhr.", "Drücken Sie Ctrl+C.",
              "Wir haben Monday to Friday geöffnet."]


@pytest.fixture(scope="module")
def engine():
    return CopyEngine(Translator.from_checkpoint(DEFAULT_CHECKPOINT, device="cpu"))


def test_the_rules_and_their_order():
    assert [rule.name for rule in RULES] == ["verbatim", "years", "terms", "clock", "amounts", "measures",
                                             "abbreviations", "ranges", "weekdays", "letters", "names"]
    assert [rule.name for rule in ENGLISH_RULES] == ["verbatim", "terms", "german_notation", "english_titles"]
    assert NAMES == (*(rule.name for rule in RULES), "german_notation", "english_titles")
    assert rules_for("de") == RULES and rules_for("en") == ENGLISH_RULES


def test_a_source_language_without_rules_is_refused():
    with pytest.raises(ValueError) as error:
        rules_for("fr")
    assert str(error.value) == "no rules for source language 'fr'; there are rules for 'de' and 'en'"


def test_every_rule_on(engine):
    assert Pipeline(engine, Options(search=GREEDY)).translate(TEXTS) == EVERY_RULE


@pytest.mark.parametrize("rule, changed", [
    ("verbatim", {4: "Geöffnet Mon–Fri von 9–6 p.m. Uhr.", 5: "Drücken Sie Strg+C."}),   # no number, no keys
    ("clock", {0: "Wir treffen uns um 14 Uhr.", 4: "Geöffnet Mon–Fri von 9–18 Uhr."}),
    ("amounts", {1: "Das kostet 49.99 €."}),           # a number span still: English notation
    ("abbreviations", {3: "Das dauert ca. 5 Min."}),
    ("ranges", {4: "Geöffnet Mo–Fr von 9–6 p.m. Uhr."}),
    ("weekdays", {6: "Wir haben montags bis freitags geöffnet."}),
    ("letters", {2: "Hallo Lukas, wie geht es dir?"}),   # "Hallo Lukas," is a letter's greeting
    ("names", {}),                                       # no other name
])
def test_a_rule_switched_off_changes_only_its_spans(engine, rule, changed):
    expected = [changed.get(i, text) for i, text in enumerate(EVERY_RULE)]
    assert Pipeline(engine, Options(search=GREEDY, without_rules=(rule,))).translate(TEXTS) == expected


@pytest.mark.parametrize("without, message", [
    (("clocks",), "without_rules must be a tuple of rule names (verbatim, years, terms, clock, amounts, measures, "
                  "abbreviations, ranges, weekdays, letters, names, german_notation, english_titles), got ('clocks',)"),
    (["clock"], "without_rules must be a tuple of rule names (verbatim, years, terms, clock, amounts, measures, "
                "abbreviations, ranges, weekdays, letters, names, german_notation, english_titles), got ['clock']"),
])
def test_unknown_rules_are_refused(without, message):
    with pytest.raises(ValueError) as error:
        Options(without_rules=without)
    assert str(error.value) == message
