"""What the /model page shows, built from the checkpoint's config and metadata.

Every metadata key is optional: checkpoints from older or newer training code still render, with
whatever they carry.
"""

from __future__ import annotations

import os
from numbers import Real
from pathlib import Path
from typing import Any

from model.data.specs import CorpusSpec

from .service import Corpus, TranslationService

# Shown when a checkpoint does not say where its data came from: the corpus the release model is
# trained on (MODEL_CARD.md, "Training data"). Attribution is a condition of its licence.
DEFAULT_ATTRIBUTION = {
    "source": "Tatoeba (tatoeba.org), German–English pairs as packaged by manythings.org/anki",
    "license": "CC BY 2.0 FR",
    "license_url": "https://creativecommons.org/licenses/by/2.0/fr/",
}
_LICENSE_KEYS = ("source", "attribution", "license", "license_url", "url")


def _is_series(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(v is None or isinstance(v, Real) for v in value)


def _steps_for(name: str, ys: list, curves: dict[str, Any]) -> list | None:
    """The step list a series belongs to: one with "step" in its name and the same length."""
    steps = [k for k in curves if "step" in k and _is_series(curves[k]) and len(curves[k]) == len(ys)]
    preferred = [k for k in steps if k.startswith(name.split("_")[0])] + sorted(steps, key=lambda k: k != "step")
    return curves[preferred[0]] if preferred else None


def _x_for(name: str, ys: list, curves: dict[str, Any]) -> list:
    steps = _steps_for(name, ys, curves)
    return steps if steps is not None else list(range(1, len(ys) + 1))


def _points(ys: list) -> int:
    return sum(y is not None for y in ys)


def curve_charts(curves: Any) -> list[dict[str, Any]]:
    """Plotly-ready charts: losses together, BLEU, learning rate, then anything else.

    Only series with at least two points are drawn: one point is no curve (and Plotly stretches
    the axis of a lone value to ±1 around it, so a learning rate of 2e-4 sat at 0); such values
    are listed by ``curve_values`` instead. A chart without a series is left out.
    """
    if not isinstance(curves, dict):
        return []
    groups: dict[str, list[dict[str, Any]]] = {"Loss": [], "BLEU": [], "Learning rate": [], "Other": []}
    for name, ys in curves.items():
        if "step" in name or not _is_series(ys) or _points(ys) < 2:
            continue
        groups[_group(name)].append({"name": name.replace("_", " "), "x": _x_for(name, ys, curves), "y": ys})
    titles = {"Loss": "Loss (per token)", "BLEU": "Dev BLEU", "Learning rate": "Learning rate", "Other": "Other"}
    # numbers as Plotly's d3 formats: a learning rate in scientific notation (2.2e-4), not "220µ"
    formats = {"Learning rate": ".1e"}
    return [{"id": "curve-" + title.lower().replace(" ", "-"), "title": titles[title], "series": series,
             **({"yformat": formats[title]} if title in formats else {})}
            for title, series in groups.items() if series]


def _group(name: str) -> str:
    return ("Loss" if "loss" in name else "BLEU" if "bleu" in name
            else "Learning rate" if name in ("lr", "learning_rate") else "Other")


def curve_values(curves: Any) -> list[tuple[str, str]]:
    """The series with one point, as text: ``("dev bleu", "56.02 at step 1,000")``."""
    if not isinstance(curves, dict):
        return []
    rows = []
    for name, ys in curves.items():
        if "step" in name or not _is_series(ys) or _points(ys) != 1:
            continue
        steps = _steps_for(name, ys, curves)
        i = next(i for i, y in enumerate(ys) if y is not None)
        value = f"{ys[i]:.2e}" if _group(name) == "Learning rate" else f"{ys[i]:g}"
        at = f" at step {steps[i]:,}" if steps is not None and isinstance(steps[i], Real) else ""
        rows.append((name.replace("_", " "), value + at))
    return rows


def data_facts(meta: dict[str, Any]) -> tuple[list[tuple[str, str]], dict[str, str], bool]:
    """(rows about the training data, licence attribution, whether it came from the checkpoint)."""
    data = meta.get("data") if isinstance(meta.get("data"), dict) else {}
    rows = []
    for key, value in data.items():
        if key in _LICENSE_KEYS:
            continue
        if isinstance(value, dict):
            value = ", ".join(f"{k}: {v}" for k, v in value.items())
        elif key == "corpora" and isinstance(value, list):  # train.py's --data [KIND:]PATH[@WEIGHT] parts
            value = "; ".join(f"{c.get('corpus')}: {c.get('train_pairs'):,} pairs, weight {c.get('weight'):g}"
                              for c in value if isinstance(c, dict))
        elif key == "sources" and isinstance(value, list):  # commands.mixture's sources.json (--data-sources)
            value = "; ".join(f"{c.get('corpus')}: {c.get('train_pairs'):,} pairs, SHA-256 {c.get('sha256')}"
                              for c in value if isinstance(c, dict) and isinstance(c.get("train_pairs"), int))
        rows.append((key.replace("_", " "), str(value)))
    license = {k: str(data[k]) for k in _LICENSE_KEYS if data.get(k)}
    return rows, (license or DEFAULT_ATTRIBUTION), bool(license)


# What the README's and the model card's headline BLEU is, unlike the checkpoint's dev BLEU.
TEST_BLEU_NOTE = ("Not the headline figure: the README and the model card give test BLEU, on the Tatoeba test "
                  "split (held out like the dev split), with beam 4, through the text pipeline "
                  "(python -m commands.evaluate).")


def _corpus_name(path: str) -> str:
    name = Path(path).name
    return f"Tatoeba ({name})" if "tatoeba" in path.lower() or name == "deu-eng.zip" else name


def _dev_split_of(corpus: str) -> str:
    """"the dev split of Tatoeba (deu-eng.zip)" for a --data spec ([KIND:]PATH[@WEIGHT])."""
    try:
        return f"the dev split of {_corpus_name(CorpusSpec.parse(corpus).path)}"
    except ValueError:
        return f"the dev split of {corpus}"


def dev_bleu_facts(meta: dict[str, Any]) -> dict[str, Any] | None:
    """What the checkpoint's ``dev_bleu`` was measured on, as ``train.py`` measures it: the dev
    split of the first ``--data`` corpus (or ``--valid``), up to ``--eval-sentences`` sources
    spread evenly over it, greedy search on the bare model, the best of the run's evaluations.
    ``{"value", "split", "sample", "search", "when", "averaged", "text"}``; None without one."""
    value = meta.get("dev_bleu")
    if not isinstance(value, Real):
        return None
    args = meta.get("train_args") if isinstance(meta.get("train_args"), dict) else {}
    data = meta.get("data") if isinstance(meta.get("data"), dict) else {}
    corpora = args.get("data") if isinstance(args.get("data"), list) else []
    sources = data.get("sources") if isinstance(data.get("sources"), list) else []
    if isinstance(args.get("valid"), str) and sources and isinstance(sources[0], dict) \
            and isinstance(sources[0].get("corpus"), str):
        # a mixture of commands.mixture: its dev.tsv is the dev split of the first corpus it was written from
        split = (f"{_dev_split_of(sources[0]['corpus'])} (--valid {Path(args['valid']).name}, "
                 "written by commands.mixture)")
    elif isinstance(args.get("valid"), str):
        split = f"{_corpus_name(args['valid'])} (--valid)"
    elif corpora and isinstance(corpora[0], str):
        split = _dev_split_of(corpora[0])
    else:
        split = "the dev split of the training corpus"
    sample = None
    if isinstance(args.get("eval_sentences"), int):
        pairs = f" (the split has {data['dev_pairs']:,} pairs)" if isinstance(data.get("dev_pairs"), int) else ""
        sample = f"up to {args['eval_sentences']:,} of its sources spread evenly{pairs}, with all their references"
    when = "the best of the run's evaluations during training"
    curves = meta.get("curves") if isinstance(meta.get("curves"), dict) else {}
    steps, scores = curves.get("step"), curves.get("dev_bleu")
    if _is_series(steps) and _is_series(scores) and len(steps) == len(scores) and value in scores:
        when += f" (step {steps[scores.index(value)]:,})"
    averaged = meta.get("averaged_from")
    averaged = (f"measured before averaging: this checkpoint averages {len(averaged)} checkpoints and "
                f"carries the metadata of one") if isinstance(averaged, list) and averaged else None
    search = "greedy search, the bare model (no text pipeline)"
    text = f"Measured on {split}" + (f", {sample}" if sample else "")
    text = "; ".join(part for part in (text, search, when, averaged) if part) + "."
    return {"value": value, "split": split, "sample": sample, "search": search, "when": when,
            "averaged": averaged, "text": text}


def _size(path: str) -> str:
    try:
        return f"{os.path.getsize(path) / 1e6:.1f} MB"
    except OSError:
        return "unknown"


def _sample_facts(corpus: Corpus | None) -> dict[str, Any] | None:
    """What /model says of one of Random's samples (None where its setting is empty)."""
    return None if corpus is None else {
        "file": Path(corpus.path).name, "sentences": len(corpus.sources),
        "pairs": sum(len(refs) for refs in corpus.references), "attribution": corpus.attribution}


def build(service: TranslationService) -> dict[str, Any]:
    translator = service.translator
    meta = translator.meta if isinstance(translator.meta, dict) else {}
    params = translator.num_parameters()
    data_rows, license, license_from_meta = data_facts(meta)
    training = [(label, meta[key]) for key, label in (
        ("step", "steps"), ("epoch", "epochs"), ("dev_bleu", "best dev BLEU (greedy, dev split)"),
        ("dev_loss", "dev loss"),
        ("wall_time_s", "training time (s)"), ("hardware", "hardware"), ("seed", "seed"), ("created", "saved"))
        if meta.get(key) is not None]
    averaged = meta.get("averaged_from")
    if isinstance(averaged, list) and averaged:  # written by commands.average
        steps = ", ".join(str(entry.get("step")) for entry in averaged if isinstance(entry, dict))
        training.append(("averaged checkpoints", f"{len(averaged)} (steps {steps})"))
    versions = meta.get("versions") if isinstance(meta.get("versions"), dict) else {}
    return {
        "random": _sample_facts(service.corpus),
        "held_out": _sample_facts(service.held_out),
        "checkpoint": Path(translator.checkpoint).name,
        "file_size": _size(translator.checkpoint),
        "parameters": params,
        "fp32_size": f"{params * 4 / 1e6:.1f} MB",
        "device": str(translator.device),
        "beam_size": service.search.beam_size,
        "config": sorted(translator.config.to_dict().items()),
        "dev_bleu": meta.get("dev_bleu"),
        "dev_bleu_facts": dev_bleu_facts(meta),
        "test_bleu_note": TEST_BLEU_NOTE,
        "training": training,
        "data_rows": data_rows,
        "license": license,
        "license_from_meta": license_from_meta,
        "versions": sorted(versions.items()),
        "charts": curve_charts(meta.get("curves")),
        "curve_values": curve_values(meta.get("curves")),
    }
