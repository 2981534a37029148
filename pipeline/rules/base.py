"""What a rule is: one family of spans (clock times, amounts, names, ...), both directions.

``find`` protects what the family recognizes in a source sentence: it returns the spans found so
far with its own merged in (``spans.merge``), each written as English writes it (``Span.target``).
``repair`` returns, for one masked model input, how to mend the model's output words around the
family's placeholders ("at ⦅N1⦆ o'clock" where ⦅N1⦆ is "8:15 p.m."), or None where the family has
nothing to mend. Repairs work on the word list (``pipeline.words``), the one form every output
takes before its spans are put back, so each is written once.

``Pipeline`` holds an ordered tuple of rules (``pipeline.rules.RULES``): a later rule sees the
spans of the earlier ones. Switching one off (``Options.without_rules``) is how
``bench/README.md``'s ablation measures what each earns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..spans import Masked, Span
from ..words import Fix


@dataclass(frozen=True)
class Context:
    """What a rule may read besides the sentence and the spans found so far.

    ``representable``: whether the vocabulary has a character (None: not checked), and
    ``representable_lowered`` the same for a text read truecased (None where the pipeline does
    not truecase); ``second_try``: the sentence is planned again because its translation lost a
    number (``Pipeline.second_try``); ``terms``: a glossary's ``spans(text, spans)``, None without
    a glossary; ``knows``: the model lexicon's ``knows(word, initial=...)``, None without one;
    ``named``: whether the lexicon saw a word as a name; ``reads``: whether the German dictionary
    reads a word (``pipeline.coverage.Coverage.reads``), None without one; ``places``: German place
    names and their English ones."""

    representable: Callable[[str], bool] | None = None
    representable_lowered: Callable[[str], bool] | None = None
    second_try: bool = False
    terms: Callable[[str, Sequence[Span]], list[Span]] | None = None
    knows: Callable[..., bool] | None = None
    named: Callable[[str], bool] | None = None
    reads: Callable[[str], bool] | None = None
    places: Mapping[str, str] | None = None


class Rule(Protocol):
    """One family of spans: see the module docstring."""

    name: str

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]: ...

    def repair(self, masked: Masked) -> Fix | None: ...


class Finder:
    """A rule that only finds: ``find`` calls ``function(text, spans)``; nothing to repair."""

    def __init__(self, name: str, function: Callable[[str, Sequence[Span]], list[Span]]):
        self.name, self.function = name, function

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        return self.function(text, spans)

    def repair(self, masked: Masked) -> Fix | None:
        return None

    def __repr__(self) -> str:
        return f"Finder({self.name!r})"
