"""Negations a translation lost or added: the check that keeps "brechen Sie die Behandlung nicht
ab" from coming out as "start the treatment".

A dropped "nicht" reverses a sentence's meaning and still reads fluently, so neither the model's
score nor the coverage check (``pipeline.coverage`` judges content words only) notices it. Both
languages mark negation with a small closed class of words, so counting them on each side finds a
lost or added one well enough to choose among the beam's hypotheses (``Pipeline``):

* **cues**, counted: German "nicht", "kein…", "nie", "niemals", "niemand…", "nichts", "nirgends",
  "nirgendwo", "weder", "ohne", "nein"; English "not", "n't", "cannot", "no" (not "No." before
  a number), "never", "nobody", "nothing", "none", "nowhere", "neither", "nor" (where no "neither"
  comes before it: "weder … noch" is one cue, as "neither … nor"), "without";
* **affixes**, not counted but allowed to stand for a cue of the other side, as a word negated
  by its form translates into a word with a cue and back ("unmöglich" / "not possible",
  "nicht möglich" / "impossible", "arbeitslos" / "without work"): German "un…" and "…los…",
  English "un…", "im…", "il…", "ir…", "dis…", "non…" and "…less" (not "in…": far more
  words start with it than are negated by it, "into", "include"). Many words only look so
  ("under", "important"); as affixes only excuse a difference, such a word can hide a lost
  negation but never invent one.

``changed(source, translation, source_language)`` is the number of cues one side has beyond what
the other's cues and affixes account for: 0 where they match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CUES = {
    "de": re.compile(r"\b(?:nicht|nichts|kein(?:e[mnrs]?|s|eswegs|esfalls)?|nie|niemals|niemand(?:e[mns])?|nirgends|nirgendwo"
                     r"|weder|ohne|nein)\b", re.IGNORECASE),
    "en": re.compile(r"\b(?:not|cannot|never|nobody|nothing|none|nowhere|neither|without)\b|n't\b|\bno\b(?!\.\s*\d)",
                     re.IGNORECASE),
}
_NOR = re.compile(r"\bnor\b", re.IGNORECASE)
_NEITHER = re.compile(r"\bneither\b", re.IGNORECASE)
# Words whose start or end only looks like a negating affix, common enough to hide a lost cue often
# (they would only ever excuse one, never report one); "in" keeps "…less" words starting with it out.
_NOT_AFFIXED = {
    "de": re.compile(r"^(?:unter|uns|unten|und|ungefähr|unbedingt|uni|unfall)", re.IGNORECASE),
    "en": re.compile(r"^(?:under|until|unit|union|univers|unique|in|import|impress|improv|issue|discuss|display"
                     r"|distance|district|disk|dish|less|unless)", re.IGNORECASE),
}
_AFFIXED = {
    "de": re.compile(r"\bun[a-zäöüß]{4,}|\b[a-zäöüß]{3,}los(?:e[mnrs]?|igkeit)?\b", re.IGNORECASE),
    "en": re.compile(r"\b(?:un|im|il|ir|dis|non-?)[a-z]{4,}|\b[a-z]{3,}less(?:ly|ness)?\b", re.IGNORECASE),
}


@dataclass(frozen=True)
class Negations:
    cues: int      # words that negate
    affixed: int   # words negated by their form (may stand for a cue of the other language)


def negations(text: str, language: str) -> Negations:
    """The negation cues and affixed words of ``text`` in ``language`` ("de" or "en")."""
    cues = len(_CUES[language].findall(text))
    if language == "en":
        if not _NEITHER.search(text):
            cues += len(_NOR.findall(text))
    affixed = sum(not _NOT_AFFIXED[language].match(m.group()) for m in _AFFIXED[language].finditer(text))
    return Negations(cues, affixed)


def changed(source: str, translation: str, source_language: str) -> int:
    """How many negations ``translation`` lost or added against ``source`` (in
    ``source_language``, the translation in the other of "de" and "en"): the cues of one side
    beyond the other side's cues and affixed words; 0 where they match."""
    target_language = "en" if source_language == "de" else "de"
    a, b = negations(source, source_language), negations(translation, target_language)
    return max(0, a.cues - b.cues - b.affixed) + max(0, b.cues - a.cues - a.affixed)
