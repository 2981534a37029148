"""Bounded temporary stores for translated files: each one is downloaded once, then deleted.

``FileStore`` (one machine) is a private directory made with ``tempfile.mkdtemp`` (mode 0700) in
``create_app``. Under gunicorn with ``preload_app`` that runs in the master before it forks, so every
worker (and every worker that replaces a recycled one) shares the directory: an upload answered by
one worker can be downloaded from another. The directory itself is therefore the whole state;
nothing is kept in memory, and an exclusive ``flock`` on a lock file serializes the threads and
processes. With ``REDIS_URL``, ``RedisFileStore`` keeps the same behaviour in Redis, shared by the
replicas of a service behind a load balancer (``app.shared``).

Files are named by random tokens (``secrets.token_urlsafe``), never by a user-supplied name: the
download name is metadata inside the file, a one-line JSON header before the bytes. Each file is
written to a temporary name and renamed into place, and its modification time is its creation
time, which orders eviction (oldest first, when the count or byte limit would be exceeded) and
expiry (``ttl`` seconds).
"""

from __future__ import annotations

import atexit
import fcntl
import json
import logging
import os
import re
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import redis
from flask import Flask, current_app

from .shared import PREFIX, Breaker, connect

log = logging.getLogger(__name__)

EXTENSION = "file_store"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{32}")   # secrets.token_urlsafe(24)
_LOCK = ".lock"
_PARTIAL = ".partial-"                      # files being written; never listed as stored
# A partial file older than this has no writer left: writing one takes milliseconds.
PARTIAL_GRACE = 60.0
SWEEP_EVERY = 60.0                          # seconds between sweeps (at most the files' ttl)


def valid_token(token: str) -> bool:
    """Whether ``token`` has the form of the store's tokens (so it can never name a path)."""
    return _TOKEN.fullmatch(token) is not None


class StoreFull(ValueError):
    """A single file larger than the whole store may hold."""


@dataclass(frozen=True)
class StoredFile:
    name: str     # the download name given to ``put``
    data: bytes


class FileStore:
    def __init__(self, directory: str | os.PathLike, *, max_files: int, max_bytes: int, ttl: float,
                 clock: Callable[[], float] = time.time):
        self.directory = Path(directory)
        self.max_files = max_files
        self.max_bytes = max_bytes
        self.ttl = ttl
        self.clock = clock

    def put(self, data: bytes, name: str) -> str:
        """Store ``data`` under a new random token (returned); evicts the oldest files to make room."""
        body = json.dumps({"name": name}).encode() + b"\n" + data
        if len(body) > self.max_bytes:
            raise StoreFull(f"the translated file ({len(data)} bytes) does not fit in the store "
                            f"({self.max_bytes} bytes)")
        token = secrets.token_urlsafe(24)
        now = self.clock()
        with self._locked():
            self._make_room(len(body), now)
            partial = self.directory / f"{_PARTIAL}{token}"
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(body)
                os.utime(partial, (now, now))
                os.replace(partial, self.directory / token)  # atomic: a reader sees all or nothing
            except BaseException:
                partial.unlink(missing_ok=True)
                raise
        return token

    def take(self, token: str, name: str, *, consume: bool = True) -> StoredFile | None:
        """The file stored under ``token`` with download name ``name``, deleted unless ``consume``
        is false; None if there is no such file or it has expired."""
        if not valid_token(token):   # never let a request name a path
            return None
        path = self.directory / token
        with self._locked():
            try:
                if self.clock() - path.stat().st_mtime > self.ttl:
                    path.unlink()
                    return None
                header, _, data = path.read_bytes().partition(b"\n")
            except FileNotFoundError:
                return None
            stored = StoredFile(json.loads(header)["name"], data)
            if stored.name != name:
                return None
            if consume:
                path.unlink()
        return stored

    def files(self) -> list[tuple[str, int, float]]:
        """(token, size, creation time) of every stored file, oldest first."""
        found = []
        with os.scandir(self.directory) as entries:
            for entry in entries:
                if _TOKEN.fullmatch(entry.name):
                    try:
                        stat = entry.stat()
                    except FileNotFoundError:
                        continue
                    found.append((entry.name, stat.st_size, stat.st_mtime))
        return sorted(found, key=lambda f: (f[2], f[0]))

    def sweep(self) -> int:
        """Delete the expired files, and the partial ones of writers that died (a worker killed
        while writing leaves its ``.partial-`` file); returns how many went. Run now and then
        (``start_sweeping``), so that nothing waits for the next upload to be deleted."""
        now = self.clock()
        gone = 0
        with self._locked(), os.scandir(self.directory) as entries:
            for entry in entries:
                expired = (_TOKEN.fullmatch(entry.name) and now - entry.stat().st_mtime > self.ttl
                           or entry.name.startswith(_PARTIAL) and now - entry.stat().st_mtime > PARTIAL_GRACE)
                if expired:
                    Path(entry.path).unlink(missing_ok=True)
                    gone += 1
        return gone

    def _make_room(self, size: int, now: float) -> None:
        """Delete expired files, then the oldest ones until one more file of ``size`` bytes fits."""
        stored = self.files()
        kept = [f for f in stored if now - f[2] <= self.ttl]
        evict = [f for f in stored if now - f[2] > self.ttl]
        total = sum(f[1] for f in kept)
        while kept and (len(kept) + 1 > self.max_files or total + size > self.max_bytes):
            oldest = kept.pop(0)
            total -= oldest[1]
            evict.append(oldest)
        for token, _, _ in evict:
            (self.directory / token).unlink(missing_ok=True)

    @contextmanager
    def _locked(self):
        # A new open file description per call: flock then excludes this process's other threads
        # as well as the other workers.
        fd = os.open(self.directory / _LOCK, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)


# ------------------------------------------------------------------------------ in Redis

# Both scripts run atomically in Redis, with Redis's own clock (replicas' clocks may differ).
# KEYS: the index (sorted set: token by creation time in ms), the sizes (hash: token -> bytes);
# the file of token T is the hash PREFIX.."file:"..T with fields name and data.
_PUT = """
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local ttl, max_files, max_bytes, size = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local function drop(token)
  redis.call('DEL', ARGV[7] .. token)
  redis.call('ZREM', KEYS[1], token)
  redis.call('HDEL', KEYS[2], token)
end
for _, token in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - ttl)) do drop(token) end
local kept = redis.call('ZRANGE', KEYS[1], 0, -1)
local total = 0
for _, token in ipairs(kept) do total = total + tonumber(redis.call('HGET', KEYS[2], token) or 0) end
local first = 1
while first <= #kept and (#kept - first + 2 > max_files or total + size > max_bytes) do
  total = total - tonumber(redis.call('HGET', KEYS[2], kept[first]) or 0)
  drop(kept[first])
  first = first + 1
end
local key = ARGV[7] .. ARGV[5]
redis.call('HSET', key, 'name', ARGV[6], 'data', ARGV[8])
redis.call('PEXPIRE', key, ttl)
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('HSET', KEYS[2], ARGV[5], size)
return now
"""
_TAKE = """
local name = redis.call('HGET', ARGV[3] .. ARGV[1], 'name')
if not name or name ~= ARGV[2] then return false end
local data = redis.call('HGET', ARGV[3] .. ARGV[1], 'data')
if ARGV[4] == '1' then
  redis.call('DEL', ARGV[3] .. ARGV[1])
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
end
return data
"""


class RedisFileStore:
    """``filestore.FileStore``'s behaviour (random tokens, one download, count and byte bounds with
    the oldest files evicted first, expiry after ``ttl`` seconds) in Redis."""

    def __init__(self, client: redis.Redis, *, max_files: int, max_bytes: int, ttl: float):
        self.client = client
        self.max_files = max_files
        self.max_bytes = max_bytes
        self.ttl = ttl
        self.breaker = Breaker("the file store")
        self.keys = [PREFIX + "files:index", PREFIX + "files:sizes"]
        self._put = client.register_script(_PUT)
        self._take = client.register_script(_TAKE)

    def put(self, data: bytes, name: str) -> str:
        """Store ``data`` under a new random token (returned); evicts the oldest files to make room."""
        size = len(data) + len(name.encode())
        if size > self.max_bytes:
            raise StoreFull(f"the translated file ({len(data)} bytes) does not fit in the store "
                            f"({self.max_bytes} bytes)")
        token = secrets.token_urlsafe(24)
        self.breaker.call(self._put, self.keys, [int(self.ttl * 1000), self.max_files, self.max_bytes, size,
                                                 token, name, PREFIX + "file:", data])
        return token

    def take(self, token: str, name: str, *, consume: bool = True) -> StoredFile | None:
        """The file under ``token`` with download name ``name``, deleted unless ``consume`` is
        false; None if there is none (never stored, downloaded already, expired, evicted)."""
        if not valid_token(token):
            return None
        data = self.breaker.call(self._take, self.keys, [token, name, PREFIX + "file:", "1" if consume else "0"])
        return None if data is None else StoredFile(name, data)

    def files(self) -> list[tuple[str, int, float]]:
        """(token, size, creation time) of every stored file, oldest first (expired ones included
        until the next ``put``)."""
        def read():
            index = self.client.zrange(self.keys[0], 0, -1, withscores=True)
            sizes = self.client.hgetall(self.keys[1])
            return [(t.decode(), int(sizes.get(t, 0)), score / 1000) for t, score in index]
        return self.breaker.call(read)



def init_app(app: Flask) -> None:
    """The app's store: in Redis with ``REDIS_URL`` (shared by replicas, ``shared.RedisFileStore``),
    else a private directory, removed when the creating process exits."""
    config = app.config
    if config["REDIS_URL"]:
        app.extensions[EXTENSION] = RedisFileStore(connect(config["REDIS_URL"]), max_files=config["MAX_STORED_FILES"],
                                                   max_bytes=config["MAX_STORED_BYTES"], ttl=config["FILE_TTL"])
        return
    directory = tempfile.mkdtemp(prefix="de-en-nmt-files-")
    owner = os.getpid()

    def remove() -> None:
        # gunicorn workers are forks that exit through sys.exit and so run atexit handlers too:
        # only the process that made the directory (the master) may remove it.
        if os.getpid() == owner:
            shutil.rmtree(directory, ignore_errors=True)

    atexit.register(remove)
    store = FileStore(directory, max_files=config["MAX_STORED_FILES"], max_bytes=config["MAX_STORED_BYTES"],
                      ttl=config["FILE_TTL"])
    app.extensions[EXTENSION] = store
    app.before_request(lambda: start_sweeping(store))


# Each store's sweeper in this process, by (pid, store): threads do not survive a fork.
_sweepers: dict[tuple[int, int], threading.Thread] = {}
_starting = threading.Lock()


def start_sweeping(store: FileStore) -> None:
    """A daemon thread of this process that runs ``store.sweep()`` every ``SWEEP_EVERY`` seconds
    (or the files' ttl, if shorter); started by each worker's first request, as gunicorn forks
    its workers after loading the app."""
    key = (os.getpid(), id(store))
    with _starting:
        if key in _sweepers:
            return
        _sweepers[key] = threading.Thread(target=lambda: _sweep_forever(store), name="file-store-sweeper", daemon=True)
    _sweepers[key].start()


def _sweep_forever(store: FileStore) -> None:
    while True:
        time.sleep(min(SWEEP_EVERY, store.ttl))
        try:
            store.sweep()
        except FileNotFoundError:   # the store's folder is gone: its server stopped
            return
        except OSError as exc:
            log.warning("file store: sweep failed: %s", exc)


def get_store() -> FileStore:
    return current_app.extensions[EXTENSION]
