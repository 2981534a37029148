"""Latency of the translation inspector's API: /api/explain, /api/complete and /api/beam, with
/translate of the same sentence for comparison.

    python bench/inspector.py [--checkpoint CKPT] [--calls 30] [--threads 1] [--beam 4] [--engine auto]
                              [--sentence TEXT] [--prefix TEXT] [--n 5] [--json FILE]

Each endpoint is called ``--calls`` times (after 3 warm-up calls) through the Flask test client of
the real app (``create_app``: settings, validation, the service's lock, JSON), one call at a time,
and the median and 90th percentile (nearest rank) of the wall time are printed in milliseconds,
against the target of 150 ms, with the median CPU time of the process (close to the wall time on
an idle machine; the wall time grows with other load, the CPU time less). Without ``--prefix``,
/api/complete gets the first half of the sentence's translation and two letters of the next word:
a prefix that ends inside a word. "/api/explain +translation" explains the last of those completions
as the page does once a user has chosen it.
``--threads`` sets torch's threads (a worker's share of the cores: cores / WEB_CONCURRENCY).
The translation cache is off (``TRANSLATION_CACHE=0``), so every call does all its work; ``--engine``
is the app's ``ENGINE`` (it decides /translate's and /api/explain's search; /api/complete and
/api/beam always run PyTorch's).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from model.search.options import SERVED  # noqa: E402

TARGET_MS = 150.0
# A typical Tatoeba sentence: 7 pieces (the dev median is 8). The README also gives figures for a
# longer one (14 pieces): "Ich habe gestern im Garten ein kleines Buch über alte Züge gelesen."
SENTENCE = "Wir sollten morgen früh losfahren."


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in (0, 100]) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def mid_word_prefix(translation: str) -> str:
    """The first half of the words and the first two letters of the next one."""
    words = translation.split()
    half = len(words) // 2
    return " ".join(words[:half] + [words[half][:2]]) if words else ""


def measure(client, path: str, body: dict, calls: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU milliseconds of each call (after 3 warm-up calls)."""
    times, cpu = [], []
    for i in range(calls + 3):
        start, start_cpu = time.perf_counter(), time.process_time()
        response = client.post(path, json=body)
        elapsed = (time.perf_counter() - start) * 1000
        elapsed_cpu = (time.process_time() - start_cpu) * 1000
        if response.status_code != 200:
            raise SystemExit(f"bench/inspector.py: error: {path} answered {response.status_code}: "
                             f"{response.get_json()}")
        if i >= 3:
            times.append(elapsed)
            cpu.append(elapsed_cpu)
    return times, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/inspector.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "de-en.pt"))
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--beam", type=int, default=SERVED.beam_size, help="BEAM_SIZE of the app (default: %(default)s)")
    parser.add_argument("--engine", default="auto", choices=("auto", "ct2", "torch"), help="ENGINE of the app")
    parser.add_argument("--sentence", default=SENTENCE)
    parser.add_argument("--prefix", default=None)
    parser.add_argument("--n", type=int, default=5, help="completions asked of /api/complete")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.calls < 1 or args.threads < 1 or args.beam < 1:
        parser.error("--calls, --threads and --beam must be >= 1")

    from app import create_app
    from app.settings import DEFAULTS

    app = create_app({**DEFAULTS, "MODEL_PATH": args.checkpoint, "CORPUS_PATH": "", "DEVICE": "cpu",
                      "TORCH_THREADS": args.threads, "BEAM_SIZE": args.beam, "TESTING": True,
                      "ENGINE": args.engine, "TRANSLATION_CACHE": 0})
    client = app.test_client()
    translation = client.post("/translate", json={"q": args.sentence, "source": "de", "target": "en"}).get_json()
    translation = translation["translatedText"]
    prefix = mid_word_prefix(translation) if args.prefix is None else args.prefix
    completions = client.post("/api/complete", json={"q": args.sentence, "prefix": prefix, "n": args.n})
    chosen = completions.get_json()["completions"][-1]["text"]  # what the page explains after a choice
    cases = [("/translate", {"q": args.sentence, "source": "de", "target": "en"}),
             ("/api/explain", {"q": args.sentence}),
             ("/api/complete", {"q": args.sentence, "prefix": prefix, "n": args.n}),
             ("/api/beam", {"q": args.sentence}),
             ("/api/explain", {"q": args.sentence, "translation": chosen})]
    from model.inference.engines import engine_name

    engine = engine_name(app.extensions["translation_service"].translator)
    print(f"checkpoint {args.checkpoint}, engine {engine}, beam {args.beam}, {args.threads} torch thread(s), "
          f"{args.calls} calls each; load average at start {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"sentence: {args.sentence}\ntranslation: {translation}\nprefix: {prefix!r} (n = {args.n})")
    print(f"chosen alternative (explained with translation=): {chosen}")
    print(f"{'endpoint':<29}{'median ms':>10}{'p90 ms':>10}{'CPU ms':>10}  target {TARGET_MS:.0f} ms")
    rows = []
    for path, body in cases:
        times, cpu = measure(client, path, body, args.calls)
        path += " +translation" if "translation" in body else ""
        median, p90, cpu_median = percentile(times, 50), percentile(times, 90), percentile(cpu, 50)
        verdict = "" if path == "/translate" else "met" if p90 < TARGET_MS else "median met" if median < TARGET_MS \
            else "not met"
        print(f"{path:<29}{median:>10.1f}{p90:>10.1f}{cpu_median:>10.1f}  {verdict}")
        rows.append({"endpoint": path, "median_ms": round(median, 1), "p90_ms": round(p90, 1),
                     "cpu_median_ms": round(cpu_median, 1), "calls": args.calls})
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    if args.json:
        report = {"sentence": args.sentence, "prefix": prefix, "threads": args.threads, "engine": engine,
                  "beam": args.beam, "rows": rows}
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
