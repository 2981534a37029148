"""The noisy channel: how well a translation explains its source.

A reverse model (for German->English, ``train.py --direction en-de``) reads the hypothesis and is
forced to write the source; ``ChannelScorer.score`` returns log p(source | hypothesis) of each
given (source, hypothesis) pair (the source's pieces and its EOS: the engine's ``score_outputs``,
teacher forcing in PyTorch or CTranslate2's scoring), with the piece counts that normalise it. A
translation that leaves words out, or adds some, explains its source badly, which the forward
model's own score cannot see.

``ChannelOptions`` puts the forward and the channel score together to rerank an n-best list
(``rerank``):

    score = forward + weight * log p(src|hyp) / source pieces + length_bonus * hypothesis pieces / source pieces

``forward`` is the n-best list's own score (log p(hyp|src) over the GNMT length penalty, as the
search ranks it), so weight 0 and bonus 0 keep the forward model's order.

Scoring a hypothesis costs a pass of the reverse model, so a served translation scores only the
beam's *contenders* (``contenders``): those within ``ChannelOptions.margin`` of the best forward
score, at most ``ChannelOptions.most``; where the best stands alone nothing is scored.
``choice`` is the one that is served. The beam it chooses from is searched wider
(``ChannelOptions.wide_beam``) for a source the channel chooses in: more hypotheses, better ones
among the first few. ``ChannelReranked`` is an engine whose searches do this;
its n-best lists rank the whole beam. What it buys on the dev sets and what it costs:
``bench/channel.py`` (bench/README.md, "Noisy-channel reranking" and "At a fair price").
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from model.data import normalize
from model.inference.alignment import AlignedText
from model.inference.ct2_engine import CT2Translator
from model.inference.interface import Wrapping
from model.inference.translator import Translator
from model.network.checkpoint import CheckpointError, direction
from model.search.options import DEFAULT, SearchOptions


def reverse_of(pair: str) -> str:
    """"en-de" for "de-en" and back: the direction of a model's channel."""
    source, _, target = pair.partition("-")
    return f"{target}-{source}"


@dataclass(frozen=True)
class ChannelScore:
    """What the reverse model says of one (source, hypothesis) pair."""

    logprob: float       # log p(source | hypothesis): its pieces and its EOS
    pieces: int          # source pieces predicted, EOS included (what ``logprob`` is a sum over)
    hypothesis_pieces: int  # pieces of the hypothesis the reverse model read (EOS not included)

    @property
    def per_piece(self) -> float:
        """``logprob`` per predicted source piece."""
        return self.logprob / self.pieces


class ChannelScorer:
    """log p(source | hypothesis) of given pairs, from the reverse model of a ``forward``
    direction (for "de-en" an English->German model) on either engine."""

    def __init__(self, reverse: Any, forward: str | None = None):
        """``reverse``: an engine (``interface.Engine``); ``forward``: the direction whose
        translations it scores (None: the reverse of its own)."""
        found = direction(reverse.meta)
        forward = reverse_of(found) if forward is None else forward
        wanted = reverse_of(forward)
        if found != wanted:
            raise CheckpointError(f"{reverse.checkpoint!r} translates {found}, not {wanted}: the noisy "
                                  f"channel of {forward} needs a reverse model (train.py --direction {wanted})")
        self.reverse = reverse
        self.forward = forward

    @classmethod
    def from_checkpoint(cls, path: str | Path, device: str = "auto", precision: str = "fp32", *,
                        engine: str = "torch", quantization: str = "int8", threads: int = 0,
                        forward: str | None = None) -> "ChannelScorer":
        """The reverse checkpoint at ``path``, loaded as every checkpoint is (weights only), scored
        by PyTorch in ``precision`` (``engine="torch"``) or by CTranslate2 in ``quantization`` on
        ``threads`` threads (``engine="ct2"``)."""
        if engine == "ct2":
            return cls(CT2Translator.from_checkpoint(path, device=device, quantization=quantization, threads=threads),
                       forward)
        if engine != "torch":
            raise ValueError(f"engine must be torch or ct2, got {engine!r}")
        return cls(Translator.from_checkpoint(path, device=device, precision=precision), forward)

    @property
    def checkpoint(self) -> str:
        return self.reverse.checkpoint

    def score(self, sources: Sequence[str], hypotheses: Sequence[str], *,
              batch_size: int = DEFAULT.batch_size, batch_pieces: int | None = None) -> list[ChannelScore]:
        """One ``ChannelScore`` per (source, hypothesis) pair, in order. Both are normalized as
        the model's inputs are; ValueError for a text longer than the model takes. The reverse
        model scores at most ``batch_size`` pairs at once, and, given ``batch_pieces``, pairs of at
        most that many source pieces in all (one pair alone may have more)."""
        if len(sources) != len(hypotheses):
            raise ValueError(f"{len(sources)!r} sources but {len(hypotheses)!r} hypotheses")
        read = self.reverse.source_ids(hypotheses)  # refuses an overlong hypothesis
        written = self.reverse.tokenizer.encode_batch([normalize(text) for text in sources])
        limit = self.reverse.config.max_source_pieces  # the decoder reads BOS + the source
        for index, ids in enumerate(written):
            if len(ids) > limit:
                raise ValueError(f"source {index!r} has {len(ids)!r} pieces, but the model writes at most "
                                 f"{limit!r} pieces per text")
        return self._scored(written, read, batch_size, batch_pieces)

    def score_where_fits(self, sources: Sequence[str], hypotheses: Sequence[str], *,
                         batch_size: int = DEFAULT.batch_size,
                         batch_pieces: int | None = None) -> list[ChannelScore | None]:
        """As ``score``, with None (not an error) for a pair the reverse model cannot read or
        write: an empty text, or one longer than the model takes. Each text is encoded once."""
        if len(sources) != len(hypotheses):
            raise ValueError(f"{len(sources)!r} sources but {len(hypotheses)!r} hypotheses")
        distinct = list(dict.fromkeys([*sources, *hypotheses]))  # a source recurs once per hypothesis
        ids = dict(zip(distinct, self.reverse.tokenizer.encode_batch([normalize(text) for text in distinct])))
        read, written, limit = [ids[h] for h in hypotheses], [ids[s] for s in sources], self.reverse.config.max_source_pieces
        fit = [i for i, (hyp, ids) in enumerate(zip(read, written)) if 0 < len(hyp) <= limit and 0 < len(ids) <= limit]
        found: list[ChannelScore | None] = [None] * len(sources)
        for i, score in zip(fit, self._scored([written[i] for i in fit], [read[i] for i in fit], batch_size,
                                              batch_pieces)):
            found[i] = score
        return found

    def _scored(self, written: list[list[int]], read: list[list[int]], batch_size: int,
                batch_pieces: int | None = None) -> list[ChannelScore]:
        scores: list[float] = []
        for start, end in _chunks([len(ids) + 1 for ids in written], batch_size, batch_pieces):
            scores += self.reverse.score_outputs(read[start:end], written[start:end], batch_size=end - start)
        return [ChannelScore(logprob, len(ids) + 1, len(hyp)) for logprob, ids, hyp in zip(scores, written, read)]


def _chunks(lengths: Sequence[int], batch_size: int, batch_pieces: int | None) -> list[tuple[int, int]]:
    """``(start, end)`` of consecutive runs of at most ``batch_size`` items whose ``lengths`` add up
    to at most ``batch_pieces`` (None: no bound), each run at least one item."""
    runs, start, total = [], 0, 0
    for end, length in enumerate(lengths):
        if end > start and (end - start == batch_size or batch_pieces is not None and total + length > batch_pieces):
            runs.append((start, end))
            start, total = end, 0
        total += length
    if start < len(lengths):
        runs.append((start, len(lengths)))
    return runs


# The served weight (the app's CHANNEL_WEIGHT, the commands' --channel-weight), chosen on the dev
# sets (docs/journal/channel.md, "With the released English->German model").
SERVED_WEIGHT = 2.0


# Source pieces (the positions it writes) the reverse model scores at once when serving: teacher
# forcing holds the logits of every position of every pair of a batch ([pairs, length, vocabulary]
# floats), which a served worker should not, while short pairs still go several to a call
# (docs/journal/channel.md, "Served: CHANNEL_WEIGHT").
SCORE_PIECES = 128

# The served contenders (``ChannelOptions.margin`` and ``most``), chosen on the dev sets with
# bench/channel.py --margins --most (bench/README.md, "At a fair price"): most of the channel's
# gain for a fraction of its scoring.
SERVED_MARGIN = 1.5
SERVED_MOST = 3
# ... and none for a source of fewer pieces: on short sentences the channel's pick is as often worse
# (Tatoeba dev: -0.50 chrF with every source, -0.20 from 8 pieces), and they are most requests.
SERVED_SHORTEST = 8
# ... whose beam is searched 8 wide instead of 4, German->English: real text gained on the dev sets
# (news +0.75 chrF, chat +0.54, Wikipedia +0.33), short text (UI, Tatoeba), left at 4, within noise;
# English->German news did not gain (-0.14, p 0.13), so it keeps the search's own
# (bench/README.md, "At a fair price"; docs/journal/length.md).
SERVED_WIDE_BEAM = {"de-en": 8}

# Beams, and channel scores of (source, hypothesis) pairs, kept per process (``ChannelReranked``):
# the text pipeline asks for a sentence's n-best list right after its best translation where the
# best leaves words out, a third of real sentences (docs/journal/channel.md, "The beam searched once").
RECENT_BEAMS = 256
RECENT_SCORES = 8 * RECENT_BEAMS   # eight pairs a beam: the widest beam the pipeline asks for


@dataclass(frozen=True)
class ChannelOptions:
    """How the channel score and the length reorder an n-best list, and which hypotheses a served
    choice scores (the module docstring)."""

    weight: float = 0.0        # of the channel's log p(src|hyp) per source piece
    length_bonus: float = 0.0  # per hypothesis piece per source piece: more output, less left out
    margin: float = math.inf   # contenders: within this of the best forward score ...
    most: int = 0              # ... and at most this many, best first (0: no bound) ...
    shortest: int = 0          # ... of a source of at least this many pieces (fewer: the best alone)
    wide_beam: int = 0         # the served beam of such a source: searched this wide (0: the search's
                               # own), and read whole where the pipeline looks past the choice

    def __post_init__(self) -> None:
        for name in ("weight", "length_bonus"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise ValueError(f"{name} must be a number >= 0, got {value!r}")
        if isinstance(self.margin, bool) or not isinstance(self.margin, (int, float)) or not self.margin >= 0:
            raise ValueError(f"margin must be a number >= 0, got {self.margin!r}")
        for name in ("most", "shortest", "wide_beam"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {value!r}")

    def combined(self, forward: float, channel: ChannelScore) -> float:
        """The reranking score of a hypothesis with forward score ``forward``."""
        return (forward + self.weight * channel.per_piece
                + self.length_bonus * channel.hypothesis_pieces / channel.pieces)


def ranked(forward: Sequence[float], channel: Sequence[ChannelScore | None],
           options: ChannelOptions) -> list[tuple[int, float]]:
    """``(index, combined score)`` of every hypothesis of one n-best list, best first by
    ``options.combined``; one the channel could not score (None) comes last, at -inf. The sort is
    stable, so that the forward model's order decides ties."""
    if len(forward) != len(channel):
        raise ValueError(f"{len(forward)!r} forward scores but {len(channel)!r} channel scores")
    combined = [-math.inf if c is None else options.combined(f, c) for f, c in zip(forward, channel)]
    return sorted(enumerate(combined), key=lambda pair: -pair[1])


def served_options(weight: float, forward: str) -> ChannelOptions:
    """The options the service reranks the ``forward`` model's beams with ("de-en"): ``weight``,
    the served contenders (``SERVED_MARGIN``, ``SERVED_MOST``, ``SERVED_SHORTEST``) and the beam
    they come from (``SERVED_WIDE_BEAM``)."""
    return ChannelOptions(weight=weight, margin=SERVED_MARGIN, most=SERVED_MOST, shortest=SERVED_SHORTEST,
                          wide_beam=SERVED_WIDE_BEAM.get(forward, 0))


def contenders(forward: Sequence[float], options: ChannelOptions, pieces: int | None = None) -> list[int]:
    """The indices of one beam's hypotheses that a served choice scores, best forward score first
    (the first of equals keeps its place): those within ``options.margin`` of the best, at most
    ``options.most`` of them (0: all); the best alone for a source of fewer than
    ``options.shortest`` ``pieces`` (None: not known, not checked)."""
    order = sorted(range(len(forward)), key=lambda i: -forward[i])
    if pieces is not None and pieces < options.shortest:
        return order[:1]
    kept = [i for i in order if forward[i] >= forward[order[0]] - options.margin]
    return kept[:options.most] if options.most else kept


def choice(forward: Sequence[float], channel: Sequence[ChannelScore | None], options: ChannelOptions,
           pieces: int | None = None) -> int:
    """The index of the hypothesis a served translation gives: of the ``contenders`` (of a source
    of ``pieces`` pieces), the one of best combined score (``ranked``); the forward model's best
    where it stands alone or where the channel could score none of them. Only the contenders'
    ``channel`` entries are read."""
    if not forward:
        raise ValueError("cannot choose from an empty beam")
    if len(forward) != len(channel):
        raise ValueError(f"{len(forward)!r} forward scores but {len(channel)!r} channel scores")
    picked = contenders(forward, options, pieces)
    first, _ = ranked([forward[i] for i in picked], [channel[i] for i in picked], options)[0]
    return picked[first]


def rerank(forward: Sequence[float], channel: Sequence[ChannelScore], options: ChannelOptions) -> int:
    """The index of the best hypothesis of one n-best list by ``options.combined`` (``ranked``: the
    first of equals)."""
    if not forward and not channel:
        raise ValueError("cannot rerank an empty n-best list")
    return ranked(forward, channel, options)[0][0]


class ChannelReranked(Wrapping):
    """An engine (``interface.Engine``) in front of a forward one, ``inner``, whose beam searches
    end with the noisy channel. ``translate``, ``output_ids`` and ``translate_aligned`` give the
    served ``choice`` among the contenders of the inner engine's own beam (``Engine.beam``), which
    scores only those; ``beam`` gives that beam and ``translate_n_best`` the exact n-best list
    (n-best = beam size), every hypothesis scored by ``channel`` and reordered by
    ``options.combined``, with the combined scores. Greedy search has no beam: it is the inner
    engine's.

    It sits under the cross-request batcher and the cache (``model.inference.engines.serve_engine``),
    so that a batch of requests is searched and scored together and a cached output is the
    reranked one. ``after_scoring`` (if given) runs after each scoring, on the calling thread:
    a server gives back there the memory that the scoring's logits took (``app.memory``).

    The ``RECENT_BEAMS`` latest beams are kept, by text, ``SearchOptions.output_key`` and kind
    (the served beam or the exact n-best list), and so are the channel scores of their pairs: a
    search or scoring that was just done is not done again when the same text's n-best list is
    asked for next (the text pipeline does, ``pipeline.choosing.Chooser``), and an n-best
    list scores only the hypotheses the served choice did not. The engines are deterministic, so a
    kept beam is the one a new search would give."""

    def __init__(self, inner: Any, channel: ChannelScorer, options: ChannelOptions,
                 after_scoring: Callable[[], None] | None = None):
        forward = direction(inner.meta)
        if channel.forward != forward:
            raise CheckpointError(f"the channel {channel.checkpoint!r} scores {channel.forward}, but "
                                  f"{inner.checkpoint!r} translates {forward}")
        self.inner = inner
        self.channel = channel
        self.options = options
        self.after_scoring = after_scoring
        self._recent: OrderedDict[tuple[str, tuple, bool], list[tuple[str, float]]] = OrderedDict()
        self._scores: OrderedDict[tuple[str, str], ChannelScore | None] = OrderedDict()
        self._recent_lock = threading.Lock()

    def translate_n_best(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        """Up to ``search.n_best`` (translation, combined score) pairs per text, best first, from
        the inner engine's whole beam (the first of equal scores keeps its place). With
        ``n_best`` 1, the served ``choice`` alone, with its combined score where contenders were
        scored and its forward score where it stood alone."""
        if search.n_best == 1:
            return [[pair] for pair in self._chosen(texts, search)]
        found = self._beams(texts, search, exact=True)
        return self._reranked(texts, found, search.n_best)

    def beam(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        """The served beam (the inner engine's ``beam``, the one a served translation chose from),
        every hypothesis scored and reordered as ``translate_n_best`` reorders its list: where the
        pipeline looks past the served choice, the beam just searched is not searched again, whole
        (``wide_beam`` hypotheses where it was searched wide). The beam of a source shorter than
        ``options.shortest`` pieces, which the channel does not choose in, keeps the forward model's
        order and scores, unscored."""
        pieces = self._pieces(texts)
        found = self._beams(texts, search, exact=False, pieces=pieces)
        long = [k for k, n in enumerate(pieces) if self._chooses_in(n)]
        reranked = dict(zip(long, self._reranked([texts[k] for k in long], [found[k] for k in long],
                                                 max(search.beam_size, self.options.wide_beam))))
        return [reranked.get(k, found[k]) for k in range(len(texts))]

    def _chosen(self, texts: Sequence[str], search: SearchOptions) -> list[tuple[str, float]]:
        pieces = self._pieces(texts)
        found = self._beams(texts, search, exact=False, pieces=pieces)
        picked = [contenders([score for _, score in hyps], self.options, n) for hyps, n in zip(found, pieces)]
        scored = self._channel_scores([(text, hyps[i][0]) for text, hyps, indices in zip(texts, found, picked)
                                       if len(indices) > 1 for i in indices])
        results = []
        for text, hyps, n in zip(texts, found, pieces):
            if not hyps:
                results.append(("", 0.0))
                continue
            channel = [scored.get((text, hyp)) for hyp, _ in hyps]
            i = choice([score for _, score in hyps], channel, self.options, n)
            results.append((hyps[i][0], hyps[i][1] if channel[i] is None else self.options.combined(hyps[i][1],
                                                                                                   channel[i])))
        return results

    def _pieces(self, texts: Sequence[str]) -> list[int | None]:
        """Each text's source pieces where ``options.shortest`` asks for them, else None."""
        if not self.options.shortest:
            return [None] * len(texts)
        return [len(ids) for ids in self.inner.source_ids(texts)]

    def served_search(self, pieces: int | None, search: SearchOptions) -> SearchOptions:
        """The search of the served beam of a source of ``pieces`` (``_pieces``; None: not
        counted): ``wide_beam`` wide where the channel chooses in it and that is wider."""
        if self.options.wide_beam > search.beam_size and self._chooses_in(pieces):
            return replace(search, beam_size=self.options.wide_beam)
        return search

    def _chooses_in(self, pieces: int | None) -> bool:
        """Whether the channel chooses in the beam of a source of ``pieces`` (``_pieces``)."""
        return pieces is None or pieces >= self.options.shortest

    def _beams(self, texts: Sequence[str], search: SearchOptions, exact: bool,
               pieces: Sequence[int | None] | None = None) -> list[list[tuple[str, float]]]:
        """Each text's beam as (translation, forward score) pairs, best first: the exact n-best
        list, or the inner engine's own beam; kept ones are not searched again. With ``pieces``
        (the served beam), that of a text the channel chooses in is searched ``wide_beam`` wide."""
        exact = exact or self.inner.beam_exact   # then one search serves both
        searches = [search] * len(texts) if pieces is None else [self.served_search(n, search) for n in pieces]
        keys = [(text, searched.output_key, exact) for text, searched in zip(texts, searches)]
        with self._recent_lock:
            beams = {key: self._recent[key] for key in keys if key in self._recent}
            for key in beams:
                self._recent.move_to_end(key)
        for searched in dict.fromkeys(searches):   # a search each: the batch's short and long texts
            todo = list(dict.fromkeys(key[0] for key, s in zip(keys, searches) if s == searched and key not in beams))
            if not todo:
                continue
            whole = replace(searched, n_best=searched.beam_size)
            found = self.inner.translate_n_best(todo, whole) if exact else self.inner.beam(todo, whole)
            fresh = {(text, searched.output_key, exact): hyps for text, hyps in zip(todo, found)}
            beams.update(fresh)
            with self._recent_lock:
                self._recent.update(fresh)
                while len(self._recent) > RECENT_BEAMS:
                    self._recent.popitem(last=False)
        return [beams[key] for key in keys]

    def _channel_scores(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], ChannelScore | None]:
        """The channel score of each (source, hypothesis) pair, None for one the reverse model
        cannot read or write (an empty or a runaway output); kept ones are not scored again."""
        pairs = list(dict.fromkeys(pairs))
        with self._recent_lock:
            known = {pair: self._scores[pair] for pair in pairs if pair in self._scores}
        todo = [pair for pair in pairs if pair not in known]
        if todo:
            fresh = dict(zip(todo, self.channel.score_where_fits([s for s, _ in todo], [h for _, h in todo],
                                                                 batch_pieces=SCORE_PIECES)))
            if self.after_scoring is not None:
                self.after_scoring()
            known.update(fresh)
            with self._recent_lock:
                self._scores.update(fresh)
                while len(self._scores) > RECENT_SCORES:
                    self._scores.popitem(last=False)
        return known

    def _reranked(self, texts: Sequence[str], found: list[list[tuple[str, float]]],
                  n_best: int) -> list[list[tuple[str, float]]]:
        """Each text's (translation, forward score) list as its first ``n_best`` (translation,
        combined score) pairs by ``ranked``; a list the channel could score none of stays as it is."""
        scored = self._channel_scores([(source, text) for source, hyps in zip(texts, found) for text, _ in hyps])
        results = []
        for source, hyps in zip(texts, found):
            channel = [scored.get((source, text)) for text, _ in hyps]
            if all(score is None for score in channel):  # nothing to rerank by
                results.append(hyps[:n_best])
                continue
            order = ranked([score for _, score in hyps], channel, self.options)
            results.append([(hyps[i][0], combined) for i, combined in order[:n_best]])
        return results

    def continue_n_best(self, texts: Sequence[str], prefixes: Sequence[Sequence[int]], search: SearchOptions, *,
                        n: int) -> list[list[tuple[str, float]]]:
        """The inner engine's continuations (``Translator.continue_n_best``) with combined scores,
        as ``translate_n_best`` gives them, so that the two compare."""
        return self._reranked(texts, self.inner.continue_n_best(texts, prefixes, search, n=n), n)

    def output_ids(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[list[int]]:
        if search.beam_size < 2:
            return self.inner.output_ids(texts, search)
        best = self.translate_n_best(texts, replace(search, n_best=1))
        return [self.tokenizer.encode(hyps[0][0]) for hyps in best]

    def translate(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[str]:
        if search.beam_size < 2:
            return self.inner.translate(texts, search)
        return [hyps[0][0] for hyps in self.translate_n_best(texts, replace(search, n_best=1))]

    def translate_aligned(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[AlignedText]:
        return self.inner.align(texts, self.output_ids(texts, search), batch_size=search.batch_size)
