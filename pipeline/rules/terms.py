"""A glossary's terms (``pipeline.glossary``) as spans: the user's rule, found outside the spans
of the rules before it; their placeholders are fitted to the output by ``glossary.fit_terms``."""

from __future__ import annotations

from collections.abc import Sequence

from ..spans import Masked, Span, merge
from .base import Context, Rule


class Terms(Rule):
    name = "terms"

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        return merge(spans, context.terms(text, spans)) if context.terms is not None else list(spans)

    def repair(self, masked: Masked):
        return None


RULE = Terms()
