"""pipeline/rules/amounts.py: amounts of money and "minus" written in English."""

from __future__ import annotations

import pytest

from pipeline.rules.amounts import with_amounts
from pipeline.rules.verbatim import find_spans


@pytest.mark.parametrize("text, expected", [
    ("Bitte überweisen Sie 49,99 € bis Freitag.", [("amount", "49,99 €", "€49.99")]),
    ("Das kostet €5.", [("amount", "€5", "€5")]),
    ("Es kostet 1.200€ im Jahr.", [("amount", "1.200€", "€1,200")]),
    ("Das sind 5 € und 50 Cent.", [("amount", "5 €", "€5"), ("number", "50", None)]),
    ("Es sind minus 5 Grad.", [("number", "minus 5", "minus 5")]),
    ("Minus 3,5 Prozent.", [("number", "Minus 3,5", "minus 3.5")]),
    ("Das ist ein Minus.", []),
    ("Es kostet 5 Euro.", [("number", "5", None)]),                       # the model writes euros well
    ("Er hat 3 Mrd. € investiert.", [("amount", "3 Mrd. €", "€3 billion")]),  # one amount with its multiplier
    ("Budget: € 1,5\u00a0Mio. im Jahr", [("amount", "€ 1,5\u00a0Mio.", "€1.5 million")]),
    ("Es kostet 5 Mio. Euro.", [("number", "5", None)]),                  # Euro as a word: with_abbreviations
])
def test_amounts_and_minus_are_written_in_english(text, expected):
    spans = with_amounts(text, find_spans(text))
    assert [(s.kind, s.text, s.target) for s in spans] == expected
    assert all(s.family == "N" for s in spans)
