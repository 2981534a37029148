"""A tiny model that has learned placeholders and ALL CAPS: the 40 pairs plus 10 with numbers and
names (tests/data/pairs_spans.tsv, our own sentences), trained with strong augmentation."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import PAIRS40, ROOT

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
    from model.translator import Translator

    return Translator.from_checkpoint(span_checkpoint, device="cpu")
