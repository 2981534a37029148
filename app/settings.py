"""Every setting of the web service: its default, how it is read from the environment, its check.

One environment variable per setting, named like the Flask config key. ``create_app`` layers
defaults, then the environment, then a test mapping, and validates the result once, so a typo in
the environment stops the process at start instead of failing on the first request.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

DEFAULTS: dict[str, Any] = {
    "MODEL_PATH": str(ROOT / "checkpoints" / "de-en.pt"),  # the shipped model
    "MODEL_CARD_PATH": str(ROOT / "MODEL_CARD.md"),  # shown on /model when the file exists
    # Corpus for the Random button: by default the attributed Tatoeba sample shipped beside the
    # model (python -m model.sample, training split only); CORPUS_PATH= (empty) turns Random off.
    "CORPUS_PATH": str(ROOT / "checkpoints" / "random-sample.tsv"),
    "DEVICE": "auto",             # auto | cpu | cuda
    "ENGINE": "auto",             # auto | ct2 | torch; auto = ct2 (CTranslate2) where it imports and runs
    "QUANTIZATION": "int8",       # ct2 compute type: int8 | float32, on a GPU also float16 | int8_float16
    "TRANSLATION_CACHE": 1000,    # model inputs whose translations each worker remembers; 0 = off
    "MAX_CHARS": 5000,            # characters per request, all texts together
    "MAX_TEXTS": 50,              # texts per request when q is a list
    "BEAM_SIZE": 4,               # default beam; 1 = greedy search
    "MAX_ALTERNATIVES": 3,        # most alternatives a /translate request may ask for
    "MAX_ATTENTION_CHARS": 500,   # attention is O(length^2) numbers per head: keep pages small
    "TORCH_THREADS": 0,           # intra-op threads per worker; 0 = cores / WEB_CONCURRENCY
    "API_KEYS": "",               # comma-separated keys; empty = api_key is accepted and ignored
    "MAX_CONTENT_LENGTH": 1_000_000,  # request body cap in bytes; Werkzeug answers 413 above it
    # /translate_file. The body cap above applies first: raise both for bigger uploads.
    "MAX_FILE_BYTES": 1_000_000,  # bytes per uploaded file
    "MAX_FILE_CHARS": 20_000,     # characters of text per file: ~300 sentences, seconds on a CPU
    "FILE_TTL": 600,              # seconds a translated file waits for its one download
    "MAX_STORED_FILES": 100,      # translated files kept at once; the oldest go first
    "MAX_STORED_BYTES": 50_000_000,  # their bytes together
}

# Integer settings and the smallest value each may take.
_INTS = {"MAX_CHARS": 1, "MAX_TEXTS": 1, "BEAM_SIZE": 1, "MAX_ALTERNATIVES": 0,
         "MAX_ATTENTION_CHARS": 1, "TORCH_THREADS": 0, "TRANSLATION_CACHE": 0, "MAX_CONTENT_LENGTH": 1024,
         "MAX_FILE_BYTES": 1, "MAX_FILE_CHARS": 1, "FILE_TTL": 1, "MAX_STORED_FILES": 1, "MAX_STORED_BYTES": 1}
_DEVICES = ("auto", "cpu", "cuda")
_CHOICES = {"DEVICE": _DEVICES, "ENGINE": ("auto", "ct2", "torch"), "QUANTIZATION": ("int8", "float32", "float16", "int8_float16")}


class SettingsError(ValueError):
    """A setting with a value the service cannot use."""


def from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    """The settings present in ``environ``, as raw strings (``validate`` converts them)."""
    return {name: environ[name] for name in DEFAULTS if name in environ}


def _as_int(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise SettingsError(f"{name} must be an integer >= {_INTS[name]}, got {value!r}")
    try:
        number = int(value.strip()) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        raise SettingsError(f"{name} must be an integer >= {_INTS[name]}, got {value!r}") from None
    if number < _INTS[name] or (not isinstance(value, str) and number != value):
        raise SettingsError(f"{name} must be an integer >= {_INTS[name]}, got {value!r}")
    return number


def validate(config: dict[str, Any]) -> None:
    """Convert and check the settings in place; raises ``SettingsError`` with a one-line reason."""
    for name in _INTS:
        config[name] = _as_int(name, config[name])
    for name in ("MODEL_PATH", "MODEL_CARD_PATH", "CORPUS_PATH", "DEVICE", "ENGINE", "QUANTIZATION", "API_KEYS"):
        value = config[name]
        if not isinstance(value, (str, os.PathLike)):
            raise SettingsError(f"{name} must be a string, got {value!r}")
        config[name] = os.fspath(value).strip()
    for name, choices in _CHOICES.items():
        if config[name] not in choices:
            raise SettingsError(f"{name} must be one of {', '.join(choices)}, got {config[name]!r}")
    if not config["MODEL_PATH"]:
        raise SettingsError("MODEL_PATH must name a checkpoint file, got ''")
    config["API_KEYS"] = frozenset(k.strip() for k in config["API_KEYS"].split(",") if k.strip())
