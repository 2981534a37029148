"""The formats: from a file's extension to its reader, its media type and the extension of its
translation. Adding a format is one module with a ``Document`` subclass and one line here."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from . import epub, opendocument
from .base import READ_SECONDS, Budget, Document
from .catalog import Catalog
from .json_strings import JsonStrings
from .markdown import MarkdownDocument
from .pdf import PdfDocument
from .presentation import Presentation
from .subtitles import Subtitles
from .text import TextDocument
from .word import WordDocument

DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
GETTEXT_TYPE = "text/x-gettext-translation"


@dataclass(frozen=True)
class Format:
    """A file format: its ``extension`` (lower case, with the dot), its ``media_type`` (what a
    translated file is served as), its ``reader``, which parses a file's bytes within a budget into
    a ``Document``, and ``result``, the extension of its translation where it is another."""

    extension: str
    media_type: str
    reader: Callable[[bytes, Budget], Document]
    result: str | None = None

    @property
    def output_extension(self) -> str:
        return self.result or self.extension


REGISTRY: dict[str, Format] = {f.extension: f for f in (
    Format(".docx", DOCX_TYPE, WordDocument),
    Format(".epub", epub.MEDIA_TYPE, epub.Epub),
    Format(".html", "text/html", partial(TextDocument, html=True)),
    Format(".json", "application/json", JsonStrings),
    Format(".md", "text/markdown", MarkdownDocument),
    Format(".odp", opendocument.MEDIA_TYPES[".odp"], partial(opendocument.OpenDocument, extension=".odp")),
    Format(".odt", opendocument.MEDIA_TYPES[".odt"], partial(opendocument.OpenDocument, extension=".odt")),
    Format(".pdf", "application/pdf", PdfDocument, result=".docx"),   # the text of its pages, in a .docx
    Format(".po", GETTEXT_TYPE, Catalog),
    Format(".pot", GETTEXT_TYPE, Catalog),
    Format(".pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", Presentation),
    Format(".srt", "application/x-subrip", partial(Subtitles, extension=".srt")),
    Format(".txt", "text/plain", partial(TextDocument, html=False)),
    Format(".vtt", "text/vtt", partial(Subtitles, extension=".vtt")),
)}
FORMATS = tuple(sorted(REGISTRY))
SUPPORTED = f"{', '.join(FORMATS[:-1])} or {FORMATS[-1]}"   # the formats, as error messages list them


def extension(path: str) -> str:
    """The lower-case extension of ``path`` when it is one of ``FORMATS``; ValueError otherwise."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in REGISTRY:
        raise ValueError(f"{path!r}: unsupported file format; use {SUPPORTED}")
    return suffix


def output_extension(extension: str) -> str:
    """The extension of the translated file of an ``extension`` file: its own, or .docx for .pdf."""
    known = REGISTRY.get(extension)
    return known.output_extension if known is not None else extension


def media_type(extension: str) -> str | None:
    """The media type of files with ``extension`` (one of ``FORMATS``); None for any other."""
    known = REGISTRY.get(extension)
    return known.media_type if known is not None else None


def read(extension: str, data: bytes, max_chars: int | None = None, *,
         seconds: float | None = READ_SECONDS) -> Document:
    """The document in ``data`` for the extension (one of ``FORMATS``, lower case), with at most
    ``max_chars`` characters of text (None: no limit), read within ``seconds`` (None: no limit).
    ``DocumentTooLarge`` (a 413) as soon as the file passes a limit, the message naming it;
    ``DocumentError`` (a 400) for a file that is not what its extension says."""
    if extension not in REGISTRY:
        raise ValueError(f"unsupported extension {extension!r}; supported: {', '.join(FORMATS)}")
    return REGISTRY[extension].reader(data, Budget(extension, max_chars, seconds))
