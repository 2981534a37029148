"""Amounts: euros with their sign, written sign first ("49,99 €" → "€49.99", "3 Mrd. €" → "€3
billion"), and "minus" with its number ("minus 5 Grad" → "minus 5"): the model dropped the sign
and the minus now and then.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import tables
from ..spans import NUM_END, THIN, Span, english_number, merge
from .base import Finder

_MULTIPLIERS = tables.pairs("multipliers")
_AMOUNT_NUMBER = rf"[0-9]+(?:[.,][0-9]+)*{NUM_END}"
_MULTIPLIER = rf"(?:{THIN}({'|'.join(m[:-1] for m in _MULTIPLIERS)})\.)?"  # "5 Mio. €"
# An amount in euros, the sign after the number or before it ("49,99 €", "€ 5", "3 Mrd. €").
_EUROS = re.compile(rf"(?<![\w.,])(?:({_AMOUNT_NUMBER}){_MULTIPLIER}[ \t\u00a0]?€"
                    rf"|€[ \t\u00a0]?({_AMOUNT_NUMBER}){_MULTIPLIER}(?!\w))")
# "minus" before a number ("minus 5 Grad").
_MINUS = re.compile(rf"(?<!\w)[Mm]inus[ \t\u00a0]+({_AMOUNT_NUMBER})")


def with_amounts(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with an amount in euros as one span of kind "amount", written as English writes it
    ("49,99 €" -> "€49.99", "3 Mrd. €" -> "€3 billion"), and "minus" with its number as a number
    span ("minus 5"), each in place of its number span. The model dropped both now and then:
    "Bitte überweisen Sie 100 € bis Freitag." -> "Please assign 100 until Friday.", "Es sind minus
    5 Grad." -> "There are 5 degrees."."""
    if "€" not in text and "inus" not in text:
        return list(spans)
    found = []
    for match in _EUROS.finditer(text):
        multiplier = match[2] or match[4]  # "Mio", "Mrd" or None
        english = "€" + english_number(match[1] or match[3])
        if multiplier:
            english += " " + _MULTIPLIERS[multiplier + "."]
        found.append(Span(match.start(), match.end(), "amount", match[0], english))
    for match in _MINUS.finditer(text):
        found.append(Span(match.start(), match.end(), "number", match[0], "minus " + english_number(match[1])))
    return merge(spans, [f for f in found if not any(s.start < f.end and f.start < s.end and s.kind != "number"
                                                       for s in spans)])


RULE = Finder("amounts", with_amounts)
