"""Which alternatives the inspector offers for a word, and how many of them read as English, by
the score margin of ``app.inspection.CompletionOptions``.

    python bench/alternatives.py [--checkpoint CKPT] [--sentences TSV] [--judged TSV] [--positions 2]
                                 [--threads 1] [--json FILE]

For every German sentence of ``--sentences`` (a TSV: set name, German), the app on the checkpoint
(``create_app``, ``BEAM_SIZE=4``, as served) translates it (/translate), and for the word starts
after each of its first ``--positions`` words asks /api/complete for ``n = 6`` completions of the
translation up to there, as the translate page does when that word is clicked, without a score
margin. The alternatives are what the page would list: the first completion of each other word
(``app/inspection.py``'s ``word_at``), at most five. Each is looked up in ``--judged`` (a TSV:
German, prefix, alternative, ``ok`` or ``bad``: read by a person as English or not) and the table
says, for each margin, how many judged alternatives would be offered and how many of those read
as English. Alternatives nobody judged yet are written to stdout (``?``) for a person to judge.

A second table: a time the translation ends with, as a prefix ("I lost my key yesterday." gives
"Yesterday ", "We got up late this morning." "This morning "): how many completions come (n = 6,
the served margin) and how many of them say that time again.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SENTENCES = ROOT / "bench" / "data" / "alternatives_sentences.tsv"
JUDGED = ROOT / "bench" / "data" / "alternatives_judged.tsv"
MARGINS = (5.0, 4.0, 3.5, 3.0, 2.5, 2.0)  # 5: the margin before issue 44
DAYS = {"yesterday", "today", "tomorrow", "tonight", "later", "now"}
PERIODS = {"morning", "afternoon", "evening", "night", "week", "month", "year", "summer", "winter"}
BEFORE_PERIODS = {"this", "last", "next", "every"}  # "this morning", "last week"
SHOWN = 5      # alternatives the page lists (static/alternatives.js, MAX_ALTERNATIVES)
ASKED = SHOWN + 1  # completions it asks for


def word_starts(translation: str) -> list[int]:
    """Where each space-separated word of ``translation`` starts."""
    return [m.start() for m in re.finditer(r"\S+", translation)]


def alternatives(completions: list[dict], prefix: str, current: str, head) -> list[tuple[str, float]]:
    """(text, score gap to the best) of what the page lists for ``current``: each other word's
    first completion (``head`` gives a completion's word), best first, at most ``SHOWN``."""
    if not completions:
        return []
    best = completions[0]["score"]
    seen = {head(prefix + current, len(prefix)).casefold()}
    found = []
    for c in completions:
        word = head(c["text"], len(prefix)).casefold()
        if word not in seen and c["text"].strip():
            seen.add(word)
            found.append((c["text"], round(best - c["score"], 4)))
    return found[:SHOWN]


def fronted_time(translation: str) -> str | None:
    """The time ``translation`` ends with ("yesterday", "this morning": a word of ``DAYS``, or
    one of ``PERIODS`` after a word of ``BEFORE_PERIODS``), capitalized, as a prefix ("This
    morning "); None if it ends otherwise."""
    words = re.findall(r"[^\W\d_]+", translation)
    if not words or not re.search(rf"{re.escape(words[-1])}\W*$", translation):
        return None
    last = [w.casefold() for w in words[-2:]]
    if last[-1] in DAYS:
        return words[-1].capitalize() + " "
    if last[-1] in PERIODS and len(last) == 2 and last[0] in BEFORE_PERIODS:
        return " ".join(words[-2:]).capitalize() + " "
    return None


def margin_table(rows: list[dict]) -> list[dict]:
    """Per margin in ``MARGINS``: judged alternatives offered, those judged ok, and the positions
    (German, prefix) left with at least one alternative and with at least one ok one."""
    table = []
    for margin in MARGINS:
        kept = [r for r in rows if r["gap"] <= margin and r["verdict"] in ("ok", "bad")]
        ok = [r for r in kept if r["verdict"] == "ok"]
        table.append({"margin": margin, "offered": len(kept), "ok": len(ok),
                      "share_ok": round(len(ok) / len(kept), 3) if kept else None,
                      "positions": len({(r["german"], r["prefix"]) for r in kept}),
                      "positions_ok": len({(r["german"], r["prefix"]) for r in ok})})
    return table


def read_judged(path: Path) -> dict[tuple[str, str, str], str]:
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as f:
        return {(g, p, a): v for g, p, a, v in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/alternatives.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "de-en.pt"))
    parser.add_argument("--sentences", default=str(SENTENCES))
    parser.add_argument("--judged", default=str(JUDGED))
    parser.add_argument("--positions", type=int, default=2, help="word starts per sentence, after word 1, 2, ...")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", help="also write the tables to this file")
    args = parser.parse_args(argv)
    if args.positions < 1 or args.threads < 1:
        parser.error("--positions and --threads must be >= 1")

    from app import create_app, inspection
    from app.settings import DEFAULTS

    served = inspection.COMPLETIONS
    every = inspection.CompletionOptions(score_margin=math.inf)  # every completion: the bench decides
    app = create_app({**DEFAULTS, "MODEL_PATH": args.checkpoint, "CORPUS_PATH": "", "DEVICE": "cpu",
                      "TORCH_THREADS": args.threads, "TESTING": True, "TRANSLATION_CACHE": 0})
    client = app.test_client()
    judged = read_judged(Path(args.judged))
    with open(args.sentences, encoding="utf-8") as f:
        sentences = [line.rstrip("\n").split("\t") for line in f if line.strip()]

    def post(path: str, **body):
        response = client.post(path, json=body)
        if response.status_code != 200:
            raise SystemExit(f"bench/alternatives.py: error: {path} answered {response.status_code}: "
                             f"{response.get_json()}")
        return response.get_json()

    rows, fronted = [], []
    for name, german in sentences:
        translation = post("/translate", q=german, source="de", target="en")["translatedText"]
        inspection.COMPLETIONS = every
        for start in word_starts(translation)[1:args.positions + 1]:
            prefix = translation[:start]
            current = translation[start:].split(" ")[0]
            completions = post("/api/complete", q=german, prefix=prefix, n=ASKED)["completions"]
            for text, gap in alternatives(completions, prefix, current, inspection.word_at):
                verdict = judged.get((german, prefix, text), "?")
                rows.append({"set": name, "german": german, "prefix": prefix, "text": text, "gap": gap,
                             "verdict": verdict})
                if verdict == "?":
                    print(f"?\t{german}\t{prefix}\t{text}\t{gap}")
        inspection.COMPLETIONS = served
        prefix = fronted_time(translation)
        if prefix:
            time = prefix.split()[-1]
            completions = post("/api/complete", q=german, prefix=prefix, n=ASKED)["completions"]
            again = [c["text"] for c in completions
                     if len(re.findall(rf"\b{re.escape(time)}\b", c["text"], re.IGNORECASE)) > 1]
            fronted.append({"german": german, "prefix": prefix, "completions": len(completions),
                            "again": len(again), "examples": [c["text"] for c in completions[:2]]})

    unjudged = sum(r["verdict"] == "?" for r in rows)
    print(f"checkpoint {args.checkpoint}; {len(sentences)} sentences, {args.positions} word starts each; "
          f"{len(rows)} alternatives ({unjudged} not judged); load average {os.getloadavg()[0]:.2f}")
    for name in sorted({r["set"] for r in rows}) + ["all"]:
        chosen = [r for r in rows if name in ("all", r["set"])]
        print(f"\n{name}: margin, offered, ok, share ok, positions with an alternative, with an ok one")
        for line in margin_table(chosen):
            share = "-" if line["share_ok"] is None else f"{line['share_ok']:.2f}"
            print(f"  {line['margin']:>4}  {line['offered']:>4}  {line['ok']:>4}  {share:>5}  "
                  f"{line['positions']:>4}  {line['positions_ok']:>4}")
    total, again = sum(f["completions"] for f in fronted), sum(f["again"] for f in fronted)
    print(f"\na time fronted: {len(fronted)} prefixes, {total} completions, {again} say the time again, "
          f"{sum(f['completions'] < 2 for f in fronted)} prefixes with fewer than 2 completions")
    for f in fronted:
        print(f"  {f['prefix']!r}: {f['completions']} completions, {f['again']} again; {f['examples']}")
    if args.json:
        report = {"rows": rows, "tables": {name: margin_table([r for r in rows if name in ("all", r["set"])])
                                           for name in sorted({r["set"] for r in rows}) + ["all"]},
                  "fronted": fronted}
        Path(args.json).write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
