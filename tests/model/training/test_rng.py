"""model/training/rng.py: a run's random state, GPU-ready and checked on a CPU."""

from __future__ import annotations

import random

import pytest
import torch

from model.training.distributed import Dist
from model.training.rng import gather_rng_states, own_rng_state, rng_state, set_rng_state


def test_rng_state_of_a_cpu_run_has_no_cuda_part_and_never_starts_cuda():
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
    expected = saved if which == "old" else which
    assert own_rng_state(saved, Dist(rank=rank, world=world)) == expected
