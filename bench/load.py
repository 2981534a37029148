"""Load test for the web service: N concurrent clients on loopback, each request a new sentence.

    python bench/load.py --checkpoint checkpoints/de-en.pt --clients 8 --duration 10
    python bench/load.py --url http://127.0.0.1:8000 --clients 8 --duration 10

With --checkpoint it starts the Procfile's ``web:`` command itself (gunicorn on a free port,
``METRICS=1``) and stops it afterwards. Each client sends ``POST /translate`` requests back to back,
each with the next sentence of ``--sentences`` that no request has sent yet (German column of a
corpus TSV; default the shipped Random sample, 5,000 sentences), so the translation cache cannot
answer: the repeats (when the list runs out) and the server's cache hits (from ``/metrics``, where
it is on) are printed. It prints requests/s, p50/p99 latency and errors.

With --checkpoint it then compares, in the same run, with the bare engine on the same cores:
CTranslate2 int8 of the same checkpoint translating the sentences the server was sent, batched
(64 per call in the order they were sent, beam 4, all cores as one call's threads), sentences/s;
the ratio served / raw is the issue's throughput figure. Also CTranslate2 at its best on the same
cores (a thread per core on separate batches, all sentences at once, sorted by length), which no
server of requests arriving one by one can match: served / best.
``--single N`` (with --checkpoint) sends N sentences one at a time, alternating each with the bare
engine on one worker's threads: median latencies and their ratio (the served overhead), and from the
server's /metrics where a request's mean time goes (HTTP, the app around the engine, queue, engine).
The server's mean sentences per engine call and queue wait, and its memory (PSS of master and
workers: the highest of samples taken during the load, and once the workers have gone idle after
it) are printed too.
``--reverse CKPT`` (with --checkpoint) serves both directions, ``MODEL_PATHS=de-en:CHECKPOINT,en-de:CKPT``,
and sends every other request English->German (the English column of the same lines): the memory
of two models. The bare-engine throughput comparisons (de-en alone) are then left out; ``--single``
then alternates German and English sentences and gives each direction's latencies.
``--channel CKPT`` (with --checkpoint) serves the same two models, so that German->English is
reranked by the noisy channel of CKPT (``CHANNEL_WEIGHT``; 0 in the environment turns it off), but
sends German alone: every comparison with the bare engine stays, and says what the channel costs.
``--html`` sends each sentence as ``<p>sentence</p>`` with ``format=html``, so that every request
aligns its output with its source (as pages, documents and placeholders do): the memory of a
server that has run every part of the text pipeline, which plain sentences reach only now and then.
Standard library for the load (threads + http.client); only loopback addresses are accepted, and
clients and time are bounded, so it cannot be pointed at somebody else's server by accident.
"""

from __future__ import annotations

import argparse
import html
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # bench/ is a folder of scripts: ``python bench/load.py`` puts only bench/ there
    sys.path.insert(0, str(ROOT))

from bench import server  # noqa: E402
from model.search.options import DEFAULT, SERVED  # noqa: E402

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_CLIENTS, MAX_DURATION = 64, 300
DEFAULT_SENTENCES = ROOT / "checkpoints" / "random-sample.tsv"
# The bare engine's search: the service's default BEAM_SIZE, batches of the engines' default size.
RAW_SEARCH = replace(DEFAULT, beam_size=SERVED.beam_size)
BEAM, RAW_BATCH = RAW_SEARCH.beam_size, RAW_SEARCH.batch_size
IDLE = 0.5          # seconds after the load before the memory is read: the workers have gone idle


def bounded(low: int, high: int):
    def parse(text: str) -> int:
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {value!r}")
        return value
    return parse


def read_sentences(path: Path, both: bool = False) -> list[str] | list[tuple[str, str, str]]:
    """The distinct German sentences of a corpus TSV (English<TAB>German[<TAB>...]), in order; with
    ``both``, (text, source, target) requests alternating a German sentence and its line's English."""
    from model.data import read_references

    sources, references = read_references(path)
    if not both:
        return sources
    return [request for de, en in zip(sources, references) for request in ((de, "de", "en"), (en[0], "en", "de"))]


class Feed:
    """Hands out the sentences in order, each once; after the last it starts again (a repeat).
    ``markup``: each is sent as a paragraph of HTML (``format=html``)."""

    def __init__(self, sentences: list[str], markup: bool = False):
        self.sentences = sentences
        self.markup = markup
        self.sent: list[str] = []
        self.lock = threading.Lock()

    def next(self) -> str:
        with self.lock:
            sentence = self.sentences[len(self.sent) % len(self.sentences)]
            self.sent.append(sentence)
            return sentence

    @property
    def repeats(self) -> int:
        return max(0, len(self.sent) - len(self.sentences))


def translate_once(conn: http.client.HTTPConnection, text: str | tuple[str, str, str], markup: bool = False) -> str | None:
    """POST /translate with one text (German, or a (text, source, target) request; with
    ``markup`` as ``<p>text</p>``, ``format=html``); None when it worked, else what went wrong."""
    text, source, target = (text, "de", "en") if isinstance(text, str) else text
    request = {"q": text, "source": source, "target": target}
    if markup:
        request.update(q=f"<p>{html.escape(text)}</p>", format="html")
    body = json.dumps(request)
    conn.request("POST", "/translate", body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    payload = response.read()
    ok = response.status == 200 and "translatedText" in json.loads(payload)
    return None if ok else f"HTTP {response.status}"


def client(host: str, port: int, deadline: float, feed: Feed, latencies: list, errors: Counter, lock) -> None:
    conn = http.client.HTTPConnection(host, port, timeout=30)
    while time.perf_counter() < deadline:
        text = feed.next()
        start = time.perf_counter()
        try:
            problem = translate_once(conn, text, feed.markup)
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


def percentile(ordered: list[float], p: float) -> float:
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000 if ordered else float("nan")


def run_load(host: str, port: int, clients: int, duration: float, feed: Feed) -> dict:
    latencies: list[float] = []
    errors: Counter = Counter()
    lock = threading.Lock()
    deadline = time.perf_counter() + duration
    threads = [threading.Thread(target=client, args=(host, port, deadline, feed, latencies, errors, lock), daemon=True)
               for _ in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(duration + 60)
    wall = time.perf_counter() - started
    ordered = sorted(latencies)
    return {"clients": clients, "duration_s": round(wall, 2), "requests": len(ordered),
            "requests_per_s": round(len(ordered) / wall, 1), "p50_ms": round(percentile(ordered, 50), 1),
            "p99_ms": round(percentile(ordered, 99), 1), "max_ms": round(ordered[-1] * 1000, 1) if ordered else None,
            "errors": sum(errors.values()), "error_kinds": dict(errors), "repeated_sentences": feed.repeats}


# The server's samples that load.py reports, from /metrics: a name alone is summed over its
# labels. Histograms as (name, labels) whose _sum and _count give a mean.
HISTOGRAMS = (("nmt_batch_sentences", ""), ("nmt_batch_queue_wait_seconds", ""), ("nmt_engine_call_seconds", ""),
              ("nmt_request_duration_seconds", '{endpoint="/translate"}'))
SERVER_METRICS = ("nmt_translation_cache_hits_total",
                  *(f"{name}_{part}{labels}" for name, labels in HISTOGRAMS for part in ("sum", "count")))


def server_metrics(host: str, port: int) -> dict[str, float] | None:
    """``SERVER_METRICS`` so far, None without /metrics (METRICS off)."""
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request("GET", "/metrics")
        response = conn.getresponse()
        text = response.read().decode()
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()
    if response.status != 200:
        return None
    found = dict.fromkeys(SERVER_METRICS, 0.0)
    for line in text.splitlines():
        sample, _, value = line.rpartition(" ")
        for name in {sample, sample.split("{", 1)[0]} & found.keys():  # with its labels, or summed over them
            found[name] += float(value)
    return found


def server_figures(before: dict[str, float] | None, after: dict[str, float] | None) -> dict:
    """What the server did between two ``server_metrics``: cache hits; means of the sentences per
    engine call, of a call's queue wait and engine time, and of a /translate request's time in the
    server (None without /metrics, or where nothing was counted)."""
    if before is None or after is None:
        return {"cache_hits": None, "mean_batch_sentences": None, "mean_queue_wait_ms": None,
                "mean_engine_call_ms": None, "mean_server_ms": None}
    delta = {name: after[name] - before[name] for name in SERVER_METRICS}

    def mean(name: str, labels: str = "", scale: float = 1000.0) -> float | None:
        count = delta[f"{name}_count{labels}"]
        return round(scale * delta[f"{name}_sum{labels}"] / count, 2) if count else None

    return {"cache_hits": delta["nmt_translation_cache_hits_total"],
            "mean_batch_sentences": mean("nmt_batch_sentences", scale=1.0),
            "mean_queue_wait_ms": mean("nmt_batch_queue_wait_seconds"),
            "mean_engine_call_ms": mean("nmt_engine_call_seconds"),
            "mean_server_ms": mean("nmt_request_duration_seconds", '{endpoint="/translate"}')}


def bare_engine(checkpoint: str, threads: int):
    """CTranslate2 int8 of the checkpoint, as the server's default engine (ENGINE=auto on a CPU)."""
    from model.inference.ct2_engine import CT2Translator
    from pipeline.ending import close_sentence

    engine = CT2Translator.from_checkpoint(checkpoint, "cpu", quantization="int8", threads=threads)
    return lambda texts: engine.output_ids([close_sentence(t) for t in texts], RAW_SEARCH)


def raw_throughput(checkpoint: str, sentences: list[str], threads: int) -> float:
    """Sentences/s of the bare engine translating ``sentences`` in batches, on ``threads`` threads."""
    translate = bare_engine(checkpoint, threads)
    translate(sentences[:RAW_BATCH])  # warm-up
    started = time.perf_counter()
    for k in range(0, len(sentences), RAW_BATCH):
        translate(sentences[k:k + RAW_BATCH])
    return len(sentences) / (time.perf_counter() - started)


def raw_best_throughput(checkpoint: str, sentences: list[str], cores: int) -> float:
    """Sentences/s of CTranslate2 int8 at its best on ``cores`` cores: one translator with a thread
    per core working on separate batches (``inter_threads``), given all of ``sentences`` at once
    so that it sorts them by length (batches of 64, beam 4); a server cannot do that with requests
    that come one by one."""
    from model.inference.ct2_converter import model_files, require_ctranslate2
    from model.inference.translator import Translator
    from pipeline.ending import close_sentence

    torch_translator = Translator.from_checkpoint(checkpoint, "cpu")
    tokenizer = torch_translator.tokenizer
    engine = require_ctranslate2().Translator(
        "de-en-nmt", device="cpu", compute_type="int8", inter_threads=cores, intra_threads=1,
        files=model_files(torch_translator.model, tokenizer, "int8"))
    tokens = [tokenizer.pieces(ids) for ids in tokenizer.encode_batch([close_sentence(t) for t in sentences])]
    engine.translate_batch(tokens[:RAW_BATCH], beam_size=BEAM, max_batch_size=RAW_BATCH)  # warm-up
    started = time.perf_counter()
    engine.translate_batch(tokens, beam_size=BEAM, max_batch_size=RAW_BATCH)
    return len(sentences) / (time.perf_counter() - started)


def single(host: str, port: int, checkpoint: str, sentences: list, threads: int,
           reverse: str | None = None) -> dict:
    """Each sentence sent alone to the server, then given alone to the bare engine, in turn; with
    the server's metrics, where a served request's mean time goes (``breakdown``). With
    ``reverse`` (the en-de checkpoint served beside) the sentences alternate German and English
    (``read_sentences(both=True)``), and ``en_de`` has the English->German figures apart (the
    breakdown, of both mixed, is left out)."""
    engines = {("de", "en"): bare_engine(checkpoint, threads)}
    if reverse:
        engines[("en", "de")] = bare_engine(reverse, threads)
    before = server_metrics(host, port)
    conn = http.client.HTTPConnection(host, port, timeout=30)
    served: dict = {pair: [] for pair in engines}
    raw: dict = {pair: [] for pair in engines}
    errors = 0
    for item in sentences:
        text, source, target = (item, "de", "en") if isinstance(item, str) else item
        start = time.perf_counter()
        try:
            problem = translate_once(conn, item)
        except (OSError, http.client.HTTPException, ValueError):
            problem = "error"
            conn.close()
        served[source, target].append(time.perf_counter() - start)
        errors += problem is not None
        start = time.perf_counter()
        engines[source, target]([text])
        raw[source, target].append(time.perf_counter() - start)
    conn.close()

    def figures(served: list[float], raw: list[float]) -> dict:
        s, r = statistics.median(served) * 1000, statistics.median(raw) * 1000
        return {"sentences": len(served), "served_p50_ms": round(s, 2), "raw_p50_ms": round(r, 2),
                "ratio": round(s / r, 2), "overhead_ms": round(s - r, 2)}

    de_en = served["de", "en"], raw["de", "en"]
    result = {**figures(*de_en), "errors": errors, "breakdown": None if reverse else breakdown(
        statistics.mean(de_en[0]) * 1000, statistics.mean(de_en[1]) * 1000,
        server_figures(before, server_metrics(host, port)))}
    if reverse:
        result["en_de"] = figures(served["en", "de"], raw["en", "de"])
    return result


def breakdown(client_ms: float, raw_ms: float, server: dict) -> dict | None:
    """A served request's mean time, in parts: HTTP (client and gunicorn: the client's time less the
    app's), the app around the engine (Flask, validation, the text pipeline: the app's time less the
    queue wait and the engine call), the queue wait, and the engine call (against the bare engine's
    mean). None without /metrics."""
    if server["mean_server_ms"] is None or server["mean_engine_call_ms"] is None:
        return None
    app = server["mean_server_ms"] - server["mean_queue_wait_ms"] - server["mean_engine_call_ms"]
    return {"client_ms": round(client_ms, 2), "http_ms": round(client_ms - server["mean_server_ms"], 2),
            "app_ms": round(app, 2), "queue_wait_ms": server["mean_queue_wait_ms"],
            "engine_call_ms": server["mean_engine_call_ms"], "bare_engine_ms": round(raw_ms, 2)}


def start_server(checkpoint: str, workers: int | None, reverse: str | None = None) -> tuple[subprocess.Popen, int]:
    settings = {"MODEL_PATH": str(Path(checkpoint).resolve()), "METRICS": "1"}
    if reverse:
        settings = {"MODEL_PATHS": f"de-en:{Path(checkpoint).resolve()},en-de:{Path(reverse).resolve()}",
                    "METRICS": "1"}
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
    parser.add_argument("--reverse", help="with --checkpoint: an en-de checkpoint served beside it "
                                          "(MODEL_PATHS), every other request English->German")
    parser.add_argument("--channel", help="with --checkpoint: an en-de checkpoint served beside it (MODEL_PATHS), "
                                          "the noisy channel of German->English; German requests only")
    parser.add_argument("--sentences", type=Path, default=DEFAULT_SENTENCES,
                        help="corpus TSV whose German sentences are sent, each once (default: %(default)s)")
    parser.add_argument("--single", type=bounded(0, 10_000), default=0,
                        help="with --checkpoint: this many sentences one at a time, served vs bare engine")
    parser.add_argument("--html", action="store_true",
                        help="send each sentence as <p>sentence</p> with format=html: every request then aligns, "
                             "as pages and documents do")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = parser.parse_args(argv)
    if args.single and not args.checkpoint:
        parser.error("--single needs --checkpoint (the bare engine runs the same checkpoint)")
    if args.reverse and not args.checkpoint:
        parser.error("--reverse needs --checkpoint")
    if args.channel and not args.checkpoint:
        parser.error("--channel needs --checkpoint")
    if args.channel and args.reverse:
        parser.error("give --reverse or --channel, not both")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        sentences = read_sentences(args.sentences, both=bool(args.reverse))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"bench/load.py: error: --sentences: {exc}") from None
    process = None
    if args.url:
        url = urllib.parse.urlsplit(args.url)
        if url.scheme != "http" or url.hostname not in LOOPBACK:
            raise SystemExit(f"bench/load.py: error: --url must be http:// on loopback, got {args.url!r}")
        host, port = url.hostname, url.port or 80
    else:
        process, port = start_server(args.checkpoint, args.workers, args.reverse or args.channel)
        host = "127.0.0.1"
    # Warm-up (each worker makes its CTranslate2 translator on its first request) with sentences
    # of their own, at the end of the list, so that the measured ones stay unseen.
    warm = Feed(sentences[-32:])
    sentences = sentences[:-32]
    feed = Feed(sentences[args.single:], markup=args.html)
    try:
        client(host, port, time.perf_counter() + 0.5, warm, [], Counter(), threading.Lock())
        before = server_metrics(host, port)
        if process is not None:
            with server.PeakPss(process) as peak:
                result = run_load(host, port, args.clients, args.duration, feed)
            time.sleep(IDLE)
        else:
            result = run_load(host, port, args.clients, args.duration, feed)
        result.update(server_figures(before, server_metrics(host, port)))
        result["pss_mib"] = round(server.pss_mib(process), 1) if process is not None else None
        result["pss_peak_mib"] = round(peak.mib, 1) if process is not None and peak.mib is not None else None
        if args.single:
            workers = int(args.workers or 0) or min(4, os.cpu_count() or 1)
            result["single"] = single(host, port, args.checkpoint, sentences[:args.single],
                                      max(1, (os.cpu_count() or 1) // workers), args.reverse)
    finally:
        if process is not None:
            server.stop(process)
    if args.checkpoint and result["requests"] and not args.reverse:
        served = feed.sent[:result["requests"]]
        raw = raw_throughput(args.checkpoint, served, os.cpu_count() or 1)
        result["raw_sentences_per_s"] = round(raw, 1)
        result["served_vs_raw"] = round(result["requests_per_s"] / raw, 2)
        best = raw_best_throughput(args.checkpoint, served, os.cpu_count() or 1)
        result["raw_best_sentences_per_s"] = round(best, 1)
        result["served_vs_raw_best"] = round(result["requests_per_s"] / best, 2)
    if args.json:
        print(json.dumps(result))
        return 0 if result["errors"] == 0 else 1
    hits = "n/a (no /metrics)" if result["cache_hits"] is None else f"{result['cache_hits']:.0f}"
    print(f"{result['clients']} clients, {result['duration_s']} s: {result['requests']} requests "
          f"(distinct sentences; repeated {result['repeated_sentences']}, server cache hits {hits}), "
          f"{result['requests_per_s']} requests/s, p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms, "
          f"max {result['max_ms']} ms, errors {result['errors']} {result['error_kinds'] or ''}".rstrip())
    if result["mean_batch_sentences"] is not None:
        print(f"server: {result['mean_batch_sentences']} sentences per engine call, queue wait "
              f"{result['mean_queue_wait_ms']} ms per call (means)")
    if result["pss_mib"] is not None:
        print(f"server memory (PSS of master and workers): {result['pss_peak_mib']} MiB at most during the load, "
              f"{result['pss_mib']} MiB {IDLE:g} s after it")
    if "raw_sentences_per_s" in result:
        print(f"bare CTranslate2 int8, same sentences, batched {RAW_BATCH}, beam {BEAM}, {os.cpu_count()} threads: "
              f"{result['raw_sentences_per_s']} sentences/s; served / raw = {result['served_vs_raw']}")
        print(f"CTranslate2 int8 at its best, same sentences all at once (sorted by length), {os.cpu_count()} "
              f"translating threads: {result['raw_best_sentences_per_s']} sentences/s; served / best = "
              f"{result['served_vs_raw_best']}")
    if "single" in result:
        one = result["single"]
        print(f"one at a time, {one['sentences']} sentences alternating: served p50 {one['served_p50_ms']} ms, "
              f"bare engine p50 {one['raw_p50_ms']} ms, ratio {one['ratio']}, overhead {one['overhead_ms']} ms, "
              f"errors {one['errors']}")
        if "en_de" in one:
            e = one["en_de"]
            print(f"  English->German, {e['sentences']} sentences: served p50 {e['served_p50_ms']} ms, bare engine "
                  f"p50 {e['raw_p50_ms']} ms, ratio {e['ratio']}, overhead {e['overhead_ms']} ms")
        if one["breakdown"]:
            b = one["breakdown"]
            print(f"  where a served request's mean {b['client_ms']} ms goes: HTTP (client and gunicorn) "
                  f"{b['http_ms']} ms, app around the engine (Flask, validation, pipeline) {b['app_ms']} ms, "
                  f"queue wait {b['queue_wait_ms']} ms, engine call {b['engine_call_ms']} ms "
                  f"(bare engine {b['bare_engine_ms']} ms)")
    return 0 if result["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
