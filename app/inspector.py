"""JSON API of the translation inspector: why the model said what it said, and steering it.

- ``POST /api/sentences`` ``{"q"}``: the sentences of a whole text as the pipeline cuts it, each
  with its character span and the separator that goes before its translation;
- ``POST /api/explain`` ``{"q", "translation"}``: the translation (as ``/translate`` gives it, or
  the given ``translation``), source and target words with their character spans, the word
  alignment and the model's confidence in each word;
- ``POST /api/complete`` ``{"q", "prefix", "n"}``: up to ``n`` whole translations that start with an
  English prefix, one per next word first (the implausible left out: ``inspection.plausible``);
- ``POST /api/beam`` ``{"q"}``: the beam search behind the translation, step by step.

Each takes ``source``, ``target`` and ``formality`` as ``/translate`` does (``validation.parse_pair``: German into
English without them), for the model of that direction. ``q`` is checked as for ``/api/attention`` (one sentence, ``MAX_ATTENTION_CHARS``), except for
``/api/sentences``, which takes what ``/translate`` takes as one text (``MAX_CHARS``); no API key,
as there. Every view: parse -> validate -> call the inspector (``inspection.py``) -> respond; its refusals become
``ApiError``s here (400, or 413 for input too long for the model).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, current_app, jsonify, request

from . import validation
from .api import allow_cross_origin
from .inspection import BadPrefix, BadTranslation, Inspector, get_inspector
from .service import NothingToTranslate, TooManyPieces, get_service

bp = Blueprint("inspector", __name__)
bp.after_request(allow_cross_origin)

PURPOSE = "the inspector"  # names the limit in the 413 message


def _text(params: dict[str, Any]) -> str:
    return validation.parse_attention_text(params.get("q"), current_app.config["MAX_ATTENTION_CHARS"], PURPOSE)


def _inspector(params: dict[str, Any]) -> Inspector:
    """The inspector of the model the request names (``source``/``target``; German into English)."""
    source, target = validation.parse_pair(params, get_service().pairs)
    return get_inspector(source, target, validation.parse_formality(params.get("formality")))


def _answer(call: Callable[..., Any], *args: Any):
    """``call(*args)``'s result as JSON, its refusals as API errors."""
    try:
        return jsonify(call(*args))
    except NothingToTranslate:
        raise validation.ApiError(400, validation.NOTHING_TO_TRANSLATE) from None
    except TooManyPieces as exc:
        raise validation.ApiError(413, f"Invalid request: {exc}") from None
    except (BadPrefix, BadTranslation) as exc:
        raise validation.ApiError(400, f"Invalid request: {exc}") from None


@bp.post("/api/sentences")
def sentences():
    params = validation.request_params(request)
    text = validation.parse_text(params.get("q"), current_app.config["MAX_CHARS"])
    return jsonify({"sentences": _inspector(params).sentence_spans(text)})


@bp.post("/api/explain")
def explain():
    params = validation.request_params(request)
    text = _text(params)
    translation = validation.parse_translation(params.get("translation"), current_app.config["MAX_ATTENTION_CHARS"])
    return _answer(_inspector(params).explain, text, translation)


@bp.post("/api/complete")
def complete():
    params = validation.request_params(request)
    text = _text(params)
    prefix = validation.parse_prefix(params.get("prefix"), current_app.config["MAX_ATTENTION_CHARS"])
    n = validation.parse_completions(params.get("n"))
    inspector = _inspector(params)
    return _answer(lambda: {"completions": inspector.complete(text, prefix, n)})


@bp.post("/api/beam")
def beam():
    params = validation.request_params(request)
    text = _text(params)
    return _answer(_inspector(params).beam, text)
