"""Export a checkpoint to a CTranslate2 model directory (the CT2 engine's format).

    python -m commands.export_ct2 CKPT OUT_DIR [--quantization int8|float32] [--force]

A thin command over ``model.inference.ct2_converter`` (whose docstring says how our model maps
onto CTranslate2's): OUT_DIR is written atomically, and an existing one is replaced only with
--force, and only when it is a CTranslate2 model directory (one holding model.bin) or empty.

Exit status: 0 on success, 2 with one "error:" line on stderr for bad arguments or files.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from model.inference.ct2_converter import MODEL_FILES, QUANTIZATIONS, export, require_ctranslate2

from . import cli

PROG = "python -m commands.export_ct2"


def parse_args(argv: Sequence[str] | None):
    p = cli.make_parser(PROG, __doc__)
    p.add_argument("checkpoint", metavar="CKPT", help="checkpoint to export")
    p.add_argument("out_dir", metavar="OUT_DIR", help="CTranslate2 model directory to write")
    p.add_argument("--quantization", default="int8", choices=QUANTIZATIONS,
                   help="weight type of the exported model (default: int8)")
    p.add_argument("--force", action="store_true", help="replace an existing CTranslate2 model directory")
    return p.parse_args(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    require_ctranslate2()
    out = export(args.checkpoint, args.out_dir, quantization=args.quantization, force=args.force)
    sizes = {name: (out / name).stat().st_size for name in MODEL_FILES}
    print(json.dumps({"out_dir": str(out), "quantization": args.quantization, "bytes": sizes}))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (see the module docstring)."""
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
