"""Prometheus metrics, as LibreTranslate has them: with ``METRICS=1``, ``GET /metrics`` in the text
exposition format (``METRICS_TOKEN``: only with ``Authorization: Bearer <token>``).

What is counted (``nmt_`` names):

- ``nmt_requests_total{endpoint,status}`` and ``nmt_request_duration_seconds{endpoint}``: every
  request, by its URL rule (``/translate``, ``/download_file/<filename>``; ``none`` where no route
  matched, so that the number of series stays bounded whatever paths clients send) and status;
  the duration is the app's, from its first ``before_request`` hook to its last ``after_request``
  hook (a streamed body is not included). ``nmt_requests_in_flight``: requests being answered;
- ``nmt_characters_translated_total``: the characters of the texts the service translated, as the
  request limits count them (``MAX_CHARS``: all texts of a request; ``MAX_FILE_CHARS``: a file's),
  counted once per successful outermost call of ``TranslationService.translate``,
  ``translate_with_alternatives`` or ``translate_document``: the calls these make themselves (a
  ``source=auto`` request's German stretches, a file's texts) and ``/health``'s probe do not count;
- ``nmt_translation_cache_hits_total`` / ``_misses_total``: model inputs found in and missing from
  the translation cache (``CachedTranslator.on_lookup``);
- ``nmt_batch_sentences``, ``nmt_batch_queue_wait_seconds`` and ``nmt_engine_call_seconds``: the
  sentences of each engine call of the batching scheduler, how long each request's sentences
  waited in its queue, and how long the call took (``BatchingEngine.on_batch``); with the request
  durations they tell what a request spends outside the engine (``bench/load.py --single``).

One registry per app (``app.extensions["metrics"]``), not prometheus_client's process-wide
``REGISTRY``: ``create_app`` runs many times in a test process, a name can be registered only once
in a registry, and each app then counts from zero.

Across gunicorn's workers: ``gunicorn.conf.py`` sets ``PROMETHEUS_MULTIPROC_DIR`` before the app is
imported, so prometheus_client (which chooses when it is first imported) keeps every process's
values in files there, and ``/metrics`` sums the files of all processes: counters and histograms of
recycled workers included, so totals never go down; the in-flight gauge of live workers only
(gunicorn's ``child_exit`` hook removes a dead worker's). Without the variable (Flask's test
client, ``flask run``) this process's registry is served.
"""

from __future__ import annotations

import functools
import hmac
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, jsonify, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client import multiprocess, values

from pipeline import documents

from .service import EXTENSION as SERVICE_EXTENSION
from .service import StartupError, TranslationService

EXTENSION = "metrics"
NO_ROUTE = "none"

# Seconds: a page or a short text takes milliseconds, a file up to the worker timeout (60 s).
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128)  # the scheduler takes up to 64 sentences per call
WAIT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)

bp = Blueprint("metrics", __name__)


class Metrics:
    """The metrics of one app and where they are read from for ``/metrics``."""

    def __init__(self, directory: str | None):
        self.directory = directory  # prometheus_client's multiprocess directory, or None
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter("nmt_requests_total", "HTTP requests answered, by URL rule (none: no route) and status",
                                ["endpoint", "status"], registry=r)
        self.duration = Histogram("nmt_request_duration_seconds", "Time to answer a request, by URL rule",
                                  ["endpoint"], buckets=DURATION_BUCKETS, registry=r)
        self.in_flight = Gauge("nmt_requests_in_flight", "Requests being answered", registry=r,
                               multiprocess_mode="livesum")
        self.characters = Counter("nmt_characters_translated_total",
                                  "Characters of the texts and files translated", registry=r)
        self.cache_hits = Counter("nmt_translation_cache_hits_total",
                                  "Model inputs whose translation the translation cache had", registry=r)
        self.cache_misses = Counter("nmt_translation_cache_misses_total",
                                    "Model inputs the translation cache did not have", registry=r)
        self.batch_sentences = Histogram("nmt_batch_sentences", "Sentences per engine call of the batching scheduler",
                                         buckets=BATCH_BUCKETS, registry=r)
        self.queue_wait = Histogram("nmt_batch_queue_wait_seconds",
                                    "Time a request's sentences waited for their engine call",
                                    buckets=WAIT_BUCKETS, registry=r)
        self.engine_seconds = Histogram("nmt_engine_call_seconds", "Time of each engine call of the batching scheduler",
                                        buckets=DURATION_BUCKETS, registry=r)

    # ------------------------------------------------------------------ request hooks

    def request_started(self) -> None:
        g.metrics_started = time.perf_counter()
        self.in_flight.inc()

    def request_finished(self, response: Response) -> Response:
        endpoint = request.url_rule.rule if request.url_rule is not None else NO_ROUTE
        self.requests.labels(endpoint, str(response.status_code)).inc()
        started = g.get("metrics_started")
        if started is not None:
            self.duration.labels(endpoint).observe(time.perf_counter() - started)
        return response

    def request_ended(self, _error: BaseException | None) -> None:
        if g.pop("metrics_started", None) is not None:
            self.in_flight.dec()

    # ------------------------------------------------------------------ engine hooks

    def cache_lookup(self, hits: int, misses: int) -> None:
        self.cache_hits.inc(hits)
        self.cache_misses.inc(misses)

    def engine_batch(self, sentences: int, waits: list[float], seconds: float) -> None:
        self.batch_sentences.observe(sentences)
        self.engine_seconds.observe(seconds)
        for wait in waits:
            self.queue_wait.observe(max(0.0, wait))

    # ------------------------------------------------------------------ exposition

    def exposition(self) -> bytes:
        if self.directory is None:
            return generate_latest(self.registry)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=self.directory)
        return generate_latest(registry)


def multiprocess_directory() -> str | None:
    """The directory of prometheus_client's multiprocess mode, or None where this process keeps its
    values in memory. prometheus_client decides when it is first imported (from
    PROMETHEUS_MULTIPROC_DIR), so that decision, not the variable now, is what counts."""
    if values.ValueClass is values.MutexValue:
        return None
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or os.environ.get("prometheus_multiproc_dir") or ""
    if not os.path.isdir(path):
        raise StartupError(f"METRICS: PROMETHEUS_MULTIPROC_DIR must be an existing directory, got {path!r}")
    return path


def observe_service(service: TranslationService, metrics: Metrics) -> None:
    """Count the service's translated characters (on the instance, so app/service.py knows nothing
    of metrics) and hook the cache's and the batching scheduler's counts."""
    inside = threading.local()  # a counted call is running in this thread: its own calls do not count

    def counted(method: Callable[..., Any], chars: Callable[..., int] | None) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            if getattr(inside, "active", False):
                return method(*args, **kwargs)
            inside.active = True
            try:
                result = method(*args, **kwargs)
            finally:
                inside.active = False
            if chars is not None:
                metrics.characters.inc(chars(*args, **kwargs))
            return result
        return call

    def text_chars(texts: list[str], *_args: Any, **_kwargs: Any) -> int:
        return sum(len(text) for text in texts)

    def file_chars(extension: str, data: bytes, max_chars: int, *_args: Any, **_kwargs: Any) -> int:
        # what MAX_FILE_CHARS counted, of a file read within its budget already
        return documents.read(extension, data, max_chars, seconds=None).chars

    service.translate = counted(service.translate, text_chars)
    service.translate_with_alternatives = counted(service.translate_with_alternatives, text_chars)
    service.translate_document = counted(service.translate_document, file_chars)
    service.health = counted(service.health, None)  # its probe is no client's translation
    for model in service.models.values():  # every direction's engine, summed
        if model.cache is not None:
            model.cache.on_lookup = metrics.cache_lookup
        if model.batcher is not None:
            model.batcher.on_batch = metrics.engine_batch


def _refusal() -> str | None:
    """Why the request may not read /metrics, or None; METRICS_TOKEN as LibreTranslate's
    --metrics-auth-token: ``Authorization: Bearer <token>``."""
    token = current_app.config["METRICS_TOKEN"]
    if not token:
        return None
    scheme, _, given = request.headers.get("Authorization", "").strip().partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return "Unauthorized: /metrics needs the header Authorization: Bearer <token>"
    if not hmac.compare_digest(given.strip().encode("utf-8", "surrogatepass"), token.encode("ascii")):
        return "Unauthorized: wrong bearer token"
    return None


@bp.get("/metrics")
def scrape():
    refusal = _refusal()
    if refusal is not None:
        return jsonify({"error": refusal}), 401, {"WWW-Authenticate": 'Bearer realm="metrics"'}
    body = current_app.extensions[EXTENSION].exposition()
    return Response(body, content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})


def init_app(app: Flask) -> None:
    """With METRICS on: the metrics, the request hooks, the service's hooks and /metrics. Call it
    right after the service exists and before other ``before_request`` hooks, so that its start
    time comes first (a request another hook refuses is counted and timed too)."""
    if not app.config["METRICS"]:
        return
    metrics = Metrics(multiprocess_directory())
    app.extensions[EXTENSION] = metrics
    observe_service(app.extensions[SERVICE_EXTENSION], metrics)
    app.before_request(metrics.request_started)
    app.after_request(metrics.request_finished)
    app.teardown_request(metrics.request_ended)
    app.register_blueprint(bp)
