"""app/metrics.py: Prometheus metrics at /metrics (METRICS, METRICS_TOKEN), in one process and summed
over gunicorn's workers (gunicorn.conf.py: PROMETHEUS_MULTIPROC_DIR, child_exit)."""

from __future__ import annotations

import http.client
import importlib.util
import io
import json
import os
import shutil
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from app import StartupError
from app.settings import DEFAULTS, SettingsError, from_env, validate
from bench import server

from .conftest import isolated_environ

ROOT = Path(__file__).resolve().parents[2]
OK = {"source": "de", "target": "en"}


def scrape(client, **headers) -> str:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.data
    assert response.content_type == CONTENT_TYPE_LATEST
    return response.get_data(as_text=True)


def value(text: str, name: str, **labels: str) -> float:
    """The value of sample ``name`` with exactly ``labels`` in an exposition (0 when absent)."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    return 0.0


@pytest.fixture
def metrics_app(make_app):
    return make_app(METRICS=1)


# ------------------------------------------------------------------------------ settings


@pytest.mark.parametrize("name, given, message", [
    ("METRICS", "yes", "METRICS must be 0 or 1, got 'yes'"),
    ("METRICS", "2", "METRICS must be 0 or 1, got '2'"),
    ("METRICS", 2, "METRICS must be 0 or 1, got 2"),
    ("METRICS", 1.0, "METRICS must be 0 or 1, got 1.0"),
    ("METRICS", "", "METRICS must be 0 or 1, got ''"),
    ("METRICS_TOKEN", "two words", "METRICS_TOKEN must be printable ASCII characters without spaces"),
    ("METRICS_TOKEN", "geheim-ä", "METRICS_TOKEN must be printable ASCII characters without spaces"),
    ("METRICS_TOKEN", 1234, "METRICS_TOKEN must be printable ASCII characters without spaces"),
])
def test_bad_settings(name, given, message):
    with pytest.raises(SettingsError) as info:
        validate(dict(DEFAULTS, **{name: given}))
    assert str(info.value) == message


def test_bad_setting_stops_create_app(make_app):
    with pytest.raises(StartupError, match=r"^METRICS must be 0 or 1, got 'on'$"):
        make_app(METRICS="on")


@pytest.mark.parametrize("given, on", [("1", True), (" 1 ", True), ("0", False), (1, True), (False, False)])
def test_good_settings(given, on):
    config = dict(DEFAULTS, METRICS=given, METRICS_TOKEN=" s3cr3t.Token~ ")
    validate(config)
    assert config["METRICS"] is on and config["METRICS_TOKEN"] == "s3cr3t.Token~"


def test_settings_from_the_environment():
    assert from_env({"METRICS": "1", "METRICS_TOKEN": "abc"}) == {"METRICS": "1", "METRICS_TOKEN": "abc"}
    config = dict(DEFAULTS)
    validate(config)
    assert config["METRICS"] is False and config["METRICS_TOKEN"] == ""


# ------------------------------------------------------------------------------ one process


def test_without_metrics_the_path_is_a_json_404(app, client):
    response = client.get("/metrics")
    assert (response.status_code, response.get_json()) == (404, {"error": "Not found"})
    assert "metrics" not in app.extensions
    assert "translate" not in vars(app.extensions["translation_service"])  # nothing wrapped


def test_requests_by_route_and_status(metrics_app):
    client = metrics_app.test_client()
    for _ in range(2):
        assert client.post("/translate", json={"q": "Hallo Welt.", **OK}).status_code == 200
    assert client.post("/translate", json={"q": "Hallo"}).status_code == 400
    assert client.get("/no/such/page").status_code == 404
    assert client.get("/download_file/nothing").status_code == 404
    assert client.get("/health").status_code == 200
    text = scrape(client)
    lines = text.splitlines()
    for line in ('nmt_requests_total{endpoint="/translate",status="200"} 2.0',
                 'nmt_requests_total{endpoint="/translate",status="400"} 1.0',
                 'nmt_requests_total{endpoint="none",status="404"} 1.0',
                 'nmt_requests_total{endpoint="/download_file/<filename>",status="404"} 1.0',
                 'nmt_requests_total{endpoint="/health",status="200"} 1.0',
                 'nmt_request_duration_seconds_count{endpoint="/translate"} 3.0',
                 'nmt_request_duration_seconds_bucket{endpoint="/health",le="+Inf"} 1.0',
                 "nmt_requests_in_flight 1.0"):  # the scrape itself
        assert line in lines, line
    assert 0 < value(text, "nmt_request_duration_seconds_sum", endpoint="/translate") < 60
    assert "/no/such/page" not in text  # raw paths never become labels
    # the scrape is counted once it is answered
    assert 'nmt_requests_total{endpoint="/metrics",status="200"} 1.0' in scrape(client).splitlines()


def test_characters_translated_are_counted_once(metrics_app):
    client = metrics_app.test_client()
    sent = 0
    for body in ({"q": "Grüße aus Köln."},
                 {"q": ["Hallo.", "Guten Morgen."]},
                 {"q": "Guten Morgen. This sentence is English.", "source": "auto"},  # German stretches again
                 {"q": "Guten Morgen. This sentence is English.", "source": "auto", "alternatives": 2},
                 {"q": "<p>Hallo <b>Welt</b></p>", "format": "html"}):
        response = client.post("/translate", json={**OK, **body})
        assert response.status_code == 200, response.get_json()
        sent += sum(map(len, body["q"])) if isinstance(body["q"], list) else len(body["q"])
    assert value(scrape(client), "nmt_characters_translated_total") == sent
    # a file counts its characters as MAX_FILE_CHARS does, not those of the calls it makes
    data = "Guten Morgen.\n\n  Es regnet.\n".encode()
    response = client.post("/translate_file", data={"file": (io.BytesIO(data), "brief.txt"), **OK},
                           content_type="multipart/form-data")
    assert response.status_code == 200
    sent += len(data.decode())
    assert value(scrape(client), "nmt_characters_translated_total") == sent
    # refused requests, /health's probe and the detector translate nothing
    assert client.post("/translate", json={"q": "x" * 6000, **OK}).status_code == 413
    assert client.get("/health").get_json()["status"] == "ok"
    assert client.post("/detect", json={"q": "Hallo Welt"}).status_code == 200
    assert value(scrape(client), "nmt_characters_translated_total") == sent


def test_cache_hits_misses_and_batches(metrics_app):
    client = metrics_app.test_client()
    cache = metrics_app.extensions["translation_service"].cache
    body = {"q": "Guten Morgen. Es regnet.", **OK}
    assert client.post("/translate", json=body).status_code == 200
    text = scrape(client)
    misses = value(text, "nmt_translation_cache_misses_total")
    assert misses >= 2 and misses == cache.misses  # one model input per sentence at least
    assert value(text, "nmt_translation_cache_hits_total") == cache.hits == 0
    # every engine call came from a cache miss: its sentences are the misses
    assert value(text, "nmt_batch_sentences_sum") == misses
    calls = value(text, "nmt_batch_sentences_count")
    assert calls >= 1 and value(text, "nmt_batch_queue_wait_seconds_count") == calls  # one request per call
    # each engine call timed, and inside the request that made it
    assert value(text, "nmt_engine_call_seconds_count") == calls
    assert 0 < value(text, "nmt_engine_call_seconds_sum") < value(text, "nmt_request_duration_seconds_sum",
                                                                  endpoint="/translate")
    assert client.post("/translate", json=body).status_code == 200  # the same text again: all hits
    text = scrape(client)
    assert value(text, "nmt_translation_cache_hits_total") == misses == cache.hits
    assert value(text, "nmt_translation_cache_misses_total") == misses
    assert value(text, "nmt_batch_sentences_count") == calls  # no engine call


def test_without_the_cache(make_app):
    app = make_app(METRICS=1, TRANSLATION_CACHE=0)
    assert app.extensions["translation_service"].cache is None
    client = app.test_client()
    assert client.post("/translate", json={"q": "Hallo Welt.", **OK}).status_code == 200
    text = scrape(client)
    assert value(text, "nmt_translation_cache_misses_total") == value(text, "nmt_translation_cache_hits_total") == 0
    assert value(text, "nmt_batch_sentences_sum") >= 1
    assert value(text, "nmt_characters_translated_total") == len("Hallo Welt.")


def test_each_app_counts_from_zero(make_app):
    """One registry per app: create_app again in the same process neither fails on the names
    already registered nor sees the other app's counts."""
    first, second = make_app(METRICS=1).test_client(), make_app(METRICS=1).test_client()
    first.get("/health")
    first.get("/health")
    second.get("/health")
    assert value(scrape(first), "nmt_requests_total", endpoint="/health", status="200") == 2
    assert value(scrape(second), "nmt_requests_total", endpoint="/health", status="200") == 1


def test_token(make_app):
    client = make_app(METRICS=1, METRICS_TOKEN="s3cret").test_client()
    missing = "Unauthorized: /metrics needs the header Authorization: Bearer <token>"
    for headers, message in (({}, missing),
                             ({"Authorization": "Basic czNjcmV0"}, missing),
                             ({"Authorization": "Bearer"}, missing),
                             ({"Authorization": "Bearer s3cre"}, "Unauthorized: wrong bearer token"),
                             ({"Authorization": "Bearer s3cret2"}, "Unauthorized: wrong bearer token"),
                             ({"Authorization": "Bearer Grüße"}, "Unauthorized: wrong bearer token")):
        response = client.get("/metrics", headers=headers)
        assert (response.status_code, response.get_json()) == (401, {"error": message}), headers
        assert response.headers["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert "nmt_requests_total" in scrape(client, Authorization="Bearer s3cret")
    text = scrape(client, Authorization="bearer  s3cret ")
    assert 'nmt_requests_total{endpoint="/metrics",status="401"} 6.0' in text.splitlines()


# ------------------------------------------------------------------------------ gunicorn


def load_gunicorn_conf(monkeypatch, **env):
    for name in ("METRICS", "PROMETHEUS_MULTIPROC_DIR", "prometheus_multiproc_dir", "WEB_CONCURRENCY"):
        monkeypatch.delenv(name, raising=False)  # also restores what the file sets
    for name, given in env.items():
        monkeypatch.setenv(name, given)
    spec = importlib.util.spec_from_file_location("gunicorn_conf", ROOT / "gunicorn.conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gunicorn_conf_makes_a_private_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # read TMPDIR again
    conf = load_gunicorn_conf(monkeypatch, METRICS="1")
    made = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    assert made.parent == tmp_path and made.name.startswith("nmt-metrics-") and made.is_dir()
    assert stat.S_IMODE(made.stat().st_mode) == 0o700
    # a dead worker's live gauge goes, its counters stay
    (made / "gauge_livesum_4242.db").touch()
    (made / "counter_4242.db").touch()
    conf.child_exit(None, type("Worker", (), {"pid": 4242})())
    assert sorted(p.name for p in made.iterdir()) == ["counter_4242.db"]
    shutil.rmtree(made)


def test_gunicorn_conf_keeps_a_given_directory_and_does_nothing_without_metrics(monkeypatch, tmp_path):
    load_gunicorn_conf(monkeypatch, METRICS="1", PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
    assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(tmp_path)
    conf = load_gunicorn_conf(monkeypatch)
    assert "PROMETHEUS_MULTIPROC_DIR" not in os.environ and conf.metrics is False
    conf.child_exit(None, type("Worker", (), {"pid": 4242})())  # nothing to do


def per_worker(directory: Path, master: int) -> dict[int, float]:
    """Successful /translate requests answered by each worker, from its own counter file."""
    counts = {}
    for path in directory.glob("counter_*.db"):
        pid = int(path.stem.split("_")[1])
        if pid == master:
            continue
        alone = directory.parent / f"alone-{pid}"
        alone.mkdir(exist_ok=True)
        shutil.copy(path, alone / path.name)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(alone))
        counts[pid] = registry.get_sample_value("nmt_requests_total", {"endpoint": "/translate", "status": "200"}) or 0
        shutil.rmtree(alone)
    return counts


def post_translate(port: int, q: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)  # one connection per request
    try:
        connection.request("POST", "/translate", json.dumps({"q": q, **OK}),
                           {"Content-Type": "application/json", "Connection": "close"})
        return connection.getresponse().status
    finally:
        connection.close()


def get_metrics(port: int) -> str:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/metrics", headers={"Connection": "close"})
        response = connection.getresponse()
        assert response.status == 200
        return response.read().decode()
    finally:
        connection.close()


def test_gunicorn_workers_are_summed(tiny_checkpoint, corpus_path, tmp_path):
    """Two workers answer the requests; /metrics, whichever worker answers it, counts them all."""
    environ = isolated_environ()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    q = "Guten Morgen."
    with open(tmp_path / "server.log", "wb") as log:
        process, port = server.start(log, environ={**environ, "TMPDIR": str(tmp)}, MODEL_PATH=str(tiny_checkpoint),
                                     CORPUS_PATH=str(corpus_path), WEB_CONCURRENCY="2", BEAM_SIZE="1", METRICS="1")
        try:
            [directory] = tmp.glob("nmt-metrics-*")
            sent = 0
            with ThreadPoolExecutor(8) as pool:
                # several connections at once, until both workers have answered some
                while sent < 400:
                    assert list(pool.map(post_translate, [port] * 16, [q] * 16)) == [200] * 16
                    sent += 16
                    counts = per_worker(directory, process.pid)
                    if len([c for c in counts.values() if c > 0]) >= 2:
                        break
            assert len([c for c in counts.values() if c > 0]) == 2, counts
            assert sum(counts.values()) == sent
            for _ in range(3):  # whichever worker answers the scrape
                text = get_metrics(port)
                assert value(text, "nmt_requests_total", endpoint="/translate", status="200") == sent
                assert value(text, "nmt_characters_translated_total") == sent * len(q)
                assert value(text, "nmt_requests_in_flight") == 1  # this scrape
            # both workers' caches: every request looked its text up (so did /health's probe), and
            # the first in each worker (or a few at once) missed
            hits, misses = (value(text, f"nmt_translation_cache_{kind}_total") for kind in ("hits", "misses"))
            assert hits > 0 and misses >= 2 and hits + misses >= sent + 1
        finally:
            server.stop(process)
    assert process.returncode == 0
    assert not directory.exists()  # the master removed its directory
    assert "Traceback" not in (tmp_path / "server.log").read_text()
