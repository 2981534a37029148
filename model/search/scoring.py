"""The one scorer: what the model says of given outputs, by teacher forcing.

``piece_logp`` turns logits into the log-probabilities every search and every score uses.
``teacher_force`` runs the decoder over given outputs (BOS + output, one pass per batch), which in
eval mode gives exactly the log-probabilities of the step-by-step decoding that would write them;
``cross_attention`` the same pass's cross-attention, and ``capture_attention`` all of one
sentence's attention. Word confidences (``model.inference.explain``), word alignment
(``model.inference.alignment``) and the attention view read them.

Shapes as in ``model/network/attention.py``: S source pieces + EOS, T output pieces + EOS.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from model.network.batch import Batch, padding_mask
from model.network.tokenizer import BOS_ID, PAD_ID
from model.network.transformer import AttentionWeights, Transformer
from model.search.options import DEFAULT


def piece_logp(logits: Tensor) -> Tensor:
    """(..., V) logits -> (..., V) log-probabilities over the pieces an output may contain.

    PAD and BOS are only ever inputs: they get -inf *before* normalizing, so the other pieces'
    probabilities sum to one. This is what CTranslate2 does, so that both engines give the same
    scores (up to float error) and hence the same beams and n-best lists. Every search and every
    teacher-forced score uses this one function, so a hypothesis's beam score is its forced score.
    """
    out = logits.float()
    out = out.clone() if out is logits else out  # the caller's logits stay as they are
    # Two scalar fills, not an index tensor: this runs every search step, and building a tensor
    # from a Python list would copy it from the host to the GPU each time.
    out[..., PAD_ID] = float("-inf")
    out[..., BOS_ID] = float("-inf")
    return out.log_softmax(dim=-1)

@dataclass
class Forced:
    """What the model says of one given output."""

    logprobs: list[float]      # log P(piece | source, pieces before it) per output piece, EOS not included
    eos: float = 0.0           # log P(EOS | source, whole output): with sum(logprobs), log P(output | source)


def encode_distinct(model: Transformer, batch: Batch, attention: AttentionWeights | None = None) -> Tensor:
    """(B, S, D) memory, each distinct source row encoded once (``attention`` records the encoder
    self-attention of those distinct rows): the translation inspector searches and scores one
    source with several outputs (``model/inference/explain.py``)."""
    distinct, inverse = torch.unique(batch.src, dim=0, return_inverse=True)  # (U, S), (B,)
    if distinct.size(0) == batch.src.size(0):
        return model.encode(batch.src, batch.src_mask, attention=attention)
    return model.encode(distinct, padding_mask(distinct), attention=attention).index_select(0, inverse)


def _states(model: Transformer, batch: Batch, attention: AttentionWeights | None = None, *,
            encoder_weights: bool = True) -> Tensor:
    """(B, T, D) final decoder states of the teacher-forced pass; ``attention`` records the
    weights (the encoder's too, unless ``encoder_weights`` is False)."""
    memory = encode_distinct(model, batch, attention if encoder_weights else None)
    return model.decode_states(batch.tgt_in, memory, batch.src_mask, batch.tgt_mask, attention=attention)


def _forward(model: Transformer, batch: Batch, attention: AttentionWeights | None) -> Tensor:
    """(B, T, V) logits of the teacher-forced pass; ``attention`` records the weights."""
    return model.project(_states(model, batch, attention))


def _forced_batches(model: Transformer, src_ids: Sequence[Sequence[int]], out_ids: Sequence[Sequence[int]],
                   batch_size: int) -> Iterator[tuple[list[int], Batch]]:
    """The (source, output) pairs as teacher-forced batches of at most ``batch_size`` on the
    model's device: (the pairs' indices, their Batch), sources of similar length together (less
    padding)."""
    if len(src_ids) != len(out_ids):
        raise ValueError(f"{len(src_ids)!r} sources but {len(out_ids)!r} outputs")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size!r}")
    device = next(model.parameters()).device
    order = sorted(range(len(src_ids)), key=lambda i: -len(src_ids[i]))
    for k in range(0, len(order), batch_size):
        chunk = order[k:k + batch_size]
        yield chunk, Batch.make([src_ids[i] for i in chunk], [out_ids[i] for i in chunk], device=device)


@torch.inference_mode()
def teacher_force(model: Transformer, src_ids: Sequence[Sequence[int]], out_ids: Sequence[Sequence[int]], *,
                  batch_size: int = DEFAULT.batch_size) -> list[Forced]:
    """Per (source, output) pair the log-probability of each output piece and of the EOS after
    them."""
    result: list[Forced] = [Forced([])] * len(src_ids)
    for chunk, batch in _forced_batches(model, src_ids, out_ids, batch_size):
        logp = piece_logp(_forward(model, batch, None)).gather(2, batch.tgt_out[:, :, None]).squeeze(2)  # (B, T)
        for row, i in enumerate(chunk):
            t = len(out_ids[i])
            values = logp[row, :t + 1].tolist()  # the output's pieces, then its EOS
            result[i] = Forced(values[:t], values[t])
    return result


@torch.inference_mode()
def cross_attention(model: Transformer, src_ids: Sequence[Sequence[int]], out_ids: Sequence[Sequence[int]], *,
                    batch_size: int = DEFAULT.batch_size) -> list[Tensor]:
    """The cross-attention behind each (source, output) pair, as teacher forcing reads it: per pair
    a float CPU tensor (L, H, T + 1, S + 1): decoder layer, head, output piece (the row of a piece
    is the step that produced it; the last row produced EOS), source piece (the last column is the
    source EOS). Word alignment needs nothing else, so the pass stops at the decoder's states: no
    output projection and softmax, (B, T, V) floats each, and the encoder runs its fused attention
    (docs/journal/memory.md, "Alignment without the logits")."""
    result: list[Tensor] = [torch.empty(0)] * len(src_ids)
    for chunk, batch in _forced_batches(model, src_ids, out_ids, batch_size):
        weights = AttentionWeights()
        _states(model, batch, weights, encoder_weights=False)
        stacked = torch.stack(weights.cross, dim=1).float().cpu()  # (B, L, H, T, S)
        for row, i in enumerate(chunk):
            t, s = len(out_ids[i]), len(src_ids[i])
            result[i] = stacked[row, :, :, :t + 1, :s + 1].clone()
    return result


@torch.inference_mode()
def next_piece_logp(model: Transformer, src_ids: Sequence[Sequence[int]], prefixes: Sequence[Sequence[int]]) -> Tensor:
    """(N, V) log-probabilities of the piece after each output prefix (output piece ids, BOS not
    included) for its source: the teacher-forced pass over the prefix, read at its end."""
    if len(src_ids) != len(prefixes):
        raise ValueError(f"{len(src_ids)!r} sources but {len(prefixes)!r} prefixes")
    device = next(model.parameters()).device
    batch = Batch.make([list(s) for s in src_ids], [list(p) for p in prefixes], device=device)
    states = _states(model, batch)  # (N, T, D)
    ends = torch.tensor([len(p) for p in prefixes], device=device)  # row i's position len(prefix) follows it
    return piece_logp(model.project(states[torch.arange(len(prefixes), device=device), ends])).cpu()  # (N, V)


@torch.inference_mode()
def capture_attention(model: Transformer, src_ids: list[int], out_ids: list[int]) -> AttentionWeights:
    """Attention of every layer and head behind one translation (the teacher-forced pass of
    ``teacher_force`` for one sentence, its encoder self-attention recorded too). Tensors with
    B = 1: encoder (1, H, S, S), decoder (1, H, T, T), cross (1, H, T, S)."""
    attention = AttentionWeights()
    _forward(model, Batch.make([src_ids], [out_ids], device=next(model.parameters()).device), attention)
    return attention
