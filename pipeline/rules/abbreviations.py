"""Abbreviations: the common ones of everyday and office German, written in English.

"z. B." → "e.g.", "ca." → "approx.", "u. a." → "among others", "usw." → "etc.", "inkl." → "incl.",
"Nr. 5" → "No. 5", "S. 12" → "p. 12", "5 Mio." → "5 million" (one number span with its number).
The model, which saw few of them, made "ca. 5 Euro" "cache. 5 euros" and dropped "z. B." and "u.
a.". Conjunctions and adverbs ("bzw.", "evtl.") are written out in German instead
(``respell_abbreviations``). The tables are in ``pipeline/tables/``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import tables
from ..spans import THIN, Masked, Span, replacement
from .base import Finder

# German abbreviation -> English, as written in running text. A space inside ("z. B.") may also be
# missing ("z.B.") or narrow; a lower-case one opening a sentence is capitalized there ("Z. B.").
# Only those with one English reading: not "geb." (born or bound), "Std.", "Min." or "Str."; not
# those the model copies well ("max.").
_ABBREVIATIONS = tables.pairs("abbreviations")
# Before a number only: "Nr. 5" -> "No. 5", "S. 12" -> "p. 12" ("S." alone is many things).
_BEFORE_NUMBER = tables.pairs("abbreviations_before_number")
# After a number only: "5 Mio. Euro" -> "5 million euros", "2 Std." -> "2 hours" ("1 Std." -> "1
# hour"); alone, "Min." and "Std." have other readings (Minister, Standard).
_MULTIPLIERS = tables.pairs("multipliers")
_UNITS = tables.pairs("units_abbreviated")
_AFTER_NUMBER = {**_MULTIPLIERS, **_UNITS}
# Abbreviations the model reads best written out, in German words it knows well: a conjunction or
# an adverb as a span reads like a noun ("Er kommt heute bzw. morgen." -> "He will come today or.",
# "zwei bzw. drei Zimmer" -> "two or's room"); written out, "today or tomorrow", "two or three rooms".
_RESPELLINGS = tables.pairs("respellings")


def _abbreviation_rx(abbreviation: str) -> str:
    parts = abbreviation[:-1].split(". ")
    first = parts[0]
    head = f"[{first[0]}{first[0].upper()}]" if first[0].islower() else re.escape(first[0])
    return head + re.escape(first[1:]) + "".join(rf"\.{THIN}?{re.escape(p)}" for p in parts[1:]) + r"\."


def _abbreviation_table() -> tuple[re.Pattern[str], dict[str, str]]:
    english = {}
    alternatives = []
    for table, before, after in ((_ABBREVIATIONS, "", ""), (_BEFORE_NUMBER, "", rf"(?={THIN}?[0-9])"),
                                 (_AFTER_NUMBER, rf"(?<=[0-9]{THIN})", "")):
        for german, target in sorted(table.items(), key=lambda item: -len(item[0])):
            english[german.replace(" ", "")] = target
            alternatives.append(before + _abbreviation_rx(german) + after)
    return re.compile(rf"(?<![\w.])(?:{'|'.join(alternatives)})(?!\w)"), english


_ABBREVIATION_RE, _ABBREVIATION_ENGLISH = _abbreviation_table()
_RESPELLING_RE = re.compile(rf"(?<![\w.-])(?:{'|'.join(map(_abbreviation_rx, _RESPELLINGS))})(?![\w-])")
_RESPELLING = {german.replace(" ", ""): written for german, written in _RESPELLINGS.items()}
_SPACES = re.compile(THIN)
_ENDS_TEXT = re.compile("[\\s\"'”“’»«]*")  # closing quotes; not brackets: "(ca. 600 v. Chr.)"


def with_abbreviations(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` and, as spans of kind "abbreviation" written in English, the abbreviations of
    ``_ABBREVIATIONS`` (and of ``_BEFORE_NUMBER`` where a number is there) outside them (an
    identifier span inside one gives way: "MwSt."); one of ``_AFTER_NUMBER`` becomes one number
    span with its number ("5 Mio." -> "5 million")."""
    if "." not in text:  # every abbreviation has one: most sentences skip the expression
        return list(spans)
    spans = list(spans)
    found = []
    for match in _ABBREVIATION_RE.finditer(text):
        start, end = match.span()
        overlapping = [s for s in spans if s.start < end and start < s.end]
        if any(s.kind != "identifier" or s.start < start or end < s.end for s in overlapping):
            continue
        # An identifier inside was a guess from its capitals ("MwSt" of "MwSt."): the abbreviation is known.
        spans = [s for s in spans if s not in overlapping]
        written = _SPACES.sub("", match[0])
        key = written if written in _ABBREVIATION_ENGLISH else written[0].lower() + written[1:]
        english = _ABBREVIATION_ENGLISH[key]
        if key != written:  # "Z. B." opening a sentence
            english = english[0].upper() + english[1:]
        if not english.endswith(".") and _ENDS_TEXT.fullmatch(text, end):
            end -= 1  # its stop is the sentence's too: "Papier o. Ä." -> "paper or similar."
        number = next((s for s in spans if s.kind == "number" and s.end < start
                       and _SPACES.fullmatch(text, s.end, start)), None) if key in _AFTER_NUMBER else None
        if number is not None:
            # One quantity, one span: as two, the model put the noun between them ("5 Mio. Euro" ->
            # "5 euros million").
            if key in _UNITS and number.text == "1":
                english = english.removesuffix("s")
            merged = Span(number.start, end, "number", text[number.start:end], f"{replacement(number)} {english}")
            spans = [merged if s is number else s for s in spans]
            continue
        found.append(Span(start, end, "abbreviation", text[start:end], english))
    return sorted([*spans, *found], key=lambda s: s.start) if found else list(spans)


def respell_abbreviations(masked: Masked) -> Masked:
    """``masked`` with the abbreviations of ``_RESPELLINGS`` in its text written out ("bzw." ->
    "oder", "Evtl." opening a sentence -> "Vielleicht"; one ending the text keeps its stop as the
    sentence's), ``original_span`` still mapping back to them."""
    if "." not in masked.text:
        return masked
    pieces, changes, position, length = [], [], 0, 0
    for match in _RESPELLING_RE.finditer(masked.text):
        start, end = match.span()
        written = _SPACES.sub("", match[0])
        key = written if written in _RESPELLING else written[0].lower() + written[1:]
        word = _RESPELLING[key] if key == written else _RESPELLING[key].capitalize()
        if _ENDS_TEXT.fullmatch(masked.text, end):
            word += "."
        length += start - position
        changes.append((length, length + len(word), start, end))
        pieces += [masked.text[position:start], word]
        length += len(word)
        position = end
    if not changes:
        return masked
    return masked.respelled("".join(pieces) + masked.text[position:], changes)


class Abbreviations(Finder):
    """The rule: abbreviations as spans (``with_abbreviations``); those that are conjunctions or
    adverbs written out in the model's input (``respell_abbreviations``)."""

    def __init__(self) -> None:
        super().__init__("abbreviations", with_abbreviations)

    def respell(self, masked: Masked) -> Masked:
        return respell_abbreviations(masked)


RULE = Abbreviations()
