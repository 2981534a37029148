"""model/search/scoring.py: teacher_force's per-piece and EOS log-probabilities, worked out by hand
on the pinned model of test_decoding.py (its logits are the same at every step)."""

from __future__ import annotations

import math

import pytest

from model.network.tokenizer import EOS_ID
from model.search.scoring import teacher_force
from tests.model.search.test_decoding import CFG, pinned_model

PREFERENCE = [EOS_ID, 7, 8, 9]  # logits 10, 8.5, 7, 5.5; every other piece -20, PAD and BOS never


def logp(piece: int) -> float:
    """log P(piece) under pinned_model(PREFERENCE), by hand."""
    logits = {p: 10.0 - 1.5 * rank for rank, p in enumerate(PREFERENCE)}
    others = CFG.vocab_size - len(logits) - 2  # PAD and BOS are left out before normalizing
    log_z = math.log(sum(math.exp(v) for v in logits.values()) + others * math.exp(-20.0))
    return logits.get(piece, -20.0) - log_z


def test_each_piece_and_the_eos_after_the_output():
    forced = teacher_force(pinned_model(PREFERENCE), [[5, 6], [5]], [[7, 9, 12], []])
    assert [f.logprobs for f in forced][0] == pytest.approx([logp(7), logp(9), logp(12)], rel=1e-6)
    assert forced[1].logprobs == []
    assert [f.eos for f in forced] == pytest.approx([logp(EOS_ID)] * 2, rel=1e-6)
