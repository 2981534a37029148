"""An English form of address before a name, in German (pipeline.rules.english_titles)."""

from __future__ import annotations

import pytest

from pipeline.rules.base import Context
from pipeline.rules.english_titles import RULE, addresses, addresses_kept
from pipeline.rules.verbatim import find_spans
from pipeline.spans import mask


@pytest.mark.parametrize("text, expected", [
    ("Mr. Klaus said so.", [("Mr. Klaus", "Herr Klaus")]),
    ("Mr Klaus said so.", [("Mr Klaus", "Herr Klaus")]),
    ("Mrs. Smith and Ms Jones came.", [("Mrs. Smith", "Frau Smith"), ("Ms Jones", "Frau Jones")]),
    ("I met Mr. John Smith there.", [("Mr. John Smith", "Herr John Smith")]),
    ("Ms Anna Weber-Koch is here.", [("Ms Anna Weber-Koch", "Frau Anna Weber-Koch")]),
    ("Ask Mr. O'Brien.", [("Mr. O'Brien", "Herr O'Brien")]),
    ("Miss Marple knew.", [("Miss Marple", "Frau Marple")]),
    ("Mr. and Mrs. Brown are coming.", [("Mrs. Brown", "Frau Brown")]),   # a title before "and": the model's
    ("Mr. Polívka did not come.", [("Mr. Polívka", "Herr Polívka")]),
    # no name after it, or not a title
    ("Mrs. smith", []),
    ("Dr. Miller called.", []),
    ("Mister X", []),
    ("Mr.", []),
    ("Mrsa Klaus", []),
])
def test_titles_and_their_names(text, expected):
    found = addresses(text)
    assert [(s.text, s.target) for s in found] == expected
    assert all(text[s.start:s.end] == s.text for s in found)


@pytest.mark.parametrize("english, german, kept", [
    ("Mr. Miller is here.", "Herr Miller ist hier.", True),
    ("I spoke with Mr. Miller.", "Ich sprach mit Herrn Miller.", True),
    ("Mrs. Smith is here.", "Frau Smith ist hier.", True),
    ("Mr. Miller is here.", "Mr. Miller ist hier.", False),
    ("Mrs. Smith is here.", "Die Männer. Smith ist hier.", False),
    ("Mrs. Smith is here.", "Frau Schmidt ist hier.", False),
    ("Mr. Klaus is here.", "Herr Klausur ist hier.", False),      # the name itself, not a word it starts
])
def test_a_translation_keeps_a_title_when_it_writes_it_in_german(english, german, kept):
    assert addresses_kept(english, german) == kept


def test_the_titles_are_spans_in_a_second_try_only():
    text = "Mr. Smith paid 1,234.50 euros."
    spans = find_spans(text)
    assert RULE.find(text, spans, Context()) == spans
    found = RULE.find(text, spans, Context(second_try=True))
    assert [(s.kind, s.text, s.target) for s in found] == [("name", "Mr. Smith", "Herr Smith"), ("number", "1,234.50", None)]
    mask(text, found)  # the spans fit the text and do not overlap
