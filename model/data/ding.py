"""The Ding German-English dictionary (Debian ``trans-de-en``) as training pairs.

Ding (© Frank Richter, TU Chemnitz, GPL-2.0-or-later) has one entry a line::

    Leidenschaft {f} | Leidenschaften {pl} | aus Leidenschaft :: passion | passions | of passion

Both sides hold the same number of ``|``-separated sub-entries, aligned pairwise; each sub-entry
lists ``;``-separated synonyms with annotations in ``{}`` (gender, part of speech), ``[]``
(domain, register, variety), ``<>`` (spelling variants), ``()`` (glosses) and ``/ABBR/``.

``read_ding`` turns that into two kinds of ``(german, english)`` pairs:

* ``"sentences"``: the example sentences (both sides a capitalised sentence with end
  punctuation: "Unser Hotel unterhält einen Busdienst." / "Our hotel runs a bus service.");
* ``"words"``: words and phrases ("Leidenschaft" / "passion", "aus Leidenschaft" / "of passion").

Synonyms are expanded to the first synonym of the other side and the first synonyms to each
other (n + m - 1 pairs, not n x m), so a 5 x 5 entry gives 9 pairs, each term translated by the
most common sense.  Dropped as junk for a general-domain translator: species names (lines tagged
``[ornith.]``, and ``[zool.]``/``[bot.]`` lines with a Latin name or rank), archaic/obsolete/rare terms, terms still holding a slash
alternative ("sheer/pure"), and the placeholders ``etw.``/``jdn.``/``sth.``/``sb.`` unless they
stand at a term's edge, where they are removed ("etw. wahrnehmen" -> "wahrnehmen").
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator

from model.data.corpus import CorpusError, Pair, normalize, read_lines

KINDS = ("sentences", "words")

# Bird entries are nearly all species; animals and plants only where a Latin name or rank is given
# ("Flunder {f} (Platichthys flesus) [zool.]"), so "Hund {m} [zool.]" stays.
_SPECIES = re.compile(r"\[ornith\.\]")
_TAXON = re.compile(r"\[(?:zool|bot)\.\]")
_TAXON_GLOSS = re.compile(r"\((?:[A-Z][a-z]+(?: [a-z]+)?|zoologische [^)]*|botanische [^)]*)\)")
_UNWANTED = re.compile(r"\[(?:veraltet|veraltend|alt|obs\.|archaic|dated|selten|rare)\]")
_ANNOTATION = re.compile(r"\{[^{}]*\}|\[[^\[\]]*\]|<[^<>]*>|(?<!\S)/[^/\s]+/(?!\S)")
# Glosses may nest one level: "(zoologische Gattung (Fam.))".
_GLOSS = re.compile(r"\((?:[^()]|\([^()]*\))*\)")
_LEFTOVER = re.compile(r"[{}\[\]<>()]|\w/\w|\s/\s|\.\.\.|…")
_GERMAN_SLOTS = r"etw\.|jdm\.|jdn\.|jds\.|jd\.|etw"
_ENGLISH_SLOTS = r"sth\.|sb\.'s|sb\.|sb's|sth"
_EDGE = re.compile(rf"^(?:(?:{_GERMAN_SLOTS}|{_ENGLISH_SLOTS})\s+)+|(?:\s+(?:{_GERMAN_SLOTS}|{_ENGLISH_SLOTS}))+$")
_SLOT = re.compile(rf"(?<!\w)(?:{_GERMAN_SLOTS}|{_ENGLISH_SLOTS})(?!\w)")
_END = re.compile(r"[.!?]")
_SENTENCE = re.compile(r"^[A-ZÄÖÜ0-9\"„‚'].*\S.*[.!?][\"“‘']?$")


def _terms(sub_entry: str, *, words: bool) -> list[str]:
    """The usable synonyms of one sub-entry, annotations removed, in order."""
    terms: list[str] = []
    for raw in sub_entry.split(";"):
        if _UNWANTED.search(raw):
            continue
        text = _ANNOTATION.sub(" ", raw)
        text = _GLOSS.sub(" ", text) if words else text
        # Ding writes typographic apostrophes (He’s); every other corpus and user types ASCII ones.
        text = normalize(text).replace("’", "'").replace("‘", "'")
        if words:
            text = _EDGE.sub("", text).strip()
        if not text or _LEFTOVER.search(text) or _SLOT.search(text):
            continue
        if text not in terms:
            terms.append(text)
    return terms


def _expand(german: list[str], english: list[str]) -> Iterator[Pair]:
    """Each German synonym with the first English one and the first German with each English one."""
    if not german or not english:
        return
    for de in german:
        yield de, english[0]
    for en in english[1:]:
        yield german[0], en


def is_sentence(text: str) -> bool:
    """A capitalised text of two or more words ending in ., ! or ? (after an optional quote)."""
    return " " in text and _SENTENCE.match(text) is not None


def parse_line(line: str) -> Iterator[tuple[str, Pair]]:
    """``(kind, (german, english))`` for every pair of one dictionary line; nothing for junk."""
    if line.startswith("#") or _SPECIES.search(line) or (_TAXON.search(line) and _TAXON_GLOSS.search(line)):
        return
    sides = line.split(" :: ")
    if len(sides) != 2:
        return
    german, english = (side.split(" | ") for side in sides)
    if len(german) != len(english):  # misaligned sub-entries: nothing can be paired safely
        return
    for de_entry, en_entry in zip(german, english):
        if _END.search(de_entry) and _END.search(en_entry):  # a cheap test before the full one
            sentences = [t for t in _terms(de_entry, words=False) if is_sentence(t)]
            if sentences and (english_sentences := [t for t in _terms(en_entry, words=False) if is_sentence(t)]):
                for pair in _expand(sentences, english_sentences):
                    yield "sentences", pair
                continue
        de_terms, en_terms = _terms(de_entry, words=True), _terms(en_entry, words=True)
        for de, en in _expand([t for t in de_terms if not is_sentence(t)], [t for t in en_terms if not is_sentence(t)]):
            yield "words", (de, en)


def read_ding(path: str | os.PathLike, kind: str) -> list[Pair]:
    """The distinct ``(german, english)`` pairs of ``kind`` ("sentences" or "words"), in file order."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    stat = os.stat(path) if os.path.isfile(path) else None
    key = (os.path.abspath(path), stat.st_size, stat.st_mtime_ns) if stat else None
    return list(_read_all(os.fspath(path), key)[kind])


@functools.lru_cache(maxsize=2)
def _read_all(path: str, key: object) -> dict[str, tuple[Pair, ...]]:
    """Both kinds in one pass (a few seconds for the 206k lines), cached per file version (``key``)."""
    lines = read_lines(path)
    if not any(" :: " in line for line in lines[:100]):
        raise CorpusError(f"not a Ding dictionary (no 'German :: English' line): {path!r}")
    found: dict[str, dict[Pair, None]] = {kind: {} for kind in KINDS}  # dicts: distinct and ordered
    for line in lines:
        for kind, pair in parse_line(line):
            found[kind].setdefault(pair)
    return {kind: tuple(pairs) for kind, pairs in found.items()}
