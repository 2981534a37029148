"""What the benches that compare outputs share: line files, and ``--hyp NAME=FILE`` arguments."""

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
