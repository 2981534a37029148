"""bench/gpu_check.sh dry-run on the CPU (DEVICE=cpu, tiny sizes): every step of the GPU recipe runs
and reports, so the script a lent GPU needs does not rot between the sessions that have one."""

from __future__ import annotations

import os
import subprocess
import sys

from bench.server import free_port
from tests.conftest import PAIRS40, ROOT


def test_gpu_check_dry_run_on_the_cpu(tmp_path):
    env = {**os.environ, "DEVICE": "cpu", "OUT": str(tmp_path / "out"), "WORK": str(tmp_path / "work"),
           "DATA": str(PAIRS40), "PYTHON": sys.executable, "OMP_NUM_THREADS": "1", "SERVE_PORT": str(free_port())}
    proc = subprocess.run(["bash", "bench/gpu_check.sh", "all"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=400)
    report = (tmp_path / "out" / "report.txt").read_text()
    assert proc.returncode == 0, report + proc.stderr[-2000:]
    lines = report.splitlines()
    assert lines[0].startswith("gpu_check ") and "DEVICE=cpu" in lines[0]
    steps = [line.split(":")[0].split()[-1] for line in lines if line.startswith(("ok ", "FAIL"))]
    assert steps == ["resume", "torchrun", "train1", "train2", "evaluate-cpu", "translate-torch", "translate-ct2",
                     "serve", "tests"]
    assert not any(line.startswith("FAIL") for line in lines)
    assert "cpu -> cpu -> cpu, 2 resumes, done: step 60" in report
    assert "/api/beam 200" in report and "4 identical to the CPU's PyTorch output" in report
