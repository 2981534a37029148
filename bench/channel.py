"""Noisy-channel reranking: does a reverse model's log p(de|en) pick better translations from the n-best list?

    python bench/channel.py --channel REVERSE.pt --data runs/v4a/dev.chat.tsv [--skip 0] [--limit 300]
    python bench/channel.py --channel REVERSE.pt --src newstest2019.de-en.de --ref newstest2019.de-en.en
           [--checkpoint CKPT] [--engine ct2] [--n 8] [--weights 0,0.3,0.5,1,2,3,5] [--length-bonuses 0]
           [--margins inf,1.5] [--most 0,3] [--shortest 0,8]
           [--threads 1] [--channel-engine torch|ct2] [--channel-precision fp32|bf16] [--show]

Sources and references are read as ``python -m commands.evaluate`` reads them (``--data``: each
distinct German sentence once with all its references, in first-seen order; ``--src/--ref``: line
by line); --limit of them are used, after the first --skip. Each source is translated alone, as
one request would be, through the text pipeline as served (``Pipeline``, ``Options()``, the
dictionary's place names and left-out-word check): once by ``translate`` (what the service returns) and once by
``translate_n_best`` with --n hypotheses (its first is ``translate``'s). The reverse model
``--channel`` (``train.py --direction en-de``) then scores every hypothesis
(``model.inference.channel.ChannelScorer``, PyTorch or CTranslate2 int8, one batch per source), and each pair
(weight, bonus) of the grid picks per source the hypothesis of best

    forward score + weight * log p(de|en) / German pieces + bonus * English pieces / German pieces

(``ChannelOptions``; the forward score is the n-best list's: log p(en|de) over the GNMT length
penalty), among the list's contenders (``channel.contenders``: within each --margins of the best
forward score, at most each --most, 0 for no bound, none for a source of fewer than each
--shortest pieces; ``channel.choice``, as the service chooses).
Printed: corpus chrF and BLEU (sacreBLEU, all references, as commands.evaluate) of what is
served, of every grid point, and of the oracle (per source the hypothesis of best sentence chrF:
what any reranking of these lists could reach at most), how many picks differ from what is
served, the pairs the channel scores there (none where the best stands alone) and the sources whose
beam it leaves unscored, and for each grid point sacreBLEU's paired bootstrap p-value of its chrF
against what is served; then the median milliseconds per source of ``translate``, of ``translate_n_best`` and of
the channel scoring, and the grid point of best chrF (the first of equals). Chosen on the same
sources, the best of a grid reads too high: confirm it on others, with --skip and that one point.
--show prints the sources whose pick changes there. --bare measures instead what reranking the
beam would cost a request: on the bare engines, the translation with the served search against its
n-best list plus the channel's scores (``bare_cost``).
"""

from __future__ import annotations

import itertools
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.outputs import add_sources, bootstrap_p, check_sources, load_sources  # noqa: E402
from commands import cli  # noqa: E402

PROG = "bench/channel.py"


def numbers(p, flag: str, text: str, *, infinite: bool = False, whole: bool = False) -> list[float]:
    """A comma-separated list of numbers >= 0 (``infinite``: "inf" too; ``whole``: integers), or
    the one-line usage error."""
    try:
        values = [float(item) for item in text.split(",")]
    except ValueError:
        p.error(f"{flag} must be numbers separated by commas, got {text!r}")
    if any(not 0 <= value < float("inf") and not (infinite and value == float("inf")) for value in values):
        p.error(f"{flag} must be numbers >= 0{' or inf' if infinite else ''}, got {text!r}")
    if whole and any(value != int(value) for value in values):
        p.error(f"{flag} must be integers >= 0, got {text!r}")
    return [int(value) for value in values] if whole else values


def parse_args(argv: list[str] | None):
    p = cli.make_parser(PROG, __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p, default="ct2")
    cli.add_dictionary_arg(p)
    p.add_argument("--channel", required=True, metavar="CKPT", help="the reverse (English->German) checkpoint")
    p.add_argument("--channel-engine", default="torch", choices=("torch", "ct2"),
                   help="what scores with the reverse model: PyTorch, or CTranslate2 int8 (default: torch)")
    p.add_argument("--channel-precision", default="fp32", choices=("fp32", "bf16"),
                   help="the reverse model's weights with --channel-engine torch (default: fp32)")
    add_sources(p)
    p.add_argument("--n", type=int, default=8, metavar="N", help="hypotheses per source (default: 8)")
    p.add_argument("--weights", default="0,0.3,0.5,1,2,3,5", help="channel weights, comma-separated "
                   "(default: %(default)s)")
    p.add_argument("--length-bonuses", default="0", help="length bonuses, comma-separated (default: %(default)s)")
    p.add_argument("--margins", default="inf", help="contenders within this of the best forward score, "
                   "comma-separated; inf: all (default: %(default)s)")
    p.add_argument("--most", default="0", help="contenders at most, comma-separated; 0: no bound (default: %(default)s)")
    p.add_argument("--shortest", default="0", help="no contender but the best for sources of fewer pieces, "
                   "comma-separated; 0: none (default: %(default)s)")
    p.add_argument("--show", action="store_true", help="print the sources whose pick changes at the best chrF")
    p.add_argument("--bare", action="store_true", help="instead: what a reranked request costs on the bare "
                   "engines (no pipeline, no scores)")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    check_sources(p, args)
    cli.require_min(p, args, "n", 2)
    args.weights = numbers(p, "--weights", args.weights)
    args.length_bonuses = numbers(p, "--length-bonuses", args.length_bonuses)
    args.margins = numbers(p, "--margins", args.margins, infinite=True)
    args.most = numbers(p, "--most", args.most, whole=True)
    args.shortest = numbers(p, "--shortest", args.shortest, whole=True)
    return args


def ms(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1000


def oracle(hypotheses: list[list[str]], streams: list[list[str | None]]) -> list[str]:
    """Per source the hypothesis of best sentence chrF against its references (the first of equals)."""
    from sacrebleu.metrics import CHRF

    chrf = CHRF()
    picked = []
    for i, options in enumerate(hypotheses):
        refs = [stream[i] for stream in streams if stream[i] is not None]
        scores = [chrf.sentence_score(h, refs).score for h in options]
        picked.append(options[scores.index(max(scores))])
    return picked


def bare_cost(translator, scorer, sources: list[str], n: int) -> tuple[float, float, float]:
    """Median ms per source, one at a time, of the forward engine's translation with the served
    search, of the n-best list of the same search (n_best = ``n``: it searches on for n ended
    hypotheses), and of the channel's scores of that list: what reranking the beam would cost."""
    from dataclasses import replace

    from model.search.options import SERVED

    listed = replace(SERVED, beam_size=max(SERVED.beam_size, n), n_best=n)
    for text in sources[:2]:  # warm up
        translator.translate([text], SERVED)
        translator.translate_n_best([text], listed)
    timings: list[list[float]] = [[], [], []]
    for text in sources:
        start = time.perf_counter()
        translator.translate([text], SERVED)
        middle = time.perf_counter()
        found = translator.translate_n_best([text], listed)[0]
        scored = time.perf_counter()
        scorer.score([text] * len(found), [h for h, _ in found])
        end = time.perf_counter()
        for times, seconds in zip(timings, (middle - start, scored - middle, end - scored)):
            times.append(seconds)
    return ms(timings[0]), ms(timings[1]), ms(timings[2])


def _main(argv: list[str] | None) -> int:
    import torch

    from commands.evaluate import score
    from model.inference.channel import ChannelOptions, ChannelScorer, choice, contenders
    from model.network.checkpoint import direction
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    sources, streams = load_sources(args)
    translator = cli.load_translator(args)  # sets torch's threads, which the reverse model shares
    scorer = ChannelScorer.from_checkpoint(args.channel, device=args.device, precision=args.channel_precision,
                                           engine=args.channel_engine, threads=args.threads or 0,
                                           forward=direction(translator.meta))
    if args.bare:
        one, listed, channel_ms = bare_cost(translator, scorer, sources, args.n)
        print(f"{PROG}: {len(sources)} sources one at a time, bare engines (forward {args.engine}, channel "
              f"{args.channel_engine}), median ms: translate {one:.1f}, {args.n}-best {listed:.1f}, channel "
              f"{channel_ms:.1f}; reranked / translate {(listed + channel_ms) / one:.2f}")
        return 0
    pipeline = Pipeline(translator, Options(), cli.load_places(args), cli.load_coverage(args))
    for text in sources[:2]:  # warm up both models
        best, _ = pipeline.translate_n_best([text], args.n)[0][0]
        scorer.score([text], [best])

    served, hypotheses, forward, channel = [], [], [], []
    timings: dict[str, list[float]] = {"translate": [], "n-best": [], "channel": []}
    for text in sources:
        start = time.perf_counter()
        served.extend(pipeline.translate([text]))
        middle = time.perf_counter()
        found = pipeline.translate_n_best([text], args.n)[0]
        scored = time.perf_counter()
        channel.append(scorer.score([text] * len(found), [h for h, _ in found]))
        end = time.perf_counter()
        hypotheses.append([h for h, _ in found])
        forward.append([s for _, s in found])
        for name, seconds in zip(timings, (middle - start, scored - middle, end - scored)):
            timings[name].append(seconds)
    first_differs = sum(h[0] != s for h, s in zip(hypotheses, served))

    rows = [("served (translate)", served)]
    grid, costs = [], {}
    pieces = [len(ids) for ids in translator.source_ids(sources)]
    for margin, most, shortest, bonus, weight in itertools.product(args.margins, args.most, args.shortest,
                                                                   args.length_bonuses, args.weights):
        options = ChannelOptions(weight=weight, length_bonus=bonus, margin=margin, most=most, shortest=shortest)
        picks = [h[choice(f, c, options, n)] for h, f, c, n in zip(hypotheses, forward, channel, pieces)]
        label = f"w={weight:g} bonus={bonus:g}" + ("" if (margin, most) == (float("inf"), 0) else
                                                   f" margin={margin:g} most={most}") + (
            f" shortest={shortest}" if shortest else "")
        picked = [len(contenders(f, options, n)) for f, n in zip(forward, pieces)]
        costs[label] = (sum(n for n in picked if n > 1), sum(n < 2 for n in picked))
        grid.append((label, picks))
    rows += grid + [("oracle (sentence chrF)", oracle(hypotheses, streams))]
    results = {label: score(picks, streams) for label, picks in rows}

    sizes = [len(h) for h in hypotheses]
    print(f"{PROG}: {len(sources)} sources, n={args.n} ({statistics.mean(sizes):.2f} distinct hypotheses per "
          f"source), forward {Path(args.checkpoint).name} on {args.engine}, channel {Path(args.channel).name} "
          f"({args.channel_precision if args.channel_engine == 'torch' else 'ct2 int8'}), "
          f"{torch.get_num_threads()} thread(s)")
    if first_differs:
        print(f"note: the n-best list's first hypothesis differs from translate's for {first_differs} sources")
    tests = dict(zip((label for label, _ in grid), bootstrap_p(served, [picks for _, picks in grid], streams)))
    print("| rerank | chrF | BLEU | picks changed | pairs scored | beams unscored | p |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, picks in rows:
        s, p = results[label], tests.get(label)
        changed = sum(a != b for a, b in zip(picks, served))
        scored, unscored = costs.get(label, ("–", "–"))
        print(f"| {label} | {s['chrf'].score:.2f} | {s['bleu'].score:.2f} | {changed} | {scored} | {unscored} | "
              f"{'–' if p is None else f'{p:.3f}'} |")
    slow = statistics.quantiles(timings["channel"], n=10)[-1] if len(sources) > 1 else timings["channel"][0]
    print(f"median ms per source: translate {ms(timings['translate']):.1f}, n-best {ms(timings['n-best']):.1f}, "
          f"channel scoring {ms(timings['channel']):.1f} (90th percentile {slow * 1000:.1f})")
    label, picks = max(grid, key=lambda row: results[row[0]]["chrf"].score)
    print(f"best chrF at {label}: {results[label]['chrf'].score - results[rows[0][0]]['chrf'].score:+.2f} over served")
    if args.show:
        print(f"\nchanged picks at {label}:")
        for text, before, after in zip(sources, served, picks):
            if before != after:
                print(f"\n{text}\n  served: {before}\n  picked: {after}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
