"""Do inline tags wrap the translation of the words they wrapped? ``format=html`` on everyday sentences.

    python bench/tags.py [--checkpoint CKPT] [--data bench/data/tags.tsv] [--beam 4] [--engine ct2]
                         [--channel CKPT] [--show]

Each line of ``bench/data/tags.tsv`` is an HTML paragraph with one inline element (``<b>``,
``<em>``, ``<a href>`` ...) and the English words a correct translation may have inside that element.
The paragraphs go through the text pipeline as the app translates HTML
(``pipeline.markup.translate_html`` over ``Pipeline.translate_aligned``), reranked by the noisy
channel with ``--channel`` as the service reranks where both directions are served. An element is **right**
when its output holds at least one listed word and only listed words ("a", "an", "the" and
punctuation aside), **too wide** when it also holds other words (it took in words of the sentence
around it), **empty** when it holds no word at all, **wrong** otherwise. Prints the counts and, with
--show, every element that is not right.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from commands import cli  # noqa: E402
from model.search.options import SERVED  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "tags.tsv"
WORD = re.compile(r"\w+")
TAG = re.compile(r"<([a-z]+)[^<>]*>")
FREE = frozenset(("a", "an", "the"))
VERDICTS = ("right", "too wide", "empty", "wrong")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = cli.make_parser("bench/tags.py", __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p, default="ct2")
    p.add_argument("--data", default=str(DEFAULT_DATA), help="HTML<TAB>words (default: %(default)s)")
    cli.add_search_args(p)
    cli.add_channel_args(p)
    p.add_argument("--show", action="store_true", help="print every element that is not right")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    args.search = cli.search_options(p, args, SERVED)
    return args


def read_cases(path: str) -> list[tuple[str, frozenset[str]]]:
    cases = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        markup, tab, words = line.partition("\t")
        inline = [name for name in TAG.findall(markup) if name != "p"]
        if not tab or not words.split() or len(inline) != 1:
            raise ValueError(f"{path}:{number}: expected <p> with one inline element<TAB>words, got {line!r}")
        cases.append((markup, frozenset(words.split())))
    return cases


def inside(markup: str, output: str) -> str | None:
    """The text inside ``output``'s copy of the input's inline element, or None when it is missing."""
    name = next(n for n in TAG.findall(markup) if n != "p")
    found = re.search(rf"<{name}\b[^<>]*>(.*?)</{name}>", output, re.DOTALL)
    return found[1] if found else None


def verdict(text: str | None, allowed: frozenset[str]) -> str:
    words = [w for w in WORD.findall((text or "").lower()) if w not in FREE]
    if not words:
        return "empty"
    listed = sum(w in allowed for w in words)
    if listed == len(words):
        return "right"
    return "too wide" if listed else "wrong"


def _main(argv: list[str] | None) -> int:
    from pipeline.markup import translate_html
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    cases = read_cases(args.data)
    pipeline = Pipeline(cli.load_translator(args), Options(search=args.search))
    outputs = translate_html([markup for markup, _ in cases], pipeline.translate_aligned)
    counts = dict.fromkeys(VERDICTS, 0)
    for (markup, allowed), output in zip(cases, outputs):
        text = inside(markup, output)
        result = verdict(text, allowed)
        counts[result] += 1
        if args.show and result != "right":
            print(f"{result:8}  {markup}\n          {output}")
    print(f"{Path(args.checkpoint).name}, beam {args.beam}, {args.engine}: {len(cases)} elements: "
          + ", ".join(f"{counts[v]} {v}" for v in VERDICTS))
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog="bench/tags.py")


if __name__ == "__main__":
    sys.exit(main())
