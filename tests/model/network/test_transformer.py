"""The model itself: config, shapes, masks, incremental decoding and beam search."""

from __future__ import annotations

import pytest
import torch

from model.network.batch import Batch, causal_mask, padding_mask
from model.network.config import PRESETS, ModelConfig, preset
from model.search.decoding import beam_search, greedy_search
from model.search.options import SearchOptions
from model.search.scoring import capture_attention
from model.network.tokenizer import PAD_ID
from model.network.transformer import AttentionWeights, Transformer

CFG = ModelConfig(vocab_size=50, d_model=32, n_heads=4, d_ff=64, encoder_layers=2, decoder_layers=3,
                  dropout=0.0, max_len=64)
SRC = [[5, 6, 7, 8, 9], [10, 11], [12, 13, 14]]
TGT = [[20, 21, 22], [23], [24, 25, 26, 27, 28]]


@pytest.fixture
def model() -> Transformer:
    torch.manual_seed(0)
    return Transformer(CFG).eval()


@pytest.fixture
def peaked_model() -> Transformer:
    """Random weights with sharp output distributions, so searches make real choices and stop."""
    torch.manual_seed(3)
    m = Transformer(CFG).eval()
    with torch.no_grad():
        m.embed.weight.mul_(8.0)
    return m


def test_presets_sizes():
    assert 0.8e6 <= Transformer(preset("tiny").replace(vocab_size=1000)).num_parameters() <= 1.2e6
    assert 8e6 <= Transformer(preset("small")).num_parameters() <= 10e6
    assert PRESETS["base"].d_model == 512 and PRESETS["base"].encoder_layers == 6


@pytest.mark.parametrize("changes, message", [
    ({"d_model": 30}, "d_model 30 is not divisible by n_heads 4"),
    ({"encoder_layers": 0}, "encoder_layers must be a positive integer, got 0"),
    ({"dropout": 1.0}, "dropout must be in [0, 1), got 1.0"),
])
def test_config_rejects_bad_values(changes, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        CFG.replace(**changes)


def test_config_round_trip():
    assert ModelConfig.from_dict(CFG.to_dict()) == CFG
    with pytest.raises(ValueError, match="unknown model config keys"):
        ModelConfig.from_dict({**CFG.to_dict(), "colour": "red"})


def test_preset_unknown():
    with pytest.raises(ValueError, match="unknown preset 'huge'"):
        preset("huge")


def test_forward_shapes(model):
    b = Batch.make(SRC, TGT)
    logits = model(b.src, b.src_mask, b.tgt_in, b.tgt_mask)
    assert logits.shape == (3, 6, CFG.vocab_size)
    memory = model.encode(b.src, b.src_mask)
    assert memory.shape == (3, 6, CFG.d_model)


def test_padding_does_not_change_outputs(model):
    """A sentence's logits are the same alone and padded inside a batch: masks hide padding."""
    b = Batch.make(SRC, TGT)
    full = model(b.src, b.src_mask, b.tgt_in, b.tgt_mask)
    alone = Batch.make(SRC[1:2], TGT[1:2])
    single = model(alone.src, alone.src_mask, alone.tgt_in, alone.tgt_mask)
    torch.testing.assert_close(full[1, :2], single[0], atol=1e-5, rtol=1e-5)


def test_attention_weights_respect_masks(model):
    b = Batch.make(SRC, TGT)
    att = AttentionWeights()
    memory = model.encode(b.src, b.src_mask, attention=att)
    model.decode(b.tgt_in, memory, b.src_mask, b.tgt_mask, attention=att)
    assert len(att.encoder) == 2 and len(att.decoder) == 3 and len(att.cross) == 3
    src_pad = ~padding_mask(b.src)  # (B, 1, 1, S)
    for w in att.encoder + att.cross:
        assert torch.all(w.masked_select(src_pad.expand_as(w)) == 0), "weight on source padding"
        torch.testing.assert_close(w.sum(-1), torch.ones_like(w.sum(-1)))
    future = ~causal_mask(b.tgt_in.size(1))  # (1, 1, T, T)
    real_rows = (b.tgt_in != PAD_ID)[:, None, :, None]  # (B, 1, T, 1)
    tgt_pad = ~padding_mask(b.tgt_in)
    for w in att.decoder:
        assert torch.all(w.masked_select(future.expand_as(w)) == 0), "weight on a future position"
        on_pad = (tgt_pad & real_rows).expand_as(w)
        assert torch.all(w.masked_select(on_pad) == 0), "weight on target padding"
    assert att.encoder[0].shape == (3, 4, 6, 6) and att.cross[0].shape == (3, 4, 6, 6)


def test_fast_and_explicit_attention_agree(model):
    """The SDPA path (no weights) and the explicit softmax path compute the same function."""
    b = Batch.make(SRC, TGT)
    fast = model(b.src, b.src_mask, b.tgt_in, b.tgt_mask)
    memory = model.encode(b.src, b.src_mask, attention=AttentionWeights())
    slow = model.decode(b.tgt_in, memory, b.src_mask, b.tgt_mask, attention=AttentionWeights())
    torch.testing.assert_close(fast, slow, atol=1e-5, rtol=1e-5)


def test_cached_decoding_matches_full_recomputation(model):
    b = Batch.make(SRC, TGT)
    memory = model.encode(b.src, b.src_mask)
    full = model.decode(b.tgt_in, memory, b.src_mask, b.tgt_mask)  # (B, T, V)
    cache = model.new_cache()
    steps = [model.decode(b.tgt_in[:, t:t + 1], memory, b.src_mask, cache=cache) for t in range(b.tgt_in.size(1))]
    stepped = torch.cat(steps, dim=1)
    real = b.tgt_in != PAD_ID
    torch.testing.assert_close(stepped[real], full[real], atol=1e-5, rtol=1e-5)


def test_decode_without_mask_needs_cache(model):
    b = Batch.make(SRC, TGT)
    memory = model.encode(b.src, b.src_mask)
    with pytest.raises(ValueError, match="tgt_mask is required"):
        model.decode(b.tgt_in, memory, b.src_mask)


@pytest.mark.parametrize("search", ["greedy", "beam"])
def test_cached_search_equals_uncached(peaked_model, search):
    b = Batch.make(SRC, None)
    if search == "greedy":
        cached = greedy_search(peaked_model, b, use_cache=True)
        plain = greedy_search(peaked_model, b, use_cache=False)
    else:
        every = SearchOptions(beam_size=4, n_best=4)
        cached = [[h.tokens for h in hs] for hs in beam_search(peaked_model, b, every)]
        plain = [[h.tokens for h in hs] for hs in beam_search(peaked_model, b, every, use_cache=False)]
    assert cached == plain
    assert any(len(c) > 0 for c in cached)


def test_beam_one_equals_greedy(peaked_model):
    b = Batch.make(SRC, None)
    greedy = greedy_search(peaked_model, b)
    beam = [hs[0].tokens for hs in beam_search(peaked_model, b, SearchOptions(beam_size=1))]
    assert beam == greedy


def test_beam_n_best_sorted_and_distinct(peaked_model):
    hyps = beam_search(peaked_model, Batch.make(SRC, None), SearchOptions(beam_size=5, n_best=3))
    for sent in hyps:
        assert len(sent) == 3
        scores = [h.score for h in sent]
        assert scores == sorted(scores, reverse=True)
        assert len({tuple(h.tokens) for h in sent}) == 3


def test_max_length_is_relative_to_source(model):
    """An untrained model rarely stops; the budget a*|src|+b (EOS included) caps it."""
    b = Batch.make([[5, 6, 7, 8, 9, 10, 11, 12, 13]], None)  # 9 pieces + EOS = 10
    out = greedy_search(model, b, SearchOptions(max_len_a=1.0, max_len_b=2))
    assert len(out[0]) <= 11  # 12 tokens with EOS
    beams = beam_search(model, b, SearchOptions(beam_size=3, max_len_a=1.0, max_len_b=2))
    assert len(beams[0][0].tokens) <= 11


def test_capture_attention_shapes(peaked_model):
    out = greedy_search(peaked_model, Batch.make(SRC[:1], None))[0]
    att = capture_attention(peaked_model, SRC[0], out)
    S, T = len(SRC[0]) + 1, len(out) + 1
    assert [w.shape for w in att.encoder] == [(1, 4, S, S)] * 2
    assert [w.shape for w in att.decoder] == [(1, 4, T, T)] * 3
    assert [w.shape for w in att.cross] == [(1, 4, T, S)] * 3


def test_post_norm_variant_runs():
    torch.manual_seed(0)
    m = Transformer(CFG.replace(pre_norm=False)).eval()
    b = Batch.make(SRC, TGT)
    assert m(b.src, b.src_mask, b.tgt_in, b.tgt_mask).shape == (3, 6, CFG.vocab_size)


def test_embeddings_tied_and_scaled(model):
    assert model.embed.weight.abs().sum(dim=1)[PAD_ID] == 0
    h = torch.randn(1, 1, CFG.d_model)
    torch.testing.assert_close(model.project(h), h @ model.embed.weight.t())
    assert sum(p.numel() for n, p in model.named_parameters() if "embed" in n) == CFG.vocab_size * CFG.d_model
