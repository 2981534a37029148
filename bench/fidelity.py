"""Fidelity of the text pipeline on our own test sentences, and what the pipeline costs in time.

    python bench/fidelity.py --checkpoint CKPT [--engine ct2] [--beam 4] [--json FILE] [--show]
    python bench/fidelity.py --checkpoint CKPT --overhead [--sentences 1000] [--corpus FILE]
                             [--repeats 3] [--json FILE]

Report (default): the texts of bench/fidelity_sentences.tsv (``--cases`` for another file; columns
category, German text, and for "caps" the same text in normal case) are translated twice: through
``pipeline.translation.Pipeline`` (HTML through ``pipeline.markup.translate_html``) and by the bare
model (``Translator.translate`` on the raw text; an input over the model's length limit counts as
failed). Checks per category:

* numbers, spans: every protected span (``pipeline.rules.verbatim.find_spans``) appears in the output in its
  English form (``replacement``: numbers in English notation, everything else verbatim), as a whole
  token (``1,450`` does not count inside ``21,450``; ``x@y.dePlease`` is a broken address);
* caps: the output is ALL CAPS (for ALL-CAPS input) or title case (for Title Case input); also
  reported, not checked: chrF between the lower-cased outputs for the styled and the normal-case
  input, i.e. whether styled input is translated as well as normal input (100 = the same words);
* html: every start tag of the input is in the output byte for byte, the output is well formed
  (every end tag closes the innermost open element, none left open), and the text was translated;
* long: output words >= 0.6 x input words, no loop (``pipeline.segment.has_loop``), spans kept.

--show prints every failed case: system, input, output and what is missing.

Overhead (--overhead): N German sentences (--corpus: any corpus ``model.data.read_pairs`` reads,
taken evenly spread; default: the numbers/spans/caps texts above, cycled) are translated through the
pipeline and by the bare model with the same beam, length penalty and batch size, alternating which
goes first, --repeats times; medians are printed. The pipeline run is timed in its stages (the same
calls as ``Pipeline.translate``): planning (segmentation, spans, casing, clause cuts) and assembling
(placeholder repair, styling, restoring, layout) are its text work; the model stage also holds
what the pipeline makes the model do beyond the bare run (more, shorter inputs where spans cut a
sentence; retries; re-alignment). Target: text work <= 5% of the bare model's time.

Table on stdout, progress on stderr; --json writes the figures as one JSON object.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from commands import cli  # noqa: E402
from model.search.options import DEFAULT, SERVED  # noqa: E402

CASES = Path(__file__).with_name("fidelity_sentences.tsv")
CATEGORIES = ("numbers", "spans", "caps", "html", "long")
SYSTEMS = ("pipeline", "bare model")
MIN_LENGTH_RATIO = 0.6
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


@dataclass(frozen=True)
class Case:
    category: str
    text: str
    normal: str = ""   # caps: the same text in normal case


def read_cases(path: str | Path) -> list[Case]:
    cases = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if fields[0] not in CATEGORIES or len(fields) != (3 if fields[0] == "caps" else 2):
            raise ValueError(f"{str(path)!r} line {number}: expected one of {', '.join(CATEGORIES)}, a text "
                             f"(and for caps its normal-case form), tab-separated, got {line[:60]!r}")
        cases.append(Case(*fields))
    return cases


# ------------------------------------------------------------------------------------------ checks

def expected_spans(text: str) -> list[str]:
    """What each protected span of ``text`` must become in the English output."""
    from pipeline.rules.verbatim import find_spans
    from pipeline.spans import replacement

    return [replacement(span) for span in find_spans(text)]


def occurrences(item: str, output: str) -> int:
    """How often ``item`` occurs in ``output`` as a whole token: no word character glued to an
    alphanumeric edge, no digit group continuing a number."""
    before = r"(?<!\w)" if item[0].isalnum() else ""
    after = r"(?!\w|[.,][0-9])" if item[-1].isalnum() else ""
    return len(re.findall(before + re.escape(item) + after, output))


def missing_spans(text: str, output: str) -> tuple[int, list[str]]:
    """(number of spans, the expected forms not found), each occurrence counted."""
    expected = expected_spans(text)
    missing = [item for item in dict.fromkeys(expected)
               for _ in range(max(0, expected.count(item) - occurrences(item, output)))]
    return len(expected), missing


class Tags(HTMLParser):
    """Start tags as written, end tag names, well-formedness (void elements aside) and the text of
    a document."""

    def __init__(self, document: str) -> None:
        super().__init__(convert_charrefs=True)
        self.starts: list[str] = []
        self.ends: list[str] = []
        self.problems: list[str] = []
        self.open: list[str] = []
        self.text: list[str] = []
        self.feed(document)
        self.close()
        self.problems += [f"<{name}> not closed" for name in reversed(self.open)]

    def handle_starttag(self, tag, attrs):
        self.starts.append(self.get_starttag_text())
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.starts.append(self.get_starttag_text())

    def handle_endtag(self, tag):
        self.ends.append(tag)
        if self.open and self.open[-1] == tag:
            self.open.pop()
        elif tag not in VOID:
            self.problems.append(f"</{tag}> closes " + (f"<{self.open[-1]}>" if self.open else "nothing"))

    def handle_data(self, data):
        self.text.append(data)


def check(case: Case, output: str | None) -> tuple[list[tuple[str, int, int]], list[str]]:
    """The checks of one case as (name, passed, total), and what failed, in words. An output of
    None (the model refused the input) fails every check."""
    from pipeline.casing import title_case, style
    from pipeline.segment import has_loop, words

    out = output or ""
    checks, notes = [], []
    if case.category in ("numbers", "spans", "long"):
        total, missing = missing_spans(case.text, out)
        if case.category == "long":
            ratio = len(words(out)) / len(words(case.text))
            loop = has_loop(out)
            checks += [(f"length >= {MIN_LENGTH_RATIO}x", int(ratio >= MIN_LENGTH_RATIO), 1),
                       ("no loop", int(not loop), 1)]
            notes += [f"{ratio:.2f}x the input's words"] * (ratio < MIN_LENGTH_RATIO) + ["loops"] * loop
        checks.append((f"{'numbers' if case.category == 'numbers' else 'spans'} kept", total - len(missing), total))
        notes += [f"missing {item!r}" for item in missing]
    elif case.category == "caps":
        wanted = style(case.text)
        ok = out == (out.upper() if wanted == "upper" else title_case(out)) and any(c.isalpha() for c in out)
        checks.append(("style kept", int(ok), 1))
        notes += [] if ok else [f"not {'ALL CAPS' if wanted == 'upper' else 'title case'}"]
    else:
        source, result = Tags(case.text), Tags(out)
        missing = [tag for tag in dict.fromkeys(source.starts)
                   for _ in range(max(0, source.starts.count(tag) - result.starts.count(tag)))]
        # An output without tags is well formed but has lost the structure: end tags must be there too.
        unclosed = [f"</{tag}> missing" for tag in dict.fromkeys(source.ends)
                    for _ in range(max(0, source.ends.count(tag) - result.ends.count(tag)))]
        translated = " ".join("".join(result.text).split()) != " ".join("".join(source.text).split())
        checks += [("tags kept", len(source.starts) - len(missing), len(source.starts)),
                   ("well formed", int(not result.problems and not unclosed), 1), ("translated", int(translated), 1)]
        notes += ([f"missing {tag}" for tag in missing] + result.problems + unclosed
                  + ([] if translated else ["not translated"]))
    if output is None:
        checks, notes = [(name, 0, total) for name, _, total in checks], ["refused by the model"]
    return checks, notes


def evaluate(cases: list[Case], outputs: dict[Case, str | None], normals: dict[Case, str | None]) -> dict:
    """Pass counts per category and check, the overall figure, mean caps chrF and the failures."""
    from sacrebleu import sentence_chrf

    table: dict[str, dict[str, list[int]]] = {c: {} for c in CATEGORIES}
    failures, chrf = [], []
    for case in cases:
        checks, notes = check(case, outputs[case])
        for name, passed, total in checks:
            cell = table[case.category].setdefault(name, [0, 0])
            cell[0] += passed
            cell[1] += total
        if any(passed < total for _, passed, total in checks):
            failures.append({"category": case.category, "input": case.text, "output": outputs[case], "failed": notes})
        if case.category == "caps":
            styled, normal = outputs[case], normals[case]
            chrf.append(sentence_chrf((styled or "").lower(), [(normal or "").lower()]).score)
    passed = sum(p for checks in table.values() for p, _ in checks.values())
    total = sum(t for checks in table.values() for _, t in checks.values())
    return {"checks": {c: checks for c, checks in table.items() if checks}, "passed": passed, "total": total,
            "caps_chrf": round(statistics.mean(chrf), 1) if chrf else None, "failures": failures}


# ------------------------------------------------------------------------------------- translating

def bare_translate(translator, texts: list[str], search) -> list[str | None]:
    """The model on the raw texts; None for a text it refuses (too long)."""
    try:
        return list(translator.translate(texts, search))
    except ValueError:  # one text over the limit fails the batch: find which, one by one
        outputs: list[str | None] = []
        for text in texts:
            try:
                outputs.append(translator.translate([text], search)[0])
            except ValueError:
                outputs.append(None)
        return outputs


def run_system(system: str, cases: list[Case], translator, pipeline, bare) -> tuple[dict, dict]:
    """Outputs for every case and for the normal-case forms of the caps cases; the bare model
    searches with ``bare``."""
    from pipeline.markup import translate_html

    plain = [c for c in cases if c.category != "html"]
    html = [c for c in cases if c.category == "html"]
    texts = [c.text for c in plain] + [c.normal for c in plain if c.normal]
    if system == "pipeline":
        done = pipeline.translate(texts) + translate_html([c.text for c in html], pipeline.translate_aligned)
    else:
        done = bare_translate(translator, texts + [c.text for c in html], bare)
    it = iter(done)
    outputs = {c: next(it) for c in plain}
    normals = {c: next(it) for c in plain if c.normal}
    outputs.update({c: next(it) for c in html})
    return outputs, normals


def print_report(reports: dict[str, dict], cases: list[Case], header: str) -> None:
    print(header)
    print(f"{'category':<9} {'texts':>5}  {'check':<17} " + "".join(f"{s:>18}" for s in SYSTEMS))

    def cell(p: int, t: int) -> str:
        return f"{p}/{t} {100 * p / t:5.1f}%" if t else "-"

    first = reports[SYSTEMS[0]]["checks"]
    for category, checks in first.items():
        count = sum(c.category == category for c in cases)
        for k, name in enumerate(checks):
            label = f"{category:<9} {count:>5}" if k == 0 else " " * 15
            cells = [cell(*reports[s]["checks"][category][name]) for s in SYSTEMS]
            print(f"{label}  {name:<17} " + "".join(f"{c:>18}" for c in cells))
        if category == "caps":
            chrf = [reports[s]["caps_chrf"] for s in SYSTEMS]
            print(" " * 15 + f"  {'chrF vs normal':<17} " + "".join(f"{c:>18.1f}" for c in chrf))
    print(f"{'overall':<9} {len(cases):>5}  {'all checks':<17} "
          + "".join(f"{cell(reports[s]['passed'], reports[s]['total']):>18}" for s in SYSTEMS))


def show_failures(reports: dict[str, dict]) -> None:
    for system in SYSTEMS:
        for failure in reports[system]["failures"]:
            print(f"\n[{system}] {failure['category']}: {'; '.join(failure['failed'])}\n"
                  f"  in:  {_clip(failure['input'])}\n  out: {_clip(failure['output'])}")


def _clip(text: str | None, limit: int = 300) -> str | None:
    """Long texts cut in the middle for the screen (--json keeps them whole)."""
    return text if text is None or len(text) <= limit else f"{text[:limit // 2]} [...] {text[-limit // 2:]}"


# ---------------------------------------------------------------------------------------- overhead

def overhead_sentences(args, cases: list[Case]) -> list[str]:
    if args.corpus:
        from model.data import read_pairs

        pool = [de for de, _ in read_pairs(args.corpus) if de.strip()]
        if not pool:
            raise ValueError(f"no German sentences in --corpus {args.corpus!r}")
    else:
        pool = [c.text for c in cases if c.category in ("numbers", "spans", "caps")]
    return [pool[i * len(pool) // args.sentences] for i in range(args.sentences)]


def timed_pipeline(pipeline, texts: list[str]) -> tuple[list[str], dict[str, float]]:
    """``Pipeline.translate`` stage by stage (``plan``, ``model_outputs``, ``assemble``), each timed,
    with the number of model inputs and of retries (outputs re-translated in smaller pieces)."""
    retries: list[str] = []
    clock = time.perf_counter
    t0 = clock()
    plan = pipeline.plan(texts)
    t1 = clock()
    outputs = pipeline.model_outputs(plan.sources, False, on_retry=retries.append)
    t2 = clock()
    done = [aligned.target for aligned in pipeline.assemble(plan, outputs)]
    t3 = clock()
    return done, {"plan": t1 - t0, "model": t2 - t1, "assemble": t3 - t2, "total": t3 - t0,
                  "inputs": len(plan.units), "retries": len(retries)}


def measure_overhead(args, translator, pipeline, sentences: list[str]) -> dict:
    search = args.bare
    timed_pipeline(pipeline, sentences[:8])  # warm-up: lazy imports, caches, allocator
    translator.translate(sentences[:8], search)
    runs: list[dict[str, float]] = []
    bare: list[float] = []
    for repeat in range(args.repeats):
        for which in (("pipeline", "bare") if repeat % 2 == 0 else ("bare", "pipeline")):
            if which == "pipeline":
                runs.append(timed_pipeline(pipeline, sentences)[1])
            else:
                started = time.perf_counter()
                translator.translate(sentences, search)
                bare.append(time.perf_counter() - started)
            print(f"repeat {repeat + 1}/{args.repeats}: {which} done", file=sys.stderr, flush=True)
    median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    b = statistics.median(bare)
    text = median["plan"] + median["assemble"]
    return {"sentences": len(sentences), "repeats": args.repeats, "beam": search.beam_size, "bare_s": round(b, 3),
            "pipeline_s": round(median["total"], 3), "plan_s": round(median["plan"], 4),
            "assemble_s": round(median["assemble"], 4), "model_s": round(median["model"], 3),
            "model_inputs": int(median["inputs"]), "retries": int(median["retries"]),
            "overhead_pct": round(100 * (median["total"] - b) / b, 2),
            "text_work_pct": round(100 * text / b, 2), "target_pct": 5.0, "target_met": 100 * text / b <= 5.0}


def print_overhead(r: dict, header: str) -> None:
    print(header)
    n = r["sentences"]
    print(f"bare model     {r['bare_s']:9.3f} s   {n / r['bare_s']:7.1f} sentences/s   {n} model inputs")
    print(f"pipeline       {r['pipeline_s']:9.3f} s   {n / r['pipeline_s']:7.1f} sentences/s   "
          f"{r['model_inputs']} model inputs")
    print(f"  text work    {r['plan_s'] + r['assemble_s']:9.3f} s   (plan {r['plan_s']:.3f} s, assemble "
          f"{r['assemble_s']:.3f} s) = {r['text_work_pct']:.2f}% of the bare model's time "
          f"(target <= {r['target_pct']:g}%: {'met' if r['target_met'] else 'NOT met'})")
    print(f"  model stage  {r['model_s']:9.3f} s   ({r['retries']} retries of short or looping outputs)")
    print(f"overhead       {r['overhead_pct']:+.2f}% (pipeline vs bare model, all of it)")


# -------------------------------------------------------------------------------------------- main

def parse_args(argv):
    p = cli.make_parser("bench/fidelity.py", __doc__)
    cli.add_model_args(p)
    cli.add_search_args(p)
    cli.add_engine_args(p)
    p.add_argument("--cases", default=str(CASES), help="test texts (default: bench/fidelity_sentences.tsv)")
    p.add_argument("--show", action="store_true", help="print every failed case")
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    p.add_argument("--overhead", action="store_true", help="time the pipeline against the bare model instead")
    p.add_argument("--sentences", type=int, default=1000, help="--overhead: sentences per run (default: 1000)")
    p.add_argument("--corpus", help="--overhead: take the sentences from this corpus (German side)")
    p.add_argument("--repeats", type=int, default=3, help="--overhead: runs of each system (default: 3)")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    for name in ("sentences", "repeats"):
        cli.require_min(p, args, name, 1)
    args.search = cli.search_options(p, args, SERVED)  # the pipeline's
    args.bare = cli.search_options(p, args, DEFAULT)   # the bare model's: no n-gram blocking
    if not args.overhead and args.corpus:
        p.error("--corpus needs --overhead")
    if not Path(args.cases).is_file():
        p.error(f"--cases file not found: {args.cases!r}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    cases = read_cases(args.cases)
    translator = cli.load_translator(args)
    from pipeline.translation import Options, Pipeline

    pipeline = Pipeline(translator, Options(search=args.search))
    header = (f"{Path(args.checkpoint).name} ({translator.num_parameters():,} parameters, "
              f"{'placeholders' if pipeline.placeholders else 'no placeholders: spans cut around'}), "
              f"beam {args.beam}, load average {os.getloadavg()[0]:.2f}")
    if args.overhead:
        result = measure_overhead(args, translator, pipeline, overhead_sentences(args, cases))
        print_overhead(result, header + f", {result['sentences']} sentences, median of {args.repeats}")
    else:
        reports = {}
        for system in SYSTEMS:
            print(f"translating {len(cases)} texts: {system}", file=sys.stderr, flush=True)
            reports[system] = evaluate(cases, *run_system(system, cases, translator, pipeline, args.bare))
        print_report(reports, cases, header)
        if args.show:
            show_failures(reports)
        result = {"checkpoint": args.checkpoint, "beam": args.beam, "texts": len(cases), **reports}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main, None, prog="bench/fidelity.py"))
