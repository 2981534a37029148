"""BatchingEngine: concurrent callers' sentences in one engine call, each caller its own outputs."""

from __future__ import annotations

import threading
import time

import pytest

from model.inference.batching import BatchingEngine, BatchingOptions
from model.inference.engines import CachedTranslator, load_engine
from model.search.options import DEFAULT, SearchOptions

TEXTS = ["Guten Morgen.", "Vielen Dank.", "Ich habe Hunger.", "Wo ist der Bahnhof?", "Hallo.", "Ich liebe dich."]
TOO_LONG = "Hallo " * 600  # more pieces than the model reads: the engines raise ValueError


@pytest.fixture(scope="module", params=["torch", "ct2"])
def inner(request, tiny_checkpoint):
    return load_engine(tiny_checkpoint, engine=request.param, device="cpu", quantization="float32")


@pytest.fixture
def batcher(inner):
    engine = BatchingEngine(inner, BatchingOptions(max_wait=0.05))
    engine.batches = []
    engine.on_batch = lambda sentences, waits, seconds: engine.batches.append((sentences, len(waits)))
    return engine


def in_threads(engine, calls: list[list[str]], search: SearchOptions = DEFAULT) -> tuple[list, list[threading.Thread]]:
    """Start one thread per call while the engine's lock is held, so that every call is queued
    before the first engine call runs; returns (results by call, threads)."""
    results: list = [None] * len(calls)

    def run(k: int) -> None:
        try:
            results[k] = engine.output_ids(calls[k], search)
        except Exception as exc:  # noqa: BLE001 - the test compares it
            results[k] = exc

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(calls))]
    with engine.lock:
        threads[0].start()
        # The scheduler has taken the first call and waits for the lock ...
        until(lambda: engine.waiting() == 1 and engine.queued() == 0)
        for thread in threads[1:]:
            thread.start()
        # ... and the others are queued behind it.
        until(lambda: engine.queued() == len(calls) - 1)
    for thread in threads:
        thread.join(10)
    return results, threads


def until(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.002)


@pytest.mark.parametrize("beam_size", [1, 4])
def test_concurrent_calls_get_their_own_outputs_exactly(batcher, inner, beam_size):
    calls = [[TEXTS[0]], [TEXTS[1], TEXTS[2]], [TEXTS[3]], [TEXTS[4], TEXTS[5], TEXTS[0]]]
    search = SearchOptions(beam_size=beam_size)
    alone = [inner.output_ids(call, search) for call in calls]
    results, _ = in_threads(batcher, calls, search)
    assert results == alone
    # The first call went alone (the scheduler took it before the others came); the other three
    # calls, 6 sentences, went to the engine together.
    assert batcher.batches == [(1, 1), (6, 3)]


def test_a_bad_call_fails_alone(batcher, inner):
    calls = [[TEXTS[0]], [TEXTS[1]], [TOO_LONG], [TEXTS[2], TEXTS[3]]]
    results, _ = in_threads(batcher, calls)
    assert results[0] == inner.output_ids([TEXTS[0]])
    assert results[1] == inner.output_ids([TEXTS[1]])
    assert isinstance(results[2], ValueError)
    assert str(results[2]) == ("text 0 has 2400 pieces, but the model takes at most 255 pieces per text: "
                               "split it first")
    assert results[3] == inner.output_ids([TEXTS[2], TEXTS[3]])
    # The batch of the last three failed and each of its calls ran again alone (the failed one
    # is not reported as a batch).
    assert batcher.batches == [(1, 1), (1, 1), (2, 1)]


class Slow:
    """The engine, taking ``seconds`` longer for every call."""

    parallel = 1

    def __init__(self, inner, seconds: float):
        self.inner, self.seconds = inner, seconds

    def output_ids(self, texts, search=DEFAULT):
        time.sleep(self.seconds)
        return self.inner.output_ids(texts, search)


def test_a_call_run_again_reports_its_queue_wait_without_the_failed_attempt(inner):
    engine = BatchingEngine(Slow(inner, 0.5), BatchingOptions(max_wait=0.05))
    reported: list[list[float]] = []
    engine.on_batch = lambda sentences, waits, seconds: reported.append(waits)
    results, _ = in_threads(engine, [[TEXTS[0]], [TEXTS[1]], [TOO_LONG], [TEXTS[2]]])
    assert isinstance(results[2], ValueError) and results[3] == inner.output_ids([TEXTS[2]])
    # The three queued calls waited for the first call (0.5 s), then failed together (0.5 s) and
    # ran again one by one (0.5 s each): each reports the wait before that first attempt.
    assert len(reported) == 3 and len(reported[1]) == len(reported[2]) == 1
    assert 0.5 <= reported[1][0] < 0.9 and 0.5 <= reported[2][0] < 0.9, reported


def test_different_search_options_are_not_mixed(batcher, inner):
    calls = [[TEXTS[0]], [TEXTS[1]], [TEXTS[2]], [TEXTS[3]]]
    results: list = [None] * 4

    def run(k: int, beam: int) -> None:
        results[k] = batcher.output_ids(calls[k], SearchOptions(beam_size=beam))

    threads = [threading.Thread(target=run, args=(k, 1 if k % 2 else 4)) for k in range(4)]
    with batcher.lock:
        threads[0].start()
        until(lambda: batcher.waiting() == 1 and batcher.queued() == 0)
        for k, thread in enumerate(threads[1:], 1):  # in order: the queue is beam 1, beam 4, beam 1
            thread.start()
            until(lambda: batcher.queued() == k)
    for thread in threads:
        thread.join(10)
    assert results == [inner.output_ids(c, SearchOptions(beam_size=1 if k % 2 else 4)) for k, c in enumerate(calls)]
    assert batcher.batches == [(1, 1), (2, 2), (1, 1)]  # both beam-1 calls together, then the beam-4 one


def test_a_lone_call_does_not_wait_for_company(inner):
    engine = BatchingEngine(inner, BatchingOptions(max_wait=1.0))
    waits: list[float] = []
    engine.on_batch = lambda sentences, call_waits, seconds: waits.extend(call_waits)
    for text in TEXTS[:3]:
        assert engine.output_ids([text]) == inner.output_ids([text])
    assert len(waits) == 3 and max(waits) < 0.5  # far below the 1 s a loaded batch may wait


def test_wrappers_and_pass_through_calls(batcher, inner):
    assert batcher.translate(TEXTS[:2]) == inner.translate(TEXTS[:2])
    aligned = batcher.translate_aligned(TEXTS[:1])
    assert [a.target for a in aligned] == inner.translate(TEXTS[:1])
    two = SearchOptions(beam_size=4, n_best=2)
    assert batcher.translate_n_best(TEXTS[:1], two) == inner.translate_n_best(TEXTS[:1], two)
    assert batcher.output_ids([]) == [] and batcher.batches == [(2, 1), (1, 1)]
    assert (batcher.engine, batcher.tokenizer, batcher.config) == (inner.engine, inner.tokenizer, inner.config)


def test_cache_batches_only_its_misses(tiny_checkpoint):
    cached = load_engine(tiny_checkpoint, engine="torch", device="cpu", cache_size=10, batching=BatchingOptions())
    assert isinstance(cached, CachedTranslator) and isinstance(cached.inner, BatchingEngine)
    sizes: list[int] = []
    cached.inner.on_batch = lambda sentences, waits, seconds: sizes.append(sentences)
    lookups: list[tuple[int, int]] = []
    cached.on_lookup = lambda hits, misses: lookups.append((hits, misses))
    first = cached.translate(TEXTS[:2])
    assert cached.translate(TEXTS[:3])[:2] == first
    assert sizes == [2, 1] and lookups == [(0, 2), (2, 1)]


def test_on_idle_runs_once_after_work_and_never_while_callers_wait(inner):
    engine = BatchingEngine(inner, BatchingOptions(idle_after=0.05))
    events: list[str] = []
    engine.on_batch = lambda sentences, waits, seconds: events.append("batch")
    engine.on_idle = lambda: events.append("idle")
    engine.output_ids([TEXTS[0]])
    until(lambda: events == ["batch", "idle"])
    time.sleep(0.2)  # no more work: on_idle does not run again
    assert events == ["batch", "idle"]
    # Under load (calls queued behind a held lock) the next batch comes first.
    results, _ = in_threads(engine, [[TEXTS[1]], [TEXTS[2]], [TEXTS[3]]])
    assert results == [inner.output_ids([t]) for t in TEXTS[1:4]]
    until(lambda: len(events) == 5)
    assert events == ["batch", "idle", "batch", "batch", "idle"]


def test_a_failing_on_idle_does_not_stop_the_scheduler(inner):
    engine = BatchingEngine(inner, BatchingOptions(idle_after=0.01))
    calls: list[int] = []

    def broken() -> None:
        calls.append(1)
        raise OSError("no memory to give back")

    engine.on_idle = broken
    for text in TEXTS[:2]:
        assert engine.output_ids([text]) == inner.output_ids([text])
        until(lambda: len(calls) >= 1)
    until(lambda: len(calls) == 2)


class Overlapping:
    """The engine, running ``parallel`` searches at once, each taking 20 ms longer; counts how many
    run at the same time. The first searches wait (up to 2 s) until ``parallel`` of them run: on a
    loaded machine the requests' threads may start too slowly to keep that many busy otherwise,
    while a batcher that allowed more than ``parallel`` would still show it."""

    def __init__(self, inner, parallel: int):
        self.inner, self.parallel = inner, parallel
        self.now = self.most = 0
        self.count = threading.Condition()

    def output_ids(self, texts, search=DEFAULT):
        with self.count:
            self.now += 1
            self.most = max(self.most, self.now)
            self.count.notify_all()
            self.count.wait_for(lambda: self.most >= self.parallel, timeout=2)
        try:
            time.sleep(0.02)
            return self.inner.output_ids(texts, search)
        finally:
            with self.count:
                self.now -= 1


@pytest.mark.parametrize("parallel", [1, 2, 3])
def test_an_engine_of_parallel_searches_gets_that_many_batches_at_once(inner, parallel):
    # One call a batch: else, with the first searches waiting, two batches may take every call.
    engine = BatchingEngine(Overlapping(inner, parallel), BatchingOptions(max_wait=0, idle_after=0.01, max_sentences=1))
    sentences: list[int] = []
    engine.on_batch = lambda count, waits, seconds: sentences.append(count)
    running_when_idle: list[int] = []
    engine.on_idle = lambda: running_when_idle.append(engine.inner.now)
    calls = [[TEXTS[k % len(TEXTS)]] for k in range(24)]
    results: list = [None] * len(calls)

    def run(k: int) -> None:
        results[k] = engine.output_ids(calls[k])

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert results == [inner.output_ids(call) for call in calls]  # each call answered once, its own
    assert sum(sentences) == len(calls)
    assert engine.inner.most == parallel
    until(lambda: running_when_idle)
    assert set(running_when_idle) == {0}  # memory is given back only when no batch runs


@pytest.mark.parametrize("options, message", [
    (dict(max_wait=-0.1), "max_wait must be between 0 and 1 second, got -0.1"),
    (dict(max_wait=2), "max_wait must be between 0 and 1 second, got 2"),
    (dict(max_wait=True), "max_wait must be between 0 and 1 second, got True"),
    (dict(max_sentences=0), "max_sentences must be an integer >= 1, got 0"),
    (dict(max_sentences=2.5), "max_sentences must be an integer >= 1, got 2.5"),
    (dict(idle_after=0), "idle_after must be over 0 and at most 60 seconds, got 0"),
    (dict(idle_after=61), "idle_after must be over 0 and at most 60 seconds, got 61"),
    (dict(idle_after="1"), "idle_after must be over 0 and at most 60 seconds, got '1'"),
])
def test_invalid_options(options, message):
    with pytest.raises(ValueError) as info:
        BatchingOptions(**options)
    assert str(info.value) == message
