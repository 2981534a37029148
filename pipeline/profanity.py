"""Profanity a translation has and its source does not: "Die Zwiebeln fein hacken" must never come
out as a swear word.

The model learnt a few swear words from subtitles and chat lines, and now and then writes one for
an ordinary word it reads badly. A recipe or a letter that comes back with one is worse than one
that comes back clumsy, so the pipeline treats it as harm (``Pipeline``): it takes another of the
beam's hypotheses, or the model's continuations from before that word, and never ships one where
the source has none as strong.

The words and their strengths are a table (``tables/profanity.tsv``: 2 strong, 1 mild).
``excess(source, translation, source_language)`` gives where the words of ``translation`` start
that are stronger than every profane word of ``source``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .tables import rows

_WORD = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=None)
def _entries(language: str) -> tuple[tuple[re.Pattern[str], int], ...]:
    entries = []
    for entry_language, word, strength in rows("profanity", 3):
        if entry_language == language:
            pattern = re.escape(word.strip("*").lower())
            pattern = ("[^\\W\\d_]*" if word.startswith("*") else "") + pattern + (
                "[^\\W\\d_]*" if word.endswith("*") else "")
            entries.append((re.compile(pattern), int(strength)))
    return tuple(entries)


@lru_cache(maxsize=65536)
def strength(word: str, language: str) -> int:
    """How strong a profane word ``word`` is in ``language`` (2 strong, 1 mild, 0 none)."""
    lowered = word.lower()
    return max((s for pattern, s in _entries(language) if pattern.fullmatch(lowered)), default=0)


def profane(text: str, language: str) -> list[tuple[int, int]]:
    """(start, strength) of each profane word of ``text`` in ``language``, in order."""
    return [(m.start(), s) for m in _WORD.finditer(text) if (s := strength(m.group(), language))]


def excess(source: str, translation: str, source_language: str) -> list[int]:
    """Where the words of ``translation`` start that are more profane than every word of ``source``
    (in ``source_language``; the translation in the other of "de" and "en")."""
    target_language = "en" if source_language == "de" else "de"
    allowed = max((s for _, s in profane(source, source_language)), default=0)
    return [start for start, s in profane(translation, target_language) if s > allowed]


def without_words(text: str, starts: list[int]) -> str:
    """``text`` without the words that start at ``starts``, and the blanks after each (before it,
    where punctuation follows it: "Well, damn." -> "Well.")."""
    kept, last = [], 0
    for start in sorted(set(starts)):
        m = _WORD_AND_BLANKS.match(text, start)
        if m is None or start < last:
            continue
        before = text[last:start]
        kept.append(before if m.group(1) or m.end() == len(text) and not before.strip() else before.rstrip(" ,"))
        last = m.end()
    return "".join(kept) + text[last:]


_WORD_AND_BLANKS = re.compile(r"[^\W\d_]+(\s*)")
