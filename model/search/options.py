"""The knobs of a search, in one place: ``SearchOptions`` (defaults, checks) and the GNMT length
penalty. Every engine, command, the pipeline and the app take a ``SearchOptions``; nothing else
writes a default of a knob (tests/test_layers.py checks it).

Two are named:

- ``DEFAULT``, ``SearchOptions()``: the bare model's search, greedy and nothing blocked; what an
  engine call without options does, and what training's dev BLEU decodes with.
- ``SERVED``: how a translation is served by the app and the commands, through the text pipeline
  (``pipeline.Options.search``): beam search, with n-gram blocking as a loop guard. The commands'
  ``--beam``, ``--length-penalty`` and ``--batch-size`` default to its values (``commands.cli``), and
  so does the app's ``BEAM_SIZE``; without the pipeline (``--raw``, the attention view) the model
  searches with that beam but no blocking, as ``DEFAULT``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from model.network.config import require_int

if TYPE_CHECKING:  # not imported: the commands read their flags into options before torch loads
    from torch import Tensor


@dataclass(frozen=True)
class SearchOptions:
    """How a translation is searched for; checked once, when made (ValueError, one line)."""

    beam_size: int = 1              # 1 = greedy search
    length_penalty: float = 0.6     # GNMT's alpha (``penalty``); 0 = none
    n_best: int = 1                 # hypotheses returned per sentence, best first (<= beam_size)
    max_len_a: float = 1.5          # output budget: max_len_a * source pieces + max_len_b (fairseq's)
    max_len_b: int = 10
    min_len: int = 1                # EOS forbidden before this many pieces: no empty translation
    no_repeat_ngram_size: int = 0   # a piece completing a repeated n-gram is forbidden; 0 = off
    batch_size: int = 64            # sentences per model call

    def __post_init__(self) -> None:
        require_int("beam_size", self.beam_size, 1)
        require_int("batch_size", self.batch_size, 1)
        require_int("n_best", self.n_best, 1)
        if self.n_best > self.beam_size:
            raise ValueError(f"n_best must be between 1 and beam_size {self.beam_size!r}, got {self.n_best!r}")
        require_int("max_len_b", self.max_len_b, 0)
        require_int("min_len", self.min_len, 0)
        require_int("no_repeat_ngram_size", self.no_repeat_ngram_size, 0)
        for name in ("length_penalty", "max_len_a"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise ValueError(f"{name} must be a number >= 0, got {value!r}")

    def budget(self, source_pieces: int) -> int:
        """Output tokens (EOS included) allowed for a source of that many pieces (EOS included)."""
        return int(source_pieces * self.max_len_a + self.max_len_b)

    def penalty(self, length: Tensor | int) -> Tensor | float:
        """GNMT's length penalty (Wu et al. 2016) of an output of ``length`` tokens, EOS included:
        ((5 + length) / 6) ** ``length_penalty``, what its log-probability is divided by (1 when
        ``length_penalty`` is 0)."""
        return ((5.0 + length) / 6.0) ** self.length_penalty

    @property
    def output_key(self) -> tuple[int, float, int]:
        """The options that decide the best output for an input (the batch size does not): what
        the translation cache and the cross-request batcher key on."""
        return (self.beam_size, float(self.length_penalty), self.no_repeat_ngram_size)


DEFAULT = SearchOptions()

# n-gram blocking of 6 is the pipeline's loop guard: smaller n block legitimate repeats ("you don't
# ... you don'"), and 6 changed no measured output (docs/journal/2026-11-readme-figures.md,
# "Text pipeline: pipeline.translation.Options").
SERVED = SearchOptions(beam_size=4, no_repeat_ngram_size=6)
