"""The rules: one module per family of spans, each with one ``RULE`` that finds the family's spans
in a source sentence and repairs the output around them (``pipeline.rules.base``).

``RULES`` is the order in which ``Pipeline`` applies them to a German source; a later rule sees
the spans of the earlier ones and may take them into its own (a range joins two clock times).
``ENGLISH_RULES`` are those of an English source (a model of direction en-de): what is copied as
written, a glossary's terms, numbers, dates and times in German notation, and forms of address
("Mr. Smith"); the others read German. ``rules_for`` picks by the source language. To add a family:
write its module with a ``RULE`` (``base.Finder`` where it only finds), put its word lists in
``pipeline/tables/``, and place it in ``RULES``; ``bench/ablation.py`` then measures what it earns.
"""

from __future__ import annotations

from . import (abbreviations, amounts, clock, english_titles, german_notation, letters, measures, names, ranges,
               terms, verbatim, weekdays, years)
from .base import Context, Rule

# verbatim first (what is copied as written); years before the glossary's terms (a first try
# reads years as digits); measures only in a second try; a letter's formulas, then names last
# (any capitalized word left).
RULES: tuple[Rule, ...] = (verbatim.RULE, years.RULE, terms.RULE, clock.RULE, amounts.RULE, measures.RULE,
                           abbreviations.RULE, ranges.RULE, weekdays.RULE, letters.RULE, names.RULE)
ENGLISH_RULES: tuple[Rule, ...] = (verbatim.ENGLISH_RULE, terms.RULE, german_notation.RULE, english_titles.RULE)
NAMES = tuple(dict.fromkeys(rule.name for rule in RULES + ENGLISH_RULES))


def rules_for(source: str) -> tuple[Rule, ...]:
    """The rules of a source language: "de" (``RULES``) or "en" (``ENGLISH_RULES``)."""
    if source not in ("de", "en"):
        raise ValueError(f"no rules for source language {source!r}; there are rules for 'de' and 'en'")
    return RULES if source == "de" else ENGLISH_RULES


__all__ = ["Context", "ENGLISH_RULES", "NAMES", "RULES", "Rule", "rules_for"]
