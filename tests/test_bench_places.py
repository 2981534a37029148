"""bench/places.py on the release checkpoint, with a dictionary of one place written for the test."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # bench/places.py runs on the release model in a subprocess

RELEASE = ROOT / "checkpoints" / "de-en.pt"


def run_bench(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "bench/places.py", "--checkpoint", str(RELEASE), "--threads", "1", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_scores_the_sources_with_a_place_without_and_with(tmp_path):
    ding, corpus = tmp_path / "de-en", tmp_path / "dev.tsv"
    ding.write_text("Köln (Stadt in Deutschland) [geogr.] :: Cologne (city in Germany)\n", encoding="utf-8")
    corpus.write_text("How much is a ticket to Cologne?\tWie viel kostet eine Fahrkarte nach Köln?\n"
                      "I'm hungry.\tIch habe Hunger.\n", encoding="utf-8")
    proc = run_bench(["--dictionary", str(ding), "--data", str(corpus)])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        f"{corpus}: 1 of 2 sources with a place name: BLEU 70.71 -> 100.00, chrF 70.09 -> 100.00",
        "  Wie viel kostet eine Fahrkarte nach Köln?",
        "    without: How much is a ticket to oil?",
        "    with:    How much is a ticket to Cologne?",
    ]


def test_without_place_names_it_says_so(tmp_path):
    corpus = tmp_path / "dev.tsv"
    corpus.write_text("I'm hungry.\tIch habe Hunger.\n", encoding="utf-8")
    proc = run_bench(["--dictionary", "", "--data", str(corpus)])
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("bench/places.py: error: no place names: install Debian's trans-de-en or give "
                                   "--dictionary PATH")
