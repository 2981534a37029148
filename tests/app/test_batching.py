"""Batching across requests in the app: concurrent requests, one engine call, each its own answer."""

from __future__ import annotations

import threading
import time

import pytest


OK = {"source": "de", "target": "en"}
TEXTS = ["Guten Morgen.", "Vielen Dank. Ich habe Hunger.", "Wo ist der Bahnhof?", "Ich liebe dich.",
         "Hallo.", "Es regnet."]


def until(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.002)


@pytest.mark.parametrize("engine", ["torch", "ct2"])
def test_concurrent_requests_are_batched_and_answered_as_alone(make_app, engine):
    # One batch at a time, so that holding the model lock holds the engine (parallel batches of
    # CTranslate2 run outside it: tests/model/inference/test_batching.py).
    app = make_app(ENGINE=engine, QUANTIZATION="float32", TRANSLATION_CACHE=0, BATCH_WAIT_MS=50, PARALLEL_BATCHES=1)
    service = app.extensions["translation_service"]
    assert service.batcher.on_idle == service.release_memory  # an idle worker gives back what it can
    alone = [app.test_client().post("/translate", json={"q": text, **OK}).get_json() for text in TEXTS]
    batches: list[int] = []
    service.batcher.on_batch = lambda sentences, waits, seconds: batches.append(len(waits))
    bodies = [{"q": text, **OK} for text in TEXTS] + [{"q": "", **OK}, {"q": ["Hallo."] * 2, "source": "xx"}]
    answers: list = [None] * len(bodies)

    def send(k: int) -> None:
        response = app.test_client().post("/translate", json=bodies[k])
        answers[k] = (response.status_code, response.get_json())

    threads = [threading.Thread(target=send, args=(k,)) for k in range(len(bodies))]
    with service.model_lock:  # the engine is busy: every request queues behind the first
        threads[0].start()
        until(lambda: service.batcher.waiting() == 1 and service.batcher.queued() == 0)
        for thread in threads[1:]:
            thread.start()
        until(lambda: service.batcher.queued() == len(TEXTS) - 1)
    for thread in threads:
        thread.join(30)
    assert answers[:len(TEXTS)] == [(200, body) for body in alone]
    assert answers[len(TEXTS)][0] == 400 and answers[len(TEXTS) + 1][0] == 400  # bad ones fail alone
    assert batches == [1, len(TEXTS) - 1]
