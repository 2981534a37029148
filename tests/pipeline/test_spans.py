"""pipeline/spans.py: placeholders, masking spans with them and mapping back, the numbers written in
English, and restoring the spans in the model's output."""

from __future__ import annotations

import pytest

from pipeline.casing import style
from pipeline.rules.verbatim import find_spans
from pipeline.spans import (
    NUMBER_SLOTS, OTHER_SLOTS, PLACEHOLDER_RE, PLACEHOLDERS, Masked, Span, check, english_number, glued_spans, mask,
    placeholder, slots_needed, words_only,
)
from tests.pipeline.rules.helpers import restore


def masked(text, representable=None):
    return mask(text, find_spans(text, representable))


def test_placeholders():
    assert (NUMBER_SLOTS, OTHER_SLOTS) == (20, 20)
    assert len(PLACEHOLDERS) == 40 == len(set(PLACEHOLDERS))
    assert PLACEHOLDERS[:2] == ("⦅N1⦆", "⦅N2⦆") and PLACEHOLDERS[19:21] == ("⦅N20⦆", "⦅X1⦆")
    assert PLACEHOLDERS[-1] == placeholder("X", 20) == "⦅X20⦆"
    assert all(PLACEHOLDER_RE.fullmatch(p) for p in PLACEHOLDERS)
    assert PLACEHOLDER_RE.findall("a ⦅N1⦆ b ⦅X12⦆ ⦅Y1⦆ (N1)") == ["⦅N1⦆", "⦅X12⦆"]


@pytest.mark.parametrize("family, index, message", [
    ("Z", 1, "placeholder family must be 'N' or 'X', got 'Z'"),
    ("N", 0, "placeholder index must be an integer in 1..20, got 0"),
    ("X", 21, "placeholder index must be an integer in 1..20, got 21"),
    ("N", True, "placeholder index must be an integer in 1..20, got True"),
])
def test_placeholder_rejects(family, index, message):
    with pytest.raises(ValueError) as error:
        placeholder(family, index)
    assert str(error.value) == message


def representable_without_brackets(ch):
    return ch not in "[]{}*!"


@pytest.mark.parametrize("text, spans, masked, glued", [
    # brackets the vocabulary lacks are spans (the model wrote "⁇"); against a word, the mask
    # puts a space between, for the model, and glued_spans names them for the output
    ("Klicke auf [OK].", ["[", "]"], "Klicke auf ⦅X1⦆ OK ⦅X2⦆.", (["⦅X1⦆"], ["⦅X2⦆"])),
    ("Die Menge {a, b} ist leer.", ["{", "}"], "Die Menge ⦅X1⦆ a, b ⦅X2⦆ ist leer.", (["⦅X1⦆"], ["⦅X2⦆"])),
    # spaced as written: nothing to glue ("{ $user }" itself is a directive, one span)
    ("Setze { x } ein.", ["{", "}"], "Setze ⦅X1⦆ x ⦅X2⦆ ein.", ([], [])),
    # not brackets: a symbol stays a span without spaces; a sentence mark the vocabulary lacks
    # ("!") stays the model's
    ("Ein *wichtiger* Hinweis!", ["*", "*"], "Ein ⦅X1⦆wichtiger⦅X1⦆ Hinweis!", ([], [])),
])
def test_brackets_the_vocabulary_lacks(text, spans, masked, glued):
    found = find_spans(text, representable_without_brackets)
    assert [(s.kind, s.text) for s in found] == [("unrepresentable", span) for span in spans]
    result = mask(text, found)
    assert result.text == masked
    assert glued_spans(result) == tuple(frozenset(symbols) for symbols in glued)
    # every word still maps back to where it was written
    start = masked.index(" OK ") + 1 if "OK" in masked else 0
    if start:
        assert result.original_span(start, start + 2) == (text.index("OK"), text.index("OK") + 2)


@pytest.mark.parametrize("german, english", [
    ("250.000", "250,000"), ("1.450", "1,450"), ("1.234.567,89", "1,234,567.89"),
    ("6,9", "6.9"), ("42,195", "42.195"), ("-3,5", "-3.5"), ("+1.000", "+1,000"),
    ("3.5", "3.5"), ("1956", "1956"), ("1.2.3", "1.2.3"), ("1,2,3", "1,2,3"), ("12.34.567", "12.34.567"),
])
def test_english_number(german, english):
    assert english_number(german) == english


@pytest.mark.parametrize("text", ["", "abc", "1.", "1,5 Euro", "1 000"])
def test_english_number_rejects(text):
    with pytest.raises(ValueError) as error:
        english_number(text)
    assert str(error.value) == f"not a number: {text!r}"


@pytest.mark.parametrize("source, output, expected", [
    ("Die Miete beträgt 1.450 Euro im Monat.", "The rent is ⦅N1⦆ euros per month.",
     "The rent is 1,450 euros per month."),
    ("42,195 Kilometer", "⦅N1⦆ kilometers", "42.195 kilometers"),
    ("Bestellnummer 58213-B", "Order number ⦅N1⦆", "Order number 58213-B"),
    ("am 23.11.2026 um 19:30 Uhr", "on ⦅N1⦆ at ⦅N2⦆", "on 23.11.2026 at 19:30"),
    ("Das war ein toller Abend 🎶", "That was a great evening ⦅X1⦆", "That was a great evening 🎶"),
    # restored text that looks like a placeholder is not substituted again
    ("Gib ⦅N1⦆ und 5 ein.", "Enter ⦅X1⦆ and ⦅N1⦆.", "Enter ⦅N1⦆ and 5."),
    # hallucinated placeholders go, with their spaces
    ("Abend🎶", "⦅X4⦆ Evening ⦅X1⦆ ⦅N1⦆.", "Evening 🎶."),
    ("Abend🎶", "Evening ⦅X2⦆ ⦅X3⦆ now⦅N7⦆", "Evening now"),
    ("Abend🎶", "a ⦅X2⦆b, c⦅X3⦆ d, e⦅X9⦆f", "a b, c d, ef"),
    ("Abend🎶", "Evening ⦅X1⦆ ⦅X1⦆", "Evening 🎶 🎶"),
    ("Abend", "Evening  ⦅X1⦆  there", "Evening there"),
    ("Abend", "Evening  there", "Evening  there"),
])
def test_restore(source, output, expected):
    assert restore(output, masked(source)) == expected


def test_shared_placeholders_and_slots():
    result = masked("5 Äpfel 🎶 und 5 Birnen 🎶 für 1.450")
    assert result.text == "⦅N1⦆ Äpfel ⦅X1⦆ und ⦅N1⦆ Birnen ⦅X1⦆ für ⦅N2⦆"
    assert result.slots == {"⦅N1⦆": "5", "⦅X1⦆": "🎶", "⦅N2⦆": "1,450"}
    assert result.counts == {"⦅N1⦆": 2, "⦅X1⦆": 2, "⦅N2⦆": 1}
    assert slots_needed(find_spans(result.original)) == {"N": 2, "X": 1}


@pytest.mark.parametrize("output, missing, duplicated", [
    ("⦅N1⦆ apples ⦅X1⦆ and ⦅N1⦆ pears for ⦅N2⦆", [], []),
    ("⦅N1⦆ apples and pears for ⦅N2⦆ ⦅N2⦆ ⦅X7⦆", ["⦅N1⦆", "⦅X1⦆"], ["⦅N2⦆"]),
    ("apples", ["⦅N1⦆", "⦅X1⦆", "⦅N2⦆"], []),
    ("⦅N1⦆ ⦅N1⦆ ⦅N1⦆ ⦅X1⦆ ⦅X1⦆ ⦅N2⦆", [], ["⦅N1⦆", "⦅X1⦆"]),
])
def test_check(output, missing, duplicated):
    assert check(output, masked("5 Äpfel 🎶 und 5 Birnen für 1.450")) == (missing, duplicated)


@pytest.mark.parametrize("start, end, expected", [
    (0, 2, (0, 2)),            # "a " before any placeholder
    (2, 6, (2, 7)),            # exactly ⦅N1⦆ -> "1.450"
    (3, 4, (2, 7)),            # inside a placeholder -> the whole span
    (0, 3, (0, 7)),
    (6, 9, (7, 10)),           # " b " shifted by len("1.450") - len("⦅N1⦆")
    (6, 10, (7, 11)),          # reaching into ⦅X1⦆ -> up to the end of "🎶"
    (13, 15, (11, 13)),
    (0, 15, (0, 13)),
    (6, 6, (7, 7)),
])
def test_original_span(start, end, expected):
    result = masked("a 1.450 b 🎶 c")
    assert result.text == "a ⦅N1⦆ b ⦅X1⦆ c"
    assert result.original_span(start, end) == expected


@pytest.mark.parametrize("start, end", [(-1, 2), (3, 2), (0, 16), (0.0, 1)])
def test_original_span_rejects(start, end):
    with pytest.raises(ValueError) as error:
        masked("a 1.450 b 🎶 c").original_span(start, end)
    assert str(error.value) == f"range must satisfy 0 <= start <= end <= 15, got {(start, end)!r}"


def test_mask_without_spans():
    assert mask("Hallo", []) == Masked("Hallo", "Hallo")
    assert restore("Hello ⦅N1⦆.", Masked("Hallo", "Hallo")) == "Hello."


@pytest.mark.parametrize("family, text", [
    ("N", " ".join(str(i) for i in range(21))),
    ("X", " ".join(f"@user{i}" for i in range(21))),
])
def test_mask_too_many_spans(family, text):
    spans = find_spans(text)
    assert slots_needed(spans)[family] == 21
    with pytest.raises(ValueError) as error:
        mask(text, spans)
    assert str(error.value) == f"too many distinct {family!r} spans for 20 placeholders: 21"
    assert mask(text, spans[:20]).text.endswith(f"{placeholder(family, 20)} {spans[20].text}")


@pytest.mark.parametrize("spans", [
    [Span(0, 1, "number", "5")],                                    # text differs
    [Span(2, 3, "number", "1"), Span(2, 3, "number", "1")],         # overlap
    [Span(2, 3, "digits", "1")],                                    # unknown kind
    [Span(3, 3, "number", "")],                                     # empty
    [Span(4, 5, "number", "2"), Span(2, 3, "number", "1")],         # unsorted
])
def test_mask_rejects_foreign_spans(spans):
    with pytest.raises(ValueError) as error:
        mask("a 1 2", spans)
    assert str(error.value).startswith("span does not fit the text or overlaps the previous one: Span(")


@pytest.mark.parametrize("start, end, expected", [
    (0, 6, (0, 7)),            # "Straße" -> "STRASSE"
    (4, 5, (4, 6)),            # "ß" -> "SS"
    (5, 6, (6, 7)),            # "e" after it, shifted back by one
    (7, 11, (8, 9)),           # ⦅N1⦆ -> "5", its region moved with the text before it
    (12, 16, (10, 15)),        # "groß" -> "GROSS"
    (0, 16, (0, 15)),
])
def test_respelled_maps_back_through_the_changed_lengths(start, end, expected):
    result = masked("STRASSE 5 GROSS")
    assert result.text == "STRASSE ⦅N1⦆ GROSS"
    respelled = result.respelled("Straße ⦅N1⦆ groß", [(4, 5, 4, 6), (15, 16, 16, 18)])
    assert respelled.text == "Straße ⦅N1⦆ groß" and respelled.slots == {"⦅N1⦆": "5"}
    assert respelled.original_span(start, end) == expected
    assert result.text == "STRASSE ⦅N1⦆ GROSS"  # the masked text it came from is unchanged


@pytest.mark.parametrize("text, spans, expected", [
    # the writer's own words count for the casing style: names and a letter's greetings and closings
    ("Hallo Welt, wie geht es dir?", [Span(0, 10, "letter", "Hallo Welt", "Hello world")], "normal"),
    ("hallo welt, wie geht es dir?", [Span(0, 10, "letter", "hallo welt", "Hello world")], "lower"),
    ("Anna, kommst du heute mit?", [Span(0, 4, "name", "Anna")], "normal"),
    # what the writer did not type as words does not
    ("siehe https://Example.org/Hilfe für mehr", [Span(6, 30, "url", "https://Example.org/Hilfe")], "lower"),
])
def test_casing_style_reads_the_writers_words(text, spans, expected):
    assert style(words_only(text, spans)) == expected
