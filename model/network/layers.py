"""Transformer building blocks: positions, feed-forward, encoder and decoder layers (sections 3.1-3.5).

Shapes follow the legend in ``model/network/attention.py``.

Departure from the paper: the default is *pre-norm* (``x + Sublayer(LayerNorm(x))``, Xiong et al.
2020), which trains stably without a long warmup; ``pre_norm=False`` gives the paper's post-norm
(``LayerNorm(x + Sublayer(x))``).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from model.network.attention import Cache, MultiHeadAttention


class SinusoidalPositions(nn.Module):
    """PE(pos, 2i) = sin(pos / 10000^(2i/D)), PE(pos, 2i+1) = cos(...) (section 3.5)."""

    def __init__(self, d_model: int, max_len: int):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)  # (max_len, 1)
        div = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))  # (D/2,)
        table = torch.zeros(max_len, d_model)
        table[:, 0::2] = torch.sin(position * div)
        table[:, 1::2] = torch.cos(position * div)
        # Not a parameter and not saved: it is a pure function of the config.
        self.register_buffer("table", table, persistent=False)

    def forward(self, length: int, start: int = 0) -> Tensor:
        if start + length > self.table.size(0):
            raise ValueError(f"sequence of {start + length!r} tokens exceeds max_len {self.table.size(0)!r}")
        return self.table[start:start + length]  # (T, D)


class FeedForward(nn.Module):
    """FFN(x) = max(0, x W1 + b1) W2 + b2 (section 3.3), with dropout on the hidden layer."""

    def __init__(self, d_model: int, d_ff: int, dropout: float):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff)
        self.w2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.w2(self.dropout(torch.relu(self.w1(x))))  # (B, T, D)


class Residual(nn.Module):
    """Residual connection around one sublayer, with its LayerNorm before (pre) or after (post)."""

    def __init__(self, d_model: int, dropout: float, pre_norm: bool):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.pre_norm = pre_norm

    def forward(self, x: Tensor, sublayer) -> tuple[Tensor, Tensor | None]:
        """``sublayer`` maps (B, T, D) to (output, attention weights or None)."""
        if self.pre_norm:
            out, weights = sublayer(self.norm(x))
            return x + self.dropout(out), weights
        out, weights = sublayer(x)
        return self.norm(x + self.dropout(out)), weights


class EncoderLayer(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float, attention_dropout: float, pre_norm: bool):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads, attention_dropout, self_attention=True)
        self.ffn = FeedForward(d_model, d_ff, dropout)
        self.attn_block = Residual(d_model, dropout, pre_norm)
        self.ffn_block = Residual(d_model, dropout, pre_norm)

    def forward(self, x: Tensor, src_mask: Tensor, need_weights: bool = False) -> tuple[Tensor, Tensor | None]:
        """x: (B, S, D), src_mask: (B, 1, 1, S). Returns (B, S, D) and weights (B, H, S, S)."""
        x, weights = self.attn_block(x, lambda h: self.self_attn(h, mask=src_mask, need_weights=need_weights))
        x, _ = self.ffn_block(x, lambda h: (self.ffn(h), None))
        return x, weights


class DecoderLayer(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float, attention_dropout: float, pre_norm: bool):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads, attention_dropout, self_attention=True)
        self.cross_attn = MultiHeadAttention(d_model, n_heads, attention_dropout, self_attention=False)
        self.ffn = FeedForward(d_model, d_ff, dropout)
        self.self_block = Residual(d_model, dropout, pre_norm)
        self.cross_block = Residual(d_model, dropout, pre_norm)
        self.ffn_block = Residual(d_model, dropout, pre_norm)

    def forward(
        self,
        x: Tensor,
        memory: Tensor,
        src_mask: Tensor,
        tgt_mask: Tensor | None,
        cache: dict[str, Cache] | None = None,
        need_weights: bool = False,
    ) -> tuple[Tensor, Tensor | None, Tensor | None]:
        """x: (B, T, D), memory: (B, S, D), src_mask: (B, 1, 1, S), tgt_mask: (B, 1, T, T) or None
        (None only when decoding one step with a cache: the new token may see every cached one).
        Returns (B, T, D), self weights (B, H, T, Tk) and cross weights (B, H, T, S)."""
        self_cache = cache["self"] if cache is not None else None
        cross_cache = cache["cross"] if cache is not None else None
        x, self_w = self.self_block(
            x, lambda h: self.self_attn(h, mask=tgt_mask, cache=self_cache, need_weights=need_weights))
        x, cross_w = self.cross_block(
            x, lambda h: self.cross_attn(h, memory, mask=src_mask, cache=cross_cache, need_weights=need_weights))
        x, _ = self.ffn_block(x, lambda h: (self.ffn(h), None))
        return x, self_w, cross_w
