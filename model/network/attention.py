"""Multi-head scaled dot-product attention (Vaswani et al. 2017, section 3.2).

Notation used in shapes throughout ``model/``:

    B   batch size (sentences, or sentences x beams during beam search)
    S   source length (subword pieces + EOS)
    T   target length (BOS + pieces during training; 1 per step in cached decoding)
    Tq  query length, Tk key/value length
    D   model width (d_model), H heads, Dh = D / H head width
    V   vocabulary size

Masks are boolean and broadcast against the score matrix ``(B, H, Tq, Tk)``: True means
"may attend". The batch helper (``model/network/batch.py``) is the only place that builds them.

Two paths compute the same function:
- ``F.scaled_dot_product_attention`` (fused kernels) when nobody asks for the weights;
- an explicit softmax(QK^T / sqrt(Dh)) when ``need_weights=True`` (attention views, tests).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

Cache = dict[str, Tensor]


class MultiHeadAttention(nn.Module):
    """Self-attention (one fused QKV projection) or cross-attention (Q from x, K/V from memory).

    ``cache`` enables incremental decoding. For self-attention it accumulates the keys and
    values of all positions seen so far, so each step projects only the new token; for
    cross-attention it holds K/V of the encoder output, computed once per sentence.
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0, *, self_attention: bool = True):
        super().__init__()
        assert d_model % n_heads == 0, "validated by ModelConfig"
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.dropout = dropout
        self.self_attention = self_attention
        if self_attention:
            self.qkv = nn.Linear(d_model, 3 * d_model)
        else:
            self.q = nn.Linear(d_model, d_model)
            self.kv = nn.Linear(d_model, 2 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def _split(self, x: Tensor) -> Tensor:
        B, T, _ = x.shape
        return x.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, T, Dh)

    def _keys_values(self, x: Tensor, memory: Tensor | None, cache: Cache | None) -> tuple[Tensor, Tensor, Tensor]:
        """Project queries, keys and values, reading and updating the cache."""
        if self.self_attention:
            q, k, v = self.qkv(x).chunk(3, dim=-1)  # 3 x (B, Tq, D)
            q, k, v = self._split(q), self._split(k), self._split(v)  # (B, H, Tq, Dh)
            if cache is not None:
                if "k" in cache:
                    k = torch.cat([cache["k"], k], dim=2)  # (B, H, Tk, Dh)
                    v = torch.cat([cache["v"], v], dim=2)  # (B, H, Tk, Dh)
                cache["k"], cache["v"] = k, v
            return q, k, v
        q = self._split(self.q(x))  # (B, H, Tq, Dh)
        if cache is not None and "k" in cache:
            return q, cache["k"], cache["v"]
        assert memory is not None, "cross-attention needs the encoder output"
        k, v = self.kv(memory).chunk(2, dim=-1)  # 2 x (B, Tk, D)
        k, v = self._split(k), self._split(v)  # (B, H, Tk, Dh)
        if cache is not None:
            cache["k"], cache["v"] = k, v
        return q, k, v

    def forward(
        self,
        x: Tensor,
        memory: Tensor | None = None,
        mask: Tensor | None = None,
        cache: Cache | None = None,
        need_weights: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """x: (B, Tq, D); memory: (B, Tk, D) for cross-attention; mask: bool, broadcastable to
        (B, H, Tq, Tk). Returns the output (B, Tq, D) and, if asked, weights (B, H, Tq, Tk)."""
        B, Tq, D = x.shape
        q, k, v = self._keys_values(x, memory, cache)
        dropout_p = self.dropout if self.training else 0.0
        if need_weights:
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)  # (B, H, Tq, Tk)
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            # float32 weights whatever the model's precision: rows that are shown sum to 1
            weights = scores.float().softmax(dim=-1)  # (B, H, Tq, Tk)
            context = F.dropout(weights, dropout_p, self.training).to(v.dtype) @ v  # (B, H, Tq, Dh)
        else:
            weights = None
            context = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)  # (B, H, Tq, Dh)
        context = context.transpose(1, 2).reshape(B, Tq, D)  # (B, Tq, D)
        return self.out(context), weights
