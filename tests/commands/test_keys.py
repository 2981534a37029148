"""python -m commands.keys (commands/keys.py): the API key database's command, on real SQLite files."""

from __future__ import annotations

import os
import sqlite3
from concurrent.futures import ThreadPoolExecutor

import pytest

from app import apikeys
from app.apikeys import KeyDatabase, stored_form
from commands import keys

PROG = "python -m commands.keys"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = keys.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_add_list_remove(tmp_path, capsys):
    db = str(tmp_path / "api_keys.db")
    status, out, err = run(capsys, "--db", db, "add", "--req-limit", "120")
    assert (status, err) == (0, "")
    first = out.strip()
    assert len(first) == 32 and out == first + "\n"  # secrets.token_urlsafe(24)
    second = run(capsys, "--db", db, "add", "--req-limit", "0")[1].strip()
    assert second != first
    # the database keeps hashes alone: list shows those, and remove takes the key or its hash
    assert run(capsys, "--db", db, "list") == (0, f"{stored_form(first)}\t120\n{stored_form(second)}\t0\n", "")
    assert first not in open(db, "rb").read().decode("latin-1")
    assert run(capsys, "--db", db, "remove", first) == (0, "", "")
    assert run(capsys, "--db", db, "list") == (0, f"{stored_form(second)}\t0\n", "")
    assert KeyDatabase(db).req_limit(second) == 0 and KeyDatabase(db).req_limit(first) is None
    assert run(capsys, "--db", db, "remove", stored_form(second)) == (0, "", "")
    assert KeyDatabase(db).keys() == []


def test_a_key_never_starts_with_a_dash(tmp_path, capsys, monkeypatch):
    """A key is an argument of `remove`: '-abc...' would read as an option (the suite once drew one)."""
    drawn = iter(["-" + "a" * 31, "b" * 32])
    monkeypatch.setattr(apikeys.secrets, "token_urlsafe", lambda n: next(drawn))
    db = str(tmp_path / "api_keys.db")
    assert run(capsys, "--db", db, "add", "--req-limit", "1") == (0, "b" * 32 + "\n", "")
    # one made before this rule (or by hand) is still removed after "--"
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO api_keys (api_key, req_limit) VALUES (?, ?)", ("-old", 3))
    conn.close()
    assert run(capsys, "--db", db, "remove", "--", "-old") == (0, "", "")
    assert KeyDatabase(db).keys() == [(stored_form("b" * 32), 1)]


def test_db_defaults_to_the_servers_setting(tmp_path, capsys, monkeypatch):
    db = tmp_path / "from_env.db"
    monkeypatch.setenv("API_KEYS_DB", str(db))
    key = run(capsys, "add", "--req-limit", "5")[1].strip()
    assert KeyDatabase(db).keys() == [(stored_form(key), 5)]
    assert run(capsys, "--db", str(tmp_path / "other.db"), "add", "--req-limit", "1")[0] == 0  # --db wins
    assert KeyDatabase(db).keys() == [(stored_form(key), 5)]


@pytest.fixture
def db(tmp_path) -> str:
    path = tmp_path / "api_keys.db"
    KeyDatabase(path, create=True)
    return str(path)


NOT_A_LIMIT = "add: error: argument --req-limit: must be an integer from 0 to 1000000000, got "


@pytest.mark.parametrize("argv, message", [
    (["add", "--req-limit", "abc"], NOT_A_LIMIT + "'abc'"),
    (["add", "--req-limit", "-1"], NOT_A_LIMIT + "'-1'"),
    (["add", "--req-limit", "1.5"], NOT_A_LIMIT + "'1.5'"),
    (["add", "--req-limit", ""], NOT_A_LIMIT + "''"),
    (["add", "--req-limit", "1000000001"], NOT_A_LIMIT + "'1000000001'"),
    (["add"], "add: error: the following arguments are required: --req-limit"),
    (["remove", "nope"], ": error: no such API key in DB: 'nope'"),
    (["remove"], "remove: error: the following arguments are required: key"),
    ([], ": error: the following arguments are required: {add,list,remove}"),
    (["drop"], ": error: argument {add,list,remove}: invalid choice: 'drop' (choose from 'add', 'list', 'remove')"),
])
def test_bad_input_is_one_line_and_exit_2(db, capsys, argv, message):
    """``message`` follows "python -m commands.keys" (and a space before a subcommand's name); DB is --db's path."""
    status, out, err = run(capsys, "--db", db, *argv)
    prefix = PROG if message.startswith(":") else PROG + " "
    assert (status, out, err) == (2, "", prefix + message.replace("DB", repr(db)) + "\n")
    assert KeyDatabase(db).keys() == []  # nothing written


def test_bad_databases(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("API_KEYS_DB", raising=False)
    missing = str(tmp_path / "missing.db")
    no_dir = str(tmp_path / "no" / "dir.db")
    not_db = tmp_path / "notes.txt"
    not_db.write_text("not a database, not at all, " * 100)
    cases = [
        (["list"], "no database: give --db PATH or set API_KEYS_DB"),
        (["--db", " ", "list"], "no database: give --db PATH or set API_KEYS_DB"),
        (["--db", missing, "list"], f"cannot open API key database {missing!r}: no such file"),
        (["--db", missing, "remove", "k"], f"cannot open API key database {missing!r}: no such file"),
        (["--db", str(tmp_path), "list"], f"cannot open API key database {str(tmp_path)!r}: no such file"),
        (["--db", no_dir, "add", "--req-limit", "1"], f"cannot use API key database {no_dir!r}: unable to open database file"),
        (["--db", str(not_db), "list"], f"cannot use API key database {str(not_db)!r}: file is not a database"),
        (["--db", str(not_db), "add", "--req-limit", "1"], f"cannot use API key database {str(not_db)!r}: file is not a database"),
    ]
    for argv, message in cases:
        assert run(capsys, *argv) == (2, "", f"{PROG}: error: {message}\n"), argv
    assert not os.path.exists(missing)  # list and remove never create a database


def test_concurrent_adds_are_all_kept(db):
    """Each add is one transaction: writers from several threads (connections) lose nothing."""
    database = KeyDatabase(db)
    with ThreadPoolExecutor(4) as pool:
        added = list(pool.map(lambda n: database.add(n), range(40)))
    assert len(set(added)) == 40
    assert sorted(database.keys(), key=lambda row: row[1]) == [(stored_form(key), n) for n, key in enumerate(added)]


def test_a_locked_database_is_one_line_and_changes_nothing(db, capsys, monkeypatch):
    kept = KeyDatabase(db).add(3)
    monkeypatch.setattr(apikeys, "TIMEOUT", 0.1)  # seconds a write waits for another writer
    other = sqlite3.connect(db, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")  # another process is writing
        assert run(capsys, "--db", db, "add", "--req-limit", "4") == (
            2, "", f"{PROG}: error: cannot use API key database {db!r}: database is locked\n")
        assert run(capsys, "--db", db, "remove", kept)[0] == 2
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert KeyDatabase(db).keys() == [(stored_form(kept), 3)]
