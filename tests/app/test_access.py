"""One key check, one rate limit and one time budget for every route that runs the model
(``app.limits``), JSON that nests too deep, and who may read a glossary (``app.glossaries``)."""

from __future__ import annotations

import io
from html import escape

import pytest

from app import create_app
from app.validation import MAX_JSON_DEPTH, TOO_DEEP
from pipeline import deadline

KEY_MISSING = "Please contact the server operator to get an API key"
KEY_INVALID = "Invalid API key"

# Each route that runs the model or the detector, as a client calls it: (method, path, form?, body)
TRANSLATE = {"q": "Hallo Welt", "source": "de", "target": "en"}
ROUTES = {
    "translate": ("POST", "/translate", TRANSLATE),
    "detect": ("POST", "/detect", {"q": "Hallo Welt"}),
    "translate_file": ("POST", "/translate_file", "file"),
    "attention": ("POST", "/api/attention", {"q": "Hallo Welt"}),
    "explain": ("POST", "/api/explain", {"q": "Hallo Welt", "translation": "Hello world"}),
    "complete": ("POST", "/api/complete", {"q": "Hallo Welt", "prefix": "Hello"}),
    "beam": ("POST", "/api/beam", {"q": "Hallo Welt"}),
    "sentences": ("POST", "/api/sentences", {"q": "Hallo Welt. Gute Nacht."}),
    "permalink": ("POST", "/api/permalink", {"q": "Hallo Welt"}),
    "random": ("GET", "/api/random", {}),
    "dictionary": ("GET", "/api/dictionary", {"q": "Haus"}),
    "page with q": ("GET", "/", {"q": "Hallo Welt"}),
    "attention page with q": ("GET", "/attention", {"q": "Hallo Welt"}),
    "beam page with q": ("GET", "/beam", {"q": "Hallo Welt"}),
}


def call(client, route: str, api_key: str | None = None, **environ):
    method, path, params = ROUTES[route]
    extra = {"environ_base": environ} if environ else {}
    if params == "file":
        data = {"file": (io.BytesIO("Hallo Welt".encode()), "a.txt"), "source": "de", "target": "en"}
        if api_key is not None:
            data["api_key"] = api_key
        return client.post(path, data=data, content_type="multipart/form-data", **extra)
    params = dict(params, **({"api_key": api_key} if api_key is not None else {}))
    if method == "GET":
        return client.get(path, query_string=params, **extra)
    return client.post(path, json=params, **extra)


@pytest.fixture(scope="module")
def keyed(app_config):
    return create_app({**app_config, "API_KEYS": "k1"})


@pytest.mark.parametrize("route", ROUTES)
def test_every_model_route_needs_a_valid_key(keyed, route):
    client = keyed.test_client()
    missing, wrong, right = call(client, route), call(client, route, "k2"), call(client, route, "k1")
    assert missing.status_code == 400 and KEY_MISSING in missing.get_data(as_text=True)
    assert wrong.status_code == 403 and KEY_INVALID in wrong.get_data(as_text=True)
    assert right.status_code in (200, 201), right.get_data(as_text=True)
    # marked apart from other errors, for the translate page's key field (static/api.js)
    assert missing.headers["API-Key-Refused"] == wrong.headers["API-Key-Refused"] == "1"
    assert "API-Key-Refused" not in right.headers
    if route in ("translate", "permalink", "attention"):
        assert missing.get_json() == {"error": KEY_MISSING}


def test_pages_without_a_text_and_a_stored_link_need_no_key(keyed):
    client = keyed.test_client()
    assert client.get("/").status_code == 200 and client.get("/attention").status_code == 200
    link = client.post("/api/permalink", json={"q": "Guten Morgen", "api_key": "k1"}).get_json()["id"]
    assert client.get("/", query_string={"p": link}).status_code == 400             # it translates: a key
    assert client.get("/", query_string={"p": link, "api_key": "k1"}).status_code == 200


def test_a_text_s_page_without_a_key_is_the_translate_page_untranslated(keyed, monkeypatch):
    """/?q= (and /?p=) runs the model: without a key it does not, and answers with the translate
    page holding the text, the server's message and data-key-refused, for the page's script to
    translate it with the key kept in the browser."""
    calls = []
    monkeypatch.setattr(keyed.extensions["translation_service"].translator, "translate",
                        lambda texts, *search: calls.append(texts) or [""] * len(texts))
    client = keyed.test_client()
    for key, status, message in [(None, 400, KEY_MISSING), ("k2", 403, KEY_INVALID)]:
        for q in ("Wo ist der Bahnhof?", "Es regnet. <b>Heute</b>"):
            response = client.get("/", query_string={"q": q, "source": "de", **({"api_key": key} if key else {})})
            html = response.get_data(as_text=True)
            assert (response.status_code, response.headers["API-Key-Refused"]) == (status, "1")
            assert f'<p id="error" class="error" role="alert" >{message}</p>' in html
            assert f'spellcheck="false">{escape(q)}</textarea>' in html and "data-key-refused" in html
            assert 'id="api-key"' in html and 'id="result" aria-labelledby="result-title" hidden' in html
            assert '<option value="de" selected>' in html
    assert calls == []
    # HEAD runs the page's view too: it is a model route as GET is (it was neither checked nor counted)
    assert client.head("/", query_string={"q": "Wo ist der Bahnhof?"}).status_code == 400
    assert client.head("/beam", query_string={"q": "Wo ist der Bahnhof?"}).status_code == 400
    assert calls == []
    # the other pages of a text answer with the error page
    beam = client.get("/beam", query_string={"q": "Wo ist der Bahnhof?"})
    assert beam.status_code == 400 and 'id="api-key"' not in beam.get_data(as_text=True)
    assert KEY_MISSING in beam.get_data(as_text=True)


def test_the_key_field_is_on_the_page_only_where_keys_are_required(client, keyed):
    assert 'id="api-key"' not in client.get("/").get_data(as_text=True)
    html = keyed.test_client().get("/").get_data(as_text=True)
    assert '<input type="text" id="api-key"' in html and "data-key-refused" not in html


@pytest.fixture(scope="module")
def limited(app_config):
    return create_app({**app_config, "REQ_LIMIT": 2})


@pytest.mark.parametrize("route", ROUTES)
def test_every_model_route_counts_against_one_limit(limited, route):
    client = limited.test_client()
    address = f"10.0.0.{list(ROUTES).index(route) + 1}"   # a client of its own for each route
    assert [call(client, route, REMOTE_ADDR=address).status_code < 400 for _ in range(2)] == [True, True]
    over = call(client, route, REMOTE_ADDR=address)
    assert over.status_code == 429 and "Too many requests: the limit is 2 per 1 minute" in over.get_data(as_text=True)
    # one budget for all of them: this client's other routes are over it too
    other = "translate" if route != "translate" else "detect"
    assert call(client, other, REMOTE_ADDR=address).status_code == 429


def test_what_runs_no_model_is_not_limited(limited):
    client = limited.test_client()
    for _ in range(4):
        for path in ("/", "/languages", "/health", "/frontend/settings", "/spec"):
            assert client.get(path, environ_base={"REMOTE_ADDR": "10.0.1.1"}).status_code == 200


def nested(depth: int) -> str:
    return "[" * depth + '"Hallo"' + "]" * depth


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH, 40, 1000, 5000])
@pytest.mark.parametrize("path", ["/translate", "/detect", "/api/attention", "/api/permalink", "/glossaries"])
def test_json_nested_too_deep_is_a_400(client, path, depth, no_logged_errors):
    body = '{"q": %s, "source": "de", "target": "en", "name": "n", "entries": %s}' % (nested(depth), nested(depth))
    response = client.post(path, data=body, content_type="application/json")
    assert response.status_code == 400
    if depth >= MAX_JSON_DEPTH:   # the body's object is one level more than the list inside it
        assert response.get_json() == {"error": TOO_DEEP}


def test_a_glossary_given_as_json_text_nested_too_deep_is_a_400(client):
    entries = '{"Haus": ' + nested(3000) + "}"
    response = client.post("/translate", data={**TRANSLATE, "glossary": entries})
    assert (response.status_code, response.get_json()) == (400, {"error": TOO_DEEP})


def test_a_request_past_its_time_budget_is_a_503(make_app, monkeypatch, no_logged_errors):
    client = make_app(REQUEST_TIMEOUT=5).test_client()
    assert client.post("/translate", json=TRANSLATE).status_code == 200
    now = iter(range(0, 10_000, 10))   # every look at the clock: ten seconds later
    monkeypatch.setattr(deadline.time, "monotonic", lambda: next(now))
    response = client.post("/translate", json={**TRANSLATE, "q": "Guten Morgen. Gute Nacht."})
    assert (response.status_code, response.get_json()) == (503, {"error": (
        "Service unavailable: the request took longer than its limit of 5 seconds; send less text at once")})
    assert client.get("/languages").status_code == 200            # no budget where no model runs


def test_no_budget_without_a_timeout(make_app, monkeypatch):
    client = make_app(REQUEST_TIMEOUT=0).test_client()
    now = iter(range(0, 10_000, 10))
    monkeypatch.setattr(deadline.time, "monotonic", lambda: next(now))
    assert client.post("/translate", json=TRANSLATE).status_code == 200


def test_a_budget_is_per_block_and_restored():
    assert deadline.check() is None
    with deadline.budget(0.001):
        import time

        time.sleep(0.01)
        with pytest.raises(deadline.DeadlineExceeded, match=r"^the work took longer than its budget of 0.001 seconds$"):
            deadline.check()
        with deadline.budget(None):
            deadline.check()
    deadline.check()


# ------------------------------------------------------------------------------ glossaries

ENTRIES = {"Haus": "building"}


def test_anonymous_glossaries_are_read_by_id_and_never_listed(client):
    made = client.post("/glossaries", json={"name": "mine", "entries": ENTRIES}, environ_base={"REMOTE_ADDR": "10.1.0.1"})
    assert made.status_code == 201
    glossary_id = made.get_json()["id"]
    listing = client.get("/glossaries")
    assert listing.status_code == 403 and listing.get_json() == {"error": (
        "Forbidden: without API keys glossaries are anonymous and not listed; read one by the id its creation returned")}
    other = {"environ_base": {"REMOTE_ADDR": "10.1.0.2"}}   # whoever has the id
    assert client.get(f"/glossaries/{glossary_id}", **other).get_json()["entries"] == ENTRIES
    assert client.post("/translate", json={**TRANSLATE, "q": "Das Haus", "glossary": glossary_id}, **other).status_code == 200
    assert client.delete(f"/glossaries/{glossary_id}", **other).status_code == 204
    assert client.get(f"/glossaries/{glossary_id}").status_code == 404


def test_one_client_cannot_fill_the_store_for_the_others(make_app):
    client = make_app(MAX_GLOSSARIES=2).test_client()
    first, second = {"environ_base": {"REMOTE_ADDR": "10.2.0.1"}}, {"environ_base": {"REMOTE_ADDR": "10.2.0.2"}}
    assert [client.post("/glossaries", json={"name": f"g{i}", "entries": ENTRIES}, **first).status_code
            for i in range(3)] == [201, 201, 413]
    assert client.post("/glossaries", json={"name": "g", "entries": ENTRIES}, **second).status_code == 201


def test_creating_glossaries_counts_against_the_limit(make_app):
    client = make_app(REQ_LIMIT=2).test_client()
    answers = [client.post("/glossaries", json={"name": f"g{i}", "entries": ENTRIES}).status_code for i in range(3)]
    assert answers == [201, 201, 429]


# ------------------------------------------------------------------------------ API_KEYS_ORIGIN

ORIGIN = "https://translate.example.com"


@pytest.fixture(scope="module")
def with_origin(app_config):
    return create_app({**app_config, "API_KEYS": "k1", "API_KEYS_ORIGIN": ORIGIN + "/"})


# A browser on a page of the origin: Origin on a POST; on a GET (fetch, a link, the no-JavaScript
# form's redirect to /?q=) none, and the page's address as Referer.
FROM_THE_ORIGIN = {"Origin": {"HTTP_ORIGIN": ORIGIN}, "Referer": {"HTTP_REFERER": ORIGIN + "/?q=Hallo+Welt"}}


@pytest.mark.parametrize("sent", FROM_THE_ORIGIN)
@pytest.mark.parametrize("route", ROUTES)
def test_every_model_route_runs_without_a_key_from_the_origin(with_origin, route, sent):
    client = with_origin.test_client()
    response = call(client, route, **FROM_THE_ORIGIN[sent])
    assert response.status_code in (200, 201), response.get_data(as_text=True)
    wrong = call(client, route, "k2", **FROM_THE_ORIGIN[sent])   # a key sent is checked all the same
    assert wrong.status_code == 403 and KEY_INVALID in wrong.get_data(as_text=True)
    assert call(client, route, "k1", **FROM_THE_ORIGIN[sent]).status_code in (200, 201)


@pytest.mark.parametrize("headers", [
    {},                                                        # no browser: curl, a script
    {"HTTP_ORIGIN": "https://other.example"},
    {"HTTP_ORIGIN": "http://translate.example.com"},           # another scheme
    {"HTTP_ORIGIN": "https://translate.example.com:8443"},     # another port
    {"HTTP_ORIGIN": "https://translate.example.com.other.example"},  # no prefix match
    {"HTTP_ORIGIN": "null"},                                   # a sandboxed page, a file
    {"HTTP_ORIGIN": ""},
    {"HTTP_REFERER": "https://other.example/?u=https://translate.example.com"},
    {"HTTP_REFERER": "not a URL"},
    {"HTTP_ORIGIN": "https://other.example", "HTTP_REFERER": ORIGIN + "/"},  # where there is an Origin, it decides
], ids=repr)
@pytest.mark.parametrize("route", ["translate", "page with q", "dictionary", "translate_file"])
def test_other_origins_need_a_key(with_origin, route, headers):
    response = call(with_origin.test_client(), route, **headers)
    assert (response.status_code, response.headers["API-Key-Refused"]) == (400, "1")
    assert KEY_MISSING in response.get_data(as_text=True)
    if route == "translate":
        assert response.get_json() == {"error": KEY_MISSING}


def test_the_origin_is_compared_as_browsers_write_it(with_origin):
    client = with_origin.test_client()
    for sent in ("https://Translate.Example.com", "https://translate.example.com:443"):
        assert call(client, "translate", HTTP_ORIGIN=sent).status_code == 200


def test_the_origin_changes_nothing_without_keys(make_app):
    client = make_app(API_KEYS_ORIGIN=ORIGIN).test_client()
    for headers in ({}, {"HTTP_ORIGIN": "https://other.example"}):
        assert call(client, "translate", **headers).status_code == 200


def test_requests_from_the_origin_count_against_the_limit(make_app):
    client = make_app(API_KEYS="k1", API_KEYS_ORIGIN=ORIGIN, REQ_LIMIT=2).test_client()
    answers = [call(client, route, HTTP_ORIGIN=ORIGIN, REMOTE_ADDR="10.3.0.1")
               for route in ("translate", "page with q", "detect")]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert answers[2].get_json() == {"error": "Too many requests: the limit is 2 per 1 minute"}
    # counted by address: another address has its own budget; a key, its own
    assert call(client, "translate", HTTP_ORIGIN=ORIGIN, REMOTE_ADDR="10.3.0.2").status_code == 200
    assert call(client, "translate", "k1", HTTP_ORIGIN=ORIGIN, REMOTE_ADDR="10.3.0.1").status_code == 200


def test_glossaries_made_without_a_key_from_the_origin_are_anonymous(with_origin):
    client = with_origin.test_client()
    page = {"environ_base": {"HTTP_ORIGIN": ORIGIN}}
    made = client.post("/glossaries", json={"name": "site", "entries": ENTRIES}, **page)
    assert made.status_code == 201
    glossary_id = made.get_json()["id"]
    assert client.get(f"/glossaries/{glossary_id}", **page).get_json()["entries"] == ENTRIES
    used = client.post("/translate", json={**TRANSLATE, "q": "Das Haus", "glossary": glossary_id}, **page)
    assert used.status_code == 200 and "building" in used.get_json()["translatedText"]
    listing = client.get("/glossaries", **page)
    assert listing.status_code == 403 and listing.get_json() == {"error": (
        "Forbidden: without API keys glossaries are anonymous and not listed; read one by the id its creation returned")}
    # a key's glossaries are its own: neither the origin's page nor another key reads them, nor it theirs
    keyed_id = client.post("/glossaries", json={"name": "k1's", "entries": ENTRIES, "api_key": "k1"}).get_json()["id"]
    assert client.get(f"/glossaries/{keyed_id}", **page).status_code == 404
    assert client.get(f"/glossaries/{glossary_id}", query_string={"api_key": "k1"}).status_code == 404
    assert [g["id"] for g in client.get("/glossaries", query_string={"api_key": "k1"}).get_json()["glossaries"]] == [keyed_id]
    # without the origin, no key: refused
    refused = client.get(f"/glossaries/{glossary_id}")
    assert (refused.status_code, refused.get_json()) == (400, {"error": KEY_MISSING})
    assert client.delete(f"/glossaries/{glossary_id}", **page).status_code == 204
