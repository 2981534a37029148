"""Checkpoint files: one self-contained file per model.

A checkpoint is a plain dict of tensors, numbers, strings and bytes, so it loads with
``torch.load(path, weights_only=True)``: no pickled code can run when a file is opened.

    format       "de-en-nmt/1"
    config       ModelConfig as a dict (the model is rebuilt from it)
    model        state_dict (fp32, or fp16 when saved with ``half=True``)
    tokenizer    the SentencePiece model, serialized bytes
    meta         step, epoch, dev BLEU, curves, data SHA-256, seed, wall time, versions,
                 direction ("de-en", or "en-de" for a reverse model; absent in older files: "de-en"), ...
    train_state  optional: optimizer, scheduler, RNG, data position (only ``last.pt`` needs it)
    lexicon      optional: the German words the model knows, zlib-compressed lines of UTF-8
                 (``model.data.lexicon``; the pipeline carries other capitalized words over as names)
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator

import torch

from model.network.config import ModelConfig
from model.network.tokenizer import Tokenizer, shared_tokenizer
from model.network.transformer import Transformer

FORMAT = "de-en-nmt/1"
REQUIRED = ("format", "config", "model", "tokenizer", "meta")
# Source-target languages a model translates: train.py --direction; the corpora are always read as
# (German, English) pairs and a reverse model swaps the sides.
DIRECTIONS = ("de-en", "en-de")


def direction(meta: dict[str, Any]) -> str:
    """The languages a checkpoint's model translates, from its metadata (files written before
    train.py had --direction are German->English)."""
    return meta.get("direction", "de-en")


def oriented(pairs: list[tuple[str, str]], to: str) -> list[tuple[str, str]]:
    """(German, English) pairs as (source, target) of a model of direction ``to``."""
    return pairs if to == "de-en" else [(en, de) for de, en in pairs]


class CheckpointError(ValueError):
    """A checkpoint that is missing, truncated, foreign or does not match its own config."""


@contextmanager
def atomic_open(path: str | Path, mode: str = "wb", **kwargs: Any) -> Iterator[IO]:
    """Write to a temp file in the same directory, fsync, then rename it over ``path``.

    A crash (even SIGKILL) mid-write leaves the previous file intact, never a truncated one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates 0600 files; give the usual permissions, or a container's non-root user
        # could not read a checkpoint copied in by root.
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_save(obj: Any, path: str | Path) -> None:
    """torch.save, atomically (see ``atomic_open``)."""
    with atomic_open(path, "wb") as f:
        torch.save(obj, f)


def save_checkpoint(
    path: str | Path,
    model: Transformer,
    tokenizer: Tokenizer,
    meta: dict[str, Any],
    train_state: dict[str, Any] | None = None,
    half: bool = False,
    lexicon: bytes | None = None,
) -> None:
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    if half:
        state = half_weights(state)
    ckpt = {
        "format": FORMAT,
        "config": model.config.to_dict(),
        "model": state,
        "tokenizer": tokenizer.proto,
        "meta": meta,
    }
    if train_state is not None:
        ckpt["train_state"] = train_state
    if lexicon is not None:
        ckpt["lexicon"] = lexicon
    atomic_save(ckpt, path)


def half_weights(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """fp16 copies of the floating-point tensors: half the file; fp16 keeps ~3 significant
    digits, plenty for inference weights (they are loaded back as fp32)."""
    return {k: v.half() if v.is_floating_point() else v for k, v in state.items()}


def _check_file(path: str | Path) -> None:
    """Clear messages for the usual wrong files (empty, cut off, not from torch.save, a zip corpus)
    before torch sees them: torch's own errors for these are obscure (a text file gives
    ``KeyError: 101``, a cut-off download a paragraph about miniz)."""
    file = Path(path)
    shown = str(path)
    foreign = CheckpointError(f"not a de-en-nmt checkpoint: {shown!r} is not a file written by torch.save")
    try:
        with open(file, "rb") as f:
            head = f.read(4)
        complete_zip = zipfile.is_zipfile(file)
        if complete_zip:  # torch's zip layout: <name>/data.pkl + <name>/data/<storage>
            with zipfile.ZipFile(file) as archive:
                if not any(name.endswith("/data.pkl") for name in archive.namelist()):
                    raise foreign
    except zipfile.BadZipFile:
        raise CheckpointError(f"cannot load checkpoint {shown!r}: the file is truncated or corrupted") from None
    except OSError as exc:
        raise CheckpointError(f"cannot read checkpoint {shown!r}: {exc.strerror or exc}") from None
    if not head:
        raise CheckpointError(f"cannot load checkpoint {shown!r}: the file is empty")
    if head == b"PK\x03\x04" and not complete_zip:
        raise CheckpointError(f"cannot load checkpoint {shown!r}: the file is truncated or corrupted")
    if not complete_zip and not head.startswith(b"\x80"):  # torch.save: zip, or legacy pickle protocol >= 2
        raise foreign


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """Load the raw dict safely, turning every failure into a one-line CheckpointError."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint not found: {str(path)!r}")
    _check_file(path)
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # truncated zip, pickled objects, random bytes, ...
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if "weights_only" in str(exc) or "Unsupported global" in str(exc):
            reason = "it contains pickled Python objects, which are refused for safety"
        raise CheckpointError(f"cannot load checkpoint {str(path)!r}: {reason}") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        raise CheckpointError(f"not a de-en-nmt checkpoint: {str(path)!r}")
    missing = [k for k in REQUIRED if k not in ckpt]
    if missing:
        raise CheckpointError(f"checkpoint {str(path)!r} lacks {', '.join(missing)}")
    if not isinstance(ckpt.get("lexicon", b""), bytes):
        raise CheckpointError(f"checkpoint {str(path)!r} is invalid: its lexicon is not bytes")
    return ckpt


def load_checkpoint(
    path: str | Path, device: torch.device | str = "cpu"
) -> tuple[Transformer, Tokenizer, dict[str, Any]]:
    """Rebuild the model (fp32, eval mode, on ``device``), its tokenizer and its metadata."""
    ckpt = read_checkpoint(path)
    model, tokenizer = build_from_checkpoint(ckpt, path)
    return model.to(device).eval(), tokenizer, ckpt["meta"]


def build_from_checkpoint(ckpt: dict[str, Any], path: str | Path) -> tuple[Transformer, Tokenizer]:
    try:
        config = ModelConfig.from_dict(ckpt["config"])
        proto = ckpt["tokenizer"]
        # One per process and SentencePiece model: the two directions served side by side share it.
        tokenizer = shared_tokenizer(proto) if isinstance(proto, bytes) else Tokenizer(proto)
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"checkpoint {str(path)!r} is invalid: {exc}") from None
    if tokenizer.vocab_size != config.vocab_size:
        raise CheckpointError(
            f"checkpoint {str(path)!r} is invalid: tokenizer has {tokenizer.vocab_size} pieces "
            f"but the model expects {config.vocab_size}")
    model = Transformer(config)
    state = {k: v.float() if v.is_floating_point() else v for k, v in ckpt["model"].items()}
    try:
        model.load_state_dict(state)
    except RuntimeError as exc:
        # The first line only says "Error(s) in loading state_dict"; the second names the tensor.
        lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
        first = lines[1] if len(lines) > 1 else lines[0]
        raise CheckpointError(f"checkpoint {str(path)!r} does not match its config: {first}") from None
    return model, tokenizer
