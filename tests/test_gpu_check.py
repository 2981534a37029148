"""bench/gpu_check.sh dry-run on the CPU (DEVICE=cpu, tiny sizes): every step of the GPU recipe runs
and reports, so the script a lent GPU needs does not rot between the sessions that have one."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from bench.server import free_port
from tests.conftest import PAIRS40, ROOT

pytestmark = pytest.mark.slow  # bench/gpu_check.sh runs every step of the GPU recipe, training included


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


def _listed(script: str, name: str) -> set[str]:
    return set(re.search(rf"^{name}=\(([^)]*)\)", script, re.M).group(1).split())


def test_the_device_gets_every_distribution_that_train_py_imports():
    """The device image lacks the corpus readers' libraries (moz.l10n, polib, ...): whatever
    `import train` loads must be in the image or among the wheels that the steps install there."""
    script = (ROOT / "bench" / "gpu_check.sh").read_text()
    code = ("import sys, importlib.metadata as m, train\n"
            "names = m.packages_distributions()\n"
            "print(' '.join(sorted({d for mod in list(sys.modules) for d in names.get(mod.split('.')[0], [])})))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = set(proc.stdout.split()) - {"de-en-nmt"}
    carried = _listed(script, "IMAGE_HAS") | _listed(script, "TRAIN_WHEELS") | _listed(script, "OPTIONAL")
    assert imported - carried == set()
    assert {"moz.l10n", "polib", "marisa-trie"} <= _listed(script, "TRAIN_WHEELS")


def _normal(names: set[str]) -> set[str]:
    return {re.sub(r"[-_.]+", "-", name).lower() for name in names}


def test_the_device_gets_every_distribution_that_the_served_app_imports(tiny_checkpoint):
    """The serve step runs the app on the device with ENGINE=torch and whl-app installed: whatever the
    app loads to answer the requests of bench/serve_check.py must be in the image or among the wheels."""
    script = (ROOT / "bench" / "gpu_check.sh").read_text()
    code = ("import sys, importlib.metadata as m\n"
            "from app import create_app\n"
            f"client = create_app({{'MODEL_PATH': {str(tiny_checkpoint)!r}, 'ENGINE': 'torch'}}).test_client()\n"
            "for path, body in [('/translate', {'q': 'Hallo Welt.', 'source': 'de', 'target': 'en'}),\n"
            "                   ('/api/attention', {'q': 'Hallo.'}), ('/api/explain', {'q': 'Hallo.'}),\n"
            "                   ('/api/complete', {'q': 'Hallo.', 'prefix': 'He'}), ('/api/beam', {'q': 'Hallo.'})]:\n"
            "    assert client.post(path, json=body).status_code == 200, path\n"
            "assert client.get('/health').status_code == 200\n"
            "names = m.packages_distributions()\n"
            "print(' '.join(sorted({d for mod in list(sys.modules) for d in names.get(mod.split('.')[0], [])})))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "ENGINE": "torch"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = _normal(set(proc.stdout.split())) - {"de-en-nmt"}
    carried = _normal(_listed(script, "IMAGE_HAS") | _listed(script, "TRAIN_WHEELS") | _listed(script, "APP_WHEELS")
                      | _listed(script, "OPTIONAL"))
    assert imported - carried == set()
    assert {"simplemma", "flask-limiter", "py3langid"} <= _normal(_listed(script, "APP_WHEELS"))
