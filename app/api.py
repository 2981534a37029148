"""Our own JSON API: /api/attention, /api/random and /health (LibreTranslate's is ``libretranslate.py``,
the translation inspector's ``inspector.py``).

Every view: parse -> validate -> call the service -> respond. ``ApiError`` becomes
``{"error": ...}`` with its status (see ``errors.py``).
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from . import validation
from .service import NothingToTranslate, TooManyPieces, get_service

bp = Blueprint("api", __name__)

# Paths of the JSON API (this blueprint's, libretranslate.py's, inspector.py's, glossaries.py's; metrics.py's
# /metrics, a 404 without METRICS): errors on them (404, 405, 413, ...) are answered in JSON.
API_PREFIXES = ("/translate", "/languages", "/api/", "/health", "/detect", "/frontend/", "/spec",
                "/download_file/", "/glossaries", "/metrics")


@bp.after_request
def allow_cross_origin(response):
    # LibreTranslate allows every origin, and browser extensions built for it rely on that.
    response.headers["Access-Control-Allow-Origin"] = "*"
    response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type"
    response.headers["Access-Control-Allow-Methods"] = "GET, POST"
    return response


@bp.post("/api/attention")
def attention():
    params = validation.request_params(request)
    text = validation.parse_attention_text(params.get("q"), current_app.config["MAX_ATTENTION_CHARS"])
    service = get_service()
    source, target = validation.parse_pair(params, service.pairs)
    try:
        return jsonify(service.attention(text, source, target, current_app.config["MAX_ATTENTION_PIECES"]))
    except NothingToTranslate:
        raise validation.ApiError(400, validation.NOTHING_TO_TRANSLATE) from None
    except TooManyPieces as exc:
        raise validation.ApiError(413, f"Invalid request: {exc}") from None


# Why Random cannot draw from a split whose sample is not configured (404)
RANDOM_OFF = {"train": "Random is not available: no corpus is configured (set CORPUS_PATH)",
              "test": "Random is not available for split=test: no held-out sample is configured (set HELD_OUT_PATH)"}


@bp.get("/api/random")
def random_example():
    split = validation.parse_split(request.args.get("split"))
    service = get_service()
    if service.sample(split) is None:
        raise validation.ApiError(404, RANDOM_OFF[split])
    return jsonify(service.random_example(split=split))


@bp.get("/health")
def health():
    body = get_service().health()
    return jsonify(body), 200 if body["status"] == "ok" else 503
