"""commands.sample: the attributed samples behind Random, of training pairs and of held-out test
pairs, and the shipped files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from commands import sample
from model.data import capped_split, clean_pairs, corpus_attribution, read_pairs, read_references
from tests.conftest import PAIRS40, ROOT

SHIPPED = ROOT / "checkpoints" / "random-sample.tsv"
SHIPPED_HELD_OUT = ROOT / "checkpoints" / "random-held-out.tsv"
# The corpus every release trained on (deu-eng.zip): where it is given, the shipped samples are
# written again from it and compared byte for byte (the split is the releases' own)
TATOEBA = os.environ.get("TATOEBA")


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
    assert proc.stdout == (f"wrote {len({de for de, _ in train})} German sentences, {len(train)} pairs of the train "
                           f"split to {out}\n")
    assert corpus_attribution(out) == sample.TATOEBA_ATTRIBUTION


@pytest.mark.slow
def test_a_held_out_sample_holds_test_sentences_only_with_all_their_references(tmp_path: Path):
    corpus = tmp_path / "c.tsv"
    # our own pairs: 60 German sentences of 4+ words, some with two references each
    lines = [f"Sentence number {i} is here.\tDas ist der Satz Nummer {i}.\n" for i in range(60)]
    lines += [f"This is sentence number {i}.\tDas ist der Satz Nummer {i}.\n" for i in range(0, 60, 3)]
    corpus.write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "held-out.tsv"
    proc = run_sample("--data", str(corpus), "--out", str(out), "--split", "test", "--max-pairs", "1000")
    assert proc.returncode == 0, proc.stderr
    train, dev, test = capped_split(clean_pairs(read_pairs(corpus)), dev_size=2000, test_size=2000, seed=1)
    got = read_pairs(out)
    assert sorted(got) == sorted(test)  # everything fits: the whole test split, every reference of each sentence
    assert any(len([en for de2, en in got if de2 == de]) == 2 for de, _ in got)
    assert not {side for pair in got for side in pair} & {side for pair in train + dev for side in pair}
    assert proc.stdout == (f"wrote {len({de for de, _ in test})} German sentences, {len(test)} pairs of the test split "
                           f"to {out}\n")
    capped = tmp_path / "capped.tsv"
    assert run_sample("--data", str(corpus), "--out", str(capped), "--split", "test", "--max-pairs", "3").returncode == 0
    assert len(read_pairs(capped)) <= 3 and set(read_pairs(capped)) <= set(test)


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
    (["--split", "dev"], "python -m commands.sample: error: argument --split: invalid choice: 'dev' "
                         "(choose from 'train', 'test')"),
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


def test_the_shipped_held_out_sample_shares_no_sentence_with_the_training_sample():
    lines = SHIPPED_HELD_OUT.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 300 and all(line.count("\t") == 2 for line in lines)
    assert corpus_attribution(SHIPPED_HELD_OUT) == "CC-BY 2.0 (France) Attribution: tatoeba.org, manythings.org/anki"
    sources, references = read_references(SHIPPED_HELD_OUT)
    assert len(sources) == 285 and all(len(s.split()) >= 4 for s in sources)
    assert sum(len(r) for r in references) == 300
    trained = read_pairs(SHIPPED)
    held_out = read_pairs(SHIPPED_HELD_OUT)
    assert not {de for de, _ in held_out} & {de for de, _ in trained}
    assert not {en for _, en in held_out} & {en for _, en in trained}


@pytest.mark.slow
@pytest.mark.skipif(not TATOEBA, reason="set TATOEBA to deu-eng.zip, the corpus every release trained on")
def test_the_shipped_samples_are_the_release_split_s_training_and_test_pairs(tmp_path: Path):
    pairs = clean_pairs(read_pairs(TATOEBA))
    train, dev, test = capped_split(pairs, dev_size=2000, test_size=2000, seed=1)
    # the releases' split (MODEL_CARD.md): 159,003 training pairs, a test split of 1,856 German sentences
    assert (len(train), len(dev), len(test), len({de for de, _ in test})) == (159_003, 2000, 2001, 1856)
    assert set(read_pairs(SHIPPED)) <= set(train)
    held_out = read_pairs(SHIPPED_HELD_OUT)
    assert set(held_out) <= set(test)
    test_references = {de: {en for de2, en in test if de2 == de} for de, _ in held_out}
    assert all({en for de2, en in held_out if de2 == de} == refs for de, refs in test_references.items())
    for shipped, args in ((SHIPPED, []), (SHIPPED_HELD_OUT, ["--split", "test", "--max-pairs", "300"])):
        out = tmp_path / shipped.name
        assert run_sample("--data", TATOEBA, "--out", str(out), *args).returncode == 0
        assert out.read_bytes() == shipped.read_bytes()
