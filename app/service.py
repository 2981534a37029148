"""The translator behind the web service: loaded once per process, reached through ``get_service()``.

``init_app`` runs inside ``create_app``. Under gunicorn with ``preload_app`` that is the master
process, before it forks: the workers then share the weights' memory pages copy-on-write instead
of each loading its own copy. Views never see tensors: every method here takes and returns strings,
numbers and lists.
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import sacrebleu
import torch
from flask import Flask, current_app

from model.network.checkpoint import CheckpointError, direction
from model.network.threads import available_cpus
from model.data import CorpusError, corpus_attribution, normalize, read_references
from model.data.ding import place_names
from model.inference.batching import BatchingEngine, BatchingOptions
from model.inference.channel import ChannelReranked, ChannelScorer, reverse_of
from model.inference.engines import CachedTranslator, EngineError, bare_engine, serve_engine
from model.inference.interface import Engine
from model.search.options import DEFAULT, SearchOptions
from pipeline import deadline, documents, harm, language
from pipeline.glossary import Glossary
from pipeline.markup import Segment, parse_html
from pipeline.segment import sentences
from pipeline.texts import translate_texts
from pipeline.coverage import Coverage
from pipeline.formality import FORMALITIES, mismatches
from pipeline.translation import Options, Pipeline

from .memory import release_free_memory, unmap_clean_file_pages, unmap_pages
from .settings import search_options

EXTENSION = "translation_service"


class NothingToTranslate(ValueError):
    """The text has no pieces for the model (only invisible characters such as U+200B)."""


class TooManyPieces(ValueError):
    """A text longer, in pieces, than the model reads at once (the message says so)."""


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
    path: str = ""
    attribution: str | None = None  # the corpus file's own (third column), shown on /model

    @classmethod
    def load(cls, path: str) -> "Corpus":
        sources, references = read_references(path)
        return cls(sources, references, {s: i for i, s in enumerate(sources)}, path, corpus_attribution(path))

    def references_for(self, source: str) -> list[str]:
        i = self.index.get(normalize(source))
        return [] if i is None else self.references[i]


@dataclass
class ServedModel:
    """One direction the service translates ("de-en", "en-de"): its engine and its pipeline.

    The layers of the engine: the translation cache (if on) in front of the batching scheduler
    (if on) in front of the model (``load_engine``); metrics hook onto both."""

    direction: str
    translator: Engine
    pipeline: Pipeline       # with the default formality
    model_lock: Any          # the service's: one torch call at a time per process, whichever model
    # German output: a pipeline per formality (``pipeline.formality``), the default's among them
    formalities: dict[str, Pipeline] = field(default_factory=dict)

    def pipeline_for(self, formality: str | None) -> Pipeline:
        """The pipeline that writes this model's output with ``formality`` (None: the default; an
        English target has one pipeline, whatever is asked)."""
        return self.formalities.get(formality, self.pipeline) if formality else self.pipeline

    @property
    def pair(self) -> tuple[str, str]:
        source, _, target = self.direction.partition("-")
        return source, target

    @property
    def cache(self) -> CachedTranslator | None:
        return self.translator if isinstance(self.translator, CachedTranslator) else None

    @property
    def batcher(self) -> BatchingEngine | None:
        inner = self.translator.inner if self.cache is not None else self.translator
        return inner if isinstance(inner, BatchingEngine) else None

    @property
    def channel(self) -> ChannelReranked | None:
        """The layer that reranks this model's beams by the other direction's model (CHANNEL_WEIGHT), if any."""
        engine = self.translator
        while engine is not None and not isinstance(engine, ChannelReranked):
            engine = getattr(engine, "inner", None)
        return engine

    def calls(self):
        """The context of a pipeline call: nothing with the batcher (it serializes the model calls
        and batches them with other requests'), else the model lock around all of it."""
        return contextlib.nullcontext() if self.batcher is not None else self.model_lock


# A word for the health check's translation, per source language.
_PROBES = {"de": "Hallo.", "en": "Hello."}


# The settings that name Random's sample of each split (``validation.SPLITS``), for the messages.
SAMPLE_SETTINGS = {"train": "CORPUS_PATH", "test": "HELD_OUT_PATH"}


class TranslationService:
    def __init__(self, translator: Engine | Mapping[str, Engine], corpus: Corpus | None, search: SearchOptions,
                 places: Mapping[str, str] | None = None, coverage: Coverage | None = None,
                 held_out: Corpus | None = None):
        """``translator``: the engine of the one model, or ``{direction: engine}`` (a de-en one
        among them: the default of every view, and Random's). Each engine's
        pipeline learns its source language from the engine's checkpoint; ``places`` and
        ``coverage`` are German's, for the pipelines that read German. Random draws from
        ``corpus`` (training sentences: a model that learned them scores high on them, which
        says little) or ``held_out`` (test sentences no served model trained on: there the score
        measures the model)."""
        engines = dict(translator) if isinstance(translator, Mapping) else {direction(translator.meta): translator}
        if "de-en" not in engines:
            raise ValueError(f"a de-en model is needed, got {', '.join(engines)}")
        self.search = search
        self.corpus = corpus
        self.held_out = held_out
        # One torch call at a time per process: a worker's request threads would otherwise run
        # their torch threads side by side and oversubscribe the cores set aside for the worker.
        # The batchers serialize the pipelines' model calls themselves (under this same lock, one
        # for every model; only CTranslate2's parallel batches run beside each other, each on its
        # share of the cores); the inspector's own torch calls take it here. Never hold it around
        # a pipeline call.
        self.model_lock = threading.RLock()
        self.models: dict[str, ServedModel] = {}
        for name in sorted(engines, key=lambda d: d != "de-en"):
            engine = engines[name]
            pipeline = Pipeline(engine, Options(search=search), places, coverage)
            formalities = {formality: pipeline if formality == pipeline.options.formality else
                           Pipeline(engine, Options(search=search, formality=formality), places, coverage)
                           for formality in FORMALITIES} if pipeline.languages.target == "de" else {}
            model = ServedModel(name, engine, pipeline, self.model_lock, formalities)
            if model.batcher is not None:
                model.batcher.lock = self.model_lock
                model.batcher.on_idle = self.release_memory  # a worker that goes idle gives back what it can
            self.models[name] = model
        # The German->English model's: the default direction (Random, the model page, /health's
        # checkpoint)
        primary = self.models["de-en"]
        self.translator, self.pipeline = primary.translator, primary.pipeline
        self.cache, self.batcher = primary.cache, primary.batcher
        self._health: tuple[int, str | None] | None = None  # (process id, why it cannot translate)

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """The (source, target) pairs served, de-en first."""
        return tuple(model.pair for model in self.models.values())

    def model(self, source: str = "de", target: str = "en") -> ServedModel:
        """The model of one pair; KeyError for a pair not served (the views check it first)."""
        return self.models[f"{source}-{target}"]

    def release_memory(self) -> None:
        """What a worker gone idle gives back: the memory its model calls freed; where the PyTorch
        model beside CTranslate2 ran since (the inspector, an attention view), the pages of its
        weights file and of the library code it ran (reading /proc for the latter takes ~20 ms,
        against the view's hundreds)."""
        release_free_memory()
        read = [model.translator.torch for model in self.models.values() if model.translator.torch.take_weights_read()]
        if read:  # the PyTorch model ran (the inspector, an attention view) since the worker last went idle
            unmap_pages(translator.mapped_weights() for translator in read)
            unmap_clean_file_pages()  # and the library code it ran

    # ------------------------------------------------------------------ public API
    def translate(self, texts: list[str], *, source: str = "de", target: str = "en", html: bool = False,
                  keep_other_languages: bool = False, glossary: Glossary | None = None,
                  formality: str | None = None) -> list[str]:
        """One translation per text from ``source`` into ``target``; sentences of all texts go to
        the model as one batch.

        ``keep_other_languages`` (source=auto): sentences clearly not in ``source`` are carried over
        unchanged (``pipeline.language``); not with ``html``, where everything is translated.
        ``glossary``: its terms (in ``source``) come out as its translations (``pipeline.glossary``).
        ``formality``: how German output addresses the reader (``pipeline.formality``; None: the
        default, "formal")."""
        model = self.model(source, target)
        if keep_other_languages and not html:
            mixed = [language.split_languages(t, source) for t in texts]  # before the lock: no model involved
            runs = [run for m in mixed for run in m.runs]
            translated = _per_text(mixed, self.translate(runs, source=source, target=target, glossary=glossary,
                                                         formality=formality) if runs else [])
            return [m.join(done) for m, done in zip(mixed, translated)]
        pipeline = model.pipeline_for(formality)
        with model.calls(), torch.inference_mode():
            return translate_texts(pipeline.with_glossary(glossary), texts, html=html, languages=pipeline.languages)

    def translate_with_alternatives(self, texts: list[str], n: int, *, source: str = "de", target: str = "en",
                                    keep_other_languages: bool = False, glossary: Glossary | None = None,
                                    formality: str | None = None) -> tuple[list[str], list[list[str]]]:
        """Best translations and up to ``n`` other, distinct ones per text, from one n-best beam search.

        With ``keep_other_languages`` the k-th alternative of a text puts together the k-th
        alternative of each of its stretches in ``source`` (or the best, where one has fewer)."""
        model = self.model(source, target)
        if keep_other_languages:
            mixed = [language.split_languages(t, source) for t in texts]
            runs = [run for m in mixed for run in m.runs]
            best, others = self.translate_with_alternatives(runs, n, source=source, target=target, glossary=glossary,
                                                            formality=formality) if runs else ([], [])
            results = []
            for m, run_best, run_others in zip(mixed, _per_text(mixed, best), _per_text(mixed, others)):
                combined = [m.join([o[k] if k < len(o) else b for b, o in zip(run_best, run_others)])
                            for k in range(max(map(len, run_others), default=0))]
                text = m.join(run_best)
                results.append((text, [a for a in dict.fromkeys(combined) if a and a != text][:n]))
            return [t for t, _ in results], [a for _, a in results]
        pipeline = model.pipeline_for(formality)
        with model.calls(), torch.inference_mode():
            options = pipeline.translate_n_best(texts, n + 1, glossary=glossary)

        def faults(text: str, alternative: str) -> tuple[int, int]:   # its harm (``pipeline.harm``), then
            # its words addressing the reader otherwise than asked (``pipeline.formality``)
            return (len(harm.faults(text, alternative, source, pipeline.options.checks)),
                    mismatches(alternative, pipeline.formality) if pipeline.formality else 0)
        # alternatives that do no harm and address the reader as asked first, each group in the model's order
        return [o[0][0] for o in options], [sorted([t for t, _ in o[1:] if t], key=lambda a, t=text: faults(t, a))[:n]
                                            for text, o in zip(texts, options)]

    def warnings(self, texts: list[str], translations: list[str], *, source: str = "de", target: str = "en",
                 html: bool = False, formality: str | None = None) -> list[list[dict[str, str]]]:
        """What each translation of ``texts`` may have got wrong, by the checks its pipeline chose
        with (``pipeline.harm``): a negation lost or added, profanity, German output that could not
        address the reader as ``formality`` asks (None: the default). ``[{"check": name, "message":
        ...}, ...]`` a text, [] where nothing was found."""
        pipeline = self.model(source, target).pipeline_for(formality)
        return [[{"check": name, "message": harm.MESSAGES[name]}
                 for name in harm.warnings(_text_of(text, html), _text_of(translation, html), source,
                                           pipeline.formality, pipeline.options.checks)]
                for text, translation in zip(texts, translations)]

    def translate_document(self, extension: str, data: bytes, max_chars: int,
                           glossary: Glossary | None = None, *, source: str = "de", target: str = "en",
                           formality: str | None = None) -> bytes:
        """A translated file of one of ``pipeline.documents.FORMATS`` (.docx .epub .html .json .md .odp
        .odt .pdf .po .pot .pptx .srt .txt .vtt; a .pdf comes back as a .docx), with the
        ``glossary``'s terms where given and German output addressing the reader with ``formality``; raises ``documents.DocumentError`` for a broken file,
        ``DocumentTooLarge`` over ``max_chars`` or another of the reading budgets (the file is read
        only until it passes one: ``documents.read``)."""
        document = documents.read(extension, data, max_chars)
        return document.translate(lambda texts, html=False: self.translate(
            texts, source=source, target=target, html=html, glossary=glossary, formality=formality),
            self.model(source, target).pipeline.languages)

    def sentences(self, text: str, language: str = "de") -> list[str]:
        """The sentences of ``text`` as the pipeline of a ``language`` source cuts it."""
        return sentences(text, language)

    def detect(self, texts: list[str]) -> list[dict[str, Any]]:
        """LibreTranslate's /detect answer: the served languages (and another one a text is clearly
        in), best first, confidence 0-100; for several texts each language's mean confidence over
        the texts that have words."""
        found = [c for c in (language.detect(t) for t in texts) if c]
        if not found:
            return [dict(NOTHING_DETECTED)]
        codes = {code for candidates in found for code, _ in candidates}  # the served ones, and others
        mean = {code: sum(dict(c).get(code, 0.0) for c in found) / len(found) for code in codes}
        ranked = sorted(mean.items(), key=lambda pair: (-pair[1], pair[0] != "de"))
        return [{"confidence": round(confidence, 1), "language": code} for code, confidence in ranked]

    def detected_language(self, text: str, *, html: bool = False, source: str = "de") -> dict[str, Any]:
        """The best candidate for one text, as /translate's ``detectedLanguage``; of an HTML
        document's text only (tag names and attributes are no evidence of its language). A text
        without words is reported in ``source``, the language it is then translated from."""
        found = self.detect([_text_of(text, html)])[0]
        return {**found, "language": source} if found == NOTHING_DETECTED else found

    def attention(self, text: str, source: str = "de", target: str = "en", most: int | None = None) -> dict[str, Any]:
        """Attention behind the translation of ``text`` (one sentence) by the model of ``source``
        into ``target``, weights rounded to 4 places. ``most``: the pieces of ``text`` it is shown
        for (the answer is square in them: TooManyPieces over it). The request's time budget is
        checked at every step of the search and before the weights are read (``pipeline.deadline``)."""
        model = self.model(source, target)
        self.check_pieces(text, source=source, target=target, most=most, shown="the attention view shows")
        with self.model_lock, torch.inference_mode():
            # The bare model's search with the service's beam, without the pipeline's n-gram
            # blocking: the view shows what the network itself does with the sentence. Four
            # decimals keep rows summing to 1 within 1e-3 and shrink the JSON about fourfold.
            return model.translator.torch.attention(text, replace(DEFAULT, beam_size=self.search.beam_size),
                                                    decimals=4, check=deadline.check)

    def check_pieces(self, text: str, *, limit: bool = True, source: str = "de", target: str = "en",
                     most: int | None = None, shown: str = "the model reads at once") -> None:
        """Raise NothingToTranslate for a text without pieces, and with ``limit`` TooManyPieces
        for one longer than the model of ``source`` into ``target`` reads at once, or than
        ``most`` (what ``shown`` names in the message)."""
        translator = self.model(source, target).translator
        ids = translator.tokenizer.encode(normalize(text))
        if not ids:
            raise NothingToTranslate(f"no translatable text in {text!r}")
        bound = min(translator.config.max_source_pieces, most or translator.config.max_source_pieces)
        if limit and len(ids) > bound:
            raise TooManyPieces(f"q has {len(ids)} pieces, more than the {bound} {shown}")

    def sample(self, split: str = "train") -> Corpus | None:
        """Random's sample of ``split``: "train" (``corpus``) or "test" (``held_out``); None where
        its setting is empty."""
        return {"train": self.corpus, "test": self.held_out}[split]

    def random_source(self, rng: random.Random | None = None, split: str = "train") -> str:
        """A random German sentence of the sample of ``split`` (LookupError without one)."""
        corpus = self.sample(split)
        if corpus is None:
            raise LookupError(f"no {split} sample is configured: set {SAMPLE_SETTINGS[split]} to use Random")
        return corpus.sources[(rng or random).randrange(len(corpus.sources))]

    def random_example(self, rng: random.Random | None = None, split: str = "train") -> dict[str, Any]:
        """A random sentence of the sample of ``split``, its references, the model's translation,
        sentence chrF and the ``split``."""
        source = self.random_source(rng, split)
        references = self.sample(split).references_for(source)
        translation = self.translate([source])[0]
        return {"source": source, "references": references, "translation": translation,
                "chrf": chrf(translation, references), "split": split}

    def references_for(self, source: str) -> tuple[list[str], str | None]:
        """The English references of a German ``source`` that one of Random's samples holds, and
        that sample's split ("train" or "test"); ``([], None)`` for any other text."""
        for split in ("train", "test"):
            corpus = self.sample(split)
            references = corpus.references_for(source) if corpus is not None else []
            if references:
                return references, split
        return [], None

    def health(self) -> dict[str, Any]:
        """``{"status": "ok", "device", "checkpoint", "models"}`` (``checkpoint``: the de-en model's;
        ``models``: every direction's checkpoint), or status "error" with the reason when this
        process cannot translate. The first call in each process translates a word with each model
        to find out (a worker forked after CUDA was touched fails on its first CUDA call, for good);
        later calls repeat that answer without a model call."""
        pid = os.getpid()
        if self._health is None or self._health[0] != pid:
            try:
                for model in self.models.values():
                    source, target = model.pair
                    self.translate([_PROBES[source]], source=source, target=target)
                self._health = (pid, None)
            except Exception as exc:  # noqa: BLE001 - any failure means this worker cannot serve
                self._health = (pid, f"{type(exc).__name__}: {exc}".splitlines()[0])
        body = {"status": "ok" if self._health[1] is None else "error", "device": str(self.translator.device),
                "checkpoint": self.translator.checkpoint,
                "models": {name: model.translator.checkpoint for name, model in self.models.items()}}
        if self._health[1] is not None:
            body["error"] = self._health[1]
        return body


# LibreTranslate answers {"confidence": 0.0, "language": "en"} when it detects nothing; here the
# text is then translated as German (for target=en; what the pages do), so that is what is reported.
NOTHING_DETECTED = {"confidence": 0.0, "language": "de"}


def _text_of(text: str, html: bool) -> str:
    """An HTML document's text only (tag names and attributes are no evidence of its language)."""
    return "\n".join(part.text for part in parse_html(text) if isinstance(part, Segment)) if html else text


def _per_text(mixed: list[language.Mixed], flat: list) -> list[list]:
    """``flat`` (one item per stretch to translate of all texts) regrouped by text."""
    grouped, start = [], 0
    for m in mixed:
        count = len(m.runs)
        grouped.append(flat[start:start + count])
        start += count
    return grouped


def chrf(hypothesis: str, references: list[str]) -> float:
    return round(sacrebleu.sentence_chrf(hypothesis, references).score, 1)


def places_of(config) -> dict[str, str]:
    """The place names of the dictionary file (``DICTIONARY_PATH``), for the pipeline; none where
    it is off or missing (``dictionary.init_app`` says which is an error)."""
    path = config["DICTIONARY_PATH"]
    return place_names(path) if path and os.path.isfile(path) else {}


def _load_language_data(coverage: Coverage | None) -> None:
    language.load()
    if coverage is not None:
        coverage.load()


def init_app(app: Flask, coverage: Coverage | None = None) -> None:
    """Load the checkpoints and Random's samples named by the config; raise StartupError if they are unusable.
    ``coverage``: the dictionary's check for words a translation leaves out (``pipeline.coverage``)."""
    config = app.config
    threads = thread_count(config["TORCH_THREADS"])
    torch.set_num_threads(threads)
    # Here, so that gunicorn's workers share it with the master (preload_app); in a thread, because
    # its 0.5 s of decompression releases the GIL and overlaps with loading the model.
    langid = threading.Thread(target=_load_language_data, args=(coverage,), name="load-langid")
    langid.start()
    # MODEL_PATHS names every model, else MODEL_PATH the one (settings.model_paths): errors name
    # the setting that was used.
    setting = "MODEL_PATHS" if config["MODEL_PATHS"] else "MODEL_PATH"
    bare = {name: _load(config, setting, name, path, threads) for name, path in config["MODELS"].items()}
    engines = {name: _served(config, name, bare) for name in bare}
    corpus, held_out = (_sample(config, SAMPLE_SETTINGS[split]) for split in ("train", "test"))
    langid.join()
    app.extensions[EXTENSION] = TranslationService(engines, corpus, search_options(config), places_of(config),
                                                   coverage, held_out)
    release_free_memory()  # what loading read and converted, before gunicorn forks the workers


def _sample(config, setting: str) -> Corpus | None:
    """The Random sample that ``setting`` names (None where it is empty); StartupError naming the
    setting where the file is missing or unreadable."""
    if not config[setting]:
        return None
    try:
        return Corpus.load(config[setting])
    except (CorpusError, ValueError) as exc:
        raise StartupError(f"{setting}: {exc}") from None


def _load(config, setting: str, name: str, path: str, threads: int) -> Engine:
    """The bare engine of the checkpoint at ``path``, listed for direction ``name`` under
    ``setting``, with the settings every model shares (ENGINE, QUANTIZATION, ...)."""
    where = f"{setting}: {name}: " if setting == "MODEL_PATHS" else f"{setting}: "
    try:
        # ct2: converted here, in the master; each worker then starts its own CT2 translator
        translator = bare_engine(path, engine=config["ENGINE"], device=config["DEVICE"],
                                 quantization=config["QUANTIZATION"], precision=config["TORCH_PRECISION"],
                                 threads=threads, parallel=config["PARALLEL_BATCHES"])
    except CheckpointError as exc:
        raise StartupError(f"{where}{exc}") from None
    except EngineError as exc:
        raise StartupError(f"ENGINE: {exc}") from None
    except ValueError as exc:  # the device: unknown name, or cuda without a GPU
        raise StartupError(f"DEVICE: {exc}") from None
    found = direction(translator.meta)
    if found != name:
        if setting == "MODEL_PATH":  # a reverse model (train.py --direction en-de) named as the one model
            raise StartupError(f"MODEL_PATH: {path!r} translates {found}; MODEL_PATH names the de-en model "
                               f"(serve {found} beside it with MODEL_PATHS=de-en:PATH,{found}:PATH)")
        raise StartupError(f"MODEL_PATHS: {path!r} is listed as {name} but translates {found}")
    return translator


def _served(config, name: str, bare: Mapping[str, Engine]) -> Engine:
    """The engine of direction ``name`` as it is served (``serve_engine``): reranked by the reverse
    model's bare engine where that is served too (CHANNEL_WEIGHT), batched, cached (Redis too)."""
    reverse = bare.get(reverse_of(name))
    translator = serve_engine(bare[name], cache_size=config["TRANSLATION_CACHE"],
                              batching=BatchingOptions(max_wait=config["BATCH_WAIT_MS"] / 1000),
                              channel=ChannelScorer(reverse, name) if reverse is not None else None,
                              channel_weight=config["CHANNEL_WEIGHT"],
                              after_scoring=release_free_memory)  # the scoring's logits: many MiB at once
    if config["REDIS_URL"] and isinstance(translator, CachedTranslator):
        from .shared import RedisCacheStore, connect, model_namespace

        # Shared by every worker and replica serving the same checkpoints with the same engine:
        # the checkpoint's bytes are in the name, so each model has its own (and its channel's).
        channel = reverse.checkpoint if reverse is not None and config["CHANNEL_WEIGHT"] > 0 else None
        namespace = model_namespace(bare[name].checkpoint, translator.engine, config["QUANTIZATION"],
                                    channel, config["CHANNEL_WEIGHT"], name)
        translator.store = RedisCacheStore(connect(config["REDIS_URL"]), namespace)
    return translator


def get_service() -> TranslationService:
    """The current app's service, like flaskr's ``get_db()``."""
    return current_app.extensions[EXTENSION]
