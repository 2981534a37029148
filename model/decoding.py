"""Inference: greedy and beam search as free functions, plus attention capture.

Shapes follow the legend in ``model/attention.py``; K is the beam size.

Both searches encode once and, by default, decode incrementally with a key/value cache; with
``use_cache=False`` every step re-runs the decoder over the whole prefix (same result, slower;
kept for tests and benchmarks). The output length is capped per sentence at
``max_len_a * source_length + max_len_b`` tokens (as in fairseq), and by the model's ``max_len``.

Constraints on each step's log-probabilities (``_constrain``), shared by both searches so that they
agree on what may be produced, as fairseq's ``--min-len`` and ``--no-repeat-ngram-size``:

- ``min_len``: EOS is forbidden until the output holds ``min_len`` pieces (default 1: a non-empty
  source never gets an empty translation). The length cap wins over it: a sentence whose budget
  runs out ends there even if shorter than ``min_len``.
- ``no_repeat_ngram_size`` n (0 = off): a piece that would complete an n-gram already present in the
  hypothesis's output is forbidden. Computed on the whole (rows, t) prefix tensor at once, so it
  needs no per-hypothesis state and survives beam reordering and finished sentences leaving the
  batch; it costs O(rows * t * n) comparisons per step. EOS is never blocked.
- If the constraints leave a row without any finite candidate (possible with tiny vocabularies),
  EOS stays possible with its model log-probability, so every hypothesis can always end.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from .batch import Batch, causal_mask
from .data import require_int
from .tokenizer import BOS_ID, EOS_ID, PAD_ID
from .transformer import AttentionWeights, KVCache, Transformer


@dataclass
class Hypothesis:
    tokens: list[int]   # output piece ids, without BOS/EOS
    score: float        # log-probability / GNMT length penalty


def max_lengths(src_mask: Tensor, max_len_a: float, max_len_b: int, model_max_len: int) -> Tensor:
    """(B, 1, 1, S) -> (B,) output budget in tokens, EOS included."""
    src_len = src_mask.sum(dim=(1, 2, 3))  # (B,)
    limit = (src_len.float() * max_len_a + max_len_b).long()
    return limit.clamp(min=1, max=model_max_len - 1)


def _check_constraints(min_len: int, no_repeat_ngram_size: int) -> None:
    require_int("min_len", min_len, 0)
    require_int("no_repeat_ngram_size", no_repeat_ngram_size, 0)


def _block_ngrams(pieces: Tensor, logp: Tensor, n: int) -> None:
    """Set -inf (in place) on every token that would repeat an n-gram of ``pieces``.

    pieces: (R, t) output so far (no BOS), logp: (R, V). Every window of n pieces whose first
    n - 1 match the last n - 1 pieces bans its last piece."""
    t = pieces.size(1)
    if n < 1 or t < n:  # not one complete n-gram yet
        return
    windows = pieces.unfold(1, n, 1)  # (R, t - n + 1, n)
    context = pieces[:, t - n + 1:]  # (R, n - 1), empty for n = 1
    match = (windows[:, :, :-1] == context[:, None, :]).all(dim=-1)  # (R, W)
    # scatter_add, not scatter: a token may be the end of matching and non-matching windows.
    hits = torch.zeros_like(logp).scatter_add_(1, windows[:, :, -1], match.to(logp.dtype))  # (R, V)
    hits[:, EOS_ID] = 0
    logp.masked_fill_(hits > 0, float("-inf"))


def _forbid_eos(logp: Tensor, pieces: int, min_len: int) -> None:
    """EOS gets -inf (in place) while the outputs (all ``pieces`` long) are shorter than min_len."""
    if pieces < min_len:
        logp[:, EOS_ID] = float("-inf")


def _constrain(logp: Tensor, prefix: Tensor, at_limit: Tensor, min_len: int, no_repeat: int) -> Tensor:
    """Apply min_len, n-gram blocking and the length limit to one step's (R, V) log-probs.

    prefix: (R, t + 1) decoder input (BOS first); at_limit: (R,) rows whose next token must be EOS.
    Rows at their limit, or left with no finite candidate, may only end, with EOS's own log-prob."""
    eos = logp[:, EOS_ID].clone()  # (R,)
    _forbid_eos(logp, prefix.size(1) - 1, min_len)
    if no_repeat:
        _block_ngrams(prefix[:, 1:], logp, no_repeat)
    only_eos = at_limit | ~torch.isfinite(logp).any(dim=-1)  # (R,)
    if bool(only_eos.any()):
        logp[only_eos] = float("-inf")
        logp[only_eos, EOS_ID] = eos[only_eos]
    return logp


class _Stepper:
    """Produces next-token log-probabilities for growing prefixes, with or without a KV cache."""

    def __init__(self, model: Transformer, memory: Tensor, src_mask: Tensor, use_cache: bool):
        self.model, self.memory, self.src_mask = model, memory, src_mask
        self.cache: KVCache | None = model.new_cache() if use_cache else None

    def __call__(self, prefix: Tensor) -> Tensor:
        """prefix: (B, t) decoder input so far -> (B, V) log-probabilities of the next token."""
        if self.cache is not None:
            logits = self.model.decode(prefix[:, -1:], self.memory, self.src_mask, cache=self.cache)  # (B, 1, V)
        else:
            mask = causal_mask(prefix.size(1), prefix.device)  # (1, 1, t, t)
            logits = self.model.decode(prefix, self.memory, self.src_mask, mask)  # (B, t, V)
        logp = logits[:, -1].float().log_softmax(dim=-1)  # (B, V)
        logp[:, [PAD_ID, BOS_ID]] = float("-inf")  # never produced, only used as input
        return logp

    def select(self, index: Tensor) -> None:
        """Keep/reorder rows of everything that is per hypothesis."""
        self.memory = self.memory.index_select(0, index)
        self.src_mask = self.src_mask.index_select(0, index)
        if self.cache is not None:
            self.cache.select(index)


@torch.inference_mode()
def greedy_search(
    model: Transformer, batch: Batch, *, max_len_a: float = 1.5, max_len_b: int = 10, use_cache: bool = True,
    min_len: int = 1, no_repeat_ngram_size: int = 0,
) -> list[list[int]]:
    """Most probable allowed token at every step. Returns per sentence the output ids (no BOS/EOS).

    Sentences that have emitted EOS leave the batch, so no work is spent on them. ``min_len`` and
    ``no_repeat_ngram_size``: see the module docstring."""
    _check_constraints(min_len, no_repeat_ngram_size)
    B = batch.src.size(0)
    device = batch.src.device
    limit = max_lengths(batch.src_mask, max_len_a, max_len_b, model.config.max_len)  # (B,)
    step = _Stepper(model, model.encode(batch.src, batch.src_mask), batch.src_mask, use_cache)
    prefix = torch.full((B, 1), BOS_ID, dtype=torch.long, device=device)  # (Ba, t + 1)
    active = torch.arange(B, device=device)  # original index of each row still decoding
    outputs: list[list[int]] = [[] for _ in range(B)]
    for t in range(int(limit.max())):
        logp = _constrain(step(prefix), prefix, limit[active] <= t + 1, min_len, no_repeat_ngram_size)
        next_tok = logp.argmax(dim=-1)  # (Ba,)
        prefix = torch.cat([prefix, next_tok[:, None]], dim=1)  # (Ba, t + 2)
        ended = next_tok == EOS_ID  # (Ba,)
        if bool(ended.any()):
            for row in ended.nonzero().squeeze(1).tolist():
                outputs[int(active[row])] = prefix[row, 1:-1].tolist()
            keep = (~ended).nonzero().squeeze(1)  # (Ba',)
            if keep.numel() == 0:
                break
            active, prefix = active[keep], prefix.index_select(0, keep)
            step.select(keep)
    return outputs


def length_penalty(length: Tensor | int, alpha: float) -> Tensor | float:
    """GNMT (Wu et al. 2016): ((5 + |Y|) / 6) ** alpha; alpha = 0 disables it."""
    return ((5.0 + length) / 6.0) ** alpha


@torch.inference_mode()
def beam_search(
    model: Transformer,
    batch: Batch,
    *,
    beam_size: int = 4,
    length_penalty_alpha: float = 0.6,
    n_best: int = 1,
    max_len_a: float = 1.5,
    max_len_b: int = 10,
    use_cache: bool = True,
    min_len: int = 1,
    no_repeat_ngram_size: int = 0,
) -> list[list[Hypothesis]]:
    """Batched beam search. Returns for every sentence its ``n_best`` hypotheses, best first.

    A hypothesis ends when it emits EOS; a sentence is done once it holds ``beam_size`` ended
    hypotheses (fairseq's rule), and done sentences leave the batch so no work is spent on them.
    ``min_len`` and ``no_repeat_ngram_size``: see the module docstring.
    """
    _check_beam_args(beam_size, n_best, min_len, no_repeat_ngram_size)
    B, K = batch.src.size(0), beam_size
    device = batch.src.device
    limit = max_lengths(batch.src_mask, max_len_a, max_len_b, model.config.max_len)  # (B,)
    memory = model.encode(batch.src, batch.src_mask)  # (B, S, D)
    expand = torch.arange(B, device=device).repeat_interleave(K)  # (B*K,)
    step = _Stepper(model, memory.index_select(0, expand), batch.src_mask.index_select(0, expand), use_cache)
    prefix = torch.full((B * K, 1), BOS_ID, dtype=torch.long, device=device)  # (B*K, 1)
    # Only the first beam is live at the start, or the K beams would be K copies of one.
    scores = torch.full((B, K), float("-inf"), device=device)  # (B, K) sum of log-probs
    scores[:, 0] = 0.0
    active = torch.arange(B, device=device)  # original index of each sentence still searching
    ended: list[list[Hypothesis]] = [[] for _ in range(B)]
    for t in range(int(limit.max())):
        Ba = active.numel()
        at_limit = limit[active] <= t + 1  # (Ba,)
        logp = _constrain(step(prefix), prefix, at_limit.repeat_interleave(K), min_len, no_repeat_ngram_size)
        V = logp.size(-1)
        cand = (scores[:, :, None] + logp.view(Ba, K, V)).view(Ba, K * V)  # (Ba, K*V)
        top_scores, top_idx = cand.topk(2 * K, dim=-1)  # (Ba, 2K): enough for K non-EOS continuations
        top_beam, top_tok = top_idx // V, top_idx % V  # (Ba, 2K)
        is_eos = (top_tok == EOS_ID) & torch.isfinite(top_scores)
        _collect_ended(ended, active, prefix.view(Ba, K, -1), top_scores, top_beam, is_eos, t + 1,
                       length_penalty_alpha, K)
        # Live continuations: the best K candidates that are not EOS.
        rank = torch.where(is_eos, float("inf"), torch.arange(2 * K, device=device, dtype=torch.float))
        keep = rank.argsort(dim=-1)[:, :K]  # (Ba, K)
        scores = top_scores.gather(1, keep).masked_fill(is_eos.gather(1, keep), float("-inf"))  # (Ba, K)
        beam_src = (top_beam.gather(1, keep) + torch.arange(Ba, device=device)[:, None] * K).view(-1)  # (Ba*K,)
        prefix = torch.cat([prefix.index_select(0, beam_src), top_tok.gather(1, keep).view(-1, 1)], dim=1)
        step.select(beam_src)
        full = torch.tensor([len(ended[int(i)]) >= K for i in active], device=device)  # (Ba,)
        # A sentence at its length limit has ended all its beams; one with no live beam has nothing left.
        still = ~(full | at_limit) & scores.isfinite().any(dim=-1)  # (Ba,)
        if not bool(still.any()):
            break
        if not bool(still.all()):
            rows = still.nonzero().squeeze(1)  # surviving sentences
            active, scores = active[rows], scores[rows]
            flat = (rows[:, None] * K + torch.arange(K, device=device)).view(-1)  # (Ba'*K,)
            prefix = prefix.index_select(0, flat)
            step.select(flat)
    return [sorted(hyps, key=lambda h: -h.score)[:n_best] for hyps in ended]


def _check_beam_args(beam_size: int, n_best: int, min_len: int, no_repeat_ngram_size: int) -> None:
    if beam_size < 1:
        raise ValueError(f"beam_size must be >= 1, got {beam_size!r}")
    if not 1 <= n_best <= beam_size:
        raise ValueError(f"n_best must be between 1 and beam_size {beam_size!r}, got {n_best!r}")
    _check_constraints(min_len, no_repeat_ngram_size)


def _collect_ended(ended, active, prefix, top_scores, top_beam, is_eos, length, alpha, K) -> None:
    """Move every EOS candidate among the top K of its sentence into ``ended``."""
    for row, col in is_eos[:, :K].nonzero().tolist():
        sent = int(active[row])
        if len(ended[sent]) >= K:
            continue
        tokens = prefix[row, int(top_beam[row, col]), 1:].tolist()
        score = float(top_scores[row, col]) / length_penalty(length, alpha)
        ended[sent].append(Hypothesis(tokens=tokens, score=score))


@torch.inference_mode()
def capture_attention(model: Transformer, src_ids: list[int], out_ids: list[int]) -> AttentionWeights:
    """Attention of every layer and head behind one translation.

    Re-runs the decoder teacher-forced on the model's own output (BOS + out_ids): in eval mode
    this gives exactly the weights of the step-by-step decoding that produced it, in one pass.
    Returns tensors with B = 1: encoder (1, H, S, S), decoder (1, H, T, T), cross (1, H, T, S),
    where S counts the source pieces + EOS and T the output pieces + EOS.
    """
    device = next(model.parameters()).device
    batch = Batch.make([src_ids], [out_ids], device=device)
    attention = AttentionWeights()
    memory = model.encode(batch.src, batch.src_mask, attention=attention)
    model.decode(batch.tgt_in, memory, batch.src_mask, batch.tgt_mask, attention=attention)
    return attention
