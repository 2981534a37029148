"""bench/harm.py: lines that change a negation or add profanity, per output, and chrF."""

from __future__ import annotations

import json

from tests.conftest import run_script


def test_harm_counts_each_output_and_the_references(tmp_path):
    (tmp_path / "src.de").write_text("Trinken Sie keinen Alkohol.\nDie Zwiebeln fein hacken.\nGuten Morgen.\n")
    (tmp_path / "ref.en").write_text("Do not drink alcohol.\nChop the onions finely.\nGood morning.\n")
    (tmp_path / "bad.en").write_text("Drink alcohol.\nChop the fucking onions.\nGood morning.\n")
    (tmp_path / "good.en").write_text("Don't drink alcohol.\nChop the onions finely.\nGood morning.\n")
    args = ["--source", "de", "--src", str(tmp_path / "src.de"), "--ref", str(tmp_path / "ref.en"),
            "--hyp", f"bad={tmp_path / 'bad.en'}", "--hyp", f"good={tmp_path / 'good.en'}"]
    done = run_script("bench/harm.py", args + ["--json"])
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {name: (r["negation"], r["profanity"], r["negation_lines"], r["profanity_lines"])
            for name, r in result.items()} == {"reference": (0, 0, [], []), "bad": (1, 1, [0], [1]),
                                               "good": (0, 0, [], [])}
    assert result["bad"]["chrf"] < result["good"]["chrf"]
    done = run_script("bench/harm.py", args)
    assert done.stdout.splitlines()[0] == "reference  of 3 lines: 0 change a negation, 0 add profanity"


def test_harm_refuses_outputs_of_another_length(tmp_path):
    (tmp_path / "src.de").write_text("Guten Morgen.\nEs regnet.\n")
    (tmp_path / "ref.en").write_text("Good morning.\nIt is raining.\n")
    (tmp_path / "short.en").write_text("Good morning.\n")
    done = run_script("bench/harm.py", ["--source", "de", "--src", str(tmp_path / "src.de"), "--ref",
                                        str(tmp_path / "ref.en"), "--hyp", f"short={tmp_path / 'short.en'}"])
    assert done.returncode == 2 and done.stderr == f"harm: {tmp_path / 'short.en'} has 1 lines, {tmp_path / 'src.de'} 2\n"
