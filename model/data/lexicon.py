"""The German words a model knows, so that the pipeline can tell a name it would mangle from a noun.

German capitalizes every noun, so capitals alone do not say "name". What does: a name comes over
unchanged ("Anna" / "Anna"), a noun is translated ("Verspätung" / "delay"). ``known_words``
counts, over a model's training pairs, how often each German word form is translated (absent, as
written, from the English side) and how often copied, and keeps the forms translated at least as
often as copied, and those copied often enough (``MIN_COPIES``) for the model to have learned to
copy them itself ("Tom"). A capitalized word outside that lexicon is a rare name or a word the model
never met; either way the pipeline does best to carry it over like a span (``pipeline.spans``): the
model, trained with names as placeholders (``pipeline.augment``), then writes the sentence around
it instead of mangling it ("Liebe Anna," became "Love"; "Hallo Lukas," became "Hellasasas").

``Lexicon.knows`` also accepts compounds of known words ("Repositoriumsname": "Repositorium" + "s"
+ "Name"), which no training set lists in full.

The word forms are held in a MARISA trie (marisa-trie): the release model's 351,289 forms take
about 4 MiB there against 40 MiB as a Python set, in the process that every server worker shares
(docs/journal/serving-load.md, "Memory").
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Iterable

import marisa_trie

from model.data.corpus import Pair

WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
# Linking elements between the parts of a German compound ("Arbeit-s-zimmer", "Sonne-n-schein").
_LINKS = ("", "s", "es", "n", "en", "e", "er")
_MIN_PART = 3
_MIN_COMPOUND = 8  # shorter unknown words are names far more often than compounds ("Leonie")
# Longer ones are not words (German's longest compounds have about 60 letters) but strings such as
# a pasted hash or a run of letters; splitting them costs time quadratic in the length, and
# recursion one level per part.
_MAX_COMPOUND = 80
# Compound analyses remembered per lexicon: a server meets new words for as long as it runs, so
# the memo is emptied when full rather than left to grow.
MEMO_SIZE = 100_000


# Names copied this often are left to the model ("Tom": bench/README.md, "names.py").
MIN_COPIES = 20


def _counts(pairs: Iterable[Pair]) -> tuple[Counter[str], Counter[str]]:
    """How often each German word form of the pairs is translated, and how often copied."""
    translated: Counter[str] = Counter()
    copied: Counter[str] = Counter()
    for de, en in pairs:
        english = set(WORD.findall(en))
        for word in set(WORD.findall(de)):
            (copied if word in english else translated)[word] += 1
    return translated, copied


def known_words(pairs: Iterable[Pair], min_copies: int = MIN_COPIES) -> list[str]:
    """The German word forms (as written) of ``(german, english)`` pairs that are translated at
    least as often as they are copied, or copied at least ``min_copies`` times; sorted."""
    return sorted(build_lexicon(pairs, min_copies).words)


def build_lexicon(pairs: Iterable[Pair], min_copies: int = MIN_COPIES) -> Lexicon:
    """The lexicon of a model's training pairs: its ``known_words``, and as ``names`` the forms the
    pairs copy more often than they translate (but fewer than ``min_copies`` times), which no
    compound analysis may turn into words ("Freiburg" is not "frei" + "Burg")."""
    translated, copied = _counts(pairs)
    known = [w for w in translated.keys() | copied.keys() if translated[w] >= copied[w] or copied[w] >= min_copies]
    return Lexicon(known, names=[w for w in copied if copied[w] > translated[w] and copied[w] < min_copies])


class Lexicon:
    """A set of German word forms (``known_words``) with the lookups the pipeline makes, and the
    forms known to be names (``build_lexicon``). ``words`` and ``names`` are read-only sets of
    strings (``in``, ``len``, iteration)."""

    def __init__(self, words: Iterable[str], names: Iterable[str] = ()):
        self.words = marisa_trie.Trie(words)
        self.names = marisa_trie.Trie(name for name in names if name not in self.words)
        self._compounds: dict[str, bool] = {}

    def __len__(self) -> int:
        return len(self.words)

    def knows(self, word: str, *, initial: bool = False) -> bool:
        """Whether ``word`` is a translated form, or a compound of them (the last part a known
        noun, linking elements allowed), or a hyphenated compound whose last part is one and no
        name ("PORT-Befehl", "IP-Adressmaske": a kind of command, of mask, whatever the parts
        before; "Hans-Peter" stays a name); ``initial``: at the start of a sentence, where any
        word is capitalized, its lower-case form counts too."""
        if word in self.words or initial and word.lower() in self.words:
            return True
        if word in self.names:
            return False
        if "-" not in word:
            return self._compound(word)
        head = word.rsplit("-", 1)[1]
        return head not in self.names and self._compound(head)

    def _compound(self, word: str) -> bool:
        if word in self.words:
            return True
        known = self._compounds.get(word)
        if known is None:
            known = self._split(word)
            if len(self._compounds) >= MEMO_SIZE:
                self._compounds.clear()
            self._compounds[word] = known
        return known

    def _split(self, word: str) -> bool:
        if not _MIN_COMPOUND <= len(word) <= _MAX_COMPOUND:
            return False
        for cut in range(len(word) - _MIN_PART, _MIN_PART - 1, -1):
            head, tail = word[:cut], word[cut:]
            if tail.capitalize() not in self.words:  # the last part of a compound is a noun
                continue
            for link in _LINKS:
                stem = head[:len(head) - len(link)] if link and head.endswith(link) else head if not link else ""
                if len(stem) >= _MIN_PART and (stem in self.words or stem.capitalize() in self.words
                                               or self._compound(stem.capitalize())):
                    return True
        return False

    def to_bytes(self) -> bytes:
        """The words one per line, then the names one per line behind "!", UTF-8, zlib-compressed
        (a third of the size): as a checkpoint stores them."""
        lines = sorted(self.words) + ["!" + name for name in sorted(self.names)]
        return zlib.compress("\n".join(lines).encode("utf-8"), 9)

    @classmethod
    def from_bytes(cls, data: bytes) -> Lexicon:
        """The lexicon that ``to_bytes`` wrote; ValueError for anything else."""
        try:
            text = zlib.decompress(data).decode("utf-8")
        except (zlib.error, UnicodeDecodeError) as exc:
            raise ValueError(f"not a lexicon: {exc}") from None
        lines = text.split("\n")
        return cls((w for w in lines if w and w[0] != "!"), (w[1:] for w in lines if w[:1] == "!"))
