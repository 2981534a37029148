"""pipeline/rules/clock.py: clock times written in English, and the "o'clock" a time says already."""

from __future__ import annotations

import pytest

from pipeline.rules.clock import english_clock_time, oclock_spans, takes_no_oclock, with_clock_times
from pipeline.rules.verbatim import find_spans
from pipeline.spans import mask
from tests.pipeline.rules.helpers import restore


@pytest.mark.parametrize("hour, minutes, expected", [
    (14, None, "2 p.m."), (20, "15", "8:15 p.m."), (9, "30", "9:30"), (12, None, "noon"), (12, "15", "12:15 p.m."),
    (0, None, "midnight"), (0, "30", "12:30 a.m."), (24, None, "midnight"),
    (8, None, None),                                   # a morning hour stays the number it is
    (24, "30", None), (25, None, None),
])
def test_english_clock_times(hour, minutes, expected):
    assert english_clock_time(hour, minutes) == expected


@pytest.mark.parametrize("text, expected", [
    ("Ich muss um 14 Uhr beim Zahnarzt sein.", [("14", "2 p.m.")]),
    ("Der Film beginnt um 20:15 Uhr.", [("20:15", "8:15 p.m.")]),
    ("Ich komme um 18.30 Uhr nach Hause.", [("18.30", "6:30 p.m.")]),
    ("Ich stehe um 6 Uhr 30 auf.", [("6 Uhr 30", "6:30")]),
    ("Der Zug fährt um 7 Uhr 15.", [("7 Uhr 15", "7:15")]),
    ("Der Zug fährt um 7 Uhr.", [("7", None)]),                                  # left to the model
    ("Um 9 Uhr 30 Minuten später.", [("9", None), ("30", None)]),               # minutes of something else
    ("Es ist von 9 bis 23 Uhr offen.", [("9", None), ("23", "11 p.m.")]),
    ("Er kommt um 24:30 Uhr.", [("24:30", None)]),                              # no time: left as it was
    ("Die Uhr zeigt 5.", [("5", None)]),
    ("Kannst du mich um halb acht abholen?", [("halb acht", "7:30")]),
    ("Halb eins!", [("Halb eins", "12:30")]),
    ("Um halb 8 Uhr.", [("halb 8", "7:30")]),
    ("Er hat halb so viel.", []),
    ("Es ist halb 8,5.", [("8,5", None)]),
    # in words
    ("Der Zug fährt um zwanzig Uhr.", [("zwanzig", "8 p.m.")]),
    ("Toms Flug geht um vierzehn Uhr dreißig.", [("vierzehn Uhr dreißig", "2:30 p.m.")]),
    ("Ich stehe um sechs Uhr fünfzehn auf.", [("sechs Uhr fünfzehn", "6:15")]),
    ("Um null Uhr und um zwölf Uhr.", [("null", "midnight"), ("zwölf", "noon")]),
    # a part of the day joins the span
    ("Um zwölf Uhr mittags, um neun Uhr dreißig abends.", [("zwölf Uhr mittags", "noon"),
                                                          ("neun Uhr dreißig abends", "9:30 p.m.")]),
    ("Wir essen um 7 Uhr abends, um 12 Uhr mittags, um 6 Uhr 30 früh.", [
        ("7 Uhr abends", "7 p.m."), ("12 Uhr mittags", "noon"), ("6 Uhr 30 früh", "6:30 a.m.")]),
    ("Um 23:15 Uhr nachts, um 2 Uhr nachts, um 12 Uhr nachts.", [
        ("23:15 Uhr nachts", "11:15 p.m."), ("2 Uhr nachts", "2 a.m."), ("12 Uhr nachts", "midnight")]),
    ("Um 20 Uhr morgens?", [("20", None)]),                                    # no such time: the model's
    ("Er schlief um sechzehn Uhr ein.", [("sechzehn", "4 p.m.")]),             # "ein": no minute
    ("Wir treffen uns um acht Uhr.", []),                                       # left to the model
    ("Sie kam um ein Uhr zwanzig.", [("ein Uhr zwanzig", "1:20")]),
    ("Meine Uhr geht vor, fünfundzwanzig Uhr gibt es nicht.", []),
])
def test_the_time_before_uhr_is_written_in_english(text, expected):
    spans = with_clock_times(text, find_spans(text))
    assert [(s.text, s.target) for s in spans] == expected
    assert all(s.family == "N" for s in spans)


@pytest.mark.parametrize("english, expected", [
    ("8:15 p.m.", True), ("2 p.m.", True), ("9:30", True), ("noon", True), ("midnight", True),
    ("8", False), ("8 o'clock", False), ("1,450", False),
    ("9 a.m.–6 p.m.", True), ("8–10 p.m.", True), ("9:30 a.m. – 6:30 p.m.", True), ("3–5", False), ("8–10", False),
])
def test_which_times_take_no_oclock(english, expected):
    assert takes_no_oclock(english) is expected


@pytest.mark.parametrize("source, output, expected", [
    ("Der Film beginnt um 20:15 Uhr.", "The film begins at ⦅N1⦆ o'clock.", "The film begins at 8:15 p.m."),
    ("Der Film beginnt um 20:15 Uhr.", "The film begins at ⦅N1⦆.", "The film begins at 8:15 p.m."),
    ("Um 9:30 Uhr", "At ⦅N1⦆ o'clock", "At 9:30"),
    ("Um 8 Uhr", "At ⦅N1⦆ o'clock.", "At 8 o'clock."),
    # an "o'clock" after a span that no "Uhr" follows in the source is in the wrong place
    ("Das Meeting ist am 12.03.2025 um 14:30 Uhr.", "The meeting is at ⦅N1⦆ o'clock at ⦅N2⦆.",
     "The meeting is at 12.03.2025 at 2:30 p.m."),
    ("Der Zug fährt um 8 Uhr von Gleis 3 ab.", "The train leaves at ⦅N1⦆ o'clock from platform ⦅N2⦆ o'clock.",
     "The train leaves at 8 o'clock from platform 3."),
    ("Zimmer 12", "Room ⦅N1⦆ o'clock.", "Room 12."),
])
def test_restore_drops_what_a_time_says_already(source, output, expected):
    assert restore(output, mask(source, with_clock_times(source, find_spans(source)))) == expected


@pytest.mark.parametrize("source, expected", [
    ("Um 8 Uhr", ["8"]),                                     # a plain hour: "at 8 o'clock"
    ("Um 20:15 Uhr", []),                                    # "8:15 p.m." says it already
    ("Der Zug fährt um 8 Uhr von Gleis 3 ab.", ["8"]),
    ("Das Meeting ist am 12.03.2025 um 14:30 Uhr.", []),
    ("Die Uhr zeigt 8.", []),                                # "Uhr" before the number: a clock, not a time
    ("Um 8\u00a0Uhr und um 9 Uhr", ["8", "9"]),
    ("Um 8 Uhrzeiten", []),
    ("Ich habe den 7-Uhr-Zug verpasst.", ["7"]),              # "the 7 o'clock train"
])
def test_the_spans_an_oclock_may_follow(source, expected):
    masked = mask(source, with_clock_times(source, find_spans(source)))
    assert sorted(masked.slots[p] for p in oclock_spans(masked)) == expected
