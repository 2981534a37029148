"""train.py end to end: learning, checkpoints, metrics, resume after SIGKILL, torchrun, bad input."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import train
from model.network.checkpoint import read_checkpoint
from model.data import read_pairs
from model.inference.translator import Translator
from model.search.options import SearchOptions
from tests.conftest import PAIRS40, ROOT

pytestmark = pytest.mark.slow  # train.py trains: in subprocesses, in process, or the session's tiny run

# Several batches per epoch (so resume must restore the position inside an epoch) and dropout on
# (so it must restore the RNG too). On the CPU: on a GPU, attention's backward pass is not
# deterministic, so a resumed run is exact in state but not bit for bit in arithmetic.
RESUME_ARGS = ["--device", "cpu", "--preset", "tiny", "--max-tokens", "160", "--dropout", "0.1", "--warmup", "20", "--lr", "2e-3",
               "--eval-every", "25", "--save-every", "10", "--seed", "3", "--no-progress"]


def torchrun_failure(stderr: str) -> str:
    """What a failed torchrun job printed: the ranks' own messages come first (torchrun's summary
    and traceback last), so both ends."""
    return stderr if len(stderr) <= 6000 else stderr[:4000] + "\n[...]\n" + stderr[-2000:]


def run_train(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "train.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, **kwargs)


def test_tiny_learns_40_pairs_by_heart(tiny_checkpoint, pairs40):
    translator = Translator.from_checkpoint(tiny_checkpoint, "cpu")
    german = [de for de, _ in pairs40]
    english = [en for _, en in pairs40]
    assert translator.translate(german) == english
    assert translator.translate(german, SearchOptions(beam_size=4)) == english


def test_vocabulary_reserves_the_placeholders(tiny_checkpoint, tmp_path):
    from pipeline.spans import PLACEHOLDERS

    tokenizer = Translator.from_checkpoint(tiny_checkpoint, "cpu").tokenizer
    assert tokenizer.user_symbols == frozenset(PLACEHOLDERS)
    assert tokenizer.pieces(range(4, 4 + len(PLACEHOLDERS))) == list(PLACEHOLDERS)
    out = tmp_path / "plain"
    assert train.main(["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), "--preset", "tiny",
                       "--max-steps", "1", "--no-placeholders", "--no-progress"]) == 0
    assert Translator.from_checkpoint(out / "best.pt", "cpu").tokenizer.user_symbols == frozenset()


def test_a_vocabulary_learned_beforehand_is_the_one_a_run_learns(tmp_path):
    """--vocab-only writes what a run with the same arguments learns; --tokenizer trains with it."""
    common = ["--data", str(PAIRS40), "--valid", str(PAIRS40), "--preset", "tiny", "--no-progress", "--seed", "2"]
    assert train.main([*common, "--out", str(tmp_path / "vocab"), "--vocab-only"]) == 0
    vocabulary = tmp_path / "vocab" / "tokenizer.model"
    assert sorted(p.name for p in (tmp_path / "vocab").iterdir()) == ["tokenizer.model"]
    assert train.main([*common, "--out", str(tmp_path / "learned"), "--max-steps", "1"]) == 0
    assert read_checkpoint(tmp_path / "learned" / "last.pt")["tokenizer"] == vocabulary.read_bytes()
    assert train.main([*common, "--out", str(tmp_path / "given"), "--max-steps", "1", "--tokenizer", str(vocabulary)]) == 0
    given = read_checkpoint(tmp_path / "given" / "last.pt")
    assert given["tokenizer"] == vocabulary.read_bytes() and given["meta"]["train_args"]["tokenizer"] == str(vocabulary)


def test_a_vocabulary_without_placeholders_serves_only_a_run_without_them(tmp_path):
    common = ["--data", str(PAIRS40), "--valid", str(PAIRS40), "--preset", "tiny", "--no-progress"]
    assert train.main([*common, "--out", str(tmp_path / "vocab"), "--vocab-only", "--no-placeholders"]) == 0
    vocabulary = str(tmp_path / "vocab" / "tokenizer.model")
    proc = run_train([*common, "--out", str(tmp_path / "x"), "--tokenizer", vocabulary])
    assert (proc.returncode, proc.stderr) == (2, f"train.py: error: --tokenizer {vocabulary!r} has no placeholder "
                                                 "symbols: learn it with the same augmentation flags, or pass "
                                                 "--no-placeholders\n")
    assert train.main([*common, "--out", str(tmp_path / "y"), "--max-steps", "1", "--no-placeholders",
                       "--tokenizer", vocabulary]) == 0


def test_run_directory_contents(tiny_run):
    assert sorted(p.name for p in tiny_run.iterdir()) == ["best.pt", "last.pt", "metrics.jsonl"]
    records = [json.loads(line) for line in (tiny_run / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == [150]
    assert records[-1]["dev_bleu"] == 100.0
    assert set(records[-1]) >= {"step", "epoch", "train_loss", "dev_loss", "dev_bleu", "best_bleu", "lr"}
    last = read_checkpoint(tiny_run / "last.pt")
    best = read_checkpoint(tiny_run / "best.pt")
    assert "train_state" in last and "train_state" not in best
    meta = best["meta"]
    assert meta["step"] == 150 and meta["dev_bleu"] == 100.0
    assert meta["curves"]["step"] == [150] and meta["curves"]["dev_bleu"] == [100.0]
    assert meta["data"]["train_pairs"] == 40 and len(meta["data"]["sha256"][str(PAIRS40)]) == 64
    assert meta["versions"]["torch"] == str(torch.__version__)
    assert meta["parameters"] > 500_000 and meta["wall_time_s"] > 0
    assert re.fullmatch(rf"1 x cpu \(.+, {torch.get_num_threads()} threads\)", meta["hardware"])


def test_split_without_valid_writes_disjoint_dev_and_test(tmp_path):
    out = tmp_path / "run"
    assert train.main(["--data", str(PAIRS40), "--out", str(out), "--preset", "tiny", "--max-steps", "2",
                       "--eval-every", "2", "--no-progress", "--vocab-size", "100"]) == 0
    dev, test = read_pairs(out / "dev.tsv"), read_pairs(out / "test.tsv")
    meta = read_checkpoint(out / "last.pt")["meta"]["data"]
    assert (meta["train_pairs"], meta["dev_pairs"], meta["test_pairs"]) == (32, len(dev), len(test)) == (32, 4, 4)
    assert not {s for p in dev for s in p} & {s for p in test for s in p}


def _weights(path: Path) -> dict[str, torch.Tensor]:
    return read_checkpoint(path)["model"]


def test_resume_after_sigkill_is_exact(tmp_path):
    """Kill -9 mid-run, resume: the final weights equal those of an uninterrupted run, bit for bit."""
    common = ["--data", str(PAIRS40), "--valid", str(PAIRS40), *RESUME_ARGS, "--max-steps", "60"]
    straight = tmp_path / "straight"
    assert run_train([*common, "--out", str(straight)]).returncode == 0

    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "train.py", *common, "--out", str(killed)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Killed right after the evaluation of step 25 (saves at 10 and 20), whatever the machine's
    # speed: the steps after the save at 20 and that evaluation are lost and redone; steps 26-60, the
    # evaluation at 50 and the final one come after the resume.
    metrics, deadline = killed / "metrics.jsonl", time.time() + 120
    while not (metrics.exists() and metrics.read_text()) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    step_at_kill = read_checkpoint(killed / "last.pt")["train_state"]["state"]["step"]
    assert 0 < step_at_kill < 60

    resumed = run_train([*common, "--out", str(killed), "--resume"])
    assert resumed.returncode == 0, resumed.stderr
    assert f"resumed from {killed / 'last.pt'} at step {step_at_kill}" in resumed.stdout
    a, b = _weights(straight / "last.pt"), _weights(killed / "last.pt")
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert read_checkpoint(killed / "last.pt")["meta"]["step"] == 60


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_saves_the_step_it_stopped_at(tmp_path, signum):
    """SIGTERM (a watchdog, a scheduler) or Ctrl-C: the current step ends, last.pt is written with it,
    the exit is clean and --resume continues from there; nothing is lost."""
    common = ["--data", str(PAIRS40), "--valid", str(PAIRS40), *RESUME_ARGS]
    out = tmp_path / "run"
    # The child handles the signal as by default even where pytest runs with SIGINT ignored (nohup,
    # a script's background job), which it would inherit (test_an_ignored_sigint_stays_ignored).
    proc = subprocess.Popen([sys.executable, "train.py", *common, "--max-steps", "100000", "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL))
    deadline = time.time() + 120
    while not (out / "last.pt").exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # past the save, so that steps would be lost without this
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    stopped = re.search(r"^stopped by (\w+) at step (\d+); saving \(--resume continues\)$", stdout, re.M)
    assert stopped and stopped[1] == signal.Signals(signum).name, stdout
    step = int(stopped[2])
    assert read_checkpoint(out / "last.pt")["train_state"]["state"]["step"] == step
    assert f"done: step {step}," in stdout
    resumed = run_train([*common, "--max-steps", str(step + 3), "--out", str(out), "--resume"])
    assert resumed.returncode == 0, resumed.stderr
    assert f"resumed from {out / 'last.pt'} at step {step} " in resumed.stdout


def test_an_ignored_sigint_stays_ignored(tmp_path):
    """A background job of a shell ignores SIGINT; training must not start obeying it."""
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "train.py", "--data", str(PAIRS40), "--valid", str(PAIRS40), *RESUME_ARGS,
                             "--max-steps", "100000", "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    deadline = time.time() + 120
    while not (out / "last.pt").exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    time.sleep(1.0)
    assert proc.poll() is None, "SIGINT stopped a run that ignores it"
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert re.search(r"^stopped by SIGTERM at step \d+; saving", stdout, re.M), stdout


def test_torchrun_two_cpu_processes(tmp_path):
    out = tmp_path / "ddp"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", "train.py",
         "--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), "--preset", "tiny",
         "--max-steps", "60", "--warmup", "20", "--lr", "2e-3", "--eval-every", "30", "--max-tokens", "256",
         "--no-progress", "--device", "cpu"], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, torchrun_failure(proc.stderr)
    assert proc.stdout.count("data: 40 train") == 1, "only rank 0 logs"
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == [30, 60], "only rank 0 writes"
    assert records[-1]["dev_bleu"] > 50
    last = read_checkpoint(out / "last.pt")
    assert last["meta"]["step"] == 60
    # Each rank's own random state is saved (rank 0 writes them all), and they differ: each rank
    # draws its own dropout masks.
    ranks = last["train_state"]["rng"]["ranks"]
    assert len(ranks) == 2 and not torch.equal(ranks[0]["torch"], ranks[1]["torch"])
    assert all("cuda" not in state for state in ranks)


def test_max_minutes_stops_and_saves(tmp_path):
    out = tmp_path / "timed"
    proc = run_train(["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), "--preset", "tiny",
                      "--max-minutes", "0.05", "--eval-every", "100000", "--no-progress", "--vocab-size", "100"])
    assert proc.returncode == 0, proc.stderr
    step = read_checkpoint(out / "last.pt")["meta"]["step"]
    assert step > 0 and "done: step" in proc.stdout


def test_keep_checkpoints_keeps_the_newest_saves(tmp_path):
    out = tmp_path / "kept"
    proc = run_train(["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), "--preset", "tiny",
                      "--vocab-size", "100", "--max-tokens", "160", "--max-steps", "35", "--save-every", "10",
                      "--eval-every", "100000", "--keep-checkpoints", "2", "--no-progress"])
    assert proc.returncode == 0, proc.stderr
    # saves at 10, 20, 30 and the final one at 35; the two newest stay
    assert sorted(p.name for p in out.glob("step-*.pt")) == ["step-0000030.pt", "step-0000035.pt"]
    for step in (30, 35):
        ckpt = read_checkpoint(out / f"step-{step:07d}.pt")
        assert ckpt["meta"]["step"] == step and "train_state" not in ckpt


def test_existing_run_needs_resume(tiny_run):
    proc = run_train(["--data", str(PAIRS40), "--out", str(tiny_run), "--preset", "tiny"])
    assert proc.returncode == 2
    assert proc.stderr == (f"train.py: error: {str(tiny_run / 'last.pt')!r} exists: pass --resume to continue "
                           "that run, or choose another --out\n")


@pytest.mark.parametrize("args, message", [
    (["--data", "nope.zip"], "train.py: error: corpus not found: 'nope.zip'"),
    (["--data", str(PAIRS40), "--max-tokens", "0"], "train.py: error: --max-tokens must be >= 1, got 0"),
    (["--data", str(PAIRS40), "--preset", "huge"], "train.py: error: argument --preset: invalid choice: 'huge'"),
    (["--data", str(PAIRS40), "--d-model", "100", "--heads", "3"],
     "train.py: error: d_model 100 is not divisible by n_heads 3"),
    (["--data", str(PAIRS40), "--keep-checkpoints", "-1"], "train.py: error: --keep-checkpoints must be >= 0, got -1"),
    (["--data", str(PAIRS40), "--max-minutes", "-1"], "train.py: error: --max-minutes must be > 0, got -1.0"),
    (["--data", str(PAIRS40), "--upper-share", "1.5"], "train.py: error: upper_share must be in [0, 1], got 1.5"),
    (["--data", str(PAIRS40), "--upper-share", "0.7", "--title-share", "0.5"],
     "train.py: error: upper_share + title_share must be <= 1, got 1.2"),
    (["--data", str(PAIRS40), "--concat-share", "1.5"], "train.py: error: concat_share must be in [0, 1], got 1.5"),
    (["--data", str(PAIRS40), "--data", "bconstrast:nope"], "train.py: error: corpus not found: 'nope'"),
    (["--data", str(PAIRS40), "--data-sources", "nope.json"], "train.py: error: --data-sources not found: 'nope.json'"),
    (["--data", str(PAIRS40), "--data-sources", str(PAIRS40)],
     f"train.py: error: cannot read --data-sources {str(PAIRS40)!r}: Expecting value: line 1 column 1 (char 0)"),
    (["--data", str(PAIRS40), "--precision", "fp16"],
     "train.py: error: argument --precision: invalid choice: 'fp16'"),
    (["--data", str(PAIRS40), "--tokenizer", "nope.model"],
     "train.py: error: --tokenizer not found: 'nope.model'"),
    (["--data", str(PAIRS40), "--tokenizer", str(PAIRS40)],
     f"train.py: error: --tokenizer {str(PAIRS40)!r}: invalid SentencePiece model: "),
    (["--data", str(PAIRS40), "--tokenizer", "t.model", "--init", "c.pt"],
     "train.py: error: --tokenizer and --init cannot be used together"),
    (["--data", str(PAIRS40), "--vocab-only", "--resume"], "train.py: error: --vocab-only and --resume cannot be used together"),
    (["--data", str(PAIRS40), "--device", "cuda"],
     "train.py: error: device 'cuda' was asked for, but no CUDA GPU is available"),
])
def test_bad_arguments_give_one_line_errors(tmp_path, args, message):
    if "cuda" in args and torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    proc = run_train([*args, "--out", str(tmp_path / "x"), "--max-steps", "1"])
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(message)


def test_data_sources_must_be_a_list_of_corpus_records(tmp_path):
    sources = tmp_path / "sources.json"
    sources.write_text('{"corpus": "deu-eng.zip", "sha256": "5a01"}', encoding="utf-8")
    proc = run_train(["--data", str(PAIRS40), "--data-sources", str(sources), "--out", str(tmp_path / "x")])
    assert proc.returncode == 2 and proc.stderr == (
        f"train.py: error: --data-sources {str(sources)!r} is not a sources.json of commands.mixture "
        "(a list of records with 'corpus' and 'sha256')\n")


def test_several_corpora_with_weights(tmp_path):
    ding = tmp_path / "de-en"
    out = tmp_path / "mix"
    lines = ["# Version :: test", "Hund {m} | Hunde {pl} :: dog | dogs", "Haus {n} | Er baut ein Haus. :: house | "
             "He is building a house."]
    ding.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # One example sentence is too few to hold out Ding's dev and test splits from (the next test does).
    proc = run_train(["--data", str(PAIRS40), "--data", f"ding-sentences:{ding}@2", "--data", f"ding-words:{ding}@0.5",
                      "--domain-split-size", "0",
                      "--out", str(out), "--preset", "tiny", "--vocab-size", "100", "--max-steps", "2",
                      "--no-progress", "--data-attribution", "Tatoeba, CC-BY 2.0 (France)",
                      "--data-attribution", "Ding, GPL-2.0-or-later", "--license", "GPL-2.0-or-later"])
    assert proc.returncode == 0, proc.stderr
    assert (f"corpora: {PAIRS40} (32 train pairs), ding-sentences:{ding}@2 (1 train pairs), "
            f"ding-words:{ding}@0.5 (3 train pairs)") in proc.stdout
    data = read_checkpoint(out / "last.pt")["meta"]["data"]
    assert data["corpora"] == [
        {"corpus": str(PAIRS40), "weight": 1.0, "train_pairs": 32},
        {"corpus": f"ding-sentences:{ding}@2", "weight": 2.0, "train_pairs": 1},
        {"corpus": f"ding-words:{ding}@0.5", "weight": 0.5, "train_pairs": 3}]
    assert data["train_pairs"] == 36 and set(data["sha256"]) == {str(PAIRS40), str(ding)}
    assert data["attribution"] == "Tatoeba, CC-BY 2.0 (France); Ding, GPL-2.0-or-later"
    assert data["license"] == "GPL-2.0-or-later"


def test_extra_corpora_never_train_on_held_out_sentences(tmp_path):
    first = tmp_path / "first"
    proc = run_train(["--data", str(PAIRS40), "--out", str(first), "--preset", "tiny", "--vocab-size", "100",
                      "--max-steps", "1", "--no-progress"])
    assert proc.returncode == 0, proc.stderr
    _, dev_en = read_pairs(first / "dev.tsv")[0]
    test_de, _ = read_pairs(first / "test.tsv")[0]
    extra = tmp_path / "extra.tsv"
    extra.write_text(f"{dev_en}\tNeu.\nSomething new.\t{test_de}\nA fresh pair.\tEin neues Paar.\n", encoding="utf-8")
    out = tmp_path / "second"
    proc = run_train(["--data", str(PAIRS40), "--data", str(extra), "--out", str(out), "--preset", "tiny",
                      "--vocab-size", "100", "--max-steps", "1", "--no-progress"])
    assert proc.returncode == 0, proc.stderr
    assert f"{extra} (1 train pairs)" in proc.stdout, "pairs sharing a dev or test sentence are dropped"


@pytest.mark.parametrize("spec, message", [
    ("x.tsv@heavy", "train.py: error: corpus weight must be a number, got 'heavy' in 'x.tsv@heavy'"),
    ("ding-words:/nonexistent/de-en", "train.py: error: corpus not found: '/nonexistent/de-en'"),
])
def test_bad_corpus_specs(tmp_path, spec, message):
    proc = run_train(["--data", str(PAIRS40), "--data", spec, "--out", str(tmp_path / "x"), "--max-steps", "1"])
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == message


def test_torchrun_on_a_corpus_smaller_than_a_batch_per_rank(tmp_path):
    """200 pairs fit in one batch: each epoch still gives both ranks a step (it used to loop at step 0)."""
    corpus = tmp_path / "200.tsv"
    corpus.write_text("".join(f"I have {n} apples.\tIch habe {n} Äpfel.\n" for n in range(200)), encoding="utf-8")
    out = tmp_path / "ddp200"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", "train.py",
         "--data", str(corpus), "--out", str(out), "--preset", "tiny", "--vocab-size", "100", "--max-steps", "6",
         "--no-progress", "--eval-sentences", "5", "--device", "cpu"], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, torchrun_failure(proc.stderr)
    assert "data: 160 train / 20 dev / 20 test pairs" in proc.stdout
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == [1, 2, 3, 4, 5, 6], "one step per epoch, evaluated each epoch"
    assert read_checkpoint(out / "last.pt")["meta"]["step"] == 6


def test_init_fine_tunes_from_a_checkpoint(tiny_checkpoint, tmp_path):
    """--init: the checkpoint's weights, vocabulary and shape (not the preset's), a fresh schedule."""
    out = tmp_path / "fine"
    assert train.main(["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), "--preset", "small",
                       "--init", str(tiny_checkpoint), "--max-steps", "1", "--lr", "1e-9", "--no-progress"]) == 0
    start, tuned = read_checkpoint(tiny_checkpoint), read_checkpoint(out / "last.pt")
    assert tuned["config"] == start["config"] and tuned["tokenizer"] == start["tokenizer"]
    assert tuned["meta"]["step"] == 1 and tuned["meta"]["train_args"]["init"] == str(tiny_checkpoint)
    for name, weight in start["model"].items():   # a learning rate of 1e-9 barely moves them
        assert torch.allclose(tuned["model"][name].float(), weight.float(), atol=1e-6), name
    # --resume continues the fine-tuning run itself, not the checkpoint it started from.
    assert train.main(["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), "--init",
                       str(tiny_checkpoint), "--max-steps", "2", "--resume", "--no-progress"]) == 0
    assert read_checkpoint(out / "last.pt")["meta"]["step"] == 2


def test_init_takes_the_runs_dropout_and_label_smoothing(tiny_checkpoint, tmp_path):
    """--init keeps the checkpoint's shape, but --dropout and --label-smoothing are the run's: they
    change how it trains (another loss), are saved, and a --resume of that run keeps them."""
    start = read_checkpoint(tiny_checkpoint)
    assert (start["config"]["dropout"], start["config"]["label_smoothing"]) == (0.0, 0.1)
    out = tmp_path / "reg"   # --resume before there is a run to resume starts it from --init
    assert train.main(["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), "--init",
                       str(tiny_checkpoint), "--dropout", "0.3", "--label-smoothing", "0.2", "--layers", "4",
                       "--max-steps", "1", "--no-progress", "--resume"]) == 0
    tuned = read_checkpoint(out / "last.pt")
    assert tuned["config"] == {**start["config"], "dropout": 0.3, "label_smoothing": 0.2}, "the shape is the checkpoint's"
    plain = tmp_path / "plain"
    assert train.main(["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(plain), "--init",
                       str(tiny_checkpoint), "--max-steps", "1", "--no-progress"]) == 0
    first = [json.loads((run / "metrics.jsonl").read_text().splitlines()[0]) for run in (out, plain)]
    assert first[0]["train_loss"] != first[1]["train_loss"]
    assert train.main(["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), "--init",
                       str(tiny_checkpoint), "--dropout", "0.1", "--max-steps", "2", "--resume", "--no-progress"]) == 0
    assert read_checkpoint(out / "last.pt")["config"]["dropout"] == 0.3, "a resumed run keeps its own"


@pytest.mark.parametrize("flags, message", [
    (["--dropout", "1.5"], "dropout must be in [0, 1), got 1.5"),
    (["--label-smoothing", "-0.1"], "label_smoothing must be in [0, 1), got -0.1"),
])
def test_init_rejects_bad_regularization(tiny_checkpoint, tmp_path, flags, message):
    proc = subprocess.run([sys.executable, "train.py", "--data", str(PAIRS40), "--out", str(tmp_path / "bad"),
                           "--init", str(tiny_checkpoint), "--max-steps", "1", "--no-progress", *flags],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == f"train.py: error: {message}"


def test_bf16_on_the_cpu_trains_in_autocast_and_saves_float32(tiny_checkpoint, tmp_path):
    """--precision bf16: the same run in bfloat16 autocast; weights, optimizer state and the saved
    checkpoint stay float32, and the run records the choice."""
    runs = {}
    for precision in ("fp32", "bf16"):
        out = tmp_path / precision
        assert train.main(["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), "--init",
                           str(tiny_checkpoint), "--max-steps", "2", "--precision", precision, "--no-progress"]) == 0
        runs[precision] = read_checkpoint(out / "last.pt")
    tuned = runs["bf16"]
    assert tuned["meta"]["train_args"]["precision"] == "bf16"
    assert {w.dtype for w in tuned["model"].values()} == {torch.float32}
    moments = [t for state in tuned["train_state"]["optimizer"]["state"].values() for t in state.values()
               if torch.is_tensor(t) and t.dim() > 0]
    assert moments and {t.dtype for t in moments} == {torch.float32}
    # bfloat16's 8-bit mantissa changes the gradients: the two runs' weights differ, slightly
    name = next(iter(tuned["model"]))
    difference = (tuned["model"][name] - runs["fp32"]["model"][name]).abs().max().item()
    assert 0 < difference < 1e-2


def test_domain_corpora_hold_out_dev_and_test(tmp_path):
    """A gettext corpus gives DIR/dev.ui.tsv and DIR/test.ui.tsv, and none of their sentences trains."""
    pytest.importorskip("polib")
    catalog = tmp_path / "ui.po"
    entries = [("Datei speichern", "Save file"), ("Datei öffnen", "Open file"), ("Verlauf löschen", "Delete history"),
               ("Lesezeichen hinzufügen", "Add bookmark"), ("Herunterladen", "Download"), ("Drucken", "Print"),
               ("Beenden", "Quit"), ("Einstellungen", "Settings"), ("Suchen", "Search"), ("Hilfe", "Help"),
               ("Neues Fenster", "New window"), ("Schließen", "Close")]
    catalog.write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n' + "".join(
        f'msgid "{en}"\nmsgstr "{de}"\n\n' for de, en in entries), encoding="utf-8")
    out = tmp_path / "run"
    assert train.main(["--data", str(PAIRS40), "--data", f"gettext:{catalog}", "--out", str(out), "--preset", "tiny",
                       "--max-steps", "1", "--no-progress", "--vocab-size", "120", "--domain-split-size", "1"]) == 0
    dev, test = read_pairs(out / "dev.ui.tsv"), read_pairs(out / "test.ui.tsv")
    assert len(dev) == len(test) == 1 and set(dev + test) <= set(entries) and dev != test
    data = read_checkpoint(out / "last.pt")["meta"]["data"]
    assert data["domains"] == {"ui": {"dev_pairs": 1, "test_pairs": 1}}
    assert data["corpora"][1] == {"corpus": f"gettext:{catalog}", "weight": 1.0, "train_pairs": len(entries) - 2}


DING_SENTENCES = [("Er baut ein Haus.", "He is building a house."), ("Der Hund schläft.", "The dog is asleep."),
                  ("Wir fahren morgen ab.", "We leave tomorrow."), ("Das Buch gehört mir.", "The book is mine."),
                  ("Sie spielt gern Klavier.", "She likes playing the piano.")]


def write_ding(path: Path) -> Path:
    """A Ding file whose entries each hold a word pair and an example sentence."""
    lines = ["# Version :: test"] + [f"Wort{i} {{n}} | {de} :: word{i} | {en}" for i, (de, en) in enumerate(DING_SENTENCES)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_ding_sentences_hold_out_dev_and_test(tmp_path):
    """Ding's example sentences are a domain of their own ("ding", issue 22: select on them held
    out): DIR/dev.ding.tsv and DIR/test.ding.tsv, none of their sentences trains, and the
    checkpoint records the split; Ding's word pairs are not held out."""
    ding = write_ding(tmp_path / "de-en")
    out = tmp_path / "run"
    assert train.main(["--data", str(PAIRS40), "--data", f"ding-sentences:{ding}", "--data", f"ding-words:{ding}",
                       "--out", str(out), "--preset", "tiny", "--max-steps", "1", "--no-progress",
                       "--vocab-size", "120", "--domain-split-size", "1"]) == 0
    dev, test = read_pairs(out / "dev.ding.tsv"), read_pairs(out / "test.ding.tsv")
    assert len(dev) == len(test) == 1 and set(dev + test) <= set(DING_SENTENCES) and dev != test
    data = read_checkpoint(out / "last.pt")["meta"]["data"]
    assert data["domains"] == {"ding": {"dev_pairs": 1, "test_pairs": 1}}
    assert [part["train_pairs"] for part in data["corpora"][1:]] == [len(DING_SENTENCES) - 2, len(DING_SENTENCES)]
    assert not (out / "dev.ui.tsv").exists()


def test_resume_on_other_held_out_splits_is_refused(tmp_path):
    """A run resumed with splits other than its own would train on what it held out: a one-line error,
    and last.pt stays as it was."""
    ding = write_ding(tmp_path / "de-en")
    out = tmp_path / "run"
    common = ["--data", str(PAIRS40), "--data", f"ding-sentences:{ding}", "--out", str(out), "--preset", "tiny",
              "--vocab-size", "120", "--no-progress"]
    assert train.main([*common, "--max-steps", "1", "--domain-split-size", "1"]) == 0
    before = (out / "last.pt").read_bytes()
    proc = run_train([*common, "--max-steps", "2", "--domain-split-size", "0", "--resume"])
    assert proc.returncode == 2 and proc.stderr == (
        f"train.py: error: {str(out / 'last.pt')!r} held out ding 1 dev + 1 test, but these corpora hold out "
        "no domain split: resume with the run's own --data and --domain-split-size, or start a new --out\n")
    assert (out / "last.pt").read_bytes() == before
    # Its own splits resume.
    assert train.main([*common, "--max-steps", "2", "--domain-split-size", "1", "--resume"]) == 0
    assert read_checkpoint(out / "last.pt")["meta"]["step"] == 2


def test_a_training_step_does_not_wait_for_the_device(tmp_path, monkeypatch):
    """Step bookkeeping reads nothing back from the device: tokens are counted on the host and
    the loss is read only at --log-every, evaluations and saves (a GPU would stall on each read)."""
    from model.network.batch import Batch

    def no_sync(self):
        raise AssertionError("Batch.n_tokens reads the device; the step must count on the host")

    monkeypatch.setattr(Batch, "n_tokens", property(no_sync))
    reads = []
    original = torch.Tensor.__float__
    monkeypatch.setattr(torch.Tensor, "__float__", lambda self: reads.append(1) or original(self))
    out = tmp_path / "nosync"
    assert train.main(["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), "--preset", "tiny",
                       "--vocab-size", "100", "--max-steps", "40", "--log-every", "20", "--eval-every", "100000",
                       "--save-every", "100000", "--no-progress", "--device", "cpu"]) == 0
    # 2 log lines + the final evaluation's flush + the final save's flush (+ the dev loss itself)
    assert len(reads) <= 6, len(reads)
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert records[-1]["step"] == 40 and records[-1]["train_loss"] > 0


def test_concatenation_is_saved_and_a_run_with_it_resumes(tmp_path):
    """--concat-share adds long pairs built the same way each time, so --resume rebuilds the same
    data and batches; the share is kept in the checkpoint's arguments."""
    out = tmp_path / "concat"
    common = ["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(out), "--preset", "tiny",
              "--vocab-size", "120", "--no-progress", "--device", "cpu", "--concat-share", "0.5", "--save-every", "2"]
    assert train.main([*common, "--max-steps", "2"]) == 0
    first = read_checkpoint(out / "last.pt")
    assert first["meta"]["train_args"]["concat_share"] == 0.5
    assert first["meta"]["data"]["train_pairs"] == 40   # the corpus as read; the long pairs are augmentation
    assert train.main([*common, "--max-steps", "4", "--resume"]) == 0
    assert read_checkpoint(out / "last.pt")["meta"]["step"] == 4


# ------------------------------------------------------------------------- the reverse model

def test_a_reverse_model_learns_the_pairs_english_to_german(reverse_checkpoint, pairs40):
    """--direction en-de swaps the sides of every pair (training, dev BLEU, the lexicon of source
    words) and records the direction in the checkpoint."""
    translator = Translator.from_checkpoint(reverse_checkpoint, "cpu")
    meta = translator.meta
    assert (meta["direction"], meta["train_args"]["direction"], meta["dev_bleu"]) == ("en-de", "en-de", 100.0)
    assert translator.translate([en for _, en in pairs40]) == [de for de, _ in pairs40]


def test_a_run_resumes_only_in_its_own_direction(reverse_checkpoint, tmp_path):
    import shutil

    shutil.copy(reverse_checkpoint.with_name("last.pt"), tmp_path / "last.pt")
    common = ["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(tmp_path), "--preset", "tiny",
              "--no-progress", "--device", "cpu", "--resume"]
    result = run_train(common)  # de-en, the default
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        f"train.py: error: {str(tmp_path / 'last.pt')!r} translates en-de, not de-en: resume with the run's own "
        "--direction, or start a new --out")


def test_an_unknown_direction_is_a_usage_error():
    result = run_train(["--data", str(PAIRS40), "--out", "unused", "--direction", "de-fr"])
    assert result.returncode == 2
    assert "argument --direction: invalid choice: 'de-fr' (choose from 'de-en', 'en-de')" in result.stderr
