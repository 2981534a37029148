"""Formal or informal address in German output: "Sie" or "du", as DeepL's formality option.

English "you" is "Sie" (formal: strangers, customers, software) or "du"/"ihr" (informal: friends,
family, most of Tatoeba) in German, and the model picks one by what its training text used for
sentences like the input. The pipeline steers it by choosing among the model's own beam
hypotheses (``Pipeline``, ``Options.formality``): where the best one addresses the reader the other
way, the best-scoring hypothesis that does not is taken, from a search with a beam of at least
``FORMALITY_BEAM``; where none of them does, the model goes on from just before the first word
that addresses the reader the other way (``address_cuts``) with each of its most probable next
words there, and the search completes each; where none of those does either, the model's best
stays (nothing is rewritten by rule: a verb's person and an imperative change with the pronoun,
"Kannst du" / "Können Sie", and only the model writes those).

``mismatches(german, formality)`` counts the words of ``german`` that address the reader the other
way. The signs, chosen so that none is ambiguous:

* informal: "du", "dich", "dir", "dein…" and "euch", "euer", "eure…" in any case ("Du" in a
  letter too); "ihr" only beside a verb form that is second person plural and nothing else
  ("Könnt ihr", "ihr seid", "Habt ihr"), as it is also "her" and "their" ("Gibt ihr das Buch");
* formal: "Sie", "Ihnen", "Ihr…" capitalized *within* a sentence, where only the formal pronoun is
  capitalized ("sie"/"ihr" are she, they, her, their). At the start of a sentence they are all
  capitalized, so a sentence-initial "Sie" or "Ihr" is no sign either way.
"""

from __future__ import annotations

import re

# The beam of the search for a hypothesis that addresses the reader as asked, where the first one
# does not: with the service's beam of 4 half of them still did not (bench/README.md, formality.py).
FORMALITY_BEAM = 8
# Where that wider beam holds none either: the model's ADDRESS_WORDS most probable next words at
# each of ADDRESS_CUTS places before the first word that addresses the reader the other way, each
# completed by the search, for up to ADDRESS_ROUNDS such words (bench/README.md, formality.py).
ADDRESS_WORDS = 4
ADDRESS_CUTS = 3
ADDRESS_ROUNDS = 2
# "any": as the model writes it (DeepL's "default"), for text whose "you" is no one in particular
FORMALITIES = ("formal", "informal", "any")

_INFORMAL = re.compile(r"\b(?:du|dich|dir|dein(?:e[mnrs]?)?|euch|euer|eure[mnrs]?)\b", re.IGNORECASE)
# Verb forms of the second person plural only (not also third person singular, as "kommt" is).
_PLURAL_VERBS = ("könnt", "wollt", "müsst", "dürft", "sollt", "mögt", "möchtet", "habt", "seid", "wisst", "werdet",
                 "konntet", "wolltet", "musstet", "durftet", "solltet", "hattet", "wart", "würdet")
_PLURAL_YOU = re.compile(rf"\b(?:{'|'.join(_PLURAL_VERBS)})\s+ihr\b|\bihr\s+(?:{'|'.join(_PLURAL_VERBS)})\b",
                         re.IGNORECASE)
_FORMAL = re.compile(r"\b(?:Sie|Ihnen|Ihr(?:e[mnrs]?)?)\b")
# What may come before a word that starts a sentence: the text's start, or an end of sentence
# (and opening quotes or brackets), or a line break.
_STARTS = re.compile(r"(?:^|[.!?:…]\s+|\n\s*)[\"'„“‚‘»«(\[]*$")


def _within_sentence(text: str, start: int) -> bool:
    return _STARTS.search(text[:start]) is None


def _signs(german: str, of: str) -> list[int]:
    """Where the words of ``german`` that are signs of ``of`` address ("formal", "informal") start,
    in order; a formal one at a sentence's start among them (it may be she or they there)."""
    if of == "formal":
        return [m.start() for m in _FORMAL.finditer(german)]
    return sorted([m.start() for m in _INFORMAL.finditer(german)] + [m.start() for m in _PLURAL_YOU.finditer(german)])


def misaddressing(german: str, formality: str) -> list[int]:
    """Where the words of ``german`` that address the reader the other way than ``formality`` start,
    in order ("formal": its informal words, a plural "ihr" from its verb; "informal": its formal
    ones, within a sentence; "any": none)."""
    if formality == "any":
        return []
    if formality == "formal":
        return _signs(german, "informal")
    if formality == "informal":
        return [start for start in _signs(german, "formal") if _within_sentence(german, start)]
    raise ValueError(f"formality must be one of {', '.join(FORMALITIES)}, got {formality!r}")


def mismatches(german: str, formality: str) -> int:
    """How many words of ``german`` address the reader the other way than ``formality``
    (``misaddressing``)."""
    return len(misaddressing(german, formality))


def addresses(german: str, formality: str, start: int = 0) -> int:
    """How many words of ``german`` from offset ``start`` on address the reader as ``formality``
    asks, a sentence-initial "Sie" or "Ihr" included: after a cut where a word of the other address
    stood, that is the reader, and a continuation without any such word has dropped the address
    rather than changed it ("Wie alt bist du?" → "Wie alt bist?")."""
    if formality not in ("formal", "informal"):
        return 0
    return sum(found >= start for found in _signs(german, formality))


def address_cuts(german: str, formality: str) -> list[str]:
    """Where a translation that addresses the reader the other way may go on differently: its
    beginnings up to the first such word and up to each of the ``ADDRESS_CUTS`` - 1 words before
    it (its verb changes with it: "Kannst du" / "Können Sie"), longest first, without the
    spaces before the cut; [] where every word addresses the reader as asked."""
    starts = misaddressing(german, formality)
    if not starts:
        return []
    words = [m.start() for m in re.finditer(r"\S+", german) if m.start() <= starts[0]]
    return list(dict.fromkeys(german[:cut].rstrip() for cut in reversed(words[-ADDRESS_CUTS:])))
