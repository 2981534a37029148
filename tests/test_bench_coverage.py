"""bench/coverage.py: the hand-made check of dropped words, its data file, and its arguments."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import coverage as bench_coverage  # noqa: E402

WORDS = {"Fieber": ("fever", "temperature"), "Halsschmerzen": ("throat",), "arbeiten": ("work",)}


@pytest.mark.parametrize(("output", "expected"), [
    ("He has a fever and a sore throat and works.", []),
    ("He has a high temperature, a sore throat; he is working.", []),
    ("He has a fever.", ["Halsschmerzen", "arbeiten"]),
    ("Rework the throat.", ["Fieber", "arbeiten"]),      # "work" must start a word
    ("", ["Fieber", "Halsschmerzen", "arbeiten"]),
])
def test_dropped(output, expected):
    assert bench_coverage.dropped(output, WORDS) == expected


def test_the_shipped_sentences_parse():
    cases = bench_coverage.read_cases(str(bench_coverage.DEFAULT_DATA))
    assert len(cases) == 40 and sum(len(words) for _, words in cases) == 125


@pytest.mark.parametrize(("line", "message"), [
    ("Er hat Fieber.", "expected GERMAN<TAB>word=en|en;..., got 'Er hat Fieber.'"),
    ("Er hat Fieber.\tHusten=cough", "expected GERMAN<TAB>word=en|en;... with words of the sentence, got 'Husten=cough'"),
    ("Er hat Fieber.\tFieber", "expected GERMAN<TAB>word=en|en;... with words of the sentence, got 'Fieber'"),
    ("Er hat Fieber.\tFieber=", "expected GERMAN<TAB>word=en|en;... with words of the sentence, got 'Fieber='"),
])
def test_bad_lines_are_refused_with_their_number(tmp_path, line, message):
    path = tmp_path / "dropped.tsv"
    path.write_text("# comment\n" + line + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as error:
        bench_coverage.read_cases(str(path))
    assert str(error.value) == f"{path}:2: {message}"


@pytest.mark.slow  # a subprocess each
@pytest.mark.parametrize(("args", "message"), [
    (["--weights", "0,x"], "--weights must be numbers separated by commas, got '0,x'"),
    (["--weights", "0,-1"], "--weights must be numbers >= 0, got [0.0, -1.0]"),
    (["--beam", "1"], "--beam must be >= 2, got 1"),
    (["--gap-words", "4,x"], "--gap-words must be integers separated by commas, got '4,x'"),
    (["--gap-words", "-1"], "--gap-words must be integers >= 0, got [-1]"),
])
def test_bad_arguments_give_one_line_errors(args, message):
    proc = subprocess.run([sys.executable, "bench/coverage.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == f"bench/coverage.py: error: {message}"
