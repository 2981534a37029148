"""Choosing the output the user gets: the text pipeline's one caller of the engine for translations.

``Pipeline`` plans a text (sentences, spans, casing) and assembles the outputs (spans restored,
layout kept); in between, ``Chooser.outputs`` asks the engine for the model's translation of each
planned source and decides which of the model's hypotheses the user gets:

* the served translation (behind the noisy channel, its choice among the beam's contenders:
  ``model.inference.channel``);
* another of the served beam's hypotheses (``Engine.beam``), or of the model's continuations,
  where the first does harm (``pipeline.harm``), addresses the reader the other way
  (``pipeline.formality``), loses or repeats a placeholder or sign, or leaves source words out
  (``pipeline.coverage``): ``_better``;
* the source translated again in smaller pieces where an output is implausibly short or loops
  (``_retry``), joined back into one (``concat``);
* the word alignment of what was taken where placeholders need repair (``realign``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from model.inference.alignment import AlignedText, Range
from model.inference.interface import Engine

from . import deadline
from . import words as W
from .coverage import Coverage
from .formality import ADDRESS_ROUNDS, ADDRESS_WORDS, FORMALITY_BEAM, address_cuts, addresses, cuts_before, mismatches
from .harm import faults
from .profanity import without_words
from .segment import has_loop, implausibly_short, smaller_pieces
from .spans import PLACEHOLDER_RE

# Signs a translation writes as often as its source does: more of them is the model repeating
# itself ("[Strg]+[C]+[C]"). Not quotes, dashes, "&" or "%", which English may write otherwise.
REPEATED_SIGNS = "[]{}()<>+*#=|\\"


class Chooser:
    """The model's outputs for a pipeline's planned sources, and the choice among its hypotheses
    (the module docstring). ``options``: the pipeline's ``Options`` (its search, checks,
    coverage weight, gap words and retries); ``source``: the source language; ``coverage`` and
    ``formality`` as the pipeline has them (None: not checked); ``closed``, ``reopened`` and
    ``count``: the pipeline's own (a model input closed with a full stop and its output opened
    again; the pieces of a text)."""

    def __init__(self, translator: Engine, options: Any, *, source: str, coverage: Coverage | None,
                 formality: str | None, closed: Callable[[str], str], reopened: Callable[..., AlignedText],
                 count: Callable[[str], int]):
        self.translator, self.options, self.source = translator, options, source
        self.coverage, self.formality = coverage, formality
        self.closed, self.reopened, self.count = closed, reopened, count

    def outputs(self, sources: list[str], aligned: bool, depth: int = 0,
               on_retry: Callable[[str], None] | None = None) -> list[AlignedText]:
        if not sources:
            return []
        deadline.check()   # before each call of the model, retries included
        t, search = self.translator, self.options.search
        inputs = [self.closed(s) for s in sources]
        if aligned:
            outputs = t.translate_aligned(inputs, search)
        else:
            outputs = [AlignedText(s, out) for s, out in zip(inputs, t.translate(inputs, search))]
        outputs = [self.reopened(output, source) for output, source in zip(outputs, sources)]
        self._better(outputs, inputs, sources, aligned)
        if depth < self.options.retries:
            retry = [i for i, o in enumerate(outputs)
                     if implausibly_short(o.source, o.target) or has_loop(o.target)]
            for i in retry:
                if on_retry is not None:
                    on_retry(sources[i])
                outputs[i] = self._retry(sources[i], aligned, depth, on_retry) or outputs[i]
        return self.realign(outputs)

    def _better(self, outputs: list[AlignedText], inputs: list[str], sources: list[str],
                                aligned: bool) -> None:
        """Another of the beam's hypotheses, in place, where the best one

        * has a placeholder too few or too many times ("Um ⦅N1⦆ Uhr." came out as "⦅N1⦆ o'clock at
          ⦅N1⦆.") or a bracket or sign more often than the source ("Drücken Sie [Strg]+[C]." as
          "Press [Strg]+[C]+[C]."): the best that has neither ("At ⦅N1⦆ o'clock."); repair by
          alignment (``words``) is left for those without one, and for greedy search;
        * leaves source content words out (``coverage``): the one of best score minus
          ``Options.coverage_weight`` per word it leaves out, among those without the faults above;
          where even that one leaves words out, with ``Options.gap_words``, weighed the same with the
          model's continuations at each place a left-out word may belong (``Coverage.gaps``);
        * does harm (``pipeline.harm``, ``Options.checks``: a negation lost or added, a profane word
          the source has not): the one with the fewest such faults, before anything else, among
          the hypotheses of a beam of ``FORMALITY_BEAM`` and, where a fault has a place, the
          model's continuations from just before it (as for the address, below);
        * addresses the reader the other way than ``Options.formality`` (German output: "du" where
          "Sie" is asked for): the one with the fewest such words, before any score, among the
          hypotheses of a beam of ``FORMALITY_BEAM`` and, where none of those addresses the reader
          as asked, the model's continuations from just before the first such word
          (``formality.address_cuts``).
        """
        t, o = self.translator, self.options
        if o.search.beam_size < 2:
            return
        weight, coverage, formality = o.coverage_weight, self.coverage, self.formality

        def misaddressed(text: str) -> int:  # words addressing the reader the other way
            return mismatches(text, formality) if formality is not None else 0

        def harm(i: int, text: str) -> list[int]:  # where its faults start (-1: no place)
            return faults(inputs[i], text, self.source, o.checks)

        # Those that do harm or address the reader the other way are searched with a wider beam: a
        # narrow one often holds no hypothesis without (bench/README.md, formality.py, harm.py).
        wrong = [misaddressed(output.target) > 0 or bool(harm(i, output.target)) for i, output in enumerate(outputs)]
        wide = [i for i in range(len(outputs)) if wrong[i]]
        narrow = [i for i, output in enumerate(outputs) if not wrong[i] and (
            self._needs_another(output) or coverage is not None and coverage.missing(sources[i], output.target))]
        hyps: dict[int, list[tuple[str, float]]] = {}
        for group, beam in ((narrow, o.search.beam_size), (wide, max(o.search.beam_size, FORMALITY_BEAM))):
            if group:
                # the served beam: for the served width, the one just searched (and kept)
                found = t.beam([inputs[i] for i in group], replace(o.search, beam_size=beam))
                hyps.update(zip(group, found))
        # index -> ((-faults, -words addressing the reader the other way, score), the hypothesis as
        # the model wrote it, as a translation of the source, words it leaves out): the greatest key
        # is taken
        best: dict[int, tuple[tuple[int, int, float], str, AlignedText, int]] = {}

        def weigh(i: int, candidates: list[tuple[str, float]]) -> None:
            for text, score in candidates:   # best first: ties keep the model's order
                candidate = self.reopened(AlignedText(inputs[i], text), sources[i])
                if self._needs_another(candidate):
                    continue
                left_out = len(coverage.missing(sources[i], candidate.target)) if coverage is not None else 0
                key = (-len(harm(i, text)), -misaddressed(candidate.target), score - weight * left_out)
                if i not in best or key > best[i][0]:
                    best[i] = (key, text, candidate, left_out)

        for i, candidates in sorted(hyps.items()):
            weigh(i, candidates)
        gone_on: set[tuple[int, str]] = set()

        def go_on(cuts: list[tuple[int, str]], keep: Callable[[str, str], bool] = lambda prefix, text: True) -> bool:
            """The model's ``ADDRESS_WORDS`` most probable next words after each (index, prefix) of
            ``cuts`` not gone on from before, each completed by the search, weighed where
            ``keep(prefix, text)``; False where there is nothing new to go on from."""
            cuts = [cut for cut in cuts if cut not in gone_on]
            gone_on.update(cuts)
            if not cuts:
                return False
            deadline.check()   # before each call of the model
            found = t.continue_n_best([inputs[i] for i, _ in cuts], [t.tokenizer.encode(p) for _, p in cuts],
                                      o.search, n=ADDRESS_WORDS)
            for (i, prefix), candidates in zip(cuts, found):
                weigh(i, [c for c in candidates if keep(prefix, c[0])])
            return True

        for _ in range(ADDRESS_ROUNDS):
            # Still doing harm at a place (a profane word): the model goes on differently from just
            # before it, each of its next words completed by the search; all are weighed.
            if not go_on([(i, prefix) for i, (key, text, _, _) in sorted(best.items()) if key[0] < 0
                          for prefix in cuts_before(text, [start for start in harm(i, text) if start >= 0])]):
                break
        for _ in range(ADDRESS_ROUNDS if formality is not None else 0):
            # Still addressing the reader the other way: the model goes on differently from just before
            # that word (or its verb), each of its next words completed by the search; those that
            # changed the address, not dropped it, are weighed.
            if not go_on([(i, prefix) for i, (key, text, _, _) in sorted(best.items()) if key[1] < 0
                          for prefix in address_cuts(text, formality)],
                         lambda prefix, text: addresses(text, formality, len(prefix)) > 0):
                break
        if coverage is not None and o.gap_words > 0:
            # Still leaving words out: the model's next words where one may belong, each completed.
            gaps = [(i, prefix) for i, (_, text, _, left_out) in sorted(best.items()) if left_out
                    for offset in coverage.gaps(sources[i], text) if (prefix := text[:offset].rstrip())]
            if gaps:
                found = t.continue_n_best([inputs[i] for i, _ in gaps], [t.tokenizer.encode(p) for _, p in gaps],
                                          o.search, n=o.gap_words)
                for (i, _), candidates in zip(gaps, found):
                    weigh(i, candidates)
        for i, (key, text, _, left_out) in sorted(best.items()):
            places = [start for start in harm(i, text) if start >= 0]
            if places:   # a profane word that every search kept: the word goes, never to the reader
                text = without_words(text, places)
                best[i] = (key, text, self.reopened(AlignedText(inputs[i], text), sources[i]), left_out)
        chosen: dict[int, str] = {}  # output index -> the hypothesis as the model wrote it
        for i, (_, text, candidate, _) in sorted(best.items()):
            if candidate.target != outputs[i].target:
                chosen[i], outputs[i] = text, candidate
        if aligned and chosen:  # the word alignment of the hypotheses taken
            realigned = t.align([inputs[i] for i in chosen], [t.tokenizer.encode(chosen[i]) for i in chosen])
            for i, output in zip(chosen, realigned):
                outputs[i] = self.reopened(output, sources[i])

    def alternatives(self, inputs: list[str], n: int) -> list[list[tuple[str, float]]]:
        """The model's ``n`` best (translation, score) pairs for each of ``inputs`` (closed model
        inputs), best first: the exact n-best list of a beam at least ``n`` wide, the alternatives a
        user is offered (``Pipeline.translate_n_best``)."""
        search = self.options.search
        return self.translator.translate_n_best(inputs, replace(search, beam_size=max(search.beam_size, n), n_best=n))

    def realign(self, outputs: list[AlignedText]) -> list[AlignedText]:
        """Outputs whose placeholders need repair get their word alignment (it says where)."""
        t = self.translator
        need = [i for i, o in enumerate(outputs) if not o.target_words and self._placeholders_off(o)]
        if need:
            realigned = t.align([outputs[i].source for i in need], [t.tokenizer.encode(outputs[i].target) for i in need])
            for i, a in zip(need, realigned):
                outputs[i] = a
        return outputs

    @classmethod
    def _needs_another(cls, output: AlignedText) -> bool:
        """Whether ``output`` (a model output for its ``source``) lost or repeated a placeholder, or
        repeated a bracket or sign: the pipeline takes another of the beam's hypotheses where one
        has neither (the inspector's beam and completions show the model's own ranking)."""
        return cls._placeholders_off(output) or any(
            output.target.count(sign) > output.source.count(sign) for sign in REPEATED_SIGNS)

    @staticmethod
    def _placeholders_off(output: AlignedText) -> bool:
        expected = sorted(PLACEHOLDER_RE.findall(output.source))
        return sorted(PLACEHOLDER_RE.findall(output.target)) != expected

    def _retry(self, source: str, aligned: bool, depth: int,
               on_retry: Callable[[str], None] | None = None) -> AlignedText | None:
        """``source`` translated in smaller pieces, joined into one AlignedText; None when it
        cannot be cut any further (one word)."""
        protected = [m.span() for m in PLACEHOLDER_RE.finditer(source)]
        pieces = smaller_pieces(source, (0, len(source)), self.count, protected, self.source)
        if len(pieces) < 2:
            return None
        parts = self.outputs([source[s:e] for s, e in pieces], aligned, depth + 1, on_retry)
        return concat(source, pieces, parts)


def concat(source: str, pieces: Sequence[Range], parts: Sequence[AlignedText]) -> AlignedText:
    """The translations of pieces of ``source`` joined into one, each fitted to its place in the
    sentence (no full stop inside it, lower case where its source starts lower case). Word spans
    and links are kept when every part has them, else the result carries the text only."""
    joined: list[W.Word] = []
    source_words: list[Range] = []
    for k, ((start, _), part) in enumerate(zip(pieces, parts)):
        def shifted(i: int, part: AlignedText = part, start: int = start) -> Range:
            return part.source_words[i][0] + start, part.source_words[i][1] + start

        words = W.from_aligned(part, shifted) if part.target_words else W.from_text(part.target)
        W.fit_boundaries(words, part.source, initial=k == 0)
        if words:
            words[0] = W.Word(words[0].text, " ", words[0].sources)
        joined += words
        source_words += [shifted(i) for i in range(len(part.source_words))]
    target, target_words = W.render(joined)
    if not all(part.target_words or not part.target for part in parts):
        return AlignedText(source, target)
    number = {span: i for i, span in enumerate(source_words)}
    links = sorted({(t, number[span]) for t, w in enumerate(joined) for span in w.sources})
    return AlignedText(source, target, source_words, target_words, links)
