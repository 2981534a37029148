"""Helpers of the rule tests (and of tests/pipeline/test_spans.py)."""

from __future__ import annotations

from pipeline.rules import RULES
from pipeline.words import Restorer


def restore(output, masked):
    """The model's output with the spans restored and every rule's repair made, as the pipeline does."""
    return Restorer(masked, tuple(fix for rule in RULES if (fix := rule.repair(masked)) is not None)).text(output)
