"""model/training.py helpers that train.py relies on."""

from __future__ import annotations

import pytest
import torch

from model.training import spread


@pytest.mark.parametrize("n, k, expected", [
    (10, 4, [0, 2, 5, 7]),
    (5, 5, [0, 1, 2, 3, 4]),
    (3, 1000, [0, 1, 2]),
    (1874, 1000, None),
])
def test_spread_is_even_and_ordered(n, k, expected):
    picked = spread(n, k)
    if expected is not None:
        assert picked == expected
    assert len(picked) == min(n, k) and picked == sorted(set(picked)) and picked[0] == 0
    assert picked[-1] >= n - n // min(n, k) - 1  # reaches the end of a sorted corpus, not just its start


# ------------------------------------------------------------------------- GPU-ready, checked on a CPU

def test_rng_state_of_a_cpu_run_has_no_cuda_part_and_never_starts_cuda():
    import random

    from model.training import Dist, gather_rng_states, own_rng_state, rng_state, set_rng_state

    cpu = torch.device("cpu")
    state = rng_state(cpu)
    assert set(state) == {"torch", "python"}
    expected = (torch.rand(3), random.random())
    # A state saved on a GPU, resumed on the CPU: the CPU and Python generators are restored exactly
    # and CUDA is not touched (no IndexError for missing GPUs, no CUDA initialization).
    set_rng_state({**state, "cuda": torch.zeros(16, dtype=torch.uint8)}, cpu)
    assert torch.equal(torch.rand(3), expected[0]) and random.random() == expected[1]
    assert not torch.cuda.is_initialized()
    single = gather_rng_states(cpu, Dist())
    assert len(single["ranks"]) == 1 and set(single["ranks"][0]) == {"torch", "python"}


@pytest.mark.parametrize("saved, rank, world, which", [
    ({"ranks": ["r0", "r1"]}, 1, 2, "r1"),          # each rank resumes with its own state
    ({"ranks": ["r0", "r1"]}, 0, 1, None),           # another number of processes: fresh states
    ({"torch": "t", "python": "p"}, 0, 1, "old"),    # saved before per-rank states
    ({"torch": "t", "python": "p"}, 1, 2, None),
])
def test_own_rng_state(saved, rank, world, which):
    from model.training import Dist, own_rng_state

    expected = saved if which == "old" else which
    assert own_rng_state(saved, Dist(rank=rank, world=world)) == expected


def test_more_ranks_than_gpus_is_one_clear_error(monkeypatch):
    from model.training import init_distributed

    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(ValueError) as error:
        init_distributed("cuda")
    assert str(error.value) == ("2 processes per node but 1 visible GPU: start at most 1 "
                                "(torchrun --nproc_per_node=1), or train on the CPU with --device cpu")


def test_tokens_are_counted_on_the_host():
    from model.network.batch import Batch

    targets = [[5, 6, 7], [8], []]
    assert Batch.count_tokens(targets) == Batch.make([[4], [4], [4]], targets).n_tokens == 7


@pytest.mark.parametrize("device_type, precision, dtype", [
    ("cpu", "auto", torch.float32), ("cpu", "fp32", torch.float32), ("cpu", "bf16", torch.bfloat16),
])
def test_autocast_runs_the_forward_pass_in_the_chosen_precision(device_type, precision, dtype):
    from model.training import autocast

    layer = torch.nn.Linear(4, 4)
    with autocast(device_type, precision)():
        out = layer(torch.ones(2, 4))
    assert out.dtype == dtype and layer.weight.dtype == torch.float32


def test_autocast_auto_is_bf16_on_cuda_and_refuses_unknown_precisions():
    from model.training import autocast

    on_gpu = autocast("cuda", "auto")   # built, not entered: no GPU needed
    assert on_gpu.args == ("cuda",) and on_gpu.keywords == {"dtype": torch.bfloat16}
    assert autocast("cuda", "fp32")().__class__.__name__ == "nullcontext"
    with pytest.raises(ValueError, match=r"^precision must be one of auto, fp32, bf16, got 'fp16'$"):
        autocast("cpu", "fp16")


@pytest.fixture
def sigint_as_python_sets_it():
    """SIGINT handled as Python does by default, whatever this process inherited: under nohup or in
    a shell script's background job SIGINT is ignored, and StopSignals rightly leaves it so."""
    import signal

    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, inherited)


def test_stop_signals_are_caught_once_and_the_handlers_restored(sigint_as_python_sets_it):
    import os
    import signal

    from model.training import StopSignals

    before = signal.getsignal(signal.SIGTERM)
    with StopSignals() as signals:
        assert signals.received is None and signal.getsignal(signal.SIGTERM) is not before
        os.kill(os.getpid(), signal.SIGINT)   # caught: no KeyboardInterrupt
        assert signals.received == "SIGINT"
        assert signal.getsignal(signal.SIGTERM) is before   # a second signal acts as it did before
    assert signal.getsignal(signal.SIGTERM) is before and signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_ignored_sigint_is_left_ignored():
    import os
    import signal

    from model.training import StopSignals

    inherited = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with StopSignals() as signals:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
            assert signals.received is None
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, inherited)
