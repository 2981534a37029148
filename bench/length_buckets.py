"""Scores by source length: where does a model lose, on short or on long sentences?

    python bench/length_buckets.py --data runs/v4a/dev.chat.tsv --hyp v3.8=v38.hyp --hyp v4a=v4a.hyp
    python bench/length_buckets.py --src newstest2019.de --ref newstest2019.en --hyp ... [--edges 15,30,60]

The sources and references are read as ``python -m commands.evaluate`` reads them (``--data``: each
distinct German sentence once, with all its references, in first-seen order; ``--src/--ref``:
line by line), and each ``--hyp NAME=FILE`` holds one hypothesis per source in that order (what
``commands.evaluate --output`` writes). Sources are put into buckets by their length in the pieces of
``--checkpoint``'s vocabulary (default: the release model's); the table gives, per bucket, the
number of sources and each hypothesis file's chrF and BLEU (sacreBLEU, all references).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from commands import cli  # noqa: E402


def parse_args(argv: list[str] | None):
    p = cli.make_parser("bench/length_buckets.py", __doc__)
    p.add_argument("--checkpoint", default=str(cli.DEFAULT_CHECKPOINT), help="whose vocabulary counts the pieces")
    p.add_argument("--data", help="a corpus, as commands.evaluate --data reads it")
    p.add_argument("--src", help="German sources, one per line")
    p.add_argument("--ref", action="append", default=[], help="English references, line-aligned with --src")
    p.add_argument("--hyp", action="append", required=True, metavar="NAME=FILE", help="hypotheses, one per source")
    p.add_argument("--edges", default="15,30,60", help="bucket edges in pieces (default: 15,30,60)")
    args = p.parse_args(argv)
    if (args.data is None) == (args.src is None) or (args.src is not None and not args.ref):
        p.error("give --data CORPUS, or --src FILE with --ref FILE")
    try:
        args.edges = sorted({int(edge) for edge in args.edges.split(",")})
    except ValueError:
        p.error(f"--edges must be integers separated by commas, got {args.edges!r}")
    if not args.edges or args.edges[0] < 1:
        p.error(f"--edges must be integers >= 1, got {args.edges!r}")
    for hyp in args.hyp:
        if "=" not in hyp or not hyp.split("=", 1)[0]:
            p.error(f"--hyp must be NAME=FILE, got {hyp!r}")
    return args


def bucket_names(edges: list[int]) -> list[str]:
    """["1-14", "15-29", "30-59", "60+"] for edges 15, 30, 60."""
    starts = [1, *edges]
    return [f"{a}-{b - 1}" for a, b in zip(starts, edges)] + [f"{edges[-1]}+"]


def bucket_of(pieces: int, edges: list[int]) -> int:
    return sum(pieces >= edge for edge in edges)


def main(argv: list[str] | None = None) -> int:
    from sacrebleu.metrics import BLEU, CHRF

    from model.data import read_lines
    from commands.evaluate import load_corpus, load_src_ref
    from model.network.checkpoint import build_from_checkpoint, read_checkpoint

    args = parse_args(argv)
    sources, streams = load_corpus(args.data) if args.data else load_src_ref(args.src, args.ref)
    hyps = {}
    for item in args.hyp:
        name, path = item.split("=", 1)
        lines = read_lines(path)
        if len(lines) != len(sources):
            raise ValueError(f"--hyp {path!r} has {len(lines)} lines for {len(sources)} sources")
        hyps[name] = lines
    _, tokenizer = build_from_checkpoint(read_checkpoint(args.checkpoint), args.checkpoint)
    buckets = [bucket_of(len(ids), args.edges) for ids in tokenizer.encode_batch(sources)]
    names = bucket_names(args.edges)
    header = f"{'pieces':>8} {'sources':>8}" + "".join(f" {name + ' chrF':>14} {name + ' BLEU':>14}" for name in hyps)
    print(header)
    for k, label in enumerate(names + ["all"]):
        chosen = [i for i, b in enumerate(buckets) if b == k or label == "all"]
        if not chosen:
            continue
        refs = [[stream[i] for i in chosen] for stream in streams]
        row = f"{label:>8} {len(chosen):>8}"
        for lines in hyps.values():
            picked = [lines[i] for i in chosen]
            row += f" {CHRF().corpus_score(picked, refs).score:14.2f} {BLEU().corpus_score(picked, refs).score:14.2f}"
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main, None, prog="bench/length_buckets.py"))
