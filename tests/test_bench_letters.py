"""bench/letters.py on the release model: its report on letters written for the test, and its
one-line errors for malformed data."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import ROOT, run_script

pytestmark = pytest.mark.slow  # bench/letters.py runs in a subprocess

RELEASE = ROOT / "checkpoints" / "de-en.pt"


def run_bench(args: list[str]) -> subprocess.CompletedProcess:
    return run_script("bench/letters.py", ["--checkpoint", str(RELEASE), "--threads", "1", *args])


def test_counts_openings_with_their_comma_and_scores_the_letters(tmp_path):
    salutations, bodies = tmp_path / "salutations.tsv", tmp_path / "bodies.tsv"
    salutations.write_text("# a comment\nLiebe Freunde\tDear friends\n", encoding="utf-8")
    bodies.write_text("wie geht es euch?\tHow are you?\n\nich bin heute krank.\tI am sick today.\n", encoding="utf-8")
    proc = run_bench(["--salutations", str(salutations), "--bodies", str(bodies)])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "without the letters rule  0/2 open with the opening and its comma, chrF 55.95",
        "with the letters rule     2/2 open with the opening and its comma, chrF 74.15",
        "  Liebe Freunde, wie geht es euch?",
        "    without: Love friends, how's it going?",
        "    with:    Dear friends, how's it going?",
        "  Liebe Freunde, ich bin heute krank.",
        "    without: Love friends, I'm sick today.",
        "    with:    Dear friends, I'm sick today.",
    ]


@pytest.mark.parametrize("flag, content, message", [
    ("--salutations", "Liebe Freunde Dear friends\n",
     "{path}:1: expected German<TAB>English, got 'Liebe Freunde Dear friends'"),
    ("--bodies", "wie geht es euch?\t\n", "{path}:1: expected German<TAB>English, got 'wie geht es euch?\\t'"),
    ("--bodies", "# only a comment\n", "{path}: no pairs"),
    ("--bodies", None, "cannot read {path}: No such file or directory"),
])
def test_malformed_data_is_one_line(tmp_path, flag, content, message):
    path = tmp_path / "data.tsv"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    proc = run_bench([flag, str(path)])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"bench/letters.py: error: {message.format(path=path)}\n"
