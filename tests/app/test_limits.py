"""Rate limits (app/limits.py) and API keys (app/apikeys.py) through the app: real flask-limiter,
real SQLite key databases under tmp_path, real redis-server processes."""

from __future__ import annotations

import io
import logging
import re
import socket
import sqlite3
import time

import pytest
import redis

from app import StartupError
from app.api import API_PREFIXES
from app.apikeys import KeyDatabase
from app.limits import ALSO_LIMITED, MODEL_ENDPOINTS, MODEL_PATHS
from app.settings import DEFAULTS, SettingsError, from_env, validate
from app.spec import document

OK = {"source": "de", "target": "en"}


def translate(client, ip: str = "127.0.0.1", **params):
    return client.post("/translate", json={"q": "Hallo Welt", **OK, **params}, environ_base={"REMOTE_ADDR": ip})


def assert_translated(response) -> None:
    assert response.status_code == 200, response.get_json()
    assert isinstance(response.get_json()["translatedText"], str)


def assert_limited(response, limit: int) -> None:
    assert response.status_code == 429
    assert response.get_json() == {"error": f"Too many requests: the limit is {limit} per 1 minute"}
    # the oldest request counted leaves the one-minute window within a minute (this test is quick)
    assert 50 <= int(response.headers["Retry-After"]) <= 60


# ------------------------------------------------------------------------------ settings

@pytest.mark.parametrize("name, value, message", [
    ("REQ_LIMIT", "-1", "REQ_LIMIT must be an integer >= 0, got '-1'"),
    ("REQ_LIMIT", "ten", "REQ_LIMIT must be an integer >= 0, got 'ten'"),
    ("REQ_LIMIT", 1.5, "REQ_LIMIT must be an integer >= 0, got 1.5"),
    ("PROXY_COUNT", -1, "PROXY_COUNT must be an integer >= 0, got -1"),
    ("PROXY_COUNT", "yes", "PROXY_COUNT must be an integer >= 0, got 'yes'"),
    ("BATCH_LIMIT", "0", "BATCH_LIMIT must be an integer >= 1, got '0'"),
    ("API_KEYS_DB", 3, "API_KEYS_DB must be a string, got 3"),
    ("REDIS_URL", "localhost:6379", "REDIS_URL must start with redis://, rediss:// or unix://, got 'localhost:6379'"),
])
def test_bad_settings(name, value, message):
    config = dict(DEFAULTS, **{name: value})
    with pytest.raises(SettingsError) as info:
        validate(config)
    assert str(info.value) == message


def test_defaults_limit_nothing():
    config = dict(DEFAULTS)
    validate(config)
    assert (config["REQ_LIMIT"], config["PROXY_COUNT"], config["API_KEYS_DB"], config["BATCH_LIMIT"]) == (0, 0, "", 50)


def test_max_texts_is_read_as_a_deprecated_name_of_batch_limit():
    assert from_env({"MAX_TEXTS": "7"}) == {"BATCH_LIMIT": "7"}
    assert from_env({"MAX_TEXTS": "7", "BATCH_LIMIT": "9"}) == {"BATCH_LIMIT": "9"}


def test_batch_limit_caps_the_texts_of_a_request(make_app):
    client = make_app(BATCH_LIMIT=2).test_client()
    assert client.post("/translate", json={"q": ["a", "b"], **OK}).status_code == 200
    response = client.post("/detect", json={"q": ["a", "b", "c"]})
    assert (response.status_code, response.get_json()) == (
        413, {"error": "Invalid request: 3 texts exceed the limit of 2 texts per request"})


def test_unusable_key_database_stops_the_start(make_app, tmp_path):
    missing_dir = tmp_path / "nowhere" / "keys.db"
    with pytest.raises(StartupError) as info:
        make_app(API_KEYS_DB=str(missing_dir))
    assert str(info.value) == f"API_KEYS_DB: cannot use API key database {str(missing_dir)!r}: unable to open database file"
    not_a_database = tmp_path / "notes.txt"
    not_a_database.write_text("not a database, not at all, " * 100)
    with pytest.raises(StartupError) as info:
        make_app(API_KEYS_DB=str(not_a_database))
    assert str(info.value) == f"API_KEYS_DB: cannot use API key database {str(not_a_database)!r}: file is not a database"


# ------------------------------------------------------------------------------ the limit

def test_without_a_limit_there_is_no_limiter(app):
    assert "rate_limiter" not in app.extensions
    client = app.test_client()
    for _ in range(5):
        assert_translated(translate(client))


def test_the_limit_holds_and_429_says_when_to_retry(make_app):
    client = make_app(REQ_LIMIT=2).test_client()
    assert_translated(translate(client))
    assert_translated(translate(client))
    refused = translate(client)
    assert_limited(refused, 2)
    assert refused.mimetype == "application/json"
    assert refused.headers["Access-Control-Allow-Origin"] == "*"  # a browser client can read the 429
    assert_limited(translate(client), 2)  # refused requests do not count, but the window is still full


def test_one_budget_for_every_limited_endpoint_and_none_for_the_others(make_app):
    client = make_app(REQ_LIMIT=3).test_client()
    assert client.post("/detect", json={"q": "Hallo Welt"}).status_code == 200
    upload = {"file": (io.BytesIO(b"Es regnet."), "a.txt"), **OK}
    assert client.post("/translate_file", data=upload, content_type="multipart/form-data").status_code == 200
    assert client.post("/api/attention", json={"q": "Hallo"}).status_code == 200
    for call in (lambda: translate(client), lambda: client.post("/api/explain", json={"q": "Hallo"}),
                 lambda: client.post("/api/complete", json={"q": "Hallo"}), lambda: client.get("/api/random"),
                 lambda: client.post("/api/beam", json={"q": "Hallo"}), lambda: client.post("/detect", json={"q": "a"})):
        assert_limited(call(), 3)
    # every /api/ route and the pages that translate their query share it
    for call in (lambda: client.post("/api/sentences", json={"q": "Hallo. Welt."}),
                 lambda: client.get("/api/dictionary?q=Termin"), lambda: client.get("/?q=Hallo"),
                 lambda: client.get("/attention?q=Hallo"), lambda: client.post("/api/permalink", json={"q": "Hallo"})):
        assert call().status_code == 429
    # not limited: the pages without a text, status and metadata
    for path in ("/", "/attention", "/health", "/languages", "/frontend/settings", "/spec", "/static/style.css"):
        assert client.get(path).status_code == 200, path


def test_the_limited_endpoints_exist_and_the_spec_gives_exactly_them_a_429(app):
    assert MODEL_ENDPOINTS | ALSO_LIMITED <= set(app.view_functions)
    paths = document()["paths"]
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static" or not rule.rule.startswith(API_PREFIXES):
            continue
        limited = rule.endpoint in MODEL_ENDPOINTS | ALSO_LIMITED or rule.rule.startswith(MODEL_PATHS)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            responses = paths[re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)][method.lower()]["responses"]
            assert ("429" in responses) == limited, (rule.rule, method)
            if "429" in responses:
                assert responses["429"]["headers"]["Retry-After"]["schema"] == {"type": "integer", "minimum": 1}


def test_requests_the_view_refuses_count_too(make_app):
    client = make_app(REQ_LIMIT=1).test_client()
    assert client.post("/translate", json={"q": "Hallo"}).status_code == 400  # no source and target
    assert_limited(translate(client), 1)


@pytest.mark.parametrize("kwargs, status, message", [
    ({"data": {"file": (io.BytesIO(b"x" * 3000), "a.txt"), **OK}, "content_type": "multipart/form-data"},
     413, "Request body too large: the limit is 2048 bytes"),
    ({"data": "{", "content_type": "application/json"}, 400, "Invalid JSON format"),
    ({"data": "q=Hallo", "content_type": "text/plain"}, 415,
     "Unsupported media type text/plain: send application/json or application/x-www-form-urlencoded"),
])
def test_reading_the_key_leaves_broken_requests_their_own_answers(make_app, kwargs, status, message):
    client = make_app(REQ_LIMIT=5, MAX_CONTENT_LENGTH=2048).test_client()
    path = "/translate_file" if "multipart" in kwargs["content_type"] else "/translate"
    response = client.post(path, **kwargs)
    assert (response.status_code, response.get_json()) == (status, {"error": message})


def test_each_address_has_its_own_budget(make_app):
    client = make_app(REQ_LIMIT=1).test_client()
    assert_translated(translate(client, ip="192.0.2.1"))
    assert_limited(translate(client, ip="192.0.2.1"), 1)
    assert_translated(translate(client, ip="192.0.2.2"))


def test_keys_are_ignored_without_configured_keys(make_app):
    """Without keys on the server a made-up api_key is no new client: the address's budget holds."""
    client = make_app(REQ_LIMIT=1).test_client()
    assert_translated(translate(client, api_key="one"))
    assert_limited(translate(client, api_key="two"), 1)


# ------------------------------------------------------------------------------ clients behind proxies

def test_a_spoofed_x_forwarded_for_does_not_evade_the_limit(make_app):
    client = make_app(REQ_LIMIT=1).test_client()
    first = client.post("/translate", json={"q": "Hallo", **OK}, headers={"X-Forwarded-For": "198.51.100.1"})
    assert first.status_code == 200
    spoofed = client.post("/translate", json={"q": "Hallo", **OK}, headers={"X-Forwarded-For": "198.51.100.2"})
    assert_limited(spoofed, 1)


def test_behind_a_proxy_the_forwarded_address_is_the_client(make_app):
    client = make_app(REQ_LIMIT=1, PROXY_COUNT=1).test_client()

    def via_proxy(forwarded_for: str):  # the proxy connects from 10.0.0.1 and appends the client's address
        return client.post("/translate", json={"q": "Hallo", **OK}, headers={"X-Forwarded-For": forwarded_for},
                           environ_base={"REMOTE_ADDR": "10.0.0.1"})

    assert via_proxy("198.51.100.1").status_code == 200
    assert via_proxy("198.51.100.2").status_code == 200
    assert_limited(via_proxy("198.51.100.1"), 1)
    # what the client wrote itself, before the proxy's entry, is not believed
    assert_limited(via_proxy("203.0.113.9, 198.51.100.2"), 1)


# ------------------------------------------------------------------------------ API keys

def test_each_listed_key_has_its_own_budget_of_req_limit(make_app):
    client = make_app(REQ_LIMIT=1, API_KEYS="k1,k2").test_client()
    assert_translated(translate(client, api_key="k1"))
    assert_limited(translate(client, api_key="k1"), 1)
    assert_translated(translate(client, api_key="k2"))  # same address, other key
    # keys are required: missing and unknown keys keep their answers, and count on the address
    missing = translate(client, ip="192.0.2.7")
    assert (missing.status_code, missing.get_json()) == (400, {"error": "Please contact the server operator to get an API key"})
    assert_limited(translate(client, ip="192.0.2.7", api_key="guess"), 1)
    unknown = translate(client, ip="192.0.2.8", api_key="guess")
    assert (unknown.status_code, unknown.get_json()) == (403, {"error": "Invalid API key"})


@pytest.fixture
def key_db(tmp_path) -> KeyDatabase:
    return KeyDatabase(tmp_path / "api_keys.db", create=True)


def test_database_keys_have_their_own_limits(make_app, key_db):
    three, one, unlimited = key_db.add(3), key_db.add(1), key_db.add(0)
    client = make_app(API_KEYS_DB=key_db.path).test_client()
    for _ in range(3):
        assert_translated(translate(client, api_key=three))
    assert_limited(translate(client, api_key=three), 3)
    assert_translated(translate(client, api_key=one))
    assert_limited(translate(client, api_key=one), 1)
    for _ in range(5):
        assert_translated(translate(client, api_key=unlimited))
    assert client.post("/detect", json={"q": "Hallo"}).get_json() == {
        "error": "Please contact the server operator to get an API key"}
    assert client.post("/detect", json={"q": "Hallo", "api_key": "guess"}).get_json() == {"error": "Invalid API key"}
    settings = client.get("/frontend/settings").get_json()
    assert (settings["apiKeys"], settings["keyRequired"]) == (True, True)


def test_keys_added_and_removed_count_from_the_next_request(make_app, key_db):
    client = make_app(API_KEYS_DB=key_db.path).test_client()
    assert translate(client, api_key="later").status_code == 403
    key = key_db.add(2)
    assert_translated(translate(client, api_key=key))
    assert key_db.remove(key)
    assert translate(client, api_key=key).status_code == 403


def test_listed_keys_beside_the_database_get_req_limit(make_app, key_db):
    stored = key_db.add(2)
    client = make_app(API_KEYS_DB=key_db.path, API_KEYS="listed", REQ_LIMIT=1).test_client()
    assert_translated(translate(client, api_key="listed"))
    assert_limited(translate(client, api_key="listed"), 1)
    assert_translated(translate(client, api_key=stored))
    assert_translated(translate(client, api_key=stored))
    assert_limited(translate(client, api_key=stored), 2)


def test_database_keys_work_for_glossaries_and_files(make_app, key_db):
    key = key_db.add(0)
    client = make_app(API_KEYS_DB=key_db.path).test_client()
    created = client.post("/glossaries", json={"name": "g", "entries": {"Welt": "globe"}, "api_key": key})
    assert created.status_code == 201
    assert client.get("/glossaries").status_code == 400
    upload = {"file": (io.BytesIO(b"Es regnet."), "a.txt"), "api_key": key, **OK}
    assert client.post("/translate_file", data=upload, content_type="multipart/form-data").status_code == 200


def test_an_unreadable_key_database_is_a_503_not_a_500(make_app, key_db, tmp_path):
    key = key_db.add(1)
    client = make_app(API_KEYS_DB=key_db.path).test_client()
    (tmp_path / "api_keys.db").write_bytes(b"garbage " * 1000)
    response = translate(client, api_key=key)
    assert (response.status_code, response.get_json()) == (
        503, {"error": "Service unavailable: the API key database cannot be read"})


# ------------------------------------------------------------------------------ Redis

def test_counters_in_redis_are_shared_by_every_instance(make_app, redis_url):
    first = make_app(REQ_LIMIT=2, REDIS_URL=redis_url).test_client()
    second = make_app(REQ_LIMIT=2, REDIS_URL=redis_url).test_client()
    assert_translated(translate(first))
    assert_translated(translate(second))
    assert_limited(translate(first), 2)
    assert_limited(translate(second), 2)
    assert_translated(translate(second, ip="192.0.2.3"))
    stored = [k.decode() for k in redis.Redis.from_url(redis_url).keys("nmt:limits:*")]
    assert len(stored) == 2 and all("ip:" in k for k in stored)


def test_a_redis_outage_keeps_translating_and_limiting(make_app, own_redis, caplog):
    caplog.set_level(logging.WARNING)
    client = make_app(REQ_LIMIT=2, REDIS_URL=own_redis.url).test_client()
    assert_translated(translate(client))
    own_redis.stop()
    # counters go on in the worker's memory, from zero
    assert_translated(translate(client))
    assert_translated(translate(client))
    assert_limited(translate(client), 2)
    warnings = [r.getMessage() for r in caplog.records if r.name == "app.limits"]
    assert warnings and "storage unreachable" in warnings[0]


def test_an_unreachable_redis_at_start_is_no_error(make_app, own_redis):
    own_redis.stop()
    client = make_app(REQ_LIMIT=1, REDIS_URL=own_redis.url).test_client()
    assert_translated(translate(client))
    assert_limited(translate(client), 1)


def test_a_silent_redis_does_not_hang_requests(make_app):
    """A server that accepts connections and never answers (a dead host behind a live port)."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        client = make_app(REQ_LIMIT=5, REDIS_URL=url).test_client()
        started = time.monotonic()
        for _ in range(3):
            assert_translated(translate(client))
        assert time.monotonic() - started < 5


def test_a_key_database_from_libretranslate_works(make_app, tmp_path):
    """LibreTranslate's api_keys.db (ltmanage keys add 1), as its Database class writes it."""
    path = tmp_path / "lt.db"
    with sqlite3.connect(path) as db:
        db.execute('CREATE TABLE IF NOT EXISTS api_keys ("api_key" TEXT NOT NULL, "req_limit" INTEGER NOT NULL, '
                   '"char_limit" INTEGER DEFAULT NULL, PRIMARY KEY("api_key"));')
        db.execute("INSERT INTO api_keys (api_key, req_limit, char_limit) VALUES (?, ?, ?)",
                   ("6e8a4c1e-5a5e-4b8f-9b8c-0c5b9f6d8e21", 1, None))
    client = make_app(API_KEYS_DB=str(path)).test_client()
    assert_translated(translate(client, api_key="6e8a4c1e-5a5e-4b8f-9b8c-0c5b9f6d8e21"))
    assert_limited(translate(client, api_key="6e8a4c1e-5a5e-4b8f-9b8c-0c5b9f6d8e21"), 1)
