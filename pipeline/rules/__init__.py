"""The rules: one module per family of spans, each with one ``RULE`` that finds the family's spans
in a source sentence and repairs the output around them (``pipeline.rules.base``).

``RULES`` is the order in which ``Pipeline`` applies them; a later rule sees the spans of the
earlier ones and may take them into its own (a range joins two clock times). To add a family:
write its module with a ``RULE`` (``base.Finder`` where it only finds), put its word lists in
``pipeline/tables/``, and place it in ``RULES``; ``bench/ablation.py`` then measures what it earns.
"""

from __future__ import annotations

from . import abbreviations, amounts, clock, letters, measures, names, ranges, terms, verbatim, years
from .base import Context, Rule

# verbatim first (what is copied as written); years before the glossary's terms (a first try
# reads years as digits); measures only in a second try; a letter's formulas, then names last
# (any capitalized word left).
RULES: tuple[Rule, ...] = (verbatim.RULE, years.RULE, terms.RULE, clock.RULE, amounts.RULE, measures.RULE,
                           abbreviations.RULE, ranges.RULE, letters.RULE, names.RULE)
NAMES = tuple(rule.name for rule in RULES)

__all__ = ["Context", "NAMES", "RULES", "Rule"]
