"""bench/length_ratio.py: its arguments, and a run on the tiny models, which know their 40 pairs by heart."""

from __future__ import annotations

import json
import sys

import pytest
import torch

from tests.conftest import PAIRS40, ROOT

sys.path.insert(0, str(ROOT / "bench"))
import length_ratio  # noqa: E402

DATA = ["--data", str(PAIRS40)]


@pytest.mark.parametrize(("args", "message"), [
    ([], "give --data CORPUS, or --src FILE with --ref FILE"),
    (["--src", "a.de"], "give --data CORPUS, or --src FILE with --ref FILE"),
    ([*DATA, "--channel-weights", "0"], "--channel-weights needs --channel"),
    ([*DATA, "--wide-beams", "8"], "--wide-beams needs --channel"),
    ([*DATA, "--length-penalties", "1,x"], "--length-penalties must be numbers separated by commas, got '1,x'"),
    ([*DATA, "--length-penalties", "-1"], "--length-penalties must be numbers >= 0, got '-1'"),
    ([*DATA, "--beams", "0"], "--beams must be integers >= 1, got '0'"),
    ([*DATA, "--beams", "2.5"], "--beams must be integers >= 0, got '2.5'"),
    ([*DATA, "--max-pieces", "4"], "--max-pieces must be integers >= 8, got '4'"),
    ([*DATA, "--limit", "0"], "--limit must be >= 1, got 0"),
    ([*DATA, "--skip", "40"], "--skip 40 leaves no sources"),   # the 40 pairs' 40 sources
])
def test_bad_arguments_give_one_line_errors(capsys, args, message):
    assert length_ratio.main(args) == 2
    assert capsys.readouterr().err == f"bench/length_ratio.py: error: {message}\n"


def test_the_ratio_is_bleus_output_over_reference_tokens():
    assert length_ratio.summary(["a b c", "d"], [["a b c d", "d e"]])["ratio"] == round(4 / 6, 3)
    assert length_ratio.summary(["a b", "c d"], [["a b", "c d"]])["ratio"] == 1.0


def test_a_run_on_the_tiny_models(capsys, tiny_checkpoint, reverse_checkpoint):
    threads = torch.get_num_threads()
    try:
        status = length_ratio.main(["--checkpoint", str(tiny_checkpoint), "--channel", str(reverse_checkpoint),
                                    "--engine", "torch", "--dictionary", "", *DATA, "--limit", "6", "--threads", "1",
                                    "--length-penalties", "0,2", "--beams", "1", "--max-pieces", "8",
                                    "--channel-weights", "0", "--wide-beams", "0", "--coverage-weights", "0", "--gap-words", "2",
                                    "--raw", "--json"])
    finally:
        torch.set_num_threads(threads)
    assert status == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["point"] for row in rows] == [
        "served", "length penalty 0", "length penalty 2", "beam 1", "max pieces 8", "channel weight 0",
        "wide beam 0", "coverage weight 0", "gap words 2", "bare engine"]
    # The tiny model knows its pairs: served, every output is its reference, whatever the search.
    assert rows[0] == {**rows[0], "chrf": 100.0, "bleu": 100.0, "ratio": 1.0, "changed": 0, "p": None}
    for row in rows[1:4] + rows[5:]:
        assert (row["chrf"], row["ratio"], row["changed"], row["p"]) == (100.0, 1.0, 0, None), row
    # Cut at its clauses from 8 pieces on, a longer source is translated in parts the tiny model
    # never saw alone: those outputs change, for the worse.
    assert rows[4]["chrf"] < 100.0 and rows[4]["changed"] >= 1 and 0 < rows[4]["p"] <= 0.05
    assert all(isinstance(row["ms"], float) and row["ms"] > 0 for row in rows)


def test_the_table(capsys, tiny_checkpoint):
    threads = torch.get_num_threads()
    try:
        assert length_ratio.main(["--checkpoint", str(tiny_checkpoint), "--engine", "torch", "--dictionary", "",
                                  *DATA, "--limit", "3", "--threads", "1", "--beams", "2"]) == 0
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["bench/length_ratio.py: 3 sources, one a call",
                       "point                    chrF   BLEU  ratio  changed       p      ms"]
    assert [line.split()[:-1] for line in out[2:]] == [["served", "100.00", "100.00", "1.000", "0", "-"],
                                                       ["beam", "2", "100.00", "100.00", "1.000", "0", "-"]]
