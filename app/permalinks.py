"""Permalinks for texts of any allowed length: ``POST /api/permalink`` and the store behind ``/?p=<id>``.

A short text is its own link, ``/?q=...``; a text whose ``q=...`` would take more than
``URL_TEXT_BYTES`` bytes gets a stored link instead, ``/?p=<id>``, so that no page ever puts a URL
in the address bar (or in a link) that a server or proxy refuses (gunicorn's request line limit,
the app's own ``errors.MAX_QUERY_BYTES``). The pages take ``p`` wherever they take ``q``.

The store keeps the text only (the page's other arguments, ``source`` and ``s``, stay in the URL)
and is bounded: at most ``MAX_PERMALINKS`` texts and ``MAX_PERMALINK_BYTES`` bytes of UTF-8, the
least recently used going first, and a text not used (stored again or opened) for
``PERMALINK_TTL`` seconds expires. Ids are keyed hashes of the text (HMAC-SHA256 with the store's
own random secret, 96 bits, URL-safe base64): the same text always gets the same link, so that
retranslating or reloading adds nothing, while nobody without the secret can tell from a text
whether it was stored. The text is data only: pages render it escaped, as any ``q``.

Where it lives:

- ``SqliteLinkStore``: one SQLite database (WAL, a short write transaction per call, a connection
  per call so that gunicorn's forked workers never share one), at ``PERMALINK_DB``, or by default
  in a private temporary directory made in ``create_app`` (in the master, before gunicorn forks;
  links then last until the server stops). SQLite rather than ``filestore.FileStore``'s
  file-per-entry pattern: links are meant to outlive a restart and a deploy, so the store must be
  a file at a path of the operator's choosing, and least-recently-used eviction, byte and count
  bounds and expiry are each one SQL statement in one transaction, with no lock file.
- ``RedisLinkStore`` with ``REDIS_URL``: shared by every replica behind a load balancer (a link
  made on one must open on all), with the same bounds; Redis's own clock; the ``Breaker`` of
  ``shared.py``, so an outage is a 503 naming the cause, never a hang.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from typing import Protocol
from urllib.parse import urlencode

from flask import Blueprint, Flask, current_app, jsonify, request, url_for

from . import sqlite, validation
from .validation import ApiError

bp = Blueprint("permalinks", __name__)

EXTENSION = "permalinks"
# A text whose "q=..." is longer gets a stored link: well below every limit on URLs on the way
# (gunicorn 8190, the app 4096 bytes of query string, old browsers and proxies about 2,000).
URL_TEXT_BYTES = 2000
_ID = re.compile(r"[A-Za-z0-9_-]{16}")
EXPIRED = ("This permalink does not exist or has expired: a stored link is kept {days} after it "
           "was last opened. Paste the text again to translate it.")


class LinkTooLarge(ValueError):
    """A text larger than the whole store may hold."""


class LinkStore(Protocol):
    def put(self, text: str) -> str: ...
    def get(self, link_id: str) -> str | None: ...


def valid_id(link_id: str) -> bool:
    return isinstance(link_id, str) and _ID.fullmatch(link_id) is not None


def keyed_id(secret: bytes, text: str) -> str:
    digest = hmac.new(secret, text.encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:12]).decode("ascii")  # 16 characters, no padding


def _check_size(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise LinkTooLarge(f"the text ({size} bytes) is larger than the permalink store ({max_bytes} bytes)")


# ------------------------------------------------------------------------------ SQLite

class SqliteLinkStore:
    def __init__(self, path: str | os.PathLike, *, max_links: int, max_bytes: int, ttl: float,
                 clock: Callable[[], float] = time.time):
        self.path = os.fspath(path)
        self.max_links = max_links
        self.max_bytes = max_bytes
        self.ttl = ttl
        self.clock = clock
        with closing(sqlite.connect(self.path)) as db:
            db.execute("PRAGMA journal_mode=WAL")  # readers never wait for a writer; persistent
            with sqlite.transaction(db):
                db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                db.execute("CREATE TABLE IF NOT EXISTS links (id TEXT PRIMARY KEY, text TEXT NOT NULL, "
                           "bytes INTEGER NOT NULL, used REAL NOT NULL)")
                db.execute("CREATE INDEX IF NOT EXISTS links_used ON links (used)")
                db.execute("INSERT OR IGNORE INTO meta VALUES ('secret', ?)", (secrets.token_hex(32),))
                self.secret = bytes.fromhex(db.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()[0])

    def put(self, text: str) -> str:
        """The id of ``text``, stored (or its last use renewed); evicts the least recently used."""
        size = len(text.encode("utf-8"))
        _check_size(size, self.max_bytes)
        link_id = keyed_id(self.secret, text)
        now = self.clock()
        with sqlite.session(self.path) as db:
            db.execute("DELETE FROM links WHERE used < ?", (now - self.ttl,))
            if db.execute("UPDATE links SET used = ? WHERE id = ?", (now, link_id)).rowcount:
                return link_id
            count, total = db.execute("SELECT count(*), coalesce(sum(bytes), 0) FROM links").fetchone()
            while count and (count + 1 > self.max_links or total + size > self.max_bytes):
                oldest, freed = db.execute("SELECT id, bytes FROM links ORDER BY used, id LIMIT 1").fetchone()
                db.execute("DELETE FROM links WHERE id = ?", (oldest,))
                count, total = count - 1, total - freed
            db.execute("INSERT INTO links VALUES (?, ?, ?, ?)", (link_id, text, size, now))
        return link_id

    def get(self, link_id: str) -> str | None:
        """The text of ``link_id`` (its last use renewed); None if unknown, evicted or expired."""
        if not valid_id(link_id):
            return None
        now = self.clock()
        with sqlite.session(self.path) as db:
            row = db.execute("SELECT text, used FROM links WHERE id = ?", (link_id,)).fetchone()
            if row is None:
                return None
            if now - row[1] > self.ttl:
                db.execute("DELETE FROM links WHERE id = ?", (link_id,))
                return None
            db.execute("UPDATE links SET used = ? WHERE id = ?", (now, link_id))
            return row[0]

    def links(self) -> list[tuple[str, int, float]]:
        """(id, bytes, last use) of every stored text, least recently used first."""
        with closing(sqlite.connect(self.path)) as db:
            return [tuple(row) for row in db.execute("SELECT id, bytes, used FROM links ORDER BY used, id")]


# ------------------------------------------------------------------------------ Redis

# Atomic in Redis, with Redis's clock. KEYS: the index (sorted set: id by last use in ms), the
# sizes (hash: id -> bytes), the total of the sizes; the text of id I is the string ARGV[6]..I.
_PUT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl, max_links, max_bytes, size = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local id, key = ARGV[5], ARGV[6] .. ARGV[5]
local function drop(gone)
  redis.call('DEL', ARGV[6] .. gone)
  redis.call('ZREM', KEYS[1], gone)
  local bytes = redis.call('HGET', KEYS[2], gone)
  if bytes then
    redis.call('DECRBY', KEYS[3], bytes)
    redis.call('HDEL', KEYS[2], gone)
  end
end
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - ttl)) do drop(gone) end
if redis.call('EXISTS', key) == 1 then
  redis.call('ZADD', KEYS[1], now, id)
  redis.call('PEXPIRE', key, ttl)
  return 0
end
drop(id)  -- an entry whose text Redis evicted itself (maxmemory)
local total = tonumber(redis.call('GET', KEYS[3]) or '0')
while redis.call('ZCARD', KEYS[1]) > 0 and (redis.call('ZCARD', KEYS[1]) + 1 > max_links or total + size > max_bytes) do
  drop(redis.call('ZRANGE', KEYS[1], 0, 0)[1])
  total = tonumber(redis.call('GET', KEYS[3]) or '0')
end
redis.call('SET', key, ARGV[7], 'PX', ttl)
redis.call('ZADD', KEYS[1], now, id)
redis.call('HSET', KEYS[2], id, size)
redis.call('INCRBY', KEYS[3], size)
return 1
"""
_GET = """
local text = redis.call('GET', ARGV[2] .. ARGV[1])
if not text then return false end
local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[1])
redis.call('PEXPIRE', ARGV[2] .. ARGV[1], ARGV[3])
return text
"""


class RedisLinkStore:
    """``SqliteLinkStore``'s behaviour in Redis, for several replicas (``REDIS_URL``)."""

    def __init__(self, client, *, max_links: int, max_bytes: int, ttl: float):
        from .shared import PREFIX, Breaker

        self.client = client
        self.max_links = max_links
        self.max_bytes = max_bytes
        self.ttl = ttl
        self.breaker = Breaker("the permalink store")
        self.keys = [PREFIX + "links:index", PREFIX + "links:sizes", PREFIX + "links:bytes"]
        self.text_prefix = PREFIX + "link:"
        self.secret_key = PREFIX + "links:secret"
        self._secret: bytes | None = None
        self._put = client.register_script(_PUT)
        self._get = client.register_script(_GET)

    def _key(self) -> bytes:
        # Made by whichever replica comes first, then the same for all (read once per process).
        if self._secret is None:
            def read() -> bytes:
                self.client.set(self.secret_key, secrets.token_hex(32), nx=True)
                return bytes.fromhex(self.client.get(self.secret_key).decode())
            self._secret = self.breaker.call(read)
        return self._secret

    def put(self, text: str) -> str:
        data = text.encode("utf-8")
        _check_size(len(data), self.max_bytes)
        link_id = keyed_id(self._key(), text)
        self.breaker.call(self._put, self.keys, [int(self.ttl * 1000), self.max_links, self.max_bytes, len(data),
                                                 link_id, self.text_prefix, data])
        return link_id

    def get(self, link_id: str) -> str | None:
        if not valid_id(link_id):
            return None
        data = self.breaker.call(self._get, self.keys, [link_id, self.text_prefix, int(self.ttl * 1000)])
        return None if data is None else data.decode("utf-8")


# ------------------------------------------------------------------------------ the app's store

def init_app(app: Flask) -> None:
    """The app's store: Redis with ``REDIS_URL``, else SQLite at ``PERMALINK_DB`` (created if
    missing), else SQLite in a private temporary directory removed when its creator exits."""
    config = app.config
    limits = {"max_links": config["MAX_PERMALINKS"], "max_bytes": config["MAX_PERMALINK_BYTES"],
              "ttl": config["PERMALINK_TTL"]}
    if config["REDIS_URL"]:
        from .shared import connect

        app.extensions[EXTENSION] = RedisLinkStore(connect(config["REDIS_URL"]), **limits)
        return
    path = config["PERMALINK_DB"] or sqlite.private_path("de-en-nmt-links-", "permalinks.sqlite3")
    try:
        app.extensions[EXTENSION] = SqliteLinkStore(path, **limits)
    except sqlite3.Error as exc:
        from .service import StartupError

        raise StartupError(f"PERMALINK_DB: cannot use {path!r} as an SQLite database: {exc}") from None


def get_links() -> LinkStore:
    return current_app.extensions[EXTENSION]


def _stored(call, *args):
    """A store call, its failures as API errors (413: too large; 503: Redis unavailable)."""
    from .shared import StoreUnavailable

    try:
        return call(*args)
    except LinkTooLarge as exc:
        raise ApiError(413, f"Invalid request: {exc}") from None
    except StoreUnavailable as exc:
        raise ApiError(503, f"Service unavailable: {exc}") from None


def fits_in_url(text: str) -> bool:
    return len(urlencode({"q": text})) <= URL_TEXT_BYTES


def link_args(text: str) -> dict[str, str]:
    """How links name ``text`` (already validated): ``{"q": text}`` when short enough, else a
    stored link ``{"p": id}``."""
    return {"q": text} if fits_in_url(text) else {"p": _stored(get_links().put, text)}


def stored_text(link_id: str) -> str:
    """The text of a stored link; a 404 ``ApiError`` when there is none."""
    text = _stored(get_links().get, link_id)
    if text is None:
        days = current_app.config["PERMALINK_TTL"] / 86400
        shown = f"{days:g} days" if days >= 1 else f"{current_app.config['PERMALINK_TTL']} seconds"
        raise ApiError(404, EXPIRED.format(days=shown))
    return text


@bp.post("/api/permalink")
def create():
    """``{"q": text}`` -> 201 ``{"id", "url": "/?p=<id>"}``: a link for any text ``/translate``
    takes as one text (short ones too, though the page links those as ``/?q=...``)."""
    params = validation.request_params(request)
    text = validation.parse_text(params.get("q"), current_app.config["MAX_CHARS"])
    if not text.strip():
        raise ApiError(400, "Invalid request: q is blank")
    link_id = _stored(get_links().put, text)
    return jsonify({"id": link_id, "url": url_for("pages.index", p=link_id)}), 201
