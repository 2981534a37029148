"""The documentation a newcomer reads: short, in plain words, complete where it lists things.

README.md and MODEL_CARD.md stay under 300 lines (history lives in docs/releases/ and git,
measurements in bench/README.md); no workshop words reach a reader who was not there; every
environment variable the app reads is documented; relative links lead somewhere.
"""

from __future__ import annotations

import re

import pytest

from app.settings import ALIASES, DEFAULTS
from tests.conftest import ROOT

README = ROOT / "README.md"
CARD = ROOT / "MODEL_CARD.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))  # not docs/releases/: the archive keeps what was written
TEMPLATES = sorted((ROOT / "templates").glob("*.html"))
READ_BY_USERS = [README, CARD, *DOCS, *TEMPLATES]

# Words of the place the project was built in, which a user has none of.
WORKSHOP_WORDS = [
    r"\bsessions?\b",           # "this session", "a later session" (not sessionStorage)
    r"\blent\b",                # "lent GPUs"
    r"\bdevice tool\b",
    r"\bissue \d+",             # "issue 22"
    r"\bthis CPU\b",            # say "a 2-core CPU"
    r"\bthis machine\b",
    r"(?<![\w.~/-])/(?:work|home)/",  # absolute paths of a machine (relative or settings instead)
    r"\bcarry(ing)? \.gpu",     # recipes of the tool's file transfer
]


def _name(path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("pattern", WORKSHOP_WORDS)
@pytest.mark.parametrize("path", READ_BY_USERS, ids=_name)
def test_no_workshop_words(path, pattern):
    text = path.read_text(encoding="utf-8")
    hits = [line.strip() for line in text.splitlines() if re.search(pattern, line, re.I)]
    assert not hits, f"{_name(path)}: {pattern} in {hits[:3]}"


@pytest.mark.parametrize("path", [README, CARD], ids=_name)
def test_short_enough_to_read(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 300


def test_readme_gives_ci_s_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().splitlines()[-1] == "python -m pytest -q -n 2"
    assert "python -m pytest -q -n 2\n" in README.read_text(encoding="utf-8")
    assert "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in README.read_text(encoding="utf-8")


# Read by gunicorn.conf.py rather than app/settings.py.
GUNICORN_VARIABLES = ["PORT", "WEB_CONCURRENCY", "GUNICORN_THREADS", "GUNICORN_TIMEOUT", "LOG_LEVEL",
                      "CUDA_VISIBLE_DEVICES", "PROMETHEUS_MULTIPROC_DIR", "MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_",
                      "MKL_DISABLE_FAST_MM"]


def test_gunicorn_variables_are_the_ones_it_reads():
    conf = (ROOT / "gunicorn.conf.py").read_text(encoding="utf-8")
    read = (set(re.findall(r"environ(?:\.get\(|\[)['\"]([A-Z_]+)['\"]", conf))
            | set(re.findall(r"['\"]([A-Z_]+)['\"] not in os\.environ", conf))
            | set(re.findall(r"setdefault\(['\"]([A-Z_]+)", conf))
            | set(re.findall(r"['\"]([A-Z_]+)['\"]: \(-\d+, ", conf)))  # MALLOPT's variables
    assert read - set(DEFAULTS) <= set(GUNICORN_VARIABLES), read - set(DEFAULTS) - set(GUNICORN_VARIABLES)


@pytest.mark.parametrize("name", sorted({*DEFAULTS, *ALIASES, *GUNICORN_VARIABLES} - {"TESTING"}))
def test_every_environment_variable_is_documented(name):
    full = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert f"| `{name}` |" in full
    assert f"`{name}`" in README.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", [README, CARD, *DOCS, ROOT / "bench" / "README.md",
                                  *sorted((ROOT / "docs" / "releases").glob("*.md"))], ids=_name)
def test_relative_links_lead_somewhere(path):
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        assert (path.parent / target.split("#")[0]).exists(), f"{_name(path)}: {target}"
