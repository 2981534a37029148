"""bench/alternatives.py: what the page would list for a word, the time a translation ends with, the
table by margin and the judged file (its figures on the release model are in bench/README.md)."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from app.inspection import word_at
from bench.alternatives import (
    JUDGED, MARGINS, SENTENCES, alternatives, fronted_time, margin_table, read_judged, word_starts)
from tests.conftest import ROOT


def test_word_starts():
    assert word_starts("Can you tell me?") == [0, 4, 8, 13]
    assert word_starts("  Hi  there ") == [2, 6] and word_starts("") == []


def test_alternatives_are_each_other_word_s_first_completion():
    completions = [{"text": "Can you tell me where it is?", "score": -0.5},
                   {"text": "Can you tell me where the station is?", "score": -1.0},   # the word there
                   {"text": "Can you please tell me?", "score": -1.5},
                   {"text": "Can you Please tell me where?", "score": -2.0},          # please again
                   {"text": "Can you teach me?", "score": -2.25},
                   {"text": "Can you tell, please?", "score": -2.5}]                  # "tell," is "tell"
    assert alternatives(completions, "Can you ", "tell", word_at) == [
        ("Can you please tell me?", 1.0), ("Can you teach me?", 1.75)]
    assert alternatives([], "Can you ", "tell", word_at) == []
    many = [{"text": f"I w{k} it.", "score": -k} for k in range(8)]
    assert [text for text, _ in alternatives(many, "I ", "w0", word_at)] == [f"I w{k} it." for k in range(1, 6)]


@pytest.mark.parametrize("translation, prefix", [
    ("I lost my key yesterday.", "Yesterday "),
    ("We got up late this morning.", "This morning "),
    ("He called me last night!", "Last night "),
    ("I can't pray now", "Now "),
    ("We got up late in the morning.", None),   # a period after no this / last / next / every
    ("I saw him yesterday at noon.", None),      # not at the end
    ("See you tomorrow's evening.", None),
    ("", None),
])
def test_fronted_time(translation, prefix):
    assert fronted_time(translation) == prefix


def test_margin_table_counts_judged_alternatives_by_margin():
    rows = [{"german": "a", "prefix": "A ", "gap": 1.0, "verdict": "ok"},
            {"german": "a", "prefix": "A ", "gap": 3.2, "verdict": "bad"},
            {"german": "b", "prefix": "B ", "gap": 2.9, "verdict": "bad"},
            {"german": "b", "prefix": "B ", "gap": 4.5, "verdict": "ok"},
            {"german": "c", "prefix": "C ", "gap": 0.5, "verdict": "?"}]   # not judged: not counted
    table = {line["margin"]: line for line in margin_table(rows)}
    assert list(table) == list(MARGINS)
    assert table[5.0] == {"margin": 5.0, "offered": 4, "ok": 2, "share_ok": 0.5, "positions": 2, "positions_ok": 2}
    assert table[3.0] == {"margin": 3.0, "offered": 2, "ok": 1, "share_ok": 0.5, "positions": 2, "positions_ok": 1}
    assert table[2.0] == {"margin": 2.0, "offered": 1, "ok": 1, "share_ok": 1.0, "positions": 1, "positions_ok": 1}
    assert margin_table([])[0]["share_ok"] is None


def test_the_shipped_judgments_are_of_the_shipped_sentences():
    judged = read_judged(JUDGED)
    with SENTENCES.open(encoding="utf-8") as f:
        german = {line.rstrip("\n").split("\t")[1] for line in f}
    assert len(judged) > 300 and set(judged.values()) == {"ok", "bad"}
    assert {g for g, _, _ in judged} <= german
    assert all(text.startswith(prefix) for _, prefix, text in judged)
    with JUDGED.open(encoding="utf-8", newline="") as f:
        assert all(len(row) == 4 for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert read_judged(ROOT / "no such file") == {}


def test_refuses_bad_counts():
    proc = subprocess.run([sys.executable, "bench/alternatives.py", "--positions", "0"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--positions and --threads must be >= 1" in proc.stderr
