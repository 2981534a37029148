"""Multi30k benchmark: train the `small` preset on Multi30k and score test_2016_flickr.

    python bench/multi30k.py --data-dir ../shared/data/multi30k [--out runs/multi30k]
                             [--max-minutes 60] [--resume] [--skip-train] [--json FILE]
                             [-- extra train.py flags]

(or MULTI30K_DIR=... instead of --data-dir). Steps:

1. ``train.py --data DIR/train --valid DIR/val --preset small`` with the settings below (any flags
   after ``--`` are passed on and override them), for --max-minutes of wall time. With --resume an
   interrupted run continues; --skip-train scores an existing run directory.
2. Model selection on val only: ``best.pt`` (best greedy dev BLEU during training) against the
   average of the last saved checkpoints (``commands.average``); the one with the higher val BLEU
   (beam 4) is scored on test.
3. test_2016_flickr, greedy and beam 4, two metrics per decoding:
   * cased BLEU: sacreBLEU defaults (13a tokenization, mixed case), the number to quote;
   * tok-lc BLEU: sacreBLEU with ``lowercase=True`` on the same 13a tokens, i.e. BLEU over
     lowercased, punctuation-split words: the metric of the PyTorch-tutorial-style reference point
     (36.5 for a 9M-parameter Transformer, greedy) that the README compares with.

Multi30k is for research and education only (Flickr30K terms): the run directory stays out of the
repository and no model trained on it is ever shipped. Progress goes to stderr; the results table
(and the sacreBLEU signatures) to stdout; --json also writes them as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from commands import cli  # noqa: E402
from model.search.options import DEFAULT  # noqa: E402

# Small corpus (29k pairs): more dropout than on Tatoeba, a short warmup, an eval per ~epoch.
TRAIN_ARGS = ["--preset", "small", "--dropout", "0.3", "--max-tokens", "2048", "--lr", "1e-3", "--warmup", "500",
              "--eval-every", "300", "--save-every", "300", "--keep-checkpoints", "5", "--no-progress"]
SPLITS = ("train", "val", "test_2016_flickr")


def parse_args(argv):
    p = cli.make_parser("bench/multi30k.py", __doc__)
    p.add_argument("--data-dir", default=os.environ.get("MULTI30K_DIR"),
                   help="folder with {train,val,test_2016_flickr}.{de,en}.gz (default: $MULTI30K_DIR)")
    p.add_argument("--out", default="runs/multi30k", help="run directory (default: runs/multi30k)")
    p.add_argument("--max-minutes", type=float, default=140.0,
                   help="training wall time of this call (default: 140, what reached the target on 2 CPU cores)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    p.add_argument("--skip-train", action="store_true", help="only score the run already in --out")
    cli.add_search_args(p)  # --beam: the beam rows' (and validation's) beam size
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument("train_args", nargs=argparse.REMAINDER, help="after --: extra train.py flags")
    args = p.parse_args(argv)
    if not args.data_dir:
        p.error("give --data-dir DIR or set MULTI30K_DIR")
    for split in SPLITS:
        for lang in ("de", "en"):
            if not (Path(args.data_dir) / f"{split}.{lang}.gz").is_file():
                p.error(f"{split}.{lang}.gz not found in --data-dir {args.data_dir!r}")
    if args.max_minutes <= 0:
        p.error(f"--max-minutes must be > 0, got {args.max_minutes!r}")
    args.search = cli.search_options(p, args, DEFAULT)  # the bare model's
    args.train_args = [a for a in args.train_args if a != "--"]
    return args


def train(args) -> None:
    """Run train.py as a child (its own progress lines on our stderr)."""
    data = Path(args.data_dir)
    cmd = [sys.executable, str(ROOT / "train.py"), "--data", str(data / "train"), "--valid", str(data / "val"),
           "--out", args.out, "--max-minutes", str(args.max_minutes),
           "--data-attribution", "Multi30k (Elliott et al. 2016), research use only", *TRAIN_ARGS, *args.train_args]
    if args.resume:
        cmd.append("--resume")
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, stdout=sys.stderr)
    if proc.returncode != 0:  # train.py has said why on stderr
        raise SystemExit(proc.returncode)


def score(hyps: list[str], refs: list[str]) -> dict:
    from sacrebleu.metrics import BLEU

    cased, lower = BLEU(), BLEU(lowercase=True)
    return {"bleu": round(cased.corpus_score(hyps, [refs]).score, 2),
            "bleu_tok_lc": round(lower.corpus_score(hyps, [refs]).score, 2),
            "signature": str(cased.get_signature()), "signature_tok_lc": str(lower.get_signature())}


def select(args, translator_cls):
    """best.pt or the average of the kept checkpoints, whichever has the higher val BLEU.

    Returns its name, the selection record for the report, and its loaded translator."""
    from model.network.averaging import average_checkpoints
    from model.network.checkpoint import atomic_save
    from model.data import read_lines

    out = Path(args.out)
    candidates = {"best.pt": out / "best.pt"}
    kept = sorted(out.glob("step-*.pt"))
    if len(kept) > 1:
        atomic_save(average_checkpoints(kept), out / "average.pt")
        candidates[f"average of {len(kept)} (steps {kept[0].stem[5:].lstrip('0')}-{kept[-1].stem[5:].lstrip('0')})"] = \
            out / "average.pt"
    src = read_lines(Path(args.data_dir) / "val.de.gz")
    ref = read_lines(Path(args.data_dir) / "val.en.gz")
    val, translators = {}, {}
    for name, path in candidates.items():
        translators[name] = translator = translator_cls.from_checkpoint(path, device="auto")
        val[name] = score(translator.translate(src, args.search), ref)["bleu"]
        print(f"val BLEU (beam {args.beam}) of {name}: {val[name]:.2f}", file=sys.stderr, flush=True)
    chosen = max(val, key=val.get)
    return chosen, {"checkpoint": str(candidates[chosen]), "val_bleu": val}, translators[chosen]


def main(argv=None) -> int:
    args = parse_args(argv)
    cli.set_threads()
    from model.data import read_lines
    from model.inference.translator import Translator

    if not args.skip_train:
        train(args)
    chosen, selection, translator = select(args, Translator)
    src = read_lines(Path(args.data_dir) / "test_2016_flickr.de.gz")
    ref = read_lines(Path(args.data_dir) / "test_2016_flickr.en.gz")
    rows = {}
    for beam in sorted({1, args.beam}):
        started = time.time()
        hyps = translator.translate(src, replace(args.search, beam_size=beam))
        rows["greedy" if beam == 1 else f"beam {beam}"] = score(hyps, ref) | {
            "sentences_per_s": round(len(src) / (time.time() - started), 1)}
    meta = translator.meta
    # Training time of the chosen weights over all resumed calls (an average carries its newest input's).
    minutes = meta["wall_time_s"] / 60 if meta.get("wall_time_s") is not None else None
    print(f"Multi30k test_2016_flickr ({len(src)} sentences), {meta.get('train_args', {}).get('preset')} preset, "
          f"{translator.num_parameters():,} parameters; "
          f"{meta.get('step')} steps, {meta.get('epoch')} epochs"
          + (f", {minutes:.0f} min of training" if minutes is not None else "") + f"; model: {chosen}")
    print(f"{'decoding':<10} {'cased BLEU':>10} {'tok-lc BLEU':>12} {'sent/s':>8}")
    for name, row in rows.items():
        print(f"{name:<10} {row['bleu']:>10.2f} {row['bleu_tok_lc']:>12.2f} {row['sentences_per_s']:>8.1f}")
    first = next(iter(rows.values()))
    print(f"signatures: {first['signature']} | {first['signature_tok_lc']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"model": chosen, **selection, "step": meta.get("step"), "epoch": meta.get("epoch"),
                       "train_minutes": minutes, "test": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main, None, prog="bench/multi30k.py"))
