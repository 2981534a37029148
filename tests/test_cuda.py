"""The CUDA path, where a GPU is lent: bench/gpu_check.sh runs these (pytest -m cuda); on a CPU
they are skipped with the reason. Everything a CPU can check is tested elsewhere."""

from __future__ import annotations

import pytest
import torch

from model.inference.translator import Translator
from model.network.batch import Batch
from model.search.options import SearchOptions

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(),
                                 reason="needs a CUDA GPU (bench/gpu_check.sh runs these on a machine with a GPU)")]


def test_translations_on_the_gpu_are_the_cpus(tiny_checkpoint, pairs40):
    german = [de for de, _ in pairs40]
    cpu = Translator.from_checkpoint(tiny_checkpoint, "cpu")
    gpu = Translator.from_checkpoint(tiny_checkpoint, "cuda")
    assert gpu.device.type == "cuda" and torch.backends.cuda.matmul.allow_tf32
    assert gpu.translate(german) == cpu.translate(german)
    assert gpu.translate(german, SearchOptions(beam_size=4)) == cpu.translate(german, SearchOptions(beam_size=4))


def test_batches_reach_the_gpu_as_built(pairs40):
    src, tgt = [[5, 6, 7], [8]], [[9], [10, 11, 12]]
    cpu, gpu = Batch.make(src, tgt), Batch.make(src, tgt, "cuda")
    for name in ("src", "src_mask", "tgt_in", "tgt_out", "tgt_mask"):
        assert torch.equal(getattr(gpu, name).cpu(), getattr(cpu, name)), name
    back = gpu.to("cpu")
    assert torch.equal(back.src, cpu.src)


def test_rng_state_of_a_gpu_run_is_its_own_devices():
    from model.training.rng import rng_state, set_rng_state

    device = torch.device("cuda", 0)
    state = rng_state(device)
    assert set(state) == {"torch", "python", "cuda"} and state["cuda"].dtype == torch.uint8
    expected = torch.rand(3, device=device)
    set_rng_state(state, device)
    assert torch.equal(torch.rand(3, device=device), expected)


def test_training_resumes_on_the_gpu(tmp_path, pairs40):
    import train
    from model.network.checkpoint import read_checkpoint
    from tests.conftest import PAIRS40

    args = ["--data", str(PAIRS40), "--valid", str(PAIRS40), "--out", str(tmp_path / "run"), "--preset", "tiny",
            "--max-tokens", "160", "--save-every", "10", "--eval-every", "1000", "--no-progress", "--device", "cuda"]
    assert train.main([*args, "--max-steps", "20"]) == 0
    assert train.main([*args, "--max-steps", "40", "--resume"]) == 0
    last = read_checkpoint(tmp_path / "run" / "last.pt")
    assert last["meta"]["step"] == 40 and "cuda" in last["train_state"]["rng"]["ranks"][0]
