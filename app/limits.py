"""Rate limits on the translation API, as LibreTranslate has them (flask-limiter).

Which requests: the endpoints that run the model or the language detector (``LIMITED``:
/translate, /translate_file, /detect, /api/attention, /api/explain, /api/complete, /api/beam,
/api/random), all of them together: one budget per client, not one per endpoint. Not limited:
the pages (their GETs translate too, but a person reads them), /health, /languages, /spec,
/frontend/settings, /download_file, /api/sentences, /api/dictionary, /api/permalink, /glossaries
and static files.

Who is a client: the API key when the request carries a valid one (``apikeys.py``; its limit is
the database's ``req_limit``, or ``REQ_LIMIT`` for a key of ``API_KEYS``), else the client's IP
address with ``REQ_LIMIT``. The address is the connection's; ``X-Forwarded-For`` counts only with
``PROXY_COUNT`` set to the number of proxies in front (werkzeug's ``ProxyFix``), since anyone can
send that header. 0 is no limit.

How: a moving window of one minute (exact: at most N requests in any 60 seconds). Counters live
in Redis with ``REDIS_URL`` (shared by every worker of every instance), else in each worker's
memory (the effective limit is then N per worker). A Redis outage never fails a request: the
counters fall back to each worker's memory until Redis answers again (flask-limiter's in-memory
fallback; short socket timeouts), and a warning is logged. Over the limit: 429 with
``{"error": "Too many requests: the limit is N per 1 minute"}`` and ``Retry-After`` (seconds).
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, g, request
from flask_limiter import Limiter, RateLimitExceeded
from werkzeug.middleware.proxy_fix import ProxyFix

from . import errors, shared, validation
from .apikeys import get_api_keys

log = logging.getLogger(__name__)

LIMITED = frozenset({
    "libretranslate.translate", "libretranslate.translate_file", "libretranslate.detect",
    "api.attention", "api.random_example",
    "inspector.explain", "inspector.complete", "inspector.beam",
})
STRATEGY = "moving-window"
KEY_PREFIX = f"{shared.PREFIX}limits"  # Redis keys: nmt:limits:LIMITER/<client>/...


@dataclass(frozen=True)
class Client:
    id: str          # "key:<sha256 of the key>" or "ip:<address>"
    req_limit: int   # requests per minute; 0 = no limit


def client() -> Client:
    """Who sent the current request, and their limit (worked out once per request)."""
    if "rate_limit_client" not in g:
        g.rate_limit_client = _identify()
    return g.rate_limit_client


def _identify() -> Client:
    default = current_app.config["REQ_LIMIT"]
    key = _api_key()
    if key is not None:
        try:
            req_limit = get_api_keys().req_limit(key, default=default)
        except validation.ApiError:  # the key database cannot be read: the view answers 503
            req_limit = None
        if req_limit is not None:
            return Client("key:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest(), req_limit)
    return Client(f"ip:{request.remote_addr or 'unknown'}", default)


def _api_key() -> str | None:
    """The request's ``api_key``, read as the views read it; None when absent or unreadable (the
    view then answers the request's own error)."""
    try:
        key = validation.request_params(request).get("api_key")
    except Exception:  # noqa: BLE001 - a broken body (400, 413, 415) is the view's to answer
        return None
    return key if isinstance(key, str) and key else None


def _limit() -> str:
    """The current client's limit in the limits library's notation; "" = none."""
    req_limit = client().req_limit
    return f"{req_limit} per minute" if req_limit else ""


def _not_limited() -> bool:
    return request.endpoint not in LIMITED


def retry_after() -> int:
    """Seconds until the current client may send its next request (at least 1)."""
    limiter = current_app.extensions["rate_limiter"]
    try:
        reset = limiter.current_limit.window[0]  # when the oldest request counted leaves the window
    except Exception:  # noqa: BLE001 - the storage went away in between: one window
        return 60
    return max(1, math.ceil(reset - time.time()))


def too_many_requests(error: RateLimitExceeded):
    body, status = errors.handle_api_error(
        validation.ApiError(429, f"Too many requests: the limit is {error.limit.limit}"))
    return body, status, {"Retry-After": str(retry_after())}


class _Forward(logging.Handler):
    """flask-limiter logs to a logger with a NullHandler only (lost under gunicorn): its warnings
    (the storage is unreachable) go on under this module's logger."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            log.log(record.levelno, "rate limits: %s", record.getMessage(), exc_info=record.exc_info)


def _storage(redis_url: str) -> tuple[str, dict[str, Any]]:
    if not redis_url:
        return "memory://", {}
    # The limits library names Redis over a Unix socket redis+unix://.
    uri = "redis+unix://" + redis_url.removeprefix("unix://") if redis_url.startswith("unix://") else redis_url
    return uri, {"socket_timeout": shared.TIMEOUT, "socket_connect_timeout": shared.TIMEOUT,
                 "key_prefix": KEY_PREFIX}


def init_app(app: Flask) -> None:
    """``PROXY_COUNT`` and the limiter; nothing at all when no limit can apply (``REQ_LIMIT`` 0 and
    no key database). Needs ``apikeys.init_app`` first."""
    config = app.config
    if config["PROXY_COUNT"]:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=config["PROXY_COUNT"])
    if not config["REQ_LIMIT"] and app.extensions["api_keys"].database is None:
        return
    uri, options = _storage(config["REDIS_URL"])
    # Retry-After is set on 429s alone (too_many_requests); flask-limiter's headers would put it on every answer.
    limiter = Limiter(key_func=lambda: client().id, application_limits=[_limit], storage_uri=uri,
                      storage_options=options, strategy=STRATEGY, headers_enabled=False,
                      in_memory_fallback_enabled=bool(config["REDIS_URL"]), swallow_errors=True)
    limiter.request_filter(_not_limited)
    limiter.init_app(app)
    app.extensions["rate_limiter"] = limiter
    app.register_error_handler(RateLimitExceeded, too_many_requests)
    flask_limiter_log = logging.getLogger("flask-limiter")
    if not any(isinstance(handler, _Forward) for handler in flask_limiter_log.handlers):
        flask_limiter_log.addHandler(_Forward())
