"""The one place where token sequences become padded tensors, masks and shifted targets,
and where examples are grouped into batches (``TokenBatchSampler``).

Layout (shapes as in ``model/attention.py``):

    src     = x1 .. xn EOS PAD ..       (B, S)
    tgt_in  = BOS y1 .. ym PAD ..       (B, T)   decoder input ("shifted right")
    tgt_out = y1 .. ym EOS PAD ..       (B, T)   what each position must predict

Masks are boolean, True = may attend:

    src_mask (B, 1, 1, S)   hides source padding from encoder self- and cross-attention
    tgt_mask (B, 1, T, T)   causal AND not padding, for decoder self-attention
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from .data import require_int
from .tokenizer import BOS_ID, EOS_ID, PAD_ID


def pad(seqs: Sequence[Sequence[int]], device: torch.device | str | None = None) -> Tensor:
    """Right-pad integer sequences with PAD into a (B, L) tensor."""
    if not seqs:
        raise ValueError("cannot pad an empty list of sequences")
    width = max(len(s) for s in seqs)
    out = torch.full((len(seqs), width), PAD_ID, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = torch.as_tensor(s, dtype=torch.long)
    return out.to(device) if device is not None else out


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
        moved = {k: (v.to(device, non_blocking=True) if isinstance(v, Tensor) else v) for k, v in vars(self).items()}
        return Batch(**moved)


def weighted_indices(weights: Sequence[float], rng: random.Random) -> list[int]:
    """Indices in order, index i ``floor(w)`` times plus once more with probability ``w - floor(w)``."""
    indices: list[int] = []
    for i, weight in enumerate(weights):
        times = int(weight)
        times += rng.random() < weight - times
        indices.extend([i] * times)
    return indices


class TokenBatchSampler:
    """Length-bucketed batches under a padded-token budget, reproducible per epoch.

    ``lengths[i]`` is ``max(src_len, tgt_len) + 2`` of example i.  A batch holds
    examples of similar length such that ``len(batch) * longest <= max_tokens``;
    an example longer than ``max_tokens`` on its own gets a batch of one rather
    than being dropped, so every example is seen each epoch.

    ``weights[i]`` (default 1 each) is how often example i is seen per epoch on
    average: it appears ``floor(w)`` times, plus once more with probability
    ``w - floor(w)``, drawn afresh each epoch.  This is how ``train.py`` mixes
    corpora (``--data PATH@WEIGHT``).

    ``batches(epoch)`` is a pure function of the constructor arguments and the
    epoch, which lets a resumed run continue with ``batches(epoch)[position:]``.
    With ``num_replicas > 1`` the batch list is padded to a multiple of the
    replica count by repeating its first batches (as torch's DistributedSampler
    pads indices), so that all ranks step the same number of times, at least
    once, even when an epoch has fewer batches than ranks.
    """

    def __init__(
        self,
        lengths: Sequence[int],
        max_tokens: int,
        *,
        shuffle: bool = True,
        seed: int = 0,
        num_replicas: int = 1,
        rank: int = 0,
        weights: Sequence[float] | None = None,
    ) -> None:
        require_int("max_tokens", max_tokens, 1)
        require_int("num_replicas", num_replicas, 1)
        if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < num_replicas:
            raise ValueError(f"rank must be an integer in [0, {num_replicas}), got {rank!r}")
        self.lengths = [int(n) for n in lengths]
        bad = next((n for n in self.lengths if n < 1), None)
        if bad is not None:
            raise ValueError(f"lengths must be positive, got {bad!r}")
        if weights is not None and len(weights) != len(self.lengths):
            raise ValueError(f"weights must have one entry per example ({len(self.lengths)}), got {len(weights)}")
        if weights is not None and not all(0 <= w < float("inf") for w in weights):
            raise ValueError(f"weights must be finite and >= 0, got {next(w for w in weights if not 0 <= w < float('inf'))!r}")
        self.weights = None if weights is None or all(w == 1 for w in weights) else [float(w) for w in weights]
        self.max_tokens = max_tokens
        self.shuffle = bool(shuffle)
        self.seed = int(seed)
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        # Without weights the batch count only depends on the sorted length sequence, which is
        # the same every epoch (the tie-break only permutes equal lengths); with weights it is
        # epoch 0's and varies a little between epochs.
        self._len = len(self.batches(0))

    def _rng(self, epoch: int) -> random.Random:
        # A hash instead of seed + epoch arithmetic, so that (1, 2) and (2, 1)
        # differ; hashlib, unlike hash(), is the same in every process.
        material = hashlib.sha256(f"TokenBatchSampler/{self.seed}/{epoch}".encode()).digest()
        return random.Random(int.from_bytes(material[:8], "big"))

    def _cut(self, order: list[int]) -> list[list[int]]:
        batches: list[list[int]] = []
        batch: list[int] = []
        for index in order:
            # Ascending order: the newcomer is the longest in the batch.
            if batch and (len(batch) + 1) * self.lengths[index] > self.max_tokens:
                batches.append(batch)
                batch = []
            batch.append(index)
        if batch:
            batches.append(batch)
        return batches

    def _examples(self, rng: random.Random) -> list[int]:
        """The example indices of one epoch, each repeated as its weight draws."""
        if self.weights is None:
            return list(range(len(self.lengths)))
        return weighted_indices(self.weights, rng)

    def batches(self, epoch: int) -> list[list[int]]:
        """This rank's batches (lists of example indices) for ``epoch``."""
        rng = self._rng(epoch)
        indices = self._examples(rng)
        if self.shuffle:
            rng.shuffle(indices)  # a stable sort of a shuffle = random tie-break
        batches = self._cut(sorted(indices, key=self.lengths.__getitem__))
        if self.shuffle:
            rng.shuffle(batches)
        if batches and len(batches) % self.num_replicas:
            padding = self.num_replicas - len(batches) % self.num_replicas
            batches += [batches[i % len(batches)] for i in range(padding)]
        return batches[self.rank :: self.num_replicas]

    def set_epoch(self, epoch: int) -> None:
        """Select the epoch that ``__iter__`` yields (DataLoader ``batch_sampler`` use)."""
        self.epoch = epoch

    def __iter__(self) -> Iterator[list[int]]:
        return iter(self.batches(self.epoch))

    def __len__(self) -> int:
        return self._len
