"""app.sqlite: the connection and transaction rules the app's SQLite stores share."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest

from app import sqlite


def test_a_transaction_commits_or_rolls_back_as_a_whole(tmp_path):
    path = str(tmp_path / "a db?#.sqlite3")  # characters a URI would misread are quoted
    with sqlite.session(path) as db:
        db.execute("CREATE TABLE t (x INTEGER)")
        db.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(ZeroDivisionError):
        with sqlite.session(path) as db:
            db.execute("INSERT INTO t VALUES (2)")
            1 / 0
    with closing(sqlite.connect(path)) as db:
        assert db.execute("SELECT x FROM t").fetchall() == [(1,)]
    assert os.listdir(tmp_path) == ["a db?#.sqlite3"]


def test_foreign_keys_are_enforced(tmp_path):
    with sqlite.session(str(tmp_path / "db")) as db:
        db.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
        db.execute("CREATE TABLE child (parent INTEGER REFERENCES parent (id))")
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY constraint failed"):
        with sqlite.session(str(tmp_path / "db")) as db:
            db.execute("INSERT INTO child VALUES (7)")


def test_without_create_a_missing_file_is_an_error_and_stays_missing(tmp_path):
    path = tmp_path / "gone.sqlite3"
    with pytest.raises(sqlite3.OperationalError, match="unable to open database file"):
        sqlite.connect(str(path), create=False)
    assert not path.exists()


@pytest.mark.slow
def test_a_private_database_is_removed_when_its_creator_exits_not_when_a_child_does(tmp_path):
    script = (
        "import os, sys\n"
        "from app import sqlite\n"
        "path = sqlite.private_path('test-sqlite-', 'x.sqlite3')\n"
        "with sqlite.session(path) as db: db.execute('CREATE TABLE t (x)')\n"
        "pid = os.fork()\n"
        "if pid == 0: sys.exit(0)\n"  # a forked worker exiting through atexit
        "os.waitpid(pid, 0)\n"
        "print(path, os.path.exists(path))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    path, existed = out.stdout.split()
    assert existed == "True"
    assert not os.path.exists(os.path.dirname(path))
