"""model/training/precision.py: the forward passes' precision."""

from __future__ import annotations

import pytest
import torch

from model.training.precision import autocast


@pytest.mark.parametrize("device_type, precision, dtype", [
    ("cpu", "auto", torch.float32), ("cpu", "fp32", torch.float32), ("cpu", "bf16", torch.bfloat16),
])
def test_autocast_runs_the_forward_pass_in_the_chosen_precision(device_type, precision, dtype):
    layer = torch.nn.Linear(4, 4)
    with autocast(device_type, precision)():
        out = layer(torch.ones(2, 4))
    assert out.dtype == dtype and layer.weight.dtype == torch.float32


def test_autocast_auto_is_bf16_on_cuda_and_refuses_unknown_precisions():
    on_gpu = autocast("cuda", "auto")   # built, not entered: no GPU needed
    assert on_gpu.args == ("cuda",) and on_gpu.keywords == {"dtype": torch.bfloat16}
    assert autocast("cuda", "fp32")().__class__.__name__ == "nullcontext"
    with pytest.raises(ValueError, match=r"^precision must be one of auto, fp32, bf16, got 'fp16'$"):
        autocast("cpu", "fp16")
