"""python -m commands.lexicon: a checkpoint given the lexicon of its training corpora."""

from __future__ import annotations

import re

import pytest
import torch

from commands import lexicon
from model.data.lexicon import Lexicon
from model.inference.translator import Translator
from model.network.checkpoint import CheckpointError, read_checkpoint


def run(argv, capsys):
    code = lexicon.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_writes_the_lexicon_of_the_corpora(tiny_checkpoint, tmp_path, capsys):
    corpus = tmp_path / "pairs.tsv"
    corpus.write_text("Anna has a cat.\tAnna hat eine Katze.\nThe cat sleeps.\tDie Katze schläft.\n",
                      encoding="utf-8")
    out = tmp_path / "with-lexicon.pt"
    code, stdout, err = run([tiny_checkpoint, "--data", corpus, "--out", out], capsys)
    assert (code, err) == (0, "")
    assert stdout.startswith(f"wrote {out}: lexicon of 5 source word forms and 1 names from 2 pairs of 1 corpus(es), ")
    written, original = read_checkpoint(out), read_checkpoint(tiny_checkpoint)
    # "Anna" is copied, not translated
    written_lexicon = Lexicon.from_bytes(written["lexicon"])
    assert (set(written_lexicon.words), set(written_lexicon.names)) == ({"Die", "Katze", "eine", "hat", "schläft"}, {"Anna"})
    assert written["meta"] == original["meta"] and written["config"] == original["config"]
    for name, value in original["model"].items():
        assert torch.equal(written["model"][name], value), name
    translator = Translator.from_checkpoint(out, device="cpu")
    assert translator.lexicon.knows("Katze") and not translator.lexicon.knows("Anna")


def test_a_reverse_checkpoint_gets_the_lexicon_of_its_english_side(tiny_checkpoint, tmp_path, capsys):
    ckpt = read_checkpoint(tiny_checkpoint)
    ckpt["meta"]["direction"] = "en-de"
    reverse = tmp_path / "en-de.pt"
    torch.save(ckpt, reverse)
    corpus = tmp_path / "pairs.tsv"
    corpus.write_text("Anna has a cat.\tAnna hat eine Katze.\n", encoding="utf-8")
    code, stdout, err = run([reverse, "--data", corpus], capsys)
    assert (code, err) == (0, "")
    written = Lexicon.from_bytes(read_checkpoint(reverse)["lexicon"])
    assert (set(written.words), set(written.names)) == ({"a", "cat", "has"}, {"Anna"})


def test_errors_are_one_line(tiny_checkpoint, tmp_path, capsys):
    code, out, err = run([tiny_checkpoint, "--data", tmp_path / "missing.tsv", "--out", tmp_path / "x.pt"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("python -m commands.lexicon: error: ") and err.count("\n") == 1
    code, _, err = run([tmp_path / "none.pt", "--data", tmp_path / "missing.tsv"], capsys)
    assert code == 2 and err.count("\n") == 1


def test_a_damaged_lexicon_is_a_one_line_checkpoint_error(tiny_checkpoint, tmp_path):
    ckpt = read_checkpoint(tiny_checkpoint)
    ckpt["lexicon"] = b"Katze\nHund"  # not compressed
    path = tmp_path / "damaged.pt"
    torch.save(ckpt, path)
    with pytest.raises(CheckpointError, match=rf"^checkpoint '{re.escape(str(path))}' is invalid: not a lexicon: "):
        Translator.from_checkpoint(path, device="cpu")
