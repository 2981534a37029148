"""Start the web service exactly as a platform does, wait until /health answers, and stop it again.

One copy for bench/load.py and the deployment tests (tests/app/conftest.py), so that both run the
Procfile's ``web:`` command itself, not a command of their own that could drift from it. Standard
library only; import it as ``bench.server`` with the repository root on sys.path.
"""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]


class ServerError(RuntimeError):
    """The Procfile has no single web: line, or the server exited or never answered /health."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def procfile_web_command(procfile: Path = ROOT / "Procfile") -> str:
    lines = [line for line in procfile.read_text().splitlines() if line.startswith("web:")]
    if len(lines) != 1:
        raise ServerError(f"{procfile.name} needs exactly one web: line, found {len(lines)}")
    return lines[0][len("web:"):].strip()


def procfile_env(environ: Mapping[str, str], **settings: str) -> dict[str, str]:
    """``environ`` plus ``settings``, with this Python's bin directory first on PATH, so that the
    Procfile's gunicorn is the one of this environment whether or not it is activated."""
    env = dict(environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(settings)
    return env


def start_procfile(env: Mapping[str, str], log: IO[bytes]) -> subprocess.Popen:
    # Run by a shell as Heroku-style platforms do; exec, so that signals reach gunicorn itself.
    return subprocess.Popen(["/bin/sh", "-c", "exec " + procfile_web_command()], cwd=ROOT, env=dict(env),
                            stdout=log, stderr=subprocess.STDOUT)


def wait_healthy(port: int, server: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise ServerError(f"the server exited with status {server.returncode}")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return
        except (OSError, http.client.HTTPException):
            pass  # not listening yet, or a worker restarting: ask again
        finally:
            conn.close()
        time.sleep(0.2)
    raise ServerError(f"the server did not answer /health within {timeout:g} s")


def stop(server: subprocess.Popen, timeout: float = 30) -> None:
    """SIGTERM (gunicorn's graceful shutdown), then SIGKILL if it is not gone after ``timeout`` s."""
    server.terminate()
    try:
        server.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def start(log: IO[bytes], *, environ: Mapping[str, str] | None = None, timeout: float = 60,
          **settings: str) -> tuple[subprocess.Popen, int]:
    """The Procfile's web: command on a free loopback port with ``settings`` in its environment
    (on top of ``environ``, default os.environ), once /health answers 200: ``(process, port)``.
    Its stdout and stderr go to ``log``. If it does not become healthy it is stopped and
    ServerError raised; otherwise the caller stops it with ``stop``."""
    port = free_port()
    env = procfile_env(os.environ if environ is None else environ, **settings, PORT=str(port))
    server = start_procfile(env, log)
    try:
        wait_healthy(port, server, timeout)
    except BaseException:
        stop(server)
        raise
    return server, port


def pss_mib(process: subprocess.Popen) -> float:
    """Proportional set size of a server and its workers (MiB): shared pages (the preloaded
    weights, libraries) count once over their sharers, from /proc/PID/smaps_rollup."""
    return sum(_pss_kib(pid) for pid in [process.pid, *children(process.pid)]) / 1024


class PeakPss:
    """``with PeakPss(process) as peak:`` samples ``pss_mib`` every ``interval`` seconds in a
    thread while the block runs; ``peak.mib`` is the highest sample (None if none was taken)."""

    def __init__(self, process: subprocess.Popen, interval: float = 0.25):
        self.process, self.interval, self.mib = process, interval, None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.wait(self.interval):
            try:
                mib = pss_mib(self.process)
            except (OSError, ValueError, ServerError):
                continue  # a worker exiting between the listing and the read
            self.mib = mib if self.mib is None else max(self.mib, mib)

    def __enter__(self) -> "PeakPss":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()


def _pss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    raise ServerError(f"no Pss line for process {pid!r}")


def children(pid: int) -> list[int]:
    """The process ids whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found
