"""bench/formality.py: how an output addresses the reader, which lines it reads, and a run of the
tiny English->German model (which says "du": it has no formal hypothesis to take)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import formality as bench_formality  # noqa: E402


@pytest.mark.parametrize("german, expected", [
    ("Kannst du mir helfen?", "informal"),
    ("Können Sie mir helfen?", "formal"),
    ("Sie können mir helfen.", "neither"),      # a sentence-initial "Sie": she, they or you
    ("Hast du Ihr Buch?", "mixed"),
    ("Es regnet.", "neither"),
])
def test_address(german, expected):
    assert bench_formality.address(german) == expected


def test_only_lines_that_say_you_are_read(tmp_path):
    data = tmp_path / "dev.tsv"
    data.write_text("How old are you?\tWie alt bist du?\nIt is raining.\tEs regnet.\n"
                    "Is this yours?\tIst das deins?\tmore\nYourself!\tDu selbst!\n", encoding="utf-8")
    assert bench_formality.read_pairs(str(data), 2) == [("How old are you?", "Wie alt bist du?"),
                                                        ("Is this yours?", "Ist das deins?")]
    data.write_text("no tab here\n", encoding="utf-8")
    with pytest.raises(ValueError) as error:
        bench_formality.read_pairs(str(data), 10)
    assert str(error.value) == f"{data}:1: expected ENGLISH<TAB>GERMAN, got 'no tab here'"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "bench/formality.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_a_run_of_the_tiny_reverse_model(reverse_checkpoint, tmp_path):
    data = tmp_path / "dev.tsv"
    data.write_text("How old are you?\tWie alt bist du?\nWhere do you live?\tWo wohnst du?\n", encoding="utf-8")
    proc = run("--checkpoint", str(reverse_checkpoint), "--data", str(data), "--engine", "torch", "--beam", "2")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith(f"2 sentences with 'you' of {data}; references: formal 0, informal 2, mixed 0, neither 0")
    # each row: formality, then formal, informal, mixed and neither outputs (the chrF and times vary);
    # asked for "Sie", the wider beam found one hypothesis without "du"
    assert [line.split()[:5] for line in lines[2:]] == [["any", "0", "2", "0", "0"], ["formal", "0", "1", "0", "1"],
                                                        ["informal", "0", "2", "0", "0"]]


@pytest.mark.parametrize("args, message", [
    (["--data", "x.tsv", "--limit", "0"], "--limit must be >= 1, got 0"),
    (["--data", "x.tsv", "--beam", "1"], "--beam must be >= 2, got 1"),
])
def test_bad_arguments_give_one_line_errors(args, message):
    proc = run(*args)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == f"bench/formality.py: error: {message}"


def test_a_german_to_english_model_is_refused(tiny_checkpoint, tmp_path):
    data = tmp_path / "dev.tsv"
    data.write_text("How old are you?\tWie alt bist du?\n", encoding="utf-8")
    proc = run("--checkpoint", str(tiny_checkpoint), "--data", str(data), "--engine", "torch")
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == (
        f"bench/formality.py: error: {tiny_checkpoint}: not an English->German model (train.py --direction en-de)")
