"""Protected spans: numbers, URLs, e-mails, emoji, ... replaced by placeholders around translation.

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
  training pairs (``%s``, ``%(name)s``, ``{0}``, Qt ``%1``, ``$VAR``, ...); not when glued to a
  word before or after ("50%ige" is German).
* HTML entities in plain text (``&amp;``, ``&#160;``) are copied as written.
* Commands: a known command-line tool and its arguments (``npm install express``, ``sudo apt-get
  install -y redis-server``), up to a German particle or conjunction ("... express aus").
* Identifiers: ``snake_case``, ``camelCase`` and ``PascalCase`` with an inner capital
  (``DataFrame``); German words have no inner capitals, so none of them is taken.
* Paths (``/etc/app``, ``~/.bashrc``, ``../docs/``, ``C:\\Users\\...``) and file names or domains
  with an extension of a fixed list (``config.yaml``, ``beispiel.de``): a list, because a missing
  space ("Ende.der") must not turn words into a name.
* Names (``with_names``, only with a model that has a lexicon): capitalized words the model was
  not taught to translate ("Liebe Anna," lost the name; "Hallo Lukas," became "Hellasasas"), and
  a form of address with its name, written in English ("Frau Schmidt" → "Ms Schmidt", "Herrn
  Dr. Wagner" → "Dr Wagner"), but not after a possessive or an indefinite article ("meine Frau
  Anna").
* Letter formulas (``with_names`` too): a greeting or closing that opens a sentence and ends at a
  comma, a stop or the end, written in English as one span, of kind "phrase" (or "name" with
  the addressee's name): "Liebe Anna," → "Dear Anna,", "Sehr geehrte Frau Dr. Koch," → "Dear Dr
  Koch,", "Sehr geehrte Damen und Herren," → "Dear Sir or Madam,", "Mit freundlichen Grüßen" →
  "Kind regards". An addressee from a list of nouns for people is left to the model after the
  greeting ("Liebe Freunde," → "Dear" + "friends"); any other is a name. The model, trained on Tatoeba, had made
  "Liebe Grüße" "Love hello" and "Sehr geehrte Damen und Herren" "Looking labels and Lords".
* Phone numbers: a leading ``0`` or ``+``country code and more groups (``0221 9876543``,
  ``(030) 123 45 67``, ``030/1234567``) are one span, carried as written.
* Dates: ``23.11.2026``, ``23.11.26``, ``2026-11-23``, ``23/11/2026``; a year-less ``1.1.`` only
  when a word follows (at the end of a sentence ``3.5.`` is the number ``3.5`` and a full stop);
  with a month name, ``15. August`` and ``3. März 2027``, written in English (``15 August``,
  ``3 March 2027``).
* Times: ``7:05``, ``19:30``, ``19:30:15``; ``19.30`` only before "Uhr". The time before "Uhr" is
  written in English (``with_clock_times``): "14 Uhr" → "2 p.m.", "20:15 Uhr" → "8:15 p.m.", "8 Uhr"
  → "8 o'clock"; "halb acht" → "7:30".
* Amounts (``with_amounts``): euros with their sign, written sign first ("49,99 €" → "€49.99"), and
  "minus" with its number ("minus 5 Grad" → "minus 5"): the model dropped the sign and the minus.
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
* Abbreviations (``with_abbreviations``): the common ones of everyday and office German, written
  in English: "z. B." → "e.g.", "ca." → "approx.", "u. a." → "among others", "usw." → "etc.",
  "inkl." → "incl.", "Nr. 5" → "No. 5", "S. 12" → "p. 12", "5 Mio." → "5 million" (one number
  span with its number). The model, which saw few of them, made "ca. 5 Euro" "cache. 5 euros" and
  dropped "z. B." and "u. a.".
* Measures (``pipeline.measures.with_measures``, only where the model lost one: a retry): a number
  and a unit, written in English ("fünf Kilometer" → "five kilometers", where the model wrote "five
  miles").
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
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from model.data.lexicon import WORD
from model.data.software import FORMAT_DIRECTIVE
from model.network.placeholders import (  # noqa: F401  (part of this module's API)
    NUMBER_SLOTS, OTHER_SLOTS, PLACEHOLDER_RE, PLACEHOLDERS, SLOTS, placeholder)

from .numbers import clock_number, number_word

# A measure ("fünf Kilometer") is a number to the model: with an "X" placeholder it placed it like a
# noun ("Tom is taller than eight centimeters Mary."), with an "N" one as a number (pipeline.measures).
NUMBER_KINDS = frozenset({"number", "date", "time", "phone", "code", "measure", "amount"})
KINDS = NUMBER_KINDS | {
    "placeholder", "backticks", "url", "email", "handle", "hashtag", "directive", "entity", "command",
    "path", "filename", "identifier", "emoji", "symbol", "unrepresentable", "name", "phrase", "abbreviation",
    "measure", "glossary", "glossary_plural"}
# A glossary term (pipeline.glossary) whose English is its singular (or has no number), its plural.
GLOSSARY_KINDS = frozenset({"glossary", "glossary_plural"})


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
_NUM_END = r"(?![0-9]|[.,][0-9])"
# File extensions and top-level domains that make "config.yaml" or "example.com" a name to copy;
# a list, because "Ende.der" (a missing space) must stay words.
_EXTENSIONS = "|".join(sorted("""
    txt md rst pdf doc docx odt ods odp odg xls xlsx ppt pptx csv tsv json yaml yml xml html htm css
    js mjs ts tsx jsx py ipynb rb java kt c h cpp hpp cs go rs swift php pl sh bash ps1 bat cmd exe
    dll so dylib deb rpm apk msi dmg iso img jar war zip gz tgz bz2 xz zst 7z rar tar png jpg jpeg
    gif svg webp bmp ico tif tiff mp3 mp4 m4a wav ogg flac avi mkv mov webm srt vtt po pot mo ini cfg
    conf toml lock log sql sqlite db env properties ftl tex bib epub
    com org net de at ch eu io dev info edu gov uk fr it es nl be pl
""".split(), key=lambda e: (-len(e), e)))
# Command-line tools whose invocations (with at least one argument) are copied as written: "npm
# install express", "sudo apt-get install -y redis-server". The arguments end before a German
# verb particle or conjunction ("Führen Sie npm install aus.") or a token that is no argument.
_TOOLS = "|".join(sorted("""
    npm npx yarn pnpm pip pip3 pipx python python3 node deno bun git apt apt-get dpkg snap brew dnf yum
    pacman docker podman kubectl helm cargo rustup go dotnet mvn gradle make cmake gcc ssh scp rsync
    curl wget systemctl journalctl chmod chown mkdir rm cp mv cd ls cat grep tar unzip conda poetry
""".split(), key=lambda t: (-len(t), t)))
_STOP = "|".join("""
    aus an ab auf ein durch und oder im in mit zu zum zur um nach vor bei zurück neu los fest weg hoch
    her hin dann bevor wenn danach dort hier ist sind wird werden als ins im am vom beim die der das den
    dem des eine einen einem einer es sie er wir ihr sure
""".split())
_DAY, _MONTH = r"(?:0?[1-9]|[12][0-9]|3[01])", r"(?:0?[1-9]|1[0-2])"
# German month names and their English ones: "15. August" -> "15 August", "3. März 2027" -> "3 March 2027".
MONTHS = dict(zip("Januar Februar März April Mai Juni Juli August September Oktober November Dezember".split(),
                  "January February March April May June July August September October November December".split()))
_MONTH_NAME = "|".join(MONTHS)
_MONTH_DATE = re.compile(rf"({_DAY})\. ({_MONTH_NAME})(?: ([0-9]{{4}}))?")
_ALTERNATIVES = {
    "placeholder": r"⦅[^⦅⦆\s]*⦆|[⦅⦆]",
    "backticks": r"`[^`\n]+`",
    "url": r"(?<![\w@.])(?:(?:https?|ftp)://|www\.)[^\s<>\"“”„‚«»]+",
    "email": r"(?<![\w.+@-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}(?![\w-])",
    "handle": r"(?<![\w@.])@[^\W_]\w*(?:\.\w+)*(?:@[\w-]+(?:\.[\w-]+)+)?",
    "hashtag": r"(?<![\w#&])#(?=[\w-]*[^\W\d_])\w+(?:-\w+)*",
    "directive": rf"(?<![\w%$]){FORMAT_DIRECTIVE}",
    "entity": r"&(?:[A-Za-z][A-Za-z0-9]{1,30}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});",
    "command": rf"(?<![\w./-])(?:sudo[ \t]+)?(?:{_TOOLS})(?:[ \t]+(?!(?:{_STOP})(?![\w/:=@+~-]))"
               r"[a-z0-9@./:=+~_-][\w@./:=+~-]*)+(?![\w./:=@+~-])",
    "path": r"(?<![\w./~\\-])(?:~|\.{1,2})?/(?=[\w.-]*[^\W\d_])[\w.-]+(?:/[\w.-]+)*/?"
            r"|(?<!\w)[A-Za-z]:\\(?:[\w .-]+\\)*[\w.-]*",
    "filename": rf"(?<![\w.@/\\-])(?=[\w-]*[^\W\d_])[\w-]{{2,}}(?:\.[\w-]+)*\.(?:{_EXTENSIONS})(?![\w-]|\.\w)",
    "date": (rf"(?<![\w.,]){_DAY}\. (?:{_MONTH_NAME})(?: [0-9]{{4}})?(?![\w.,]?[0-9])(?!\w)"
             rf"|(?<![\w.,]){_DAY}\.{_MONTH}\.(?:[0-9]{{4}}|[0-9]{{2}}){_NUM_END}"
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
    "number": rf"(?<!\w)(?<![0-9][.,])[-+−]?[0-9]+(?:[.,][0-9]+)*{_NUM_END}(?![\ufe0f\u20e3])",
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


# Keyboard keys that English names otherwise, where a text names a key: in a combination ("Strg+C",
# "Umschalt + F5"), alone in square brackets ("[Entf]"), and "Strg" anywhere. The model carried
# "Strg" over as a name ("Press Strg+C.") or dropped it ("Strg+Umschalt+Pos1" -> "Shift+Pos1").
# LibreOffice's help writes the Mac's key and the PC's together ("BefehlStrg+F": "CommandCtrl+F").
_KEYS = {
    "Strg": "Ctrl", "BefehlStrg": "CommandCtrl", "Befehl": "Command", "Umschalt": "Shift",
    "Umschalttaste": "Shift", "Entf": "Del", "Einfg": "Insert", "Pos1": "Home", "Ende": "End",
    "Bild auf": "Page Up", "Bild ab": "Page Down", "Eingabe": "Enter", "Eingabetaste": "Enter",
    "Rücktaste": "Backspace", "Leertaste": "Space", "Tabulator": "Tab", "Wahltaste": "Option",
    "Feststelltaste": "Caps Lock", "Druck": "Print Screen",
}
_KEY = "|".join(re.escape(k).replace(r"\ ", "[ \t]") for k in sorted(_KEYS, key=len, reverse=True))
_KEY_TOKEN = rf"(?:{_KEY}|Alt(?:Gr)?|Tab|Esc|Fn|F[0-9]{{1,2}}|[A-ZÄÖÜ0-9])(?![\w-])"
_KEY_RE = re.compile(rf"(?<![\w-]){_KEY_TOKEN}(?:[ \t]*\+[ \t]*{_KEY_TOKEN})+|(?<=\[)(?:{_KEY})(?=\])|(?<![\w-])Strg(?![\w-])")
_KEY_NAME = re.compile(rf"(?<![\w-])(?:{_KEY})(?![\w-])")
_NAMED_KEY = re.compile(r"(?<![\w-])(?:[A-Za-zÄÖÜäöü]{2,}[0-9]?|F[0-9]{1,2})(?![\w-])")


def _maybe_keys(text: str) -> bool:
    """What every match of ``_KEY_RE`` holds: most sentences skip it (it took 40% of
    ``find_spans``'s time on a sentence without spans)."""
    return "+" in text or "[" in text or "Strg" in text


def _keys(text: str, taken: list[Span]) -> list[Span]:
    """Key combinations with a named key ("Strg + Alt + Entf", "Alt+F4"; not "A+B") and the keys of
    ``_KEYS`` in brackets or alone (only "Strg"), outside ``taken`` but replacing an identifier or
    code inside them ("Pos1"): one span each, written in English ("Ctrl + Alt + Del"). One span
    for the whole combination: between two placeholders the model dropped the "Alt"."""
    found = []
    for match in _KEY_RE.finditer(text):
        start, end = match.span()
        if "+" in match[0] and not _NAMED_KEY.search(match[0]):
            continue
        overlapping = [s for s in taken if s.start < end and start < s.end]
        if all(s.kind in ("identifier", "code", "number") and start <= s.start and s.end <= end for s in overlapping):
            english = _KEY_NAME.sub(lambda key: _KEYS[" ".join(key[0].split())], match[0])
            found.append(Span(start, end, "phrase", match[0], english))
    return found


def find_spans(text: str, representable: Callable[[str], bool] | None = None) -> list[Span]:
    """Protected spans of ``text``, sorted and non-overlapping (see the module docstring)."""
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
    if _maybe_keys(text):
        spans = merge(spans, _keys(text, spans))
    if representable is not None:
        spans = sorted(spans + _unrepresentable(text, spans, representable), key=lambda s: s.start)
    if "[" in text:
        spans = merge(spans, _bracketed_labels(text, spans))
    return spans


def _english_date(text: str) -> str | None:
    """A date with a German month name in English ("15. August" -> "15 August"); None for others."""
    match = _MONTH_DATE.fullmatch(text)
    if match is None:
        return None
    day, month, year = match.groups()
    return f"{int(day)} {MONTHS[month]}" + (f" {year}" if year else "")


_SENTENCE_OPENERS = frozenset(".!?:;„\"“‚‘»«(–—")
# A form of address and the name after it ("Frau Schmidt", "Herrn Wagner", "Frau Dr. Koch"): the
# name is a name even when it is also a word, and the whole is written in English ("Ms Schmidt",
# "Mr Wagner", "Dr Koch"); the model made "Herr Schmidt" "Lord" and "Frau Wagner" "woman Wagner".
_ADDRESS = re.compile(r"(?<![\w.])(?=Herr|Frau|Fräulein|Dr\.|Prof\.)"
                      r"(?:(Herrn?|Frau|Fräulein)[ \t]+)?((?:(?:Dr|Prof)\.[ \t]*)*)"
                      r"(?<=[ \t])([A-ZÄÖÜ][^\W\d_]*(?:-[A-ZÄÖÜ][^\W\d_]*)?)(?![\w-])")
_ADDRESS_ENGLISH = {"Herr": "Mr", "Herrn": "Mr", "Frau": "Ms", "Fräulein": "Miss"}
# "meine Frau Anna" is my wife: after these the word is a noun, not a form of address (after a
# definite article it still is one: "der Frau Müller", "dem Herrn Meier").
_NOT_ADDRESS_AFTER = frozenset("""
    mein meine meinen meinem meiner dein deine deinen deinem deiner sein seine seinen seinem seiner
    ihr ihre ihren ihrem ihrer unser unsere unseren unserem unserer euer eure euren eurem eurer
    ein eine einen einem einer jede jeder jeden jedem diese dieser diesen diesem
""".split())
_LAST_WORD = re.compile(r"([^\W\d_]+)[\W\d_]*$")

# Letter formulas (see the module docstring), matched in any case at the start of a sentence.
_GREETINGS = {"liebe": "Dear", "lieber": "Dear", "liebes": "Dear", "sehr geehrte": "Dear", "sehr geehrter": "Dear",
              "hallo": "Hello", "hi": "Hi", "hey": "Hey", "servus": "Hi", "moin": "Hi",
              "guten morgen": "Good morning", "guten tag": "Hello", "guten abend": "Good evening"}
_SALUTATIONS = {"sehr geehrte damen und herren": "Dear Sir or Madam", "liebe kolleginnen und kollegen": "Dear colleagues",
                "hallo zusammen": "Hello everyone", "hallo allerseits": "Hello everyone", "hi zusammen": "Hi all",
                # not a name after a greeting: "Hallo Welt" came out as "Hello Welt"
                "hallo welt": "Hello world"}
_CLOSINGS = {
    "mit freundlichen grüßen": "Kind regards", "mit freundlichem gruß": "Kind regards",
    "freundliche grüße": "Kind regards", "mfg": "Kind regards",
    "mit besten grüßen": "Best regards", "beste grüße": "Best regards", "mit vielen grüßen": "Best regards",
    "viele grüße": "Best regards", "schöne grüße": "Best regards", "vg": "Best regards",
    "mit herzlichen grüßen": "Warm regards", "herzliche grüße": "Warm regards",
    "mit lieben grüßen": "Best wishes", "liebe grüße": "Best wishes", "ganz liebe grüße": "Best wishes",
    "lg": "Best wishes", "gruß": "Regards", "grüße": "Regards",
    # everyday wishes and goodbyes the model, trained on Tatoeba, got wrong: "Gute Besserung!" ->
    # "Good luck!", "Tschüss!" -> "Titch!", "Prost!" -> "Get away!", "Mach's gut!" -> "Do it!"
    "gute besserung": "Get well soon", "alles gute": "All the best", "viel erfolg": "Good luck",
    "gute reise": "Have a good trip", "gute fahrt": "Have a good trip", "mach's gut": "Take care",
    "mach’s gut": "Take care", "machs gut": "Take care", "macht's gut": "Take care", "tschüss": "Bye",
    "tschüs": "Bye", "herzlich willkommen": "Welcome", "guten appetit": "Enjoy your meal",
    "prost": "Cheers", "bis bald": "See you soon",
}
_FORMULA_START = re.compile(r"[ \t\"'„“”‚‘’»«]*")
_NAME_WORD = r"[A-ZÄÖÜ][^\W\d_]*(?:-[A-ZÄÖÜ][^\W\d_]*)*"
_ENDS = r"[ \t]*(?:[,!.:;]|$)"  # a formula ends at a comma, a stop or the end of the sentence


def _phrases(table: dict[str, str], end: str) -> re.Pattern[str]:
    """The phrases of ``table`` (longest first, words apart by any blanks) in any case, then ``end``."""
    words = [r"[ \t]+".join(map(re.escape, phrase.split())) for phrase in sorted(table, key=len, reverse=True)]
    return re.compile(rf"(?i:{'|'.join(words)})(?={end})")


# A closing may be followed by the writer's name on its line ("Viele Grüße Anna Schmidt"), a name
# even when it is also a word ("Schmidt" became "is spiding").
# (Possessive blanks: "[ \t]*,?[ \t]*" split a run of blanks every way between its two halves.)
_SIGNATURE = rf"[ \t]*+(?:,[ \t]*+)?({_NAME_WORD}(?:[ \t]+{_NAME_WORD})?)[ \t]*[.!]?$"
_SIGNATURE_RE = re.compile(_SIGNATURE)
_CLOSING_RE = _phrases(_CLOSINGS, rf"{_ENDS}|{_SIGNATURE}|[ \t]+und[ \t]")  # "Gute Besserung und bis bald!"
_SALUTATION_RE = _phrases(_SALUTATIONS, _ENDS)
_GREETING_RE = _phrases(_GREETINGS, r"[ \t]+[A-ZÄÖÜ]")
_BLANKS = re.compile(r"[ \t]*")
_AND = re.compile(r"[ \t]+und[ \t]+")
_END = re.compile(_ENDS)
_ADDRESSEE = re.compile(rf"[ \t]+({_NAME_WORD}(?:[ \t]+(?:und[ \t]+)?{_NAME_WORD})?)(?={_ENDS})")
# After a greeting, these are people addressed by a noun ("Liebe Freunde,", "Hallo Mama,"), which
# the model translates; any other capitalized addressee is a name, kept even when it is also a
# word ("Hallo Lukas," became "Hello Luadas"), or dropped after a lone greeting ("Hallo Tom,").
_ADDRESSEE_NOUNS = frozenset("""
    freunde freundinnen freund freundin eltern kinder kollegen kolleginnen kollege kollegin kunden
    kundinnen kunde kundin mitglieder gäste nachbarn nachbarin nachbar leute familie mama mami papa
    papi mutter vater oma omi opa opi schwester bruder tante onkel schatz liebling team nutzer
    nutzerinnen benutzer benutzerinnen leser leserin leserinnen teilnehmer teilnehmerinnen studierende
    schüler schülerinnen mitarbeiter mitarbeiterinnen mitarbeitende bürger bürgerinnen zuschauer
    hörer hörerinnen fans jungs mädels damen herren genossen nachbarschaft gemeinde
""".split())


def _key(phrase: str) -> str:
    return " ".join(phrase.lower().split())


def _letter_formula(text: str, taken: Sequence[tuple[int, int]]) -> list[Span]:
    """The greeting or closing that opens ``text``, as spans written in English (none if there is
    none, or if it overlaps ``taken``)."""
    start = _FORMULA_START.match(text).end()
    found: list[Span] = []
    if match := _CLOSING_RE.match(text, start) or _SALUTATION_RE.match(text, start):
        table = _CLOSINGS if _key(match[0]) in _CLOSINGS else _SALUTATIONS
        found = [Span(start, match.end(), "phrase", match[0], table[_key(match[0])])]
        while table is _CLOSINGS and (joined := _AND.match(text, found[-1].end)) \
                and (more := _CLOSING_RE.match(text, joined.end())):  # "Gute Besserung und bis bald!"
            english = _CLOSINGS[_key(more[0])]
            found.append(Span(more.start(), more.end(), "phrase", more[0], english[0].lower() + english[1:]))
        if table is _CLOSINGS and (signature := _SIGNATURE_RE.match(text, found[-1].end)):
            found.append(Span(signature.start(1), signature.end(1), "name", signature[1]))
    elif greeting := _GREETING_RE.match(text, start):
        english = _GREETINGS[_key(greeting[0])]
        address = _ADDRESS.match(text, _BLANKS.match(text, greeting.end()).end())
        addressed = _address_english(address) if address and _END.match(text, address.end()) else None
        if addressed:  # "Sehr geehrte Frau Dr. Koch," -> "Dear Dr Koch,"
            found = [Span(start, address.end(), "name", text[start:address.end()], f"{english} {addressed}")]
        elif addressee := _ADDRESSEE.match(text, greeting.end()):
            words = addressee[1].split()
            if len(words) == 1 and words[0].lower() in _ADDRESSEE_NOUNS:  # "Liebe Freunde,": the
                found = [Span(start, greeting.end(), "phrase", greeting[0], english)]  # model translates it
            else:  # names, even those that are words too ("Hallo Lukas,"): one span with the greeting
                names = " ".join("and" if w == "und" else w for w in words)
                found = [Span(start, addressee.end(), "name", text[start:addressee.end()], f"{english} {names}")]
    return [f for f in found if not any(s < f.end and f.start < e for s, e in taken)]


def _address_english(match: re.Match[str]) -> str | None:
    """A match of ``_ADDRESS`` in English ("Frau Dr. Koch" -> "Dr Koch"); None when it has no title
    or degree, or no name after them."""
    title, degrees, name = match.groups()
    if not (title or degrees) or name in ("Dr", "Prof"):
        return None
    return f"{'Dr' if 'Dr.' in degrees else 'Professor' if 'Prof.' in degrees else _ADDRESS_ENGLISH[title]} {name}"


def _addresses(text: str, taken: Sequence[tuple[int, int]]) -> list[Span]:
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


# A person introducing themselves names themselves: every capitalized word after "ich heiße", "er
# heißt" (not "das heißt": "that means") or "mein Name ist" up to the clause's end is the name, a surname that is also a word too ("Ich heiße
# Jürgen Koch." came out as "Jürgen cooking"). After "ich bin" only two or three such words: one
# is as often a noun ("Ich bin Lehrer.").
_INTRODUCTION = re.compile(
    rf"(?<![\w-])(?:(?i:hei(?:ße|sse))|(?<![\w-])(?i:du|er|sie|wir|ihr)[ \t]+(?i:hei(?:ßt|sst|ßen|ssen))"
    rf"|(?i:name)[ \t]+(?i:ist|lautet)|(?P<bin>(?i:bin)))"
    rf"[ \t]+(?P<name>{_NAME_WORD}(?:[ \t]+{_NAME_WORD}){{0,2}})(?=[ \t]*(?:[,.!?;:)]|$)|[ \t]+[a-zäöüß])")


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


_SIGNATURE_LINE = re.compile(rf"[ \t]*(?:(?i:dein|deine|euer|eure|ihr|ihre)[ \t]+)?"  # "Dein Klaus": "Yours"
                             rf"({_NAME_WORD}(?:[ \t]+{_NAME_WORD}){{0,2}})[ \t]*[.!]?[ \t]*")
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
_SIGNED = frozenset({"Kind regards", "Best regards", "Warm regards", "Best wishes", "Regards"})


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
               places: Mapping[str, str] | None = None) -> list[Span]:
    """``spans`` (of ``find_spans``) and, as spans of kind "name", the capitalized words of ``text``
    outside them that ``knows(word, initial=...)`` (a ``model.data.lexicon.Lexicon``'s) does not
    know: names, mostly ("Liebe Anna,"), carried over like the other spans. ``initial``: the word
    opens the text or follows a sentence mark or quote, where any word is capitalized. A name takes
    in the unrepresentable characters it contains ("Ayşe" is one name, not "Ay", "ş", "e").
    ``places`` (``model.data.ding.place_names``): names of places that English writes otherwise,
    which become name spans written in English ("Köln" -> "Cologne"; the model wrote "Key"), their
    genitives too ("Österreichs Hauptstadt" -> "Austria's", "die Hauptstadt Norwegens" -> "of Norway").
    A country of its ``countries`` takes the German article before it into its span
    (``_country_phrase``): the model wrote "in der Schweiz" as "in the Switzerland"."""
    taken = sorted((s.start, s.end) for s in spans if s.kind != "unrepresentable")
    names = _letter_formula(text, taken)
    taken = sorted(taken + [(n.start, n.end) for n in names])
    names += _addresses(text, taken)
    taken = sorted(taken + [(n.start, n.end) for n in names])
    names += _introductions(text, taken)
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
        if not knows(word, initial=_opens_sentence(text[:start])):
            names.append(_designation(text, start, end, spans) or Span(start, end, "name", word))
    return merge(spans, names)


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


# German abbreviation -> English, as written in running text. A space inside ("z. B.") may also be
# missing ("z.B.") or narrow; a lower-case one opening a sentence is capitalized there ("Z. B.").
# Only those with one English reading: not "geb." (born or bound), "Std.", "Min." or "Str."; not
# those the model copies well ("max.").
_ABBREVIATIONS = {
    "z. B.": "e.g.", "bspw.": "e.g.", "d. h.": "i.e.", "u. a.": "among others", "usw.": "etc.",
    "etc.": "etc.", "ca.": "approx.", "ggf.": "if necessary",
    "inkl.": "incl.", "exkl.": "excl.", "zzgl.": "plus", "sog.": "so-called", "vgl.": "cf.",
    "o. Ä.": "or similar", "u. Ä.": "and similar",
    "i. d. R.": "as a rule", "s. o.": "see above", "s. u.": "see below", "v. a.": "above all",
    "u. v. m.": "and much more", "o. g.": "above-mentioned", "bzgl.": "regarding",
    "mind.": "at least", "z. Hd.": "attn.", "Abb.": "Fig.", "Abs.": "para.",
    "Tel.": "Tel.", "v. Chr.": "BC", "n. Chr.": "AD", "MwSt.": "VAT", "USt.": "VAT", "einschl.": "incl.",
}
# Before a number only: "Nr. 5" -> "No. 5", "S. 12" -> "p. 12" ("S." alone is many things).
_BEFORE_NUMBER = {"Nr.": "No.", "S.": "p.", "Kap.": "ch."}
# After a number only: "5 Mio. Euro" -> "5 million euros", "2 Std." -> "2 hours" ("1 Std." -> "1
# hour"); alone, "Min." and "Std." have other readings (Minister, Standard).
_MULTIPLIERS = {"Tsd.": "thousand", "Mio.": "million", "Mrd.": "billion"}
_UNITS = {"Std.": "hours", "Min.": "minutes", "Sek.": "seconds"}
_AFTER_NUMBER = {**_MULTIPLIERS, **_UNITS}
_THIN = "[ \t\u00a0\u202f]"
# Abbreviations the model reads best written out, in German words it knows well: a conjunction or
# an adverb as a span reads like a noun ("Er kommt heute bzw. morgen." -> "He will come today or.",
# "zwei bzw. drei Zimmer" -> "two or's room"); written out, "today or tomorrow", "two or three rooms".
_RESPELLINGS = {"bzw.": "oder", "evtl.": "vielleicht", "u. U.": "möglicherweise", "z. T.": "teilweise",
               "zzt.": "zurzeit", "z. Zt.": "zurzeit"}


def _abbreviation_rx(abbreviation: str) -> str:
    parts = abbreviation[:-1].split(". ")
    first = parts[0]
    head = f"[{first[0]}{first[0].upper()}]" if first[0].islower() else re.escape(first[0])
    return head + re.escape(first[1:]) + "".join(rf"\.{_THIN}?{re.escape(p)}" for p in parts[1:]) + r"\."


def _abbreviation_table() -> tuple[re.Pattern[str], dict[str, str]]:
    english = {}
    alternatives = []
    for table, before, after in ((_ABBREVIATIONS, "", ""), (_BEFORE_NUMBER, "", rf"(?={_THIN}?[0-9])"),
                                 (_AFTER_NUMBER, rf"(?<=[0-9]{_THIN})", "")):
        for german, target in sorted(table.items(), key=lambda item: -len(item[0])):
            english[german.replace(" ", "")] = target
            alternatives.append(before + _abbreviation_rx(german) + after)
    return re.compile(rf"(?<![\w.])(?:{'|'.join(alternatives)})(?!\w)"), english


_ABBREVIATION_RE, _ABBREVIATION_ENGLISH = _abbreviation_table()
_RESPELLING_RE = re.compile(rf"(?<![\w.-])(?:{'|'.join(map(_abbreviation_rx, _RESPELLINGS))})(?![\w-])")
_RESPELLING = {german.replace(" ", ""): written for german, written in _RESPELLINGS.items()}
_SPACES = re.compile(_THIN)
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


# A clock time with "Uhr": its hour and minutes ("20:15 Uhr", "18.30 Uhr", "14 Uhr"), or its hour,
# "Uhr" and its minutes ("6 Uhr 30").
_CLOCK = re.compile(r"(?<![\w.,:])([01]?[0-9]|2[0-4])(?:[:.]([0-5][0-9]))?(?=[ \t\u00a0]+Uhr(?!\w))"
                    r"(?:[ \t\u00a0]+Uhr[ \t\u00a0]+([0-5][0-9])(?![\w:]|[.,][0-9]|[ \t]+Min))?")
# "halb acht" (half an hour before eight), with the hour as a word or in digits.
_HOURS = ("eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "elf", "zwölf")
_HALF = re.compile(rf"(?<!\w)[Hh]alb[ \t\u00a0]+({'|'.join(_HOURS)}|1[0-2]|[1-9])(?![\w:]|[.,][0-9])")
# A clock time in words: its hour, "Uhr" and perhaps its minutes ("vierzehn Uhr", "sechs Uhr fünfzehn").
_CLOCK_WORDS = re.compile(r"(?<![\w.,:])([^\W\d_]+)[ \t\u00a0]+Uhr(?:[ \t\u00a0]+([^\W\d_]+))?(?!\w)")
_DAY_PART = re.compile(r"[ \t\u00a0]+(morgens|früh|vormittags|mittags|nachmittags|abends|nachts)(?!\w)")
_UHR = re.compile(r"[ \t\u00a0]+Uhr")
# English times that "o'clock" does not follow ("8:15 p.m.", "noon"), and ranges ending in one
# ("9 a.m.–6 p.m.", "8–10 p.m.": ``with_ranges``).
_ENGLISH_TIME = r"(?:[0-9]{1,2}:[0-9]{2}(?: [ap]\.m\.)?|[0-9]{1,2} [ap]\.m\.|noon|midnight)"
_NO_OCLOCK = re.compile(rf"(?:(?:{_ENGLISH_TIME}|[0-9]{{1,2}}(?::[0-9]{{2}})?){_THIN}?–{_THIN}?)?{_ENGLISH_TIME}")


def english_clock_time(hour: int, minutes: str | None = None) -> str | None:
    """A German clock time (24 hours) as English writes it: 14 -> "2 p.m.", 20:15 -> "8:15 p.m.", 0:30
    -> "12:30 a.m.", 12 -> "noon", 24 -> "midnight", 9:30 -> "9:30". None for a morning hour without
    minutes, which stays a number ("um 8 Uhr" -> "at 8 o'clock", as German often means an evening
    hour by it too), and for no time (24:30, 25)."""
    if not 0 <= hour <= 24 or hour == 24 and minutes:
        return None
    if not minutes:
        return {0: "midnight", 12: "noon", 24: "midnight"}.get(hour) or (f"{hour - 12} p.m." if hour > 12 else None)
    if hour in (0, 12):
        return f"12:{minutes} {'a.m.' if hour == 0 else 'p.m.'}"
    return f"{hour - 12}:{minutes} p.m." if hour > 12 else f"{hour}:{minutes}"


def takes_no_oclock(english: str) -> bool:
    """Whether ``english`` is a clock time after which "o'clock" is wrong ("8:15 p.m.", "noon")."""
    return _NO_OCLOCK.fullmatch(english) is not None


# The prepositions that open a country phrase's English (``_country_phrase``: "of Turkey", "to Turkey").
_COUNTRY_PREPOSITIONS = ("of", "to")


def leading_preposition(english: str) -> str | None:
    """The preposition a country phrase's English opens with ("of Turkey", "to Turkey":
    ``_country_phrase``), which the model may write before the placeholder too ("The capital of
    ⦅X1⦆" came out as "The capital of of Turkey"); else None."""
    first, _, rest = english.partition(" ")
    return first if rest and first in _COUNTRY_PREPOSITIONS else None


def wrong_before(word: str, english: str) -> bool:
    """Whether ``word``, written by the model right before a span whose English is ``english``, is
    wrong there: the preposition a country phrase opens with (``leading_preposition``), or "the"
    before a date written day first ("am 1. Januar 2000" -> "on the ⦅N1⦆", ⦅N1⦆ "1 January 2000")."""
    word = word.lower()
    return word == leading_preposition(english) or word == "the" and _DAY_FIRST.match(english) is not None


_DAY_FIRST = re.compile(rf"[0-9]{{1,2}} (?:{'|'.join(MONTHS.values())})(?![\w])")


def with_clock_times(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with the time before "Uhr" as one span of kind "time" written in English
    (``english_clock_time``) in place of its number or time span; "Uhr" stays with the model, and
    the "o'clock" it writes after such a time goes (``words.restore_words``). "6 Uhr 30" is one span,
    "6:30", and so is "halb acht", "7:30". In words too: "zwanzig Uhr" -> "8 p.m.", "sechs Uhr
    fünfzehn" -> "6:15"; a morning hour alone ("acht Uhr", "8 Uhr") is the model's. A part of the
    day after it joins the span ("acht Uhr abends" -> "8 p.m.", "12 Uhr mittags" -> "noon", "um 6
    Uhr früh" -> "6 a.m."). The model wrote "um 14 Uhr" as "at 14", "um 20:15 Uhr" as "at 20:15
    o'clock", "um halb acht" as "at 2:30" (Tatoeba's "halb drei"), "um sechzehn Uhr" as "at
    sixteen", and "noon a.m." for a span "noon" before "mittags"."""
    if "Uhr" not in text and "alb" not in text:
        return list(spans)
    found = []
    for match in _HALF.finditer(text):
        hour = match[1]
        before = (_HOURS.index(hour) if hour in _HOURS else int(hour) - 1) or 12  # halb eins: 12:30
        english = f"{before}:30"
        if not any(s.start < match.end() and match.start() < s.end and s.kind != "number" for s in spans):
            found.append(Span(match.start(), match.end(), "time", match[0], english))
    clocks = []  # (start, end, hour, minutes, end of "Uhr" or of the minutes after it)
    for match in _CLOCK.finditer(text):
        after = match.end() if match[3] else _UHR.match(text, match.end()).end()
        clocks.append((*match.span(), int(match[1]), match[2] or match[3], after, True))
    for match in _CLOCK_WORDS.finditer(text):
        hour, minutes = clock_number(match[1]), number_word(match[2]) if match[2] else None
        if hour is None or hour > 24:
            continue
        if minutes is not None and minutes[0] < 60:  # "sechs Uhr fünfzehn": one span, "6:15"
            clocks.append((*match.span(), hour, f"{minutes[0]:02d}", match.end(), False))
        else:  # not "ein": "um sechs Uhr ein(schlafen)"
            clocks.append((*match.span(1), hour, None, _UHR.match(text, match.end(1)).end(), False))
    for start, end, hour, minutes, after, digits in clocks:
        english = english_clock_time(hour, minutes)
        if minutes and english is None and hour < 24:
            english = f"{hour}:{minutes}"
        if (part := _DAY_PART.match(text, after)) is not None:
            english, end = day_part_time(hour, minutes, part[1]), part.end()
        if english is None or any(s.start < end and start < s.end and not (digits and start <= s.start and s.end <= end)
                                  for s in [*spans, *found]):
            continue
        found.append(Span(start, end, "time", text[start:end], english))
    return merge(spans, found)


def day_part_time(hour: int, minutes: str | None, part: str) -> str | None:
    """A German clock time with a part of the day ("acht Uhr abends") as English writes it: "8
    p.m."; None where the hour does not belong to that part ("20 Uhr morgens")."""
    time = f"{hour % 12 or 12}" + (f":{minutes}" if minutes else "")
    if part in ("morgens", "früh", "vormittags") and 1 <= hour <= 11:
        return f"{time} a.m."
    if part == "mittags" and hour in (12, 13, 14):
        return "noon" if hour == 12 and not minutes else f"{time} p.m."
    if part in ("nachmittags", "abends") and (1 <= hour <= 11 or 13 <= hour <= 23):
        return f"{time} p.m."
    if part == "nachts" and hour in (0, 12, 24) and not minutes:
        return "midnight"
    if part == "nachts" and (1 <= hour <= 5 or 9 <= hour <= 11 or 21 <= hour <= 23):
        return f"{time} {'a.m.' if hour <= 5 else 'p.m.'}"
    return None


_AMOUNT_NUMBER = rf"[0-9]+(?:[.,][0-9]+)*{_NUM_END}"
_MULTIPLIER = rf"(?:{_THIN}({'|'.join(m[:-1] for m in _MULTIPLIERS)})\.)?"  # "5 Mio. €"
# An amount in euros, the sign after the number or before it ("49,99 €", "€ 5", "3 Mrd. €").
_EUROS = re.compile(rf"(?<![\w.,])(?:({_AMOUNT_NUMBER}){_MULTIPLIER}[ \t\u00a0]?€"
                    rf"|€[ \t\u00a0]?({_AMOUNT_NUMBER}){_MULTIPLIER}(?!\w))")
# "minus" before a number ("minus 5 Grad").
_MINUS = re.compile(rf"(?<!\w)[Mm]inus[ \t\u00a0]+({_AMOUNT_NUMBER})")


def with_amounts(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with an amount in euros as one span of kind "amount", written as English writes it
    ("49,99 €" -> "€49.99", "3 Mrd. €" -> "€3 billion"), and "minus" with its number as a number
    span ("minus 5"), each in place of its number span. The model dropped both now and then:
    "Bitte überweisen Sie 100 € bis Freitag." -> "Please assign 100 until Friday.", "Es sind minus
    5 Grad." -> "There are 5 degrees."."""
    if "€" not in text and "inus" not in text:
        return list(spans)
    found = []
    for match in _EUROS.finditer(text):
        multiplier = match[2] or match[4]  # "Mio", "Mrd" or None
        english = "€" + english_number(match[1] or match[3])
        if multiplier:
            english += " " + _AFTER_NUMBER[multiplier + "."]
        found.append(Span(match.start(), match.end(), "amount", match[0], english))
    for match in _MINUS.finditer(text):
        found.append(Span(match.start(), match.end(), "number", match[0], "minus " + english_number(match[1])))
    return merge(spans, [f for f in found if not any(s.start < f.end and f.start < s.end and s.kind != "number"
                                                       for s in spans)])


_GROUPED = re.compile(r"([-+−]?)([0-9]{1,3}(?:\.[0-9]{3})+)(?:,([0-9]+))?")
_DECIMAL_COMMA = re.compile(r"([-+−]?[0-9]+),([0-9]+)")
_NUMBER = re.compile(r"[-+−]?[0-9]+(?:[.,][0-9]+)*")


# The dash of a range between two numbers: an en dash, perhaps spaced ("3–5", "10 – 15"). A hyphen
# ("3-5") makes one code span already.
_RANGE_DASH = re.compile(f"{_THIN}?\u2013{_THIN}?")


def with_ranges(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with each range of two numbers joined by an en dash as one span, written with the
    dash as the source writes it: "3–5" -> "3–5", "1,5–2" -> "1.5–2"; of amounts (kind "amount",
    ``with_amounts``) "10–15 €" -> "€10–15", "10 € – 15 €" -> "€10 – €15"; of hours whose end is
    a clock time (kind "time", ``with_clock_times``) "9–18 Uhr" -> "9 a.m.–6 p.m.", "20–22 Uhr" ->
    "8–10 p.m.". As two spans, the model lost or spaced the dash ("innerhalb von 3–5 Werktagen" ->
    "within 3 -5 workdays", "10–15 €" -> "10–€15", "9–18 Uhr" -> "9 - 6 p.m. clock"). A range of
    weekdays is one span too ("Mo–Fr" -> "Mon–Fri", which the model wrote "MoFr")."""
    if "\u2013" not in text and "-" not in text and "/" not in text:
        return list(spans)
    out: list[Span] = []
    for span in spans:
        before = out[-1] if out else None
        if before is None or not _RANGE_DASH.fullmatch(text, before.end, span.start):
            out.append(span)
            continue
        dash, first, last = text[before.end:span.start], replacement(before), replacement(span)
        kinds = (before.kind, span.kind)
        if kinds == ("number", "amount"):  # the amount's sign before the whole range
            first, last = "€" + first, last.removeprefix("€")
        elif kinds in (("number", "time"), ("time", "time")) and span.target is not None:
            first = _range_start(before.text, last)
        elif kinds not in (("number", "number"), ("amount", "amount")) or _UHR.match(text, span.end):
            first = None  # a morning hour before "Uhr" ("8–10 Uhr") is the model's, as "8 Uhr" is
        if first is None:
            out.append(span)
            continue
        out[-1] = Span(before.start, span.end, span.kind, text[before.start:span.end], first + dash + last)
    days = [Span(m.start(), m.end(), "abbreviation", m[0], _WEEKDAYS[m[1]] + m[2] + _WEEKDAYS[m[3]])
            for m in _WEEKDAY_RANGE.finditer(text)]
    return merge(out, [d for d in days if not any(s.start < d.end and d.start < s.end for s in out)])


_START_HOUR = re.compile(r"([01]?[0-9]|2[0-3])(?:[:.]([0-5][0-9]))?")
_WEEKDAYS = {"Mo": "Mon", "Di": "Tue", "Mi": "Wed", "Do": "Thu", "Fr": "Fri", "Sa": "Sat", "So": "Sun"}
# Two weekdays' abbreviations joined by a dash or a slash ("Mo–Fr", "Mo.-Fr.", "Sa/So"); alone,
# "So" and "Do" are words.
_WEEKDAY_RANGE = re.compile(rf"(?<![\w.])({'|'.join(_WEEKDAYS)})\.?({_THIN}?[–/-]{_THIN}?)({'|'.join(_WEEKDAYS)})"
                            rf"(?:\.(?=[ \t\u00a0]*[\w(]))?(?![\w-])")


def _range_start(text: str, end: str) -> str | None:
    """The start of a range of hours, ``text`` ("9", "9:30", "20"), in English beside its end
    ``end`` ("6 p.m."): "9 a.m.", "9:30 a.m.", "8" where both are p.m. ("8–10 p.m."); None for
    no hour."""
    match = _START_HOUR.fullmatch(text)
    if match is None:
        return None
    hour, minutes = int(match[1]), match[2]
    english = english_clock_time(hour, minutes) or f"{hour} a.m."  # a morning hour alone: None
    if 0 < hour < 12 and not english.endswith("m."):
        english += " a.m."  # "9:30"
    for part in (" a.m.", " p.m."):
        if english.endswith(part) and end.endswith(part) and ":" not in english:
            return english.removesuffix(part)
    return english


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
    """Replace ``spans`` (from ``find_spans(text)``) by placeholders numbered per family.

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


_CLOSING = ".,;:!?)]}»“”…"


def restore(output: str, masked: Masked, oclock: frozenset[str] | None = None) -> str:
    """Put the spans back into the model's ``output``; drop placeholders the source lacks.
    ``oclock``: ``oclock_spans(masked)``, where the caller restores many outputs of one text.

    Known placeholders are substituted in one pass, so a restored span that itself looks like a
    placeholder stays. Unknown ones become a private-use marker first, then each run of markers
    goes with its spaces: no double space, no space before punctuation. (Restored spans never
    begin or end with whitespace, so that tidying cannot reach into them.)
    """
    marker = next(chr(c) for c in range(0xE000, 0xF900)
                  if chr(c) not in output and all(chr(c) not in v for v in masked.slots.values()))
    text = PLACEHOLDER_RE.sub(lambda m: masked.slots.get(m[0], marker),
                              _fitted(output, masked.slots, oclock_spans(masked) if oclock is None else oclock))

    def tidy(match: re.Match[str]) -> str:
        following = text[match.end():match.end() + 1]
        if match.start() == 0 or not following or following in _CLOSING:
            return ""
        return " " if match[0].strip(marker) else ""

    return re.sub(rf"[ \t]*{marker}(?:[ \t]*{marker})*[ \t]*", tidy, text)


_AFTER_SPAN = re.compile(rf"(?:(?<![\w'’])({'|'.join((*_COUNTRY_PREPOSITIONS, 'the'))})[ \t]+)?(⦅[NX][0-9]+⦆)"
                         r"([ \t]*o['’]clock(?![\w'’]))?(\.(?!\.))?", re.IGNORECASE)


def _fitted(output: str, slots: dict[str, str], oclock: frozenset[str]) -> str:
    """``output`` without what a span's English says already or makes wrong: the word before it
    that ``wrong_before`` names ("of ⦅X1⦆", ⦅X1⦆ "of Turkey"; "the ⦅N1⦆", ⦅N1⦆ "1 May"), "o'clock"
    after a span not in ``oclock`` (``oclock_spans``: not after a clock time that takes none, "at
    ⦅N1⦆ o'clock", ⦅N1⦆ "8:15 p.m.", nor after a date), and a stop after one that ends with a
    stop (as ``words.restore_words`` does word by word)."""
    def fit(match: re.Match[str]) -> str:
        english = slots.get(match[2], "")
        before = match[0][:match.start(2) - match.start()]
        if match[1] and wrong_before(match[1], english):
            before = ""
        oclock_text = match[3] if match[3] and match[2] in oclock else ""
        stop = match[4] if match[4] and (oclock_text or not english.endswith(".")) else ""
        return before + match[2] + oclock_text + stop
    return _AFTER_SPAN.sub(fit, output) if "⦆" in output else output


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


def oclock_spans(masked: Masked) -> frozenset[str]:
    """The placeholders that an "o'clock" may follow in the output: those the source follows with
    "Uhr" whose English is not a clock time already ("um ⦅N1⦆ Uhr", ⦅N1⦆ "8": "at 8 o'clock"; "der
    ⦅N1⦆-Uhr-Zug": "the 7 o'clock train").
    After any other the model had put it in the wrong place: "am 12.03.2025 um 14:30 Uhr" ->
    "at ⦅N1⦆ o'clock at ⦅N2⦆", ⦅N1⦆ "12.03.2025", ⦅N2⦆ "2:30 p.m."."""
    return frozenset(m[1] for m in _BEFORE_UHR.finditer(masked.text)
                     if m[1] in masked.slots and not takes_no_oclock(masked.slots[m[1]]))


_BEFORE_UHR = re.compile(r"(⦅[NX][0-9]+⦆)(?:[ \t\u00a0]+|[-\u2011])Uhr(?!\w)")  # "8 Uhr", "der 7-Uhr-Zug"


def check(output: str, masked: Masked) -> tuple[list[str], list[str]]:
    """Placeholders the output has fewer / more of than the masked source, in source order."""
    found: dict[str, int] = {}
    for symbol in PLACEHOLDER_RE.findall(output):
        found[symbol] = found.get(symbol, 0) + 1
    missing = [s for s, n in masked.counts.items() if found.get(s, 0) < n]
    duplicated = [s for s, n in masked.counts.items() if found.get(s, 0) > n]
    return missing, duplicated
