"""The training loss: label-smoothed cross-entropy (paper section 5.4).

Shapes follow the legend in ``model/network/attention.py``.
"""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor

from model.network.tokenizer import PAD_ID


def label_smoothed_loss(logits: Tensor, target: Tensor, smoothing: float) -> Tensor:
    """Summed cross-entropy over non-padding targets, with label smoothing (section 5.4).

    logits: (B, T, V), target: (B, T). The caller divides by the token count, so that
    sentences weigh by length and DDP ranks with different batch sizes stay comparable."""
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V).float(), target.reshape(-1), ignore_index=PAD_ID,
                           label_smoothing=smoothing, reduction="sum")
