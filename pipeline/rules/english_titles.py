"""A form of address before a name in an English source, in German: "Mr. Smith" → "Herr Smith",
"Mrs. Jones" → "Frau Jones", "Ms Anna Weber" → "Frau Anna Weber".

The model knows "Mr" and "Mrs" poorly ("Mrs. Smith" came out as "Die Männer. Smith", "Mr. Klaus" as
"Mr. Klaus" or "Der Klausur"); where it writes them well it also declines the title ("mit Herrn
Klaus"), which a span cannot. So the title and its name are a span in a second try only
(``Pipeline.second_try``): where the first translation lacks "Herr Klaus" (or "Herrn Klaus"), the
sentence is translated again with ``⦅X1⦆`` for "Herr Klaus" (bench/README.md, "English dates and
titles").
The name is one or two capitalized words ("Mr. John Smith"); a title before "and" or a lower-case
word is left to the model ("Mr. and Mrs. Smith").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import tables
from ..spans import Span, merge
from .base import Context, Rule

GERMAN_TITLES = tables.pairs("english_address_titles")
_TITLE = "|".join(sorted(map(re.escape, GERMAN_TITLES), key=len, reverse=True))
_WORD = r"[^\W\d_]+(?:['’-][^\W\d_]+)*"
_TITLE_RE = re.compile(rf"(?<![\w.])({_TITLE})(?!\w)")
_NAME = re.compile(rf"[ \t\u00a0]+({_WORD})(?:[ \t\u00a0]+({_WORD}))?")
# German declines "Herr" in the dative and accusative ("mit Herrn Klaus"): both are the title written.
_DECLINED = {"Herr": ("Herr", "Herrn")}


def addresses(text: str) -> list[Span]:
    """The titles with their names in ``text`` (an English sentence), each a span with its German."""
    found = []
    for title in _TITLE_RE.finditer(text):
        name = _NAME.match(text, title.end())
        if name is None or not name[1][0].isupper():
            continue
        end = name.end() if name[2] and name[2][0].isupper() else name.end(1)
        found.append(Span(title.start(), end, "name", text[title.start():end],
                          f"{GERMAN_TITLES[title[1]]} {text[name.start(1):end]}"))
    return found


def addresses_kept(text: str, translation: str) -> bool:
    """Whether ``translation`` writes every title of ``text`` in German before its name."""
    written = " ".join(translation.split())
    for span in addresses(text):
        title, _, name = span.target.partition(" ")
        forms = "|".join(map(re.escape, _DECLINED.get(title, (title,))))
        if not re.search(rf"(?<!\w)(?:{forms}) {re.escape(name)}(?!\w)", written):
            return False
    return True


class EnglishTitles(Rule):
    """The rule, for an English source, in a second try only (the module docstring): where the
    first try's translation did not write a title before a name as German does (``addresses_kept``)."""

    name = "english_titles"

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        if not context.second_try:
            return list(spans)
        taken = [s for s in spans if s.kind != "number"]
        return merge(spans, [a for a in addresses(text)
                             if not any(s.start < a.end and a.start < s.end for s in taken)])

    def first_try_checks(self, text: str) -> bool:
        return bool(addresses(text))

    def first_try_kept(self, text: str, translation: str) -> bool:
        return addresses_kept(text, translation)


RULE = EnglishTitles()
