"""Translations that do harm whatever their score: a negation lost or added (``pipeline.negation``),
a profane word the source does not have (``pipeline.profanity``).

``Pipeline`` weighs these before anything else when it chooses among the model's hypotheses
(``Options.checks``): the best-scoring hypothesis with the fewest faults is taken, from a beam of at
least ``FORMALITY_BEAM``, and where a fault has a place (a profane word) the model's continuations
from just before it are tried too. A translation that keeps a fault all the same is shipped with a
warning (``warnings``), never silently.

Each check is one entry of ``CHECKS``: ``(source, translation, source_language) -> [start, ...]``,
where each fault of ``translation`` starts (-1 where it has no place: a negation left out).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .formality import mismatches
from .negation import changed
from .profanity import excess

Check = Callable[[str, str, str], list[int]]

CHECKS: dict[str, Check] = {
    "negation": lambda source, translation, language: [-1] * changed(source, translation, language),
    "profanity": excess,
}
# What a fault's warning says (one line each; the sentence's source and output are shown beside it).
MESSAGES = {
    "negation": "the translation may have lost or added a negation (not, no, never): check its meaning",
    "profanity": "the translation has a profane word that the source does not have",
    "formality": "the translation could not address the reader as asked",
}


def faults(source: str, translation: str, source_language: str, checks: Sequence[str] = tuple(CHECKS)) -> list[int]:
    """Where the faults of ``translation`` (of ``source``, in ``source_language``) start, by each of
    ``checks`` in turn (-1: no place)."""
    return [start for name in checks for start in CHECKS[name](source, translation, source_language)]


def warnings(source: str, translation: str, source_language: str, formality: str | None = None,
             checks: Sequence[str] = tuple(CHECKS)) -> list[str]:
    """The names of what is wrong with ``translation`` by ``checks`` (in order), and "formality"
    where German output addresses the reader otherwise than ``formality`` asks (None: not asked)."""
    found = [name for name in checks if CHECKS[name](source, translation, source_language)]
    if formality is not None and source_language == "en" and mismatches(translation, formality):
        found.append("formality")
    return found
