"""model/training/optimizer.py: AdamW's parameter groups and the inverse square root schedule."""

from __future__ import annotations

import pytest
import torch

from model.training.optimizer import inverse_sqrt, make_optimizer


def test_inverse_sqrt_warms_up_linearly_then_decays():
    factor = inverse_sqrt(4)
    assert [factor(step) for step in (0, 1, 2, 4, 16, 64)] == [0.25, 0.25, 0.5, 1.0, 0.5, 0.25]
    with pytest.raises(ValueError, match=r"^warmup must be >= 1, got 0$"):
        inverse_sqrt(0)


class Tiny(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(5, 3)
        self.linear = torch.nn.Linear(3, 2)
        self.norm = torch.nn.LayerNorm(2)


def test_weight_decay_only_on_matrices_that_are_not_embeddings():
    model = Tiny()
    optimizer = make_optimizer(model, lr=7e-4, weight_decay=0.01)
    decay, no_decay = optimizer.param_groups
    assert decay["params"] == [model.linear.weight] and decay["weight_decay"] == 0.01
    assert no_decay["params"] == [model.embed.weight, model.linear.bias, model.norm.weight, model.norm.bias]
    assert no_decay["weight_decay"] == 0.0
    assert (decay["lr"], decay["betas"], decay["eps"]) == (7e-4, (0.9, 0.98), 1e-9)
