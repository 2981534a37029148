"""The dictionary beside the translation: ``GET /api/dictionary?q=Termin`` and the translate page's
panel, Ding's entries for an input of one to three words, German (``source=de``, the default) or
English (``source=en``: English headwords, German senses).

``DICTIONARY_PATH`` names the Ding file (Debian's ``trans-de-en`` installs /usr/share/trans/de-en).
``create_app`` builds its two indexes once (``model.data.ding.DingDictionary`` for each source:
about 2 s and ~10 MB of arrays each), in gunicorn's master before the workers fork, so they share
them copy-on-write. The English one is built at the start too, not on its first lookup: built in a
worker it would cost each worker ~36 MB of its own memory and its first English lookup seconds
(bench/README.md, "dictionary.py"). Where the default file is missing (the package is not
installed), or ``DICTIONARY_PATH`` is empty, the dictionary is off: the page has no panel and the
API answers 404 saying why; a path set to anything else that is missing, or not a Ding file, stops
the start.

Lookup (``DingDictionary.lookup``): the headword as written, else ignoring case; the forms Ding
lists with a word (a noun's plural "Termine", "appointments", a verb's participles and persons
"gegessen", "aß", "macht ab", "ate", an adjective's comparison "besser", "am besten", "better");
an English verb without "to" ("cancel" finds "to cancel"); a leading article dropped ("der
Termin", "the appointment") when the text as given finds nothing. No other inflection is guessed.
A text of one to three words that finds nothing is a 200 with no entries: the panel says "no
entry".
"""

from __future__ import annotations

import os
import threading
import time

from flask import Blueprint, Flask, current_app, jsonify, request

from model.data.corpus import CorpusError
from model.data.ding import (DING_ATTRIBUTION, DING_LICENSE, SOURCES, DictionaryEntry, DingDictionary, check_source,
                             load_dictionary)
from pipeline.coverage import Coverage

from . import settings, validation
from .validation import ApiError

bp = Blueprint("dictionary", __name__)

EXTENSION = "dictionary"
MAX_WORDS = 3
MAX_CHARS = 100
# How many entries the page shows before "More entries" (the API gives all).
PANEL_ENTRIES = 5
OFF = "The dictionary is off: DICTIONARY_PATH is empty"
NOT_INSTALLED = ("The dictionary is not installed on this server: it needs Debian's trans-de-en package "
                 "(DICTIONARY_PATH, {path})")


class Dictionary:
    """The app's dictionary: an index per source language (``indexes``; ``index``: the German
    one), or none and the reason it is off. ``path``: the Ding file, for an index built on first
    use (``entries``)."""

    def __init__(self, indexes: dict[str, DingDictionary] | None, reason: str = "", path: str = ""):
        self.indexes = indexes or {}
        self.index = self.indexes.get("de")
        self.reason = reason
        self.path = path
        self._building = threading.Lock()

    def entries(self, text: str, source: str = "de") -> list[DictionaryEntry]:
        if self.index is None:
            raise ApiError(404, self.reason)
        if source not in self.indexes:
            with self._building:   # one build per process, whichever request thread asks first
                if source not in self.indexes:
                    self.indexes[source] = load_dictionary(self.path, source)
        return self.indexes[source].lookup(text)


def init_app(app: Flask) -> None:
    from .service import StartupError

    path = app.config["DICTIONARY_PATH"]
    if not path:
        app.extensions[EXTENSION] = Dictionary(None, OFF)
    elif not os.path.isfile(path):
        if path != settings.DEFAULTS["DICTIONARY_PATH"]:
            raise StartupError(f"DICTIONARY_PATH: no such file: {path!r}")
        app.extensions[EXTENSION] = Dictionary(None, NOT_INSTALLED.format(path=path))
    else:
        # The English index at startup where English is translated (shared by the workers, and the
        # page looks English up); else built by the first English lookup of the API, in that
        # worker: 3 s less to start (bench/README.md, dictionary.py).
        indexes = {}
        for source in SOURCES if "en-de" in app.config.get("MODELS", {}) else ("de",):
            started = time.perf_counter()
            try:
                indexes[source] = index = load_dictionary(path, source)
            except (OSError, UnicodeDecodeError, CorpusError) as exc:
                raise StartupError(f"DICTIONARY_PATH: cannot read {path!r} as a Ding dictionary: {exc}") from None
            app.logger.info("dictionary (%s): %s keys from %s (%.1f MB) in %.2f s", source, f"{len(index):,}", path,
                            index.nbytes() / 1e6, time.perf_counter() - started)
        app.extensions[EXTENSION] = Dictionary(indexes, path=path)
    app.context_processor(_template_context)


def _template_context() -> dict:
    """What templates need of the panel: whether it is on, its limits and the attribution."""
    return {"dictionary_on": get_dictionary().index is not None,
            "dictionary_info": {"max_words": MAX_WORDS, "max_chars": MAX_CHARS, "shown": PANEL_ENTRIES,
                                "attribution": DING_ATTRIBUTION, "license": DING_LICENSE}}


def get_dictionary() -> Dictionary:
    return current_app.extensions[EXTENSION]


def index_of(app: Flask) -> DingDictionary | None:
    """The app's German Ding index (after ``init_app``), None when the dictionary is off:
    glossaries take their noun plurals from it."""
    return app.extensions[EXTENSION].index


def coverage_of(app: Flask) -> Coverage | None:
    """The text pipeline's check for words a translation leaves out (``pipeline.coverage``), by the
    app's index; None when the dictionary is off."""
    index = index_of(app)
    return Coverage.of(index) if index is not None else None


def words(text: str) -> int:
    return len(text.split())


def parse_query(value) -> str:
    """``q``: one to three words, at most ``MAX_CHARS`` characters (400 otherwise)."""
    if value is None or value == "":
        raise ApiError(400, "Invalid request: missing q parameter")
    if not isinstance(value, str):
        raise ApiError(400, "Invalid request: q must be a string")
    validation.check_text("q", value)
    if not value.strip():
        raise ApiError(400, "Invalid request: q is blank")
    if len(value) > MAX_CHARS:
        raise ApiError(400, f"Invalid request: q has {len(value)} characters; the dictionary looks up at most {MAX_CHARS}")
    if words(value) > MAX_WORDS:
        raise ApiError(400, f"Invalid request: q has {words(value)} words; the dictionary looks up at most {MAX_WORDS}")
    return " ".join(value.split())


def parse_source(value) -> str:
    """``source``: the language of ``q``, "de" (the default, also for an empty value, as an HTML
    form sends one) or "en" (400 otherwise)."""
    if value is None or value == "":
        return "de"
    if value not in SOURCES:
        shown = value if len(value) <= 40 else value[:40] + "…"  # repr: control characters escaped
        raise ApiError(400, f"Invalid request: source must be de or en, got {shown!r}")
    return value


def as_json(entry: DictionaryEntry) -> dict:
    return {"headword": entry.headword, "word_class": entry.word_class, "gender": entry.gender,
            "labels": list(entry.labels), "forms": list(entry.forms), "senses": list(entry.senses),
            "synonyms": list(entry.synonyms),
            "phrases": [{"de": de, "en": en} for de, en in entry.phrases],
            "examples": [{"de": de, "en": en} for de, en in entry.examples],
            "match": entry.match}


def answer(text: str, source: str = "de") -> dict:
    """The JSON answer for a valid ``q`` and ``source``."""
    return {"query": text, "source": source,
            "entries": [as_json(entry) for entry in get_dictionary().entries(text, source)],
            "attribution": DING_ATTRIBUTION, "license": DING_LICENSE}


def panel(q: str, source: str = "de") -> dict | None:
    """What the translate page's panel shows for its text ``q`` in language ``source`` ("de" or
    "en"; ValueError otherwise): None (no panel) when the dictionary is off or ``q`` is not one to
    three words."""
    check_source(source)
    dictionary = get_dictionary()
    if dictionary.index is None or not q.strip() or words(q) > MAX_WORDS or len(q) > MAX_CHARS:
        return None
    try:
        return answer(parse_query(q), source)
    except ApiError:
        return None


@bp.get("/api/dictionary")
def lookup():
    """``?q=Termin[&source=de|en]`` -> ``{"query", "source", "entries": [...], "attribution",
    "license"}`` (docs/api.md)."""
    dictionary = get_dictionary()
    if dictionary.index is None:  # off: 404 whatever q is
        raise ApiError(404, dictionary.reason)
    q = parse_query(request.args.get("q"))
    return jsonify(answer(q, parse_source(request.args.get("source"))))
