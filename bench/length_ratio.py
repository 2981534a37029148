"""Why outputs are short: chrF and the length ratio against each knob of the search and the pipeline.

    python bench/length_ratio.py --src newstest2019.de-en.de --ref newstest2019.de-en.en [--limit 300]
           [--checkpoint CKPT] [--channel REVERSE.pt] [--engine ct2] [--threads 1]
           [--length-penalties 1,1.5] [--beams 8] [--max-pieces 48,64] [--channel-weights 0]
           [--wide-beams 0,12] [--coverage-weights 0,2] [--gap-words 4] [--raw] [--json]

Sources and references are read as ``python -m commands.evaluate`` reads them (``--data``, or
``--src`` and ``--ref``); --limit of them are used, after the first --skip. They are translated as
served (the text pipeline with ``Options()``, the dictionary's checks, the noisy channel of
``--channel`` at ``SERVED_WEIGHT`` where given), then once more for each value of each knob
listed, that knob alone changed and the others as served:

- ``--length-penalties``: GNMT's alpha (``SearchOptions.length_penalty``; served 0.6);
- ``--beams``: the beam size (``SearchOptions.beam_size``; served 4);
- ``--max-pieces``: the longest model input before a sentence is cut at its clauses
  (``Options.max_pieces``; served 24);
- ``--channel-weights``: the noisy channel's weight (with ``--channel``; 0 = off);
- ``--wide-beams``: how wide the beam the channel chooses in is searched (with ``--channel``;
  ``ChannelOptions.wide_beam``, served ``SERVED_WIDE_BEAM``; 0 = the search's own);
- ``--coverage-weights``: what a left-out source word costs a hypothesis (``Options.coverage_weight``);
- ``--gap-words``: the words tried where a source word is still left out (``Options.gap_words``);
- ``--raw``: the bare engine, no pipeline, with the served search.

Printed, a row each: corpus chrF and BLEU (sacreBLEU, all references, as commands.evaluate), the
length ratio (BLEU's: output tokens over the references' closest lengths), the sources whose
output changed against what is served, sacreBLEU's paired bootstrap p-value of the chrF difference
(None where nothing changed) and the median milliseconds a source (one source a call, as a
request; each source goes through every point in turn, so that the medians compare). ``--json``:
one object a row.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.channel import numbers  # noqa: E402
from bench.outputs import add_sources, bootstrap_p, check_sources, load_sources  # noqa: E402
from commands import cli  # noqa: E402

PROG = "bench/length_ratio.py"


def parse_args(argv: list[str] | None):
    p = cli.make_parser(PROG, __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p, default="ct2")
    cli.add_dictionary_arg(p)
    p.add_argument("--channel", metavar="CKPT", help="the reverse checkpoint, served at its weight (default: none)")
    add_sources(p)
    p.add_argument("--length-penalties", default="", metavar="A,...", help="length penalties to try")
    p.add_argument("--beams", default="", metavar="N,...", help="beam sizes to try")
    p.add_argument("--max-pieces", default="", metavar="N,...", help="longest model inputs to try")
    p.add_argument("--channel-weights", default="", metavar="W,...", help="channel weights to try (with --channel)")
    p.add_argument("--wide-beams", default="", metavar="N,...", help="widths of the beam the channel chooses in "
                   "to try (with --channel)")
    p.add_argument("--coverage-weights", default="", metavar="W,...", help="costs of a left-out word to try")
    p.add_argument("--gap-words", default="", metavar="N,...", help="words tried at a gap to try")
    p.add_argument("--raw", action="store_true", help="also the bare engine, with the served search")
    p.add_argument("--json", action="store_true", help="one JSON object a row instead of the table")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    check_sources(p, args)
    for name in ("channel_weights", "wide_beams"):
        if getattr(args, name) and args.channel is None:
            p.error(f"--{name.replace('_', '-')} needs --channel")
    whole = {"beams": 1, "max_pieces": 8, "gap_words": 0, "wide_beams": 0}
    for name in ("length_penalties", "beams", "max_pieces", "channel_weights", "wide_beams", "coverage_weights",
                 "gap_words"):
        text = getattr(args, name)
        flag = "--" + name.replace("_", "-")
        values = numbers(p, flag, text, whole=name in whole) if text else []
        if name in whole and any(v < whole[name] for v in values):
            p.error(f"{flag} must be integers >= {whole[name]}, got {text!r}")
        setattr(args, name, values)
    return args


def _main(argv: list[str] | None) -> int:
    from model.inference.channel import SERVED_WEIGHT, ChannelReranked, ChannelScorer, served_options
    from model.inference.engines import serve_engine
    from model.network.checkpoint import direction
    from model.search.options import SERVED
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    sources, streams = load_sources(args)
    bare = cli.load_translator(args)  # no --channel-weight flag here: the bare forward engine
    scorer = None
    if args.channel is not None:
        scorer = ChannelScorer(cli.load_translator(argparse.Namespace(**{**vars(args), "checkpoint": args.channel})))
    places, coverage = cli.load_places(args), cli.load_coverage(args)

    def engine(weight: float):
        return serve_engine(bare, channel=scorer, channel_weight=weight) if scorer is not None else bare

    served_weight = SERVED_WEIGHT if scorer is not None else 0.0
    points: list[tuple[str, object, Options]] = [("served", engine(served_weight), Options())]
    points += [(f"length penalty {a:g}", engine(served_weight), Options(search=replace(SERVED, length_penalty=a)))
               for a in args.length_penalties]
    points += [(f"beam {n}", engine(served_weight), Options(search=replace(SERVED, beam_size=n)))
               for n in args.beams]
    points += [(f"max pieces {n}", engine(served_weight), Options(max_pieces=n)) for n in args.max_pieces]
    points += [(f"channel weight {w:g}", engine(w), Options()) for w in args.channel_weights]
    served_channel = served_options(served_weight, direction(bare.meta))
    points += [(f"wide beam {n}", ChannelReranked(bare, scorer, replace(served_channel, wide_beam=n)), Options())
               for n in args.wide_beams]
    points += [(f"coverage weight {w:g}", engine(served_weight), Options(coverage_weight=w))
               for w in args.coverage_weights]
    points += [(f"gap words {n}", engine(served_weight), Options(gap_words=n)) for n in args.gap_words]

    names = [name for name, _, _ in points] + (["bare engine"] if args.raw else [])
    runs = [Pipeline(translator, options, places, coverage).translate for _, translator, options in points]
    if args.raw:
        runs.append(lambda texts: bare.translate(texts, SERVED))
    for run in runs:
        run(sources[:1])  # warm up
    outputs: list[list[str]] = [[] for _ in runs]
    seconds: list[list[float]] = [[] for _ in runs]
    for k, text in enumerate(sources):
        # each source through every point in turn, starting one further each time: the medians
        # compare under the same load, and no point always meets the dictionary's cold caches
        for j in [(k + shift) % len(runs) for shift in range(len(runs))]:
            start = time.perf_counter()
            outputs[j].extend(runs[j]([text]))
            seconds[j].append(time.perf_counter() - start)
    rows = [{"point": name, "ms": round(statistics.median(times) * 1000, 1), **summary(hyps, streams)}
            for name, hyps, times in zip(names, outputs, seconds)]
    for row, hyps, p in zip(rows, outputs, bootstrap_p(outputs[0], outputs, streams)):
        row["changed"] = sum(a != b for a, b in zip(hyps, outputs[0]))
        row["p"] = None if p is None else round(p, 4)
    if args.json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return 0
    print(f"{PROG}: {len(sources)} sources, one a call")
    print(f"{'point':<22} {'chrF':>6} {'BLEU':>6} {'ratio':>6} {'changed':>8} {'p':>7} {'ms':>7}")
    for row in rows:
        p = "-" if row["p"] is None else f"{row['p']:.3f}"
        print(f"{row['point']:<22} {row['chrf']:>6.2f} {row['bleu']:>6.2f} {row['ratio']:>6.3f} "
              f"{row['changed']:>8} {p:>7} {row['ms']:>7.1f}")
    return 0


def summary(hyps: list[str], streams: list[list[str | None]]) -> dict:
    """chrF, BLEU and the length ratio, as ``commands.evaluate --json`` gives them."""
    from commands.evaluate import length_ratio, score

    s = score(hyps, streams)
    return {"chrf": round(s["chrf"].score, 2), "bleu": round(s["bleu"].score, 2),
            "ratio": round(length_ratio(s["bleu"]), 3)}


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
