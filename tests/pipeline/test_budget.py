"""The text pipeline's own work has a budget: any text of the service's 5,000 characters goes
through plan, model stage and assembly with the model stubbed (it copies its input,
``bench.stub_engine``) in at most RATIO times what ordinary text of that length costs, however the
text is shaped (``bench.adversarial``: runs of one class, alternations, near-matches, nested
brackets, directives, camel case). Before the budget, "⦅" * 5,000 took 20.8 s and "1 " * 2,500
9.7 s in ``segment``'s cutting alone, some 200 times ordinary text.

The figures are CPU time of this process, the least of two runs on fresh pipelines, and the budget
is a ratio to ordinary text measured beside them, so that neither other work on the machine nor a
slower machine counts; where a family goes over, the fault is an algorithm that grows faster than
the text (a scan per character, a regex per unit). Absolute times: bench/README.md."""

from __future__ import annotations

import time

import pytest

from commands.cli import DEFAULT_CHECKPOINT
from model.inference.translator import Translator
from pipeline.translation import Options, Pipeline
from bench.adversarial import LENGTH, families
from bench.stub_engine import CopyEngine

RATIO = 12   # the worst family costs about 4 times ordinary text
FAMILIES = families()
ORDINARY = "Am 12.03.2025 um 14:30 Uhr kostet das Ticket 29,99 € (inkl. MwSt.), siehe www.example.de. "

pytestmark = pytest.mark.slow   # loads the release checkpoint


@pytest.fixture(scope="module")
def engine():
    return CopyEngine(Translator.from_checkpoint(DEFAULT_CHECKPOINT, device="cpu"))


def spent(engine, text: str) -> float:
    times = []
    for _ in range(2):
        pipeline = Pipeline(engine, Options())
        start = time.process_time()
        output = pipeline.translate([text])[0]
        times.append(time.process_time() - start)
        assert output.strip() or not text.strip()
    return min(times)


@pytest.fixture(scope="module")
def ordinary(engine) -> float:
    """CPU seconds for LENGTH characters of ordinary text: dates, times, prices, a URL."""
    return spent(engine, (ORDINARY * (LENGTH // len(ORDINARY) + 1))[:LENGTH])


@pytest.mark.parametrize("family", FAMILIES)
def test_any_text_of_the_limit_goes_through_the_pipeline_within_the_budget(engine, ordinary, family):
    text = FAMILIES[family]
    assert len(text) == LENGTH
    assert (cost := spent(engine, text)) < RATIO * ordinary, (cost, ordinary)
