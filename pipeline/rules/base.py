"""What a rule is: one family of spans (clock times, amounts, names, ...), both directions.

``find`` protects what the family recognizes in a source sentence: it returns the spans found so
far with its own merged in (``spans.merge``), each written as English writes it (``Span.target``).
``repair`` returns, for one masked model input, how to mend the model's output words around the
family's placeholders ("at ⦅N1⦆ o'clock" where ⦅N1⦆ is "8:15 p.m."), or None where the family has
nothing to mend. Repairs work on the word list (``pipeline.words``), the one form every output
takes before its spans are put back, so each is written once.

Besides, a rule may take part where the pipeline asks all of its rules (``Rule``'s hooks, each
doing nothing unless the rule overrides it): whether a first try's translation must be checked
and whether it kept what the family protects in a second try (``first_try_checks``,
``first_try_kept``), how a model input is respelled (``respell``) and which span a letter's
signature is (``signature``). ``Pipeline`` holds an ordered tuple of rules
(``pipeline.rules.RULES``), calls them only through this contract and names none: a later rule
sees the spans of the earlier ones. Switching one off (``Options.without_rules``) takes its hooks
with it, which is how ``bench/README.md``'s ablation measures what each earns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

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


class Rule:
    """One family of spans (the module docstring): ``find`` is its own; every other hook has a
    default that does nothing."""

    name: str

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        raise NotImplementedError(f"rule {self.name!r} finds nothing")

    def repair(self, masked: Masked) -> Fix | None:
        """How to mend the model's output words around this family's placeholders; None: nothing."""
        return None

    def first_try_checks(self, text: str) -> bool:
        """Whether ``text`` (a source sentence) has what ``first_try_kept`` checks."""
        return False

    def first_try_kept(self, text: str, translation: str) -> bool:
        """Whether a first try's ``translation`` of ``text`` kept what this family protects only in a
        second try (``Context.second_try``); where it did not, the sentence is planned again."""
        return True

    def respell(self, masked: Masked) -> Masked:
        """The model input ``masked`` as this family respells it before the model reads it."""
        return masked

    def signature(self, text: str, start: int, end: int) -> Span | None:
        """The writer's name under a letter's closing at ``text[start:end]``, as a span; None."""
        return None


class Finder(Rule):
    """A rule that only finds: ``find`` calls ``function(text, spans)``; nothing to repair."""

    def __init__(self, name: str, function: Callable[[str, Sequence[Span]], list[Span]]):
        self.name, self.function = name, function

    def find(self, text: str, spans: Sequence[Span], context: Context) -> list[Span]:
        return self.function(text, spans)

    def __repr__(self) -> str:
        return f"Finder({self.name!r})"
