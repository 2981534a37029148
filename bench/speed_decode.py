"""Part 2 of ``bench/model_speed.py``: decoding speed in sentences per second.

Two source lengths: "short" (9-11 German pieces in, like most Tatoeba sentences) and "medium" (24-26
pieces in). A randomly initialised model does not know when to stop, so the searches run a model wrapper
(``FixedLengthEOS``) that only *chooses the EOS position*: EOS is forbidden until the output has as many
pieces as the source, then allowed/forced so that every output gets n to n+2 pieces. Every other logit
is the real model's, and every step does the full, real decoder work; the output lengths are measured
and printed. This gives the cost of translating such sentences with a trained model, except that beam
search here never has hypotheses ending early (a trained model's beams end within a step or two of each
other).

Each length group has greedy and beam 4, batched and one sentence at a time, each with and without the
KV cache; cached and uncached runs alternate and the median of the repeats is reported.
"""

from __future__ import annotations

import random
import statistics
from typing import Any

from speed_common import Meter, progress, random_ids, verdict

import torch  # noqa: E402  (after speed_common, which puts the repository root on sys.path)
from torch import Tensor  # noqa: E402

from model.network.batch import Batch  # noqa: E402
from model.network.config import ModelConfig  # noqa: E402
from model.search.decoding import beam_search, greedy_search  # noqa: E402
from model.search.options import SearchOptions  # noqa: E402

BEAM4 = SearchOptions(beam_size=4)  # the "beam4" cells
from model.network.tokenizer import EOS_ID  # noqa: E402
from model.network.transformer import Transformer  # noqa: E402

# name -> (fewest, most source pieces); the settings keys give the sentence counts per group.
LENGTH_GROUPS: dict[str, tuple[int, int]] = {"short": (9, 11), "medium": (24, 26)}
SENTENCE_KEYS: dict[str, tuple[str, str]] = {  # group -> (batched sentences, one-at-a-time sentences)
    "short": ("decode_sentences", "decode_single"),
    "medium": ("decode_sentences_medium", "decode_single_medium"),
}
SPEEDUP_TARGET = 3.0  # cached >= 3x uncached
GREEDY_TARGET = 300.0  # greedy batched cached sentences/s, on short sentences


class FixedLengthEOS:
    """Duck-types ``Transformer`` for greedy_search/beam_search; only the EOS logit is changed.

    With n source pieces, an output may end once it has n pieces and must end at n + 2; in between it
    ends when (last piece id + pieces so far) % 3 == 0, a stand-in for "the model is confident". The rule
    reads only what decode() is given (source mask, last input token, cache length), so it stays right
    when beam search reorders or drops rows."""

    def __init__(self, model: Transformer):
        self.model = model
        self.config = model.config

    def encode(self, src: Tensor, src_mask: Tensor, attention=None) -> Tensor:
        return self.model.encode(src, src_mask)

    def new_cache(self):
        return self.model.new_cache()

    def decode(self, tgt_in, memory, src_mask, tgt_mask=None, cache=None, attention=None) -> Tensor:
        start = cache.length if cache is not None else 0
        logits = self.model.decode(tgt_in, memory, src_mask, tgt_mask, cache)  # (B, T, V)
        pieces = start + tgt_in.size(1) - 1  # pieces in the prefix (BOS excluded)
        n_src = src_mask.sum(dim=(1, 2, 3)) - 1  # (B,) source pieces (EOS excluded)
        may_end = (pieces >= n_src) & ((tgt_in[:, -1] + pieces) % 3 == 0)
        end = may_end | (pieces >= n_src + 2)
        logits[:, -1, EOS_ID] = torch.where(end, 1e4, float("-inf"))
        return logits


def decode_sources(cfg: ModelConfig, n: int, seed: int, group: str = "short") -> list[list[int]]:
    """``n`` random source sentences with a length drawn uniformly from the group's range."""
    low, high = LENGTH_GROUPS[group]
    rng = random.Random(seed + 1 + list(LENGTH_GROUPS).index(group))
    return [random_ids(rng, rng.randint(low, high), cfg.vocab_size) for _ in range(n)]


def run_decoding(model, sources: list[list[int]], search: str, batch_size: int, use_cache: bool,
                 bf16: bool = False) -> list[list[int]]:
    """Translate ``sources`` the way Translator does: longest first, in chunks; outputs in input order.
    ``bf16``: under torch.autocast("cpu", bfloat16), which Translator does not do today."""
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        return _run_decoding(model, sources, search, batch_size, use_cache)


def _run_decoding(model, sources: list[list[int]], search: str, batch_size: int, use_cache: bool) -> list[list[int]]:
    order = sorted(range(len(sources)), key=lambda i: -len(sources[i]))
    out: list[list[int]] = [[] for _ in sources]
    for k in range(0, len(order), batch_size):
        chunk = order[k:k + batch_size]
        batch = Batch.make([sources[i] for i in chunk])
        if search == "greedy":
            results = greedy_search(model, batch, use_cache=use_cache)
        else:
            results = [h[0].tokens for h in beam_search(model, batch, BEAM4, use_cache=use_cache)]
        for i, tokens in zip(chunk, results):
            out[i] = tokens
    return out


def measure_cell(model, sources: list[list[int]], search: str, batch_size: int, repeats: int,
                 bf16: bool) -> dict[str, Any]:
    """One table cell: ``sources`` decoded ``repeats`` times with and without the cache, alternating."""
    run_decoding(model, sources[:2], search, batch_size, True, bf16)  # warm-up
    run_decoding(model, sources[:2], search, batch_size, False, bf16)
    times: dict[bool, list[float]] = {True: [], False: []}
    faults: dict[bool, list[int]] = {True: [], False: []}
    outputs: dict[bool, list[list[int]]] = {}
    for r in range(repeats):
        for use_cache in ((True, False) if r % 2 == 0 else (False, True)):
            with Meter() as m:
                outputs[use_cache] = run_decoding(model, sources, search, batch_size, use_cache, bf16)
            times[use_cache].append(m.wall)
            faults[use_cache].append(m.faults)
    lengths = [len(o) for o in outputs[True]]
    sps = {c: [len(sources) / t for t in times[c]] for c in (True, False)}
    return {
        "search": search, "batch_size": batch_size, "sentences": len(sources),
        "src_pieces_mean": statistics.mean(len(s) for s in sources),
        "out_pieces_mean": statistics.mean(lengths), "out_pieces_min": min(lengths),
        "out_pieces_max": max(lengths),
        "same_output_cached_uncached": outputs[True] == outputs[False],
        "sentences_per_s_cached": statistics.median(sps[True]),
        "sentences_per_s_uncached": statistics.median(sps[False]),
        "runs_cached": sps[True], "runs_uncached": sps[False],
        "cache_speedup": statistics.median(sps[True]) / statistics.median(sps[False]),
        "page_faults_per_sentence_cached": statistics.median(faults[True]) / len(sources),
    }


def bench_decoding(cfg: ModelConfig, settings: dict[str, int], seed: int, bf16: bool = False) -> dict[str, Any]:
    torch.manual_seed(seed)
    model = FixedLengthEOS(Transformer(cfg).eval())
    repeats = settings["decode_repeats"]
    cells = []
    for group, (many_key, few_key) in SENTENCE_KEYS.items():
        many = decode_sources(cfg, settings[many_key], seed, group)
        few = many[: settings[few_key]]
        for search in ("greedy", "beam4"):
            for mode, sources, bs in (("batched", many, settings["batch_size"]), ("one at a time", few, 1)):
                progress(f"decoding: {group}, {search}, {mode}, {len(sources)} sentences x {repeats} repeats")
                cell = measure_cell(model, sources, search, bs, repeats, bf16)
                cells.append({"length": group, "mode": mode, **cell})
    return {"cells": cells, "bf16_autocast": bf16, "length_groups": LENGTH_GROUPS}


# ------------------------------------------------------------------------------------------- report


def report_decoding(settings: dict, decode: dict) -> None:
    print()
    print("2. Decoding, preset 'small', random weights; EOS position chosen by the FixedLengthEOS wrapper "
          "(n..n+2 output pieces for n source pieces; all other logits and all decoder work are real)")
    if decode["bf16_autocast"]:
        print("   --bf16: decoding under torch.autocast('cpu', bfloat16), NOT what Translator does today; "
              "cached and uncached outputs may then differ by rounding")
    groups = ", ".join(f"{g} = {lo}-{hi}" for g, (lo, hi) in decode["length_groups"].items())
    print(f"   source pieces: {groups}; {settings['decode_repeats']} alternating repeats, median; "
          f"beam4 = beam_search(beam_size=4), batched = chunks of {settings['batch_size']} longest-first "
          "as Translator does")
    print(f"   {'length':<8}{'search':<8}{'mode':<15}{'sents':>6}{'in':>6}{'out':>6}{'min-max':>9}"
          f"{'cached s/s':>12}{'uncached s/s':>14}{'cache x':>9}{'same out':>10}")
    for c in decode["cells"]:
        print(f"   {c['length']:<8}{c['search']:<8}{c['mode']:<15}{c['sentences']:>6}{c['src_pieces_mean']:>6.1f}"
              f"{c['out_pieces_mean']:>6.1f}{c['out_pieces_min']:>5}-{c['out_pieces_max']:<3}"
              f"{c['sentences_per_s_cached']:>12,.1f}{c['sentences_per_s_uncached']:>14,.1f}"
              f"{c['cache_speedup']:>9.2f}{'yes' if c['same_output_cached_uncached'] else 'NO':>10}")
    report_targets(decode["cells"])


def report_targets(cells: list[dict]) -> None:
    """The two targets: greedy speed judged on short sentences, and the cache speed-up cell by cell."""
    greedy = next(c for c in cells if (c["length"], c["search"], c["mode"]) == ("short", "greedy", "batched"))
    sps = greedy["sentences_per_s_cached"]
    print(f"   target greedy batched cached >= {GREEDY_TARGET:.0f} sentences/s, judged on short sentences: "
          f"{sps:,.0f} {verdict(sps >= GREEDY_TARGET)}")
    met = sum(c["cache_speedup"] >= SPEEDUP_TARGET for c in cells)
    print(f"   target cached >= {SPEEDUP_TARGET:.0f}x uncached, per cell: met by {met} of {len(cells)}")
    for group in dict.fromkeys(c["length"] for c in cells):
        parts = [f"{c['search']} {c['mode']} {c['cache_speedup']:.2f}x "
                 f"{'ok' if c['cache_speedup'] >= SPEEDUP_TARGET else 'below'}"
                 for c in cells if c["length"] == group]
        print(f"     {group + ':':<8}" + "; ".join(parts))
