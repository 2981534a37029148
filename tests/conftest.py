"""Fixtures shared by every test: the 40-pair corpus and a tiny model trained on it once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAIRS40 = ROOT / "tests" / "data" / "pairs40.tsv"

# Enough steps for the tiny preset to learn all 40 pairs by heart (dev BLEU 100 from step ~100).
TINY_ARGS = ["--preset", "tiny", "--max-steps", "150", "--warmup", "50", "--lr", "2e-3",
             "--eval-every", "150", "--max-tokens", "1024", "--save-every", "150", "--seed", "1", "--no-progress",
             "--no-lexicon"]  # it learns its 40 pairs by heart, "Anna" and "Berlin" included


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


@pytest.fixture(scope="session")
def legacy_checkpoint(tmp_path_factory) -> Path:
    """The tiny model trained with --no-placeholders: a vocabulary without placeholder symbols, as in
    checkpoints made before the text pipeline existed, for the pipeline's fallback path."""
    import train

    out = tmp_path_factory.mktemp("legacy_run")
    args = ["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), *TINY_ARGS, "--no-placeholders"]
    assert train.main(args) == 0
    return out / "best.pt"


# A tiny model that has learned placeholders and ALL CAPS: the 40 pairs plus 10 with numbers and
# names (tests/data/pairs_spans.tsv, our own sentences), trained with strong augmentation. Here, not
# in tests/pipeline/, so that the app's tests share the one session-wide training run.
PAIRS_SPANS = ROOT / "tests" / "data" / "pairs_spans.tsv"
# Every name masked, a third of the pairs with a synthetic placeholder or upper-cased.
SPAN_AUGMENTATION = ["--placeholder-names", "1", "--placeholder-synthetic", "0.3", "--upper-share", "0.3",
                     "--title-share", "0", "--seed", "1"]
SPAN_ARGS = ["--preset", "tiny", "--max-steps", "300", "--warmup", "50", "--lr", "2e-3", "--eval-every", "300",
             "--max-tokens", "1024", "--save-every", "300", "--no-progress", *SPAN_AUGMENTATION]


@pytest.fixture(scope="session")
def span_corpus(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("span_corpus") / "pairs50.tsv"
    path.write_text(PAIRS40.read_text(encoding="utf-8") + PAIRS_SPANS.read_text(encoding="utf-8"), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def span_checkpoint(tmp_path_factory, span_corpus) -> Path:
    import train

    out = tmp_path_factory.mktemp("span_run")
    assert train.main(["--data", str(span_corpus), "--valid", str(span_corpus), "--out", str(out), *SPAN_ARGS]) == 0
    return out / "best.pt"


@pytest.fixture(scope="session")
def span_translator(span_checkpoint):
    from model.inference.translator import Translator

    return Translator.from_checkpoint(span_checkpoint, device="cpu")


@pytest.fixture(scope="session")
def release_pipeline():
    """The release model (checkpoints/de-en.pt) on the CTranslate2 engine, as the app serves it."""
    from model.cli import DEFAULT_CHECKPOINT
    from model.inference.engines import load_engine
    from pipeline.translation import Options, Pipeline

    return Pipeline(load_engine(DEFAULT_CHECKPOINT, engine="ct2", device="cpu"), Options(beam_size=4))
