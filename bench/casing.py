"""Is ALL-CAPS input translated as well as normal input? Which remedy works: reading it as it is (a
model trained with casing augmentation) or truecasing it first (``pipeline.casing.truecase``)?

    python bench/casing.py --checkpoint runs/probe/best.pt --data runs/probe/dev.tsv [--sentences 500]

Translates an even sample of the corpus's German sources through the text pipeline: as written;
upper-cased, read as is (``caps="as_is"``) and truecased first (``caps="truecase"``); with every
word capitalized (Title Case), read as is and truecased; all in lower case (chat), read as is and
truecased; with only the first letter lower case (a letter's body after the salutation's comma),
read as is and with its capital given back (``casing.capital_start``). Scores each against all references with
case-insensitive BLEU and chrF (the pipeline returns ALL-CAPS input in capitals, so only
case-insensitive scores compare). Prints one table; "all caps" is the share of outputs in capitals.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from commands import cli  # noqa: E402
from model.search.options import SERVED  # noqa: E402
from model.data import read_references, reference_streams  # noqa: E402
from model.training.evaluation import spread  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = cli.make_parser("bench/casing.py", __doc__)
    cli.add_model_args(p)
    p.add_argument("--data", required=True, help="dev corpus (any format train.py reads)")
    p.add_argument("--sentences", type=int, default=500, help="sources, spread evenly (default: 500)")
    cli.add_search_args(p)
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    cli.require_min(p, args, "sentences", 1)
    args.search = cli.search_options(p, args, SERVED)
    return args


def main(argv: list[str] | None = None) -> int:
    from sacrebleu.metrics import BLEU, CHRF

    from pipeline.casing import title_case
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    translator = cli.load_translator(args)
    sources, references = read_references(args.data)
    sample = spread(len(sources), args.sentences)
    sources, streams = [sources[i] for i in sample], reference_streams([references[i] for i in sample])
    rows = []
    title = [title_case(s, frozenset()) for s in sources]  # every German word capitalized
    upper = [s.upper() for s in sources]
    lower = [s.lower() for s in sources]  # chat
    opening = [s[:1].lower() + s[1:] for s in sources]  # a letter's body after the salutation's comma
    for name, caps, texts in [("as written", "as_is", sources), ("ALL CAPS, read as is", "as_is", upper),
                              ("ALL CAPS, truecased", "truecase", upper), ("Title Case, read as is", "as_is", title),
                              ("Title Case, truecased", "truecase", title), ("lower case, read as is", "as_is", lower),
                              ("lower case, truecased", "truecase", lower),
                              ("lower-case start, as is", "as_is", opening),
                              ("lower-case start, capital", "truecase", opening)]:
        started = time.perf_counter()
        hyps = Pipeline(translator, Options(search=args.search, caps=caps)).translate(texts)
        seconds = time.perf_counter() - started
        bleu = BLEU(lowercase=True).corpus_score(hyps, streams).score
        chrf = CHRF(lowercase=True).corpus_score(hyps, streams).score
        upper = sum(h == h.upper() for h in hyps) / len(hyps)
        rows.append({"input": name, "caps": caps, "bleu_lc": round(bleu, 2), "chrf_lc": round(chrf, 2),
                     "outputs_all_caps": round(upper, 3), "seconds": round(seconds, 1)})
    print(f"checkpoint {args.checkpoint}, {len(sources)} sources of {args.data}, beam {args.beam}")
    print(f"{'input':26} {'BLEU (lc)':>9} {'chrF (lc)':>9} {'all caps':>8} {'secs':>6}")
    for r in rows:
        print(f"{r['input']:26} {r['bleu_lc']:9.2f} {r['chrf_lc']:9.2f} {r['outputs_all_caps']:8.1%} {r['seconds']:6.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"checkpoint": args.checkpoint, "sentences": len(sources),
                                               "rows": rows}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main, None, prog="bench/casing.py"))
