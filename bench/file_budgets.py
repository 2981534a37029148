"""How long small hostile uploads hold a worker: ``pipeline.documents.read`` of each input of
tests/pipeline/documents/hostile_files.py with the service's limit (MAX_FILE_CHARS, 20,000), one process
per input, timed to a refusal (or to --timeout).

    python bench/file_budgets.py                  # every case, 300 s at most each
    python bench/file_budgets.py --only pdf       # the cases whose name has "pdf"
    PYTHONPATH=/tmp/old python bench/file_budgets.py   # another pipeline/ (e.g. a commit's, from git archive)

Works with the read() before the budgets too (``read(extension, data)``, then the characters
checked as app/service.py did). Prints: case, upload bytes, seconds, the process's peak RSS
(MiB; about 230 of it the imports), and the result.
"""

from __future__ import annotations

import argparse
import inspect
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))   # after PYTHONPATH: an older pipeline/ given there wins

LIMIT = 20_000

CASES = {
    "epub 16,000 <body>, no closing tag (the review's)": (".epub", "hostile.many_bodies(16_000)"),
    "epub 16,000 <BODY >, then </BODY >": (
        ".epub", 'hostile.epub_of(b"<html><body>" + b"<BODY >" * 16_000 + b"</BODY >")'),
    "pdf 16 pages share a stream of 2,000 lines (the review's)": (
        ".pdf", "hostile.pdf_shared_stream(16, hostile.text_stream(2_000))"),
    "pdf 1,000 small pages of 512 characters": (
        ".pdf", 'office.pdf_file([["Die Katze schläft auf dem Sofa und träumt von einer Maus."] * 9] * 1000)'),
    "pdf 1,000 pages share a 58 MB stream of text": (
        ".pdf", "hostile.pdf_shared_stream(1000, hostile.text_stream(1_000_000))"),
    "pdf 1,000 pages share 1.3 MB of drawings and a word": (
        ".pdf", "hostile.pdf_shared_stream(1000, hostile.drawing_stream(70_000) + hostile.text_stream(1))"),
    "odt 8 MiB of <text:p/> (the review's)": (".odt", "hostile.odf_empty_paragraphs(932_067)"),
    "docx 900,000 <w:p/>": (".docx", "hostile.docx_empty_paragraphs(900_000)"),
    "pptx 900,000 <a:p/>": (".pptx", "hostile.pptx_empty_paragraphs(900_000)"),
    "json 2,000 deep": (".json", "hostile.nested_json(2000)"),
    "json 500 deep": (".json", "hostile.nested_json(500)"),
}


def one(name: str) -> dict:
    from pipeline import documents
    from tests.pipeline.documents import hostile_files as hostile, office_files as office  # noqa: F401 -- for eval

    extension, make = CASES[name]
    data = eval(make)   # noqa: S307 -- this file's own expressions
    budgets = "max_chars" in inspect.signature(documents.read).parameters
    start = time.perf_counter()
    try:
        if budgets:
            result = f"read: {documents.read(extension, data, LIMIT).chars} characters"
        else:
            chars = documents.read(extension, data).chars
            result = f"413: {chars} characters" if chars > LIMIT else f"read: {chars} characters"
    except documents.DocumentTooLarge as exc:
        result = f"413: {exc}"
    except documents.DocumentError as exc:
        result = f"400: {exc}"
    except Exception as exc:  # noqa: BLE001 -- what the service would answer with a 500
        result = f"500: {type(exc).__name__}"
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"bytes": len(data), "seconds": seconds, "rss_mib": rss, "result": result, "budgets": budgets}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="only the cases whose name has this")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per case (default 300)")
    parser.add_argument("--case", help=argparse.SUPPRESS)   # the child's
    args = parser.parse_args()
    if args.case:
        print(json.dumps(one(args.case)))
        return
    with open("/proc/loadavg") as f:
        print(f"load average at the start: {f.read().split()[0]}", file=sys.stderr)
    for name in [n for n in CASES if args.only in n]:
        try:
            done = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True, text=True,
                                  timeout=args.timeout, check=True)
            row = json.loads(done.stdout.splitlines()[-1])
            print(f"{name:58} {row['bytes']:>8} B {row['seconds']:8.2f} s {row['rss_mib']:7.0f} MiB  "
                  f"{row['result'][:90]}", flush=True)
        except subprocess.TimeoutExpired:
            print(f"{name:58} {'':>10} > {args.timeout:.0f} s (stopped)", flush=True)


if __name__ == "__main__":
    main()
