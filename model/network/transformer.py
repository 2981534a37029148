"""The encoder-decoder Transformer (Vaswani et al. 2017), built from a ``ModelConfig``.

Shapes follow the legend in ``model/network/attention.py``. ``encode()`` and ``decode()`` are separate so
that inference encodes each source once and decodes step by step against a ``KVCache``.

Departures from the paper, on purpose:
- pre-norm by default (see ``model/network/layers.py``), hence a final LayerNorm after each stack;
- one embedding matrix shared by source, target and the output projection (Press & Wolf 2017;
  the paper ties them too), initialised N(0, D^-1/2) and scaled by sqrt(D) on input, so that
  input embeddings have unit variance and output logits start small.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

from model.network.config import ModelConfig
from model.network.layers import DecoderLayer, EncoderLayer, SinusoidalPositions
from model.network.tokenizer import PAD_ID


@dataclass
class KVCache:
    """Per decoder layer: self-attention keys/values so far, and cross-attention K/V of the memory."""

    layers: list[dict[str, dict[str, Tensor]]]
    length: int = 0  # target positions already decoded (the next position's index)

    @classmethod
    def empty(cls, n_layers: int) -> "KVCache":
        return cls([{"self": {}, "cross": {}} for _ in range(n_layers)])

    def select(self, index: Tensor) -> None:
        """Keep/reorder batch rows (beam search reordering, dropping finished sentences)."""
        for layer in self.layers:
            for part in layer.values():
                for name, tensor in part.items():
                    part[name] = tensor.index_select(0, index)


@dataclass
class AttentionWeights:
    """Every layer's attention, each (B, H, Tq, Tk)."""

    encoder: list[Tensor] = field(default_factory=list)  # L_enc x (B, H, S, S)
    decoder: list[Tensor] = field(default_factory=list)  # L_dec x (B, H, T, T)
    cross: list[Tensor] = field(default_factory=list)    # L_dec x (B, H, T, S)


class Transformer(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        c = config
        self.embed = nn.Embedding(c.vocab_size, c.d_model, padding_idx=PAD_ID)
        self.positions = SinusoidalPositions(c.d_model, c.max_len)
        self.embed_dropout = nn.Dropout(c.dropout)
        layer_args = (c.d_model, c.n_heads, c.d_ff, c.dropout, c.attention_dropout, c.pre_norm)
        self.encoder = nn.ModuleList(EncoderLayer(*layer_args) for _ in range(c.encoder_layers))
        self.decoder = nn.ModuleList(DecoderLayer(*layer_args) for _ in range(c.decoder_layers))
        # Pre-norm leaves the residual stream unnormalised; post-norm already ends on a LayerNorm.
        self.encoder_norm = nn.LayerNorm(c.d_model) if c.pre_norm else nn.Identity()
        self.decoder_norm = nn.LayerNorm(c.d_model) if c.pre_norm else nn.Identity()
        self.reset_parameters()

    def reset_parameters(self) -> None:
        for name, p in self.named_parameters():
            if p.dim() > 1 and not name.startswith("embed"):
                nn.init.xavier_uniform_(p)
            elif name.endswith("bias"):
                nn.init.zeros_(p)
        nn.init.normal_(self.embed.weight, mean=0.0, std=self.config.d_model ** -0.5)
        with torch.no_grad():
            self.embed.weight[PAD_ID].zero_()

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def _embed(self, tokens: Tensor, start: int = 0) -> Tensor:
        T = tokens.size(1)
        x = self.embed(tokens) * math.sqrt(self.config.d_model) + self.positions(T, start)  # (B, T, D)
        return self.embed_dropout(x)

    def encode(self, src: Tensor, src_mask: Tensor, attention: AttentionWeights | None = None) -> Tensor:
        """src: (B, S) ids, src_mask: (B, 1, 1, S) -> memory (B, S, D).
        Pass ``attention`` to collect every layer's self-attention weights into it."""
        x = self._embed(src)  # (B, S, D)
        for layer in self.encoder:
            x, weights = layer(x, src_mask, need_weights=attention is not None)
            if attention is not None:
                attention.encoder.append(weights)
        return self.encoder_norm(x)

    def decode(
        self,
        tgt_in: Tensor,
        memory: Tensor,
        src_mask: Tensor,
        tgt_mask: Tensor | None = None,
        cache: KVCache | None = None,
        attention: AttentionWeights | None = None,
    ) -> Tensor:
        """tgt_in: (B, T) ids, memory: (B, S, D) -> logits (B, T, V).

        With ``cache``, ``tgt_in`` holds only the new position(s) (usually T = 1) and the cache
        supplies everything before; ``tgt_mask`` may then be None."""
        return self.project(self.decode_states(tgt_in, memory, src_mask, tgt_mask, cache, attention))

    def decode_states(
        self,
        tgt_in: Tensor,
        memory: Tensor,
        src_mask: Tensor,
        tgt_mask: Tensor | None = None,
        cache: KVCache | None = None,
        attention: AttentionWeights | None = None,
    ) -> Tensor:
        """``decode`` without its output projection: the final decoder states (B, T, D). For a pass
        that needs only the attention (word alignment): the logits, (B, T, V) with V in the
        thousands, are most of a teacher-forced batch's memory and a large part of its work."""
        B, T = tgt_in.shape
        start = cache.length if cache is not None else 0
        if tgt_mask is None and (cache is None or T > 1):
            raise ValueError("tgt_mask is required unless decoding one step with a cache")
        x = self._embed(tgt_in, start)  # (B, T, D)
        for i, layer in enumerate(self.decoder):
            layer_cache = cache.layers[i] if cache is not None else None
            x, self_w, cross_w = layer(x, memory, src_mask, tgt_mask, layer_cache, need_weights=attention is not None)
            if attention is not None:
                attention.decoder.append(self_w)
                attention.cross.append(cross_w)
        if cache is not None:
            cache.length += T
        return self.decoder_norm(x)

    def project(self, h: Tensor) -> Tensor:
        """Output projection tied to the embedding: (B, T, D) -> (B, T, V), float32 logits
        whatever the weights' precision, so that scores and their softmax keep float32's digits."""
        return (h @ self.embed.weight.t()).float()  # (B, T, V)

    def new_cache(self) -> KVCache:
        return KVCache.empty(len(self.decoder))

    def forward(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, tgt_mask: Tensor) -> Tensor:
        """Teacher-forced training pass: logits (B, T, V) for every target position."""
        memory = self.encode(src, src_mask)
        return self.decode(tgt_in, memory, src_mask, tgt_mask)
