"""Words a translation leaves out, and what taking another of the beam's hypotheses buys and costs.

    python bench/coverage.py [--checkpoint CKPT] [--data bench/data/dropped.tsv] [--weights 0,1]
                             [--gap-words 4] [--beam 4] [--engine ct2] [--dictionary PATH] [--channel CKPT] [--show]

The sentences of ``bench/data/dropped.tsv`` (two clauses or a list each, written for it) name some
of their German content words with the English words that translate them, by hand, independently
of the dictionary. Each sentence is translated alone (as one request would be) through the text
pipeline once per ``Options.coverage_weight`` of --weights and ``Options.gap_words`` of
--gap-words (0 = off; the pipeline's defaults are what the service uses), reranked by the noisy channel with ``--channel`` (as the service reranks
where both directions are served). Reported per weight:

* **dropped**: listed words none of whose English words starts an output word (the hand-made check);
* **left out**: what ``pipeline.coverage`` finds in the outputs (source content words the
  dictionary finds no translation of), over the words it judges;
* **changed**: outputs that differ from the first run's;
* **ms**: the median time of one sentence, and of the sentences whose output was checked again.

--show prints every output that differs from the first run's.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from commands import cli  # noqa: E402
from model.search.options import SERVED  # noqa: E402
from pipeline.translation import Options, Pipeline  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "dropped.tsv"
WORD = re.compile(r"\w+")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = cli.make_parser("bench/coverage.py", __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p, default="ct2")
    cli.add_dictionary_arg(p)
    cli.add_channel_args(p)
    p.add_argument("--data", default=str(DEFAULT_DATA), help="GERMAN<TAB>word=en|en;... (default: %(default)s)")
    p.add_argument("--weights", default="0,1", help="coverage weights to compare, comma-separated (default: 0,1)")
    p.add_argument("--gap-words", default=str(Options.gap_words),
                   help="next words tried at a gap to compare with each weight, comma-separated (default: %(default)s)")
    cli.add_search_args(p)
    p.add_argument("--show", action="store_true", help="print the outputs that differ from the first weight's")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    args.search = cli.search_options(p, args, SERVED, minimum_beam=2)
    try:
        args.weights = [float(w) for w in args.weights.split(",")]
    except ValueError:
        p.error(f"--weights must be numbers separated by commas, got {args.weights!r}")
    if any(not 0 <= w < float("inf") for w in args.weights):
        p.error(f"--weights must be numbers >= 0, got {args.weights!r}")
    try:
        args.gap_words = [int(n) for n in args.gap_words.split(",")]
    except ValueError:
        p.error(f"--gap-words must be integers separated by commas, got {args.gap_words!r}")
    if any(n < 0 for n in args.gap_words):
        p.error(f"--gap-words must be integers >= 0, got {args.gap_words!r}")
    return args


def read_cases(path: str) -> list[tuple[str, dict[str, tuple[str, ...]]]]:
    cases = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        german, tab, listed = line.partition("\t")
        if not tab:
            raise ValueError(f"{path}:{number}: expected GERMAN<TAB>word=en|en;..., got {line!r}")
        words = {}
        for item in listed.split(";"):
            word, equals, english = item.partition("=")
            if not equals or word.strip() not in german or not english.strip():
                raise ValueError(f"{path}:{number}: expected GERMAN<TAB>word=en|en;... with words of the "
                                 f"sentence, got {item!r}")
            words[word.strip()] = tuple(e.strip().lower() for e in english.split("|") if e.strip())
        cases.append((german, words))
    return cases


def dropped(output: str, words: dict[str, tuple[str, ...]]) -> list[str]:
    """The listed German words none of whose English words starts a word or word sequence of ``output``."""
    text = " ".join(WORD.findall(output.lower()))
    return [word for word, english in words.items()
            if not any(re.search(rf"\b{re.escape(e)}", text) for e in english)]


def translate_each(pipeline, sentences: list[str]) -> tuple[list[str], list[float]]:
    """Each sentence translated alone through ``pipeline``, as one request would be: the outputs and
    the seconds each took."""
    outputs, seconds = [], []
    for sentence in sentences:
        start = time.perf_counter()
        outputs.extend(pipeline.translate([sentence]))
        seconds.append(time.perf_counter() - start)
    return outputs, seconds


def _main(argv: list[str] | None) -> int:
    args = parse_args(argv)
    cases = read_cases(args.data)
    translator = cli.load_translator(args)
    coverage = cli.load_coverage(args)
    if coverage is None:
        raise ValueError("bench/coverage.py needs the Ding dictionary: give --dictionary PATH")
    places = cli.load_places(args)
    coverage.load()
    sentences = [german for german, _ in cases]
    Pipeline(translator, Options(search=args.search), places, coverage).translate(sentences[:2])   # warm up
    runs = []
    for weight in args.weights:
        for gaps in args.gap_words:
            options = Options(search=args.search, coverage_weight=weight, gap_words=gaps)
            runs.append((f"{weight:g}/{gaps}", *translate_each(Pipeline(translator, options, places, coverage), sentences)))
    first = runs[0][1]
    checked = [i for i, (german, out) in enumerate(zip(sentences, first)) if coverage.missing(german, out)]
    listed = sum(len(words) for _, words in cases)
    print(f"{Path(args.checkpoint).name}, beam {args.beam}, {args.engine}: {len(cases)} sentences, {listed} listed "
          f"words; {len(checked)} outputs of the first run ({runs[0][0]}) leave words out")
    print("weight/gap words  dropped        left out        changed  ms/sentence  ms/checked")
    for weight, outputs, seconds in runs:
        lost = sum(len(dropped(out, words)) for out, (_, words) in zip(outputs, cases))
        missing = sum(len(coverage.missing(german, out)) for german, out in zip(sentences, outputs))
        judged = sum(len(coverage.content_words(german)) for german in sentences)
        changed = sum(a != b for a, b in zip(outputs, first))
        slow = statistics.median(seconds[i] for i in checked) * 1000 if checked else 0.0
        print(f"{weight:<16}  {lost:3d}/{listed} {100 * lost / listed:5.1f}%  {missing:3d}/{judged:<4d}"
              f"{100 * missing / max(judged, 1):5.1f}%  {changed:7d}  {statistics.median(seconds) * 1000:11.1f}"
              f"  {slow:10.1f}")
    if args.show:
        for weight, outputs, _ in runs[1:]:
            for german, a, b in zip(sentences, first, outputs):
                if a != b:
                    print(f"\n{german}\n  {runs[0][0]}: {a}\n  {weight}: {b}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog="bench/coverage.py")


if __name__ == "__main__":
    sys.exit(main())
