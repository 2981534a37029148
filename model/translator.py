"""``Translator``: a loaded checkpoint behind a text-in, text-out interface.

Used by the command-line tools and by the web service. It hides tensors from its callers:
everything it returns is strings, floats and nested lists.

Batching: inputs are sorted by length and cut into batches of similar length (little padding),
then results are put back in input order. Empty inputs translate to "" without the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import torch

from .batch import Batch
from .checkpoint import load_checkpoint
from .data import normalize
from .decoding import beam_search, capture_attention, greedy_search
from .tokenizer import Tokenizer
from .transformer import Transformer

DEVICES = ("auto", "cpu", "cuda")


def resolve_device(name: str) -> torch.device:
    """'auto' -> cuda when available, else cpu; 'cuda' without a GPU is an error."""
    if name not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {name!r}")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' was asked for, but no CUDA GPU is available")
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(name)


class Translator:
    def __init__(self, model: Transformer, tokenizer: Tokenizer, meta: dict[str, Any], device: torch.device,
                 checkpoint: str = ""):
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.meta = meta
        self.device = device
        self.checkpoint = checkpoint

    @classmethod
    def from_checkpoint(cls, path: str | Path, device: str = "auto") -> "Translator":
        dev = resolve_device(device)
        model, tokenizer, meta = load_checkpoint(path, dev)
        return cls(model, tokenizer, meta, dev, checkpoint=str(path))

    @property
    def config(self):
        return self.model.config

    def num_parameters(self) -> int:
        return self.model.num_parameters()

    def _source_ids(self, texts: Sequence[str]) -> list[list[int]]:
        # Room for EOS; longer input is cut rather than refused (callers limit characters).
        limit = self.config.max_len - 1
        return [ids[:limit] for ids in self.tokenizer.encode_batch([normalize(t) for t in texts])]

    def _batches(self, ids: list[list[int]], batch_size: int) -> list[list[int]]:
        """Indices of non-empty inputs, longest first, in chunks of ``batch_size``."""
        order = sorted((i for i, s in enumerate(ids) if s), key=lambda i: -len(ids[i]))
        return [order[k:k + batch_size] for k in range(0, len(order), batch_size)]

    def translate_n_best(
        self, texts: Sequence[str], *, beam_size: int = 4, n_best: int = 1, length_penalty: float = 0.6,
        batch_size: int = 64,
    ) -> list[list[tuple[str, float]]]:
        """Up to ``n_best`` (translation, score) pairs per input, best first."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size!r}")
        ids = self._source_ids(texts)
        results: list[list[tuple[str, float]]] = [[("", 0.0)] for _ in texts]
        for chunk in self._batches(ids, batch_size):
            batch = Batch.make([ids[i] for i in chunk], device=self.device)
            hyps = beam_search(self.model, batch, beam_size=beam_size, n_best=n_best,
                               length_penalty_alpha=length_penalty)
            for i, sent_hyps in zip(chunk, hyps):
                results[i] = [(self.tokenizer.decode(h.tokens), h.score) for h in sent_hyps]
        return results

    def translate(
        self, texts: Sequence[str], *, beam_size: int = 1, length_penalty: float = 0.6, batch_size: int = 64,
    ) -> list[str]:
        """One English line per German input, same order. Beam size 1 is greedy search."""
        if beam_size > 1:
            return [h[0][0] for h in self.translate_n_best(
                texts, beam_size=beam_size, length_penalty=length_penalty, batch_size=batch_size)]
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size!r}")
        ids = self._source_ids(texts)
        out = [""] * len(texts)
        for chunk in self._batches(ids, batch_size):
            batch = Batch.make([ids[i] for i in chunk], device=self.device)
            for i, tokens in zip(chunk, greedy_search(self.model, batch)):
                out[i] = self.tokenizer.decode(tokens)
        return out

    def attention(self, text: str, *, beam_size: int = 1) -> dict[str, Any]:
        """The translation of ``text`` and every attention weight behind it, as plain lists.

        ``attention`` holds ``encoder`` [L][H][S][S], ``decoder`` [L][H][T][T] and ``cross``
        [L][H][T][S]. Row i of ``decoder`` and ``cross`` is the step that produced
        ``target_tokens[i]``; the decoder's keys are its inputs, ``decoder_input_tokens``."""
        src_ids = self._source_ids([text])[0]
        if not src_ids:
            raise ValueError("cannot show attention for an empty text")
        batch = Batch.make([src_ids], device=self.device)
        if beam_size > 1:
            out_ids = beam_search(self.model, batch, beam_size=beam_size)[0][0].tokens
        else:
            out_ids = greedy_search(self.model, batch)[0]
        weights = capture_attention(self.model, src_ids, out_ids)
        pieces = self.tokenizer.pieces
        return {
            "source_tokens": pieces(src_ids) + ["</s>"],
            "target_tokens": pieces(out_ids) + ["</s>"],
            "decoder_input_tokens": ["<s>"] + pieces(out_ids),
            "translation": self.tokenizer.decode(out_ids),
            "attention": {
                kind: [w[0].float().cpu().tolist() for w in getattr(weights, kind)]
                for kind in ("encoder", "decoder", "cross")
            },
        }
