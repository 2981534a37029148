"""Load test for the web service: N concurrent clients on loopback for T seconds.

    python bench/load.py --url http://127.0.0.1:8000 --clients 8 --duration 10
    python bench/load.py --checkpoint checkpoints/de-en.pt --clients 8 --duration 10

With --checkpoint it starts the Procfile's ``web:`` command itself (gunicorn on a free port) and
stops it afterwards. Each client sends ``POST /translate`` requests back to back, cycling through a
few German sentences, and the script prints requests/s, p50/p99 latency and errors. Standard
library only (threads + http.client); only loopback addresses are accepted, and clients and time
are bounded, so it cannot be pointed at somebody else's server by accident.
"""

from __future__ import annotations

import argparse
import http.client
import json
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # bench/ is a folder of scripts: ``python bench/load.py`` puts only bench/ there
    sys.path.insert(0, str(ROOT))

from bench import server  # noqa: E402

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_CLIENTS, MAX_DURATION = 64, 300
SENTENCES = [
    "Guten Morgen.", "Wo ist der Bahnhof?", "Das Wetter ist heute schön.", "Ich habe Hunger.",
    "Wir gehen nach Hause.", "Das Buch liegt auf dem Tisch.", "Sprichst du Englisch?", "Die Kinder spielen.",
]


def bounded(low: int, high: int):
    def parse(text: str) -> int:
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {value!r}")
        return value
    return parse


def client(host: str, port: int, deadline: float, offset: int, latencies: list, errors: Counter, lock) -> None:
    conn = http.client.HTTPConnection(host, port, timeout=30)
    i = offset
    while time.perf_counter() < deadline:
        body = json.dumps({"q": SENTENCES[i % len(SENTENCES)], "source": "de", "target": "en"})
        i += 1
        start = time.perf_counter()
        try:
            conn.request("POST", "/translate", body=body, headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            payload = response.read()
            ok = response.status == 200 and "translatedText" in json.loads(payload)
            problem = None if ok else f"HTTP {response.status}"
        except (OSError, http.client.HTTPException, ValueError) as exc:
            problem = type(exc).__name__
            conn.close()  # a fresh connection for the next request
        elapsed = time.perf_counter() - start
        with lock:
            if problem:
                errors[problem] += 1
            else:
                latencies.append(elapsed)
    conn.close()


def run_load(host: str, port: int, clients: int, duration: float) -> dict:
    latencies: list[float] = []
    errors: Counter = Counter()
    lock = threading.Lock()
    deadline = time.perf_counter() + duration
    threads = [threading.Thread(target=client, args=(host, port, deadline, k, latencies, errors, lock), daemon=True)
               for k in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(duration + 60)
    wall = time.perf_counter() - started
    ordered = sorted(latencies)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000 if ordered else float("nan")

    return {"clients": clients, "duration_s": round(wall, 2), "requests": len(ordered),
            "requests_per_s": round(len(ordered) / wall, 1), "p50_ms": round(pct(50), 1),
            "p99_ms": round(pct(99), 1), "max_ms": round(ordered[-1] * 1000, 1) if ordered else None,
            "errors": sum(errors.values()), "error_kinds": dict(errors)}


def start_server(checkpoint: str, workers: int | None) -> tuple[subprocess.Popen, int]:
    settings = {"MODEL_PATH": str(Path(checkpoint).resolve())}
    if workers:
        settings["WEB_CONCURRENCY"] = str(workers)
    # The server's log would drown the report: it goes to a file, shown only if the server fails.
    log = tempfile.TemporaryFile()
    try:
        return server.start(log, timeout=120, **settings)
    except server.ServerError as error:
        log.seek(0)
        sys.stderr.write(log.read().decode(errors="replace")[-4000:])
        raise SystemExit(f"bench/load.py: error: {error}") from None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", help="a running server on loopback, e.g. http://127.0.0.1:8000")
    target.add_argument("--checkpoint", help="start the Procfile's web command with this MODEL_PATH")
    parser.add_argument("--clients", type=bounded(1, MAX_CLIENTS), default=8)
    parser.add_argument("--duration", type=bounded(1, MAX_DURATION), default=10, help="seconds")
    parser.add_argument("--workers", type=bounded(1, 16), help="WEB_CONCURRENCY for --checkpoint")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    process = None
    if args.url:
        url = urllib.parse.urlsplit(args.url)
        if url.scheme != "http" or url.hostname not in LOOPBACK:
            raise SystemExit(f"bench/load.py: error: --url must be http:// on loopback, got {args.url!r}")
        host, port = url.hostname, url.port or 80
    else:
        process, port = start_server(args.checkpoint, args.workers)
        host = "127.0.0.1"
    try:
        client(host, port, time.perf_counter() + 0.5, 0, [], Counter(), threading.Lock())  # warm-up
        result = run_load(host, port, args.clients, args.duration)
    finally:
        if process is not None:
            server.stop(process)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['clients']} clients, {result['duration_s']} s: {result['requests']} requests, "
              f"{result['requests_per_s']} requests/s, p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms, "
              f"max {result['max_ms']} ms, errors {result['errors']} {result['error_kinds'] or ''}".rstrip())
    return 0 if result["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
