#!/usr/bin/env python
"""Inference engines side by side: ours (PyTorch) vs CTranslate2 float32 vs CTranslate2 int8.

    python bench/engines.py [--checkpoint CKPT] [--data CORPUS] [--threads N] [--bleu] [--json FILE]
    python bench/engines.py --quick                 # smoke run: few sentences, one repeat
    python bench/engines.py --skip-served           # model figures only
    python bench/engines.py --skip-model            # service figures only

One run, one checkpoint, the same German sentences (the distinct sources of --data, default
runs/v2/test.tsv, the held-out Tatoeba split) for every engine; the three engines share one
PyTorch model, the CT2 ones are converted from it in memory (model/inference/ct2_engine.py).

1. Bare model (``translate`` of each engine, no text pipeline): greedy and beam 4, batched
   (--sentences sentences, batch size 64) and one sentence at a time (--single sentences):
   sentences/s and, one at a time, the median latency. Engines take turns within each repeat
   (median of --repeats); "same" counts outputs identical to ours. --bleu also scores each
   engine through the text pipeline (beam 4) on all of --data, as ``commands.evaluate`` does.
2. Served (--workers gunicorn workers started by the Procfile's command, ENGINE=torch and then
   ENGINE=ct2): startup (process start to the first 200 from /health), p50/p99 latency of
   single-sentence POST /translate requests sent one after the other (distinct sentences, so the
   translation cache never hits; a second round repeats them, all hits), and the memory of the
   master and workers together (PSS, from /proc/PID/smaps_rollup).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from dataclasses import replace
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # bench/ is a folder of scripts, not a package
    sys.path.insert(0, str(ROOT))

from bench import server  # noqa: E402

CELLS = [("greedy", 1, True), ("greedy", 1, False), ("beam 4", 4, True), ("beam 4", 4, False)]


def progress(message: str) -> None:
    print(f"[engines] {message}", file=sys.stderr, flush=True)


def load_sources(path: str) -> tuple[list[str], list]:
    from commands.evaluate import load_corpus

    return load_corpus(path)


class RawCT2:
    """CTranslate2 called directly with its default search options (the issue's baseline): no
    per-sentence length limits, no GNMT rescoring, no PAD/BOS suppression."""

    def __init__(self, engine):
        self.engine, self.tokenizer = engine, engine.tokenizer

    def translate(self, texts, search):
        from model.data import normalize

        ids = self.tokenizer.encode_batch([normalize(t) for t in texts])
        results = self.engine.engine_translator().translate_batch(
            [self.tokenizer.pieces(s) for s in ids], beam_size=search.beam_size, max_batch_size=search.batch_size)
        piece_ids = self.engine.piece_ids
        return [self.tokenizer.decode([piece_ids[p] for p in r.hypotheses[0]]) for r in results]


def make_engines(checkpoint: str, threads: int) -> dict:
    """torch, ct2-float32 and ct2-int8 on one PyTorch model, and ct2-int8 called directly."""
    from model.inference.ct2_engine import CT2Translator
    from model.inference.translator import Translator

    torch_translator = Translator.from_checkpoint(checkpoint, device="cpu")
    engines = {"torch": torch_translator}
    for quantization in ("float32", "int8"):
        engine = CT2Translator(torch_translator, quantization=quantization, threads=threads)
        engine.engine_translator()  # its load is startup, not translation
        engines[f"ct2-{quantization}"] = engine
    engines["ct2-int8-raw"] = RawCT2(engines["ct2-int8"])
    return engines


def time_cell(translator, texts: list[str], beam: int, batched: bool) -> tuple[float, float, float, list[str]]:
    """(sentences/s, median ms per call, CPU ms per sentence, outputs). CPU time (this process,
    all threads) is steadier than wall time on a shared machine."""
    import torch

    from model.search.options import DEFAULT

    search = replace(DEFAULT, beam_size=beam)  # the bare model's search
    cpu = time.process_time()
    with torch.inference_mode():
        if batched:
            start = time.perf_counter()
            outputs = translator.translate(texts, search)
            latencies = [time.perf_counter() - start]
        else:
            outputs, latencies = [], []
            for text in texts:
                start = time.perf_counter()
                outputs += translator.translate([text], search)
                latencies.append(time.perf_counter() - start)
    cpu_ms = (time.process_time() - cpu) * 1000 / len(texts)
    return len(texts) / sum(latencies), statistics.median(latencies) * 1000, cpu_ms, outputs


def bench_model(engines: dict, batched: list[str], single: list[str], repeats: int) -> list[dict]:
    rows = []
    names = list(engines)
    for label, beam, is_batched in CELLS:
        texts = batched if is_batched else single
        runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in names}
        outputs: dict[str, list[str]] = {}
        for name in names:  # warm-up
            time_cell(engines[name], texts[:4], beam, is_batched)
        for r in range(repeats):
            for name in names[r % len(names):] + names[:r % len(names)]:  # turns rotate
                rate, ms, cpu_ms, outputs[name] = time_cell(engines[name], texts, beam, is_batched)
                runs[name].append((rate, ms, cpu_ms))
        for name in names:
            same = sum(a == b for a, b in zip(outputs[name], outputs["torch"]))
            rows.append({"cell": f"{label}, {'batched' if is_batched else 'one at a time'}", "engine": name,
                         "sentences": len(texts),
                         "sentences_per_s": round(statistics.median(r for r, _, _ in runs[name]), 1),
                         "median_ms": None if is_batched else round(statistics.median(m for _, m, _ in runs[name]), 2),
                         "cpu_ms_per_sentence": round(statistics.median(c for _, _, c in runs[name]), 2),
                         "same_as_torch": same})
        progress(f"{label}, {'batched' if is_batched else 'one at a time'} done")
    return rows


def bench_bleu(engines: dict, sources: list[str], streams: list) -> dict:
    from commands.evaluate import score, translate_all
    from model.search.options import SERVED

    args = SimpleNamespace(raw=False, search=SERVED)  # through the text pipeline, as served
    result = {}
    for name, translator in engines.items():
        if isinstance(translator, RawCT2):
            continue
        start = time.perf_counter()
        hyps = translate_all(translator, sources, args)
        scores = score(hyps, streams)
        result[name] = {"bleu": round(scores["bleu"].score, 2), "chrf": round(scores["chrf"].score, 2),
                        "seconds": round(time.perf_counter() - start, 1)}
        progress(f"BLEU {name}: {result[name]['bleu']}")
    return result


# ------------------------------------------------------------------------------------- served


def post(conn: http.client.HTTPConnection, text: str) -> float:
    body = json.dumps({"q": text, "source": "de", "target": "en"})
    start = time.perf_counter()
    conn.request("POST", "/translate", body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    payload = response.read()
    elapsed = time.perf_counter() - start
    if response.status != 200:
        raise RuntimeError(f"POST /translate answered {response.status}: {payload[:200]!r}")
    return elapsed


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def bench_served(checkpoint: str, engine: str, texts: list[str], workers: int) -> dict:
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        try:
            proc, port = server.start(log, timeout=120, MODEL_PATH=checkpoint, ENGINE=engine,
                                      WEB_CONCURRENCY=str(workers), LOG_LEVEL="warning")
        except server.ServerError:
            log.seek(0)
            sys.stderr.write(log.read().decode(errors="replace")[-3000:])
            raise
        startup = time.perf_counter() - start
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            for text in ["Guten Morgen.", "Wie geht es dir?"] * (2 * workers):  # each worker's first call
                post(conn, text)
            first = [post(conn, t) for t in texts]
            again = [post(conn, t) for t in texts]
            processes = 1 + len(server.children(proc.pid))
            memory = server.pss_mib(proc)
            conn.close()
        finally:
            server.stop(proc)
    ms = [x * 1000 for x in first]
    hits = [x * 1000 for x in again]
    return {"engine": engine, "workers": workers, "startup_s": round(startup, 2), "requests": len(first),
            "p50_ms": round(percentile(ms, 50), 2), "p99_ms": round(percentile(ms, 99), 2),
            "cached_p50_ms": round(percentile(hits, 50), 2), "pss_mib": round(memory, 1),
            "processes": processes}


# ------------------------------------------------------------------------------------- report


def targets(model_rows: list[dict], served: list[dict]) -> list[str]:
    """The issue's goals, where this run measured both sides."""
    rate = {(row["cell"], row["engine"]): row for row in model_rows}
    lines = []
    for cell in ("greedy, batched", "beam 4, batched"):
        ours, raw = rate.get((cell, "ct2-int8")), rate.get((cell, "ct2-int8-raw"))
        if ours and raw:
            ratio = ours["sentences_per_s"] / raw["sentences_per_s"]
            cpu = raw["cpu_ms_per_sentence"] / ours["cpu_ms_per_sentence"]
            lines.append(f"  {cell}: ct2-int8 / ct2-int8-raw = {ratio:.2f} (by CPU time {cpu:.2f}; target >= 1)")
    single = rate.get(("beam 4, one at a time", "ct2-int8-raw"))
    for row in served:
        if single and row["engine"] == "ct2":
            ratio = row["p50_ms"] / single["median_ms"]
            lines.append(f"  served ENGINE=ct2 p50 / ct2-int8-raw beam 4 one at a time = {ratio:.2f} (target <= 1.5)")
    for row in served:
        lines.append(f"  ENGINE={row['engine']}: PSS {row['pss_mib']:.0f} MiB (target < 512), "
                     f"startup {row['startup_s']:.2f} s (target <= 3)")
    return lines


def report(env: dict, model_rows: list[dict], bleu: dict, served: list[dict]) -> None:
    print(f"engines  {env['date']}  checkpoint {env['checkpoint']}  threads {env['threads']}  "
          f"ctranslate2 {env['ctranslate2']}  torch {env['torch']}")
    print(f"  load average at start {env['load_start']}, at end {env['load_end']}"
          + ("  (busy machine: figures are noisy)" if env["load_start"][0] > 0.5 else ""))
    if model_rows:
        print("\nbare model                      engine        sent/s  median ms  CPU ms/sent  same as torch")
        for row in model_rows:
            ms = "" if row["median_ms"] is None else f"{row['median_ms']:.2f}"
            print(f"  {row['cell']:<29} {row['engine']:<12} {row['sentences_per_s']:>7.1f}  {ms:>9}  "
                  f"{row['cpu_ms_per_sentence']:>11.2f}  {row['same_as_torch']}/{row['sentences']}")
    if bleu:
        print("\ntext pipeline, beam 4, all of --data    BLEU    chrF   seconds")
        for name, row in bleu.items():
            print(f"  {name:<37} {row['bleu']:>6.2f}  {row['chrf']:>6.2f}  {row['seconds']:>7.1f}")
    if served:
        print("\nserved (POST /translate, one sentence)  startup s  p50 ms  p99 ms  cached p50 ms  PSS MiB (all processes)")
        for row in served:
            print(f"  ENGINE={row['engine']:<6} {row['workers']} workers {'':<16} {row['startup_s']:>8.2f}  "
                  f"{row['p50_ms']:>6.2f}  {row['p99_ms']:>6.2f}  {row['cached_p50_ms']:>13.2f}  "
                  f"{row['pss_mib']:>7.1f} ({row['processes']})")
    lines = targets(model_rows, served)
    if lines:
        print("\ntargets")
        print("\n".join(lines))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "de-en.pt"))
    p.add_argument("--data", default=str(ROOT / "runs" / "v2" / "test.tsv"),
                   help="corpus whose distinct German sources are translated (default: runs/v2/test.tsv)")
    p.add_argument("--sentences", type=int, default=512, help="sentences of the batched cells (default 512)")
    p.add_argument("--single", type=int, default=100,
                   help="sentences of the one-at-a-time cells, and requests per served engine (default 100)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, help="torch and CT2 threads (default: the usable CPUs)")
    p.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    p.add_argument("--bleu", action="store_true", help="also BLEU through the text pipeline for each engine")
    p.add_argument("--quick", action="store_true", help="smoke run: 32 and 8 sentences, one repeat")
    p.add_argument("--skip-model", action="store_true")
    p.add_argument("--skip-served", action="store_true")
    p.add_argument("--json", type=Path, help="also write every figure to this JSON file")
    args = p.parse_args(argv)
    for name in ("sentences", "single", "repeats", "workers"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be >= 1, got {getattr(args, name)!r}")
    if args.quick:
        args.sentences, args.single, args.repeats = 32, 8, 1
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import ctranslate2
    import torch

    from commands.cli import set_threads

    threads = set_threads(args.threads)
    sources, streams = load_sources(args.data)
    env = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "checkpoint": args.checkpoint,
           "threads": threads, "ctranslate2": ctranslate2.__version__, "torch": torch.__version__,
           "load_start": [round(x, 2) for x in os.getloadavg()]}
    model_rows, bleu, served = [], {}, []
    if not args.skip_model:
        engines = make_engines(args.checkpoint, threads)
        model_rows = bench_model(engines, sources[:args.sentences], sources[:args.single], args.repeats)
        if args.bleu:
            bleu = bench_bleu(engines, sources, streams)
        del engines
    if not args.skip_served:
        for engine in ("torch", "ct2"):
            served.append(bench_served(args.checkpoint, engine, sources[:args.single], args.workers))
            progress(f"served ENGINE={engine} done")
    env["load_end"] = [round(x, 2) for x in os.getloadavg()]
    report(env, model_rows, bleu, served)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"env": env, "model": model_rows, "bleu": bleu, "served": served}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
