"""No regular expression of the text pipeline or the web service backtracks catastrophically.

Every compiled pattern at module level in ``pipeline/`` and ``app/`` runs over the adversarial
families of ``bench.adversarial`` (5,000 characters each) the way its module uses it: ``match`` and
``fullmatch`` from the start, the searches (``search``, ``finditer``, ``findall``, ``sub``,
``split``) over the whole text. A pattern with nested quantifiers over overlapping classes takes
seconds to hours on one of them (the identifier pattern took 50 s on "Ab" * 2,499 + "-"); a sound
one takes microseconds to a few milliseconds. The bound is CPU time of this process, and far
above what any sound pattern needs, so that a loaded machine cannot fail it.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import time
from pathlib import Path

import pytest

import app
import pipeline
from bench.adversarial import families

BOUND = 0.1  # seconds of CPU per pattern and family; the slowest sound pattern needs about 0.03
SEARCHES = ("search", "finditer", "findall", "sub", "subn", "split")


def compiled_patterns() -> dict[str, tuple[re.Pattern, set[str]]]:
    """``module.NAME`` -> (pattern, the methods its module calls on it)."""
    found = {}
    for package in (pipeline, app):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):  # subpackages too
            module = importlib.import_module(info.name)
            source = Path(module.__file__).read_text(encoding="utf-8")
            for name, value in vars(module).items():
                if isinstance(value, re.Pattern):
                    used = set(re.findall(rf"\b{re.escape(name)}\.(\w+)\(", source))
                    found[f"{module.__name__}.{name}"] = (value, used or set(SEARCHES))
    return found


PATTERNS = compiled_patterns()
FAMILIES = families()


def test_the_guard_sees_the_patterns():
    assert len(PATTERNS) > 100 and "pipeline.rules.verbatim._SPAN_RE" in PATTERNS   # the subpackages' too
    assert "pipeline.documents.epub._BODY_OPEN" in PATTERNS
    assert PATTERNS["pipeline.icu._HEAD"][1] == {"match"}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_no_pattern_backtracks_catastrophically(name):
    pattern, used = PATTERNS[name]
    slow = []
    for family, text in FAMILIES.items():
        start = time.process_time()
        if used & {"match", "fullmatch"}:
            pattern.match(text)
            pattern.fullmatch(text)
        if used & set(SEARCHES) or not used & {"match", "fullmatch"}:
            for _ in pattern.finditer(text):
                pass
        spent = time.process_time() - start
        if spent > BOUND:
            slow.append(f"{family}: {spent:.2f} s")
    assert slow == []
