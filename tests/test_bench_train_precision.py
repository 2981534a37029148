"""bench/train_precision.py: float32 against bfloat16 autocast, the same steps on the same weights."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.conftest import run_script

pytestmark = pytest.mark.slow  # bench/train_precision.py runs in a subprocess


def run_bench(args: list[str]) -> subprocess.CompletedProcess:
    return run_script("bench/train_precision.py", args)


def test_measures_both_precisions_on_one_model_shape():
    proc = run_bench(["--preset", "tiny", "--max-tokens", "256", "--steps", "1", "--repeats", "2", "--json"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["parameters"] == 1_054_208 and result["max_tokens"] == 256 and result["repeats"] == 2
    assert set(result["tok_s"]) == {"fp32", "bf16"} and min(result["tok_s"].values()) > 0
    assert result["bf16_over_fp32"] == round(result["tok_s"]["bf16"] / result["tok_s"]["fp32"], 2)
    assert "repeat 2/2: fp32 " in proc.stderr


@pytest.mark.parametrize("args, message", [
    (["--steps", "0"], "bench/train_precision.py: error: --max-tokens must be 1-1000000, --steps 1-1000 and "
                       "--repeats 1-100"),
    (["--heads", "5"], "bench/train_precision.py: error: d_model 256 is not divisible by n_heads 5"),
    (["--preset", "huge"], "bench/train_precision.py: error: unknown preset 'huge'; choose one of "
                           "['base', 'medium', 'small', 'tiny']"),
])
def test_bad_arguments_are_one_line(args, message):
    proc = run_bench(args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == message
