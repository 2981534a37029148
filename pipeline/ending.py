"""Model inputs without end punctuation are translated as sentences: a full stop is added to the
input and taken off the output again.

Why: a model that has also learned from dictionary entries ("Ergebnisse der Wahl" / "results of
the election") reads an unpunctuated input as a dictionary entry and may translate only part of it
("Das Wetter in Berlin" → "Berlin"). With the stop it reads a sentence ("The weather in Berlin.").
On 500 Tatoeba dev sentences with their final stop removed (greedy, references without it too):
v2 weights 41.04 BLEU as sent, 45.52 closed, outputs under 60% of the source's words 29 → 5; the
v1 weights (Tatoeba only) 34.71 → 44.75.

The stop is an internal device, never shown: it is removed from the output (a final "." or "..",
so a question, an exclamation or an ellipsis the model chose stays), and from the word alignment
on both sides. The same doubled stop also stands for a source's final ellipsis ("Speichern unter
…" → "Save As.."): ``kept_ellipsis`` writes the source's ellipsis there.
Whatever scores or aligns a translation of such an input (the inspector) does it as the model read
and wrote it: the input closed, the output with the stop put back (``close_output``), the result
reopened; the model's confidence in "Hello" for "Hallo" is that for "Hallo." (0.69% unclosed).
"""

from __future__ import annotations

import re
from dataclasses import replace

from model.inference.alignment import AlignedText

from .spans import PLACEHOLDER_RE

# Ends in a word character, maybe followed by placeholders ("Toller Abend ⦅X1⦆"); "Es regnet.
# ⦅X1⦆" is closed already, and a lone placeholder is no sentence.
_OPEN_END = re.compile(rf"[^\W_](?:\s*{PLACEHOLDER_RE.pattern})*\s*$")
_ADDED = "."
_ENDS = frozenset(".!?…")
# The sources closed, by language: measured per model, closing helps German→English (above) and
# costs the English→German model on software strings ("Page %1 of %2." gave "Seite %1 Von %2."),
# docs/journal/pipeline-rules.md "Closing English input": an English input goes to the model as it is.
CLOSED_SOURCES = frozenset({"de"})


def close_sentence(source: str) -> str:
    """``source`` with a full stop after it when it ends without punctuation, else as it is."""
    return source.rstrip() + _ADDED if _OPEN_END.search(source) else source


def close_output(target: str, source: str) -> str:
    """``target``, a translation of ``source`` as ``reopen_sentence`` leaves it, as the model wrote
    it for ``close_sentence(source)``: with the full stop that ``reopen_sentence`` takes off put back
    where the output does not end a sentence itself ("!", "?", "…" or "." are the model's and stay).
    The decoder reads left to right, so the stop changes no confidence of the words before it."""
    if close_sentence(source) == source:
        return target
    stripped = target.rstrip()
    return stripped + _ADDED if stripped and stripped[-1] not in _ENDS else target


def reopen_sentence(output: AlignedText, source: str, *, stop: bool = True) -> AlignedText:
    """``output`` (the translation of ``close_sentence(source)``) as a translation of ``source``.
    ``stop``: whether a final "." of the output answers the added one (the model's own output, or
    ``close_output``'s); False for a given output whose full stop is its author's: only the
    source side is reopened then."""
    if output.source == source:
        return output
    target = output.target.rstrip()
    cut = len(target) - _answer(target) if stop else len(target)
    target_words, links = _trim_links(output.target_words, output.links, cut, side=0)
    source_words, links = _trim_links(output.source_words, links, len(source.rstrip()), side=1)
    return AlignedText(source, target[:cut].rstrip(), source_words, target_words, links)


_FINAL_ELLIPSIS = re.compile(r"(…|\.\.\.)\s*$")
_TWO_DOTS = re.compile(r"(?<![.…])\.\.$")


def kept_ellipsis(output: AlignedText, source: str) -> AlignedText:
    """``output`` with the final ellipsis of ``source`` ("…" or "...") where the model ended it with
    two dots instead ("Speichern unter …" → "Save As..", "Er sagte nichts …" → "He said nothing..";
    the model reads "…" as "..." and doubles its stop as after a menu item): the dots' words become
    one word, the ellipsis, with their links. Any other output is returned as it is."""
    ellipsis = _FINAL_ELLIPSIS.search(source)
    target = output.target.rstrip()
    dots = _TWO_DOTS.search(target)
    if ellipsis is None or dots is None:
        return output
    start = dots.start()
    target = target[:start] + ellipsis[1]
    words = output.target_words
    first = next((i for i, (_, end) in enumerate(words) if end > start), len(words))
    kept = list(words[:first]) + [(min(words[first][0], start), len(target))] if first < len(words) else list(words)
    links = sorted({(min(t, first), s) for t, s in output.links})
    return replace(output, target=target, target_words=kept, links=links)


def _answer(target: str) -> int:
    """How many final characters of ``target`` answer the added stop: its final ".", or both of a
    final ".." ("Save file.." for "Datei speichern.": the model doubled the stop, as it does after
    a menu item's "..."; the source ends without punctuation, so neither is the author's); none of
    an ellipsis ("...") or another ending, which are the model's choice."""
    dots = len(target) - len(target.rstrip(_ADDED))
    return dots if dots <= 2 else 0


def _trim_links(spans, links, end: int, side: int):
    """Word spans cut at ``end``: a word wholly after it is dropped with its links (indexes after
    it renumbered), a word across it shortened."""
    kept = [(s, min(e, end)) for s, e in spans if s < end]
    assert all(s >= end for s, _ in spans[len(kept):])  # only trailing words can be cut off
    return kept, [link for link in links if link[side] < len(kept)]
