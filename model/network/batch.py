"""The one place where token sequences become padded tensors, masks and shifted targets
(grouping examples into batches is ``model.data.sampler``).

Layout (shapes as in ``model/network/attention.py``):

    src     = x1 .. xn EOS PAD ..       (B, S)
    tgt_in  = BOS y1 .. ym PAD ..       (B, T)   decoder input ("shifted right")
    tgt_out = y1 .. ym EOS PAD ..       (B, T)   what each position must predict

Masks are boolean, True = may attend:

    src_mask (B, 1, 1, S)   hides source padding from encoder self- and cross-attention
    tgt_mask (B, 1, T, T)   causal AND not padding, for decoder self-attention
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from model.network.tokenizer import BOS_ID, EOS_ID, PAD_ID


def pad(seqs: Sequence[Sequence[int]], device: torch.device | str | None = None) -> Tensor:
    """Right-pad integer sequences with PAD into a (B, L) tensor.

    Built in one host tensor from a padded list (not row by row); for a GPU it is pinned and
    copied without blocking, so the host can prepare the next batch while the copy runs."""
    if not seqs:
        raise ValueError("cannot pad an empty list of sequences")
    width = max(len(s) for s in seqs)
    out = torch.tensor([list(s) + [PAD_ID] * (width - len(s)) for s in seqs], dtype=torch.long)  # (B, L)
    if device is None or torch.device(device).type == "cpu":
        return out if device is None else out.to(device)
    return out.pin_memory().to(device, non_blocking=True)


def padding_mask(tokens: Tensor) -> Tensor:
    """(B, L) ids -> (B, 1, 1, L) bool, True on real tokens (keys that may be attended)."""
    return (tokens != PAD_ID)[:, None, None, :]  # (B, 1, 1, L)


def causal_mask(length: int, device: torch.device | str | None = None) -> Tensor:
    """(1, 1, T, T) bool, True where key position <= query position."""
    return torch.ones(length, length, dtype=torch.bool, device=device).tril()[None, None]  # (1, 1, T, T)


def target_mask(tgt_in: Tensor) -> Tensor:
    """(B, T) decoder input -> (B, 1, T, T): causal and not padding."""
    return causal_mask(tgt_in.size(1), tgt_in.device) & padding_mask(tgt_in)  # (B, 1, T, T)


@dataclass
class Batch:
    src: Tensor                     # (B, S)
    src_mask: Tensor                # (B, 1, 1, S)
    tgt_in: Tensor | None = None    # (B, T)
    tgt_out: Tensor | None = None   # (B, T)
    tgt_mask: Tensor | None = None  # (B, 1, T, T)

    @classmethod
    def make(
        cls,
        src_seqs: Sequence[Sequence[int]],
        tgt_seqs: Sequence[Sequence[int]] | None = None,
        device: torch.device | str | None = None,
    ) -> "Batch":
        """Build a batch from piece ids without specials; EOS/BOS are added here and only here."""
        src = pad([list(s) + [EOS_ID] for s in src_seqs], device)  # (B, S)
        batch = cls(src=src, src_mask=padding_mask(src))
        if tgt_seqs is not None:
            if len(tgt_seqs) != len(src_seqs):
                raise ValueError(f"{len(src_seqs)!r} sources but {len(tgt_seqs)!r} targets")
            batch.tgt_in = pad([[BOS_ID] + list(t) for t in tgt_seqs], device)  # (B, T)
            batch.tgt_out = pad([list(t) + [EOS_ID] for t in tgt_seqs], device)  # (B, T)
            batch.tgt_mask = target_mask(batch.tgt_in)
        return batch

    @property
    def n_tokens(self) -> int:
        """Target tokens that count in the loss (EOS included, padding not)."""
        assert self.tgt_out is not None
        return int((self.tgt_out != PAD_ID).sum())

    def to(self, device: torch.device | str) -> "Batch":
        """The batch on ``device``. Copies to a GPU do not block (the stream orders them before any
        use there); copies to the CPU do, since the host could otherwise read them unfinished."""
        non_blocking = torch.device(device).type == "cuda"
        moved = {k: (v.to(device, non_blocking=non_blocking) if isinstance(v, Tensor) else v)
                 for k, v in vars(self).items()}
        return Batch(**moved)

    @staticmethod
    def count_tokens(tgt_seqs: Sequence[Sequence[int]]) -> int:
        """``n_tokens`` of the batch these targets make, counted on the host (no device sync)."""
        return sum(len(t) + 1 for t in tgt_seqs)
