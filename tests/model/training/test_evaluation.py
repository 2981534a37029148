"""model/training/evaluation.py: the dev set's sample for BLEU."""

from __future__ import annotations

import pytest

from model.training.evaluation import spread


@pytest.mark.parametrize("n, k, expected", [
    (10, 4, [0, 2, 5, 7]),
    (5, 5, [0, 1, 2, 3, 4]),
    (3, 1000, [0, 1, 2]),
    (1874, 1000, None),
])
def test_spread_is_even_and_ordered(n, k, expected):
    picked = spread(n, k)
    if expected is not None:
        assert picked == expected
    assert len(picked) == min(n, k) and picked == sorted(set(picked)) and picked[0] == 0
    assert picked[-1] >= n - n // min(n, k) - 1  # reaches the end of a sorted corpus, not just its start
