"""Letters: greetings, salutations and closings, forms of address, and the writer's signature.

* Letter formulas (``letter_formula``): a greeting or closing that opens a sentence and ends at a
  comma, a stop or the end, written in English as one span, of kind "letter" (or "name" with the
  addressee's name): "Liebe Anna," → "Dear Anna,", "Sehr geehrte Frau Dr. Koch," → "Dear Dr
  Koch,", "Sehr geehrte Damen und Herren," → "Dear Sir or Madam,", "Mit freundlichen Grüßen" →
  "Kind regards". An addressee from a table of nouns for people is written in English too
  ("Liebe Freunde," → "Dear friends,"); any other is a name. The model, trained on
  Tatoeba, had made "Liebe Grüße" "Love hello" and "Sehr geehrte Damen und Herren" "Looking labels
  and Lords".
* Forms of address with their name (``addresses``), written in English ("Frau Schmidt" → "Ms
  Schmidt", "Herrn Dr. Wagner" → "Dr Wagner"), but not after a possessive or an indefinite
  article ("meine Frau Anna").
* The writer's name on the line after a closing (``signature``).

The phrases are tables (``pipeline/tables/``: greetings, salutations, closings, address_titles,
addressee_nouns, not_address_after). The rule (``RULE``) finds the letter formulas
where the names rule (``pipeline.rules.names``) would look for names: with the model's lexicon, in
normally cased text; the names rule then finds forms of address and the writer's name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import tables
from ..casing import style
from ..spans import Span, merge, words_only
from .base import Context, Rule

# A form of address and the name after it ("Frau Schmidt", "Herrn Wagner", "Frau Dr. Koch", "Herr
# Professor Wagner"): the name is a name even when it is also a word, and the whole is written in
# English ("Ms Schmidt", "Mr Wagner", "Dr Koch", "Professor Wagner"); the model made "Herr Schmidt"
# "Lord", "Frau Wagner" "woman Wagner" and "Frau Doktor Braun" "Ms Doktor brown".
_TITLES = tables.pairs("academic_titles")
_TITLE = "|".join(rf"{re.escape(t)}[ \t]*" if t.endswith(".") else rf"{re.escape(t)}[ \t]+"
                  for t in sorted(_TITLES, key=len, reverse=True))
_ADDRESS = re.compile(rf"(?<![\w.])(?=Herr|Frau|Fräulein|{'|'.join(map(re.escape, _TITLES))})"
                      rf"(?:(Herrn?|Frau|Fräulein)[ \t]+)?((?:{_TITLE})*)"
                      r"(?<=[ \t])([A-ZÄÖÜ][^\W\d_]*(?:-[A-ZÄÖÜ][^\W\d_]*)?)(?![\w-])")
_TITLE_WORD = re.compile("|".join(map(re.escape, sorted(_TITLES, key=len, reverse=True))))
_ADDRESS_ENGLISH = tables.pairs("address_titles")
# "meine Frau Anna" is my wife: after these the word is a noun, not a form of address (after a
# definite article it still is one: "der Frau Müller", "dem Herrn Meier").
_NOT_ADDRESS_AFTER = frozenset(tables.words("not_address_after"))
_LAST_WORD = re.compile(r"([^\W\d_]+)[\W\d_]*$")

# Letter formulas (see the module docstring), matched in any case at the start of a sentence.
_GREETINGS = tables.pairs("greetings")
_SALUTATIONS = tables.pairs("salutations")
_CLOSINGS = tables.pairs("closings")
_FORMULA_START = re.compile(r"[ \t\"'„“”‚‘’»«]*")
NAME_WORD = r"[A-ZÄÖÜ][^\W\d_]*(?:-[A-ZÄÖÜ][^\W\d_]*)*"
_ENDS = r"[ \t]*(?:[,!.:;]|$)"  # a formula ends at a comma, a stop or the end of the sentence


def _phrases(table: dict[str, str], end: str) -> re.Pattern[str]:
    """The phrases of ``table`` (longest first, words apart by any blanks) in any case, then ``end``."""
    words = [r"[ \t]+".join(map(re.escape, phrase.split())) for phrase in sorted(table, key=len, reverse=True)]
    return re.compile(rf"(?i:{'|'.join(words)})(?={end})")


# A closing may be followed by the writer's name on its line ("Viele Grüße Anna Schmidt"), a name
# even when it is also a word ("Schmidt" became "is spiding").
# (Possessive blanks: "[ \t]*,?[ \t]*" split a run of blanks every way between its two halves.)
_SIGNATURE = rf"[ \t]*+(?:,[ \t]*+)?({NAME_WORD}(?:[ \t]+{NAME_WORD})?)[ \t]*[.!]?$"
_SIGNATURE_RE = re.compile(_SIGNATURE)
_CLOSING_RE = _phrases(_CLOSINGS, rf"{_ENDS}|{_SIGNATURE}|[ \t]+und[ \t]")  # "Gute Besserung und bis bald!"
_SALUTATION_RE = _phrases(_SALUTATIONS, _ENDS)
_GREETING_RE = _phrases(_GREETINGS, r"[ \t]+[A-ZÄÖÜ]")
_BLANKS = re.compile(r"[ \t]*")
_AND = re.compile(r"[ \t]+und[ \t]+")
_JOINED = re.compile(r"[ \t]+und[ \t]+|[ \t]*,[ \t]*")  # closings in a row
_END = re.compile(_ENDS)
_ADDRESSEE = re.compile(rf"[ \t]+({NAME_WORD}(?:[ \t]+(?:und[ \t]+)?{NAME_WORD})?)(?={_ENDS})")
# After a greeting, these are people addressed by a noun ("Liebe Freunde,", "Hallo Mama,"), written
# in English; any other capitalized addressee is a name, kept even when it is also a word ("Hallo
# Lukas," became "Hello Luadas"), or dropped after a lone greeting ("Hallo Tom,").
_ADDRESSEE_NOUNS = tables.pairs("addressee_nouns")


def _key(phrase: str) -> str:
    return " ".join(phrase.lower().split())


def letter_formula(text: str, taken: Sequence[tuple[int, int]]) -> list[Span]:
    """The greeting or closing that opens ``text``, as spans written in English (none if there is
    none, or if it overlaps ``taken``)."""
    start = _FORMULA_START.match(text).end()
    found: list[Span] = []
    if match := _CLOSING_RE.match(text, start) or _SALUTATION_RE.match(text, start):
        table = _CLOSINGS if _key(match[0]) in _CLOSINGS else _SALUTATIONS
        found = [Span(start, match.end(), "letter", match[0], table[_key(match[0])])]
        # "Gute Besserung und bis bald!", "Liebe Grüße, bis bald"
        while table is _CLOSINGS and (joined := _JOINED.match(text, found[-1].end)) \
                and (more := _CLOSING_RE.match(text, joined.end())):
            english = _CLOSINGS[_key(more[0])]
            found.append(Span(more.start(), more.end(), "letter", more[0], english[0].lower() + english[1:]))
        if table is _CLOSINGS and (signature := _SIGNATURE_RE.match(text, found[-1].end)):
            found.append(Span(signature.start(1), signature.end(1), "name", signature[1]))
    elif greeting := _GREETING_RE.match(text, start):
        english = _GREETINGS[_key(greeting[0])]
        address = _ADDRESS.match(text, _BLANKS.match(text, greeting.end()).end())
        addressed = _address_english(address) if address and _END.match(text, address.end()) else None
        if addressed:  # "Sehr geehrte Frau Dr. Koch," -> "Dear Dr Koch,"
            found = [Span(start, address.end(), "name", text[start:address.end()], f"{english} {addressed}")]
        elif addressee := _ADDRESSEE.match(text, greeting.end()):
            # One span with the greeting, which the model places with its comma (given "⦅X1⦆
            # Freunde, wie geht es euch?" it often lost the comma, or the verb): people
            # addressed by a noun written in English, names kept even where they are words too
            # ("Hallo Lukas,"), "und" as "and", a repeat said once ("Freundinnen und Freunde").
            people = [_person(" ".join(part.split()), greeting[0]) for part in _AND.split(addressee[1])]
            kind = "letter" if all(noun for _, noun in people) else "name"
            whom = " and ".join(dict.fromkeys(english for english, _ in people))
            found = [Span(start, addressee.end(), kind, text[start:addressee.end()], f"{english} {whom}")]
    return [f for f in found if not any(s < f.end and f.start < e for s, e in taken)]


def _person(addressee: str, greeting: str) -> tuple[str, bool]:
    """An addressee in English and whether it is a noun (``_ADDRESSEE_NOUNS``) rather than a name:
    "Freunde" -> ("friends", True), "Anna Schmidt" -> ("Anna Schmidt", False); a noun with one form
    for both numbers is singular after "Lieber" ("Lieber Leser" -> "reader")."""
    english = _ADDRESSEE_NOUNS.get(addressee.lower())
    if english is None:
        return addressee, False
    singular, _, plural = english.partition("/")
    return (singular if not plural or greeting.lower() == "lieber" else plural), True


def _address_english(match: re.Match[str]) -> str | None:
    """A match of ``_ADDRESS`` in English ("Frau Dr. Koch" -> "Dr Koch"); None when it has no title
    or degree, or no name after them."""
    title, degrees, name = match.groups()
    if not (title or degrees) or name in ("Dr", "Prof") or name in _TITLES:
        return None
    held = set(_TITLE_WORD.findall(degrees))
    highest = next((english for german, english in _TITLES.items() if german in held), None)
    return f"{highest or _ADDRESS_ENGLISH[title]} {name}"


def addresses(text: str, taken: Sequence[tuple[int, int]]) -> list[Span]:
    """Forms of address with their names, outside ``taken``, as "name" spans written in English."""
    found = []
    for match in _ADDRESS.finditer(text):
        english = _address_english(match)
        if english is None:
            continue
        before = _LAST_WORD.search(text, 0, match.start())
        if match[1] and before and before[1].lower() in _NOT_ADDRESS_AFTER:
            continue
        start, end = match.start(), match.end()
        if any(s < end and start < e for s, e in taken):
            continue
        found.append(Span(start, end, "name", match[0], english))
    return found

_SIGNATURE_LINE = re.compile(rf"[ \t]*(?:(?i:dein|deine|euer|eure|ihr|ihre)[ \t]+)?"  # "Dein Klaus": "Yours"
                             rf"({NAME_WORD}(?:[ \t]+{NAME_WORD}){{0,2}})[ \t]*[.!]?[ \t]*")
_CLOSING_LINE = re.compile(rf"[ \t\"'„“”‚‘’»«]*(?:{_CLOSING_RE.pattern})[ \t]*[,.!]?[ \t]*")


def signature(text: str, start: int, end: int) -> Span | None:
    """The writer's name on the line after a letter's closing ("Mit freundlichen Grüßen" /
    "Anna Müller"), as a "name" span of ``text[start:end]`` (offsets relative to ``start``), where
    that sentence is the whole line and one to three capitalized words; else None."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if text[line_start:start].strip() or text[end:line_end].strip() or line_start == 0:
        return None
    if (match := _SIGNATURE_LINE.fullmatch(text, start, end)) is None:
        return None
    before = text[:line_start - 1].rstrip()
    closing = before[before.rfind("\n") + 1:]
    if not _CLOSING_LINE.fullmatch(closing) or _CLOSINGS.get(_key(closing.strip(" \t,.!\"'„“”‚‘’»«")), "") not in _SIGNED:
        return None
    return Span(match.start(1) - start, match.end(1) - start, "name", match[1])


# Closings that sign a letter, after which a line of names is the writer's (not "Gute Besserung").
_SIGNED = frozenset({"Kind regards", "Best regards", "Warm regards", "Best wishes", "Regards", "Lots of love"})


def normal_case(text: str, spans: Sequence[Span]) -> bool:
    """Whether the words of ``text`` outside ``spans`` (letter formulas aside, which are words
    too) are normally cased: in ALL CAPS or Title Case every word looks like a name."""
    return style(words_only(text, [s for s in spans if s.kind != "letter"])) == "normal"


class Letters(Rule):
    """The rule: the letter formula that opens a sentence (``letter_formula``), with the model's
    lexicon and in normally cased text; and the writer's name under a closing (``signature``)."""

    name = "letters"

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        if context.knows is None or not normal_case(text, spans):
            return list(spans)
        taken = sorted((s.start, s.end) for s in spans if s.kind != "unrepresentable")
        return merge(spans, letter_formula(text, taken))

    def signature(self, text: str, start: int, end: int) -> Span | None:
        return signature(text, start, end)


RULE = Letters()
