"""pipeline/rules/weekdays.py: days of the week written in English."""

from __future__ import annotations

import pytest

from pipeline.rules.clock import with_clock_times
from pipeline.rules.ranges import with_ranges
from pipeline.rules.verbatim import find_spans
from pipeline.rules.weekdays import with_weekdays


@pytest.mark.parametrize("text, expected", [
    # adverbs and their lists
    ("Das Museum ist montags geschlossen.", [("phrase", "montags", "on Mondays")]),
    ("Wir haben montags und donnerstags geöffnet.", [("phrase", "montags und donnerstags", "on Mondays and Thursdays")]),
    ("Training ist dienstags, mittwochs oder sonnabends.",
     [("phrase", "dienstags, mittwochs oder sonnabends", "on Tuesdays, Wednesdays or Saturdays")]),
    # ranges of adverbs or names, a dash as written
    ("Wir haben montags bis freitags geöffnet.", [("phrase", "montags bis freitags", "Monday to Friday")]),
    ("Die Apotheke hat Montag bis Samstag auf.", [("phrase", "Montag bis Samstag", "Monday to Saturday")]),
    ("Geöffnet Montag – Freitag, 9–18 Uhr", [("phrase", "Montag – Freitag", "Monday – Friday"),
                                           ("time", "9–18", "9 a.m.–6 p.m.")]),
    ("wir haben von montags bis freitags auf", [("phrase", "montags bis freitags", "Monday to Friday")]),
    # working days, weekdays and holidays; a first half that German leaves out before "und"
    ("Der Laden ist wochentags auf.", [("phrase", "wochentags", "on weekdays")]),
    ("Wir haben sonn- und feiertags zu.", [("phrase", "sonn- und feiertags", "on Sundays and public holidays")]),
    ("Post kommt mon- oder dienstags.", [("phrase", "mon- oder dienstags", "on Mondays or Tuesdays")]),
    ("Das ist ein Sonn- und Feiertag.", []),
    ("Wir haben werk- und sonntags auf.", [("phrase", "werk- und sonntags", "on working days and Sundays")]),
    ("Es ist Werk- und Urlaubszeit.", []),
    # the model's: names alone or after "von", days that open the sentence, words that hold a day
    ("Er kommt am Montag oder bis Freitag.", []),
    ("Wir haben von Montag bis Freitag geöffnet.", []),
    ("Dienstags gehe ich schwimmen.", []),
    ("„Montags bis freitags“, sagte er.", []),
    ("Das Montagsmeeting ist am Sonntagabend.", []),
])
def test_days_of_the_week_are_written_in_english(text, expected):
    spans = with_weekdays(text, with_ranges(text, with_clock_times(text, find_spans(text))))
    assert [(s.kind, s.text, s.target) for s in spans] == expected
    assert all(text[s.start:s.end] == s.text for s in spans)
