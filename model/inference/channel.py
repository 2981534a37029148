"""The noisy channel: how well an English translation explains its German source.

A reverse model (``train.py --direction en-de``) reads the English hypothesis and is forced to
write the German source; ``ChannelScorer.score`` returns log p(German | English) of each given
(German, English) pair (the German's pieces and its EOS: the engine's ``score_outputs``, teacher
forcing in PyTorch or CTranslate2's scoring), with the piece counts that normalise it. A
translation that leaves words out, or adds some, explains its source badly, which the forward
model's own score cannot see.

``ChannelOptions`` puts the forward and the channel score together to rerank an n-best list
(``rerank``):

    score = forward + weight * log p(de|en) / German pieces + length_bonus * English pieces / German pieces

``forward`` is the n-best list's own score (log p(en|de) over the GNMT length penalty, as the
search ranks it), so weight 0 and bonus 0 keep the forward model's order. What it buys on the dev
sets and what it costs: ``bench/channel.py`` (bench/README.md, "Noisy-channel reranking").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from model.data import normalize
from model.inference.ct2_engine import CT2Translator
from model.inference.translator import Translator
from model.network.checkpoint import CheckpointError, direction
from model.search.options import DEFAULT

# The reverse model's languages: it reads English and writes German.
CHANNEL_DIRECTION = "en-de"


@dataclass(frozen=True)
class ChannelScore:
    """What the reverse model says of one (German, English) pair."""

    logprob: float       # log p(German | English): its pieces and its EOS
    pieces: int          # German pieces predicted, EOS included (what ``logprob`` is a sum over)
    english_pieces: int  # pieces of the English the reverse model read (EOS not included)

    @property
    def per_piece(self) -> float:
        """``logprob`` per predicted German piece."""
        return self.logprob / self.pieces


class ChannelScorer:
    """log p(German | English) of given pairs, from a reverse (English->German) model on either
    engine."""

    def __init__(self, reverse: Translator | CT2Translator):
        found = direction(reverse.meta)
        if found != CHANNEL_DIRECTION:
            raise CheckpointError(f"{reverse.checkpoint!r} translates {found}, not {CHANNEL_DIRECTION}: the noisy "
                                  f"channel needs a reverse model (train.py --direction {CHANNEL_DIRECTION})")
        self.reverse = reverse

    @classmethod
    def from_checkpoint(cls, path: str | Path, device: str = "auto", precision: str = "fp32", *,
                        engine: str = "torch", quantization: str = "int8", threads: int = 0) -> "ChannelScorer":
        """The reverse checkpoint at ``path``, loaded as every checkpoint is (weights only), scored
        by PyTorch in ``precision`` (``engine="torch"``) or by CTranslate2 in ``quantization`` on
        ``threads`` threads (``engine="ct2"``)."""
        if engine == "ct2":
            return cls(CT2Translator.from_checkpoint(path, device=device, quantization=quantization, threads=threads))
        if engine != "torch":
            raise ValueError(f"engine must be torch or ct2, got {engine!r}")
        return cls(Translator.from_checkpoint(path, device=device, precision=precision))

    @property
    def checkpoint(self) -> str:
        return self.reverse.checkpoint

    def score(self, sources: Sequence[str], hypotheses: Sequence[str], *,
              batch_size: int = DEFAULT.batch_size) -> list[ChannelScore]:
        """One ``ChannelScore`` per (German source, English hypothesis) pair, in order. Both are
        normalized as the model's inputs are; ValueError for a text longer than the model takes."""
        if len(sources) != len(hypotheses):
            raise ValueError(f"{len(sources)!r} sources but {len(hypotheses)!r} hypotheses")
        english = self.reverse.source_ids(hypotheses)  # refuses an overlong hypothesis
        german = self.reverse.tokenizer.encode_batch([normalize(text) for text in sources])
        limit = self.reverse.config.max_len - 1  # the decoder reads BOS + the German
        for index, ids in enumerate(german):
            if len(ids) > limit:
                raise ValueError(f"source {index!r} has {len(ids)!r} pieces, but the model writes at most "
                                 f"{limit!r} pieces per text")
        scores = self.reverse.score_outputs(english, german, batch_size=batch_size)
        return [ChannelScore(logprob, len(ids) + 1, len(en)) for logprob, ids, en in zip(scores, german, english)]


@dataclass(frozen=True)
class ChannelOptions:
    """How the channel score and the length reorder an n-best list (the module docstring)."""

    weight: float = 0.0        # of the channel's log p(de|en) per German piece
    length_bonus: float = 0.0  # per English piece per German piece: more English, less left out

    def __post_init__(self) -> None:
        for name in ("weight", "length_bonus"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise ValueError(f"{name} must be a number >= 0, got {value!r}")

    def combined(self, forward: float, channel: ChannelScore) -> float:
        """The reranking score of a hypothesis with forward score ``forward``."""
        return (forward + self.weight * channel.per_piece
                + self.length_bonus * channel.english_pieces / channel.pieces)


def rerank(forward: Sequence[float], channel: Sequence[ChannelScore], options: ChannelOptions) -> int:
    """The index of the best hypothesis of one n-best list by ``options.combined`` (the first of
    equals, so that the forward model's order decides ties)."""
    if len(forward) != len(channel):
        raise ValueError(f"{len(forward)!r} forward scores but {len(channel)!r} channel scores")
    if not forward:
        raise ValueError("cannot rerank an empty n-best list")
    scores = [options.combined(f, c) for f, c in zip(forward, channel)]
    return scores.index(max(scores))
