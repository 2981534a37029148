"""model/training/distributed.py: a torchrun job's ranks, checked on a CPU."""

from __future__ import annotations

import pytest
import torch

from model.training.distributed import init_distributed


def test_more_ranks_than_gpus_is_one_clear_error(monkeypatch):
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(ValueError) as error:
        init_distributed("cuda")
    assert str(error.value) == ("2 processes per node but 1 visible GPU: start at most 1 "
                                "(torchrun --nproc_per_node=1), or train on the CPU with --device cpu")
