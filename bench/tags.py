"""Do inline tags wrap the translation of the words they wrapped? ``format=html`` on everyday sentences.

    python bench/tags.py [--checkpoint CKPT] [--data bench/data/tags.tsv] [--beam 4] [--engine ct2]
                         [--channel CKPT] [--dictionary PATH] [--gold TSV] [--show]

Each line of ``bench/data/tags.tsv`` is an HTML paragraph with one inline element (``<b>``,
``<em>``, ``<a href>`` ...) and the English words a correct translation may have inside that element.
The paragraphs go through the text pipeline as the app translates HTML
(``pipeline.markup.translate_html`` over ``Pipeline.translate_aligned``), reranked by the noisy
channel with ``--channel`` as the service reranks where both directions are served. An element is **right**
when its output holds at least one listed word and only listed words ("a", "an", "the" and
punctuation aside) and every number of the element's German that the output writes as it is (else
**number left out**: "<em>am 3. Mai um 9 Uhr</em>" -> "<em>at 3 May at the</em> room at 9"),
**whole sentence** when it holds the whole output (where the alignment gives no credible place,
``pipeline.markup`` puts the element around its sentence), **too wide** when it also holds other
words (it took in words of the sentence around it), **empty** when it holds no word at all,
**wrong** otherwise. Prints the counts and, with --show, every element that is not
right. The pipeline has the dictionary (``--dictionary``) as the app has it: its coverage check
picks among the beam's hypotheses, and the markup checks tags against it.

``--gold tests/data/alignment_gold.tsv`` puts ``<b>`` around every stretch of one to four words of
each hand-aligned sentence instead (not the whole sentence), forces the model to the gold English
(no search: the alignment is the model's, as served, of that output) and judges each element by
the gold links: **right** when the words inside are linked to the element's words (or to none)
and all of those are inside, **part** when some of them are outside, **whole sentence**, **too
wide** when it also holds words linked only to words around it, **other words** when it holds
only those, **empty**.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))   # bench/alignment.py reads the gold

from commands import cli  # noqa: E402
from model.search.options import SERVED  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "tags.tsv"
WORD = re.compile(r"\w+")
TAG = re.compile(r"<([a-z]+)[^<>]*>")
FREE = frozenset(("a", "an", "the"))
VERDICTS = ("right", "number left out", "whole sentence", "too wide", "empty", "wrong")
DIGITS = re.compile(r"[0-9]+")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = cli.make_parser("bench/tags.py", __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p, default="ct2")
    p.add_argument("--data", default=str(DEFAULT_DATA), help="HTML<TAB>words (default: %(default)s)")
    cli.add_search_args(p)
    cli.add_channel_args(p)
    cli.add_dictionary_arg(p)
    p.add_argument("--gold", metavar="TSV", help="hand-aligned sentences (bench/alignment.py's format): every "
                                                  "stretch of 1-4 words in <b>, judged by the gold links")
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


def verdict(text: str | None, allowed: frozenset[str], output: str = "", source: str = "") -> str:
    """How the element's ``text`` in ``output`` (the paragraph as translated) renders its words,
    ``source`` (the element's German)."""
    words = [w for w in WORD.findall((text or "").lower()) if w not in FREE]
    if not words:
        return "empty"
    plain = re.sub(r"<[^<>]*>", "", output)
    listed = sum(w in allowed for w in words)
    if listed == len(words):
        written = DIGITS.findall(plain)
        held = DIGITS.findall(text or "")
        return "number left out" if any(n in written and n not in held for n in DIGITS.findall(source)) else "right"
    if words == [w for w in WORD.findall(plain.lower()) if w not in FREE]:
        return "whole sentence"
    return "too wide" if listed else "wrong"


GOLD_VERDICTS = ("right", "part", "whole sentence", "too wide", "other words", "empty")
GOLD_WORD = re.compile(r"\w+|[^\w\s]")   # bench/alignment.py's words: the gold's links count these


def gold_cases(german: str) -> list[tuple[str, list[int]]]:
    """``german`` (a gold sentence) with ``<b>`` around each stretch of one to four of its words that
    neither starts nor ends with punctuation and is not the whole sentence, and the stretch's words."""
    words = [m.span() for m in GOLD_WORD.finditer(german)]
    wordy = [any(ch.isalnum() for ch in german[s:e]) for s, e in words]
    whole = {k for k, w in enumerate(wordy) if w}
    cases = []
    for size in range(1, 5):
        for first in range(len(words) - size + 1):
            last = first + size - 1
            if wordy[first] and wordy[last] and not whole <= set(range(first, last + 1)):
                start, end = words[first][0], words[last][1]
                cases.append((f"<p>{german[:start]}<b>{german[start:end]}</b>{german[end:]}</p>",
                              list(range(first, last + 1))))
    return cases


def gold_verdict(english: str, links: set[tuple[int, int]], stretch: list[int], output: str) -> str:
    """The verdict on ``output``'s ``<b>`` (``english`` with its tags) for the German words ``stretch``."""
    found = re.search(r"<b>(.*?)</b>", output, re.DOTALL)
    if found is None:
        return "empty"
    start = len(re.sub(r"<[^<>]*>", "", output[:found.start()]))
    end = start + len(found[1])
    words = [(k, span) for k, span in enumerate(m.span() for m in GOLD_WORD.finditer(english))
             if any(ch.isalnum() for ch in english[span[0]:span[1]])]
    placed = {k for k, (s, e) in words if s >= start and e <= end}
    own = {t for t, s in links if s in stretch}
    others = {t for t, s in links if s not in stretch} - own
    if not placed:
        return "empty"
    if placed >= {k for k, _ in words} and len(words) > len(own & placed):
        return "whole sentence"
    if placed & others:
        return "too wide" if placed & own else "other words"
    return "part" if {k for k, _ in words} & own - placed else "right"


def _gold(args: argparse.Namespace) -> int:
    from alignment import read_gold
    from pipeline.markup import translate_html

    gold = read_gold(args.gold)
    translator = cli.load_translator(args)
    forced = translator.align([g.german for g in gold], [translator.tokenizer.encode(g.english) for g in gold])
    by_source = {g.german: aligned for g, aligned in zip(gold, forced) if aligned.target == g.english}
    coverage = cli.load_coverage(args)
    counts = dict.fromkeys(GOLD_VERDICTS, 0)
    for g in gold:
        if g.german not in by_source:   # the tokenizer writes the English otherwise: no gold words to compare
            continue
        cases = gold_cases(g.german)
        outputs = translate_html([doc for doc, _ in cases], lambda texts: [by_source[t] for t in texts],
                                 dictionary=coverage)
        for (doc, stretch), output in zip(cases, outputs):
            result = gold_verdict(g.english, g.possible, stretch, output.removeprefix("<p>").removesuffix("</p>"))
            counts[result] += 1
            if args.show and result != "right":
                print(f"{result:14}  {doc}\n                {output}")
    print(f"{Path(args.checkpoint).name}, {args.engine}, {Path(args.gold).name}: {sum(counts.values())} elements: "
          + ", ".join(f"{counts[v]} {v}" for v in GOLD_VERDICTS))
    return 0


def _main(argv: list[str] | None) -> int:
    from pipeline.markup import translate_html
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    if args.gold:
        return _gold(args)
    cases = read_cases(args.data)
    coverage = cli.load_coverage(args)
    pipeline = Pipeline(cli.load_translator(args), Options(search=args.search), cli.load_places(args), coverage)
    outputs = translate_html([markup for markup, _ in cases], pipeline.translate_aligned, dictionary=coverage)
    counts = dict.fromkeys(VERDICTS, 0)
    for (markup, allowed), output in zip(cases, outputs):
        text = inside(markup, output)
        result = verdict(text, allowed, output, inside(markup, markup) or "")
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
