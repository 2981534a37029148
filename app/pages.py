"""HTML pages: translate (/), attention heatmaps (/attention), beam search (/beam), model card (/model),
and plotly.js.

Pages render fully on the server (a ``/?q=...`` link shows its translation without JavaScript);
the scripts in static/ only add in-place updates and the Plotly charts.
"""

from __future__ import annotations

from pathlib import Path

import plotly
from flask import Blueprint, abort, current_app, redirect, render_template, request, send_file, url_for

from . import markdown, modelcard, validation
from .inspection import get_inspector
from .service import NothingToTranslate, TooManyPieces, chrf, get_service

bp = Blueprint("pages", __name__)

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
ATTENTION_KINDS = (("cross", "Cross-attention (target → source)"),
                   ("encoder", "Encoder self-attention (source → source)"),
                   ("decoder", "Decoder self-attention (target → target prefix)"))


RANDOM_WORD = "random"


def _page_error(error: validation.ApiError, template: str, **context):
    return render_template(template, error=error.message, **context), error.status


@bp.get("/")
def index():
    service = get_service()
    q = request.args.get("q", "")
    # As in the original demo, the word "random" alone in the form asks for a random sentence too.
    if (request.args.get("random") or q.strip().lower() == RANDOM_WORD) and service.corpus is not None:
        return redirect(url_for("pages.index", q=service.random_source()))
    context = {"q": q, "has_corpus": service.corpus is not None, "result": None}
    if not q.strip():
        return render_template("index.html", **context)
    try:
        validation.parse_texts(q, max_chars=current_app.config["MAX_CHARS"], max_texts=1)
    except validation.ApiError as error:
        return _page_error(error, "index.html", **context)
    translation = service.translate([q])[0]
    references = service.references_for(q)
    context["result"] = {"translation": translation, "references": references,
                         "chrf": chrf(translation, references) if references else None}
    return render_template("index.html", **context)


def _chosen_sentence(q: str, *purpose: str) -> tuple[list[str], int, str]:
    """The sentences of ``q``, the index chosen by ``?s=`` (0 when absent or out of range) and that
    sentence, checked against the per-sentence limit (raises ``validation.ApiError``)."""
    validation.parse_texts(q, max_chars=current_app.config["MAX_CHARS"], max_texts=1)
    sentences = get_service().sentences(q)
    index = request.args.get("s", "0")
    index = int(index) if index.isdecimal() and int(index) < len(sentences) else 0
    text = validation.parse_attention_text(sentences[index], current_app.config["MAX_ATTENTION_CHARS"], *purpose)
    return sentences, index, text


@bp.get("/attention")
def attention():
    service = get_service()
    q = request.args.get("q", "")
    context = {"q": q, "kinds": ATTENTION_KINDS, "data": None, "sentences": [], "index": 0}
    if not q.strip():
        return render_template("attention.html", **context)
    try:
        sentences, index, text = _chosen_sentence(q)
        data = service.attention(text)
    except NothingToTranslate:
        return _page_error(validation.ApiError(400, validation.NOTHING_TO_TRANSLATE), "attention.html", **context)
    except validation.ApiError as error:
        return _page_error(error, "attention.html", **context)
    context.update(sentences=sentences, index=index, data=data)
    return render_template("attention.html", **context)


@bp.get("/beam")
def beam():
    """The beam search behind one sentence's translation, step by step (``Inspector.beam``); like
    /attention, a text of several sentences shows one of them (``s``) and links to the others."""
    q = request.args.get("q", "")
    context = {"q": q, "data": None, "sentences": [], "index": 0}
    if not q.strip():
        return render_template("beam.html", **context)
    try:
        sentences, index, text = _chosen_sentence(q, "the beam search view")
        data = get_inspector().beam(text)
    except NothingToTranslate:
        return _page_error(validation.ApiError(400, validation.NOTHING_TO_TRANSLATE), "beam.html", **context)
    except TooManyPieces as exc:
        return _page_error(validation.ApiError(413, f"Invalid request: {exc}"), "beam.html", **context)
    except validation.ApiError as error:
        return _page_error(error, "beam.html", **context)
    context.update(sentences=sentences, index=index, data=data, winning_path=_winning_path(data))
    return render_template("beam.html", **context)


def _winning_path(trace: dict) -> set[str]:
    """Ids of the hypotheses from the first step to the winner (ids are unique within a trace)."""
    parents = {h["id"]: h["parent"] for step in trace["steps"] for h in step["hypotheses"]}
    path, node = set(), trace["winner"]["id"]
    while node in parents and node not in path:
        path.add(node)
        node = parents[node]
    return path


@bp.get("/model")
def model():
    card_path = Path(current_app.config["MODEL_CARD_PATH"])
    card = markdown.render(card_path.read_text(encoding="utf-8")) if card_path.is_file() else None
    return render_template("model.html", info=modelcard.build(get_service()), card=card)


@bp.get("/model/card.md")
def model_card_source():
    card_path = Path(current_app.config["MODEL_CARD_PATH"])
    if not card_path.is_file():
        abort(404)
    return send_file(card_path, mimetype="text/markdown")


@bp.get("/vendor/plotly.min.js")
def plotly_js():
    # Served from the installed package so the pages work offline without a copy in the repository;
    # the URL carries the version (?v=...), so browsers may keep it for a year.
    response = send_file(PLOTLY_JS, mimetype="text/javascript", max_age=365 * 24 * 3600, conditional=True)
    response.cache_control.public = True
    response.cache_control.immutable = True
    return response
