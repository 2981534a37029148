"""How often does a translation keep the names of its sentence? With and without name detection.

    python bench/names.py [--checkpoint CKPT] [--engine ct2] [--data bench/data/names.tsv] [--beam 4]

Translates everyday sentences with names (``bench/data/names.tsv``: German, then the names an
English translation must keep as written) through the text pipeline twice: with
``Options(without_rules=("letters", "names"))`` (the model alone decides) and with every rule
(capitalized words the checkpoint's lexicon lacks are carried over as spans,
``pipeline.rules.names.with_names``; letters' greetings and signatures, ``pipeline.rules.letters``). A name counts as kept when it occurs in the output as written.
Prints the kept rate of each, and each sentence where the two differ.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from commands import cli  # noqa: E402
from model.search.options import SERVED  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "names.tsv"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = cli.make_parser("bench/names.py", __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p)
    cli.add_dictionary_arg(p)
    p.add_argument("--data", default=str(DEFAULT_DATA), help="German<TAB>names,... (default: %(default)s)")
    cli.add_search_args(p)
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    args.search = cli.search_options(p, args, SERVED)
    return args


def read_cases(path: str) -> list[tuple[str, list[str]]]:
    cases = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        german, tab, names = line.partition("\t")
        if not tab or not names.strip():
            raise ValueError(f"{path}:{number}: expected German<TAB>names, got {line!r}")
        cases.append((german, [n.strip() for n in names.split(",")]))
    return cases


def kept(outputs: list[str], cases: list[tuple[str, list[str]]]) -> int:
    return sum(name in output for output, (_, names) in zip(outputs, cases) for name in names)


def _main(argv: list[str] | None) -> int:
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    cases = read_cases(args.data)
    translator = cli.load_translator(args)
    if translator.lexicon is None:
        raise ValueError(f"{translator.checkpoint} has no lexicon: add one with python -m commands.lexicon")
    texts = [german for german, _ in cases]
    without = Pipeline(translator, Options(search=args.search, without_rules=("letters", "names"))).translate(texts)
    with_names = Pipeline(translator, Options(search=args.search), cli.load_places(args)).translate(texts)
    total = sum(len(names) for _, names in cases)
    for label, outputs in (("without name detection", without), ("with name detection", with_names)):
        n = kept(outputs, cases)
        print(f"{label:24s} {n}/{total} names kept ({100 * n / total:.1f}%)")
    for (german, _), a, b in zip(cases, without, with_names):
        if a != b:
            print(f"  {german}\n    without: {a}\n    with:    {b}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog="bench/names.py")


if __name__ == "__main__":
    sys.exit(main())
