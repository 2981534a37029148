"""Training pieces used by ``train.py`` (paper section 5): loss, learning-rate schedule, optimizer,
evaluation on the dev set, and the small amount of distributed plumbing.

Shapes follow the legend in ``model/network/attention.py``.
"""

from __future__ import annotations

import ctypes
import gzip
import json
import math
import os
import platform
import random
import signal
import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Sequence

import sacrebleu
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import Tensor

from model.data.sampler import TokenBatchSampler
from model.network.batch import Batch
from model.network.checkpoint import atomic_open
from model.data import CorpusError, CorpusSpec, capped_split, clean_pairs, corpus_sha256, read_pairs, reference_streams
from model.search.decoding import greedy_search
from model.network.tokenizer import PAD_ID, Tokenizer
from model.network.transformer import Transformer


def label_smoothed_loss(logits: Tensor, target: Tensor, smoothing: float) -> Tensor:
    """Summed cross-entropy over non-padding targets, with label smoothing (section 5.4).

    logits: (B, T, V), target: (B, T). The caller divides by the token count, so that
    sentences weigh by length and DDP ranks with different batch sizes stay comparable."""
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V).float(), target.reshape(-1), ignore_index=PAD_ID,
                           label_smoothing=smoothing, reduction="sum")


class StopSignals:
    """While entered, SIGTERM or SIGINT asks the run to stop after its current step and save: a
    scheduler's preemption, a watchdog (bench/gpu_train.sh) or Ctrl-C then loses no steps. A
    second signal gets the previous handler (Ctrl-C twice stops at once); a signal the process
    ignores (SIGINT of a background job) stays ignored. Only the main thread can install handlers;
    elsewhere this does nothing."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self) -> None:
        self.received: str | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> "StopSignals":
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                if signal.getsignal(signum) is not signal.SIG_IGN:
                    self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def _handle(self, signum: int, frame) -> None:
        self.received = signal.Signals(signum).name
        self._restore()

    def _restore(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}

    def __exit__(self, *exc) -> None:
        self._restore()


PRECISIONS = ("auto", "fp32", "bf16")


def autocast(device_type: str, precision: str):
    """The context the forward passes run in: bfloat16 autocast for ``bf16`` (``auto``: on CUDA),
    else none. Only the forward pass: the loss is taken in float32 (``label_smoothed_loss``)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision == "bf16" or (precision == "auto" and device_type == "cuda"):
        return partial(torch.autocast, device_type, dtype=torch.bfloat16)
    return nullcontext


def inverse_sqrt(warmup: int):
    """lr multiplier: linear warmup to 1 over ``warmup`` steps, then ~ 1/sqrt(step) (section 5.3,
    with the peak learning rate as an explicit argument instead of d_model^-0.5)."""
    if warmup < 1:
        raise ValueError(f"warmup must be >= 1, got {warmup!r}")

    def factor(step: int) -> float:
        step = max(step, 1)
        return min(step / warmup, math.sqrt(warmup / step))
    return factor


def make_optimizer(model: torch.nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    """AdamW with the paper's betas/eps; no weight decay on biases, norms and embeddings."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (decay if p.dim() > 1 and "embed" not in name else no_decay).append(p)
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.98), eps=1e-9)


@dataclass
class DevSet:
    """Dev examples for the loss, and unique sources with all their references for BLEU."""

    src_ids: list[list[int]]
    tgt_ids: list[list[int]]
    bleu_src_ids: list[list[int]]
    references: list[list[str]]


def spread(n: int, k: int) -> list[int]:
    """``min(n, k)`` indices spaced evenly over ``range(n)``, in order. Dev BLEU decodes such a
    sample: corpora are often sorted (manythings' files by sentence length), so the first k
    sources would be the shortest and score far higher than the whole dev set."""
    if n <= k:
        return list(range(n))
    return [i * n // k for i in range(k)]


def batches_by_length(lengths: Sequence[int], max_tokens: int) -> list[list[int]]:
    """Indices sorted by length, cut into batches of at most ``max_tokens`` padded tokens."""
    return TokenBatchSampler(lengths, max_tokens, shuffle=False).batches(0)


@torch.no_grad()
def dev_loss(model: Transformer, dev: DevSet, max_tokens: int, device: torch.device, autocast) -> float:
    """Mean per-token cross-entropy (no smoothing) on the dev pairs."""
    model.eval()
    total, tokens = torch.zeros((), dtype=torch.float64, device=device), 0  # summed on the device: one read
    lengths = [max(len(s), len(t)) + 2 for s, t in zip(dev.src_ids, dev.tgt_ids)]
    for idx in batches_by_length(lengths, max_tokens):
        targets = [dev.tgt_ids[i] for i in idx]
        batch = Batch.make([dev.src_ids[i] for i in idx], targets, device)
        with autocast():
            logits = model(batch.src, batch.src_mask, batch.tgt_in, batch.tgt_mask)
        total += label_smoothed_loss(logits, batch.tgt_out, 0.0)
        tokens += Batch.count_tokens(targets)
    model.train()
    return float(total) / max(tokens, 1)


@torch.no_grad()
def dev_bleu(model: Transformer, tokenizer: Tokenizer, dev: DevSet, max_tokens: int,
             device: torch.device, autocast) -> tuple[float, list[str]]:
    """Greedy-decode the dev sources; sacreBLEU against all their references."""
    model.eval()
    hyps = [""] * len(dev.bleu_src_ids)
    lengths = [len(s) + 1 for s in dev.bleu_src_ids]
    # Decoding holds beams of short sequences; a smaller batch keeps memory flat.
    for idx in batches_by_length(lengths, max_tokens // 2):
        batch = Batch.make([dev.bleu_src_ids[i] for i in idx], device=device)
        with autocast():
            outs = greedy_search(model, batch)
        for i, out in zip(idx, outs):
            hyps[i] = tokenizer.decode(out)
    model.train()
    return corpus_bleu(hyps, dev.references).score, hyps


def corpus_bleu(hyps: list[str], references: list[list[str]], **kwargs):
    """sacreBLEU with a variable number of references per sentence."""
    return sacrebleu.corpus_bleu(hyps, reference_streams(references), **kwargs)


def keep_freed_memory() -> None:
    """Stop glibc from returning big buffers to the OS after every step (Linux/glibc only).

    By default every allocation over 32 MiB is a fresh mmap, unmapped on free, so the
    (tokens x vocabulary) logits buffers are page-faulted in again at every step: ~150k faults
    per step on the small preset. Keeping them costs peak memory, saves ~8% CPU time per step
    (bench/model_speed.py --mallopt)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4
    libc.mallopt(M_MMAP_MAX, 0)
    libc.mallopt(M_TRIM_THRESHOLD, 2**30)


def rng_state(device: torch.device) -> dict[str, Any]:
    """This process's random state: torch's CPU generator, Python's, and on CUDA the generator of
    its own device only (never other visible GPUs', and a CPU run never touches CUDA)."""
    state: dict[str, Any] = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if device.type == "cuda":
        state["cuda"] = torch.cuda.get_rng_state(device)
    return state


def set_rng_state(state: dict[str, Any], device: torch.device) -> None:
    """Restore ``rng_state``'s result; a CUDA state is restored only when resuming on CUDA (a run
    saved on a GPU and resumed on the CPU keeps the CPU and Python generators exactly)."""
    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if device.type == "cuda" and "cuda" in state:
        torch.cuda.set_rng_state(state["cuda"], device)


def gather_rng_states(device: torch.device, d: Dist) -> dict[str, Any]:
    """Every rank's ``rng_state`` (rank 0 saves them all: each rank resumes with its own)."""
    own = rng_state(device)
    if d.world == 1:
        return {"ranks": [own]}
    states: list[Any] = [None] * d.world
    dist.all_gather_object(states, own)
    return {"ranks": states}


def own_rng_state(saved: dict[str, Any], d: Dist) -> dict[str, Any] | None:
    """This rank's saved state; None when the run was saved with another number of processes
    (then each rank keeps the fresh, rank-seeded generators it has)."""
    if "ranks" not in saved:  # saved before per-rank states: one process's state
        return saved if d.world == 1 else None
    ranks = saved["ranks"]
    return ranks[d.rank] if len(ranks) == d.world else None


@dataclass
class Dist:
    """Where this process stands in a torchrun job (rank 0 of 1 when run plainly)."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @property
    def main(self) -> bool:
        return self.rank == 0


def init_distributed(device_kind: str) -> Dist:
    """Join the torchrun job if there is one: NCCL on GPUs, gloo on CPUs. On CUDA every rank needs
    a GPU of its own: more ranks than visible GPUs is a one-line error, not "invalid device ordinal"."""
    if "RANK" not in os.environ:
        return Dist()
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if device_kind == "cuda":
        gpus = torch.cuda.device_count()
        if local_rank >= gpus:
            local = int(os.environ.get("LOCAL_WORLD_SIZE", local_rank + 1))
            raise ValueError(f"{local} processes per node but {gpus} visible GPU{'s' * (gpus != 1)}: start "
                             f"at most {gpus} (torchrun --nproc_per_node={gpus}), or train on the CPU with --device cpu")
    backend = "nccl" if device_kind == "cuda" else "gloo"
    dist.init_process_group(backend=backend)
    d = Dist(rank=dist.get_rank(), world=dist.get_world_size(), local_rank=local_rank)
    if device_kind == "cuda":
        torch.cuda.set_device(d.local_rank)
    return d


def finish_distributed(d: Dist) -> None:
    """Leave the torchrun job cleanly: wait until every rank is done (rank 0 saves last), then
    destroy the process group. A rank that simply exits while another still holds the group can
    be aborted (SIGABRT) as its gloo connections are torn down under it."""
    if d.world == 1:
        return
    dist.barrier()
    dist.destroy_process_group()


def agree(flag: bool, d: Dist) -> bool:
    """Rank 0's decision, broadcast so that every rank stops at the same step."""
    if d.world == 1:
        return flag
    t = torch.tensor([1.0 if flag else 0.0])
    if dist.get_backend() == "nccl":
        t = t.cuda()
    dist.broadcast(t, src=0)
    return bool(t.item())


# ------------------------------------------------------------------------- data and metadata


@dataclass
class Corpus:
    train: list[tuple[str, str]]
    dev: list[tuple[str, str]]
    test: list[tuple[str, str]]
    sha256: dict[str, str]  # file -> SHA-256 of what was trained on
    parts: list[dict[str, Any]] = field(default_factory=list)  # per --data: spec, kind, weight, train_pairs
    # per domain ("ui", "help", "ding"): (dev, test) held out of the corpora of that kind
    domains: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = field(default_factory=dict)
    # where the --data files came from, when they are a mixture written by model.mixture (--data-sources)
    sources: list[dict[str, Any]] = field(default_factory=list)

    def weights(self) -> list[float]:
        """Each training pair's sampling weight, from the corpus it came from (see ``parts``)."""
        return [part["weight"] for part in self.parts for _ in range(part["train_pairs"])]

    def held_out(self) -> dict[str, dict[str, int]]:
        """How many dev and test pairs each domain holds out, as a checkpoint records it."""
        return {domain: {"dev_pairs": len(dev), "test_pairs": len(test)} for domain, (dev, test) in self.domains.items()}

    def split_parts(self, pairs: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
        """``pairs`` (parallel to ``train``) cut into one list per corpus."""
        assert len(pairs) == len(self.train)
        cuts, start = [], 0
        for part in self.parts:
            cuts.append(pairs[start:start + part["train_pairs"]])
            start += part["train_pairs"]
        return cuts


def read_sources(path: str | Path) -> list[dict[str, Any]]:
    """model.mixture's sources.json: each corpus a mixture was written from, as given, with its SHA-256
    and training pairs (train.py's --data-sources keeps them in the checkpoint)."""
    shown = str(path)
    try:
        records = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CorpusError(f"--data-sources not found: {shown!r}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CorpusError(f"cannot read --data-sources {shown!r}: {exc}") from None
    if not (isinstance(records, list) and records and all(
            isinstance(r, dict) and isinstance(r.get("corpus"), str) and isinstance(r.get("sha256"), str)
            for r in records)):
        raise CorpusError(f"--data-sources {shown!r} is not a sources.json of model.mixture "
                          "(a list of records with 'corpus' and 'sha256')")
    return records


def load_corpus(args, out_dir: Path | None) -> Corpus:
    """Read and clean the corpora; split the first one (without --valid) and hold out a dev and a
    test split of each domain ("ui", "help", "ding"; ``CorpusSpec.domain``); rank 0 writes the
    splits it made.

    The first ``--data`` corpus gives the dev pairs that training evaluates on, and its test pairs.
    Every other corpus trains, without any pair that shares a sentence with any held-out split,
    so that no held-out sentence is trained on. Domain splits are written as
    ``DIR/dev.DOMAIN.tsv`` and ``DIR/test.DOMAIN.tsv`` (``--domain-split-size`` pairs each)."""
    specs = [CorpusSpec.parse(text) for text in args.data]
    pairs = clean_pairs(specs[0].read())
    sha = {spec.path: corpus_sha256(spec.path) for spec in specs}
    if args.valid:
        train, dev, test = pairs, clean_pairs(read_pairs(args.valid)), []
        sha[args.valid] = corpus_sha256(args.valid)
    else:
        train, dev, test = capped_split(pairs, dev_size=args.dev_size, test_size=args.test_size, seed=args.seed)
    size = getattr(args, "domain_split_size", 0)
    read = [(spec, clean_pairs(spec.read())) for spec in specs[1:]]
    domains: dict[str, tuple[list, list]] = {}
    for k, (spec, extra) in enumerate(read):
        if spec.domain and size and not args.valid:
            own = spec.own_held_out()
            if own is not None:  # the corpus's published dev and test, whole; its pairs sharing a side drop below
                domain_dev, domain_test = clean_pairs(own[0]), clean_pairs(own[1])
            else:
                extra, domain_dev, domain_test = capped_split(extra, dev_size=size, test_size=size, seed=args.seed)
                read[k] = (spec, extra)
            held = domains.setdefault(spec.domain, ([], []))
            held[0].extend(domain_dev)
            held[1].extend(domain_test)
    if out_dir is not None:
        splits = [("dev", dev), ("test", test)] if not args.valid else []
        for domain, (domain_dev, domain_test) in domains.items():
            splits += [(f"dev.{domain}", domain_dev), (f"test.{domain}", domain_test)]
        for name, split in splits:
            write_tsv(out_dir / f"{name}.tsv", split)
    parts = [{"corpus": str(specs[0]), "weight": specs[0].weight, "train_pairs": len(train)}]
    held_out = {side for pair in dev + test for side in pair}
    held_out |= {side for splits in domains.values() for split in splits for pair in split for side in pair}
    for spec, extra in read:
        extra = [pair for pair in extra if pair[0] not in held_out and pair[1] not in held_out]
        train = train + extra
        parts.append({"corpus": str(spec), "weight": spec.weight, "train_pairs": len(extra)})
    sources = read_sources(args.data_sources) if getattr(args, "data_sources", None) else []
    return Corpus(train, dev, test, sha, parts, domains, sources)


def write_tsv(path: Path, pairs: list[tuple[str, str]]) -> None:
    """The corpus's own layout (English<TAB>German), so every command can read it back; gzipped
    where the name ends in ``.gz``, without a name or time stamp in the header, so that the same
    pairs give the same bytes (``model.mixture``)."""
    if Path(path).suffix == ".gz":
        with atomic_open(path, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as z:
            z.write("".join(f"{en}\t{de}\n" for de, en in pairs).encode("utf-8"))
        return
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(f"{en}\t{de}\n" for de, en in pairs)


def write_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one line; a line is small, so a crash can cut at most that line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")


def hardware(device: torch.device) -> str:
    """What this process trains on, e.g. "1 x cpu (AMD EPYC 9R14, 2 threads)" (for the model card)."""
    world = torch.distributed.get_world_size() if torch.distributed.is_initialized() else 1
    if device.type == "cuda":
        return f"{world} x cuda ({torch.cuda.get_device_name(device)})"
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            name = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), name)
    except OSError:
        pass
    return f"{world} x cpu ({name}, {torch.get_num_threads()} threads)"


def make_meta(args, corpus: Corpus, state: dict[str, Any], model: Transformer, time_started: float) -> dict[str, Any]:
    """What a checkpoint says about how it was made (shown by model.info and the /model page)."""
    import sentencepiece

    curves = state["curves"]
    return {
        "step": state["step"],
        "epoch": state["epoch"],
        "direction": getattr(args, "direction", "de-en"),
        "dev_bleu": round(state["best_bleu"], 2) if state["best_bleu"] >= 0 else None,
        "dev_loss": curves["dev_loss"][-1] if curves["dev_loss"] else None,
        "curves": {k: list(v) for k, v in curves.items()},
        "parameters": model.num_parameters(),
        "data": {"sha256": dict(corpus.sha256), "train_pairs": len(corpus.train), "dev_pairs": len(corpus.dev),
                 "test_pairs": len(corpus.test), "corpora": [dict(part) for part in corpus.parts],
                 **({"domains": corpus.held_out()} if corpus.domains else {}),
                 **({"sources": corpus.sources} if corpus.sources else {}),
                 **({"attribution": "; ".join(args.data_attribution)} if args.data_attribution else {}),
                 **({"license": args.license} if args.license else {})},
        "train_args": {k: v for k, v in vars(args).items() if v is not None},
        "seed": args.seed,
        "hardware": hardware(next(model.parameters()).device),
        "wall_time_s": round(state["elapsed_s"], 1),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time_started)),
        "versions": {"python": platform.python_version(), "torch": str(torch.__version__),
                     "sentencepiece": str(sentencepiece.__version__), "sacrebleu": str(sacrebleu.__version__)},
    }
