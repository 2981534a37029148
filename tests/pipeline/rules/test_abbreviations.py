"""pipeline/rules/abbreviations.py: abbreviations written in English, a number and its multiplier as
one span, and the abbreviations written out for the model."""

from __future__ import annotations

import pytest

from pipeline.rules.abbreviations import respell_abbreviations, with_abbreviations
from pipeline.rules.verbatim import find_spans
from pipeline.spans import mask
from tests.pipeline.rules.helpers import restore


@pytest.mark.parametrize("text, expected", [
    ("Das kostet ca. 5 Euro.", [("ca.", "approx.")]),
    ("Wir treffen uns z. B. am Montag.", [("z. B.", "e.g.")]),
    ("Wir treffen uns z.B. am Montag.", [("z.B.", "e.g.")]),
    ("Das ist u.\u00a0a. wichtig.", [("u.\u00a0a.", "among others")]),           # a no-break space
    ("Z. B. heute, d. h. jetzt.", [("Z. B.", "E.g."), ("d. h.", "i.e.")]),    # capitalized opening a sentence
    ("Er kommt i. d. R. um 8 Uhr.", [("i. d. R.", "as a rule")]),
    ("Altpersisch (ca. 600-400 v.Chr.)", [("ca.", "approx."), ("v.Chr.", "BC")]),
    ("Äpfel, Birnen usw.", [("usw.", "etc.")]),                               # its stop stays its own
    ("Wir brauchen Papier o. Ä.", [("o. Ä", "or similar")]),                  # its stop is the sentence's
    ("Papier o. Ä.“ sagte er", [("o. Ä.", "or similar")]),
    # "MwSt" alone is an identifier span (an inner capital); with its stop, the abbreviation
    ("Der Preis beträgt 19,99 € inkl. MwSt.", [("inkl.", "incl."), ("MwSt", "VAT")]),
    ("Preise zzgl. MwSt. und Versand", [("zzgl.", "plus"), ("MwSt.", "VAT")]),
    ("Enthält 19 % USt.", [("USt", "VAT")]),                                 # its stop is the sentence's
    # only before a number, or after one
    ("Siehe S. 12 ff.", [("S.", "p.")]),
    ("Bitte rufen Sie Nr.\u00a05 an.", [("Nr.", "No.")]),
    ("Das S. ist groß, die Nr. auch, Mio. sind viel.", []),
    ("Der Min. sagte, die Std. sei gut.", []),                                   # Minister, Standard
    ("Das gilt einschl. Juni.", [("einschl.", "incl.")]),
    # not inside a word or another abbreviation, not in upper case, not inside another span
    ("Die Pizza.ca. war gut, bzgl.x nichts.", []),
    ("DAS KOSTET CA. 5 EURO.", []),
    ("Siehe https://ca.example.org/z.B./", []),
])
def test_abbreviations_are_written_in_english(text, expected):
    found = [s for s in with_abbreviations(text, find_spans(text)) if s.kind == "abbreviation"]
    assert [(s.text, s.target) for s in found] == expected
    assert all(text[s.start:s.end] == s.text and s.family == "X" for s in found)


@pytest.mark.parametrize("text, expected, restored", [
    ("Die Firma hat 5 Mio. Euro verdient.", [("5 Mio.", "5 million")], "Die Firma hat 5 million Euro verdient."),
    ("Die Stadt hat 1,2 Mio. Einwohner.", [("1,2 Mio.", "1.2 million")], "Die Stadt hat 1.2 million Einwohner."),
    ("Gewinn 1.250 Mio. Euro, Umsatz 3,5\u00a0Mrd. Euro.", [("1.250 Mio.", "1,250 million"), ("3,5\u00a0Mrd.", "3.5 billion")],
     "Gewinn 1,250 million Euro, Umsatz 3.5 billion Euro."),
    ("Sie verdiente 2 Mio.", [("2 Mio", "2 million")], "Sie verdiente 2 million."),  # its stop is the sentence's
    ("Er verdient 50 Tsd. Euro.", [("50 Tsd.", "50 thousand")], "Er verdient 50 thousand Euro."),
    # units of time: the model kept "2 Std." as it was; one is singular
    ("Ich habe 2 Std. gewartet.", [("2 Std.", "2 hours")], "Ich habe 2 hours gewartet."),
    ("Es dauert 1 Std. und 1,5 Min.", [("1 Std.", "1 hour"), ("1,5 Min", "1.5 minutes")],
     "Es dauert 1 hour und 1.5 minutes."),
    ("Warte 30 Sek. lang", [("30 Sek.", "30 seconds")], "Warte 30 seconds lang"),
])
def test_a_number_and_its_multiplier_are_one_number_span(text, expected, restored):
    """As two spans the model put the noun between them ("5 Mio. Euro" -> "5 euros million")."""
    spans = with_abbreviations(text, find_spans(text))
    assert [(s.text, s.target) for s in spans] == expected
    assert all(s.kind == "number" and s.family == "N" and text[s.start:s.end] == s.text for s in spans)
    masked = mask(text, spans)
    assert not any(word in masked.text for word in ("Mio", "Mrd", "Tsd", "Std", "Min", "Sek"))
    assert restore(masked.text, masked) == restored


@pytest.mark.parametrize("text, expected", [
    ("Er kommt heute bzw. morgen.", "Er kommt heute oder morgen."),
    ("Evtl. komme ich, z.T. schon um 8.", "Vielleicht komme ich, teilweise schon um 8."),
    ("Das dauert u.\u00a0U. länger.", "Das dauert möglicherweise länger."),
    ("Ich komme evtl.", "Ich komme vielleicht."),          # its stop is the sentence's
    ("„Ich komme evtl.“", "„Ich komme vielleicht.“"),
    ("Die bzw.-Liste, etwa bzw.x", "Die bzw.-Liste, etwa bzw.x"),  # not inside a word
    ("Kein Punkt, also nichts", "Kein Punkt, also nichts"),
    ("Er ist zzt. krank, z. Zt. im Bett.", "Er ist zurzeit krank, zurzeit im Bett."),
])
def test_conjunctions_and_adverbs_are_written_out(text, expected):
    assert respell_abbreviations(mask(text, [])).text == expected


def test_written_out_abbreviations_map_back_to_the_original():
    text = "Heute bzw. 5 Tage"
    result = respell_abbreviations(mask(text, find_spans(text)))
    assert result.text == "Heute oder ⦅N1⦆ Tage" and result.slots == {"⦅N1⦆": "5"}
    assert result.original_span(6, 10) == (6, 10)                 # "oder" <- "bzw."
    assert result.original_span(11, 15) == (11, 12)               # the placeholder <- "5"
    assert result.original_span(16, 20) == (13, 17)               # "Tage"
    assert with_abbreviations(text, []) == []                     # no longer a span


def test_abbreviations_keep_the_other_spans():
    text = "Das kostet ca. 5 Euro, siehe www.example.org."
    spans = find_spans(text)
    assert [s for s in with_abbreviations(text, spans) if s.kind != "abbreviation"] == spans


def test_an_identifier_gives_way_only_to_an_abbreviation_around_it():
    text = "Die MwSt. und die MwSt und MwStSatz."
    assert [(s.kind, s.text) for s in find_spans(text)] == [("identifier", "MwSt"), ("identifier", "MwSt"),
                                                            ("identifier", "MwStSatz")]
    assert [(s.kind, s.text, s.target) for s in with_abbreviations(text, find_spans(text))] == [
        ("abbreviation", "MwSt.", "VAT"), ("identifier", "MwSt", None), ("identifier", "MwStSatz", None)]
