"""bench/glue.py: the UI strings with directives, and the counts of stray glue before and after the repair."""

from __future__ import annotations

import sys

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import glue  # noqa: E402


def test_pairs_with_a_placeholder_get_directives(tmp_path):
    data = tmp_path / "dev.ui.tsv"
    data.write_text("Copy ⦅X1⦆ to ⦅X2⦆\t⦅X1⦆ nach ⦅X2⦆ kopieren\nNo directive\tKeine Direktive\n"
                    "⦅X9⦆ of ⦅X1⦆\t⦅X9⦆ von ⦅X1⦆\n", encoding="utf-8")
    assert glue.read_pairs(str(data)) == [("Copy %s to %d", "%s nach %d kopieren"), ("%s of %s", "%s von %s")]


def test_runs_end_to_end(tiny_checkpoint, tmp_path, capsys):
    data = tmp_path / "dev.ui.tsv"
    data.write_text("Copy ⦅X1⦆ now\t⦅X1⦆ jetzt kopieren\n", encoding="utf-8")
    assert glue.main(["--checkpoint", str(tiny_checkpoint), "--engine", "torch", "--data", str(data)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["de-en, as the model glued", "de-en, repaired"]
    assert all(" 1 strings, " in line for line in lines)
