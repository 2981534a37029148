"""pipeline/words.py: repairing placeholders by alignment, restoring spans, fitting sentence pieces."""

import re

import pytest

from model.inference.alignment import AlignedText
from pipeline.rules.abbreviations import with_abbreviations
from pipeline.rules import names, verbatim
from pipeline.rules.clock import without_oclock
from pipeline.rules.verbatim import find_spans
from pipeline.spans import Span, mask, spaced_spans
from pipeline.words import (
    Word, capitalize_first, capitalize_start, fit_boundaries, from_aligned, from_text, insert_placeholder, remove_duplicates, render, repair_placeholder,
    restore_words,
)

# Source words of "Laden Sie die Datei von ⦅X1⦆ herunter." as spans of the original text.
LADEN, SIE, DIE, DATEI, VON, URL, HERUNTER = (0, 5), (6, 9), (10, 13), (14, 19), (20, 23), (24, 48), (49, 58)
ANCHORS = [LADEN, SIE, DIE, DATEI, VON, URL, HERUNTER]

# The rules' repairs (pipeline.rules): "o'clock" after a span whose English is a time that takes none
# (clock), a word before a span that its English makes wrong ("the" before a day-first date: verbatim;
# a country phrase's preposition: names).
OCLOCK = lambda words, slots: without_oclock(words, slots, None)  # noqa: E731
BEFORE_SPAN = [verbatim.RULE.repair(mask("", [])), names.RULE.repair(mask("", []))]


def words(*items):
    """Word("text", sources...) shorthand: a leading "+" glues the word to the previous one."""
    out = []
    for text, *sources in items:
        gap = "" if text.startswith("+") else " "
        out.append(Word(text.lstrip("+"), gap, tuple(sources)))
    return out


def text_of(ws):
    return render(ws)[0]


def test_from_aligned_and_render_round_trip():
    aligned = AlignedText("Das ist gut.", "That is good.", [(0, 3), (4, 7), (8, 11), (11, 12)],
                          [(0, 4), (5, 7), (8, 12), (12, 13)], [(0, 0), (1, 1), (2, 2), (3, 3)])
    ws = from_aligned(aligned, lambda i: aligned.source_words[i])
    assert [(w.text, w.gap, w.sources) for w in ws] == [
        ("That", "", ((0, 3),)), ("is", " ", ((4, 7),)), ("good", " ", ((8, 11),)), (".", "", ((11, 12),))]
    assert render(ws) == ("That is good.", [(0, 4), (5, 7), (8, 12), (12, 13)])
    assert text_of(from_text("  Two  words ")) == "Two  words"


def test_a_lone_space_piece_of_the_model_is_no_wider_gap():
    """The aligned decoding keeps a lone "▁" the model wrote ("I  is"), the plain one does not: the
    words are the same either way."""
    aligned = AlignedText("Er ist.", "I  is.", [(0, 2), (3, 6), (6, 7)], [(0, 1), (3, 5), (5, 6)], [])
    assert render(from_aligned(aligned, lambda i: aligned.source_words[i]))[0] == "I is."


def test_missing_placeholder_goes_after_the_word_aligned_to_it():
    ws = words(("Download", LADEN), ("the", DIE), ("file", DATEI), ("from", VON), ("horpocipe", URL), ("+.",))
    insert_placeholder(ws, "⦅X1⦆", URL, ANCHORS)
    assert text_of(ws) == "Download the file from horpocipe ⦅X1⦆."


def test_missing_placeholder_follows_its_source_neighbour():
    ws = words(("Download", LADEN), ("the", DIE), ("file", DATEI), ("from", VON), ("+.",))
    insert_placeholder(ws, "⦅X1⦆", URL, ANCHORS)
    assert text_of(ws) == "Download the file from ⦅X1⦆."
    ws = words(("Download", HERUNTER), ("it", DIE), ("+.",))       # only the right neighbour is aligned
    insert_placeholder(ws, "⦅X1⦆", URL, [URL, HERUNTER])
    assert text_of(ws) == "⦅X1⦆ Download it."


def test_missing_placeholder_never_splits_a_word():
    ws = words(("She", LADEN), ("don", VON), ("+'",), ("+t", VON), ("go",))
    insert_placeholder(ws, "⦅X1⦆", URL, ANCHORS)
    assert text_of(ws) == "She don't ⦅X1⦆ go"


def test_missing_placeholder_without_any_alignment_goes_before_the_final_punctuation():
    ws = words(("It",), ("was",), ("great",), ("+!",))
    insert_placeholder(ws, "⦅X1⦆", URL, ANCHORS)
    assert text_of(ws) == "It was great ⦅X1⦆!"


@pytest.mark.parametrize("edge, expected", [
    ("start", "⦅X1⦆ It is raining."),
    ("end", "It is raining. ⦅X1⦆"),
    ("end_before_punctuation", "It is raining ⦅X1⦆."),
])
def test_missing_placeholder_at_an_edge_stays_at_that_edge(edge, expected):
    ws = words(("It", URL), ("is", DIE), ("raining", DATEI), ("+.",))   # aligned mid-sentence: ignored
    insert_placeholder(ws, "⦅X1⦆", URL, ANCHORS, edge)
    assert text_of(ws) == expected


def test_duplicated_placeholder_keeps_the_aligned_occurrence():
    ws = words(("Call",), ("⦅N1⦆",), ("or",), ("+⦅N1⦆", URL), ("now",))
    remove_duplicates(ws, "⦅N1⦆", [URL], 1)
    assert text_of(ws) == "Call or⦅N1⦆ now"
    ws = words(("a",), ("⦅N1⦆",), ("b",), ("⦅N1⦆",), ("⦅N1⦆",))
    remove_duplicates(ws, "⦅N1⦆", [URL], 2)                            # none aligned: the earliest stay
    assert text_of(ws) == "a ⦅N1⦆ b ⦅N1⦆"


def test_repair_restores_every_occurrence_of_a_shared_placeholder():
    first, second = (0, 4), (10, 14)      # "⦅N1⦆ und ⦅N1⦆": the same number twice
    ws = words(("⦅N1⦆", first), ("and", (5, 8)), ("+.",))
    repair_placeholder(ws, "⦅N1⦆", [first, second], [first, (5, 8), second])
    assert text_of(ws) == "⦅N1⦆ and ⦅N1⦆."
    ws = words(("⦅N1⦆", first), ("⦅N1⦆",), ("⦅N1⦆", second))
    repair_placeholder(ws, "⦅N1⦆", [first, second], [first, second])
    assert text_of(ws) == "⦅N1⦆ ⦅N1⦆" and [w.sources for w in ws] == [(first,), (second,)]


@pytest.mark.parametrize("word, slots, expected", [
    ("⦅N1⦆rd", {"⦅N1⦆": "3"}, "3rd"),
    ("⦅N1⦆s", {"⦅N1⦆": "1990"}, "1990s"),
    ("⦅N1⦆th", {"⦅N1⦆": "23.11.2026"}, "23.11.2026"),
    ("⦅N1⦆s", {"⦅N1⦆": "1,450"}, "1,450"),
    ("⦅N1⦆er", {"⦅N1⦆": "5"}, "5"),
    ("⦅X1⦆You", {"⦅X1⦆": "a@b.de"}, "a@b.de You"),
])
def test_letters_glued_to_a_placeholder(word, slots, expected):
    assert text_of(restore_words([Word(word, "")], slots)) == expected


@pytest.mark.parametrize("word, slots, expected", [
    ("⦅N1⦆.", {"⦅N1⦆": "8:15 p.m."}, "8:15 p.m."),       # the span's stop is the sentence's too
    ("⦅N1⦆...", {"⦅N1⦆": "8:15 p.m."}, "8:15 p.m...."),                 # an ellipsis stays whole
    ("⦅N1⦆.", {"⦅N1⦆": "8:15"}, "8:15."),
    ("⦅X1⦆,", {"⦅X1⦆": "etc."}, "etc.,"),
])
def test_a_span_ending_with_a_stop_takes_the_stop_after_it(word, slots, expected):
    assert text_of(restore_words([Word(word, "")], slots)) == expected


@pytest.mark.parametrize("output, slots, expected", [
    ("We meet at ⦅N1⦆ o'clock.", {"⦅N1⦆": "8:15 p.m."}, "We meet at 8:15 p.m."),
    ("At ⦅N1⦆ o'clock, we eat.", {"⦅N1⦆": "noon"}, "At noon, we eat."),
    ("At ⦅N1⦆ o'clock today.", {"⦅N1⦆": "9:30"}, "At 9:30 today."),
    ("At ⦅N1⦆ o'clock.", {"⦅N1⦆": "8"}, "At 8 o'clock."),              # a plain hour keeps it
    ("Room ⦅N1⦆ o'clock.", {"⦅N1⦆": "1,450"}, "Room 1,450 o'clock."),
])
def test_oclock_after_a_time_that_says_it_goes(output, slots, expected):
    assert render(restore_words(from_text(output), slots, fixes=[OCLOCK]))[0] == expected


@pytest.mark.parametrize("output, slots, oclock, expected", [
    # "am 12.03.2025 um 14:30 Uhr": no span may take one; the model put it after the date
    ("at ⦅N1⦆ o'clock at ⦅N2⦆.", {"⦅N1⦆": "12.03.2025", "⦅N2⦆": "2:30 p.m."}, set(), "at 12.03.2025 at 2:30 p.m."),
    # "um 8 Uhr von Gleis 3": the hour keeps its "o'clock", the platform loses one
    ("at ⦅N1⦆ o'clock from platform ⦅N2⦆ o'clock.", {"⦅N1⦆": "8", "⦅N2⦆": "3"}, {"⦅N1⦆"},
     "at 8 o'clock from platform 3."),
    ("at ⦅N1⦆ o'clock, then", {"⦅N1⦆": "3"}, set(), "at 3, then"),           # its comma stays
    ("It is ten o'clock.", {}, set(), "It is ten o'clock."),                   # not after a span: the model's
])
def test_oclock_after_a_span_no_uhr_follows_goes(output, slots, oclock, expected):
    fix = lambda words, slots: without_oclock(words, slots, frozenset(oclock))  # noqa: E731
    assert render(restore_words(from_text(output), slots, fixes=[fix]))[0] == expected


@pytest.mark.parametrize("texts, slots, expected", [
    # the word alignment writes "o'clock." as four words: "o", "'", "clock", "." (translate_aligned
    # gave "At 9:30 o'clock" and "at 8:15 p.m.." where translate gave "At 9:30", "at 8:15 p.m.")
    (["At", "⦅N1⦆", "o", "'", "clock"], {"⦅N1⦆": "9:30"}, "At 9:30"),
    (["At", "⦅N1⦆", "o", "’", "clock", "."], {"⦅N1⦆": "8:15 p.m."}, "At 8:15 p.m."),
    (["At", "⦅N1⦆", "o", "'", "clock", ","], {"⦅N1⦆": "noon"}, "At noon,"),
    (["At", "⦅N1⦆", "o", "'", "clock", "."], {"⦅N1⦆": "8"}, "At 8 o'clock."),   # a plain hour keeps it
    (["at", "⦅N1⦆", "."], {"⦅N1⦆": "8:15 p.m."}, "at 8:15 p.m."),
    (["at", "⦅N1⦆", "..."], {"⦅N1⦆": "8:15 p.m."}, "at 8:15 p.m...."),             # an ellipsis stays
    (["at", "⦅N1⦆", "."], {"⦅N1⦆": "8:15"}, "at 8:15."),
    (["at", "⦅N1⦆", ".", "o", "'", "clock"], {"⦅N1⦆": "8:15"}, "at 8:15. o'clock"),  # not after the span
])
def test_oclock_and_a_stop_as_the_alignment_writes_them(texts, slots, expected):
    glued = {"'", "’", "clock", ".", ",", "..."}  # written against the word before, as from_aligned gives them
    ws = [Word(t, "" if i == 0 or (t in glued and texts[i - 1] != ".") else " ") for i, t in enumerate(texts)]
    assert render(restore_words(ws, slots, fixes=[OCLOCK]))[0] == expected


@pytest.mark.parametrize("output, slots, expected", [
    ("The capital of ⦅X1⦆ is Ankara.", {"⦅X1⦆": "of Turkey"}, "The capital of Turkey is Ankara."),
    ("The capital ⦅X1⦆ is Ankara.", {"⦅X1⦆": "of Turkey"}, "The capital of Turkey is Ankara."),
    ("We fly to ⦅X1⦆.", {"⦅X1⦆": "to Turkey"}, "We fly to Turkey."),
    ("We fly of ⦅X1⦆.", {"⦅X1⦆": "to Turkey"}, "We fly of to Turkey."),          # not the same word
    ("The beauty of ⦅X1⦆.", {"⦅X1⦆": "Turkey"}, "The beauty of Turkey."),       # none in the span
    ("Born on the ⦅N1⦆.", {"⦅N1⦆": "1 January 2000"}, "Born on 1 January 2000."),  # "the" before a date
    ("On the ⦅N1⦆.", {"⦅N1⦆": "3"}, "On the 3."),
])
def test_a_preposition_the_country_phrase_says_goes(output, slots, expected):
    assert render(restore_words(from_text(output), slots, fixes=BEFORE_SPAN))[0] == expected


def test_restore_words_converts_and_drops_invented_placeholders():
    ws = words(("⦅X2⦆",), ("Rent",), ("is",), ("⦅N1⦆",), ("euros",), ("⦅X9⦆",), ("+.",))
    restored = restore_words(ws, {"⦅N1⦆": "1,450", "⦅X2⦆": "🏠"})
    assert text_of(restored) == "🏠 Rent is 1,450 euros."


@pytest.mark.parametrize("source, initial, output, expected", [
    ("Ich gehe nach Hause,", True, "I'm going home.", "I'm going home,"),
    ("weil es spät ist", False, "Because it's late.", "because it's late"),
    ("weil ich müde bin.", False, "Because I'm tired.", "because I'm tired."),
    ("ich komme", False, "I'm coming.", "I'm coming"),                  # "I" keeps its capital
    ("Datei von", False, "File from.", "File from"),                     # German capital: unchanged
    ("Sie sagte:", True, "She said.", "She said:"),
    ("und dann?", False, "And then?", "and then?"),
])
def test_fit_boundaries(source, initial, output, expected):
    ws = from_text(output)
    fit_boundaries(ws, source, initial=initial)
    assert text_of(ws) == expected


@pytest.mark.parametrize("source, output, expected", [
    # an abbreviation the model put first is capitalized where the sentence starts with a capital
    ("Es dauert ca. 10 Minuten.", "⦅X1⦆ takes ⦅N1⦆ minutes.", "Approx. takes ⦅N1⦆ minutes."),
    ("Es dauert ca. 10 Minuten.", "It takes ⦅X1⦆ ⦅N1⦆ minutes.", "It takes ⦅X1⦆ ⦅N1⦆ minutes."),
    ("„Es dauert ca. 10 Minuten.", "⦅X1⦆, ⦅N1⦆", "Approx., ⦅N1⦆"),
    ("„Es dauert ca. 10 Minuten.", "\"⦅X1⦆ takes ⦅N1⦆ minutes.\"", "\"Approx. takes ⦅N1⦆ minutes.\""),  # a quote glued to it
    ("es dauert ca. 10 Minuten", "⦅X1⦆ takes ⦅N1⦆ minutes", "⦅X1⦆ takes ⦅N1⦆ minutes"),  # typed lower case
    ("Sie öffnen www.example.org.", "⦅X1⦆ opens.", "⦅X1⦆ opens."),                     # a span of its own
])
def test_capitalize_first(source, output, expected):
    masked = mask(source, with_abbreviations(source, find_spans(source)))
    assert render(capitalize_first(from_text(output), masked))[0] == expected


@pytest.mark.parametrize("source, output, expected", [
    # a placeholder glued to a stop gets back the space it has in the source
    ("Er wohnt in der Hauptstr. 5.", "He lives in Hauptstr.⦅N1⦆.", "He lives in Hauptstr. 5."),
    ("Tel. 0221", "⦅X1⦆.⦅N1⦆", "Tel. 0221"),
    # not where the source has none, nor after a digit
    ("Version v.5 ist neu.", "Version v.⦅N1⦆ is new.", "Version v.5 is new."),
    ("Es sind 3. 5 Leute", "It's 3.⦅N1⦆ people", "It's 3.5 people"),
])
def test_restore_words_gives_back_the_space_before_a_span(source, output, expected):
    spans = [Span(m.start(), m.end(), "name", m[0]) if m[0] == "Tel" else Span(m.start(), m.end(), "number", m[0])
             for m in re.finditer(r"Tel|(?<=[ .])5|0221", source)]
    masked = mask(source, spans)
    assert render(restore_words(from_text(output), masked.slots, spaced=spaced_spans(masked)))[0] == expected


GLOSSARY_TERM = Span(0, 8, "glossary", "Passwort", "password")


@pytest.mark.parametrize("first, expected", [
    ("forget", "Forget"),                # "forget ⦅X1⦆?" for "Passwort vergessen?" read as "⦅X1⦆ vergessen?"
    ("forgotten", "Forgotten"),
    ("don't", "Don't"),
    ("e-mail", "E-mail"),
    ("über", "Über"),
    ("reset:", "Reset:"),
    ("forget.", "Forget."),
    ('"forget', '"Forget'),              # after an opening quote
    ("Save", "Save"),                    # already capitalized
    ("iPhone", "iPhone"),                # a capital inside: written so on purpose
    ("e.g.", "e.g."),                    # an abbreviation
    ("www.example.org", "www.example.org"),
    ("http://x.org", "http://x.org"),
    ("a@b.de", "a@b.de"),
    ("3rd", "3rd"),
    ("⦅X1⦆", "⦅X1⦆"),                    # a placeholder: its span is restored as written
])
def test_a_start_the_placeholder_hid_the_capital_of_is_capitalized(first, expected):
    masked = mask("Passwort vergessen?", [GLOSSARY_TERM])
    assert text_of(capitalize_start(words((first,), ("⦅X1⦆",), ("?",)), masked)) == f"{expected} ⦅X1⦆ ?"
    assert capitalize_start([], masked) == []


@pytest.mark.parametrize("source, spans, output", [
    ("Benutzername vergessen?", [], "forgotten username?"),        # the model saw the capital
    ("konnte ⦅X1⦆ nicht entfernen", None, "could not remove ⦅X1⦆"),  # a message written lower case
    ("%s wurde nicht verschoben", None, "⦅X1⦆ was not moved"),
    ("%s wurde nicht verschoben", None, "has not been moved ⦅X1⦆"),  # a span written lower case first
])
def test_the_model_s_lower_case_stays_where_it_saw_the_sentence_start(source, spans, output):
    masked = mask(source, find_spans(source) if spans is None else spans)
    assert render(capitalize_start(from_text(output), masked))[0] == output
