"""Decoding safeguards: minimum output length and n-gram blocking, in greedy and beam search.

Most tests use a real Transformer whose output is pinned: its final decoder LayerNorm has zero
gain and a one-hot bias, so every position's hidden state is e_0 and, through the tied output
projection, its logits are column 0 of the embedding, whatever the source and prefix. Exact
outputs can then be worked out by hand.
"""

from __future__ import annotations

import itertools
import random

import pytest
import torch

from model.network.batch import Batch
from model.network.config import ModelConfig
from model.search.decoding import _block_ngrams, beam_search, greedy_search
from model.search.options import SearchOptions
from model.network.tokenizer import EOS_ID
from model.network.transformer import Transformer

CFG = ModelConfig(vocab_size=24, d_model=16, n_heads=2, d_ff=32, encoder_layers=1, decoder_layers=1,
                  dropout=0.0, max_len=64)
# Budgets with SearchOptions' max_len_a=1.5, max_len_b=10 (EOS included): int(1.5 * (n + 1) + 10)
# = 14, 20 and 13 tokens, i.e. at most 13, 19 and 12 output pieces.
SRC = [[5, 6], [5, 6, 7, 8, 9, 10], [5]]
CAP = [13, 19, 12]


def pinned_model(preference: list[int], vocab_size: int = CFG.vocab_size) -> Transformer:
    """A Transformer whose next-token logits never change: ``preference`` best first, then the rest."""
    torch.manual_seed(0)
    m = Transformer(CFG.replace(vocab_size=vocab_size)).eval()
    logits = torch.full((vocab_size,), -20.0)
    for rank, token in enumerate(preference):
        logits[token] = 10.0 - 1.5 * rank  # gaps of 1.5: no ties anywhere in beam search
    with torch.no_grad():
        m.decoder_norm.weight.zero_()
        m.decoder_norm.bias.zero_()
        m.decoder_norm.bias[0] = 1.0
        m.embed.weight[:, 0] = logits
    return m


@pytest.fixture
def loop_model() -> Transformer:
    """Prefers 7, then 8, 9, ..., 20, and EOS only after those: it loops on 7 until stopped."""
    return pinned_model(list(range(7, 21)) + [EOS_ID])


@pytest.fixture
def eos_model() -> Transformer:
    """Prefers EOS, then 7, 8, 9: left alone it returns empty translations."""
    return pinned_model([EOS_ID, 7, 8, 9])


@pytest.fixture
def random_model() -> Transformer:
    """Random weights with sharp outputs (as in test_transformer.py), so outputs depend on the prefix."""
    torch.manual_seed(4)
    m = Transformer(CFG.replace(vocab_size=50, decoder_layers=2)).eval()
    with torch.no_grad():
        m.embed.weight.mul_(8.0)
    return m


def bigram_blocked(length: int) -> list[int]:
    """loop_model's greedy output with n = 2: 7 7 8 7 9 7 10 ..., cut to ``length`` pieces.

    7 7 is the only 7-bigram allowed; after each later 7, every token that already followed a 7
    is banned, so the next best unused one comes."""
    out, fresh = [7, 7], 8
    while len(out) < length:
        out += [fresh, 7]
        fresh += 1
    return out[:length]


def greedy(model, batch, use_cache: bool = True, **knobs) -> list[list[int]]:
    return greedy_search(model, batch, SearchOptions(**knobs), use_cache=use_cache)


def beams(model, batch, use_cache: bool = True, **knobs) -> list[list[list[int]]]:
    """Beam search's hypotheses, with the knobs of ``SearchOptions`` (beam size 4 unless given)."""
    options = SearchOptions(**{"beam_size": 4, **knobs})
    return [[h.tokens for h in hyps] for hyps in beam_search(model, batch, options, use_cache=use_cache)]


def has_repeat(tokens: list[int], n: int) -> bool:
    grams = [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]
    return len(grams) != len(set(grams))


# --- minimum length -----------------------------------------------------------------------------

def test_greedy_min_len(eos_model):
    b = Batch.make(SRC, None)
    assert greedy(eos_model, b, min_len=0) == [[], [], []]
    assert greedy(eos_model, b) == [[7], [7], [7]]  # default min_len=1
    assert greedy(eos_model, b, min_len=3) == [[7, 7, 7]] * 3


def test_beam_min_len(eos_model):
    b = Batch.make(SRC, None)
    assert [h[0] for h in beams(eos_model, b, min_len=0)] == [[], [], []]
    assert [h[0] for h in beams(eos_model, b)] == [[7], [7], [7]]
    for hyps in beams(eos_model, b, min_len=3, n_best=4):
        assert hyps[0] == [7, 7, 7] and len(hyps) == 4
        assert all(len(h) >= 3 for h in hyps)


@pytest.mark.parametrize("search", ["greedy", "beam"])
def test_length_limit_wins_over_min_len(eos_model, search):
    b = Batch.make(SRC, None)
    if search == "greedy":
        out = greedy(eos_model, b, min_len=50)
    else:
        out = [h[0] for h in beams(eos_model, b, min_len=50)]
    assert out == [[7] * cap for cap in CAP]


class Spent(Exception):
    pass


@pytest.mark.parametrize("search", ["greedy", "beam"])
def test_check_is_called_before_every_step_and_what_it_raises_stops_the_search(eos_model, search):
    """A request's time budget (pipeline.deadline.check) is checked inside a long search."""
    calls = []

    def check():
        calls.append(1)
        if len(calls) == 5:
            raise Spent
    b = Batch.make(SRC, None)
    run = (lambda: greedy_search(eos_model, b, SearchOptions(min_len=50), check=check)) if search == "greedy" else (
        lambda: beam_search(eos_model, b, SearchOptions(beam_size=2, min_len=50), check=check))
    with pytest.raises(Spent):
        run()
    assert len(calls) == 5
    calls.clear()
    done = greedy_search(eos_model, b, SearchOptions(min_len=3), check=lambda: calls.append(1))
    assert done == [[7, 7, 7]] * 3 and len(calls) == 4   # three pieces and the step that ends them


# --- n-gram blocking ----------------------------------------------------------------------------

def test_greedy_without_blocking_loops_to_the_cap(loop_model):
    assert greedy(loop_model, Batch.make(SRC, None)) == [[7] * cap for cap in CAP]


@pytest.mark.parametrize("use_cache", [True, False])
def test_greedy_bigram_blocking_exact(loop_model, use_cache):
    out = greedy(loop_model, Batch.make(SRC, None), no_repeat_ngram_size=2, use_cache=use_cache)
    assert out == [bigram_blocked(cap) for cap in CAP]
    assert out[0] == [7, 7, 8, 7, 9, 7, 10, 7, 11, 7, 12, 7, 13]


@pytest.mark.parametrize("use_cache", [True, False])
def test_greedy_unigram_blocking_ends_with_eos(use_cache):
    """n = 1 bans every piece already produced; once 7..11 are used, EOS is the best left."""
    model = pinned_model([7, 8, 9, 10, 11, EOS_ID])
    out = greedy(model, Batch.make(SRC, None), no_repeat_ngram_size=1, use_cache=use_cache)
    assert out == [[7, 8, 9, 10, 11]] * 3


def test_greedy_trigram_blocking_exact(loop_model):
    # 7 7 7; after 7 7, 7 (777) is banned -> 8; after 7 8 and 8 7 nothing is -> 7 7; after 7 7,
    # 7 (777) and 8 (778) are banned -> 9; after 7 9 and 9 7 nothing -> 7 7; then 10; ...
    out = greedy(loop_model, Batch.make(SRC[:1], None), no_repeat_ngram_size=3)
    assert out == [[7, 7, 7, 8, 7, 7, 9, 7, 7, 10, 7, 7, 11]]


def test_beam_one_with_blocking_equals_greedy(loop_model):
    b = Batch.make(SRC, None)
    for n in (1, 2, 3):
        expected = greedy(loop_model, b, no_repeat_ngram_size=n)
        assert [h[0] for h in beams(loop_model, b, beam_size=1, no_repeat_ngram_size=n)] == expected


def test_beam_without_blocking_loops_to_the_cap(loop_model):
    assert [h[0] for h in beams(loop_model, Batch.make(SRC, None))] == [[7] * cap for cap in CAP]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_beam_hypotheses_never_repeat_an_ngram(loop_model, n):
    for hyps in beams(loop_model, Batch.make(SRC, None), beam_size=4, n_best=4, no_repeat_ngram_size=n):
        assert len(hyps) == 4
        assert not any(has_repeat(h, n) for h in hyps)


def test_no_finite_candidate_leaves_eos_possible():
    """Vocabulary of 8: the outputs UNK (1) and 4..7 besides the specials; n = 1 uses them up in 5
    steps. Then EOS ends the output even though min_len asks for 10: a hypothesis must always be
    able to end."""
    model = pinned_model([7, 6, 5, 4, 1], vocab_size=8)
    b = Batch.make([[4, 5], [6]], None)
    assert greedy(model, b, no_repeat_ngram_size=1, min_len=10) == [[7, 6, 5, 4, 1]] * 2
    for hyps in beams(model, b, no_repeat_ngram_size=1, min_len=10, n_best=4):
        # Every order of the five pieces has the same score, so only the multiset is determined.
        assert len(hyps) == 4 and all(sorted(h) == [1, 4, 5, 6, 7] for h in hyps)


@pytest.mark.parametrize("search", ["greedy", "beam"])
@pytest.mark.parametrize("n", [2, 3])
def test_blocking_same_with_and_without_cache_and_batch(random_model, search, n):
    """On a model that reacts to its prefix: the cache, batching and sentences leaving the batch at
    different steps change nothing, and blocking does change outputs (so it is really applied)."""
    src = [[5, 6, 7, 8, 9, 10, 11, 12], [10, 11], [12, 13, 14, 15, 16], [20]]

    def run(batch, **kwargs):
        if search == "greedy":
            return [[out] for out in greedy(random_model, batch, min_len=0, **kwargs)]
        return beams(random_model, batch, beam_size=4, n_best=4, min_len=0, **kwargs)

    batched = run(Batch.make(src, None), no_repeat_ngram_size=n)
    assert run(Batch.make(src, None), no_repeat_ngram_size=n, use_cache=False) == batched
    assert [run(Batch.make([s], None), no_repeat_ngram_size=n)[0] for s in src] == batched
    assert not any(has_repeat(h, n) for hyps in batched for h in hyps)
    assert batched != run(Batch.make(src, None))
    assert len({len(hyps[0]) for hyps in batched}) > 1, "sentences should end at different steps"


def test_block_ngrams_matches_a_plain_python_reference():
    rng = random.Random(0)
    V = 9
    for n, t in itertools.product([1, 2, 3, 4], [0, 1, 3, 6, 12]):
        pieces = torch.tensor([[rng.choice([4, 5, 6, EOS_ID]) for _ in range(t)] for _ in range(5)],
                              dtype=torch.long).view(5, t)
        logp = torch.zeros(5, V)
        _block_ngrams(pieces, logp, n)
        for row, seq in zip(logp, pieces.tolist()):
            context = seq[len(seq) - n + 1:] if n > 1 else []
            banned = {seq[i + n - 1] for i in range(len(seq) - n + 1) if seq[i:i + n - 1] == context}
            banned.discard(EOS_ID)
            assert {v for v in range(V) if row[v] == float("-inf")} == banned, (n, seq)
