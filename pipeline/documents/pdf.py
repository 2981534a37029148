""".pdf: the text of each page, extracted with pypdf (BSD), translated into a .docx (python-docx).

A PDF is a page description, not a text with a structure: pypdf extracts each page's text as
lines, and the translation comes back as a .docx, one paragraph per paragraph found and each page
after the first starting on a new page. Layout, columns, fonts, pictures, tables, links and
annotations are lost; the .docx names the target language. Paragraphs are found from the lines (``pdf_paragraphs``): a blank line ends
one, and so does a line clearly shorter than the page's longest (the last line of a paragraph, a
heading, a list item) unless the next begins in lower case; a word hyphenated at a line's end is
joined again ("Zusammen-" "fassung"), unless the next line goes on with "und", "oder" ... as
German coordination does ("Ein- und Ausgang"). A PDF encrypted with a password is refused (one
only restricted by its owner, with an empty user password, is read); pages beyond MAX_PARTS
(``zips``) are refused. A PDF without text (scanned pages) is refused: it needs OCR first.

Pages are read one at a time, and reading stops as soon as the text passes the budget's characters
or time: pypdf's visitor sees each piece of text as it is shown (and each form drawn), so even one
page's text is counted while it is extracted, and the time is checked at each operator. Only the
parsing of a content stream, which comes first, cannot be stopped, and pages may share one
stream, which pypdf parses again for each (a few microseconds a token, in pure Python). So what
one stream may unpack to is MAX_PDF_STREAM_BYTES and how much of it may be parsed
MAX_PDF_STREAM_TOKENS (pypdf's own limits, 75 MB and 2 million tokens, mean up to a minute for one
page; a page of text has a few thousand), set through pypdf's configuration where it has one
(pypdf 6 and later); and the pages' content together, a stream that pages share counted for each,
is at most MAX_PDF_CONTENT_BYTES, checked before each page is parsed. The longest a PDF can take
is then the time budget and one stream's parsing.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
from dataclasses import fields
from typing import Any

from ..language_pair import DE_EN, LanguagePair
from . import zips
from .base import Budget, Document, DocumentError, DocumentTooLarge, Unit
from .word import name_target

MAX_PDF_STREAM_BYTES = 4 * 1024 * 1024   # what one PDF stream may unpack to (pypdf's own: 75 MB)
MAX_PDF_CONTENT_BYTES = 8 * 1024 * 1024  # the pages' content streams together, a shared one for each page
MAX_PDF_STREAM_TOKENS = 500_000          # what pypdf may parse of one content stream (its own: 2,000,000)

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")   # nor .docx text
_HYPHENATED = re.compile(r"[^\W\d_]-$")
_COORDINATIONS = frozenset(("und", "oder", "bis", "bzw.", "sowie", "als", "wie"))
_SHORT_LINE = 0.75
_PDF_UNCOUNTED = re.compile(r"[\s\-]|" + _NOT_XML.pattern)   # what pdf_paragraphs may drop
_PDF_STREAM_LIMITS = ("zlib_maximum_output_length", "lzw_maximum_output_length", "run_length_maximum_output_length",
                      "array_based_stream_maximum_output_length", "brotli_maximum_output_length")


def pdf_paragraphs(text: str) -> list[str]:
    """The paragraphs in a page's extracted ``text``, each on one line (see the module's notes)."""
    lines = [" ".join(line.split()) for line in _NOT_XML.sub("", text).split("\n")]
    width = max(map(len, lines), default=0)
    paragraphs, current = [], ""
    for i, line in enumerate(lines):
        if not line:
            paragraphs.append(current)
            current = ""
            continue
        if not current:
            current = line
        elif not _HYPHENATED.search(current):
            current += " " + line
        elif line.split()[0] in _COORDINATIONS:
            current += " " + line
        else:
            current = (current[:-1] if line[0].islower() else current) + line
        follows = lines[i + 1] if i + 1 < len(lines) else ""
        if len(line) < _SHORT_LINE * width and not _HYPHENATED.search(line) and not follows[:1].islower():
            paragraphs.append(current)
            current = ""
    paragraphs.append(current)
    return [p for p in paragraphs if p]


def _pdf_too_complex() -> DocumentTooLarge:
    return DocumentTooLarge(f"the .pdf has a stream over the limits of reading PDFs: {MAX_PDF_STREAM_BYTES} bytes "
                            f"unpacked, {MAX_PDF_STREAM_TOKENS} tokens parsed")


def _pdf_limits() -> Any:
    """A context in which pypdf unpacks no stream to more than MAX_PDF_STREAM_BYTES and parses
    no more than MAX_PDF_STREAM_TOKENS of one (nothing changed with a pypdf without
    ``apply_configuration``, before 6)."""
    import pypdf

    apply = getattr(pypdf, "apply_configuration", None)
    if apply is None:
        return contextlib.nullcontext()
    known = {f.name for f in fields(pypdf.Configuration)}
    limits = {name: MAX_PDF_STREAM_BYTES for name in _PDF_STREAM_LIMITS}
    limits["stream_parsing_work_maximum_count"] = MAX_PDF_STREAM_TOKENS
    return apply(**{name: value for name, value in limits.items() if name in known})


class PdfDocument(Document):
    """A .pdf: the paragraphs found in each page's text, plain; written as a .docx."""

    def __init__(self, data: bytes, budget: Budget):
        with _pdf_limits():
            self._read(data, budget)

    def _read(self, data: bytes, budget: Budget) -> None:
        import pypdf
        from pypdf import errors
        from pypdf.errors import DependencyError

        too_much = getattr(errors, "LimitReachedError", ())   # pypdf 5.1 and later

        # pypdf warns of each flaw of the file it reads: a client's upload, not the server's state.
        logging.getLogger("pypdf").setLevel(logging.ERROR)
        try:
            reader = pypdf.PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                raise DocumentError("encrypted PDF: it needs a password to be opened")
            count = len(reader.pages)
        except DocumentError:
            raise
        except DependencyError:
            raise DocumentError("encrypted PDF: its encryption cannot be read here") from None
        except Exception:  # noqa: BLE001 -- whatever fails in parsing an upload is the upload's fault
            raise DocumentError("file is not a valid .pdf document") from None
        if count > zips.MAX_PARTS:
            raise DocumentTooLarge(f"the .pdf has {count} pages, over the limit of {zips.MAX_PARTS}")
        self.pages: list[list[str]] = []
        content = 0   # bytes of the pages' content streams, as parsed
        for page in reader.pages:
            budget.tick()
            try:
                contents = page.get_contents()
                content += len(contents.get_data()) if contents is not None else 0
            except too_much:
                raise _pdf_too_complex() from None
            except Exception:  # noqa: BLE001
                raise DocumentError("file is not a valid .pdf document") from None
            if content > MAX_PDF_CONTENT_BYTES:
                raise DocumentTooLarge(f"the .pdf's pages have more than {MAX_PDF_CONTENT_BYTES} bytes of content (a "
                                       f"stream that pages share counts for each), over the limit of "
                                       f"{MAX_PDF_CONTENT_BYTES}")
            seen = [budget.chars]   # at least the page's text so far, in what pdf_paragraphs keeps

            def shown(text: str, *_: Any) -> None:
                seen[0] += len(_PDF_UNCOUNTED.sub("", text))
                if budget.max_chars is not None and seen[0] > budget.max_chars:
                    budget.add(seen[0] - budget.chars)   # raises: over the limit, halfway through the page
                budget.tick()

            try:
                paragraphs = pdf_paragraphs(page.extract_text(visitor_text=shown,
                                                              visitor_operand_before=lambda *_: budget.tick()))
            except DocumentError:
                raise
            except too_much:
                raise _pdf_too_complex() from None
            except Exception:  # noqa: BLE001
                raise DocumentError("file is not a valid .pdf document") from None
            budget.add(sum(len(p) for p in paragraphs))
            self.pages.append(paragraphs)
        self.chars = sum(len(p) for page in self.pages for p in page)
        if not self.chars:
            raise DocumentError("the .pdf has no text to translate (scanned pages need OCR first)")

    def units(self) -> list[Unit]:
        return [Unit(p) for page in self.pages for p in page]

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        import docx  # imported here, as in word.py

        done = iter(translations)
        document = docx.Document()
        for number, page in enumerate(self.pages):
            paragraphs = [document.add_paragraph(_NOT_XML.sub("", next(done))) for _ in page] or [document.add_paragraph()]
            if number:
                paragraphs[0].paragraph_format.page_break_before = True
        name_target(document, languages)   # python-docx's template says en-US: German after en-de
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()
