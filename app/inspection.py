"""The translation inspector's service side: why the model said what it said, and steering it.

``Inspector`` answers ``/api/sentences``, ``/api/explain``, ``/api/complete`` and ``/api/beam``
(``inspector.py``) and the beam page; it works on the service's translator and pipeline and holds
the service's model lock around every model call. Its model inputs are the pipeline's own
(``Pipeline.model_input``, ``Pipeline.finish``, and the pipeline's stages for ``explain``).

- ``sentence_spans``: the sentences the pipeline translates one by one (``segment``), each with
  the text that goes before its translation when the pipeline joins them (``join_layout``);
- ``explain_translation``: the pipeline's translation of a text with its word alignment and the
  model's confidence in each word;
- ``explain_forced``: the same for a translation someone else chose (an alternative from
  ``/api/complete``), teacher-forced on the model input that ``/api/complete`` uses;
- ``as_json``: either one as ``/api/explain``'s answer.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import torch

from model.inference.alignment import AlignedText
from model.inference.explain import (
    UnwritablePrefix, follow_confidences, nfc_spans_in, normalize_prefix, slots_as_placeholders, unwritable)
from model.inference.translator import PrefixTooLong
from model.network.tokenizer import UNK_ID
from pipeline import words as W
from pipeline.segment import join_layout, segment
from pipeline.spans import Masked, restore
from pipeline.translation import ModelInput, Pipeline

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

    def __init__(self, service: TranslationService):
        self.service = service
        self.translator, self.pipeline = service.translator, service.pipeline

    # One sentence each (q as /api/attention takes it). explain goes through the pipeline, so its
    # translation is translate's; complete, beam and explain with a given translation give the
    # model the pipeline's model input of the whole text (placeholders where the vocabulary has
    # them, truecased) and restore the spans. sentence_spans says which sentences those are.

    @staticmethod
    def sentence_spans(text: str) -> list[dict[str, Any]]:
        """The sentences the pipeline translates one by one, with what goes between their
        translations (the module's ``sentence_spans``); no model involved."""
        return sentence_spans(text)

    def explain(self, text: str, translation: str | None = None) -> dict[str, Any]:
        """Words of ``text`` and of its translation, their character spans, the word alignment and
        the model's probability of each output word: of the pipeline's translation
        (``explain_translation``), or of ``translation``, whitespace-normalized, forced on the
        model (``explain_forced``). Raises ``BadTranslation`` for a translation with
        characters the vocabulary lacks, ``TooManyPieces`` for one longer than the model writes."""
        if translation is None:
            self.service.check_pieces(text, limit=False)  # the pipeline cuts what is too long for the model
            with self.service.model_calls(), torch.inference_mode():
                aligned, confidence = explain_translation(self.pipeline, text)
            return as_json(text, aligned, confidence)
        model_text, masked, _ = self._model_input(text)
        translation = " ".join(translation.split())
        model_output = translation if masked is None else slots_as_placeholders(translation, masked.slots)
        ids = self.translator.tokenizer.encode(model_output)
        if UNK_ID in ids:
            lacking = unwritable(self.translator.tokenizer, model_output)
            raise BadTranslation(f"translation contains characters the model cannot write: {lacking}")
        if not ids:
            raise BadTranslation("translation has no text the model can write")
        most = self.translator.config.max_len - 1  # the decoder reads BOS and these pieces
        if len(ids) > most:
            raise TooManyPieces(f"translation has {len(ids)} pieces, more than the {most} the model writes at once")
        with self.service.model_lock, torch.inference_mode():
            aligned, confidence = explain_forced(self.translator, text, model_text, model_output, masked)
        return as_json(text, aligned, confidence)

    def complete(self, text: str, prefix: str, n: int) -> list[dict[str, Any]]:
        """Up to ``n`` translations of ``text`` that start with ``prefix`` (whitespace-normalized)
        and go on with distinct next words (``Translator.complete``), best first. Raises
        ``BadPrefix`` for a prefix with characters the vocabulary lacks or too many pieces."""
        model_text, masked, _ = self._model_input(text)
        prefix = normalize_prefix(prefix)
        model_prefix = prefix if masked is None else slots_as_placeholders(prefix, masked.slots)
        o = self.pipeline.options
        with self.service.model_lock, torch.inference_mode():
            try:
                found = self.translator.torch.complete(model_text, model_prefix, n=n, beam_size=o.beam_size,
                                                 length_penalty=o.length_penalty,
                                                 no_repeat_ngram_size=o.no_repeat_ngram_size)
            except UnwritablePrefix as exc:
                raise BadPrefix(f"prefix contains characters the model cannot write: {exc.characters}") from None
            except PrefixTooLong as exc:
                raise BadPrefix(f"prefix has {exc.pieces} pieces, more than the {exc.limit} "
                                "the model can write") from None
        start = restore_spans(model_prefix, masked)  # what the prefix becomes again: the user's prefix
        completions: dict[str, float] = {}
        for output, score in found:  # best first; restoring may make two the same (an invented span dropped)
            restored = restore_spans(output, masked)
            if restored.startswith(start):
                completions.setdefault(prefix + restored[len(start):], round(score, 4))
        return [{"text": text, "score": score} for text, score in completions.items()]

    def beam(self, text: str) -> dict[str, Any]:
        """The beam search behind the model's translation of ``text``, step by step
        (``Translator.beam_trace``); the winner's translation with spans restored and the input's
        casing style applied. Log-probabilities and scores rounded to 4 places."""
        model_text, masked, model_input = self._model_input(text)
        o = self.pipeline.options
        with self.service.model_lock, torch.inference_mode():
            trace = self.translator.torch.beam_trace(model_text, beam_size=o.beam_size, length_penalty=o.length_penalty,
                                               no_repeat_ngram_size=o.no_repeat_ngram_size)
        winner = trace["winner"]
        winner["translation"] = self.pipeline.finish(winner["translation"], model_input)
        for h in [winner, *(h for step in trace["steps"] for h in step["hypotheses"])]:
            h["logprob"] = round(h["logprob"], 4)
            if "score" in h:
                h["score"] = round(h["score"], 4)
        return trace

    def _model_input(self, text: str) -> tuple[str, Masked | None, ModelInput]:
        """The pipeline's model input for the whole of ``text`` (``Pipeline.model_input``): its
        text, its masking (None: no placeholders; restoring with it also drops placeholders the
        model invents), and the input itself, for ``Pipeline.finish``. Raises NothingToTranslate
        and TooManyPieces."""
        self.service.check_pieces(text, limit=False)  # the limit applies to what the model reads, below
        model_input = self.pipeline.model_input(text)
        self.service.check_pieces(model_input.text)
        return model_input.text, model_input.masked, model_input



def get_inspector() -> Inspector:
    """The inspector on the current app's service."""
    return Inspector(get_service())


def sentence_spans(text: str) -> list[dict[str, Any]]:
    """The sentences of ``text`` as the pipeline cuts it: ``text`` (as given), ``start`` and ``end``
    (character offsets in ``text``) and ``separator``, what goes before the sentence's translation
    in the joined translation ("" for the first, " " within a line, line breaks between lines)."""
    normal = unicodedata.normalize("NFC", text)  # the pipeline segments the NFC form (Pipeline.plan)
    layout = segment(normal)
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

    Runs the pipeline's stages itself (``plan``, ``model_outputs``, ``assemble``), to keep every model input's output: each is scored
    by teacher forcing (``Translator.word_confidences``) and its words' probabilities are followed
    through the pipeline's edits (casing, restored spans, repaired placeholders) to the words of
    the result (``explain.follow_confidences``). A placeholder the model wrote and the pipeline
    restored has its piece's probability; words the model did not write (spans carried over
    between separately translated parts, placeholders put back) get 1.0: copied, not predicted."""
    plan = pipeline.plan([text])
    outputs = pipeline.model_outputs(plan.sources, True)
    aligned = pipeline.assemble(plan, outputs)[0]
    units = plan.units
    results = pipeline.output_words(units, outputs)
    scored = pipeline.translator.word_confidences([o.source for o in outputs], [o.target for o in outputs])
    unit_confidence = {}
    for (chunk, unit), output, (spans, confidences) in zip(units, outputs, scored):
        words = [restore_spans(output.target[s:e], chunk.masked) for s, e in spans]
        unit_confidence[id(chunk), unit] = follow_confidences(
            words, confidences, [w.text for w in results[id(chunk), unit]])
    confidence = [c for sentence in plan.plans[0] for chunk in sentence
                  for c in ([1.0] if chunk.masked is None else
                            [c for unit in chunk.units for c in unit_confidence[id(chunk), unit]])]
    if len(confidence) != len(aligned.target_words):  # the pipeline assembles words otherwise now
        raise RuntimeError(f"{len(confidence)} confidences for {len(aligned.target_words)} words")
    return aligned, confidence


def explain_forced(translator: Any, text: str, model_text: str, model_output: str,
           masked: Masked | None) -> tuple[AlignedText, list[float]]:
    """``model_output`` (an English text for ``model_text``, with ``masked``'s placeholders where
    its spans stand) explained as ``explain_translation`` explains the model's own output: the word alignment
    from the model's attention when forced to write it (``Translator.align``), each word's
    probability by teacher forcing (``Translator.word_confidences``), spans restored. ``model_text``
    is what ``/api/complete`` gives the model for ``text`` (NFC): the whole of it as one input.

    For a sentence the pipeline translates as one input, the model's own translation comes out
    exactly as ``explain_translation`` gives it: the same words, links and confidences."""
    tokenizer = translator.tokenizer
    [aligned] = translator.align([model_text], [tokenizer.encode(model_output)])
    [(spans, confidences)] = translator.word_confidences([model_text], [model_output])
    if spans != aligned.target_words:  # both are alignment.target_words of the same pieces
        raise RuntimeError(f"{len(confidences)} confidences for {len(aligned.target_words)} words")

    def original(i: int) -> tuple[int, int]:
        s, e = aligned.source_words[i]
        return masked.original_span(s, e) if masked is not None else (s, e)

    words: list[W.Word] = []
    confidence: list[float] = []
    for word, c in zip(W.from_aligned(aligned, original), confidences):
        # One word at a time, so each keeps its confidence; a placeholder the source lacks goes.
        for kept in (W.restore_words([word], masked.slots) if masked is not None else [word]):
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
    as given, the words as strings, confidences rounded to 4 places."""
    source_spans = [list(span) for span in nfc_spans_in(text, aligned.source_words)]
    return {"translation": aligned.target,
            "source_words": [text[s:e] for s, e in source_spans], "source_spans": source_spans,
            "target_words": [aligned.target[s:e] for s, e in aligned.target_words],
            "target_spans": [list(span) for span in aligned.target_words],
            "alignment": [list(link) for link in aligned.links],
            "confidence": [round(c, 4) for c in confidence]}


def restore_spans(output: str, masked: Masked | None) -> str:
    """``output`` with ``masked``'s spans put back (as it is without a masking)."""
    return restore(output, masked) if masked is not None else output
