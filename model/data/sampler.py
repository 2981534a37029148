"""Which training pairs go into which batch: weighted epochs and length-bucketed token batches."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence

from model.network.config import require_int

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
