""".json: a localization file (nested objects of strings, as i18next, FormatJS, vue-i18n and
Chrome's messages use): keys stay, string values are translated.

Localization files map keys (never translated: the program looks them up) to strings, nested in
objects (i18next, vue-i18n, FormatJS) or lists. Every string value with a letter is translated,
its format directives ({{name}}, {name}, %s, ICU plurals) protected by the pipeline. The file is
changed only inside those strings: keys, numbers, order, indentation and line breaks stay byte
for byte, but where the file names its language it names the translation's (``LanguagePair``):
a language tag as the value of a "locale", "@@locale" (Flutter's ARB), "language" or "lang" key is
not translated, and says the target ("de" -> "en", "de_DE" -> "en_US") where it named the source;
so does the one top-level key of a file that nests all its strings under their language
(i18next's and vue-i18n's {"de": {...}}). In Chrome's messages.json (every entry an object with
"message"), "description" is a note to translators and stays as written. A file nested over MAX_JSON_DEPTH deep is refused (a
400: it is no localization file), before Python's recursion limit would turn it into a 500.
"""

from __future__ import annotations

import json
import re

from ..language_pair import DE_EN, LanguagePair
from .base import BOM, Budget, Document, DocumentError, Unit, split_line, utf8

MAX_JSON_DEPTH = 100           # nesting of a .json: localization files are rarely over 10 deep

_JSON_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')
_JSON_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')   # linear on valid JSON only
_DESCRIPTION = "description"
_LOCALE_KEYS = frozenset(("locale", "@@locale", "language", "lang"))   # a value that names the file's language
_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")         # a language tag: "de", "en-GB", "de_AT"


def json_depth(text: str) -> int:
    """How deep the arrays and objects of the valid JSON ``text`` are nested (0: a scalar)."""
    depth = deepest = 0
    for match in _JSON_NESTING.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


class JsonStrings(Document):
    """A .json: each string value with a letter (Chrome's descriptions aside), in the file's order."""

    def __init__(self, data: bytes, budget: Budget):
        text = utf8(data)
        too_deep = DocumentError(f"the .json is nested more than {MAX_JSON_DEPTH} deep, over the limit of "
                                 f"{MAX_JSON_DEPTH} (localization files are rarely more than 10 deep)")
        try:
            tree = json.loads(text.removeprefix(BOM))
        except ValueError as exc:
            raise DocumentError(f"file is not valid JSON: {exc}") from None
        except RecursionError:   # deeper than Python's recursion limit: far over ours
            raise too_deep from None
        if json_depth(text) > MAX_JSON_DEPTH:
            raise too_deep
        chrome = isinstance(tree, dict) and bool(tree) and all(
            isinstance(v, dict) and "message" in v for v in tree.values())
        self.text = text
        self.values: list[tuple[int, int, str]] = []   # (start, end, decoded) of the strings to translate
        self.tags: list[tuple[int, int, str]] = []     # (start, end, decoded) of the tags that name a language
        # A file of one language's strings nested under it ({"de": {...}}): its first string is that key.
        nested = isinstance(tree, dict) and len(tree) == 1 and isinstance(next(iter(tree.values())), dict)
        key = None
        for match in _JSON_STRING.finditer(text):
            after = text[match.end():match.end() + 64].lstrip()
            decoded = json.loads(match.group())
            if after.startswith(":"):
                if nested and _TAG.fullmatch(decoded):
                    self.tags.append((match.start(), match.end(), decoded))
                nested, key = False, decoded
                continue
            if isinstance(key, str) and key.lower() in _LOCALE_KEYS and _TAG.fullmatch(decoded):
                self.tags.append((match.start(), match.end(), decoded))
            elif any(c.isalpha() for c in decoded) and not (chrome and key == _DESCRIPTION):
                budget.add(len(decoded))
                self.values.append((match.start(), match.end(), decoded))
            key = None
        self.chars = sum(len(value) for _, _, value in self.values)

    def units(self) -> list[Unit]:
        return [Unit(split_line(value)[1]) for _, _, value in self.values]

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        cores = [split_line(value) for _, _, value in self.values]
        changes = [(start, end, lead + text + trail)
                   for (start, end, _), (lead, _, trail), text in zip(self.values, cores, translations, strict=True)]
        changes += [(start, end, languages.retag(tag)) for start, end, tag in self.tags if languages.names_source(tag)]
        out, position = [], 0
        for start, end, value in sorted(changes):
            out += [self.text[position:start], json.dumps(value, ensure_ascii=False)]
            position = end
        out.append(self.text[position:])
        return "".join(out).encode("utf-8")
