"""Does a letter's opening spoil the sentence after it? With and without the letters rule.

    python bench/letters.py [--checkpoint CKPT] [--salutations bench/data/salutations.tsv]
                            [--bodies bench/data/letter_bodies.tsv] [--beam 4]

Puts every opening of ``--salutations`` (German, then its English: "Liebe Freunde", "Dear friends")
before every sentence of ``--bodies`` (German, then its English: "wie geht es euch?", "How are
you?") with a comma, as letters and messages begin, and translates them through the text pipeline
twice: without the letters rule (``Options(without_rules=("letters",))``: the model alone) and with
every rule (``pipeline.rules.letters``). For each, prints how many translations open with the
English opening and its comma ("Dear friends, ...") and their chrF against the references put
together the same way ("Dear friends, how are you?"); then each letter whose two translations differ.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from commands import cli  # noqa: E402
from model.search.options import SERVED  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
_I = re.compile(r"I\b")   # "I", "I'm", "I'll": capitalized anywhere in a sentence


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = cli.make_parser("bench/letters.py", __doc__)
    cli.add_model_args(p)
    p.add_argument("--salutations", default=str(DATA / "salutations.tsv"),
                   help="German opening<TAB>its English, one a line (default: %(default)s)")
    p.add_argument("--bodies", default=str(DATA / "letter_bodies.tsv"),
                   help="German sentence<TAB>its English, one a line (default: %(default)s)")
    cli.add_search_args(p)
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    args.search = cli.search_options(p, args, SERVED)
    return args


def _lines(path: str) -> list[tuple[int, str]]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip() and not line.startswith("#")]


def read_pairs(path: str) -> list[tuple[str, str]]:
    """``[(German, its English), ...]`` of a ``--salutations`` or ``--bodies`` file."""
    found = []
    for number, line in _lines(path):
        german, tab, english = line.partition("\t")
        if not tab or not german.strip() or not english.strip():
            raise ValueError(f"{path}:{number}: expected German<TAB>English, got {line!r}")
        found.append((german.strip(), english.strip()))
    if not found:
        raise ValueError(f"{path}: no pairs")
    return found


def continued(sentence: str) -> str:
    """An English sentence as it reads after an opening's comma: its first letter lowered, unless
    the word is "I"."""
    return sentence if _I.match(sentence) else sentence[:1].lower() + sentence[1:]


def _main(argv: list[str] | None) -> int:
    from sacrebleu.metrics import CHRF

    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    salutations, bodies = read_pairs(args.salutations), read_pairs(args.bodies)
    translator = cli.load_translator(args)
    letters = [(f"{german}, {body}", opening, f"{opening}, {continued(english)}")
               for german, opening in salutations for body, english in bodies]
    texts = [text for text, _, _ in letters]
    references = [reference for _, _, reference in letters]
    runs = []
    for label, options in (("without the letters rule", Options(search=args.search, without_rules=("letters",))),
                           ("with the letters rule", Options(search=args.search))):
        outputs = Pipeline(translator, options).translate(texts)
        opened = sum(output.startswith(f"{opening}, ") for output, (_, opening, _) in zip(outputs, letters))
        chrf = CHRF().corpus_score(outputs, [references]).score
        print(f"{label:25s} {opened}/{len(letters)} open with the opening and its comma, chrF {chrf:.2f}")
        runs.append(outputs)
    for text, a, b in zip(texts, *runs):
        if a != b:
            print(f"  {text}\n    without: {a}\n    with:    {b}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog="bench/letters.py")


if __name__ == "__main__":
    sys.exit(main())
