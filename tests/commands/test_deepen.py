"""commands.deepen: the command, end to end on the tests' tiny model, and its errors."""

from __future__ import annotations

import pytest

from commands import deepen
from model.inference.translator import Translator
from model.network.checkpoint import load_checkpoint, read_checkpoint
from model.search.options import SearchOptions


def run(argv, capsys):
    code = deepen.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_deeper_checkpoint_translates_the_same(tiny_checkpoint, pairs40, tmp_path, capsys):
    out = tmp_path / "deep.pt"
    code, stdout, err = run([tiny_checkpoint, "--encoder-layers", 4, "--out", out], capsys)
    before, _, _ = load_checkpoint(tiny_checkpoint)
    after, _, meta = load_checkpoint(out)
    n = sum(p.numel() for p in after.parameters())
    assert (code, err) == (0, "")
    assert stdout == f"wrote {out}: 2 -> 4 encoder layers, {n:,} parameters, {out.stat().st_size / 2**20:.1f} MiB\n"
    assert len(before.encoder) == 2 and len(after.encoder) == 4
    assert meta["deepened_from"] == {"encoder_layers": 2, "step": read_checkpoint(tiny_checkpoint)["meta"]["step"]}
    sources = [de for de, _ in pairs40]
    translate = [Translator.from_checkpoint(path, "cpu").translate for path in (tiny_checkpoint, out)]
    assert translate[1](sources, SearchOptions(beam_size=4)) == translate[0](sources, SearchOptions(beam_size=4))


def test_train_init_goes_on_from_it(tiny_checkpoint, corpus_path, tmp_path, capsys):
    import train

    deep = tmp_path / "deep.pt"
    assert run([tiny_checkpoint, "--encoder-layers", 3, "--out", deep], capsys)[0] == 0
    args = ["--data", corpus_path, "--valid", corpus_path, "--out", tmp_path / "ft", "--init", deep,
            "--max-steps", 3, "--max-tokens", 256, "--eval-every", 3, "--no-progress", "--device", "cpu",
            "--no-lexicon", "--lr", "1e-3", "--warmup", 1]
    assert train.main([str(a) for a in args]) == 0
    trained = read_checkpoint(tmp_path / "ft" / "last.pt")["model"]
    assert trained["encoder.2.ffn.w2.weight"].abs().sum() > 0, "the new layer left the identity"
    assert trained["encoder.0.ffn.w1.weight"].shape == read_checkpoint(deep)["model"]["encoder.0.ffn.w1.weight"].shape


@pytest.mark.parametrize("argv, message", [
    (["{ckpt}", "--encoder-layers", "2", "--out", "{tmp}/d.pt"],
     "encoder_layers must be an integer above the checkpoint's 2, got 2"),
    (["{ckpt}", "--encoder-layers", "x", "--out", "{tmp}/d.pt"],
     "argument --encoder-layers: invalid int value: 'x'"),
    (["{tmp}/missing.pt", "--encoder-layers", "4", "--out", "{tmp}/d.pt"],
     "checkpoint not found: '{tmp}/missing.pt'"),
    (["{ckpt}", "--encoder-layers", "4", "--out", "{tmp}/no/d.pt"],
     "No such directory for --out: '{tmp}/no/d.pt'"),
    (["{ckpt}", "--out", "{tmp}/d.pt"], "the following arguments are required: --encoder-layers"),
])
def test_bad_input(tiny_checkpoint, tmp_path, capsys, argv, message):
    fill = {"ckpt": tiny_checkpoint, "tmp": tmp_path}
    code, out, err = run([a.format(**fill) for a in argv], capsys)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == f"python -m commands.deepen: error: {message.format(**fill)}"
    assert not (tmp_path / "d.pt").exists()
