"""Slow clients against the server as the Procfile starts it: does it go on answering?

    python bench/slow_clients.py --checkpoint checkpoints/de-en.pt --connections 100 --duration 20
    python bench/slow_clients.py --url http://127.0.0.1:8000 --attack body

``--connections`` sockets each send one byte of a request every ``--interval`` seconds (slowloris):
``--attack head`` trickles the request head (``POST /translate HTTP/1.1``, then a header that never
ends), ``--attack body`` sends a whole head with ``Content-Length: 100000`` and then trickles the body.
Meanwhile a probe asks ``GET /health`` and ``POST /translate`` (a new sentence each time) one after
the other, each with a ``--limit`` second timeout, and the same probe runs for a few seconds before
the attack as the baseline. It prints the median and the highest latency of each route before and
during the attack, the probes that failed or timed out, and what the slow sockets got back (a 408
with JSON once the server's read deadline passes, or nothing while they are still being read).
Exit status 0, or 1 where a probe during the attack failed or took longer than ``--limit``.

With ``--checkpoint`` it starts the Procfile's ``web:`` command (bench/server.py) and stops it
afterwards. Only loopback addresses are accepted; connections and time are bounded.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import server  # noqa: E402
from bench.load import DEFAULT_SENTENCES, read_sentences  # noqa: E402

HEAD = b"POST /translate HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 4000


def bounded(low: float, high: float, kind=int):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number from {low} to {high}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, got {text!r}")
        return value
    return parse


def slow_request(attack: str) -> tuple[bytes, bytes]:
    """What a slow socket sends at once, and what it then trickles: nothing and a head that never
    ends, or a whole head and then its body."""
    if attack == "head":
        return b"", HEAD
    body = json.dumps({"q": "Hallo " * 20000})[:100_000].encode()
    return (b"POST /translate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000\r\n\r\n", body)


class SlowSockets:
    """``connections`` sockets each sending ``first`` and then the next byte of ``payload`` every
    ``interval`` s, in a thread, until the block ends; what each got back is kept (the server's
    answer, or b"")."""

    def __init__(self, host: str, port: int, connections: int, interval: float, request: tuple[bytes, bytes]):
        self.host, self.port, self.interval = host, port, interval
        self.first, self.payload = request
        self.connections = connections
        self.answers: list[bytes] = []
        self.opened = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        socks = []
        for _ in range(self.connections):
            try:
                s = socket.create_connection((self.host, self.port), timeout=5)
                s.sendall(self.first)
                s.setblocking(False)
                socks.append(s)
            except OSError:
                break
        self.opened = len(socks)
        done: dict[socket.socket, bytes] = {}
        step = 0
        while not self._stop.wait(self.interval) and step < len(self.payload):
            for s in socks:
                if s in done:
                    continue
                try:
                    s.send(self.payload[step:step + 1])
                except BlockingIOError:
                    pass
                except OSError:
                    done[s] = self._read(s)
            step += 1
        for s in socks:
            done.setdefault(s, self._read(s))
            s.close()
        self.answers = list(done.values())

    @staticmethod
    def _read(s: socket.socket) -> bytes:
        try:
            return s.recv(65536)
        except OSError:
            return b""

    def __enter__(self) -> "SlowSockets":
        self._thread.start()
        time.sleep(min(2.0, self.interval * 3))  # every socket open and sending before the probes
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def probe(host: str, port: int, seconds: float, limit: float, sentences) -> dict[str, list[float | None]]:
    """Alternate GET /health and POST /translate (the next of ``sentences``, an iterator) for
    ``seconds``: each route's latencies in seconds, None for a request that failed, timed out or
    answered other than 200."""
    times: dict[str, list[float | None]] = {"/health": [], "/translate": []}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for path in times:
            body = (urllib.parse.urlencode({"q": next(sentences), "source": "de", "target": "en"}).encode()
                    if path == "/translate" else None)
            start = time.monotonic()
            conn = http.client.HTTPConnection(host, port, timeout=limit)
            try:
                conn.request("POST" if body else "GET", path, body,
                             {"Content-Type": "application/x-www-form-urlencoded"} if body else {})
                ok = conn.getresponse().status == 200
                times[path].append(time.monotonic() - start if ok else None)
            except (OSError, http.client.HTTPException):
                times[path].append(None)
            finally:
                conn.close()
        time.sleep(0.2)
    return times


def summary(latencies: list[float | None]) -> dict:
    ok = [t for t in latencies if t is not None]
    return {"requests": len(latencies), "failed": len(latencies) - len(ok),
            "p50_ms": round(statistics.median(ok) * 1000, 1) if ok else None,
            "max_ms": round(max(ok) * 1000, 1) if ok else None}


def run(host: str, port: int, args: argparse.Namespace) -> dict:
    sentences = iter(read_sentences(DEFAULT_SENTENCES))  # new ones: the translation cache cannot answer
    before = probe(host, port, args.baseline, args.limit, sentences)
    with SlowSockets(host, port, args.connections, args.interval, slow_request(args.attack)) as attack:
        during = probe(host, port, args.duration, args.limit, sentences)
    answers = [a.split(b"\r\n", 1)[0].decode("latin-1") or "(nothing)" for a in attack.answers]
    return {"attack": args.attack, "connections": attack.opened, "interval_s": args.interval,
            "before": {path: summary(t) for path, t in before.items()},
            "during": {path: summary(t) for path, t in during.items()},
            "slow_sockets_got": {a: answers.count(a) for a in sorted(set(answers))}}


def held(result: dict, limit: float) -> bool:
    return all(s["failed"] == 0 and s["max_ms"] is not None and s["max_ms"] <= limit * 1000
               for s in result["during"].values())


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", help="a running server on loopback, e.g. http://127.0.0.1:8000")
    target.add_argument("--checkpoint", help="start the Procfile's web command with this MODEL_PATH")
    p.add_argument("--connections", type=bounded(1, 500), default=100)
    p.add_argument("--attack", choices=("head", "body"), default="head")
    p.add_argument("--interval", type=bounded(0.05, 5, float), default=0.5, help="seconds between a socket's bytes")
    p.add_argument("--duration", type=bounded(1, 300, float), default=20, help="seconds of attack")
    p.add_argument("--baseline", type=bounded(1, 60, float), default=3, help="seconds of probing before it")
    p.add_argument("--limit", type=bounded(0.1, 30, float), default=1.0, help="seconds a probe may take")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = p.parse_args(argv)
    if args.url:
        parts = urllib.parse.urlsplit(args.url)
        if parts.hostname not in ("127.0.0.1", "localhost", "::1") or not parts.port:
            p.error(f"--url must be a loopback address with a port, got {args.url!r}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.url:
        parts = urllib.parse.urlsplit(args.url)
        result = run(parts.hostname, parts.port, args)
    else:
        with tempfile.TemporaryFile() as log:
            process, port = server.start(log, timeout=120, MODEL_PATH=args.checkpoint)
            try:
                result = run("127.0.0.1", port, args)
            finally:
                server.stop(process)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['connections']} slow connections ({args.attack}, a byte every {args.interval:g} s)")
        for phase in ("before", "during"):
            for path, s in result[phase].items():
                print(f"  {phase:6} {path:10} p50 {s['p50_ms']} ms, max {s['max_ms']} ms, "
                      f"{s['failed']} of {s['requests']} failed")
        print("  the slow sockets got: " + ", ".join(f"{n} × {a}" for a, n in result["slow_sockets_got"].items()))
    return 0 if held(result, args.limit) else 1


if __name__ == "__main__":
    sys.exit(main())
