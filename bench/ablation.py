"""Does each rule of the text pipeline earn its keep? Each rule family switched off in turn, on dev sets.

    python bench/ablation.py --set NAME=CORPUS [--set NAME=SRC,REF ...] [--rule NAME ...]
        [--checkpoint CKPT] [--engine ct2] [--threads N] [--beam N] [--length-penalty A]
        [--batch-size N] [--cache FILE] [--samples N] [--json FILE] [--changes FILE]

Each set is a corpus that ``commands.evaluate --data`` reads (an English<TAB>German TSV such as a
run's ``dev.tsv``; every distinct German sentence once, against all its references), or German
and English line-aligned files ``SRC,REF`` (as ``--src``/``--ref``). Every set is translated
through the pipeline as served (``Options`` defaults, the search of ``--beam`` etc., places and left-out words
from the Ding dictionary as ``commands.evaluate`` has them) with every rule, then once per rule of
``pipeline.rules.RULES`` (or of ``--rule``) with that rule off (``Options.without_rules``).

Printed: a Markdown table, one row per set: the BLEU and chrF with every rule, then per rule the
chrF difference that switching it off makes (negative: the rule helps) with the paired
bootstrap's p-value (sacreBLEU's ``PairedTest``, ``--samples`` resamples, chrF), and how many
sentences changed. ``--json FILE`` writes the same figures; ``--changes FILE`` every changed
sentence as a TSV line: set, rule, German, output with every rule, output without the rule.

The model's outputs are cached per model input (``CachedTranslator`` over an SQLite file,
``--cache``, kept between runs): a rule switched off changes the model inputs of only the
sentences in which it finds spans, so each ablation translates only those anew.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.outputs import bootstrap_p  # noqa: E402
from commands import cli  # noqa: E402
from commands.evaluate import load_corpus, load_src_ref, write_lines_atomic  # noqa: E402

PROG = "python bench/ablation.py"


class SqliteStore:
    """A ``CacheStore`` in an SQLite file: model outputs (piece ids) by model input and search
    options, kept between runs. Unbounded: it holds what the dev sets need."""

    def __init__(self, path: str):
        self.db = sqlite3.connect(path)
        self.db.execute("CREATE TABLE IF NOT EXISTS outputs (key TEXT PRIMARY KEY, ids TEXT NOT NULL)")

    def get_many(self, keys: list[tuple]) -> dict[tuple, list[int]]:
        found = {}
        for key in keys:
            row = self.db.execute("SELECT ids FROM outputs WHERE key = ?", (repr(key),)).fetchone()
            if row is not None:
                found[key] = json.loads(row[0])
        return found

    def put_many(self, entries: dict[tuple, list[int]]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO outputs VALUES (?, ?)",
                                [(repr(key), json.dumps(list(ids))) for key, ids in entries.items()])

    def clear(self) -> None:
        with self.db:
            self.db.execute("DELETE FROM outputs")

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM outputs").fetchone()[0]


class Remembering:
    """An engine in front of another that remembers its aligned outputs by input and options, for
    the runs of one process: ``CachedTranslator.translate_aligned`` aligns a cached output anew on
    every call (a forced pass), and the runs of this script ask for the same inputs again and again."""

    def __init__(self, inner):
        self.inner = inner
        self.aligned: dict = {}

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def translate_aligned(self, texts, *args, **kwargs):
        options = repr((args, sorted(kwargs.items())))
        missing = list(dict.fromkeys(text for text in texts if (text, options) not in self.aligned))
        if missing:
            self.aligned.update(zip([(text, options) for text in missing],
                                    self.inner.translate_aligned(missing, *args, **kwargs)))
        return [self.aligned[text, options] for text in texts]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    from pipeline.rules import RULES

    NAMES = [rule.name for rule in RULES]   # a German source's (the de-en model's)
    p = cli.make_parser(PROG, __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p, default="ct2")
    cli.add_dictionary_arg(p)
    p.add_argument("--set", dest="sets", action="append", required=True, metavar="NAME=CORPUS|NAME=SRC,REF",
                   help="a dev set (repeatable)")
    p.add_argument("--rule", dest="rules", action="append", choices=NAMES, metavar="NAME",
                   help=f"a rule to switch off (repeatable; default: each of {', '.join(NAMES)})")
    cli.add_search_args(p)
    p.add_argument("--cache", metavar="FILE", help="SQLite file of model outputs kept between runs (default: none)")
    p.add_argument("--samples", type=int, default=1000, metavar="N", help="bootstrap resamples (default: 1000)")
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    p.add_argument("--changes", metavar="FILE", help="also write the changed sentences as TSV")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    from model.search.options import SERVED

    args.search = cli.search_options(p, args, SERVED)
    cli.require_min(p, args, "samples", 1)
    names = [given.partition("=")[0] for given in args.sets]
    for given in args.sets:
        name, sep, where = given.partition("=")
        if not sep or not name or not where:
            p.error(f"--set must be NAME=CORPUS or NAME=SRC,REF, got {given!r}")
        if names.count(name) > 1:
            p.error(f"--set {name!r} is given twice")
    if args.json:
        cli.output_path(args.json, "--json")
    if args.changes:
        cli.output_path(args.changes, "--changes")
    return args


def load_set(where: str) -> tuple[list[str], list[list[str | None]]]:
    if "," in where:
        src, ref = where.split(",", 1)
        return load_src_ref(src, [ref])
    return load_corpus(where)


def compare(base: list[str], other: list[str], streams: list[list[str | None]], samples: int) -> tuple[float, float]:
    """chrF of ``other`` minus that of ``base``, and the paired bootstrap's p-value."""
    from sacrebleu.metrics import CHRF

    if base == other:
        return 0.0, 1.0
    (p,) = bootstrap_p(base, [other], streams, samples)
    chrf = CHRF(references=streams)
    return round(chrf.corpus_score(other, None).score - chrf.corpus_score(base, None).score, 2), p


def _main(argv: Sequence[str] | None) -> int:
    from tqdm import tqdm

    from commands.evaluate import score
    from model.inference.engines import CachedTranslator
    from pipeline.rules import RULES
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    sets = {}
    for given in args.sets:
        name, _, where = given.partition("=")
        sets[name] = load_set(where)
    translator = cli.load_translator(args)
    engine = Remembering(CachedTranslator(translator, 1, store=SqliteStore(args.cache or ":memory:")))
    places, coverage = cli.load_places(args), cli.load_coverage(args)
    rules = args.rules or [rule.name for rule in RULES]
    figures, changes = {}, []
    for name, (sources, streams) in sets.items():
        outputs = {}
        for off in tqdm([None, *rules], desc=name, file=sys.stderr, disable=None, leave=False):
            options = Options(search=args.search, without_rules=(off,) if off else ())
            outputs[off] = Pipeline(engine, options, places, coverage).translate(sources)
        whole = score(outputs[None], streams)
        row = {"sentences": len(sources), "bleu": round(whole["bleu"].score, 2), "chrf": round(whole["chrf"].score, 2)}
        for off in rules:
            delta, p = compare(outputs[None], outputs[off], streams, args.samples)
            changed = sum(a != b for a, b in zip(outputs[None], outputs[off]))
            changes += ["\t".join((name, off, source, a, b)) for source, a, b in zip(sources, outputs[None], outputs[off])
                        if a != b]
            row[off] = {"chrf_delta": delta, "p": round(p, 4), "changed": changed}
        figures[name] = row
    print("| set | sentences | BLEU / chrF | " + " | ".join(f"without {r}" for r in rules) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in rules) + " |")
    for name, row in figures.items():
        cells = [f"{row[r]['chrf_delta']:+.2f} (p {row[r]['p']:.3f}, {row[r]['changed']} changed)" for r in rules]
        print(f"| {name} | {row['sentences']} | {row['bleu']:.2f} / {row['chrf']:.2f} | " + " | ".join(cells) + " |")
    if args.json:
        write_lines_atomic(args.json, [json.dumps(figures, indent=1)])
    if args.changes:
        write_lines_atomic(args.changes, changes)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
