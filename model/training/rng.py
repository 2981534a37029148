"""The random state of a run, saved with it and restored on --resume (each rank its own)."""

from __future__ import annotations

import random
from typing import Any

import torch
import torch.distributed as dist

from .distributed import Dist


def rng_state(device: torch.device) -> dict[str, Any]:
    """This process's random state: torch's CPU generator, Python's, and on CUDA the generator of
    its own device only (never other visible GPUs', and a CPU run never touches CUDA)."""
    state: dict[str, Any] = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if device.type == "cuda":
        state["cuda"] = torch.cuda.get_rng_state(device)
    return state


def set_rng_state(state: dict[str, Any], device: torch.device) -> None:
    """Restore ``rng_state``'s result; a CUDA state is restored only when resuming on CUDA (a run
    saved on a GPU and resumed on the CPU keeps the CPU and Python generators exactly)."""
    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if device.type == "cuda" and "cuda" in state:
        torch.cuda.set_rng_state(state["cuda"], device)


def gather_rng_states(device: torch.device, d: Dist) -> dict[str, Any]:
    """Every rank's ``rng_state`` (rank 0 saves them all: each rank resumes with its own)."""
    own = rng_state(device)
    if d.world == 1:
        return {"ranks": [own]}
    states: list[Any] = [None] * d.world
    dist.all_gather_object(states, own)
    return {"ranks": states}


def own_rng_state(saved: dict[str, Any], d: Dist) -> dict[str, Any] | None:
    """This rank's saved state; None when the run was saved with another number of processes
    (then each rank keeps the fresh, rank-seeded generators it has)."""
    if "ranks" not in saved:  # saved before per-rank states: one process's state
        return saved if d.world == 1 else None
    ranks = saved["ranks"]
    return ranks[d.rank] if len(ranks) == d.world else None
