"""The dictionary panel's index (model.data.ding.DingDictionary): load time, memory, lookup time,
and what a forked worker copies of it.

    python bench/dictionary.py [--path /usr/share/trans/de-en] [--lookups 10000] [--json]

Load: ``DingDictionary(path)`` as ``create_app`` builds it (in gunicorn's master), wall time and the
process's RSS before and after (after ``gc.collect()``), and the bytes of the index's arrays. Fork:
a child process, as a gunicorn worker is forked after loading, looks up ``--lookups`` words (the
first German word of Ding's lines, spread over the file, and their lower-case forms, so hits and
misses) and reports how many of its pages became private (``Private_Dirty`` in
/proc/self/smaps_rollup, before and after): the index's pages a worker copies instead of sharing.
Lookups: median and 99th percentile time of one ``lookup``, in the child.
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

from model.data.ding import DingDictionary  # noqa: E402


def status_kb(field: str, path: str = "/proc/self/status") -> int:
    with open(path, encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def words(path: str, n: int) -> list[str]:
    lines = [line for line in Path(path).read_text(encoding="utf-8").splitlines() if " :: " in line
             and not line.startswith("#")]
    step = max(1, len(lines) // n)
    firsts = [line.split()[0].strip(";,") for line in lines[::step]][: n // 2]
    return firsts + [w.lower() for w in firsts]


def child(index: DingDictionary, queries: list[str], connection) -> None:
    """In a process forked after loading, as a gunicorn worker is: lookups, and the pages they made private."""
    gc.collect()
    before = status_kb("Private_Dirty", "/proc/self/smaps_rollup")
    times = []
    found = 0
    for q in queries:
        t = time.perf_counter()
        found += bool(index.lookup(q))
        times.append(time.perf_counter() - t)
    after = status_kb("Private_Dirty", "/proc/self/smaps_rollup")
    times.sort()
    connection.send({"lookups": len(queries), "found": found,
                     "lookup_p50_ms": round(statistics.median(times) * 1000, 3),
                     "lookup_p99_ms": round(times[int(len(times) * 0.99)] * 1000, 3),
                     "private_dirty_growth_mb": round((after - before) / 1024, 2)})
    connection.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", default="/usr/share/trans/de-en")
    parser.add_argument("--lookups", type=int, default=10_000)
    parser.add_argument("--json", action="store_true", help="one JSON object instead of lines")
    args = parser.parse_args(argv)
    queries = words(args.path, args.lookups)
    gc.collect()
    rss0 = status_kb("VmRSS")
    started = time.perf_counter()
    index = DingDictionary(args.path)
    load_s = time.perf_counter() - started
    gc.collect()
    result = {"path": args.path, "version": index.version, "keys": len(index), "load_s": round(load_s, 2),
              "rss_growth_mb": round((status_kb("VmRSS") - rss0) / 1024, 1),
              "index_mb": round(index.nbytes() / 1e6, 1), "loadavg": os.getloadavg()[0]}
    fork = multiprocessing.get_context("fork")
    receive, send = fork.Pipe(duplex=False)
    worker = fork.Process(target=child, args=(index, queries, send))
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
