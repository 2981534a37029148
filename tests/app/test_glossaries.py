"""Glossaries in the web service (app/glossaries.py): POST/GET /glossaries, GET/DELETE
/glossaries/<id> on a real SQLite database, their errors, API keys, the settings, and the glossaries
/translate refuses, on the tiny model. What the release model writes with a glossary (inline or
stored, in forms, HTML and files): tests/test_release.py."""

from __future__ import annotations

import sqlite3

import pytest

from app import create_app
from app.glossaries import SqliteGlossaryStore
from app.service import StartupError

ENTRIES = {"Rechnung": "invoice", "Termin": "appointment"}  # in key order: the test client sorts JSON keys
UNKNOWN = "AAAAAAAAAAAAAAAA"


@pytest.fixture(scope="module")
def config(app_config, tmp_path_factory) -> dict:
    """The tests' settings (the tiny checkpoint on the PyTorch engine) with a glossary database of
    this module's own."""
    return {**app_config, "GLOSSARY_DB": str(tmp_path_factory.mktemp("glossaries") / "glossaries.sqlite3")}


@pytest.fixture(scope="module")
def glossary_app(config):
    return create_app(config)


@pytest.fixture
def make_app(config):
    """create_app with some settings changed."""
    return lambda **changes: create_app({**config, **changes})


@pytest.fixture
def client(glossary_app, tmp_path, monkeypatch):
    """The module's app with an empty glossary store of its own."""
    glossaries = glossary_app.extensions["glossaries"]
    monkeypatch.setattr(glossaries, "store", SqliteGlossaryStore(tmp_path / "glossaries.sqlite3", max_glossaries=1000))
    return glossary_app.test_client()


def stored_names(client) -> list[str]:
    """The names of the glossaries in the client's app's store, oldest first."""
    with sqlite3.connect(client.application.extensions["glossaries"].store.path) as db:
        return [name for (name,) in db.execute("SELECT name FROM glossaries ORDER BY created, rowid")]


def create(client, entries=ENTRIES, name="Praxis", **extra):
    response = client.post("/glossaries", json={"name": name, "entries": entries, **extra})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


# ------------------------------------------------------------------------------ the API

def test_create_list_read_delete(client):
    response = client.post("/glossaries", json={"name": "  Praxis  Müller ", "entries": {" Termin ": " appointment",
                                                                                        "Rechnung": "invoice"}})
    assert response.status_code == 201
    body = response.get_json()
    assert set(body) == {"id", "name", "entries", "created", "entry_count"}
    assert body["name"] == "Praxis Müller"
    assert body["entries"] == ENTRIES and body["entry_count"] == 2
    assert len(body["id"]) == 16 and body["created"].endswith("Z")
    assert response.headers["Location"] == f"/glossaries/{body['id']}"
    assert client.get(f"/glossaries/{body['id']}").get_json() == body
    second = create(client, {"Haus": "building"}, name="Bau")
    assert stored_names(client) == ["Praxis Müller", "Bau"]
    # without API keys glossaries are anonymous: read by id, never listed (tests/app/test_access.py)
    assert client.get("/glossaries").status_code == 403
    response = client.delete(f"/glossaries/{body['id']}")
    assert response.status_code == 204 and response.data == b""
    assert client.get(f"/glossaries/{body['id']}").status_code == 404
    assert client.delete(f"/glossaries/{body['id']}").get_json() == {"error": f"Glossary {body['id']!r} not found"}
    assert stored_names(client) == ["Bau"] and client.get(f"/glossaries/{second['id']}").get_json() == second


def test_glossaries_are_stored_in_the_sqlite_database_and_outlive_the_app(make_app, tmp_path):
    path = tmp_path / "glossaries.sqlite3"
    body = create(make_app(GLOSSARY_DB=str(path)).test_client())
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name, entry_count FROM glossaries").fetchall() == [("Praxis", 2)]
        assert db.execute("SELECT position, term, translation FROM glossary_entries ORDER BY position").fetchall() == [
            (0, "Rechnung", "invoice"), (1, "Termin", "appointment")]
    again = make_app(GLOSSARY_DB=str(path)).test_client()
    assert again.get(f"/glossaries/{body['id']}").get_json() == body
    assert again.delete(f"/glossaries/{body['id']}").status_code == 204
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM glossary_entries").fetchone() == (0,)  # deleted with it


def test_a_form_body_takes_the_entries_as_json(client):
    response = client.post("/glossaries", data={"name": "Praxis", "entries": '{"Termin": "appointment"}'})
    assert response.status_code == 201
    assert response.get_json()["entries"] == {"Termin": "appointment"}


TOO_MANY = {f"Wort{i}": f"word {i}" for i in range(10_000)}


@pytest.mark.parametrize("body, status, message", [
    ({"entries": ENTRIES}, 400, "Invalid request: missing name parameter"),
    ({"name": "", "entries": ENTRIES}, 400, "Invalid request: missing name parameter"),
    ({"name": 5, "entries": ENTRIES}, 400, "Invalid request: name must be a string"),
    ({"name": "  ", "entries": ENTRIES}, 400, "Invalid request: name is blank"),
    ({"name": "x" * 101, "entries": ENTRIES}, 400, "Invalid request: name has 101 characters, more than the limit of 100"),
    ({"name": "a\x07b", "entries": ENTRIES}, 400, "Invalid request: name contains a control character (U+0007)"),
    ({"name": "Praxis"}, 400, "Invalid request: missing entries parameter"),
    ({"name": "Praxis", "entries": []}, 400,
     "Invalid request: entries must be an object of German term -> English term pairs"),
    ({"name": "Praxis", "entries": "Termin=appointment"}, 400,
     "Invalid request: entries must be an object of German term -> English term pairs"),
    ({"name": "Praxis", "entries": "{Termin"}, 400, "Invalid request: entries is not valid JSON"),
    ({"name": "Praxis", "entries": {}}, 400, "Invalid request: entries has no terms"),
    ({"name": "Praxis", "entries": {"": "appointment"}}, 400, "Invalid request: entries: a term is empty"),
    ({"name": "Praxis", "entries": {" ": "appointment"}}, 400, "Invalid request: entries: a term is empty"),
    ({"name": "Praxis", "entries": {"Termin": ""}}, 400,
     "Invalid request: entries: the translation of 'Termin' is empty"),
    ({"name": "Praxis", "entries": {"Termin": 5}}, 400,
     "Invalid request: entries: the translation of 'Termin' must be a string, got 5"),
    ({"name": "Praxis", "entries": {"Termin": "appointment", "termin": "date"}}, 400,
     "Invalid request: entries: the term 'termin' is given twice (also as 'Termin')"),
    ({"name": "Praxis", "entries": {"Termin": "appointment", "Termin ": "date"}}, 400,
     "Invalid request: entries: the term 'Termin' is given twice (also as 'Termin')"),
    ({"name": "Praxis", "entries": {"42": "forty-two"}}, 400, "Invalid request: entries: the term '42' has no letters"),
    ({"name": "Praxis", "entries": {"Ter\x07min": "x"}}, 400,
     "Invalid request: entries contains a control character (U+0007)"),
    ({"name": "Praxis", "entries": TOO_MANY}, 413,
     "Invalid request: entries has 10000 entries, more than the limit of 1000"),
])
def test_bad_glossaries_are_refused_with_a_reason(client, body, status, message):
    response = client.post("/glossaries", json=body)
    assert (response.status_code, response.get_json()) == (status, {"error": message})
    assert stored_names(client) == []


@pytest.mark.parametrize("method, path, status, message", [
    ("get", f"/glossaries/{UNKNOWN}", 404, f"Glossary {UNKNOWN!r} not found"),
    ("delete", f"/glossaries/{UNKNOWN}", 404, f"Glossary {UNKNOWN!r} not found"),
    ("get", "/glossaries/nope", 404, "Glossary 'nope' not found"),
    ("delete", "/glossaries/nope", 404, "Glossary 'nope' not found"),
    ("put", "/glossaries", 405, "Method PUT not allowed; use GET, POST"),
    ("post", f"/glossaries/{UNKNOWN}", 405, "Method POST not allowed; use DELETE, GET"),
    ("get", "/glossaries/a/b", 404, "Not found"),
])
def test_unknown_glossaries_and_methods_are_json_errors(client, method, path, status, message):
    response = getattr(client, method)(path)
    assert (response.status_code, response.get_json()) == (status, {"error": message})


def test_a_body_that_is_not_json_or_a_form_is_refused(client):
    response = client.post("/glossaries", data="name=x", content_type="text/plain")
    assert response.status_code == 415
    response = client.post("/glossaries", data="[1, 2]", content_type="application/json")
    assert (response.status_code, response.get_json()) == (400, {"error": "Invalid JSON format"})


def test_limits_are_settings(make_app, tmp_path):
    client = make_app(GLOSSARY_DB=str(tmp_path / "g.sqlite3"), MAX_GLOSSARIES=1, MAX_GLOSSARY_ENTRIES=2).test_client()
    response = client.post("/glossaries", json={"name": "x", "entries": {"A": "a", "B": "b", "C": "c"}})
    assert (response.status_code, response.get_json()) == (
        413, {"error": "Invalid request: entries has 3 entries, more than the limit of 2"})
    create(client, {"A": "a", "B": "b"})
    response = client.post("/glossaries", json={"name": "y", "entries": {"A": "a"}})
    assert (response.status_code, response.get_json()) == (
        413, {"error": "Invalid request: the limit of 1 stored glossaries is reached: delete one first"})
    response = client.post("/translate", json={"q": "Hallo", "source": "de", "target": "en",
                                               "glossary": {"A": "a", "B": "b", "C": "c"}})
    assert (response.status_code, response.get_json()) == (
        413, {"error": "Invalid request: glossary has 3 entries, more than the limit of 2"})


def test_the_api_is_usable_from_other_origins(client):
    response = client.get("/glossaries")
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "DELETE" in response.headers["Access-Control-Allow-Methods"]
    preflight = client.options(f"/glossaries/{UNKNOWN}", headers={"Origin": "https://example.org",
                                                                  "Access-Control-Request-Method": "DELETE"})
    assert preflight.status_code == 200 and "DELETE" in preflight.headers["Access-Control-Allow-Methods"]


# ------------------------------------------------------------------------------ API keys

def test_with_api_keys_every_call_needs_one_and_glossaries_belong_to_their_key(make_app, tmp_path):
    client = make_app(GLOSSARY_DB=str(tmp_path / "g.sqlite3"), API_KEYS="k1,k2").test_client()
    for method, path in (("post", "/glossaries"), ("get", "/glossaries"), ("get", f"/glossaries/{UNKNOWN}"),
                         ("delete", f"/glossaries/{UNKNOWN}")):
        response = getattr(client, method)(path)
        assert (response.status_code, response.get_json()) == (
            400, {"error": "Please contact the server operator to get an API key"}), (method, path)
        response = getattr(client, method)(path + "?api_key=nope")
        assert (response.status_code, response.get_json()) == (403, {"error": "Invalid API key"}), (method, path)
    mine = create(client, api_key="k1")
    assert client.get("/glossaries?api_key=k1").get_json()["glossaries"][0]["id"] == mine["id"]
    assert client.get("/glossaries?api_key=k2").get_json() == {"glossaries": []}
    assert client.get(f"/glossaries/{mine['id']}?api_key=k2").status_code == 404
    assert client.delete(f"/glossaries/{mine['id']}?api_key=k2").status_code == 404
    response = client.post("/translate", json={"q": "Hallo", "source": "de", "target": "en", "api_key": "k2",
                                               "glossary": mine["id"]})
    assert (response.status_code, response.get_json()) == (404, {"error": f"Glossary {mine['id']!r} not found"})
    response = client.post("/translate", json={"q": "Hallo", "source": "de", "target": "en", "api_key": "k1",
                                               "glossary": mine["id"]})
    assert response.status_code == 200
    assert client.get(f"/glossaries/{mine['id']}?api_key=k1").get_json() == mine
    assert client.delete(f"/glossaries/{mine['id']}?api_key=k1").status_code == 204


# ------------------------------------------------------------------------------ settings

@pytest.mark.parametrize("changes, message", [
    ({"MAX_GLOSSARY_ENTRIES": 0}, "MAX_GLOSSARY_ENTRIES must be an integer >= 1, got 0"),
    ({"MAX_GLOSSARIES": "many"}, "MAX_GLOSSARIES must be an integer >= 1, got 'many'"),
])
def test_bad_settings_stop_the_start(make_app, changes, message):
    with pytest.raises(StartupError) as error:
        make_app(**changes)
    assert str(error.value) == message


def test_an_unusable_database_stops_the_start(make_app, tmp_path):
    with pytest.raises(StartupError, match=r"^GLOSSARY_DB: cannot use '.*' as an SQLite database: "):
        make_app(GLOSSARY_DB=str(tmp_path))  # a directory


def test_without_a_dictionary_the_rules_inflect(make_app, tmp_path):
    app = make_app(GLOSSARY_DB=str(tmp_path / "g.sqlite3"), DICTIONARY_PATH="")
    assert not app.extensions["glossaries"].inflections.available
    assert app.test_client().post("/translate", json={"q": "Hallo", "source": "de", "target": "en",
                                                      "glossary": ENTRIES}).status_code == 200


def test_glossaries_take_their_plurals_from_the_dictionary_index(make_app, tmp_path):
    ding = tmp_path / "de-en"
    ding.write_text("# Version :: test\nBank {f} | Banken {pl} :: bank | banks\n", encoding="utf-8")
    app = make_app(GLOSSARY_DB=str(tmp_path / "g.sqlite3"), DICTIONARY_PATH=str(ding))
    inflections = app.extensions["glossaries"].inflections
    assert inflections.dictionary is app.extensions["dictionary"].index  # one index, read once
    assert inflections.nouns["Bank"] == ("f", ("Banken",))


def test_the_store_is_bounded_per_owner(tmp_path):
    store = SqliteGlossaryStore(tmp_path / "g.sqlite3", max_glossaries=1)
    first = store.create("a", "one", [("Termin", "appointment")])
    store.create("b", "two", [("Termin", "date")])
    assert [g.name for g in store.list("a")] == ["one"] and store.get("b", first.id) is None
    assert store.get("a", first.id).entries == (("Termin", "appointment"),)
    assert not store.delete("b", first.id) and store.delete("a", first.id)


# ------------------------------------------------------------------------------ /translate's glossary

@pytest.mark.parametrize("glossary, status, message", [
    (5, 400, "Invalid request: glossary must be an object of German term -> English term pairs "
             "or the id of a stored glossary"),
    ([["Termin", "appointment"]], 400, "Invalid request: glossary must be an object of German term -> English "
                                       "term pairs or the id of a stored glossary"),
    (True, 400, "Invalid request: glossary must be an object of German term -> English term pairs "
                "or the id of a stored glossary"),
    ({"": "appointment"}, 400, "Invalid request: glossary: a term is empty"),
    ({"Termin": ""}, 400, "Invalid request: glossary: the translation of 'Termin' is empty"),
    ({"TERMIN": "b", "Termin": "a"}, 400, "Invalid request: glossary: the term 'Termin' is given twice (also as 'TERMIN')"),
    ({"Termin": ["appointment"]}, 400,
     "Invalid request: glossary: the translation of 'Termin' must be a string, got ['appointment']"),
    ("{Termin", 400, "Invalid request: glossary is not valid JSON"),
    ({f"Wort{i}": "w" for i in range(1001)}, 413, "Invalid request: glossary has 1001 entries, more than the limit of 1000"),
    (UNKNOWN, 404, f"Glossary {UNKNOWN!r} not found"),
    ("nope", 404, "Glossary 'nope' not found"),
])
def test_bad_glossaries_for_translate_are_refused_with_a_reason(client, glossary, status, message):
    response = client.post("/translate", json={"q": "Ich habe einen Termin.", "source": "de", "target": "en",
                                               "glossary": glossary})
    assert (response.status_code, response.get_json()) == (status, {"error": message})
