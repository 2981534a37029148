"""What the server's memory is made of: the PSS each part of its start adds, and what aligning adds.

    python bench/memory.py parts --checkpoint CKPT [--reverse CKPT] [--dictionary PATH] [--json]
    python bench/memory.py align --checkpoint CKPT [--calls 900] [--every 300] [--batch K] [--json]

``parts``: one process loads what ``create_app`` loads, in its order, and reports the PSS each part
adds (``/proc/self/smaps_rollup``, after a garbage collection and ``malloc_trim``): importing torch
and CTranslate2, the app's modules, the language identifier, the lemmatizer's data (the check for
words a translation leaves out), the Ding index (``--dictionary``, the app's default), each model's
engine as served (``--checkpoint`` de-en, ``--reverse`` en-de as in bench/load.py: CTranslate2 on
the CPU, the PyTorch weights beside it),
then each model's first translation, which makes its CTranslate2 translator (in a gunicorn worker,
that part is the worker's own). In gunicorn the master holds all but the last, shared by the
workers; the server's PSS is that once plus each worker's own (``bench/load.py`` measures it).

``align``: one engine as served aligns ``--calls`` batches of 1-8 sentences (``--batch K``: K)
drawn at random (seed 0) from the Random sample with their CTranslate2 translations, as
``format=html`` and placeholder repair do; the process's anonymous memory (``Pss_Anon``), its
largest resident size so far (``max_rss_mib``) and the milliseconds a call every ``--every`` calls. oneDNN reads ``ONEDNN_PRIMITIVE_CACHE_CAPACITY`` (gunicorn.conf.py sets it)
when it starts: set it in the environment to compare.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT_SENTENCES = Path(__file__).resolve().parents[1] / "checkpoints" / "random-sample.tsv"


def rollup_mib(field: str) -> float:
    """A field of /proc/self/smaps_rollup ("Pss", "Pss_Anon"), in MiB, after gc and malloc_trim."""
    gc.collect()
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc
    with open("/proc/self/smaps_rollup", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise ValueError(f"no {field} in /proc/self/smaps_rollup")


class Steps:
    """The PSS each step adds, in order."""

    def __init__(self):
        self.rows: list[tuple[str, float]] = []
        self.last = rollup_mib("Pss")

    def mark(self, name: str) -> None:
        now = rollup_mib("Pss")
        self.rows.append((name, round(now - self.last, 1)))
        self.last = now


def parts(models: dict[str, str], dictionary: str | None) -> dict:
    steps = Steps()
    import ctranslate2  # noqa: F401
    import torch  # noqa: F401
    steps.mark("import torch, ctranslate2")
    import app  # noqa: F401
    from app import settings
    steps.mark("import app")
    from pipeline import language
    language.load()
    steps.mark("language identifier")
    from pipeline.coverage import Coverage
    Coverage.load()
    steps.mark("lemmatizer data")
    from model.data.ding import DingDictionary
    path = dictionary or settings.DEFAULTS["DICTIONARY_PATH"]
    if path and Path(path).is_file():
        index = DingDictionary(path)  # noqa: F841 - held, as the app holds it
        steps.mark("Ding index (German)")
    from model.inference.engines import load_engine
    engines = {}
    for name, checkpoint in models.items():
        engines[name] = load_engine(checkpoint, engine="auto", device="cpu", threads=1)
        steps.mark(f"{name} engine ({engines[name].engine})")
    for name, engine in engines.items():
        engine.translate(["Guten Morgen." if name.startswith("de") else "Good morning."])
        steps.mark(f"{name} first translation")
    return {"parts": steps.rows, "pss_mib": round(steps.last, 1)}


def max_rss_mib() -> float:
    """The largest resident size this process has had, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def align(checkpoint: str, calls: int, every: int, sentences: Path, batch: int | None = None) -> dict:
    from model.inference.engines import load_engine

    engine = load_engine(checkpoint, engine="auto", device="cpu", threads=1)
    texts = [line.split("\t")[1] for line in sentences.read_text(encoding="utf-8").splitlines()[:1200]]
    outputs = engine.output_ids(texts)
    rng = random.Random(0)
    rows = [{"calls": 0, "anon_mib": round(rollup_mib("Pss_Anon"), 1), "max_rss_mib": round(max_rss_mib(), 1),
             "ms_per_call": None}]
    started = time.perf_counter()
    for done in range(1, calls + 1):
        size = batch or rng.randint(1, 8)
        first = rng.randrange(0, max(1, len(texts) - size))
        engine.align(texts[first:first + size], outputs[first:first + size])
        if done % every == 0 or done == calls:
            rows.append({"calls": done, "anon_mib": round(rollup_mib("Pss_Anon"), 1),
                         "max_rss_mib": round(max_rss_mib(), 1), "ms_per_call": round((time.perf_counter() - started) / done * 1000, 1)})
    return {"engine": engine.engine, "align": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("parts", help="the PSS each part of the start adds")
    p.add_argument("--checkpoint", required=True, help="the de-en checkpoint")
    p.add_argument("--reverse", help="an en-de checkpoint served beside it")
    p.add_argument("--dictionary", help="the Ding file (default: the app's DICTIONARY_PATH)")
    p.add_argument("--json", action="store_true")
    a = commands.add_parser("align", help="the anonymous memory of a process that aligns")
    a.add_argument("--checkpoint", required=True)
    a.add_argument("--calls", type=int, default=900)
    a.add_argument("--every", type=int, default=300)
    a.add_argument("--batch", type=int, help="sentences per call (default: 1-8 at random)")
    a.add_argument("--sentences", type=Path, default=DEFAULT_SENTENCES, help="TSV: English, German, ...")
    a.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    for path in (args.checkpoint, getattr(args, "reverse", None)):
        if path is not None and not Path(path).is_file():
            parser.error(f"checkpoint not found: {path!r}")
    if args.command == "parts":
        models = {"de-en": args.checkpoint, **({"en-de": args.reverse} if args.reverse else {})}
        result = parts(models, args.dictionary)
        lines = [f"{name:32s} +{mib:7.1f} MiB" for name, mib in result["parts"]]
        lines.append(f"{'PSS of the process':32s} {result['pss_mib']:8.1f} MiB")
    else:
        if args.calls < 1 or args.every < 1 or (args.batch is not None and args.batch < 1):
            parser.error("--calls, --every and --batch must be at least 1")
        result = align(args.checkpoint, args.calls, args.every, args.sentences, args.batch)
        lines = [f"{row['calls']:6d} calls: anonymous {row['anon_mib']:7.1f} MiB, at most {row['max_rss_mib']:7.1f} MiB resident"
                 + (f", {row['ms_per_call']} ms a call" if row["ms_per_call"] is not None else "")
                 for row in result["align"]]
    print(json.dumps(result) if args.json else "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
