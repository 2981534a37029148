"""Average the weights of several checkpoints of one run into a release file.

    python -m commands.average CKPT [CKPT ...] --out FILE [--half]

Averaging the last few checkpoints of a run (Vaswani et al. 2017, section 6.1: "the last 5
checkpoints, written at 10-minute intervals") smooths the noise of the final updates and is
usually worth a fraction of a BLEU point for free. train.py keeps such checkpoints with
``--keep-checkpoints N`` (DIR/step-NNNNNNN.pt), so the usual call is

    python -m commands.average runs/NAME/step-*.pt --out runs/NAME/avg.pt

Every input must come from the same run: the same config and the same tokenizer (otherwise the
averaged tensors would mean nothing), else exit 2 with a one-line error. Training knobs (dropout,
label smoothing) may differ, as they do between a model and its fine-tuning with ``train.py --init
--dropout``; the output takes the config of the input whose metadata it takes. Floating-point tensors
are averaged in fp32, whatever the inputs store.

The output holds the weights only (no train_state) and the metadata of the input with the most
steps (its training curves, data hashes, ...; ``--metadata-from`` names another input), plus
``averaged_from``: the file names and steps that went in.

The same command interpolates a fine-tuned model with the model it started from (``train.py
--init``; Wortsman et al. 2022, "WiSE-FT"): ``python -m commands.average checkpoints/de-en.pt
runs/ft/avg.pt runs/ft/avg.pt --metadata-from runs/ft/avg.pt --out runs/ft/wise.pt`` weighs the
fine-tuned weights 2/3 (an input given twice counts twice); the config and tokenizer are shared, as
fine-tuning keeps them. With one input it is a plain copy without the train_state. ``--half`` stores the
weights as fp16, which halves the file; model.network.checkpoint loads them back as fp32. The output is
written atomically, so it may replace one of its inputs.
Exit status: 0, or 2 with one "error:" line on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from model.network.averaging import average_checkpoints

from . import cli

PROG = "python -m commands.average"


def parse_args(argv: Sequence[str] | None):
    p = cli.make_parser(PROG, __doc__)
    p.add_argument("inputs", nargs="+", metavar="CKPT", help="checkpoints of one run")
    p.add_argument("--out", required=True, metavar="FILE", help="where to write the averaged checkpoint")
    p.add_argument("--half", action="store_true", help="store the weights as fp16 (half the file size)")
    p.add_argument("--metadata-from", metavar="CKPT",
                   help="the input whose metadata the output takes (default: the one with the most steps)")
    return p.parse_args(argv)


def _main(argv: Sequence[str] | None) -> int:
    from model.network.checkpoint import atomic_save, half_weights

    args = parse_args(argv)
    out = cli.output_path(args.out)
    ckpt = average_checkpoints(args.inputs, args.metadata_from)
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
