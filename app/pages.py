"""HTML pages: translate (/), attention heatmaps (/attention), beam search (/beam), model card (/model),
and plotly.js.

Pages render fully on the server (a ``/?q=...`` link shows its translation without JavaScript);
the scripts in static/ only add in-place updates and the Plotly charts. Wherever a page takes its
text as ``q`` it also takes ``p``, a stored link (``permalinks.py``), and its own links name the
text the same way: ``q`` when short, ``p`` when the text would make too long a URL. Without
JavaScript the forms are POSTed and answered with a redirect (303) to such a link, so that the
address bar never holds a URL the server refuses and a reload shows the same page.
"""

from __future__ import annotations

from pathlib import Path

import plotly
from flask import Blueprint, abort, current_app, redirect, render_template, request, send_file, url_for

from . import dictionary, errors, markdown, modelcard, permalinks, validation
from .apikeys import get_api_keys
from .inspection import get_inspector
from .service import NothingToTranslate, TooManyPieces, chrf, get_service

bp = Blueprint("pages", __name__)

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
ATTENTION_KINDS = (("cross", "Cross-attention (target → source)"),
                   ("encoder", "Encoder self-attention (source → source)"),
                   ("decoder", "Decoder self-attention (target → target prefix)"))


RANDOM_WORD = "random"


@bp.app_context_processor
def served_directions() -> dict:
    """The directions served, by name, for every page (error pages too): a page in no one direction
    (the model card, an error) names them all in its title and footer (base.html)."""
    names = validation.LANGUAGES
    return {"served_directions": [(names[source], names[target]) for source, target in get_service().pairs]}


def _random_split(value: str | None, q: str) -> str | None:
    """The split Random is asked to draw from: the form's ``random`` (its buttons send "train" and
    "test"; older links "1", a training sentence) or the word "random" alone in the form, as in
    the original demo ("train"); None when Random is not asked for (raises ``validation.ApiError``
    for another value)."""
    if value:
        return "train" if value == "1" else validation.parse_split(value)
    return "train" if q.strip().lower() == RANDOM_WORD else None


def _page_error(error: validation.ApiError, template: str, **context):
    return render_template(template, error=error.message, **context), error.status


def _requested_text() -> tuple[str, str | None]:
    """The page's text: ``q``, or the text of the stored link ``p`` and its id (404 when gone)."""
    link_id = request.args.get("p")
    if link_id:
        return permalinks.stored_text(link_id), link_id
    return request.args.get("q", ""), None


def _link(q: str, link_id: str | None) -> dict[str, str]:
    """How the page's links name its (valid) text: the stored link it came by, or ``q``/``p``."""
    return {"p": link_id} if link_id else permalinks.link_args(q)


def _languages(params) -> tuple[str, str, str]:
    """The translate page's ``source`` and ``target`` and the language translated from: ``auto``
    (the default: detected, sentences clearly not in the source language kept as they are), ``de``
    or ``en`` (everything translated as that language), into ``en`` (the default; ``de`` from
    English where an en-de model is served). Checked as /translate checks them ("xx is not
    supported", a pair not served)."""
    resolved, target = validation.parse_pair(params, get_service().pairs)
    return params.get("source") or "auto", target, resolved


def _language_args(source: str, target: str, formality: str) -> dict[str, str]:
    """How links name a page's languages: only where they are not the defaults (auto into en,
    formal German)."""
    return {**({"source": source} if source != "auto" else {}), **({"target": target} if target != "en" else {}),
            **({"formality": formality} if target == "de" and formality != "formal" else {})}


def _pair_args(source: str, target: str) -> dict[str, str]:
    """How links to the attention and beam search views name their model: the pair translated,
    German into English by default (``validation.parse_pair``)."""
    return {} if (source, target) == ("de", "en") else {"source": source, "target": target}


def _redirect_to(endpoint: str, q: str, **args: str):
    """303 to the page of ``q`` (checked first): ``?q=...``, or ``?p=...`` for a long text."""
    if q.strip():
        validation.parse_texts(q, max_chars=current_app.config["MAX_CHARS"], batch_limit=1)
        args = {**permalinks.link_args(q), **args}
    return redirect(url_for(endpoint, **args), 303)


def _index_context(q: str = "") -> dict:
    service = get_service()
    # German into English, the language detected, until the request's languages are known (and on
    # the page of an error before that)
    return {"q": q, "source": "auto", "target": "en", "from_language": "de", "formality": "formal",
            "language_args": {}, "pair_args": {},
            "pairs": service.pairs, "link": {}, "detected": None,
            "result": None, "has_corpus": service.corpus is not None, "has_held_out": service.held_out is not None,
            "languages": validation.LANGUAGES,
            "url_text_bytes": permalinks.URL_TEXT_BYTES, "dictionary": None,
            "api_keys": bool(get_api_keys())}  # the page's key field (static/api.js)


def _set_languages(context: dict, params) -> None:
    """The page's languages into ``context``: the choices, the pair they resolve to and the links'
    arguments for them (raises ``validation.ApiError``)."""
    source, target, resolved = _languages(params)
    formality = validation.parse_formality(params.get("formality")) or "formal"
    context.update(source=source, target=target, from_language=resolved, formality=formality,
                   language_args=_language_args(source, target, formality), pair_args=_pair_args(resolved, target))


@bp.get("/")
def index():
    service = get_service()
    context = _index_context()
    try:
        q, link_id = _requested_text()
        context["q"] = q
        asked = _random_split(request.args.get("random"), q)
        if asked and service.sample(asked) is not None:
            return redirect(url_for("pages.index", q=service.random_source(split=asked)))
        _set_languages(context, request.args)
        if not q.strip():
            return render_template("index.html", **context)
        validation.parse_texts(q, max_chars=current_app.config["MAX_CHARS"], batch_limit=1)
        context["link"] = _link(q, link_id)
    except validation.ApiError as error:
        return _page_error(error, "index.html", **context)
    source, target, auto = context["from_language"], context["target"], context["source"] == "auto"
    translation = service.translate([q], source=source, target=target, keep_other_languages=auto,
                                    formality=context["formality"])[0]
    context["detected"] = service.detected_language(q, source=source) if auto else None
    # Random's references are English translations of German sentences; the page says which
    # sample (split) holds the sentence, so that the score is read for what it is
    references, split = service.references_for(q) if (source, target) == ("de", "en") else ([], None)
    context["result"] = {"translation": translation, "references": references, "split": split,
                         "chrf": chrf(translation, references) if references else None,
                         # what the translation may have got wrong, as /translate's "warnings" say
                         "warnings": service.warnings([q], [translation], source=source, target=target,
                                                      formality=context["formality"])[0]}
    # one to three words: Ding's entries beside the translation, in the language translated from
    context["dictionary"] = dictionary.panel(q, source)
    return render_template("index.html", **context)


@bp.errorhandler(validation.KeyRefused)
def key_refused(error: validation.KeyRefused):
    """A text's page asked for without the API key the server requires (``limits.check_access``,
    before the view): the translate page answers with the text untranslated and the server's
    message, and translates it in place with the key kept in the browser (static/translate.js);
    the other pages answer with the error page."""
    if request.endpoint != "pages.index":
        return errors.handle_key_refused(error)
    context = _index_context()
    try:
        context["q"] = _requested_text()[0]
        _set_languages(context, request.args)
    except validation.ApiError:  # a stored link that is gone, a language that is not: the bare page
        pass
    body, status = _page_error(error, "index.html", key_refused=True, **context)
    return body, status, {errors.KEY_REFUSED_HEADER: "1"}


@bp.post("/")
def submit():
    """The form without JavaScript: Post/Redirect/Get to the text's page (Random: a random
    sentence's); a text the service refuses is shown with its error at once."""
    service = get_service()
    q = request.form.get("q", "")
    context = _index_context(q)
    try:
        asked = _random_split(request.form.get("random"), q)
        if asked and service.sample(asked) is not None:
            return redirect(url_for("pages.index", q=service.random_source(split=asked)), 303)
        _set_languages(context, request.form)
        return _redirect_to("pages.index", q, **context["language_args"])
    except validation.ApiError as error:
        return _page_error(error, "index.html", **context)


def _sentence_context(**more) -> dict:
    """A one-sentence view's context: German into English until the request names its model."""
    return {"q": "", "link": {}, "data": None, "sentences": [], "index": 0, "languages": validation.LANGUAGES,
            "source": "de", "target": "en", "pair_args": {}, **more}


def _submit_to(endpoint: str, template: str, context: dict):
    """A one-sentence page's form without JavaScript: 303 to the page of its text, or the empty
    page (``context``) with the error of a text the service refuses."""
    q = request.form.get("q", "")
    try:
        source, target = validation.parse_pair(request.form, get_service().pairs)
        return _redirect_to(endpoint, q, **_pair_args(source, target))
    except validation.ApiError as error:
        return _page_error(error, template, **{**context, "q": q})


def _requested_sentence(context: dict, *purpose: str) -> tuple[list[str], int, str] | None:
    """For the one-sentence views (/attention, /beam): the requested text (``q``, or the stored
    link ``p``) into ``context["q"]`` and, when it is valid, the page's links into
    ``context["link"]``, and the model (``source``, ``target``: ``validation.parse_pair``) into
    ``context``; returns ``_chosen_sentence``'s answer, or None when there is no text."""
    q, link_id = _requested_text()
    context["q"] = q
    source, target = validation.parse_pair(request.args, get_service().pairs)
    context.update(source=source, target=target, pair_args=_pair_args(source, target))
    if not q.strip():
        return None
    chosen = _chosen_sentence(q, source, *purpose)
    context["link"] = {**_link(q, link_id), **context["pair_args"]}
    return chosen


def _chosen_sentence(q: str, source: str, *purpose: str) -> tuple[list[str], int, str]:
    """The sentences of ``q`` (a ``source`` text), the index chosen by ``?s=`` (0 when absent or out
    of range) and that sentence, checked against the per-sentence limit (raises
    ``validation.ApiError``)."""
    validation.parse_texts(q, max_chars=current_app.config["MAX_CHARS"], batch_limit=1)
    sentences = get_service().sentences(q, source)
    index = request.args.get("s", "0")
    index = int(index) if index.isdecimal() and int(index) < len(sentences) else 0
    text = validation.parse_attention_text(sentences[index], current_app.config["MAX_ATTENTION_CHARS"], *purpose)
    return sentences, index, text


@bp.get("/attention")
def attention():
    service = get_service()
    context = _sentence_context(kinds=ATTENTION_KINDS)
    try:
        chosen = _requested_sentence(context)
        if chosen is None:
            return render_template("attention.html", **context)
        sentences, index, text = chosen
        data = service.attention(text, context["source"], context["target"], current_app.config["MAX_ATTENTION_PIECES"])
    except NothingToTranslate:
        return _page_error(validation.ApiError(400, validation.NOTHING_TO_TRANSLATE), "attention.html", **context)
    except TooManyPieces as exc:
        return _page_error(validation.ApiError(413, f"Invalid request: {exc}"), "attention.html", **context)
    except validation.ApiError as error:
        return _page_error(error, "attention.html", **context)
    context.update(sentences=sentences, index=index, data=data)
    return render_template("attention.html", **context)


@bp.post("/attention")
def attention_submit():
    return _submit_to("pages.attention", "attention.html", _sentence_context(kinds=ATTENTION_KINDS))


@bp.get("/beam")
def beam():
    """The beam search behind one sentence's translation, step by step (``Inspector.beam``); like
    /attention, a text of several sentences shows one of them (``s``) and links to the others."""
    context = _sentence_context()
    try:
        chosen = _requested_sentence(context, "the beam search view")
        if chosen is None:
            return render_template("beam.html", **context)
        sentences, index, text = chosen
        data = get_inspector(context["source"], context["target"]).beam(text)
    except NothingToTranslate:
        return _page_error(validation.ApiError(400, validation.NOTHING_TO_TRANSLATE), "beam.html", **context)
    except TooManyPieces as exc:
        return _page_error(validation.ApiError(413, f"Invalid request: {exc}"), "beam.html", **context)
    except validation.ApiError as error:
        return _page_error(error, "beam.html", **context)
    context.update(sentences=sentences, index=index, data=data, winning_path=_winning_path(data))
    return render_template("beam.html", **context)


@bp.post("/beam")
def beam_submit():
    return _submit_to("pages.beam", "beam.html", _sentence_context())


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
