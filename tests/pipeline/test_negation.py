"""pipeline/negation.py: negations a translation lost or added, both directions."""

from __future__ import annotations

import pytest

from pipeline.negation import Negations, changed, negations


@pytest.mark.parametrize("text, language, expected", [
    ("Brechen Sie die Behandlung nicht ab.", "de", Negations(1, 0)),
    ("Ich habe keine Zeit und nichts zu essen.", "de", Negations(2, 0)),
    ("Er ist weder hier noch dort.", "de", Negations(1, 0)),          # weder … noch: one cue
    ("Niemand war ohne Schirm da.", "de", Negations(2, 0)),
    ("Das ist unmöglich und sinnlos.", "de", Negations(0, 2)),
    ("Unter uns: unser Auto ist ungefähr neu.", "de", Negations(0, 0)),   # only look negated
    ("I don't know, and I cannot say.", "en", Negations(2, 0)),
    ("He is neither here nor there.", "en", Negations(1, 0)),        # neither … nor: one cue
    ("Nor did she.", "en", Negations(1, 0)),
    ("No one came; see No. 5.", "en", Negations(1, 0)),              # "No." before a number is a number
    ("That is impossible and useless.", "en", Negations(0, 2)),
    ("Install it under the unit until noon.", "en", Negations(0, 0)),
])
def test_negations_counts_cues_and_affixed_words(text, language, expected):
    assert negations(text, language) == expected


@pytest.mark.parametrize("source, translation, language, expected", [
    # lost
    ("Brechen Sie die Behandlung nicht ab, auch wenn Sie sich besser fühlen.",
     "Stop the treatment even if you feel better.", "de", 1),
    ("Trinken Sie keinen Alkohol.", "Drink alcohol.", "de", 1),
    ("Do not stop the treatment.", "Beenden Sie die Behandlung.", "en", 1),
    ("Never leave the device unattended.", "Lassen Sie das Gerät unbeaufsichtigt.", "en", 0),   # "unbe…": excused
    ("Never leave the child alone.", "Lassen Sie das Kind allein.", "en", 1),
    # added
    ("Schütteln Sie die Flasche vor Gebrauch.", "Do not shake the bottle before use.", "de", 1),
    ("Take one tablet.", "Nehmen Sie keine Tablette.", "en", 1),
    # kept, in other words
    ("Ich habe keine Zeit.", "I don't have time.", "de", 0),
    ("Das ist nicht möglich.", "That is impossible.", "de", 0),
    ("Das ist unmöglich.", "That is not possible.", "de", 0),
    ("Er ist arbeitslos.", "He is without work.", "de", 0),
    ("Ich war noch nie in Berlin.", "I've never been to Berlin.", "de", 0),
    ("Nobody knows.", "Niemand weiß es.", "en", 0),
    ("Kein Problem!", "No problem!", "de", 0),
])
def test_changed(source, translation, language, expected):
    assert changed(source, translation, language) == expected
