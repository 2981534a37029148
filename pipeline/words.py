"""Translations as word lists: the form in which the pipeline repairs, restyles and restores output.

A model output becomes a list of ``Word``s (text, the whitespace before it, and the source
character spans it is aligned to). Editing a list instead of a string keeps every word's alignment
while placeholders are re-inserted or removed, casing is applied and spans are restored; ``render``
turns the list back into text with each word's character span, for the word alignment the
callers (HTML markup, the inspector) need.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from model.data.software import stray_glue
from model.inference.alignment import AlignedText, Range

from .casing import apply_style
from .spans import PLACEHOLDER_RE, Masked, glued_spans, spaced_spans


_CLOSING = frozenset(".,;:!?)]}»“”…")


@dataclass
class Word:
    text: str
    gap: str = " "                                          # whitespace before the word
    sources: tuple[Range, ...] = field(default_factory=tuple)  # aligned source spans (original text)


# A rule's repair of the model's output words for one input (``pipeline.rules.base.Rule.repair``),
# given the placeholders' English: ``fix(words, slots) -> words``.
Fix = Callable[[list[Word], Mapping[str, str]], list[Word]]


def from_aligned(aligned: AlignedText, source_span: Callable[[int], Range]) -> list[Word]:
    """Words of ``aligned.target`` with their links resolved to spans by ``source_span(i)``."""
    links: dict[int, list[Range]] = {}
    for t, s in aligned.links:
        links.setdefault(t, []).append(source_span(s))
    out, previous = [], 0
    for t, (start, end) in enumerate(aligned.target_words):
        out.append(Word(aligned.target[start:end], _gap(aligned.target[previous:start]), tuple(links.get(t, ()))))
        previous = end
    return out


def _gap(between: str) -> str:
    """The gap before a word of the model's output: a run of spaces is one (a lone "▁" piece the
    model wrote is kept by the aligned decoding, not by the plain one: "I  is" and "I is")."""
    return " " if len(between) > 1 and between.isspace() else between


def from_text(text: str) -> list[Word]:
    """Words of a plain output, split at whitespace, without alignment."""
    out, previous = [], 0
    for match in re.finditer(r"\S+", text):
        out.append(Word(match.group(), text[previous:match.start()]))
        previous = match.end()
    return out


def placeholder_positions(words: Sequence[Word], symbol: str) -> list[int]:
    return [i for i, w in enumerate(words) if symbol in w.text]


EDGES = ("start", "end", "end_before_punctuation")


def insert_placeholder(words: list[Word], symbol: str, source: Range, anchors: Sequence[Range],
                       edge: str | None = None) -> None:
    """Re-insert a placeholder the model left out. One at an ``edge`` of its source (only other
    placeholders and punctuation beyond it: an emoji or URL opening or closing the sentence) goes
    to the same edge of the output. Else after the last output word aligned to it, else next to the
    output words of its nearest aligned source neighbour, else before the final punctuation.
    ``anchors`` are the source spans of the masked text's words, in order."""
    new = Word(symbol, " ", (source,))
    if edge == "start" and words:
        words.insert(0, new)
        words[1] = replace(words[1], gap=words[1].gap or " ")
        return
    if edge == "end":
        words.append(new)
        return

    def after(i: int) -> int:  # past the rest of word i: "don" + "'" + "t" are glued pieces of one
        i += 1
        while i < len(words) and not words[i].gap and words[i].text[:1].isalnum():
            i += 1
        return i

    aligned = [i for i, w in enumerate(words) if source in w.sources] if edge is None else []
    if aligned:
        words.insert(after(aligned[-1]), new)
        return
    if source in anchors and edge is None:
        k = anchors.index(source)
        for distance in range(1, len(anchors)):
            for neighbour, is_left in ((k - distance, True), (k + distance, False)):
                if 0 <= neighbour < len(anchors):
                    hits = [i for i, w in enumerate(words) if anchors[neighbour] in w.sources]
                    if hits:
                        words.insert(after(hits[-1]) if is_left else hits[0], new)
                        if not is_left:  # keep the neighbour's gap on the placeholder's side
                            new.gap, words[hits[0] + 1].gap = words[hits[0] + 1].gap, " "
                        return
    position = len(words)
    while position > 0 and all(c in _CLOSING for c in words[position - 1].text):
        position -= 1
    words.insert(position, new)
    if position == 0 and len(words) > 1:
        new.gap, words[1].gap = words[1].gap, " "


def repair_placeholder(words: list[Word], symbol: str, sources: Sequence[Range], anchors: Sequence[Range],
                       edges: dict[Range, str] | None = None) -> None:
    """Make a placeholder occur in the output as often as in the source (``sources``: its source
    word at each occurrence; ``edges``: those at an edge of the source, see ``insert_placeholder``):
    missing occurrences are inserted, extra ones removed."""
    found = sum(w.text.count(symbol) for w in words)
    if found < len(sources):
        covered = {span for w in words if symbol in w.text for span in w.sources}
        missing = [span for span in sources if span not in covered]
        missing += list(sources[:len(sources) - found - len(missing)])  # aligned elsewhere: still missing
        for span in missing[:len(sources) - found]:
            insert_placeholder(words, symbol, span, anchors, (edges or {}).get(span))
    elif found > len(sources):
        remove_duplicates(words, symbol, sources, len(sources))


def remove_duplicates(words: list[Word], symbol: str, sources: Sequence[Range], expected: int) -> None:
    """Keep ``expected`` occurrences of a placeholder the model repeated: those aligned to one of
    its ``sources`` first, then the earliest; the others are removed from their words."""
    positions = placeholder_positions(words, symbol)
    ranked = sorted(positions, key=lambda i: (not any(s in words[i].sources for s in sources), i))
    for i in sorted(ranked[expected:], reverse=True):
        rest = words[i].text.replace(symbol, "", 1)
        if rest:
            words[i] = replace(words[i], text=rest)
        else:
            gap = words[i].gap
            del words[i]
            if i < len(words) and i > 0 and words[i].text[:1] not in _CLOSING and not words[i].gap:
                words[i].gap = gap


_AFTER_STOP = re.compile(r"(?<=(?:[^\W\d_]|⦆)\.)⦅[NX][0-9]+⦆")  # "Hauptstr.⦅N1⦆", "⦅X1⦆.⦅N1⦆"
_SUFFIX = re.compile(r"(⦅([NX])[0-9]+⦆)([^\W\d_]+)")
_STOP_AFTER = re.compile(r"(⦅[NX][0-9]+⦆)\.(?!\.)")
ENDS_WITH_PLACEHOLDER = re.compile(r"⦅[NX][0-9]+⦆\Z")  # a word that ends with a placeholder
_INTEGER_SUFFIXES = frozenset(("st", "nd", "rd", "th", "s"))


def _fix_suffix(match: re.Match[str], slots: dict[str, str]) -> str:
    """Letters the model glued to a placeholder ("⦅N1⦆th"): an English ordinal or plural after a
    whole number stays ("3rd", "1990s"); after any other number, date, time or code they would
    alter it ("23.11.2026th") and go; after a URL or emoji they are a word of their own."""
    symbol, family, letters = match.groups()
    if family == "X":
        return f"{symbol} {letters}"
    value = slots.get(symbol, "")
    return symbol + letters if value.isdigit() and letters.lower() in _INTEGER_SUFFIXES else symbol


def restore_words(words: list[Word], slots: Mapping[str, str],
                  glued: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
                  spaced: frozenset[str] = frozenset(), fixes: Sequence[Fix] = ()) -> list[Word]:
    """Placeholders replaced by their spans' text; unknown (invented) ones dropped. ``glued``: the
    placeholders of brackets written against the next word and against the previous one
    (``spans.glued_spans``), which lose the space the model put after or before them. ``spaced``:
    those that follow a space in the source (``spans.spaced_spans``), which get it back where the
    model glued one to a word's stop ("Hauptstr.⦅N1⦆"). ``fixes``: the rules' repairs for this
    input (``Rule.repair``), applied in order before the spans go in."""
    openers, closers = glued
    if spaced:
        words = [replace(w, text=_AFTER_STOP.sub(lambda m: f" {m[0]}" if m[0] in spaced else m[0], w.text))
                 for w in words]
    words = list(words)
    for i, w in enumerate(words):
        if i and any(w.text.startswith(symbol) for symbol in closers):
            words[i] = replace(w, gap="")
        if i + 1 < len(words) and any(w.text.endswith(symbol) for symbol in openers):
            words[i + 1] = replace(words[i + 1], gap="")
    for fix in fixes:
        words = fix(words, slots)
    words = _without_stop(words, slots)
    out, dropped = [], False
    for w in words:
        # (an invented placeholder goes below, letters and all: "⦅X9⦆b" is "b")
        text = _SUFFIX.sub(lambda m: m[0] if m[1] in openers or m[1] not in slots else _fix_suffix(m, slots), w.text)
        # A span whose English ends with a stop takes the stop after it ("at 8:15 p.m.", not "p.m..").
        text = _STOP_AFTER.sub(lambda m: m[1] if slots.get(m[1], "").endswith(".") else m[0], text)
        invented = (head := PLACEHOLDER_RE.match(text)) is not None and head[0] not in slots
        text = PLACEHOLDER_RE.sub(lambda m: slots.get(m.group(), ""), text)
        if text:  # a dropped word takes its gap with it; render() ignores the first word's gap
            # punctuation after an invented placeholder closes up to the word before: "Hello ⦅N1⦆." -> "Hello.";
            # the spaces around a dropped word are one
            gap = "" if invented and text[0] in _CLOSING else " " if dropped and w.gap.isspace() else w.gap
            out.append(replace(w, text=text, gap=gap))
        dropped = not text
    return out


def without_word_before(words: list[Word], slots: Mapping[str, str], wrong: Callable[[str, str], bool]) -> list[Word]:
    """``words`` without each word the model wrote right before a placeholder that ``wrong(word,
    english)`` says is wrong there, given the span's English (a rule's repair: "of ⦅X1⦆", ⦅X1⦆ "of
    Turkey"); the placeholder takes the word's gap."""
    words, out = list(words), []
    for i, w in enumerate(words):
        head = PLACEHOLDER_RE.match(words[i + 1].text) if i + 1 < len(words) else None
        if head and wrong(w.text, slots.get(head[0], "")):
            words[i + 1] = replace(words[i + 1], gap=w.gap)
            continue
        out.append(w)
    return out


def unglued(words: list[Word], source: str, tokens: Mapping[str, str]) -> list[Word]:
    """``words`` without what the model glued to a directive and ``source`` does not have glued
    there (``model.data.software.stray_glue``; ``tokens``: each directive as both texts write it ->
    the directive it stands for): a mark goes ("⦅X1⦆- Foto" -> "⦅X1⦆ Foto"), and where a word then
    touches the directive, or a letter or digit was glued to it, a space parts them ("⦅X1⦆-Datei"
    -> "⦅X1⦆ Datei", "PKCS⦅X1⦆" -> "PKCS ⦅X1⦆"): which letters are the model's mistake and which a
    word it glued, a word list cannot tell. What the directives themselves are made of stays."""
    if not tokens:
        return words
    words = list(words)
    pattern = re.compile("|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True)))
    for _ in range(4 * sum(len(w.text) + 1 for w in words)):   # each round removes a character or adds a space
        text, spans = render(words)
        inside = {at for m in pattern.finditer(text) for at in range(m.start(), m.end())}
        stray = next((at for at in stray_glue(source, text, tokens) if at not in inside), None)
        if stray is None:
            break
        k = next(k for k, (start, end) in enumerate(spans) if start <= stray < end)
        cut, w = stray - spans[k][0], words[k]
        if text[stray].isalnum():   # part it from the directive on its side
            directive_after = stray + 1 in inside
            cut += directive_after
            if 0 < cut < len(w.text):
                words[k:k + 1] = [replace(w, text=w.text[:cut]), replace(w, text=w.text[cut:], gap=" ")]
            elif cut == 0:
                words[k] = replace(w, gap=" ")
            else:
                words[k + 1] = replace(words[k + 1], gap=" ")
            continue
        # the characters on either side, where they would then touch as a word and a directive
        before = stray - 1 >= 0 and (text[stray - 1].isalnum() or stray - 1 in inside)
        after = stray + 1 < len(text) and (text[stray + 1].isalnum() or stray + 1 in inside)
        parted = before and after
        rest = w.text[:cut] + w.text[cut + 1:]
        if 0 < cut < len(w.text) - 1 and parted:   # inside a word: the two sides are words of their own
            words[k:k + 1] = [replace(w, text=w.text[:cut]), replace(w, text=w.text[cut + 1:], gap=" ")]
        elif rest:
            words[k] = replace(w, text=rest, gap=" " if cut == 0 and parted and not w.gap else w.gap)
            if cut == len(w.text) - 1 and parted and k + 1 < len(words) and not words[k + 1].gap:
                words[k + 1] = replace(words[k + 1], gap=" ")
        else:                               # the mark was a word: its gap goes to the next one
            del words[k]
            if k < len(words) and not words[k].gap:
                words[k] = replace(words[k], gap=" " if parted else w.gap)
    return words


def _without_stop(words: list[Word], slots: dict[str, str]) -> list[Word]:
    """``words`` without the stop written as a word of its own (as the word alignment writes it)
    right after a span whose English ends with one ("at ⦅N1⦆ .", ⦅N1⦆ "8:15 p.m."), as
    ``restore_words`` does with a stop glued to the span; an ellipsis stays."""
    out: list[Word] = []
    for w in words:
        span = ENDS_WITH_PLACEHOLDER.search(out[-1].text) if out else None
        if span and not w.gap and w.text.startswith(".") and not w.text.startswith("..") \
                and slots.get(span[0], "").endswith("."):
            if len(w.text) > 1:
                out.append(replace(w, text=w.text[1:]))
            continue
        out.append(w)
    return out


def capitalize_first(words: list[Word], masked: Masked) -> list[Word]:
    """``words`` of a sentence's start, with its first word, when it is a placeholder of
    ``masked.capitalizable`` (an abbreviation, "ca." -> "approx."), written capitalized in its
    place where the sentence starts with a capital ("Es dauert ca. 10 Minuten." came out as
    "approx. takes 10 minutes.")."""
    opening = "\"'„“‚‘»«(["
    first = words[0].text if words else ""
    lead = len(first) - len(first.lstrip(opening))  # a quote the model glued to it: '"⦅N1⦆'
    head = PLACEHOLDER_RE.match(first, lead) if words else None
    if head is None or head[0] not in masked.capitalizable or not masked.original.lstrip(opening + " ")[:1].isupper():
        return words
    english = masked.slots[head[0]]
    return [replace(words[0], text=first[:lead] + english[:1].upper() + english[1:] + first[head.end():]), *words[1:]]


# A word as the model writes one, all letters (hyphens and apostrophes inside), and what may
# follow it in the same Word: not a letter, digit or the rest of an address or abbreviation
# ("e.g.", "www.x.org", "http://"), but a final full stop or colon ("usage:").
_PLAIN_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*(?=$|[.:]$|[^\w.@/:])")


def capitalize_start(words: list[Word], masked: Masked) -> list[Word]:
    """``words`` of a sentence's start with the first word capitalized where the model wrote it
    all lower case, the sentence (``masked.original``) starts with a capital and the model read a
    placeholder there instead: the placeholder hid the capital ("Passwort vergessen?" with a
    glossary term, read as "⦅X1⦆ vergessen?", came out as "forget ⦅X1⦆?"; without the glossary
    "Remember password?"). Where the model saw the sentence's first word, its lower case stays:
    software messages are written so ("Binärdateien ⦅X1⦆ und ⦅X1⦆ sind verschieden." / "binary
    files ⦅X1⦆ and ⦅X1⦆ differ."), and so does a sentence that starts with a span written lower
    case ("%s wurde nicht verschoben"). A word with a capital, digit or dot inside ("iPhone",
    "e.g.") and a placeholder stay as they are."""
    opening = "\"'„“‚‘»«(["
    first = words[0].text if words else ""
    lead = len(first) - len(first.lstrip(opening))
    match = _PLAIN_WORD.match(first, lead)
    if (match is None or not match[0].islower() or len(match[0][0].upper()) != 1
            or not PLACEHOLDER_RE.match(masked.text.lstrip(opening + " "))
            or not masked.original.lstrip(opening + " ")[:1].isupper()):
        return words
    return [replace(words[0], text=first[:lead] + first[lead].upper() + first[lead + 1:]), *words[1:]]


_FINAL = frozenset(".!?…")


def fit_boundaries(words: list[Word], source: str, *, initial: bool) -> None:
    """Make a piece of a sentence read as one: the model, trained on whole sentences, ends every
    output with a full stop and starts it upper case. A source piece that ends with a comma (or
    no punctuation) gets that ending instead of the full stop, and one that starts lower case in
    the middle of a sentence starts lower case (except "I")."""
    stripped = source.rstrip("\"'”“’»«)] ")
    ending = stripped[-1:] if stripped else ""
    if words and ending not in _FINAL and words[-1].text.endswith("."):
        last = words[-1]
        rest = last.text[:-1] + (ending if ending in ",;:" else "")
        if rest:
            words[-1] = replace(last, text=rest)
        else:
            del words[-1]
    first = source.lstrip("\"'„“‚‘»«([ ")[:1]
    if words and not initial and first.islower():
        head = words[0].text
        if not (head == "I" or head.startswith(("I'", "I’"))) and head[:1].isupper():
            words[0] = replace(words[0], text=head[:1].lower() + head[1:])


def restyle(words: list[Word], text_style: str) -> list[Word]:
    """Words in the input's casing style (placeholders are untouched by it)."""
    if text_style in ("normal", "lower") or not words:
        return words
    text, spans = render(words)
    styled = apply_style(text, text_style)
    if len(styled) == len(text):
        return [Word(styled[s:e], w.gap, w.sources) for w, (s, e) in zip(words, spans)]
    return [Word(apply_style(w.text, "upper" if text_style == "upper" else "normal"), w.gap, w.sources)
            for w in words]


def render(words: Sequence[Word]) -> tuple[str, list[Range]]:
    """The text of ``words`` and each word's character span in it."""
    parts, spans, position = [], [], 0
    for k, w in enumerate(words):
        gap = w.gap if k else ""
        parts.append(gap)
        position += len(gap)
        spans.append((position, position + len(w.text)))
        parts.append(w.text)
        position += len(w.text)
    return "".join(parts), spans


@dataclass(frozen=True)
class Restorer:
    """What restoring the outputs of one masked input reads from it, read once (a long input has
    hundreds of units, and each would read the whole text again): its placeholders' English, the
    glued and spaced placeholders (``spans.glued_spans``, ``spans.spaced_spans``) and the rules'
    repairs (``Rule.repair``)."""

    masked: Masked
    fixes: tuple[Fix, ...] = ()
    glued: tuple[frozenset[str], frozenset[str]] = field(init=False)
    spaced: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "glued", glued_spans(self.masked))
        object.__setattr__(self, "spaced", spaced_spans(self.masked))

    def words(self, words: list[Word], slots: Mapping[str, str] | None = None) -> list[Word]:
        """``restore_words`` of ``words`` (``slots``: the English to put in, the input's by default)."""
        return restore_words(words, self.masked.slots if slots is None else slots, self.glued, self.spaced, self.fixes)

    def text(self, output: str) -> str:
        """A plain output (no alignment: the inspector's completions, ``Pipeline.second_try``'s
        check) with its spans restored as ``words`` restores aligned ones, the same repairs included;
        the whitespace around it as given (a completion's prefix ends with the space before its next word)."""
        stripped = output.strip()
        if not stripped:
            return output
        restored = render(self.words(from_text(output)))[0]
        return output[:output.index(stripped[0])] + restored + output[len(output.rstrip()):]
