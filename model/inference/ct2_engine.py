"""``CT2Translator``: our checkpoint run by CTranslate2, behind ``Translator``'s interface.

The checkpoint is converted when the translator is made (``model.inference.ct2_converter``, ~0.2 s
for the ``small`` preset), into files that live as long as the process: no cache to go stale. Word
alignment reads CTranslate2's own attention (``align``: one decoder layer, forced to the output);
the attention views and the inspector's scores stay with the PyTorch model, which is kept inside
(``self.torch``), and any attribute this class does not define is the PyTorch translator's.

Decoding is mapped onto CTranslate2 so that float32 outputs are ours (tests/model/inference/test_engine_ct2.py):

- Length limit: ours is per sentence, ``max_len_a * (pieces + 1) + max_len_b`` tokens with EOS
  (``decoding.max_lengths``), CT2's ``max_decoding_length`` is per call and counts pieces without
  EOS. One call gets the longest limit of its sentences. Greedy outputs are then cut to each
  sentence's own limit (a greedy prefix does not depend on the limit); in beam search a sentence
  still searching at its own limit's last step is searched again alone under its own limit.
- Length penalty: CT2 divides by ``length ** length_penalty`` and, with no penalty, stops a
  sentence as soon as its best beam ends; ours is GNMT's ``((5 + length) / 6) ** length_penalty``
  (length with EOS, ``SearchOptions.penalty``) and stops once ``beam_size`` hypotheses have
  ended. So CT2 gets a negligible penalty
  (``_CT2_PENALTY``: its stopping rule is then ours), returns all ``beam_size`` hypotheses with
  their scores, and we recover each log-probability and rank by GNMT ourselves. n-best lists
  need one more step, see ``_beam``.
- Never produced: PAD and BOS (``suppress_sequences``); EOS not before ``min_len`` pieces
  (``min_decoding_length``); ``no_repeat_ngram_size`` as ours (EOS never blocked).

Both normalize a step's probabilities over the pieces an output may contain (PAD and BOS never
are: ``decoding.piece_logp``). Known differences: CT2 also renormalizes over what its constraints
leave, ours keeps the model's values there (forbidding EOS at the first step shifts every score of
a sentence by log(1 - p(EOS first)), ~1e-4 for a trained model; n-gram blocking can shift more);
and a beam that reaches the length limit ends without EOS's log-probability in CT2, with it in
ours. Greedy search is unaffected by either.

A ``ctranslate2.Translator`` owns worker threads, which do not survive ``fork``: it is made on
first use in each process (gunicorn forks its workers after ``create_app``), from the model files
written once to a private temporary directory (``ModelDirectory``). Not from the files in memory:
CTranslate2 keeps its own copy of files given in memory besides the weights it loads from them, a
second copy per process (docs/journal/serving-load.md, "Parallel batches").

``parallel`` batches are translated at once (CTranslate2's ``inter_threads``, sharing one copy of
the weights on the CPU), each on ``threads`` threads: small batches gain little from a second
thread, and a server's batches are small (docs/journal/serving-load.md, "Parallel batches").
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from model.inference.alignment import AlignedText, align_texts
from model.network.config import require_int
from model.search.options import DEFAULT, SearchOptions
from model.inference.ct2_converter import model_files, require_ctranslate2, vocabulary
from model.inference.explain import NEXT_WORD_PIECES
from model.network.tokenizer import BOS_ID, PAD_ID
from model.inference.interface import TorchBacked
from model.inference.translator import Translator

# Small enough to leave scores unchanged in float32's 7 digits, nonzero so that CT2 waits for
# beam_size ended hypotheses instead of stopping when its best beam ends.
_CT2_PENALTY = 1e-6


# The engine's compute types (QUANTIZATION, --quantization) and the weights converted for each:
# CTranslate2 converts float32 weights to float16, and runs int8 weights with float16 elsewhere,
# when it loads them. The float16 ones need a GPU.
WEIGHTS = {"int8": "int8", "float32": "float32", "float16": "float32", "int8_float16": "int8"}
COMPUTE_TYPES = tuple(WEIGHTS)
TORCH_WEIGHTS = "torch-weights.pt"  # the PyTorch weights, mapped from this file (Translator.map_weights)
GPU_ONLY = ("float16", "int8_float16")


def check_compute_type(quantization: str, device_kind: str) -> None:
    """ValueError (one line) for an unknown compute type or a GPU-only one on the CPU."""
    if quantization not in WEIGHTS:
        raise ValueError(f"quantization must be one of {', '.join(COMPUTE_TYPES)}, got {quantization!r}")
    if quantization in GPU_ONLY and device_kind != "cuda":
        raise ValueError(f"quantization {quantization} needs a GPU (device cuda); on the CPU use int8 or float32")


class ModelDirectory:
    """The CT2 model files of a PyTorch translator in a private temporary directory (mode 0700),
    removed when the process that wrote it exits, not when a process forked from it does. Written
    again, from the PyTorch weights, if something removed it meanwhile (a temp cleaner on a server
    that runs for weeks)."""

    def __init__(self, translator: Translator, weights: str):
        self._translator = translator
        self._weights = weights
        self.path = Path(tempfile.mkdtemp(prefix="de-en-nmt-ct2-"))
        weakref.finalize(self, _remove_if_owner, self.path, os.getpid())  # when freed, or at exit
        self.write()

    def write(self) -> None:
        """Write the files, each atomically (a process that loads meanwhile sees whole files)."""
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        files = model_files(self._translator.model, self._translator.tokenizer, self._weights)
        for name, data in files.items():
            part = self.path / f".{name}.{os.getpid()}.part"
            part.write_bytes(data)
            os.replace(part, self.path / name)
        self.names = sorted(files)

    def ready(self) -> Path:
        """The directory, written again first if any of its files is gone."""
        if not all((self.path / name).is_file() for name in self.names):
            self.write()
        return self.path


def _remove_if_owner(path: Path, owner: int) -> None:
    # A gunicorn worker runs its parent's exit hooks too: only the writer removes the files.
    if os.getpid() == owner:
        shutil.rmtree(path, ignore_errors=True)


class CT2Translator(TorchBacked):
    """The engine interface (``interface.Engine``) on CTranslate2: its searches; what reads the
    network itself comes from the PyTorch translator ``torch`` (``TorchBacked``)."""

    engine = "ct2"
    beam_exact = False  # ``beam`` is CTranslate2's own (patience 1); the n-best list searches on

    def __init__(self, translator: Translator, *, quantization: str = "int8", threads: int = 0, parallel: int = 1):
        require_int("threads", threads, 0)
        require_int("parallel", parallel, 1)
        check_compute_type(quantization, translator.device.type)
        self.torch = translator
        self.quantization = quantization
        self.threads = threads
        self.parallel = parallel
        self.files = ModelDirectory(translator, WEIGHTS[quantization])
        if translator.device.type == "cpu":  # only alignment and the model views read them now
            translator.map_weights(self.files.path / TORCH_WEIGHTS)
        self._pieces = vocabulary(translator.tokenizer)
        self.piece_ids = {piece: i for i, piece in enumerate(self._pieces)}
        self._suppress = [[self._pieces[PAD_ID]], [self._pieces[BOS_ID]]]
        self._ct2: Any = None
        self._inherited: Any = None
        self._pid = -1
        self._lock = threading.Lock()

    @classmethod
    def from_checkpoint(cls, path: str | Path, device: str = "cpu", *, quantization: str = "int8",
                        threads: int = 0, parallel: int = 1, precision: str = "fp32") -> "CT2Translator":
        """``precision``: of the PyTorch weights kept for alignment and the attention views
        (``Translator.from_checkpoint``); CTranslate2's own are ``quantization``."""
        require_ctranslate2()
        translator = Translator.from_checkpoint(path, device=device, precision=precision)
        return cls(translator, quantization=quantization, threads=threads, parallel=parallel)

    def engine_translator(self):
        """This process's ``ctranslate2.Translator``, made on first use (and again after a fork)."""
        with self._lock:
            if self._ct2 is None or self._pid != os.getpid():
                # A translator made before a fork is kept, never freed: freeing it in the child
                # would wait forever for its worker threads, which the fork did not copy.
                self._inherited = self._ct2
                ctranslate2 = require_ctranslate2()
                device = self.torch.device.type
                self._ct2 = ctranslate2.Translator(
                    str(self.files.ready()), device=device, compute_type=self.quantization,
                    intra_threads=self.threads, inter_threads=self.parallel)
                self._pid = os.getpid()
            return self._ct2

    # ------------------------------------------------------------------------------ public API

    def translate(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[str]:
        """As ``Translator.translate``: one English line per German input, same order."""
        return [self.tokenizer.decode(ids) for ids in self.output_ids(texts, search)]

    def translate_n_best(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        """As ``Translator.translate_n_best``: up to ``search.n_best`` (translation, score) pairs, best first."""
        return self._decoded(texts, search, search.n_best)

    def beam(self, texts: Sequence[str], search: SearchOptions) -> list[list[tuple[str, float]]]:
        """As ``Translator.beam``: the ``search.beam_size`` hypotheses of CTranslate2's own search
        (patience 1, the search of ``translate``), best first; only the best is exactly ours (``_beam``)."""
        return self._decoded(texts, replace(search, n_best=1), search.beam_size)

    def _decoded(self, texts: Sequence[str], search: SearchOptions, n: int) -> list[list[tuple[str, float]]]:
        found = self._beam(self.torch.source_ids(texts), search)
        results: list[list[tuple[str, float]]] = [[("", 0.0)] for _ in texts]
        for i, hyps in found.items():
            results[i] = [(self.tokenizer.decode(tokens), score) for tokens, score in hyps[:n]]
        return results

    def translate_aligned(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[AlignedText]:
        """As ``Translator.translate_aligned``: CT2 translates, then aligns (``align``)."""
        return self.align(texts, self.output_ids(texts, search), batch_size=search.batch_size)

    def align(self, sources: Sequence[str], outputs_ids: Sequence[Sequence[int]], *,
              batch_size: int = DEFAULT.batch_size) -> list[AlignedText]:
        """As ``Translator.align``, from CTranslate2's attention when forced to the outputs: decoder
        layer ``alignment.single_layer``, all heads (the converter's ``alignment_layer``), read
        with the weights that translate, so that serving never needs the PyTorch ones for it."""
        self.torch.source_ids(sources)  # refuses overlong input, as translating it would
        return align_texts(self.tokenizer, sources, outputs_ids,
                           lambda src, out: self._cross_attention(src, out, batch_size))

    def _cross_attention(self, sources_ids: list[list[int]], outputs_ids: list[list[int]],
                         batch_size: int) -> list[Tensor]:
        """Per pair (T + 1, S + 1), as ``alignment.align_words`` reads it: CT2's attention of each
        output piece's step over the source pieces, (T, S) (CT2 returns no column for the source
        EOS and no row for the step that ends the output: align_words reads neither, zeros here)."""
        pieces = self._pieces
        results = self.engine_translator().translate_batch(
            [[pieces[i] for i in ids] for ids in sources_ids],
            target_prefix=[[pieces[i] for i in ids] for ids in outputs_ids], beam_size=1,
            return_attention=True, max_input_length=0, max_batch_size=batch_size,
            max_decoding_length=max(len(ids) for ids in outputs_ids) + 1)
        cross = []
        for src, out, result in zip(sources_ids, outputs_ids, results):
            steps = torch.tensor(result.attention[0][:len(out)], dtype=torch.float32)  # (T, S)
            if tuple(steps.shape) != (len(out), len(src)):
                raise RuntimeError(f"CTranslate2's attention is {tuple(steps.shape)!r} for {len(out)!r} output "
                                   f"and {len(src)!r} source pieces")
            cross.append(torch.nn.functional.pad(steps, (0, 1, 0, 1)))
        return cross

    def output_ids(self, texts: Sequence[str], search: SearchOptions = DEFAULT) -> list[list[int]]:
        """The output piece ids of the best translation of each text ([] for an empty one)."""
        ids = self.torch.source_ids(texts)
        out: list[list[int]] = [[] for _ in ids]
        if search.beam_size == 1:
            for i, tokens in self._greedy(ids, search).items():
                out[i] = tokens
        else:
            for i, hyps in self._beam(ids, replace(search, n_best=1)).items():
                out[i] = hyps[0][0]
        return out

    def score_outputs(self, sources_ids: Sequence[Sequence[int]], outputs_ids: Sequence[Sequence[int]], *,
                      batch_size: int = DEFAULT.batch_size) -> list[float]:
        """As ``Translator.score_outputs``, by CTranslate2 (``score_batch``) in this engine's
        quantization; in float32 within 1% of the PyTorch model's figures."""
        if len(sources_ids) != len(outputs_ids):
            raise ValueError(f"{len(sources_ids)!r} sources but {len(outputs_ids)!r} outputs")
        if not sources_ids:
            return []
        pieces = self._pieces
        results = self.engine_translator().score_batch(
            [[pieces[i] for i in ids] for ids in sources_ids], [[pieces[i] for i in ids] for ids in outputs_ids],
            max_batch_size=batch_size, max_input_length=0)
        return [float(sum(result.log_probs)) for result in results]  # the output's pieces and its EOS

    def continue_n_best(self, texts: Sequence[str], prefixes: Sequence[Sequence[int]], search: SearchOptions, *,
                        n: int) -> list[list[tuple[str, float]]]:
        """As ``Translator.continue_n_best``, by CTranslate2: the next pieces from its alternatives
        after the prefix, each completed by its beam search with the prefix and that piece forced,
        and scored by ``score_outputs`` (as ``translate_n_best``: log-probability / GNMT penalty)."""
        if len(texts) != len(prefixes):
            raise ValueError(f"{len(texts)!r} texts but {len(prefixes)!r} prefixes")
        ids = self.torch.source_ids(texts)
        results: list[list[tuple[str, float]]] = [[] for _ in texts]
        room = self.torch.config.max_len - 2   # output pieces before EOS, as beam_search's forced prefixes
        rows = [i for i, src in enumerate(ids) if src and len(prefixes[i]) < room]
        if not rows:
            return results
        pieces, index = self._pieces, self.torch.piece_index
        firsts = self.engine_translator().translate_batch(
            [[pieces[p] for p in ids[r]] for r in rows], target_prefix=[[pieces[p] for p in prefixes[r]] for r in rows],
            return_alternatives=True, num_hypotheses=NEXT_WORD_PIECES * n, beam_size=1, max_input_length=0,
            max_decoding_length=max(len(prefixes[r]) + 1 for r in rows), max_batch_size=search.batch_size)
        forced = []
        for r, result in zip(rows, firsts):
            at = len(prefixes[r])
            ranked = [self.piece_ids[h[at]] for h in result.hypotheses if len(h) > at]
            forced += [(r, [*prefixes[r], piece]) for piece in index.next_words(dict.fromkeys(ranked), n)]
        if not forced:
            return results
        # Each under its own limit, grown as beam_search grows it for a forced prefix: one call per limit.
        limits = [max(self._limit(len(ids[r]), search), min(len(f) - 1 + search.max_len_b, room + 1) - 1)
                  for r, f in forced]
        outputs: list[list[int]] = [[] for _ in forced]
        for limit in set(limits):
            group = [k for k, own in enumerate(limits) if own == limit]
            found = self._call(ids, [forced[k][0] for k in group], limit, search, beam_size=search.beam_size,
                               length_penalty=_CT2_PENALTY,
                               target_prefix=[[pieces[p] for p in forced[k][1]] for k in group])
            for k, res in zip(group, found):
                outputs[k] = [self.piece_ids[p] for p in res.hypotheses[0]]
        scores = self.score_outputs([ids[r] for r, _ in forced], outputs, batch_size=search.batch_size)
        for (r, f), out, logp in zip(forced, outputs, scores):
            if len(out) >= len(f):
                results[r].append((self.tokenizer.decode(out), logp / search.penalty(len(out) + 1)))
        return [sorted(r, key=lambda h: -h[1]) for r in results]

    # ------------------------------------------------------------------------------ searches

    def _limit(self, pieces: int, search: SearchOptions) -> int:
        """Most output pieces (EOS not counted) of a source of ``pieces`` pieces, as ``max_lengths``."""
        budget = search.budget(pieces + 1)  # tokens with EOS, source with EOS
        return min(max(budget, 1), self.torch.config.max_len - 1) - 1

    def _call(self, ids: list[list[int]], rows: list[int], max_length: int, search: SearchOptions, **options):
        return self.engine_translator().translate_batch(
            [[self._pieces[i] for i in ids[r]] for r in rows], max_batch_size=search.batch_size,
            max_decoding_length=max_length, min_decoding_length=search.min_len, max_input_length=0,
            suppress_sequences=self._suppress, no_repeat_ngram_size=search.no_repeat_ngram_size, **options)

    def _greedy(self, ids: list[list[int]], search: SearchOptions) -> dict[int, list[int]]:
        """Greedy output ids of every non-empty source, each cut to its own length limit."""
        rows = [i for i, s in enumerate(ids) if s]
        if not rows:
            return {}
        longest = max(self._limit(len(ids[r]), search) for r in rows)
        results = self._call(ids, rows, longest, search, beam_size=1)
        return {r: [self.piece_ids[p] for p in res.hypotheses[0]][:self._limit(len(ids[r]), search)]
                for r, res in zip(rows, results)}

    def _beam(self, ids: list[list[int]], search: SearchOptions) -> dict[int, list[tuple[list[int], float]]]:
        """The ended hypotheses of every non-empty source as (ids, GNMT score), best first: the
        best one exactly ours; with ``search.n_best`` > 1 all ``beam_size`` of them exactly ours."""
        # When several beams end in the step that completes a sentence, CT2 keeps all of them
        # and returns the best-scoring beam_size, ours keeps the first to end (beam_size in all).
        # The best after the length penalty is the same (an earlier, worse-scoring hypothesis
        # never wins), the rest may differ; for those CT2 searches on (patience 2) and returns
        # twice as many, and ours are the beam_size that ended first.
        every, beam_size = search.n_best > 1, search.beam_size
        options = dict(beam_size=beam_size, patience=2 if every else 1,
                       num_hypotheses=2 * beam_size if every else beam_size, length_penalty=_CT2_PENALTY,
                       return_scores=True)
        rows = [i for i, s in enumerate(ids) if s]
        if not rows:
            return {}
        # One call under the longest limit. Up to its own limit's last step a sentence's search
        # is the same under any longer limit, so only one still searching then (its longest
        # hypothesis reaches limit - 1 pieces) is searched again under its own limit.
        longest = max(self._limit(len(ids[r]), search) for r in rows)
        found: dict[int, list[tuple[list[int], float]]] = {}
        again: dict[int, list[int]] = {}
        for r, res in zip(rows, self._call(ids, rows, longest, search, **options)):
            own = self._limit(len(ids[r]), search)
            if own < longest and max(map(len, res.hypotheses)) >= own - 1:
                again.setdefault(own, []).append(r)
            else:
                found[r] = self._ranked(res, search)
        for own, group in again.items():
            for r, res in zip(group, self._call(ids, group, own, search, **options)):
                found[r] = self._ranked(res, search)
        return found

    def _ranked(self, result, search: SearchOptions) -> list[tuple[list[int], float]]:
        """One sentence's hypotheses as (ids, log-probability / GNMT penalty), best first."""
        # Undo CT2's normalization: the score is then the log-probability.
        hyps = [([self.piece_ids[p] for p in tokens], score * len(tokens) ** _CT2_PENALTY)
                for tokens, score in zip(result.hypotheses, result.scores)]
        if search.n_best > 1:  # in the order ours collects them: by step, then by score
            hyps = sorted(hyps, key=lambda h: (len(h[0]), -h[1]))[:search.beam_size]
        scored = [(tokens, logp / search.penalty(len(tokens) + 1)) for tokens, logp in hyps]
        return sorted(scored, key=lambda h: -h[1])
