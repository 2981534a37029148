""".po and .pot: a gettext catalog of a program written in the source language (German, or English
with a reverse model), read with polib (the parser of the data layer's gettext reader,
model.data.gettext); the output is the target language's catalog.

Each msgid (and msgid_plural) is translated into the msgstr (msgstr[0] and msgstr[1]: English
and German both have two plural forms), whatever language the msgstr held before; msgctxt,
comments, references, flags (fuzzy included) and obsolete entries are kept, and the header says
Language: en (or de) with the target's plural forms, the revision date and the machine
translation as the last translator. Format directives come back exactly, as spans of the pipeline
(pipeline.spans), so that GNU msgfmt -c accepts the result; a leading or trailing newline of a
msgid is kept on its msgstr, as msgfmt -c requires. Where the model put a c-format string's
directives in another order ("%s is %d" -> "%d ... %s", as word order differs between the
languages), they are numbered ("%2$d ... %1$s", ``in_argument_order``): each takes its own
argument again, which msgfmt -c checks and a C program needs not to crash.
"""

from __future__ import annotations

import re
import time

from ..language_pair import DE_EN, LanguagePair
from .base import BOM, Budget, Document, DocumentError, Unit, split_line, utf8

# The target's Plural-Forms header: one form for n == 1, the other for every other n, in both.
PLURAL_FORMS = {"en": "nplurals=2; plural=(n != 1);", "de": "nplurals=2; plural=(n != 1);"}


# A printf conversion of a c-format string ("%s", "%5.2f", "%1$s", "%%"), as GNU msgfmt reads it.
_C_DIRECTIVE = re.compile(r"%(?:([1-9][0-9]*)\$)?[-+ #0']*+(?:[0-9]++|\*)?(?:\.(?:[0-9]++|\*))?(?:hh|ll|[hljztLq])?"
                          r"([diouxXeEfFgGaAcspn%])")


def in_argument_order(msgid: str, msgstr: str) -> str:
    """``msgstr`` with its c-format directives numbered after ``msgid``'s arguments ("%2$d") where
    they are ``msgid``'s own in another order; as it is otherwise (the same order, other
    directives, or a msgid that numbers its own or takes a width or precision argument, "*")."""
    source = [m[0] for m in _C_DIRECTIVE.finditer(msgid) if m[2] != "%"]
    found = [m for m in _C_DIRECTIVE.finditer(msgstr) if m[2] != "%"]
    if ([m[0] for m in found] == source or sorted(m[0] for m in found) != sorted(source)
            or any("$" in d or "*" in d for d in source)):
        return msgstr
    unused: dict[str, list[int]] = {}   # a directive written twice: the first one left takes the first
    for number, directive in enumerate(source, 1):
        unused.setdefault(directive, []).append(number)
    pieces, position = [], 0
    for match in found:
        pieces += [msgstr[position:match.start()], f"%{unused[match[0]].pop(0)}${match[0][1:]}"]
        position = match.end()
    return "".join(pieces) + msgstr[position:]


class Catalog(Document):
    """A .po/.pot: each msgid and msgid_plural, without their leading and trailing whitespace."""

    def __init__(self, data: bytes, budget: Budget):
        import polib  # the parser of the data layer's gettext reader (model.data.gettext)

        text = utf8(data).removeprefix(BOM)
        try:
            self.catalog = polib.pofile(text, wrapwidth=78)
        except (OSError, ValueError) as exc:
            raise DocumentError(f"file is not a valid gettext catalog: {str(exc).strip()}") from None
        self.entries = [e for e in self.catalog if not e.obsolete and e.msgid]
        texts = [text for e in self.entries for text in ([e.msgid, e.msgid_plural] if e.msgid_plural else [e.msgid])]
        self.cores = [split_line(text) for text in texts]   # (lead, text to translate, trail), entry by entry
        self.chars = sum(len(e.msgid) + len(e.msgid_plural or "") for e in self.entries)
        budget.add(self.chars)

    def units(self) -> list[Unit]:
        return [Unit(core) for _, core, _ in self.cores if core]

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        done = iter(translations)
        out = iter(lead + (next(done) if core else core) + trail for lead, core, trail in self.cores)
        for entry in self.entries:
            c_format = "c-format" in entry.flags   # numbered directives are C's, not Python's
            sources = [entry.msgid, entry.msgid_plural] if entry.msgid_plural else [entry.msgid]
            texts = [in_argument_order(source, next(out)) if c_format else next(out) for source in sources]
            if entry.msgid_plural:
                entry.msgstr, entry.msgstr_plural = "", {0: texts[0], 1: texts[1]}
            else:
                entry.msgstr = texts[0]
        self.catalog.metadata["Language"] = languages.target
        self.catalog.metadata["PO-Revision-Date"] = time.strftime("%Y-%m-%d %H:%M+0000", time.gmtime())
        self.catalog.metadata["Last-Translator"] = "de-en-nmt machine translation"
        self.catalog.metadata["Content-Type"] = "text/plain; charset=UTF-8"
        if "Plural-Forms" in self.catalog.metadata or any(e.msgid_plural for e in self.entries):
            self.catalog.metadata["Plural-Forms"] = PLURAL_FORMS[languages.target]
        return str(self.catalog).encode("utf-8")
