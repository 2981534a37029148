"""The rest of LibreTranslate's API that its clients call: /detect, /frontend/settings and /spec.

/translate and /languages are in ``api.py``. Every view: parse -> validate -> call the service ->
respond; errors are ``{"error": ...}`` like the rest of the API (their paths are in
``api.API_PREFIXES``).
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from pipeline.documents import FORMATS

from . import spec, validation
from .api import allow_cross_origin
from .service import get_service

bp = Blueprint("libretranslate", __name__)
# Browser front ends and extensions built for LibreTranslate call these from other origins too.
bp.after_request(allow_cross_origin)

# What LibreTranslate's web front end reads; its default is 500 ms (it waits that long after the
# last keystroke before translating).
FRONTEND_TIMEOUT_MS = 500


@bp.post("/detect")
def detect():
    params = validation.request_params(request)
    config = current_app.config
    # LibreTranslate checks the key before anything else, as /translate does here.
    validation.check_api_key(params.get("api_key"), config["API_KEYS"])
    # LibreTranslate also takes a list: one ranking for all its texts together.
    texts, _ = validation.parse_texts(params.get("q"), max_chars=config["MAX_CHARS"], max_texts=config["MAX_TEXTS"])
    return jsonify(get_service().detect(texts))


@bp.get("/frontend/settings")
def frontend_settings():
    config = current_app.config
    keys = bool(config["API_KEYS"])
    return jsonify({
        "charLimit": config["MAX_CHARS"],
        "frontendTimeout": FRONTEND_TIMEOUT_MS,
        "apiKeys": keys,
        "keyRequired": keys,  # with API_KEYS set, requests without a key are refused (400)
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
