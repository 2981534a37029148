"""SQLite as the app's stores use it (glossaries, permalinks, API keys): stdlib ``sqlite3``, one
connection per call and explicit transactions.

A connection per call, because gunicorn's forked workers must never share one, and because a
change made by another process (``python -m commands.keys``, another worker) is then seen at once.

- ``connect(path)``: an autocommit connection (``isolation_level=None``) with foreign keys on;
  ``create=False`` opens only a file that exists, so that reading a path that went away never
  creates an empty database.
- ``transaction(db)``: ``BEGIN IMMEDIATE`` … ``COMMIT``, or ``ROLLBACK`` when the block raises.
  IMMEDIATE takes the write lock at the start, so two writers queue instead of failing halfway.
- ``session(path)``: both, for one call's work.
- ``private_path(prefix, name)``: a database file in a private temporary directory, removed when
  the process that made it (gunicorn's master, not a forked worker) exits.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from urllib.parse import quote

TIMEOUT = 10.0  # seconds a call waits for another connection's write


def connect(path: str, *, create: bool = True, timeout: float = TIMEOUT) -> sqlite3.Connection:
    """An autocommit connection to the database at ``path`` (created if missing unless
    ``create=False``); raises ``sqlite3.Error`` when it cannot be opened."""
    mode = "rwc" if create else "rw"
    db = sqlite3.connect(f"file:{quote(os.fspath(path))}?mode={mode}", uri=True, timeout=timeout,
                         isolation_level=None)
    db.execute("PRAGMA foreign_keys = ON")
    return db


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on ``db``: committed when the block ends, rolled back when it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


@contextmanager
def session(path: str, *, create: bool = True, timeout: float = TIMEOUT) -> Iterator[sqlite3.Connection]:
    """A connection to ``path`` in one transaction, closed afterwards."""
    with closing(connect(path, create=create, timeout=timeout)) as db, transaction(db):
        yield db


def private_path(prefix: str, name: str) -> str:
    """A path for a database in a new private temporary directory, removed at exit by the process
    that made it only (a forked worker exiting must not delete its master's data)."""
    directory = tempfile.mkdtemp(prefix=prefix)
    creator = os.getpid()
    atexit.register(lambda: os.getpid() == creator and shutil.rmtree(directory, ignore_errors=True))
    return str(Path(directory) / name)
