"""The dictionary panel's index (model.data.ding.DingDictionary): load time, memory, lookup time,
and what a forked worker copies of it.

    python bench/dictionary.py [--path /usr/share/trans/de-en] [--source de|en] [--in-worker]
                               [--lookups 10000] [--json]

Load: ``DingDictionary(path, source)`` as ``create_app`` builds it (in gunicorn's master), wall and
CPU time and the process's RSS before and after (after ``gc.collect()``), and the bytes of the
index's arrays. Fork: a child process, as a gunicorn worker is forked after loading, looks up
``--lookups`` words (the first word of Ding's lines on the ``--source`` side, an English verb's
after "to", spread over the file, and their lower-case forms, so hits and misses) and reports how
many of its pages became private (``Private_Dirty`` in /proc/self/smaps_rollup, before and after):
the index's pages a worker copies instead of sharing. Lookups: median and 99th percentile time of
one ``lookup``, in the child. ``--in-worker``: the child builds the index itself before its
lookups, as a worker would that built it on its first lookup (lazily) instead of sharing the
master's; its private memory then includes the index, and ``worker_build_s`` is what that first
lookup would wait.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model.data.ding import SOURCES, DingDictionary  # noqa: E402


def status_kb(field: str, path: str = "/proc/self/status") -> int:
    with open(path, encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def words(path: str, n: int, source: str = "de") -> list[str]:
    sides = [line.split(" :: ")[SOURCES.index(source)] for line in Path(path).read_text(encoding="utf-8").splitlines()
             if " :: " in line and not line.startswith("#")]
    step = max(1, len(sides) // n)
    firsts = []
    for side in sides[::step][: n // 2]:
        first = side.split()
        firsts.append((first[1] if first[0] == "to" and len(first) > 1 else first[0]).strip(";,"))
    return firsts + [w.lower() for w in firsts]


def child(index: DingDictionary | None, queries: list[str], connection, path: str, source: str) -> None:
    """In a process forked after loading, as a gunicorn worker is: lookups, and the pages they made
    private; with no ``index``, the index built here first."""
    gc.collect()
    before = status_kb("Private_Dirty", "/proc/self/smaps_rollup")
    built = {}
    if index is None:
        started = time.perf_counter()
        index = DingDictionary(path, source)
        built = {"worker_build_s": round(time.perf_counter() - started, 2)}
    times = []
    found = 0
    for q in queries:
        t = time.perf_counter()
        found += bool(index.lookup(q))
        times.append(time.perf_counter() - t)
    after = status_kb("Private_Dirty", "/proc/self/smaps_rollup")
    times.sort()
    connection.send({**built, "lookups": len(queries), "found": found,
                     "lookup_p50_ms": round(statistics.median(times) * 1000, 3),
                     "lookup_p99_ms": round(times[int(len(times) * 0.99)] * 1000, 3),
                     "private_dirty_growth_mb": round((after - before) / 1024, 2)})
    connection.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", default="/usr/share/trans/de-en")
    parser.add_argument("--source", choices=SOURCES, default="de", help="the side looked up (default de)")
    parser.add_argument("--in-worker", action="store_true", help="build the index in the forked child, not before")
    parser.add_argument("--lookups", type=int, default=10_000)
    parser.add_argument("--json", action="store_true", help="one JSON object instead of lines")
    args = parser.parse_args(argv)
    queries = words(args.path, args.lookups, args.source)
    result = {"path": args.path, "source": args.source}
    index = None
    if not args.in_worker:
        gc.collect()
        rss0 = status_kb("VmRSS")
        started, cpu = time.perf_counter(), time.process_time()
        index = DingDictionary(args.path, args.source)
        load_s, load_cpu_s = time.perf_counter() - started, time.process_time() - cpu
        gc.collect()
        result.update({"version": index.version, "keys": len(index), "load_s": round(load_s, 2),
                       "load_cpu_s": round(load_cpu_s, 2), "rss_growth_mb": round((status_kb("VmRSS") - rss0) / 1024, 1),
                       "index_mb": round(index.nbytes() / 1e6, 1)})
    result["loadavg"] = os.getloadavg()[0]
    fork = multiprocessing.get_context("fork")
    receive, send = fork.Pipe(duplex=False)
    worker = fork.Process(target=child, args=(index, queries, send, args.path, args.source))
    worker.start()
    result.update(receive.recv())
    worker.join()
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
