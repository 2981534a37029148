"""bench/gpu_train.sh dry-run on the CPU (DEVICE=cpu, the tiny preset): a training chunk on a mixture
written by commands.mixture returns averaged weights in pieces the device tool can bring back, also
when its watchdog has to stop train.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import torch

from commands import mixture
from model.network.checkpoint import read_checkpoint
from tests.conftest import PAIRS40, ROOT

pytestmark = pytest.mark.slow  # bench/gpu_train.sh trains in a subprocess

TINY = ["--preset", "tiny", "--vocab-size", "120", "--max-tokens", "160", "--eval-every", "1000"]


@pytest.fixture(scope="module")
def mix(tmp_path_factory):
    out = tmp_path_factory.mktemp("gpu_train") / "mix"
    assert mixture.main(["--data", str(PAIRS40), "--out", str(out), "--dev-size", "4", "--test-size", "4",
                         "--license", "GPL-2.0-or-later", "--data-attribution", "Pairs, CC BY 2.0 FR"]) == 0
    return out


def chunk(mix, tmp_path, name, args, **env):
    env = {**os.environ, "DEVICE": "cpu", "MIX": str(mix), "OUT": str(tmp_path / "out"),
           "WORK": str(tmp_path / "work"), "PYTHON": sys.executable, "OMP_NUM_THREADS": "1", "SAVE_EVERY": "5",
           "AVERAGE": "0.5", **env}
    return subprocess.run(["bash", "bench/gpu_train.sh", name, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def returned(tmp_path, name):
    pieces = sorted((tmp_path / "out").glob(f"{name}.pt.*"))
    joined = tmp_path / f"{name}.pt"
    joined.write_bytes(b"".join(p.read_bytes() for p in pieces))
    with tarfile.open(tmp_path / "out" / f"{name}.logs.tar.gz") as tar:
        logs = {m.name: tar.extractfile(m).read().decode() for m in tar.getmembers() if m.isfile()}
    return [p.name for p in pieces], read_checkpoint(joined), logs


def test_a_chunk_returns_the_mean_of_its_last_half_without_lexicon(mix, tmp_path):
    proc = chunk(mix, tmp_path, "tiny", [*TINY, "--max-steps", "20"])
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    pieces, ckpt, logs = returned(tmp_path, "tiny")
    assert pieces == ["tiny.pt.00"]
    assert [a["step"] for a in ckpt["meta"]["averaged_from"]] == [10, 15, 20]
    assert "lexicon" not in ckpt and "train_state" not in ckpt
    assert ckpt["meta"]["data"]["license"] == "GPL-2.0-or-later"
    assert ckpt["meta"]["data"]["sources"] == json.loads((mix / "sources.json").read_text(encoding="utf-8"))
    stored = torch.load(tmp_path / "tiny.pt", map_location="cpu", weights_only=True)["model"]
    assert {v.dtype for v in stored.values() if v.is_floating_point()} == {torch.float16}
    assert sorted(logs) == ["logs/metrics.jsonl", "logs/times.txt", "logs/train.log"]
    assert "tiny: train.py exit 0" in logs["logs/times.txt"] and "done: step 20" in logs["logs/train.log"]
    assert "tiny: averaged 3 snapshot(s): step-0000010.pt .. step-0000020.pt" in proc.stdout


def test_the_watchdog_stops_train_py_and_the_snapshots_are_still_returned(mix, tmp_path):
    proc = chunk(mix, tmp_path, "long", [*TINY, "--max-steps", "10000000"], DEADLINE="20")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    pieces, ckpt, logs = returned(tmp_path, "long")
    steps = [a["step"] for a in ckpt["meta"]["averaged_from"]]
    assert pieces == ["long.pt.00"] and "long: watchdog: stopped at 2" in logs["logs/times.txt"]
    stopped = re.search(r"^stopped by SIGTERM at step (\d+); saving", logs["logs/train.log"], re.M)
    assert stopped, logs["logs/train.log"][-2000:]  # stopped, saving the step it was at
    assert steps and steps[0] >= 0.5 * steps[-1] and steps[-1] == int(stopped[1])
    assert all(step % 5 == 0 for step in steps[:-1])


@pytest.mark.parametrize("name, env, message", [
    ("a/b", {}, "gpu_train: NAME must be letters, digits, _ and -, got 'a/b'"),
    ("ok", {"MIX": "/nonexistent"}, "gpu_train: no /nonexistent/train-args.txt: write the mixture with "
                                    "python -m commands.mixture --out /nonexistent"),
])
def test_bad_names_and_missing_mixtures_are_one_line_errors(mix, tmp_path, name, env, message):
    proc = chunk(mix, tmp_path, name, TINY, **env)
    assert (proc.returncode, proc.stdout, proc.stderr.strip()) == (2, "", message)


@pytest.fixture(scope="module")
def two_corpora(tmp_path_factory):
    """A mixture of the 40 pairs and a second corpus (ten of the same pairs under another name)."""
    folder = tmp_path_factory.mktemp("gpu_train_two")
    second = folder / "extra-web.tsv"
    second.write_text("".join(PAIRS40.read_text(encoding="utf-8").splitlines(keepends=True)[:10]), encoding="utf-8")
    out = folder / "mix"
    assert mixture.main(["--data", str(PAIRS40), "--data", f"{second}@2", "--out", str(out), "--dev-size", "4",
                         "--test-size", "4"]) == 0
    return out


def test_drop_leaves_a_corpus_out_of_the_run_and_of_its_sources(two_corpora, tmp_path):
    proc = chunk(two_corpora, tmp_path, "ablation", [*TINY, "--max-steps", "5"], DROP="-web")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    _, ckpt, logs = returned(tmp_path, "ablation")
    assert "ablation: left out: 01-pairs-extra-web.tsv.gz" in logs["logs/times.txt"]
    assert [Path(part["corpus"]).name for part in ckpt["meta"]["data"]["corpora"]] == ["00-pairs-pairs40.tsv.gz"]
    assert [s["file"] for s in ckpt["meta"]["data"]["sources"]] == ["00-pairs-pairs40.tsv.gz"]
    assert (two_corpora / "train-args.txt").read_text(encoding="utf-8").count("--data\n") == 2   # left as it was


def test_a_drop_that_names_no_corpus_is_a_one_line_error(two_corpora, tmp_path):
    proc = chunk(two_corpora, tmp_path, "ablation", TINY, DROP="nothing-like-it")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.strip() == f"gpu_train: DROP=nothing-like-it names no corpus of {two_corpora}/train-args.txt"


def test_eval_scores_the_averaged_weights_on_each_set(mix, tmp_path):
    de, en = tmp_path / "set.de", tmp_path / "set.en"
    de.write_text("Ich bin müde.\nWo ist der Bahnhof?\n", encoding="utf-8")
    en.write_text("I'm tired.\nWhere is the station?\n", encoding="utf-8")
    proc = chunk(mix, tmp_path, "scored", [*TINY, "--max-steps", "5"], EVAL=f"{mix / 'dev.tsv'} {de}:{en}")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    _, _, logs = returned(tmp_path, "scored")
    scores = [json.loads(line) for line in logs["logs/eval.jsonl"].splitlines()]
    assert [s["set"] for s in scores] == [str(mix / "dev.tsv"), f"{de}:{en}"]
    assert [s["sentences"] for s in scores] == [4, 2]
    assert all(0 <= s["chrf"] <= 100 and s["pipeline"] is False and s["beam"] == 4 for s in scores)
    assert f"scored: evaluated on: {mix / 'dev.tsv'} {de}:{en}" in logs["logs/times.txt"]


def test_eval_needs_no_package_of_the_text_pipeline_or_the_app(tiny_checkpoint):
    """A GPU machine has train.py's packages (the image and .gpu/whl-train), not the pipeline's and the
    app's: commands.evaluate --raw, which EVAL runs, imports none of them."""
    absent = ["simplemma", "py3langid", "flask", "plotly", "ctranslate2", "docx"]
    code = (f"import sys\nfor name in {absent!r}: sys.modules[name] = None\n"
            "from commands import evaluate\n"
            f"sys.exit(evaluate.main(['--checkpoint', {str(tiny_checkpoint)!r}, '--data', {str(PAIRS40)!r}, "
            "'--raw', '--json', '--device', 'cpu']))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["pipeline"] is False
