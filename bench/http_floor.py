"""The HTTP floor: what gunicorn (the Procfile's settings) and a keep-alive client add around a request.

    python bench/http_floor.py [--requests 300] [--work-ms 4] [--server gunicorn|granian]

Serves a WSGI app that does nothing but read the body, wait ``--work-ms`` (as long as the engine
takes for a short sentence) and answer a small JSON object, with ``gunicorn.conf.py`` on a free
loopback port, and sends ``POST /translate`` requests one after another from one connection, the
client busy for 3.5 ms between them (as ``load.py --single`` is with the bare engine). Prints the
median and mean time beyond ``--work-ms``: the part of ``load.py --single``'s overhead that no
change to the app can remove.

``--server granian`` serves the same app with Granian (a WSGI server written in Rust; not a
dependency: ``pip install granian`` first) with as many workers and threads as gunicorn.conf.py
gives, to see how much of that floor a server outside Python would save.
"""

from __future__ import annotations

import argparse
import http.client
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import server  # noqa: E402

APP = '''
import json, time
WORK = float(__import__("os").environ["FLOOR_WORK_MS"]) / 1000
def app(environ, start_response):
    environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    time.sleep(WORK)
    body = json.dumps({"translatedText": "Hello."}).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
'''


SERVERS = ("gunicorn", "granian")


def server_command(name: str, folder: str, port: int) -> list[str]:
    """The command that serves ``folder``'s floor_app with ``name``; granian gets gunicorn.conf.py's
    worker count and threads per worker (WEB_CONCURRENCY, GUNICORN_THREADS, as that file reads them)."""
    if name == "gunicorn":
        return [sys.executable, "-m", "gunicorn", "--config", str(ROOT / "gunicorn.conf.py"), "--chdir", folder,
                "floor_app:app"]
    if importlib.util.find_spec("granian") is None:
        raise ServerMissing("granian is not installed here (pip install granian)")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    workers = os.environ.get("WEB_CONCURRENCY") or str(min(4, cores))
    return [sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", str(port),
            "--workers", workers, "--blocking-threads", os.environ.get("GUNICORN_THREADS", "8"),
            "--working-dir", folder, "--no-access-log", "floor_app:app"]


class ServerMissing(RuntimeError):
    """The server asked for is not installed."""


def measure(requests: int, work_ms: float, server_name: str = "gunicorn") -> dict:
    with tempfile.TemporaryDirectory(prefix="http-floor-") as folder, tempfile.TemporaryFile() as log:
        Path(folder, "floor_app.py").write_text(APP)
        port = server.free_port()
        env = server.procfile_env(os.environ, PORT=str(port), FLOOR_WORK_MS=str(work_ms))
        process = subprocess.Popen(server_command(server_name, folder, port), cwd=ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
        try:
            server.wait_healthy(port, process, timeout=30)  # the bare app answers every path
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            body = json.dumps({"q": "Hallo Welt.", "source": "de", "target": "en"})
            beyond = []
            for _ in range(requests):
                start = time.perf_counter()
                conn.request("POST", "/translate", body=body, headers={"Content-Type": "application/json"})
                conn.getresponse().read()
                beyond.append((time.perf_counter() - start) * 1000 - work_ms)
                busy = time.perf_counter()
                while time.perf_counter() - busy < 0.0035:  # the client at work, as with the bare engine
                    pass
            conn.close()
        finally:
            server.stop(process)
    return {"server": server_name, "requests": requests, "work_ms": work_ms, "beyond_p50_ms": round(statistics.median(beyond), 2),
            "beyond_mean_ms": round(statistics.mean(beyond), 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/http_floor.py", description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300, help="requests, one after another (default 300)")
    parser.add_argument("--work-ms", type=float, default=4.0, help="the app's time per request (default 4)")
    parser.add_argument("--server", choices=SERVERS, default="gunicorn",
                        help="gunicorn with gunicorn.conf.py (default), or granian with as many workers and threads")
    args = parser.parse_args(argv)
    if not 1 <= args.requests <= 100_000 or not 0 <= args.work_ms <= 1000:
        parser.error("--requests must be 1-100000 and --work-ms 0-1000")
    try:
        result = measure(args.requests, args.work_ms, args.server)
    except ServerMissing as error:
        parser.error(str(error))
    label = "gunicorn (gunicorn.conf.py)" if args.server == "gunicorn" else "granian (as many workers and threads)"
    print(f"{label} and a keep-alive client around a {args.work_ms:g} ms app, "
          f"{result['requests']} requests: beyond it p50 {result['beyond_p50_ms']} ms, "
          f"mean {result['beyond_mean_ms']} ms (time.sleep's own overshoot included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
