"""pipeline/rules/ranges.py: a range of numbers, amounts, clock times or weekdays as one span."""

from __future__ import annotations

import pytest

from pipeline.rules.abbreviations import with_abbreviations
from pipeline.rules.amounts import with_amounts
from pipeline.rules.clock import with_clock_times
from pipeline.rules.ranges import with_ranges
from pipeline.rules.verbatim import find_spans


@pytest.mark.parametrize("text, expected", [
    ("Lieferung in 3–5 Werktagen", [("number", "3–5", "3–5")]),
    ("Nehmen Sie 1,5 – 2 Tabletten.", [("number", "1,5 – 2", "1.5 – 2")]),       # spaced as written
    ("Seiten 10–15 und 20–1.000", [("number", "10–15", "10–15"), ("number", "20–1.000", "20–1,000")]),
    ("Das kostet 10–15 €.", [("amount", "10–15 €", "€10–15")]),                   # the sign before the range
    ("Das kostet 10 € – 15 €.", [("amount", "10 € – 15 €", "€10 – €15")]),
    ("Das kostet 1,5–2 Mio. €.", [("amount", "1,5–2 Mio. €", "€1.5–2 million")]),
    # hours whose end is a clock time: the start in English beside it
    ("Geöffnet 9–18 Uhr", [("time", "9–18", "9 a.m.–6 p.m.")]),
    ("Ab 20–22 Uhr", [("time", "20–22", "8–10 p.m.")]),
    ("Von 9:30–18:30 Uhr", [("time", "9:30–18:30", "9:30 a.m.–6:30 p.m.")]),
    ("Sprechstunde 8.00 – 12.00 Uhr", [("time", "8.00 – 12.00", "8:00 a.m. – 12:00 p.m.")]),
    # weekdays
    ("Öffnungszeiten: Mo–Fr 9–18 Uhr", [("abbreviation", "Mo–Fr", "Mon–Fri"), ("time", "9–18", "9 a.m.–6 p.m.")]),
    ("Mo.-Fr. geöffnet, Sa/So geschlossen", [("abbreviation", "Mo.-Fr.", "Mon-Fri"), ("abbreviation", "Sa/So", "Sat/Sun")]),
    ("Geöffnet Mo–Fr.", [("abbreviation", "Mo–Fr", "Mon–Fri")]),                     # the stop is the sentence's
    # not a range: a hyphen (one code span already), a dash between words, a morning hour before "Uhr",
    # a weekday alone, a word
    ("Lieferung in 3-5 Werktagen", [("code", "3-5", None)]),
    ("Es steht 3 – aber nicht 5.", [("number", "3", None), ("number", "5", None)]),
    ("Geöffnet 8–10 Uhr", [("number", "8", None), ("number", "10", None)]),
    ("Das kostet 10 €–15.", [("amount", "10 €", "€10"), ("number", "15", None)]),  # an amount, then a number
    ("So geht das, Do–Re–Mi, Mo-Fritz", []),
])
def test_a_range_of_numbers_is_one_span(text, expected):
    spans = with_ranges(text, with_abbreviations(text, with_amounts(text, with_clock_times(text, find_spans(text)))))
    assert [(s.kind, s.text, s.target) for s in spans] == expected
    assert all(text[s.start:s.end] == s.text for s in spans)
