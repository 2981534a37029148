"""The architecture as a test: the import-linter contracts of .importlinter hold, no import cycle
exists, and no module reaches into another module's private names."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import grimp

from tests.conftest import ROOT

PACKAGES = ("model", "pipeline", "app")
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make"}   # public despite the underscore


def test_import_contracts_are_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache", "--config", str(ROOT / ".importlinter")], cwd=ROOT,
                            capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "Contracts: 3 kept, 0 broken." in result.stdout


def test_no_import_cycles():
    graph = grimp.build_graph(*PACKAGES)
    cycles = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            # a package importing its own submodules (re-exports) is not a cycle of layers
            if imported.startswith(module + ".") or module.startswith(imported + "."):
                continue
            if graph.chain_exists(importer=imported, imported=module):
                cycles.append(f"{module} -> {imported} -> ... -> {module}")
    assert cycles == []


def _private_reach_ins(path: Path) -> list[str]:
    """Uses of another module's private names: ``from x import _name``, and ``obj._name`` where
    ``obj`` is not ``self``/``cls`` and ``_name`` is not defined in this file (dunders are fine)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)
        elif isinstance(node, ast.arg):
            own.add(node.arg)
    own |= NAMEDTUPLE_API
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            found += [f"{path.relative_to(ROOT)}:{node.lineno} imports {node.module}.{alias.name}"
                      for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")]
        elif (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
              and node.attr not in own and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} uses .{node.attr}")
    return found


def test_no_private_reach_ins_between_modules():
    files = [p for package in (*PACKAGES, "bench") for p in (ROOT / package).rglob("*.py")] + [ROOT / "train.py"]
    found = [hit for path in sorted(files) for hit in _private_reach_ins(path)]
    assert found == []
