"""Tests for model/batch.py: padded tensors, masks, shifted targets and the token batch sampler."""

from __future__ import annotations

import random
import re

import pytest

from model.batch import Batch, TokenBatchSampler, pad
from model.tokenizer import BOS_ID, EOS_ID, PAD_ID


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


def test_sampler_replicas_are_disjoint_and_equal() -> None:
    ranks = [TokenBatchSampler(LENGTHS, max_tokens=256, seed=5, num_replicas=2, rank=r) for r in range(2)]
    for epoch in (0, 1):
        first, second = (r.batches(epoch) for r in ranks)
        assert len(first) == len(second) == len(ranks[0])
        assert not {i for b in first for i in b} & {i for b in second for i in b}
    total = len(TokenBatchSampler(LENGTHS, max_tokens=256, seed=5))
    assert len(ranks[0]) == total // 2


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (([3, 4], 0), {}, "max_tokens must be an integer >= 1, got 0"),
        (([3, 0], 10), {}, "lengths must be positive, got 0"),
        (([3], 10), {"num_replicas": 0}, "num_replicas must be an integer >= 1, got 0"),
        (([3], 10), {"num_replicas": 2, "rank": 2}, "rank must be an integer in [0, 2), got 2"),
    ],
)
def test_sampler_rejects_bad_arguments(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        TokenBatchSampler(*args, **kwargs)
