"""Who may run the model: API keys and rate limits, as LibreTranslate has them (flask-limiter),
decided in one place for every route that runs the model or the language detector.

Which requests (``runs_model``): /translate, /translate_file, /detect, every /api/ route (the
attention view, the inspector, Random, the dictionary panel, stored links), and the pages that
translate what their query names (``/?q=``, ``/?p=``, ``/attention?q=``, ``/beam?q=``), all of
them together: one budget per client, not one per endpoint. Creating a glossary counts against
the same budget (it fills a shared store). With API keys, each of these needs a valid
``api_key`` first (``check_access``: 400 without one, 403 for an unknown one), from the body or
the query string, unless it has none and comes from ``API_KEYS_ORIGIN``'s pages
(``apikeys.from_origin``: counted as the address's, like any request without a key); such a
request is counted before its key is checked, so that guessing keys is limited too. Not limited,
no key: the pages without a text, /health, /languages, /spec, /frontend/settings,
/download_file, reading and deleting glossaries (keys are checked there by ``glossaries.py``, as
ownership) and static files.

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

from pipeline import deadline

from . import errors, shared, validation
from .apikeys import check_key, get_api_keys

log = logging.getLogger(__name__)

MODEL_ENDPOINTS = frozenset({"libretranslate.translate", "libretranslate.translate_file", "libretranslate.detect"})
MODEL_PATHS = "/api/"                                            # every route under it
PAGES = frozenset({"pages.index", "pages.attention", "pages.beam"})  # with a text in the query
ALSO_LIMITED = frozenset({"glossaries.create"})
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


def runs_model() -> bool:
    """Whether the current request runs the model or the language detector (the module's list)."""
    endpoint = request.endpoint
    if endpoint is None:   # no route: a 404
        return False
    if endpoint in MODEL_ENDPOINTS or request.path.startswith(MODEL_PATHS):
        return True
    # HEAD too: Flask answers it with the GET view, which translates (and throws the page away).
    return endpoint in PAGES and request.method in ("GET", "HEAD") and bool(request.args.get("q") or request.args.get("p"))


def check_access() -> None:
    """Before every request that runs the model: its API key, where the server has keys (the
    views' own parameter checks come after, as in LibreTranslate), and its time budget
    (``REQUEST_TIMEOUT``: the work stops with a 503 once it is spent, ``pipeline.deadline``)."""
    if runs_model():
        if get_api_keys():
            check_key(validation.request_params(request).get("api_key"))
        g.budget = deadline.start(current_app.config["REQUEST_TIMEOUT"])


def end_budget(_error: BaseException | None) -> None:
    if "budget" in g:
        deadline.stop(g.pop("budget"))


def over_budget(error: deadline.DeadlineExceeded):
    timeout = current_app.config["REQUEST_TIMEOUT"]
    return errors.handle_api_error(validation.ApiError(
        503, f"Service unavailable: the request took longer than its limit of {timeout} seconds; "
             "send less text at once"))


def _not_limited() -> bool:
    return not (runs_model() or request.endpoint in ALSO_LIMITED)


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
    """The key check, ``PROXY_COUNT`` and the limiter (none when no limit can apply: ``REQ_LIMIT`` 0
    and no key database). Needs ``apikeys.init_app`` first."""
    config = app.config
    app.teardown_request(end_budget)
    app.register_error_handler(deadline.DeadlineExceeded, over_budget)
    if config["PROXY_COUNT"]:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=config["PROXY_COUNT"])
    if not config["REQ_LIMIT"] and app.extensions["api_keys"].database is None:
        app.before_request(check_access)
        return
    uri, options = _storage(config["REDIS_URL"])
    # Retry-After is set on 429s alone (too_many_requests); flask-limiter's headers would put it on every answer.
    limiter = Limiter(key_func=lambda: client().id, application_limits=[_limit], storage_uri=uri,
                      storage_options=options, strategy=STRATEGY, headers_enabled=False,
                      in_memory_fallback_enabled=bool(config["REDIS_URL"]), swallow_errors=True)
    limiter.request_filter(_not_limited)
    limiter.init_app(app)
    # After the limiter's own hook: a request without a valid key counts too, so that guessing
    # keys is limited like any other request.
    app.before_request(check_access)
    app.extensions["rate_limiter"] = limiter
    app.register_error_handler(RateLimitExceeded, too_many_requests)
    flask_limiter_log = logging.getLogger("flask-limiter")
    if not any(isinstance(handler, _Forward) for handler in flask_limiter_log.handlers):
        flask_limiter_log.addHandler(_Forward())
