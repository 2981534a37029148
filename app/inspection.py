"""The translation inspector's service side: why the model said what it said, and steering it.

``Inspector`` answers ``/api/sentences``, ``/api/explain``, ``/api/complete`` and ``/api/beam``
(``inspector.py``) and the beam page; it works on the service's translator and pipeline and holds
the service's model lock around every model call. Its model inputs are the pipeline's own
(``Pipeline.model_input``, ``Pipeline.finish``, and ``Pipeline.trace`` for ``explain``), and
the model reads and writes them as it does for ``/translate``: closed with the full stop the
pipeline adds to an input without end punctuation (``Pipeline.closed``), scored with the ending
the model wrote (``Pipeline.written``), shown without it (``Pipeline.reopened``). Unclosed, the
release model's confidence in "Hello" for "Hallo" was 0.69% (20.8% for "Hallo."), in "Good" for
"Guten Morgen" 5%.

What the user sees never holds a placeholder (⦅N1⦆: a glyph most fonts lack): words and
completions have their spans restored, the beam search's pieces show the span's text, or
``[number]`` / ``[text]`` for a placeholder the source lacks (``shown_piece``). Words with an
apostrophe are one word ("That's", "o'clock": ``join_apostrophes``).

- ``sentence_spans``: the sentences the pipeline translates one by one (``segment``), each with
  the text that goes before its translation when the pipeline joins them (``join_layout``);
- ``explain_translation``: the pipeline's translation of a text with its word alignment and the
  model's confidence in each word;
- ``explain_forced``: the same for a translation someone else chose (an alternative from
  ``/api/complete``), teacher-forced on the model input that ``/api/complete`` uses;
- ``as_json``: either one as ``/api/explain``'s answer;
- ``plausible``: the completions ``/api/complete`` keeps, within ``CompletionOptions.score_margin``
  (see there for the rules and the figures).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Any

import torch

from model.inference.alignment import AlignedText
from model.inference.channel import choice, ranked
from model.inference.explain import (
    UnwritablePrefix, follow_confidences, nfc_spans_in, normalize_prefix, slots_as_placeholders, unwritable)
from model.inference.translator import PrefixTooLong
from model.network.tokenizer import UNK_ID
from pipeline import words as W
from pipeline.segment import join_layout, segment
from pipeline.spans import PLACEHOLDER_RE, Masked
from pipeline.plan import ModelInput
from pipeline.translation import Pipeline

from .service import TooManyPieces, TranslationService, get_service


class BadPrefix(ValueError):
    """A completion prefix the model cannot be made to write (the message says why)."""


class BadTranslation(ValueError):
    """A translation to explain that the model cannot be made to write (the message says why)."""


class Inspector:
    """The inspector's calls on a ``TranslationService``: one sentence each (``q`` as
    /api/attention takes it). ``explain`` goes through the pipeline, so its translation is
    translate's; complete, beam and explain with a given translation give the model the pipeline's
    model input of the whole text (placeholders where the vocabulary has them, truecased) and
    restore the spans. ``sentence_spans`` says which sentences those are."""

    def __init__(self, service: TranslationService, options: CompletionOptions | None = None,
                 source: str = "de", target: str = "en", formality: str | None = None):
        """The inspector of the model of ``source`` into ``target`` (one the service serves), its
        German output addressing the reader with ``formality`` (``pipeline.formality``)."""
        self.service = service
        self.model = service.model(source, target)
        self.translator, self.pipeline = self.model.translator, self.model.pipeline_for(formality)
        self.source, self.target, self.formality = source, target, formality
        self.options = options if options is not None else COMPLETIONS

    # One sentence each (q as /api/attention takes it). explain goes through the pipeline, so its
    # translation is translate's; complete, beam and explain with a given translation give the
    # model the pipeline's model input of the whole text (placeholders where the vocabulary has
    # them, truecased) and restore the spans. sentence_spans says which sentences those are.

    def sentence_spans(self, text: str) -> list[dict[str, Any]]:
        """The sentences the pipeline translates one by one, with what goes between their
        translations (the module's ``sentence_spans``, in the source language); no model involved."""
        return sentence_spans(text, self.source)

    def explain(self, text: str, translation: str | None = None) -> dict[str, Any]:
        """Words of ``text`` and of its translation, their character spans, the word alignment and
        the model's probability of each output word: of the pipeline's translation
        (``explain_translation``), or of ``translation``, whitespace-normalized, forced on the
        model (``explain_forced``). Raises ``BadTranslation`` for a translation with
        characters the vocabulary lacks, ``TooManyPieces`` for one longer than the model writes."""
        if translation is None:
            # the pipeline cuts what is too long for the model
            self.service.check_pieces(text, limit=False, source=self.source, target=self.target)
            with self.model.calls(), torch.inference_mode():
                aligned, confidence = explain_translation(self.pipeline, text)
            return self._warned(as_json(text, aligned, confidence), text, aligned.target)
        model_input = self._model_input(text)
        masked = model_input.masked
        translation = " ".join(translation.split())
        model_output = translation if masked is None else slots_as_placeholders(translation, masked.slots)
        ids = self.translator.tokenizer.encode(self.pipeline.written(model_output, model_input.text))
        if UNK_ID in ids:
            lacking = unwritable(self.translator.tokenizer, model_output)
            raise BadTranslation(f"translation contains characters the model cannot write: {lacking}")
        if not self.translator.tokenizer.encode(model_output):
            raise BadTranslation("translation has no text the model can write")
        most = self.translator.config.max_source_pieces  # the decoder reads BOS and these pieces
        if len(ids) > most:
            raise TooManyPieces(f"translation has {len(ids)} pieces, more than the {most} the model writes at once")
        with self.service.model_lock, torch.inference_mode():
            aligned, confidence = explain_forced(self.pipeline, text, model_input, model_output)
        return self._warned(as_json(text, aligned, confidence), text, aligned.target)

    def _warned(self, answer: dict[str, Any], text: str, translation: str) -> dict[str, Any]:
        """``answer`` with what its translation may have got wrong (``TranslationService.warnings``),
        the same checks as /translate's, and as there only where a check found something."""
        [warnings] = self.service.warnings([text], [translation], source=self.source, target=self.target,
                                           formality=self.formality)
        return {**answer, "warnings": warnings} if warnings else answer

    def complete(self, text: str, prefix: str, n: int) -> list[dict[str, Any]]:
        """Up to ``n`` whole translations of ``text`` that start with ``prefix``
        (whitespace-normalized), best first by the model's length-normalized score of the whole
        sentence: for each of up to ``n`` distinct next words its best completion, then, while
        fewer than ``n``, the constrained beam search's other translations (``Translator.complete``
        with ``n_best`` = the beam size: none says a source word again), less those ``plausible``
        rejects. Each reads as ``/translate`` would show it (the full stop added for the model
        taken off again, spans restored). Raises ``BadPrefix`` for a prefix with characters the
        vocabulary lacks or too many pieces."""
        model_input = self._model_input(text)
        model_text, masked = model_input.text, model_input.masked
        closed = self.pipeline.closed(model_text)
        prefix = normalize_prefix(prefix)
        model_prefix = prefix if masked is None else slots_as_placeholders(prefix, masked.slots)
        search = self.pipeline.options.search
        with self.service.model_lock, torch.inference_mode():
            try:
                found = self.translator.torch.complete(closed, model_prefix, replace(search, n_best=search.beam_size),
                                                       n=n)
            except UnwritablePrefix as exc:
                raise BadPrefix(f"prefix contains characters the model cannot write: {exc.characters}") from None
            except PrefixTooLong as exc:
                raise BadPrefix(f"prefix has {exc.pieces} pieces, more than the {exc.limit} "
                                "the model can write") from None
        start = self.pipeline.restore(model_prefix, masked)  # what the prefix becomes again: the user's prefix
        completions: dict[str, float] = {}
        for output, score in found:  # best first; restoring may make two the same (an invented span dropped)
            # The model's stop after the prefix goes, as /translate drops it; one in the prefix stays.
            model_stop = len(output.rstrip()) > len(model_prefix.rstrip())
            reopened = self.pipeline.reopened(AlignedText(closed, output), model_text, stop=model_stop).target
            restored = self.pipeline.restore(reopened, masked)
            if restored.startswith(start):
                completions.setdefault(prefix + restored[len(start):], round(score, 4))
        kept = plausible(prefix, [Candidate(text, score) for text, score in completions.items()], n, self.options)
        return [{"text": c.text, "score": c.score} for c in kept]

    def beam(self, text: str) -> dict[str, Any]:
        """The beam search behind the model's translation of ``text``, step by step
        (``Translator.beam_trace``); the translations of the winner and of every hypothesis that
        ended with spans restored and the input's casing style applied. Where the service reranks
        this model's beams by the other direction's model (``ServedModel.channel``), ``reranked``:
        the ended hypotheses as its n-best lists rank them, best first, and the ``choice`` it
        serves among the contenders (``channel.choice``), searched as wide as the served beam
        (``ChannelReranked.served_search``). Log-probabilities and scores rounded to 4 places."""
        model_input = self._model_input(text)
        closed = self.pipeline.closed(model_input.text)
        channel = self.model.channel
        pieces = len(self.translator.source_ids([closed])[0])
        search = self.pipeline.options.search   # as wide as the served beam of this source
        search = channel.served_search(pieces, search) if channel is not None else search
        with self.service.model_lock, torch.inference_mode():
            trace = self.translator.torch.beam_trace(closed, search)
            ended = sorted((h for step in trace["steps"] for h in step["hypotheses"] if h["status"] == "ended"),
                           key=lambda h: -h["score"])   # the n-best order the channel reranks
            scores = (channel.channel.score_where_fits([closed] * len(ended), [h["translation"] for h in ended])
                      if channel is not None and ended else None)
        winner = trace["winner"]

        def shown(translation: str) -> str:
            reopened = self.pipeline.reopened(AlignedText(closed, translation), model_input.text).target
            return self.pipeline.finish(reopened, model_input)

        winner["translation"] = shown(winner["translation"])
        for h in ended:
            h["translation"] = shown(h["translation"])
        if scores is not None:
            order = ranked([h["score"] for h in ended], scores, channel.options)  # as the served engine ranks
            rows = [(ended[i], scores[i], combined) for i, combined in order]
            chosen = ended[choice([h["score"] for h in ended], scores, channel.options, pieces)]
            trace["reranked"] = {
                "weight": channel.options.weight,
                "choice": chosen["id"] if any(s is not None for s in scores) else winner["id"],
                "hypotheses": [{"id": h["id"], "translation": h["translation"], "score": round(h["score"], 4),
                                "channel": None if s is None else round(s.per_piece, 4),
                                "combined": None if s is None else round(c, 4)} for h, s, c in rows]}
        source_names, target_names = span_names(model_input.masked)
        trace["source_pieces"] = [shown_piece(p, source_names) for p in trace["source_pieces"]]
        for h in [winner, *(h for step in trace["steps"] for h in step["hypotheses"])]:
            h["pieces"] = [shown_piece(p, target_names) for p in h["pieces"]]
            if "piece" in h:
                h["piece"] = shown_piece(h["piece"], target_names)
            h["logprob"] = round(h["logprob"], 4)
            if "score" in h:
                h["score"] = round(h["score"], 4)
        return trace

    def _model_input(self, text: str) -> ModelInput:
        """The pipeline's model input for the whole of ``text`` (``Pipeline.model_input``): its
        text, its masking (None: no placeholders; restoring with it also drops placeholders the
        model invents) and casing style, for ``Pipeline.finish``. Raises NothingToTranslate and
        TooManyPieces (for the input as the model reads it, ``Pipeline.closed``)."""
        # the limit applies to what the model reads, below
        self.service.check_pieces(text, limit=False, source=self.source, target=self.target)
        model_input = self.pipeline.model_input(text)
        self.service.check_pieces(self.pipeline.closed(model_input.text), source=self.source, target=self.target)
        return model_input



def get_inspector(source: str = "de", target: str = "en", formality: str | None = None) -> Inspector:
    """The inspector of the current app's model of ``source`` into ``target``."""
    return Inspector(get_service(), source=source, target=target, formality=formality)


def sentence_spans(text: str, language: str = "de") -> list[dict[str, Any]]:
    """The sentences of ``text`` as the pipeline cuts it: ``text`` (as given), ``start`` and ``end``
    (character offsets in ``text``) and ``separator``, what goes before the sentence's translation
    in the joined translation ("" for the first, " " within a line, line breaks between lines)."""
    normal = unicodedata.normalize("NFC", text)  # the pipeline segments the NFC form (Pipeline.plan)
    layout = segment(normal, language)
    spans = [span for line in layout for span in line]
    if not spans:
        return []
    # The separators are whatever join_layout puts between one-character stand-ins.
    joined = join_layout(layout, ["x"] * len(spans))
    ends = [0] + [offset + 1 for offset in joined.offsets]
    separators = [joined.text[end:offset] for end, offset in zip(ends, joined.offsets)]
    return [{"text": text[s:e], "start": s, "end": e, "separator": separator}
            for (s, e), separator in zip(nfc_spans_in(text, spans), separators)]


def explain_translation(pipeline: Pipeline, text: str) -> tuple[AlignedText, list[float]]:
    """``pipeline.translate_aligned([text])[0]`` and a confidence per output word.

    Asks the pipeline for its trace (``Pipeline.trace``: the plan, every model input's output and
    the words made of it), so that nothing is run twice: each model output is scored by teacher forcing (``Translator.word_confidences``) as
    the model read and wrote it (``Pipeline.closed``: with the full stop the pipeline adds to an
    input without end punctuation; ``Pipeline.written``: with the stop the model wrote for it),
    the words that ``Pipeline.reopened`` takes off are left out again, and the others'
    probabilities are followed through the pipeline's edits (casing, restored spans, repaired
    placeholders) to the words of the result (``explain.follow_confidences``). A placeholder the
    model wrote and the pipeline restored has its piece's probability; words the model did not
    write (spans carried over between separately translated parts, placeholders put back) get
    1.0: copied, not predicted. A sentence whose translation lost a measure, a number word or a
    year is translated again, as ``translate`` does (``Pipeline.second_try``)."""
    trace = pipeline.trace([text])
    plan, outputs, results, aligned = trace.plan, trace.outputs, trace.words, trace.results[0]
    units = plan.units
    read = [pipeline.closed(o.source) for o in outputs]
    written = [pipeline.written(o.target, o.source) for o in outputs]
    scored = pipeline.translator.word_confidences(read, written)
    unit_confidence = {}
    for (chunk, unit), output, source, target, (spans, confidences) in zip(units, outputs, read, written, scored):
        shown = pipeline.reopened(AlignedText(source, target, target_words=spans), output.source)
        words = [pipeline.restore(shown.target[s:e], chunk.masked) for s, e in shown.target_words]
        unit_confidence[id(chunk), unit] = follow_confidences(
            words, confidences[:len(words)], [w.text for w in results[id(chunk), unit]])
    confidence = [c for sentence in plan.plans[0] for chunk in sentence
                  for c in ([1.0] if chunk.masked is None else
                            [c for unit in chunk.units for c in unit_confidence[id(chunk), unit]])]
    if len(confidence) != len(aligned.target_words):  # the pipeline assembles words otherwise now
        raise RuntimeError(f"{len(confidence)} confidences for {len(aligned.target_words)} words")
    return aligned, confidence


def explain_forced(pipeline: Pipeline, text: str, model_input: ModelInput,
                   model_output: str) -> tuple[AlignedText, list[float]]:
    """``model_output`` (an English text for ``model_input``, with its placeholders where its
    spans stand) explained as ``explain_translation`` explains the model's own output: the word
    alignment from the model's attention when forced to write it (``Translator.align``), each
    word's probability by teacher forcing (``Translator.word_confidences``), both on the input as
    the model reads it (``Pipeline.closed``) and the output as the model would write it for that
    (``Pipeline.written``), then reopened (``Pipeline.reopened``: a full stop the translation
    itself ends with stays) and the spans restored. ``model_input`` is what ``/api/complete``
    gives the model for ``text`` (NFC): the whole of it as one input.

    For a sentence the pipeline translates as one input, the model's own translation comes out
    exactly as ``explain_translation`` gives it: the same words, links and confidences."""
    translator = pipeline.translator
    tokenizer = translator.tokenizer
    masked = model_input.masked
    read = pipeline.closed(model_input.text)
    written = pipeline.written(model_output, model_input.text)
    [forced] = translator.align([read], [tokenizer.encode(written)])
    [(spans, confidences)] = translator.word_confidences([read], [written])
    if spans != forced.target_words:  # both are alignment.target_words of the same pieces
        raise RuntimeError(f"{len(confidences)} confidences for {len(forced.target_words)} words")
    aligned = pipeline.reopened(forced, model_input.text, stop=written != model_output)
    confidences = confidences[:len(aligned.target_words)]

    def original(i: int) -> tuple[int, int]:
        s, e = aligned.source_words[i]
        return masked.original_span(s, e) if masked is not None else (s, e)

    words: list[W.Word] = []
    confidence: list[float] = []
    restorer = pipeline.restorer(masked) if masked is not None else None
    for word, c in zip(W.from_aligned(aligned, original), confidences):
        # One word at a time, so each keeps its confidence; a placeholder the source lacks goes.
        for kept in (restorer.words([word]) if restorer is not None else [word]):
            words.append(kept)
            confidence.append(c)
    target, target_words = W.render(words)
    # As Pipeline._assemble numbers them: the source words that some target word is aligned to.
    source_words = sorted({span for w in words for span in w.sources})
    number = {span: i for i, span in enumerate(source_words)}
    links = sorted({(t, number[span]) for t, w in enumerate(words) for span in w.sources})
    return AlignedText(unicodedata.normalize("NFC", text), target, source_words, target_words, links), confidence


def as_json(text: str, aligned: AlignedText, confidence: list[float]) -> dict[str, Any]:
    """``/api/explain``'s answer: ``aligned``'s source spans (of NFC ``text``) as spans of ``text``
    as given, the words as strings (words with an apostrophe as one: ``join_apostrophes``),
    confidences rounded to 4 places."""
    aligned, confidence = join_apostrophes(aligned, confidence)
    source_spans = [list(span) for span in nfc_spans_in(text, aligned.source_words)]
    return {"translation": aligned.target,
            "source_words": [text[s:e] for s, e in source_spans], "source_spans": source_spans,
            "target_words": [aligned.target[s:e] for s, e in aligned.target_words],
            "target_spans": [list(span) for span in aligned.target_words],
            "alignment": [list(link) for link in aligned.links],
            "confidence": [round(c, 4) for c in confidence]}


# ------------------------------------------------------------------------------ words for the UI

_APOSTROPHES = frozenset("'’")


def join_apostrophes(aligned: AlignedText, confidence: list[float]) -> tuple[AlignedText, list[float]]:
    """``aligned`` with the target words that an apostrophe joins as one: "That" "'" "s" becomes
    "That's" ("o'clock", "don't", "Tom's", "rock'n'roll"), as a reader counts words (the model's
    word rule, ``alignment.word_spans``, makes every punctuation mark a word). An apostrophe joins
    only between letters or digits, with no space on either side: a quote ("'Hallo'") or the
    students' apostrophe stays a word of its own. The joined word is aligned to every source word
    its parts were, and its confidence is the product of theirs: the probability of spelling the
    whole of it, as a word's is the product of its pieces'."""
    target, spans = aligned.target, aligned.target_words

    def joins(k: int) -> bool:  # do words k, k + 1 and k + 2 read as one ("That" "'" "s")?
        if k + 2 >= len(spans):
            return False
        (_, end), (quote, after), (start, _) = spans[k:k + 3]
        return (target[quote:after] in _APOSTROPHES and end == quote and after == start
                and target[end - 1].isalnum() and target[start].isalnum())

    groups: list[list[int]] = []
    k = 0
    while k < len(spans):
        group = [k]
        while joins(group[-1]):
            group += [group[-1] + 1, group[-1] + 2]
        groups.append(group)
        k = group[-1] + 1
    if len(groups) == len(spans):
        return aligned, confidence
    where = {old: new for new, group in enumerate(groups) for old in group}
    words = [(spans[group[0]][0], spans[group[-1]][1]) for group in groups]
    links = sorted({(where[t], s) for t, s in aligned.links})
    return (AlignedText(aligned.source, target, aligned.source_words, words, links),
            [math.prod(confidence[k] for k in group) for group in groups])


def span_names(masked: Masked | None) -> tuple[dict[str, str], dict[str, str]]:
    """What each placeholder of ``masked`` stands for: in the source, the text it replaced; in
    the output, the text it is restored as (a number in its English form)."""
    if masked is None:
        return {}, {}
    source = {masked.text[ms:me]: masked.original[os:oe] for ms, me, os, oe in masked.regions
              if masked.text[ms:me] in masked.slots}  # not the ß written for SS (Masked.respelled)
    return source, dict(masked.slots)


PLACEHOLDER_LABELS = {"N": "[number]", "X": "[text]"}


def shown_piece(piece: str, names: dict[str, str]) -> str:
    """A model piece as the user sees it: a placeholder (⦅N1⦆, a glyph most fonts lack) as the
    text it stands for, or, for one the source lacks, as a label of its kind ("[number]")."""
    return PLACEHOLDER_RE.sub(lambda m: names.get(m[0]) or PLACEHOLDER_LABELS[m[0][1]], piece)


# ------------------------------------------------------------------------------ completions

@dataclass(frozen=True)
class CompletionOptions:
    """What ``/api/complete`` offers (``plausible``); checked once, when made (ValueError)."""

    # How far below the best completion's score (beam search's: log-probability / GNMT length
    # penalty of the whole sentence; the prefix is the same, so the gap is its continuation's) a
    # completion may be. The score tells a grammatical alternative from an ungrammatical one only
    # roughly; 3 drops "Can you told me ..." and "Can you telling me ..." and leaves 4 in 5 of those
    # offered grammatical, where 5 left 2 in 3, at the price of fewer words with any: measured in
    # bench/README.md, "alternatives.py".
    score_margin: float = 3.0

    def __post_init__(self) -> None:
        if isinstance(self.score_margin, bool) or not isinstance(self.score_margin, (int, float)) \
                or not self.score_margin >= 0:
            raise ValueError(f"score_margin must be a number >= 0, got {self.score_margin!r}")


COMPLETIONS = CompletionOptions()

_WORDS = re.compile(r"\w+")
_TRAILING = re.compile(r"[^\w\s]+$")  # punctuation and symbols at a word's end


@dataclass(frozen=True)
class Candidate:
    text: str    # the whole translation, starting with the prefix
    score: float


def plausible(prefix: str, candidates: list[Candidate], n: int,
              options: CompletionOptions = COMPLETIONS) -> list[Candidate]:
    """Up to ``n`` of ``candidates`` (completions of ``prefix``, normalized, best score first)
    worth offering, best first: the best completion for each word the candidates put at the
    prefix's end (``word_at``: from where the prefix's last word starts to the next space, less
    punctuation after it), then, while fewer than ``n``, the next best for a word already there. The first, the model's own continuation,
    is always kept. Left out:

    - what puts the same word at the prefix's end as a better one, in other letter case ("me",
      "Me", "ME": one word to the reader), and an empty translation (the model's stop alone);
    - a word glued onto the prefix's last word where the model itself ends that word there:
      "That's why I" goes on with " missed", so "IT", "It's why", "If" are not alternatives ("Where
      is the tr" goes on with "ain": a prefix ending inside a word is continued, as asked);
    - a completion that repeats the prefix: its first new word doubles the prefix's last ("a a",
      "why why") or it has a two-word sequence of the prefix again ("That's why It's why I"),
      where the best completion does not;
    - a score more than ``options.score_margin`` below the best."""
    if not candidates:
        return []
    best = candidates[0]
    partial = "" if prefix.endswith(" ") else prefix.rpartition(" ")[2]
    at = len(prefix) - len(partial)  # where the word at the prefix's end starts
    glued_ok = not prefix[-1:].isalnum() or best.text[len(prefix):len(prefix) + 1].isalnum()
    prefix_words = _WORDS.findall(prefix[:at].casefold())
    best_words = _WORDS.findall(best.text.casefold())
    heads = {word_at(best.text, at).casefold(): word_at(best.text, at)}  # each word as first written
    firsts, others = [best], []
    for c in candidates[1:]:
        head = word_at(c.text, at)
        if heads.get(head.casefold(), head) != head or not c.text.strip():
            continue
        if best.score - c.score > options.score_margin:
            continue
        if not glued_ok and c.text[len(prefix):len(prefix) + 1].isalnum():
            continue
        if prefix_words and _repeats(prefix_words, _WORDS.findall(c.text.casefold()), best_words):
            continue
        (others if head.casefold() in heads else firsts).append(c)
        heads.setdefault(head.casefold(), head)
    kept = firsts[:n]
    kept += others[:n - len(kept)]
    return sorted(kept, key=lambda c: -c.score)


def word_at(text: str, at: int) -> str:
    """The word a completion puts at the prefix's end: from ``at`` to the next space, less the
    punctuation at its end ("station?" and "station??" are one word; "?" alone is a word)."""
    run = re.match(r"\S*", text[at:])[0]
    return _TRAILING.sub("", run) or run


def _repeats(prefix_words: list[str], words: list[str], best_words: list[str]) -> bool:
    """Does a completion (``words``) repeat its prefix (``prefix_words``, complete words only)
    where the best completion (``best_words``) does not?"""
    n = len(prefix_words)
    if len(words) > n and words[n] == prefix_words[-1] and not (len(best_words) > n and best_words[n] == prefix_words[-1]):
        return True

    def pairs(ws: list[str]) -> dict[tuple[str, str], int]:
        counts: dict[tuple[str, str], int] = {}
        for pair in zip(ws, ws[1:]):
            counts[pair] = counts.get(pair, 0) + 1
        return counts

    mine, theirs = pairs(words), pairs(best_words)
    return any(mine.get(pair, 0) > max(1, theirs.get(pair, 0)) for pair in zip(prefix_words, prefix_words[1:]))
