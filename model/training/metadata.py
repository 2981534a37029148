"""What a run records about itself: its log lines, and the metadata a checkpoint carries (shown
by commands.info and the /model page), the hardware included."""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path
from typing import Any

import sacrebleu
import torch

from model.network.transformer import Transformer

from .corpus import Corpus


def write_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one line; a line is small, so a crash can cut at most that line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")


def hardware(device: torch.device) -> str:
    """What this process trains on, e.g. "1 x cpu (AMD EPYC 9R14, 2 threads)" (for the model card)."""
    world = torch.distributed.get_world_size() if torch.distributed.is_initialized() else 1
    if device.type == "cuda":
        return f"{world} x cuda ({torch.cuda.get_device_name(device)})"
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            name = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), name)
    except OSError:
        pass
    return f"{world} x cpu ({name}, {torch.get_num_threads()} threads)"


def make_meta(args, corpus: Corpus, state: dict[str, Any], model: Transformer, time_started: float) -> dict[str, Any]:
    """What a checkpoint says about how it was made (shown by commands.info and the /model page)."""
    import sentencepiece

    curves = state["curves"]
    return {
        "step": state["step"],
        "epoch": state["epoch"],
        "direction": getattr(args, "direction", "de-en"),
        "dev_bleu": round(state["best_bleu"], 2) if state["best_bleu"] >= 0 else None,
        "dev_loss": curves["dev_loss"][-1] if curves["dev_loss"] else None,
        "curves": {k: list(v) for k, v in curves.items()},
        "parameters": model.num_parameters(),
        "data": {"sha256": dict(corpus.sha256), "train_pairs": len(corpus.train), "dev_pairs": len(corpus.dev),
                 "test_pairs": len(corpus.test), "corpora": [dict(part) for part in corpus.parts],
                 **({"domains": corpus.held_out()} if corpus.domains else {}),
                 **({"sources": corpus.sources} if corpus.sources else {}),
                 **({"attribution": "; ".join(args.data_attribution)} if args.data_attribution else {}),
                 **({"license": args.license} if args.license else {})},
        "train_args": {k: v for k, v in vars(args).items() if v is not None},
        "seed": args.seed,
        "hardware": hardware(next(model.parameters()).device),
        "wall_time_s": round(state["elapsed_s"], 1),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time_started)),
        "versions": {"python": platform.python_version(), "torch": str(torch.__version__),
                     "sentencepiece": str(sentencepiece.__version__), "sacrebleu": str(sacrebleu.__version__)},
    }
