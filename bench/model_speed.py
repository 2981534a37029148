#!/usr/bin/env python
"""CPU speed of the small preset: training throughput against torch.nn.Transformer, and decoding speed.

    python bench/model_speed.py                  # full run, a few minutes on a quiet 2-core machine
    python bench/model_speed.py --quick          # smoke run, well under a minute
    python bench/model_speed.py --threads 2 --json out/speed.json

Needs no corpus: every batch is synthetic (random piece ids with Tatoeba-like lengths).

1. Training (bench/speed_train.py): target tokens per second of a full optimizer step for our
   ``model.network.transformer.Transformer`` and for ``torch.nn.Transformer`` of the same size, on the same
   batches, in alternating repeats; the median of the per-repeat ratios is reported.

2. Decoding (bench/speed_decode.py): sentences per second for short (9-11 German pieces in) and medium
   (24-26 in) sentences, greedy and beam 4, batched and one at a time, with and without the KV cache.
   The model's EOS position is chosen by a wrapper (n..n+2 output pieces for n source pieces); every
   other logit and all decoder work are the real model's.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path
from typing import Any

BENCH = str(Path(__file__).resolve().parent)
if BENCH not in sys.path:  # bench/ is a folder of scripts, not a package: also importable from elsewhere
    sys.path.insert(0, BENCH)

# speed_common (imported by both parts) puts the repository root on sys.path, for ``model``.
from speed_decode import bench_decoding, report_decoding  # noqa: E402
from speed_train import bench_training, check_equivalence, report_training  # noqa: E402

import torch  # noqa: E402

from model.network.config import PRESETS  # noqa: E402

# Everything that scales with the time a run takes. The full run should stay under ~6 minutes on 2 cores.
MODES: dict[str, dict[str, int]] = {
    "full": {"max_tokens": 4096, "train_batches": 4, "train_warmup": 1, "train_repeats": 5,
             "decode_sentences": 256, "decode_single": 24, "decode_sentences_medium": 128,
             "decode_single_medium": 12, "decode_repeats": 3, "batch_size": 64},
    "quick": {"max_tokens": 1024, "train_batches": 2, "train_warmup": 1, "train_repeats": 3,
              "decode_sentences": 64, "decode_single": 4, "decode_sentences_medium": 16,
              "decode_single_medium": 2, "decode_repeats": 2, "batch_size": 64},
}


# --------------------------------------------------------------------------------------- environment


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def environment() -> dict[str, Any]:
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cpu": cpu_model(),
        "cpus_usable": affinity,
        "torch_threads": torch.get_num_threads(),
        "torch_interop_threads": torch.get_num_interop_threads(),
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "allocator_env": {k: v for k, v in os.environ.items() if k.startswith("MALLOC_") or k == "LD_PRELOAD"},
    }


def tune_malloc() -> bool:
    """glibc: never hand big buffers back to the kernel (no mmap/munmap per allocation, no heap trim).

    By default glibc serves every allocation above 32 MiB with its own mmap() and munmap()s it on free,
    so each training step pays a fresh page fault per 4 KiB of every logits-sized (tokens x vocab) buffer.
    Same effect as running with MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=<large> in the environment."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if not name or platform.system() != "Linux":
        return False
    libc = ctypes.CDLL(name)
    M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4
    return libc.mallopt(M_MMAP_MAX, 0) == 1 and libc.mallopt(M_TRIM_THRESHOLD, 2**31 - 1) == 1



# ------------------------------------------------------------------------------------------- report


def report_env(env: dict, mode: str) -> None:
    print(f"model_speed ({mode} mode)  {env['date']}")
    print(f"  torch {env['torch']}, python {env['python']}, {env['torch_threads']} torch threads "
          f"({env['torch_interop_threads']} inter-op), {env['cpus_usable']} usable CPUs: {env['cpu']}")
    print(f"  load average at start {env['load_average_start']}, at end {env['load_average_end']}")
    if env["load_average_start"][0] > 0.5:
        print("  WARNING: the machine was busy when this run started (1-minute load average above 0.5): other\n"
              "  processes shared the CPUs and the figures below are noisy. With several OpenMP threads a busy\n"
              "  machine can slow steps down many-fold; --threads 1 is steadier. Re-run on an idle machine.")
    tuned = "glibc mallopt applied (--mallopt)" if env.get("mallopt") else "default allocator settings"
    print(f"  allocator: {tuned}; env {env['allocator_env'] or '{}'}; peak RSS {env['max_rss_mb']:.0f} MiB")



def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, dict[str, int]]:
    """The options, and the mode's settings with the overrides applied."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run (< 60 s): fewer, smaller batches and repeats")
    p.add_argument("--threads", type=int, help="torch.set_num_threads (default: torch's choice)")
    p.add_argument("--json", type=Path, help="also write every figure to this JSON file")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--max-tokens", type=int, help="override the training batch budget (padded tokens)")
    p.add_argument("--train-repeats", type=int, help="override the number of timed training repeats")
    p.add_argument("--decode-repeats", type=int, help="override the number of timed decoding repeats")
    p.add_argument("--mallopt", action="store_true",
                   help="first tell glibc malloc to keep big buffers (no mmap/munmap per step), to measure that fix")
    p.add_argument("--bf16", action="store_true",
                   help="decode under torch.autocast('cpu', bfloat16) (a possible speed-up; Translator uses fp32)")
    p.add_argument("--skip-train", action="store_true", help="decoding only")
    p.add_argument("--skip-decode", action="store_true", help="training only")
    args = p.parse_args(argv)
    if args.threads is not None and args.threads < 1:
        p.error("--threads must be >= 1")
    settings = dict(MODES["quick" if args.quick else "full"])
    for key in ("max_tokens", "train_repeats", "decode_repeats"):
        if getattr(args, key) is not None:
            if getattr(args, key) < 1:
                p.error(f"--{key.replace('_', '-')} must be >= 1")
            settings[key] = getattr(args, key)
    return args, settings


def main(argv: list[str] | None = None) -> int:
    args, settings = parse_args(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    mode = "quick" if args.quick else "full"
    cfg = PRESETS["small"]
    env = environment()
    env["mallopt"] = tune_malloc() if args.mallopt else False
    started = time.perf_counter()
    gap = float("nan")
    train = decode = None
    if not args.skip_train:
        gap = check_equivalence(cfg, args.seed)
        train = bench_training(cfg, settings, args.seed)
    if not args.skip_decode:
        decode = bench_decoding(cfg, settings, args.seed, bf16=args.bf16)
    env["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    env["wall_s"] = round(time.perf_counter() - started, 1)
    env["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report_env(env, mode)
    if train is not None:
        report_training(settings, train, gap)
    if decode is not None:
        report_decoding(settings, decode)
    print(f"\n(total {env['wall_s']} s)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"mode": mode, "settings": settings, "env": env, "equivalence_gap": gap,
                                         "training": train, "decoding": decode}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
