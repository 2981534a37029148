"""Source words a translation leaves out: the content words of a German text that no word of its
English output translates, by the Ding dictionary.

The model sometimes drops a word or a clause ("Mein Sohn hat seit gestern Fieber und
Halsschmerzen." -> "My son has had a fever since yesterday."). Its own cross-attention does not
single such words out (docs/journal/coverage.md, "Dropped clauses"); a dictionary does, well enough to pick
among the beam's hypotheses (``Pipeline``, ``Options.coverage_weight``).

A word of the source is judged when it is a **content word**: its first Ding entry is a noun, a
verb or an adjective (Ding ranks the commonest reading first; a lower-case word is never read as
a noun, a capitalized word opening a sentence is read as its lower-case word where Ding has one),
and no entry reads it as an article, pronoun, preposition or conjunction, and it is not an
auxiliary or modal verb (``AUXILIARIES``: "hat ... beschlossen" has nothing of its own to
translate). A compound Ding lacks is judged by its longest noun head Ding has
("Klimaschutzgesetz" -> "Gesetz"); words Ding does not know at all are not judged.

A judged word is **translated** when the output has one of its senses' words (the word itself
only where it is one of them: "Internet", "Hotel"; a copied "Fenster" left German in the English): compared as lemmas (``simplemma``, both languages: "ging" is "gehen",
"went" is "go") or by their first ``PREFIX`` letters ("decided" for "to decide").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

import simplemma

from model.data.ding import DictionaryEntry, DingDictionary

# Verbs that carry tense, mood or voice rather than content of their own.
AUXILIARIES = frozenset("sein haben werden können müssen sollen wollen dürfen mögen möchten lassen".split())
_CLOSED_CLASSES = frozenset(("article", "pronoun", "preposition", "conjunction"))
# Words of Ding's senses that translate nothing by themselves ("to decide", "sth. (of sb.)").
_SENSE_FILLERS = frozenset("""the a an to of in on at for with by up out be sb sth one one's oneself
    someone something it is are was were as from into or and not no""".split())
PREFIX = 5                 # letters an inflected English word shares with its sense ("decided", "decide")
_MIN_COMPOUND = 8          # shorter unknown words are not split into a compound's head
_MIN_HEAD = 4              # the shortest head of a compound that is judged ("Gesetz", not "etz")
MIN_COPIED = 4             # the shortest source word whose copy in the output is German left in it
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_BRACKETS = re.compile(r"\[[^\]]*\]|\([^)]*\)|\{[^}]*\}|<[^>]*>")
_SENTENCE_END = frozenset('.!?:"„“»«')


def lemma(word: str, language: str) -> str:
    """``word``'s lemma (simplemma). ``low_memory``: its data are read as compressed streams and
    looked up where needed, 17 MiB in all for German and English instead of 120 as dictionaries,
    for the same lemmas, slower only uncached (docs/journal/serving-load.md, "Two models")."""
    return simplemma.lemmatize(word, lang=language, low_memory=True)


def _is_content(word_class: str | None) -> bool:
    word_class = word_class or ""
    return word_class.startswith(("noun", "adjective")) or word_class == "verb" or word_class.endswith(" verb")


def _head_word(entry: DictionaryEntry) -> str:
    """The headword without its glosses and objects: "(jdm.) etw. geben" -> "geben"."""
    words = _BRACKETS.sub(" ", entry.headword).split()
    return words[-1].lower() if words else ""


class Coverage:
    """Which content words of a source its translation leaves out (see the module docstring).

    ``lookup`` is a Ding index's ``DingDictionary.lookup``; results are cached per word."""

    def __init__(self, lookup: Callable[[str], list[DictionaryEntry]], cache_size: int = 65536,
                 dictionary: DingDictionary | None = None):
        self.lookup = lookup
        self.dictionary = dictionary   # the index ``lookup`` reads, where there is one (its noun plurals)
        self.senses = lru_cache(maxsize=cache_size)(self._senses)
        self.reads = lru_cache(maxsize=cache_size)(self._reads)
        self.english_too = lru_cache(maxsize=cache_size)(self._english_too)
        self._english = lru_cache(maxsize=cache_size)(lambda word: lemma(word, "en").lower())

    @classmethod
    def of(cls, dictionary: DingDictionary) -> Coverage:
        """The coverage of a Ding index (``model.data.ding.load_dictionary``)."""
        return cls(dictionary.lookup, dictionary=dictionary)

    @staticmethod
    def load() -> None:
        """Read the lemmatizer's German and English data now (seconds; else the first call does)."""
        lemma("ging", "de")
        lemma("went", "en")

    def _found(self, word: str, initial: bool) -> list[DictionaryEntry]:
        """Ding's entries of ``word``: a lower-case word's lower-case headwords only ("einer" is not
        "Einer"); a capitalized word opening a sentence (``initial``) those of its lower-case form
        where Ding has some, else its own."""
        if word[:1].islower() or initial:
            lower = [e for e in self.lookup(word.lower()) if not e.headword[:1].isupper()]
            if lower or word[:1].islower():
                return lower
        return self.lookup(word)

    def _entries(self, word: str, initial: bool) -> list[DictionaryEntry]:
        entries = self._found(word, initial)
        if not entries and (lemmatized := lemma(word, "de")) != word:
            entries = self._found(lemmatized, initial)
        if not entries and word[:1].isupper() and len(word) >= _MIN_COMPOUND:
            for start in range(3, len(word) - _MIN_HEAD + 1):
                entries = [e for e in self.lookup(word[start:].capitalize()) if (e.word_class or "").startswith("noun")]
                if entries:
                    break
        return entries

    def _reads(self, word: str) -> bool:
        """``reads``: whether Ding knows ``word`` or its lemma ("Kaufes": "Kauf") as a word, not as
        a place (``[geogr.]`` with a capital: a name, "Wolfsburg"; a place's adjective,
        "kaukasisch", is a word)."""
        def word_entry(e: DictionaryEntry) -> bool:
            return "geogr." not in e.labels or e.headword[:1].islower()

        return any(word_entry(e) for e in self._found(word, False)) or (
            (lemmatized := lemma(word, "de")) != word and any(word_entry(e) for e in self._found(lemmatized, False)))

    def _english_too(self, word: str) -> bool:
        """``english_too``: whether English writes ``word`` as German does: it (lower case, or its
        English lemma) is one of its own or its lemma's senses, or their lemmas ("Hotel",
        "Internet", "Fans", "Downloads"), so a copy of it translates it."""
        entries = self._found(word, False) + self._found(lemma(word, "de"), False)
        own = {word.lower(), self._english(word)}   # "Fans": "fan"
        return any(not own.isdisjoint({token, self._english(token)})   # "Downloads": "downloading"
                   for e in entries for sense in e.senses for token in _WORD.findall(_BRACKETS.sub(" ", sense).lower()))

    def copied(self, source: str, output: str, german: Callable[[str], bool]) -> list[tuple[int, str]]:
        """Each German word of ``source`` that ``output`` carries over as written, and where in
        ``output`` it starts (``MIN_COPIED`` letters or more; in lower case, "a novum" for "ein
        Novum", it is too often an English word of its own: "diagnose", "manifest"): a word that
        ``german`` says is German
        (the pipeline's: the dictionary reads it, no name) and that English does not write so
        (``english_too``). "Profite" copied into "Big cars, big Profite" left German in the English."""
        words = {m.group() for m in _WORD.finditer(source) if len(m.group()) >= MIN_COPIED}
        return [(m.start(), m.group()) for m in _WORD.finditer(output)
                if m.group() in words and german(m.group()) and not self.english_too(m.group())]

    def place(self, word: str) -> bool:
        """Whether Ding knows ``word`` as a place (``[geogr.]``)."""
        return any("geogr." in e.labels for e in self.lookup(word))

    def compound(self, word: str) -> tuple[str, str] | None:
        """``word`` as a compound of two parts that Ding both reads (``reads``), the head a noun of
        4 letters or more, the part before it 4 or more without a linking element ("Akku|packs",
        "Wartungs|modus"), the longest head first; None where there is none ("Morlaix|platz",
        "Geis|inger")."""
        if not (word[:1].isupper() and len(word) >= _MIN_COMPOUND and word.isalpha()):
            return None
        for cut in range(_MIN_HEAD, len(word) - _MIN_HEAD + 1):
            modifier, head = word[:cut], word[cut:].capitalize()
            if not self.reads(head) or not any((e.word_class or "").startswith("noun") for e in self._found(head, False)
                                               + self._found(lemma(head, "de"), False)):
                continue
            for link in ("", "s", "es", "n", "en", "e"):
                stem = modifier[:len(modifier) - len(link)] if link and modifier.endswith(link) else modifier
                if (not link or modifier.endswith(link)) and len(stem) >= _MIN_HEAD and (
                        self.reads(stem) or self.reads(stem.lower()) or self.reads(stem.capitalize())):
                    return modifier, head
        return None

    def _senses(self, word: str, initial: bool) -> frozenset[str] | None:
        """The English lemmas of a content word's senses; None for a word that is not judged."""
        entries = self._entries(word, initial)
        if not entries or not _is_content(entries[0].word_class):
            return None
        if any(e.word_class in _CLOSED_CLASSES for e in entries) or any(_head_word(e) in AUXILIARIES for e in entries):
            return None
        lemmas = {self._english(part) for e in entries for sense in e.senses
                  for token in _WORD.findall(_BRACKETS.sub(" ", sense).lower()) for part in token.split("-")
                  if part not in _SENSE_FILLERS and len(part) > 1}
        return frozenset(lemmas) or None

    def _output_lemmas(self, output: str) -> tuple[set[str], set[str]]:
        words = [w.lower() for w in _WORD.findall(output)]
        parts = {part for w in words for part in w.split("-")} | set(words)
        lemmas = {self._english(part) for part in parts} | parts
        return lemmas, {word[:PREFIX] for word in lemmas if len(word) >= PREFIX}

    def content_words(self, source: str) -> list[tuple[str, frozenset[str]]]:
        """The words of ``source`` that are judged, in order, with their senses' English lemmas."""
        return [(source[start:end], senses) for (start, end), senses in self.content_spans(source)]

    def content_spans(self, source: str) -> list[tuple[tuple[int, int], frozenset[str]]]:
        """``content_words`` as the words' character spans in ``source``: each word read in its
        sentence, as a word opening one or not."""
        found = []
        for match in _WORD.finditer(source):
            word = match.group()
            if len(word) < 3:
                continue
            before = source[:match.start()].rstrip()
            senses = self.senses(word, not before or before[-1] in _SENTENCE_END)
            if senses is not None:
                found.append((match.span(), senses))
        return found

    def renders(self, senses: frozenset[str], output: str) -> bool:
        """Whether ``output`` (a word or a few) translates a content word of these ``senses``, as
        ``missing`` judges."""
        return self._translates("", senses, *self._output_lemmas(output))

    @staticmethod
    def _translates(word: str, senses: frozenset[str], lemmas: set[str], prefixes: set[str]) -> bool:
        # The word itself in the output translates it only where English writes it so, as one of
        # its senses ("Internet", "Hotel"); a copy of "Fenster" left German in the English.
        return any(s in lemmas or len(s) >= PREFIX and s[:PREFIX] in prefixes for s in senses)

    def missing(self, source: str, output: str) -> list[str]:
        """The content words of ``source`` (as written, in order) that ``output`` does not translate."""
        lemmas, prefixes = self._output_lemmas(output)
        return [word for word, senses in self.content_words(source)
                if not self._translates(word, senses, lemmas, prefixes)]

    def translations(self, source: str, output: str) -> list[tuple[str, tuple[int, int] | None]]:
        """Each content word of ``source``, in order, with the span in ``output`` of the first word
        that translates it (as ``missing`` judges: None for a word left out)."""
        spans = [(m.span(), self._output_lemmas(m.group())) for m in _WORD.finditer(output)]
        found = []
        for word, senses in self.content_words(source):
            at = next((span for span, (lemmas, prefixes) in spans
                       if self._translates(word, senses, lemmas, prefixes)), None)
            found.append((word, at))
        return found

    def gaps(self, source: str, output: str) -> list[int]:
        """Where in ``output`` a content word it leaves out may belong, as offsets in it, in order:
        after the output word that translates the nearest translated content word before the left-out
        one in ``source``, and before the one that translates the nearest after it."""
        found = self.translations(source, output)
        offsets = set()
        for k, (_, at) in enumerate(found):
            if at is not None:
                continue
            before = next((span for _, span in reversed(found[:k]) if span is not None), None)
            after = next((span for _, span in found[k + 1:] if span is not None), None)
            if before is not None:
                offsets.add(before[1])
            if after is not None:
                offsets.add(after[0])
        return sorted(offsets)
