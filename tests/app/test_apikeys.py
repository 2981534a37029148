"""app/apikeys.py as the server uses it: the database commands.keys writes, and one of plain keys
(LibreTranslate's) converted to hashes when opened."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from app import apikeys
from app.apikeys import KeyDatabase, stored_form
from tests.conftest import ROOT


def test_the_command_as_run_and_the_server_use_the_same_keys(tmp_path, make_app):
    db = tmp_path / "api_keys.db"
    done = subprocess.run([sys.executable, "-m", "commands.keys", "--db", str(db), "add", "--req-limit", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    key = done.stdout.strip()
    client = make_app(API_KEYS_DB=str(db)).test_client()
    body = {"q": "Hallo", "source": "de", "target": "en", "api_key": key}
    assert client.post("/translate", json=body).status_code == 200
    assert client.post("/translate", json=body).status_code == 429


def test_a_database_of_plain_keys_is_converted_to_hashes_when_opened(tmp_path, make_app):
    """LibreTranslate's api_keys.db, and ours before hashing, hold the keys themselves."""
    db = tmp_path / "api_keys.db"
    with sqlite3.connect(db) as conn:
        conn.execute(apikeys.SCHEMA)
        conn.executemany("INSERT INTO api_keys (api_key, req_limit) VALUES (?, ?)", [("plain-one", 7), ("plain-two", 0)])
    conn.close()
    database = KeyDatabase(db)
    assert database.keys() == [(stored_form("plain-one"), 7), (stored_form("plain-two"), 0)]
    assert database.req_limit("plain-one") == 7 and database.req_limit(stored_form("plain-one")) is None
    assert KeyDatabase(db).keys() == database.keys()   # converted once: opening again changes nothing
    client = make_app(API_KEYS_DB=str(db)).test_client()
    body = {"q": "Hallo", "source": "de", "target": "en"}
    assert client.post("/translate", json={**body, "api_key": "plain-two"}).status_code == 200
    assert client.post("/translate", json={**body, "api_key": stored_form("plain-two")}).status_code == 403
