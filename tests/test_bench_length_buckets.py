"""bench/length_buckets.py: scores per source length, on the 40 test pairs and the tiny model's vocabulary."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import length_buckets  # noqa: E402


def test_buckets_count_pieces_and_score_each_hypothesis_file(tiny_checkpoint, pairs40, corpus_path, tmp_path, capsys):
    from model.inference.translator import Translator

    tokenizer = Translator.from_checkpoint(tiny_checkpoint, "cpu").tokenizer
    lengths = [len(tokenizer.encode(de)) for de, _ in pairs40]
    edges = sorted(set(lengths))[1:3]              # three buckets, none empty
    perfect, empty = tmp_path / "perfect.en", tmp_path / "empty.en"
    perfect.write_text("".join(en + "\n" for _, en in pairs40), encoding="utf-8")
    empty.write_text("\n" * len(pairs40), encoding="utf-8")
    assert length_buckets.main(["--checkpoint", str(tiny_checkpoint), "--data", str(corpus_path), "--hyp",
                                f"ref={perfect}", "--hyp", f"none={empty}", "--edges",
                                ",".join(map(str, edges))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["pieces", "sources", "ref", "chrF", "ref", "BLEU", "none", "chrF", "none", "BLEU"]
    counts = [sum(length_buckets.bucket_of(n, edges) == k for n in lengths) for k in range(3)]
    names = length_buckets.bucket_names(edges)
    assert [line.split() for line in lines[1:]] == [
        [name, str(count), "100.00", "100.00", "0.00", "0.00"] for name, count in zip(names + ["all"], counts + [40])]


def test_bucket_names_and_membership():
    assert length_buckets.bucket_names([15, 30, 60]) == ["1-14", "15-29", "30-59", "60+"]
    assert [length_buckets.bucket_of(n, [15, 30, 60]) for n in (1, 14, 15, 29, 30, 59, 60, 500)] == [0, 0, 1, 1, 2, 2, 3, 3]


@pytest.mark.slow  # a subprocess each
@pytest.mark.parametrize("args, message", [
    (["--hyp", "a=b"], "give --data CORPUS, or --src FILE with --ref FILE"),
    (["--data", "x.tsv", "--hyp", "nofile"], "--hyp must be NAME=FILE, got 'nofile'"),
    (["--data", "x.tsv", "--hyp", "a=b", "--edges", "ten"], "--edges must be integers separated by commas, got 'ten'"),
    (["--data", "x.tsv", "--hyp", "a=b", "--edges", "0,5"], "--edges must be integers >= 1, got [0, 5]"),
])
def test_bad_arguments_give_one_line_errors(args, message):
    proc = subprocess.run([sys.executable, "bench/length_buckets.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == f"bench/length_buckets.py: error: {message}"


@pytest.mark.slow
def test_a_hypothesis_file_of_another_length_is_one_line(corpus_path, tmp_path):
    short = tmp_path / "short.en"
    short.write_text("Hello.\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "bench/length_buckets.py", "--data", str(corpus_path), "--hyp",
                           f"a={short}"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"bench/length_buckets.py: error: --hyp {str(short)!r} has 1 lines for 40 sources"]
