"""Uploads for LibreTranslate's file translation (the views, ``POST /translate_file`` and
``GET /download_file/<name>``, are in ``libretranslate.py``).

As in LibreTranslate, the upload (multipart: ``file``, ``source``, ``target``, ``api_key``) is
answered with ``{"translatedFileUrl": ...}``, an absolute URL ending in
``/download_file/<token>.<name>_<target><ext>``; what follows the first dot is the name the file
is downloaded as. The translated file waits in the bounded store (``filestore.py``) and is served
once; a .pdf comes back as a .docx (``documents.output_extension``). Uploads are only read as
text, as the XML of their zips or by pypdf (``pipeline.documents``), and nothing in them is run;
this module never writes them anywhere (Werkzeug spools a body over 500 kB to an anonymous
temporary file while parsing it, bounded by MAX_CONTENT_LENGTH).
"""

from __future__ import annotations

import os
import re
import unicodedata

from werkzeug.datastructures import FileStorage

from pipeline import documents

from .validation import ApiError

NOT_SUPPORTED = f"Invalid request: file format not supported; use {documents.SUPPORTED}"
GONE = "Not found: no such file; a translated file can be downloaded once, within {ttl} seconds"
_UNSAFE = re.compile(r"[^\w.-]+")   # \w is Unicode: German names keep their umlauts
_MAX_STEM = 100


def extension_of(filename: str | None) -> str:
    """The upload's extension, lower case; ApiError when there is no name or no supported one."""
    if not filename:
        raise ApiError(400, "Invalid request: empty file")
    try:
        return documents.extension(filename)
    except ValueError:
        raise ApiError(400, NOT_SUPPORTED) from None


def download_name(filename: str, target: str) -> str:
    """LibreTranslate's name for the result, ``<stem>_<target><ext>``, with a safe stem: no path,
    no separators or control characters, at most 100 characters; ``<ext>`` is the result's (.docx
    for a .pdf)."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    stem, extension = os.path.splitext(unicodedata.normalize("NFC", base))
    stem = _UNSAFE.sub("_", stem).strip("._")[:_MAX_STEM] or "file"
    return f"{stem}_{target}{documents.output_extension(extension.lower())}"


def media_type(name: str) -> str:
    """What a translated file called ``name`` is served as (``documents.media_type``: its
    format's media type; any other, which the store never holds, as bytes)."""
    return documents.media_type(os.path.splitext(name)[1]) or "application/octet-stream"


def read_upload(upload: FileStorage, limit: int) -> bytes:
    data = upload.stream.read(limit + 1)   # never more than the limit in memory
    if len(data) > limit:
        raise ApiError(413, f"Invalid request: the file is over the limit of {limit} bytes")
    if not data:
        raise ApiError(400, "Invalid request: empty file")
    return data
