"""Fixtures for the web service tests: the app on the tiny checkpoint, its test client, and a
real server started from the Procfile's web: command."""

from __future__ import annotations

import logging
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from app import create_app
from app.settings import DEFAULTS
from bench import server
from bench.server import free_port, procfile_env, procfile_web_command, start_procfile  # noqa: F401 (test_deploy)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def app_config(tiny_checkpoint, corpus_path, tmp_path_factory) -> dict:
    """Every setting spelled out, so that variables in the developer's environment cannot leak in.
    The PyTorch engine: tests of CTranslate2 in the app ask for ENGINE="ct2" themselves, and the
    release model as served is tested in tests/test_release.py."""
    config = dict(DEFAULTS)
    config.update(
        TESTING=True,
        MODEL_PATH=str(tiny_checkpoint),
        CORPUS_PATH=str(corpus_path),
        MODEL_CARD_PATH=str(tmp_path_factory.mktemp("card") / "MODEL_CARD.md"),  # absent
        DEVICE="cpu",
        ENGINE="torch",
        BEAM_SIZE=1,
        # create_app sets torch's process-wide thread count: keep whatever the test process uses.
        TORCH_THREADS=torch.get_num_threads(),
    )
    return config


@pytest.fixture(scope="session")
def app(app_config):
    return create_app(app_config)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def make_app(app_config):
    """create_app with some settings changed."""
    def make(**changes):
        return create_app({**app_config, **changes})
    return make


def server_env(**settings: str) -> dict[str, str]:
    """The environment a PaaS gives the web process: PORT and settings, and none of the app's
    settings from the developer's environment."""
    return procfile_env(isolated_environ(), **settings)


def isolated_environ() -> dict[str, str]:
    # PROMETHEUS_MULTIPROC_DIR too: gunicorn.conf.py sets it in the process that loads it (a test
    # of that file does), and a server must make its own.
    return {k: v for k, v in os.environ.items()
            if k not in DEFAULTS and k not in ("WEB_CONCURRENCY", "PROMETHEUS_MULTIPROC_DIR")}


@dataclass
class LiveServer:
    url: str
    port: int
    log: Path  # the server's stdout and stderr so far

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="session")
def live_server(tiny_checkpoint, corpus_path, tmp_path_factory):
    """gunicorn started with the Procfile's web: command on a free port (stopped after the session)."""
    log_path = tmp_path_factory.mktemp("live_server") / "server.log"
    with open(log_path, "wb") as log:
        process, port = server.start(log, environ=isolated_environ(), MODEL_PATH=str(tiny_checkpoint),
                                     CORPUS_PATH=str(corpus_path), WEB_CONCURRENCY="2", BEAM_SIZE="1")
        try:
            yield LiveServer(f"http://127.0.0.1:{port}", port, log_path)
        finally:
            server.stop(process)


@pytest.fixture
def no_logged_errors(caplog):
    """Client mistakes must not be logged as server errors (no tracebacks in the log)."""
    caplog.set_level(logging.WARNING)
    yield
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.fixture
def model_calls(app, monkeypatch) -> list[list[str]]:
    """The lists of texts the app's service gives its translator, call by call."""
    translator = app.extensions["translation_service"].translator
    calls: list[list[str]] = []
    original = translator.translate

    def spy(texts, *search):
        calls.append(list(texts))
        return original(texts, *search)

    monkeypatch.setattr(translator, "translate", spy)
    return calls


# ------------------------------------------------------------------------------ browser tests

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright (never a downloaded browser), one per session."""
    from playwright.sync_api import sync_playwright

    # No bypass_csp: a CSP violation by our own scripts must show up as a console error.
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield browser
        browser.close()


def recording(context):
    """A page of ``context`` and the console errors and uncaught exceptions it collects."""
    page = context.new_page()
    page.set_default_timeout(20_000)
    problems = []
    page.on("console", lambda msg: msg.type == "error" and problems.append(f"console: {msg.text}"))
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    return page, problems


@pytest.fixture
def page(browser):
    """A fresh desktop-sized page; no console errors allowed (checked after the test)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page, problems = recording(context)
    yield page
    context.close()
    assert problems == []


# ------------------------------------------------------------------------------ Redis

@dataclass
class RedisServer:
    """A real redis-server (the Debian package) on a free loopback port, without persistence."""

    port: int
    process: "subprocess.Popen"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        """Kill the server (an outage): clients see refused connections from now on."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def start_redis() -> RedisServer:
    import shutil
    import time

    import redis

    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is missing: apt-get install redis-server (.ci/run installs it)")
    port = free_port()
    process = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port, socket_connect_timeout=0.2)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                pytest.fail(f"redis-server did not start on port {port}")
            time.sleep(0.05)
    return RedisServer(port, process)


@pytest.fixture(scope="session")
def redis_server():
    """One redis-server for the session; tests use distinct keys or flush it (``redis_url``)."""
    server = start_redis()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server) -> str:
    """The session's Redis, emptied for this test."""
    import redis

    redis.Redis.from_url(redis_server.url).flushall()
    return redis_server.url


@pytest.fixture
def own_redis():
    """A redis-server of this test alone, for outage tests (``.stop()`` kills it)."""
    server = start_redis()
    try:
        yield server
    finally:
        server.stop()
