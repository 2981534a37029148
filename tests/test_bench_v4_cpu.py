"""bench/v4_cpu.sh: the commands it runs (PRINT=1), on a data folder laid out as bench/v4_data.py
writes it; what they do is train.py's, commands.backtranslate's and commands.evaluate's tests'."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.conftest import ROOT


@pytest.fixture
def data(tmp_path):
    v4 = tmp_path / "v4data"
    for path in ("europarl/en.txt", "mlqe/mlqe-train.de", "mlqe/mlqe-dev.de", "mt4all/customer_support.deu",
                 "wmt/newstest2019.de-en.de", "debian/root/usr/lib/libreoffice/program/resource/de/LC_MESSAGES/x",
                 "bt/europarl.2.tsv.gz"):
        (v4 / path).parent.mkdir(parents=True, exist_ok=True)
        (v4 / path).write_text("x\n")
    for path in ("deu-eng.zip", "de-en", "debian-reference/x"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x\n")
    return tmp_path


def commands(data, run, *args, **env):
    env = {**os.environ, "V4DATA": str(data / "v4data"), "TATOEBA": str(data / "deu-eng.zip"), "RUN": str(run),
           "DING": str(data / "de-en"), "DEBIAN_REFERENCE": str(data / "debian-reference"), "PRINT": "1", **env}
    done = subprocess.run(["bash", "bench/v4_cpu.sh", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_it_back_translates_the_shards_not_done_and_fine_tunes_v38_on_those_done(data, tmp_path):
    lines = commands(data, tmp_path / "run", SHARDS="3")
    shards = sorted(line.split("--shard ")[1].split()[0] for line in lines if "commands.backtranslate" in line)
    assert shards == ["1/3", "3/3"]                      # 2/3 is done
    train = [line for line in lines if "train.py" in line]
    assert len(train) == 1 and "--init checkpoints/de-en.pt" in train[0] and "--resume" not in train[0]
    assert f"--data {data}/v4data/bt/europarl.2.tsv.gz " in train[0]
    assert "--license GPL-2.0-only" in train[0] and "--concat-share 0.1" in train[0]
    assert all(line.startswith("niced ") for line in lines)   # nice -n 19, one thread


def test_a_started_run_resumes_on_its_own_shards(data, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "last.pt").write_text("x")
    (run / "debates.txt").write_text(f"{data}/v4data/bt/europarl.1.tsv.gz\n")
    train = [line for line in commands(data, run) if "train.py" in line][0]
    assert "--resume" in train and "--init" not in train
    assert f"--data {data}/v4data/bt/europarl.1.tsv.gz " in train and "europarl.2" not in train


def test_missing_data_and_unknown_actions_are_one_line_errors(data, tmp_path):
    (data / "v4data" / "europarl" / "en.txt").unlink()
    env = {**os.environ, "V4DATA": str(data / "v4data"), "TATOEBA": str(data / "deu-eng.zip"), "PRINT": "1",
           "RUN": str(tmp_path / "run")}
    done = subprocess.run(["bash", "bench/v4_cpu.sh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith(f"v4_cpu: no {data}/v4data/europarl/en.txt (")
    done = subprocess.run(["bash", "bench/v4_cpu.sh", "go"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (2, "v4_cpu: unknown action 'go' (start, status, stop)\n")


def test_own_weight_multiplies_the_weights_of_v38s_own_corpora_only(data, tmp_path):
    train = [line for line in commands(data, tmp_path / "run", OWN_WEIGHT="2") if "train.py" in line][0]
    assert f"--data {data}/deu-eng.zip@4 " in train and f"--data ding-sentences:{data}/de-en@6 " in train
    assert f"--data ding-words:{data}/de-en@0.6 " in train and "resource/de/LC_MESSAGES@4 " in train
    assert "libreoffice/help@2 " in train
    assert "mlqe/mlqe-train@5 " in train and "mt4all/customer_support@5 " in train   # the new text as it was


@pytest.mark.parametrize("weight", ["0", "0.0", "-1", "two", "1e3"])
def test_an_own_weight_not_above_zero_is_a_one_line_error(data, tmp_path, weight):
    env = {**os.environ, "V4DATA": str(data / "v4data"), "TATOEBA": str(data / "deu-eng.zip"), "PRINT": "1",
           "RUN": str(tmp_path / "run"), "DING": str(data / "de-en"),
           "DEBIAN_REFERENCE": str(data / "debian-reference"), "OWN_WEIGHT": weight}
    done = subprocess.run(["bash", "bench/v4_cpu.sh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (2, f"v4_cpu: OWN_WEIGHT must be a number > 0, got '{weight}'\n")
