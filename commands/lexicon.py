"""Give a checkpoint the lexicon of its training data: the source words it was taught to translate.

    python -m commands.lexicon CKPT --data CORPUS [--data CORPUS ...] [--out FILE]

``CORPUS`` is a corpus as train.py's ``--data`` takes it (``[KIND:]PATH``; a weight is ignored).
Pass the corpora the model was trained on. The lexicon (``model.data.lexicon.build_lexicon``) holds
each source word form (German, or English for an en-de checkpoint) that those pairs translate at
least as often as they copy it, or copy often, and as names the forms they copy more often; the pipeline then carries any capitalized word it does
not know over like a span, as a name (``pipeline.rules.names.with_names``). train.py
writes the same lexicon into the checkpoints it saves; this command is for checkpoints trained
before that, or trained on other data than they serve.

The checkpoint is rewritten atomically (``--out`` elsewhere), with its weights, metadata and
train state unchanged. Exit status: 0, or 2 with one "error:" line on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from . import cli

PROG = "python -m commands.lexicon"


def parse_args(argv: Sequence[str] | None):
    p = cli.make_parser(PROG, __doc__)
    p.add_argument("checkpoint", metavar="CKPT", help="the checkpoint to give a lexicon")
    p.add_argument("--data", action="append", required=True, metavar="CORPUS",
                   help="a training corpus, [KIND:]PATH as train.py's --data; repeat for several")
    p.add_argument("--out", metavar="FILE", help="write here instead of replacing CKPT")
    return p.parse_args(argv)


def _main(argv: Sequence[str] | None) -> int:
    from model.data import CorpusSpec
    from model.data.lexicon import build_lexicon
    from model.network.checkpoint import atomic_save, direction, oriented, read_checkpoint

    args = parse_args(argv)
    specs = [CorpusSpec.parse(text) for text in args.data]
    out = cli.output_path(args.out or args.checkpoint)
    ckpt = read_checkpoint(args.checkpoint)
    # As train.py builds it: from the source side of the checkpoint's direction (English for en-de).
    pairs = oriented([pair for spec in specs for pair in spec.read()], direction(ckpt["meta"]))
    lexicon = build_lexicon(pairs)
    ckpt["lexicon"] = lexicon.to_bytes()
    atomic_save(ckpt, out)
    print(f"wrote {out}: lexicon of {len(lexicon):,} source word forms and {len(lexicon.names):,} names "
          f"from {len(pairs):,} pairs "
          f"of {len(specs)} corpus(es), {out.stat().st_size / 2**20:.1f} MiB")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
