"""Engines for measuring the pipeline: ``CopyEngine``, a stub model whose every input comes back
as its own output, word for word (it has the real checkpoint's tokenizer and lexicon, which the
pipeline measures and masks with, but no search runs, so a test measures the pipeline's own work
alone); ``NBest``, one whose n-best lists are given; ``Recording``, the real engine, recording
what reaches the model."""

from __future__ import annotations

import re
from collections.abc import Sequence

from model.inference.alignment import AlignedText
from model.inference.interface import TorchBacked
from model.inference.translator import Translator
from model.search.options import DEFAULT, SearchOptions

_WORD = re.compile(r"\S+")


def copied(text: str) -> AlignedText:
    words = [m.span() for m in _WORD.finditer(text)]
    return AlignedText(text, text, words, list(words), [(i, i) for i in range(len(words))])


class CopyEngine(TorchBacked):
    engine = "copy"
    parallel = 1
    beam_exact = True

    def __init__(self, translator: Translator):
        self.torch = translator

    def output_ids(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[list[int]]:
        self.torch.source_ids(texts)  # refuses what the model could not read, as the real engines do
        return [self.tokenizer.encode(text) for text in texts]

    def translate(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[str]:
        self.torch.source_ids(texts)  # refuses what the model could not read, as the real engines do
        return list(texts)

    def translate_aligned(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[AlignedText]:
        self.torch.source_ids(texts)
        return [copied(text) for text in texts]

    def translate_n_best(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        self.torch.source_ids(texts)
        return [[(text, 0.0)] for text in texts]

    def beam(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        return self.translate_n_best(texts, search)

    def continue_n_best(self, texts: Sequence[str], prefixes: Sequence[Sequence[int]], search: SearchOptions, *,
                        n: int) -> list[list[tuple[str, float]]]:
        return [[] for _ in texts]   # a copy has nothing else to go on with

    def align(self, sources: Sequence[str], outputs_ids: Sequence[Sequence[int]], **kwargs) -> list[AlignedText]:
        return [copied(source) for source in sources]


class Recording:
    """The real translator, recording the texts of each ``translate`` call in ``calls``."""

    def __init__(self, translator):
        self.translator, self.calls = translator, []

    def __getattr__(self, name):
        return getattr(self.translator, name)

    def translate(self, texts, search=DEFAULT):
        self.calls.append(list(texts))
        return self.translator.translate(texts, search)


class NBest(CopyEngine):
    """A stub model that answers each input with the n-best list of ``table`` (best first), and
    each (input, decoded prefix) with the continuations of ``continuations`` (none where absent)."""

    def __init__(self, translator, table: dict[str, list[tuple[str, float]]],
                 continuations: dict[tuple[str, str], list[tuple[str, float]]] | None = None):
        super().__init__(translator)
        self.table, self.continuations = table, continuations or {}
        self.n_best_calls: list[list[str]] = []
        self.continue_calls: list[list[tuple[str, str]]] = []

    def continue_n_best(self, texts: Sequence[str], prefixes: Sequence[Sequence[int]], search: SearchOptions, *,
                        n: int) -> list[list[tuple[str, float]]]:
        asked = [(text, self.tokenizer.decode(prefix)) for text, prefix in zip(texts, prefixes)]
        self.continue_calls.append(asked)
        return [self.continuations.get(pair, [])[:n] for pair in asked]

    def translate(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[str]:
        return [self.table[text][0][0] for text in texts]

    def translate_n_best(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        self.n_best_calls.append(list(texts))
        return [self.table[text] for text in texts]
