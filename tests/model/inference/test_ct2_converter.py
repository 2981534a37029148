"""model.inference.ct2_converter: the checkpoint as a CTranslate2 model, computing our log-probabilities."""

from __future__ import annotations

import json
import sys

import pytest
import torch

pytest.importorskip("ctranslate2")

import ctranslate2  # noqa: E402

from model.inference import ct2_converter  # noqa: E402
from model.network.batch import Batch  # noqa: E402
from model.network.checkpoint import load_checkpoint  # noqa: E402
from model.network.config import PRESETS  # noqa: E402
from model.network.transformer import Transformer  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tiny_checkpoint):
    model, tokenizer, _ = load_checkpoint(tiny_checkpoint)
    return model, tokenizer


def random_model(tokenizer, pre_norm: bool) -> Transformer:
    """Untrained weights with every parameter (norms and biases too) far from its initial value."""
    torch.manual_seed(0)
    model = Transformer(PRESETS["tiny"].replace(vocab_size=tokenizer.vocab_size, pre_norm=pre_norm)).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return model


def ct2_log_probs(model, tokenizer, src_ids, tgt_ids, quantization="float32") -> list[float]:
    files = ct2_converter.model_files(model, tokenizer, quantization)
    ct2 = ctranslate2.Translator("test", files=files, compute_type=quantization)
    return ct2.score_batch([tokenizer.pieces(src_ids)], [tokenizer.pieces(tgt_ids)])[0].log_probs


def torch_log_probs(model, src_ids, tgt_ids) -> list[float]:
    batch = Batch.make([src_ids], [tgt_ids])
    with torch.no_grad():
        logp = model(batch.src, batch.src_mask, batch.tgt_in, batch.tgt_mask).log_softmax(-1)[0]
    return [float(logp[i, t]) for i, t in enumerate(batch.tgt_out[0].tolist())]


@pytest.mark.parametrize("pre_norm", [True, False])
def test_ct2_computes_our_log_probabilities(tiny, pre_norm):
    """Teacher-forced log-probabilities of every target piece and EOS, pre-norm and post-norm: the
    layer mapping, embedding scale, position table, norms and tied projection are all right."""
    _, tokenizer = tiny
    model = random_model(tokenizer, pre_norm)
    src = tokenizer.encode("Wo ist der Bahnhof? Ich brauche Hilfe, vielen Dank.")
    tgt = tokenizer.encode("Where is the train station? I need help, thank you very much.")
    ours, theirs = torch_log_probs(model, src, tgt), ct2_log_probs(model, tokenizer, src, tgt)
    assert len(theirs) == len(tgt) + 1
    assert max(abs(a - b) for a, b in zip(ours, theirs)) < 1e-4


def test_ct2s_own_sinusoids_would_be_wrong(tiny, tmp_path):
    """Why the table is exported: CT2's built-in encodings (sines, then cosines) are not ours."""
    from ctranslate2.specs import model_spec

    model, tokenizer = tiny
    spec = ct2_converter.build_spec(model, tokenizer)
    assert (spec.encoder.position_encodings.encodings.numpy() == model.positions.table.numpy()).all()
    for stack in (spec.encoder, spec.decoder):
        stack.position_encodings.encodings = model_spec.OPTIONAL
    spec.optimize("float32")
    spec.save(str(tmp_path))
    ct2 = ctranslate2.Translator(str(tmp_path))
    src, tgt = tokenizer.encode("Vielen Dank."), tokenizer.encode("Thank you very much.")
    theirs = ct2.score_batch([tokenizer.pieces(src)], [tokenizer.pieces(tgt)])[0].log_probs
    assert max(abs(a - b) for a, b in zip(torch_log_probs(model, src, tgt), theirs)) > 0.01


def test_int8_export_leaves_the_model_untouched(tiny):
    """Quantizing rewrites the spec's arrays in place; they must be copies of the weights."""
    model, tokenizer = tiny
    before = {k: v.clone() for k, v in model.state_dict().items()}
    ct2_converter.model_files(model, tokenizer, "int8")
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_int8_weights_use_7_bits(tiny):
    """Every matrix CT2 quantizes, in [-63, 63] with per-row scales (AVX2 int8 overflows beyond)."""
    model, tokenizer = tiny
    spec = ct2_converter.build_spec(model, tokenizer)
    spec.optimize(quantization="float32")
    ct2_converter.quantize_int8(spec)
    matrices = {name: value for name, value in spec.variables().items()
                if not isinstance(value, str) and name.endswith("weight")}
    c = model.config
    d, v, f = c.d_model, c.vocab_size, c.d_ff
    # QKV, out, FFN in and out per encoder layer; the decoder's also cross Q, K/V, out; and the
    # embedding, stored once for the encoder, the decoder and the output projection
    assert len(matrices) == 4 * c.encoder_layers + 7 * c.decoder_layers + 1
    assert all(value.dtype == "int8" for value in matrices.values())
    embedding = spec.variables()["decoder/embeddings/weight"].numpy()
    assert embedding.shape == (v, d)
    for name, value in matrices.items():
        w = value.numpy()
        assert abs(int(w.min())) <= 63 and int(w.max()) <= 63
        scale = spec.variables()[name + "_scale"].numpy()
        assert scale.dtype.name == "float32" and scale.shape == (w.shape[0],)
    assert (abs(embedding.astype(int)).max(axis=1) == 63).sum() >= v - 1  # every row but PAD's
    w1 = spec.variables()["encoder/layer_0/ffn/linear_0/weight"].numpy()
    original = model.encoder[0].ffn.w1.weight.detach().numpy()
    restored = w1 / spec.variables()["encoder/layer_0/ffn/linear_0/weight_scale"].numpy()[:, None]
    assert w1.shape == (f, d) and abs(restored - original).max() <= abs(original).max() / 126 + 1e-6


def test_model_files_in_memory(tiny):
    model, tokenizer = tiny
    files = ct2_converter.model_files(model, tokenizer, "int8")
    assert sorted(files) == ["config.json", "model.bin", "shared_vocabulary.json"]
    assert json.loads(files["shared_vocabulary.json"]) == tokenizer.pieces(range(tokenizer.vocab_size))
    config = json.loads(files["config.json"])
    assert (config["add_source_eos"], config["add_source_bos"], config["decoder_start_token"]) == (True, False, "<s>")
    assert (config["bos_token"], config["eos_token"], config["unk_token"]) == ("<s>", "</s>", "<unk>")
    assert config["layer_norm_epsilon"] == 1e-5
    assert len(files["model.bin"]) < len(ct2_converter.model_files(model, tokenizer, "float32")["model.bin"]) / 2


def test_unknown_quantization(tiny):
    model, tokenizer = tiny
    with pytest.raises(ValueError) as info:
        ct2_converter.model_files(model, tokenizer, "int4")
    assert str(info.value) == "quantization must be one of int8, float32, got 'int4'"


def test_missing_ctranslate2_is_one_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "ctranslate2", None)  # import ctranslate2 -> ImportError
    with pytest.raises(ValueError) as info:
        ct2_converter.require_ctranslate2()
    assert str(info.value) == "the CTranslate2 engine needs the ctranslate2 package: pip install ctranslate2"
