"""Part 1 of ``bench/model_speed.py``: training throughput of our Transformer against ``torch.nn.Transformer``.

Target tokens per second (non-pad target tokens / time of forward + label-smoothed loss + backward +
clip_grad_norm + AdamW step, dropout 0.1, train mode), for our ``model.network.transformer.Transformer`` and for
``torch.nn.Transformer`` of the same size (same d_model/heads/ffn/layers/dropout, pre-norm, batch_first,
wrapped in the same tied embedding + sinusoid positions + output projection), on the same synthetic
batches. Repeats alternate A/B and B/A so that drift in machine load hits both; the ratio is taken per
repeat (same moment, same load) and its median reported.
"""

from __future__ import annotations

import math
import random
import statistics
import time
import warnings
from typing import Any, Callable

from speed_common import Meter, progress, random_ids, verdict

import torch  # noqa: E402  (after speed_common, which puts the repository root on sys.path)
from torch import Tensor, nn  # noqa: E402

from model.data.sampler import TokenBatchSampler  # noqa: E402
from model.network.batch import Batch  # noqa: E402
from model.network.config import ModelConfig  # noqa: E402
from model.network.layers import SinusoidalPositions  # noqa: E402
from model.network.tokenizer import PAD_ID  # noqa: E402
from model.training.loss import label_smoothed_loss  # noqa: E402
from model.training.optimizer import make_optimizer  # noqa: E402
from model.network.transformer import Transformer  # noqa: E402

# ------------------------------------------------------------------------------------ synthetic data


def sentence_lengths(rng: random.Random, n: int) -> list[tuple[int, int]]:
    """(German, English) piece counts like Tatoeba: median ~12 German pieces, 80% within 8-19,
    English ~5% shorter than German with some spread."""
    pairs = []
    for _ in range(n):
        src = min(60, max(2, round(math.exp(rng.gauss(math.log(12.0), 0.35)))))
        tgt = min(60, max(1, round(src * rng.gauss(0.95, 0.12))))
        pairs.append((src, tgt))
    return pairs


def training_batches(cfg: ModelConfig, max_tokens: int, n_batches: int, seed: int) -> tuple[list[Batch], dict]:
    """``n_batches`` token-budget batches cut from a synthetic corpus exactly as train.py cuts them
    (TokenBatchSampler over max(src, tgt) + 2), in the sampler's shuffled order."""
    rng = random.Random(seed)
    lengths = sentence_lengths(rng, 20000)
    src = [random_ids(rng, s, cfg.vocab_size) for s, _ in lengths]
    tgt = [random_ids(rng, t, cfg.vocab_size) for _, t in lengths]
    sampler = TokenBatchSampler([max(s, t) + 2 for s, t in lengths], max_tokens, seed=seed)
    chosen = sampler.batches(0)[:n_batches]
    make_times, batches = [], []
    for idx in chosen:
        t0 = time.perf_counter()
        b = Batch.make([src[i] for i in idx], [tgt[i] for i in idx])
        make_times.append(time.perf_counter() - t0)
        batches.append(b)
    info = {
        "batches": len(batches),
        "sentences_per_batch": statistics.mean(b.src.size(0) for b in batches),
        "src_len_mean": statistics.mean(s for s, _ in lengths),
        "tgt_len_mean": statistics.mean(t for _, t in lengths),
        "target_tokens_per_batch": statistics.mean(b.n_tokens for b in batches),
        "padded_src_tokens_per_batch": statistics.mean(b.src.numel() for b in batches),
        "batch_make_ms": 1000 * statistics.median(make_times),
    }
    return batches, info


# ----------------------------------------------------------------------------- torch.nn baseline


class TorchTransformerMT(nn.Module):
    """``torch.nn.Transformer`` with the same surroundings as ours: a tied embedding scaled by sqrt(D),
    sinusoid positions, embedding dropout and the output projection onto the embedding matrix."""

    def __init__(self, c: ModelConfig):
        super().__init__()
        self.config = c
        self.embed = nn.Embedding(c.vocab_size, c.d_model, padding_idx=PAD_ID)
        self.positions = SinusoidalPositions(c.d_model, c.max_len)
        self.embed_dropout = nn.Dropout(c.dropout)
        with warnings.catch_warnings():  # "enable_nested_tensor is True, but ... norm_first was True"
            warnings.simplefilter("ignore")
            self.transformer = nn.Transformer(
                d_model=c.d_model, nhead=c.n_heads, num_encoder_layers=c.encoder_layers,
                num_decoder_layers=c.decoder_layers, dim_feedforward=c.d_ff, dropout=c.dropout,
                batch_first=True, norm_first=c.pre_norm)
        # nn.MultiheadAttention reuses ``dropout`` on the attention weights; ours has attention_dropout.
        for m in self.transformer.modules():
            if isinstance(m, nn.MultiheadAttention):
                m.dropout = c.attention_dropout
        nn.init.normal_(self.embed.weight, mean=0.0, std=c.d_model ** -0.5)

    def _embed(self, tokens: Tensor) -> Tensor:
        x = self.embed(tokens) * math.sqrt(self.config.d_model) + self.positions(tokens.size(1))
        return self.embed_dropout(x)

    def forward(self, src: Tensor, src_pad: Tensor, tgt_in: Tensor, tgt_pad: Tensor, causal: Tensor) -> Tensor:
        """src_pad / tgt_pad: (B, L) bool, True on padding; causal: (T, T) bool, True = may NOT attend."""
        h = self.transformer(self._embed(src), self._embed(tgt_in), tgt_mask=causal,
                             src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad,
                             memory_key_padding_mask=src_pad)
        return h @ self.embed.weight.t()

    @staticmethod
    def masks(b: Batch) -> tuple[Tensor, Tensor, Tensor]:
        T = b.tgt_in.size(1)
        causal = torch.ones(T, T, dtype=torch.bool).triu(1)
        return b.src == PAD_ID, b.tgt_in == PAD_ID, causal

    @torch.no_grad()
    def load_from(self, ours: Transformer) -> None:
        """Copy our weights in (for the equivalence check)."""
        self.embed.weight.copy_(ours.embed.weight)
        tr = self.transformer

        def lin(dst_w, dst_b, *srcs):
            dst_w.copy_(torch.cat([s.weight for s in srcs]))
            dst_b.copy_(torch.cat([s.bias for s in srcs]))

        def norm(dst, src):
            dst.weight.copy_(src.weight)
            dst.bias.copy_(src.bias)

        for mine, theirs in zip(ours.encoder, tr.encoder.layers):
            lin(theirs.self_attn.in_proj_weight, theirs.self_attn.in_proj_bias, mine.self_attn.qkv)
            lin(theirs.self_attn.out_proj.weight, theirs.self_attn.out_proj.bias, mine.self_attn.out)
            lin(theirs.linear1.weight, theirs.linear1.bias, mine.ffn.w1)
            lin(theirs.linear2.weight, theirs.linear2.bias, mine.ffn.w2)
            norm(theirs.norm1, mine.attn_block.norm)
            norm(theirs.norm2, mine.ffn_block.norm)
        for mine, theirs in zip(ours.decoder, tr.decoder.layers):
            lin(theirs.self_attn.in_proj_weight, theirs.self_attn.in_proj_bias, mine.self_attn.qkv)
            lin(theirs.self_attn.out_proj.weight, theirs.self_attn.out_proj.bias, mine.self_attn.out)
            lin(theirs.multihead_attn.in_proj_weight, theirs.multihead_attn.in_proj_bias,
                mine.cross_attn.q, mine.cross_attn.kv)
            lin(theirs.multihead_attn.out_proj.weight, theirs.multihead_attn.out_proj.bias, mine.cross_attn.out)
            lin(theirs.linear1.weight, theirs.linear1.bias, mine.ffn.w1)
            lin(theirs.linear2.weight, theirs.linear2.bias, mine.ffn.w2)
            norm(theirs.norm1, mine.self_block.norm)
            norm(theirs.norm2, mine.cross_block.norm)
            norm(theirs.norm3, mine.ffn_block.norm)
        norm(tr.encoder.norm, ours.encoder_norm)
        norm(tr.decoder.norm, ours.decoder_norm)


def equivalence_gap(cfg: ModelConfig, batch: Batch) -> float:
    """Max |logit difference| between ours and the baseline with copied weights, eval mode: shows that
    the two sides compute the same function (so the timing compares the same work)."""
    ours = Transformer(cfg).eval()
    theirs = TorchTransformerMT(cfg).eval()
    theirs.load_from(ours)
    with torch.no_grad():
        a = ours(batch.src, batch.src_mask, batch.tgt_in, batch.tgt_mask)
        src_pad, tgt_pad, causal = TorchTransformerMT.masks(batch)
        b = theirs(batch.src, src_pad, batch.tgt_in, tgt_pad, causal)
    real = batch.tgt_in != PAD_ID  # padded query positions are don't-care
    return float((a - b).abs()[real].max())


def check_equivalence(cfg: ModelConfig, seed: int) -> float:
    """``equivalence_gap`` on one small synthetic batch (<= 512 padded tokens)."""
    probe, _ = training_batches(cfg, 512, 1, seed)
    torch.manual_seed(seed)
    return equivalence_gap(cfg, probe[0])


# ------------------------------------------------------------------------------------------ training


def make_trainer(model: nn.Module, batches: list[Batch], kind: str, cfg: ModelConfig) -> Callable[[], int]:
    """A closure running one optimizer step per batch over ``batches``, as train.py does (minus the
    scheduler and logging); returns the target tokens it trained on."""
    model.train()
    optimizer = make_optimizer(model, lr=7e-4, weight_decay=0.0)
    n_tokens = [b.n_tokens for b in batches]
    if kind == "ours":
        inputs = [(b.src, b.src_mask, b.tgt_in, b.tgt_mask) for b in batches]
    else:
        inputs = []
        for b in batches:
            src_pad, tgt_pad, causal = TorchTransformerMT.masks(b)
            inputs.append((b.src, src_pad, b.tgt_in, tgt_pad, causal))

    def run() -> int:
        for args, b, n in zip(inputs, batches, n_tokens):
            logits = model(*args)
            loss_sum = label_smoothed_loss(logits, b.tgt_out, cfg.label_smoothing)
            optimizer.zero_grad(set_to_none=True)
            (loss_sum / n).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        return sum(n_tokens)

    return run


def bench_training(cfg: ModelConfig, settings: dict[str, int], seed: int) -> dict[str, Any]:
    batches, data = training_batches(cfg, settings["max_tokens"], settings["train_batches"], seed)
    torch.manual_seed(seed)
    models = {"ours": Transformer(cfg), "nn.Transformer": TorchTransformerMT(cfg)}
    params = {k: sum(p.numel() for p in m.parameters()) for k, m in models.items()}
    runners = {k: make_trainer(m, batches, "ours" if k == "ours" else "torch", cfg) for k, m in models.items()}
    for name, run in runners.items():  # warm-up: allocator, oneDNN primitives, optimizer state
        progress(f"training: warm-up {name} ({settings['train_warmup']} x {len(batches)} steps)")
        for _ in range(settings["train_warmup"]):
            run()
    per_repeat: dict[str, list[float]] = {k: [] for k in runners}
    meters: dict[str, list[Meter]] = {k: [] for k in runners}
    ratios = []
    names = list(runners)
    for r in range(settings["train_repeats"]):
        progress(f"training: repeat {r + 1}/{settings['train_repeats']}")
        order = names if r % 2 == 0 else names[::-1]
        for name in order:
            with Meter() as m:
                tokens = runners[name]()
            meters[name].append(m)
            per_repeat[name].append(tokens / m.wall)
        ratios.append(per_repeat["ours"][-1] / per_repeat["nn.Transformer"][-1])
    steps = len(batches)

    def per_step(name: str, f) -> float:
        return statistics.median(f(m) for m in meters[name]) / steps

    return {
        "data": data,
        "parameters": params,
        "steps_per_repeat": steps,
        "tokens_per_s": {k: v for k, v in per_repeat.items()},
        "median_tokens_per_s": {k: statistics.median(v) for k, v in per_repeat.items()},
        "ms_per_step": {k: 1000 * per_step(k, lambda m: m.wall) for k in names},
        "cpu_ms_per_step": {k: 1000 * per_step(k, lambda m: m.user + m.sys) for k in names},
        "sys_share": {k: statistics.median(m.sys / max(m.user + m.sys, 1e-9) for m in meters[k]) for k in names},
        "page_faults_per_step": {k: per_step(k, lambda m: m.faults) for k in names},
        "ratio_per_repeat": ratios,
        "ratio_median": statistics.median(ratios),
        "ratio_of_cpu_time": per_step("nn.Transformer", lambda m: m.user + m.sys) / per_step("ours", lambda m: m.user + m.sys),
    }


# ------------------------------------------------------------------------------------------- report


def report_training(settings: dict, train: dict, gap: float) -> None:
    d = train["data"]
    print()
    print("1. Training throughput, preset 'small' "
          f"({train['parameters']['ours']:,} parameters; nn.Transformer side {train['parameters']['nn.Transformer']:,})")
    print(f"   {d['batches']} synthetic batches of <= {settings['max_tokens']} padded tokens "
          f"(~{d['sentences_per_batch']:.0f} sentences, ~{d['target_tokens_per_batch']:.0f} target tokens each; "
          f"mean lengths {d['src_len_mean']:.1f} de / {d['tgt_len_mean']:.1f} en pieces)")
    print("   step = forward + label-smoothed loss + backward + clip_grad_norm + AdamW, dropout 0.1; "
          f"{settings['train_warmup']} warm-up pass(es), {settings['train_repeats']} alternating repeats")
    print(f"   equivalence check (copied weights, eval mode): max |logit diff| = {gap:.2e}"
          f"{'' if gap < 1e-3 else '  WARNING: the two sides do not compute the same function'}")
    print(f"   {'model':<16}{'median tok/s':>13}{'ms/step':>9}{'CPU ms/step':>13}{'kernel':>8}"
          f"{'faults/step':>13}   per repeat tok/s")
    for name in ("ours", "nn.Transformer"):
        runs = " ".join(f"{x:,.0f}" for x in train["tokens_per_s"][name])
        print(f"   {name:<16}{train['median_tokens_per_s'][name]:>13,.0f}{train['ms_per_step'][name]:>9.0f}"
              f"{train['cpu_ms_per_step'][name]:>13.0f}{100 * train['sys_share'][name]:>7.0f}%"
              f"{train['page_faults_per_step'][name]:>13,.0f}   {runs}")
    ratios = " ".join(f"{x:.3f}" for x in train["ratio_per_repeat"])
    print(f"   ratio ours / nn.Transformer: median {train['ratio_median']:.3f}  (per repeat: {ratios})  "
          f"target >= 1.0: {verdict(train['ratio_median'] >= 1.0)}")
    print(f"   same ratio from CPU time (less sensitive to other load): {train['ratio_of_cpu_time']:.3f}")
    print("   kernel = share of CPU time in the kernel; faults = minor page faults (fresh memory touched); "
          "both high means the allocator maps/unmaps the big logits buffers every step (see --mallopt)")
    print(f"   (Batch.make, outside the timing, costs {d['batch_make_ms']:.1f} ms per batch in train.py's loop: "
          f"{100 * d['batch_make_ms'] / train['ms_per_step']['ours']:.1f}% of our step)")

