"""Dictionary hints: a German noun the model carries over untranslated gets the dictionary's English.

A word the model never learned ("Profite", "Tormann", "Novum") often comes out as written, German
left in the English ("Big cars, big Profite"). Where a sentence's translation does that
(``untranslated``: a word the dictionary reads as German, no name, not written so in English),
the sentence is translated again with each such noun as a glossary term whose English is the
dictionary's (``hint``): the model writes the sentence around a placeholder and the glossary puts
in the English, inflected for number ("Profite" -> "profits", ``pipeline.glossary``). A glossary
the user gave wins over a hint for the same term.

``hint`` reads Ding's first reading of the word (its entries are ranked commonest first): a noun,
not a place, whose first sense is a plain English word or two ("Appell" -> "appeal (to sb.)" ->
"appeal"). A word whose first reading is no noun (a capitalized adjective opening a sentence,
"Scharf") gets none: an adjective's English depends on its context more than a noun's, and the
glossary would not inflect it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from model.data.lexicon import WORD

from . import tables
from .coverage import Coverage, lemma
from .glossary import Glossary
from .inflection import Inflections
from .rules.names import evidently_named

# A sense's glosses and labels: "appeal (to sb.)", "goalie [coll.]", "{pl}".
_GLOSSES = re.compile(r"\([^)]*\)|\[[^\]]*\]|\{[^}]*\}")
_PLAIN = re.compile(r"[A-Za-z][A-Za-z'-]*(?: [A-Za-z][A-Za-z'-]*){0,2}")
# A sense that stands for a phrase, not a word ("sth.", "sb.", "one's"), or lists alternatives.
_NOT_A_TERM = re.compile(r"\b(?:sth|sb|one's|oneself)\b|[/;,]")


def hint(word: str, coverage: Coverage) -> tuple[str, str] | None:
    """(German term, English) for ``word``: the singular headword of its first Ding reading (of the
    word or its lemma) and that reading's first sense without glosses ("Profite" -> ("Profit",
    "profit")); None where the first reading is not a noun, is a place, or its first sense is not a
    plain English word or two. A compound Ding lacks (``Coverage.compound``) is its parts' English,
    the head's inflected by the glossary ("Akkupacks" -> ("Akkupack", "battery pack"))."""
    entries = coverage.lookup(word) or coverage.lookup(lemma(word, "de"))
    if not entries:
        return _compound_hint(word, coverage)
    return _first_reading(entries)


_LINKS = ("es", "s", "en", "n", "e")   # a compound's linking elements ("Wartungs|modus")


def _compound_hint(word: str, coverage: Coverage) -> tuple[str, str] | None:
    parts = coverage.compound(word)
    if parts is None:
        return None
    modifier, head = parts
    head_hint = hint(head, coverage)
    stems = [modifier] + [modifier[:-len(link)] for link in _LINKS if modifier.endswith(link)]
    first = next((e for stem in stems for e in (coverage.lookup(stem) or coverage.lookup(stem.capitalize()))[:1]), None)
    if head_hint is None or first is None or not (first.word_class or "").startswith(("noun", "adjective")):
        return None
    english = _plain(first.senses[0]) if first.senses else None
    if english is None or " " in english:
        return None
    return modifier + head_hint[0].lower(), f"{english.lower()} {head_hint[1]}"


def _plain(sense: str) -> str | None:
    """``sense`` without its glosses, where that is a plain English word or two, else None."""
    english = " ".join(_GLOSSES.sub(" ", sense).split())
    return english if not _NOT_A_TERM.search(english) and _PLAIN.fullmatch(english) else None


def _first_reading(entries) -> tuple[str, str] | None:
    first = entries[0]
    if not (first.word_class or "").startswith("noun") or "geogr." in first.labels or not first.senses:
        return None
    term = " ".join(_GLOSSES.sub(" ", first.headword).split())
    english = _plain(first.senses[0])
    if not term[:1].isupper() or " " in term or english is None:
        return None
    return term, english


_FIRST_NAMES = frozenset(tables.words("first_names"))
_SENTENCE_MARKS = frozenset(".!?:;\"„“”»«(")


def _opens_sentence(before: str) -> bool:
    before = before.rstrip()
    return not before or before[-1] in _SENTENCE_MARKS


def _occurrences(sentence: str, word: str):
    """``word``'s occurrences in ``sentence`` as a whole word (matches)."""
    return re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", sentence)


def in_a_name(sentence: str, word: str, reads: Callable[[str], bool]) -> bool:
    """Whether ``word`` stands in ``sentence`` as part of a person's name: after a first name
    ("Florian David Fitz", not "line tangle") or beside a capitalized word the dictionary cannot
    read ("Bram Schot", not "topgallant mast"; one opening the sentence read in lower case too),
    but a first name ("Tormann Damian Hallas": a noun before a name says who the person is)."""
    for match in _occurrences(sentence, word):
        before = re.search(rf"({WORD.pattern})[ \t]+\Z", sentence[:match.start()])
        after = re.match(rf"[ \t]+({WORD.pattern})", sentence[match.end():])
        if before and before[1][:1].isupper() and (before[1] in _FIRST_NAMES or not reads(before[1]) and not (
                _opens_sentence(sentence[:before.start(1)]) and reads(before[1].lower()))):
            return True
        if after and after[1][:1].isupper() and not reads(after[1]) and after[1] not in _FIRST_NAMES:
            return True
    return False


def untranslated(sentence: str, translation: str, coverage: Coverage, reads: Callable[[str], bool],
                 named: Callable[[str], bool] | None = None) -> list[str]:
    """The German words of ``sentence`` that ``translation`` carries over as written
    (``Coverage.copied``), in order: words ``reads`` reads (the pipeline's: Ding, or a compound
    of parts it reads), without evidence of a name (``rules.names.evidently_named``, with
    ``named``: the model's lexicon's names), not part of one (``in_a_name``) and not opening the
    sentence (``_opening``)."""
    def german(word: str) -> bool:
        return reads(word) and not evidently_named(word, named)

    return [word for _, word in coverage.copied(sentence, translation, german)
            if not in_a_name(sentence, word, reads) and not _opening(sentence, word)]


def _opening(sentence: str, word: str) -> bool:
    """Whether ``word`` opens ``sentence`` (or a part after a colon or quote): there a capital says
    nothing, and a surname is as often the subject ("Pilz prüft Arbeitszeiten" is Peter Pilz)."""
    return any(_opens_sentence(sentence[:m.start()]) for m in _occurrences(sentence, word))


def with_hints(glossary: Glossary | None, words: Iterable[str], coverage: Coverage,
               inflections: Inflections | None = None) -> Glossary | None:
    """``glossary`` (None: none) with a term for each of ``words`` that ``hint`` reads and the
    glossary lacks, its plurals from ``inflections``; None where there is none to add and no glossary."""
    entries = list(glossary.entries) if glossary is not None else []
    known = {term for term, _ in entries}
    for word in words:
        found = hint(word, coverage)
        if found is not None and found[0] not in known:
            entries.append(found)
            known.add(found[0])
    if glossary is not None and len(entries) == len(glossary.entries):
        return glossary
    return Glossary(entries, inflections) if entries else None
