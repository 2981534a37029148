"""Checkpoint files: round trip, safe loading, clear one-line refusals."""

from __future__ import annotations

import collections
import os
import re

import pytest
import torch

from model.network.checkpoint import CheckpointError, atomic_save, load_checkpoint, read_checkpoint, save_checkpoint
from model.network.config import ModelConfig
from model.network.tokenizer import Tokenizer
from model.network.transformer import Transformer

CFG = ModelConfig(vocab_size=50, d_model=32, n_heads=4, d_ff=64, encoder_layers=1, decoder_layers=1, max_len=32)


class Evil:
    """Unpickling this would run code; weights_only loading must refuse it."""

    def __reduce__(self):
        return (os.system, ("echo pwned",))


@pytest.fixture(scope="module")
def tokenizer(pairs40) -> Tokenizer:
    return Tokenizer.train([s for p in pairs40 for s in p], 1000)


@pytest.fixture
def saved(tmp_path, tokenizer):
    torch.manual_seed(0)
    model = Transformer(CFG.replace(vocab_size=tokenizer.vocab_size))
    path = tmp_path / "m.pt"
    save_checkpoint(path, model, tokenizer, {"step": 7, "note": "x"})
    return path, model


def test_round_trip(saved, tokenizer):
    path, model = saved
    loaded, tok, meta = load_checkpoint(path)
    assert loaded.config == model.config
    assert meta == {"step": 7, "note": "x"}
    assert tok.proto == tokenizer.proto
    for (k, a), (_, b) in zip(model.state_dict().items(), loaded.state_dict().items()):
        assert torch.equal(a, b), k
    assert not loaded.training
    raw = torch.load(path, weights_only=True)
    assert set(raw) == {"format", "config", "model", "tokenizer", "meta"}


def test_checkpoints_with_one_sentencepiece_model_share_its_tokenizer(tmp_path, saved, tokenizer):
    """Two models of one joint vocabulary (German->English and its reverse, served side by side)
    hold one Tokenizer between them; another vocabulary gets its own."""
    other = tmp_path / "other.pt"
    save_checkpoint(other, saved[1], tokenizer, {"direction": "en-de"})
    assert load_checkpoint(saved[0])[1] is load_checkpoint(other)[1]
    smaller = Tokenizer.train(["Guten Morgen.", "Good morning.", "Wo ist der Bahnhof?"] * 20, 40)
    assert smaller.proto != tokenizer.proto
    third = tmp_path / "third.pt"
    save_checkpoint(third, Transformer(CFG.replace(vocab_size=smaller.vocab_size)), smaller, {})
    assert load_checkpoint(third)[1] is not load_checkpoint(saved[0])[1]


def test_lexicon_is_stored_only_when_given(tmp_path, saved, tokenizer):
    assert "lexicon" not in read_checkpoint(saved[0])
    path = tmp_path / "lex.pt"
    save_checkpoint(path, saved[1], tokenizer, {}, lexicon=b"x")
    assert read_checkpoint(path)["lexicon"] == b"x"


def test_half_precision_loads_as_fp32(tmp_path, tokenizer):
    model = Transformer(CFG.replace(vocab_size=tokenizer.vocab_size))
    path = tmp_path / "half.pt"
    save_checkpoint(path, model, tokenizer, {}, half=True)
    assert torch.load(path, weights_only=True)["model"]["embed.weight"].dtype == torch.float16
    loaded, _, _ = load_checkpoint(path)
    assert loaded.embed.weight.dtype == torch.float32
    torch.testing.assert_close(loaded.embed.weight, model.embed.weight, atol=1e-3, rtol=1e-3)


def test_atomic_save_leaves_no_temp_files(tmp_path):
    atomic_save({"a": 1}, tmp_path / "x.pt")
    atomic_save({"a": 2}, tmp_path / "x.pt")
    assert os.listdir(tmp_path) == ["x.pt"]
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "x.pt").stat().st_mode & 0o777 == 0o666 & ~umask
    assert torch.load(tmp_path / "x.pt", weights_only=True) == {"a": 2}


def _truncated(tmp_path, saved):
    path = tmp_path / "cut.pt"
    path.write_bytes(saved[0].read_bytes()[:100])
    return path


def _text(tmp_path, saved):
    path = tmp_path / "notes.pt"
    path.write_text("just some text\n")
    return path


def _empty(tmp_path, saved):
    path = tmp_path / "empty.pt"
    path.write_bytes(b"")
    return path


def _pickled(tmp_path, saved):
    path = tmp_path / "evil.pt"
    torch.save({"format": "de-en-nmt/1", "payload": Evil()}, path)
    return path


class Sneaky(collections.OrderedDict):
    """An innocent-looking container class: still arbitrary code as far as the loader knows."""


def _ordered_dict_subclass(tmp_path, saved):
    path = tmp_path / "sneaky.pt"
    torch.save(Sneaky(a=1), path)
    return path


def _foreign(tmp_path, saved):
    path = tmp_path / "foreign.pt"
    torch.save({"state_dict": {}}, path)
    return path


def _incomplete(tmp_path, saved):
    path = tmp_path / "incomplete.pt"
    ckpt = torch.load(saved[0], weights_only=True)
    del ckpt["tokenizer"]
    torch.save(ckpt, path)
    return path


def _mismatched(tmp_path, saved):
    path = tmp_path / "mismatch.pt"
    ckpt = torch.load(saved[0], weights_only=True)
    ckpt["config"]["d_ff"] = 128
    torch.save(ckpt, path)
    return path


def _bad_lexicon(tmp_path, saved):
    path = tmp_path / "badlexicon.pt"
    ckpt = torch.load(saved[0], weights_only=True)
    ckpt["lexicon"] = "Katze"
    torch.save(ckpt, path)
    return path


def _bad_config(tmp_path, saved):
    path = tmp_path / "badcfg.pt"
    ckpt = torch.load(saved[0], weights_only=True)
    ckpt["config"]["n_heads"] = 5
    torch.save(ckpt, path)
    return path


@pytest.mark.parametrize("make, message", [
    (lambda tmp_path, saved: tmp_path / "missing.pt", "checkpoint not found: '{path}'"),
    (_truncated, "cannot load checkpoint '{path}': the file is truncated or corrupted"),
    (_text, "not a de-en-nmt checkpoint: '{path}' is not a file written by torch.save"),
    (_empty, "cannot load checkpoint '{path}': the file is empty"),
    (_pickled, "cannot load checkpoint '{path}': it contains pickled Python objects, which are refused for safety"),
    (_ordered_dict_subclass,
     "cannot load checkpoint '{path}': it contains pickled Python objects, which are refused for safety"),
    (_foreign, "not a de-en-nmt checkpoint: '{path}'"),
    (_incomplete, "checkpoint '{path}' lacks tokenizer"),
    (_mismatched, "checkpoint '{path}' does not match its config: "),
    (_bad_config, "checkpoint '{path}' is invalid: d_model 32 is not divisible by n_heads 5"),
    (_bad_lexicon, "checkpoint '{path}' is invalid: its lexicon is not bytes"),
])
def test_bad_files_give_one_line_errors(tmp_path, saved, make, message, capfd):
    path = make(tmp_path, saved)
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path)
    text = str(info.value)
    assert text.startswith(message.format(path=path))
    assert "\n" not in text
    assert "pwned" not in capfd.readouterr().out


def test_mismatch_names_the_tensor(tmp_path, saved):
    with pytest.raises(CheckpointError, match=re.escape("size mismatch for encoder.0.ffn.w1.weight")):
        load_checkpoint(_mismatched(tmp_path, saved))


def test_read_checkpoint_returns_raw_dict(saved):
    ckpt = read_checkpoint(saved[0])
    assert ckpt["format"] == "de-en-nmt/1" and ckpt["meta"]["step"] == 7
