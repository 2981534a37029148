"""What the benches that compare outputs share: line files, ``--hyp NAME=FILE`` arguments, and the
paired bootstrap of chrF."""

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
