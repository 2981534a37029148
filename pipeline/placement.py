"""Where each inline tag of a translated segment goes: its place among the output words.

``pipeline.markup`` reads a document into segments, each a plain text and a tree of ``Node``s (the
inline elements and atoms, with the character range each covers), and writes the markup back
around the translation. In between, this module places every node on the word-aligned output
(``place``): the node's ``lo``/``hi``/``glue`` say which output words it goes around, or, for a
point, next to which word it sits. It is apart from the reading and writing because it answers
a different question, from the word alignment (and a dictionary) rather than from HTML: either
side can be read and changed without the other. ``Node`` lives here, not in ``markup``, so that
``markup`` imports this module and nothing imports back (tests/test_layers.py: no import cycle).

1. Each node is projected onto the range of output words aligned to its source words; where output
   words that translate the sentence around it cut that range, onto the run that translates it
   best (``_densest_run``). A node whose words align to nothing (and every point) is placed,
   empty, next to the output of its nearest aligned neighbour word (``_anchor``).
2. A word at either end of a projection that is all there is of a source word outside the
   element is left out (``_trim_others``). A projection is kept only where its words can be the
   translation of the element's words (``_credible``); else the element goes around its whole
   sentence (``Node.whole``): bold on the wrong words misinforms a reader, bold on the whole
   sentence only fails to single words out.
3. Projected ranges are made properly nested (``_nest``): children are clamped into their parent;
   an element around its whole sentence takes the siblings that lie inside the sentence in as its
   children (they keep their own projection); other overlapping siblings are clipped (the earlier
   one ends where the later one starts). ``markup`` then renders the tree, so every tag is written
   exactly once and end tags always match.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from model.inference.alignment import AlignedText, Range

from .segment import segment as sentence_layout

_NAME = re.compile(r"<([A-Za-z][^\s/>]*)")
# Elements that HTML does not allow inside one another (a link inside a link): an element around
# its whole sentence takes no such sibling in (``_nest``).
_NOT_NESTED = frozenset(("a",))
# The digits of a number, which a translation copies unchanged ("12. Juli" -> "12 July"): where
# the copy is tells where the number went (``_copies``).
_DIGITS = re.compile(r"[0-9]+")


@dataclass(eq=False)
class Node:
    """An inline element (``open``/``close`` tags) or an atom (``close`` is None) in a segment."""

    open: str
    close: str | None
    start: int = 0                  # [start, end) in the segment's plain text
    end: int = 0
    order: int = 0                  # position in the source: breaks ties when rendering
    children: list[Node] = field(default_factory=list)
    lo: int = 0                     # projection: output words [lo, hi); lo == hi is a point
    hi: int = 0
    glue: str = "after"             # a point follows word lo-1 ("after") or precedes word lo
    whole: bool = False             # projected onto its whole sentence: no credible projection (``_credible``)
    spaced: tuple[bool, bool] = (False, False)   # a point's whitespace before and after it in the source


def covered_words(span: Range, words: Sequence[Range]) -> list[int]:
    """Indices of the words overlapping the character range ``span`` (none for an empty range)."""
    start, end = span
    return [i for i, (s, e) in enumerate(words) if s < end and e > start] if start < end else []


def _anchor(node: Node, aligned: AlignedText, targets: list[list[int]], words: list[int]) -> None:
    """Make ``node`` a point next to the output of the nearest source word with an alignment."""
    spans = aligned.source_words
    if words:
        before, after, prefer_after = words[0] - 1, words[-1] + 1, False
    else:
        after = bisect_left([s for s, _ in spans], node.start)
        before = after - 1   # includes a word the point sits inside
        touches_before = before >= 0 and spans[before][1] >= node.start
        prefer_after = not touches_before and after < len(spans) and spans[after][0] == node.start
    for distance in range(len(spans)):
        sides = [("after", after + distance), ("before", before - distance)]
        for side, index in sides[::-1] if not prefer_after else sides:
            if 0 <= index < len(spans) and targets[index]:
                if side == "before":    # follow that word's output
                    node.lo = node.hi = max(targets[index]) + 1
                    node.glue = "after"
                else:
                    node.lo = node.hi = min(targets[index])
                    node.glue = "before"
                return
    # Nothing aligns at all: keep the node's relative position in the text.
    share = node.start / len(aligned.source) if aligned.source else 0.0
    node.lo = node.hi = round(share * len(aligned.target_words))
    node.glue = "after" if node.lo else "before"


def _text(text: str, word: Range) -> str:
    return text[word[0]:word[1]]


def _is_punctuation(text: str, word: Range) -> bool:
    return not any(ch.isalnum() for ch in _text(text, word))


def _trim_outside_punctuation(node: Node, aligned: AlignedText, words: list[int]) -> None:
    """A stop or comma that the source has outside the markup stays outside it at either end of
    its output range, even where the model aligned it to a word inside ("[Anleitung](...)." must
    not become "[guide.](...)")."""
    outside = {_text(aligned.source, span) for i, span in enumerate(aligned.source_words)
               if i not in words and _is_punctuation(aligned.source, span)}

    def stray(t: int) -> bool:
        word = aligned.target_words[t]
        return _is_punctuation(aligned.target, word) and _text(aligned.target, word) in outside

    while node.hi - node.lo > 1 and stray(node.hi - 1):
        node.hi -= 1
    while node.hi - node.lo > 1 and stray(node.lo):
        node.lo += 1


def _densest_run(lo: int, hi: int, own: set[int], sources: list[set[int]], wordy: Callable[[int], bool]) -> tuple[int, int]:
    """The part of output range [lo, hi) that translates the source words ``own``.

    The range from the first to the last output word aligned to an element's words may take in
    words that translate the sentence around it: "<b>montags bis freitags</b> von 7 bis 18 Uhr"
    -> "from 7 to 6 p.m. on Mondays to Fridays" with "bis" aligned to the first "to". Output words
    aligned only outside the element cut the range into runs; the run with the most words
    aligned only inside wins (then the most words aligned inside at all, then the first). A range
    with fewer than two runs that hold a word (``wordy``: not punctuation) stays whole: the
    alignment says nothing better."""
    def inside(t: int) -> int:   # 2: only inside, 1: also inside, 0: unaligned, -1: only outside
        if not sources[t]:
            return 0
        share = len(sources[t] & own)
        return 2 if share == len(sources[t]) else 1 if share else -1

    runs: list[tuple[int, int, int, int]] = []   # (only inside, inside at all, start, end)
    start = None
    for t in range(lo, hi + 1):
        kind = inside(t) if t < hi else -1
        if kind > 0 and start is None:
            start, pure, partly, end = t, 0, 0, t
        if start is not None and kind >= 0 and t < hi:
            pure, partly = pure + (kind == 2), partly + (kind > 0)
            end = t + 1 if kind > 0 else end     # unaligned words at a run's end stay outside
        elif start is not None:
            runs.append((pure, partly, start, end))
            start = None
    runs = [run for run in runs if any(wordy(t) for t in range(run[2], run[3]))]
    if len(runs) < 2:
        return lo, hi
    _, _, best_lo, best_hi = max(runs, key=lambda r: (r[0], r[1], -r[2]))
    return best_lo, best_hi


def _sentences(aligned: AlignedText, targets: list[list[int]], language: str) -> list[tuple[Range, int, int]]:
    """Each source sentence with an aligned word: its character range and the output words [lo, hi)
    that translate it. The pipeline translates a text sentence by sentence and joins the outputs
    in order, so a sentence's output runs from the first output word aligned to one of its words
    to the next sentence's first; where the alignment does not keep that order, the whole output
    is one sentence."""
    starts = [start for start, _ in aligned.source_words]
    known = []
    for start, end in (span for line in sentence_layout(aligned.source, language) for span in line):
        linked = [t for w in range(bisect_left(starts, start), bisect_left(starts, end)) for t in targets[w]]
        if linked:
            known.append(((start, end), min(linked)))
    if not known or any(later <= first for (_, first), (_, later) in zip(known, known[1:])):
        return [((0, len(aligned.source)), 0, len(aligned.target_words))]
    ends = [first for _, first in known[1:]] + [len(aligned.target_words)]
    return [(span, 0 if k == 0 else first, end) for k, ((span, first), end) in enumerate(zip(known, ends))]


def _whole_sentence(node: Node, sentences: list[tuple[Range, int, int]]) -> tuple[int, int]:
    """The output words of the sentences that ``node``'s text lies in."""
    inside = [(lo, hi) for (start, end), lo, hi in sentences
              if start < max(node.end, node.start + 1) and end > node.start]
    if not inside:
        return sentences[0][1], sentences[-1][2]
    return min(lo for lo, _ in inside), max(hi for _, hi in inside)


def _copies(text: str, word: Range, initial: bool) -> list[str]:
    """What of a word a translation writes unchanged: its numbers' digits, and the word itself where
    it has a capital letter and does not open its sentence (a name or a code: "Berlin", "USB")."""
    written = _text(text, word)
    capital = not initial and any(ch.isupper() for ch in written)
    return _DIGITS.findall(written) + ([written] if capital else [])


class Dictionary(Protocol):
    """What ``_credible`` asks a bilingual dictionary (``pipeline.coverage.Coverage``)."""

    def content_spans(self, source: str) -> list[tuple[Range, frozenset[str]]]: ...

    def renders(self, senses: frozenset[str], output: str) -> bool: ...


@dataclass
class _Links:
    """A translation's alignment as ``_project`` reads it."""

    aligned: AlignedText
    targets: list[list[int]]                  # per source word: the output words aligned to it
    sources: list[set[int]]                   # per output word: the source words aligned to it
    sentences: list[tuple[Range, int, int]]   # ``_sentences``
    initial: set[int]                         # source words that open a sentence
    judged: list[tuple[Range, frozenset[str]]]   # the dictionary's content words of the source
    renders: Callable[[frozenset[str], int], bool]   # does output word t translate a word of these senses


def _links(aligned: AlignedText, language: str, dictionary: Dictionary | None) -> _Links:
    targets: list[list[int]] = [[] for _ in aligned.source_words]
    sources: list[set[int]] = [set() for _ in aligned.target_words]
    for t, s in sorted(aligned.links):
        targets[s].append(t)
        sources[t].add(s)
    sentences = _sentences(aligned, targets, language)
    starts = [start for start, _ in aligned.source_words]
    initial = {bisect_left(starts, start) for (start, _), _, _ in sentences}
    judged = dictionary.content_spans(aligned.source) if dictionary is not None else []

    def renders(senses: frozenset[str], t: int) -> bool:
        return dictionary is not None and dictionary.renders(senses, _text(aligned.target, aligned.target_words[t]))

    return _Links(aligned, targets, sources, sentences, initial, judged, renders)


def _others(words: list[int], links: _Links) -> set[int]:
    """Output words that are the one translation of a source word around the element, and the one
    translation of none of its words: "Wir freuen uns <b>auf Ihren Besuch</b>" -> "to" (aligned to
    "auf" and "Ihren") is all there is of "auf"."""
    own = set(words)
    alone = {s: ts[0] for s, ts in enumerate(links.targets) if len(set(ts)) == 1}
    theirs = {t for s, t in alone.items() if s not in own}
    return theirs - {t for s, t in alone.items() if s in own}


def _trim_others(node: Node, words: list[int], links: _Links) -> None:
    """Take ``_others`` off either end of the node's range (the next check judges what is left)."""
    inside = [senses for (start, end), senses in links.judged if node.start <= start and end <= node.end]
    others = {t for t in _others(words, links) if not any(links.renders(senses, t) for senses in inside)}
    while node.lo < node.hi and node.lo in others:
        node.lo += 1
    while node.lo < node.hi and node.hi - 1 in others:
        node.hi -= 1


def _credible(node: Node, words: list[int], links: _Links) -> bool:
    """Whether output words [node.lo, node.hi) can be the translation of the element's source
    ``words`` (see each check); an empty range cannot."""
    span = range(node.lo, node.hi)
    return (bool(span) and _nothing_foreign(span, words, links) and _holds_most(span, words, links)
            and _copies_held(span, words, links) and _dictionary_agrees(node, span, links))


def _wordy(links: _Links, t: int) -> bool:
    return not _is_punctuation(links.aligned.target, links.aligned.target_words[t])


def _nothing_foreign(span: range, words: list[int], links: _Links) -> bool:
    """No word of ``span`` is aligned to words outside the element alone."""
    own = set(words)
    return not any(links.sources[t] and not links.sources[t] & own and _wordy(links, t) for t in span)


def _holds_most(span: range, words: list[int], links: _Links) -> bool:
    """``span`` holds most of the output words aligned to the element's words alone: where they
    came out in pieces, the piece ``_densest_run`` chose must outweigh the others together, or the
    alignment cannot tell where the element goes ("<b>Freitag, dem 12. Juli</b> feiern wir" ->
    "Friday, we will celebrate 12 July": "Friday" against "12 July")."""
    own = set(words)
    pure = {t for w in words for t in links.targets[w] if links.sources[t] <= own and _wordy(links, t)}
    return 2 * len(pure.intersection(span)) > len(pure) or not pure


def _copies_held(span: range, words: list[int], links: _Links) -> bool:
    """Numbers and names of the element are in ``span`` where the output has them: a copy the output
    writes (``_copies``) more often than the source has it around the element is the element's,
    and must be in ``span``; a number of the element that the output writes otherwise (18 Uhr ->
    6 p.m.) must have an aligned word in it."""
    aligned, own = links.aligned, set(words)
    copied = Counter(c for word in aligned.target_words for c in _copies(aligned.target, word, False))
    held = Counter(c for t in span for c in _copies(aligned.target, aligned.target_words[t], False))
    around = Counter(c for w, word in enumerate(aligned.source_words) if w not in own
                     for c in _copies(aligned.source, word, w in links.initial))
    for w in words:
        marks = _copies(aligned.source, aligned.source_words[w], w in links.initial)
        if any(copied[c] > around[c] and not held[c] for c in marks):
            return False
        digits = _DIGITS.findall(_text(aligned.source, aligned.source_words[w]))
        if digits and not any(copied[d] for d in digits) and not any(t in span for t in links.targets[w]):
            return False
    return True


def _dictionary_agrees(node: Node, span: range, links: _Links) -> bool:
    """Whether the dictionary lets output words ``span`` be the translation of the element's words:
    not where it finds a content word of the element translated outside ``span`` and not inside;
    nor where the output translates such a word nowhere and ``span`` holds a word that translates
    only content words around the element ("<b>Fieber</b> und Halsschmerzen" -> "<b>had a
    sore</b> throat": "sore" is Halsschmerzen's, fever is left out)."""
    inside = [senses for (start, end), senses in links.judged if node.start <= start and end <= node.end]
    around = [senses for (start, end), senses in links.judged if end <= node.start or start >= node.end]
    outside = [t for t in range(len(links.aligned.target_words)) if t not in span]
    for senses in inside:
        if any(links.renders(senses, t) for t in span):
            continue
        if any(links.renders(senses, t) for t in outside) or any(
                any(links.renders(other, t) for other in around) and not any(links.renders(own, t) for own in inside)
                for t in span):
            return False
    return True


def _project(node: Node, links: _Links) -> None:
    """Set ``lo``/``hi`` of ``node``'s descendants from the alignment (see the module docstring)."""
    aligned, targets, sources = links.aligned, links.targets, links.sources
    for child in node.children:
        words = covered_words((child.start, child.end), aligned.source_words)
        mapped = {t for w in words for t in targets[w]}
        if child.close is None:   # an atom replaces only output words that translate it alone
            own = set(words)
            mapped = {t for t in mapped if sources[t] <= own}
        if mapped:
            child.lo, child.hi = min(mapped), max(mapped) + 1
            if child.close is not None:
                child.lo, child.hi = _densest_run(child.lo, child.hi, set(words), sources,
                                                  lambda t: _wordy(links, t))
                _trim_outside_punctuation(child, aligned, words)
                _trim_others(child, words, links)
                if not _credible(child, words, links):
                    child.lo, child.hi = _whole_sentence(child, links.sentences)
                    child.whole = True
        else:
            _anchor(child, aligned, targets, words)
        _project(child, links)


def _name(node: Node) -> str:
    found = _NAME.match(node.open)
    return found[1].lower() if found else ""


def _take_in(node: Node) -> None:
    """Make the siblings that lie inside the range of a child around its whole sentence that child's
    children, where HTML lets them nest; clip the other siblings that overlap it to their part
    outside it. The element around the sentence keeps the sentence; the siblings keep their own
    projection inside it, as far as the nesting lets them."""
    for whole in sorted((c for c in node.children if c.whole), key=lambda c: (c.lo, -c.hi, c.order)):
        if whole not in node.children:      # taken in by an earlier one with the same range
            continue
        for child in [c for c in node.children if c is not whole]:
            apart = child.hi <= whole.lo or child.lo >= whole.hi
            if apart or (child.lo == child.hi and child.lo in (whole.lo, whole.hi)):   # a point at its edge: outside
                continue
            if whole.lo <= child.lo and child.hi <= whole.hi and not (
                    _name(child) in _NOT_NESTED and _name(whole) in _NOT_NESTED):
                node.children.remove(child)
                whole.children.append(child)
            elif child.lo < whole.lo:
                child.hi = whole.lo
            else:
                child.lo = whole.hi
                child.hi = max(child.hi, child.lo)
        whole.children.sort(key=lambda c: c.order)


def _nest(node: Node) -> None:
    """Make the children's ranges lie inside ``node`` and not overlap one another, recursively."""
    for child in node.children:
        child.lo = min(max(child.lo, node.lo), node.hi)
        child.hi = min(max(child.hi, child.lo), node.hi)
    _take_in(node)
    prev: Node | None = None
    for child in sorted((c for c in node.children if c.lo < c.hi), key=lambda c: (c.lo, c.hi, c.order)):
        if prev is None or child.lo >= prev.hi:
            prev = child
        elif prev.lo < child.lo:        # crossing or inside: the earlier one stops where it starts
            prev.hi, prev = child.lo, child
        else:                           # same start: the later one starts after the earlier
            child.lo = min(prev.hi, child.hi)
            if child.lo == child.hi:
                child.glue = "after"
            else:
                prev = child
    ranges = [(c.lo, c.hi) for c in node.children if c.lo < c.hi]
    for child in node.children:         # a point may not split a sibling
        for lo, hi in ranges:
            if child.lo == child.hi and lo < child.lo < hi:
                nearer_end = child.lo - lo >= hi - child.lo
                child.lo = child.hi = hi if nearer_end else lo
                child.glue = "after" if nearer_end else "before"
    for child in node.children:
        _nest(child)


def place(root: Node, aligned: AlignedText, language: str, dictionary: Dictionary | None) -> None:
    """Place the descendants of a segment's ``root`` on its translation ``aligned`` (the segment's
    text, in ``language``, is ``aligned.source``): ``root`` spans every output word. ``dictionary``:
    one that reads ``language``, or None, to check projections with (``_credible``)."""
    root.lo, root.hi = 0, len(aligned.target_words)
    _project(root, _links(aligned, language, dictionary))
    _nest(root)
