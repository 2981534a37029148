"""``Translator``: a loaded checkpoint behind a text-in, text-out interface.

Used by the command-line tools and by the web service. It hides tensors from its callers:
everything it returns is strings, floats and nested lists.

``translate_aligned`` also returns, for every output word, the source word it was translated from
(``model/inference/alignment.py``), which lets callers carry markup and placeholders across.

For the translation inspector: ``word_confidences`` (how probable the model found each word of an
output), ``complete`` (translations that start with a given English prefix) and ``beam_trace``
(a beam search step by step); see ``model/inference/explain.py`` and ``model/search/beamtrace.py``.

Batching: inputs are sorted by length and cut into batches of similar length (little padding),
then results are put back in input order. Empty inputs translate to "" without the model.
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Sequence

import torch

from model.inference.alignment import AlignedText, Range, align_outputs
from model.network.batch import Batch
from model.search.beamtrace import BeamTrace
from model.data.lexicon import Lexicon
from model.network.checkpoint import CheckpointError, build_from_checkpoint, read_checkpoint
from model.data import normalize
from model.search.decoding import beam_search, greedy_search, max_lengths
from model.search.options import DEFAULT, SearchOptions
from model.search.scoring import capture_attention, next_piece_logp, teacher_force
from model.inference.explain import (NEXT_WORD_PIECES, PieceIndex, complete, normalize_prefix, plan_prefix,
                                     word_confidences)
from model.network.tokenizer import Tokenizer
from model.network.transformer import Transformer

DEVICES = ("auto", "cpu", "cuda")
# The weights' precision: bf16 halves their memory, and on a CPU with native bfloat16 speeds up
# alignment; scores stay float32 (``Transformer.project``). Chosen for the engines by load_engine.
PRECISIONS = ("fp32", "bf16")
# bfloat16 matrix products on the CPU go through oneDNN, which keeps what it prepared for every
# batch shape it meets, up to 1,024 in each of two caches (PyTorch's, oneDNN's own): aligning 600
# batches of 1-8 sentences grew a process by about 440 MiB, by 16-40 with 16 each, and was as fast
# (bench/memory.py). Both read their variable on first use; an operator's own values win.
SHAPE_CACHES = ("LRU_CACHE_CAPACITY", "ONEDNN_PRIMITIVE_CACHE_CAPACITY")
SHAPES_CACHED = 16


def bound_shape_caches() -> None:
    """Limit the batch shapes oneDNN keeps (``SHAPE_CACHES``), before its first product."""
    for name in SHAPE_CACHES:
        os.environ.setdefault(name, str(SHAPES_CACHED))


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
    """The PyTorch engine (``interface.Engine``), and the PyTorch side of the other engines."""

    engine = "torch"
    parallel = 1  # one search at a time: its threads are torch's intra-op threads
    beam_exact = True  # ``beam`` is the n-best list

    def __init__(self, model: Transformer, tokenizer: Tokenizer, meta: dict[str, Any], device: torch.device,
                 checkpoint: str = "", lexicon: Lexicon | None = None):
        self.model = model.eval()
        if device.type == "cuda":
            # TF32 matrix multiplies on Ampere and later GPUs: several times float32's speed, with
            # float32's range (bench/gpu_check.sh compares the translations with the CPU's).
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.backends.cudnn.allow_tf32 = True
        self.tokenizer = tokenizer
        self.meta = meta
        self.device = device
        self.checkpoint = checkpoint
        self.lexicon = lexicon  # None: the checkpoint has none (no name detection)
        self._mapped: tuple[int, int] | None = None  # the addresses of weights mapped from a file (map_weights)
        self._read = False  # whether the model ran since take_weights_read last asked

    @classmethod
    def from_checkpoint(cls, path: str | Path, device: str = "auto", precision: str = "fp32") -> "Translator":
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        dev = resolve_device(device)
        ckpt = read_checkpoint(path)
        model, tokenizer = build_from_checkpoint(ckpt, path)
        if precision == "bf16":
            bound_shape_caches()
            model = model.to(torch.bfloat16)
        try:
            lexicon = Lexicon.from_bytes(ckpt["lexicon"]) if "lexicon" in ckpt else None
        except ValueError as exc:
            raise CheckpointError(f"checkpoint {str(path)!r} is invalid: {exc}") from None
        return cls(model.to(dev).eval(), tokenizer, ckpt["meta"], dev, checkpoint=str(path), lexicon=lexicon)

    @property
    def config(self):
        return self.model.config

    @property
    def precision(self) -> str:
        """The weights' precision, one of PRECISIONS."""
        return "bf16" if self.model.embed.weight.dtype == torch.bfloat16 else "fp32"

    @property
    def torch(self) -> "Translator":
        """This translator: the engine that reads the network itself (``interface.Engine.torch``)."""
        return self

    def num_parameters(self) -> int:
        return self.model.num_parameters()

    def map_weights(self, path: str | Path) -> None:
        """Keep the weights (on the CPU) in the file ``path``, written here, mapped into memory
        instead of in this process's own memory. Its pages are read on first use and are the page
        cache's: every process forked from this one (gunicorn's workers) shares them, the kernel
        can drop them under memory pressure and read them again, and a process that never runs
        the PyTorch model (CTranslate2 translates) never holds them (docs/journal/serving-load.md, "Two models").
        The same weights, bit for bit; written atomically."""
        if self.device.type != "cpu":
            raise ValueError(f"only weights on the CPU can be mapped from a file, these are on {self.device.type}")
        path = Path(path)
        part = path.with_name(f".{path.name}.{os.getpid()}.part")
        torch.save(self.model.state_dict(), part)
        os.replace(part, path)
        self.model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True, mmap=True), assign=True)
        storages = [t.untyped_storage() for t in self.model.state_dict().values()]
        self._mapped = (min(s.data_ptr() for s in storages), max(s.data_ptr() + s.nbytes() for s in storages))
        # Every pass of the model embeds its tokens first: that marks the weights as read.
        self.model.embed.register_forward_pre_hook(self._mark_read)

    def _mark_read(self, module, args) -> None:
        self._read = True

    def take_weights_read(self) -> bool:
        """Whether the weights mapped by ``map_weights`` were read (the model ran) since the last
        call, and from now on not; always False for weights not mapped."""
        read, self._read = self._read, False
        return read

    def mapped_weights(self) -> tuple[int, int] | None:
        """(start, end) addresses of the memory that holds the weights mapped by ``map_weights``
        (all of them lie in that one mapping of the file); None where they are not mapped. No
        inference writes them, so their pages can always be read back from the file."""
        return self._mapped

    def source_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """The piece ids the model reads for each text (normalized); ValueError for a text longer
        than the model takes."""
        # Longer input is refused, not cut: a cut would silently drop the end of the text (the
        # pipeline splits long texts into sentences before they get here).
        limit = self.config.max_source_pieces
        ids = self.tokenizer.encode_batch([normalize(t) for t in texts])
        for index, pieces in enumerate(ids):
            if len(pieces) > limit:
                raise ValueError(f"text {index!r} has {len(pieces)!r} pieces, but the model takes at most "
                                 f"{limit!r} pieces per text: split it first")
        return ids

    def _batches(self, ids: list[list[int]], batch_size: int) -> list[list[int]]:
        """Indices of non-empty inputs, longest first, in chunks of ``batch_size``."""
        order = sorted((i for i, s in enumerate(ids) if s), key=lambda i: -len(ids[i]))
        return [order[k:k + batch_size] for k in range(0, len(order), batch_size)]

    def translate_n_best(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        """Up to ``search.n_best`` (translation, score) pairs per input, best first, by beam search."""
        ids = self.source_ids(texts)
        results: list[list[tuple[str, float]]] = [[("", 0.0)] for _ in texts]
        for chunk in self._batches(ids, search.batch_size):
            batch = Batch.make([ids[i] for i in chunk], device=self.device)
            hyps = beam_search(self.model, batch, search)
            for i, sent_hyps in zip(chunk, hyps):
                results[i] = [(self.tokenizer.decode(h.tokens), h.score) for h in sent_hyps]
        return results

    def beam(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        """The hypotheses of the beam search of ``translate`` (``search.beam_size`` of them), as
        (translation, score) pairs, best first: what a choice among them (the noisy channel's
        contenders) reads. Here the n-best list itself; an engine may search them more cheaply."""
        return self.translate_n_best(texts, replace(search, n_best=search.beam_size))

    def translate(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[str]:
        """One English line per German input, same order. Beam size 1 is greedy search.

        Every search emits at least one piece for a non-empty input (``min_len=1``), so a
        non-empty text never translates to "". ``no_repeat_ngram_size`` blocks repeated piece
        n-grams (0 = off)."""
        ids = self.source_ids(texts)
        return [self.tokenizer.decode(out) for out in self._output_ids(ids, search)]

    def output_ids(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[list[int]]:
        """The output piece ids of the best translation of each text ([] for an empty one), by the
        searches of ``translate`` (the engines' common interface: ``CT2Translator.output_ids``)."""
        return self._output_ids(self.source_ids(texts), search)

    def attention(self, text: str, search: SearchOptions = DEFAULT, decimals: int | None = None,
                  check: Callable[[], None] | None = None) -> dict[str, Any]:
        """The translation of ``text`` and every attention weight behind it, as plain lists.

        ``attention`` holds ``encoder`` [L][H][S][S], ``decoder`` [L][H][T][T] and ``cross``
        [L][H][T][S]. Row i of ``decoder`` and ``cross`` is the step that produced
        ``target_tokens[i]``; the decoder's keys are its inputs, ``decoder_input_tokens``.
        ``decimals``: each weight rounded to that many places (in float64, so that a weight reads
        as its short decimal, 0.1234), here on the tensors: in Python, rounding a long sentence's
        millions of weights took seconds. ``check``: called before each step of the search (a
        request's time budget: what it raises stops the work)."""
        src_ids = self.source_ids([text])[0]
        if not src_ids:
            raise ValueError("cannot show attention for an empty text")
        batch = Batch.make([src_ids], device=self.device)
        if search.beam_size > 1:
            out_ids = beam_search(self.model, batch, search, check=check)[0][0].tokens
        else:
            out_ids = greedy_search(self.model, batch, search, check=check)[0]
        if check is not None:
            check()
        weights = capture_attention(self.model, src_ids, out_ids)
        pieces = self.tokenizer.pieces
        return {
            "source_tokens": pieces(src_ids) + ["</s>"],
            "target_tokens": pieces(out_ids) + ["</s>"],
            "decoder_input_tokens": ["<s>"] + pieces(out_ids),
            "translation": self.tokenizer.decode(out_ids),
            "attention": {
                kind: [(w[0].double() if decimals is None else w[0].double().round(decimals=decimals)).cpu().tolist()
                       for w in getattr(weights, kind)]
                for kind in ("encoder", "decoder", "cross")
            },
        }

    def _output_ids(self, ids: list[list[int]], search: SearchOptions) -> list[list[int]]:
        """Output ids for source ids, by the same searches as ``translate`` ([] for empty input)."""
        out: list[list[int]] = [[] for _ in ids]
        for chunk in self._batches(ids, search.batch_size):
            batch = Batch.make([ids[i] for i in chunk], device=self.device)
            if search.beam_size > 1:
                found = [h[0].tokens for h in beam_search(self.model, batch, search)]
            else:
                found = greedy_search(self.model, batch, search)
            for i, tokens in zip(chunk, found):
                out[i] = tokens
        return out

    def translate_aligned(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[AlignedText]:
        """``translate`` plus a word alignment of each output with its input.

        ``source`` of each result is the text exactly as passed in; its word spans index it."""
        ids = self.source_ids(texts)
        outputs = self._output_ids(ids, search)
        return align_outputs(self.model, self.tokenizer, texts, outputs, batch_size=search.batch_size)

    def align(self, sources: Sequence[str], outputs_ids: Sequence[Sequence[int]], *,
              batch_size: int = DEFAULT.batch_size) -> list[AlignedText]:
        """Word alignment of given output piece ids (e.g. a repaired translation, re-encoded with
        ``tokenizer.encode``) with their sources, from the model's attention when forced to them."""
        self.source_ids(sources)  # refuses overlong input, as translating it would
        return align_outputs(self.model, self.tokenizer, sources, outputs_ids, batch_size=batch_size)

    def score_outputs(self, sources_ids: Sequence[Sequence[int]], outputs_ids: Sequence[Sequence[int]], *,
                      batch_size: int = DEFAULT.batch_size) -> list[float]:
        """log p(output | source) of each (source ids, output ids) pair: its pieces and its EOS,
        by teacher forcing (``teacher_force``)."""
        forced = teacher_force(self.model, sources_ids, outputs_ids, batch_size=batch_size)
        return [sum(f.logprobs) + f.eos for f in forced]

    def continue_n_best(self, texts: Sequence[str], prefixes: Sequence[Sequence[int]], search: SearchOptions, *,
                        n: int) -> list[list[tuple[str, float]]]:
        """For each text and the beginning of a translation of it (``prefixes``: output piece ids),
        up to ``n`` translations that begin so and go on with distinct next words: the model's ``n``
        most probable pieces there that begin a word (``PieceIndex.starts_word``), each completed by
        the beam search of ``search`` (its best). (translation, score) pairs scored as
        ``translate_n_best``'s, best first; [] for an empty text or a prefix that fills the output's
        length limit. The text pipeline's search for a word the first translation left out."""
        if len(texts) != len(prefixes):
            raise ValueError(f"{len(texts)!r} texts but {len(prefixes)!r} prefixes")
        ids = self.source_ids(texts)
        room = self.config.max_len - 2   # output pieces before EOS (beam_search's forced prefixes)
        rows = [i for i, src in enumerate(ids) if src and len(prefixes[i]) < room]
        results: list[list[tuple[str, float]]] = [[] for _ in texts]
        if not rows:
            return results
        logp = next_piece_logp(self.model, [ids[i] for i in rows], [prefixes[i] for i in rows])  # (R, V)
        ranked = logp.argsort(dim=-1, descending=True)[:, :NEXT_WORD_PIECES * n].tolist()  # (R, 8n) most probable first
        forced = [(i, [*prefixes[i], piece]) for row, i in enumerate(rows)
                  for piece in self.piece_index.next_words(ranked[row], n)]
        best = replace(search, n_best=1)
        for k in range(0, len(forced), search.batch_size):
            chunk = forced[k:k + search.batch_size]
            batch = Batch.make([ids[i] for i, _ in chunk], device=self.device)
            found = beam_search(self.model, batch, best, forced_prefix=[f for _, f in chunk])
            for (i, f), hyps in zip(chunk, found):
                if hyps and len(hyps[0].tokens) >= len(f):
                    results[i].append((self.tokenizer.decode(hyps[0].tokens), hyps[0].score))
        return [sorted(r, key=lambda h: -h[1]) for r in results]

    # ------------------------------------------------------------------ the translation inspector

    def word_confidences(self, sources: Sequence[str], outputs: Sequence[str], *,
                         batch_size: int = DEFAULT.batch_size) -> list[tuple[list[Range], list[float]]]:
        """The words of each output (a translation of its source) as spans in it, and the model's
        probability of each: the product of its pieces' probabilities, by teacher forcing on the
        output's pieces (``tokenizer.encode`` of it, which is the model's own segmentation of any
        text it decoded, bar rare ambiguities)."""
        if len(sources) != len(outputs):
            raise ValueError(f"{len(sources)!r} sources but {len(outputs)!r} outputs")
        src = self.source_ids(sources)
        out = [self.tokenizer.encode(o) for o in outputs]
        found = []
        for ids, forced in zip(out, teacher_force(self.model, src, out, batch_size=batch_size)):
            _, words, confidences = word_confidences(self.tokenizer, ids, forced.logprobs)
            found.append((words, confidences))
        return found

    @cached_property
    def piece_index(self) -> PieceIndex:
        return PieceIndex(self.tokenizer)

    def complete(self, text: str, prefix: str, search: SearchOptions, *, n: int = 5) -> list[tuple[str, float]]:
        """(translation, score) pairs for ``text`` that start with the English ``prefix``
        (``explain.normalize_prefix``-ed; it may end inside a word), for up to ``n`` distinct next
        words, up to ``search.n_best`` translations each (``explain.complete``: none that translates a
        source word again), best first; the score is beam search's (log-probability / GNMT length
        penalty). Raises ``explain.UnwritablePrefix`` or ``PrefixTooLong``."""
        src = self.source_ids([text])[0]
        if not src:
            raise ValueError("cannot complete the translation of an empty text")
        prefix = normalize_prefix(prefix)
        plan = plan_prefix(self.tokenizer, prefix)
        room = self.config.max_len - 2  # output positions before EOS
        pieces = len(plan.forced) + len(self.tokenizer.encode(prefix.rpartition(" ")[2]))
        if pieces > room:
            raise PrefixTooLong(pieces, room)
        found = complete(self.model, self.tokenizer, src, plan, self.piece_index, search, n=n)
        return [(prefix + c.text[len(plan.text):], c.score) for c in found]

    def beam_trace(self, text: str, search: SearchOptions) -> dict[str, Any]:
        """The beam search of ``search`` behind the translation of ``text``, step by step
        (``model/search/beamtrace.py``): ``source_pieces``, the settings (``beam_size``,
        ``length_penalty``, ``no_repeat_ngram_size``), ``max_length`` (output budget in pieces, EOS included),
        ``steps``, ``stop_reason`` and ``winner``; the winner and every hypothesis that ended have
        their ``translation`` (decoded)."""
        src = self.source_ids([text])[0]
        if not src:
            raise ValueError("cannot trace the search for an empty text")
        batch = Batch.make([src], device=self.device)
        trace = BeamTrace(self.tokenizer.pieces)
        best = beam_search(self.model, batch, search, recorder=trace)[0][0]
        result = trace.result(0, best)
        result["winner"]["translation"] = self.tokenizer.decode(best.tokens)
        ended = trace.ended_tokens(0)
        for step in result["steps"]:
            for h in step["hypotheses"]:
                if h["status"] == "ended":
                    h["translation"] = self.tokenizer.decode(ended[h["id"]])
        budget = int(max_lengths(batch.src_mask, search, self.config.max_len)[0])
        return {"source_pieces": self.tokenizer.pieces(src), "beam_size": search.beam_size,
                "length_penalty": search.length_penalty, "no_repeat_ngram_size": search.no_repeat_ngram_size,
                "max_length": budget, **result}


class PrefixTooLong(ValueError):
    """A completion prefix with more pieces than the model can write."""

    def __init__(self, pieces: int, limit: int):
        super().__init__(f"the prefix has {pieces!r} pieces, but the model writes at most {limit!r}")
        self.pieces, self.limit = pieces, limit
