"""Formal or informal German ("Sie" or "du"): how often an English->German model's translations
address the reader as asked, and what steering it costs (``Options.formality``, ``pipeline.formality``).

    python bench/formality.py --checkpoint EN_DE.pt --data DEV.tsv [--limit 500] [--beam 4] [--engine ct2]

``--data``: ENGLISH<TAB>GERMAN lines (a reverse model's dev split); the sentences whose English says
"you", "your", "yours", "yourself" or "yourselves" are translated, each alone (as one request
would be), through the text pipeline once per formality: "any" (as the model writes it), "formal"
and "informal". Reported per formality:

* **formal**, **informal**: outputs with a sign of that address (``pipeline.formality``) and none
  of the other; **mixed**: signs of both; **neither**: no sign (a sentence-initial "Sie", an
  imperative "Komm!", or "you" translated as "man");
* **chrF** against the references (Tatoeba's German mostly says "du": a formal translation of an
  informal reference loses points there without being wrong);
* **changed**: outputs that differ from the model's own ("any"); **ms**: the median time of one
  sentence.
"""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.coverage import translate_each  # noqa: E402
from commands import cli  # noqa: E402
from model.search.options import SERVED  # noqa: E402

YOU = re.compile(r"\byou(?:r|rs|rself|rselves)?\b", re.IGNORECASE)


def parse_args(argv: list[str] | None):
    p = cli.make_parser("bench/formality.py", __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p, default="ct2")
    p.add_argument("--data", required=True, help="ENGLISH<TAB>GERMAN lines")
    p.add_argument("--limit", type=int, default=500, help="at most this many sentences (default: %(default)s)")
    cli.add_search_args(p)
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    cli.require_min(p, args, "limit", 1)
    args.search = cli.search_options(p, args, SERVED, minimum_beam=2)
    return args


def read_pairs(path: str, limit: int) -> list[tuple[str, str]]:
    pairs = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        english, tab, german = line.partition("\t")
        if not tab:
            raise ValueError(f"{path}:{number}: expected ENGLISH<TAB>GERMAN, got {line!r}")
        if YOU.search(english):
            pairs.append((english, german.split("\t")[0]))
    return pairs[:limit]


def address(german: str) -> str:
    """"formal", "informal", "mixed" or "neither": the signs of address in ``german``."""
    from pipeline.formality import mismatches

    formal, informal = mismatches(german, "informal") > 0, mismatches(german, "formal") > 0
    return "mixed" if formal and informal else "formal" if formal else "informal" if informal else "neither"


def _main(argv: list[str] | None) -> int:
    from sacrebleu.metrics import CHRF

    from model.network.checkpoint import direction
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    pairs = read_pairs(args.data, args.limit)
    if not pairs:
        raise ValueError(f"{args.data}: no English sentence says 'you'")
    translator = cli.load_translator(args)
    if direction(translator.meta) != "en-de":
        raise ValueError(f"{args.checkpoint}: not an English->German model (train.py --direction en-de)")
    sources, references = [e for e, _ in pairs], [g for _, g in pairs]
    Pipeline(translator, Options(search=args.search)).translate(sources[:2])   # warm up
    runs = []
    for formality in ("any", "formal", "informal"):
        pipeline = Pipeline(translator, Options(search=args.search, formality=formality))
        runs.append((formality, *translate_each(pipeline, sources)))
    own = runs[0][1]
    print(f"{Path(args.checkpoint).name}, beam {args.beam}, {args.engine}: {len(pairs)} sentences with 'you' "
          f"of {args.data}; references: " + ", ".join(
              f"{kind} {sum(address(r) == kind for r in references)}" for kind in ("formal", "informal", "mixed", "neither")))
    print("formality  formal  informal  mixed  neither   chrF  changed  ms/sentence")
    for formality, outputs, seconds in runs:
        counts = [sum(address(o) == kind for o in outputs) for kind in ("formal", "informal", "mixed", "neither")]
        changed = sum(a != b for a, b in zip(outputs, own))
        print(f"{formality:<9}  {counts[0]:6d}  {counts[1]:8d}  {counts[2]:5d}  {counts[3]:7d}  "
              f"{CHRF().corpus_score(outputs, [references]).score:5.2f}  {changed:7d}  "
              f"{statistics.median(seconds) * 1000:11.1f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog="bench/formality.py")


if __name__ == "__main__":
    sys.exit(main())
