"""bench/tags.py: which words an inline element wraps in the output, and the verdict on them."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import tags  # noqa: E402

ALLOWED = frozenset(("since", "monday"))


@pytest.mark.parametrize(("text", "expected"), [
    ("since Monday", "right"),
    ("since the Monday,", "right"),          # articles and punctuation are free
    ("Monday", "right"),
    ("since Monday it has", "too wide"),
    ("heating", "wrong"),
    ("", "empty"),
    (" the . ", "empty"),
    (None, "empty"),                          # the element is missing from the output
])
def test_verdict(text, expected):
    assert tags.verdict(text, ALLOWED) == expected


@pytest.mark.parametrize(("text", "output", "source", "expected"), [
    # the whole output, where the element's words are not all it holds
    ("It has been cold since Monday.", "<p><b>It has been cold since Monday.</b></p>", "seit Montag", "whole sentence"),
    ("since Monday", "<p><b>since Monday</b></p>", "seit Montag", "right"),   # the whole output and right
    # a number of the element that the output writes elsewhere
    ("since Monday", "<p><b>since Monday</b> at 9</p>", "seit Montag um 9", "number left out"),
    ("since Monday 9", "<p><b>since Monday 9</b></p>", "seit Montag um 9", "right"),
    ("since Monday", "<p><b>since Monday</b> at nine</p>", "seit Montag um 9", "right"),   # written otherwise
])
def test_verdict_in_its_output(text, output, source, expected):
    assert tags.verdict(text, ALLOWED | {"9"}, output, source) == expected


@pytest.mark.parametrize(("markup", "output", "expected"), [
    ("<p>Es ist <b>seit Montag</b> kalt.</p>", "<p>It has been cold <b>since Monday</b>.</p>", "since Monday"),
    ('<p>Die <a href="/x">Preise</a> sind hoch.</p>', '<p>The <a href="/x">prices</a> are high.</p>', "prices"),
    ("<p>Das ist <em>sehr</em> gut.</p>", "<p>That is<em></em> good.</p>", ""),
    ("<p>Das ist <em>sehr</em> gut.</p>", "<p>That is good.</p>", None),
])
def test_inside(markup, output, expected):
    assert tags.inside(markup, output) == expected


@pytest.mark.parametrize(("line", "message"), [
    ("<p>Ohne Tag.</p>\tword", "expected <p> with one inline element<TAB>words"),
    ("<p>Zwei <b>Tags</b> <i>hier</i>.</p>\tword", "expected <p> with one inline element<TAB>words"),
    ("<p>Ein <b>Tag</b>.</p>\t ", "expected <p> with one inline element<TAB>words"),
    ("<p>Ein <b>Tag</b>.</p>", "expected <p> with one inline element<TAB>words"),
])
def test_bad_lines_are_refused_with_their_number(tmp_path, line, message):
    path = tmp_path / "tags.tsv"
    path.write_text("# comment\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=f"tags.tsv:3: {message}"):
        tags.read_cases(str(path))


@pytest.mark.parametrize(("path", "count"), [(tags.DEFAULT_DATA, 48), (tags.DEFAULT_DATA.parent / "tags_numbers.tsv", 24)])
def test_the_shipped_cases_parse(path, count):
    cases = tags.read_cases(str(path))
    assert len(cases) == count
    assert all(tags.inside(markup, markup) is not None for markup, _ in cases)


def test_runs_end_to_end(tiny_checkpoint, tmp_path, capsys):
    data = tmp_path / "tags.tsv"
    data.write_text("<p>Ich bin <b>müde</b>.</p>\ttired\n<p>Wir <em>essen</em> Brot.</p>\teat\n", encoding="utf-8")
    assert tags.main(["--checkpoint", str(tiny_checkpoint), "--engine", "torch", "--data", str(data)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith(f"{tiny_checkpoint.name}, beam 4, torch: 2 elements: ")
    counts = [int(part.split()[0]) for part in last.split(": ")[-1].split(", ")]
    assert sum(counts) == 2 and len(counts) == len(tags.VERDICTS)


def test_runs_reranked_by_the_channel_and_refuses_a_wrong_one(tiny_checkpoint, reverse_checkpoint, tmp_path, capsys):
    data = tmp_path / "tags.tsv"
    data.write_text("<p>Ich bin <b>müde</b>.</p>\ttired\n", encoding="utf-8")
    base = ["--checkpoint", str(tiny_checkpoint), "--engine", "torch", "--data", str(data)]
    assert tags.main([*base, "--channel", str(reverse_checkpoint)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"{tiny_checkpoint.name}, beam 4, torch: 1 elements: ")
    # a de-en model scores en-de translations: refused in one line
    assert tags.main([*base, "--channel", str(tiny_checkpoint)]) == 2
    assert capsys.readouterr().err == (f"bench/tags.py: error: the channel {str(tiny_checkpoint)!r} scores en-de, "
                                       f"but {str(tiny_checkpoint)!r} translates de-en\n")


def test_gold_cases_are_stretches_of_one_to_four_words_not_the_whole_sentence():
    cases = tags.gold_cases("Ich bin müde.")
    assert [doc for doc, _ in cases] == ["<p><b>Ich</b> bin müde.</p>", "<p>Ich <b>bin</b> müde.</p>",
                                         "<p>Ich bin <b>müde</b>.</p>", "<p><b>Ich bin</b> müde.</p>",
                                         "<p>Ich <b>bin müde</b>.</p>"]
    assert [words for _, words in cases] == [[0], [1], [2], [0, 1], [1, 2]]


# "Ich bin müde." -> "I am tired.": I-Ich, am-bin, tired-müde, .-.
LINKS = {(0, 0), (1, 1), (2, 2), (3, 3)}


@pytest.mark.parametrize(("output", "stretch", "expected"), [
    ("I am <b>tired</b>.", [2], "right"),
    ("I <b>am tired</b>.", [1, 2], "right"),
    ("I <b>am</b> tired.", [1, 2], "part"),
    ("<b>I am tired.</b>", [2], "whole sentence"),
    ("I <b>am tired</b>.", [2], "too wide"),
    ("<b>I</b> am tired.", [2], "other words"),
    ("I am tired<b></b>.", [2], "empty"),
])
def test_gold_verdict(output, stretch, expected):
    assert tags.gold_verdict("I am tired.", LINKS, stretch, output) == expected
