"""bench/ablation.py: its arguments, its SQLite cache of model outputs, and a run on the tiny model."""

from __future__ import annotations

import json
import sys

import pytest
import torch

from tests.conftest import PAIRS40, ROOT

sys.path.insert(0, str(ROOT / "bench"))
import ablation  # noqa: E402


@pytest.mark.parametrize(("args", "message"), [
    ([], "the following arguments are required: --set"),
    (["--set", "dev"], "--set must be NAME=CORPUS or NAME=SRC,REF, got 'dev'"),
    (["--set", "=x.tsv"], "--set must be NAME=CORPUS or NAME=SRC,REF, got '=x.tsv'"),
    (["--set", "a=x.tsv", "--set", "a=y.tsv"], "--set 'a' is given twice"),
    (["--set", "a=x.tsv", "--rule", "clocks"], "argument --rule: invalid choice: 'clocks' (choose from 'verbatim', "
     "'years', 'terms', 'clock', 'amounts', 'measures', 'abbreviations', 'ranges', 'weekdays', 'letters', 'names')"),
    (["--set", "a=x.tsv", "--beam", "0"], "--beam must be >= 1, got 0"),
    (["--set", "a=x.tsv", "--samples", "0"], "--samples must be >= 1, got 0"),
])
def test_bad_arguments_give_one_line_errors(capsys, args, message):
    assert ablation.main(args) == 2
    assert capsys.readouterr().err == f"{ablation.PROG}: error: {message}\n"


def test_the_cache_keeps_outputs_between_runs(tmp_path):
    path = str(tmp_path / "cache.sqlite")
    store = ablation.SqliteStore(path)
    key = ("Guten Morgen.", 4, 0.6, 6)
    store.put_many({key: [5, 6, 7]})
    again = ablation.SqliteStore(path)
    assert again.get_many([key, ("Hallo.", 4, 0.6, 6)]) == {key: [5, 6, 7]}
    assert len(again) == 1
    again.clear()
    assert len(ablation.SqliteStore(path)) == 0


def test_a_run_on_the_tiny_model(capsys, tmp_path, tiny_checkpoint):
    data = tmp_path / "dev.tsv"
    data.write_text(PAIRS40.read_text(encoding="utf-8") + "I have 3 cats.\tIch habe 3 Katzen.\n", encoding="utf-8")
    cache, out, changes = tmp_path / "cache.sqlite", tmp_path / "ablation.json", tmp_path / "changes.tsv"
    threads = torch.get_num_threads()
    try:
        argv = ["--checkpoint", str(tiny_checkpoint), "--engine", "torch", "--dictionary", "", "--threads", "1",
                "--set", f"dev={data}", "--rule", "verbatim", "--rule", "clock", "--samples", "20",
                "--cache", str(cache), "--json", str(out), "--changes", str(changes)]
        assert ablation.main(argv) == 0
        first = capsys.readouterr().out
        cached = len(ablation.SqliteStore(str(cache)))
        assert ablation.main(argv) == 0          # a second run: every output from the cache
        assert capsys.readouterr().out == first
    finally:
        torch.set_num_threads(threads)
    assert cached >= 41                          # every distinct model input once
    lines = first.splitlines()
    assert lines[0] == "| set | sentences | BLEU / chrF | without verbatim | without clock |"
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert figures["dev"]["sentences"] == 41
    # no clock time in the set: switching the rule off changes nothing, by construction
    assert figures["dev"]["clock"] == {"chrf_delta": 0.0, "p": 1.0, "changed": 0}
    assert lines[2].startswith(f"| dev | 41 | {figures['dev']['bleu']:.2f} / {figures['dev']['chrf']:.2f} | ")
    assert lines[2].endswith("| +0.00 (p 1.000, 0 changed) |")
    changed = [line.split("\t") for line in changes.read_text(encoding="utf-8").splitlines()]
    assert len(changed) == figures["dev"]["verbatim"]["changed"]
    assert all(row[:2] == ["dev", "verbatim"] and row[3] != row[4] for row in changed)
