"""bench/casing.py end to end on the tiny model and the 40 pairs it knows by heart."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.conftest import run_script

pytestmark = pytest.mark.slow  # bench/casing.py runs in a subprocess


def run_bench(args: list[str]) -> subprocess.CompletedProcess:
    return run_script("bench/casing.py", args)


def test_reports_every_input_style(tiny_checkpoint, corpus_path, tmp_path):
    report = tmp_path / "casing.json"
    proc = run_bench(["--checkpoint", str(tiny_checkpoint), "--data", str(corpus_path), "--sentences", "8",
                      "--beam", "1", "--threads", "1", "--json", str(report)])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"checkpoint {tiny_checkpoint}, 8 sources of {corpus_path}, beam 1"
    assert [line[:26].strip() for line in lines[2:]] == [
        "as written", "ALL CAPS, read as is", "ALL CAPS, truecased", "Title Case, read as is", "Title Case, truecased",
        "lower case, read as is", "lower case, truecased", "lower-case start, as is", "lower-case start, capital"]
    rows = json.loads(report.read_text())["rows"]
    assert rows[0]["bleu_lc"] == 100.0                              # the model knows these 8 by heart
    assert rows[6]["bleu_lc"] > rows[5]["bleu_lc"]                  # lower case: truecasing helps
    assert rows[1]["outputs_all_caps"] == rows[2]["outputs_all_caps"] == 1.0
    assert rows[0]["outputs_all_caps"] == 0.0


def test_bad_arguments_give_one_line_errors(corpus_path):
    proc = run_bench(["--data", str(corpus_path), "--sentences", "0"])
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["bench/casing.py: error: --sentences must be >= 1, got 0"]
