""".po and .pot: a gettext catalog of a program written in the source language (German, or English
with a reverse model), read with polib (the parser of the data layer's gettext reader,
model.data.gettext); the output is the target language's catalog.

Each msgid (and msgid_plural) is translated into the msgstr (msgstr[0] and msgstr[1]: English
and German both have two plural forms), whatever language the msgstr held before; msgctxt,
comments, references, flags (fuzzy included) and obsolete entries are kept, and the header says
Language: en (or de) with the target's plural forms, the revision date and the machine
translation as the last translator. Format directives come back exactly, as spans of the pipeline
(pipeline.spans), so that GNU msgfmt -c accepts the result; a leading or trailing newline of a
msgid is kept on its msgstr, as msgfmt -c requires.
"""

from __future__ import annotations

import time

from ..language_pair import DE_EN, LanguagePair
from .base import BOM, Budget, Document, DocumentError, Unit, split_line, utf8

# The target's Plural-Forms header: one form for n == 1, the other for every other n, in both.
PLURAL_FORMS = {"en": "nplurals=2; plural=(n != 1);", "de": "nplurals=2; plural=(n != 1);"}


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
            if entry.msgid_plural:
                entry.msgstr, entry.msgstr_plural = "", {0: next(out), 1: next(out)}
            else:
                entry.msgstr = next(out)
        self.catalog.metadata["Language"] = languages.target
        self.catalog.metadata["PO-Revision-Date"] = time.strftime("%Y-%m-%d %H:%M+0000", time.gmtime())
        self.catalog.metadata["Last-Translator"] = "de-en-nmt machine translation"
        self.catalog.metadata["Content-Type"] = "text/plain; charset=UTF-8"
        if "Plural-Forms" in self.catalog.metadata or any(e.msgid_plural for e in self.entries):
            self.catalog.metadata["Plural-Forms"] = PLURAL_FORMS[languages.target]
        return str(self.catalog).encode("utf-8")
