"""bench/multi30k.py end to end on a stand-in corpus (the 40 test pairs as train, val and test)."""

from __future__ import annotations

import gzip
import json
import re
import subprocess

import pytest

from tests.conftest import run_script

pytestmark = pytest.mark.slow  # bench/multi30k.py trains and scores in a subprocess


def run_bench(args: list[str]) -> subprocess.CompletedProcess:
    return run_script("bench/multi30k.py", args)


@pytest.fixture
def fake_multi30k(tmp_path, pairs40):
    folder = tmp_path / "m30k"
    folder.mkdir()
    for split in ("train", "val", "test_2016_flickr"):
        for lang, side in (("de", 0), ("en", 1)):
            with gzip.open(folder / f"{split}.{lang}.gz", "wt", encoding="utf-8") as f:
                f.writelines(pair[side] + "\n" for pair in pairs40)
    return folder


def test_trains_selects_and_scores(tmp_path, fake_multi30k):
    out, report = tmp_path / "run", tmp_path / "m30k.json"
    # 140 pieces: the 40 placeholder symbols, and 100 for the text
    proc = run_bench(["--data-dir", str(fake_multi30k), "--out", str(out), "--json", str(report), "--",
                      "--preset", "tiny", "--vocab-size", "140", "--max-steps", "150", "--warmup", "50", "--lr", "2e-3",
                      "--dropout", "0.1", "--max-tokens", "1024", "--eval-every", "50", "--save-every", "50"])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("Multi30k test_2016_flickr (40 sentences), tiny preset, ")
    assert lines[1].split() == ["decoding", "cased", "BLEU", "tok-lc", "BLEU", "sent/s"]
    assert re.fullmatch(r"greedy +\d+\.\d\d +\d+\.\d\d +\d+\.\d", lines[2])
    assert re.fullmatch(r"beam 4 +\d+\.\d\d +\d+\.\d\d +\d+\.\d", lines[3])
    assert lines[4].startswith("signatures: nrefs:1|case:mixed|eff:no|tok:13a") and "case:lc" in lines[4]
    result = json.loads(report.read_text())
    assert result["step"] in (50, 100, 150)
    assert result["train_minutes"] > 0 and " min of training; model: " in lines[0]
    assert set(result["val_bleu"]) == {"best.pt", "average of 3 (steps 50-150)"}
    # the tiny model learns the 40 pairs by heart, so the chosen model must score high on them
    assert result["test"]["greedy"]["bleu"] > 80 and result["test"]["beam 4"]["bleu_tok_lc"] > 80
    assert "val BLEU (beam 4) of best.pt" in proc.stderr


@pytest.mark.parametrize("args, message", [
    ([], "bench/multi30k.py: error: give --data-dir DIR or set MULTI30K_DIR"),
    (["--data-dir", "nowhere"], "bench/multi30k.py: error: train.de.gz not found in --data-dir 'nowhere'"),
])
def test_missing_data_is_one_line(args, message, monkeypatch):
    monkeypatch.delenv("MULTI30K_DIR", raising=False)
    proc = run_bench(args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines()[-1] == message
