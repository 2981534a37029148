"""Harm in translations: lines whose negations do not match their source's, lines with a profane word
their source has not (``pipeline.harm``), and chrF, for several outputs of the same sources.

    python -m commands.translate --engine ct2 --channel checkpoints/en-de.pt < news.de > on.en
    python -m commands.translate --engine ct2 --channel checkpoints/en-de.pt --checks= < news.de > off.en
    python bench/harm.py --source de --src news.de --ref news.en --hyp checks=on.en --hyp none=off.en

``--source`` is the sources' language (de or en). A line **changes a negation** where
``pipeline.negation.changed`` finds one lost or added, and **adds profanity** where
``pipeline.profanity.excess`` finds a word stronger than any of its source. The references are
counted too: what a human translation "changes" by these measures is the measures' own noise
(idioms: "Nichts zu danken" / "You're welcome").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.outputs import add_outputs, parse_outputs, read_lines



def count(sources: list[str], outputs: list[str], source_language: str) -> dict:
    from pipeline.negation import changed
    from pipeline.profanity import excess

    negation = [k for k, (s, o) in enumerate(zip(sources, outputs)) if changed(s, o, source_language)]
    profanity = [k for k, (s, o) in enumerate(zip(sources, outputs)) if excess(s, o, source_language)]
    return {"lines": len(sources), "negation": len(negation), "profanity": len(profanity),
            "negation_lines": negation[:20], "profanity_lines": profanity[:20]}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", required=True, choices=("de", "en"), help="the sources' language")
    p.add_argument("--src", required=True, help="the sources, one a line")
    p.add_argument("--ref", required=True, help="the references, line-aligned")
    add_outputs(p)
    return parse_outputs(p, argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    import sacrebleu

    sources, references = read_lines(args.src), read_lines(args.ref)
    if len(references) != len(sources):
        print(f"harm: {args.ref} has {len(references)} lines, {args.src} {len(sources)}", file=sys.stderr)
        return 2
    result = {"reference": count(sources, references, args.source)}
    for hyp in args.hyp:
        name, _, path = hyp.partition("=")
        outputs = read_lines(path)
        if len(outputs) != len(sources):
            print(f"harm: {path} has {len(outputs)} lines, {args.src} {len(sources)}", file=sys.stderr)
            return 2
        result[name] = count(sources, outputs, args.source)
        result[name]["chrf"] = round(sacrebleu.corpus_chrf(outputs, [references]).score, 2)
    if args.json:
        print(json.dumps(result))
    else:
        for name, r in result.items():
            chrf = f"; chrF {r['chrf']:.2f}" if "chrf" in r else ""
            print(f"{name:10} of {r['lines']} lines: {r['negation']} change a negation, {r['profanity']} add "
                  f"profanity{chrf}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
