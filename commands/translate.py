"""Translate German lines on stdin into English lines on stdout, or one file into another.

    python -m commands.translate [--checkpoint CKPT] [--beam N] [--length-penalty A] [--n-best K]
                                 [--batch-size N] [--device auto|cpu|cuda] [--threads N]
                                 [--engine torch|ct2|auto] [--quantization int8|float32] < de.txt > en.txt
    python -m commands.translate --file brief.docx --out brief_en.docx [options]

--file IN --out OUT translates one file of a format that POST /translate_file takes (.txt, .html,
.docx, .odt, .odp, .pptx, .epub, .pdf, .po, .pot, .srt, .vtt, .json, .md; see ``pipeline.documents``)
exactly as the web service does, with a progress bar of its texts on stderr, and writes OUT
atomically (OUT has IN's extension, but .docx for a .pdf). There is no size limit offline. The
checkpoint's recorded direction decides the languages: with a reverse model (train.py --direction
en-de) an English file comes back German, and where it named English (a .po's Language, a .docx's
w:lang, an HTML lang, ...) it names German.

Input: UTF-8 text, one text per line (a sentence, or a whole paragraph: nothing is dropped). Only
"\\n" ends a line ("\\r\\n" is accepted, a byte-order mark is ignored). Each line goes through
the text pipeline (``pipeline/``): sentences and over-long clauses are translated separately and
joined, numbers, URLs, e-mail addresses, emoji and other protected spans are carried over (numbers
in English notation), ALL-CAPS input comes back in capitals. --raw gives each line to the model
as it is instead (normalized: NFC, whitespace runs collapsed; a line longer than the model's
limit is an error), to study the bare model: searched without the pipeline's n-gram blocking.

Output (UTF-8, "\\n" line ends), in input order:

* default (--n-best 1): exactly one line per input line, the best translation. An empty or
  all-whitespace input line gives an empty output line, so `paste de.txt en.txt` lines up.
* --n-best K (K > 1, needs --beam >= K): for every input line, its K best translations, best
  first, one per line as

      INDEX<TAB>SCORE<TAB>TRANSLATION

  INDEX is the 0-based number of the input line (group on it), SCORE the hypothesis's
  log-probability divided by the GNMT length penalty, printed with 4 decimals (higher is
  better); for a line the pipeline translated in several pieces, the mean over its pieces. Beam search can end with fewer than K distinct hypotheses; then fewer lines are
  printed, but never none: an empty input line gives the single line "INDEX<TAB>0.0000<TAB>".

Engines (model/inference/engines.py): auto, the default (as in the web service), is ct2 when the
ctranslate2 package is installed and the device is the CPU, else torch; ct2 converts the checkpoint
in memory and runs it with CTranslate2, 2-4x faster on a CPU (--quantization int8, the default, or
float32, which gives torch's outputs exactly); torch runs our PyTorch model.

--beam 1 is greedy search (--length-penalty has no effect then). Input is read and translated in
chunks of at most 1000 lines (earlier when no more input is waiting, so it also works
interactively), and each chunk's output is flushed at once: memory stays flat on huge inputs.
Within a chunk, sentences of similar length are batched together (--batch-size sentences).

Exit status: 0 on success, 2 with one "error:" line on stderr for bad arguments, checkpoints or
input (e.g. invalid UTF-8), 130 on Ctrl-C, 141 when stdout is closed early.
"""

from __future__ import annotations

import argparse
import io
import os
import select
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, BinaryIO

from model.search.options import DEFAULT, SERVED
from pipeline.formality import FORMALITIES
from pipeline.harm import CHECKS

from . import cli

if TYPE_CHECKING:   # imported where --file needs it: the pipeline is not loaded for --help
    from pipeline.language_pair import LanguagePair

PROG = "python -m commands.translate"
CHUNK_LINES = 1000
_READ_SIZE = 1 << 16


def parse_args(argv: Sequence[str] | None):
    p = cli.make_parser(PROG, __doc__)
    cli.add_model_args(p)
    cli.add_engine_args(p, default="auto")
    cli.add_dictionary_arg(p)
    cli.add_channel_args(p)
    cli.add_search_args(p, with_n_best=True)
    p.add_argument("--raw", action="store_true",
                   help="give each line to the model as it is, without the text pipeline")
    p.add_argument("--file", metavar="IN", help="translate this file (.txt, .html, .docx, .po, .pot, .srt, .vtt) instead of stdin")
    p.add_argument("--out", metavar="OUT", help="where --file's translation goes (same extension)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar for --file")
    p.add_argument("--formality", choices=FORMALITIES,
                   help="how German output (an en-de model) addresses the reader: formal (Sie, the default), "
                        "informal (du) or any (as the model writes it)")
    p.add_argument("--checks", type=_checks, default=None, metavar="NAMES",
                   help="what no translation may do, comma-separated: " + ", ".join(CHECKS)
                        + " (default: all); '' = none (bench/harm.py)")
    args = p.parse_args(argv)
    if (args.file is None) != (args.out is None):
        p.error("--file and --out go together")
    if args.file is not None and (args.raw or args.n_best > 1):
        p.error("--file translates through the text pipeline, with one translation: not with --raw or --n-best")
    if args.raw and (args.formality is not None or args.checks is not None):
        p.error("--formality and --checks are the text pipeline's: not with --raw")
    cli.check_model_args(p, args)
    # The bare model (--raw) searches without the text pipeline's n-gram blocking.
    args.search = cli.search_options(p, args, DEFAULT if args.raw else SERVED)
    return args


def _more_waiting(fd: int | None) -> bool:
    """Whether more input can be read without blocking (always assumed for non-fd streams)."""
    if fd is None:
        return True
    try:
        return bool(select.select([fd], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def read_chunks(stream: BinaryIO, max_lines: int = CHUNK_LINES) -> Iterator[list[str]]:
    """Decoded input lines in chunks of at most ``max_lines``, in order.

    A chunk ends early when no more input is waiting (a person typing, a slow producer), so each
    line is answered as soon as possible; from a file or a fast pipe chunks are full. Lines end at
    "\\n" only; a trailing "\\r" is dropped, as is a UTF-8 byte-order mark at the very start.
    Invalid UTF-8 raises CorpusError naming the line."""
    from model.data import CorpusError

    try:
        fd: int | None = stream.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        fd = None

    def read() -> bytes:
        if fd is not None:
            return os.read(fd, _READ_SIZE)  # returns what is there; blocks only when nothing is
        reader = getattr(stream, "read1", None) or stream.read
        return reader(_READ_SIZE)

    number = 0

    def decode(raw: list[bytes]) -> list[str]:
        nonlocal number
        out = []
        for line in raw:
            number += 1
            if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if line.endswith(b"\r"):
                line = line[:-1]
            try:
                out.append(line.decode("utf-8"))
            except UnicodeDecodeError:
                raise CorpusError(f"stdin line {number} is not valid UTF-8") from None
        return out

    partial = bytearray()
    lines: list[bytes] = []
    while True:
        data = read()
        eof = not data
        if data:
            partial += data
            if b"\n" in data:
                *complete, rest = bytes(partial).split(b"\n")
                lines.extend(complete)
                partial = bytearray(rest)
        elif partial:
            lines.append(bytes(partial))  # last line without a newline
            partial.clear()
        while len(lines) >= max_lines:
            yield decode(lines[:max_lines])
            del lines[:max_lines]
        if lines and (eof or not _more_waiting(fd)):
            yield decode(lines)
            lines.clear()
        if eof:
            return


def _one_line(text: str) -> str:
    # Keeps the one-line-per-input contract whatever the tokenizer ever decodes to.
    return text.replace("\r", " ").replace("\n", " ")


FILE_CHUNK = 64  # texts per model call for --file: a step of the progress bar


def translate_file(engine, source: str, target: str, progress: bool, languages: LanguagePair | None = None) -> int:
    """--file: ``source`` read as its format, translated through ``engine`` (a Pipeline) in steps
    of FILE_CHUNK texts from ``languages.source`` into ``languages.target`` (a
    ``pipeline.language_pair.LanguagePair``; None: de-en), written to ``target`` atomically."""
    from pathlib import Path

    from tqdm import tqdm

    from model.network.checkpoint import atomic_open
    from pipeline import documents
    from pipeline.language_pair import DE_EN
    from pipeline.texts import translate_texts

    languages = languages or DE_EN

    kind = documents.extension(source)
    result = documents.output_extension(kind)  # a .pdf's translation is a .docx
    if Path(target).suffix.lower() != result:
        raise ValueError(f"--out {target!r} must have the extension {result} (--file is {kind})")
    if not Path(target).resolve().parent.is_dir():
        raise FileNotFoundError(2, "No such directory for --out", target)
    with open(source, "rb") as f:
        document = documents.read(kind, f.read(), seconds=None)  # a local file: no limits

    def in_steps(texts: list[str], html: bool = False) -> list[str]:
        out = []
        with tqdm(total=len(texts), unit="text", desc=Path(source).name, disable=not progress,
                  file=sys.stderr) as bar:
            for start in range(0, len(texts), FILE_CHUNK):
                step = texts[start:start + FILE_CHUNK]
                out += translate_texts(engine, step, html=html, languages=languages)
                bar.update(len(step))
        return out

    data = document.translate(in_steps, languages)
    with atomic_open(target, "wb") as f:
        f.write(data)
    print(f"wrote {target}: {document.chars:,} characters translated", file=sys.stderr)
    return 0


def _checks(value: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in value.split(",") if name.strip())
    unknown = [name for name in names if name not in CHECKS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown check {unknown[0]!r} (known: {', '.join(CHECKS)})")
    return names


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    from pipeline.translation import Options, Pipeline

    translator = cli.load_translator(args)  # before reading stdin: a bad checkpoint fails at once
    options = Options(search=args.search, **({"formality": args.formality} if args.formality else {}),
                      **({"checks": args.checks} if args.checks is not None else {}))
    engine = translator if args.raw else Pipeline(translator, options, cli.load_places(args), cli.load_coverage(args))
    if args.file is not None:
        from model.network.checkpoint import direction
        from pipeline.language_pair import LanguagePair

        return translate_file(engine, args.file, args.out, progress=not args.no_progress,
                              languages=LanguagePair.of(direction(translator.meta)))
    out = sys.stdout
    index = 0
    for chunk in read_chunks(sys.stdin.buffer):
        if args.n_best > 1:
            if args.raw:
                results = translator.translate_n_best(chunk, args.search)
            else:
                results = engine.translate_n_best(chunk, args.n_best)
            text = "".join(f"{index + i}\t{score:.4f}\t{_one_line(hyp)}\n"
                           for i, hyps in enumerate(results) for hyp, score in hyps)
        else:
            results = translator.translate(chunk, args.search) if args.raw else engine.translate(chunk)
            text = "".join(f"{_one_line(hyp)}\n" for hyp in results)
        index += len(chunk)
        out.write(text)
        out.flush()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (see the module docstring)."""
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
