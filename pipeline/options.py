"""The text pipeline's knobs (``Options``), validated once: how the model searches and what the
pipeline does around it. ``pipeline.translation.Pipeline`` takes them."""

from __future__ import annotations

import math
from dataclasses import dataclass

from model.search.options import SERVED, SearchOptions

from .formality import FORMALITIES
from .harm import CHECKS
from .rules import NAMES as RULE_NAMES


@dataclass(frozen=True)
class Options:
    search: SearchOptions = SERVED  # how the model searches (model/search/options.py): beam, length
                                  # penalty, n-gram blocking, batch size
    max_pieces: int = 24          # longest model input; longer sentences are cut at clauses. 24 kept
                                  # short-sentence BLEU and lost least on long ones (bench/README.md)
    retries: int = 2              # rounds of re-translating implausibly short or looping outputs
    caps: str = "truecase"        # ALL-CAPS, headline and lower-case input: "truecase" (rewritten in the
                                  # casing the vocabulary knows, casing.truecase, and a sentence's
                                  # lower-case start capitalized; in the output too where a
                                  # placeholder hid the input's capital: words.capitalize_start)
                                  # or "as_is"; truecasing reads
                                  # capitals far better than the model can (bench/README.md, casing.py)
    coverage_weight: float = 1.0  # what one source content word left out costs a beam hypothesis, in
                                  # its score's units (log-probability per length-penalized token):
                                  # outputs that leave words out (``pipeline.coverage``) take the
                                  # hypothesis of best score - weight x words left out; 0 = off.
                                  # Chosen on the dev sets (bench/README.md, coverage.py)
    gap_words: int = 0            # where the chosen hypothesis still leaves content words out, the
                                  # model's first words tried at each place one may belong
                                  # (``Coverage.gaps``), each completed by beam search, weighed as the
                                  # beam's hypotheses are (``coverage_weight``); 0 = off. Off: on the
                                  # dev sets 4 gained little for up to three times the time
                                  # (docs/journal/coverage.md, "Left-out words: going on at the gap")
    hints: bool = True            # a German noun that a sentence's translation carries over as written
                                  # is given the dictionary's English, and the sentence translated
                                  # again (``pipeline.hints``; with a dictionary only)
    without_rules: tuple[str, ...] = ()  # rule families left out (names of pipeline.rules.NAMES): the
                                         # ablation of bench/README.md; () = every rule
    formality: str = "formal"     # German output addresses the reader as "Sie" ("formal") or "du"
                                  # ("informal"): the best beam hypothesis that does
                                  # (``pipeline.formality``), or as the model writes it ("any");
                                  # a German target only
    checks: tuple[str, ...] = tuple(CHECKS)  # what no translation may do, weighed before anything
                                  # else among the hypotheses (``pipeline.harm``: "negation" lost or
                                  # added, "profanity" the source has not); () = none

    def __post_init__(self) -> None:
        if not isinstance(self.search, SearchOptions):
            raise ValueError(f"search must be a SearchOptions, got {self.search!r}")
        for name, minimum in (("max_pieces", 8), ("retries", 0), ("gap_words", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
        if not isinstance(self.hints, bool):
            raise ValueError(f"hints must be True or False, got {self.hints!r}")
        if self.caps not in CAPS:
            raise ValueError(f"caps must be one of {', '.join(CAPS)}, got {self.caps!r}")
        if self.formality not in FORMALITIES:
            raise ValueError(f"formality must be one of {', '.join(FORMALITIES)}, got {self.formality!r}")
        weight = self.coverage_weight
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight < math.inf:
            raise ValueError(f"coverage_weight must be a number >= 0, got {weight!r}")
        if not isinstance(self.checks, tuple) or any(name not in CHECKS for name in self.checks):
            raise ValueError(f"checks must be a tuple of check names ({', '.join(CHECKS)}), got {self.checks!r}")
        unknown = [name for name in self.without_rules if name not in RULE_NAMES]
        if not isinstance(self.without_rules, tuple) or unknown:
            raise ValueError(f"without_rules must be a tuple of rule names ({', '.join(RULE_NAMES)}), "
                             f"got {self.without_rules!r}")


CAPS = ("truecase", "as_is")
