"""Glossaries: German terms that must come out as the English term the user chose.

A glossary maps German terms to English ones (``{"Termin": "appointment"}``). Every occurrence of
a term in the text, in any inflected form, becomes a protected span of kind "glossary"
(``pipeline.spans``): the model reads a placeholder (``⦅X1⦆``) and writes the sentence around it,
as it learned to do for names, and the placeholder is restored as the English term instead of the
German text. So the term appears exactly once per occurrence, where the model put the word, and
the rest of the sentence stays the model's.

Matching (``Glossary.spans``), decided so that a term never swallows a different word:

* Whole words only: a term matches a word or a run of words separated by spaces, never part of a
  word. A compound that contains the term ("Zahnarzttermin", "Termin-Erinnerung") is *not*
  matched: replacing its head alone would drop the rest of the compound's meaning; give the
  compound its own entry ("Zahnarzttermin": "dental appointment").
* Case: as written, a lower-case term also capitalized at the start of a sentence, and any term
  in ALL CAPS text ("TERMIN"). A capitalized term (a noun) does not match a lower-case word
  ("Essen" the food is not "essen" to eat).
* Nouns (the term's last word capitalized) match every inflected form (``noun_forms`` of
  ``pipeline.inflection``): with the Ding dictionary (``Inflections``), its plurals ("Termin {m} |
  Termine {pl}", "Haus" / "Häuser"; a compound Ding lacks takes its head's: "Gesprächstermin" /
  "Gesprächstermine"), the dative plural in -n ("Terminen", "Häusern") and the genitive singular
  in -s/-es of masculine and neuter nouns ("Termins", "Hauses"); without Ding (or for a noun it
  lacks), German rules: the plurals in -e, -en, -n, -er, -s, -nen (after -in), umlaut plurals
  (Arzt / Ärzte, Vater / Väter, Haus / Häuser), the dative plural, the genitive in -s/-es. Rule
  forms that Ding lists as other nouns are left out. In a term of several words only the last one
  is inflected.
* Verbs, adjectives and other words match only as written (and capitalized at the start of a
  sentence): their English counterparts would need inflecting too ("arbeitet" / "works"), and the
  model places a placeholder well only where a noun or name goes.
* Numbers: a form that is only plural ("Termine") gives the English plural, one that is only
  singular ("Termin", "Termins") the term as given. Where a form is both ("Lehrer", "Zimmer",
  "Studenten", "Autos"), the words before it decide: a number above one or a plural quantifier
  ("zwei", "viele", "alle"), or for a masculine or neuter noun a plural determiner ("die",
  "diese", "meine", "keine") make it plural, a singular determiner ("der", "ein", "des", "dem")
  singular, and so does an adjective in -e without a determiner before a masculine or neuter noun
  ("neue Mitarbeiter"); else the form's likelier reading. The English plural is a rule
  (``english_plural`` of ``pipeline.inflection``: "appointments", "points of view", "children").

Restoring (``fit_terms``): the English term takes the text's casing style (ALL CAPS, Title Case),
is capitalized where it opens the sentence, and an article "a"/"an" right before it is made to
fit the term ("an appointment"). Around a placeholder the model writes as around a name, without
an article ("Invoice is paid"): where the German has a definite article before the term and the
output no determiner, "the" is put in. After a plural term, "is", "was", "has", "does" become
plural, and so does a subject's verb in -s ("The physicians often work"). Letters the model glued
to the placeholder ("⦅X1⦆s") are dropped: the number was decided from the German.

A ``Glossary`` holds no request state beyond its entries and is immutable once built; the
``Pipeline`` takes one per call (``Pipeline.translate(texts, glossary=...)``).

English terms (``Glossary(..., source="en")``, for an English->German model): matched whole, as
written (capitalized at the start of a sentence, and in ALL CAPS text) and never inflected, each
restored as its German term as given; the restoring edits for English above are left out
(``fit_terms(..., target="de")``) but the capital at the start of a sentence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from model.data.lexicon import WORD

from . import words as W
from .casing import title_case
from .inflection import Form, Inflections, english_plural, indefinite_article, noun_forms, plural_verb, singular_of
from .numbers import COUNTING
from .spans import Masked, Span

SOURCES = ("de", "en")   # the languages a glossary's terms may be in
KIND, PLURAL_KIND = "glossary", "glossary_plural"  # the spans' kinds: singular (or no number), plural
MAX_TERM_CHARS = 100   # characters of a German term or an English translation


class GlossaryError(ValueError):
    """An entry a glossary cannot hold (the message says which and why)."""


def normalize_term(text: str) -> str:
    """A term as the glossary keeps it: NFC, whitespace runs as one space, no outer whitespace."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "…")


def check_entries(entries: Mapping[str, str] | Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The entries as ``(term, translation)`` pairs, normalized (``normalize_term``), in order.

    Raises ``GlossaryError`` for a term or translation that is not a string, empty, longer than
    ``MAX_TERM_CHARS`` or without a letter (terms), and for a term given twice (compared after
    normalization and case folding: "Termin" and "termin" are one term)."""
    pairs = entries.items() if isinstance(entries, Mapping) else entries
    checked: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for pair in pairs:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise GlossaryError(f"an entry must be a pair of a German term and its English translation, got {pair!r}")
        raw_term, raw_translation = pair
        if not isinstance(raw_term, str):
            raise GlossaryError(f"a term must be a string, got {raw_term!r}")
        term = normalize_term(raw_term)
        if not term:
            raise GlossaryError("a term is empty")
        if not isinstance(raw_translation, str):
            raise GlossaryError(f"the translation of {_shown(term)} must be a string, got {raw_translation!r}")
        translation = normalize_term(raw_translation)
        if not translation:
            raise GlossaryError(f"the translation of {_shown(term)} is empty")
        for what, text in (("term", term), ("translation", translation)):
            if len(text) > MAX_TERM_CHARS:
                raise GlossaryError(f"the {what} {_shown(text)} has {len(text)} characters, more than {MAX_TERM_CHARS}")
        if not WORD.search(term):
            raise GlossaryError(f"the term {_shown(term)} has no letters")
        key = term.casefold()
        if key in seen:
            raise GlossaryError(f"the term {_shown(term)} is given twice (also as {_shown(seen[key])})")
        seen[key] = term
        checked.append((term, translation))
    return tuple(checked)


# ------------------------------------------------------------------------------ the glossary

@dataclass(frozen=True)
class _Entry:
    term: str
    translation: str
    plural: str        # English for a plural form
    gender: str        # of a noun, as far as known
    plural_only: bool  # the German term is itself a plural ("Termine"): English as given


_PLURAL_CUES = frozenset(COUNTING) | frozenset("""
    viele vielen vieler einige einigen einiger mehrere mehreren mehrerer alle allen aller beide
    beiden beider wenige wenigen weniger manche manchen mancher sämtliche sämtlichen zahlreiche
    zahlreichen verschiedene verschiedenen etliche etlichen paar
""".split())
# Before a masculine or neuter noun these are plural; before a feminine one they may be singular.
_PLURAL_DETERMINERS = frozenset("""
    die diese jene meine deine seine ihre unsere eure keine welche solche
""".split())
_SINGULAR_DETERMINERS = frozenset("""
    der das dem des ein einen einem eines jeder jedes jedem jeden dieser dieses diesem jener jenes
    jenem mein dein sein unser euer kein meinem deinem seinem ihrem unserem eurem keinem meines
    deines seines ihres unseres eures keines welcher welches welchem
""".split())
_GENITIVE_SINGULAR = frozenset("des eines meines deines seines ihres unseres eures keines dieses jenes jedes welches".split())
_CLAUSE_MARK = re.compile(r"[.,;:!?()\[\]\"„“”«»–—]")
_TOKEN = re.compile(r"\w+")
_OPENERS = frozenset(".!?:;„\"“‚‘»«(–—")


def _number(sentence: str, start: int, form: Form, gender: str) -> str:
    """The number of an ambiguous form from the (up to three) words before it in its clause."""
    if not form.ambiguous:
        return form.number
    before = sentence[:start]
    marks = list(_CLAUSE_MARK.finditer(before))
    clause = before[marks[-1].end():] if marks else before
    # Feminine nouns have no plural like their singular ("Lehrer", "Zimmer" are masculine and
    # neuter): before a noun that may be masculine or neuter "die", "meine", ... are plural.
    masculine_or_neuter = bool(set(gender) & set("mn"))
    tokens = _TOKEN.findall(clause)[-3:]
    for token in reversed(tokens):
        lower = token.lower()
        if token.isdigit():
            return "sg" if int(token) == 1 else "pl"
        if form.genitive and lower in _PLURAL_DETERMINERS | _SINGULAR_DETERMINERS:
            # in -s a genitive singular only after "des", "eines", ...: "die Autos", "der Jobs"
            return "sg" if lower in _GENITIVE_SINGULAR else "pl"
        if form.weak and lower in _PLURAL_DETERMINERS | _SINGULAR_DETERMINERS:
            # "dem Studenten", "einen Kunden"; "den" is more often the dative plural
            return "pl" if lower in _PLURAL_DETERMINERS or lower == "den" else "sg"
        if lower in _PLURAL_CUES:
            return "pl"
        if lower in _PLURAL_DETERMINERS and masculine_or_neuter:
            return "pl"
        if lower in _SINGULAR_DETERMINERS:  # "der Lehrer" (or a rare genitive plural)
            return "sg"
    # No determiner: an adjective in -e right before a masculine or neuter noun is plural ("neue
    # Mitarbeiter"; the singular would be "neuer Mitarbeiter", "neues Zimmer").
    if masculine_or_neuter and tokens and tokens[-1].islower() and tokens[-1].endswith("e"):
        return "pl"
    return form.number


def _initial(sentence: str, start: int) -> bool:
    before = sentence[:start].rstrip()
    return not any(c.isalnum() for c in before) or before[-1] in _OPENERS


class Glossary:
    """German terms and their English translations, with every form each term matches.

    ``entries``: a mapping or ``(term, translation)`` pairs, checked by ``check_entries``
    (``GlossaryError``). ``inflections``: where noun plurals come from (rules alone without).
    ``source``: the terms' language, "de" or "en" (English terms are matched as written only)."""

    def __init__(self, entries: Mapping[str, str] | Iterable[tuple[str, str]],
                 inflections: Inflections | None = None, source: str = "de"):
        if source not in SOURCES:
            raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
        self.source = source
        self.entries = check_entries(entries)
        self._entries: list[_Entry] = []
        # words of a form -> (entry index, Form); exact forms, and the same by upper case
        self._forms: dict[tuple[str, ...], tuple[int, Form]] = {}
        self._upper: dict[tuple[str, ...], tuple[int, Form]] = {}
        inflected: list[tuple[tuple[str, ...], int, Form]] = []
        german = source == "de"  # German nouns are inflected; words of other languages match as written
        nouns = inflections.nouns if inflections is not None and german else {}
        # lower-case terms whose capitalized form is a noun: not matched capitalized ("essen" / "Essen")
        self._noun_lookalikes: set[int] = set()
        for index, (term, translation) in enumerate(self.entries):
            words = tuple(term.split(" "))
            if term[:1].islower() and term[0].upper() + term.split(" ")[0][1:] in nouns:
                self._noun_lookalikes.add(index)
            last = words[-1]
            gender, plural_only, forms = "", False, {last: Form("sg")}
            if german and last[:1].isupper():  # a noun (German capitalizes every noun)
                if singular_of(last, inflections) is not None:
                    plural_only = True
                    forms = {last: Form("pl")}
                    if not last.endswith(("n", "s")):
                        forms[last + "n"] = Form("pl")
                else:
                    forms, gender = noun_forms(last, inflections)
            self._entries.append(_Entry(term, translation, english_plural(translation), gender, plural_only))
            self._forms[words] = (index, forms.pop(last))
            inflected += [(words[:-1] + (form,), index, f) for form, f in forms.items()]
        for words, index, form in inflected:  # an entry's own term wins over another's inflection
            self._forms.setdefault(words, (index, form))
        for words, found in self._forms.items():
            self._upper.setdefault(tuple(w.upper() for w in words), found)
        self._longest = max((len(words) for words in self._forms), default=0)

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def __repr__(self) -> str:
        return f"Glossary({dict(self.entries)!r})" if self.source == "de" else \
            f"Glossary({dict(self.entries)!r}, source={self.source!r})"

    def forms(self, term: str) -> dict[str, str]:
        """Every form of ``term`` (as given) the glossary matches, with the English it becomes
        when read alone (for tests and the API's users); KeyError for a term it does not have."""
        indices = [i for i, e in enumerate(self._entries) if e.term == normalize_term(term)]
        if not indices:
            raise KeyError(term)
        index = indices[0]
        entry = self._entries[index]
        return {" ".join(words): (entry.plural if form.number == "pl" and not entry.plural_only else entry.translation)
                for words, (i, form) in self._forms.items() if i == index}

    def _lookup(self, words: tuple[str, ...], initial: bool) -> tuple[int, Form] | None:
        found = self._forms.get(words)
        if found is None and initial and words[0][:1].isupper():
            lowered = (words[0][0].lower() + words[0][1:],) + words[1:]
            found = self._forms.get(lowered)
            if found is not None and (not self._entries[found[0]].term[:1].islower()
                                      or found[0] in self._noun_lookalikes):
                found = None
        if found is None and len("".join(words)) > 1 and all(w.isupper() for w in words):
            found = self._upper.get(words)
        return found

    def spans(self, sentence: str, taken: Sequence[Span] = ()) -> list[Span]:
        """The glossary's terms in ``sentence`` as spans of kind "glossary" whose ``target`` is the
        English term (plural where the form is plural), left to right, longest first, outside
        ``taken`` (other spans; those of kind "unrepresentable" excepted: a term takes them in)."""
        if not self._forms:
            return []
        blocked = [(s.start, s.end) for s in taken if s.kind != "unrepresentable"]
        tokens = [m for m in WORD.finditer(sentence)
                  if not (m.start() > 0 and (sentence[m.start() - 1].isalnum() or sentence[m.start() - 1] in "_-"))
                  and not (m.end() < len(sentence) and (sentence[m.end()].isalnum() or sentence[m.end()] in "_-"))]
        found: list[Span] = []
        i = 0
        while i < len(tokens):
            for n in range(min(self._longest, len(tokens) - i), 0, -1):
                group = tokens[i:i + n]
                if any(not sentence[a.end():b.start()].isspace() for a, b in zip(group, group[1:])):
                    continue
                start, end = group[0].start(), group[-1].end()
                if any(s < end and start < e for s, e in blocked):
                    continue
                hit = self._lookup(tuple(m[0] for m in group), _initial(sentence, start))
                if hit is None:
                    continue
                index, form = hit
                entry = self._entries[index]
                plural = not entry.plural_only and _number(sentence, start, form, entry.gender) == "pl"
                found.append(Span(start, end, PLURAL_KIND if plural else KIND, sentence[start:end],
                                  entry.plural if plural else entry.translation))
                i += n
                break
            else:
                i += 1
        return found


# ------------------------------------------------------------------------------ restoring

_GLUED = "[^\\W\\d_]+"
# German definite articles, and prepositions fused with one, right before a term ("des Termins",
# "beim Arzt"): the English wants "the" there, which the model, writing around a placeholder as
# around a name, tends to leave out ("Physician doesn't have time").
_DEFINITE = re.compile(r"(?<!\w)(?:der|die|das|den|dem|des|beim|im|am|vom|zum|zur|ins|ans)\s+$", re.IGNORECASE)
# English words after which a noun needs no article of its own.
_DETERMINERS = frozenset("""
    the a an this that these those my your his her its our their no every each some any all both
    many few several another which whose what one two three four five six seven eight nine ten
    much more most such either neither own whatever
""".split())
_OPENING = "\"'“‘„(«["
# Adverbs that may stand between a subject and its verb ("The physicians often work").
_ADVERBS = frozenset("often always never usually already also still just really sometimes rarely all both".split())


def _styled(text: str, text_style: str) -> str:
    if text_style == "upper":
        return text.upper()
    if text_style == "title":
        return title_case(text)
    return text


def _cased_like(word: str, model: str, text_style: str) -> str:
    """``word`` (lower case) in the casing of ``model``, the word it replaces or precedes."""
    if text_style == "upper" or (model.isupper() and len(model) > 1):
        return word.upper()
    return word[0].upper() + word[1:] if model[:1].isupper() else word


def _after_definite(masked: Masked, symbol: str) -> bool:
    """Whether every occurrence of ``symbol`` in the masked German follows a definite article."""
    starts = [m.start() for m in re.finditer(re.escape(symbol), masked.text)]
    return bool(starts) and all(_DEFINITE.search(masked.text[max(0, i - 12):i]) for i in starts)


def fit_terms(words: list[W.Word], masked: Masked, text_style: str, *, initial: bool,
              target: str = "en") -> dict[str, str]:
    """Make the model's output words (placeholders not yet restored) fit the glossary's terms in
    ``masked`` (``Masked.glossary``), and return the slots to restore them with. ``initial``: the
    words are the start of a sentence's output; ``target``: the output's language (the articles
    and verbs below are English's: another language's output only gets the first and the fourth).
    ``words`` are edited in place:

    * letters glued to a term's placeholder are dropped ("⦅X1⦆s": the number is the German's);
    * an article "a"/"an" right before a term is chosen by the term ("an appointment");
    * where the German has a definite article right before the term ("die Rechnung", "beim Arzt")
      and the output has no determiner before it, "the" is put in;
    * a term that opens the sentence is capitalized;
    * after a plural term, "is", "was", "has", "does" (and their negations) become plural.

    The slots carry each term in the text's casing style (ALL CAPS, Title Case)."""
    slots = dict(masked.slots)
    for symbol in masked.glossary:
        slots[symbol] = _styled(slots[symbol], text_style)
    english = target == "en"
    definite = {symbol: english and _after_definite(masked, symbol) for symbol in masked.glossary}
    k = 0
    while k < len(words):
        w = words[k]
        symbol = next((s for s in masked.glossary if s in w.text), None)
        if symbol is None:
            k += 1
            continue
        text = re.sub(re.escape(symbol) + _GLUED, symbol, w.text)
        term = slots[symbol]
        if text.lstrip(_OPENING).startswith(symbol):
            previous = words[k - 1].text if k > 0 else ""
            opens = (k == 0 and initial) or previous[-1:] in (".", "!", "?")
            if english and previous.lower() in ("a", "an"):
                words[k - 1] = replace(words[k - 1], text=_cased_like(indefinite_article(term), previous, text_style))
            elif (definite[symbol] and not text[:1] in _OPENING and previous.lower() not in _DETERMINERS
                  and not previous.lower().endswith(("'s", "’s", "s'")) and not previous[:1].isdigit()):
                article = "the"
                if opens:
                    article, opens = "The", False
                words.insert(k, W.Word(_styled(article, text_style), w.gap, w.sources))
                k += 1
                w = replace(w, gap=" ")
            if opens and term[:1].islower():
                text = text.replace(symbol, term[0].upper() + term[1:], 1)
        if english and masked.glossary[symbol] and text.endswith(symbol):
            # the subject: nothing but determiners (and the sentence's start) before the term
            subject = initial and all(v.text.lower() in _DETERMINERS for v in words[:k])
            verb = k + 1
            while verb < len(words) and words[verb].text.lower() in _ADVERBS:
                verb += 1
            if verb < len(words) and (verb == k + 1 or subject):
                following = words[verb].text
                agreeing = plural_verb(following, subject)
                if agreeing is not None:
                    words[verb] = replace(words[verb], text=_cased_like(agreeing, following, text_style))
        words[k] = replace(w, text=text)
        k += 1
    return slots
