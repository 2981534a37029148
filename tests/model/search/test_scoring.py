"""model/search/scoring.py: teacher_force's per-piece and EOS log-probabilities, worked out by hand
on the pinned model of test_decoding.py (its logits are the same at every step); cross_attention
against the one-sentence capture of the attention view, on the tiny model."""

from __future__ import annotations

import math

import pytest
import torch

from model.network.tokenizer import EOS_ID
from model.search.scoring import capture_attention, cross_attention, teacher_force
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


# ------------------------------------------------------------------------ cross_attention

@pytest.fixture(scope="module")
def translator(tiny_checkpoint):
    from model.inference.translator import Translator

    return Translator.from_checkpoint(tiny_checkpoint, device="cpu")


def test_batched_cross_attention_equals_one_sentence_capture(translator):
    tok = translator.tokenizer
    src = [tok.encode(t) for t in ("Guten Morgen.", "Das Buch liegt auf dem Tisch.", "Es regnet.")]
    out = [tok.encode(t) for t in ("Good morning.", "The book is on the table.", "It is raining.")]
    batched = cross_attention(translator.model, src, out, batch_size=2)  # padding in both batches
    for s, o, got in zip(src, out, batched):
        single = torch.stack([w[0] for w in capture_attention(translator.model, s, o).cross])  # (L, H, T, S)
        assert got.shape == (2, 4, len(o) + 1, len(s) + 1)
        assert torch.allclose(got, single.float(), atol=1e-5)


def test_cross_attention_computes_no_logits(translator, monkeypatch):
    """Alignment reads the attention alone: the output projection, (B, T, V), is never run."""
    model = translator.model

    def refuse(h):
        raise AssertionError(f"projected {tuple(h.shape)!r}")

    monkeypatch.setattr(model, "project", refuse)
    tok = translator.tokenizer
    got = cross_attention(model, [tok.encode("Es regnet.")], [tok.encode("It is raining.")])
    assert got[0].shape == (2, 4, len(tok.encode("It is raining.")) + 1, len(tok.encode("Es regnet.")) + 1)
    with pytest.raises(AssertionError, match="projected"):
        teacher_force(model, [tok.encode("Es regnet.")], [tok.encode("It is raining.")])


@pytest.mark.parametrize("src, out, batch_size, message", [
    ([[5]], [], 8, "1 sources but 0 outputs"),
    ([[5]], [[7]], 0, "batch_size must be >= 1, got 0"),
])
def test_cross_attention_refuses(translator, src, out, batch_size, message):
    with pytest.raises(ValueError, match=message):
        cross_attention(translator.model, src, out, batch_size=batch_size)
