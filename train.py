"""Train a German->English Transformer (or, with --direction en-de, the reverse model) and write a checkpoint.

    python train.py --data deu-eng.zip --out runs/small --preset small --max-minutes 60
    python train.py --data deu-eng.zip --out runs/small --resume          # continue that run
    torchrun --nproc_per_node=2 train.py --data ... --out ...             # DistributedDataParallel

Reads top to bottom: config, data, model, loop (with eval and save). Only rank 0 logs and writes.
Writes DIR/last.pt (with optimizer, scheduler, RNG and data position, for --resume), DIR/best.pt
(best dev BLEU, weights only), DIR/metrics.jsonl, and DIR/dev.tsv + DIR/test.tsv when it split
the corpus itself.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import torch
from tqdm import tqdm

from commands import cli
from model.data.lexicon import build_lexicon
from model.data.sampler import TokenBatchSampler, weighted_indices
from model.network.batch import Batch
from model.network.checkpoint import (DIRECTIONS, atomic_open, build_from_checkpoint, direction, oriented,
                                      read_checkpoint, save_checkpoint)
from model.network.config import PRESETS, preset
from model.data import CorpusError, CorpusSpec, group_references
from model.network.tokenizer import Tokenizer
from model.network.transformer import Transformer
from model.inference.translator import resolve_device
from model.training.corpus import Corpus, load_corpus, read_sources
from model.training.distributed import Dist, agree, finish_distributed, init_distributed
from model.training.evaluation import DevSet, dev_bleu, dev_loss, spread
from model.training.loss import label_smoothed_loss
from model.training.memory import keep_freed_memory
from model.training.metadata import make_meta, write_jsonl
from model.training.optimizer import inverse_sqrt, make_optimizer
from model.training.precision import PRECISIONS, autocast
from model.training.rng import gather_rng_states, own_rng_state, set_rng_state
from model.training.signals import StopSignals
from pipeline.augment import Augmentation, augment_pairs
from pipeline.spans import PLACEHOLDERS

# -------------------------------------------------------------------------------------- config


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = cli.make_parser("train.py", __doc__)
    p.add_argument("--data", required=True, action="append", metavar="[KIND:]PATH[@WEIGHT]",
                   help="a training corpus; repeat for several. PATH: deu-eng.zip, a TSV, or a .de/.en prefix; "
                   "KIND: pairs (default), ding-sentences or ding-words (the Ding dictionary, "
                   "/usr/share/trans/de-en), freedict (/usr/share/dictd/freedict-deu-eng.index), gettext "
                   "(.mo/.po catalogs), mozilla (Firefox's or Thunderbird's language pack beside the program's "
                   "omni.ja), libreoffice-help (its help root), bconstrast (BConTrasT's folder), support (line-aligned e-mail "
                   "files), ud-pud (a CoNLL-U file with # text_en), xquad (the folder of xquad.de/en.json), "
                   "debian-reference (/usr/share/debian-reference), mallard (a help root with C/ and de/, "
                   "/usr/share/help); WEIGHT: times each pair is seen per epoch on "
                   "average (default 1, 0.1 = a fresh tenth each epoch). The first corpus gives dev/test unless --valid is given")
    p.add_argument("--valid", help="dev corpus; without it the first --data is split into train/dev/test")
    p.add_argument("--data-attribution", action="append", help="source and licence of a corpus, kept in the "
                   "checkpoint and shown on /model; repeat for several "
                   "(e.g. 'Tatoeba via manythings.org/anki, CC-BY 2.0 (France)')")
    p.add_argument("--data-sources", metavar="JSON", help="where the --data files came from when they are a "
                   "mixture written by commands.mixture (its sources.json: each corpus as read, its SHA-256 and "
                   "pairs), kept in the checkpoint and shown on /model")
    p.add_argument("--license", help="licence of the trained weights, kept in the checkpoint and shown on /model "
                   "(e.g. GPL-2.0-or-later when a GPL corpus such as Ding is in the data)")
    p.add_argument("--out", required=True, help="run directory for checkpoints and metrics")
    p.add_argument("--preset", default="small", choices=sorted(PRESETS))
    for flag, kind in [("--d-model", int), ("--heads", int), ("--ffn", int), ("--layers", int),
                       ("--encoder-layers", int), ("--decoder-layers", int), ("--dropout", float),
                       ("--label-smoothing", float), ("--vocab-size", int)]:
        p.add_argument(flag, type=kind, help="override the preset")
    p.add_argument("--post-norm", action="store_true", help="the paper's post-norm instead of pre-norm")
    p.add_argument("--max-tokens", type=int, default=4096, help="padded tokens per batch (per process)")
    p.add_argument("--lr", type=float, default=7e-4, help="peak learning rate")
    p.add_argument("--warmup", type=int, default=4000, help="linear warmup steps")
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--clip-norm", type=float, default=1.0)
    p.add_argument("--max-steps", type=int, help="stop after this many optimizer steps")
    p.add_argument("--max-epochs", type=int, help="stop after this many epochs")
    p.add_argument("--max-minutes", type=float, help="stop (and save) after this much wall time")
    p.add_argument("--eval-every", type=int, help="evaluate every N steps (default: each epoch)")
    p.add_argument("--eval-sentences", type=int, default=1000,
                   help="dev sources decoded for BLEU, spread evenly over the dev set")
    p.add_argument("--save-every", type=int, default=1000, help="write last.pt every N steps")
    p.add_argument("--keep-checkpoints", type=int, default=0,
                   help="also keep the weights of the last N saves as DIR/step-NNNNNNN.pt, for commands.average")
    p.add_argument("--patience", type=int, help="stop after N evaluations without a better dev BLEU")
    p.add_argument("--dev-size", type=int, default=2000, help="dev pairs held out when splitting --data")
    p.add_argument("--test-size", type=int, default=2000, help="test pairs held out when splitting --data")
    p.add_argument("--domain-split-size", type=int, default=1000,
                   help="dev and test pairs held out of each corpus of a domain (gettext, mozilla: ui; "
                   "libreoffice-help: help; ding-sentences: ding; support: support; bconstrast: chat, its own "
                   "dev and test whole), "
                   "written as DIR/dev.DOMAIN.tsv and DIR/test.DOMAIN.tsv; 0: none")
    p.add_argument("--max-len", type=int, default=128, help="drop training pairs longer than this (pieces)")
    add_augmentation_args(p)
    p.add_argument("--resume", action="store_true", help="continue from DIR/last.pt if it exists")
    p.add_argument("--init", metavar="CKPT", help="fine-tune: start from this checkpoint's weights and vocabulary "
                   "(its architecture; the preset and the shape flags are ignored, --dropout and "
                   "--label-smoothing apply) with a fresh optimizer and schedule")
    p.add_argument("--vocab-only", action="store_true",
                   help="learn the vocabulary from the corpora as a run would, write it to DIR/tokenizer.model "
                        "and stop: a GPU machine then does not wait on it (--tokenizer)")
    p.add_argument("--tokenizer", metavar="FILE", help="the vocabulary of a --vocab-only run with the same corpora, "
                   "instead of learning one (not with --init, whose vocabulary is the checkpoint's)")
    p.add_argument("--direction", default="de-en", choices=DIRECTIONS,
                   help="de-en: German to English; en-de: the reverse model, trained on the same corpora with "
                        "the sides swapped (back-translation, noisy-channel reranking, English to German)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--precision", default="auto", choices=PRECISIONS,
                   help="bf16: the forward pass under bfloat16 autocast (weights, optimizer and loss stay "
                   "float32); auto = bf16 on a GPU, fp32 on a CPU. On a CPU with native bfloat16 "
                   "(AVX512-BF16, AMX) bf16 trains faster (bench/README.md); elsewhere it is slower")
    p.add_argument("--no-progress", action="store_true", help="no tqdm bar: a log line every --log-every steps")
    p.add_argument("--log-every", type=int, default=100, help="steps between loss/speed updates")
    args = p.parse_args(argv)
    for name in ("max_tokens", "log_every", "warmup", "save_every", "eval_sentences", "max_len", "max_steps", "max_epochs",
                 "eval_every", "patience"):
        value = getattr(args, name)
        if value is not None and value < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1, got {value!r}")
    if args.domain_split_size < 0:
        p.error(f"--domain-split-size must be >= 0, got {args.domain_split_size!r}")
    if args.keep_checkpoints < 0:
        p.error(f"--keep-checkpoints must be >= 0, got {args.keep_checkpoints!r}")
    for a, b in (("tokenizer", "init"), ("vocab_only", "init"), ("vocab_only", "tokenizer"), ("vocab_only", "resume")):
        if getattr(args, a) and getattr(args, b):
            p.error(f"--{a.replace('_', '-')} and --{b.replace('_', '-')} cannot be used together")
    if args.max_minutes is not None and args.max_minutes <= 0:
        p.error(f"--max-minutes must be > 0, got {args.max_minutes!r}")
    try:  # a bad architecture, corpus spec or augmentation should fail now, not after reading the corpus
        model_config(args, preset(args.preset).vocab_size)
        augmentation(args)
        for text in args.data:
            CorpusSpec.parse(text)
        if args.data_sources:
            read_sources(args.data_sources)
        if args.tokenizer:
            read_tokenizer(args.tokenizer, augmentation(args))
    except (ValueError, OSError) as exc:
        p.error(str(exc))
    return args


def add_augmentation_args(p: argparse.ArgumentParser) -> None:
    """Training augmentation for the text pipeline (pipeline/augment.py); the defaults are the release recipe's."""
    p.add_argument("--no-placeholders", action="store_true",
                   help="no placeholder symbols in the vocabulary and no placeholder augmentation")
    p.add_argument("--no-lexicon", action="store_true",
                   help="save no lexicon of the training words (the pipeline then carries no unknown "
                        "capitalized word over as a name: for a model that has seen every name it serves)")
    p.add_argument("--placeholder-names", type=float, default=Augmentation.placeholder_names,
                   help="share of pairs whose names shared by both sides become placeholders")
    p.add_argument("--placeholder-synthetic", type=float, default=Augmentation.placeholder_synthetic,
                   help="share of pairs given a synthetic placeholder at the start or end")
    p.add_argument("--upper-share", type=float, default=Augmentation.upper_share,
                   help="share of pairs upper-cased on both sides (ALL-CAPS input)")
    p.add_argument("--title-share", type=float, default=Augmentation.title_share,
                   help="share of pairs title-cased on both sides (headline input)")
    p.add_argument("--concat-share", type=float, default=Augmentation.concat_share,
                   help="share of pairs that start a synthetic long pair: 2-5 consecutive sentence pairs of "
                        "the same corpus joined (long inputs); 0: none")


def model_config(args: argparse.Namespace, vocab_size: int):
    overrides = {"d_model": args.d_model, "n_heads": args.heads, "d_ff": args.ffn, "dropout": args.dropout,
                 "encoder_layers": args.encoder_layers or args.layers,
                 "decoder_layers": args.decoder_layers or args.layers,
                 "label_smoothing": args.label_smoothing}
    changes = {k: v for k, v in overrides.items() if v is not None}
    if args.post_norm:
        changes["pre_norm"] = False
    return preset(args.preset).replace(vocab_size=vocab_size, **changes)


def regularized(model: Transformer, args: argparse.Namespace) -> Transformer:
    """``model`` with this run's --dropout and --label-smoothing where given: a fine-tuning run
    (--init) keeps the checkpoint's shape, but how hard it regularizes is the run's choice (one that
    goes on for many more epochs of the same mixture may want more; MODEL_CARD.md, "v3.8 candidates")."""
    changes = {name: value for name, value in (("dropout", args.dropout), ("label_smoothing", args.label_smoothing))
               if value is not None and value != getattr(model.config, name)}
    if not changes:
        return model
    tuned = Transformer(model.config.replace(**changes))
    tuned.load_state_dict(model.state_dict())
    return tuned


def augmentation(args: argparse.Namespace) -> Augmentation:
    return Augmentation(placeholders=not args.no_placeholders, placeholder_names=args.placeholder_names,
                        placeholder_synthetic=args.placeholder_synthetic, upper_share=args.upper_share,
                        title_share=args.title_share, concat_share=args.concat_share)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cli.set_threads()
    keep_freed_memory()
    out = Path(args.out)
    device = resolve_device(args.device)
    dist = init_distributed(device.type)
    if device.type == "cuda":
        device = torch.device("cuda", dist.local_rank)
    log = partial(print, flush=True) if dist.main else (lambda *a, **k: None)
    resume = read_checkpoint(out / "last.pt") if args.resume and (out / "last.pt").exists() else None
    if resume is None and (out / "last.pt").exists():
        raise ValueError(f"{str(out / 'last.pt')!r} exists: pass --resume to continue that run, or choose another --out")
    # A resumed fine-tuning run continues from its own last.pt; --init only starts one.
    start_path = out / "last.pt" if resume is not None else args.init
    start = resume if resume is not None else read_checkpoint(args.init) if args.init else None
    torch.manual_seed(args.seed)
    if args.vocab_only:
        write_vocabulary(args, out, log)
        return 0
    try:
        data = load_data(args, out, dist, start, start_path, log)
        trainer = Trainer(args, out, dist, device, data, resume, log)
        trainer.run()
    finally:  # also when training raises: the other ranks are not left waiting on this one
        finish_distributed(dist)
    return 0


# ---------------------------------------------------------------------------------------- data


@dataclass
class Data:
    corpus: Corpus
    tokenizer: Tokenizer
    model: Transformer
    src_ids: list[list[int]]   # training pairs as piece ids, length-filtered
    tgt_ids: list[list[int]]
    sampler: TokenBatchSampler
    dev: DevSet
    lexicon: bytes | None      # the source words the model knows (model.data.lexicon), or None


def training_pairs(args: argparse.Namespace, corpus: Corpus) -> tuple[list[tuple[str, str]], list[float]]:
    """The (source, target) pairs trained on, augmented, and the weight of each."""
    aug = augmentation(args)
    # Augmented pairs are added beside their originals and weigh as their corpus does.
    train_pairs, weights = [], []
    for part, pairs in zip(corpus.parts, corpus.split_parts(corpus.train)):
        # The corpus itself stays as read; a reverse model swaps the sides after augmenting.
        augmented = oriented(augment_pairs(pairs, aug, args.seed), args.direction)
        train_pairs += augmented
        weights += [part["weight"]] * len(augmented)
    return train_pairs, weights


def learn_vocabulary(args: argparse.Namespace, train_pairs: list[tuple[str, str]], weights: list[float]) -> Tokenizer:
    # The vocabulary is learned from the mix as weighted (epoch 0's draw of the pairs).
    mix = weighted_indices(weights, random.Random(f"vocabulary-{args.seed}"))
    return Tokenizer.train([s for i in mix for s in train_pairs[i]], args.vocab_size or preset(args.preset).vocab_size,
                           seed=args.seed, user_defined_symbols=PLACEHOLDERS if augmentation(args).placeholders else ())


def read_tokenizer(path: str, aug: Augmentation) -> Tokenizer:
    """A --vocab-only run's vocabulary; a one-line ValueError if it cannot serve this run."""
    try:
        tokenizer = Tokenizer(Path(path).read_bytes())
    except FileNotFoundError:
        raise ValueError(f"--tokenizer not found: {path!r}") from None
    except ValueError as exc:
        raise ValueError(f"--tokenizer {path!r}: {exc}") from None
    if aug.placeholders and not set(PLACEHOLDERS) <= tokenizer.user_symbols:
        raise ValueError(f"--tokenizer {path!r} has no placeholder symbols: learn it with the same augmentation "
                         "flags, or pass --no-placeholders")
    return tokenizer


def write_vocabulary(args: argparse.Namespace, out: Path, log) -> None:
    """--vocab-only: DIR/tokenizer.model, learned exactly as a run with these arguments would learn it."""
    corpus = load_corpus(args, None)
    tokenizer = learn_vocabulary(args, *training_pairs(args, corpus))
    with atomic_open(out / "tokenizer.model") as f:
        f.write(tokenizer.proto)
    log(f"wrote {out / 'tokenizer.model'}: {tokenizer.vocab_size:,} pieces from {len(corpus.train):,} training pairs")


def load_data(args: argparse.Namespace, out: Path, dist: Dist, start: dict | None, start_path, log) -> Data:
    """Corpus, tokenizer (trained, or that of ``start``: the resumed run's last.pt or the --init
    checkpoint), model and the batching of the pairs."""
    corpus = load_corpus(args, out if dist.main else None)
    if start is not None and start_path != args.init:
        # A run resumed on other held-out splits would train on pairs it evaluates on, or the
        # reverse: the corpora, --domain-split-size or the held-out domains of the code changed.
        held_out = start["meta"].get("data", {}).get("domains", {})
        if held_out != corpus.held_out():
            def shown(domains):
                return ", ".join(f"{domain} {n['dev_pairs']} dev + {n['test_pairs']} test"
                                 for domain, n in domains.items()) or "no domain split"
            raise CorpusError(f"{str(start_path)!r} held out {shown(held_out)}, but these corpora hold out "
                              f"{shown(corpus.held_out())}: resume with the run's own --data and "
                              "--domain-split-size, or start a new --out")
        if direction(start["meta"]) != args.direction:
            raise CorpusError(f"{str(start_path)!r} translates {direction(start['meta'])}, not {args.direction}: "
                              "resume with the run's own --direction, or start a new --out")
    log(f"data: {len(corpus.train)} train / {len(corpus.dev)} dev / {len(corpus.test)} test pairs")
    if len(corpus.parts) > 1:
        log("corpora: " + ", ".join(f"{p['corpus']} ({p['train_pairs']} train pairs)" for p in corpus.parts))
    train_pairs, weights = training_pairs(args, corpus)
    if start is not None:
        model, tokenizer = build_from_checkpoint(start, start_path)
        if start_path == args.init:  # a run started from --init, not one resumed (which keeps its own)
            model = regularized(model, args)
    else:
        tokenizer = (read_tokenizer(args.tokenizer, augmentation(args)) if args.tokenizer
                     else learn_vocabulary(args, train_pairs, weights))
        model = Transformer(model_config(args, tokenizer.vocab_size))
    src_ids = tokenizer.encode_batch([src for src, _ in train_pairs])
    tgt_ids = tokenizer.encode_batch([tgt for _, tgt in train_pairs])
    keep = [i for i in range(len(src_ids)) if 0 < len(src_ids[i]) < args.max_len and 0 < len(tgt_ids[i]) < args.max_len]
    src_ids, tgt_ids, weights = [src_ids[i] for i in keep], [tgt_ids[i] for i in keep], [weights[i] for i in keep]
    if not src_ids:
        raise CorpusError(f"no training pairs left in {', '.join(args.data)} after filtering")
    sampler = TokenBatchSampler([max(len(s), len(t)) + 2 for s, t in zip(src_ids, tgt_ids)], args.max_tokens,
                                seed=args.seed, num_replicas=dist.world, rank=dist.rank, weights=weights)
    dev_pairs = oriented(corpus.dev, args.direction)
    sources, references = group_references(dev_pairs)
    sample = spread(len(sources), args.eval_sentences)
    dev = DevSet(tokenizer.encode_batch([src for src, _ in dev_pairs]),
                   tokenizer.encode_batch([tgt for _, tgt in dev_pairs]),
                   tokenizer.encode_batch([sources[i] for i in sample]), [references[i] for i in sample])
    # The source words of the pairs as read, never dev or test.
    lexicon = None if args.no_lexicon else build_lexicon(oriented(corpus.train, args.direction)).to_bytes()
    return Data(corpus, tokenizer, model, src_ids, tgt_ids, sampler, dev, lexicon)


# ------------------------------------------------------------------------------- model and loop


class Trainer:
    def __init__(self, args: argparse.Namespace, out: Path, dist: Dist, device: torch.device, data: Data,
                 resume: dict | None, log):
        self.args, self.out, self.dist, self.device, self.data, self.log = args, out, dist, device, data, log
        self.model = data.model.to(device).train()
        log(f"model: {self.model.num_parameters():,} parameters, {self.model.config}")
        self.ddp = (torch.nn.parallel.DistributedDataParallel(
            self.model, device_ids=[device.index] if device.type == "cuda" else None) if dist.world > 1 else self.model)
        self.optimizer = make_optimizer(self.model, args.lr, args.weight_decay)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, inverse_sqrt(args.warmup))
        self.autocast = autocast(device.type, args.precision)
        if dist.world > 1 and resume is None:
            # Every rank starts from rank 0's weights (DDP broadcasts them), but each needs dropout
            # masks of its own, or the ranks would drop the same units of different batches.
            torch.manual_seed(args.seed + 1000 * dist.rank)
        self.state = {"step": 0, "epoch": 0, "position": 0, "best_bleu": -1.0, "bad_evals": 0, "elapsed_s": 0.0,
                      "curves": {"step": [], "train_loss": [], "dev_loss": [], "dev_bleu": [], "lr": []},
                      "window": {"loss": 0.0, "tokens": 0}}  # window: train loss since the last eval
        if resume is not None:
            ts = resume["train_state"]
            self.optimizer.load_state_dict(ts["optimizer"])
            self.scheduler.load_state_dict(ts["scheduler"])
            self.state = ts["state"]
            own = own_rng_state(ts["rng"], dist)
            if own is not None:
                set_rng_state(own, device)
            else:
                log(f"resumed with {dist.world} processes from a run saved with another number: fresh random state")
            log(f"resumed from {out / 'last.pt'} at step {self.state['step']} (epoch {self.state['epoch']}, "
                f"batch {self.state['position']})")
        self.time_started = time.time() - self.state["elapsed_s"]  # counts earlier sessions of this run

    def run(self) -> None:
        """Epochs of batches until a stop condition; evaluate and save along the way and at the end."""
        args, state = self.args, self.state
        run_started = time.time()
        self.bar = tqdm(total=args.max_steps, initial=state["step"], unit="step", dynamic_ncols=True,
                        disable=not self.dist.main or args.no_progress)
        self.speed = {"tokens": 0, "t0": time.time()}
        # Running loss sums on the device, read at --log-every (log) and at evals and saves (window).
        self.loss_since = {"window": torch.zeros((), device=self.device), "log": torch.zeros((), device=self.device)}
        stop = False
        with StopSignals() as signals:
            while not stop:
                for idx in self.data.sampler.batches(state["epoch"])[state["position"]:]:
                    self.step(idx)
                    out_of_time = args.max_minutes is not None and time.time() - run_started >= args.max_minutes * 60
                    done = (args.max_steps is not None and state["step"] >= args.max_steps) or out_of_time
                    if args.eval_every and state["step"] % args.eval_every == 0:
                        done = self.evaluate() or done
                    done = agree(done or signals.received is not None, self.dist)
                    if state["step"] % args.save_every == 0 and not done:
                        self.save(self.out / "last.pt", with_train_state=True)
                        self.snapshot()
                    if done:
                        stop = True
                        break
                else:  # the epoch ran out
                    state["epoch"] += 1
                    state["position"] = 0
                    stop = not args.eval_every and self.evaluate()
                    stop = agree(stop or (args.max_epochs is not None and state["epoch"] >= args.max_epochs)
                                   or signals.received is not None, self.dist)
        self.bar.close()
        if agree(signals.received is not None, self.dist):  # save at once: a watchdog may not wait for an evaluation
            self.log(f"stopped by {signals.received or 'a signal to rank 0'} at step {state['step']}; saving "
                     "(--resume continues)")
        elif state["curves"]["step"][-1:] != [state["step"]]:
            self.evaluate()  # the final weights always get a score (and a chance at best.pt)
        self.save(self.out / "last.pt", with_train_state=True)
        self.snapshot()
        self.log(f"done: step {state['step']}, epoch {state['epoch']}, best dev BLEU {state['best_bleu']:.2f}, "
                 f"{state['elapsed_s'] / 60:.1f} min; wrote {self.out / 'best.pt'} and {self.out / 'last.pt'}")

    def step(self, idx: list[int]) -> None:
        """One optimizer step on the pairs ``idx``.

        Nothing here waits for the device: tokens are counted on the host, and the loss is summed
        on the device and read only every --log-every steps (``report``) and before an
        evaluation or a save (``flush_loss``)."""
        d, state = self.data, self.state
        targets = [d.tgt_ids[i] for i in idx]
        n_tokens = Batch.count_tokens(targets)
        batch = Batch.make([d.src_ids[i] for i in idx], targets, self.device)
        with self.autocast():
            logits = self.ddp(batch.src, batch.src_mask, batch.tgt_in, batch.tgt_mask)
        loss_sum = label_smoothed_loss(logits, batch.tgt_out, self.model.config.label_smoothing)
        self.optimizer.zero_grad(set_to_none=True)
        (loss_sum / n_tokens).backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip_norm)
        self.optimizer.step()
        self.scheduler.step()
        state["step"] += 1
        state["position"] += 1
        self.loss_since["window"] += loss_sum.detach()
        self.loss_since["log"] += loss_sum.detach()
        state["window"]["tokens"] += n_tokens
        state["elapsed_s"] = time.time() - self.time_started
        self.speed["tokens"] += n_tokens
        if state["step"] % self.args.log_every == 0:
            self.report(float(self.loss_since["log"]) / max(self.speed["tokens"], 1))
            self.loss_since["log"].zero_()
        self.bar.update(1)

    def flush_loss(self) -> None:
        """Move the device's running loss sum into the state (a float), as saved and evaluated."""
        self.state["window"]["loss"] += float(self.loss_since["window"])
        self.loss_since["window"].zero_()

    def report(self, loss: float) -> None:
        tok_s = self.speed["tokens"] * self.dist.world / max(time.time() - self.speed["t0"], 1e-9)
        stats = dict(loss=f"{loss:.3f}", tok_s=f"{tok_s:,.0f}", lr=f"{self.scheduler.get_last_lr()[0]:.2e}",
                     ep=self.state["epoch"])
        if self.args.no_progress:  # log lines for background runs, instead of a bar
            self.log(f"step {self.state['step']} " + " ".join(f"{k} {v}" for k, v in stats.items()))
        self.bar.set_postfix(**stats, refresh=False)
        self.speed.update(tokens=0, t0=time.time())

    # ------------------------------------------------------------------------------ eval, save

    def evaluate(self) -> bool:
        """Dev loss + BLEU, a metrics line, best.pt if improved; True when patience ran out."""
        self.flush_loss()
        state, c, window = self.state, self.state["curves"], self.state["window"]
        loss = dev_loss(self.model, self.data.dev, self.args.max_tokens, self.device, self.autocast)
        bleu, hyps = dev_bleu(self.model, self.data.tokenizer, self.data.dev, self.args.max_tokens, self.device,
                                self.autocast)
        c["step"].append(state["step"]); c["dev_loss"].append(round(loss, 4)); c["dev_bleu"].append(round(bleu, 2))
        c["train_loss"].append(round(window["loss"] / max(window["tokens"], 1), 4))
        c["lr"].append(self.scheduler.get_last_lr()[0])
        improved = bleu > state["best_bleu"]
        state["best_bleu"], state["bad_evals"] = (bleu, 0) if improved else (state["best_bleu"], state["bad_evals"] + 1)
        window.update(loss=0.0, tokens=0)
        if self.dist.main:
            write_jsonl(self.out / "metrics.jsonl", {
                "step": state["step"], "epoch": state["epoch"], "train_loss": c["train_loss"][-1],
                "dev_loss": round(loss, 4), "dev_bleu": round(bleu, 2), "best_bleu": round(state["best_bleu"], 2),
                "lr": c["lr"][-1], "example": hyps[0] if hyps else ""})
            write = self.log if self.args.no_progress else self.bar.write
            write(f"eval step {state['step']}: dev loss {loss:.3f}, dev BLEU {bleu:.2f} "
                  f"(best {state['best_bleu']:.2f}){' *' if improved else ''}")
            if improved:
                self.save(self.out / "best.pt", with_train_state=False)
        return self.args.patience is not None and state["bad_evals"] >= self.args.patience

    def save(self, path: Path, with_train_state: bool) -> None:
        """Only rank 0 writes; best.pt gets the weights only, last.pt everything --resume needs."""
        self.flush_loss()
        rng = gather_rng_states(self.device, self.dist) if with_train_state else None  # every rank takes part
        if not self.dist.main:
            return
        meta = make_meta(self.args, self.data.corpus, self.state, self.model, self.time_started)
        train_state = ({"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(),
                        "rng": rng, "state": self.state} if with_train_state else None)
        save_checkpoint(path, self.model, self.data.tokenizer, meta, train_state, lexicon=self.data.lexicon)

    def snapshot(self) -> None:
        """Weights of this step kept for checkpoint averaging; only the newest --keep-checkpoints stay."""
        if not self.dist.main or self.args.keep_checkpoints < 1:
            return
        self.save(self.out / f"step-{self.state['step']:07d}.pt", with_train_state=False)
        for old in sorted(self.out.glob("step-*.pt"))[: -self.args.keep_checkpoints]:
            old.unlink()


if __name__ == "__main__":
    sys.exit(cli.run(main, None, prog="train.py"))
