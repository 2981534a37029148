"""The console scripts of pyproject.toml's [project.scripts]: one per command, each running the same
``main`` as ``python -m commands.NAME``."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
COMMANDS = sorted(path.stem for path in (ROOT / "commands").glob("*.py") if path.stem not in ("__init__", "cli"))


def test_every_command_has_one_script_named_after_it():
    assert len(COMMANDS) == 11
    assert SCRIPTS == {f"nmt-{name.replace('_', '-')}": f"commands.{name}:main" for name in COMMANDS}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_script_s_target_is_the_command_s_main(script, capsys):
    module, function = SCRIPTS[script].split(":")
    main = getattr(importlib.import_module(module), function)
    assert main(["--help"]) == 0
    assert capsys.readouterr().out.startswith(f"usage: python -m {module} ")
    assert main(["--no-such-flag"]) == 2   # a required argument missing, or the flag unknown: one line
    err = capsys.readouterr().err
    assert err.startswith(f"python -m {module}: error: ") and err.count("\n") == 1 and err.endswith("\n")


@pytest.mark.slow
def test_installed_scripts_run_their_command():
    """What ``pip install -e .`` puts next to the interpreter (CI installs so: .ci/run)."""
    missing = [name for name in SCRIPTS if not Path(sys.executable).with_name(name).exists()]
    if missing:
        pytest.skip(f"not installed next to {sys.executable}: {' '.join(missing)} (pip install -e . again)")
    done = subprocess.run([str(Path(sys.executable).with_name("nmt-info")), "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("usage: nmt-info ")
    done = subprocess.run([str(Path(sys.executable).with_name("nmt-info")), "--checkpoint", "missing.pt"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", "nmt-info: error: checkpoint not found: 'missing.pt'\n")
