"""What every document format shares: the ``Document`` protocol, the errors, the reading budget
and the helpers of more than one format.

A format is a ``Document`` subclass whose constructor reads the file's bytes within a ``Budget``
(raising ``DocumentError`` for a file that is not what its extension says, ``DocumentTooLarge``
for one over a limit) and sets ``chars``, the amount of text to translate. It then gives its
translatable ``units()`` (plain texts, or HTML fragments whose inline tags follow the words) and
``write``s the translated file from one translation per unit, naming the target language of the
``LanguagePair`` (``pipeline.language_pair``: de-en by default, or en-de) where the file named the
source language. ``Document.translate`` joins the two: one call of the translate function for the
plain units and one for the HTML ones, so all of a document's sentences go to the model in as few
batches as its kinds of text.

Every file is read within a budget, checked while it is parsed, not after: text is counted as it
is found (paragraph by paragraph, page by page, string by string) and reading stops with
``DocumentTooLarge`` as soon as it passes ``max_chars`` (None: no limit), or when reading has
taken over ``seconds`` (``READ_SECONDS``, 10; None: no limit); paragraphs, empty ones too, are
counted against MAX_PARAGRAPHS (.docx .odt .odp .pptx). The formats' own limits are where they
are enforced: ``zips`` (parts, unpacked bytes, XML tags), ``pdf`` (content streams) and
``json_strings`` (nesting). So a small upload cannot hold a worker for long: pypdf is pure Python
and keeps gunicorn's heartbeat alive, so its timeout would never stop it.
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from ..language_pair import DE_EN, LanguagePair

READ_SECONDS = 10.0            # read()'s default time budget, per file
MAX_PARAGRAPHS = 50_000        # paragraphs of a .docx .odt .odp .pptx, empty ones too (table cells)

Translate = Callable[..., list[str]]   # (texts, html=False) -> one translation per text
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")   # as app.validation: tab, LF, CR are layout
BOM = "\ufeff"


class DocumentError(ValueError):
    """The file is not what its extension says (a 400); the message says what is wrong."""


class DocumentTooLarge(DocumentError):
    """The file is bigger than a limit (a 413)."""


class Budget:
    """What reading one file may take: ``max_chars`` characters of text (None: any) and
    ``seconds`` of time (None: any), each checked as reading goes on; also MAX_PARAGRAPHS.
    ``label`` (the file's extension) names the file in the messages."""

    def __init__(self, label: str, max_chars: int | None = None, seconds: float | None = None):
        self.label = label
        self.max_chars = max_chars
        self.seconds = seconds
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self.chars = 0
        self.paragraphs = 0

    def add(self, chars: int) -> None:
        """``chars`` more characters of text found; DocumentTooLarge once over ``max_chars``."""
        self.chars += chars
        if self.max_chars is not None and self.chars > self.max_chars:
            raise DocumentTooLarge(f"the {self.label} has more than {self.max_chars} characters of text, over the "
                                   f"limit of {self.max_chars} characters per file")
        self.tick()

    def paragraph(self) -> None:
        """One more paragraph (with text or not) found; DocumentTooLarge over MAX_PARAGRAPHS."""
        self.paragraphs += 1
        self.check_paragraphs(self.paragraphs)

    def check_paragraphs(self, count: int) -> None:
        """DocumentTooLarge when ``count`` paragraphs are over MAX_PARAGRAPHS (or reading is over time)."""
        if count > MAX_PARAGRAPHS:
            raise DocumentTooLarge(f"the {self.label} has more than {MAX_PARAGRAPHS} paragraphs (empty ones "
                                   f"count too), over the limit of {MAX_PARAGRAPHS}")
        self.tick()

    def tick(self) -> None:
        """DocumentTooLarge once reading has taken over ``seconds``."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise DocumentTooLarge(f"reading the {self.label} took more than {self.seconds:g} seconds, over the "
                                   f"limit of {self.seconds:g} seconds per file: it is too large or too complex")


@dataclass(frozen=True)
class Unit:
    """One text of a document to translate: plain, or with ``html`` an HTML fragment whose inline
    tags follow its words (``pipeline.markup``)."""

    text: str
    html: bool = False


class Document(ABC):
    """A file read within its budget, to be translated: what every format provides."""

    chars: int   # the characters of text to translate, as counted against the budget

    @abstractmethod
    def units(self) -> list[Unit]:
        """The texts to translate, in the file's order (the same list each time it is asked)."""

    @abstractmethod
    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        """The translated file, from one translation per unit of ``units()``, in their order;
        where the file names ``languages.source``, it names ``languages.target``."""

    def translate(self, translate: Translate, languages: LanguagePair = DE_EN) -> bytes:
        """The translated file, ``translate`` (``(texts, html=False)``, translating from
        ``languages.source`` into ``languages.target``) called once for the plain units and then
        once for the HTML ones, each only where there are some."""
        units = self.units()
        translations = [""] * len(units)
        for html in (False, True):
            todo = [i for i, unit in enumerate(units) if unit.html == html]
            if not todo:
                continue
            texts = [units[i].text for i in todo]
            for i, translation in zip(todo, translate(texts, html=True) if html else translate(texts), strict=True):
                translations[i] = translation
        return self.write(translations, languages)


def utf8(data: bytes) -> str:
    """The text of a text format's file; DocumentError when it is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise DocumentError("file is not UTF-8 text") from None


def refuse_control(text: str) -> None:
    """DocumentError when ``text`` holds a control character other than tab, LF and CR."""
    bad = CONTROL.search(text)
    if bad:
        raise DocumentError(f"file contains a control character (U+{ord(bad.group()):04X})")


def split_line(line: str) -> tuple[str, str, str]:
    """(leading whitespace, text, trailing whitespace, with any "\\r")."""
    text = line.strip()
    lead = line[:len(line) - len(line.lstrip())]
    return lead, text, line[len(lead) + len(text):]


# The translation's language where a file names the source language (.docx, .odt/.odp, .epub), so
# that spelling checkers and screen readers treat the text as the target language: the package's
# <dc:language>de-DE</dc:language>, any prefix, any region. One pattern per language, at module
# level where tests/test_regex_guard.py runs it.
_DC_LANGUAGE = r"(<(?:[A-Za-z_][\w.-]*:)?language\b[^<>]*+>)[ \t\r\n]*+{}(?:[-_][A-Za-z0-9]+)*+[ \t\r\n]*+(</)"
DC_GERMAN = re.compile(_DC_LANGUAGE.format("de"), re.IGNORECASE)
DC_ENGLISH = re.compile(_DC_LANGUAGE.format("en"), re.IGNORECASE)
_DC_SOURCE = {"de": DC_GERMAN, "en": DC_ENGLISH}


def dc_language(xml: str, languages: LanguagePair = DE_EN) -> str:
    """``xml`` with a ``<dc:language>`` of the source language (any prefix, any region) naming the
    target alone ("de-DE" -> "en")."""
    return _DC_SOURCE[languages.source].sub(rf"\g<1>{languages.target}\g<2>", xml)
