"""German noun inflection and English number: the word forms a glossary term takes.

A glossary (``pipeline.glossary``) matches a German noun in every inflected form and restores
it as its English term in the number the German had, fitting the English words around it. The
forms themselves are morphology, not matching, and live here so that the glossary module holds
term matching and restoring only:

* German nouns (``noun_forms``): with the Ding dictionary (``Inflections``), its plurals, their
  dative in -n and the genitive singular in -s/-es of masculine and neuter nouns; a compound Ding
  lacks takes its head's forms ("Gesprächstermin" / "Gesprächstermine"); without Ding (or for a
  noun it lacks), German rules (plurals in -e, -en, -n, -er, -s, -nen, umlaut plurals), rule
  forms that Ding lists as other nouns left out. Each ``Form`` says its number and whether it may
  be the other one too (then the words before it decide: ``pipeline.glossary``). A noun's gender
  comes from Ding or is guessed from its ending (``guess_gender``); ``singular_of`` tells a term
  given in the plural.
* English (``english_plural``): the last word (the word before "of": "points of view") with -s,
  -es after s/x/z/ch/sh, -ies after consonant + y, -ves for the -f(e) nouns that take it, and a
  few irregular and invariant nouns (man/men, child/children, person/people, sheep, information,
  ...); the article "a"/"an" a term takes (``indefinite_article``); and the plural of a verb
  after a plural term (``plural_verb``: "is" -> "are", "works" -> "work").

Nothing here knows about glossaries, sentences or spans; ``pipeline.glossary`` imports this
module, never the other way round.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from model.data.ding import DingDictionary, NounForms, load_dictionary


# ------------------------------------------------------------------------------ German nouns

class Inflections:
    """German noun plurals: Ding's, read noun by noun from a ``DingDictionary`` index (the one the
    dictionary panel uses; ``model.data.ding.NounForms``), else none (rules only)."""

    def __init__(self, dictionary: DingDictionary | None = None):
        self.dictionary = dictionary
        # {noun: (genders, plurals)} as far as glossaries ask (get, in, []); empty without Ding.
        self.nouns: Mapping[str, tuple[str, tuple[str, ...]]] | NounForms = (
            NounForms(dictionary) if dictionary is not None else {})

    @classmethod
    def from_path(cls, path: str | os.PathLike | None) -> Inflections:
        """Ding's plurals from the dictionary file at ``path`` (indexed once per process and file);
        rules only when ``path`` is empty or None."""
        return cls(load_dictionary(path) if path else None)

    @property
    def available(self) -> bool:
        return self.dictionary is not None


@dataclass(frozen=True)
class Form:
    """An inflected form of a term: its number when read alone (``number``: "sg" or "pl"),
    whether it may be the other one too (then the words before it decide), and whether that other
    reading is a genitive singular in -s ("des Autos" / "die Autos", "des Jobs" / "die Jobs") or
    a weak noun's singular ("dem Studenten" / "den Studenten")."""

    number: str
    ambiguous: bool = False
    genitive: bool = False
    weak: bool = False  # the other reading: a weak masculine noun's singular ("dem Studenten")


_UMLAUT = {"au": "äu", "Au": "Äu", "a": "ä", "o": "ö", "u": "ü", "A": "Ä", "O": "Ö", "U": "Ü"}
_LAST_VOWEL = re.compile(r"(Au|au|[aouAOU])(?=[^aeiouäöüAEIOUÄÖÜ]*$)")
_FEMININE_EN = ("ung", "heit", "keit", "schaft", "ion", "tät", "ei", "ur", "ik", "enz", "anz", "ie")
_ZERO_PLURAL = ("er", "el", "en", "chen", "lein")


def _umlauted(stem: str) -> str:
    """``stem`` with its last a, o, u or au umlauted ("Arzt" -> "Ärzt"), or unchanged."""
    match = _LAST_VOWEL.search(stem)
    if not match or (match[1] in "uU" and match.start() > 0 and stem[match.start() - 1] in "aeAE"):
        return stem
    return stem[:match.start()] + _UMLAUT[match[1]] + stem[match.end():]


# Forms the rules would read as plurals that are something else: "zu Hause", "nach Hause" (at home).
_NOT_PLURALS = frozenset({"Hause"})


def _rule_forms(noun: str) -> dict[str, Form]:
    """Inflected forms of a noun from German rules (no dictionary), the noun itself among them."""
    lower = noun.lower()
    forms: dict[str, Form] = {noun: Form("sg", lower.endswith(_ZERO_PLURAL))}  # Zimmer / Zimmer

    def add(form: str, number: str, ambiguous: bool = False, genitive: bool = False, weak: bool = False) -> None:
        if form not in forms and form not in _NOT_PLURALS:
            forms[form] = Form(number, ambiguous, genitive, weak)

    if noun.isupper():  # an abbreviation: "API", "APIs"
        add(noun + "s", "pl")
        return forms
    if lower.endswith("in") and len(noun) > 4:
        add(noun + "nen", "pl")  # Lehrerin / Lehrerinnen
    if lower.endswith(_FEMININE_EN):
        add(noun + "en", "pl")
    elif lower.endswith("e"):
        add(noun + "n", "pl", True, weak=True)  # Lampe / Lampen; Kunde / Kunden (also singular: weak)
        add(noun + "s", "sg")          # des Endes
    elif lower.endswith(_ZERO_PLURAL):
        umlauted = noun[:-2] + noun[-2:] if lower.endswith(("chen", "lein")) else _umlauted(noun[:-2]) + noun[-2:]
        add(umlauted, "pl")            # Vater / Väter, Garten / Gärten
        if not lower.endswith("en"):
            add(noun + "n", "pl")      # Regel / Regeln, Lehrer / Lehrern
            add(umlauted + "n", "pl")  # Vätern
        add(noun + "s", "sg", True, True)  # des Lehrers; Computers
    elif lower[-1:] in "aiouy":
        add(noun + "s", "pl", True, True)  # Auto / Autos; des Autos
    else:
        umlauted = _umlauted(noun)
        for stem in dict.fromkeys((noun, umlauted)):
            add(stem + "e", "pl")       # Termin / Termine, Arzt / Ärzte
            # Terminen, Ärzten; Staat / Staaten; Student / Studenten (also singular: weak)
            add(stem + "en", "pl", stem == noun, weak=stem == noun)
            add(stem + "er", "pl")      # Kind / Kinder, Haus / Häuser
            add(stem + "ern", "pl")
        add(noun + "s", "pl", True, True)  # Job / Jobs; des Termins
        if not lower.endswith(("s", "ß", "x", "z")):
            add(noun + "es", "sg")      # des Tisches, Termines
    if lower.endswith(("s", "ß", "x", "z")):
        add(noun + "es", "sg")          # des Hauses
    return forms


def _ding_forms(noun: str, genders: str, plurals: Sequence[str]) -> dict[str, Form]:
    """Inflected forms of a noun Ding knows, the noun itself among them: its plurals, their
    dative, the genitive singular."""
    forms: dict[str, Form] = {}
    weak = genders == "m" and any(p in (noun + "n", noun + "en") for p in plurals)
    forms[noun] = Form("sg", noun in plurals)  # Lehrer / Lehrer
    for plural in plurals:
        forms.setdefault(plural, Form("pl", plural == noun or weak, weak=weak and plural != noun))
        if not plural.endswith(("n", "s")):
            forms.setdefault(plural + "n", Form("pl"))
    if set(genders) & set("mn") and not weak:
        lower = noun.lower()
        endings = (("es",) if lower.endswith(("s", "ß", "x", "z")) else
                   ("s",) if lower.endswith(_ZERO_PLURAL) or lower[-1:] in "aeiouy" else ("s", "es"))
        for ending in endings:
            form = noun + ending
            if form in forms:  # Autos
                forms[form] = Form(forms[form].number, True, True)
            else:
                forms[form] = Form("sg")
    return forms


def _head(noun: str, nouns: Mapping[str, tuple[str, tuple[str, ...]]]) -> tuple[str, str] | None:
    """The longest noun Ding knows that ends ``noun`` as a compound's head (3+ letters), as
    (modifier, head): "Gesprächstermin" -> ("Gesprächs", "Termin")."""
    for i in range(1, len(noun) - 2):
        head = noun[i].upper() + noun[i + 1:]
        if head in nouns:
            return noun[:i], head
    return None


def noun_forms(noun: str, inflections: Inflections | None = None) -> tuple[dict[str, Form], str]:
    """The inflected forms of the German noun ``noun`` (``noun`` itself first), and its genders as
    far as known ("m", "f", "n", several, or "" when unknown)."""
    nouns = inflections.nouns if inflections is not None else {}
    known = nouns.get(noun)
    if known is not None:
        genders, plurals = known
        return _ding_forms(noun, genders, plurals), genders
    head = _head(noun, nouns) if nouns else None
    if head is not None:
        modifier, word = head
        genders, plurals = nouns[word]
        forms = _ding_forms(word, genders, plurals)
        return {modifier + form[0].lower() + form[1:]: f for form, f in forms.items()}, genders
    forms = _rule_forms(noun)
    if nouns:  # "Posten" is a noun of its own, not a plural of "Post"
        forms = {form: f for form, f in forms.items() if form == noun or form not in nouns}
    return forms, guess_gender(noun)


# Feminine nouns in -er, which the rules would take for masculine ("die Nummer" is one number).
_FEMININE_ER = ("mutter", "tochter", "schwester", "mauer", "feder", "nummer", "steuer", "dauer", "leiter",
                "kammer", "ziffer", "butter", "ader", "folter", "leber", "trauer", "feier", "faser",
                "wimper", "klammer", "auster", "oper", "schulter")


def guess_gender(noun: str) -> str:
    """A German noun's gender from its ending, for nouns no dictionary lists: "f" for -ung,
    -heit, -keit, -schaft, -ion, -tät, -ei, -ie, -ik, -e and the -in of female persons ("-erin",
    "-istin", ...; not "Termin"); "n" for -chen, -lein, -um, -ment; "m" for -er (but the feminine
    "Mutter", "Nummer", ...), -en, -ling, -ismus, -ist; else "" (unknown)."""
    lower = noun.lower()
    if lower.endswith(_FEMININE_ER):
        return "f"
    if lower.endswith(_FEMININE_EN + ("erin", "istin", "antin", "entin", "ärztin", "e")):
        return "f"
    if lower.endswith(("chen", "lein", "um", "ment")):
        return "n"
    if lower.endswith(("er", "en", "ling", "ismus", "ist")):
        return "m"
    return ""


def singular_of(noun: str, inflections: Inflections | None) -> str | None:
    """The noun whose Ding plural ``noun`` is ("Termine" -> "Termin"), else None."""
    nouns = inflections.nouns if inflections is not None else {}
    if not nouns or noun in nouns:
        return None
    plain = noun.translate(str.maketrans("äöüÄÖÜ", "aouAOU"))  # Häuser -> Hauser -> Haus
    for stem in dict.fromkeys((noun, plain)):
        for ending in ("e", "en", "n", "er", "s", "nen", ""):
            candidate = stem[:len(stem) - len(ending)]
            if stem.endswith(ending) and candidate != noun and noun in nouns.get(candidate, ("", ()))[1]:
                return candidate
    return None


# ------------------------------------------------------------------------------ English

_IRREGULAR = {
    "man": "men", "woman": "women", "child": "children", "person": "people", "foot": "feet",
    "tooth": "teeth", "mouse": "mice", "goose": "geese", "ox": "oxen", "louse": "lice",
    "criterion": "criteria", "phenomenon": "phenomena", "analysis": "analyses", "crisis": "crises",
    "thesis": "theses", "basis": "bases", "diagnosis": "diagnoses", "hypothesis": "hypotheses",
    "knife": "knives", "life": "lives", "wife": "wives", "leaf": "leaves", "half": "halves",
    "shelf": "shelves", "wolf": "wolves", "loaf": "loaves", "thief": "thieves", "calf": "calves",
    "self": "selves", "elf": "elves", "scarf": "scarves", "potato": "potatoes", "tomato": "tomatoes",
    "hero": "heroes", "echo": "echoes", "veto": "vetoes", "cactus": "cacti", "quiz": "quizzes",
}
_INVARIANT = frozenset("""
    sheep fish deer series species aircraft equipment information news software hardware data staff
    furniture luggage baggage advice feedback police cattle offspring headquarters means research
    knowledge evidence homework traffic weather
""".split())
_NOT_MAN = frozenset("human german roman shaman caiman talisman ottoman".split())


def _plural_word(word: str) -> str:
    lower = word.lower()
    if not word or not word[-1].isalpha() or lower in _INVARIANT:
        return word
    if word.isupper() and len(word) > 1:
        return word + "s"  # APIs, PDFs
    if lower in _IRREGULAR:
        plural = _IRREGULAR[lower]
    elif lower.endswith("man") and lower not in _NOT_MAN:
        plural = lower[:-3] + "men"  # chairman / chairmen
    elif lower.endswith(("s", "x", "z", "ch", "sh")):
        plural = lower + "es"
    elif lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        plural = lower[:-1] + "ies"
    else:
        plural = lower + "s"
    if word[0].isupper():
        plural = plural[0].upper() + plural[1:]
    return word[:len(word) - len(lower)] + plural if len(plural) < len(word) else _keep_case(word, plural)


def _keep_case(word: str, plural: str) -> str:
    """``plural`` (lower case but maybe a capital first letter) with ``word``'s letters kept where
    they are the same: "iPhone" -> "iPhones"."""
    common = 0
    while common < min(len(word), len(plural)) and word[common].lower() == plural[common].lower():
        common += 1
    return word[:common] + plural[common:]


def english_plural(term: str) -> str:
    """The English plural of a term (see the module docstring): its last word pluralized, or the
    word before "of" ("point of view" -> "points of view")."""
    words = term.split(" ")
    target = words.index("of") - 1 if "of" in words[1:] else len(words) - 1
    words[target] = _plural_word(words[target])
    return " ".join(words)


def indefinite_article(term: str) -> str:
    """"an" or "a" before ``term``: by its first sound, roughly (vowel letters, silent h, letter
    names of abbreviations, the "yoo" of "uni-"/"use")."""
    word = term.split(" ")[0].strip("\"'“‘(")
    lower = word.lower()
    if not word:
        return "a"
    if word.isupper() and len(word) > 1 and word.isalpha():
        return "an" if word[0] in "AEFHILMNORSX" else "a"
    if lower.startswith(("hour", "honest", "honor", "honour", "heir")):
        return "an"
    if lower.startswith(("uni", "use", "usu", "uti", "ura", "eu", "ewe", "one", "once", "uk")):
        return "a"
    if word[0].isdigit():
        return "an" if word.startswith(("8", "11", "18")) else "a"
    return "an" if lower[0] in "aeiou" else "a"


# The auxiliaries, whose plural no ending gives ("is" -> "are").
_AGREEMENT = {"is": "are", "was": "were", "has": "have", "does": "do", "isn't": "aren't",
              "wasn't": "weren't", "hasn't": "haven't", "doesn't": "don't"}


def plural_verb(word: str, subject: bool) -> str | None:
    """The plural of the verb ``word`` after a plural term: auxiliaries always ("is" -> "are"),
    other verbs in -s only where the term is the sentence's subject ("works" -> "work")."""
    lower = word.lower()
    if lower in _AGREEMENT:
        return _AGREEMENT[lower]
    if not subject or not lower.isalpha() or len(lower) < 4 or not lower.endswith("s") or lower.endswith(("ss", "us", "is")):
        return None
    if lower.endswith("ies"):
        return lower[:-3] + "y"
    if lower.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return lower[:-2]
    return lower[:-1]
