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

PACKAGES = ("commands", "model", "pipeline", "app")
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make"}   # public despite the underscore


def test_import_contracts_are_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache", "--config", str(ROOT / ".importlinter")], cwd=ROOT,
                            capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "Contracts: 2 kept, 0 broken." in result.stdout


def test_contracts_have_no_exceptions():
    """The layers hold with no import excused: the commands (commands/) are the top layer."""
    config = (ROOT / ".importlinter").read_text(encoding="utf-8")
    assert "ignore_imports" not in config and "\n    commands\n    app\n    pipeline\n" in config


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


# ------------------------------------------------------------------ search knobs have one owner

SEARCH_OPTIONS = ROOT / "model" / "search" / "options.py"
# SearchOptions' fields, and the names they went by before they had one owner.
SEARCH_KNOBS = {"beam_size", "length_penalty", "n_best", "max_len_a", "max_len_b", "min_len", "no_repeat_ngram_size",
                "batch_size", "beam", "alpha", "length_penalty_alpha", "no_repeat"}
SEARCH_FLAGS = {"--beam", "--length-penalty", "--batch-size", "--n-best", "--no-repeat-ngram-size"}


def _literal(node: ast.AST | None) -> bool:
    """A value written out (4, 0.6, -1, "x", None), not a name that refers to one (nor a
    protocol's ``...``: "has a default")."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and node.value is not Ellipsis


def _field_default(node: ast.AST | None) -> ast.AST | None:
    """The default of a class attribute: itself, or ``field(default=...)``'s."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "field":
        return next((k.value for k in node.keywords if k.arg == "default"), None)
    return node


def _knob_defaults(source: str, name: str, commands: bool = False) -> list[str]:
    """Literal defaults of search knobs in ``source``: of parameters, of class attributes
    (dataclass fields), and of the search flags in ``add_argument``; with ``commands`` (a module of
    the library or its commands, other than commands/cli.py), every declaration of a search flag."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            positional = a.posonlyargs + a.args
            pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
            pairs += [(arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
            found += [f"{name}:{d.lineno} {getattr(node, 'name', 'lambda')}({arg.arg}={ast.unparse(d)})"
                      for arg, d in pairs if arg.arg in SEARCH_KNOBS and _literal(d)]
        elif isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, ast.AnnAssign):
                    targets, value = [statement.target], statement.value
                elif isinstance(statement, ast.Assign):
                    targets, value = statement.targets, statement.value
                else:
                    continue
                found += [f"{name}:{statement.lineno} {node.name}.{t.id} = {ast.unparse(value)}" for t in targets
                          if isinstance(t, ast.Name) and t.id in SEARCH_KNOBS and _literal(_field_default(value))]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
            flags = {a.value for a in node.args if isinstance(a, ast.Constant)} & SEARCH_FLAGS
            default = next((k.value for k in node.keywords if k.arg == "default"), None)
            if flags and (commands or _literal(default)):
                found.append(f"{name}:{node.lineno} add_argument({', '.join(sorted(flags))}"
                             + (f", default={ast.unparse(default)})" if default is not None else ")"))
    return sorted(found, key=lambda hit: int(hit.split(":")[1].split()[0]))


def test_search_knob_defaults_are_written_only_in_search_options():
    """Every default of a search knob comes from ``SearchOptions`` (model/search/options.py), and
    the commands' search flags are declared once, in ``commands.cli.add_search_args``."""
    files = [p for package in (*PACKAGES, "bench") for p in (ROOT / package).rglob("*.py")] + [ROOT / "train.py"]
    found = []
    for path in sorted(files):
        if path == SEARCH_OPTIONS:
            continue
        relative = path.relative_to(ROOT)
        commands = relative.parts[0] in PACKAGES and relative != Path("commands/cli.py")
        found += _knob_defaults(path.read_text(encoding="utf-8"), str(relative), commands)
    assert found == []


def test_knob_defaults_are_found_wherever_they_hide():
    source = '''
from dataclasses import dataclass, field

def translate(texts, *, beam_size=4, length_penalty=DEFAULT.length_penalty): ...
def rank(result, alpha: float = 0.6, /): ...
def align(sources, *, batch_size: int = ...): ...
pick = lambda hyps, n_best=1: hyps[:n_best]

@dataclass
class Options:
    no_repeat_ngram_size: int = 6
    batch_size: int = field(default=64)
    search: SearchOptions = SERVED
    min_len = -1

p.add_argument("--beam", type=int, default=4)
p.add_argument("--length-penalty", type=float, default=SERVED.length_penalty)
'''
    assert _knob_defaults(source, "x.py") == [
        "x.py:4 translate(beam_size=4)", "x.py:5 rank(alpha=0.6)", "x.py:7 lambda(n_best=1)",
        "x.py:11 Options.no_repeat_ngram_size = 6", "x.py:12 Options.batch_size = field(default=64)",
        "x.py:14 Options.min_len = -1", "x.py:16 add_argument(--beam, default=4)"]
    assert _knob_defaults(source, "x.py", commands=True)[-2:] == [
        "x.py:16 add_argument(--beam, default=4)", "x.py:17 add_argument(--length-penalty, default=SERVED.length_penalty)"]


def test_the_pipeline_names_no_rule():
    # Pipeline reaches its rules through the contract of pipeline.rules.base.Rule alone: it imports
    # no rule module and tests no rule's name (a new family is a module and a place in RULES).
    tree = ast.parse((ROOT / "pipeline" / "translation.py").read_text(encoding="utf-8"))
    imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
    assert [m for m in imported if m.startswith("rules.") or m.startswith("pipeline.rules.")] == []
    named = [ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Compare)
             and "rule.name" in ast.unparse(node.left) and any(isinstance(c, ast.Constant) for c in node.comparators)]
    assert named == []
