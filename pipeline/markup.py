"""``format=html``: translate each block of a document as one text and put its inline tags back.

As in Bergamot / Firefox Translations, the model must see whole sentences: in
``<p>Das ist <b>sehr</b> gut.</p>`` the text "Das ist sehr gut." is translated once, and ``<b>`` is
then placed around the output words aligned to "sehr". The steps:

1. Scan the document with the standard library's ``HTMLParser`` (it reports tags as written; a
   tree builder such as lxml or html5lib would re-serialise attributes and fix up the markup,
   while every tag must come back byte for byte). Each event's raw text is the document slice
   from its start to the next event's start, so nothing the parser skips is ever lost.
2. Block tags (``_BLOCK``: p, div, li, td, h1, br, ...) and the document's edges cut the
   document into segments. Within a segment, text (character references decoded, HTML whitespace
   collapsed) is joined into one plain text, and each inline element (``b``, ``a``, ``span`` and
   any tag not known to be a block) becomes a node of a tree that records the character range it
   covers in that text.
3. ``<script>``, ``<style>``, ``<pre>``, ``<code>``, ``<kbd>``, ``<samp>``, ``<var>``,
   ``<textarea>`` elements, comments, doctypes, processing instructions, void elements
   (``<img>``), tags without a partner in their segment (misnested or crossing a block) and
   elements nested over ``_MAX_DEPTH`` deep are *atoms*: copied byte for byte,
   never translated. An inline ``<code>`` in a sentence keeps its text in the plain text, so the
   model reads a whole sentence rather than two halves; the output words aligned *only* to the
   code's words are then replaced by the element exactly as written (so the model cannot alter
   it). Script, style and comments contribute no text; they are points, like ``<img>``.
4. ``translate`` gets the plain texts of all segments of all documents at once and returns word
   alignments. ``pipeline.placement`` places each node on the output words aligned to its source
   words (or around its whole sentence where the alignment gives it no credible place), with
   the nodes' ranges properly nested; its docstring says how.
5. Rendering walks the tree, so every tag is written exactly once and end tags always match.

Translated text is always escaped (``html.escape(..., quote=False)``): markup can only come from
the input. Whitespace outside translated text (between blocks, at a segment's edges, inside
untranslated segments) is kept as written; inside a segment the spacing is the translation's.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser

from model.inference.alignment import AlignedText

from .language_pair import DE_EN, LanguagePair
from .placement import Dictionary, Node, place

_BLOCK = frozenset("""address article aside blockquote body br caption center col colgroup dd details
    dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head
    header hgroup hr html iframe legend li link main menu meta nav noscript ol optgroup option p pre
    section select summary table tbody td template tfoot th thead title tr ul""".split())
_KEEP = frozenset(("code", "kbd", "samp", "var", "pre", "textarea"))  # text, but not prose
_HIDDEN = frozenset(("script", "style"))                             # raw text, never shown
_VOID = frozenset("area base embed img input param source track wbr".split())  # + _BLOCK's voids
_WS = " \t\n\r\f"                  # HTML's whitespace: U+00A0 is text, not spacing
_WS_RUN = re.compile(f"[{_WS}]+")
_MAX_DEPTH = 100                   # inline elements nested deeper are kept as written, untranslated
# A lang or xml:lang of the source language in a start tag ("de", "de-DE", "de_AT" where German is
# translated): the translation is in the target language, and a page that still says lang="de" is
# read out by screen readers with German pronunciation. One pattern per language, at module level
# where tests/test_regex_guard.py runs it.
_START_TAG = re.compile(r"<[A-Za-z][^<>]*+>")
_LANG = r"""(?<=[\s"'])((?:xml:)?lang[ \t\n\r\f]*+=[ \t\n\r\f]*+)(["']?){}(?:[-_][A-Za-z0-9]+)*+\2(?=[\s/>])"""
_GERMAN_LANG = re.compile(_LANG.format("de"), re.IGNORECASE)
_ENGLISH_LANG = re.compile(_LANG.format("en"), re.IGNORECASE)
_SOURCE_LANG = {"de": _GERMAN_LANG, "en": _ENGLISH_LANG}


class _Scanner(HTMLParser):
    """Lists the document's events as (kind, tag name or decoded text, start offset)."""

    def __init__(self, document: str) -> None:
        super().__init__(convert_charrefs=True)
        self._lines = [0] + [m.end() for m in re.finditer("\n", document)]
        self.events: list[tuple[str, str, int]] = []

    def _add(self, kind: str, value: str) -> None:
        line, column = self.getpos()   # the start of the construct being reported
        self.events.append((kind, value, self._lines[line - 1] + column))

    def handle_starttag(self, tag, attrs):
        self._add("start", tag)

    def handle_startendtag(self, tag, attrs):
        self._add("void", tag)

    def handle_endtag(self, tag):
        self._add("end", tag)

    def handle_data(self, data):
        self._add("text", data)

    def handle_comment(self, data):
        self._add("hidden", "")

    handle_decl = handle_pi = unknown_decl = handle_comment


# A numeric character reference; one that names no character ("&#0;", "&#x110000;", a surrogate or
# a noncharacter such as "&#xFFFE;") decodes to U+FFFD or to nothing, and so was lost.
_CHARREF = re.compile(r"&#(?:[0-9]++|[xX][0-9a-fA-F]++);?")


def _undecodable(reference: str) -> bool:
    digits = reference.rstrip(";")[2:]
    number = int(digits[1:], 16) if digits[:1] in "xX" else int(digits)
    return number != 0xFFFD and html.unescape(reference.rstrip(";") + ";") in ("", "\ufffd")


def _kept_references(value: str, raw: str) -> list[tuple[str, str, str]]:
    """A text event as (kind, text, raw) events: its numeric references that name no character
    become atoms ("void"), kept as written; the text around them is decoded as the parser decodes."""
    if "&#" not in raw or not any(_undecodable(m.group()) for m in _CHARREF.finditer(raw)):
        return [("text", value, raw)]
    out, position = [], 0
    for match in _CHARREF.finditer(raw):
        if _undecodable(match.group()):
            if match.start() > position:
                out.append(("text", html.unescape(raw[position:match.start()]), raw[position:match.start()]))
            out.append(("void", "", match.group()))
            position = match.end()
    if position < len(raw):
        out.append(("text", html.unescape(raw[position:]), raw[position:]))
    return out


def _events(document: str) -> list[tuple[str, str, str]]:
    """(kind, name or text, raw) for each event; the raws put together are the document."""
    scanner = _Scanner(document)
    scanner.feed(document)
    scanner.close()
    events = scanner.events
    if not events or events[0][2] > 0:      # text the parser dropped before its first report
        events.insert(0, ("hidden", "", 0))
    starts = [start for _, _, start in events] + [len(document)]
    assert starts == sorted(starts), "HTMLParser reported events out of order"
    return [split for i, (kind, value, _) in enumerate(events)
            for split in (_kept_references(value, document[starts[i]:starts[i + 1]]) if kind == "text"
                          else [(kind, value, document[starts[i]:starts[i + 1]])])]


Item = tuple[str, str, str]   # (kind, name or text, raw): kinds text, start, end, keep, point, hidden


def _segments(document: str) -> list[str | list[Item]]:
    """The document as raw markup between blocks (str) and segments (lists of items)."""
    events = _events(document)
    parts: list[str | list[Item]] = []
    items: list[Item] = []
    i = 0
    while i < len(events):
        kind, name, raw = events[i]
        item: Item = (kind, name, raw)
        if kind == "start" and (name in _KEEP or name in _HIDDEN):
            j, depth = i + 1, 1             # the element, up to its end tag, is one atom
            while j < len(events) and depth:
                depth += (events[j][:2] == ("start", name)) - (events[j][:2] == ("end", name))
                j += 1
            inner = events[i + 1:j - 1] if depth == 0 else events[i + 1:j]
            text = "".join(value for k, value, _ in inner if k == "text")
            item = ("keep" if name in _KEEP else "hidden", text, "".join(e[2] for e in events[i:j]))
            i = j - 1
        elif kind == "void" or (kind == "start" and name in _VOID):
            item = ("point", name, raw)
        if kind in ("start", "end", "void") and name in _BLOCK:
            if items:
                parts.append(items)
                items = []
            parts.append(item[2])
        else:
            items.append(item)
        i += 1
    if items:
        parts.append(items)
    return parts


@dataclass
class Segment:
    """A segment with translatable text: raw ``prefix`` + translated ``root`` + raw ``suffix``."""

    text: str
    root: Node
    prefix: str
    suffix: str


def _edges(items: list[Item]) -> tuple[str, list[Item], str]:
    """Split off leading and trailing whitespace and invisible atoms, which stay as written."""
    def blank(item: Item) -> bool:
        return item[0] == "hidden" or (item[0] == "text" and not item[2].strip(_WS))

    a, b = 0, len(items)
    while a < b and blank(items[a]):
        a += 1
    while b > a and blank(items[b - 1]):
        b -= 1
    prefix, middle, suffix = "".join(i[2] for i in items[:a]), items[a:b], "".join(i[2] for i in items[b:])
    if middle and middle[0][0] == "text":
        raw = middle[0][2]
        prefix += raw[:len(raw) - len(raw.lstrip(_WS))]
    if middle and middle[-1][0] == "text":
        raw = middle[-1][2]
        suffix = raw[len(raw.rstrip(_WS)):] + suffix
    return prefix, middle, suffix


def _partners(items: list[Item]) -> dict[int, int]:
    """Start-tag index -> end-tag index for properly nested pairs; the other tags become atoms."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for i, (kind, name, _) in enumerate(items):
        if kind == "start":
            stack.append(i)
        elif kind == "end":
            names = [items[j][1] for j in stack]
            if name in names:
                k = len(names) - 1 - names[::-1].index(name)
                if k < _MAX_DEPTH:           # deeper ones stay atoms: the tree code recurses
                    pairs[stack[k]] = i      # elements opened after it and still open are unpaired
                del stack[k:]
    return pairs


def _segment(items: list[Item]) -> Segment | str:
    """The segment's tree and plain text, or its raw markup when it has no text to translate."""
    prefix, middle, suffix = _edges(items)
    if not any(kind == "text" and text.strip() for kind, text, _ in middle):  # str.strip: U+00A0 alone is no text
        return "".join(item[2] for item in items)
    pairs = _partners(middle)
    closers = set(pairs.values())
    root = Node("", "")
    stack, plain = [root], ""
    for i, (kind, value, raw) in enumerate(middle):
        if kind in ("text", "keep"):
            start, piece = len(plain), _WS_RUN.sub(" ", value)
            if piece.startswith(" ") and (not plain or plain.endswith(" ")):
                piece = piece[1:]           # HTML shows one space where several meet
            plain += piece
            if kind == "keep":
                stack[-1].children.append(Node(raw, None, start, len(plain), i))
        elif i in pairs:
            node = Node(raw, middle[pairs[i]][2], len(plain), order=i)
            stack[-1].children.append(node)
            stack.append(node)
        elif i in closers:
            stack.pop().end = len(plain)
        else:   # a point: visible (an image, a reference kept as written) or not (a comment, an unpaired tag)
            visible = kind == "point"
            before = visible and i > 0 and middle[i - 1][0] == "text" and middle[i - 1][2][-1:].isspace()
            after = visible and i + 1 < len(middle) and middle[i + 1][0] == "text" and middle[i + 1][2][:1].isspace()
            stack[-1].children.append(Node(raw, None, len(plain), len(plain), i, spaced=(before, after)))
    assert stack == [root], "a paired start tag was left open"
    text = plain.rstrip(" ")
    _clip(root, len(text))
    return Segment(text, root, prefix, suffix)


def _clip(node: Node, length: int) -> None:
    """Keep offsets inside the text after its trailing space was dropped."""
    node.start, node.end = min(node.start, length), min(node.end, length)
    for child in node.children:
        _clip(child, length)


def _chars(node: Node, aligned: AlignedText) -> tuple[int, int]:
    """The character range of ``node``'s projection in the output text."""
    words = aligned.target_words
    if node.lo < node.hi:
        return words[node.lo][0], words[node.hi - 1][1]
    if node.glue == "after":
        at = words[node.lo - 1][1] if node.lo > 0 else 0
    else:
        at = words[node.lo][0] if node.lo < len(words) else len(aligned.target)
    return at, at


def _render(node: Node, aligned: AlignedText, start: int, end: int, out: list[str]) -> None:
    """Write ``node`` over output characters [start, end); children are clamped so tags nest."""
    if node.close is None:            # an atom: as written, instead of the text it covers
        # A point sits between two output characters; where it had whitespace on a side in the
        # source and the output has none there, it comes with it ("Das <img> Haus" -> "The <img>
        # house", not "The <img>house"; "rot <img>." -> "red <img>.").
        point, target = node.start == node.end, aligned.target
        out.append(" " if point and node.spaced[0] and 0 < start and not target[start - 1].isspace() else "")
        out.append(node.open)
        out.append(" " if point and node.spaced[1] and start < len(target) and not target[start].isspace() else "")
        return
    out.append(node.open)
    cursor = start
    placed = sorted(((*_chars(c, aligned), c.order, c) for c in node.children), key=lambda p: p[:3])
    for child_start, child_end, _, child in placed:
        child_start = min(max(child_start, cursor), end)
        child_end = min(max(child_end, child_start), end)
        out.append(html.escape(aligned.target[cursor:child_start], quote=False))
        _render(child, aligned, child_start, child_end, out)
        cursor = child_end
    out.append(html.escape(aligned.target[cursor:end], quote=False))
    out.append(node.close)


def _check(text: str, aligned: AlignedText) -> None:
    if aligned.source != text:
        raise ValueError(f"translate returned an alignment for {aligned.source!r} instead of {text!r}")
    for t, s in aligned.links:
        if not (0 <= t < len(aligned.target_words) and 0 <= s < len(aligned.source_words)):
            raise ValueError(f"alignment link {(t, s)!r} is out of range for {text!r}")


def render_segment(segment: Segment, aligned: AlignedText, language: str = DE_EN.source,
                   dictionary: Dictionary | None = None) -> str:
    """The segment's markup around its translation ``aligned`` of its text, which is in ``language``;
    ``dictionary``: one that reads ``language``, to check projections with (``pipeline.placement``)."""
    _check(segment.text, aligned)
    place(segment.root, aligned, language, dictionary)
    out = [segment.prefix]
    _render(segment.root, aligned, 0, len(aligned.target), out)
    out.append(segment.suffix)
    return "".join(out)


def parse_html(document: str) -> list[str | Segment]:
    """The document as raw markup (str) and segments to translate, in order."""
    return [part if isinstance(part, str) else _segment(part) for part in _segments(document)]


def target_lang(markup: str, languages: LanguagePair = DE_EN) -> str:
    """``markup`` with every ``lang``/``xml:lang`` attribute of its start tags that names the source
    language (any region) naming the target alone: lang="de-DE" -> lang="en"."""
    source = _SOURCE_LANG[languages.source]

    def retagged(tag: re.Match[str]) -> str:
        return source.sub(lambda m: f"{m[1]}{m[2]}{languages.target}{m[2]}", tag[0])

    return _START_TAG.sub(retagged, markup) if "lang" in markup.lower() else markup


def translate_html(documents: Sequence[str], translate: Callable[[list[str]], list[AlignedText]],
                   languages: LanguagePair = DE_EN, dictionary: Dictionary | None = None) -> list[str]:
    """Translate every document's segments with one call of ``translate`` (from ``languages.source``
    into ``languages.target``) and restore the markup, its ``lang`` attributes that name the source
    language naming the target (``target_lang``). ``dictionary`` (one that reads the source
    language, or None) checks where the tags go (``pipeline.placement``)."""
    parsed = [parse_html(document) for document in documents]
    segments = [part for parts in parsed for part in parts if isinstance(part, Segment)]
    texts = [segment.text for segment in segments]
    results = translate(texts) if texts else []
    if len(results) != len(texts):
        raise ValueError(f"translate returned {len(results)} alignments for {len(texts)} texts")
    done = {id(segment): render_segment(segment, aligned, languages.source, dictionary)
            for segment, aligned in zip(segments, results)}
    return ["".join(target_lang(part, languages) if isinstance(part, str) else done[id(part)] for part in parts)
            for parts in parsed]
