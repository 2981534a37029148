"""API keys: the ``API_KEYS`` setting's and the key database's (``API_KEYS_DB``).

With either set, every translation request needs a valid ``api_key`` (``check_key``: 400 without
one, 403 for an unknown one), as in LibreTranslate, except one without a key from the pages of
``API_KEYS_ORIGIN`` (``from_origin``; LibreTranslate's ``--require-api-key-origin``). A key from
the database has its own requests-per-minute limit (``req_limit``; 0 = none); a key of
``API_KEYS`` gets ``REQ_LIMIT`` (``limits.py`` applies them).

The database is SQLite (stdlib ``sqlite3``) with LibreTranslate's table, so that a LibreTranslate
``api_keys.db`` can be used: ``api_keys(api_key, req_limit, char_limit)`` (``char_limit`` is kept
for that, and not used here). The ``api_key`` column holds no key but its SHA-256
(``sha256:<hex>``, ``stored_form``), as one keeps passwords: whoever reads the file or a backup
cannot use the keys. Keys are long random tokens (192 bits), so a fast hash without salt is
enough. A database with plain keys (LibreTranslate's, or ours before hashing) is converted when
it is opened, in one transaction; LibreTranslate itself cannot read it afterwards. A connection and a transaction per call: gunicorn's forked
workers never share a connection, a key added or removed (``python -m commands.keys``, ``commands/keys.py``)
counts from the next request on, and every write is atomic.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask, current_app, request

from . import sqlite, validation
from .service import StartupError
from .settings import origin_of
from .validation import ApiError

SCHEMA = """CREATE TABLE IF NOT EXISTS api_keys (
    "api_key" TEXT NOT NULL,
    "req_limit" INTEGER NOT NULL,
    "char_limit" INTEGER DEFAULT NULL,
    PRIMARY KEY("api_key")
)"""
TIMEOUT = 5.0  # seconds a call waits for another process's write to the database
MAX_REQ_LIMIT = 1_000_000_000  # a key's largest req_limit (SQLite's integers end at 2**63 - 1)
UNREADABLE = "Service unavailable: the API key database cannot be read"
HASHED = "sha256:"
HASHED_FORM = re.compile(r"sha256:[0-9a-f]{64}")


def stored_form(key: str) -> str:
    """What the database keeps of ``key``: its SHA-256."""
    return HASHED + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


class KeyDatabaseError(OSError):
    """The database cannot be opened, read or written (one line: the path and the reason)."""


class KeyDatabase:
    """The API keys in one SQLite file and their requests-per-minute limits."""

    def __init__(self, path: str | os.PathLike, *, create: bool = False):
        """Opens (with ``create``: creates where missing) the file and its table; raises
        ``KeyDatabaseError`` when it cannot."""
        self.path = os.fspath(path)
        if not create and not os.path.isfile(self.path):
            raise KeyDatabaseError(f"cannot open API key database {self.path!r}: no such file")
        with self._transaction(create=create) as db:
            db.execute(SCHEMA)
            plain = db.execute("SELECT api_key FROM api_keys WHERE api_key NOT LIKE ?", (HASHED + "%",)).fetchall()
            db.executemany("UPDATE api_keys SET api_key = ? WHERE api_key = ?",
                           [(stored_form(key), key) for (key,) in plain])

    @contextmanager
    def _transaction(self, *, create: bool = False) -> Iterator[sqlite3.Connection]:
        try:
            # create=False: never create a file by reading a path that went away
            with sqlite.session(self.path, create=create, timeout=TIMEOUT) as db:
                yield db
        except sqlite3.Error as exc:
            raise KeyDatabaseError(f"cannot use API key database {self.path!r}: {exc}") from None

    def add(self, req_limit: int) -> str:
        """A new random key with ``req_limit`` requests per minute (0 = no limit)."""
        if isinstance(req_limit, bool) or not isinstance(req_limit, int) or not 0 <= req_limit <= MAX_REQ_LIMIT:
            raise ValueError(f"req_limit must be an integer from 0 to {MAX_REQ_LIMIT}, got {req_limit!r}")
        key = secrets.token_urlsafe(24)
        while key.startswith("-"):  # one in 64 would read as an option: python -m commands.keys remove KEY
            key = secrets.token_urlsafe(24)
        with self._transaction() as db:
            db.execute("INSERT INTO api_keys (api_key, req_limit) VALUES (?, ?)", (stored_form(key), req_limit))
        return key

    def remove(self, key: str) -> bool:
        """``key``, given as itself or as ``keys()`` lists it; False when there was no such key."""
        stored = key if HASHED_FORM.fullmatch(key) else stored_form(key)
        with self._transaction() as db:
            return db.execute("DELETE FROM api_keys WHERE api_key = ?", (stored,)).rowcount > 0

    def keys(self) -> list[tuple[str, int]]:
        """Every key as stored (``sha256:<hex>``) with its ``req_limit``, in the order they were added."""
        with self._transaction() as db:
            return db.execute("SELECT api_key, req_limit FROM api_keys ORDER BY rowid").fetchall()

    def req_limit(self, key: str) -> int | None:
        """The key's requests-per-minute limit; None when it is not in the database."""
        with self._transaction() as db:
            row = db.execute("SELECT req_limit FROM api_keys WHERE api_key = ?", (stored_form(key),)).fetchone()
        return None if row is None else int(row[0])


class ApiKeys:
    """The keys a request's ``api_key`` is checked against (a container for
    ``validation.check_api_key``): falsy when the server has none, so that keys are ignored."""

    def __init__(self, listed: frozenset[str], database: KeyDatabase | None):
        self.listed = listed
        self.database = database

    def __bool__(self) -> bool:
        return bool(self.listed) or self.database is not None

    def __contains__(self, key: Any) -> bool:
        return self.req_limit(key, default=0) is not None

    def req_limit(self, key: Any, *, default: int) -> int | None:
        """A valid key's requests per minute (the database's; ``default`` for a key of
        ``API_KEYS``); None for anything else. A database that cannot be read is a 503."""
        if not isinstance(key, str) or not key:
            return None
        if self.database is not None:
            try:
                limit = self.database.req_limit(key)
            except KeyDatabaseError as exc:
                current_app.logger.warning("%s", exc)
                raise ApiError(503, UNREADABLE) from None
            if limit is not None:
                return limit
        return default if key in self.listed else None


def init_app(app: Flask) -> None:
    """Opens ``API_KEYS_DB`` (made, with its table, where the file is missing)."""
    path = app.config["API_KEYS_DB"]
    database = None
    if path:
        try:
            database = KeyDatabase(path, create=True)
        except KeyDatabaseError as exc:
            raise StartupError(f"API_KEYS_DB: {exc}") from None
    app.extensions["api_keys"] = ApiKeys(app.config["API_KEYS"], database)


def get_api_keys() -> ApiKeys:
    """The current app's keys."""
    return current_app.extensions["api_keys"]


def from_origin() -> bool:
    """Whether the current request comes from a page of ``API_KEYS_ORIGIN``: by its Origin header,
    or where a browser sends none (a same-origin GET, a link followed), by its Referer's origin.
    Browsers write both themselves, so that another site's page cannot claim the origin; any other
    program can send them, so that this is a convenience for the site's own page, no protection."""
    allowed = current_app.config["API_KEYS_ORIGIN"]
    sent = request.headers.get("Origin")
    if sent is None:
        sent = request.headers.get("Referer")
    return bool(allowed) and sent is not None and origin_of(sent) == allowed


def check_key(value: Any) -> None:
    """The current request's ``api_key`` (``validation.check_api_key``; nothing to check where the
    server has no keys). A request without one is let in from ``API_KEYS_ORIGIN``'s pages
    (``from_origin``); a key it does send is checked all the same."""
    keys = get_api_keys()
    if keys and (value is None or value == "") and from_origin():
        return
    validation.check_api_key(value, keys)
