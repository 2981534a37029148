"""ruff over the repository, with the rule set of pyproject.toml ([tool.ruff.lint]): CI fails on
an undefined name, an unused import or variable, or a name defined twice."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


def test_ruff_passes():
    assert RUFF is not None, "ruff is in the test extra: pip install -e '.[test]'"
    done = subprocess.run([RUFF, "check", "--no-cache", "--output-format", "concise", str(ROOT)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_finds_a_name_defined_twice(tmp_path):
    (tmp_path / "twice.py").write_text("def f():\n    return 1\n\n\ndef f():\n    return 2\n")
    done = subprocess.run([RUFF, "check", "--no-cache", "--output-format", "concise", "--config",
                           str(ROOT / "pyproject.toml"), str(tmp_path / "twice.py")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "F811 Redefinition of unused `f` from line 1" in done.stdout
