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

import bisect
import functools
import os
import re
import unicodedata
import weakref
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

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


# ------------------------------------------------------------------------------ noun plurals

_GENDER = re.compile(r"\{([mfn])\}")
_NOUN = re.compile(r"[A-ZÄÖÜ][^\W\d_]*(?:-[^\W\d_]+)*")


def _noun(term: str) -> str | None:
    """The one capitalized word of a Ding term with its annotations removed, else None."""
    text = _GLOSS.sub(" ", _ANNOTATION.sub(" ", term)).strip()
    return text if _NOUN.fullmatch(text) else None


def _add_nouns(line: str, found: dict[str, tuple[set[str], list[str]]]) -> None:
    subs = line.split(" :: ")[0].split(" | ", 2)
    if len(subs) > 1 and "{pl}" in subs[1]:
        plural_sub = subs[1].split(";")
        for k, synonym in enumerate(subs[0].split(";")):
            gender = _GENDER.search(synonym)
            noun = _noun(synonym) if gender and k < len(plural_sub) and "{pl}" in plural_sub[k] else None
            plural = _noun(plural_sub[k]) if noun else None
            if noun and plural and _same_stem(noun, plural):
                genders, plurals = found.setdefault(noun, (set(), []))
                genders.add(gender[1])
                if plural not in plurals:
                    plurals.append(plural)


class NounForms:
    """Ding's nouns as ``{noun: (genders, plurals)}``, for every one-word noun a line tags with its
    gender (``{m}``, ``{f}``, ``{n}``): its plurals from the sub-entry after it where that one is
    tagged ``{pl}``, synonym by synonym ("Termin {m}; Verabredung {f} | Termine {pl};
    Verabredungen {pl}"). ``genders`` holds every gender of the noun's lines ("mn" for "Teil"),
    ``plurals`` every plural ("Bank": "Banken", "Bänke"). A plural must start as its noun does
    (umlauts aside), so that a misaligned line adds nothing.

    Read noun by noun from a ``DingDictionary`` index (the lines the noun finds, parsed when first
    asked for and remembered), so that the index built for the dictionary panel serves glossaries
    too, without a second pass over the file or a second copy in memory. A read-only mapping as
    far as glossaries use one: ``get``, ``in``, ``[]``."""

    def __init__(self, index: DingDictionary):
        self.index = index
        self._get = functools.lru_cache(maxsize=65536)(self._read)

    def _read(self, noun: str) -> tuple[str, tuple[str, ...]] | None:
        found: dict[str, tuple[set[str], list[str]]] = {}
        for line in self.index.lines(noun):
            if "{pl}" in line:
                _add_nouns(line, found)
        if noun not in found:
            return None
        genders, plurals = found[noun]
        return "".join(sorted(genders)), tuple(plurals)

    def get(self, noun: str, default=None):
        found = self._get(noun)
        return default if found is None else found

    def __getitem__(self, noun: str) -> tuple[str, tuple[str, ...]]:
        found = self._get(noun)
        if found is None:
            raise KeyError(noun)
        return found

    def __contains__(self, noun: object) -> bool:
        return isinstance(noun, str) and self._get(noun) is not None

    def __bool__(self) -> bool:
        return True


_PLAIN = str.maketrans("äöüÄÖÜ", "aouAOU")


def _same_stem(noun: str, plural: str) -> bool:
    stem = noun[:max(2, min(len(noun) - 1, 4))].translate(_PLAIN)
    return plural.translate(_PLAIN).startswith(stem)


# ------------------------------------------------------------------------------ dictionary lookup
#
# The translate page's dictionary panel (app/dictionary.py): Ding's lines by headword and by the
# forms a line lists. A line's first sub-entry holds its headwords ("Termin {m}; Verabredung {f}"),
# the English senses they share and, after them, the forms of its words: a noun's plural (the next
# sub-entry, tagged {pl}), a verb's participles and persons ("essend | gegessen | ich esse | du
# isst | ich/er/sie aß"), an adjective's or adverb's comparison ("besser | am besten"); then
# phrases and example sentences.
#
# Either side can be looked up (``source``): the English side's first sub-entry holds English
# headwords ("appointment; date") whose senses are the German headwords, and the English sub-entries
# beside the German forms hold the English forms ("appointments"; "eating | eaten | I eat | I/he/she
# ate"). Which sub-entries are forms is read from the German side, where Ding writes the tags.

DEBIAN_PATH = "/usr/share/trans/de-en"  # where Debian's trans-de-en installs Ding
DING_ATTRIBUTION = "Ding German–English dictionary, © Frank Richter, TU Chemnitz (https://dict.tu-chemnitz.de/)"
DING_LICENSE = "GPL-2.0-or-later"

# Ding's word-class tags; a pair of braces may hold several ({m,f}, {prp; +Dat.}).
_CLASSES = {"m": "noun", "f": "noun", "n": "noun", "pl": "noun", "vt": "transitive verb", "vi": "intransitive verb",
            "vr": "reflexive verb", "v": "verb", "adj": "adjective", "adv": "adverb", "prp": "preposition",
            "conj": "conjunction", "pron": "pronoun", "ppron": "pronoun", "art": "article", "num": "numeral",
            "interj": "interjection"}
_TAG = re.compile(r"\{([^{}]*)\}")
_LABEL = re.compile(r"\[([^\[\]]*)\]")
# not inside braces or parentheses: "to eat {ate; eaten}; to dine", "(Ort; Zeit) verabreden"
_SYNONYM_SEPARATOR = re.compile(r";(?![^{]*\})(?![^(]*\))")
_PRONOUN = r"(?:ich|du|er|sie|es|wir|ihr|man)"
# A form as Ding lists it: "gegessen", "ich esse", "ich/er/sie aß", "er/sie sagt ab", "am besten", "iss!".
_FORM = re.compile(rf"(?:(?:{_PRONOUN}(?:/{_PRONOUN})*|am) )?[^\W\d_]+(?:[ /][^\W\d_]+)*!?")
_FORM_PREFIX = re.compile(rf"^(?:{_PRONOUN}(?:/{_PRONOUN})*|am|sich) ")
_ENGLISH_PRONOUN = r"(?:i|you|he|she|it|we|they)"
# An English form's pronouns ("I/he/she ate", "he/she hurries"); forms are matched in any case.
_ENGLISH_FORM_PREFIX = re.compile(rf"^{_ENGLISH_PRONOUN}(?:/{_ENGLISH_PRONOUN})* ", re.IGNORECASE)
_EDGE_PUNCTUATION = " .,;:!?\"'„“”‚‘’«»…"
ARTICLES = frozenset("der die das den dem des ein eine einen einem einer eines".split())
ENGLISH_ARTICLES = frozenset({"a", "an", "the"})
# The languages an index looks up: Ding's German side (the first) or its English side.
SOURCES = ("de", "en")


def check_source(source: object) -> str:
    """``source`` if it is one of ``SOURCES``, else ValueError."""
    if source not in SOURCES:
        raise ValueError(f"source must be de or en, got {source!r}")
    return source


@dataclass(frozen=True)
class DictionaryEntry:
    """One Ding line as found by one of its headwords (or that headword's form, ``match``
    "form"): the headword as written (tags and labels removed, glosses kept), its word class
    and gender (None where Ding tags none), labels ("ugs.", "Schw."), its listed forms, the
    senses (the other language's headwords, their labels kept), the line's other headwords
    (synonyms), and its phrases and example sentences as (German, English) pairs whichever side
    was looked up.

    An English headword's word class is the German side's (Ding tags only German words), and its
    gender is None: English nouns have none, and the genders Ding gives belong to the German
    senses, which may differ ("Termin {m}; Verabredung {f}")."""

    headword: str
    word_class: str | None
    gender: str | None
    labels: tuple[str, ...]
    forms: tuple[str, ...]
    senses: tuple[str, ...]
    synonyms: tuple[str, ...]
    phrases: tuple[Pair, ...]
    examples: tuple[Pair, ...]
    match: str


def split_entry(line: str) -> list[tuple[str, str]] | None:
    """A Ding line's aligned ``(German, English)`` sub-entries; None for a comment or a line
    whose sides do not align."""
    german, separator, english = line.rstrip("\n").partition(" :: ")
    if not separator or line.startswith("#") or " :: " in english:
        return None
    german_subs, english_subs = german.split(" | "), english.split(" | ")
    return list(zip(german_subs, english_subs)) if len(german_subs) == len(english_subs) else None


def split_synonyms(sub_entry: str) -> list[str]:
    """The ``;``-separated synonyms of a sub-entry, stripped."""
    parts = _SYNONYM_SEPARATOR.split(sub_entry) if "{" in sub_entry or "(" in sub_entry else sub_entry.split(";")
    return [part.strip() for part in parts if part and not part.isspace()]


def display_text(text: str) -> str:
    """A Ding term or sub-entry as the panel shows it: tags ({m}), spelling variants (<...>) and
    abbreviations (/.../) removed, labels ([ugs.]) and glosses kept."""
    return " ".join(_ANNOTATION.sub(lambda m: m[0] if m[0].startswith("[") else " ", text).split())


def plain_term(term: str) -> str:
    """A term as it is looked up, case kept: annotations and glosses removed, placeholders at its
    edges too ("etw. absagen" -> "absagen"), whitespace runs as one space, and punctuation and
    quotes at its ends ("Guten Morgen!" -> "Guten Morgen")."""
    if "{" in term:
        term = _TAG.sub(" ", term)
    if "[" in term or "<" in term or "(" in term or "/" in term:
        term = _GLOSS.sub(" ", _ANNOTATION.sub(" ", term))
    term = " ".join(term.split())
    if "etw" in term or "jd" in term or "sth" in term or "sb" in term:
        term = _EDGE.sub("", term)
    return term.strip(_EDGE_PUNCTUATION)


def lookup_key(term: str) -> str:
    """``plain_term`` lower-cased (not case-folded: "aß" must not find "Ass"), typographic
    apostrophes as ASCII ones (Ding writes "doctor’s appointment", users type "doctor's")."""
    key = plain_term(term).lower()
    return key.replace("’", "'") if "’" in key else key


def word_class(term: str) -> tuple[str | None, str | None]:
    """(word class, gender) from a term's tags: ("noun", "m") for "Termin {m}", ("transitive
    verb, intransitive verb", None) for "absagen {vt} {vi}", ("noun (plural)", None) for a
    plural headword; (None, None) without a tag."""
    classes: list[str] = []
    genders: list[str] = []
    for tags in _TAG.findall(term):
        for tag in re.split(r"[,;]\s*", tags):
            tag = tag.strip()
            if tag in _CLASSES and _CLASSES[tag] not in classes:
                classes.append(_CLASSES[tag])
            if tag in ("m", "f", "n") and tag not in genders:
                genders.append(tag)
    if classes == ["noun"] and not genders:
        return "noun (plural)", None
    return (", ".join(classes) or None), (", ".join(genders) or None)


def _inflects(head: str) -> str | None:
    """Which forms Ding lists after a headword: "noun", "verb", "adjective" (or adverb), None."""
    if "{v" in head:  # {v}, {vt}, {vi}, {vr}
        return "verb"
    if "{adj}" in head or "{adv}" in head:
        return "adjective"
    if "{m" in head or "{f" in head or "{pl}" in head or "{n" in head.replace("{num}", ""):
        return "noun"
    return None


def _form_run(german: list[str]) -> int:
    """How many German sub-entries after the first list forms of its words (tags may stand on the
    last headword alone: "etw. verabreden; abmachen; ausmachen {vt}")."""
    kind = _inflects(german[0]) if len(german) > 1 else None
    if kind == "noun":
        plurals = split_synonyms(german[1]) if "{pl}" in german[1] else []
        return 1 if plurals and all("{pl}" in plural for plural in plurals) else 0
    heads = [_FORM_PREFIX.sub("", lookup_key(head)) for head in split_synonyms(german[0])] if kind else []
    run = 0
    for sub in german[1:] if kind else ():
        if "{" in sub:  # a tagged word: a compound or a derived word, no longer a form
            break
        texts = [" ".join(_GLOSS.sub(" ", _ANNOTATION.sub(" ", s)).split()) for s in split_synonyms(sub)]
        if not texts or not all(_is_form(text, heads[j] if j < len(heads) else "") for j, text in enumerate(texts)):
            break
        run += 1
    return run


def _is_form(text: str, head: str) -> bool:
    """One word, or a pronoun (or "am") and words, or a separable verb's form: "macht ab" of "abmachen"."""
    if not _FORM.fullmatch(text):
        return False
    words = _FORM_PREFIX.sub("", text).split(" ")
    return len(words) == 1 or bool(_FORM_PREFIX.match(text)) or (
        len(words) == 2 and len(words[1]) < len(head) and head.startswith(words[1].lower()))


def _form_keys(form: str) -> set[str]:
    """A listed form's keys: as written, and without its pronoun ("ich/er/sie aß" -> "aß")."""
    key = lookup_key(form)
    return {k for k in (key, _FORM_PREFIX.sub("", key)) if k and "/" not in k}


def _english_form_keys(form: str) -> set[str]:
    """An English form's keys: as written, and without its pronouns ("I/he/she ate" -> "ate")."""
    key = lookup_key(form)
    return {k for k in (key, _ENGLISH_FORM_PREFIX.sub("", key)) if k and "/" not in k}


def _head_keys(head: str) -> set[str]:
    key = lookup_key(head)
    return {key, key[5:]} if key.startswith("sich ") else {key}


def _english_head_keys(head: str, verb: bool) -> set[str]:
    """An English headword's keys: as written, and a verb's also without "to" ("cancel" finds "to
    cancel", as "beeilen" finds "sich beeilen"). Only on a line whose German is tagged a verb:
    "to date" (bis heute) and "to hand" (zur Hand) are no verbs."""
    key = lookup_key(head)
    return {key, key[3:]} if verb and key.startswith("to ") and len(key) > 3 else {key}


def _bare_head(head_plain: str, source: str, verb: bool) -> str:
    """A headword (``plain_term``) without the word its other key drops ("sich", "to"), else ""."""
    if source == "de":
        return head_plain[5:] if head_plain.startswith("sich ") else ""
    return head_plain[3:] if verb and head_plain[:3].lower() == "to " else ""


def line_keys(line: str, source: str = "de") -> set[str]:
    """Every ``lookup_key`` a Ding line is found by on side ``source``: its headwords (a
    reflexive verb also without "sich", an English verb also without "to") and their listed
    forms (an English form also without its pronouns)."""
    german, separator, english = line.partition(" :: ")
    if not separator or line.startswith("#") or " :: " in english or german.count(" | ") != english.count(" | "):
        return set()
    subs = german.split(" | ")
    keys: set[str] = set()
    if source == "de":
        for head in split_synonyms(subs[0]):
            keys |= _head_keys(head)
        for sub in subs[1:1 + _form_run(subs)]:
            for form in split_synonyms(sub):
                keys |= _form_keys(form)
    else:
        english_subs = english.split(" | ")
        verb = _inflects(subs[0]) == "verb"
        for head in split_synonyms(english_subs[0]):
            keys |= _english_head_keys(head, verb)
        for sub in english_subs[1:1 + _form_run(subs)]:
            for form in split_synonyms(sub):
                keys |= _english_form_keys(form)
    keys.discard("")
    return keys


def line_entries(line: str, text: str, source: str = "de") -> list[tuple[DictionaryEntry, bool, int]]:
    """The entries of a Ding line that ``text`` finds on side ``source`` (its ``lookup_key`` is a
    headword's or a listed form's), each with whether it matches as written (case included) and
    its headword's place among the line's headwords (0: the first)."""
    subs = split_entry(line)
    if not subs:
        return []
    plain = plain_term(text)
    key = lookup_key(text)
    side = SOURCES.index(source)
    german = [de for de, _ in subs]
    heads = split_synonyms(subs[0][side])
    run = _form_run(german)
    forms = [split_synonyms(sub[side]) for sub in subs[1:1 + run]]
    verb = source == "en" and _inflects(german[0]) == "verb"
    if source == "de":
        head_keys, form_keys, form_prefix = _head_keys, _form_keys, _FORM_PREFIX
    else:
        head_keys = functools.partial(_english_head_keys, verb=verb)
        form_keys, form_prefix = _english_form_keys, _ENGLISH_FORM_PREFIX
    phrases, examples = [], []
    for de, en in subs[1 + run:]:
        first = split_synonyms(de)
        sentence = bool(first) and is_sentence(_GLOSS.sub(" ", display_text(first[0])).strip())
        (examples if sentence else phrases).append((display_text(de), display_text(en)))
    found = []
    for k, head in enumerate(heads):
        own = [synonyms[k] for synonyms in forms if k < len(synonyms)]
        head_plain = plain_term(head)
        written = [w for w in (head_plain, _bare_head(head_plain, source, verb)) if w]
        match = "headword" if key in head_keys(head) else None
        for form in own if match is None else ():
            if key in form_keys(form):
                form_plain = plain_term(form)
                match, written = "form", [form_plain, form_prefix.sub("", form_plain)]
                break
        if match is None:
            continue
        if source == "en":  # the German side's tags, for every English headword; no gender (DictionaryEntry)
            cls, gender = word_class(subs[0][0])[0], None
        else:
            cls, gender = word_class(head)
            if cls is None:  # "abmachen" of "etw. verabreden; abmachen; ausmachen {vt}": the sub-entry's tags
                cls = word_class(subs[0][0])[0]
        entry = DictionaryEntry(
            headword=" ".join(_LABEL.sub(" ", display_text(head)).split()), word_class=cls, gender=gender,
            labels=tuple(_LABEL.findall(head)), forms=tuple(display_text(form) for form in own),
            senses=tuple(display_text(sense) for sense in split_synonyms(subs[0][1 - side])),
            synonyms=tuple(display_text(h) for j, h in enumerate(heads) if j != k),
            phrases=tuple(phrases), examples=tuple(examples), match=match)
        found.append((entry, plain in written, k))
    return found


class DingDictionary:
    """Ding's lines by ``lookup_key``, for one-to-three-word lookups (``lookup``) of German words
    (``source`` "de") or of English ones ("en": English headwords, German senses).

    Built in one pass over the file (about a second) and compact, so that processes forked after
    loading share it copy-on-write: the distinct keys, sorted, as one UTF-8 blob with their
    offsets, each key's line numbers, and every line's byte offset, all in ``array``s (a handful
    of Python objects, about 10 MB for Ding's 206,000 lines). A line is read from the file when
    looked up, through a descriptor opened when loading (a package upgrade replaces the file by
    a new one; this keeps reading the one it indexed)."""

    def __init__(self, path: str | os.PathLike, source: str = "de"):
        self.source = check_source(source)
        self.path = os.fspath(path)
        self.version = ""
        self._fd = os.open(self.path, os.O_RDONLY)
        self._closer = weakref.finalize(self, os.close, self._fd)  # closed with the index, or by close()
        try:
            self._build()
        except BaseException:
            self._closer()
            raise

    def _build(self) -> None:
        source = self.source
        starts = array("I", [0])  # the byte offset of every line, and one past the last
        found: list[str] = []     # "key\0line number", sorted below by key (code points: UTF-8 byte order)
        with open(self._fd, "rb", closefd=False) as lines:
            for number, raw in enumerate(lines):
                starts.append(starts[-1] + len(raw))
                if raw.startswith(b"# Version :: "):
                    self.version = raw[13:].decode("utf-8", "replace").strip()
                elif b" :: " in raw and not raw.startswith(b"#"):
                    found.extend(f"{key}\0{number}" for key in line_keys(raw.decode("utf-8").rstrip("\n"), source))
        if not found:
            raise CorpusError(f"not a Ding dictionary (no 'German :: English' line): {self.path!r}")
        found.sort()
        blob, key_starts, firsts, numbers = bytearray(), array("I"), array("I"), array("I")
        previous = None
        for item in found:
            key, _, number = item.partition("\0")
            if key != previous:
                key_starts.append(len(blob))
                firsts.append(len(numbers))
                blob += key.encode("utf-8") + b"\n"
                previous = key
            numbers.append(int(number))
        key_starts.append(len(blob))
        firsts.append(len(numbers))
        self._keys, self._key_starts, self._firsts, self._numbers, self._starts = (
            bytes(blob), key_starts, firsts, numbers, starts)

    def __len__(self) -> int:
        """The number of distinct keys."""
        return len(self._key_starts) - 1

    def __getitem__(self, i: int) -> bytes:
        """The ``i``-th key in order, UTF-8 (so that ``bisect`` searches the keys)."""
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._keys[self._key_starts[i]:self._key_starts[i + 1] - 1]

    def nbytes(self) -> int:
        """Bytes held by the index's arrays and key blob."""
        arrays = (self._key_starts, self._firsts, self._numbers, self._starts)
        return len(self._keys) + sum(a.itemsize * len(a) for a in arrays)

    def _line(self, number: int) -> str:
        start = self._starts[number]
        return os.pread(self._fd, self._starts[number + 1] - start, start).decode("utf-8")

    def _find(self, text: str) -> list[DictionaryEntry]:
        key = lookup_key(text).encode("utf-8")
        i = bisect.bisect_left(self, key)
        if not key or i == len(self) or self[i] != key:
            return []
        ranked = []
        for number in self._numbers[self._firsts[i]:self._firsts[i + 1]]:
            line = self._line(number)
            for entry, exact, place in line_entries(line, text, self.source):
                # headwords before forms; a line's first headword before its synonyms; richer lines first
                rank = (entry.match != "headword", place > 0, -line.count(" | "), number)
                ranked.append((rank, entry, exact))
        ranked.sort(key=lambda found: found[0])
        exact = [entry for _, entry, as_written in ranked if as_written]
        return exact or [entry for _, entry, _ in ranked]

    def lines(self, text: str) -> list[str]:
        """The raw lines found by ``text``'s ``lookup_key`` (a headword's or a listed form's), in
        file order."""
        key = lookup_key(text).encode("utf-8")
        i = bisect.bisect_left(self, key)
        if not key or i == len(self) or self[i] != key:
            return []
        numbers = sorted(self._numbers[self._firsts[i]:self._firsts[i + 1]])
        return [self._line(number).rstrip("\n") for number in numbers]

    def lookup(self, text: str) -> list[DictionaryEntry]:
        """The entries of ``text``: those whose headword or listed form it is as written (case
        included), else ignoring case; if none, the same for ``text`` without a leading article
        ("der Termin", "the appointment"). Headword matches first, the richest lines (most
        sub-entries) first."""
        text = " ".join(unicodedata.normalize("NFC", text).split())
        found = self._find(text)
        first, _, rest = text.partition(" ")
        if not found and rest and first.lower() in (ARTICLES if self.source == "de" else ENGLISH_ARTICLES):
            found = self._find(rest)
        return found

    def close(self) -> None:
        self._closer()


@functools.lru_cache(maxsize=4)  # both sources of two file versions
def _cached_dictionary(path: str, key: object, source: str) -> DingDictionary:
    return DingDictionary(path, source)


def load_dictionary(path: str | os.PathLike, source: str = "de") -> DingDictionary:
    """``DingDictionary(path, source)``, built once per process, file version (size and mtime)
    and source."""
    check_source(source)
    stat = os.stat(path)
    return _cached_dictionary(os.path.abspath(path), (stat.st_size, stat.st_mtime_ns), source)


_PLACE = re.compile(r"[A-ZÄÖÜ][a-zäöüß]+(?:-[A-ZÄÖÜ][a-zäöüß]+)*")
_GEOGRAPHY = "[geogr.]"
_NOUN_TAG = re.compile(r"\{(?:[mfn]|pl)\}")
# Longer English "names" are descriptions, or Ding's synonyms out of step ("Tokyo; Tokio :: Tokyo
# (capital of Japan); County Palatine of the Rhine").
_MAX_NAME_WORDS = 3


class Places(dict):
    """``place_names``' result: German place name -> English name, as a dict, and ``countries``:
    those of them that are countries English writes without an article, where German takes one
    ("in der Türkei" -> "in Turkey", "die Schweiz" -> "Switzerland")."""

    def __init__(self, names: Mapping[str, str] | None = None, countries: Iterable[str] = ()):
        super().__init__(names or {})
        self.countries = frozenset(countries)


def place_names(path: str | os.PathLike) -> Places:
    """German names of places whose English name differs, from Ding's geography entries:
    ``{"Köln": "Cologne", "Österreich": "Austria", "Mailand": "Milan", ...}``. Only one-word names
    (hyphens allowed) of a geography entry that are no word of any other entry's terms ("Jura" is
    also the study of law, "Franken" in "Schweizer Franken" a currency, "Marken" stamps), with one
    English name among all their entries ("Moldau": Vltava or Moldavia), capitalized and not the
    German one ("Kabul :: Kabol; Kabul"). Synonyms pair by position where both sides have as many
    ("Athínai; Athen :: Athínai; Athens"). ``countries``: the names of entries with a country code
    ("Türkei {f} /TR/") whose English is one country's name without "the" (not "Philippines",
    "Vatican"). Built once per process and file version."""
    stat = os.stat(path)
    names, countries = _cached_places(os.path.abspath(path), (stat.st_size, stat.st_mtime_ns))
    return Places(dict(names), countries)


def _plain_terms(sub_entry: str) -> list[str]:
    return [plain_term(_LABEL.sub(" ", term)) for term in split_synonyms(sub_entry)]


# A country code in a German sub-entry ("Türkei {f} /TR/ [geogr.]").
_COUNTRY_CODE = re.compile(r"/[A-Z]{2}/")
# Countries whose English name takes "the" although it is no plural ("the Vatican").
_ENGLISH_WITH_THE = frozenset({"Vatican", "Congo", "Gambia", "Antarctic", "Netherlands"})


@functools.lru_cache(maxsize=2)
def _cached_places(path: str, key: object) -> tuple[tuple[tuple[str, str], ...], frozenset[str]]:
    english: dict[str, set[str]] = {}
    coded: set[str] = set()
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for line in lines:
        if _GEOGRAPHY not in line or not (subs := split_entry(line)) or _GEOGRAPHY not in subs[0][0]:
            continue
        german, names = _plain_terms(subs[0][0]), [n.split(",")[0].strip() for n in _plain_terms(subs[0][1])]
        for k, head in enumerate(german):
            if not _PLACE.fullmatch(head) or not names or head in names:
                continue
            name = names[k] if len(names) == len(german) else names[0]
            if name[:1].isupper() and len(name.split()) <= _MAX_NAME_WORDS:
                english.setdefault(head, set()).add(name)
                if _COUNTRY_CODE.search(subs[0][0]):
                    coded.add(head)
    candidates = {head for head, names in english.items() if len(names) == 1}
    for line in lines:  # a name that ends a noun or a word of another entry is that word too
        if _GEOGRAPHY in line or candidates.isdisjoint(_PLACE.findall(line.partition(" :: ")[0])):
            continue
        for german, _ in split_entry(line) or ():
            for term in split_synonyms(german):
                words = plain_term(_LABEL.sub(" ", term)).split()
                if words and (len(words) == 1 or _NOUN_TAG.search(term)):
                    candidates.discard(words[-1])
    names = tuple(sorted((head, next(iter(english[head]))) for head in candidates))
    countries = frozenset(head for head, name in names if head in coded
                          and not name.endswith("s") and name not in _ENGLISH_WITH_THE)
    return names, countries
