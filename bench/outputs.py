"""What the benches that compare outputs share: line files, ``--hyp NAME=FILE`` arguments, the
sources and references of a dev set (``--data`` or ``--src``/``--ref``, ``--skip``, ``--limit``),
and the paired bootstrap of chrF."""

from __future__ import annotations

import argparse
from pathlib import Path


def read_lines(path: str) -> list[str]:
    """The lines of ``path`` (UTF-8), without the last line break; [] for an empty file."""
    text = Path(path).read_text(encoding="utf-8")
    return text.removesuffix("\n").split("\n") if text else []


def add_outputs(p: argparse.ArgumentParser) -> None:
    """``--hyp NAME=FILE`` (repeated, at least one) and ``--json``."""
    p.add_argument("--hyp", required=True, action="append", metavar="NAME=FILE", help="an output to count (repeat)")
    p.add_argument("--json", action="store_true")


def parse_outputs(p: argparse.ArgumentParser, argv) -> argparse.Namespace:
    """``p``'s arguments; ``--hyp`` values not of the form NAME=FILE are a usage error."""
    args = p.parse_args(argv)
    for hyp in args.hyp:
        if "=" not in hyp:
            p.error(f"--hyp takes NAME=FILE, got {hyp!r}")
    return args


def add_sources(p: argparse.ArgumentParser, *, limit: int = 300) -> None:
    """``--data`` or ``--src``/``--ref`` (as ``commands.evaluate`` reads them), ``--skip`` and ``--limit``."""
    p.add_argument("--data", metavar="CORPUS", help="a corpus, as commands.evaluate --data reads it")
    p.add_argument("--src", metavar="FILE", help="German sources, one per line")
    p.add_argument("--ref", metavar="FILE", action="append", default=[], help="English references, line-aligned "
                   "with --src; repeat for several")
    p.add_argument("--skip", type=int, default=0, metavar="N", help="leave out the first N sources (default: 0)")
    p.add_argument("--limit", type=int, default=limit, metavar="N", help=f"then take N sources (default: {limit})")


def check_sources(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The usage error of ``add_sources``' arguments given wrong, if any."""
    from commands import cli

    if (args.data is None) == (args.src is None) or (args.src is not None and not args.ref):
        p.error("give --data CORPUS, or --src FILE with --ref FILE")
    cli.require_min(p, args, "skip", 0)
    cli.require_min(p, args, "limit", 1)


def load_sources(args: argparse.Namespace) -> tuple[list[str], list[list[str | None]]]:
    """The sources and reference streams of ``add_sources``' arguments: ``--data``, each distinct
    German sentence once with all its references in first-seen order, or ``--src``/``--ref`` line by
    line; ``--limit`` of them after the first ``--skip`` (ValueError where none are left)."""
    from commands.evaluate import load_corpus, load_src_ref

    sources, streams = load_corpus(args.data) if args.data else load_src_ref(args.src, args.ref)
    chosen = slice(args.skip, args.skip + args.limit)
    sources, streams = sources[chosen], [stream[chosen] for stream in streams]
    if not sources:
        raise ValueError(f"--skip {args.skip} leaves no sources")
    return sources, streams


def bootstrap_p(base: list[str], systems: list[list[str]], streams: list[list[str | None]],
                samples: int = 1000) -> list[float | None]:
    """Per system, sacreBLEU's paired bootstrap p-value of its corpus chrF against ``base``
    (``sacrebleu --paired-bs``: ``samples`` resamples, its fixed seed): how often a difference as
    large comes about by chance. None for a system identical to ``base``: the test would count its
    zero difference as significant. ``streams``: the references, one list per reference."""
    from sacrebleu.metrics import CHRF
    from sacrebleu.significance import PairedTest

    differing = [outputs for outputs in systems if outputs != base]
    found = iter([])
    if differing:
        named = [("base", base), *((str(k), outputs) for k, outputs in enumerate(differing))]
        _, results = PairedTest(named, {"chrF": CHRF(references=streams)}, None, test_type="bs", n_samples=samples)()
        (chrf,) = (scores for name, scores in results.items() if name != "System")
        found = iter(result.p_value for result in chrf[1:])
    return [next(found) if outputs != base else None for outputs in systems]
