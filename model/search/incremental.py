"""The one incremental decoder: next-piece log-probabilities for growing outputs, with a key/value
cache whose rows follow their hypotheses. Greedy and beam search (``model.search.decoding``) and
the inspector's completion (``model.inference.explain``) all decode through it.

Convention: the cache holds every decoder input fed so far; each call feeds what is new.
"""

from __future__ import annotations

from torch import Tensor

from model.network.batch import causal_mask
from model.network.transformer import KVCache, Transformer
from model.search.scoring import piece_logp


class IncrementalDecoder:
    """Produces next-piece log-probabilities for growing prefixes, with or without a KV cache.

    ``memory`` (B, S, D) and ``src_mask`` (B, 1, 1, S) are the encoded sources, one row per
    hypothesis; ``select`` reorders or drops rows as hypotheses are kept."""

    def __init__(self, model: Transformer, memory: Tensor, src_mask: Tensor, use_cache: bool = True):
        self.model, self.memory, self.src_mask = model, memory, src_mask
        self.cache: KVCache | None = model.new_cache() if use_cache else None

    def prefill(self, tgt_in: Tensor) -> Tensor:
        """Feed several decoder inputs (B, P) at once, teacher-forced, into the cache; returns the
        (B, P, V) log-probabilities after each of them."""
        mask = causal_mask(tgt_in.size(1), tgt_in.device)  # (1, 1, P, P)
        return piece_logp(self.model.decode(tgt_in, self.memory, self.src_mask, mask, cache=self.cache))

    def __call__(self, prefix: Tensor) -> Tensor:
        """prefix: (B, t) decoder input so far -> (B, V) log-probabilities of the next piece. With a
        cache only its last column is fed (the cache holds the rest)."""
        if self.cache is not None:
            logits = self.model.decode(prefix[:, -1:], self.memory, self.src_mask, cache=self.cache)  # (B, 1, V)
        else:
            mask = causal_mask(prefix.size(1), prefix.device)  # (1, 1, t, t)
            logits = self.model.decode(prefix, self.memory, self.src_mask, mask)  # (B, t, V)
        return piece_logp(logits[:, -1])  # (B, V)

    def select(self, index: Tensor) -> None:
        """Keep/reorder rows of everything that is per hypothesis."""
        self.memory = self.memory.index_select(0, index)
        self.src_mask = self.src_mask.index_select(0, index)
        if self.cache is not None:
            self.cache.select(index)
