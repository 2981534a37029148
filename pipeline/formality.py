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
* informal too: a verb that opens a sentence in the imperative of "du", no pronoun after it
  ("Behalte diese Medizin …", "Nimm zwei Tabletten", "Bitte lies …"; ``du_imperatives``): the
  lemmatizer (``coverage.lemma``) reads it as a verb's stem ("behalte", "mach") or as a form of a
  verb that only the imperative has ("nimm", "lies"), and not also as a noun ("Spiele", "Bitte",
  "Liebe"), unless an object or a particle follows ("Spiele die Musik ab", "Warte mal");
* formal: "Sie", "Ihnen", "Ihr…" capitalized *within* a sentence, where only the formal pronoun is
  capitalized ("sie"/"ihr" are she, they, her, their). At the start of a sentence they are all
  capitalized, so a sentence-initial "Sie" or "Ihr" is no sign either way.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .coverage import lemma

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


# A word and the word after it (where a sentence opens is checked apart: ``_opens_sentence``; one
# pattern for both backtracks on long runs of blank lines)
_WORD_PAIR = re.compile(r"(?<![^\W\d_])([^\W\d_]{2,})(?=[ \t]+([^\W\d_]+))")
_OPENING_MARKS = "\"'„“‚‘»«(["
_PLEASE = re.compile(r"[Bb]itte,?\s+$")
# After a verb in a sentence's first place, these make it a question or a statement, not a command
# ("Kaufe ich das?"; "es" and "sie" may be its object: "Nimm es")
_SUBJECTS = frozenset("ich du er wir ihr man".split())
# After a word that is also a noun, these make it a verb: an object or a particle ("Warte mal")
_AFTER_A_VERB = frozenset("den das die dem diesen diese dieses einen eine ein einem mir uns es ihn sie bitte mal".split())


def _squeezed(word: str) -> str:
    """``word`` without "h" and doubled letters: "nimm" and "nehm" are both "nem"."""
    return re.sub(r"(.)\1", r"\1", word.replace("h", ""))


@lru_cache(maxsize=65536)
def _du_imperative(word: str, after: str) -> bool:
    """Whether ``word``, opening a sentence before ``after``, is a verb in the imperative of "du":
    the verb's stem, or the stem and "e" ("mach", "mache"; also the first person, and some are
    nouns too), or the stem with its "e" turned "i" or "ie" ("nimm", "lies": the imperative only)."""
    lowered = word.lower()
    verb = lemma(lowered, "de")
    if verb == lowered or not verb.endswith("n") or after.lower() in _SUBJECTS or after == "Sie":
        return False
    stem = verb[:-2] if verb.endswith("en") else verb[:-1]    # "machen" -> "mach", "ändern" -> "änder"
    if lowered not in (stem, stem + "e"):
        return lowered[-1] != "e" and _squeezed(lowered.replace("ie", "e").replace("i", "e")) == _squeezed(stem)
    if not word[0].isupper() or lemma(word, "de") == verb:   # no noun of the same letters
        return True
    return after.lower() in _AFTER_A_VERB


def _opens_sentence(text: str, start: int) -> bool:
    """Whether the word at ``start`` opens a sentence: after the text's start, an end of sentence
    or a line break (and opening quotes or brackets, and "Bitte")."""
    i = start
    while i > 0 and text[i - 1] in _OPENING_MARKS:
        i -= 1
    please = _PLEASE.search(text, max(0, i - 12), i)
    if please is not None and please.end() == i:
        i = please.start()
    j = i
    while j > 0 and text[j - 1].isspace():
        j -= 1
    return j == 0 or j < i and ("\n" in text[j:i] or text[j - 1] in ".!?:…")


def du_imperatives(german: str) -> list[int]:
    """Where the verbs of ``german`` start that address the reader as "du" by their form alone
    (an imperative opening a sentence, with no pronoun after it)."""
    return [m.start(1) for m in _WORD_PAIR.finditer(german)
            if _opens_sentence(german, m.start(1)) and _du_imperative(m.group(1), m.group(2))]


def _within_sentence(text: str, start: int) -> bool:
    return _STARTS.search(text[:start]) is None


def _signs(german: str, of: str) -> list[int]:
    """Where the words of ``german`` that are signs of ``of`` address ("formal", "informal") start,
    in order; a formal one at a sentence's start among them (it may be she or they there)."""
    if of == "formal":
        return [m.start() for m in _FORMAL.finditer(german)]
    return sorted([m.start() for m in _INFORMAL.finditer(german)] + [m.start() for m in _PLURAL_YOU.finditer(german)]
                  + du_imperatives(german))


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
    return cuts_before(german, misaddressing(german, formality))


def cuts_before(text: str, starts: list[int]) -> list[str]:
    """The beginnings of ``text`` up to the first of ``starts`` (where words to avoid start) and up
    to each of the ``ADDRESS_CUTS`` - 1 words before it, longest first, without the spaces before
    the cut; [] where ``starts`` is empty."""
    if not starts:
        return []
    words = [m.start() for m in re.finditer(r"\S+", text) if m.start() <= min(starts)]
    return list(dict.fromkeys(text[:cut].rstrip() for cut in reversed(words[-ADDRESS_CUTS:])))
