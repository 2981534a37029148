"""What the model glues to a format directive: "Move %d photo to %s?" -> "%d- Foto nach %s verschieben?".

    python bench/glue.py --data runs/v4cpu/dev.ui.tsv [--checkpoint checkpoints/en-de.pt] [--engine ct2]
                         [--channel CKPT] [--show]

``--data``: English<TAB>German pairs as the data layer writes its dev splits, directives masked as
``⦅X1⦆``…; the pairs with one are kept and each ``⦅Xk⦆`` is written as the k-th of ``DIRECTIVES``
(printf, Python, brace and Qt forms), so that the pipeline reads software strings. The side the
checkpoint reads is translated through the pipeline as served (``--channel``, the dictionary),
twice: with the verbatim rule's repair of what the model glued to a directive
(``pipeline.words.unglued``) and without it (``Verbatim(unglue=False)``: as the model wrote it).
Prints, for each, the translations with stray glue (``model.data.software.stray_glue``) and chrF
and BLEU against the other side; ``--show`` lists the translations that differ.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from commands import cli  # noqa: E402
from model.search.options import SERVED  # noqa: E402

DIRECTIVES = ("%s", "%d", "{name}", "%1", "%(count)d", "{0}", "%2$s", "%u")
PLACEHOLDER = re.compile(r"⦅X([0-9]+)⦆")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = cli.make_parser("bench/glue.py", __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p, default="ct2")
    p.add_argument("--data", required=True, help="English<TAB>German pairs with ⦅Xk⦆ directives")
    cli.add_search_args(p)
    cli.add_channel_args(p)
    cli.add_dictionary_arg(p)
    p.add_argument("--show", action="store_true", help="print each translation the repair changed")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    args.search = cli.search_options(p, args, SERVED)
    return args


def read_pairs(path: str) -> list[tuple[str, str]]:
    """(English, German) of the pairs that hold a directive, each written as one of ``DIRECTIVES``."""
    def written(text: str) -> str:
        return PLACEHOLDER.sub(lambda m: DIRECTIVES[(int(m[1]) - 1) % len(DIRECTIVES)], text)

    pairs = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) >= 2 and PLACEHOLDER.search(fields[0]):
            pairs.append((written(fields[0]), written(fields[1])))
    return pairs


def _main(argv: list[str] | None) -> int:
    from sacrebleu.metrics import BLEU, CHRF

    from model.data.software import stray_glue
    from pipeline.rules.verbatim import Verbatim
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    pipeline = Pipeline(cli.load_translator(args), Options(search=args.search), cli.load_places(args),
                        cli.load_coverage(args))
    english = pipeline.source == "en"
    pairs = read_pairs(args.data)
    sources = [en if english else de for en, de in pairs]
    references = [de if english else en for en, de in pairs]
    repaired = pipeline.translate(sources)
    pipeline.rules = tuple(Verbatim(english=english, unglue=False) if rule.name == "verbatim" else rule
                           for rule in pipeline.rules)
    as_written = pipeline.translate(sources)
    for name, outputs in (("as the model glued", as_written), ("repaired", repaired)):
        glued = sum(bool(stray_glue(source, output)) for source, output in zip(sources, outputs))
        print(f"{pipeline.languages.source}-{pipeline.languages.target}, {name}: {len(sources)} strings, "
              f"{glued} with stray glue, chrF {CHRF().corpus_score(outputs, [references]).score:.2f}, "
              f"BLEU {BLEU().corpus_score(outputs, [references]).score:.2f}")
    if args.show:
        for source, before, after in zip(sources, as_written, repaired):
            if before != after:
                print(f"  {source}\n    {before}\n    {after}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog="bench/glue.py")


if __name__ == "__main__":
    sys.exit(main())
