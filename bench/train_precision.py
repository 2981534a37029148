"""Training speed on this CPU in float32 and in bfloat16 autocast (train.py's ``--precision``).

    python bench/train_precision.py [--preset small] [--d-model 384 --heads 6 --ffn 1536 --vocab-size 12000]
                                    [--max-tokens 8192] [--steps 4] [--repeats 3] [--threads N] [--json]

Full optimizer steps as train.py takes them (forward under ``model.training.precision.autocast``, the
label-smoothed loss in float32, backward, clip_grad_norm, AdamW), on synthetic batches with
Tatoeba-like lengths cut by ``TokenBatchSampler`` (``speed_train.training_batches``). One model per
precision, both from the same initial weights; repeats alternate fp32/bf16 and bf16/fp32, and the
medians of target tokens per second are printed with their ratio. bf16 pays only where the CPU
has native bfloat16 instructions (AVX512-BF16 or AMX; printed in the header): elsewhere oneDNN
emulates them and it is slower.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time

from speed_common import progress
from speed_train import make_trainer, training_batches

import torch  # noqa: E402  (after speed_common, which puts the repository root on sys.path)

from model.network.config import preset  # noqa: E402
from model.network.threads import cpu_bf16_support  # noqa: E402
from model.network.transformer import Transformer  # noqa: E402
from model.training.precision import autocast  # noqa: E402

PRECISIONS = ("fp32", "bf16")


def measure(cfg, max_tokens: int, steps: int, repeats: int, seed: int = 1) -> dict:
    batches, _ = training_batches(cfg, max_tokens, steps, seed)
    torch.manual_seed(seed)
    base = Transformer(cfg)
    runners = {}
    for precision in PRECISIONS:
        run = make_trainer(copy.deepcopy(base), batches, "ours", cfg)
        context = autocast("cpu", precision)

        def step(run=run, context=context) -> int:
            with context():  # the loss inside is taken on float32 logits either way (label_smoothed_loss)
                return run()
        runners[precision] = step
    for precision, run in runners.items():
        progress(f"warm-up {precision} ({steps} steps)")
        run()
    speeds: dict[str, list[float]] = {p: [] for p in PRECISIONS}
    for r in range(repeats):
        for precision in (PRECISIONS if r % 2 == 0 else PRECISIONS[::-1]):
            start = time.perf_counter()
            tokens = runners[precision]()
            speeds[precision].append(tokens / (time.perf_counter() - start))
        progress(f"repeat {r + 1}/{repeats}: " + ", ".join(f"{p} {speeds[p][-1]:,.0f} tok/s" for p in PRECISIONS))
    medians = {p: statistics.median(v) for p, v in speeds.items()}
    return {"parameters": sum(p.numel() for p in base.parameters()), "max_tokens": max_tokens, "steps": steps,
            "repeats": repeats, "threads": torch.get_num_threads(), "cpu_bf16": cpu_bf16_support(),
            "tok_s": {p: round(v, 1) for p, v in medians.items()},
            "bf16_over_fp32": round(medians["bf16"] / medians["fp32"], 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/train_precision.py", description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="small", help="model shape to start from (default small)")
    for flag in ("--d-model", "--heads", "--ffn", "--vocab-size", "--encoder-layers", "--decoder-layers"):
        parser.add_argument(flag, type=int, help="override the preset")
    parser.add_argument("--max-tokens", type=int, default=8192, help="padded tokens per batch (default 8192)")
    parser.add_argument("--steps", type=int, default=4, help="optimizer steps per repeat (default 4)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats per precision (default 3)")
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's)")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the lines")
    args = parser.parse_args(argv)
    if not (1 <= args.max_tokens <= 1_000_000 and 1 <= args.steps <= 1000 and 1 <= args.repeats <= 100):
        parser.error("--max-tokens must be 1-1000000, --steps 1-1000 and --repeats 1-100")
    overrides = {"d_model": args.d_model, "n_heads": args.heads, "d_ff": args.ffn, "vocab_size": args.vocab_size,
                 "encoder_layers": args.encoder_layers, "decoder_layers": args.decoder_layers}
    try:
        cfg = preset(args.preset).replace(**{k: v for k, v in overrides.items() if v is not None})
    except ValueError as error:
        parser.error(str(error))
    if args.threads:
        torch.set_num_threads(args.threads)
    result = measure(cfg, args.max_tokens, args.steps, args.repeats)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['parameters']:,} parameters, {args.max_tokens} padded tokens per batch, {result['threads']} "
              f"threads, CPU bfloat16: {result['cpu_bf16'] or 'none'}, load average "
              f"{os.getloadavg()[0]:.2f}")
        print(f"fp32 {result['tok_s']['fp32']:,.0f} tok/s, bf16 {result['tok_s']['bf16']:,.0f} tok/s "
              f"(medians of {args.repeats} x {args.steps} steps): bf16 / fp32 = {result['bf16_over_fp32']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
