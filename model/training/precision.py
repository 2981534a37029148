"""The precision the forward passes run in (train.py's --precision)."""

from __future__ import annotations

from contextlib import nullcontext
from functools import partial

import torch


PRECISIONS = ("auto", "fp32", "bf16")


def autocast(device_type: str, precision: str):
    """The context the forward passes run in: bfloat16 autocast for ``bf16`` (``auto``: on CUDA),
    else none. Only the forward pass: the loss is taken in float32 (``label_smoothed_loss``)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision == "bf16" or (precision == "auto" and device_type == "cuda"):
        return partial(torch.autocast, device_type, dtype=torch.bfloat16)
    return nullcontext
