"""Tests for model/network/batch.py (padded tensors, masks, shifted targets) and the token batch
sampler of model/data/sampler.py."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from model.data.sampler import TokenBatchSampler, weighted_indices
from model.network.batch import Batch, pad
from model.network.tokenizer import BOS_ID, EOS_ID, PAD_ID


def test_batch_layout():
    b = Batch.make([[5, 6, 7, 8, 9], [10, 11]], [[20, 21, 22], [23]])
    assert b.src.tolist() == [[5, 6, 7, 8, 9, EOS_ID], [10, 11, EOS_ID, PAD_ID, PAD_ID, PAD_ID]]
    assert b.tgt_in.tolist() == [[BOS_ID, 20, 21, 22], [BOS_ID, 23, PAD_ID, PAD_ID]]
    assert b.tgt_out.tolist() == [[20, 21, 22, EOS_ID], [23, EOS_ID, PAD_ID, PAD_ID]]
    assert b.src_mask.shape == (2, 1, 1, 6) and b.tgt_mask.shape == (2, 1, 4, 4)
    assert b.n_tokens == 6
    assert b.tgt_mask[1, 0].tolist() == [[True, False, False, False], [True, True, False, False],
                                         [True, True, False, False], [True, True, False, False]]


def test_pad_rejects_empty_list():
    with pytest.raises(ValueError, match="^cannot pad an empty list of sequences$"):
        pad([])


def test_make_rejects_mismatched_targets():
    with pytest.raises(ValueError, match="^2 sources but 1 targets$"):
        Batch.make([[5], [6]], [[7]])


def test_tokens_are_counted_on_the_host():
    targets = [[5, 6, 7], [8], []]
    assert Batch.count_tokens(targets) == Batch.make([[4], [4], [4]], targets).n_tokens == 7


# --------------------------------------------------------------------------- batching


LENGTHS = [random.Random(11).randint(3, 60) for _ in range(500)] + [300]  # one over budget


def test_sampler_covers_every_index_once_within_budget() -> None:
    sampler = TokenBatchSampler(LENGTHS, max_tokens=256, seed=5)
    batches = sampler.batches(0)
    assert sorted(i for batch in batches for i in batch) == list(range(len(LENGTHS)))
    assert len(sampler) == len(batches) == len(sampler.batches(4))
    for batch in batches:
        longest = max(LENGTHS[i] for i in batch)
        assert len(batch) * longest <= 256 or batch == [500]  # oversized example alone
    assert [500] in batches


def test_sampler_is_reproducible_and_varies_per_epoch() -> None:
    a = TokenBatchSampler(LENGTHS, max_tokens=256, seed=5)
    b = TokenBatchSampler(LENGTHS, max_tokens=256, seed=5)
    assert a.batches(3) == b.batches(3)
    assert a.batches(3) != a.batches(4)
    assert a.batches(3) != TokenBatchSampler(LENGTHS, max_tokens=256, seed=6).batches(3)
    a.set_epoch(4)
    assert list(a) == a.batches(4)


def test_sampler_without_shuffle_is_length_sorted() -> None:
    sampler = TokenBatchSampler(LENGTHS, max_tokens=256, shuffle=False)
    flat = [i for batch in sampler.batches(0) for i in batch]
    assert flat == sorted(range(len(LENGTHS)), key=lambda i: (LENGTHS[i], i))
    assert sampler.batches(0) == sampler.batches(1)


def test_sampler_replicas_take_equal_steps_and_cover_every_batch() -> None:
    ranks = [TokenBatchSampler(LENGTHS, max_tokens=256, seed=5, num_replicas=2, rank=r) for r in range(2)]
    single = TokenBatchSampler(LENGTHS, max_tokens=256, seed=5)
    for epoch in (0, 1):
        first, second = (r.batches(epoch) for r in ranks)
        assert len(first) == len(second) == len(ranks[0]) == -(-len(single) // 2)
        every = single.batches(epoch)
        # the same batches as one process, dealt out in turn; an odd count repeats the first batch
        assert first + second == every[0::2] + every[1::2] + every[:len(every) % 2]


def test_sampler_with_fewer_batches_than_replicas_still_steps_everywhere() -> None:
    # one batch for four ranks: before, every rank got none and an epoch ended without a step
    ranks = [TokenBatchSampler([5, 6, 7], max_tokens=1000, seed=1, num_replicas=4, rank=r) for r in range(4)]
    assert [r.batches(0) for r in ranks] == [[[0, 1, 2]]] * 4


def test_sampler_weights_repeat_and_subsample_examples() -> None:
    lengths = [10] * 3000
    weights = [2.0] * 1000 + [1.0] * 1000 + [0.25] * 1000
    sampler = TokenBatchSampler(lengths, max_tokens=100, seed=3, weights=weights)
    for epoch in (0, 1):
        seen = Counter(i for batch in sampler.batches(epoch) for i in batch)
        assert all(seen[i] == 2 for i in range(1000)) and all(seen[i] == 1 for i in range(1000, 2000))
        drawn = {i for i in range(2000, 3000) if seen[i]}
        assert all(seen[i] == 1 for i in drawn) and 200 < len(drawn) < 300
    # a fresh draw each epoch, the same draw for the same epoch (so --resume continues exactly)
    draws = [{i for b in sampler.batches(e) for i in b if i >= 2000} for e in (0, 1)]
    assert draws[0] != draws[1]
    assert sampler.batches(1) == TokenBatchSampler(lengths, max_tokens=100, seed=3, weights=weights).batches(1)
    # weights of 1 are the unweighted sampler
    assert TokenBatchSampler(LENGTHS, 256, seed=5, weights=[1] * len(LENGTHS)).batches(2) == \
        TokenBatchSampler(LENGTHS, 256, seed=5).batches(2)


def test_weighted_indices() -> None:
    rng = random.Random(0)
    assert weighted_indices([0, 3, 1, 0], rng) == [1, 1, 1, 2]
    assert Counter(weighted_indices([0.5] * 10_000, rng))[0] in (0, 1)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (([3, 4], 0), {}, "max_tokens must be an integer >= 1, got 0"),
        (([3, 0], 10), {}, "lengths must be positive, got 0"),
        (([3], 10), {"num_replicas": 0}, "num_replicas must be an integer >= 1, got 0"),
        (([3], 10), {"num_replicas": 2, "rank": 2}, "rank must be an integer in [0, 2), got 2"),
        (([3, 4], 10), {"weights": [1.0]}, "weights must have one entry per example (2), got 1"),
        (([3, 4], 10), {"weights": [1.0, -0.5]}, "weights must be finite and >= 0, got -0.5"),
        (([3, 4], 10), {"weights": [float("inf"), 1]}, "weights must be finite and >= 0, got inf"),
    ],
)
def test_sampler_rejects_bad_arguments(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        TokenBatchSampler(*args, **kwargs)
