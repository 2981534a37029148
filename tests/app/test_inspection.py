"""app/inspection.py's rules for what the inspector shows, without a model: one word per word with
an apostrophe (``join_apostrophes``), placeholders as their text (``shown_piece``), the
completions worth offering (``plausible``)."""

from __future__ import annotations

import pytest

from app.inspection import SCORE_MARGIN, Candidate, join_apostrophes, plausible, shown_piece
from model.inference.alignment import AlignedText


def words(aligned):
    return [aligned.target[s:e] for s, e in aligned.target_words]


def test_an_apostrophe_between_letters_joins_its_words():
    # "That's why I don't know o'clock 'Hi' students' books" as the model's word rule cuts it
    target = "That's why I don't know o'clock 'Hi' students' books"
    cut = ["That", "'", "s", "why", "I", "don", "'", "t", "know", "o", "'", "clock", "'", "Hi", "'", "students",
           "'", "books"]
    spans, at = [], 0
    for w in cut:
        at = target.index(w, at)
        spans.append((at, at + len(w)))
        at += len(w)
    aligned = AlignedText("x y z", target, [(0, 1), (2, 3), (4, 5)], spans, [(0, 0), (2, 1), (3, 1), (11, 2), (13, 2)])
    joined, confidence = join_apostrophes(aligned, [0.5, 0.8, 0.5] + [1.0] * 15)
    assert words(joined) == ["That's", "why", "I", "don't", "know", "o'clock", "'", "Hi", "'", "students", "'", "books"]
    assert confidence[0] == 0.2 and len(confidence) == 12
    # the links follow their words: "s" (2) and "why" (3) to source 1, "clock" (11) to "o'clock" (5)
    assert joined.links == [(0, 0), (0, 1), (1, 1), (5, 2), (7, 2)]
    assert joined.target == target and joined.source_words == aligned.source_words


def test_nothing_to_join_is_left_as_it_is():
    aligned = AlignedText("a", "I know.", [(0, 1)], [(0, 1), (2, 6), (6, 7)], [(0, 0)])
    assert join_apostrophes(aligned, [0.9, 0.8, 0.7]) == (aligned, [0.9, 0.8, 0.7])
    typographic = AlignedText("a", "Tom’s", [(0, 1)], [(0, 3), (3, 4), (4, 5)], [(0, 0), (2, 0)])
    assert words(join_apostrophes(typographic, [1.0] * 3)[0]) == ["Tom’s"]


@pytest.mark.parametrize("piece, expected", [
    ("⦅N1⦆", "9:30"), ("▁", "▁"), ("⦅N2⦆", "[number]"), ("⦅X1⦆", "[text]"), ("▁Uhr", "▁Uhr"), ("⦅N1⦆⦅N1⦆", "9:309:30"),
])
def test_a_placeholder_shows_what_it_stands_for(piece, expected):
    assert shown_piece(piece, {"⦅N1⦆": "9:30"}) == expected


def options(prefix, *scored):
    return [c.text for c in plausible(prefix, [Candidate(text, score) for text, score in scored])]


def test_a_word_glued_onto_a_whole_last_word_is_no_alternative():
    assert options("That's why I", ("That's why I missed my appointment.", -0.6), ("That's why I've missed it.", -2.0),
                   ("That's why It's why I missed my appointment.", -1.0), ("That's why IT missed my appointment.", -2.0),
                   ("That's why If I missed my appointment.", -2.0)) == [
        "That's why I missed my appointment.", "That's why I've missed it."]
    # a prefix that ends inside a word is continued
    assert options("Where is the tr", ("Where is the train station?", -0.7), ("Where is the tram stop?", -2.0)) == [
        "Where is the train station?", "Where is the tram stop?"]


def test_a_repeated_prefix_is_no_alternative():
    assert options("That's why ", ("That's why I missed it.", -0.6), ("That's why why I missed it.", -1.0),
                   ("That's why that's why I missed it.", -1.0), ("That's why you missed it.", -1.5)) == [
        "That's why I missed it.", "That's why you missed it."]
    assert options("He is more a ", ("He is more a teacher.", -0.5), ("He is more a a teacher.", -0.6)) == [
        "He is more a teacher."]
    # what the best completion repeats itself is no repetition
    assert options("I know that ", ("I know that that is true.", -0.5), ("I know that this is true.", -1.0)) == [
        "I know that that is true.", "I know that this is true."]


def test_the_same_word_in_other_capitals_the_empty_text_and_what_is_far_below_go():
    assert options("Tell ", ("Tell me what it is.", -0.5), ("Tell Me what it is.", -1.0), ("Tell ME what it is.", -1.2),
                   ("Tell us what it is.", -2.0), ("Tell them.", -0.5 - SCORE_MARGIN - 0.01)) == [
        "Tell me what it is.", "Tell us what it is."]
    assert options("", ("Hello", -0.5), ("", -1.0), ("Hi", -1.5)) == ["Hello", "Hi"]
    assert plausible("x", []) == []
