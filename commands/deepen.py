"""Add encoder layers to a trained model, new ones starting as the identity, to train on.

    python -m commands.deepen CKPT --encoder-layers N --out FILE [--seed 1]

The output translates exactly as CKPT does until it is trained further, which is what it is for:
``python train.py --init FILE ...`` (a fresh optimizer and schedule; the architecture flags are
ignored there, the file's config rules). How it works, and why the encoder: model/network/deepening.py.
Only pre-norm models (the default) can be deepened this way. Weights keep their precision (an fp16
release stays fp16); the lexicon, the tokenizer and the metadata are kept, with ``deepened_from``
added to the metadata. The output is written atomically.
Exit status: 0, or 2 with one "error:" line on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from . import cli

PROG = "python -m commands.deepen"


def parse_args(argv: Sequence[str] | None):
    p = cli.make_parser(PROG, __doc__)
    p.add_argument("checkpoint", metavar="CKPT", help="the trained checkpoint")
    p.add_argument("--encoder-layers", type=int, required=True, metavar="N",
                   help="encoder depth of the output, above the checkpoint's")
    p.add_argument("--out", required=True, metavar="FILE", help="where to write the deeper checkpoint")
    p.add_argument("--seed", type=int, default=1, help="initialises the new layers' other weights")
    return p.parse_args(argv)


def _main(argv: Sequence[str] | None) -> int:
    from model.network.checkpoint import atomic_save, read_checkpoint
    from model.network.deepening import deepen_encoder

    args = parse_args(argv)
    out = cli.output_path(args.out)
    ckpt = read_checkpoint(args.checkpoint)
    deeper = deepen_encoder(ckpt, args.encoder_layers, seed=args.seed)
    atomic_save(deeper, out)
    n = sum(v.numel() for v in deeper["model"].values())
    print(f"wrote {args.out}: {deeper['meta']['deepened_from']['encoder_layers']} -> {args.encoder_layers} "
          f"encoder layers, {n:,} parameters, {out.stat().st_size / 2**20:.1f} MiB")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
