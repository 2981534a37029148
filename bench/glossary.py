"""How often does a translation use the glossary's English term? With and without the glossary.

    python bench/glossary.py [--checkpoint CKPT] [--engine torch|ct2] [--data bench/data/glossary.tsv]
                             [--beam 4] [--ding /usr/share/trans/de-en] [--show]

Translates German sentences with glossary terms in various inflected forms
(``bench/data/glossary.tsv``: German, the German term, its English term, and ``sg`` or ``pl``: the
number the English term must take there) through the text pipeline, without a glossary and with
one glossary made of all the file's terms (``pipeline.glossary.Glossary``, noun plurals from the
Ding dictionary at ``--ding``; ``--ding ''``: German rules only). Prints, for each:

* **term used**: the English term (as given or its plural, ``english_plural``) occurs in the
  output as whole words, ignoring case;
* **right number**: the form the last column asks for occurs (singular: the term as given and not
  its plural; plural: the plural);
* with the glossary, **placed by the model**: the terms' placeholders the model wrote itself; the
  others it left out, and the pipeline put them back where the word alignment points
  (``pipeline.words.insert_placeholder``), which is not always a grammatical place.

``--show`` prints every sentence whose output with the glossary lacks the term or its number.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from commands import cli  # noqa: E402
from model.search.options import SERVED  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "glossary.tsv"
DING = "/usr/share/trans/de-en"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = cli.make_parser("bench/glossary.py", __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p)
    p.add_argument("--data", default=str(DEFAULT_DATA),
                   help="German<TAB>term<TAB>English term<TAB>sg|pl (default: %(default)s)")
    cli.add_search_args(p)
    p.add_argument("--ding", default=DING, help="Ding dictionary for noun plurals; '' = rules only (default: %(default)s)")
    p.add_argument("--show", action="store_true", help="print the sentences that miss the term or its number")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    args.search = cli.search_options(p, args, SERVED)
    return args


def read_cases(path: str) -> list[tuple[str, str, str, str]]:
    cases = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 4 or fields[3] not in ("sg", "pl") or not all(f.strip() for f in fields):
            raise ValueError(f"{path}:{number}: expected German<TAB>term<TAB>English<TAB>sg|pl, got {line!r}")
        cases.append((fields[0], fields[1], fields[2], fields[3]))
    return cases


def has(output: str, words: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(words)}(?!\w)", output, re.IGNORECASE) is not None


def judge(output: str, english: str, number: str) -> tuple[bool, bool]:
    """(term used, right number) of one output."""
    from pipeline.inflection import english_plural

    plural = english_plural(english)
    used = has(output, english) or has(output, plural)
    if plural == english:
        return used, used
    right = has(output, plural) if number == "pl" else has(output.lower().replace(plural.lower(), ""), english)
    return used, right


def _main(argv: list[str] | None) -> int:
    from pipeline.glossary import Glossary
    from pipeline.inflection import Inflections
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    cases = read_cases(args.data)
    entries: dict[str, str] = {}
    for _, term, english, _ in cases:
        if entries.setdefault(term, english) != english:
            raise ValueError(f"{term!r} has two English terms: {entries[term]!r}, {english!r}")
    inflections = Inflections.from_path(args.ding)
    glossary = Glossary(entries, inflections)
    pipeline = Pipeline(cli.load_translator(args), Options(search=args.search))
    texts = [german for german, *_ in cases]
    without = pipeline.translate(texts)
    plan = pipeline.plan(texts, glossary)  # Pipeline.translate(texts, glossary=glossary), by its stages
    outputs = pipeline.model_outputs(plan.sources, False)
    with_glossary = [aligned.target for aligned in pipeline.assemble(plan, outputs)]
    expected = written = 0
    for (chunk, _), source, output in zip(plan.units, plan.sources, outputs):
        for symbol in chunk.masked.glossary:
            expected += source.count(symbol)
            written += min(source.count(symbol), output.target.count(symbol))
    total = len(cases)
    source = "Ding + rules" if inflections.available else "rules only"
    print(f"{total} sentences, {len(entries)} terms, beam {args.beam}, noun forms: {source}")
    for label, outputs in (("without glossary", without), ("with glossary", with_glossary)):
        verdicts = [judge(out, english, number) for out, (_, _, english, number) in zip(outputs, cases)]
        used = sum(u for u, _ in verdicts)
        right = sum(r for _, r in verdicts)
        print(f"{label:17s} term used {used}/{total} ({100 * used / total:.1f}%), "
              f"right number {right}/{total} ({100 * right / total:.1f}%)")
    print(f"placed by the model: {written}/{expected} terms ({100 * written / max(1, expected):.1f}%; "
          "the others put back by the word alignment)")
    if args.show:
        for (german, term, english, number), out in zip(cases, with_glossary):
            used, right = judge(out, english, number)
            if not (used and right):
                print(f"  {german}  [{term} -> {english}, {number}]\n    {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog="bench/glossary.py")


if __name__ == "__main__":
    sys.exit(main())
