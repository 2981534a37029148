"""The engine interface: what the pipeline, the app and the commands may call on a translator.

``Translator`` (PyTorch), ``CT2Translator`` (CTranslate2) and ``CachedTranslator`` (either, with a
cache of outputs) implement ``Engine``. The searches differ by engine; everything that reads the
network itself (alignment by attention, confidences by teacher forcing, the attention view, the
inspector's completion and beam trace) runs on the PyTorch translator of the same checkpoint,
``engine.torch``. ``TorchBacked`` gives an engine the attributes that come from it, and
``Wrapping`` an engine in front of another (the cache, the cross-request batcher) everything it
passes through to that one. Every search is told how to search by one ``SearchOptions``
(``model/search/options.py``), never by loose keywords.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from torch import device as Device

    from model.data.lexicon import Lexicon
    from model.inference.alignment import AlignedText, Range
    from model.inference.translator import Translator
    from model.network.config import ModelConfig
    from model.network.tokenizer import Tokenizer
    from model.network.transformer import Transformer
    from model.search.options import SearchOptions


class Engine(Protocol):
    engine: str                        # "torch" or "ct2"
    parallel: int                      # searches it runs at once when called from several threads
    beam_exact: bool                   # whether ``beam`` is the exact n-best list (``translate_n_best``)

    @property
    def torch(self) -> Translator: ...
    @property
    def tokenizer(self) -> Tokenizer: ...
    @property
    def config(self) -> ModelConfig: ...
    @property
    def device(self) -> Device: ...
    @property
    def checkpoint(self) -> str: ...
    @property
    def meta(self) -> dict[str, Any]: ...
    @property
    def lexicon(self) -> Lexicon | None: ...
    def num_parameters(self) -> int: ...
    def source_ids(self, texts: Sequence[str]) -> list[list[int]]: ...
    # ``search`` defaults to ``model.search.options.DEFAULT`` (greedy); n-best lists need one.
    def output_ids(self, texts: Sequence[str], search: SearchOptions = ...) -> list[list[int]]: ...
    def translate(self, texts: Sequence[str], search: SearchOptions = ...) -> list[str]: ...
    def translate_aligned(self, texts: Sequence[str], search: SearchOptions = ...) -> list[AlignedText]: ...
    def translate_n_best(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]: ...
    # the hypotheses of translate's own beam search, best first (cheaper than an exact n-best list)
    def beam(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]: ...
    # translations that begin with given output pieces, one per distinct next word
    def continue_n_best(self, texts: Sequence[str], prefixes: Sequence[Sequence[int]], search: SearchOptions, *,
                        n: int) -> list[list[tuple[str, float]]]: ...
    def align(self, sources: Sequence[str], outputs_ids: Sequence[Sequence[int]], *,
              batch_size: int = ...) -> list[AlignedText]: ...
    def word_confidences(self, sources: Sequence[str], outputs: Sequence[str], *,
                         batch_size: int = ...) -> list[tuple[list[Range], list[float]]]: ...
    # log p(output | source) of given pairs, by this engine (the noisy channel's scores)
    def score_outputs(self, sources_ids: Sequence[Sequence[int]], outputs_ids: Sequence[Sequence[int]], *,
                      batch_size: int = ...) -> list[float]: ...


class TorchBacked:
    """The attributes an engine answers from its PyTorch translator (``self.torch``)."""

    torch: Translator

    @property
    def tokenizer(self) -> Tokenizer:
        return self.torch.tokenizer

    @property
    def config(self) -> ModelConfig:
        return self.torch.config

    @property
    def device(self) -> Device:
        return self.torch.device

    @property
    def checkpoint(self) -> str:
        return self.torch.checkpoint

    @property
    def meta(self) -> dict[str, Any]:
        return self.torch.meta

    @property
    def lexicon(self) -> Lexicon | None:
        return self.torch.lexicon

    @property
    def model(self) -> Transformer:
        return self.torch.model

    def num_parameters(self) -> int:
        return self.torch.num_parameters()

    def source_ids(self, texts: Sequence[str]) -> list[list[int]]:
        return self.torch.source_ids(texts)

    def word_confidences(self, sources: Sequence[str], outputs: Sequence[str], **kwargs: Any):
        return self.torch.word_confidences(sources, outputs, **kwargs)


class Wrapping(TorchBacked):
    """An engine in front of another, ``inner``: its engine name and PyTorch translator are the
    inner one's, and n-best lists, alignment, confidences and scores go to it unchanged."""

    inner: Any

    @property
    def engine(self) -> str:
        return self.inner.engine

    @property
    def parallel(self) -> int:
        return self.inner.parallel

    @property
    def beam_exact(self) -> bool:
        return self.inner.beam_exact

    @property
    def torch(self) -> Translator:
        return self.inner.torch

    def translate_n_best(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        return self.inner.translate_n_best(texts, search)

    def beam(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        return self.inner.beam(texts, search)

    def continue_n_best(self, texts: Sequence[str], prefixes: Sequence[Sequence[int]], search: SearchOptions, *,
                        n: int) -> list[list[tuple[str, float]]]:
        return self.inner.continue_n_best(texts, prefixes, search, n=n)

    def align(self, sources: Sequence[str], outputs_ids: Sequence[Sequence[int]], **kwargs: Any) -> list[AlignedText]:
        return self.inner.align(sources, outputs_ids, **kwargs)

    def word_confidences(self, sources: Sequence[str], outputs: Sequence[str], **kwargs: Any):
        return self.inner.word_confidences(sources, outputs, **kwargs)

    def score_outputs(self, sources_ids: Sequence[Sequence[int]], outputs_ids: Sequence[Sequence[int]],
                      **kwargs: Any) -> list[float]:
        return self.inner.score_outputs(sources_ids, outputs_ids, **kwargs)
