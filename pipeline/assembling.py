"""Assembling: the model's outputs of a plan put back together into one aligned translation per
text, the last stage of ``Pipeline`` (``pipeline.translation``).

Each model input's output becomes words linked to spans of the original text (``unit_words``):
placeholders the model lost or moved repaired where the alignment says they belong, the input's
casing style applied, a glossary's terms fitted, and the spans restored with the rules' repairs
(``words.Restorer``). A text's words are then joined sentence by sentence into its layout
(``assembled``).
"""

from __future__ import annotations

from collections.abc import Sequence

from model.inference.alignment import AlignedText, Range

from . import words as W
from .glossary import fit_terms
from .plan import Chunk
from .segment import join_layout
from .spans import PLACEHOLDER_RE


def unit_words(chunk: Chunk, unit: Range, output: AlignedText, restorer: W.Restorer, *, truecase: bool,
               target: str) -> list[W.Word]:
    """The unit's output as words linked to original-text spans, placeholders repaired and
    restored by the chunk's ``restorer`` (``truecase``: the pipeline truecases its inputs, so a
    sentence's first word is capitalized as it starts; ``target``: the output's language, which
    a glossary's terms are fitted to)."""
    offset = unit[0]

    def original(i: int) -> Range:
        s, e = output.source_words[i]
        o_start, o_end = chunk.masked.original_span(offset + s, offset + e)
        return chunk.start + o_start, chunk.start + o_end

    words = W.from_aligned(output, original) if output.target_words else W.from_text(output.target)
    if not (chunk.whole and len(chunk.units) == 1):  # a piece of a sentence: make it fit in
        W.fit_boundaries(words, output.source, initial=chunk.initial and offset == 0)
    anchors = [original(i) for i in range(len(output.source_words))]
    occurrences: dict[str, list[Range]] = {}  # each placeholder's source words, one per occurrence
    for i, (s, e) in enumerate(output.source_words):
        for symbol in PLACEHOLDER_RE.findall(output.source[s:e]):
            occurrences.setdefault(symbol, []).append(anchors[i])
    edges = _edges(output, anchors)
    for symbol, sources in occurrences.items():
        W.repair_placeholder(words, symbol, sources, anchors, edges)
    styled = W.restyle(words, chunk.style)
    if chunk.initial and offset == 0:
        styled = W.capitalize_first(styled, chunk.masked)
        if truecase:
            styled = W.capitalize_start(styled, chunk.masked)
    slots = chunk.masked.slots
    if chunk.masked.glossary:
        slots = fit_terms(styled, chunk.masked, chunk.style, initial=chunk.initial and offset == 0,
                          target=target)
    return restorer.words(styled, slots)

def assembled(text: str, layout, plan: list[list[Chunk]], results: dict) -> AlignedText:
    """The text's translation and alignment from its sentences' chunks (``plan``: a text's
    sentences, each a list of chunks) and their units' words (``results``: ``{(id(chunk), unit):
    [Word, ...]}``), in its ``layout``."""
    sentence_words: list[list[W.Word]] = []
    for sentence in plan:
        out: list[W.Word] = []
        for chunk in sentence:
            if chunk.masked is None:
                pieces = [[W.Word(chunk.verbatim, " ", ((chunk.start, chunk.end),))]]
                starts = [chunk.start]
            else:
                pieces = [results[id(chunk), unit] for unit in chunk.units]
                starts = [chunk.start + chunk.masked.original_span(s, s)[0]
                          for s, _ in chunk.units]
            for begin, words in zip(starts, pieces):
                if words:
                    # As in the source, unless that would merge two words into one.
                    glued = bool(out) and begin > 0 and not text[begin - 1].isspace() and not (
                        words[0].text[:1].isalnum() and out[-1].text[-1:].isalnum())
                    words[0] = W.Word(words[0].text, "" if glued else " ", words[0].sources)
                    out.extend(words)
        sentence_words.append(out)
    rendered = [W.render(words) for words in sentence_words]
    joined = join_layout(layout, [r[0] for r in rendered])
    source_words = sorted({span for words in sentence_words for w in words for span in w.sources})
    number = {span: i for i, span in enumerate(source_words)}
    target_words, links = [], []
    for offset, words, (_, spans) in zip(joined.offsets, sentence_words, rendered):
        for w, (s, e) in zip(words, spans):
            t = len(target_words)
            target_words.append((offset + s, offset + e))
            links.extend((t, number[span]) for span in w.sources)
    return AlignedText(text, joined.text, source_words, target_words, sorted(set(links)))


def _edges(output: AlignedText, anchors: Sequence[Range]) -> dict[Range, str]:
    """Source words that open or close the text behind nothing but placeholders and punctuation
    ("Es regnet. ⦅X1⦆ ⦅X2⦆", "⦅X1⦆: Hallo"), as ``words.insert_placeholder``'s edges."""
    texts = [output.source[s:e] for s, e in output.source_words]
    filler = [bool(PLACEHOLDER_RE.fullmatch(t)) or not any(c.isalnum() for c in t) for t in texts]
    edges: dict[Range, str] = {}
    for i, t in enumerate(texts):
        if not PLACEHOLDER_RE.fullmatch(t) or all(filler):
            continue
        if all(filler[:i]):
            edges[anchors[i]] = "start"
        elif all(filler[i + 1:]):
            last_word = max(k for k in range(i) if not filler[k])
            final = any(texts[k] and texts[k][-1] in ".!?…" for k in range(last_word + 1, i))
            edges[anchors[i]] = "end" if final else "end_before_punctuation"
    return edges
