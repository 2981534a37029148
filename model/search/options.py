"""The knobs of a search, in one place: ``SearchOptions`` (defaults, checks) and the GNMT length
penalty. Every engine, command, the pipeline and the app take their defaults from ``DEFAULT``.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor

from model.network.config import require_int


@dataclass(frozen=True)
class SearchOptions:
    """How a translation is searched for; checked once, when made (ValueError, one line)."""

    beam_size: int = 1              # 1 = greedy search
    length_penalty: float = 0.6     # GNMT alpha (``length_penalty``); 0 = none
    n_best: int = 1                 # hypotheses returned per sentence, best first (<= beam_size)
    max_len_a: float = 1.5          # output budget: max_len_a * source pieces + max_len_b (fairseq's)
    max_len_b: int = 10
    min_len: int = 1                # EOS forbidden before this many pieces: no empty translation
    no_repeat_ngram_size: int = 0   # a piece completing a repeated n-gram is forbidden; 0 = off
    batch_size: int = 64            # sentences per model call

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size!r}")
        if self.beam_size < 1:
            raise ValueError(f"beam_size must be >= 1, got {self.beam_size!r}")
        if not 1 <= self.n_best <= self.beam_size:
            raise ValueError(f"n_best must be between 1 and beam_size {self.beam_size!r}, got {self.n_best!r}")
        require_int("min_len", self.min_len, 0)
        require_int("no_repeat_ngram_size", self.no_repeat_ngram_size, 0)

    def budget(self, source_pieces: int) -> int:
        """Output tokens (EOS included) allowed for a source of that many pieces (EOS included)."""
        return int(source_pieces * self.max_len_a + self.max_len_b)

    @property
    def output_key(self) -> tuple[int, float, int]:
        """The options that decide the best output for an input (the batch size does not): what
        the translation cache and the cross-request batcher key on."""
        return (self.beam_size, float(self.length_penalty), self.no_repeat_ngram_size)


DEFAULT = SearchOptions()


def length_penalty(length: Tensor | int, alpha: float) -> Tensor | float:
    """GNMT (Wu et al. 2016): ((5 + |Y|) / 6) ** alpha, |Y| with EOS; alpha = 0 disables it."""
    return ((5.0 + length) / 6.0) ** alpha
