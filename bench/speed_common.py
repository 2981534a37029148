"""Helpers shared by the parts of ``bench/model_speed.py`` (training and decoding benchmarks).

bench/ is a folder of scripts, not a package: ``python bench/model_speed.py`` puts bench/ on sys.path,
and importing this module puts the repository root there too, so that ``model`` can be imported.
"""

from __future__ import annotations

import random
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FIRST_PIECE = 4  # ids 0-3 are <pad> <unk> <s> </s>
T0 = time.perf_counter()


def progress(message: str) -> None:
    """One line on stderr, so that a long run shows where it is without mixing into the table."""
    print(f"[{time.perf_counter() - T0:6.1f} s] {message}", file=sys.stderr, flush=True)


def random_ids(rng: random.Random, length: int, vocab: int) -> list[int]:
    return [rng.randrange(FIRST_PIECE, vocab) for _ in range(length)]


def verdict(ok: bool) -> str:
    return "ok" if ok else "BELOW TARGET"


class Meter:
    """Wall time plus this process's CPU time and minor page faults over a block."""

    def __enter__(self) -> "Meter":
        self._r0, self._t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self._t0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        self.user, self.sys = r1.ru_utime - self._r0.ru_utime, r1.ru_stime - self._r0.ru_stime
        self.faults = r1.ru_minflt - self._r0.ru_minflt
