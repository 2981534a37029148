"""app/inspection.py's rules for what the inspector shows, without a model: one word per word with
an apostrophe (``join_apostrophes``), placeholders as their text (``shown_piece``), the
completions worth offering (``plausible``)."""

from __future__ import annotations

import pytest

from app.inspection import COMPLETIONS, Candidate, CompletionOptions, join_apostrophes, plausible, shown_piece
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


def options(prefix, *scored, n=5):
    return [c.text for c in plausible(prefix, [Candidate(text, score) for text, score in scored], n)]


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
    margin = COMPLETIONS.score_margin
    assert options("Tell ", ("Tell me what it is.", -0.5), ("Tell Me what it is.", -1.0), ("Tell ME what it is.", -1.2),
                   ("Tell us what it is.", -2.0), ("Tell them.", -0.5 - margin - 0.01)) == [
        "Tell me what it is.", "Tell us what it is."]
    assert options("Tell ", ("Tell me what it is.", -0.5), ("Tell them.", -0.5 - margin)) == [
        "Tell me what it is.", "Tell them."]  # at the margin is not below it
    assert options("", ("Hello", -0.5), ("", -1.0), ("Hi", -1.5)) == ["Hello", "Hi"]
    assert plausible("x", [], 5) == []


def test_the_margin_is_an_option():
    scored = [("Can you tell me where the station is?", -0.58), ("Can you told me where the station is?", -4.03),
              ("Can you please tell me where the station is?", -4.76)]
    assert options("Can you ", *scored) == [scored[0][0]]
    wide = plausible("Can you ", [Candidate(t, s) for t, s in scored], 5, CompletionOptions(score_margin=5.0))
    assert [c.text for c in wide] == [t for t, _ in scored]


def test_other_words_first_then_more_of_the_same_words():
    """Up to n: the best completion of each word, then the next best of words already there,
    best first; the same word in other capitals is no more of the same word."""
    scored = [("I lost my key yesterday.", -0.5), ("I lost my keys yesterday.", -1.6), ("I have lost my key.", -2.0),
              ("I LOST my key.", -2.1), ("I lost the key yesterday.", -2.2), ("I had lost my key.", -2.5)]
    assert options("I ", *scored, n=3) == ["I lost my key yesterday.", "I have lost my key.", "I had lost my key."]
    assert options("I ", *scored, n=4) == ["I lost my key yesterday.", "I lost my keys yesterday.",
                                           "I have lost my key.", "I had lost my key."]
    assert options("I ", *scored, n=10) == ["I lost my key yesterday.", "I lost my keys yesterday.",
                                            "I have lost my key.", "I lost the key yesterday.", "I had lost my key."]
    assert options("I ", *scored, n=1) == ["I lost my key yesterday."]
    # punctuation after a word leaves it the same word: more of it comes only to fill up to n
    assert options("Yesterday", ("Yesterday, I lost my keys.", -7.7), ("Yesterday I lost my keys.", -8.0),
                   ("Yesterday, I lost my key.", -8.1), n=2) == ["Yesterday, I lost my keys.", "Yesterday I lost my keys."]
    assert options("Where is the train ", ("Where is the train station?", -0.8), ("Where is the train station??", -1.0),
                   ("Where is the train stop?", -1.5), n=2) == ["Where is the train station?", "Where is the train stop?"]
    assert options("Say ", ("Say it!", -0.5), ("Say ?", -1.0), ("Say !", -1.2), n=2) == ["Say it!", "Say ?"]  # words


@pytest.mark.parametrize("margin, message", [
    (-1.0, "score_margin must be a number >= 0, got -1.0"),
    (float("nan"), "score_margin must be a number >= 0, got nan"),
    (True, "score_margin must be a number >= 0, got True"),
    ("3", "score_margin must be a number >= 0, got '3'"),
])
def test_completion_options_refuse_what_is_no_margin(margin, message):
    with pytest.raises(ValueError) as err:
        CompletionOptions(score_margin=margin)
    assert str(err.value) == message
