"""State shared by every worker of every instance, in Redis (the ``REDIS_URL`` setting).

Replicas behind a load balancer answer one client's requests in turn, so what one request leaves
for another must not stay in one process or on one machine:

- the translated files of ``/translate_file`` and their one-time download tokens
  (``filestore.RedisFileStore``, through ``connect`` and ``Breaker`` here);
- ``RedisCacheStore``: the translation cache (a ``model.inference.engines.CacheStore``), keyed by
  the model as well, so that replicas serving different checkpoints never share outputs;
- the rate-limit counters live there too (``limits.py``, through the limits library).

A Redis outage never fails or hangs a translation: every command has a short timeout, and after a
failure Redis is left alone for ``RETRY_AFTER`` seconds (``Breaker``). The cache then answers
misses and drops writes; the file store raises ``StoreUnavailable``, which the views answer with
a 503 naming the cause. Keys are prefixed ``nmt:`` (``PREFIX``).
Set ``maxmemory`` with an LRU policy on the server to bound the cache (docs/serving.md, "Several machines").
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

import redis


log = logging.getLogger(__name__)

TIMEOUT = 0.5         # seconds for a connection or a command: a dead server must not hold requests
RETRY_AFTER = 5.0     # seconds Redis is left alone after a failure
CACHE_TTL = 7 * 24 * 3600  # an unused cache entry goes after a week (and earlier under maxmemory)
PREFIX = "nmt:"


class StoreUnavailable(RuntimeError):
    """Redis does not answer: the shared state cannot be read or written now."""


def connect(url: str) -> redis.Redis:
    """A client for ``url`` (its connection pool opens connections on first use, per process)."""
    return redis.Redis.from_url(url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT,
                                health_check_interval=30)


class Breaker:
    """After a failure, ``call`` fails fast for ``RETRY_AFTER`` seconds instead of waiting on a
    server that is down; failures are logged once per outage."""

    def __init__(self, what: str):
        self.what = what
        self.down_until = 0.0
        self.lock = threading.Lock()

    def call(self, function, *args: Any) -> Any:
        if time.monotonic() < self.down_until:
            raise StoreUnavailable(f"{self.what} (Redis) is unavailable; retrying in a few seconds")
        try:
            result = function(*args)
        except redis.RedisError as exc:
            with self.lock:
                if time.monotonic() >= self.down_until:
                    log.warning("%s: Redis failed (%s: %s); retrying in %.0f s", self.what,
                                type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "", RETRY_AFTER)
                self.down_until = time.monotonic() + RETRY_AFTER
            raise StoreUnavailable(f"{self.what} (Redis) is unavailable: {type(exc).__name__}") from None
        return result


# ------------------------------------------------------------------------------ translation cache

def model_namespace(checkpoint: str | Path, engine: str, quantization: str, channel: str | Path | None = None,
                    channel_weight: float = 0.0, forward: str = "de-en") -> str:
    """What the outputs depend on besides the input and the search: the checkpoint's bytes, the
    engine that runs them (CTranslate2 int8 and PyTorch may differ in a rare word) and, where the
    beam is reranked, the channel's checkpoint and weight, the contenders it chooses among and the
    beam they come from (those of the ``forward`` model's direction)."""
    from model.inference.channel import served_options

    name = f"{_digest(checkpoint)}:{engine}:{quantization if engine == 'ct2' else 'float32'}"
    if channel is None:
        return name
    options = served_options(channel_weight, forward)
    return (f"{name}:channel:{_digest(channel)}:{options.weight!r}:{options.margin!r}:{options.most!r}:"
            f"{options.shortest!r}:{options.wide_beam!r}")


def _digest(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


class RedisCacheStore:
    """A ``CacheStore`` in Redis, shared by every worker and replica that serves the same model.
    Unavailable Redis: misses, writes dropped (``Breaker``), translation goes on."""

    def __init__(self, client: redis.Redis, namespace: str, ttl: int = CACHE_TTL):
        self.client = client
        self.prefix = f"{PREFIX}cache:{namespace}:"
        self.ttl = ttl
        self.breaker = Breaker("the translation cache")

    def _key(self, key: tuple) -> str:
        return self.prefix + hashlib.sha256(json.dumps(key, ensure_ascii=False).encode()).hexdigest()[:32]

    def get_many(self, keys: list[tuple]) -> dict[tuple, list[int]]:
        if not keys:
            return {}
        try:
            values = self.breaker.call(self.client.mget, [self._key(k) for k in keys])
        except StoreUnavailable:
            return {}
        return {key: [int(i) for i in value.split(b",")] if value else []
                for key, value in zip(keys, values) if value is not None}

    def put_many(self, entries: dict[tuple, list[int]]) -> None:
        def write():
            with self.client.pipeline(transaction=False) as pipe:
                for key, ids in entries.items():
                    pipe.set(self._key(key), ",".join(map(str, ids)), ex=self.ttl)
                pipe.execute()
        try:
            self.breaker.call(write)
        except StoreUnavailable:
            pass

    def clear(self) -> None:
        def delete():
            for key in self.client.scan_iter(match=self.prefix + "*", count=1000):
                self.client.delete(key)
        self.breaker.call(delete)

    def __len__(self) -> int:
        try:
            return self.breaker.call(lambda: sum(1 for _ in self.client.scan_iter(match=self.prefix + "*", count=1000)))
        except StoreUnavailable:
            return 0
