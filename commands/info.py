"""Print what a checkpoint is: its metadata and parameter count, as one JSON object.

    python -m commands.info [CKPT]               (or --checkpoint CKPT; default checkpoints/de-en.pt)

Output: ONE JSON object on stdout (UTF-8, indent 2, non-ASCII kept), keys in this order:

    checkpoint       the path as given
    format           "de-en-nmt/1"
    step             optimizer steps the weights were trained for (from meta; null if absent)
    parameters       parameters of the rebuilt model (shared weights counted once)
    vocab_size       SentencePiece pieces (= config.vocab_size)
    file_size_bytes  size of the checkpoint file
    has_train_state  whether it can resume training (last.pt: true, best.pt / releases: false)
    config           the ModelConfig the model is rebuilt from
    ...              then every other key of the checkpoint's meta, as train.py wrote it: epoch,
                     dev_bleu, dev_loss, curves, data, train_args, seed, wall_time_s, created,
                     started, versions, ...

Non-finite numbers (NaN, inf) become null, so the output is strict JSON (jq-safe). The file is
loaded with torch.load(weights_only=True): a checkpoint with pickled objects is refused.
Exit status: 0, or 2 with one "error:" line on stderr.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

from . import cli

PROG = "python -m commands.info"


def parse_args(argv: Sequence[str] | None):
    p = cli.make_parser(PROG, __doc__)
    p.add_argument("path", nargs="?", metavar="CKPT", help="checkpoint (default: checkpoints/de-en.pt)")
    p.add_argument("--checkpoint", metavar="CKPT", help="the same as CKPT")
    args = p.parse_args(argv)
    if args.path is not None and args.checkpoint is not None and args.path != args.checkpoint:
        p.error(f"two different checkpoints given: {args.path!r} and --checkpoint {args.checkpoint!r}")
    args.checkpoint = args.path or args.checkpoint or str(cli.DEFAULT_CHECKPOINT)
    return args


def _plain(value: Any) -> Any:
    """JSON-safe copy: tensors to lists, bytes to a size note, NaN/inf to None, other objects to str."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return f"<{len(value)} bytes>"
    if hasattr(value, "tolist"):  # tensors, numpy values
        return _plain(value.tolist())
    return str(value)


def describe(path: str | os.PathLike) -> dict[str, Any]:
    """The info object for the checkpoint at ``path`` (raises CheckpointError)."""
    from model.network.checkpoint import build_from_checkpoint, direction, read_checkpoint

    ckpt = read_checkpoint(path)
    model, tokenizer = build_from_checkpoint(ckpt, path)  # validates config, tokenizer and weights
    meta = ckpt["meta"] if isinstance(ckpt["meta"], dict) else {"meta": ckpt["meta"]}
    info: dict[str, Any] = {
        "checkpoint": str(path),
        "format": ckpt["format"],
        "step": meta.get("step"),
        "direction": direction(meta),
        "parameters": model.num_parameters(),
        "vocab_size": tokenizer.vocab_size,
        "file_size_bytes": os.path.getsize(path),
        "has_train_state": "train_state" in ckpt,
        "config": model.config.to_dict(),
    }
    for key, value in meta.items():
        info.setdefault(str(key), value)
    return _plain(info)


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    text = json.dumps(describe(args.checkpoint), indent=2, ensure_ascii=False, allow_nan=False)
    sys.stdout.write(text + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (see the module docstring)."""
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
