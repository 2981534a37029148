"""Choosing the inference engine, and a per-process cache of translations.

Two engines run the same checkpoint behind the same interface (``interface.Engine``):

- ``torch``: ``model.inference.translator.Translator``, our own model and searches;
- ``ct2``: ``model.inference.ct2_engine.CT2Translator``, the checkpoint converted in memory and run by
  CTranslate2 (int8 weights by default), with alignment and attention views still from PyTorch.

``auto`` is ct2 where the ctranslate2 package is importable and the model runs on the CPU, else
torch. ``CachedTranslator`` wraps either and remembers the output of repeated model inputs.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from model.inference.alignment import AlignedText
from model.inference.batching import BatchingEngine, BatchingOptions
from model.inference.interface import Engine, Wrapping
from model.network.config import require_int
from model.search.options import DEFAULT, SearchOptions

if TYPE_CHECKING:
    from model.inference.channel import ChannelScorer

ENGINES = ("auto", "ct2", "torch")
log = logging.getLogger(__name__)


class EngineError(ValueError):
    """An engine that cannot be used here (unknown name, ctranslate2 missing, no GPU for it)."""


def ct2_available() -> bool:
    try:
        import ctranslate2  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_engine(engine: str, device: str = "auto") -> str:
    """'auto' -> 'ct2' when ctranslate2 imports (on a GPU: and sees one), else 'torch'."""
    from model.inference.translator import resolve_device

    if engine not in ENGINES:
        raise EngineError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    kind = resolve_device(device).type
    if engine == "auto":
        if not ct2_available():
            return "torch"
        if kind == "cuda":
            import ctranslate2

            return "ct2" if ctranslate2.get_cuda_device_count() >= 1 else "torch"
        return "ct2"
    if engine == "ct2":
        if not ct2_available():
            raise EngineError("engine 'ct2' needs the ctranslate2 package: pip install ctranslate2")
        import ctranslate2

        if kind == "cuda" and ctranslate2.get_cuda_device_count() < 1:
            raise EngineError("engine 'ct2' on cuda: this ctranslate2 build sees no CUDA device")
    return engine


PRECISIONS = ("auto", "fp32", "bf16")


def resolve_precision(precision: str, engine: str, device: str = "auto") -> str:
    """The PyTorch weights' precision for ``engine`` (resolved, 'ct2' or 'torch'): 'auto' is bf16
    where CTranslate2 translates on a CPU with native bfloat16 (PyTorch then only aligns and shows
    attention: half the memory, faster there), else fp32 (PyTorch translates, or bfloat16 would be
    emulated)."""
    from model.inference.translator import resolve_device
    from model.network.threads import cpu_bf16_support

    if precision not in PRECISIONS:
        raise EngineError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision != "auto":
        return precision
    on_cpu = resolve_device(device).type == "cpu"
    return "bf16" if engine == "ct2" and on_cpu and cpu_bf16_support() else "fp32"


def load_engine(path: str | Path, *, engine: str = "auto", device: str = "auto", quantization: str = "int8",
                threads: int = 0, parallel: int = 0, cache_size: int = 0,
                batching: BatchingOptions | None = None, precision: str = "auto",
                channel: ChannelScorer | None = None, channel_weight: float = 0.0) -> Engine:
    """The translator of ``engine`` for checkpoint ``path`` (``bare_engine``), served as
    ``serve_engine`` says: reranked by a ``channel``, batched, cached."""
    check_serving(cache_size, channel_weight)  # before anything loads
    translator = bare_engine(path, engine=engine, device=device, quantization=quantization, threads=threads,
                             parallel=parallel, precision=precision)
    return serve_engine(translator, cache_size=cache_size, batching=batching, channel=channel,
                        channel_weight=channel_weight)


def bare_engine(path: str | Path, *, engine: str = "auto", device: str = "auto", quantization: str = "int8",
                threads: int = 0, parallel: int = 0, precision: str = "auto") -> Engine:
    """The translator of ``engine`` for checkpoint ``path``, nothing in front of it.

    CTranslate2 translates ``parallel`` batches at once (0: one per thread of ``threads`` on a CPU,
    one on a GPU), each on ``threads`` // ``parallel`` threads (``threads`` 0: its default, one
    batch at a time). Torch's threads are set by the caller; the PyTorch weights' ``precision`` is
    resolved per engine (``resolve_precision``)."""
    from model.inference.translator import Translator, resolve_device

    require_int("threads", threads, 0)
    require_int("parallel", parallel, 0)
    chosen = resolve_engine(engine, device)
    resolve_precision(precision, chosen, device)  # checked before anything loads

    def ct2() -> Engine:
        from model.inference.ct2_engine import CT2Translator

        on_gpu = resolve_device(device).type == "cuda"
        batches = parallel or (1 if on_gpu or not threads else threads)
        made = CT2Translator.from_checkpoint(path, device, quantization=quantization,
                                             threads=max(1, threads // batches) if threads else 0, parallel=batches,
                                             precision=resolve_precision(precision, "ct2", device))
        if made.device.type == "cuda":
            made.engine_translator()  # CT2's CUDA libraries load here, not at the first request
        return made

    def pytorch() -> Engine:
        return Translator.from_checkpoint(path, device=device, precision=resolve_precision(precision, "torch", device))

    if chosen == "torch":
        return pytorch()
    if engine == "auto":
        return with_fallback(ct2, pytorch)
    return ct2()


def check_serving(cache_size: int, channel_weight: float) -> None:
    """ValueError (one line) for a cache size or channel weight ``serve_engine`` cannot use."""
    from model.inference.channel import ChannelOptions

    require_int("cache_size", cache_size, 0)
    ChannelOptions(weight=channel_weight)


def serve_engine(translator: Engine, *, cache_size: int = 0, batching: BatchingOptions | None = None,
                 channel: ChannelScorer | None = None, channel_weight: float = 0.0,
                 after_scoring: Callable[[], None] | None = None) -> Engine:
    """A bare ``translator`` as it is served: with a ``channel`` (the reverse model's scorer, on its
    bare engine) and ``channel_weight`` > 0, its beam searches reranked by the noisy channel
    (``channel.ChannelReranked`` with ``channel.served_options``: the served contenders; it calls
    ``after_scoring`` after each scoring); with ``batching``, behind a scheduler that batches concurrent
    callers (``BatchingEngine``); then in a cache of this process when ``cache_size`` > 0 (its
    ``store`` may be replaced by a shared one), so that only misses are batched and a cached output
    is the reranked one."""
    from model.inference.channel import ChannelReranked, served_options
    from model.network.checkpoint import direction

    check_serving(cache_size, channel_weight)
    if channel is not None and channel_weight > 0:
        translator = ChannelReranked(translator, channel, served_options(channel_weight, direction(translator.meta)),
                                     after_scoring)
    if batching is not None:
        translator = BatchingEngine(translator, batching)
    return CachedTranslator(translator, cache_size) if cache_size else translator


def with_fallback(preferred: Callable[[], Engine], fallback: Callable[[], Engine]) -> Engine:
    """``preferred()`` (CTranslate2 for ENGINE=auto), or ``fallback()`` with a log line saying why
    when it cannot be made: on a GPU, CTranslate2's CUDA libraries (cuBLAS, cuDNN) may not load."""
    try:
        return preferred()
    except (OSError, RuntimeError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        log.warning("ENGINE=auto: CTranslate2 cannot run here (%s); using the PyTorch engine", reason)
        return fallback()


def engine_name(translator: Engine) -> str:
    """'ct2' or 'torch', through a cache."""
    return translator.engine


class CachedTranslator(Wrapping):
    """A bounded LRU cache of best translations in front of a translator, keyed by the model input
    exactly as given and the search options (beam size, length penalty, n-gram blocking).

    ``translate`` and ``translate_aligned`` use it (the latter aligns the cached output with the
    PyTorch model, as the uncached engines do); n-best lists and alignment go straight to ``inner``. It
    pays where inputs repeat: the web form re-sends the whole text after every pause in typing,
    so all but the last sentence are repeats; Random draws from a fixed corpus."""

    def __init__(self, inner: Any, size: int, store: CacheStore | None = None):
        require_int("size", size, 1)
        self.inner = inner
        self.size = size
        self.hits = self.misses = 0
        # Where the outputs live: this process's LRU (``LocalStore``), or one shared by processes
        # and machines (the app's Redis store); keys are (text, beam, length penalty, n-gram size).
        self.store: CacheStore = store if store is not None else LocalStore(size)
        self.on_lookup: Callable[[int, int], None] | None = None  # told (hits, misses) per call, for metrics
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.store)

    def clear(self) -> None:
        with self._lock:
            self.store.clear()
            self.hits = self.misses = 0

    def translate(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[str]:
        return [self.inner.tokenizer.decode(ids) for ids in self.output_ids(texts, search)]

    def translate_aligned(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[AlignedText]:
        return self.inner.align(texts, self.output_ids(texts, search), batch_size=search.batch_size)

    def output_ids(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[list[int]]:
        """Best output ids per text: cached ones, and the misses translated together."""
        keys = [(text, *search.output_key) for text in texts]
        found = self.store.get_many(list(dict.fromkeys(keys)))
        missing = list(dict.fromkeys(key for key in keys if key not in found))
        if missing:
            computed = self.inner.output_ids([key[0] for key in missing], search)
            found.update(zip(missing, computed))
            self.store.put_many({key: found[key] for key in missing})
        hits = len(keys) - len(missing)
        with self._lock:
            self.hits += hits
            self.misses += len(missing)
        if self.on_lookup is not None:
            try:
                self.on_lookup(hits, len(missing))
            except Exception:  # noqa: BLE001 - metrics must never fail a translation
                log.exception("cache metrics")
        return [list(found[key]) for key in keys]


class CacheStore(Protocol):
    """Where ``CachedTranslator`` keeps outputs: keys are (text, beam size, length penalty, n-gram
    size) tuples, values lists of output piece ids. A store that cannot answer (a shared one that
    is down) answers with fewer entries and drops writes: a cache miss, never an error."""

    def get_many(self, keys: list[tuple]) -> dict[tuple, list[int]]: ...
    def put_many(self, entries: dict[tuple, list[int]]) -> None: ...
    def clear(self) -> None: ...
    def __len__(self) -> int: ...


class LocalStore:
    """A bounded LRU of this process (the default ``CacheStore``)."""

    def __init__(self, size: int):
        self.size = size
        self._entries: OrderedDict[tuple, list[int]] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, keys: list[tuple]) -> dict[tuple, list[int]]:
        with self._lock:
            found = {key: self._entries[key] for key in keys if key in self._entries}
            for key in found:
                self._entries.move_to_end(key)
        return found

    def put_many(self, entries: dict[tuple, list[int]]) -> None:
        with self._lock:
            for key, value in entries.items():
                self._entries[key] = value
                self._entries.move_to_end(key)
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
