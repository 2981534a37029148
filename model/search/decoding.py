"""Inference: greedy and beam search as free functions, plus attention capture.

Shapes follow the legend in ``model/network/attention.py``; K is the beam size.

Both searches encode once and, by default, decode incrementally with a key/value cache; with
``use_cache=False`` every step re-runs the decoder over the whole prefix (same result, slower;
kept for tests and benchmarks). Both take a ``SearchOptions`` (``model/search/options.py``); the
output length is capped per sentence at ``max_len_a * source_length + max_len_b`` tokens (as in
fairseq), and by the model's ``max_len``.

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

Three additions to ``beam_search`` for the translation inspector (``model/inference/explain.py``,
``model/search/beamtrace.py``), all off by default and leaving its results unchanged:

- ``prefix``: output pieces forced at the start of each sentence's hypotheses. A forced piece gets
  its model log-probability whatever the constraints above say (the caller chose it), so scores
  stay comparable with unforced hypotheses; the length budget grows to fit the prefix. The pieces
  that all sentences have forced are decoded in one teacher-forced pass before the search proper
  (``_prefill``; not with a recorder, so that a trace shows every step).
- ``banned``: output pieces a sentence's hypotheses may not produce after its forced prefix (a
  forced piece is produced whatever this says): a completion re-decoded without a word it wrote
  twice.
- ``recorder``: called once per step with a ``BeamStep`` (what was scored, kept, ended), so a trace
  of the search is the search itself rather than a re-implementation that could drift from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from model.network.batch import Batch
from model.search.options import DEFAULT, SearchOptions
from model.network.tokenizer import BOS_ID, EOS_ID, PAD_ID
from model.network.transformer import Transformer
from model.search.incremental import IncrementalDecoder
from model.search.scoring import encode_distinct


@dataclass
class Hypothesis:
    tokens: list[int]   # output piece ids, without BOS/EOS
    score: float        # log-probability / GNMT length penalty


@dataclass
class BeamStep:
    """One step of ``beam_search``, for a recorder. Row r is sentence ``sentences[r]``; each row has
    2K candidates, best first (K = beam size), some of them non-finite (not real hypotheses)."""

    t: int                                # 0-based: the candidates hold t + 1 output pieces
    sentences: list[int]                  # (Ba,) original sentence index of each row
    beam: Tensor                          # (Ba, 2K) beam slot each candidate extends
    token: Tensor                         # (Ba, 2K) the piece it adds
    logprob: Tensor                       # (Ba, 2K) cumulative log-probability
    ended: list[tuple[int, int, float]]   # (row, candidate, length-penalized score) that ended here
    kept: Tensor                          # (Ba, K) candidate filling each beam slot next (dead unless finite, not EOS)
    at_limit: Tensor                      # (Ba,) rows whose budget forced EOS at this step
    done: Tensor                          # (Ba,) rows that stop searching after this step


BeamRecorder = Callable[[BeamStep], None]


def max_lengths(src_mask: Tensor, search: SearchOptions, model_max_len: int) -> Tensor:
    """(B, 1, 1, S) -> (B,) output budget in tokens, EOS included."""
    src_len = src_mask.sum(dim=(1, 2, 3))  # (B,)
    limit = (src_len.float() * search.max_len_a + search.max_len_b).long()
    return limit.clamp(min=1, max=model_max_len - 1)


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


def _constrain(logp: Tensor, prefix: Tensor, at_limit: Tensor, min_len: int, no_repeat: int,
               ban: Tensor | None = None) -> Tensor:
    """Apply min_len, n-gram blocking, banned pieces and the length limit to one step's (R, V)
    log-probs.

    prefix: (R, t + 1) decoder input (BOS first); at_limit: (R,) rows whose next token must be EOS;
    ban: (R, V) True for pieces a row may not produce, or None. Rows at their limit, or left with no
    finite candidate, may only end, with EOS's own log-prob."""
    eos = logp[:, EOS_ID].clone()  # (R,)
    _forbid_eos(logp, prefix.size(1) - 1, min_len)
    if no_repeat:
        _block_ngrams(prefix[:, 1:], logp, no_repeat)
    if ban is not None:
        logp.masked_fill_(ban, float("-inf"))
    only_eos = at_limit | ~torch.isfinite(logp).any(dim=-1)  # (R,)
    if bool(only_eos.any()):
        logp[only_eos] = float("-inf")
        logp[only_eos, EOS_ID] = eos[only_eos]
    return logp


def _forced_pieces(prefix: Sequence[Sequence[int]] | None, B: int, V: int, device) -> Tensor | None:
    """(B, P) forced pieces per sentence, -1 past each one's prefix; None without any."""
    if prefix is None or not any(len(p) for p in prefix):
        return None
    if len(prefix) != B:
        raise ValueError(f"prefix needs one list of pieces per sentence ({B!r}), got {len(prefix)!r}")
    _check_pieces("prefix", prefix, V)
    forced = torch.full((B, max(len(p) for p in prefix)), -1, dtype=torch.long)  # (B, P)
    for row, pieces in enumerate(prefix):
        forced[row, :len(pieces)] = torch.tensor(list(pieces), dtype=torch.long)
    return forced.to(device)


def _banned_pieces(banned: Sequence[Sequence[int]] | None, B: int, V: int, device) -> Tensor | None:
    """(B, V) True where a sentence may not produce a piece; None without any ban."""
    if banned is None or not any(len(b) for b in banned):
        return None
    if len(banned) != B:
        raise ValueError(f"banned needs one list of pieces per sentence ({B!r}), got {len(banned)!r}")
    _check_pieces("banned", banned, V)
    mask = torch.zeros((B, V), dtype=torch.bool)
    for row, pieces in enumerate(banned):
        mask[row, list(pieces)] = True
    return mask.to(device)


def _check_pieces(name: str, rows: Sequence[Sequence[int]], V: int) -> None:
    """Every piece an output id an output may hold: not PAD, BOS or EOS (ValueError naming ``name``)."""
    for pieces in rows:
        for piece in pieces:
            if isinstance(piece, bool) or not isinstance(piece, int) or not 0 <= piece < V \
                    or piece in (PAD_ID, BOS_ID, EOS_ID):
                raise ValueError(f"{name} pieces must be output ids in [0, {V!r}) other than PAD, BOS "
                                 f"and EOS, got {piece!r}")


def _force(logp: Tensor, forced: Tensor, t: int, model_logp: Tensor) -> None:
    """Rows whose prefix has a piece at step t may only produce it, at its model log-prob (in place).

    forced: (R, P) per row; model_logp: (R,) each row's log-prob of that piece before constraints."""
    if t >= forced.size(1):
        return
    rows = (forced[:, t] >= 0).nonzero().squeeze(1)  # (R',)
    if rows.numel():
        logp[rows] = float("-inf")
        logp[rows, forced[rows, t]] = model_logp[rows]


@torch.inference_mode()
def greedy_search(model: Transformer, batch: Batch, search: SearchOptions = DEFAULT, *,
                  use_cache: bool = True, check: Callable[[], None] | None = None) -> list[list[int]]:
    """Most probable allowed token at every step. Returns per sentence the output ids (no BOS/EOS).

    Sentences that have emitted EOS leave the batch, so no work is spent on them. Of ``search``,
    the length budget, ``min_len`` and ``no_repeat_ngram_size`` apply (see the module docstring);
    the beam's knobs do not. ``check``, where given, is called before every step: what it raises
    (a request's spent time budget) stops the search."""
    B = batch.src.size(0)
    device = batch.src.device
    limit = max_lengths(batch.src_mask, search, model.config.max_len)  # (B,)
    step = IncrementalDecoder(model, encode_distinct(model, batch), batch.src_mask, use_cache)
    prefix = torch.full((B, 1), BOS_ID, dtype=torch.long, device=device)  # (Ba, t + 1)
    active = torch.arange(B, device=device)  # original index of each row still decoding
    outputs: list[list[int]] = [[] for _ in range(B)]
    for t in range(int(limit.max())):
        if check is not None:
            check()
        logp = _constrain(step(prefix), prefix, limit[active] <= t + 1, search.min_len, search.no_repeat_ngram_size)
        next_tok = logp.argmax(dim=-1)  # (Ba,)
        prefix = torch.cat([prefix, next_tok[:, None]], dim=1)  # (Ba, t + 2)
        ended = next_tok == EOS_ID  # (Ba,)
        if bool(ended.any()):  # one sync per step; the ended rows then come over in two copies
            rows = ended.nonzero().squeeze(1)  # (E,)
            for sentence, tokens in zip(active[rows].tolist(), prefix[rows, 1:-1].tolist()):
                outputs[sentence] = tokens
            keep = (~ended).nonzero().squeeze(1)  # (Ba',)
            if keep.numel() == 0:
                break
            active, prefix = active[keep], prefix.index_select(0, keep)
            step.select(keep)
    return outputs


@torch.inference_mode()
def beam_search(
    model: Transformer,
    batch: Batch,
    search: SearchOptions,
    *,
    use_cache: bool = True,
    forced_prefix: Sequence[Sequence[int]] | None = None,
    banned: Sequence[Sequence[int]] | None = None,
    recorder: BeamRecorder | None = None,
    check: Callable[[], None] | None = None,
) -> list[list[Hypothesis]]:
    """Batched beam search of ``search.beam_size`` beams. Returns for every sentence its
    ``search.n_best`` hypotheses, best first.

    A hypothesis ends when it emits EOS; a sentence is done once it holds ``beam_size`` ended
    hypotheses (fairseq's rule), and done sentences leave the batch so no work is spent on them.
    ``min_len`` and ``no_repeat_ngram_size``: see the module docstring; ``forced_prefix`` (output
    pieces each sentence must start with), ``banned`` (pieces each sentence may not produce
    otherwise) and ``recorder``: its last section. ``check``: as ``greedy_search``'s.
    """
    B, K = batch.src.size(0), search.beam_size
    device = batch.src.device
    limit = max_lengths(batch.src_mask, search, model.config.max_len)  # (B,)
    forced = _forced_pieces(forced_prefix, B, model.config.vocab_size, device)  # (B, P) or None
    ban = _banned_pieces(banned, B, model.config.vocab_size, device)  # (B, V) or None
    if forced is not None:
        limit = _prefix_limit(limit, forced, search.max_len_b, model.config.max_len)
    step = IncrementalDecoder(model, encode_distinct(model, batch), batch.src_mask, use_cache)
    # Only the first beam is live at the start, or the K beams would be K copies of one.
    scores = torch.full((B, K), float("-inf"), device=device)  # (B, K) sum of log-probs
    # prefix: (B, start + 1) decoder input after the forced pieces all sentences share
    start, prefix, scores[:, 0] = _prefill(step, forced if recorder is None else None, B, device)
    expand = torch.arange(B, device=device).repeat_interleave(K)  # (B*K,)
    step.select(expand)
    prefix = prefix.index_select(0, expand)  # (B*K, start + 1)
    active = torch.arange(B, device=device)  # original index of each sentence still searching
    ended: list[list[Hypothesis]] = [[] for _ in range(B)]
    for t in range(start, int(limit.max())):
        if check is not None:
            check()
        Ba = active.numel()
        at_limit = limit[active] <= t + 1  # (Ba,)
        row_forced = None if forced is None else forced.index_select(0, active).repeat_interleave(K, dim=0)
        row_ban = None if ban is None else ban.index_select(0, active).repeat_interleave(K, dim=0)
        logp = _next_logp(step, prefix, at_limit.repeat_interleave(K), search.min_len, search.no_repeat_ngram_size,
                          row_forced, t, row_ban)
        V = logp.size(-1)
        cand = (scores[:, :, None] + logp.view(Ba, K, V)).view(Ba, K * V)  # (Ba, K*V)
        top_scores, top_idx = cand.topk(2 * K, dim=-1)  # (Ba, 2K): enough for K non-EOS continuations
        top_beam, top_tok = top_idx // V, top_idx % V  # (Ba, 2K)
        is_eos = (top_tok == EOS_ID) & torch.isfinite(top_scores)
        collected = _collect_ended(ended, active, prefix.view(Ba, K, -1), top_scores, top_beam, is_eos, t + 1,
                                   search)
        # Live continuations: the best K candidates that are not EOS.
        rank = torch.where(is_eos, float("inf"), torch.arange(2 * K, device=device, dtype=torch.float))
        keep = rank.argsort(dim=-1)[:, :K]  # (Ba, K)
        scores = top_scores.gather(1, keep).masked_fill(is_eos.gather(1, keep), float("-inf"))  # (Ba, K)
        beam_src = (top_beam.gather(1, keep) + torch.arange(Ba, device=device)[:, None] * K).view(-1)  # (Ba*K,)
        prefix = torch.cat([prefix.index_select(0, beam_src), top_tok.gather(1, keep).view(-1, 1)], dim=1)
        step.select(beam_src)
        full = torch.tensor([len(ended[i]) >= K for i in active.tolist()], device=device)  # (Ba,)
        # A sentence at its length limit has ended all its beams; one with no live beam has nothing left.
        still = ~(full | at_limit) & scores.isfinite().any(dim=-1)  # (Ba,)
        if recorder is not None:
            recorder(BeamStep(t, active.tolist(), top_beam, top_tok, top_scores, collected, keep, at_limit, ~still))
        if not bool(still.any()):
            break
        if not bool(still.all()):
            active, scores, prefix = _keep_sentences(still, active, scores, prefix, step, K)
    return [sorted(hyps, key=lambda h: -h.score)[:search.n_best] for hyps in ended]


def _keep_sentences(still: Tensor, active: Tensor, scores: Tensor, prefix: Tensor, step: IncrementalDecoder,
                    K: int) -> tuple[Tensor, Tensor, Tensor]:
    """Drop the sentences that are done: still (Ba,) says which stay; returns active (Ba',),
    scores (Ba', K) and prefix (Ba'*K, t), and reorders the stepper's rows."""
    rows = still.nonzero().squeeze(1)  # surviving sentences
    flat = (rows[:, None] * K + torch.arange(K, device=still.device)).view(-1)  # (Ba'*K,)
    step.select(flat)
    return active[rows], scores[rows], prefix.index_select(0, flat)


def _prefix_limit(limit: Tensor, forced: Tensor, max_len_b: int, model_max_len: int) -> Tensor:
    """(B,) budgets grown so that each forced prefix fits with room after it: at least its length
    + ``max_len_b`` tokens (EOS included), within the model's limit."""
    lengths = (forced >= 0).sum(dim=1)  # (B,)
    longest = int(lengths.max())
    if longest > model_max_len - 2:
        raise ValueError(f"a forced prefix has {longest!r} pieces, but the model's output takes at most "
                         f"{model_max_len - 2!r} before EOS")
    grown = torch.where(lengths > 0, torch.maximum(limit, lengths + max_len_b), limit)
    return grown.clamp(max=model_max_len - 1)


def _prefill(step: IncrementalDecoder, forced: Tensor | None, B: int, device) -> tuple[int, Tensor, Tensor]:
    """Decode the forced pieces that every sentence has at once, one row per sentence, teacher-forced.

    Forced steps leave one live beam of K, so stepping through them wastes K - 1 rows of work.
    Returns the steps done (``start``), the decoder input (B, start + 1) and each sentence's
    log-probability of those pieces (B,). The cache then holds all but the last input, which the
    first search step feeds, as ``IncrementalDecoder`` expects. Nothing to do without a cache (or a prefix)."""
    bos = torch.full((B, 1), BOS_ID, dtype=torch.long, device=device)  # (B, 1)
    start = 0 if forced is None or step.cache is None else int((forced >= 0).sum(dim=1).min())
    if start == 0:
        return 0, bos, torch.zeros(B, device=device)
    pieces = forced[:, :start]  # (B, start)
    tgt_in = torch.cat([bos, pieces[:, :-1]], dim=1)  # (B, start)
    logp = step.prefill(tgt_in).gather(2, pieces[:, :, None]).squeeze(2)  # (B, start)
    return start, torch.cat([bos, pieces], dim=1), logp.sum(dim=1)


def _next_logp(step: IncrementalDecoder, prefix: Tensor, at_limit: Tensor, min_len: int, no_repeat: int,
               forced: Tensor | None, t: int, ban: Tensor | None = None) -> Tensor:
    """The (R, V) log-probs of step t, constrained (``_constrain``), banned pieces out, forced
    pieces pinned (``_force``).

    prefix: (R, t + 1) decoder input; forced: (R, P) or None; ban: (R, V) bool or None."""
    logp = step(prefix)
    own = None
    if forced is not None and t < forced.size(1):
        own = logp.gather(1, forced[:, t:t + 1].clamp(min=0)).squeeze(1)  # (R,) before constraints
    logp = _constrain(logp, prefix, at_limit, min_len, no_repeat, ban)
    if own is not None:
        _force(logp, forced, t, own)
    return logp


def _collect_ended(ended, active, prefix, top_scores, top_beam, is_eos, length,
                   search: SearchOptions) -> list[tuple[int, int, float]]:
    """Move every EOS candidate among the top K of its sentence into ``ended``; returns them as
    (row, candidate, score) for a recorder."""
    K = search.beam_size
    found = is_eos[:, :K].nonzero()  # (E, 2): (row, candidate)
    if found.numel() == 0:
        return []
    rows, cols = found[:, 0], found[:, 1]
    # One copy each instead of one per ended hypothesis (each a device sync on a GPU).
    sentences = active[rows].tolist()
    tokens = prefix[rows, top_beam[rows, cols], 1:].tolist()
    penalty = search.penalty(length)  # a Python float: scores divide in double precision
    scores = [score / penalty for score in top_scores[rows, cols].tolist()]
    collected = []
    for row, col, sent, toks, score in zip(rows.tolist(), cols.tolist(), sentences, tokens, scores):
        if len(ended[sent]) >= K:
            continue
        ended[sent].append(Hypothesis(tokens=toks, score=score))
        collected.append((row, col, score))
    return collected
