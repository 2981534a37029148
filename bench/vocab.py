"""How finely does a checkpoint's vocabulary cut text? One line per checkpoint and data file.

    python bench/vocab.py --checkpoint CKPT [--checkpoint CKPT2 ...] --data runs/RUN/dev.tsv [--data ...]
                          [--top 1000] [--word vierzig --word Lesezeichen ...]

Reads corpora as ``train.py`` does (``model.data.corpus.read_pairs``: a run's dev splits, which
are English<TAB>German, a ``.de``/``.en`` prefix, ...) and, for each
checkpoint's SentencePiece model, prints pieces per sentence and per word on each side, the share
of German words cut into two pieces or more, and the share of the ``--top`` most frequent German
words of the data that are cut. A vocabulary that cuts less gives the model shorter sequences (and
whole words to learn); a larger one costs a larger output layer. ``--word`` shows how words are
cut (``vierzig`` -> ``▁vier zig``). Words here are runs of letters (``[^\\W\\d_]+``), so numbers and
punctuation do not count.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from commands import cli  # noqa: E402

WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Cut:
    """How one vocabulary cuts one file."""

    sentences: int
    de_pieces: float      # per sentence
    en_pieces: float
    de_per_word: float    # pieces per German word
    en_per_word: float
    de_words_cut: float   # share of German word occurrences in 2+ pieces
    top_cut: float        # share of the most frequent German word types in 2+ pieces


def pieces_of_word(tokenizer, word: str) -> list[str]:
    """``word`` as the model sees it at the start of a sentence or after a space."""
    return [p for p in tokenizer.pieces(tokenizer.encode(word)) if p != "▁"]


def measure(tokenizer, pairs: list[tuple[str, str]], top: int) -> Cut:
    de_ids = tokenizer.encode_batch([de for de, _ in pairs])
    en_ids = tokenizer.encode_batch([en for _, en in pairs])
    de_words = [w for de, _ in pairs for w in WORD.findall(de)]
    en_words = sum(len(WORD.findall(en)) for _, en in pairs)
    counts = Counter(de_words)
    cut = {w: len(pieces_of_word(tokenizer, w)) > 1 for w in counts}
    frequent = [w for w, _ in counts.most_common(top)]
    return Cut(
        sentences=len(pairs),
        de_pieces=sum(map(len, de_ids)) / len(pairs),
        en_pieces=sum(map(len, en_ids)) / len(pairs),
        de_per_word=sum(map(len, de_ids)) / max(1, len(de_words)),
        en_per_word=sum(map(len, en_ids)) / max(1, en_words),
        de_words_cut=sum(counts[w] for w in counts if cut[w]) / max(1, len(de_words)),
        top_cut=sum(cut[w] for w in frequent) / max(1, len(frequent)),
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = cli.make_parser("bench/vocab.py", __doc__)
    p.add_argument("--checkpoint", action="append", required=True, help="a checkpoint; repeat to compare")
    p.add_argument("--data", action="append", required=True,
                   help="a corpus as train.py reads it (English<TAB>German TSV, .de/.en prefix); repeat for several")
    p.add_argument("--top", type=int, default=1000, help="most frequent German words checked (default: %(default)s)")
    p.add_argument("--word", action="append", default=[], help="show how this word is cut; repeat")
    args = p.parse_args(argv)
    cli.require_min(p, args, "top", 1)
    return args


def _main(argv: list[str] | None) -> int:
    from model.data.corpus import CorpusError, read_pairs
    from model.network.checkpoint import read_checkpoint
    from model.network.tokenizer import Tokenizer

    args = parse_args(argv)
    data = {path: read_pairs(path) for path in args.data}
    for path, pairs in data.items():
        if not pairs:
            raise CorpusError(f"cannot read corpus {path!r}: it has no sentence pairs")
    print(f"{'checkpoint':40s} {'data':28s} {'pieces de/en':>13s} {'per word de/en':>15s} "
          f"{'de words cut':>12s} {f'top {args.top} cut':>13s}")
    for path in args.checkpoint:
        tokenizer = Tokenizer(read_checkpoint(path)["tokenizer"])
        label = f"{path} ({tokenizer.vocab_size})"
        for name, pairs in data.items():
            c = measure(tokenizer, pairs, args.top)
            print(f"{label:40s} {Path(name).name:28s} {c.de_pieces:6.2f}/{c.en_pieces:<6.2f} "
                  f"{c.de_per_word:7.3f}/{c.en_per_word:<7.3f} {100 * c.de_words_cut:11.1f}% {100 * c.top_cut:12.1f}%")
        for word in args.word:
            print(f"  {word} -> {' '.join(pieces_of_word(tokenizer, word))}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog="bench/vocab.py")


if __name__ == "__main__":
    sys.exit(main())
