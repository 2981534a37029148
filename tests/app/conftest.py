"""Fixtures for the web service tests: the app on the tiny checkpoint, its test client, and a
real server started from the Procfile's web: command."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from app import create_app
from app.settings import DEFAULTS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def app_config(tiny_checkpoint, corpus_path, tmp_path_factory) -> dict:
    """Every setting spelled out, so that variables in the developer's environment cannot leak in."""
    config = dict(DEFAULTS)
    config.update(
        TESTING=True,
        MODEL_PATH=str(tiny_checkpoint),
        CORPUS_PATH=str(corpus_path),
        MODEL_CARD_PATH=str(tmp_path_factory.mktemp("card") / "MODEL_CARD.md"),  # absent
        DEVICE="cpu",
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def procfile_web_command() -> str:
    lines = [line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:")]
    assert len(lines) == 1, "the Procfile needs exactly one web: line"
    return lines[0][len("web:"):].strip()


def server_env(**settings: str) -> dict[str, str]:
    """The environment a PaaS gives the web process: PORT, settings, and gunicorn on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in DEFAULTS and k != "WEB_CONCURRENCY"}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(settings)
    return env


def start_procfile(env: dict[str, str], log) -> subprocess.Popen:
    # Exactly the Procfile's command, run by a shell as Heroku-style platforms do.
    return subprocess.Popen(["/bin/sh", "-c", "exec " + procfile_web_command()], cwd=ROOT, env=env,
                            stdout=log, stderr=subprocess.STDOUT)


def wait_until_healthy(port: int, server: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert server.poll() is None, f"the server exited with status {server.returncode}"
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the server did not answer /health in time")


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
    port = free_port()
    env = server_env(PORT=str(port), MODEL_PATH=str(tiny_checkpoint), CORPUS_PATH=str(corpus_path),
                     WEB_CONCURRENCY="2", BEAM_SIZE="1")
    log_path = tmp_path_factory.mktemp("live_server") / "server.log"
    with open(log_path, "wb") as log:
        server = start_procfile(env, log)
        try:
            wait_until_healthy(port, server)
            yield LiveServer(f"http://127.0.0.1:{port}", port, log_path)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
