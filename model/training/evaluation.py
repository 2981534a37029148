"""Evaluation on the dev set during training: the loss, and BLEU of greedy translations.

Shapes follow the legend in ``model/network/attention.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import sacrebleu
import torch

from model.data import reference_streams
from model.data.sampler import TokenBatchSampler
from model.network.batch import Batch
from model.network.tokenizer import Tokenizer
from model.network.transformer import Transformer
from model.search.decoding import greedy_search

from .loss import label_smoothed_loss


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
