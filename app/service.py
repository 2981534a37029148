"""The translator behind the web service: loaded once per process, reached through ``get_service()``.

``init_app`` runs inside ``create_app``. Under gunicorn with ``preload_app`` that is the master
process, before it forks: the workers then share the weights' memory pages copy-on-write instead
of each loading its own copy. Views never see tensors: every method here takes and returns strings,
numbers and lists.
"""

from __future__ import annotations

import os
import random
import threading
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import sacrebleu
import torch
from flask import Flask, current_app

from model.checkpoint import CheckpointError
from model.cli import available_cpus
from model.data import CorpusError, normalize, read_references
from model.translator import Translator
from pipeline.markup import translate_html
from pipeline.segment import sentences
from pipeline.translate import Options, Pipeline

EXTENSION = "translation_service"


class NothingToTranslate(ValueError):
    """The text has no pieces for the model (only invisible characters such as U+200B)."""


class StartupError(RuntimeError):
    """The service cannot start; the message is one line naming the setting and the reason.

    A RuntimeError because gunicorn prints those as a single "Error: ..." line and exits 1."""


def thread_count(setting: int, environ=os.environ) -> int:
    """Intra-op threads per worker: ``TORCH_THREADS``, or the cores shared among the workers.

    Workers x threads must not exceed the cores: oversubscribed OpenMP threads spin and wait for
    each other, which makes every request slower than with fewer threads."""
    if setting:
        return setting
    try:
        workers = max(1, int(environ.get("WEB_CONCURRENCY", "1")))
    except ValueError:
        workers = 1
    return max(1, available_cpus() // workers)


@dataclass
class Corpus:
    """German sentences of a corpus with all their English references, for Random."""

    sources: list[str]
    references: list[list[str]]
    index: dict[str, int] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str) -> "Corpus":
        sources, references = read_references(path)
        return cls(sources, references, {s: i for i, s in enumerate(sources)})

    def references_for(self, source: str) -> list[str]:
        i = self.index.get(normalize(source))
        return [] if i is None else self.references[i]


class TranslationService:
    def __init__(self, translator: Translator, corpus: Corpus | None, beam_size: int):
        self.translator = translator
        self.pipeline = Pipeline(translator, Options(beam_size=beam_size))
        self.corpus = corpus
        self.beam_size = beam_size
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ public API
    # One model call at a time per process: a worker's request threads would otherwise run their
    # torch threads side by side and oversubscribe the cores set aside for the worker.
    def translate(self, texts: list[str], *, html: bool = False) -> list[str]:
        """One translation per text; sentences of all texts go to the model as one batch."""
        with self._lock, torch.inference_mode():
            if html:  # NFC first: the pipeline's word spans index the NFC form of what it is given
                return translate_html([unicodedata.normalize("NFC", t) for t in texts],
                                      self.pipeline.translate_aligned)
            return self.pipeline.translate(texts)

    def translate_with_alternatives(self, texts: list[str], n: int) -> tuple[list[str], list[list[str]]]:
        """Best translations and up to ``n`` other, distinct ones per text, from one n-best beam search."""
        with self._lock, torch.inference_mode():
            options = self.pipeline.translate_n_best(texts, n + 1)
        return [o[0][0] for o in options], [[t for t, _ in o[1:] if t][:n] for o in options]

    def sentences(self, text: str) -> list[str]:
        return sentences(text)

    def attention(self, text: str) -> dict[str, Any]:
        """Attention behind the translation of ``text`` (one sentence), weights rounded to 4 places."""
        if not self.translator.tokenizer.encode(normalize(text)):
            raise NothingToTranslate(f"no translatable text in {text!r}")
        with self._lock, torch.inference_mode():
            result = self.translator.attention(text, beam_size=self.beam_size)
        # Four decimals keep rows summing to 1 within 1e-3 and shrink the JSON about fourfold.
        result["attention"] = {kind: [[[[round(w, 4) for w in row] for row in head] for head in layer]
                                      for layer in layers]
                               for kind, layers in result["attention"].items()}
        return result

    def random_source(self, rng: random.Random | None = None) -> str:
        """A random German sentence of the corpus (LookupError without a corpus)."""
        if self.corpus is None:
            raise LookupError("no corpus is configured: set CORPUS_PATH to use Random")
        return self.corpus.sources[(rng or random).randrange(len(self.corpus.sources))]

    def random_example(self, rng: random.Random | None = None) -> dict[str, Any]:
        """A random corpus sentence, its references, the model's translation and sentence chrF."""
        source = self.random_source(rng)
        references = self.references_for(source)
        translation = self.translate([source])[0]
        return {"source": source, "references": references, "translation": translation,
                "chrf": chrf(translation, references)}

    def references_for(self, source: str) -> list[str]:
        return self.corpus.references_for(source) if self.corpus is not None else []

    def health(self) -> dict[str, Any]:
        return {"status": "ok", "device": str(self.translator.device), "checkpoint": self.translator.checkpoint}


def chrf(hypothesis: str, references: list[str]) -> float:
    return round(sacrebleu.sentence_chrf(hypothesis, references).score, 1)


def init_app(app: Flask) -> None:
    """Load the checkpoint and the corpus named by the config; raise StartupError if they are unusable."""
    config = app.config
    torch.set_num_threads(thread_count(config["TORCH_THREADS"]))
    try:
        translator = Translator.from_checkpoint(config["MODEL_PATH"], device=config["DEVICE"])
    except CheckpointError as exc:
        raise StartupError(f"MODEL_PATH: {exc}") from None
    except ValueError as exc:  # the device: unknown name, or cuda without a GPU
        raise StartupError(f"DEVICE: {exc}") from None
    corpus = None
    if config["CORPUS_PATH"]:
        try:
            corpus = Corpus.load(config["CORPUS_PATH"])
        except (CorpusError, ValueError) as exc:
            raise StartupError(f"CORPUS_PATH: {exc}") from None
    app.extensions[EXTENSION] = TranslationService(translator, corpus, config["BEAM_SIZE"])


def get_service() -> TranslationService:
    """The current app's service, like flaskr's ``get_db()``."""
    return current_app.extensions[EXTENSION]
