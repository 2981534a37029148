"""Manage the API key database (the server's ``API_KEYS_DB``), as LibreTranslate's ``ltmanage keys``.

    python -m commands.keys [--db PATH] add --req-limit N   a new random key with N requests per minute
                                                            (0 = no limit); prints the key
    python -m commands.keys [--db PATH] list                every key as stored and its limit:
                                                            sha256:<hex><TAB>N per line
    python -m commands.keys [--db PATH] remove KEY          delete a key (the key, or its sha256:<hex>)

The database keeps each key's SHA-256 only (``app/apikeys.py``), so ``add`` prints the key the one
time it exists in the clear: hand it over then.

--db defaults to the API_KEYS_DB environment variable. add creates the database where the file
is missing; list and remove need it. Every change is one SQLite transaction, and a running server
sees it from its next request on (no restart). A new key never starts with "-"; one that does
(made by hand) is removed with ``remove -- KEY``.
Exit status: 0, or 2 with one "error:" line on stderr (a bad number, an unknown key, a database
that cannot be opened).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from app.apikeys import MAX_REQ_LIMIT, KeyDatabase

from . import cli

PROG = "python -m commands.keys"


def _req_limit(text: str) -> int:
    number = int(text) if text.strip().isdecimal() else -1
    if not 0 <= number <= MAX_REQ_LIMIT:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to {MAX_REQ_LIMIT}, got {text!r}")
    return number


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = cli.make_parser(PROG, __doc__)
    p.add_argument("--db", metavar="PATH", default=os.environ.get("API_KEYS_DB", ""),
                   help="the SQLite file (default: $API_KEYS_DB)")
    commands = p.add_subparsers(dest="command", metavar="{add,list,remove}", parser_class=cli.Parser)
    commands.required = True
    add = commands.add_parser("add", help="add a new random key")
    add.add_argument("--req-limit", type=_req_limit, required=True, metavar="N",
                     help="requests per minute for this key; 0 = no limit")
    commands.add_parser("list", help="print every key and its limit")
    remove = commands.add_parser("remove", help="delete a key")
    remove.add_argument("key")
    args = p.parse_args(argv)
    if not args.db.strip():
        p.error("no database: give --db PATH or set API_KEYS_DB")
    return args


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    database = KeyDatabase(args.db, create=args.command == "add")
    if args.command == "add":
        print(database.add(args.req_limit))
    elif args.command == "list":
        for key, req_limit in database.keys():
            print(f"{key}\t{req_limit}")
    elif not database.remove(args.key):
        raise ValueError(f"no such API key in {args.db!r}: {args.key!r}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (see the module docstring)."""
    return cli.run(_main, argv, prog=PROG)


if __name__ == "__main__":
    sys.exit(main())
