"""Formal or informal German ("Sie" or "du"): how often an English->German model's translations
address the reader as asked, and what steering it costs (``Options.formality``, ``pipeline.formality``).

    python bench/formality.py --checkpoint EN_DE.pt --data DEV.tsv [--limit 500] [--beam 4] [--engine ct2]
    python bench/formality.py --checkpoint EN_DE.pt --cocoa COCOA-MT/test/en-de [--limit 600] ...

``--data``: ENGLISH<TAB>GERMAN lines (a reverse model's dev split); the sentences whose English says
"you", "your", "yours", "yourself" or "yourselves" are translated, each alone (as one request
would be), through the text pipeline once per formality: "any" (as the model writes it), "formal"
and "informal". Reported per formality:

* **formal**, **informal**: outputs with a sign of that address (``pipeline.formality``) and none
  of the other; **mixed**: signs of both; **neither**: no sign (a sentence-initial "Sie", an
  imperative "Komm!", or "you" translated as "man");
* **chrF** against the references (Tatoeba's German mostly says "du": a formal translation of an
  informal reference loses points there without being wrong);
* **changed**: outputs that differ from the model's own ("any"); **ms**: the median time of one
  sentence.

``--cocoa DIR``: instead, the CoCoA-MT benchmark's test set (Nadejde et al. 2022,
github.com/amazon-science/contrastive-controlled-mt, CDLA-Sharing-1.0): 600 English customer-service
and chat turns (``formality-control.test.DOMAIN.en-de``), each with a formal and an informal
German reference whose words of address are marked (``.formal.annotated``: "[F]Können Sie[/F]").
Every source is translated once per formality and scored as the benchmark scores it: an output
that holds (as whitespace tokens) a marked phrase of one reference and none of the other's is
that formality, one with both is "other", one with neither "neutral"; **M-Acc** is the share of
the asked formality (for "any", of formal) among the outputs that are formal or informal. chrF is
read against each reference.
"""

from __future__ import annotations

import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.coverage import translate_each  # noqa: E402
from commands import cli  # noqa: E402
from model.search.options import SERVED  # noqa: E402

YOU = re.compile(r"\byou(?:r|rs|rself|rselves)?\b", re.IGNORECASE)


def parse_args(argv: list[str] | None):
    p = cli.make_parser("bench/formality.py", __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p, default="ct2")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", help="ENGLISH<TAB>GERMAN lines")
    source.add_argument("--cocoa", type=Path, metavar="DIR", help="CoCoA-MT's en-de test folder")
    p.add_argument("--limit", type=int, help="at most this many sentences (default: 500 of --data, all of --cocoa)")
    cli.add_search_args(p)
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    cli.require_min(p, args, "limit", 1)
    args.search = cli.search_options(p, args, SERVED, minimum_beam=2)
    return args


def read_pairs(path: str, limit: int) -> list[tuple[str, str]]:
    pairs = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        english, tab, german = line.partition("\t")
        if not tab:
            raise ValueError(f"{path}:{number}: expected ENGLISH<TAB>GERMAN, got {line!r}")
        if YOU.search(english):
            pairs.append((english, german.split("\t")[0]))
    return pairs[:limit]


COCOA_DOMAINS = ("call_center", "telephony", "topical_chat")
MARKED = re.compile(r"\[F\](.*?)\[/F\]")


@dataclass(frozen=True)
class Contrastive:
    """One CoCoA-MT source with its two references and their marked phrases of address."""

    english: str
    formal: str
    informal: str
    formal_phrases: tuple[str, ...]
    informal_phrases: tuple[str, ...]


def read_cocoa(folder: Path, limit: int | None = None) -> list[Contrastive]:
    """The test set's segments, domain by domain (``COCOA_DOMAINS``), at most ``limit`` (None: all)."""
    segments = []
    for domain in COCOA_DOMAINS:
        stem = folder / f"formality-control.test.{domain}.en-de"
        files = [Path(f"{stem}{suffix}") for suffix in ("", ".formal", ".informal", ".formal.annotated",
                                                         ".informal.annotated")]
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise ValueError(f"not a CoCoA-MT test folder: no {missing[0]}")
        columns = [f.read_text(encoding="utf-8").splitlines() for f in files]
        if len({len(c) for c in columns}) != 1:
            raise ValueError(f"{stem}*: the five files differ in their number of lines")
        for english, formal, informal, formal_marked, informal_marked in zip(*columns):
            segments.append(Contrastive(english, formal, informal, tuple(MARKED.findall(formal_marked)),
                                        tuple(MARKED.findall(informal_marked))))
    return segments[:limit]


def matched(output: str, segment: Contrastive) -> str:
    """"formal", "informal", "other" (both) or "neutral" (neither), as CoCoA-MT decides: a marked
    phrase matches where all its whitespace tokens are tokens of the output."""
    tokens = set(output.split(" "))
    formal = any(set(p.split(" ")) <= tokens for p in segment.formal_phrases)
    informal = any(set(p.split(" ")) <= tokens for p in segment.informal_phrases)
    return "other" if formal and informal else "formal" if formal else "informal" if informal else "neutral"


def address(german: str) -> str:
    """"formal", "informal", "mixed" or "neither": the signs of address in ``german``."""
    from pipeline.formality import mismatches

    formal, informal = mismatches(german, "informal") > 0, mismatches(german, "formal") > 0
    return "mixed" if formal and informal else "formal" if formal else "informal" if informal else "neither"


def _main(argv: list[str] | None) -> int:
    from sacrebleu.metrics import CHRF

    from model.network.checkpoint import direction
    from pipeline.translation import Options, Pipeline

    args = parse_args(argv)
    if args.cocoa:
        segments = read_cocoa(args.cocoa, args.limit)
        if not segments:
            raise ValueError(f"{args.cocoa}: a CoCoA-MT test folder without any segment")
    else:
        pairs = read_pairs(args.data, args.limit or 500)
        if not pairs:
            raise ValueError(f"{args.data}: no English sentence says 'you'")
    translator = cli.load_translator(args)
    if direction(translator.meta) != "en-de":
        raise ValueError(f"{args.checkpoint}: not an English->German model (train.py --direction en-de)")
    if args.cocoa:
        return _cocoa(translator, segments, args)
    sources, references = [e for e, _ in pairs], [g for _, g in pairs]
    Pipeline(translator, Options(search=args.search)).translate(sources[:2])   # warm up
    runs = []
    for formality in ("any", "formal", "informal"):
        pipeline = Pipeline(translator, Options(search=args.search, formality=formality))
        runs.append((formality, *translate_each(pipeline, sources)))
    own = runs[0][1]
    print(f"{Path(args.checkpoint).name}, beam {args.beam}, {args.engine}: {len(pairs)} sentences with 'you' "
          f"of {args.data}; references: " + ", ".join(
              f"{kind} {sum(address(r) == kind for r in references)}" for kind in ("formal", "informal", "mixed", "neither")))
    print("formality  formal  informal  mixed  neither   chrF  changed  ms/sentence")
    for formality, outputs, seconds in runs:
        counts = [sum(address(o) == kind for o in outputs) for kind in ("formal", "informal", "mixed", "neither")]
        changed = sum(a != b for a, b in zip(outputs, own))
        print(f"{formality:<9}  {counts[0]:6d}  {counts[1]:8d}  {counts[2]:5d}  {counts[3]:7d}  "
              f"{CHRF().corpus_score(outputs, [references]).score:5.2f}  {changed:7d}  "
              f"{statistics.median(seconds) * 1000:11.1f}")
    return 0


def _cocoa(translator, segments: list[Contrastive], args) -> int:
    from sacrebleu.metrics import CHRF

    from pipeline.translation import Options, Pipeline

    sources = [s.english for s in segments]
    Pipeline(translator, Options(search=args.search)).translate(sources[:2])   # warm up
    print(f"{Path(args.checkpoint).name}, beam {args.beam}, {args.engine}: CoCoA-MT test, {len(segments)} "
          f"segments of {args.cocoa}")
    print("formality  formal  informal  other  neutral  M-Acc  chrF formal  chrF informal  ms/sentence")
    for formality in ("any", "formal", "informal"):
        pipeline = Pipeline(translator, Options(search=args.search, formality=formality))
        outputs, seconds = translate_each(pipeline, sources)
        labels = [matched(o, s) for o, s in zip(outputs, segments)]
        counts = {kind: labels.count(kind) for kind in ("formal", "informal", "other", "neutral")}
        decided = counts["formal"] + counts["informal"]
        asked = "formal" if formality == "any" else formality   # the service's default is formal
        accuracy = counts[asked] / decided if decided else 0.0
        chrf = [CHRF().corpus_score(outputs, [[getattr(s, kind) for s in segments]]).score
                for kind in ("formal", "informal")]
        print(f"{formality:<9}  {counts['formal']:6d}  {counts['informal']:8d}  {counts['other']:5d}  "
              f"{counts['neutral']:7d}  {accuracy:5.3f}  {chrf[0]:11.2f}  {chrf[1]:13.2f}  "
              f"{statistics.median(seconds) * 1000:11.1f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli.run(_main, argv, prog="bench/formality.py")


if __name__ == "__main__":
    sys.exit(main())
