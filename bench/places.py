"""What writing place names in English does to translations that have one.

    python bench/places.py --data runs/RUN/dev.tsv [--data ...] [--checkpoint CKPT] [--dictionary PATH] [--beam 4]

For each corpus (as ``train.py`` reads it; a run's splits are English<TAB>German), the distinct
German sources that hold a place name of the dictionary (``model.data.ding.place_names``, or its
genitive) are translated through the text pipeline without place names and with them, as the app
translates. Prints BLEU and chrF of both on those sources (against all their references), and each
source whose translation changed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from commands import cli  # noqa: E402
from model.search.options import SERVED  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = cli.make_parser("bench/places.py", __doc__)
    cli.add_model_args(p)
    cli.add_dictionary_arg(p)
    p.add_argument("--data", action="append", required=True, help="a corpus as train.py reads it; repeat for several")
    cli.add_search_args(p)
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    args.search = cli.search_options(p, args, SERVED)
    return args


def with_place(sources: list[str], places: dict[str, str]) -> list[int]:
    """Indices of the sources with a place name or its genitive (as the pipeline finds them)."""
    from model.data.lexicon import WORD
    from pipeline.rules.names import english_place

    return [i for i, s in enumerate(sources) if any(english_place(w, places) for w in WORD.findall(s))]


def _main(argv: list[str] | None) -> int:
    from commands.evaluate import load_corpus, score
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    places = cli.load_places(args)
    if not places:
        raise ValueError("no place names: install Debian's trans-de-en or give --dictionary PATH")
    translator = cli.load_translator(args)
    without = Pipeline(translator, Options(search=args.search))
    with_places = Pipeline(translator, Options(search=args.search), places)
    for path in args.data:
        sources, streams = load_corpus(path)
        picked = with_place(sources, places)
        if not picked:
            print(f"{path}: no source with a place name among {len(sources)}")
            continue
        texts = [sources[i] for i in picked]
        references = [[stream[i] for i in picked] for stream in streams]
        before, after = without.translate(texts), with_places.translate(texts)
        a, b = score(before, references), score(after, references)
        print(f"{path}: {len(picked)} of {len(sources)} sources with a place name: BLEU {a['bleu'].score:.2f} -> "
              f"{b['bleu'].score:.2f}, chrF {a['chrf'].score:.2f} -> {b['chrf'].score:.2f}")
        for text, x, y in zip(texts, before, after):
            if x != y:
                print(f"  {text}\n    without: {x}\n    with:    {y}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog="bench/places.py")


if __name__ == "__main__":
    sys.exit(main())
