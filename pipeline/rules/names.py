"""Names: capitalized words the model was not taught to translate, places, and people's names.

* ``with_names`` (only with a model that has a lexicon, and only in normally cased text: in ALL
  CAPS or Title Case every word looks like a name): capitalized words the lexicon does not know
  are names, carried over as written ("Liebe Anna," lost the name; "Hallo Lukas," became
  "Hellasasas"), unless the German dictionary reads them ("Akkupacks", "Kaufes": the model's to
  translate, carried over they stayed German in the English) and nothing says they are a name
  (the name tables, the lexicon's names, a word in capitals); the spans of letters (``pipeline.rules.letters``) and introductions ("Ich heiße
  Jürgen Koch"); places that English writes otherwise ("Köln" → "Cologne"), a country with the
  article before it ("in die Türkei" → "to Turkey"); an unknown acronym with its number ("ICE 578").
* The repair: the preposition a country phrase's English opens with goes from before its
  placeholder ("The capital of ⦅X1⦆", ⦅X1⦆ "of Turkey").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from model.data.lexicon import WORD

from .. import tables
from ..spans import Masked, Span, merge
from ..words import Fix, without_word_before
from .base import Context, Rule
from .letters import NAME_WORD, addresses, letter_formula, normal_case

_SENTENCE_OPENERS = frozenset(".!?:;„\"“‚‘»«(–—")
# A person introducing themselves names themselves: every capitalized word after "ich heiße", "er
# heißt" (not "das heißt": "that means") or "mein Name ist" up to the clause's end is the name, a surname that is also a word too ("Ich heiße
# Jürgen Koch." came out as "Jürgen cooking"). After "ich bin" only two or three such words: one
# is as often a noun ("Ich bin Lehrer.").
_INTRODUCTION = re.compile(
    rf"(?<![\w-])(?:(?i:hei(?:ße|sse))|(?<![\w-])(?i:du|er|sie|wir|ihr)[ \t]+(?i:hei(?:ßt|sst|ßen|ssen))"
    rf"|(?i:name)[ \t]+(?i:ist|lautet)|(?P<bin>(?i:bin)))"
    rf"[ \t]+(?P<name>{NAME_WORD}(?:[ \t]+{NAME_WORD}){{0,2}})(?=[ \t]*(?:[,.!?;:)]|$)|[ \t]+[a-zäöüß])")


def _introductions(text: str, taken: Sequence[tuple[int, int]]) -> list[Span]:
    """The names people give themselves in ``text`` ("Ich heiße Anna Koch"), outside ``taken``, as
    one "name" span each."""
    found = []
    for match in _INTRODUCTION.finditer(text):
        start, end = match.span("name")
        if match["bin"] and len(match["name"].split()) < 2 or any(s < end and start < e for s, e in taken):
            continue
        found.append(Span(start, end, "name", match["name"]))
    return found

def english_place(word: str, places: Mapping[str, str], after: str = "") -> str | None:
    """``word`` in English when it is one of ``places`` or a place's genitive, else None: the
    genitive before its noun "Austria's" ("Österreichs Hauptstadt"), after it "of Norway" ("die
    Hauptstadt Norwegens"). ``after``: the text after the word."""
    if word in places:
        return places[word]
    if not (word.endswith("s") and word[:-1] in places):
        return None
    name = places[word[:-1]]
    return f"{name}'s" if _NOUN_NEXT.match(after) else f"of {name}"


_NOUN_NEXT = re.compile(r"[ \t]+[A-ZÄÖÜ]")
# The article before a name at the end of the text before it, and "in" before that article.
_ARTICLE_BEFORE = re.compile(r"(?:(?<!\w)(in)[ \t]+)?(?<!\w)(der|die|den|dem|des)[ \t]+\Z", re.IGNORECASE)
# From a word's start only: a search tried every letter of a long word as a start (quadratic).
_WORD_BEFORE = re.compile(r"(?<![^\W\d_])([^\W\d_]++)[ \t]*+\Z")


def _country_phrase(text: str, start: int, english: str) -> tuple[int, str] | None:
    """Where a German article comes before the country name at ``start`` (its English name
    ``english`` takes none): the start of the span that takes the article in, and its English.
    "in die Türkei" (where to) -> "to Turkey", "die Hauptstadt der Türkei" (a genitive: the article
    after a noun) -> "of Turkey", else the article alone ("in der Schweiz" -> "in " + "Switzerland",
    "Die Schweiz hat ..." -> "Switzerland has ..."). None without an article; "im Irak" is left to
    the model, which writes "in Iraq" (with "im" in the span it wrote "In Iraq has a lot of oil.")."""
    match = _ARTICLE_BEFORE.search(text, 0, start)
    if match is None:
        return None
    article = match[2].lower()
    if match[1] and article in ("die", "den"):
        return match.start(1), f"to {english}"
    if not match[1] and article in ("der", "des"):
        before = text[:match.start(2)]
        noun = _WORD_BEFORE.search(before)
        if noun and noun[1][0].isupper() and not _opens_sentence(before[:noun.start(1)]):
            return match.start(2), f"of {english}"
    return match.start(2), english


def _opens_sentence(before: str) -> bool:
    """Whether a word after ``before`` opens its sentence (where any word is capitalized)."""
    before = before.rstrip()
    return not any(c.isalnum() for c in before) or before[-1] in _SENTENCE_OPENERS

def with_names(text: str, spans: Sequence[Span], knows: Callable[..., bool],
               places: Mapping[str, str] | None = None, *, letters: bool = True,
               reads: Callable[[str], bool] | None = None, named: Callable[[str], bool] | None = None) -> list[Span]:
    """``spans`` (of ``find_spans``) and, as spans of kind "name", the capitalized words of ``text``
    outside them that ``knows(word, initial=...)`` (a ``model.data.lexicon.Lexicon``'s) does not
    know: names, mostly ("Liebe Anna,"), carried over like the other spans. ``initial``: the word
    opens the text or follows a sentence mark or quote, where any word is capitalized. A name takes
    in the unrepresentable characters it contains ("Ayşe" is one name, not "Ay", "ş", "e").
    ``places`` (``model.data.ding.place_names``): names of places that English writes otherwise,
    which become name spans written in English ("Köln" -> "Cologne"; the model wrote "Key"), their
    genitives too ("Österreichs Hauptstadt" -> "Austria's", "die Hauptstadt Norwegens" -> "of Norway").
    A country of its ``countries`` takes the German article before it into its span
    (``_country_phrase``): the model wrote "in der Schweiz" as "in the Switzerland".
    ``reads`` (the German dictionary's): an unknown word it reads is a German word, not a name,
    without evidence that it is one (``evidently_named``, with ``named``: the lexicon's names); one
    that opens its sentence is read in lower case too."""
    taken = sorted((s.start, s.end) for s in spans if s.kind != "unrepresentable")
    names = letter_formula(text, taken) if letters else []   # (the pipeline's letters rule finds them first)
    taken = sorted(taken + [(n.start, n.end) for n in names])
    names += addresses(text, taken)
    taken = sorted(taken + [(n.start, n.end) for n in names])
    names += _introductions(text, taken)
    taken = sorted(taken + [(n.start, n.end) for n in names])
    names += _full_names(text, taken, knows)
    taken = sorted(taken + [(n.start, n.end) for n in names])
    names += _surnames_alone(text, taken)
    taken = sorted(taken + [(n.start, n.end) for n in names])
    for match in WORD.finditer(text):
        word, start, end = match[0], match.start(), match.end()
        if len(word) < 2 or not word[0].isupper() or any(s < end and start < e for s, e in taken):
            continue
        if places and (english := english_place(word, places, text[end:end + 2])):
            phrase = _country_phrase(text, start, english) if word in getattr(places, "countries", ()) else None
            if phrase and not any(s < start and phrase[0] < e for s, e in taken + [(n.start, n.end) for n in names]):
                start, english = phrase
            names.append(Span(start, end, "name", text[start:end], english))
            continue
        initial = _opens_sentence(text[:start])
        if not knows(word, initial=initial):
            # Where any word is capitalized, its capital is no evidence: the dictionary may read its
            # lower-case form ("Kaukasisches Albanisch", "Argentinischer Peso" opening a label).
            if reads is not None and (reads(word) or initial and reads(word.lower())) and not evidently_named(word, named):
                continue   # German the model has not seen: carried over, it stayed German in the English
            names.append(_designation(text, start, end, spans) or Span(start, end, "name", word))
    return merge(spans, [_with_ordinal_stop(text, name) for name in names])


def evidently_named(word: str, named: Callable[[str], bool] | None) -> bool:
    """Whether something says ``word`` is a name although the dictionary reads it as German: the
    name tables, the model's lexicon (a form its training pairs copied), or a form in capitals
    ("ICE", "BMW"). Titles before a name ("Frau Hoffmann") are spans of their own (``addresses``)."""
    return word in _FIRST_NAMES or word in _SURNAMES or (named is not None and named(word)) or word.isupper()


# A regnal number is an ordinal, written with a stop in German, without one in English: "Philipp II.
# dauerte" and "Ludwig XIV. war" (the model read the stop as a sentence's end: "The master's Philipp
# II. It took for forty years."). Where a name ends in a Roman numeral whose stop is followed by more
# of the sentence (a lower-case word), the stop joins the name and is not written.
_ROMAN = re.compile(r"(?<![\w-])(?=[IVXL])L?X{0,3}(?:IX|IV|V?I{0,3})\Z")
_SENTENCE_GOES_ON = re.compile(r"\.(?=[ \t]+[a-zäöüß])")


def _with_ordinal_stop(text: str, name: Span) -> Span:
    """``name``, with the stop after it taken in where it ends in a regnal number (``_ROMAN``)."""
    if name.kind != "name" or not _ROMAN.search(name.text) or not _SENTENCE_GOES_ON.match(text, name.end):
        return name
    return Span(name.start, name.end + 1, "name", text[name.start:name.end + 1], name.target or name.text)


# A first name and the capitalized word after it are one person's full name, copied as written, when
# that word is a known surname or a word the model does not know: "Sabine Bauer hat angerufen." came
# out as "Sabine became farmer called.", "Thomas Schmidt" as "Tom Smidt", "Anna Müller" as "Anna".
# Any other capitalized word after a first name stays a word ("Ich habe Anna Blumen geschenkt").
_FIRST_NAMES = frozenset(tables.words("first_names"))
_SURNAMES = frozenset(tables.words("surnames"))
_SURNAME_AFTER = re.compile(rf"[ \t]+({NAME_WORD})(?![\w-])")


def _full_names(text: str, taken: Sequence[tuple[int, int]], knows: Callable[..., bool]) -> list[Span]:
    """The full names of ``text`` outside ``taken`` (see ``_FIRST_NAMES``), one "name" span each."""
    found: list[Span] = []
    for match in WORD.finditer(text):
        if match[0] not in _FIRST_NAMES or (found and match.start() < found[-1].end):
            continue
        surname = _SURNAME_AFTER.match(text, match.end())
        if surname is None or not (surname[1] in _SURNAMES or not knows(surname[1], initial=False)):
            continue
        start, end = match.start(), surname.end(1)
        if not any(s < end and start < e for s, e in taken):
            found.append(Span(start, end, "name", text[start:end]))
    return found


# A surname that is also a word, alone as the subject that opens a sentence, is the name: German
# puts an article before a singular noun so used ("Der Bauer sagt ..."), so "Bauer sagt, ..." is
# someone named Bauer (it came out "Farmers say", "Müller meint" as "Mistakes think", "Weber und
# Schmidt haben" as "Fewers and smids have"). The verb after it must agree: singular after one
# name (a form ending in -t or -te, or one of _SINGULAR_VERBS), plural after several; a plural
# noun ("Richter sagen", judges) is the word, and so are several nouns whose plural is their
# singular ("Fischer und Jäger leben hier": at least one must end otherwise than in -er, -el, -en). So is a surname after a reporting verb that opens a
# clause and before the clause's end ("„...“, sagte Koch."). Not the surnames that also open a
# sentence as the word (surnames_not_alone.txt: "Lange habe ich gewartet.").
_ALONE_SURNAMES = _SURNAMES - frozenset(tables.words("surnames_not_alone"))
_SUBJECT = re.compile(rf"(?P<names>{NAME_WORD}(?:[ \t]*,[ \t]*{NAME_WORD})*(?:[ \t]+und[ \t]+{NAME_WORD})?)"
                      rf"[ \t]+(?P<verb>[a-zäöüß]+)(?![\w-])")
_SINGULAR_VERBS = frozenset({"wird", "kann", "muss", "will", "soll", "darf", "mag", "weiß", "war", "kam", "ging",
                             "sah", "gab", "fand", "nahm", "blieb", "schrieb", "rief", "sprach", "traf", "lag",
                             "stand", "las", "bat", "ließ", "hielt", "fuhr", "trug", "zog", "schlug"})
_REPORTED = re.compile(rf"[,“\"»«][ \t]*(?:so|[a-zäöüß]+te?)[ \t]+({NAME_WORD})(?=[ \t]*(?:[.,;:!?]|$))")
_NAME_IN = re.compile(NAME_WORD)


def _agrees(verb: str, names: int) -> bool:
    """Whether ``verb`` (the word after ``names`` capitalized words) can be their finite verb."""
    if names == 1:
        return verb.endswith(("t", "te")) or verb in _SINGULAR_VERBS
    return verb.endswith("n") or verb == "sind"


def _surnames_alone(text: str, taken: Sequence[tuple[int, int]]) -> list[Span]:
    """The surnames of ``text`` that stand alone as a subject or after a reporting verb (see
    ``_ALONE_SURNAMES``), outside ``taken``, one "name" span each."""
    found: list[tuple[int, int]] = []
    subject = _SUBJECT.match(text, len(text) - len(text.lstrip(" \t„\"“‚‘»«(")))
    if subject is not None:
        words = list(_NAME_IN.finditer(text, subject.start("names"), subject.end("names")))
        if all(w[0] in _ALONE_SURNAMES for w in words) and _agrees(subject["verb"], len(words)) \
                and (len(words) == 1 or not all(w[0].endswith(("er", "el", "en")) for w in words)):
            found += [w.span() for w in words]
    found += [match.span(1) for match in _REPORTED.finditer(text) if match[1] in _ALONE_SURNAMES]
    return [Span(start, end, "name", text[start:end]) for start, end in found
            if not any(s < end and start < e for s, e in taken)]


# An unknown acronym and the number after it name one thing: a train, a flight, a model ("ICE 578",
# "LH 454", "RX 350"). As two placeholders side by side, ⦅X1⦆ ⦅N1⦆, the model read the number as a
# quantity ("The ICE 578 minutes amburgled"); as one name it places it as a noun. Not when a word
# with a capital follows (a count of something: "die FDP 10 Prozent", "die NFL 100 Jahre").
_ACRONYM = re.compile(r"[A-ZÄÖÜ]{2,5}")
_NUMBER_AFTER = re.compile(r"[ \t\u00a0]([0-9]{1,5})(?!\w|[.,:/-]\w|[ \t\u00a0]*+[%‰]|[ \t\u00a0]++[A-ZÄÖÜ])")


def _designation(text: str, start: int, end: int, spans: Sequence[Span]) -> Span | None:
    """``text[start:end]``, an unknown word, with the number after it as one name span, where the
    word is an acronym and that number one of ``spans``; else None."""
    if not _ACRONYM.fullmatch(text, start, end) or (number := _NUMBER_AFTER.match(text, end)) is None:
        return None
    if not any(s.kind == "number" and (s.start, s.end) == number.span(1) for s in spans):
        return None
    return Span(start, number.end(1), "name", text[start:number.end(1)])

# The prepositions that open a country phrase's English (``_country_phrase``: "of Turkey", "to Turkey").
_COUNTRY_PREPOSITIONS = ("of", "to")


def leading_preposition(english: str) -> str | None:
    """The preposition a country phrase's English opens with ("of Turkey", "to Turkey":
    ``_country_phrase``), which the model may write before the placeholder too ("The capital of
    ⦅X1⦆" came out as "The capital of of Turkey"); else None."""
    first, _, rest = english.partition(" ")
    return first if rest and first in _COUNTRY_PREPOSITIONS else None


def _without_preposition(words, slots):
    return without_word_before(words, slots, lambda word, english: word.lower() == leading_preposition(english))


class Names(Rule):
    """The rule: ``with_names`` where the model has a lexicon and the words are normally cased."""

    name = "names"

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        if context.knows is None or not normal_case(text, spans):
            return list(spans)
        return with_names(text, spans, context.knows, context.places, letters=False, reads=context.reads,
                          named=context.named)

    def repair(self, masked: Masked) -> Fix | None:
        return _without_preposition


RULE = Names()
