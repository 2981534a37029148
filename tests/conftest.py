"""Fixtures shared by every test: the 40-pair corpus and a tiny model trained on it once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAIRS40 = ROOT / "tests" / "data" / "pairs40.tsv"

# Enough steps for the tiny preset to learn all 40 pairs by heart (dev BLEU 100 from step ~100).
TINY_ARGS = ["--preset", "tiny", "--max-steps", "150", "--warmup", "50", "--lr", "2e-3",
             "--eval-every", "150", "--max-tokens", "1024", "--save-every", "150", "--seed", "1", "--no-progress"]


def read_pairs40() -> list[tuple[str, str]]:
    """(german, english) pairs of the test corpus, in file order."""
    lines = PAIRS40.read_text(encoding="utf-8").splitlines()
    return [(de, en) for en, de in (line.split("\t") for line in lines)]


@pytest.fixture(scope="session")
def corpus_path() -> Path:
    return PAIRS40


@pytest.fixture(scope="session")
def pairs40() -> list[tuple[str, str]]:
    return read_pairs40()


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    """Run directory of a tiny model trained on the 40 pairs (train = dev = all 40)."""
    import train

    out = tmp_path_factory.mktemp("tiny_run")
    assert train.main(["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), *TINY_ARGS]) == 0
    return out


@pytest.fixture(scope="session")
def tiny_checkpoint(tiny_run) -> Path:
    return tiny_run / "best.pt"
