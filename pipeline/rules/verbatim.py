"""The spans copied as written: numbers, URLs, e-mails, emoji, ... (a fidelity guarantee).

A small NMT model mangles what it should copy ("1.450 Euro" became "14540"), so before translation
every span that must come through unchanged is replaced by a reserved symbol, ``⦅N1⦆``…``⦅N20⦆``
for numbers, dates, times and codes and ``⦅X1⦆``…``⦅X20⦆`` for everything else. The tokenizer keeps
each as one SentencePiece piece (user-defined symbols), ``mask_pair`` teaches the model to copy
them, and ``restore`` puts the spans (numbers converted to English notation) back afterwards.

Detection (``find_spans``) is one pass of one regular expression whose alternatives are ordered by
priority: placeholder lookalikes, `backticks`, URLs, e-mails, @handles, #hashtags, format directives,
HTML entities, commands, paths, file names, dates, times, phone numbers, identifiers, codes,
numbers, emoji. Among matches the leftmost wins, and at one position the first alternative.
Decisions, each made so that copying verbatim is never worse than what the model would do:

* Format directives: ``model.data.software.FORMAT_DIRECTIVE``, the pattern that masks them in
  training pairs (``%s``, ``%(name)s``, ``{0}``, Qt ``%1``, ``$VAR``, ...), as ``FORMAT`` finds them;
  not when glued to a word before or after ("50%ige" is German). What the model glues to one that
  the source does not have glued there goes again (``repair``: "⦅X1⦆- Foto" -> "%d Foto").
* HTML entities in plain text (``&amp;``, ``&#160;``) are copied as written.
* Commands: a known command-line tool and its arguments (``npm install express``, ``sudo apt-get
  install -y redis-server``), up to a German particle or conjunction ("... express aus").
* Identifiers: ``snake_case``, ``camelCase`` and ``PascalCase`` with an inner capital
  (``DataFrame``); German words have no inner capitals, so none of them is taken.
* Paths (``/etc/app``, ``~/.bashrc``, ``../docs/``, ``C:\\Users\\...``) and file names or domains
  with an extension of a fixed list (``config.yaml``, ``beispiel.de``): a list, because a missing
  space ("Ende.der") must not turn words into a name.
* Phone numbers: a leading ``0`` or ``+``country code and more groups (``0221 9876543``,
  ``(030) 123 45 67``, ``030/1234567``) are one span, carried as written.
* Dates: ``23.11.2026``, ``23.11.26``, ``2026-11-23``, ``23/11/2026``; a year-less ``1.1.`` only
  when a word follows (at the end of a sentence ``3.5.`` is the number ``3.5`` and a full stop);
  with a month name, ``15. August`` and ``3. März 2027``, written in English (``15 August``,
  ``3 March 2027``).
* Times: ``7:05``, ``19:30``, ``19:30:15``; ``19.30`` only before "Uhr". The time before "Uhr" is
  written in English (``with_clock_times``): "14 Uhr" → "2 p.m.", "20:15 Uhr" → "8:15 p.m.", "8 Uhr"
  → "8 o'clock"; "halb acht" → "7:30".
* Codes: a token of letters/digits joined by ``-`` or ``/`` that contains a digit: ``58213-B``,
  ``COVID-19``, ``4/5``, ``2-3``, ``A4``, ``MP3``, ``B2B``. Not a code when a part is a word with a
  lowercase letter (``10-jährige``, ``5-Sterne``) or when digits carry a lowercase suffix (``20er``,
  ``5km``, English ``1st``): then only the digits are a number span, the words get translated.
* Numbers: digits with internal ``.``/``,`` groups and an optional sign. The ordinal dot is not
  part of a number ("am 3. Mai" → ``3``). ``english_number`` converts only unambiguous German
  notation (``1.450`` → ``1,450``, ``6,9`` → ``6.9``); ``3.5`` or ``1.2.3`` stay as written.
* Emoji: runs of adjacent pictographic symbols (Unicode So in the symbol blocks, not ``°``) with
  variation selectors, skin tones, ZWJ sequences, tag sequences and keycaps: one span per run.
* Symbols the model drops or alters although its vocabulary has them: ``§``, ``§§``, ``£ ¥ ₹ ₽ ₺ ₩``,
  ``~`` before a number (about), ``°C`` and ``°F``.
* Unrepresentable: with ``representable`` given, runs of characters the vocabulary lacks
  (never whitespace or the marks of a sentence, ``.,;:!?…'"-``): symbols, and punctuation such as
  brackets ("[OK]", "{1, 2}"), which the model would otherwise write as "⁇".

Identical span texts of one family share a placeholder ("5 ... 5" → "⦅N1⦆ ... ⦅N1⦆"), so the
model need not invent a distinction the source does not make.

Glossary terms (``pipeline.glossary``) are spans too, of kind "glossary" (or "glossary_plural"),
found by the glossary, not here; their ``target`` (the English term) is what ``restore`` puts back.
"""


from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from model.data.software import FORMAT

from .. import tables
from ..casing import style
from ..spans import NUM_END, Masked, Span, merge, words_only
from ..words import Fix, unglued, without_word_before
from .base import Context, Rule
from .keys import with_keys

def _emoji_class() -> str:
    """Character class of pictographic symbols: category So in the BMP blocks that hold emoji,
    plus the whole astral emoji area U+1F000–U+1FAFF.

    The BMP part is limited to those blocks so that scripts' own signs stay with their text;
    astral ranges are kept few because ``re`` tests them one by one (the BMP is a bitmap).
    """
    blocks = [(0xA9, 0xAF), (0x2000, 0x2C00), (0x3000, 0x3300)]
    codes = [c for lo, hi in blocks for c in range(lo, hi) if unicodedata.category(chr(c)) == "So"]
    return "".join(re.escape(chr(c)) for c in codes) + "\U0001F000-\U0001FAFF"


_SKIN = "\U0001F3FB-\U0001F3FF"  # skin-tone modifiers (category Sk)
_EMOJI = _emoji_class()
_EMOJI_UNIT = (rf"(?:[0-9#*]\ufe0f?\u20e3|[{_EMOJI}{_SKIN}][\ufe0e\ufe0f]?[{_SKIN}]?"
               r"[\U000E0020-\U000E007F]*)")
_EXTENSIONS = "|".join(sorted(tables.words("extensions"), key=lambda e: (-len(e), e)))
# Command-line tools (their arguments end before a word of command_stops or a token that is no argument).
_TOOLS = "|".join(sorted(tables.words("tools"), key=lambda t: (-len(t), t)))
_STOP = "|".join(tables.words("command_stops"))
_DAY, _MONTH = r"(?:0?[1-9]|[12][0-9]|3[01])", r"(?:0?[1-9]|1[0-2])"
# German month names and their English ones: "15. August" -> "15 August", "3. März 2027" -> "3 March 2027".
MONTHS = tables.pairs("months")
_MONTH_NAME = "|".join(MONTHS)
_MONTH_DATE = re.compile(rf"({_DAY})\. ({_MONTH_NAME})(?: ([0-9]{{4}}))?")
# A range of days in one month: "3.–5. Mai" -> "3–5 May", "3. bis (zum) 5. Mai" -> "3 to 5 May"
_DAYS_TO = r"[ \t\u00a0]*[–-][ \t\u00a0]*|[ \t\u00a0]+bis[ \t\u00a0]+(?:zum[ \t\u00a0]+)?"
_MONTH_RANGE = re.compile(rf"({_DAY})\.({_DAYS_TO})({_DAY})\. ({_MONTH_NAME})(?: ([0-9]{{4}}))?")
_ALTERNATIVES = {
    "placeholder": r"⦅[^⦅⦆\s]*⦆|[⦅⦆]",
    "backticks": r"`[^`\n]+`",
    "url": r"(?<![\w@.])(?:(?:https?|ftp)://|www\.)[^\s<>\"“”„‚«»]+",
    "email": r"(?<![\w.+@-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}(?![\w-])",
    "handle": r"(?<![\w@.])@[^\W_]\w*(?:\.\w+)*(?:@[\w-]+(?:\.[\w-]+)+)?",
    "hashtag": r"(?<![\w#&])#(?=[\w-]*[^\W\d_])\w+(?:-\w+)*",
    "directive": FORMAT.pattern,
    "entity": r"&(?:[A-Za-z][A-Za-z0-9]{1,30}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});",
    "command": rf"(?<![\w./-])(?:sudo[ \t]+)?(?:{_TOOLS})(?:[ \t]+(?!(?:{_STOP})(?![\w/:=@+~-]))"
               r"[a-z0-9@./:=+~_-][\w@./:=+~-]*)+(?![\w./:=@+~-])",
    "path": r"(?<![\w./~\\-])(?:~|\.{1,2})?/(?=[\w.-]*[^\W\d_])[\w.-]+(?:/[\w.-]+)*/?"
            r"|(?<!\w)[A-Za-z]:\\(?:[\w .-]+\\)*[\w.-]*",
    "filename": rf"(?<![\w.@/\\-])(?=[\w-]*[^\W\d_])[\w-]{{2,}}(?:\.[\w-]+)*\.(?:{_EXTENSIONS})(?![\w-]|\.\w)",
    "date": (rf"(?<![\w.,])(?:{_DAY}\.(?:{_DAYS_TO}))?{_DAY}\. (?:{_MONTH_NAME})(?: [0-9]{{4}})?(?![\w.,]?[0-9])(?!\w)"
             rf"|(?<![\w.,]){_DAY}\.{_MONTH}\.(?:[0-9]{{4}}|[0-9]{{2}}){NUM_END}"
             rf"|(?<![\w.,]){_DAY}\.{_MONTH}\.(?![0-9])(?=[ \t]+\w)"
             rf"|(?<![\w.,/-])[0-9]{{4}}-[01][0-9]-[0-3][0-9](?![\w-])"
             rf"|(?<![\w.,/-]){_DAY}/{_MONTH}/(?:[0-9]{{4}}|[0-9]{{2}})(?![\w/])"),
    "time": (r"(?<![\w.,:])(?:[01]?[0-9]|2[0-4]):[0-5][0-9](?::[0-5][0-9])?(?![0-9]|[:.,][0-9])"
             r"|(?<![\w.,])(?:[01]?[0-9]|2[0-4])\.[0-5][0-9](?=\s*Uhr\b)"),
    # A token with a digit and a letter or a joined digit; _token_spans decides what it is.
    "phone": r"(?<![\w+])(?:\+[1-9][0-9]{0,2} ?(?:\(0\) ?)?[1-9][0-9]{1,4}|\(0[1-9][0-9]{1,4}\)|0[1-9][0-9]{1,4})"
             r"(?:[ /-][0-9]{2,}){1,3}(?![\w.,]?[0-9])",
    "identifier": r"(?<![\w./@-])(?:[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*"
                  r"|[A-Z][a-z0-9]++[A-Z]++[a-z0-9][A-Za-z0-9]*+)(?![\w-])",
    "code": r"(?<![\w/-])(?=[\w/-]*?[0-9])(?=[\w/-]*?(?:[^\W\d_]|[0-9][-/][^\W_]))"
            r"[^\W_]+(?:[-/][^\W_]+)*(?!\w)",
    "number": rf"(?<!\w)(?<![0-9][.,])[-+−]?[0-9]+(?:[.,][0-9]+)*{NUM_END}(?![\ufe0f\u20e3])",
    "emoji": rf"{_EMOJI_UNIT}(?:\u200d?{_EMOJI_UNIT})*",
    # Signs the model drops or alters although its vocabulary has them: "§ 3" -> "3", "5 £" ->
    # "5 OR", "~5 Euro" -> "$5 euros", "20 °C" -> "20 degrees".
    "symbol": r"§+|°[CF](?!\w)|[£¥₹₽₺₩]|~(?=[ \t]?[0-9])",
}
_SPAN_RE = re.compile("|".join(f"(?P<{kind}>{rx})" for kind, rx in _ALTERNATIVES.items()))
_MAYBE_SPAN_CHAR = re.compile(rf"[0-9@#`⦅⦆%{{$/\\&§£¥₹₽₺₩\[{_EMOJI}]|\.[a-z]|[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]"
                              rf"|(?<![\w./-])(?:{_TOOLS})[ \t]")
_PARTS = re.compile(r"[^\W_]+")
_URL_TRAILING = ".,;:!?'’"


def _maybe_spans(text: str) -> bool:
    """A cheap test that lets most sentences (20 times faster) skip the big expression."""
    return "://" in text or "www." in text or _MAYBE_SPAN_CHAR.search(text) is not None



def _trim_url(url: str) -> str:
    """Drop sentence punctuation and unbalanced closing brackets from the end of a URL."""
    while url and (url[-1] in _URL_TRAILING or url[-1] == ")" and url.count("(") < url.count(")")
                   or url[-1] == "]" and url.count("[") < url.count("]")):
        url = url[:-1]
    return url


def _is_word(part: str) -> bool:
    """A part of a token that is a word to translate: 2+ letters with a lowercase one."""
    return len(part) >= 2 and part.isalpha() and not part.isupper()


def _token_spans(token: str, offset: int) -> list[Span]:
    """Spans of a letters/digits token: one code, or the codes and numbers among its parts."""
    parts = list(_PARTS.finditer(token))
    if len(parts) > 1 and not any(_is_word(p[0]) for p in parts):
        return [Span(offset, offset + len(token), "code", token)]
    spans = []
    for part in parts:
        text, start = part[0], offset + part.start()
        digits = re.match(r"[0-9]*", text)[0]  # ASCII only: "²" or "٣" are no numbers to convert
        suffix = text[len(digits):]
        if digits and (not suffix or suffix.isalpha() and suffix.islower()):
            # "10" of "10-jährige", and "20er", "5km", "1st": the suffix is translated.
            spans.append(Span(start, start + len(digits), "number", digits))
        elif re.search(r"[0-9]", text):
            spans.append(Span(start, start + len(text), "code", text))
    return spans


# Punctuation that shapes a sentence stays the model's, even where its vocabulary lacks it.
_SENTENCE_MARKS = frozenset(".,;:!?…'\"-")


def _unrepresentable(text: str, taken: list[Span], representable: Callable[[str], bool]) -> list[Span]:
    """Runs of characters outside ``taken`` that the vocabulary cannot represent."""
    verdict = {ch: not representable(ch) and unicodedata.category(ch)[0] != "Z" and ch not in _SENTENCE_MARKS
               for ch in set(text)}
    inside = bytearray(len(text))
    for span in taken:
        inside[span.start:span.end] = b"\x01" * (span.end - span.start)
    spans, start = [], None
    for i, ch in enumerate(text + " "):
        bad = i < len(text) and verdict[ch] and not inside[i]
        if bad and start is None:
            start = i
        elif not bad and start is not None:
            spans.append(Span(start, i, "unrepresentable", text[start:i]))
            start = None
    return spans

# A label in square brackets ("[Abbrechen]", "[Bild auf]"): its brackets, as symbols set apart
# from the words inside for the model (``_glue``), which wrote "Click [Cancest]." for "Klicken Sie auf
# [Abbrechen]." (the word glued to its bracket lost SentencePiece's word start).
_BRACKETED_LABEL = re.compile(r"\[(?=[^\W\d_]+(?:[ \t-][^\W\d_]+)*\])|(?<=[^\W\d_])\]")


def _bracketed_labels(text: str, taken: list[Span]) -> list[Span]:
    found, opened = [], None
    for match in _BRACKETED_LABEL.finditer(text):
        if match[0] == "[":
            opened = match.start()
        elif opened is not None:
            if not any(s.start < match.end() and opened < s.end for s in taken):
                found += [Span(opened, opened + 1, "symbol", "["), Span(match.start(), match.end(), "symbol", "]")]
            opened = None
    return found

def find_spans(text: str, representable: Callable[[str], bool] | None = None) -> list[Span]:
    """Protected spans of ``text``, sorted and non-overlapping (see the module docstring): what is
    copied as written, and the keys of ``pipeline.rules.keys``."""
    spans: list[Span] = []
    if _maybe_spans(text):
        for match in _SPAN_RE.finditer(text):
            kind, start = match.lastgroup, match.start()
            assert kind is not None
            if kind == "code":
                spans.extend(_token_spans(match[0], start))
                continue
            found = _trim_url(match[0]) if kind in ("url", "path", "command") else match[0]
            # A URL that trimming reduced to its bare prefix ("http://.") is no URL.
            if kind != "url" or len(found) > (4 if found.startswith("www.") else found.find("/") + 2):
                target = _english_date(found) if kind == "date" else None
                spans.append(Span(start, start + len(found), kind, found, target))
    spans = with_keys(text, spans)
    if representable is not None:
        spans = sorted(spans + _unrepresentable(text, spans, representable), key=lambda s: s.start)
    if "[" in text:
        spans = merge(spans, _bracketed_labels(text, spans))
    return spans


def _english_date(text: str) -> str | None:
    """A date with a German month name in English ("15. August" -> "15 August"), or a range of
    days of one ("3. bis 5. Mai" -> "3 to 5 May", "3.–5. Mai" -> "3–5 May"); None for others."""
    if match := _MONTH_RANGE.fullmatch(text):
        first, to, last, month, year = match.groups()
        to = to if to.strip() in "–-" else " to "   # a dash as written
        return f"{int(first)}{to}{int(last)} {MONTHS[month]}" + (f" {year}" if year else "")
    match = _MONTH_DATE.fullmatch(text)
    if match is None:
        return None
    day, month, year = match.groups()
    return f"{int(day)} {MONTHS[month]}" + (f" {year}" if year else "")



# "the" before a date written day first is wrong in English: "am 1. Januar 2000" -> "on the ⦅N1⦆",
# ⦅N1⦆ "1 January 2000".
_DAY_FIRST = re.compile(rf"[0-9]{{1,2}} (?:{'|'.join(MONTHS.values())})(?![\w])")


def the_before_date(word: str, english: str) -> bool:
    """Whether ``word``, written by the model right before a span whose English is ``english``, is
    a "the" that the date written day first makes wrong."""
    return word.lower() == "the" and _DAY_FIRST.match(english) is not None


def _without_the(words, slots):
    return without_word_before(words, slots, the_before_date)


# In English text a tool's name is often a word ("The cat is sleeping", "find out", "sort them"):
# there a command needs an argument that reads as code (an option, a path, a file, a value).
_CODE_ARGUMENT = re.compile(r"[ \t](?:sudo[ \t]|[\w@~+]*[-./:=@~_0-9])")


_ENGLISH_STOPS = frozenset(tables.words("english_command_stops"))
_TOKEN = re.compile(r"[^ \t]+")


def english_command(span: Span) -> Span | None:
    """A "command" span found in English text, its arguments ended at an English word of
    ``english_command_stops`` ("cat notes.txt now" -> "cat notes.txt"), where it is one: ``sudo``
    or an argument that reads as code ("git commit -m", not "cat is sleeping"); else None."""
    end = len(span.text)
    for k, token in enumerate(_TOKEN.finditer(span.text)):
        if k > 0 and token[0].lower() in _ENGLISH_STOPS:
            end = len(span.text[:token.start()].rstrip())
            break
    text = span.text[:end]
    if not (text.startswith("sudo") or _CODE_ARGUMENT.search(text)):
        return None
    return Span(span.start, span.start + end, span.kind, text)


class Verbatim(Rule):
    """The rule: ``find_spans`` finds, with the context's ``representable`` (text in ALL CAPS is
    read truecased: a capital the vocabulary lacks whose lower case it has, ẞ, is read as that);
    "the" before a day-first date goes, and what the model glued to a format directive that the
    source does not have glued there comes off (``words.unglued``; ``unglue=False`` leaves it, as
    ``bench/glue.py`` measures). ``english``: the source is English, where a command needs an
    argument that reads as code (``english_command``)."""

    name = "verbatim"

    def __init__(self, *, english: bool = False, unglue: bool = True):
        self.english = english
        self.unglue = unglue

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        found = find_spans(text, context.representable)
        if context.representable_lowered is not None and any(s.kind == "unrepresentable" for s in found) \
                and style(words_only(text, found)) == "upper":
            found = find_spans(text, context.representable_lowered)
        if self.english:
            found = [s if s.kind != "command" else english_command(s) for s in found]
            found = [s for s in found if s is not None]
        return found

    def repair(self, masked: Masked) -> Fix | None:
        directives = {symbol: text for symbol, text in masked.slots.items() if FORMAT.fullmatch(text)}
        if not directives or not self.unglue:
            return _without_the
        return lambda words, slots: unglued(_without_the(words, slots), masked.text, directives)


RULE = Verbatim()
ENGLISH_RULE = Verbatim(english=True)
