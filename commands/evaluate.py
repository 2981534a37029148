"""Translate a test set and score it with sacreBLEU's BLEU and chrF.

    python -m commands.evaluate [--checkpoint CKPT] --src FILE --ref FILE [--ref FILE ...] [options]
    python -m commands.evaluate [--checkpoint CKPT] --data CORPUS [options]

    options: [--beam N] [--length-penalty A] [--batch-size N] [--raw] [--output FILE] [--json]
             [--device auto|cpu|cuda] [--threads N]

Inputs:

* --src/--ref: line-aligned UTF-8 (or gzipped) files: German sources, and one or more English
  reference files, each with exactly as many lines as --src. An empty line in a reference file
  means "no reference from this file for this sentence" (a variable number of references,
  sacreBLEU's None); only when all references of a sentence are empty is "" its reference.
* --data: any corpus model.data.read_pairs reads (deu-eng.zip, an English<TAB>German TSV such as
  the test.tsv that train.py writes into its run directory, a .de/.en prefix). Both sides are
  normalized, pairs with an empty side dropped, and every distinct German sentence is translated
  once and scored against ALL its English translations (Tatoeba has many per sentence).

Sources are translated as the service and ``commands.translate`` do, through the text pipeline
(protected spans, casing, long-input splitting); --raw scores the bare model instead (searched
without the pipeline's n-gram blocking).
A reverse model (train.py --direction en-de) translates English: give it English --src and German
--ref, or a corpus with --data (its sides are swapped); the pipeline then applies the rules of an
English source (``pipeline.rules.ENGLISH_RULES``).

Output on stdout, two lines (sacreBLEU's own score strings, then the metric's signature):

    BLEU = 34.20 65.1/41.0/27.5/18.9 (BP = 1.000 ratio = 1.010 hyp_len = 1234 ref_len = 1222) signature: nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0
    chrF2 = 55.12 signature: nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0

With --json instead: one JSON object on one line with the keys bleu, chrf (floats, 2 decimals),
length_ratio (BLEU's ratio: output tokens over the references' closest lengths, 3 decimals),
bleu_signature, chrf_signature, sentences (segments scored), beam, length_penalty, pipeline (false
with --raw) and checkpoint.
nrefs in a signature is "var" when sentences have different numbers of references.

--output FILE also writes the hypotheses, one line per scored sentence (in --src order, or in
first-seen order of the distinct sources with --data); the file is replaced atomically.
Exit status: 0, or 2 with one "error:" line on stderr (e.g. files whose line counts differ).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from model.search.options import DEFAULT, SERVED

from . import cli

if TYPE_CHECKING:
    from model.inference.translator import Translator

PROG = "python -m commands.evaluate"


def parse_args(argv: Sequence[str] | None):
    p = cli.make_parser(PROG, __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p)  # torch by default: the figures in MODEL_CARD.md are the PyTorch model's
    cli.add_dictionary_arg(p)
    cli.add_channel_args(p)
    p.add_argument("--src", metavar="FILE", help="German sources, one per line")
    p.add_argument("--ref", metavar="FILE", action="append", help="English references, line-aligned with --src; "
                   "repeat for several references per sentence")
    p.add_argument("--data", metavar="CORPUS", help="a parallel corpus instead of --src/--ref (all references "
                   "of each German sentence are used)")
    cli.add_search_args(p)
    p.add_argument("--raw", action="store_true", help="score the bare model, without the text pipeline")
    p.add_argument("--coverage-weight", type=float, metavar="W",
                   help="the text pipeline's cost of a left-out source word when it picks among the beam's "
                        "hypotheses, 0 = off (default: Options.coverage_weight, as served)")
    p.add_argument("--gap-words", type=int, metavar="N",
                   help="the text pipeline's next words tried where a chosen hypothesis still leaves a source "
                        "word out, 0 = off (default: Options.gap_words, as served)")
    p.add_argument("--output", metavar="FILE", help="also write the hypotheses to FILE")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the two score lines")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    # The bare model (--raw) searches without the text pipeline's n-gram blocking.
    args.search = cli.search_options(p, args, DEFAULT if args.raw else SERVED)
    cli.require_finite_nonnegative(p, args, "coverage_weight")
    cli.require_min(p, args, "gap_words", 0)
    if args.data is not None and (args.src is not None or args.ref):
        p.error("--data cannot be combined with --src/--ref")
    if args.data is None:
        if args.src is None:
            p.error("give --src FILE with --ref FILE, or --data CORPUS")
        if not args.ref:
            p.error("--src needs at least one --ref FILE")
    return args


def load_src_ref(src: str, refs: Sequence[str]) -> tuple[list[str], list[list[str | None]]]:
    """Sources and sacreBLEU reference streams from line-aligned files (see the docstring)."""
    from model.data import CorpusError, read_lines

    sources = read_lines(src)
    streams: list[list[str | None]] = []
    for ref in refs:
        lines = read_lines(ref)
        if len(lines) != len(sources):
            raise CorpusError(f"--ref {ref!r} has {len(lines)} lines but --src {src!r} has {len(sources)}")
        streams.append([line if line.strip() else None for line in lines])
    for i in range(len(sources)):
        if all(stream[i] is None for stream in streams):
            streams[0][i] = ""
    if not sources:
        raise CorpusError(f"no sentences to evaluate: {src!r} is empty")
    return sources, streams


def load_corpus(path: str, to: str = "de-en") -> tuple[list[str], list[list[str | None]]]:
    """Distinct source sentences of a corpus (German, or English for an "en-de" model) and reference
    streams of all their translations."""
    from model.data import read_references, reference_streams

    sources, references = read_references(path, to)
    return sources, reference_streams(references)


def translate_all(translator: "Translator", sources: list[str], args) -> list[str]:
    """Hypotheses in input order; length-sorted chunks give tight batches and a progress bar.
    ``args.search``: the ``SearchOptions`` (``parse_args``)."""
    from tqdm import tqdm

    if args.raw:   # the bare model: nothing of the text pipeline is imported (a GPU machine lacks its packages)
        def run(texts: list[str]) -> list[str]:
            return translator.translate(texts, args.search)
    else:
        from pipeline.translation import Options, Pipeline

        given = {name: getattr(args, name, None) for name in ("coverage_weight", "gap_words")}
        knobs = {name: value for name, value in given.items() if value is not None}  # bench/engines.py: neither
        run = Pipeline(translator, Options(search=args.search, **knobs), cli.load_places(args),
                       cli.load_coverage(args)).translate
    order = sorted(range(len(sources)), key=lambda i: len(sources[i]))
    hyps = [""] * len(sources)
    step = args.search.batch_size * 4
    with tqdm(total=len(sources), unit="sent", file=sys.stderr, disable=None, leave=False) as bar:
        for start in range(0, len(order), step):
            chunk = order[start:start + step]
            outs = run([sources[i] for i in chunk])
            for i, out in zip(chunk, outs):
                hyps[i] = out
            bar.update(len(chunk))
    return hyps


def write_lines_atomic(path: str, lines: Sequence[str]) -> None:
    """One hypothesis per line; readers never see half a file."""
    from model.network.checkpoint import atomic_open

    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(line.replace("\n", " ") + "\n" for line in lines)


def score(hyps: list[str], streams: list[list[str | None]]) -> dict[str, Any]:
    from sacrebleu.metrics import BLEU, CHRF

    bleu, chrf = BLEU(), CHRF()
    bleu_score = bleu.corpus_score(hyps, streams)
    chrf_score = chrf.corpus_score(hyps, streams)
    return {"bleu": bleu_score, "chrf": chrf_score,
            "bleu_signature": str(bleu.get_signature()), "chrf_signature": str(chrf.get_signature())}


def length_ratio(bleu) -> float:
    """BLEU's ratio of a ``score``'s BLEU: output tokens over the references' (the closest length
    each); real text shows outputs that leave content out by a ratio well below 1."""
    return bleu.sys_len / bleu.ref_len if bleu.ref_len else 0.0


def _main(argv: Sequence[str] | None) -> int:
    from model.network.checkpoint import direction

    args = parse_args(argv)
    if args.output is not None:
        cli.output_path(args.output, "--output")
    # Read the data before the (slower) model load, so a wrong path fails at once.
    sources, streams = load_corpus(args.data) if args.data is not None else load_src_ref(args.src, args.ref)
    translator = cli.load_translator(args)
    to = direction(translator.meta)
    if to != "de-en" and args.data is not None:
        sources, streams = load_corpus(args.data, to)
    hyps = translate_all(translator, sources, args)
    if args.output is not None:
        write_lines_atomic(args.output, hyps)
    s = score(hyps, streams)
    if args.json:
        record = {"bleu": round(s["bleu"].score, 2), "chrf": round(s["chrf"].score, 2),
                  "length_ratio": round(length_ratio(s["bleu"]), 3),
                  "bleu_signature": s["bleu_signature"], "chrf_signature": s["chrf_signature"],
                  "sentences": len(sources), "beam": args.search.beam_size,
                  "length_penalty": args.search.length_penalty,
                  "pipeline": not args.raw, "checkpoint": args.checkpoint}
        print(json.dumps(record, ensure_ascii=False))
    else:
        print(f"{s['bleu']} signature: {s['bleu_signature']}")
        print(f"{s['chrf']} signature: {s['chrf_signature']}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (see the module docstring)."""
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
