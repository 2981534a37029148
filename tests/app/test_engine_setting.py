"""ENGINE, QUANTIZATION, TORCH_PRECISION and TRANSLATION_CACHE: the service's engine choice and its translation cache."""

from __future__ import annotations

import http.client
import json
import sys
import threading

import pytest

from app import StartupError
from app.settings import DEFAULTS, SettingsError, validate
from bench import server
from model.inference.alignment import AlignedText
from model.inference.batching import BatchingEngine
from model.inference.engines import CachedTranslator, engine_name, resolve_engine
from model.inference.translator import Translator
from model.search.options import DEFAULT, SearchOptions

from .conftest import isolated_environ

ct2 = pytest.importorskip("ctranslate2")


def valid(**changes):
    config = dict(DEFAULTS, **changes)
    validate(config)
    return config


def test_defaults():
    config = valid()
    assert (config["ENGINE"], config["QUANTIZATION"], config["TRANSLATION_CACHE"]) == ("auto", "int8", 1000)
    assert config["TORCH_PRECISION"] == "auto"
    assert valid(ENGINE=" ct2 ", TRANSLATION_CACHE="0")["ENGINE"] == "ct2"


@pytest.mark.parametrize("name, value, message", [
    ("ENGINE", "onnx", "ENGINE must be one of auto, ct2, torch, got 'onnx'"),
    ("ENGINE", 1, "ENGINE must be a string, got 1"),
    ("QUANTIZATION", "int4", "QUANTIZATION must be one of int8, float32, float16, int8_float16, got 'int4'"),
    ("TORCH_PRECISION", "fp16", "TORCH_PRECISION must be one of auto, fp32, bf16, got 'fp16'"),
    ("TRANSLATION_CACHE", "-1", "TRANSLATION_CACHE must be an integer >= 0, got '-1'"),
    ("TRANSLATION_CACHE", "many", "TRANSLATION_CACHE must be an integer >= 0, got 'many'"),
])
def test_bad_settings(name, value, message):
    with pytest.raises(SettingsError) as info:
        valid(**{name: value})
    assert str(info.value) == message


def test_auto_is_ct2_on_the_cpu_when_ctranslate2_imports(monkeypatch):
    assert resolve_engine("auto", "cpu") == "ct2"
    assert resolve_engine("torch", "cpu") == "torch"
    monkeypatch.setitem(sys.modules, "ctranslate2", None)
    assert resolve_engine("auto", "cpu") == "torch"


@pytest.mark.parametrize("engine, expected", [("auto", "ct2"), ("ct2", "ct2"), ("torch", "torch")])
def test_service_engines_translate_alike(make_app, pairs40, engine, expected):
    # fp32 PyTorch weights for both (auto is bf16 beside CTranslate2 on a CPU with native bfloat16)
    app = make_app(ENGINE=engine, QUANTIZATION="float32", TRANSLATION_CACHE=0, TORCH_PRECISION="fp32")
    service = app.extensions["translation_service"]
    assert engine_name(service.translator) == expected
    assert service.translate([de for de, _ in pairs40]) == [en for _, en in pairs40]
    # Markup lands where each engine aligns it: PyTorch by all its decoder layers, CTranslate2 by
    # one (alignment.single_layer). This tiny model misaligns <b> in both and <i> with PyTorch
    # alone; a placement that fails markup's checks wraps its whole sentence, never other words.
    html = ["<p>Guten <b>Morgen</b>.</p>", "<p>Wo ist <i>der Bahnhof</i>?</p>"]
    landed = {"torch": ["<p><b>Good morning.</b></p>", "<p><i>Where is the train station?</i></p>"],
              "ct2": ["<p><b>Good morning.</b></p>", "<p>Where is <i>the train station</i>?</p>"]}
    assert service.translate(html, html=True) == landed[expected]
    # The attention views are the PyTorch model's whichever engine translates.
    reference = make_app(ENGINE="torch", TRANSLATION_CACHE=0, TORCH_PRECISION="fp32").extensions["translation_service"]
    assert service.attention("Guten Morgen.") == reference.attention("Guten Morgen.")


def test_ct2_without_ctranslate2_stops_the_start(make_app, monkeypatch):
    monkeypatch.setitem(sys.modules, "ctranslate2", None)
    with pytest.raises(StartupError) as info:
        make_app(ENGINE="ct2")
    assert str(info.value) == "ENGINE: engine 'ct2' needs the ctranslate2 package: pip install ctranslate2"
    assert engine_name(make_app(ENGINE="auto").extensions["translation_service"].translator) == "torch"


def test_cache_setting_wraps_the_engine(make_app):
    # The cache in front of the batching scheduler in front of the model: only misses are batched.
    service = make_app(ENGINE="torch", TRANSLATION_CACHE=5).extensions["translation_service"]
    cached = service.translator
    assert isinstance(cached, CachedTranslator) and cached.size == 5 and cached is service.cache
    assert isinstance(cached.inner, BatchingEngine) and cached.inner is service.batcher
    assert isinstance(cached.inner.inner, Translator) and service.model_lock is service.batcher.lock
    plain = make_app(ENGINE="torch", TRANSLATION_CACHE=0).extensions["translation_service"]
    assert isinstance(plain.translator, BatchingEngine) and plain.cache is None
    assert isinstance(plain.translator.inner, Translator)


@pytest.mark.parametrize("settings, expected", [
    (dict(TORCH_THREADS=2), (2, 1)),                        # a worker's two cores: two batches at once
    (dict(TORCH_THREADS=2, PARALLEL_BATCHES=1), (1, 2)),    # one batch on both cores, as before
    (dict(TORCH_THREADS=4, PARALLEL_BATCHES=2), (2, 2)),
])
def test_parallel_batches_share_the_workers_threads(make_app, pairs40, settings, expected):
    service = make_app(ENGINE="ct2", QUANTIZATION="float32", TRANSLATION_CACHE=0, **settings).extensions[
        "translation_service"]
    assert (service.batcher.parallel, service.batcher.inner.threads) == expected
    assert service.translate([de for de, _ in pairs40[:6]]) == [en for _, en in pairs40[:6]]


def test_repeated_sentences_skip_the_model(make_app, monkeypatch):
    service = make_app(ENGINE="ct2", TRANSLATION_CACHE=100).extensions["translation_service"]
    cache = service.translator
    calls = []
    original = cache.inner.output_ids
    monkeypatch.setattr(cache.inner, "output_ids", lambda texts, *search: calls.append(list(texts)) or original(texts, *search))
    assert service.translate(["Guten Morgen. Vielen Dank."]) == ["Good morning. Thank you very much."]
    # The form re-sends the whole text as it grows: only the new sentence reaches the model.
    assert service.translate(["Guten Morgen. Vielen Dank. Ich habe Hunger."]) == [
        "Good morning. Thank you very much. I am hungry."]
    assert calls == [["Guten Morgen.", "Vielen Dank."], ["Ich habe Hunger."]]
    assert (cache.hits, cache.misses, len(cache)) == (2, 3, 3)


class FakeEngine:
    """Output ids are the text's length; records what it was asked."""

    engine = "fake"

    def __init__(self):
        self.calls = []
        self.tokenizer = self

    def decode(self, ids):
        return f"<{ids[0]}>"

    def output_ids(self, texts, search):
        self.calls.append((list(texts), search))
        return [[len(t) + search.beam_size] for t in texts]

    def align(self, sources, outputs, batch_size=64):
        return [AlignedText(s, self.decode(o)) for s, o in zip(sources, outputs)]


def test_cache_is_lru_and_keyed_by_options():
    fake = FakeEngine()
    cache = CachedTranslator(fake, 2)
    assert cache.translate(["a", "bb", "a"]) == ["<2>", "<3>", "<2>"]
    assert fake.calls == [(["a", "bb"], DEFAULT)]
    assert cache.translate(["a"], SearchOptions(beam_size=4)) == ["<5>"]  # another beam size: another entry
    assert len(cache) == 2 and cache.translate(["bb"]) == ["<3>"]  # "a" (beam 1) was the oldest
    assert [c[0] for c in fake.calls] == [["a", "bb"], ["a"]]
    assert cache.translate(["a"]) == ["<2>"] and [c[0] for c in fake.calls][-1] == ["a"]
    assert (cache.hits, cache.misses) == (2, 4)
    assert cache.translate(["a"], SearchOptions(batch_size=8)) == ["<2>"]  # the batch size is no part of the key
    assert (cache.hits, cache.misses) == (3, 4)
    assert cache.translate_aligned(["bb"]) == [AlignedText("bb", "<3>")]
    assert cache.engine == "fake" and engine_name(cache) == "fake"
    ids = cache.output_ids(["bb"])
    ids[0].append(99)  # callers get copies
    assert cache.output_ids(["bb"]) == [[3]]
    cache.clear()
    assert (len(cache), cache.hits, cache.misses) == (0, 0, 0)


def test_cache_size_is_checked():
    with pytest.raises(ValueError) as info:
        CachedTranslator(FakeEngine(), 0)
    assert str(info.value) == "size must be an integer >= 1, got 0"


def test_gunicorn_workers_each_start_their_own_ct2(tiny_checkpoint, corpus_path, tmp_path, pairs40):
    """preload_app converts the model in the master; each forked worker must make its own
    CTranslate2 translator (the master's threads do not survive the fork)."""
    texts = [de for de, _ in pairs40[:8]]
    answers: dict[str, str] = {}
    with open(tmp_path / "server.log", "wb") as log:
        process, port = server.start(log, environ=isolated_environ(), MODEL_PATH=str(tiny_checkpoint),
                                     CORPUS_PATH=str(corpus_path), WEB_CONCURRENCY="2", ENGINE="ct2",
                                     BEAM_SIZE="4")
        try:
            def ask(text: str) -> None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("POST", "/translate", json.dumps({"q": text, "source": "de", "target": "en"}),
                             {"Content-Type": "application/json"})
                answers[text] = json.loads(conn.getresponse().read())["translatedText"]
                conn.close()
            threads = [threading.Thread(target=ask, args=(t,)) for t in texts]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
        finally:
            server.stop(process)
    assert answers == {de: en for de, en in pairs40[:8]}
