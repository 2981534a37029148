"""model/training/loss.py: label-smoothed cross-entropy, summed over the targets that are not padding."""

from __future__ import annotations

import math

import pytest
import torch

from model.network.tokenizer import PAD_ID
from model.training.loss import label_smoothed_loss


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_loss_is_summed_over_real_targets_with_smoothing_spread_over_the_vocabulary(smoothing):
    # probabilities 1/5, 1/5, 1/5, 2/5; the second target is padding and counts nothing
    logits = torch.tensor([[[0.0, 0.0, 0.0, math.log(2)], [5.0, -3.0, 1.0, 0.0]]])
    target = torch.tensor([[3, PAD_ID]])
    nll = -math.log(2 / 5)
    uniform = (3 * math.log(5) + math.log(5 / 2)) / 4   # -log p averaged over the 4 classes
    expected = (1 - smoothing) * nll + smoothing * uniform
    assert label_smoothed_loss(logits, target, smoothing).item() == pytest.approx(expected, rel=1e-6)
