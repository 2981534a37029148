"""Checkpoint averaging (Vaswani et al. 2017): the mean of the weights of several checkpoints of
one run; the command is ``python -m commands.average``, whose docstring says how it is used."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from model.network.checkpoint import CheckpointError, read_checkpoint
from model.network.config import ModelConfig


def network_of(ckpt: dict[str, Any], path: str | Path) -> dict[str, Any]:
    """``ModelConfig.network`` of the checkpoint dict ``ckpt`` read from ``path``."""
    try:
        return ModelConfig.from_dict(ckpt["config"]).network()
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"checkpoint {str(path)!r} is invalid: {exc}") from None


def average_checkpoints(paths: Sequence[str | Path], metadata_from: str | Path | None = None) -> dict[str, Any]:
    """The checkpoint dict whose weights are the mean of those in ``paths`` (see the module doc),
    with the metadata, config and lexicon of the input with the most steps, or of ``metadata_from``,
    one of ``paths``. The inputs' configs may differ in the training knobs only (dropout, label
    smoothing: ``ModelConfig.network``)."""
    if metadata_from is not None and str(metadata_from) not in map(str, paths):
        raise ValueError(f"--metadata-from {str(metadata_from)!r} is not one of the checkpoints averaged")
    if not paths:
        raise ValueError("average_checkpoints needs at least one checkpoint")
    first = read_checkpoint(paths[0])
    total = {k: v.float() if v.is_floating_point() else v for k, v in first["model"].items()}
    newest, sources = first, [{"file": Path(paths[0]).name, "step": first["meta"].get("step")}]
    for path in paths[1:]:
        ckpt = read_checkpoint(path)
        if network_of(ckpt, path) != network_of(first, paths[0]) or ckpt["tokenizer"] != first["tokenizer"]:
            raise CheckpointError(f"{str(path)!r} is not from the same run as {str(paths[0])!r}: "
                                  "its config or tokenizer differs")
        if ckpt["model"].keys() != total.keys():
            raise CheckpointError(f"{str(path)!r} has other tensors than {str(paths[0])!r}")
        for name, value in ckpt["model"].items():
            if value.shape != total[name].shape:
                raise CheckpointError(f"{str(path)!r}: tensor {name!r} has shape {tuple(value.shape)}, "
                                      f"not {tuple(total[name].shape)}")
            if value.is_floating_point():
                total[name] += value.float()
        sources.append({"file": Path(path).name, "step": ckpt["meta"].get("step")})
        if (str(path) == str(metadata_from) if metadata_from is not None
                else (ckpt["meta"].get("step") or 0) >= (newest["meta"].get("step") or 0)):
            newest = ckpt
    n = len(paths)
    weights = {k: v / n if v.is_floating_point() else v for k, v in total.items()}
    meta = dict(newest["meta"], averaged_from=sources)
    kept = {k: newest[k] for k in ("format", "config", "tokenizer", "lexicon") if k in newest}
    return kept | {"model": weights, "meta": meta}
