"""What planning makes of texts (``Pipeline.plan``), and what the later stages read: the chunks of
each sentence (``Chunk``), every model input (``Plan.units``), a whole text as one model input
(``ModelInput``) and a translation's stages (``Trace``).

Planning (``pipeline.translation``) writes these, choosing (``pipeline.choosing``) translates
``Plan.sources`` and assembling (``pipeline.assembling``) puts the outputs back together from them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from model.inference.alignment import AlignedText, Range

from .spans import SLOTS, Masked, Span, slot_key


@dataclass
class Chunk:
    """A stretch of one text that is either carried over verbatim or translated as a whole."""

    start: int                    # in the original text
    end: int
    masked: Masked | None = None  # None: carried over, as ``verbatim``
    verbatim: str = ""            # the English form of a carried-over span (numbers converted)
    style: str = "normal"
    # ``masked.text`` is what the model reads (truecased where asked; the Translator normalizes
    # whitespace and maps word spans back)
    units: list[Range] = field(default_factory=list)  # model inputs, spans of ``masked.text``
    initial: bool = True          # no words of its sentence come before it
    whole: bool = True            # the sentence's only chunk


@dataclass(frozen=True)
class ModelInput:
    """A whole text as the model reads it in one input (``Pipeline.model_input``): ``text`` with
    placeholders for its spans (``masked``; None with a vocabulary without placeholders, or when
    there are more spans than placeholders), truecased when the words are ALL CAPS or Title Case
    (``style``)."""

    text: str
    masked: Masked | None
    style: str = "normal"


@dataclass
class Plan:
    """Texts cut for translation (``Pipeline.plan``): per text its layout (lines of sentences) and
    chunks, and ``units``, every model input as (chunk, span of the chunk's ``masked.text``)."""

    texts: list[str]
    layouts: list
    plans: list[list[list[Chunk]]]
    units: list[tuple[Chunk, Range]]

    @property
    def sources(self) -> list[str]:
        """The model inputs, in order."""
        return [chunk.masked.text[s:e] for chunk, (s, e) in self.units]


@dataclass
class Trace:
    """What a translation went through, stage by stage (``Pipeline.trace``), for the inspector to
    show rather than run the stages again: the ``plan`` (sentences, chunks, masked model inputs;
    after ``second_try``), the model's ``outputs`` for ``plan.units``, each unit's output ``words``
    as repaired and restored (``output_words``: ``{(id(chunk), unit): [Word, ...]}``), and the
    ``results``, one aligned translation per text."""

    plan: Plan
    outputs: list[AlignedText]
    words: dict
    results: list[AlignedText]


def units_of(plans: list[list[list[Chunk]]]) -> list[tuple[Chunk, Range]]:
    """Every model input of the texts' ``plans`` (sentences of chunks), in order."""
    return [(chunk, unit) for plan in plans for sentence in plan for chunk in sentence
            if chunk.masked is not None for unit in chunk.units]


def slot_groups(sentence: str, spans: Sequence[Span]) -> list[tuple[int, int, list[Span]]]:
    """The sentence cut into parts (start, end, spans) whose distinct spans fit the placeholders of
    each family: one part when they all fit, else cuts at the last space before the first span
    that would not fit (a part never ends inside a span). Parts are stripped of outer whitespace."""
    parts: list[tuple[int, int, list[Span]]] = []
    begin, current, seen = 0, [], {family: set() for family in SLOTS}
    for span in spans:
        if slot_key(span) not in seen[span.family] and len(seen[span.family]) == SLOTS[span.family]:
            space = sentence.rfind(" ", current[-1].end, span.start)
            cut = space if space >= 0 else span.start
            parts.append((begin, cut, current))
            begin, current, seen = cut, [], {family: set() for family in SLOTS}
        seen[span.family].add(slot_key(span))
        current.append(span)
    parts.append((begin, len(sentence), current))
    trimmed = []
    for s, e, group in parts:
        piece = sentence[s:e]
        s, e = s + len(piece) - len(piece.lstrip()), e - (len(piece) - len(piece.rstrip()))
        trimmed.append((s, e, group))
    return trimmed


_SENTENCE_END = re.compile(r"[.!?…][\"'“”»«)\]]*\s*$")


def fragment(text: str, start: int, end: int) -> bool:
    """Whether the sentence ``text[start:end]`` opens the text and ends without a sentence's
    punctuation (". ! ? …"): a label or software message ("konnte Datei nicht öffnen"), whose lower
    case is meant, rather than a sentence typed in lower case ("ich habe keine zeit.") or a
    letter's body after its salutation."""
    return not text[:start].strip() and not _SENTENCE_END.search(text, start, end)


def shifted(span: Span, by: int) -> Span:
    return Span(span.start + by, span.end + by, span.kind, span.text, span.target)
