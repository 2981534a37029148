"""bench/english_spans.py: the sentences the English source rules touch, as sets of their own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["We met on June 14, 2025.", "Mr. Klaus said so.", "The cat sleeps.", "Dear Mr. Smith, see you.",
           "It was 5\u2028degrees."]
REFERENCES = ["Wir trafen uns am 14. Juni 2025.", "Herr Klaus sagte das.", "Die Katze schläft.",
              "Sehr geehrter Herr Smith, bis bald.", "Es waren 5 Grad."]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "bench" / "english_spans.py"), *args],
                          capture_output=True, text=True, timeout=120)


def test_the_sets(tmp_path):
    (tmp_path / "s.en").write_text("\n".join(SOURCES) + "\n", encoding="utf-8")
    (tmp_path / "s.de").write_text("\n".join(REFERENCES) + "\n", encoding="utf-8")
    proc = run("--src", str(tmp_path / "s.en"), "--ref", str(tmp_path / "s.de"), "--out", str(tmp_path / "sets"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["dates: 1 of 5 sentences", "titles: 2 of 5 sentences", "cut: 2 of 5 sentences"]
    read = lambda name: (tmp_path / "sets" / name).read_text(encoding="utf-8").splitlines()  # noqa: E731
    assert read("dates.en") == [SOURCES[0]] and read("dates.de") == [REFERENCES[0]]
    assert read("titles.en") == [SOURCES[1], SOURCES[3]] and read("cut.de") == [REFERENCES[1], REFERENCES[3]]


def test_files_of_different_lengths_are_one_line(tmp_path):
    (tmp_path / "s.en").write_text("One.\nTwo.\n", encoding="utf-8")
    (tmp_path / "s.de").write_text("Eins.\n", encoding="utf-8")
    proc = run("--src", str(tmp_path / "s.en"), "--ref", str(tmp_path / "s.de"), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == (
        f"bench/english_spans.py: error: {tmp_path / 's.en'} has 2 lines, {tmp_path / 's.de'} 1")


def test_a_missing_file_is_one_line(tmp_path):
    proc = run("--src", str(tmp_path / "none.en"), "--ref", str(tmp_path / "none.de"), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == (
        f"bench/english_spans.py: error: cannot read {tmp_path / 'none.en'}: No such file or directory")
