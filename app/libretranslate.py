"""LibreTranslate's API, every route its clients call: /translate, /languages, /detect,
/translate_file, /download_file, /frontend/settings and /spec.

Every view: parse -> validate -> call the service -> respond (the API key and the rate limit are
checked before, for every route that runs the model: ``limits.check_access``); errors are ``{"error": ...}`` like
the rest of the API (their paths are in ``api.API_PREFIXES``). Uploads are read by ``files.py``
and kept in the bounded store (``filestore.py``) until their one download.
"""

from __future__ import annotations

import io

from flask import Blueprint, current_app, jsonify, request, send_file, url_for

from pipeline.documents import FORMATS, DocumentError, DocumentTooLarge

from . import glossaries, spec, validation
from .apikeys import get_api_keys
from .api import allow_cross_origin
from .files import GONE, download_name, extension_of, media_type, read_upload
from .filestore import StoreFull, get_store
from .shared import StoreUnavailable
from .service import get_service
from .validation import ApiError

bp = Blueprint("libretranslate", __name__)
# Browser front ends and extensions built for LibreTranslate call these from other origins too.
bp.after_request(allow_cross_origin)

# What LibreTranslate's web front end reads; its default is 500 ms (it waits that long after the
# last keystroke before translating).
FRONTEND_TIMEOUT_MS = 500


@bp.post("/translate")
def translate():
    params = validation.request_params(request)
    service = get_service()
    # source=auto: the source is the language the target is served from (German for English,
    # English for German), and sentences clearly in another language are kept as they are.
    req = validation.parse_translate(params, current_app.config, service.pairs)
    auto = req.auto
    glossary = glossaries.translate_glossary(params.get("glossary"), params.get("api_key"), req.source)
    detected = [service.detected_language(text, html=req.html, source=req.source) for text in req.texts] if auto else []
    for k, found in enumerate(detected):  # a text clearly in another language: nothing to translate from
        if found["language"] not in validation.LANGUAGES:
            raise ApiError(400, f"Invalid request: {f'q[{k}]' if req.batch else 'q'} is in another language "
                                f"({found['language']}, confidence {found['confidence']}): this service translates "
                                f"{validation.served(service.pairs)}")
    pair = {"source": req.source, "target": req.target, "formality": req.formality}
    if req.alternatives and not req.html:  # LibreTranslate has no alternatives for html either
        texts, alternatives = service.translate_with_alternatives(req.texts, req.alternatives, **pair,
                                                                  keep_other_languages=auto, glossary=glossary)
    else:
        texts = service.translate(req.texts, **pair, html=req.html, keep_other_languages=auto, glossary=glossary)
        alternatives = [[] for _ in texts]
    result = {"translatedText": texts if req.batch else texts[0]}
    if auto:
        result["detectedLanguage"] = detected if req.batch else detected[0]
    if req.alternatives:
        result["alternatives"] = alternatives if req.batch else alternatives[0]
    # what a translation may have got wrong (a negation, profanity, the address asked): only where
    # a check found something, so that LibreTranslate's answers stay as they were otherwise
    warnings = service.warnings(req.texts, texts, **pair, html=req.html)
    if any(warnings):
        result["warnings"] = warnings if req.batch else warnings[0]
    return jsonify(result)


@bp.get("/languages")
def languages():
    pairs = get_service().pairs
    return jsonify([
        {"code": code, "name": name, "targets": sorted(t for s, t in pairs if s == code)}
        for code, name in validation.LANGUAGES.items()
    ])


@bp.post("/detect")
def detect():
    params = validation.request_params(request)
    config = current_app.config
    # LibreTranslate also takes a list: one ranking for all its texts together.
    texts, _ = validation.parse_texts(params.get("q"), max_chars=config["MAX_CHARS"], batch_limit=config["BATCH_LIMIT"])
    return jsonify(get_service().detect(texts))


@bp.get("/frontend/settings")
def frontend_settings():
    config = current_app.config
    keys = bool(get_api_keys())  # API_KEYS or API_KEYS_DB
    return jsonify({
        "charLimit": config["MAX_CHARS"],
        "frontendTimeout": FRONTEND_TIMEOUT_MS,
        "apiKeys": keys,
        "keyRequired": keys,  # with keys, requests without one are refused (400)
        "suggestions": False,
        "filesTranslation": True,
        "supportedFilesFormat": list(FORMATS),  # what POST /translate_file takes, with their dot
        "language": {
            "source": {"code": "de", "name": validation.LANGUAGES["de"]},
            "target": {"code": "en", "name": validation.LANGUAGES["en"]},
        },
    })


@bp.get("/spec")
def openapi_spec():
    return jsonify(spec.document())


@bp.post("/translate_file")
def translate_file():
    params = validation.request_params(request)
    config = current_app.config
    upload = request.files.get("file")
    if upload is None:
        raise ApiError(400, "Invalid request: missing file parameter")
    service = get_service()
    source, target = validation.parse_languages(params.get("source"), params.get("target"), service.pairs)
    formality = validation.parse_formality(params.get("formality"))
    extension = extension_of(upload.filename)
    glossary = glossaries.translate_glossary(params.get("glossary"), params.get("api_key"), source)
    data = read_upload(upload, config["MAX_FILE_BYTES"])
    try:
        translated = service.translate_document(extension, data, config["MAX_FILE_CHARS"], glossary,
                                                source=source, target=target, formality=formality)
    except DocumentTooLarge as exc:
        raise ApiError(413, f"Invalid request: {exc}") from None
    except DocumentError as exc:
        raise ApiError(400, f"Invalid request: {exc}") from None
    name = download_name(upload.filename, target)
    try:
        token = get_store().put(translated, name)
    except StoreFull as exc:
        raise ApiError(413, f"Invalid request: {exc}") from None
    except StoreUnavailable as exc:
        raise ApiError(503, f"Service unavailable: {exc}") from None
    return jsonify({"translatedFileUrl": url_for("libretranslate.download_file", filename=f"{token}.{name}",
                                                 _external=True)})


@bp.get("/download_file/<filename>")
def download_file(filename: str):
    token, _, name = filename.partition(".")
    # HEAD (link checkers, download managers probing the size) must not use up the one download.
    try:
        stored = get_store().take(token, name, consume=request.method != "HEAD")
    except StoreUnavailable as exc:
        raise ApiError(503, f"Service unavailable: {exc}") from None
    if stored is None:
        raise ApiError(404, GONE.format(ttl=current_app.config["FILE_TTL"]))
    # Not conditional: a Range request would be answered with a part, and the rest would be gone.
    response = send_file(io.BytesIO(stored.data), mimetype=media_type(stored.name),
                         as_attachment=True, download_name=stored.name, conditional=False)
    response.headers["Cache-Control"] = "no-store"
    # An attachment, and should a browser render it anyway (a translated .html keeps its scripts
    # as written): sandboxed, with nothing allowed to load.
    response.headers["Content-Security-Policy"] = "sandbox; default-src 'none'"
    return response
