"""commands.sample: the attributed sample of training pairs behind Random, and the shipped file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from commands import sample
from model.data import capped_split, clean_pairs, corpus_attribution, read_pairs, read_references
from tests.conftest import PAIRS40, ROOT

SHIPPED = ROOT / "checkpoints" / "random-sample.tsv"


def run_sample(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "commands.sample", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.slow
def test_sample_holds_training_sentences_with_all_their_references(tmp_path: Path):
    corpus = tmp_path / "c.tsv"
    # "Ich bin müde." has two references; the grouped split keeps both in one split
    lines = PAIRS40.read_text(encoding="utf-8") + "I'm tired.\tIch bin müde.\nI am tired.\tIch bin müde.\n"
    corpus.write_text(lines, encoding="utf-8")
    out = tmp_path / "s.tsv"
    proc = run_sample("--data", str(corpus), "--out", str(out), "--min-words", "1", "--max-pairs", "1000")
    assert proc.returncode == 0, proc.stderr
    train, dev, test = capped_split(clean_pairs(read_pairs(corpus)), dev_size=2000, test_size=2000, seed=1)
    got = read_pairs(out)
    assert sorted(got) == sorted(train)  # everything fits: the whole training split, nothing held out
    assert not {de for de, _ in got} & {de for de, _ in dev + test}
    assert proc.stdout == f"wrote {len({de for de, _ in train})} German sentences, {len(train)} pairs to {out}\n"
    assert corpus_attribution(out) == sample.TATOEBA_ATTRIBUTION


@pytest.mark.slow
def test_sample_respects_max_pairs_and_min_words(tmp_path: Path):
    out = tmp_path / "s.tsv"
    assert run_sample("--data", str(PAIRS40), "--out", str(out), "--max-pairs", "5", "--min-words", "3",
                      "--attribution", "mine").returncode == 0
    got = read_pairs(out)
    assert len(got) == 5 and all(len(de.split()) >= 3 for de, _ in got)
    assert out.read_text(encoding="utf-8").splitlines()[0].endswith("\tmine")
    again = tmp_path / "again.tsv"
    run_sample("--data", str(PAIRS40), "--out", str(again), "--max-pairs", "5", "--min-words", "3",
               "--attribution", "mine")
    assert again.read_bytes() == out.read_bytes()  # the same seed draws the same sample


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["--max-pairs", "0"], "python -m commands.sample: error: --max-pairs must be >= 1, got 0"),
    (["--attribution", "a\tb"], "python -m commands.sample: error: --attribution must be one non-empty line without "
                                "tabs, got 'a\\tb'"),
    (["--data", "missing.zip"], "python -m commands.sample: error: corpus not found: 'missing.zip'"),
])
def test_sample_errors(tmp_path: Path, args, message):
    proc = run_sample("--data", str(PAIRS40), "--out", str(tmp_path / "s.tsv"), *args)
    assert proc.returncode == 2 and proc.stderr == message + "\n"
    assert not (tmp_path / "s.tsv").exists()


def test_the_shipped_sample():
    lines = SHIPPED.read_text(encoding="utf-8").splitlines()
    assert 4000 <= len(lines) <= 5000
    assert all(line.count("\t") == 2 for line in lines)
    assert corpus_attribution(SHIPPED) == "CC-BY 2.0 (France) Attribution: tatoeba.org, manythings.org/anki"
    sources, references = read_references(SHIPPED)
    assert len(sources) > 4000 and all(len(s.split()) >= 4 for s in sources)
    assert sum(len(r) for r in references) == len(lines)
