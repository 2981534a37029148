"""Glossaries: ``POST/GET /glossaries``, ``GET/DELETE /glossaries/<id>``, and ``/translate``'s
``glossary`` parameter (a stored glossary's id, or the pairs themselves).

A glossary is a name and German term -> English term pairs (``pipeline.glossary``: each term,
in every inflected form, becomes its English term in the translation). Every view: parse ->
validate -> call the store -> respond; errors are ``{"error": ...}`` like the rest of the API.

Where glossaries live (``GlossaryStore``, one per app in ``app.extensions``):

- ``SqliteGlossaryStore``: one SQLite database (stdlib ``sqlite3``; WAL, a connection and a short
  transaction per call, so that gunicorn's forked workers never share a connection) at
  ``GLOSSARY_DB``, or by default in a private temporary directory made in ``create_app`` (in the
  master, before gunicorn forks, so every worker sees the same glossaries; they are gone when the
  server stops: set ``GLOSSARY_DB`` to keep them). Tables ``glossaries`` (id, owner, name,
  created, entry count) and ``glossary_entries`` (glossary id, position, term, translation).
- For several replicas behind a load balancer, every replica must see the same glossaries: a
  store of the same four methods over a shared database (Redis with ``REDIS_URL``, as
  ``permalinks.py`` does, or a SQL server) goes in ``init_app``; nothing else changes. Until then
  ``GLOSSARY_DB`` is per machine.

Who owns a glossary. With API keys (``API_KEYS`` or ``API_KEYS_DB``), every request needs one,
as ``/translate`` does, and a glossary belongs to the key that made it: the others neither list,
read, use nor delete it (they get a 404). Without keys (and for a request that ``API_KEYS_ORIGIN``
lets in without one) a glossary is anonymous: whoever holds its id (16 random characters, 96
bits, returned by ``POST /glossaries``) may read, use and delete it, and nobody may list them
(403), so that no one can read or delete everyone's. Each client address
may keep at most ``MAX_GLOSSARIES`` anonymous glossaries, so that one client cannot fill the
store for the others; creating one counts against the rate limit (``limits.py``).

Built glossaries (their inflected forms) are cached per process by their entries, so a stored
glossary, or the same inline one sent again, is not rebuilt on every request.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import sqlite3
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from flask import Blueprint, Flask, current_app, jsonify, request, url_for

from pipeline.glossary import Glossary, GlossaryError, check_entries
from pipeline.inflection import Inflections

from . import sqlite, validation
from .api import allow_cross_origin
from .apikeys import check_key, get_api_keys
from .validation import ApiError

bp = Blueprint("glossaries", __name__)

EXTENSION = "glossaries"
MAX_NAME_CHARS = 100
_ID = re.compile(r"[A-Za-z0-9_-]{16}")   # secrets.token_urlsafe(12)
NOT_FOUND = "Glossary {id} not found"
GLOSSARY_TYPE = ("Invalid request: glossary must be an object of German term -> English term pairs "
                 "or the id of a stored glossary")


@bp.after_request
def cross_origin(response):
    # As the rest of the API, callable from other origins; DELETE too.
    response = allow_cross_origin(response)
    response.headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE"
    return response


# ------------------------------------------------------------------------------ the store

@dataclass(frozen=True)
class StoredGlossary:
    id: str
    name: str
    created: str                                       # ISO 8601, UTC: "2026-11-25T09:30:00Z"
    entry_count: int
    entries: tuple[tuple[str, str], ...] | None = None  # None in listings

    def as_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"id": self.id, "name": self.name, "created": self.created,
                                "entry_count": self.entry_count}
        if self.entries is not None:
            body["entries"] = dict(self.entries)
        return body


class StoreFull(ValueError):
    """The owner already has ``max_glossaries`` glossaries."""


class GlossaryStore(Protocol):
    def create(self, owner: str, name: str, entries: Sequence[tuple[str, str]]) -> StoredGlossary: ...
    def list(self, owner: str) -> list[StoredGlossary]: ...
    def get(self, owner: str | None, glossary_id: str) -> StoredGlossary | None: ...
    def delete(self, owner: str | None, glossary_id: str) -> bool: ...


def _now_iso(clock: Callable[[], float]) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(clock()))


class SqliteGlossaryStore:
    """Glossaries in one SQLite file; at most ``max_glossaries`` per owner."""

    def __init__(self, path: str | os.PathLike, *, max_glossaries: int, clock: Callable[[], float] = time.time):
        self.path = os.fspath(path)
        self.max_glossaries = max_glossaries
        self.clock = clock
        with closing(sqlite.connect(self.path)) as db:
            db.execute("PRAGMA journal_mode=WAL")  # readers never wait for a writer; persistent
            with sqlite.transaction(db):
                db.execute("CREATE TABLE IF NOT EXISTS glossaries (id TEXT PRIMARY KEY, owner TEXT NOT NULL, "
                           "name TEXT NOT NULL, created TEXT NOT NULL, entry_count INTEGER NOT NULL)")
                db.execute("CREATE INDEX IF NOT EXISTS glossaries_owner ON glossaries (owner, created)")
                db.execute("CREATE TABLE IF NOT EXISTS glossary_entries (glossary_id TEXT NOT NULL "
                           "REFERENCES glossaries (id) ON DELETE CASCADE, position INTEGER NOT NULL, "
                           "term TEXT NOT NULL, translation TEXT NOT NULL, PRIMARY KEY (glossary_id, position))")

    def create(self, owner: str, name: str, entries: Sequence[tuple[str, str]]) -> StoredGlossary:
        glossary = StoredGlossary(secrets.token_urlsafe(12), name, _now_iso(self.clock), len(entries), tuple(entries))
        with sqlite.session(self.path) as db:
            count = db.execute("SELECT count(*) FROM glossaries WHERE owner = ?", (owner,)).fetchone()[0]
            if count >= self.max_glossaries:
                raise StoreFull(f"the limit of {self.max_glossaries} stored glossaries is reached: delete one first")
            db.execute("INSERT INTO glossaries VALUES (?, ?, ?, ?, ?)",
                       (glossary.id, owner, name, glossary.created, glossary.entry_count))
            db.executemany("INSERT INTO glossary_entries VALUES (?, ?, ?, ?)",
                           [(glossary.id, i, term, translation) for i, (term, translation) in enumerate(entries)])
        return glossary

    def list(self, owner: str) -> list[StoredGlossary]:
        """The owner's glossaries, oldest first, without their entries."""
        with closing(sqlite.connect(self.path)) as db:
            rows = db.execute("SELECT id, name, created, entry_count FROM glossaries WHERE owner = ? "
                              "ORDER BY created, rowid", (owner,)).fetchall()
        return [StoredGlossary(*row) for row in rows]

    def get(self, owner: str | None, glossary_id: str) -> StoredGlossary | None:
        """The glossary of that id and owner; with ``owner`` None, of any anonymous owner."""
        with closing(sqlite.connect(self.path)) as db:
            row = db.execute("SELECT id, name, created, entry_count FROM glossaries WHERE id = ? AND " + _OWNED,
                             (glossary_id, owner, owner, ANONYMOUS + "%")).fetchone()
            if row is None:
                return None
            entries = db.execute("SELECT term, translation FROM glossary_entries WHERE glossary_id = ? "
                                 "ORDER BY position", (glossary_id,)).fetchall()
        return StoredGlossary(*row, entries=tuple((term, translation) for term, translation in entries))

    def delete(self, owner: str | None, glossary_id: str) -> bool:
        """As ``get``: the owner's, or with None any anonymous owner's."""
        with sqlite.session(self.path) as db:
            return db.execute("DELETE FROM glossaries WHERE id = ? AND " + _OWNED,
                              (glossary_id, owner, owner, ANONYMOUS + "%")).rowcount > 0


# The owner given (the first two parameters), or with None any anonymous one (the last).
_OWNED = "(owner = ? OR ? IS NULL AND owner LIKE ?)"


# ------------------------------------------------------------------------------ the app's glossaries

class Glossaries:
    """The app's store, the noun inflections, and the built glossaries' cache."""

    def __init__(self, store: GlossaryStore, inflections: Inflections, max_entries: int):
        self.store = store
        self.inflections = inflections
        self.max_entries = max_entries
        # (entries, source language) -> the built glossary: its terms are read in the request's
        # source language (German ones inflected, English ones as written)
        self.build: Callable[[tuple[tuple[str, str], ...], str], Glossary] = lru_cache(maxsize=64)(
            lambda entries, source="de": Glossary(entries, self.inflections, source))


def init_app(app: Flask) -> None:
    """The app's glossaries: SQLite at ``GLOSSARY_DB`` (created if missing), else in a private
    temporary directory removed when its creator exits; noun plurals from the dictionary's index
    (``DICTIONARY_PATH``; German rules alone when it is off)."""
    from .dictionary import index_of
    from .service import StartupError

    config = app.config
    path = config["GLOSSARY_DB"] or sqlite.private_path("de-en-nmt-glossaries-", "glossaries.sqlite3")
    try:
        store = SqliteGlossaryStore(path, max_glossaries=config["MAX_GLOSSARIES"])
    except sqlite3.Error as exc:
        raise StartupError(f"GLOSSARY_DB: cannot use {path!r} as an SQLite database: {exc}") from None
    app.extensions[EXTENSION] = Glossaries(store, Inflections(index_of(app)), config["MAX_GLOSSARY_ENTRIES"])


def get_glossaries() -> Glossaries:
    return current_app.extensions[EXTENSION]


# ------------------------------------------------------------------------------ parsing

def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = re.sub(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]", "?", text)
    return repr(text if len(text) <= 40 else text[:40] + "…")


ANONYMOUS = "anonymous:"   # an anonymous glossary's owner: this, and the hash of its creator's address
NOT_LISTED = ("Forbidden: without API keys glossaries are anonymous and not listed; "
              "read one by the id its creation returned")


def owner_of(api_key: Any) -> str:
    """Who a glossary belongs to: the API key's hash when the request has one the server knows
    (``API_KEYS`` or ``API_KEYS_DB``; ``apikeys.check_key`` has let it in), else the requesting
    address's, under ``ANONYMOUS`` (whose glossaries anyone with the id may read): on a server
    without keys, or for a request let in without one by ``API_KEYS_ORIGIN``."""
    if not (get_api_keys() and api_key):
        address = request.remote_addr or "unknown"
        return ANONYMOUS + hashlib.sha256(address.encode("utf-8")).hexdigest()
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


def reader_of(api_key: Any) -> str | None:
    """Whose glossaries the request may read and delete: its key's, or any anonymous one (None)."""
    return owner_of(api_key) if get_api_keys() and api_key else None


def parse_entries(value: Any, name: str, max_entries: int) -> tuple[tuple[str, str], ...]:
    """German term -> English term pairs, as a JSON object (or, from a form, its JSON text),
    checked (``pipeline.glossary.check_entries``: normalized, none empty or given twice) and at
    most ``max_entries`` of them (else 413)."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            value = validation.parse_json(value)
        except ValueError:
            raise ApiError(400, f"Invalid request: {name} is not valid JSON") from None
    if not isinstance(value, dict):
        raise ApiError(400, f"Invalid request: {name} must be an object of German term -> English term pairs")
    if len(value) > max_entries:
        raise ApiError(413, f"Invalid request: {name} has {len(value)} entries, more than the limit of {max_entries}")
    for term, translation in value.items():
        validation.check_text(name, term)
        if isinstance(translation, str):
            validation.check_text(name, translation)
    try:
        return check_entries(value)
    except GlossaryError as exc:
        raise ApiError(400, f"Invalid request: {name}: {exc}") from None


def parse_name(value: Any) -> str:
    if value is None or value == "":
        raise ApiError(400, "Invalid request: missing name parameter")
    if not isinstance(value, str):
        raise ApiError(400, "Invalid request: name must be a string")
    validation.check_text("name", value)
    name = " ".join(value.split())
    if not name:
        raise ApiError(400, "Invalid request: name is blank")
    if len(name) > MAX_NAME_CHARS:
        raise ApiError(400, f"Invalid request: name has {len(name)} characters, more than the limit of {MAX_NAME_CHARS}")
    return name


def parse_id(value: str) -> str:
    """A stored glossary's id as given; a 404 for one that cannot be an id."""
    if not _ID.fullmatch(value):
        raise ApiError(404, NOT_FOUND.format(id=_shown(value)))
    return value


def translate_glossary(value: Any, api_key: Any, source: str = "de") -> Glossary | None:
    """``/translate``'s ``glossary``: None when absent or empty; the pairs themselves (an object,
    or its JSON text from a form); or a stored glossary's id (404 when there is none, or when it
    is another API key's). Its terms are read as words of the request's ``source`` language."""
    if value is None or value == "" or value == {}:
        return None
    glossaries = get_glossaries()
    if isinstance(value, str) and not value.lstrip().startswith("{"):
        stored = glossaries.store.get(reader_of(api_key), parse_id(value.strip()))
        if stored is None:
            raise ApiError(404, NOT_FOUND.format(id=_shown(value.strip())))
        return glossaries.build(stored.entries, source)
    if not isinstance(value, (dict, str)):
        raise ApiError(400, GLOSSARY_TYPE)
    entries = parse_entries(value, "glossary", glossaries.max_entries)
    return glossaries.build(entries, source) if entries else None


# ------------------------------------------------------------------------------ views

def _params_with_key() -> tuple[dict[str, Any], Any]:
    params = validation.request_params(request)
    api_key = params.get("api_key")
    check_key(api_key)
    return params, api_key


@bp.post("/glossaries")
def create():
    """``{"name", "entries": {term: translation, ...}}`` -> 201 with the stored glossary."""
    params, api_key = _params_with_key()
    name = parse_name(params.get("name"))
    if params.get("entries") is None or params.get("entries") == "":
        raise ApiError(400, "Invalid request: missing entries parameter")
    glossaries = get_glossaries()
    entries = parse_entries(params["entries"], "entries", glossaries.max_entries)
    if not entries:
        raise ApiError(400, "Invalid request: entries has no terms")
    try:
        stored = glossaries.store.create(owner_of(api_key), name, entries)
    except StoreFull as exc:
        raise ApiError(413, f"Invalid request: {exc}") from None
    response = jsonify(stored.as_json())
    response.status_code = 201
    response.headers["Location"] = url_for("glossaries.read", glossary_id=stored.id)
    return response


@bp.get("/glossaries")
def listing():
    """``{"glossaries": [{"id", "name", "created", "entry_count"}, ...]}``, oldest first."""
    _, api_key = _params_with_key()
    if not (get_api_keys() and api_key):
        raise ApiError(403, NOT_LISTED)
    return jsonify({"glossaries": [g.as_json() for g in get_glossaries().store.list(owner_of(api_key))]})


@bp.get("/glossaries/<glossary_id>")
def read(glossary_id: str):
    _, api_key = _params_with_key()
    stored = get_glossaries().store.get(reader_of(api_key), parse_id(glossary_id))
    if stored is None:
        raise ApiError(404, NOT_FOUND.format(id=_shown(glossary_id)))
    return jsonify(stored.as_json())


@bp.delete("/glossaries/<glossary_id>")
def delete(glossary_id: str):
    _, api_key = _params_with_key()
    if not get_glossaries().store.delete(reader_of(api_key), parse_id(glossary_id)):
        raise ApiError(404, NOT_FOUND.format(id=_shown(glossary_id)))
    return "", 204
