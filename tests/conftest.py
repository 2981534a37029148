"""Fixtures shared by every test: the 40-pair corpus and tiny models trained on it, each at most once
(cached on disk across sessions, see ``trained_run``), the ``slow`` marker's rules, and
``run_script`` for the tests of bench/ scripts."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# PyTorch's OpenMP threads spin while they wait for each other. Where the cores are busy with other
# work (a training run beside the tests), a spinning thread holds the core its sibling needs: 60
# steps of the tiny model took 3 minutes instead of 8 seconds on 2 busy cores. Waiting passively
# changes no number. Set before torch is first imported (here, at the start of the session); the
# subprocesses the tests start inherit it. An OMP_WAIT_POLICY of the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

ROOT = Path(__file__).resolve().parents[1]


def run_script(script: str, args: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
    """``python SCRIPT ARGS`` in the repository's root, its output captured as text."""
    return subprocess.run([sys.executable, script, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
PAIRS40 = ROOT / "tests" / "data" / "pairs40.tsv"

# ------------------------------------------------------------------------------ the slow marker

# A test that uses one of these fixtures (directly or through others, e.g. app -> app_config ->
# tiny_checkpoint) is marked slow: they train models, start servers, launch a browser or load the
# release model. The fast loop is `python -m pytest -m "not slow"`; CI runs everything. Tests that
# are slow for other reasons (subprocesses running train.py or a bench script) carry an explicit
# @pytest.mark.slow or a module-wide pytestmark.
# (redis-server starts in milliseconds: tests of the Redis stores alone stay in the fast loop.)
SLOW_FIXTURES = frozenset({
    "tiny_run", "tiny_checkpoint", "legacy_checkpoint", "span_checkpoint",  # trained models
    "reverse_checkpoint",
    "release_checkpoint", "release_en_de_checkpoint",                       # checkpoints/de-en.pt, en-de.pt
    "live_server",                                                          # gunicorn
    "browser",                                                              # Chromium
})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


# ------------------------------------------------------------------------------ cached training runs

# Trained runs are kept here across sessions, one directory per key; `pytest --cache-clear` (which
# removes .pytest_cache) or deleting the folder makes the next session train again.
RUN_CACHE = Path(os.environ.get("TEST_RUN_CACHE") or ROOT / ".pytest_cache" / "trained-runs")


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def training_code_digest() -> str:
    """SHA-256 over train.py, the commands' plumbing it parses and reports with (commands/cli.py), and
    every source file of model/ and pipeline/ (train.py imports both), with their paths: any edit
    there, even one that should not change training, trains anew."""
    digest = hashlib.sha256()
    files = [ROOT / "train.py", ROOT / "commands" / "cli.py",
             *(path for folder in ("model", "pipeline") for path in (ROOT / folder).rglob("*")
               if path.is_file() and "__pycache__" not in path.parts)]
    for path in sorted(files):
        digest.update(f"{path.relative_to(ROOT)}\0{_file_digest(path)}\n".encode())
    return digest.hexdigest()


def run_key(args: list[str]) -> str:
    """The cache key of ``train.main(args)``: the training code, the arguments, the content of every
    file they name, and what else can change the numbers (versions, machine, torch's threads)."""
    import sentencepiece
    import torch

    files = {arg: _file_digest(Path(arg)) for arg in args if Path(arg).is_file()}
    material = {"code": training_code_digest(), "args": args, "files": files, "python": sys.version,
                "torch": torch.__version__, "sentencepiece": sentencepiece.__version__,
                "machine": platform.machine(), "threads": torch.get_num_threads()}
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def trained_run(name: str, args: list[str], tmp_path_factory) -> Path:
    """A private copy of the run directory that ``train.py <args> --out DIR`` writes, trained at most
    once per key (``run_key``) and kept in RUN_CACHE. Safe with concurrent sessions and xdist
    workers: one trains while the others wait on a lock file, and a run enters the cache by an
    atomic rename of its finished directory, so a killed session leaves no partial entry."""
    import train
    from commands import cli

    cli.set_threads()  # as train.main does first, so that the key and this process see its threads
    entry = RUN_CACHE / f"{name}-{run_key(args)[:24]}"
    if not (entry / "last.pt").exists():
        RUN_CACHE.mkdir(parents=True, exist_ok=True)
        with open(RUN_CACHE / f"{entry.name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (entry / "last.pt").exists():
                work = Path(tempfile.mkdtemp(prefix=f".{entry.name}-", dir=RUN_CACHE))
                try:
                    assert train.main([*args, "--out", str(work)]) == 0
                    os.chmod(work, 0o755)  # mkdtemp's 0o700 would keep it from other users of the checkout
                    os.rename(work, entry)
                finally:
                    shutil.rmtree(work, ignore_errors=True)
    out = tmp_path_factory.mktemp(name)  # tests may write into it: the cached entry stays as trained
    shutil.copytree(entry, out, dirs_exist_ok=True)
    return out

# Enough steps for the tiny preset to learn all 40 pairs by heart (dev BLEU 100 from step ~100).
TINY_ARGS = ["--preset", "tiny", "--max-steps", "150", "--warmup", "50", "--lr", "2e-3",
             "--eval-every", "150", "--max-tokens", "1024", "--save-every", "150", "--seed", "1", "--no-progress",
             "--no-lexicon"]  # it learns its 40 pairs by heart, "Anna" and "Berlin" included


def ding_file(tmp_path_factory, lines: list[str]) -> Path:
    """A dictionary in Ding's format of ``lines`` (written for a test), in a new folder."""
    path = tmp_path_factory.mktemp("ding") / "de-en"
    path.write_text("# Version :: test\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_pairs40() -> list[tuple[str, str]]:
    """(german, english) pairs of the test corpus, in file order."""
    lines = PAIRS40.read_text(encoding="utf-8").splitlines()
    return [(de, en) for en, de in (line.split("\t") for line in lines)]


@pytest.fixture(scope="session")
def corpus_path() -> Path:
    return PAIRS40


@pytest.fixture(scope="session")
def pairs40() -> list[tuple[str, str]]:
    return read_pairs40()


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    """Run directory of a tiny model trained on the 40 pairs (train = dev = all 40)."""
    return trained_run("tiny_run", ["--data", str(PAIRS40), "--valid", str(PAIRS40), *TINY_ARGS], tmp_path_factory)


@pytest.fixture(scope="session")
def tiny_checkpoint(tiny_run) -> Path:
    return tiny_run / "best.pt"


@pytest.fixture(scope="session")
def reverse_checkpoint(tmp_path_factory) -> Path:
    """The tiny model's recipe with --direction en-de: English to German, the 40 pairs by heart."""
    return trained_run("reverse_run", ["--data", str(PAIRS40), "--valid", str(PAIRS40), *TINY_ARGS,
                                       "--direction", "en-de"], tmp_path_factory) / "best.pt"


@pytest.fixture(scope="session")
def legacy_checkpoint(tmp_path_factory) -> Path:
    """The tiny model trained with --no-placeholders: a vocabulary without placeholder symbols, as in
    checkpoints made before the text pipeline existed, for the pipeline's fallback path."""
    args = ["--data", str(PAIRS40), "--valid", str(PAIRS40), *TINY_ARGS, "--no-placeholders"]
    return trained_run("legacy_run", args, tmp_path_factory) / "best.pt"


# A tiny model that has learned placeholders and ALL CAPS: the 40 pairs plus 10 with numbers and
# names (tests/data/pairs_spans.tsv, our own sentences), trained with strong augmentation. Here, not
# in tests/pipeline/, so that the app's tests share the one session-wide training run.
PAIRS_SPANS = ROOT / "tests" / "data" / "pairs_spans.tsv"
# Every name masked, a third of the pairs with a synthetic placeholder or upper-cased.
SPAN_AUGMENTATION = ["--placeholder-names", "1", "--placeholder-synthetic", "0.3", "--upper-share", "0.3",
                     "--title-share", "0", "--seed", "1"]
SPAN_ARGS = ["--preset", "tiny", "--max-steps", "300", "--warmup", "50", "--lr", "2e-3", "--eval-every", "300",
             "--max-tokens", "1024", "--save-every", "300", "--no-progress", *SPAN_AUGMENTATION]


@pytest.fixture(scope="session")
def span_corpus() -> Path:
    """The 50 pairs in one file, at a path named by its content: the same in every session, as the
    training arguments must be for the cache (``run_key``)."""
    text = PAIRS40.read_text(encoding="utf-8") + PAIRS_SPANS.read_text(encoding="utf-8")
    path = RUN_CACHE / "corpora" / f"pairs50-{hashlib.sha256(text.encode()).hexdigest()[:16]}.tsv"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False) as f:
            f.write(text)
        os.replace(f.name, path)  # atomic: a reader sees the whole file or none
    return path


@pytest.fixture(scope="session")
def span_checkpoint(tmp_path_factory, span_corpus) -> Path:
    args = ["--data", str(span_corpus), "--valid", str(span_corpus), *SPAN_ARGS]
    return trained_run("span_run", args, tmp_path_factory) / "best.pt"


@pytest.fixture(scope="session")
def span_translator(span_checkpoint):
    from model.inference.translator import Translator

    return Translator.from_checkpoint(span_checkpoint, device="cpu")


@pytest.fixture(scope="session")
def release_checkpoint() -> Path:
    """checkpoints/de-en.pt, the shipped model. Every fixture that loads it takes this one, so that
    its tests are marked slow (SLOW_FIXTURES)."""
    from commands.cli import DEFAULT_CHECKPOINT

    return DEFAULT_CHECKPOINT


@pytest.fixture(scope="session")
def release_en_de_checkpoint() -> Path:
    """checkpoints/en-de.pt, the shipped English→German model (marked slow as ``release_checkpoint``)."""
    from app.settings import SHIPPED_EN_DE

    return Path(SHIPPED_EN_DE)


@pytest.fixture(scope="session")
def release_en_de_pipeline(release_en_de_checkpoint):
    """The shipped en-de model as ``release_pipeline`` serves de-en: CTranslate2, float32 PyTorch
    weights; no dictionary (it reads German)."""
    from model.inference.engines import load_engine
    from pipeline.translation import Options, Pipeline

    return Pipeline(load_engine(release_en_de_checkpoint, engine="ct2", device="cpu", precision="fp32"), Options())


@pytest.fixture(scope="session")
def release_pipeline(release_checkpoint):
    """The release model (checkpoints/de-en.pt) on the CTranslate2 engine, as the app serves it:
    outputs checked against the Ding dictionary for words left out (where trans-de-en is installed,
    as in CI). The PyTorch weights (alignment) in float32 on any CPU, as ``release_client``'s."""
    from model.data.ding import DEBIAN_PATH, load_dictionary
    from model.inference.engines import load_engine
    from pipeline.coverage import Coverage
    from pipeline.translation import Options, Pipeline

    coverage = Coverage.of(load_dictionary(DEBIAN_PATH)) if os.path.isfile(DEBIAN_PATH) else None
    return Pipeline(load_engine(release_checkpoint, engine="ct2", device="cpu", precision="fp32"), Options(),
                    coverage=coverage)
