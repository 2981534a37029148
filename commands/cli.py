"""Shared plumbing of the command-line tools (``commands.translate``, ``commands.evaluate``, ...) and of train.py.

Every command follows the same contract:

* ``main(argv=None) -> int`` parses, runs, and returns the exit code; ``python -m commands.X`` and
  its console script (``nmt-translate`` and so on: pyproject.toml's [project.scripts]) exit with it.
* Expected failures (bad arguments, a missing/corrupt checkpoint, an unreadable corpus, a
  file-system error) print exactly ONE line ``"{prog}: error: {message}"`` on stderr and exit
  with status 2, never a traceback. Ctrl-C prints ``"{prog}: error: interrupted"`` and exits 130.
  When stdout is closed early (``... | head``) the command stops quietly with status 141
  (128 + SIGPIPE, what ``cat`` and friends report).
* ``--checkpoint`` defaults to ``checkpoints/de-en.pt`` in the repository (the shipped release
  model); ``--device`` is ``auto`` (cuda when available, else cpu), ``cpu`` or ``cuda``;
  ``--threads`` sets torch's CPU threads (default: see ``set_threads``).
* Commands that translate may offer ``--engine torch|ct2|auto`` and ``--quantization`` (``add_engine_args``,
  model/inference/engines.py); ``load_translator`` then loads that engine (CTranslate2 gets the same threads).
* Commands that search declare ``--beam``, ``--length-penalty``, ``--batch-size`` (and ``--n-best``)
  with ``add_search_args``, defaulting to the served search (``model.search.options.SERVED``), and
  turn them into one ``SearchOptions`` with ``search_options``.

torch is only imported once the arguments are valid, so ``--help`` and argument errors are fast.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from model.network.threads import available_cpus, set_threads  # noqa: F401  (the commands' API)

if TYPE_CHECKING:
    from model.inference.translator import Translator
    from model.search.options import SearchOptions
    from pipeline.coverage import Coverage

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CHECKPOINT = ROOT / "checkpoints" / "de-en.pt"
DEVICES = ("auto", "cpu", "cuda")

EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``{prog}: error: {message}`` and exit 2, no usage dump."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def invoked_as(prog: str) -> str:
    """The name the user typed: the console script's (``nmt-info``) when run as one, else ``prog``
    (``python -m commands.info``), so that usage lines and errors name a command that exists."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return name if name.startswith("nmt-") else prog


def make_parser(prog: str, doc: str | None) -> Parser:
    """A parser whose --help shows the module docstring (synopsis and output format) verbatim."""
    lines = (doc or "").strip().splitlines()
    return Parser(prog=invoked_as(prog), description=lines[0] if lines else None,
                  epilog="\n".join(lines[1:]).strip() or None,
                  formatter_class=argparse.RawDescriptionHelpFormatter)


def add_model_args(parser: argparse.ArgumentParser, *, checkpoint_flag: bool = True) -> None:
    """--checkpoint (optional), --device and --threads, the same in every command."""
    if checkpoint_flag:
        parser.add_argument("--checkpoint", metavar="CKPT", default=str(DEFAULT_CHECKPOINT),
                            help="model checkpoint (default: checkpoints/de-en.pt in the repository)")
    parser.add_argument("--device", default="auto", choices=DEVICES,
                        help="auto = cuda when available, else cpu (default: auto)")
    parser.add_argument("--threads", type=int, metavar="N",
                        help="torch CPU threads (default: the CPUs this process may use, at most 16)")


def add_engine_args(parser: argparse.ArgumentParser, *, default: str = "torch") -> None:
    """--engine and --quantization, for commands that can run the CTranslate2 engine (model/inference/engines.py)."""
    parser.add_argument("--engine", default=default, choices=("auto", "ct2", "torch"),
                        help="ct2 = CTranslate2, torch = PyTorch; auto = ct2 when ctranslate2 is installed "
                             f"(and, on a GPU, runs there), else torch (default: {default})")
    parser.add_argument("--quantization", default="int8", choices=("int8", "float32", "float16", "int8_float16"),
                        help="compute type of the ct2 engine; float16 and int8_float16 need a GPU (default: int8)")
    parser.add_argument("--torch-precision", default="auto", choices=("auto", "fp32", "bf16"),
                        help="the PyTorch weights (alignment; translation with --engine torch): auto = bf16 beside "
                             "ct2 on a CPU with native bfloat16, else fp32, as the app's TORCH_PRECISION (default: auto)")


def add_channel_args(parser: argparse.ArgumentParser) -> None:
    """--channel and --channel-weight: noisy-channel reranking of the beam by the reverse model
    (model/inference/channel.py), as the app's CHANNEL_WEIGHT does; ``load_translator`` reads them."""
    from model.inference.channel import SERVED_WEIGHT

    parser.add_argument("--channel", metavar="CKPT", help="the reverse model's checkpoint (for a de-en model an "
                        "en-de one): rerank each beam by how well its hypotheses explain the source (default: none)")
    parser.add_argument("--channel-weight", type=float, default=SERVED_WEIGHT, metavar="W",
                        help="weight of the reverse model's score per source piece, with --channel (default: %(default)s)")


def add_search_args(parser: argparse.ArgumentParser, *, with_n_best: bool = False) -> None:
    """--beam, --length-penalty and --batch-size (``with_n_best``: --n-best too): the knobs of the
    search (``SearchOptions``), defaulting to the served ones (``SERVED``); ``search_options``
    reads them back."""
    from model.search.options import SERVED

    parser.add_argument("--beam", type=int, default=SERVED.beam_size, metavar="N",
                        help="beam size; 1 = greedy search (default: %(default)s)")
    parser.add_argument("--length-penalty", type=float, default=SERVED.length_penalty, metavar="A",
                        help="GNMT length penalty alpha of beam search; 0 = none (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=SERVED.batch_size, metavar="N",
                        help="sentences decoded together (default: %(default)s)")
    if with_n_best:
        parser.add_argument("--n-best", type=int, default=SERVED.n_best, metavar="K",
                            help="print the K best translations per line as INDEX<TAB>SCORE<TAB>TEXT "
                                 "(default: %(default)s)")


def search_options(parser: argparse.ArgumentParser, args: argparse.Namespace, base: "SearchOptions",
                   *, minimum_beam: int = 1) -> "SearchOptions":
    """The ``SearchOptions`` of ``add_search_args``'s flags, the other knobs as in ``base``: ``SERVED``
    through the text pipeline, ``DEFAULT`` for the bare model (no n-gram blocking). A bad value
    is a one-line ``parser.error`` naming the flag (--beam below ``minimum_beam``, a --n-best
    over --beam)."""
    require_min(parser, args, "beam", minimum_beam)
    if hasattr(args, "n_best"):  # only commands that print n-best lists have the flag
        require_min(parser, args, "n_best", 1)
    n_best = getattr(args, "n_best", base.n_best)
    require_min(parser, args, "batch_size", 1)
    require_finite_nonnegative(parser, args, "length_penalty")
    if n_best > args.beam:
        parser.error(f"--n-best {n_best} needs --beam >= {n_best}, got --beam {args.beam}")
    return replace(base, beam_size=args.beam, length_penalty=args.length_penalty, batch_size=args.batch_size,
                   n_best=n_best)


def add_dictionary_arg(parser: argparse.ArgumentParser) -> None:
    """--dictionary, for commands that translate through the text pipeline: the Ding file whose
    place names it writes in English (``model.data.ding.place_names``), as the app does."""
    parser.add_argument("--dictionary", metavar="PATH",
                        help="Ding dictionary for place names (default: $DICTIONARY_PATH, else Debian's "
                             "trans-de-en where installed; '' = none)")


def dictionary_path(args: argparse.Namespace, environ=os.environ) -> str | None:
    """The Ding file of ``args.dictionary`` (see ``add_dictionary_arg``), or None when there is none.
    A path given but missing is an error; the default path missing is not (the package is optional)."""
    from model.data.ding import DEBIAN_PATH

    given = getattr(args, "dictionary", None)  # callers that build their own args take the default
    path = given if given is not None else environ.get("DICTIONARY_PATH")
    if path is None:
        return DEBIAN_PATH if os.path.isfile(DEBIAN_PATH) else None
    if not path:
        return None
    if not os.path.isfile(path):
        raise ValueError(f"--dictionary: no such file: {path!r}")
    return path


def load_places(args: argparse.Namespace, environ=os.environ) -> dict[str, str]:
    """The place names of the dictionary (``dictionary_path``); {} when there is none."""
    from model.data.ding import place_names

    path = dictionary_path(args, environ)
    return place_names(path) if path is not None else {}


def load_coverage(args: argparse.Namespace, environ=os.environ) -> "Coverage | None":
    """What the text pipeline checks translations against for left-out words
    (``pipeline.coverage``), from the dictionary (``dictionary_path``); None when there is none."""
    from model.data.ding import load_dictionary
    from pipeline.coverage import Coverage

    path = dictionary_path(args, environ)
    return Coverage.of(load_dictionary(path)) if path is not None else None


def output_path(path: str, flag: str = "--out") -> Path:
    """``path`` as a Path, once its directory is known to exist: else the one-line error
    "No such directory for FLAG" (exit 2), before any slow work is done."""
    if not Path(path).parent.is_dir():
        raise FileNotFoundError(2, f"No such directory for {flag}", str(path))
    return Path(path)


def check_model_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.threads is not None and args.threads < 1:
        parser.error(f"--threads must be >= 1, got {args.threads!r}")
    if hasattr(args, "channel_weight"):
        require_finite_nonnegative(parser, args, "channel_weight")


def require_min(parser: argparse.ArgumentParser, args: argparse.Namespace, name: str, minimum: int) -> None:
    """parser.error unless ``args.<name>`` (an int option) is >= minimum."""
    value = getattr(args, name)
    if value is not None and value < minimum:
        parser.error(f"--{name.replace('_', '-')} must be >= {minimum}, got {value!r}")


def require_finite_nonnegative(parser: argparse.ArgumentParser, args: argparse.Namespace, name: str) -> None:
    value = getattr(args, name)
    if value is not None and not (math.isfinite(value) and value >= 0):
        parser.error(f"--{name.replace('_', '-')} must be a number >= 0, got {value!r}")


def load_translator(args: argparse.Namespace) -> "Translator":
    """Threads, then the checkpoint of ``args`` on ``args.device``, ready to translate."""
    from model.inference.translator import Translator, resolve_device

    resolve_device(args.device)  # a missing GPU is reported before the checkpoint is read
    threads = set_threads(args.threads)
    if not hasattr(args, "engine"):  # only commands with add_engine_args choose an engine
        return Translator.from_checkpoint(args.checkpoint, device=args.device)
    from model.inference.engines import load_engine

    options = dict(engine=args.engine, device=args.device, quantization=args.quantization, threads=threads,
                   precision=args.torch_precision)
    channel = getattr(args, "channel", None) if hasattr(args, "channel_weight") else None  # add_channel_args
    if channel is None:
        return load_engine(args.checkpoint, **options)
    from model.inference.channel import ChannelScorer

    return load_engine(args.checkpoint, **options, channel=ChannelScorer(load_engine(channel, **options)),
                       channel_weight=args.channel_weight)


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.strerror}: {exc.filename!r}" if exc.filename is not None else exc.strerror
    else:
        text = str(exc)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def _utf8_stdio() -> None:
    """UTF-8 on stdout/stderr whatever the locale (German text under LANG=C; stdin is read as bytes)."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding != "utf8" and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(encoding="utf-8")
            except (ValueError, OSError):
                pass


def _silence_stdout() -> None:
    """After EPIPE: point fd 1 at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def run(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None, *, prog: str) -> int:
    """Call ``main(argv)`` and return its exit status; expected failures become one stderr line."""
    _utf8_stdio()
    prog = invoked_as(prog)

    def fail(message: str, code: int = EXIT_ERROR) -> int:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        print(f"{prog}: error: {message}", file=sys.stderr, flush=True)
        return code

    try:
        status = main(argv)
        sys.stdout.flush()  # a closed pipe shows up here, inside the handler
        return int(status or 0)
    except SystemExit as exc:  # argparse: --help (0) and usage errors (2)
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except (ValueError, OSError) as exc:  # CorpusError and CheckpointError are ValueErrors
        return fail(_one_line(exc))
    except MemoryError:
        return fail("out of memory; try a smaller --batch-size")
    except RuntimeError as exc:
        if type(exc).__name__ == "OutOfMemoryError":  # torch.OutOfMemoryError (CUDA)
            return fail(f"out of memory on the GPU; try a smaller --batch-size ({_one_line(exc)})")
        raise
