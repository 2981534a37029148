"""The fake translate function of the document tests: ``Upper`` upper-cases every word in place
(each aligned to itself) or follows an explicit table, so that what is under test is where text,
runs and formatting end up; the model itself is used end to end in tests/app/test_files.py.
"""

from __future__ import annotations

import re

from model.inference.alignment import AlignedText
from pipeline.language_pair import DE_EN, LanguagePair
from pipeline.markup import translate_html


def words(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\w+|[^\w\s]", text)]


class Upper:
    """Every word upper-cased in place and aligned to itself; records each call."""

    def __init__(self, table: dict[str, tuple[str, list[tuple[int, int]]]] | None = None,
                 languages: LanguagePair = DE_EN) -> None:
        self.table = table or {}
        self.languages = languages   # as the service's translate function: the lang attributes' pair
        self.calls: list[tuple[list[str], bool]] = []

    def aligned(self, texts: list[str]) -> list[AlignedText]:
        out = []
        for text in texts:
            target, links = self.table.get(text, (text.upper(), [(i, i) for i in range(len(words(text)))]))
            out.append(AlignedText(text, target, words(text), words(target), sorted(links)))
        return out

    def __call__(self, texts: list[str], html: bool = False) -> list[str]:
        self.calls.append((list(texts), html))
        return translate_html(texts, self.aligned, self.languages) if html else [t.upper() for t in texts]


# "gar nicht" -> "not ... at all": bold goes on "at all", not on everything from "not" to "all"
SPLIT = {"Das hat mir gar nicht gefallen.": ("I did not like that at all.",
                                              [(0, 2), (1, 1), (2, 4), (3, 5), (4, 0), (5, 3), (6, 3), (7, 6)])}


# "Ich habe das Buch gelesen." -> "I have read the book.": "gelesen" moves
MOVING = {"Ich habe das Buch gelesen.": ("I have read the book.", [(0, 0), (1, 1), (2, 4), (3, 2), (4, 3), (5, 5)])}


# "Freitag, dem 12. Juli feiern wir unser Sommerfest." -> "Friday, we will celebrate 12 July ...": the
# words of "Freitag, dem 12. Juli" come out in two pieces, the date after the verb; no credible place
FRIDAY = {"Freitag, dem 12. Juli feiern wir unser Sommerfest.": (
    "Friday, we will celebrate 12 July with our summer party.",
    [(0, 0), (1, 1), (2, 2), (2, 7), (3, 6), (4, 6), (5, 3), (5, 4), (6, 5), (8, 8), (9, 9), (10, 9), (11, 10)])}
