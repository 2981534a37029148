"""The small amount of distributed plumbing: a torchrun job's ranks (NCCL on GPUs, gloo on CPUs)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist


@dataclass
class Dist:
    """Where this process stands in a torchrun job (rank 0 of 1 when run plainly)."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @property
    def main(self) -> bool:
        return self.rank == 0


def init_distributed(device_kind: str) -> Dist:
    """Join the torchrun job if there is one: NCCL on GPUs, gloo on CPUs. On CUDA every rank needs
    a GPU of its own: more ranks than visible GPUs is a one-line error, not "invalid device ordinal"."""
    if "RANK" not in os.environ:
        return Dist()
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if device_kind == "cuda":
        gpus = torch.cuda.device_count()
        if local_rank >= gpus:
            local = int(os.environ.get("LOCAL_WORLD_SIZE", local_rank + 1))
            raise ValueError(f"{local} processes per node but {gpus} visible GPU{'s' * (gpus != 1)}: start "
                             f"at most {gpus} (torchrun --nproc_per_node={gpus}), or train on the CPU with --device cpu")
    backend = "nccl" if device_kind == "cuda" else "gloo"
    dist.init_process_group(backend=backend)
    d = Dist(rank=dist.get_rank(), world=dist.get_world_size(), local_rank=local_rank)
    if device_kind == "cuda":
        torch.cuda.set_device(d.local_rank)
    return d


def finish_distributed(d: Dist) -> None:
    """Leave the torchrun job cleanly: wait until every rank is done (rank 0 saves last), then
    destroy the process group. A rank that simply exits while another still holds the group can
    be aborted (SIGABRT) as its gloo connections are torn down under it."""
    if d.world == 1:
        return
    dist.barrier()
    dist.destroy_process_group()


def agree(flag: bool, d: Dist) -> bool:
    """Rank 0's decision, broadcast so that every rank stops at the same step."""
    if d.world == 1:
        return flag
    t = torch.tensor([1.0 if flag else 0.0])
    if dist.get_backend() == "nccl":
        t = t.cuda()
    dist.broadcast(t, src=0)
    return bool(t.item())
