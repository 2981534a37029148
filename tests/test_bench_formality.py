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


def cocoa_folder(tmp_path, segments: int = 1):
    """A CoCoA-MT test folder of our own sentences: ``segments`` a domain, marked as the benchmark marks."""
    rows = [("Can you help me?", "[F]Können Sie[/F] mir helfen?", "[F]Kannst du[/F] mir helfen?"),
            ("Thank you for calling.", "Danke für [F]Ihren[/F] Anruf.", "Danke für [F]deinen[/F] Anruf.")]
    for domain in bench_formality.COCOA_DOMAINS:
        stem = tmp_path / f"formality-control.test.{domain}.en-de"
        chosen = (rows * segments)[:segments]
        for suffix, column in [("", 0), (".formal.annotated", 1), (".informal.annotated", 2)]:
            (tmp_path / (stem.name + suffix)).write_text("".join(r[column] + "\n" for r in chosen), encoding="utf-8")
        for suffix, column in [(".formal", 1), (".informal", 2)]:
            (tmp_path / (stem.name + suffix)).write_text(
                "".join(bench_formality.MARKED.sub(r"\1", r[column]) + "\n" for r in chosen), encoding="utf-8")
    return tmp_path


def test_cocoa_segments_hold_both_references_and_their_marked_phrases(tmp_path):
    segments = bench_formality.read_cocoa(cocoa_folder(tmp_path, segments=2))
    assert len(segments) == 6 and [s.english for s in segments[:2]] == ["Can you help me?", "Thank you for calling."]
    first = segments[0]
    assert (first.formal, first.informal) == ("Können Sie mir helfen?", "Kannst du mir helfen?")
    assert (first.formal_phrases, first.informal_phrases) == (("Können Sie",), ("Kannst du",))
    assert len(bench_formality.read_cocoa(tmp_path, limit=3)) == 3


@pytest.mark.parametrize("output, label", [
    ("Können Sie mir helfen?", "formal"),
    ("Sie Können mir helfen.", "formal"),                 # its tokens, in any order
    ("können Sie mir helfen?", "neutral"),                # and as written: "können" is not "Können"
    ("Kannst du mir helfen?", "informal"),
    ("Können Sie oder Kannst du helfen?", "other"),
    ("Hilfe?", "neutral"),
    ("Können Sie?", "neutral"),       # "Sie?" is not the token "Sie": the benchmark splits at spaces only
])
def test_an_output_is_matched_as_the_benchmark_matches_it(tmp_path, output, label):
    segment = bench_formality.read_cocoa(cocoa_folder(tmp_path))[0]
    assert bench_formality.matched(output, segment) == label


def test_a_folder_without_the_benchmark_files_is_one_line(reverse_checkpoint, tmp_path):
    proc = run("--checkpoint", str(reverse_checkpoint), "--cocoa", str(tmp_path), "--engine", "torch")
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == (
        "bench/formality.py: error: not a CoCoA-MT test folder: no "
        f"{tmp_path / 'formality-control.test.call_center.en-de'}")


def test_an_empty_cocoa_folder_is_one_line(reverse_checkpoint, tmp_path):
    folder = cocoa_folder(tmp_path, segments=0)
    proc = run("--checkpoint", str(reverse_checkpoint), "--cocoa", str(folder), "--engine", "torch")
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == (
        f"bench/formality.py: error: {folder}: a CoCoA-MT test folder without any segment")


def test_a_cocoa_run_of_the_tiny_reverse_model(reverse_checkpoint, tmp_path):
    folder = cocoa_folder(tmp_path)
    proc = run("--checkpoint", str(reverse_checkpoint), "--cocoa", str(folder), "--engine", "torch", "--beam", "2")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith(f"CoCoA-MT test, 3 segments of {folder}")
    rows = [line.split() for line in lines[2:]]
    assert [row[0] for row in rows] == ["any", "formal", "informal"]
    for row in rows:   # formal + informal + other + neutral is every segment; M-Acc is a share
        assert sum(map(int, row[1:5])) == 3 and 0 <= float(row[5]) <= 1
