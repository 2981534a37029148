"""The converter: a checkpoint as a CTranslate2 model (the CT2 engine's format, see
``model.inference.ct2_engine``), in memory (``model_files``) or as a directory (``export``; the
command is ``python -m commands.export_ct2``).

``export`` writes OUT_DIR with CTranslate2's files: model.bin (weights), config.json and
shared_vocabulary.json (our SentencePiece pieces in id order, so piece ids are the same in both
engines). OUT_DIR is built beside itself under a temporary name and renamed into place: a crash
leaves no half-written model. An existing OUT_DIR is refused unless ``force`` is given, and even
then only a CTranslate2 model directory (one holding model.bin) or an empty directory is replaced.

--quantization int8 (the default) stores int8 weights with one float32 scale per output row, as
CTranslate2's own int8 does, but in [-63, 63] (``quantize_int8`` says why); float32 stores the
weights as they are (fp16 checkpoints are exact in float32).

How our model maps onto ``ctranslate2.specs.TransformerSpec``:

- pre-norm layers with a final LayerNorm after each stack, or post-norm layers without one
  (``ModelConfig.pre_norm``); LayerNorm epsilon 1e-5 (torch's default; CT2's own is 1e-6);
- ReLU feed-forward; self-attention's fused QKV projection and cross-attention's fused K/V
  projection are CT2's fused layouts as they are (q, k, v and k, v order);
- one embedding matrix for source, target and the output projection (CT2 aliases the copies, so
  it is stored once), scaled by sqrt(d_model) on input as in ``Transformer._embed``;
- positions: our sinusoid table, given explicitly. CT2's built-in sinusoids put all sines before
  all cosines, ours interleave them (sin, cos, sin, ...), so the built-in table would be wrong;
- the source gets EOS appended by CT2 (``add_source_eos``), the target starts from BOS;
- the attention CT2 returns (``return_attention``) is the cross-attention of decoder layer
  ``alignment.single_layer``, averaged over all heads: what ``CT2Translator.align`` aligns by.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from model.network.tokenizer import Tokenizer
    from model.network.transformer import Transformer

QUANTIZATIONS = ("int8", "float32")
LAYER_NORM_EPSILON = 1e-5  # torch.nn.LayerNorm's default, which our layers use
MODEL_FILES = ("model.bin", "config.json", "shared_vocabulary.json")
INT8_LEVELS = 63  # int8 weights in [-63, 63]: see quantize_int8


def require_ctranslate2():
    """The ctranslate2 module, or a one-line ValueError naming the missing package."""
    try:
        import ctranslate2
    except ImportError:
        raise ValueError("the CTranslate2 engine needs the ctranslate2 package: pip install ctranslate2") from None
    return ctranslate2


def vocabulary(tokenizer: "Tokenizer") -> list[str]:
    """Our pieces in id order: CT2 maps piece strings to ids by their position in this list."""
    return tokenizer.pieces(range(tokenizer.vocab_size))


def build_spec(model: "Transformer", tokenizer: "Tokenizer"):
    """A validated ``TransformerSpec`` holding ``model``'s weights (float32 numpy arrays)."""
    require_ctranslate2()
    from ctranslate2.specs import common_spec, transformer_spec

    from model.inference.alignment import single_layer  # torch, which this module's import leaves out

    c = model.config
    if tokenizer.vocab_size != c.vocab_size:
        raise ValueError(f"tokenizer has {tokenizer.vocab_size!r} pieces but the model expects {c.vocab_size!r}")
    spec = transformer_spec.TransformerSpec.from_config(
        (c.encoder_layers, c.decoder_layers), c.n_heads, pre_norm=c.pre_norm,
        activation=common_spec.Activation.RELU,
        alignment_layer=single_layer(c.decoder_layers), alignment_heads=c.n_heads)
    # Copies: quantizing the spec rewrites its arrays in place, which must not reach the model.
    weights = {name: tensor.detach().float().cpu().numpy().copy() for name, tensor in model.state_dict().items()}
    positions = model.positions.table.detach().float().cpu().numpy().copy()
    for stack in (spec.encoder, spec.decoder):
        embeddings = stack.embeddings[0] if isinstance(stack.embeddings, list) else stack.embeddings
        embeddings.weight = weights["embed.weight"]
        stack.scale_embeddings = True  # times sqrt(d_model), as Transformer._embed does
        stack.position_encodings.encodings = positions
    for i, layer in enumerate(spec.encoder.layer):
        p = f"encoder.{i}."
        _attention(layer.self_attention, weights, p + "self_attn.", p + "attn_block.norm.", fused=1)
        _ffn(layer.ffn, weights, p)
    for i, layer in enumerate(spec.decoder.layer):
        p = f"decoder.{i}."
        _attention(layer.self_attention, weights, p + "self_attn.", p + "self_block.norm.", fused=1)
        _attention(layer.attention, weights, p + "cross_attn.", p + "cross_block.norm.", fused=2)
        _ffn(layer.ffn, weights, p)
    if c.pre_norm:
        _norm(spec.encoder.layer_norm, weights, "encoder_norm.")
        _norm(spec.decoder.layer_norm, weights, "decoder_norm.")
    spec.decoder.projection.weight = weights["embed.weight"]  # tied; no bias
    spec.register_source_vocabulary(vocabulary(tokenizer))
    spec.register_target_vocabulary(vocabulary(tokenizer))
    config = spec.config
    config.layer_norm_epsilon = LAYER_NORM_EPSILON
    config.add_source_eos = True
    config.decoder_start_token = "<s>"
    spec.validate()
    return spec


def _attention(spec, weights: dict, prefix: str, norm: str, fused: int) -> None:
    """fused=1: self-attention, one (3D, D) QKV projection; fused=2: cross-attention, Q then (2D, D) K/V."""
    names = ["qkv", "out"] if fused == 1 else ["q", "kv", "out"]
    for linear, name in zip(spec.linear, names):
        _linear(linear, weights, f"{prefix}{name}.")
    _norm(spec.layer_norm, weights, norm)


def _ffn(spec, weights: dict, prefix: str) -> None:
    _linear(spec.linear_0, weights, prefix + "ffn.w1.")
    _linear(spec.linear_1, weights, prefix + "ffn.w2.")
    _norm(spec.layer_norm, weights, prefix + "ffn_block.norm.")


def _linear(spec, weights: dict, prefix: str) -> None:
    spec.weight = weights[prefix + "weight"]  # (out, in), as CT2 expects
    spec.bias = weights[prefix + "bias"]


def _norm(spec, weights: dict, prefix: str) -> None:
    spec.gamma = weights[prefix + "weight"]
    spec.beta = weights[prefix + "bias"]


def check_quantization(quantization: str) -> None:
    if quantization not in QUANTIZATIONS:
        raise ValueError(f"quantization must be one of {', '.join(QUANTIZATIONS)}, got {quantization!r}")


def quantize_int8(spec, levels: int = INT8_LEVELS) -> None:
    """Every weight CT2 can quantize (linear and embedding matrices) to int8 in [-levels, levels],
    with one float32 scale per row, in place; CT2's own int8 (``spec.optimize("int8")``) uses 127.

    Why 63: on x86 CPUs without VNNI (AVX2 only, like this machine's), CT2's int8 matrix product
    (oneDNN, unsigned 8-bit activations times signed 8-bit weights, vpmaddubsw) adds products in
    pairs into saturating 16-bit integers, and 255 * 127 * 2 exceeds them; with 7-bit weights it
    cannot. Measured with the release model, Tatoeba test, beam 4 through the text pipeline:
    float32 48.16 BLEU, 8-bit weights 47.83, 7-bit weights 48.09; simulated in PyTorch without
    saturation, 8-bit weights and activations give 48.10, so 7 bits cost nothing measurable."""
    import numpy as np
    from ctranslate2.specs.model_spec import NumpyVariable, visit_spec

    def quantize(layer, name: str, value) -> None:
        key = name.split("/")[-1]
        if isinstance(value, str) or value.is_scalar() or not hasattr(layer, key + "_scale"):
            return  # an alias of another variable, a flag, or not a matrix CT2 quantizes
        weight = value.numpy().astype(np.float32)
        amax = np.abs(weight).max(axis=1)
        amax[amax == 0] = 1.0
        scale = (levels / amax).astype(np.float32)
        setattr(layer, key, NumpyVariable(np.rint(weight * scale[:, None]).astype(np.int8)))
        setattr(layer, key + "_scale", NumpyVariable(scale))

    visit_spec(spec, quantize)


def model_files(model: "Transformer", tokenizer: "Tokenizer", quantization: str = "int8") -> dict[str, bytes]:
    """The CT2 model's files in memory (``ctranslate2.Translator(..., files=...)`` loads them).

    The spec serializes only to a directory, so it is written to a temporary one and read back."""
    check_quantization(quantization)
    spec = build_spec(model, tokenizer)
    spec.optimize(quantization="float32")  # aliases the tied embedding copies to one variable
    if quantization == "int8":
        quantize_int8(spec)
    with tempfile.TemporaryDirectory(prefix="ct2-export-") as tmp:
        spec.save(tmp)
        return {name: (Path(tmp) / name).read_bytes() for name in sorted(os.listdir(tmp))}


def _check_out_dir(out: Path, force: bool) -> None:
    if not out.exists():
        if not out.parent.is_dir():
            raise ValueError(f"cannot write {str(out)!r}: its parent directory does not exist")
        return
    if not out.is_dir():
        raise ValueError(f"{str(out)!r} exists and is not a directory")
    if not force:
        raise ValueError(f"{str(out)!r} already exists; use --force to replace it")
    if any(out.iterdir()) and not (out / "model.bin").is_file():
        raise ValueError(f"{str(out)!r} is not a CTranslate2 model directory (no model.bin): refusing to replace it")


def export(checkpoint: str | Path, out_dir: str | Path, *, quantization: str = "int8", force: bool = False) -> Path:
    """Write the CT2 model of ``checkpoint`` to ``out_dir`` atomically (see the module docstring)."""
    from model.network.checkpoint import load_checkpoint

    check_quantization(quantization)
    out = Path(out_dir)
    _check_out_dir(out, force)
    model, tokenizer, _ = load_checkpoint(checkpoint)
    files = model_files(model, tokenizer, quantization)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    old = None
    try:
        for name, data in files.items():
            with open(tmp / name, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700 directories
        if out.exists():  # replaced only after the new model is complete
            old = out.with_name(f".{out.name}.{os.getpid()}.old")
            os.replace(out, old)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and not out.exists():
            os.replace(old, out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return out


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
