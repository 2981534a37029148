"""Does n-gram blocking (``no_repeat_ngram_size``) cost BLEU? Beam search with n in {0, 2, 3, 4, 5}.

    python bench/ngram_block.py --tatoeba ../shared/data/tatoeba-deu-eng/deu-eng.zip \\
                                --general ../shared/data/general-dev.tsv [--checkpoint CKPT]
                                [--sentences 500] [--sizes 0 2 3 4 5] [--beam 4] [--threads 2] [--show]

Evaluation sets:

* --tatoeba (optional): the release model's own dev split, rebuilt exactly as training made it
  (``clean_pairs``, then ``grouped_split(dev_size=2000, test_size=2000, seed=1)``); its distinct
  German sentences are scored against all their references, ``--sentences`` of them spread evenly.
* --general (optional): a German<TAB>English TSV (German first, unlike the corpus's own
  English<TAB>German layout, hence not ``read_pairs``), up to ``--sentences`` sources spread evenly.
* always: ``REPEATS``, our own sentences whose correct translation repeats a phrase ("you don't ...
  you don't"), where blocking must not cut the output.

For each set and each n: sacreBLEU (defaults: 13a, mixed case), how many outputs differ from the first n (0),
how many outputs are empty, and decoding seconds. Only stdout carries the table.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from commands import cli  # noqa: E402
from model.network.batch import Batch  # noqa: E402
from model.data import (  # noqa: E402
    clean_pairs, group_references, grouped_split, normalize, read_pairs, reference_streams,
)
from model.search.decoding import beam_search  # noqa: E402
from model.search.options import DEFAULT, SearchOptions  # noqa: E402
from model.inference.translator import Translator  # noqa: E402


# Legitimate repetition, with our own reference translations. Blocking works on SentencePiece
# pieces, and "don't" is 3 of them (▁don ' t): n <= 4 bans the second "you don't".
REPEATS = [
    ("Wenn du nicht willst, musst du nicht.", "If you don't want to, you don't have to."),
    ("Ich kann nicht schlafen, weil ich nicht müde bin.", "I can't sleep because I'm not tired."),
    ("Tom sagte, dass er nicht wisse, dass Maria nicht komme.", "Tom said he didn't know Mary wasn't coming."),
    ("Das ist das Haus, das ich gekauft habe, und das Auto, das ich gekauft habe.",
     "This is the house I bought and the car I bought."),
    ("Er lief und lief und lief.", "He ran and ran and ran."),
    ("Ich weiß nicht, ob du nicht doch recht hast.", "I don't know if you aren't right after all."),
]


def parse_args(argv):
    p = cli.make_parser("bench/ngram_block.py", __doc__)
    p.add_argument("--tatoeba", metavar="ZIP", help="the deu-eng.zip the release model was trained on")
    p.add_argument("--general", metavar="TSV", help="German<TAB>English dev file")
    p.add_argument("--checkpoint", default=str(cli.DEFAULT_CHECKPOINT), help="model (default: the release)")
    p.add_argument("--sentences", type=int, default=500, help="sources per set, spread evenly (default: 500)")
    p.add_argument("--sizes", type=int, nargs="+", default=[0, 2, 3, 4, 5],
                   help="n values, the first is the baseline (default: 0 2 3 4 5)")
    cli.add_search_args(p)
    p.add_argument("--threads", type=int, default=2, help="torch threads (default: 2)")
    p.add_argument("--show", action="store_true", help="print every changed output to stderr")
    args = p.parse_args(argv)
    args.search = cli.search_options(p, args, DEFAULT)  # the bare model's; --sizes sets the blocking
    return args


def spread(items: list, n: int) -> list:
    """``n`` items at even intervals (all of them if there are fewer)."""
    if len(items) <= n:
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]


def tatoeba_dev(path: str, n: int) -> tuple[list[str], list[list[str]]]:
    _, dev, _ = grouped_split(clean_pairs(read_pairs(path)), dev_size=2000, test_size=2000, seed=1)
    sources, refs = group_references(dev)
    keep = spread(list(range(len(sources))), n)
    return [sources[i] for i in keep], [refs[i] for i in keep]


def general_dev(path: str, n: int) -> tuple[list[str], list[list[str]]]:
    lines = [line.split("\t") for line in Path(path).read_text(encoding="utf-8").splitlines() if "\t" in line]
    sources, refs = group_references((normalize(de), normalize(en)) for de, en, *_ in lines)
    keep = spread(list(range(len(sources))), n)
    return [sources[i] for i in keep], [refs[i] for i in keep]


def translate(tr: Translator, sources: list[str], search: SearchOptions) -> list[str]:
    ids = tr.tokenizer.encode_batch([normalize(s) for s in sources])
    ids = [s[: tr.config.max_len - 1] for s in ids]
    order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
    out = [""] * len(ids)
    for k in range(0, len(order), search.batch_size):
        chunk = [i for i in order[k:k + search.batch_size] if ids[i]]
        if not chunk:
            continue
        batch = Batch.make([ids[i] for i in chunk], device=tr.device)
        for i, hyps in zip(chunk, beam_search(tr.model, batch, search)):
            out[i] = tr.tokenizer.decode(hyps[0].tokens)
    return out


def main(argv=None) -> int:
    from sacrebleu.metrics import BLEU

    bleu = BLEU()
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    tr = Translator.from_checkpoint(args.checkpoint, device="cpu")
    sets = []
    if args.tatoeba:
        sets.append(("tatoeba-dev", *tatoeba_dev(args.tatoeba, args.sentences)))
    if args.general:
        sets.append(("general-dev", *general_dev(args.general, args.sentences)))
    sets.append(("repeats", [de for de, _ in REPEATS], [[en] for _, en in REPEATS]))
    print(f"beam {args.beam}, checkpoint {args.checkpoint}")
    print(f"{'set':<12} {'sents':>5} {'n':>2} {'BLEU':>6} {'changed':>7} {'empty':>5} {'secs':>6}")
    for name, sources, refs in sets:
        streams, base = reference_streams(refs), None
        for n in args.sizes:
            start = time.perf_counter()
            hyps = translate(tr, sources, replace(args.search, no_repeat_ngram_size=n))
            secs = time.perf_counter() - start
            base = hyps if base is None else base
            score = bleu.corpus_score(hyps, streams).score
            changed = [i for i, (h, b) in enumerate(zip(hyps, base)) if h != b]
            empty = sum(not h for h in hyps)
            print(f"{name:<12} {len(sources):>5} {n:>2} {score:>6.2f} {len(changed):>7} {empty:>5} {secs:>6.1f}",
                  flush=True)
            for i in changed if args.show else []:
                print(f"n={n}: {sources[i]}\n  n={args.sizes[0]}: {base[i]}\n  n={n}: {hyps[i]}", file=sys.stderr)
    print(f"BLEU signature: {bleu.get_signature()}; 'changed': outputs that differ from n = {args.sizes[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
