"""German words left in English output: how many lines copy a source word that the English lacks.

    python -m commands.translate --engine ct2 --channel checkpoints/en-de.pt < news.de > served.en
    python -m commands.translate --engine ct2 --raw < news.de > bare.en
    python bench/german_left.py --src news.de --ref news.en --hyp served=served.en --hyp bare=bare.en

A line **leaves German** where its output has a word of its source (``--min-letters`` letters or
more, compared as written) that no reference of the line has, and that word reads as German: the
Ding dictionary knows it or its lemma as a word, not a place (``pipeline.coverage.Coverage.reads``),
or both parts of it as a compound (``Coverage.compound``: "Akku|packs"), and its English side does
not know it as an English word ("Internet", "Trainer" are both). A word of the first-name or surname tables
(``pipeline/tables/``) is a name, not counted. Lines copying only words Ding cannot read (names,
brands, code) are counted apart, as ``other copied``. For each output: those counts, chrF against
the references (sacreBLEU; for each output after the first, the paired bootstrap's p-value against
the first), and the words most often left. The pipeline must never leave more
German than the bare model does (issue "No German left in the English").
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.outputs import add_outputs, bootstrap_p, parse_outputs, read_lines

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")



def copied(source: str, output: str, references: list[str], min_letters: int) -> list[str]:
    """The words of ``source`` (``min_letters`` or more) that ``output`` has and no reference has."""
    said = {w for r in references for w in _WORD.findall(r)}
    out = set(_WORD.findall(output))
    return sorted({w for w in _WORD.findall(source) if len(w) >= min_letters and w in out and w not in said})


def count(sources, outputs, references, german_word, names, min_letters: int) -> dict:
    german, other, left, where = 0, 0, Counter(), []
    for k, (source, output) in enumerate(zip(sources, outputs)):
        words = [w for w in copied(source, output, [r[k] for r in references], min_letters) if w not in names]
        read = [w for w in words if german_word(w)]
        german += bool(read)
        other += bool(words) and not read
        left.update(read)
        if read:
            where.append({"line": k + 1, "words": read})
    return {"lines": len(sources), "german_left": german, "other_copied": other,
            "most_left": [f"{w} ({n})" for w, n in left.most_common(8)], "where": where}


def _p(result: dict) -> str:
    if "p" not in result:
        return ""
    return " (as the first)" if result["p"] is None else f" (p {result['p']:.3f} against the first)"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--src", required=True, help="the German sources, one a line")
    p.add_argument("--ref", required=True, action="append", help="English references, line-aligned (repeat)")
    p.add_argument("--min-letters", type=int, default=5)
    p.add_argument("--dictionary", help="the Ding dictionary (default: $DICTIONARY_PATH or trans-de-en's)")
    p.add_argument("--show", action="store_true", help="also list each line that leaves German: number, words, output")
    add_outputs(p)
    return parse_outputs(p, argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    import sacrebleu

    from commands.cli import dictionary_path
    from model.data.ding import load_dictionary
    from pipeline import tables
    from pipeline.coverage import Coverage

    path = dictionary_path(args)
    if path is None:
        print("german_left: no dictionary: install trans-de-en or give --dictionary", file=sys.stderr)
        return 2
    coverage, english = Coverage.of(load_dictionary(path)), load_dictionary(path, "en")

    def german_word(word: str) -> bool:
        return ((coverage.reads(word) or coverage.compound(word) is not None) and not coverage.place(word)
                and not english.lookup(word) and not english.lookup(word.lower()))
    names = frozenset(tables.words("first_names")) | frozenset(tables.words("surnames"))
    sources, references = read_lines(args.src), [read_lines(r) for r in args.ref]
    result, texts, first = {}, {}, None
    for hyp in args.hyp:
        name, _, path = hyp.partition("=")
        outputs = read_lines(path)
        if len(outputs) != len(sources) or any(len(r) != len(sources) for r in references):
            print(f"german_left: {path} or a reference has not {len(sources)} lines as {args.src}", file=sys.stderr)
            return 2
        texts[name] = outputs
        result[name] = count(sources, outputs, references, german_word, names, args.min_letters)
        result[name]["chrf"] = round(sacrebleu.corpus_chrf(outputs, references).score, 2)
        if first is None:
            first = outputs
        else:   # the paired bootstrap of its chrF against the first output's
            result[name]["p"] = bootstrap_p(first, [outputs], references)[0]
    if args.json:
        print(json.dumps(result))
    else:
        for name, r in result.items():
            print(f"{name:12} {r['german_left']:5} of {r['lines']} lines leave German, {r['other_copied']} copy "
                  f"other words; chrF {r['chrf']:.2f}{_p(r)}; most left: {', '.join(r['most_left'])}")
            if args.show:
                for w in r["where"]:
                    print(f"  {w['line']:5}  {', '.join(w['words'])}: {texts[name][w['line'] - 1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
