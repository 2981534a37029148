"""bench/places.py's errors. Its report on the release checkpoint, with a dictionary of one place
written for the test, is pinned in tests/test_release.py (``run_bench`` runs it for both)."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import ROOT, run_script

pytestmark = pytest.mark.slow  # bench/places.py runs in a subprocess

RELEASE = ROOT / "checkpoints" / "de-en.pt"


def run_bench(args: list[str]) -> subprocess.CompletedProcess:
    return run_script("bench/places.py", ["--checkpoint", str(RELEASE), "--threads", "1", *args])


def test_without_place_names_it_says_so(tmp_path):
    corpus = tmp_path / "dev.tsv"
    corpus.write_text("I'm hungry.\tIch habe Hunger.\n", encoding="utf-8")
    proc = run_bench(["--dictionary", "", "--data", str(corpus)])
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("bench/places.py: error: no place names: install Debian's trans-de-en or give "
                                   "--dictionary PATH")
