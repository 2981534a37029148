"""bench/vocab.py on the release checkpoint and two sentences whose cuts are checked by hand."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import ROOT, run_script

pytestmark = pytest.mark.slow  # bench/vocab.py runs on the release model in a subprocess

RELEASE = ROOT / "checkpoints" / "de-en.pt"


def run_bench(args: list[str]) -> subprocess.CompletedProcess:
    return run_script("bench/vocab.py", args, timeout=120)


@pytest.fixture
def pairs(tmp_path):
    path = tmp_path / "pairs.tsv"
    # Release pieces (v3.6, 12,000): ▁Mein ▁Zug ▁hatte ▁vier zig ▁Minuten ▁Verspätung . / ▁Datei ▁speichern
    # (v3.5's 8,000 cut "▁Da t ei ▁ speicher n"); 10 English pieces too
    path.write_text("My train was forty minutes late.\tMein Zug hatte vierzig Minuten Verspätung.\n"
                    "Save file\tDatei speichern\n", encoding="utf-8")  # English first, as train.py reads TSVs
    return path


def test_counts_pieces_and_cut_words(pairs):
    proc = run_bench(["--checkpoint", str(RELEASE), "--data", str(pairs), "--top", "8", "--word", "vierzig",
                      "--word", "Verspätung"])
    assert proc.returncode == 0, proc.stderr
    header, row, *words = proc.stdout.splitlines()
    assert header.split() == ["checkpoint", "data", "pieces", "de/en", "per", "word", "de/en", "de", "words", "cut",
                              "top", "8", "cut"]
    # 10 and 10 pieces over 2 sentences and 8 words a side; vierzig cut: 1 of 8
    assert row.split() == [str(RELEASE), "(12000)", "pairs.tsv", "5.00/5.00", "1.250/1.250", "12.5%", "12.5%"]
    assert words == ["  vierzig -> ▁vier zig", "  Verspätung -> ▁Verspätung"]


@pytest.mark.parametrize("content, message", [
    ("Datei speichern\n", "line 1 has 1 column, expected English<TAB>German"),
    ("\n", "it has no sentence pairs"),
])
def test_bad_data_is_one_line(tmp_path, content, message):
    path = tmp_path / "pairs.tsv"
    path.write_text(content, encoding="utf-8")
    proc = run_bench(["--checkpoint", str(RELEASE), "--data", str(path)])
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"bench/vocab.py: error: cannot read corpus {str(path)!r}: {message}"


def test_missing_checkpoint_is_one_line(pairs, tmp_path):
    proc = run_bench(["--checkpoint", str(tmp_path / "none.pt"), "--data", str(pairs)])
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"bench/vocab.py: error: checkpoint not found: {str(tmp_path / 'none.pt')!r}"
