"""Write the training mixture that train.py would read as gzipped TSV files, for another machine.

    python -m commands.mixture --data [KIND:]PATH[@WEIGHT] [--data ...] --out DIR
        [--data-attribution TEXT ...] [--license LICENSE] [--dev-size 2000] [--test-size 2000]
        [--domain-split-size 1000] [--seed 1]

A lent GPU has none of the Debian packages that the readers take their text from, and the device
tool carries at most 64 MiB. This command reads, cleans and splits the corpora exactly as train.py
does (``model.training.corpus.load_corpus``: the same --data, sizes and seed give the same held-out
splits) and writes, under DIR:

* ``NN-KIND-NAME.tsv.gz``: the training pairs of each corpus (English<TAB>German, as train.py's
  split files), none of them sharing a side with a held-out pair;
* ``dev.tsv`` and ``test.tsv`` (of the first corpus), ``dev.DOMAIN.tsv`` and ``test.DOMAIN.tsv``
  (UI strings, help paragraphs);
* ``train-args.txt``: train.py's arguments for this mixture, one per line: ``--data FILE@WEIGHT``
  per corpus, ``--valid DIR/dev.tsv``, ``--data-sources DIR/sources.json`` (kept in the
  checkpoint), and the --data-attribution and --license given here.
  Paths start with DIR as given, so run train.py from the folder this command ran in, e.g.
  ``mapfile -t args < DIR/train-args.txt; python train.py "${args[@]}" --out runs/NAME ...``;
* ``sources.json``: each corpus as given, its SHA-256 (``model.data.corpus_sha256``) and pairs.

Exit status: 0, or 2 with one "error:" line on stderr.
"""

from __future__ import annotations

import json
import re
from argparse import Namespace
from collections.abc import Sequence
from pathlib import Path

from . import cli

PROG = "python -m commands.mixture"


def parse_args(argv: Sequence[str] | None) -> Namespace:
    p = cli.make_parser(PROG, __doc__)
    p.add_argument("--data", action="append", required=True, metavar="[KIND:]PATH[@WEIGHT]",
                   help="a training corpus as train.py's --data; repeat for several (the first gives dev/test)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write the mixture into")
    p.add_argument("--data-attribution", action="append", default=[], metavar="TEXT",
                   help="passed on to train.py (source and licence of a corpus); repeat for several")
    p.add_argument("--license", help="passed on to train.py: the licence of the weights trained on this mixture")
    p.add_argument("--dev-size", type=int, default=2000, help="as train.py's")
    p.add_argument("--test-size", type=int, default=2000, help="as train.py's")
    p.add_argument("--domain-split-size", type=int, default=1000, help="as train.py's")
    p.add_argument("--seed", type=int, default=1, help="as train.py's: the seed of the splits")
    args = p.parse_args(argv)
    if any("\n" in text for text in args.data_attribution + [args.license or ""]):
        p.error("--data-attribution and --license must be one line each (train-args.txt holds one argument per line)")
    for name in ("dev_size", "test_size", "domain_split_size"):
        if getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')} must be >= 0, got {getattr(args, name)!r}")
    return args


def file_name(index: int, spec) -> str:
    """``03-gettext-LC_MESSAGES.tsv.gz``: the corpus's place, kind and last path part."""
    stem = Path(spec.path.rstrip("/")).name
    stem = re.sub(r"(\.(zip|tsv|gz|txt))+$", "", stem, flags=re.I) or "corpus"
    return f"{index:02d}-{spec.kind}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', stem)}.tsv.gz"


def write_mixture(args: Namespace) -> list[dict]:
    """Write DIR's files (module docstring); return sources.json's records."""
    from model.data import CorpusSpec
    from model.network.checkpoint import atomic_open
    from model.training.corpus import load_corpus, write_tsv

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    split_args = Namespace(data=args.data, valid=None, dev_size=args.dev_size, test_size=args.test_size,
                           seed=args.seed, domain_split_size=args.domain_split_size)
    corpus = load_corpus(split_args, out)  # writes dev.tsv, test.tsv and the domain splits
    specs = [CorpusSpec.parse(text) for text in args.data]
    train_args, sources = [], []
    for index, (spec, part, pairs) in enumerate(zip(specs, corpus.parts, corpus.split_parts(corpus.train))):
        path = out / file_name(index, spec)
        write_tsv(path, pairs)
        weight = "" if spec.weight == 1 else f"@{spec.weight:g}"
        train_args += ["--data", f"{path}{weight}"]
        sources.append({"corpus": args.data[index], "sha256": corpus.sha256[spec.path], "file": path.name,
                        "train_pairs": part["train_pairs"]})
    train_args += ["--valid", str(out / "dev.tsv"), "--data-sources", str(out / "sources.json")]
    for text in args.data_attribution:
        train_args += ["--data-attribution", text]
    if args.license:
        train_args += ["--license", args.license]
    with atomic_open(out / "sources.json", "w", encoding="utf-8") as f:
        f.write(json.dumps(sources, indent=1, ensure_ascii=False) + "\n")
    with atomic_open(out / "train-args.txt", "w", encoding="utf-8") as f:
        f.write("".join(f"{a}\n" for a in train_args))
    return sources


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    sources = write_mixture(args)
    size = sum(f.stat().st_size for f in Path(args.out).iterdir() if f.is_file())
    for source in sources:
        print(f"{source['file']}: {source['train_pairs']:,} train pairs of {source['corpus']}")
    print(f"wrote {args.out}: {len(sources)} corpora, {size / 2**20:.1f} MiB; train.py's arguments in "
          f"{Path(args.out) / 'train-args.txt'}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    raise SystemExit(main())
