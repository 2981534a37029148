"""The text pipeline's own work has a budget: any text of the service's 5,000 characters goes
through plan, model stage and assembly in under half a second with the model stubbed (it copies
its input, ``bench.stub_engine``), however the text is shaped (``bench.adversarial``: runs of
one class, alternations, near-matches, nested brackets, directives, camel case). Before the
budget, "⦅" * 5,000 took 20.8 s and "1 " * 2,500 9.7 s in ``segment``'s cutting alone.

The figure is CPU time of this process, the least of two runs on fresh pipelines, so that other
work on the machine does not count; where a family goes over, the fault is an algorithm that
grows faster than the text (a scan per character, a regex per unit), not a slow machine."""

from __future__ import annotations

import time

import pytest

from commands.cli import DEFAULT_CHECKPOINT
from model.inference.translator import Translator
from pipeline.translation import Options, Pipeline
from bench.adversarial import LENGTH, families
from bench.stub_engine import CopyEngine

BUDGET = 0.5   # seconds of CPU for LENGTH characters
FAMILIES = families()

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


@pytest.mark.parametrize("family", FAMILIES)
def test_any_text_of_the_limit_goes_through_the_pipeline_within_the_budget(engine, family):
    text = FAMILIES[family]
    assert len(text) == LENGTH
    assert spent(engine, text) < BUDGET


def test_real_text_is_far_within_it(engine):
    sentence = "Am 12.03.2025 um 14:30 Uhr kostet das Ticket 29,99 € (inkl. MwSt.), siehe www.example.de. "
    text = (sentence * (LENGTH // len(sentence) + 1))[:LENGTH]
    assert spent(engine, text) < BUDGET
