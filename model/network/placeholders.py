"""Placeholder symbols: reserved vocabulary pieces that stand for text the model must copy.

``⦅N1⦆``…``⦅N20⦆`` stand for numbers, dates, times and codes, ``⦅X1⦆``…``⦅X20⦆`` for everything
else (URLs, e-mails, format directives, ...). A tokenizer trained with ``PLACEHOLDERS`` as
user-defined symbols keeps each as one piece; the data layer writes them into training pairs and
the pipeline masks and restores them around translation.
"""

from __future__ import annotations

import re

NUMBER_SLOTS = 20
OTHER_SLOTS = 20
SLOTS = {"N": NUMBER_SLOTS, "X": OTHER_SLOTS}


def placeholder(family: str, index: int) -> str:
    """The placeholder symbol ``⦅N3⦆`` / ``⦅X3⦆`` of a family ("N" or "X") and a 1-based index."""
    if family not in SLOTS:
        raise ValueError(f"placeholder family must be 'N' or 'X', got {family!r}")
    if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index <= SLOTS[family]:
        raise ValueError(f"placeholder index must be an integer in 1..{SLOTS[family]}, got {index!r}")
    return f"⦅{family}{index}⦆"


PLACEHOLDERS: tuple[str, ...] = tuple(
    placeholder(family, i) for family in ("N", "X") for i in range(1, SLOTS[family] + 1))
PLACEHOLDER_RE = re.compile(r"⦅[NX][0-9]+⦆")
