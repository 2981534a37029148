"""bench/fidelity.py: its checks on hand-made outputs, and end to end on the tiny model.

The tiny model (tests/conftest.py) knows only 40 sentences, so its translations of the report's
texts are noise; the end-to-end test asserts the report's structure, the exact number of checks,
and the figures the pipeline guarantees whatever the model writes (spans re-inserted or carried
over, casing style applied, every tag written back exactly once)."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
from dataclasses import replace

import pytest

from model.search.options import SERVED
from tests.conftest import ROOT, run_script

spec = importlib.util.spec_from_file_location("bench_fidelity", ROOT / "bench" / "fidelity.py")
fidelity = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = fidelity  # dataclasses look their module up there
spec.loader.exec_module(fidelity)
Case = fidelity.Case

# Checks per category and check in bench/fidelity_sentences.tsv: fixed by the texts alone.
TOTALS = {"numbers": {"numbers kept": 23}, "spans": {"spans kept": 27}, "caps": {"style kept": 13},
          "html": {"tags kept": 28, "well formed": 11, "translated": 11},
          "long": {"length >= 0.6x": 2, "no loop": 2, "spans kept": 11}}


COUNTS = {"numbers": 18, "spans": 20, "caps": 13, "html": 11, "long": 2}  # texts per category


def run_bench(args: list[str]) -> subprocess.CompletedProcess:
    return run_script("bench/fidelity.py", ["--device", "cpu", "--threads", "1", *args])


# ------------------------------------------------------------------------------------------ checks

@pytest.mark.parametrize("item, output, count", [
    ("1,450", "It costs 1,450 euros.", 1),
    ("1,450", "It costs 21,450 euros.", 0),
    ("1,450", "It costs 1,450.5 euros.", 0),
    ("1,450", "1,450 and 1,450", 2),
    ("anna@example.de", "Write to anna@example.de.", 1),
    ("anna@example.de", "Write to anna@example.deYou if", 0),
    ("😍🌴", "Holidays😍🌴", 1),
    ("#tag", "a#tag", 1),
])
def test_occurrences_count_whole_tokens(item, output, count):
    assert fidelity.occurrences(item, output) == count


def test_numbers_are_expected_in_english_notation_and_each_occurrence_counts():
    case = Case("numbers", "Von 1.450 auf 6,9 und wieder 6,9 Prozent am 23.11.2026 um 19:30.")
    assert fidelity.expected_spans(case.text) == ["1,450", "6.9", "6.9", "23.11.2026", "19:30"]
    assert fidelity.check(case, "From 1,450 to 6.9 percent on 23.11.2026 at 19:30.") == (
        [("numbers kept", 4, 5)], ["missing '6.9'"])


def test_long_checks_length_loops_and_spans():
    case = Case("long", "eins zwei drei vier fünf sechs sieben acht neun zehn um 8:15")  # 13 words: 8, 15
    assert fidelity.check(case, "one two three the the the the") == (
        [("length >= 0.6x", 0, 1), ("no loop", 0, 1), ("spans kept", 0, 1)],
        ["0.54x the input's words", "loops", "missing '8:15'"])
    assert fidelity.check(case, "one two three four five six seven at 8:15") == (
        [("length >= 0.6x", 1, 1), ("no loop", 1, 1), ("spans kept", 1, 1)], [])


@pytest.mark.parametrize("text, output, ok", [
    ("NOTAUSGANG FREIHALTEN.", "KEEP EMERGENCY EXIT CLEAR.", True),
    ("NOTAUSGANG FREIHALTEN.", "Keep emergency exit clear.", False),
    ("NOTAUSGANG FREIHALTEN.", "...", False),
    ("Neue Regeln Für Den Bahnverkehr", "New Rules for the Railways", True),
    ("Neue Regeln Für Den Bahnverkehr", "New rules for the railways", False),
])
def test_caps_style(text, output, ok):
    checks, notes = fidelity.check(Case("caps", text, text.capitalize()), output)
    assert checks == [("style kept", int(ok), 1)]
    assert notes == ([] if ok else [f"not {'ALL CAPS' if text.isupper() else 'title case'}"])


@pytest.mark.parametrize("output, checks, notes", [
    ("<p>That is <a href=\"x\" class='y'>very</a> good.<br></p>", [3, 1, 1], []),
    ('<p>That is <a href="x" class="y">very</a> good.<br></p>', [2, 1, 1], ["missing <a href=\"x\" class='y'>"]),
    ("<p>That is <a href=\"x\" class='y'>very good.<br></p></a>", [3, 0, 1], ["</p> closes <a>", "<p> not closed"]),
    ("That is very good.", [0, 0, 1], ["missing <p>", "missing <a href=\"x\" class='y'>", "missing <br>",
                                       "</a> missing", "</p> missing"]),
    ("<p>Das ist <a href=\"x\" class='y'>sehr</a> gut.<br></p>", [3, 1, 0], ["not translated"]),
])
def test_html_checks(output, checks, notes):
    case = Case("html", "<p>Das ist <a href=\"x\" class='y'>sehr</a> gut.<br></p>")
    result = fidelity.check(case, output)
    assert [passed for _, passed, _ in result[0]] == checks
    assert [(name, total) for name, _, total in result[0]] == [("tags kept", 3), ("well formed", 1), ("translated", 1)]
    assert result[1] == notes


def test_a_refused_input_fails_every_check():
    case = Case("long", "Das kostet 5 Euro und 6 Euro und noch mehr.")
    assert fidelity.check(case, None) == (
        [("length >= 0.6x", 0, 1), ("no loop", 0, 1), ("spans kept", 0, 2)], ["refused by the model"])


@pytest.mark.parametrize("line, message", [
    ("numbers", "line 1: expected one of numbers, spans, caps, html, long"),
    ("caps\tGROSS", "line 1: expected one of"),
    ("colours\tRot", "line 1: expected one of"),
])
def test_bad_case_files(tmp_path, line, message):
    path = tmp_path / "cases.tsv"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)):
        fidelity.read_cases(path)


def test_shipped_cases_are_valid_and_cover_every_category():
    cases = fidelity.read_cases(fidelity.CASES)
    counts = {c: sum(case.category == c for case in cases) for c in fidelity.CATEGORIES}
    assert counts == COUNTS
    assert all(fidelity.expected_spans(c.text) for c in cases if c.category in ("numbers", "spans", "long"))


# ------------------------------------------------------------------------------------------ end to end

def test_report_end_to_end(tiny_checkpoint, tmp_path):
    report = tmp_path / "fidelity.json"
    proc = run_bench(["--checkpoint", str(tiny_checkpoint), "--beam", "1", "--json", str(report), "--show"])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert re.fullmatch(r"best\.pt \([\d,]+ parameters, placeholders\), beam 1, load average \d+\.\d\d", lines[0])
    assert lines[1].split() == ["category", "texts", "check", "pipeline", "bare", "model"]
    rows = [(category, check) for category, checks in TOTALS.items() for check in checks]
    rows.insert(3, ("caps", "chrF vs normal"))
    assert len(rows) == 10
    for line, (category, check) in zip(lines[2:12], rows):
        label = f"{category:<9} {COUNTS[category]:>5}"
        assert line[:15] == (label if check == next(iter(TOTALS[category])) else " " * 15)
        assert line[17:34].rstrip() == check
    assert lines[12].startswith("overall      64  all checks ") and lines[13] == ""

    result = json.loads(report.read_text(encoding="utf-8"))
    assert set(result) == {"checkpoint", "beam", "texts", "pipeline", "bare model"}
    assert (result["beam"], result["texts"]) == (1, 64)
    for system in ("pipeline", "bare model"):
        figures = result[system]
        assert set(figures) == {"checks", "passed", "total", "caps_chrf", "failures"}
        assert {c: {k: t for k, (_, t) in checks.items()} for c, checks in figures["checks"].items()} == TOTALS
        assert figures["total"] == 128 and 0 <= figures["caps_chrf"] <= 100
        assert len(figures["failures"]) == sum(f"\n[{system}] " in "\n" + line for line in lines)
    # What the pipeline guarantees, however poor the model: every span's text is in the output
    # (though a word may be glued to it: see the report), ALL CAPS stays ALL CAPS, markup survives.
    pipeline = result["pipeline"]
    for failure in pipeline["failures"]:
        missing = [ast.literal_eval(note[8:]) for note in failure["failed"] if note.startswith("missing '")]
        assert all(item in failure["output"] for item in missing), failure
        assert not (failure["category"] == "caps" and failure["input"].isupper()), failure
    assert pipeline["checks"]["html"]["tags kept"] == [28, 28] and pipeline["checks"]["html"]["well formed"] == [11, 11]


def test_timed_stages_give_what_translate_gives(tiny_checkpoint):
    from model.inference.translator import Translator
    from pipeline.translation import Options, Pipeline

    pipeline = Pipeline(Translator.from_checkpoint(tiny_checkpoint, device="cpu"), Options(search=replace(SERVED, beam_size=1)))
    texts = ["Ich habe 1.450 Euro.", "NOTAUSGANG FREIHALTEN.", "Schreib an a@b.de!\n\nDanke."]
    outputs, times = fidelity.timed_pipeline(pipeline, texts)
    assert outputs == pipeline.translate(texts)
    assert set(times) == {"plan", "model", "assemble", "total", "inputs", "retries"}
    assert "_retry" not in vars(pipeline)
    assert times["inputs"] == 4 and times["total"] >= times["plan"] + times["model"] + times["assemble"]


def test_overhead_end_to_end(tiny_checkpoint, corpus_path, tmp_path):
    report = tmp_path / "overhead.json"
    proc = run_bench(["--checkpoint", str(tiny_checkpoint), "--beam", "1", "--overhead", "--sentences", "30",
                      "--repeats", "1", "--corpus", str(corpus_path), "--json", str(report)])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith(", 30 sentences, median of 1")
    assert re.fullmatch(r"bare model +\d+\.\d{3} s +\d+\.\d sentences/s +30 model inputs", lines[1])
    assert re.fullmatch(r"pipeline +\d+\.\d{3} s +\d+\.\d sentences/s +\d+ model inputs", lines[2])
    assert re.fullmatch(r"  text work +\d+\.\d{3} s +\(plan \d+\.\d{3} s, assemble \d+\.\d{3} s\) = \d+\.\d\d% of "
                        r"the bare model's time \(target <= 5%: (met|NOT met)\)", lines[3])
    assert re.fullmatch(r"  model stage +\d+\.\d{3} s +\(\d+ retries of short or looping outputs\)", lines[4])
    assert re.fullmatch(r"overhead +[+-]\d+\.\d\d% \(pipeline vs bare model, all of it\)", lines[5])
    result = json.loads(report.read_text(encoding="utf-8"))
    assert set(result) == {"sentences", "repeats", "beam", "bare_s", "pipeline_s", "plan_s", "assemble_s", "model_s",
                           "model_inputs", "retries", "overhead_pct", "text_work_pct", "target_pct", "target_met"}
    assert (result["sentences"], result["repeats"], result["beam"]) == (30, 1, 1)
    assert result["model_inputs"] >= 30 and result["target_met"] == (result["text_work_pct"] <= 5)
    assert proc.stderr.splitlines()[-2:] == ["repeat 1/1: pipeline done", "repeat 1/1: bare done"]


@pytest.mark.parametrize("args, message", [
    (["--beam", "0"], "--beam must be >= 1, got 0"),
    (["--overhead", "--sentences", "0"], "--sentences must be >= 1, got 0"),
    (["--overhead", "--repeats", "0"], "--repeats must be >= 1, got 0"),
    (["--corpus", "x.tsv"], "--corpus needs --overhead"),
    (["--cases", "nowhere.tsv"], "--cases file not found: 'nowhere.tsv'"),
    (["--threads", "0"], "--threads must be >= 1, got 0"),
])
def test_bad_arguments_are_one_line(args, message):
    proc = run_bench(args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [f"bench/fidelity.py: error: {message}"]
