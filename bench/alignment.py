"""Word alignment quality of cross-attention against a hand-aligned gold set, per decoder layer and head.

    python bench/alignment.py [--checkpoint CKPT] [--gold tests/data/alignment_gold.tsv] [--json FILE]

The gold file holds ``german<TAB>english<TAB>links`` lines (``#`` starts a comment). Links are
``t-s`` (sure) or ``t?s`` (possible) pairs of word indices, target first, where words are the
runs of letters/digits and the single other non-space characters (``\\w+|[^\\w\\s]``), so the gold
does not depend on any model's vocabulary. The model is forced to the gold English (for the
shipped model that is its own greedy output, which the gold was written for; the header says for
how many sentences that holds), each attention variant links every target word to a source word
(``model.inference.alignment.align_words``), and its word links are mapped to gold words by character
overlap. Scores (Och & Ney 2003), over all sentences: precision |A∩P|/|A|, recall |A∩S|/|S|,
F1 of the two, and alignment error rate AER = 1 - (|A∩S| + |A∩P|) / (|A| + |S|); lower AER is better.

Rows: every decoder layer (mean over its heads), every single head, the mean of all layers, and
the default of ``model.inference.alignment`` (``DEFAULT_LAYERS``); the scores of the links of both directions
(the default of ``align_words``) come first, then F1 and AER of target-to-source links only.
--json also writes the rows as JSON.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from commands import cli  # noqa: E402

GOLD_WORD = re.compile(r"\w+|[^\w\s]")
LINK = re.compile(r"(\d+)([-?])(\d+)")


@dataclass
class Gold:
    german: str
    english: str
    sure: set[tuple[int, int]]
    possible: set[tuple[int, int]]  # sure links included


def gold_words(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in GOLD_WORD.finditer(text)]


def read_gold(path: str | Path) -> list[Gold]:
    """The gold file's sentences; a malformed line is a ValueError naming it."""
    items: list[Gold] = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise ValueError(f"{path}:{number}: expected 3 tab-separated fields, got {len(fields)!r}")
        german, english, links = fields
        sure, possible = set(), set()
        n_tgt, n_src = len(gold_words(english)), len(gold_words(german))
        for token in links.split():
            m = LINK.fullmatch(token)
            if not m or int(m[1]) >= n_tgt or int(m[3]) >= n_src:
                raise ValueError(f"{path}:{number}: bad link {token!r} ({n_tgt!r} target, {n_src!r} source words)")
            pair = (int(m[1]), int(m[3]))
            possible.add(pair)
            if m[2] == "-":
                sure.add(pair)
        items.append(Gold(german, english, sure, possible))
    if not items:
        raise ValueError(f"{path}: no gold sentences")
    return items


def to_gold(links, src_spans, tgt_spans, src_gold, tgt_gold) -> set[tuple[int, int]]:
    """Model word links -> gold word links: every pair of gold words overlapping the two words."""
    def overlapping(span, gold):
        return [i for i, (a, b) in enumerate(gold) if a < span[1] and span[0] < b]
    return {(tg, sg) for t, s in links for tg in overlapping(tgt_spans[t], tgt_gold)
            for sg in overlapping(src_spans[s], src_gold)}


def score(predicted: list[set], gold: list[Gold]) -> dict[str, float]:
    a = sum(len(p) for p in predicted)
    s = sum(len(g.sure) for g in gold)
    a_s = sum(len(p & g.sure) for p, g in zip(predicted, gold))
    a_p = sum(len(p & g.possible) for p, g in zip(predicted, gold))
    precision, recall = a_p / max(a, 1), a_s / max(s, 1)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "aer": 1 - (a_s + a_p) / max(a + s, 1)}


def evaluate(translator, gold: list[Gold]) -> tuple[list[dict], int]:
    """Score rows for every variant, and how many gold outputs are the model's own greedy output."""
    from model.inference import alignment as al

    tok = translator.tokenizer
    src = [al.source_words(tok, g.german) for g in gold]
    out_ids = [tok.encode(g.english) for g in gold]
    tgt = [al.target_words(tok, ids) for ids in out_ids]
    cross = al.cross_attention(translator.model, [s[0] for s in src], out_ids)
    own = sum(a == g.english for a, g in zip(translator.translate([g.german for g in gold]), gold))
    L, H = cross[0].shape[:2]
    default = "all layers" if al.DEFAULT_LAYERS is None else f"layers {list(al.DEFAULT_LAYERS)}"
    variants = [(f"layer {layer}", [layer], None) for layer in range(L)]
    variants += [(f"layer {layer} head {head}", [layer], [head]) for layer in range(L) for head in range(H)]
    variants += [("all layers", None, None), (f"default: {default}", al.DEFAULT_LAYERS, None)]
    rows = []
    for name, layers, heads in variants:
        row: dict = {"variant": name}
        for key, bidirectional in (("", True), ("forward_", False)):
            predicted = []
            for g, (_, s_spans, s_pw), (_, t_spans, t_pw), c in zip(gold, src, tgt, cross):
                links = al.align_words(al.reduce_cross(c, layers, heads), s_pw, t_pw, bidirectional=bidirectional)
                predicted.append(to_gold(links, s_spans, t_spans, gold_words(g.german), gold_words(g.english)))
            row.update({key + k: v for k, v in score(predicted, gold).items()})
        rows.append(row)
    return rows, own


def main(argv=None) -> int:
    p = cli.make_parser("bench/alignment.py", __doc__)
    cli.add_model_args(p)
    p.add_argument("--gold", default=str(ROOT / "tests" / "data" / "alignment_gold.tsv"),
                   help="hand-aligned gold file (default: tests/data/alignment_gold.tsv)")
    p.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    gold = read_gold(args.gold)
    translator = cli.load_translator(args)
    rows, own = evaluate(translator, gold)
    n_sure = sum(len(g.sure) for g in gold)
    n_possible = sum(len(g.possible - g.sure) for g in gold)
    print(f"alignment of {len(gold)} gold sentences ({n_sure} sure, {n_possible} possible links); "
          f"{own}/{len(gold)} gold outputs are the model's greedy output")
    print(f"{'variant':<22} {'precision':>9} {'recall':>7} {'F1':>6} {'AER':>6}   forward only: {'F1':>6} {'AER':>6}")
    for r in rows:
        print(f"{r['variant']:<22} {r['precision']:>9.3f} {r['recall']:>7.3f} {r['f1']:>6.3f} {r['aer']:>6.3f}"
              f"   {'':>13} {r['forward_f1']:>6.3f} {r['forward_aer']:>6.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"sentences": len(gold), "own_outputs": own, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main, None, prog="bench/alignment.py"))
