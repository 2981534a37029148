"""Back-translate monolingual text into a synthetic parallel corpus that train.py reads.

    python -m commands.backtranslate --checkpoint checkpoints/en-de.pt --text TEXTS [--text ...] \
        --out bt.tsv.gz [--sentences] [--shard K/N] [--attribution TEXT] [--beam N] [--engine ct2] \
        [--threads N] [--dictionary PATH] [--no-progress]

Back-translation (Sennrich et al. 2016) gives real text of the target language a machine-translated
source: English web text (e-mails, reviews, forums) translated into German by the English→German
model becomes German→English training pairs whose English side is what people write. TEXTS are in
the checkpoint's source language: a CoNLL-U file (its ``# text`` lines), a text file (one text a
line) or a folder of them (``model.data.monolingual.read_texts``). Each text goes through the text
pipeline as ``commands.translate`` sends it (numbers, dates and times written the target
language's way, protected spans kept).

Output: ``English<TAB>German`` a line, whatever the direction (the layout of ``commands.sample``
and the Tatoeba corpus, so ``--data OUT`` reads it), with ``--attribution`` as a third column on
every line when given (the licence of the text travels with it); gzipped when OUT ends in ``.gz``.
A text whose translation comes back empty is left out.

``--sentences`` cuts each text into its sentences first (the text pipeline's splitter), so that a
paragraph (a debate's, a help page's) becomes one pair a sentence, in order. ``--shard K/N``
translates only the K-th of N equal runs of the texts (counted after ``--sentences``): N processes
on the cores or the GPU of one machine share the work, and their N outputs joined in the order of
K (``cat``, gzipped ones too) are the corpus that one process writes.

Resumable: translations go to ``OUT.part`` a chunk at a time; the same command run again after a
stop continues after the last whole chunk (it checks that the part holds translations of the same
texts by the same checkpoint, ``OUT.part.json``), and OUT is written atomically at the end.
Exit status: 0, or 2 with one "error:" line on stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from model.search.options import SERVED

from . import cli

PROG = "python -m commands.backtranslate"
CHUNK = 256  # texts per model call: a step of the progress bar and of OUT.part


def parse_args(argv: Sequence[str] | None):
    p = cli.make_parser(PROG, __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p, default="auto")
    cli.add_dictionary_arg(p)
    cli.add_search_args(p)
    p.add_argument("--text", action="append", required=True, metavar="TEXTS",
                   help="monolingual text in the checkpoint's source language: a .conllu or text file, or a folder; "
                        "repeat for several")
    p.add_argument("--out", required=True, metavar="OUT", help="the corpus to write (English<TAB>German; .gz: gzipped)")
    p.add_argument("--attribution", metavar="TEXT",
                   help="third column of every line: where the text comes from, its licence")
    p.add_argument("--sentences", action="store_true",
                   help="cut each text into its sentences first: one pair a sentence")
    p.add_argument("--shard", type=shard, default=(1, 1), metavar="K/N",
                   help="translate only the K-th of N equal runs of the texts (default 1/1: all)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    cli.check_model_args(p, args)
    attribution = args.attribution
    if attribution is not None and ("\t" in attribution or "\n" in attribution or not attribution.strip()):
        p.error("--attribution must be one line of text without tabs")
    args.search = cli.search_options(p, args, SERVED)
    return args


def shard(text: str) -> tuple[int, int]:
    """``K/N`` (1 <= K <= N) as (K, N), for ``--shard``."""
    k, slash, n = text.partition("/")
    if slash and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n):
        return int(k), int(n)
    raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N, got {text!r}")


def shard_of(texts: list[str], k: int, n: int) -> list[str]:
    """The K-th of N runs of ``texts`` in order, as equal as they can be (the first ones one
    longer): joined in the order of K they are ``texts``."""
    size, extra = divmod(len(texts), n)
    start = (k - 1) * size + min(k - 1, extra)
    return texts[start:start + size + (k <= extra)]


def _line(source: str, output: str, to: str, attribution: str | None) -> str:
    output = " ".join(output.split())  # one line, no tab: the TSV's columns stay three
    english, german = (source, output) if to == "en-de" else (output, source)
    return "\t".join([english, german] + ([attribution] if attribution else [])) + "\n"


def _resume_at(part: Path, meta: Path, state: dict) -> int:
    """How many texts ``part`` (OUT.part) already holds the translations of (``meta``'s ``done``): 0
    when there is none. It is cut back to the bytes of the last chunk that ``meta`` recorded (a stop
    mid-chunk leaves more); a part of other texts, another checkpoint or other options is an error."""
    if not part.exists():
        return 0
    if not meta.exists():  # stopped before its first chunk was recorded
        part.write_bytes(b"")
        return 0
    saved = json.loads(meta.read_text(encoding="utf-8"))
    if {key: value for key, value in saved.items() if key not in ("done", "bytes")} != state:
        raise ValueError(f"{str(part)!r} holds translations of other texts, or by another checkpoint or "
                         "options: remove it to start over")
    with open(part, "r+b") as f:
        f.truncate(saved["bytes"])
    return saved["done"]


def backtranslate(engine, texts: list[str], out: Path, to: str, attribution: str | None, state: dict,
                  progress: bool = True) -> int:
    """Translate ``texts`` through ``engine`` (a Pipeline) into ``out`` (module docstring), continuing
    ``out``.part where an earlier run with the same ``state`` stopped; return the pairs written."""
    from tqdm import tqdm

    from model.network.checkpoint import atomic_open

    part, meta = out.with_name(out.name + ".part"), out.with_name(out.name + ".part.json")
    start = _resume_at(part, meta, state)
    with open(part, "ab") as f, tqdm(total=len(texts), initial=min(start, len(texts)), unit="text",
                                     file=sys.stderr, disable=not progress) as bar:
        for begin in range(start, len(texts), CHUNK):
            chunk = texts[begin:begin + CHUNK]
            lines = [_line(s, o, to, attribution) for s, o in zip(chunk, engine.translate(chunk)) if o.strip()]
            f.write("".join(lines).encode("utf-8"))
            f.flush()
            with atomic_open(meta, "w", encoding="utf-8") as m:
                m.write(json.dumps({**state, "done": begin + len(chunk), "bytes": f.tell()}))
            bar.update(len(chunk))
    data = part.read_bytes()
    with atomic_open(out, "wb") as f:
        f.write(gzip.compress(data, mtime=0) if out.name.endswith(".gz") else data)
    part.unlink()
    meta.unlink(missing_ok=True)
    return data.count(b"\n")


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    out = cli.output_path(args.out)
    from model.data import corpus_sha256
    from model.data.monolingual import read_texts
    from model.network.checkpoint import direction
    from pipeline.translation import Options, Pipeline

    texts = [text for path in args.text for text in read_texts(path)]  # before the model: a bad path fails at once
    if not texts:
        raise ValueError(f"no text to translate in {' '.join(args.text)}")
    translator = cli.load_translator(args)
    to = direction(translator.meta)
    if args.sentences:   # cut as the pipeline cuts text of the model's source language
        from pipeline.segment import sentences

        texts = [sentence for text in texts for sentence in sentences(text, to.split("-")[0])]
    texts = shard_of(texts, *args.shard)
    engine = Pipeline(translator, Options(search=args.search), cli.load_places(args), cli.load_coverage(args))
    state = {"checkpoint_sha256": corpus_sha256(args.checkpoint),
             "texts_sha256": hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest(),
             "search": dataclasses.asdict(args.search), "engine": args.engine,
             "quantization": args.quantization, "attribution": args.attribution,
             "sentences": args.sentences, "shard": list(args.shard)}
    state = json.loads(json.dumps(state))  # as OUT.part.json will read back
    pairs = backtranslate(engine, texts, out, to, args.attribution, state, progress=not args.no_progress)
    print(f"wrote {out}: {pairs:,} pairs from {len(texts):,} texts ({to})", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (see the module docstring)."""
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
