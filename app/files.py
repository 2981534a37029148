"""LibreTranslate's file translation: ``POST /translate_file`` and ``GET /download_file/<name>``.

As in LibreTranslate, the upload (multipart: ``file``, ``source``, ``target``, ``api_key``) is
answered with ``{"translatedFileUrl": ...}``, an absolute URL ending in
``/download_file/<token>.<name>_<target><ext>``; what follows the first dot is the name the file
is downloaded as. The translated file waits in the bounded store (``filestore.py``) and is served
once. Uploads are only read as text or as a .docx's XML (``pipeline.documents``), and nothing in
them is run; this module never writes them anywhere (Werkzeug spools a body over 500 kB to an
anonymous temporary file while parsing it, bounded by MAX_CONTENT_LENGTH).
"""

from __future__ import annotations

import io
import os
import re
import unicodedata

from flask import Blueprint, current_app, jsonify, request, send_file, url_for
from werkzeug.datastructures import FileStorage

from pipeline.documents import FORMATS, DocumentError, DocumentTooLarge

from . import api, validation
from .filestore import StoreFull, get_store
from .service import get_service
from .validation import ApiError

bp = Blueprint("files", __name__)
bp.after_request(api.allow_cross_origin)

MIMETYPES = {".txt": "text/plain", ".html": "text/html",
             ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}
NOT_SUPPORTED = f"Invalid request: file format not supported; use {', '.join(FORMATS[:-1])} or {FORMATS[-1]}"
GONE = "Not found: no such file; a translated file can be downloaded once, within {ttl} seconds"
_UNSAFE = re.compile(r"[^\w.-]+")   # \w is Unicode: German names keep their umlauts
_MAX_STEM = 100


def extension_of(filename: str | None) -> str:
    """The upload's extension, lower case; ApiError when there is no name or no supported one."""
    if not filename:
        raise ApiError(400, "Invalid request: empty file")
    extension = os.path.splitext(filename)[1].lower()
    if extension not in FORMATS:
        raise ApiError(400, NOT_SUPPORTED)
    return extension


def download_name(filename: str, target: str) -> str:
    """LibreTranslate's name for the result, ``<stem>_<target><ext>``, with a safe stem: no path,
    no separators or control characters, at most 100 characters."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    stem, extension = os.path.splitext(unicodedata.normalize("NFC", base))
    stem = _UNSAFE.sub("_", stem).strip("._")[:_MAX_STEM] or "file"
    return f"{stem}_{target}{extension.lower()}"


def read_upload(upload: FileStorage, limit: int) -> bytes:
    data = upload.stream.read(limit + 1)   # never more than the limit in memory
    if len(data) > limit:
        raise ApiError(413, f"Invalid request: the file is over the limit of {limit} bytes")
    if not data:
        raise ApiError(400, "Invalid request: empty file")
    return data


@bp.post("/translate_file")
def translate_file():
    params = validation.request_params(request)
    config = current_app.config
    validation.check_api_key(params.get("api_key"), config["API_KEYS"])
    upload = request.files.get("file")
    if upload is None:
        raise ApiError(400, "Invalid request: missing file parameter")
    source, target = params.get("source"), params.get("target")
    validation.parse_languages(source, target)
    extension = extension_of(upload.filename)
    data = read_upload(upload, config["MAX_FILE_BYTES"])
    try:
        translated = get_service().translate_document(extension, data, config["MAX_FILE_CHARS"])
    except DocumentTooLarge as exc:
        raise ApiError(413, f"Invalid request: {exc}") from None
    except DocumentError as exc:
        raise ApiError(400, f"Invalid request: {exc}") from None
    name = download_name(upload.filename, target)
    try:
        token = get_store().put(translated, name)
    except StoreFull as exc:
        raise ApiError(413, f"Invalid request: {exc}") from None
    return jsonify({"translatedFileUrl": url_for("files.download_file", filename=f"{token}.{name}",
                                                 _external=True)})


@bp.get("/download_file/<filename>")
def download_file(filename: str):
    token, _, name = filename.partition(".")
    # HEAD (link checkers, download managers probing the size) must not use up the one download.
    stored = get_store().take(token, name, consume=request.method != "HEAD")
    if stored is None:
        raise ApiError(404, GONE.format(ttl=current_app.config["FILE_TTL"]))
    extension = os.path.splitext(stored.name)[1]
    # Not conditional: a Range request would be answered with a part, and the rest would be gone.
    response = send_file(io.BytesIO(stored.data), mimetype=MIMETYPES.get(extension, "application/octet-stream"),
                         as_attachment=True, download_name=stored.name, conditional=False)
    response.headers["Cache-Control"] = "no-store"
    # An attachment, and should a browser render it anyway (a translated .html keeps its scripts
    # as written): sandboxed, with nothing allowed to load.
    response.headers["Content-Security-Policy"] = "sandbox; default-src 'none'"
    return response
