"""Average the weights of several checkpoints of one run into a release file.

    python -m model.average CKPT [CKPT ...] --out FILE [--half]

Averaging the last few checkpoints of a run (Vaswani et al. 2017, section 6.1: "the last 5
checkpoints, written at 10-minute intervals") smooths the noise of the final updates and is
usually worth a fraction of a BLEU point for free. train.py keeps such checkpoints with
``--keep-checkpoints N`` (DIR/step-NNNNNNN.pt), so the usual call is

    python -m model.average runs/NAME/step-*.pt --out runs/NAME/avg.pt

Every input must come from the same run: the same config and the same tokenizer (otherwise the
averaged tensors would mean nothing), else exit 2 with a one-line error. Floating-point tensors
are averaged in fp32, whatever the inputs store.

The output holds the weights only (no train_state) and the metadata of the input with the most
steps (its training curves, data hashes, ...), plus ``averaged_from``: the file names and steps
that went in. With one input it is a plain copy without the train_state. ``--half`` stores the
weights as fp16, which halves the file; model.checkpoint loads them back as fp32. The output is
written atomically, so it may replace one of its inputs.
Exit status: 0, or 2 with one "error:" line on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import cli

PROG = "python -m model.average"


def parse_args(argv: Sequence[str] | None):
    p = cli.make_parser(PROG, __doc__)
    p.add_argument("inputs", nargs="+", metavar="CKPT", help="checkpoints of one run")
    p.add_argument("--out", required=True, metavar="FILE", help="where to write the averaged checkpoint")
    p.add_argument("--half", action="store_true", help="store the weights as fp16 (half the file size)")
    return p.parse_args(argv)


def average_checkpoints(paths: Sequence[str | Path]) -> dict[str, Any]:
    """The checkpoint dict whose weights are the mean of those in ``paths`` (see the module doc)."""
    from .checkpoint import CheckpointError, read_checkpoint

    if not paths:
        raise ValueError("average_checkpoints needs at least one checkpoint")
    first = read_checkpoint(paths[0])
    total = {k: v.float() if v.is_floating_point() else v for k, v in first["model"].items()}
    newest, sources = first, [{"file": Path(paths[0]).name, "step": first["meta"].get("step")}]
    for path in paths[1:]:
        ckpt = read_checkpoint(path)
        if ckpt["config"] != first["config"] or ckpt["tokenizer"] != first["tokenizer"]:
            raise CheckpointError(f"{str(path)!r} is not from the same run as {str(paths[0])!r}: "
                                  "its config or tokenizer differs")
        if ckpt["model"].keys() != total.keys():
            raise CheckpointError(f"{str(path)!r} has other tensors than {str(paths[0])!r}")
        for name, value in ckpt["model"].items():
            if value.shape != total[name].shape:
                raise CheckpointError(f"{str(path)!r}: tensor {name!r} has shape {tuple(value.shape)}, "
                                      f"not {tuple(total[name].shape)}")
            if value.is_floating_point():
                total[name] += value.float()
        sources.append({"file": Path(path).name, "step": ckpt["meta"].get("step")})
        if (ckpt["meta"].get("step") or 0) >= (newest["meta"].get("step") or 0):
            newest = ckpt
    n = len(paths)
    weights = {k: v / n if v.is_floating_point() else v for k, v in total.items()}
    meta = dict(newest["meta"], averaged_from=sources)
    return {k: newest[k] for k in ("format", "config", "tokenizer")} | {"model": weights, "meta": meta}


def _main(argv: Sequence[str] | None) -> int:
    from .checkpoint import atomic_save, half_weights

    args = parse_args(argv)
    out = Path(args.out)
    if not out.parent.is_dir():
        raise FileNotFoundError(2, "No such directory for --out", args.out)
    ckpt = average_checkpoints(args.inputs)
    if args.half:
        ckpt["model"] = half_weights(ckpt["model"])
    atomic_save(ckpt, out)
    steps = ", ".join(str(s["step"]) for s in ckpt["meta"]["averaged_from"])
    print(f"wrote {args.out}: mean of {len(args.inputs)} checkpoint(s) (steps {steps})"
          f"{', fp16' if args.half else ''}, {out.stat().st_size / 2**20:.1f} MiB")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
