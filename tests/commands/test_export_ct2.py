"""commands.export_ct2: a checkpoint written as a CTranslate2 model directory, and its errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ctranslate2")

import ctranslate2  # noqa: E402

from commands import export_ct2  # noqa: E402
from model.network.checkpoint import load_checkpoint  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PROG = "python -m commands.export_ct2"


@pytest.fixture(scope="module")
def tiny(tiny_checkpoint):
    model, tokenizer, _ = load_checkpoint(tiny_checkpoint)
    return model, tokenizer


def run(args, capsys) -> tuple[int, str, str]:
    code = export_ct2.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("quantization", ["int8", "float32"])
def test_export_writes_a_model_ctranslate2_loads(tiny_checkpoint, tmp_path, capsys, tiny, quantization):
    out = tmp_path / "ct2"
    code, stdout, err = run([tiny_checkpoint, out, "--quantization", quantization], capsys)
    assert (code, err) == (0, "")
    report = json.loads(stdout)
    assert report["out_dir"] == str(out) and report["quantization"] == quantization
    assert sorted(os.listdir(out)) == ["config.json", "model.bin", "shared_vocabulary.json"]
    assert report["bytes"] == {name: (out / name).stat().st_size for name in os.listdir(out)}
    assert os.listdir(tmp_path) == ["ct2"]  # no temporary directory left behind
    model, tokenizer = tiny
    ct2 = ctranslate2.Translator(str(out), compute_type=quantization)
    result = ct2.translate_batch([tokenizer.pieces(tokenizer.encode("Guten Morgen."))], beam_size=1)
    ids = {piece: i for i, piece in enumerate(tokenizer.pieces(range(tokenizer.vocab_size)))}
    assert tokenizer.decode([ids[p] for p in result[0].hypotheses[0]]) == "Good morning."


def test_export_refuses_an_existing_directory_without_force(tiny_checkpoint, tmp_path, capsys):
    out = tmp_path / "ct2"
    assert run([tiny_checkpoint, out], capsys)[0] == 0
    before = (out / "model.bin").read_bytes()
    assert run([tiny_checkpoint, out, "--quantization", "float32"], capsys) == (
        2, "", f"{PROG}: error: {str(out)!r} already exists; use --force to replace it\n")
    assert (out / "model.bin").read_bytes() == before
    assert run([tiny_checkpoint, out, "--quantization", "float32", "--force"], capsys)[0] == 0
    assert len((out / "model.bin").read_bytes()) > 2 * len(before)
    assert sorted(os.listdir(tmp_path)) == ["ct2"]


def test_force_replaces_only_model_directories(tiny_checkpoint, tmp_path, capsys):
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    assert run([tiny_checkpoint, other, "--force"], capsys) == (
        2, "", f"{PROG}: error: {str(other)!r} is not a CTranslate2 model directory (no model.bin): "
               "refusing to replace it\n")
    assert os.listdir(other) == ["keep.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run([tiny_checkpoint, empty, "--force"], capsys)[0] == 0
    assert (empty / "model.bin").is_file()


@pytest.mark.parametrize("case", ["missing", "text", "out_is_file", "no_parent"])
def test_bad_paths_are_one_line_errors(tiny_checkpoint, tmp_path, capsys, case):
    notes = tmp_path / "notes.txt"
    notes.write_text("Das ist kein Modell.\n")
    args, message = {
        "missing": ([tmp_path / "nope.pt", tmp_path / "out"], f"checkpoint not found: {str(tmp_path / 'nope.pt')!r}"),
        "text": ([notes, tmp_path / "out"],
                 f"not a de-en-nmt checkpoint: {str(notes)!r} is not a file written by torch.save"),
        "out_is_file": ([tiny_checkpoint, notes], f"{str(notes)!r} exists and is not a directory"),
        "no_parent": ([tiny_checkpoint, tmp_path / "a" / "b"],
                      f"cannot write {str(tmp_path / 'a' / 'b')!r}: its parent directory does not exist"),
    }[case]
    assert run(args, capsys) == (2, "", f"{PROG}: error: {message}\n")
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]


def test_bad_arguments(tiny_checkpoint, tmp_path, capsys):
    code, out, err = run([tiny_checkpoint, tmp_path / "x", "--quantization", "int4"], capsys)
    assert (code, out) == (2, "")
    assert err == (f"{PROG}: error: argument --quantization: invalid choice: 'int4' "
                   "(choose from 'int8', 'float32')\n")


def test_runs_as_a_module(tiny_checkpoint, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "commands.export_ct2", str(tiny_checkpoint), str(tmp_path / "m")],
                          capture_output=True, cwd=ROOT, timeout=120)
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert (tmp_path / "m" / "model.bin").is_file()
