"""Deepening a trained encoder: new layers on top of it that start as the identity.

A pre-norm layer computes ``x + Sublayer(LayerNorm(x))``; with its attention's output projection
and its feed-forward network's second linear layer at zero, both sublayers add nothing, so the
layer passes its input through unchanged. Stacking such layers on the trained encoder (before its
final LayerNorm) gives a deeper model that translates exactly as the trained one did, from which
training goes on (``train.py --init``) with the extra capacity where decoding does not pay for it:
the encoder runs once per sentence, the decoder once per output token (Kasai et al. 2021, "Deep
Encoder, Shallow Decoder"; the identity start as in Bapna et al. 2018 and progressive stacking,
Gong et al. 2019). The command is ``python -m commands.deepen``.
"""

from __future__ import annotations

from typing import Any

import torch

from model.network.checkpoint import CheckpointError
from model.network.config import ModelConfig
from model.network.transformer import Transformer

# The last linear map of each sublayer of an encoder layer: zero, the layer is the identity.
IDENTITY_ZEROS = ("self_attn.out.weight", "self_attn.out.bias", "ffn.w2.weight", "ffn.w2.bias")


def deepen_encoder(ckpt: dict[str, Any], encoder_layers: int, seed: int = 1) -> dict[str, Any]:
    """The checkpoint dict ``ckpt`` (as read by ``read_checkpoint``) with ``encoder_layers``
    encoder layers: its own first, then new ones that start as the identity (their other weights
    initialised as a new model's, with ``seed``). Tokenizer, lexicon and metadata are kept, the
    metadata with ``deepened_from`` added; a ``train_state`` is dropped (the optimizer's moments
    do not fit the new shape)."""
    config = ModelConfig.from_dict(ckpt["config"])
    if not config.pre_norm:
        raise CheckpointError("cannot deepen a post-norm model: a post-norm layer ends on a LayerNorm, "
                              "so no choice of its weights makes it the identity")
    if isinstance(encoder_layers, bool) or not isinstance(encoder_layers, int) or encoder_layers <= config.encoder_layers:
        raise ValueError(f"encoder_layers must be an integer above the checkpoint's {config.encoder_layers}, "
                         f"got {encoder_layers!r}")
    deeper = config.replace(encoder_layers=encoder_layers)
    torch.manual_seed(seed)
    fresh = Transformer(deeper).state_dict()
    dtype = ckpt["model"]["embed.weight"].dtype  # fp16 stays fp16
    state = dict(ckpt["model"])
    for layer in range(config.encoder_layers, encoder_layers):
        prefix = f"encoder.{layer}."
        for name, value in fresh.items():
            if name.startswith(prefix):
                if name[len(prefix):] in IDENTITY_ZEROS:
                    value = torch.zeros_like(value)
                state[name] = value.to(dtype) if value.is_floating_point() else value
    order = list(fresh)  # the new model's own order of tensors
    meta = dict(ckpt["meta"], deepened_from={"encoder_layers": config.encoder_layers,
                                              "step": ckpt["meta"].get("step")})
    kept = {k: v for k, v in ckpt.items() if k not in ("model", "config", "meta", "train_state")}
    return kept | {"config": deeper.to_dict(), "model": {k: state[k] for k in order}, "meta": meta}
