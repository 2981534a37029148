"""model.network.deepening: new encoder layers that start as the identity."""

from __future__ import annotations

import pytest
import torch

from model.network.batch import padding_mask, target_mask
from model.network.checkpoint import CheckpointError, half_weights
from model.network.config import ModelConfig
from model.network.deepening import IDENTITY_ZEROS, deepen_encoder
from model.network.transformer import Transformer

CFG = ModelConfig(vocab_size=40, d_model=32, n_heads=4, d_ff=64, encoder_layers=2, decoder_layers=1, max_len=32)


def checkpoint(config: ModelConfig = CFG, half: bool = False) -> dict:
    torch.manual_seed(3)
    model = Transformer(config)
    state = model.state_dict()
    return {"format": "de-en-nmt/1", "config": config.to_dict(), "tokenizer": b"sp-model",
            "model": half_weights(state) if half else state, "meta": {"step": 700},
            "lexicon": b"Hund", "train_state": {"step": 700}}


def rebuilt(ckpt: dict) -> Transformer:
    config = ModelConfig.from_dict(ckpt["config"])
    model = Transformer(config)
    model.load_state_dict({k: v.float() for k, v in ckpt["model"].items()})
    return model.eval()


def logits(model: Transformer) -> torch.Tensor:
    src = torch.tensor([[5, 6, 7, 8, 2], [9, 10, 2, 0, 0]])
    tgt = torch.tensor([[1, 11, 12, 13], [1, 14, 15, 0]])
    with torch.no_grad():
        return model(src, padding_mask(src), tgt, target_mask(tgt))


@pytest.mark.parametrize("half", [False, True], ids=["fp32", "fp16"])
def test_the_deeper_model_translates_as_the_trained_one(half):
    ckpt = checkpoint(half=half)
    deeper = deepen_encoder(ckpt, 5)
    assert deeper["config"] == CFG.replace(encoder_layers=5).to_dict()
    model = rebuilt(deeper)
    assert len(model.encoder) == 5
    torch.testing.assert_close(logits(model), logits(rebuilt(ckpt)), rtol=0, atol=1e-5)
    for name, value in deeper["model"].items():
        assert value.dtype == (torch.float16 if half else torch.float32), name
    for layer in (2, 3, 4):
        for name in IDENTITY_ZEROS:
            assert not deeper["model"][f"encoder.{layer}.{name}"].any()
        assert deeper["model"][f"encoder.{layer}.self_attn.qkv.weight"].abs().sum() > 0, "not a dead layer"
    for name, value in ckpt["model"].items():
        assert torch.equal(deeper["model"][name], value), f"{name} is the trained one's"


def test_the_new_layers_learn():
    """Zero output maps still get a gradient: the layer's input projections are not zero."""
    model = rebuilt(deepen_encoder(checkpoint(), 3)).train()
    src = torch.tensor([[5, 6, 7, 2]])
    tgt = torch.tensor([[1, 11, 12]])
    model(src, padding_mask(src), tgt, target_mask(tgt)).logsumexp(-1).sum().backward()
    assert model.encoder[2].self_attn.out.weight.grad.abs().sum() > 0
    assert model.encoder[2].ffn.w2.weight.grad.abs().sum() > 0


def test_what_is_kept_and_what_is_dropped():
    deeper = deepen_encoder(checkpoint(), 4)
    assert deeper["tokenizer"] == b"sp-model" and deeper["lexicon"] == b"Hund"
    assert deeper["meta"] == {"step": 700, "deepened_from": {"encoder_layers": 2, "step": 700}}
    assert "train_state" not in deeper, "the optimizer's moments do not fit the new shape"
    assert list(deeper["model"]) == list(Transformer(CFG.replace(encoder_layers=4)).state_dict())


def test_the_new_layers_depend_on_the_seed_only():
    a, b, c = (deepen_encoder(checkpoint(), 3, seed=s)["model"] for s in (1, 1, 2))
    name = "encoder.2.ffn.w1.weight"
    assert torch.equal(a[name], b[name]) and not torch.equal(a[name], c[name])


@pytest.mark.parametrize("layers, message", [
    (2, "encoder_layers must be an integer above the checkpoint's 2, got 2"),
    (1, "encoder_layers must be an integer above the checkpoint's 2, got 1"),
    (True, "encoder_layers must be an integer above the checkpoint's 2, got True"),
    ("4", "encoder_layers must be an integer above the checkpoint's 2, got '4'"),
])
def test_bad_depths(layers, message):
    with pytest.raises(ValueError) as info:
        deepen_encoder(checkpoint(), layers)
    assert str(info.value) == message


def test_post_norm_is_refused():
    with pytest.raises(CheckpointError) as info:
        deepen_encoder(checkpoint(CFG.replace(pre_norm=False)), 3)
    assert str(info.value) == ("cannot deepen a post-norm model: a post-norm layer ends on a LayerNorm, so no "
                               "choice of its weights makes it the identity")
