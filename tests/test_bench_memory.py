"""bench/memory.py: the PSS each part of the server's start adds, and what aligning adds, on the
tiny checkpoint."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import memory as bench_memory  # noqa: E402


def test_parts_are_the_start_in_its_order(tiny_checkpoint, capsys):
    assert bench_memory.main(["parts", "--checkpoint", str(tiny_checkpoint),
                              "--dictionary", str(ROOT / "tests" / "data" / "ding-sample.txt"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [name for name, _ in result["parts"]] == [
        "import torch, ctranslate2", "import app", "language identifier", "lemmatizer data",
        "Ding index (German)", "de-en engine (ct2)", "de-en first translation"]
    assert result["pss_mib"] > 0


def test_align_reports_every_so_many_calls(tiny_checkpoint, tmp_path, capsys):
    sentences = tmp_path / "sample.tsv"
    sentences.write_text("".join(f"Line {i}.\tZeile {i}.\tCC\n" for i in range(20)), encoding="utf-8")
    assert bench_memory.main(["align", "--checkpoint", str(tiny_checkpoint), "--calls", "3", "--every", "2",
                              "--sentences", str(sentences), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["engine"] == "ct2"
    assert [row["calls"] for row in result["align"]] == [0, 2, 3]
    assert result["align"][0]["ms_per_call"] is None and result["align"][2]["ms_per_call"] > 0
    assert 0 < result["align"][0]["max_rss_mib"] <= result["align"][2]["max_rss_mib"]


def test_align_with_a_fixed_batch(tiny_checkpoint, tmp_path, capsys):
    sentences = tmp_path / "sample.tsv"
    sentences.write_text("".join(f"Line {i}.\tZeile {i}.\tCC\n" for i in range(20)), encoding="utf-8")
    assert bench_memory.main(["align", "--checkpoint", str(tiny_checkpoint), "--calls", "2", "--every", "1",
                              "--batch", "16", "--sentences", str(sentences)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" calls:")[0].strip() for line in lines] == ["0", "1", "2"]
    assert "MiB resident" in lines[2] and lines[2].endswith("ms a call")


@pytest.mark.parametrize("argv, message", [
    (["parts", "--checkpoint", "/nonexistent.pt"], "checkpoint not found: '/nonexistent.pt'"),
    (["parts", "--checkpoint", "README.md", "--reverse", "/nonexistent.pt"], "checkpoint not found: '/nonexistent.pt'"),
    (["align", "--checkpoint", "/nonexistent.pt"], "checkpoint not found: '/nonexistent.pt'"),
])
def test_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        bench_memory.main(argv)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(message)


@pytest.mark.parametrize("flag", ["--calls", "--every", "--batch"])
def test_counts_must_be_positive(tiny_checkpoint, flag, capsys):
    with pytest.raises(SystemExit):
        bench_memory.main(["align", "--checkpoint", str(tiny_checkpoint), flag, "0"])
    assert capsys.readouterr().err.strip().endswith("--calls, --every and --batch must be at least 1")
