"""The translation inspector's answers, put together from the text pipeline's own steps (for
``service.py``, which holds the lock around the model calls; views never see any of this):

- ``sentence_spans``: the sentences the pipeline translates one by one (``segment``), each with
  the text that goes before its translation when the pipeline joins them (``join_layout``);
- ``explained``: the pipeline's translation of a text with its word alignment and the model's
  confidence in each word;
- ``forced``: the same for a translation someone else chose (an alternative from
  ``/api/complete``), teacher-forced on the model input that ``/api/complete`` uses;
- ``as_json``: either one as ``/api/explain``'s answer.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from model.inference.alignment import AlignedText
from model.inference.explain import follow_confidences, nfc_spans_in
from pipeline import words as W
from pipeline.segment import join_layout, segment
from pipeline.spans import Masked, restore
from pipeline.translate import Pipeline


def sentence_spans(text: str) -> list[dict[str, Any]]:
    """The sentences of ``text`` as the pipeline cuts it: ``text`` (as given), ``start`` and ``end``
    (character offsets in ``text``) and ``separator``, what goes before the sentence's translation
    in the joined translation ("" for the first, " " within a line, line breaks between lines)."""
    normal = unicodedata.normalize("NFC", text)  # the pipeline segments the NFC form (Pipeline._plan)
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


def explained(pipeline: Pipeline, text: str) -> tuple[AlignedText, list[float]]:
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
        words = [restored(output.target[s:e], chunk.masked) for s, e in spans]
        unit_confidence[id(chunk), unit] = follow_confidences(
            words, confidences, [w.text for w in results[id(chunk), unit]])
    confidence = [c for sentence in plan.plans[0] for chunk in sentence
                  for c in ([1.0] if chunk.masked is None else
                            [c for unit in chunk.units for c in unit_confidence[id(chunk), unit]])]
    if len(confidence) != len(aligned.target_words):  # the pipeline assembles words otherwise now
        raise RuntimeError(f"{len(confidence)} confidences for {len(aligned.target_words)} words")
    return aligned, confidence


def forced(translator: Any, text: str, model_text: str, model_output: str,
           masked: Masked | None) -> tuple[AlignedText, list[float]]:
    """``model_output`` (an English text for ``model_text``, with ``masked``'s placeholders where
    its spans stand) explained as ``explained`` explains the model's own output: the word alignment
    from the model's attention when forced to write it (``Translator.align``), each word's
    probability by teacher forcing (``Translator.word_confidences``), spans restored. ``model_text``
    is what ``/api/complete`` gives the model for ``text`` (NFC): the whole of it as one input.

    For a sentence the pipeline translates as one input, the model's own translation comes out
    exactly as ``explained`` gives it: the same words, links and confidences."""
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


def restored(output: str, masked: Masked | None) -> str:
    return restore(output, masked) if masked is not None else output
