"""Sentences and clauses as character spans of the original text, and putting translations back together.

The model was trained on short single sentences (Tatoeba): it translates well up to about 40-60
pieces and quietly drops the rest of anything longer. So text is cut into lines and sentences
(``segment``), sentences that are still too long into clauses (``split_long``), and an output that
looks truncated (``implausibly_short``) or degenerate (``has_loop``) can be retried on smaller
pieces (``smaller_pieces``). Nothing is ever dropped: every non-blank character of the input lands
in exactly one piece. Everything is a ``(start, end)`` span into the ORIGINAL text, so callers can
map words back to the source (markup, protected spans) without re-finding strings.

Sentence boundaries: sentence-final punctuation (. ! ? …), optionally followed by closing quotes
or brackets, then whitespace, then something that can start a sentence (an upper-case letter, a
digit or an opening quote). A period does not end a sentence after
- a known abbreviation of the text's language ("z.B.", "Dr.", "usw.", "Nr.", "Hauptstr.", ...; in
  English "Mr.", "e.g.", "Oct.", ..., and "No." before a number) or a single letter ("A. Merkel",
  "z. B."),
- in German, a number of up to three digits, or a range of two: German writes ordinals that way
  ("am 3. Mai", "im 19. Jahrhundert", "vom 3.–5. Mai"); an English one ends there ("I counted 42.");
decimals ("3.5", "3,5") never have whitespace after the period, so they are never cut.

Clause cuts (``split_long``) are tried in order of how little they hurt the translation: after
clause punctuation (, ; : and spaced dashes) followed by a conjunction or relative pronoun, after
other clause punctuation, before a bare conjunction ("... gegangen und dann ..."), at any word
boundary, and, only for a single "word" longer than the limit, between characters. Within a kind,
the cut nearest the balanced target position wins (recursive bisection), so a 480-word paragraph
without punctuation becomes pieces of similar size rather than many full ones and a tiny rest.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import NamedTuple

from model.inference.alignment import Range

from . import tables


# The word lists are tables (pipeline/tables/), each saying what it is for: lower-cased, the
# abbreviations without their final period.
ABBREVIATIONS = frozenset(tables.words("sentence_abbreviations"))
ENGLISH_ABBREVIATIONS = frozenset(tables.words("english_sentence_abbreviations"))
ENGLISH_BEFORE_NUMBER = frozenset(tables.words("english_before_number"))  # only before a number: "No. 5"
LANGUAGES = ("de", "en")

# Words that open a clause after clause punctuation ("..., der ..."), and conjunctions worth cutting
# before even without a comma ("... gegangen und dann ...").
CLAUSE_OPENERS = frozenset(tables.words("clause_openers"))
BARE_CONJUNCTIONS = frozenset(tables.words("bare_conjunctions"))

_BOUNDARY = re.compile(
    r"""(?<![.!?…])(?P<end>[.!?…]++)  # sentence-final punctuation (a whole run: no O(n²) retries)
        (?P<close>["'”“’»«)\]]*)    # closing quotes or brackets
        \s+
        (?=["'„“‚‘»«(\[]*[A-ZÄÖÜ0-9])  # a sentence can start here""",
    re.VERBOSE,
)
# Text without a single capital (chat: "geht leider nicht. bin krank.") starts its sentences in
# lower case; elsewhere a full stop before a lower-case word is an abbreviation's ("ca. zehn").
_BOUNDARY_LOWER = re.compile(_BOUNDARY.pattern.replace("[A-ZÄÖÜ0-9]", r"[^\W_]"), re.VERBOSE)
# Clause punctuation must be followed by whitespace, which keeps "3,5" and "1.000" whole.
_CLAUSE = re.compile(r"""(?:[,;:]|(?<![!?…])[!?…]++|(?<!\.)(?P<period>\.++))["'”“’»«)\]]*(?=\s)|(?<=\s)[–—-](?=\s)""")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_GAP = re.compile(r"\s+")
_WORD = re.compile(r"\w+(?:['’-]\w+)*")
_ORDINAL = re.compile(r"\d{1,3}|\d{1,3}\.?[–-]\d{1,3}")   # "am 3. Mai", "vom 3.–5. Mai"
_OPENING = "\"'„“‚‘»«(["


def _is_abbreviation(token: str, language: str = "de", before_number: bool = False) -> bool:
    """Whether the period of ``token`` belongs to an abbreviation of ``language`` (or an initial,
    or a German ordinal); ``before_number``: a digit follows."""
    word = token.lstrip(_OPENING).rstrip(".").lower()
    if len(word) == 1 and word.isalpha():
        return True  # initials and the parts of "z. B.", "d. h."
    if language == "en":
        return word in ENGLISH_ABBREVIATIONS or (before_number and word in ENGLISH_BEFORE_NUMBER)
    if _ORDINAL.fullmatch(word):
        return True
    # "Goethestr.", "Hauptstr.": street names; no German word ends in "str" otherwise.
    return word in ABBREVIATIONS or word.endswith("str")


def _check_language(language: str) -> None:
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}")


def _token_before(text: str, start: int, end: int) -> str:
    """The text from the last whitespace in text[start:end] to ``end`` (without copying the rest)."""
    begin = end
    while begin > start and not text[begin - 1].isspace():
        begin -= 1
    return text[begin:end]


def _strip(text: str, start: int, end: int) -> Range:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _check_span(text: str, span: Range) -> None:
    start, end = span
    if not 0 <= start <= end <= len(text):
        raise ValueError(f"span {span!r} is not inside a text of {len(text)} characters")


def _sentences_in(text: str, start: int, end: int, language: str = "de") -> list[Range]:
    start, end = _strip(text, start, end)
    spans: list[Range] = []
    boundary = _BOUNDARY if any(c.isupper() for c in text[start:end]) else _BOUNDARY_LOWER
    for match in boundary.finditer(text, start, end):
        if match["end"] == "." and not match["close"]:
            token = _token_before(text, start, match.start("end") + 1)
            if _is_abbreviation(token, language, text[match.end():match.end() + 1].isdigit()):
                continue
        spans.append((start, match.end("close")))
        start = match.end()
    if start < end:
        spans.append((start, end))
    return spans


def split_sentences(text: str, language: str = "de") -> list[Range]:
    """Spans of the sentences of ``text`` (newlines count as spaces), without surrounding whitespace;
    ``language``: of the text ("de", "en"), whose abbreviations do not end a sentence."""
    _check_language(language)
    return _sentences_in(text, 0, len(text), language)


def sentences(text: str, language: str = "de") -> list[str]:
    """The sentences of ``text`` as strings, with runs of whitespace inside them made one space."""
    return [" ".join(text[start:end].split()) for start, end in split_sentences(text, language)]


def line_spans(text: str) -> list[Range]:
    """Spans of the lines of ``text``, split at \\n, \\r\\n and \\r (the breaks themselves excluded)."""
    spans, start = [], 0
    for match in _NEWLINE.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def segment(text: str, language: str = "de") -> list[list[Range]]:
    """The text as lines of sentence spans: ``[[s1, s2], [], [s3]]`` for "s1 s2\\n\\ns3";
    ``language`` as ``split_sentences`` takes it."""
    _check_language(language)
    return [_sentences_in(text, start, end, language) for start, end in line_spans(text)]


class Joined(NamedTuple):
    """A reassembled translation and where each sentence's translation starts in it."""

    text: str
    offsets: list[int]


def join_layout(layout: Sequence[Sequence[object]], translations: Sequence[str]) -> Joined:
    """Put one translation per sentence of ``layout`` (as from ``segment``) back into its lines.

    Sentences of a line are joined by one space, lines by "\\n"; blank lines (paragraphs) stay,
    leading and trailing ones go. ``offsets[i]`` is where ``translations[i]`` starts in ``text``."""
    expected = sum(len(line) for line in layout)
    if len(translations) != expected:
        raise ValueError(f"layout has {expected} sentences but got {len(translations)} translations")
    parts: list[str] = []
    offsets: list[int] = []
    position, done = 0, iter(translations)
    for number, line in enumerate(layout):
        if number:
            parts.append("\n")
            position += 1
        for index in range(len(line)):
            if index:
                parts.append(" ")
                position += 1
            translation = next(done)
            offsets.append(position)
            parts.append(translation)
            position += len(translation)
    joined = "".join(parts)
    text = joined.strip("\n")
    lead = len(joined) - len(joined.lstrip("\n"))
    return Joined(text, [min(max(offset - lead, 0), len(text)) for offset in offsets])


class _Cut(NamedTuple):
    left_end: int    # the left piece ends here ...
    right_start: int  # ... and the right one starts here; whitespace in between belongs to neither
    rank: int        # 0 best: punctuation + clause opener, 1 punctuation, 2 bare conjunction, 3 word


def _next_word(text: str, position: int) -> str:
    """The lower-cased word starting at ``position``, after any opening quotes or brackets."""
    while position < len(text) and text[position] in _OPENING:
        position += 1
    match = _WORD.match(text, position)
    return match.group().lower() if match else ""


class _Protected:
    """Protected spans, indexed so that "does any of them overlap (lo, hi)?" costs a bisection:
    a text of thousands of numbers is thousands of spans, asked about at every gap and character."""

    def __init__(self, spans: Sequence[Range]):
        ordered = sorted(spans)
        self.starts = [start for start, _ in ordered]
        self.reach: list[int] = []   # reach[i]: the furthest end among the first i + 1 spans
        for _, end in ordered:
            self.reach.append(max(end, self.reach[-1]) if self.reach else end)

    def overlaps(self, lo: int, hi: int) -> bool:
        """Whether a span (p, q) has p < hi and lo < q; with lo == hi: whether one holds lo inside."""
        index = bisect_left(self.starts, hi)   # the spans that start before hi
        return index > 0 and self.reach[index - 1] > lo


def _cuts(text: str, start: int, end: int, protected: _Protected, language: str = "de") -> list[_Cut]:
    """Every allowed cut strictly inside text[start:end], best rank per position."""
    by_gap: dict[int, _Cut] = {}
    for gap in _GAP.finditer(text, start, end):
        left, right = gap.span()
        if left == start or right == end:
            continue
        if text[left - 1].isdigit() and text[right].isdigit():
            continue  # "10 000", "3 500": thousands written with a space
        if protected.overlaps(left, right):
            continue
        rank = 2 if _next_word(text, right) in BARE_CONJUNCTIONS else 3
        by_gap[left] = _Cut(left, right, rank)
    for match in _CLAUSE.finditer(text, start, end):
        cut = by_gap.get(match.end())
        if cut is None:
            continue
        period = match["period"]
        if period == "." and _is_abbreviation(_token_before(text, start, match.end()), language,
                                              text[cut.right_start:cut.right_start + 1].isdigit()):
            continue  # "z.B.", "Nr.", "am 3. Mai"
        rank = 0 if _next_word(text, cut.right_start) in CLAUSE_OPENERS else 1
        by_gap[cut.left_end] = cut._replace(rank=rank)
    return sorted(by_gap.values())


def _check_protected(text: str, protected: Sequence[Range]) -> _Protected:
    for span in protected:
        _check_span(text, span)
    return _Protected([span for span in protected if span[1] - span[0] > 1])  # shorter ones have no inside


class _CutIndex:
    """Every cut of a text, found once; each piece of a recursive bisection takes those strictly
    inside it (a cut's rank does not depend on the piece: it reads the words at the cut alone)."""

    def __init__(self, cuts: list[_Cut]):
        self.cuts = cuts
        self.lefts = [cut.left_end for cut in cuts]

    def within(self, start: int, end: int) -> list[_Cut]:
        first, last = bisect_right(self.lefts, start), bisect_left(self.lefts, end)
        return [cut for cut in self.cuts[first:last] if cut.right_start < end]


def _choose(text: str, start: int, end: int, count: Callable[[str], int], limit: int,
            cuts: list[_Cut]) -> _Cut | None:
    """The best of the whitespace ``cuts`` of text[start:end] for pieces of at most ``limit``, or None."""
    if not cuts:
        return None
    needed = max(2, math.ceil(count(text[start:end]) / limit))
    # Aim where the left part holds half of the pieces needed (by characters, a proxy for the
    # count): 12 pieces' worth become 6 + 6, 3 become 1 + 2; so pieces end up near the limit.
    target = start + (end - start) * (needed // 2) / needed

    def distance(cut: _Cut) -> float:
        return abs(cut.left_end - target) / (end - start) - (0.1 if cut.rank == 0 else 0.0)

    # A cut away from the target must not cost more pieces than the minimum, except that a clause
    # cut may cost one more if it leaves no crumb ("Ja," on its own): for this model a clause is
    # worth more than a full piece (500 unpunctuated words at limit 40 become 1.7 times the minimum
    # number of pieces, 90% of them starting with a conjunction; at limit 60, 1.3 times).
    # Only the nearest few are tried: each try counts both sides.
    for ranks, crumb in (((0, 1), limit / 4), ((2,), limit / 3), ((3,), math.inf)):
        for cut in sorted((cut for cut in cuts if cut.rank in ranks), key=distance)[:8]:
            left, right = count(text[start:cut.left_end]), count(text[cut.right_start:end])
            pieces = math.ceil(left / limit) + math.ceil(right / limit)
            if pieces <= needed or (pieces == needed + 1 and min(left, right) >= crumb):
                return cut
    return min(cuts, key=distance)


def _character_cut(text: str, start: int, end: int, protected: _Protected, digits: bool = False) -> _Cut | None:
    """The middle of one over-long word, or None when there is no word to cut: never next to
    whitespace, between two digits ("10 000" and long numbers stay whole; with ``digits``, for a
    run the model cannot read at once, they may be cut too) or inside a protected span.
    Positions are tried from the middle outwards (the left one first at equal distance), so the
    first allowed one is the answer."""
    low, high = start + 1, end - 1
    middle = (start + end) / 2
    left, right = min(max(math.floor(middle), low), high), min(max(math.floor(middle) + 1, low), high + 1)
    while left >= low or right <= high:
        # the nearer of the two candidates; the left one on a tie
        if left >= low and (right > high or middle - left <= right - middle):
            position, left = left, left - 1
        else:
            position, right = right, right + 1
        if not (text[position - 1].isspace() or text[position].isspace()
                or not digits and text[position - 1].isdigit() and text[position].isdigit()
                or protected.overlaps(position, position)):
            return _Cut(position, position, 4)
    return None


def _split(text: str, start: int, end: int, count: Callable[[str], int], limit: int, most: int | None,
           protected: _Protected, cuts: _CutIndex) -> list[Range]:
    pieces = count(text[start:end])
    if pieces <= limit:
        return [(start, end)]
    cut = (_choose(text, start, end, count, limit, cuts.within(start, end))
           or _character_cut(text, start, end, protected, digits=most is not None and pieces > most))
    if cut is None:
        return [(start, end)]  # e.g. a protected span over the limit: never cut, never dropped
    return (_split(text, start, cut.left_end, count, limit, most, protected, cuts)
            + _split(text, cut.right_start, end, count, limit, most, protected, cuts))


def split_long(text: str, span: Range, count: Callable[[str], int], limit: int,
               protected: Sequence[Range] = (), language: str = "de", most: int | None = None) -> list[Range]:
    """Spans of ``text[span]`` cut so that ``count`` of each is at most ``limit`` where possible.

    ``count`` measures a string as the model does (pieces of the tokenizer). Cuts fall only at
    whitespace (clause boundaries first, see the module docstring), never inside a ``protected``
    span nor between the digits of "10 000"; one word longer than the limit is cut between
    characters as a last resort (not between digits), a protected span never: such a rest comes
    back whole, even over the limit. ``most``: the pieces the model reads at once; a run of digits
    over it ("¹¹¹…", "１２３４ ５６７８ …", whose characters the vocabulary may lack, so that each
    is several byte pieces) is cut between its digits too, as the model could not read it whole.
    ``language``: of the text, whose abbreviations' periods are no clause ends ("Mr.", "z.B.").
    Every non-whitespace character of the span is in exactly one piece, in order; pieces carry no
    surrounding whitespace, and a blank span gives []."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    _check_span(text, span)
    start, end = _strip(text, *span)
    if start == end:
        return []
    checked = _check_protected(text, protected)
    return _split(text, start, end, count, limit, most, checked, _CutIndex(_cuts(text, start, end, checked, language)))


def smaller_pieces(text: str, span: Range, count: Callable[[str], int],
                   protected: Sequence[Range] = (), language: str = "de") -> list[Range]:
    """``text[span]`` cut once, for a retry: at the best clause boundary near the middle, else at
    the word boundary nearest it; [span] (stripped) when it is a single word or fully protected."""
    _check_span(text, span)
    start, end = _strip(text, *span)
    if start == end:
        return []
    limit = max(1, math.ceil(count(text[start:end]) / 2))
    cut = _choose(text, start, end, count, limit, _cuts(text, start, end, _check_protected(text, protected), language))
    if cut is None:
        return [(start, end)]
    return [(start, cut.left_end), (cut.right_start, end)]


def words(text: str) -> list[str]:
    """The lower-cased words of ``text`` ("don't" and "E-Mail" are one word each)."""
    return _WORD.findall(text.lower())


def implausibly_short(source: str, output: str, *, ratio: float = 0.5, min_words: int = 8) -> bool:
    """Whether ``output`` has under ``ratio`` times the words of ``source`` (of at least ``min_words``).

    German→English keeps the word count (median ratio 0.94 for Tatoeba sources of 8+ words); the
    model's failure on long input keeps a fraction ("158 words in, 36 out"). At 0.5 this fires on
    0.15% of Tatoeba's reference pairs (idioms: "Da wird doch der Hund in der Pfanne verrückt." →
    "It's unbelievable.") and on none of the general-dev set; on the release model's greedy output
    it fired on 0 of general-dev's 60 and 1 of 300 Tatoeba sources (that idiom). Shorter sources
    vary too much to judge."""
    count = len(words(source))
    return count >= min_words and len(words(output)) < ratio * count


def has_loop(output: str, *, max_unit: int = 8) -> bool:
    """Whether ``output`` repeats itself like a degenerate decoder: one word 4 times in a row, or a
    run of 2 to ``max_unit`` words 3 times in a row ("of the city of the city of the city").

    Only back-to-back repeats count: on 160k English references (Tatoeba, Multi30k, general-dev)
    this never fires, while "the same 3-gram 3 times anywhere" fires on long ordinary captions
    ("a man in a red cap ... a man in a black shirt and a man in a pink shirt")."""
    tokens = words(output)
    for unit in range(1, max_unit + 1):
        repeats = 4 if unit == 1 else 3
        for start in range(len(tokens) - unit * repeats + 1):
            first = tokens[start:start + unit]
            if all(tokens[start + k * unit:start + (k + 1) * unit] == first for k in range(1, repeats)):
                return True
    return False


_TAG = re.compile(r"<[^>]*>")


def lines_like(text: str, count: int, unbreakable: re.Pattern | None = None) -> str:
    """``text`` cut into ``count`` lines of balanced length at spaces outside tags (and outside
    what ``unbreakable`` matches, where given: a Markdown link's target)."""
    if unbreakable is None:
        words = re.split(r" (?![^<]*>)", text)
    else:
        words = re.findall(rf"(?:{unbreakable.pattern}|<[^>]*>|[^ ])+", text)
    if count <= 1 or len(words) < 2:
        return text
    count = min(count, len(words))
    visible = [len(_TAG.sub("", w)) for w in words]
    target = (sum(visible) + len(words) - 1) / count
    lines, current, width = [], [], 0.0
    for i, (word, size) in enumerate(zip(words, visible)):
        left = len(words) - i   # words not yet placed, this one included
        if current and (width + size / 2 > target * (len(lines) + 1) or left == count - len(lines) - 1):
            lines.append(current)
            current = []
        current.append(word)
        width += size + 1
    lines.append(current)
    return "\n".join(" ".join(line) for line in lines)
