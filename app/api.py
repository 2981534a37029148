"""JSON API: LibreTranslate's /translate and /languages, plus attention, random and health.

Every view: parse -> validate -> call the service -> respond. ``ApiError`` becomes
``{"error": ...}`` with its status (see ``errors.py``).
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from . import validation
from .service import NothingToTranslate, get_service

bp = Blueprint("api", __name__)

# Paths of the JSON API (this blueprint, libretranslate.py's and files.py's): errors on them
# (404, 405, 413, ...) are answered in JSON.
API_PREFIXES = ("/translate", "/languages", "/api/", "/health", "/detect", "/frontend/", "/spec",
                "/download_file/")


@bp.after_request
def allow_cross_origin(response):
    # LibreTranslate allows every origin, and browser extensions built for it rely on that.
    response.headers["Access-Control-Allow-Origin"] = "*"
    response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type"
    response.headers["Access-Control-Allow-Methods"] = "GET, POST"
    return response


@bp.post("/translate")
def translate():
    params = validation.request_params(request)
    req = validation.parse_translate(params, current_app.config)
    service = get_service()
    auto = req.source == "auto"  # sentences clearly in another language are then kept as they are
    if req.alternatives and not req.html:  # LibreTranslate has no alternatives for html either
        texts, alternatives = service.translate_with_alternatives(req.texts, req.alternatives,
                                                                  keep_other_languages=auto)
    else:
        texts = service.translate(req.texts, html=req.html, keep_other_languages=auto)
        alternatives = [[] for _ in texts]
    result = {"translatedText": texts if req.batch else texts[0]}
    if auto:
        detected = [service.detected_language(text, html=req.html) for text in req.texts]
        result["detectedLanguage"] = detected if req.batch else detected[0]
    if req.alternatives:
        result["alternatives"] = alternatives if req.batch else alternatives[0]
    return jsonify(result)


@bp.get("/languages")
def languages():
    return jsonify([
        {"code": code, "name": name, "targets": sorted(t for s, t in validation.PAIRS if s == code)}
        for code, name in validation.LANGUAGES.items()
    ])


@bp.post("/api/attention")
def attention():
    params = validation.request_params(request)
    text = validation.parse_attention_text(params.get("q"), current_app.config["MAX_ATTENTION_CHARS"])
    try:
        return jsonify(get_service().attention(text))
    except NothingToTranslate:
        raise validation.ApiError(400, validation.NOTHING_TO_TRANSLATE) from None


@bp.get("/api/random")
def random_example():
    service = get_service()
    if service.corpus is None:
        raise validation.ApiError(404, "Random is not available: no corpus is configured (set CORPUS_PATH)")
    return jsonify(service.random_example())


@bp.get("/health")
def health():
    return jsonify(get_service().health())
