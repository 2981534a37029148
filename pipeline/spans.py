"""Protected spans, the data model: a ``Span`` of the source, ``mask`` replacing spans by
placeholders, ``Masked`` mapping the masked text back to the original.

A small NMT model mangles what it should copy ("1.450 Euro" became "14540"), so before translation
every span that must come through unchanged, or be written as English writes it, is replaced by a
reserved symbol, ``⦅N1⦆``…``⦅N20⦆`` for numbers, dates, times and codes and ``⦅X1⦆``…``⦅X20⦆`` for
everything else. The tokenizer keeps each as one SentencePiece piece (user-defined symbols),
``pipeline.augment`` teaches the model to copy them, and the output's words get the spans back
(``pipeline.words.restore_words``).

Which spans a sentence has is the business of the rules (``pipeline.rules``): each family finds
its spans there and repairs the output around them. This module only holds what they share.

Identical span texts of one family share a placeholder ("5 ... 5" → "⦅N1⦆ ... ⦅N1⦆"), so the
model need not invent a distinction the source does not make.

Glossary terms (``pipeline.glossary``) are spans too, of kind "glossary" (or "glossary_plural"),
found by the glossary; their ``target`` (the English term) is what is put back.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from model.network.placeholders import (  # noqa: F401  (part of this module's API)
    NUMBER_SLOTS, OTHER_SLOTS, PLACEHOLDER_RE, PLACEHOLDERS, SLOTS, placeholder)

# Blanks inside a number, an abbreviation or a range: space, tab, no-break and narrow no-break space.
THIN = "[ \t\u00a0\u202f]"
# The end of a number: no digit, and no decimal or group mark with a digit, follows.
NUM_END = r"(?![0-9]|[.,][0-9])"

# A measure ("fünf Kilometer") is a number to the model: with an "X" placeholder it placed it like a
# noun ("Tom is taller than eight centimeters Mary."), with an "N" one as a number (pipeline.rules.measures).
NUMBER_KINDS = frozenset({"number", "date", "time", "phone", "code", "measure", "amount"})
KINDS = NUMBER_KINDS | {
    "placeholder", "backticks", "url", "email", "handle", "hashtag", "directive", "entity", "command",
    "path", "filename", "identifier", "emoji", "symbol", "unrepresentable", "name", "phrase", "letter", "abbreviation",
    "measure", "glossary", "glossary_plural"}
# A glossary term (pipeline.glossary) whose English is its singular (or has no number), its plural.
GLOSSARY_KINDS = frozenset({"glossary", "glossary_plural"})

@dataclass(frozen=True)
class Span:
    """``text[start:end]`` is a protected span of the given kind (one of ``KINDS``); ``target``:
    what it becomes in the English output when that is not the span's own text (a glossary term's
    English, ``pipeline.glossary``), else None."""

    start: int
    end: int
    kind: str
    text: str
    target: str | None = None

    @property
    def family(self) -> str:
        """"N" for numbers, dates, times, codes and measures, else "X"."""
        return "N" if self.kind in NUMBER_KINDS else "X"
def merge(spans: Sequence[Span], added: Sequence[Span]) -> list[Span]:
    """``spans`` with ``added`` (found outside them or around some of them: a glossary's terms,
    names, clock times, amounts, measures), in order: a span inside an added one is dropped, the
    added one carries it over as its English; an added one that overlaps a span only in part is
    dropped."""
    if not added:
        return list(spans)
    kept = [s for s in spans if not any(a.start <= s.start and s.end <= a.end for a in added)]
    # One that only partly overlaps a kept span is left out: spans never overlap ("(-2 mm)": the
    # number "-2" and the measure "2 mm"; ``mask`` refused the sentence, and the request failed).
    fitting = [a for a in added if not any(s.start < a.end and a.start < s.end for s in kept)]
    return sorted(kept + fitting, key=lambda s: s.start)
_GROUPED = re.compile(r"([-+−]?)([0-9]{1,3}(?:\.[0-9]{3})+)(?:,([0-9]+))?")
_DECIMAL_COMMA = re.compile(r"([-+−]?[0-9]+),([0-9]+)")
_NUMBER = re.compile(r"[-+−]?[0-9]+(?:[.,][0-9]+)*")

def english_number(text: str) -> str:
    """A German number in English notation where the German one is unambiguous, else unchanged.

    A comma is always the German decimal mark, dots in groups of three are thousands
    separators; anything else (``3.5``, ``1.2.3``, ``1,2,3``) is kept as written.
    """
    if not _NUMBER.fullmatch(text):
        raise ValueError(f"not a number: {text!r}")
    if match := _GROUPED.fullmatch(text):
        sign, whole, decimals = match.groups()
        return sign + whole.replace(".", ",") + (f".{decimals}" if decimals else "")
    if match := _DECIMAL_COMMA.fullmatch(text):
        return f"{match[1]}.{match[2]}"
    return text


def replacement(span: Span) -> str:
    """What a span becomes in the English output."""
    if span.target is not None:
        return span.target
    return english_number(span.text) if span.kind == "number" else span.text


def slot_key(span: Span) -> tuple[str, object]:
    """Spans with equal keys share a placeholder: equal texts of a family (with equal ``target``s)."""
    return (span.family, span.text) if span.target is None else (span.family, (span.text, span.target))


def slots_needed(spans: Sequence[Span]) -> dict[str, int]:
    """Placeholders per family that ``mask`` would use: ``{"N": ..., "X": ...}``."""
    distinct = {slot_key(span) for span in spans}
    return {family: sum(1 for f, _ in distinct if f == family) for family in SLOTS}


@dataclass
class Masked:
    """A text with its spans replaced by placeholders, and what is needed to undo that.

    ``slots`` maps each placeholder to its text in the English output (numbers converted),
    ``counts`` to how often it occurs in ``text``, and ``regions`` lists every replacement as
    ``(masked_start, masked_end, original_start, original_end)`` in text order; ``glossary``
    maps the placeholders of glossary terms to whether the term is plural
    (``pipeline.glossary.fit_terms`` fits them into the output); ``capitalizable`` holds those of
    the spans whose English starts lower case (an abbreviation "ca." -> "approx.", a measure "fünf
    Kilometer" -> "five kilometers", a name "in die Türkei" -> "to Turkey"), which is capitalized
    where the model puts one first.
    """

    original: str
    text: str
    slots: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    regions: tuple[tuple[int, int, int, int], ...] = ()
    glossary: dict[str, bool] = field(default_factory=dict)
    capitalizable: set[str] = field(default_factory=set)
    # ``_map``'s index: the regions' ends, and the regions they were read from
    _ends: list[int] = field(default_factory=list, init=False, repr=False, compare=False)
    _ends_of: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The range of ``original`` that the range ``text[start:end]`` came from.

        An end point inside a placeholder extends to the whole span it replaced; elsewhere the
        offset shifts by the length differences of the replacements before it.
        """
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(self.text)):
            raise ValueError(f"range must satisfy 0 <= start <= end <= {len(self.text)}, "
                             f"got {(start, end)!r}")
        return self._map(start, is_end=False), self._map(end, is_end=True)

    def respelled(self, text: str, changes: Sequence[tuple[int, int, int, int]]) -> Masked:
        """This masked text written as ``text`` (truecased, ß for SS): ``changes`` lists, in order,
        each stretch whose length changed as ``(new_start, new_end, start, end)`` of ``text`` and
        ``self.text``, outside placeholders. ``original_span`` of the result maps ``text`` back."""
        regions, shift = [], 0
        pending = sorted(
            [(m_start, m_end, o_start, o_end, True) for m_start, m_end, o_start, o_end in self.regions]
            + [(start, end, *self.original_span(start, end), False) for _, _, start, end in changes])
        lengths = iter([(new_end - new_start) - (end - start) for new_start, new_end, start, end in changes])
        for m_start, m_end, o_start, o_end, is_placeholder in pending:
            if is_placeholder:
                regions.append((m_start + shift, m_end + shift, o_start, o_end))
            else:
                delta = next(lengths)
                regions.append((m_start + shift, m_end + shift + delta, o_start, o_end))
                shift += delta
        return replace(self, text=text, slots=dict(self.slots), counts=dict(self.counts),
                       regions=tuple(regions), glossary=dict(self.glossary))

    def _map(self, pos: int, *, is_end: bool) -> int:
        # The regions are in text order and do not overlap, so those that end before ``pos`` only
        # shift it: bisect past them (a text of thousands of spans is asked about every unit).
        if self._ends_of is not self.regions:
            self._ends, self._ends_of = [region[1] for region in self.regions], self.regions
        first = bisect_left(self._ends, pos)
        shift = self.regions[first - 1][3] - self.regions[first - 1][1] if first else 0
        for index in range(first, len(self.regions)):
            m_start, m_end, o_start, o_end = self.regions[index]
            if m_start < pos < m_end or pos == (m_end if is_end else m_start) and m_start < m_end:
                return o_end if is_end else o_start
            if m_end > pos:
                break
            shift = o_end - m_end
        return pos + shift


def mask(text: str, spans: Sequence[Span]) -> Masked:
    """Replace ``spans`` (of ``text``, from the rules) by placeholders numbered per family.

    Raises ValueError for spans that do not belong to ``text`` and when a family needs more
    placeholders than it has (``slots_needed`` lets a caller split the text first).
    """
    previous_end = 0
    for span in spans:
        if (not isinstance(span, Span) or span.start < previous_end or span.end <= span.start
                or text[span.start:span.end] != span.text or span.kind not in KINDS):
            raise ValueError(f"span does not fit the text or overlaps the previous one: {span!r}")
        previous_end = span.end
    for family, needed in slots_needed(spans).items():
        if needed > SLOTS[family]:
            raise ValueError(
                f"too many distinct {family!r} spans for {SLOTS[family]} placeholders: {needed!r}")
    assigned: dict[tuple[str, object], str] = {}
    masked = Masked(text, "")
    pieces, regions, position, length = [], [], 0, 0
    for span in spans:
        key = slot_key(span)
        if key not in assigned:  # equal texts share a placeholder
            assigned[key] = placeholder(span.family, 1 + sum(f == span.family for f, _ in assigned))
            masked.slots[assigned[key]] = replacement(span)
            if span.kind in GLOSSARY_KINDS:
                masked.glossary[assigned[key]] = span.kind == "glossary_plural"
            elif (span.target or "")[:1].islower():
                masked.capitalizable.add(assigned[key])
        symbol = assigned[key]
        masked.counts[symbol] = masked.counts.get(symbol, 0) + 1
        length += span.start - position
        # A bracket the vocabulary lacks or a symbol, against its word ("[OK]", "~5"), gets a space
        # on that side, so that the model reads the word as a word ("⦅X1⦆Abbrechen" came out as
        # "[Ab]"); ``glued_spans`` takes it out of the output again.
        glue = _glue(span, text)
        piece = (" " if glue == "closer" else "") + symbol + (" " if glue == "opener" else "")
        regions.append((length, length + len(piece), span.start, span.end))
        pieces += [text[position:span.start], piece]
        length += len(piece)
        position = span.end
    masked.text = "".join(pieces) + text[position:]
    masked.regions = tuple(regions)
    return masked

def _glue(span: Span, text: str) -> str | None:
    """"opener" or "closer" for a span that is written against the word after it ("[OK]",
    "~5") or before it ("[OK]", "100°C") and that the model reads better with a space there:
    brackets the vocabulary lacks, and symbols. Else None."""
    before = span.start > 0 and text[span.start - 1].isalnum()
    after = text[span.end:span.end + 1].isalnum()
    if span.kind == "symbol":
        return "opener" if after else "closer" if before else None
    if span.kind == "unrepresentable":
        kinds = {unicodedata.category(ch) for ch in span.text}
        if kinds <= {"Ps", "Pi"}:
            return "opener" if after else None
        if kinds <= {"Pe", "Pf"}:
            return "closer" if before else None
    return None


def glued_spans(masked: Masked) -> tuple[frozenset[str], frozenset[str]]:
    """The placeholders of brackets the vocabulary lacks and of symbols that the source writes
    against the word after them (openers: "[" of "[OK]", "~" of "~5") and before them (closers): ``mask`` puts a space between,
    for the model, which the pipeline takes out of the output again ("{ $user }" keeps its
    spaces). Read from ``regions``: a glued bracket's region holds that space."""
    openers, closers = set(), set()
    for m_start, m_end, o_start, o_end in masked.regions:
        piece = masked.text[m_start:m_end]
        if piece.endswith(" ") and piece.strip() in masked.slots:
            openers.add(piece.strip())
        elif piece.startswith(" ") and piece.strip() in masked.slots:
            closers.add(piece.strip())
    return frozenset(openers), frozenset(closers)


def spaced_spans(masked: Masked) -> frozenset[str]:
    """The placeholders that follow a space in the source (``words.restore_words`` gives one back
    where the model glued it to a stop: "Hauptstr. 5" came out as "Hauptstr.5")."""
    return frozenset(m[0] for m in _SPACED_PLACEHOLDER.finditer(masked.text) if m[0] in masked.slots)


_SPACED_PLACEHOLDER = re.compile(r"(?<=\s)⦅[NX][0-9]+⦆")

def words_only(text: str, spans: Sequence[Span]) -> str:
    """``text`` with its spans blanked out, for the casing style of its words: "BITTE
    https://x.org BESUCHEN" is ALL CAPS. Letters the vocabulary lacks are part of their words
    ("Ⓝeue Regeln Für Den ..."), names too, and a letter's greetings and closings, which are the
    writer's words as typed ("Hallo Welt, wie geht es dir?" is not all lower case)."""
    chars = list(text)
    for s in spans:
        if s.kind not in ("unrepresentable", "name", "letter"):
            chars[s.start:s.end] = " " * (s.end - s.start)
    return "".join(chars)


def check(output: str, masked: Masked) -> tuple[list[str], list[str]]:
    """Placeholders the output has fewer / more of than the masked source, in source order."""
    found: dict[str, int] = {}
    for symbol in PLACEHOLDER_RE.findall(output):
        found[symbol] = found.get(symbol, 0) + 1
    missing = [s for s, n in masked.counts.items() if found.get(s, 0) < n]
    duplicated = [s for s, n in masked.counts.items() if found.get(s, 0) > n]
    return missing, duplicated

