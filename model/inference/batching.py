"""Batching across callers: the sentences of concurrent requests go to the engine in one call.

A web worker serves several requests at once (gunicorn's gthread worker: one thread per request).
Translated one request at a time, an engine call carries one or two sentences, and most of its
time goes to per-call work that a batch shares (CTranslate2's call overhead, one pass of the
encoder and decoder for every sentence together). ``BatchingEngine`` puts a small scheduler in
front of an engine:

- ``output_ids`` (and so ``translate`` and ``translate_aligned``) queue the caller's sentences and
  wait; one scheduler thread per process takes the queued calls with the same search options,
  up to ``max_sentences`` sentences, and translates them in one engine call;
- a lone call never waits: when nothing else is queued or recently seen, its batch leaves at
  once. Only under load (the last batch held several calls, or several are queued) does the
  scheduler hold a batch open for up to ``max_wait`` seconds after its first call arrived, so that
  callers on their way join it;
- results go back to their callers in order; when a batched engine call raises, each call of the
  batch is run again alone, so one caller's bad input fails that caller only;
- every other model call (n-best lists, alignment, word confidences, scores) runs under the same ``lock``,
  and so does the app's inspector: one model call at a time per process, as the worker's cores
  are set aside for one;
- except for an engine that runs several searches at once (``parallel`` > 1: CTranslate2 with
  ``inter_threads``, each search on its own cores): then ``parallel`` scheduler threads gather and
  send batches side by side, outside the lock. A worker's small batches use a core each better
  than two cores together (docs/journal/serving-load.md, "Parallel batches").

A batch gives each sentence exactly the output it gets alone: the engines translate every
sentence of a call independently (padding is masked), and a test checks it on both engines.
``on_batch`` (if set) is told each engine call's sentence count, each call's queue wait and the
engine call's seconds, for metrics. ``on_idle`` (if set) runs on the scheduler thread once the
queue has stayed empty for ``idle_after`` seconds after some work, never while callers wait:
the app gives memory freed by the engine calls back to the system there. The scheduler thread is started on first use in each process,
so a gunicorn worker forked from a master that built the engine starts its own.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from model.inference.alignment import AlignedText
from model.inference.interface import Wrapping
from model.search.options import DEFAULT, SearchOptions


@dataclass(frozen=True)
class BatchingOptions:
    """How the scheduler gathers; checked once, when made (ValueError, one line)."""

    max_wait: float = 0.005      # seconds a batch under load waits for more callers
    max_sentences: int = DEFAULT.batch_size  # sentences gathered into one engine call, at least one call
    idle_after: float = 0.05     # seconds of an empty queue after work before ``on_idle`` runs

    def __post_init__(self) -> None:
        if isinstance(self.max_wait, bool) or not isinstance(self.max_wait, (int, float)) or not 0 <= self.max_wait <= 1:
            raise ValueError(f"max_wait must be between 0 and 1 second, got {self.max_wait!r}")
        if isinstance(self.max_sentences, bool) or not isinstance(self.max_sentences, int) or self.max_sentences < 1:
            raise ValueError(f"max_sentences must be an integer >= 1, got {self.max_sentences!r}")
        if isinstance(self.idle_after, bool) or not isinstance(self.idle_after, (int, float)) or not 0 < self.idle_after <= 60:
            raise ValueError(f"idle_after must be over 0 and at most 60 seconds, got {self.idle_after!r}")


@dataclass
class _Call:
    texts: list[str]
    search: SearchOptions
    key: tuple
    arrived: float = field(default_factory=time.monotonic)
    done: threading.Event = field(default_factory=threading.Event)
    result: list[list[int]] | None = None
    error: BaseException | None = None


class BatchingEngine(Wrapping):
    """An engine (``interface.Engine``) whose best-translation calls are batched across threads."""

    def __init__(self, inner: Any, options: BatchingOptions = BatchingOptions()):
        self.inner = inner
        self.options = options
        # Reentrant: the app's inspector holds it around torch calls that may call ``align``.
        self.lock = threading.RLock()
        self.on_batch: Callable[[int, list[float], float], None] | None = None
        self.on_idle: Callable[[], None] | None = None
        self._queue: list[_Call] = []
        self._ready = threading.Condition()
        self._loaded = False        # the last batch held several calls: keep gathering
        self._pid: int | None = None
        self._waiting = 0           # callers waiting for their outputs, queued or in a batch
        self._worked = False        # a batch ran since ``on_idle`` last ran
        self._running = 0           # batches taken and not yet answered
        self._gathering = threading.Lock()  # one scheduler thread gathers at a time

    # ------------------------------------------------------------------------------ batched

    def output_ids(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[list[int]]:
        """As the inner engine's ``output_ids``, translated together with concurrent callers' texts
        (those of the same ``search.output_key``; the batch takes its first call's ``search``)."""
        texts = list(texts)
        if not texts:
            return []
        call = _Call(texts, search, search.output_key)
        with self._ready:
            self._start()
            self._queue.append(call)
            self._waiting += 1
            self._ready.notify_all()
        call.done.wait()
        with self._ready:
            self._waiting -= 1
        if call.error is not None:
            raise call.error
        return call.result

    def translate(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[str]:
        return [self.tokenizer.decode(ids) for ids in self.output_ids(texts, search)]

    def translate_aligned(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[AlignedText]:
        return self.align(texts, self.output_ids(texts, search), batch_size=search.batch_size)

    def queued(self) -> int:
        """Calls waiting for the scheduler to take them."""
        with self._ready:
            return len(self._queue)

    def waiting(self) -> int:
        """Callers waiting for their outputs: queued, or in the batch being translated."""
        with self._ready:
            return self._waiting

    # ------------------------------------------------------------------------------ one at a time
    # (the pass-throughs of ``Wrapping``, under the model lock that batches take too)

    def translate_n_best(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        with self.lock:
            return super().translate_n_best(texts, search)

    def beam(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        with self.lock:
            return super().beam(texts, search)

    def continue_n_best(self, texts: Sequence[str], prefixes: Sequence[Sequence[int]], search: SearchOptions, *,
                        n: int) -> list[list[tuple[str, float]]]:
        with self.lock:
            return super().continue_n_best(texts, prefixes, search, n=n)

    def align(self, sources: Sequence[str], outputs_ids: Sequence[Sequence[int]], **kwargs: Any) -> list[AlignedText]:
        with self.lock:
            return super().align(sources, outputs_ids, **kwargs)

    def word_confidences(self, sources: Sequence[str], outputs: Sequence[str], **kwargs: Any):
        with self.lock:
            return super().word_confidences(sources, outputs, **kwargs)

    def score_outputs(self, sources_ids: Sequence[Sequence[int]], outputs_ids: Sequence[Sequence[int]],
                      **kwargs: Any) -> list[float]:
        with self.lock:
            return super().score_outputs(sources_ids, outputs_ids, **kwargs)

    # ------------------------------------------------------------------------------ the scheduler

    def _start(self) -> None:
        """Start this process's scheduler thread (called with ``_ready`` held)."""
        if self._pid != os.getpid():
            # A fork copies the queue and flags of the parent's moment, but not its thread.
            self._queue, self._loaded, self._waiting, self._running = [], False, 0, 0
            self._gathering = threading.Lock()
            self._pid = os.getpid()
            for _ in range(self.parallel):
                threading.Thread(target=self._serve, name="batching-engine", daemon=True).start()

    def _serve(self) -> None:
        while True:
            with self._gathering:  # the others wait here, or translate the batches they took
                batch = self._gather()
            if batch:
                try:
                    self._run(batch)
                finally:
                    with self._ready:
                        self._running -= 1
                        self._ready.notify_all()
            elif self.on_idle is not None:
                try:
                    self.on_idle()
                except Exception:  # noqa: BLE001 - housekeeping must never stop the scheduler
                    pass

    def _gather(self) -> list[_Call]:
        """The next batch: the first queued call and the queued calls with its search options, up
        to ``max_sentences`` sentences; under load, waiting up to ``max_wait`` for more. Empty
        when, after some work, nothing came for ``idle_after`` seconds and no batch is being
        translated (time for ``on_idle``)."""
        with self._ready:
            while not self._queue:
                if self._worked and self.on_idle is not None and not self._running:
                    if not self._ready.wait(self.options.idle_after) and not self._queue:
                        self._worked = False
                        return []
                else:
                    self._ready.wait()
            first = self._queue[0]
            deadline = first.arrived + self.options.max_wait
            while True:
                batch, sentences = self._fits(first)
                full = sentences >= self.options.max_sentences
                loaded = self._loaded or len(self._queue) > 1
                left = deadline - time.monotonic()
                if full or not loaded or left <= 0:
                    break
                self._ready.wait(left)
            taken = set(map(id, batch))
            self._queue = [c for c in self._queue if id(c) not in taken]
            self._loaded = len(batch) > 1
            self._worked = True
            self._running += 1
            return batch

    def _fits(self, first: _Call) -> tuple[list[_Call], int]:
        batch, sentences = [first], len(first.texts)
        for call in self._queue[1:]:
            if call.key == first.key and sentences + len(call.texts) <= self.options.max_sentences:
                batch.append(call)
                sentences += len(call.texts)
        return batch, sentences

    def _run(self, batch: list[_Call], started: float | None = None) -> None:
        # A call's queue wait ends when its first attempt starts: a re-run alone after a failed
        # batch does not count the failed attempt as waiting.
        started = time.monotonic() if started is None else started
        texts = [t for call in batch for t in call.texts]
        try:
            with self.lock if self.parallel == 1 else contextlib.nullcontext():
                engine_started = time.monotonic()
                outputs = self.inner.output_ids(texts, batch[0].search)
                engine_seconds = time.monotonic() - engine_started
        except BaseException as exc:  # noqa: BLE001 - handed to the callers, never lost
            if len(batch) == 1:
                batch[0].error = exc
                batch[0].done.set()
            else:
                for call in batch:  # alone, so that only the bad call fails
                    self._run([call], started)
            return
        if self.on_batch is not None:
            try:
                self.on_batch(len(texts), [started - call.arrived for call in batch], engine_seconds)
            except Exception:  # noqa: BLE001 - metrics must never fail a translation
                pass
        start = 0
        for call in batch:
            call.result = outputs[start:start + len(call.texts)]
            start += len(call.texts)
            call.done.set()
