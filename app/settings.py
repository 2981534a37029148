"""Every setting of the web service: its default, how it is read from the environment, its check.

One environment variable per setting, named like the Flask config key. ``create_app`` layers
defaults, then the environment, then a test mapping, and validates the result once, so a typo in
the environment stops the process at start instead of failing on the first request.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from model.data.ding import DEBIAN_PATH
from model.inference.channel import SERVED_WEIGHT
from model.search.options import SERVED, SearchOptions

ROOT = Path(__file__).resolve().parents[1]

DEFAULTS: dict[str, Any] = {
    "MODEL_PATH": str(ROOT / "checkpoints" / "de-en.pt"),  # the shipped model
    # One checkpoint per direction served: "de-en:PATH,en-de:PATH" (a de-en one among them: the
    # pages translate German). Empty = MODEL_PATH, and beside the shipped de-en model the shipped
    # en-de one (SHIPPED_EN_DE); MODEL_PATHS replaces both, and setting MODEL_PATH to anything but
    # its default beside it is an error.
    "MODEL_PATHS": "",
    "MODEL_CARD_PATH": str(ROOT / "MODEL_CARD.md"),  # shown on /model when the file exists
    # Corpus for the Random button: by default the attributed Tatoeba sample shipped beside the
    # model (python -m commands.sample, training split only); CORPUS_PATH= (empty) turns Random off.
    "CORPUS_PATH": str(ROOT / "checkpoints" / "random-sample.tsv"),
    # ... and its held-out sentences, from the test split that no shipped model trained on, where
    # the score against the references means something (commands.sample --split test);
    # HELD_OUT_PATH= (empty) turns that choice off.
    "HELD_OUT_PATH": str(ROOT / "checkpoints" / "random-held-out.tsv"),
    "DEVICE": "auto",             # auto | cpu | cuda
    "ENGINE": "auto",             # auto | ct2 | torch; auto = ct2 (CTranslate2) where it imports and runs
    "QUANTIZATION": "int8",       # ct2 compute type: int8 | float32, on a GPU also float16 | int8_float16
    # PyTorch weights (alignment, attention, the inspector; translation too with ENGINE=torch): auto |
    # fp32 | bf16; auto = bf16 where ct2 translates on a CPU with native bfloat16, else fp32.
    "TORCH_PRECISION": "auto",
    "TRANSLATION_CACHE": 1000,    # model inputs whose translations each worker remembers; 0 = off
    # Noisy-channel reranking (model/inference/channel.py): where the reverse model is served too,
    # each beam's hypotheses are reordered by how well they explain the source, read by that model
    # at this weight; 0 = off. Translations that leave less out, for more time and memory per
    # request (docs/journal/channel.md, "Served: CHANNEL_WEIGHT").
    "CHANNEL_WEIGHT": SERVED_WEIGHT,
    # Concurrent requests' sentences are translated in one engine call (model.inference.batching):
    # under load a batch waits up to this long for more; a lone request never waits.
    "BATCH_WAIT_MS": 5,
    # Shared state of every worker of every instance: rate-limit counters, translated files,
    # translation cache (redis://[:password@]host:port/db); empty = each machine keeps its own.
    "REDIS_URL": "",
    "MAX_CHARS": 5000,            # characters per request, all texts together
    # Seconds of work a request that runs the model may take; past it, it stops at its next
    # sentence or model call with a 503 (pipeline/deadline.py). Below GUNICORN_TIMEOUT; 0 = none.
    "REQUEST_TIMEOUT": 30,
    "BATCH_LIMIT": 50,            # texts per request when q is a list (LibreTranslate's --batch-limit)
    "BEAM_SIZE": SERVED.beam_size,  # beam size; 1 = greedy search (search_options)
    "MAX_ALTERNATIVES": 3,        # most alternatives a /translate request may ask for
    "MAX_ATTENTION_CHARS": 500,   # attention is O(length^2) numbers per head: keep pages small
    # ... and the pieces, which it is square in: 500 characters of German are about 100 pieces (7.8 MB
    # of JSON), 500 digits the vocabulary lacks were 500 (53 MB); at 160 at most about 20 MB.
    "MAX_ATTENTION_PIECES": 160,
    "TORCH_THREADS": 0,           # intra-op threads per worker; 0 = cores / WEB_CONCURRENCY
    # Batches a worker's CTranslate2 engine translates at once, sharing the weights; they share the
    # worker's threads (TORCH_THREADS). 0 = one batch per thread on a CPU, one batch on a GPU.
    "PARALLEL_BATCHES": 0,
    "API_KEYS": "",               # comma-separated keys; empty = api_key is accepted and ignored
    # Rate limits and the key database (app/limits.py, app/apikeys.py; python -m commands.keys).
    "REQ_LIMIT": 0,               # requests per minute per client on the translation API; 0 = no limit
    "API_KEYS_DB": "",            # SQLite file of API keys with their own req_limit; empty = none
    # With keys: an origin (https://host[:port]) whose pages may call without a key, as LibreTranslate's
    # --require-api-key-origin; its browsers' Origin (else Referer) header says so. Empty = none.
    "API_KEYS_ORIGIN": "",
    "PROXY_COUNT": 0,             # proxies in front that append to X-Forwarded-For; 0 = header ignored
    "MAX_CONTENT_LENGTH": 1_000_000,  # request body cap in bytes; Werkzeug answers 413 above it
    # /translate_file. The body cap above applies first: raise both for bigger uploads.
    "MAX_FILE_BYTES": 1_000_000,  # bytes per uploaded file
    "MAX_FILE_CHARS": 20_000,     # characters of text per file: ~300 sentences, seconds on a CPU
    "FILE_TTL": 600,              # seconds a translated file waits for its one download
    "MAX_STORED_FILES": 100,      # translated files kept at once; the oldest go first
    "MAX_STORED_BYTES": 50_000_000,  # their bytes together
    # Stored permalinks (/?p=..., app/permalinks.py) for texts too long for a /?q=... URL.
    "PERMALINK_DB": "",           # SQLite file; empty = a temporary one, gone when the server stops
    "PERMALINK_TTL": 30 * 86400,  # seconds a stored link is kept after it was last opened
    "MAX_PERMALINKS": 10_000,     # stored links at once; the least recently used go first
    "MAX_PERMALINK_BYTES": 50_000_000,  # their texts' bytes together
    # Glossaries (/glossaries, /translate's glossary; app/glossaries.py, pipeline/glossary.py).
    "GLOSSARY_DB": "",            # SQLite file; empty = a temporary one, gone when the server stops
    "MAX_GLOSSARY_ENTRIES": 1000,  # terms per glossary, stored or sent with /translate
    "MAX_GLOSSARIES": 1000,       # stored glossaries (per API key when API_KEYS is set)
    # German noun plurals for glossary terms: the Ding dictionary (Debian's trans-de-en), used when
    # the file exists; empty = German inflection rules only.
    # The translate page's dictionary panel and /api/dictionary (app/dictionary.py): the Ding file of
    # Debian's trans-de-en; off where the default file is missing, and when empty.
    "DICTIONARY_PATH": DEBIAN_PATH,
    # Prometheus metrics (app/metrics.py): 1 = GET /metrics, summed over gunicorn's workers.
    "METRICS": 0,
    "METRICS_TOKEN": "",          # when set, /metrics needs "Authorization: Bearer <token>"
}

# Integer settings and the smallest value each may take.
_INTS = {"MAX_CHARS": 1, "REQUEST_TIMEOUT": 0, "BATCH_LIMIT": 1, "REQ_LIMIT": 0, "PROXY_COUNT": 0, "BEAM_SIZE": 1, "MAX_ALTERNATIVES": 0,
         "MAX_ATTENTION_CHARS": 1, "MAX_ATTENTION_PIECES": 1, "TORCH_THREADS": 0, "PARALLEL_BATCHES": 0, "TRANSLATION_CACHE": 0, "BATCH_WAIT_MS": 0, "MAX_CONTENT_LENGTH": 1024,
         "MAX_FILE_BYTES": 1, "MAX_FILE_CHARS": 1, "FILE_TTL": 1, "MAX_STORED_FILES": 1, "MAX_STORED_BYTES": 1,
         "PERMALINK_TTL": 1, "MAX_PERMALINKS": 1, "MAX_PERMALINK_BYTES": 1,
         "MAX_GLOSSARY_ENTRIES": 1, "MAX_GLOSSARIES": 1}
_DEVICES = ("auto", "cpu", "cuda")
_CHOICES = {"DEVICE": _DEVICES, "ENGINE": ("auto", "ct2", "torch"), "QUANTIZATION": ("int8", "float32", "float16", "int8_float16"),
            "TORCH_PRECISION": ("auto", "fp32", "bf16")}


class SettingsError(ValueError):
    """A setting with a value the service cannot use."""


DIRECTIONS = ("de-en", "en-de")   # what a checkpoint may translate (model.network.checkpoint.direction)
SHIPPED_EN_DE = str(ROOT / "checkpoints" / "en-de.pt")   # served beside the shipped de-en model by default


def model_paths(config: Mapping[str, Any]) -> dict[str, str]:
    """``{direction: checkpoint}`` from ``MODEL_PATHS``; without it ``{"de-en": MODEL_PATH}``, and
    the shipped en-de model too where MODEL_PATH is the shipped de-en one (settings as given, before
    ``validate``); de-en first. Raises ``SettingsError``: an entry that
    is no DIRECTION:PATH, an unknown direction, one named twice, a missing file, no de-en model,
    or MODEL_PATH set beside MODEL_PATHS. Whether each file translates what it is listed as is
    known once it is loaded (``service.init_app``)."""
    listed = config["MODEL_PATHS"].strip()
    if not listed:
        shipped = config["MODEL_PATH"] == DEFAULTS["MODEL_PATH"] and os.path.isfile(SHIPPED_EN_DE)
        return {"de-en": config["MODEL_PATH"], **({"en-de": SHIPPED_EN_DE} if shipped else {})}
    if config["MODEL_PATH"] != DEFAULTS["MODEL_PATH"]:
        raise SettingsError("MODEL_PATH and MODEL_PATHS are both set: MODEL_PATHS names every model "
                            "(de-en:PATH,en-de:PATH), so leave MODEL_PATH unset")
    paths: dict[str, str] = {}
    for entry in listed.split(","):
        name, colon, path = (part.strip() for part in entry.partition(":"))
        if not colon or not name or not path:
            raise SettingsError(f"MODEL_PATHS: each entry must be DIRECTION:PATH, got {entry.strip()!r}")
        if name not in DIRECTIONS:
            raise SettingsError(f"MODEL_PATHS: unknown direction {name!r} (one of {', '.join(DIRECTIONS)})")
        if name in paths:
            raise SettingsError(f"MODEL_PATHS: {name} is named twice")
        if not os.path.isfile(path):
            raise SettingsError(f"MODEL_PATHS: {name}: checkpoint not found: {path!r}")
        paths[name] = path
    if "de-en" not in paths:
        raise SettingsError("MODEL_PATHS must name a de-en checkpoint too: the pages, the inspector and "
                            "Random translate German")
    return {name: paths[name] for name in DIRECTIONS if name in paths}


# Deprecated names still read from the environment: old name -> setting.
ALIASES = {"MAX_TEXTS": "BATCH_LIMIT"}


def from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    """The settings present in ``environ``, as raw strings (``validate`` converts them); a
    deprecated name (``ALIASES``) counts only when the setting's own name is absent."""
    found = {name: environ[old] for old, name in ALIASES.items() if old in environ}
    return found | {name: environ[name] for name in DEFAULTS if name in environ}


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


def _as_weight(name: str, value: Any) -> float:
    """A number >= 0, as a string from the environment or a number."""
    try:
        number = float(value.strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not 0 <= number < math.inf:
        raise SettingsError(f"{name} must be a number >= 0, got {value!r}")
    return number


def _as_switch(name: str, value: Any) -> bool:
    """0 or 1 (also False/True), as a string from the environment or a number."""
    text = value.strip() if isinstance(value, str) else value
    if text in ("0", "1") or (isinstance(text, (bool, int)) and text in (0, 1)):
        return text in ("1", 1)
    raise SettingsError(f"{name} must be 0 or 1, got {value!r}")


def origin_of(url: str) -> str | None:
    """The origin of an http(s) URL as browsers write it in an Origin header: scheme://host[:port],
    lower-cased, without the scheme's default port; None for anything else ("null", a path)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # a port that is no number, or out of range
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname  # IPv6
    default = 443 if parts.scheme == "https" else 80
    return f"{parts.scheme}://{host}" + (f":{port}" if port not in (None, default) else "")


def _as_origin(value: str) -> str:
    """``API_KEYS_ORIGIN``: empty, or an origin alone (no user, path, query or fragment), normalized."""
    if not value:
        return ""
    parts = urlsplit(value)
    if origin_of(value) is None or parts.username is not None or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise SettingsError(f"API_KEYS_ORIGIN must be an origin such as https://translate.example.com "
                            f"(http or https, a host and an optional port; no path), got {value!r}")
    return origin_of(value)


def search_options(config: Mapping[str, Any]) -> SearchOptions:
    """How the service searches (validated settings): the served search (``SERVED``) with the
    ``BEAM_SIZE`` setting; the text pipeline and the inspector use it (``TranslationService``)."""
    return replace(SERVED, beam_size=config["BEAM_SIZE"])


def validate(config: dict[str, Any]) -> None:
    """Convert and check the settings in place; raises ``SettingsError`` with a one-line reason."""
    for name in _INTS:
        config[name] = _as_int(name, config[name])
    for name in ("MODEL_PATH", "MODEL_PATHS", "MODEL_CARD_PATH", "CORPUS_PATH", "HELD_OUT_PATH", "DEVICE", "ENGINE", "QUANTIZATION", "TORCH_PRECISION", "API_KEYS",
                 "API_KEYS_DB", "API_KEYS_ORIGIN", "REDIS_URL", "PERMALINK_DB", "GLOSSARY_DB",
                 "DICTIONARY_PATH"):
        value = config[name]
        if not isinstance(value, (str, os.PathLike)):
            raise SettingsError(f"{name} must be a string, got {value!r}")
        config[name] = os.fspath(value).strip()
    for name, choices in _CHOICES.items():
        if config[name] not in choices:
            raise SettingsError(f"{name} must be one of {', '.join(choices)}, got {config[name]!r}")
    if not config["MODEL_PATH"]:
        raise SettingsError("MODEL_PATH must name a checkpoint file, got ''")
    config["MODELS"] = model_paths(config)   # the checkpoints by direction (service.init_app)
    config["MODEL_PATH"] = config["MODELS"]["de-en"]
    if config["BATCH_WAIT_MS"] > 1000:
        raise SettingsError(f"BATCH_WAIT_MS must be at most 1000, got {config['BATCH_WAIT_MS']!r}")
    if config["REDIS_URL"] and not config["REDIS_URL"].startswith(("redis://", "rediss://", "unix://")):
        raise SettingsError(f"REDIS_URL must start with redis://, rediss:// or unix://, got {config['REDIS_URL']!r}")
    config["API_KEYS"] = frozenset(k.strip() for k in config["API_KEYS"].split(",") if k.strip())
    config["API_KEYS_ORIGIN"] = _as_origin(config["API_KEYS_ORIGIN"])
    config["METRICS"] = _as_switch("METRICS", config["METRICS"])
    config["CHANNEL_WEIGHT"] = _as_weight("CHANNEL_WEIGHT", config["CHANNEL_WEIGHT"])
    token = config["METRICS_TOKEN"]
    # A bearer token is visible ASCII (RFC 6750); the message leaves the secret out.
    if not isinstance(token, str) or not all("!" <= c <= "~" for c in token.strip()):
        raise SettingsError("METRICS_TOKEN must be printable ASCII characters without spaces")
    config["METRICS_TOKEN"] = token.strip()
