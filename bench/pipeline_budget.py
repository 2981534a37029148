#!/usr/bin/env python
"""The text pipeline's own time on adversarial texts of 5,000 characters, the model stubbed.

    python bench/pipeline_budget.py [--checkpoint CKPT] [--family NAME ...] [--json FILE]

Each family of ``bench/adversarial.py`` goes once through ``Pipeline.translate`` with
``bench/stub_engine.CopyEngine`` (the checkpoint's tokenizer and lexicon, no search); prints the
CPU and wall seconds per family, slowest first. ``tests/pipeline/test_budget.py`` holds every
family to 0.5 s of CPU. Run it in two checkouts to compare (``cd OTHER && python
/path/to/bench/pipeline_budget.py`` measures OTHER's pipeline).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))   # the checkout it runs in: compare two trees with one script
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from bench.adversarial import families  # noqa: E402
from bench.stub_engine import CopyEngine  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--checkpoint", default="checkpoints/de-en.pt")
    p.add_argument("--family", action="append", help="only these families (default: all)")
    p.add_argument("--json", help="write the figures here too")
    args = p.parse_args()
    from model.inference.translator import Translator
    from pipeline.translation import Options, Pipeline

    engine = CopyEngine(Translator.from_checkpoint(args.checkpoint, device="cpu"))
    rows = []
    for name, text in families().items():
        if args.family and name not in args.family:
            continue
        pipeline = Pipeline(engine, Options())
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            pipeline.translate([text])
            error = ""
        except Exception as exc:  # noqa: BLE001 - a figure of its own: the family breaks the pipeline
            error = f"{type(exc).__name__}: {exc}"[:80]
        rows.append({"family": name, "cpu_s": round(time.process_time() - cpu, 3),
                     "wall_s": round(time.perf_counter() - wall, 3), "error": error})
    for row in sorted(rows, key=lambda r: -r["cpu_s"]):
        print(f"{row['cpu_s']:8.3f} {row['wall_s']:8.3f}  {row['family']}  {row['error']}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
