"""How the weights are updated: AdamW and its learning-rate schedule (paper section 5.3)."""

from __future__ import annotations

import math

import torch


def inverse_sqrt(warmup: int):
    """lr multiplier: linear warmup to 1 over ``warmup`` steps, then ~ 1/sqrt(step) (section 5.3,
    with the peak learning rate as an explicit argument instead of d_model^-0.5)."""
    if warmup < 1:
        raise ValueError(f"warmup must be >= 1, got {warmup!r}")

    def factor(step: int) -> float:
        step = max(step, 1)
        return min(step / warmup, math.sqrt(warmup / step))
    return factor


def make_optimizer(model: torch.nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    """AdamW with the paper's betas/eps; no weight decay on biases, norms and embeddings."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (decay if p.dim() > 1 and "embed" not in name else no_decay).append(p)
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.98), eps=1e-9)
