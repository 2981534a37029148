"""An English source's numbers, dates, clock times and amounts in German notation
(pipeline.rules.german_notation)."""

from __future__ import annotations

import pytest

from pipeline.rules.german_notation import (german_date, german_number, month_dates, month_dates_kept, with_german_notation,
                                            without_uhr)
from pipeline.rules.verbatim import find_spans
from pipeline.spans import mask
from pipeline.words import Word


@pytest.mark.parametrize("text, expected", [
    ("1,234.50", "1.234,50"),
    ("1,000,000", "1.000.000"),
    ("12,000", "12.000"),
    ("3.5", "3,5"),
    ("-0.25", "-0,25"),
    ("1234.5", "1234,5"),
    ("42", None),           # the same in German
    ("2.1.3", None),        # a version, not a number
    ("1,23", None),         # no groups of three: not English
    ("12,34,567", None),
])
def test_german_number(text, expected):
    assert german_number(text) == expected


@pytest.mark.parametrize("parts, expected", [
    (("3", "14", "2025"), "14.03.2025"),   # month first (United States)
    (("14", "3", "2025"), "14.03.2025"),   # day first (Britain)
    (("12", "31", "99"), "31.12.99"),
    (("3", "4", "2025"), None),            # March 4 or 3 April: left as written
    (("13", "14", "2025"), None),          # no date
    (("0", "14", "2025"), None),
    (("2", "32", "2025"), None),
])
def test_german_date(parts, expected):
    assert german_date(*parts) == expected


@pytest.mark.parametrize("text, expected", [
    ("The total is 1,234.50 euros.", [("number", "1,234.50", "1.234,50")]),
    ("It costs $5.99 or 3.5 percent.", [("amount", "$5.99", "5,99\u00a0$"), ("number", "3.5", "3,5")]),
    ("Due on 3/14/2025 at 2:30 p.m.", [("date", "3/14/2025", "14.03.2025"), ("time", "2:30 p.m", "14:30 Uhr")]),
    ("At 2:30 p.m. we eat.", [("time", "2:30 p.m.", "14:30 Uhr")]),      # the stop ends the sentence too above
    ("Meet at 9am or 10:15 AM.", [("time", "9am", "9 Uhr"), ("time", "10:15 AM", "10:15 Uhr")]),
    ("Doors open at 12 a.m. and close at 12 p.m.", [("time", "12 a.m.", "0 Uhr"), ("time", "12 p.m", "12 Uhr")]),
    ("It was €20, or £1,000 in all.", [("amount", "€20", "20\u00a0€"), ("amount", "£1,000", "1.000\u00a0£")]),
    ("We have 1,000,000 users.", [("number", "1,000,000", "1.000.000")]),
    # as written: what German writes alike, or what could be read two ways
    ("See you on 3/4/2025.", [("date", "3/4/2025", None)]),
    ("On 2025-03-14 we met at 14:30.", [("date", "2025-03-14", None), ("time", "14:30", None)]),
    ("Version 2.1.3 has 42 fixes.", [("number", "2.1.3", "2.1.3"), ("number", "42", "42")]),
    ("I am 25.", [("number", "25", "25")]),
    ("It rose 1,23 points.", [("number", "1,23", "1,23")]),     # not English: as written, not read as German
    ("Version 1.2.3 costs $1,234.5.", [("number", "1.2.3", "1.2.3"), ("amount", "$1,234.5", "1.234,5\u00a0$")]),
    ("We ate at 7 PM. Then we left.", [("time", "7 PM", "19 Uhr")]),
    ("Send it to info@example.com by 5 pm.", [("email", "info@example.com", None), ("time", "5 pm", "17 Uhr")]),
    # an amount with a multiplier: the multiplier and the currency's name after the number
    ("It earned $5 million.", [("amount", "$5 million", "5 Millionen Dollar")]),
    ("It cost $1.5 billion.", [("amount", "$1.5 billion", "1,5 Milliarden Dollar")]),
    ("Only $1 million and €1 trillion.", [("amount", "$1 million", "1 Million Dollar"),
                                           ("amount", "€1 trillion", "1 Billion Euro")]),
    ("A £3m deal and $2bn more.", [("amount", "£3m", "3 Millionen Pfund"), ("amount", "$2bn", "2 Milliarden Dollar")]),
    ("It was $1,200 million.", [("amount", "$1,200 million", "1.200 Millionen Dollar")]),
    ("A $5 millionaire.", [("amount", "$5", "5\u00a0$")]),       # not a multiplier
])
def test_an_english_sentence_s_notation_becomes_german(text, expected):
    found = with_german_notation(text, find_spans(text))
    assert [(s.kind, s.text, s.target) for s in found] == expected
    assert all(text[s.start:s.end] == s.text for s in found)
    mask(text, found)  # the spans fit the text and do not overlap


def words(text: str) -> list[Word]:
    return [Word(w, gap="" if k == 0 else " ") for k, w in enumerate(text.split())]


@pytest.mark.parametrize("output, expected", [
    ("Wir treffen uns um ⦅N1⦆ Uhr.", "Wir treffen uns um ⦅N1⦆."),
    ("Um ⦅N1⦆ Uhr geht es los.", "Um ⦅N1⦆ geht es los."),
    ("Wir treffen uns um ⦅N1⦆.", "Wir treffen uns um ⦅N1⦆."),
    ("Die ⦅N2⦆ Uhr war kaputt.", "Die ⦅N2⦆ Uhr war kaputt."),     # not a clock time: the clock stays
    ("Um ⦅N1⦆ Uhrzeit", "Um ⦅N1⦆ Uhrzeit"),
])
def test_the_uhr_a_time_says_already_goes(output, expected):
    slots = {"⦅N1⦆": "14:30 Uhr", "⦅N2⦆": "3"}
    assert " ".join(w.text for w in without_uhr(words(output), slots)) == expected


@pytest.mark.parametrize("text, expected", [
    ("It arrives on Monday, March 3rd.", [("March 3rd", "3. März")]),
    ("On Saturday, June 14, 2025 at 8 PM", [("June 14, 2025", "14. Juni 2025")]),
    ("from June 14–16, 2025", [("June 14–16, 2025", "14.–16. Juni 2025")]),
    ("from June 14 to 16", [("June 14 to 16", "14.–16. Juni")]),
    ("We close on the 3rd of March.", [("3rd of March", "3. März")]),
    ("14 June 2025 and 1st Jan. 2024", [("14 June 2025", "14. Juni 2025"), ("1st Jan. 2024", "1. Jan. 2024")]),
    ("valid until Oct. 5, 2025.", [("Oct. 5, 2025", "5. Okt. 2025")]),
    ("Updated Aug 3", [("Aug 3", "3. Aug.")]),
    ("Sept. 11 and Dec 24th", [("Sept. 11", "11. Sept."), ("Dec 24th", "24. Dez.")]),
    ("May 5 is a holiday.", [("May 5", "5. Mai")]),
    ("March 3, 4 and 5", [("March 3", "3. März")]),           # the other days stay the model's
    # not dates: a modal verb, a month and year, a decimal, a first name, a word
    ("You may 5 times.", []),
    ("In June 2025 we met.", []),
    ("June 14.5 percent", []),
    ("Jan 5 scored.", []),
    ("Augusta 5 is far.", []),
])
def test_dates_with_an_english_month_name(text, expected):
    found = month_dates(text)
    assert [(s.text, s.target) for s in found] == expected
    assert all(s.kind == "date" and text[s.start:s.end] == s.text for s in found)


def test_dates_with_a_month_name_are_spans_in_a_second_try_only():
    text = "We met on June 14, 2025 at 2:30 p.m."
    assert [s.kind for s in with_german_notation(text, find_spans(text))] == ["number", "number", "time"]
    assert [(s.kind, s.target) for s in with_german_notation(text, find_spans(text), month_names=True)] == [
        ("date", "14. Juni 2025"), ("time", "14:30 Uhr")]


@pytest.mark.parametrize("translation, kept", [
    ("Wir trafen uns am 14. Juni 2025.", True),
    ("Wir trafen uns am 14.  Juni 2025.", True),      # spacing aside
    ("Wir trafen uns am Juni 14, 2025.", False),
    ("Wir trafen uns.", False),
    ("Wir trafen uns am 14. Juni 20255.", False),
])
def test_a_translation_keeps_a_date_when_it_writes_it_the_german_way(translation, kept):
    assert month_dates_kept("We met on June 14, 2025.", translation) == kept
    assert month_dates_kept("It was July 4.", "Es war der 14. Juli.") is False   # another day
    assert month_dates_kept("your letter of January 7", "Ihr Brief des 7. Januars") is True   # its genitive
