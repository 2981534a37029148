"""The sentences of an English→German test set that the English source rules touch, as sets of
their own, to score a change of those rules in two trees side by side.

    python bench/english_spans.py --src newstest.en --ref newstest.de --out DIR

Writes into ``DIR`` three line-aligned pairs of files, ``NAME.en`` and ``NAME.de``:

- ``dates``: sentences with a date of an English month name (``german_notation.month_dates``:
  "June 14, 2025", "the 3rd of March");
- ``titles``: sentences with a title before a name (``english_titles.addresses``: "Mr. Smith");
- ``cut``: sentences that English abbreviations cut otherwise than German ones did
  (``segment.split_sentences(text, "en")`` against ``"de"``: "Mr. Klaus" in one piece).

and prints how many sentences each has. Sentences over ``--max-chars`` are left out. Then, in each
tree, ``python -m commands.translate --checkpoint checkpoints/en-de.pt --channel
checkpoints/de-en.pt --engine ct2 --threads 1 < DIR/NAME.en > NAME.TREE.out`` (as served), and
``sacrebleu DIR/NAME.de -i NAME.before.out NAME.after.out -m chrf bleu --paired-bs``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.rules.english_titles import addresses  # noqa: E402
from pipeline.rules.german_notation import month_dates  # noqa: E402
from pipeline.segment import split_sentences  # noqa: E402

SETS = {
    "dates": lambda english: bool(month_dates(english)),
    "titles": lambda english: bool(addresses(english)),
    "cut": lambda english: split_sentences(english, "en") != split_sentences(english, "de"),
}


def read_lines(path: str) -> list[str]:
    """The lines of ``path``, split at "\\n" alone (news text may hold U+2028 or U+0085, which
    ``str.splitlines`` would also split at), each of those made a space."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    return [line.replace("\u2028", " ").replace("\x85", " ") for line in text.removesuffix("\n").split("\n")]


def select(sources: list[str], references: list[str], max_chars: int) -> dict[str, list[tuple[str, str]]]:
    """The pairs of each of ``SETS``."""
    return {name: [(e, d) for e, d in zip(sources, references) if len(e) <= max_chars and touches(e)]
            for name, touches in SETS.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/english_spans.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--src", required=True, help="English sentences, one a line")
    p.add_argument("--ref", required=True, help="their German references, line-aligned with --src")
    p.add_argument("--out", required=True, help="folder for the sets (made if missing)")
    p.add_argument("--max-chars", type=int, default=400, help="longest source kept (default: %(default)s)")
    args = p.parse_args(argv)
    try:
        sources, references = read_lines(args.src), read_lines(args.ref)
        if len(sources) != len(references):
            raise ValueError(f"{args.src} has {len(sources):,} lines, {args.ref} {len(references):,}")
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for name, pairs in select(sources, references, args.max_chars).items():
            for language, k in (("en", 0), ("de", 1)):
                (out / f"{name}.{language}").write_text("".join(pair[k] + "\n" for pair in pairs), encoding="utf-8")
            print(f"{name}: {len(pairs):,} of {len(sources):,} sentences")
    except (ValueError, OSError) as exc:
        p.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
