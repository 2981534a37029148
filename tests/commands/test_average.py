"""commands.average: checkpoint averaging, fp16 export, and its errors."""

from __future__ import annotations

import pytest
import torch

from commands import average
from model.network.checkpoint import load_checkpoint, read_checkpoint, save_checkpoint
from model.network.config import ModelConfig
from model.network.tokenizer import Tokenizer
from model.network.transformer import Transformer

CFG = ModelConfig(vocab_size=50, d_model=32, n_heads=4, d_ff=64, encoder_layers=1, decoder_layers=1, max_len=32)


@pytest.fixture(scope="module")
def tokenizer(pairs40) -> Tokenizer:
    return Tokenizer.train([s for p in pairs40 for s in p], 1000)


def make(tmp_path, tokenizer, name: str, seed: int, step: int, **changes):
    torch.manual_seed(seed)
    model = Transformer(CFG.replace(vocab_size=tokenizer.vocab_size, **changes))
    path = tmp_path / name
    save_checkpoint(path, model, tokenizer, {"step": step, "curves": {"step": [step]}},
                    train_state={"state": {"step": step}})
    return path, model


def run(argv, capsys):
    code = average.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_mean_of_three(tmp_path, tokenizer, capsys):
    made = [make(tmp_path, tokenizer, f"step-{s}.pt", seed, s) for seed, s in ((1, 30), (2, 10), (3, 20))]
    out = tmp_path / "avg.pt"
    code, stdout, err = run([p for p, _ in made] + ["--out", out], capsys)
    assert (code, err) == (0, "")
    assert stdout.startswith(f"wrote {out}: mean of 3 checkpoint(s) (steps 30, 10, 20), ")
    model, tok, meta = load_checkpoint(out)
    for name, value in model.state_dict().items():
        expected = sum(m.state_dict()[name] for _, m in made) / 3
        torch.testing.assert_close(value, expected, rtol=1e-6, atol=1e-7)
    assert tok.proto == tokenizer.proto
    assert meta["step"] == 30 and meta["curves"] == {"step": [30]}, "metadata of the newest input"
    assert meta["averaged_from"] == [{"file": "step-30.pt", "step": 30}, {"file": "step-10.pt", "step": 10},
                                     {"file": "step-20.pt", "step": 20}]
    assert "train_state" not in read_checkpoint(out)


def test_the_newest_inputs_lexicon_is_kept(tmp_path, tokenizer, capsys):
    paths = [make(tmp_path, tokenizer, f"step-{s}.pt", s, s)[0] for s in (1, 2)]
    for path, words in zip(paths, (b"Hund", b"Katze")):
        ckpt = read_checkpoint(path)
        ckpt["lexicon"] = words
        torch.save(ckpt, path)
    out = tmp_path / "avg.pt"
    assert run([*paths, "--out", out], capsys)[0] == 0
    assert read_checkpoint(out)["lexicon"] == b"Katze"


def test_metadata_from_another_input_and_repeated_inputs_weigh_more(tmp_path, tokenizer, capsys):
    (start, start_model), (tuned, tuned_model) = (make(tmp_path, tokenizer, name, seed, step)
                                                  for name, seed, step in (("v2.pt", 1, 12000), ("ft.pt", 2, 3000)))
    out = tmp_path / "wise.pt"
    code, _, err = run([start, tuned, tuned, "--metadata-from", tuned, "--out", out], capsys)
    assert (code, err) == (0, "")
    model, _, meta = load_checkpoint(out)
    assert meta["step"] == 3000 and [s["step"] for s in meta["averaged_from"]] == [12000, 3000, 3000]
    for name, value in model.state_dict().items():
        expected = (start_model.state_dict()[name] + 2 * tuned_model.state_dict()[name]) / 3
        torch.testing.assert_close(value, expected, rtol=1e-6, atol=1e-7)
    code, _, err = run([start, tuned, "--metadata-from", tmp_path / "other.pt", "--out", out], capsys)
    assert code == 2
    assert err == f"python -m commands.average: error: --metadata-from '{tmp_path / 'other.pt'}' is not one of the checkpoints averaged\n"


def test_one_input_half_is_an_fp16_export(tmp_path, tokenizer, capsys):
    path, model = make(tmp_path, tokenizer, "best.pt", 1, 5)
    out = tmp_path / "release.pt"
    code, stdout, _ = run([path, "--out", out, "--half"], capsys)
    assert code == 0 and ", fp16, " in stdout
    raw = read_checkpoint(out)
    assert {v.dtype for v in raw["model"].values() if v.is_floating_point()} == {torch.float16}
    fp32_bytes = sum(v.numel() * 4 for v in model.state_dict().values())
    # half-width weights, no train_state (less a little zip alignment padding)
    assert path.stat().st_size - out.stat().st_size >= 0.45 * fp32_bytes
    loaded, _, _ = load_checkpoint(out)
    assert loaded.embed.weight.dtype == torch.float32
    torch.testing.assert_close(loaded.embed.weight, model.embed.weight, atol=1e-3, rtol=1e-3)


def test_output_may_replace_an_input(tmp_path, tokenizer, capsys):
    a, model_a = make(tmp_path, tokenizer, "a.pt", 1, 1)
    b, model_b = make(tmp_path, tokenizer, "b.pt", 2, 2)
    assert run([a, b, "--out", a], capsys)[0] == 0
    expected = (model_a.embed.weight + model_b.embed.weight) / 2
    torch.testing.assert_close(load_checkpoint(a)[0].embed.weight, expected)


def test_training_knobs_may_differ(tmp_path, tokenizer, capsys):
    """A model and its fine-tuning at another dropout and label smoothing (train.py --init --dropout)
    are one network: they average, and the output takes the config of the input it takes the metadata of."""
    start, model_a = make(tmp_path, tokenizer, "start.pt", 1, 100)
    tuned, model_b = make(tmp_path, tokenizer, "tuned.pt", 2, 50, dropout=0.3, label_smoothing=0.2)
    out = tmp_path / "wise.pt"
    code, stdout, err = run([start, tuned, "--metadata-from", tuned, "--out", out], capsys)
    assert (code, err) == (0, "")
    assert read_checkpoint(out)["config"] == CFG.replace(vocab_size=tokenizer.vocab_size, dropout=0.3,
                                                         label_smoothing=0.2).to_dict()
    expected = (model_a.embed.weight + model_b.embed.weight) / 2
    torch.testing.assert_close(load_checkpoint(out)[0].embed.weight, expected)
    code, _, err = run([start, tuned, "--out", out], capsys)   # metadata of the input with the most steps
    assert (code, err) == (0, "") and read_checkpoint(out)["config"]["dropout"] == CFG.dropout


def test_network_is_the_config_without_training_knobs():
    assert CFG.network() == {k: v for k, v in CFG.to_dict().items()
                             if k not in ("dropout", "attention_dropout", "label_smoothing")}
    assert CFG.replace(dropout=0.3).network() == CFG.network()
    assert CFG.replace(d_ff=48).network() != CFG.network()


@pytest.mark.parametrize("case, message", [
    ("other_config", "python -m commands.average: error: '{b}' is not from the same run as '{a}': "
                     "its config or tokenizer differs\n"),
    ("missing", "python -m commands.average: error: checkpoint not found: '{missing}'\n"),
    ("no_dir", "python -m commands.average: error: No such directory for --out: '{no_dir}'\n"),
    ("no_inputs", None),
])
def test_errors_are_one_line(tmp_path, tokenizer, capsys, case, message):
    a, _ = make(tmp_path, tokenizer, "a.pt", 1, 1)
    b, _ = make(tmp_path, tokenizer, "b.pt", 2, 2, d_ff=48)
    missing, no_dir = tmp_path / "nope.pt", tmp_path / "nodir" / "out.pt"
    argv = {"other_config": [a, b, "--out", tmp_path / "o.pt"], "missing": [a, missing, "--out", tmp_path / "o.pt"],
            "no_dir": [a, "--out", no_dir], "no_inputs": ["--out", tmp_path / "o.pt"]}[case]
    code, stdout, err = run(argv, capsys)
    assert (code, stdout) == (2, "")
    if message is None:
        assert err.splitlines()[-1] == ("python -m commands.average: error: the following arguments are required: CKPT")
    else:
        assert err == message.format(a=a, b=b, missing=missing, no_dir=no_dir)
    assert not (tmp_path / "o.pt").exists()
