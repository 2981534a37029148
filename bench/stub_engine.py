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

    def __init__(self, translator: Translator):
        self.torch = translator

    def output_ids(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[list[int]]:
        return [self.tokenizer.encode(text) for text in texts]

    def translate(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[str]:
        return list(texts)

    def translate_aligned(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[AlignedText]:
        return [copied(text) for text in texts]

    def translate_n_best(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        return [[(text, 0.0)] for text in texts]

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
    """A stub model that answers each input with the n-best list of ``table`` (best first)."""

    def __init__(self, translator, table: dict[str, list[tuple[str, float]]]):
        super().__init__(translator)
        self.table = table
        self.n_best_calls: list[list[str]] = []

    def translate(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[str]:
        return [self.table[text][0][0] for text in texts]

    def translate_n_best(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        self.n_best_calls.append(list(texts))
        return [self.table[text] for text in texts]
