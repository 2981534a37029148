"""pipeline/sources.py: what the pipeline does for each source language, taken from the engine's
checkpoint (an English->German model reads English: no German rule, notation or check)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.stub_engine import CopyEngine
from model.inference.translator import Translator
from model.search.options import SERVED
from pipeline.glossary import Glossary
from pipeline.rules import ENGLISH_RULES, NAMES, RULES
from pipeline.sources import SOURCES, source_language
from pipeline.translation import Options, Pipeline

GREEDY = Options(search=replace(SERVED, beam_size=1))


def test_each_source_language_is_declared_once():
    assert SOURCES["de"].rules == RULES and SOURCES["en"].rules == ENGLISH_RULES
    assert [rule.name for rule in ENGLISH_RULES] == ["verbatim", "terms"]
    assert (SOURCES["de"].sharp_s, SOURCES["de"].number_check, SOURCES["de"].coverage) == (True, True, True)
    assert (SOURCES["en"].sharp_s, SOURCES["en"].number_check, SOURCES["en"].coverage) == (False, False, False)
    assert NAMES == tuple(dict.fromkeys(rule.name for rule in RULES))   # the English rules add no name


def test_an_unknown_source_language_is_refused():
    with pytest.raises(ValueError) as error:
        source_language("fr")
    assert str(error.value) == "no pipeline for source language 'fr' (one of de, en)"


@pytest.fixture(scope="module")
def english(reverse_checkpoint) -> Pipeline:
    """The pipeline of the English->German tiny model, its model replaced by one that copies."""
    return Pipeline(CopyEngine(Translator.from_checkpoint(reverse_checkpoint, device="cpu")), GREEDY,
                    places={"Köln": "Cologne"}, coverage=object())


@pytest.fixture(scope="module")
def german(tiny_checkpoint) -> Pipeline:
    return Pipeline(CopyEngine(Translator.from_checkpoint(tiny_checkpoint, device="cpu")), GREEDY)


def test_the_pipeline_takes_its_languages_from_the_checkpoint(english, german):
    assert (english.direction, english.source, english.target) == ("en-de", "en", "de")
    assert (german.direction, german.source, german.target) == ("de-en", "de", "en")
    assert english.rules == ENGLISH_RULES and german.rules == RULES
    assert english.coverage is None   # the coverage check reads German words


@pytest.mark.parametrize("text", [
    "It costs 1.234 or 1,5 euros, see https://example.org/a?b=1 or mail anna@example.de.",
    "The meeting is on 15. August 2026 in Köln.",      # German notation in English text: as written
    "Press Strg+C, then {name} and %s.",
])
def test_an_english_source_comes_through_as_written(english, text):
    assert english.translate([text]) == [text]


def test_a_german_source_gets_its_english_forms(german):
    assert german.translate(["Es kostet 1.234 oder 1,5 Euro."]) == ["Es kostet 1,234 oder 1.5 Euro."]


def test_an_english_glossary_term_matches_as_written(english):
    glossary = Glossary({"coffee": "Tee"}, source="en")
    masked = english.plan(["I like coffee, not coffees."], glossary).plans[0][0][0].masked
    assert masked.text == "I like ⦅X1⦆, not coffees." and masked.slots == {"⦅X1⦆": "Tee"}
    assert english.translate(["I like coffee."], glossary) == ["I like Tee."]


def test_a_glossary_of_the_other_language_is_refused(english):
    with pytest.raises(ValueError) as error:
        english.translate(["I like coffee."], Glossary({"Kaffee": "tea"}))
    assert str(error.value) == "a glossary of de terms cannot apply to en text"


def test_a_glossary_of_english_terms_is_not_inflected():
    assert Glossary({"Termin": "appointment"}).forms("Termin")["Termine"] == "appointments"
    assert Glossary({"appointment": "Termin"}, source="en").forms("appointment") == {"appointment": "Termin"}
    with pytest.raises(ValueError) as error:
        Glossary({"a": "b"}, source="fr")
    assert str(error.value) == "source must be one of de, en, got 'fr'"
