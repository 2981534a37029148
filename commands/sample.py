"""Write an attributed sample of the pairs of one split that the web service's Random draws from.

    python -m commands.sample --data deu-eng.zip --out checkpoints/random-sample.tsv \
        [--split train] [--seed 1] [--dev-size 2000] [--test-size 2000] [--max-pairs 5000] \
        [--min-words 4] [--attribution "CC-BY 2.0 (France) Attribution: tatoeba.org, manythings.org/anki"]
    python -m commands.sample --data deu-eng.zip --split test --max-pairs 300 \
        --out checkpoints/random-held-out.tsv

The corpus is split exactly as ``train.py`` splits it (same cleaning, ``grouped_split`` with the
same seed and sizes), so a sample of one split shares no sentence, on either side, with the others.
``--split train`` (the default): the training split, which the models learned (``CORPUS_PATH``);
``--split test``: the held-out test split, which no release trained on, so that the score of a
translation against its references means something (``HELD_OUT_PATH``). German sentences of at
least ``--min-words`` words are drawn at random from the split, each with ALL its English
references, until the next one would pass ``--max-pairs`` lines.

Output: the corpus's own layout, one pair a line, ``English<TAB>German<TAB>attribution`` (the
column Tatoeba's newer downloads carry), so every reader of the project takes it, and the licence
travels with each line. Written atomically. Prints one line: how many sources and pairs of which
split it wrote.
Exit status: 0, or 2 with one "error:" line on stderr.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path

from . import cli
from model.network.checkpoint import atomic_open
from model.data import capped_split, clean_pairs, group_references, read_pairs

PROG = "python -m commands.sample"
TATOEBA_ATTRIBUTION = "CC-BY 2.0 (France) Attribution: tatoeba.org, manythings.org/anki"
SPLITS = ("train", "test")  # the dev split selects checkpoints: Random never shows it


def parse_args(argv: Sequence[str] | None):
    p = cli.make_parser(PROG, __doc__)
    p.add_argument("--data", required=True, help="the corpus train.py was given (first --data)")
    p.add_argument("--out", required=True, help="TSV file to write")
    p.add_argument("--split", choices=SPLITS, default="train",
                   help="the split to draw from: train (default) or test, the held-out one")
    p.add_argument("--seed", type=int, default=1, help="train.py's --seed: it decides the split (default 1)")
    p.add_argument("--dev-size", type=int, default=2000, help="train.py's --dev-size (default 2000)")
    p.add_argument("--test-size", type=int, default=2000, help="train.py's --test-size (default 2000)")
    p.add_argument("--max-pairs", type=int, default=5000, help="at most this many lines (default 5000)")
    p.add_argument("--min-words", type=int, default=4, help="shortest German sentence, in words (default 4)")
    p.add_argument("--attribution", default=TATOEBA_ATTRIBUTION, help="third column of every line")
    args = p.parse_args(argv)
    for name, minimum in (("dev_size", 0), ("test_size", 0), ("max_pairs", 1), ("min_words", 1)):
        cli.require_min(p, args, name, minimum)
    if not args.attribution.strip() or "\t" in args.attribution or "\n" in args.attribution:
        p.error(f"--attribution must be one non-empty line without tabs, got {args.attribution!r}")
    return args


def sample(pairs: list[tuple[str, str]], max_pairs: int, min_words: int, seed: int) -> list[tuple[str, str]]:
    """German sources drawn at random with all their references, at most ``max_pairs`` pairs."""
    sources, references = group_references(pairs)
    order = [i for i in range(len(sources)) if len(sources[i].split()) >= min_words]
    random.Random(f"random-sample-{seed}").shuffle(order)
    chosen: list[int] = []
    total = 0
    for i in order:
        if total + len(references[i]) > max_pairs:
            continue  # a source with many references may not fit, a later one may
        chosen.append(i)
        total += len(references[i])
    return [(sources[i], en) for i in sorted(chosen) for en in references[i]]


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    pairs = clean_pairs(read_pairs(args.data))
    train, _, test = capped_split(pairs, dev_size=args.dev_size, test_size=args.test_size, seed=args.seed)
    chosen = sample(train if args.split == "train" else test, args.max_pairs, args.min_words, args.seed)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(Path(args.out), "w", encoding="utf-8", newline="\n") as f:
        f.writelines(f"{en}\t{de}\t{args.attribution}\n" for de, en in chosen)
    print(f"wrote {len({de for de, _ in chosen})} German sentences, {len(chosen)} pairs of the {args.split} split "
          f"to {args.out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (see the module docstring)."""
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
