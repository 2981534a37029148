"""bench/outputs.py: what the output-comparing benches share."""

from __future__ import annotations

from bench.outputs import bootstrap_p, read_lines


def test_the_bootstrap_finds_a_gain_on_every_resample_and_tests_no_copy():
    references = [["The cat sleeps.", "It is raining today.", "Where is the station?", "I love music."]]
    worse = ["A dog barks.", "Snow fell yesterday.", "Who are you?", "We hate noise."]
    assert bootstrap_p(worse, [references[0], worse, references[0]], references) == [1 / 1001, None, 1 / 1001]
    assert bootstrap_p(worse, [worse], references) == [None]


def test_read_lines_keeps_empty_lines_but_not_the_last_break(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("one\n\nthree\n", encoding="utf-8")
    assert read_lines(str(path)) == ["one", "", "three"]
    path.write_text("", encoding="utf-8")
    assert read_lines(str(path)) == []
