"""pipeline.rules.years: which numbers are years, and whether a translation kept them."""

from __future__ import annotations

import pytest

from pipeline.rules.verbatim import find_spans
from pipeline.rules.years import is_year, kept, without_years


@pytest.mark.parametrize("text, expected", [
    ("Ich arbeite seit 2019 bei einer Bank.", ["2019"]),
    ("Im Jahr 2025 hatten wir 3 Millionen Besucher.", ["2025"]),            # "3" counts: no year
    ("2008 fusionierten Delta und Northwest.", ["2008"]),
    ("In den 1960er Jahren", ["1960"]),
    ("Das war 1999, nicht 2001.", ["1999", "2001"]),
    ("im Jahre 2003 Mitglied", ["2003"]),                                   # a noun after it, "Jahre" before
    ("seit 1990 Mitglied, im Oktober 1962 Präsident", ["1990", "1962"]),
    # counts and amounts: a noun or a sign after it
    ("Ich habe 2000 Yen bezahlt.", []),
    ("Es gibt etwa 1800 Milliardäre.", []),
    ("Der Preis ist 1999 € oder 2010 $, 2020 % mehr.", []),
    # not four digits from 1500 to 2099, or not a number span of its own
    ("Es waren 1499 oder 2100 oder 19999 oder 20,19.", []),
    ("Am 1. April 1999 und 2019/20, Tel. 0711 2019.", []),
])
def test_years(text, expected):
    spans = find_spans(text)
    assert [s.text for s in spans if is_year(text, s)] == expected
    assert [s for s in without_years(text, spans)] == [s for s in spans if s.text not in expected]


@pytest.mark.parametrize("source, output, expected", [
    ("Ich wurde 1988 geboren.", "I was born in 1988.", True),
    ("Ich wurde 1988 geboren.", "I was born in 198.", False),
    ("Ich wurde 1988 geboren.", "I was born in 19888.", False),
    ("Ich wurde 1988 geboren.", "I was born in 1988, in 1988.", False),     # as often as the source has it
    ("1998 kaufte ich es, 1998 verkaufte ich es.", "I bought it in 1998 and sold it in 1998.", True),
    ("In den 1960er Jahren", "In the 1960s", True),
    ("Ich habe 2000 Yen bezahlt.", "I paid 2,000 yen.", True),              # a count is a span: not checked
    ("Ich habe Hunger.", "I'm hungry.", True),
])
def test_a_translation_keeps_its_years(source, output, expected):
    assert kept(source, output) is expected
