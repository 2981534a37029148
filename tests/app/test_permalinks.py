"""Permalinks for texts of any allowed length (app/permalinks.py), the translate page's source
language and the forms without JavaScript (app/pages.py), and the app's own 414 (app/errors.py)."""

from __future__ import annotations

import http.client
import re
import time
from html import unescape
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from app.errors import MAX_QUERY_BYTES
from app.permalinks import URL_TEXT_BYTES, LinkTooLarge, RedisLinkStore, SqliteLinkStore
from app.service import StartupError
from app.shared import connect

LONG = "Guten Morgen. Es regnet. " * 199 + "Wo ist der Bahnhof?"  # 4,994 characters
ENGLISH = "This is a sentence in English about the weather today."


def text_of(response) -> str:
    return response.get_data(as_text=True)


def textarea(html: str) -> str:
    return unescape(re.search(r'<textarea id="q"[^>]*>(.*?)</textarea>', html, re.S).group(1))


def href(html: str, element_id: str) -> str:
    return unescape(re.search(rf'<a id="{element_id}" href="([^"]*)"', html).group(1))


def stored(client, q: str) -> str:
    response = client.post("/api/permalink", json={"q": q})
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


# ------------------------------------------------------------------------------ POST /api/permalink

def test_a_stored_link_opens_the_same_text_and_translation(client):
    assert len(urlencode({"q": LONG})) > MAX_QUERY_BYTES  # far too long for a /?q= URL
    response = client.post("/api/permalink", json={"q": LONG})
    assert response.status_code == 201
    body = response.get_json()
    assert re.fullmatch(r"[A-Za-z0-9_-]{16}", body["id"]) and body["url"] == f"/?p={body['id']}"
    assert stored(client, LONG) == body["id"]  # the same text, the same link: nothing added

    page = client.get(body["url"])
    html = text_of(page)
    assert page.status_code == 200
    assert textarea(html) == LONG
    translation = client.post("/translate", json={"q": LONG, "source": "auto", "target": "en"}).get_json()
    shown = unescape(re.search(r'<p id="translation"[^>]*>(.*?)</p>', html, re.S).group(1))
    assert shown == translation["translatedText"]
    # every link of the page names the text by its stored link, never by a long q
    assert href(html, "permalink") == body["url"]
    assert href(html, "attention-link") == f"/attention?p={body['id']}"
    assert href(html, "beam-link") == f"/beam?p={body['id']}"
    assert href(html, "force-german") == f"/?p={body['id']}&source=de"
    assert 'q=Guten' not in html


def test_attention_and_beam_take_a_stored_link_and_its_sentence(client):
    link = stored(client, LONG)
    html = text_of(client.get(f"/attention?p={link}&s=1"))
    assert 'id="attention-translation">It is raining.</dd>' in html
    assert f'href="/attention?p={link}&amp;s=2"' in html  # the sentence links: p, not q
    assert f'<a id="beam-link" href="/beam?p={link}&amp;s=1">' in html
    html = text_of(client.get(f"/beam?p={link}&s=2"))
    assert '<dd lang="en" id="beam-translation">Good morning.</dd>' in html
    assert f'href="/attention?p={link}&amp;s=2"' in html and f'href="/?p={link}"' in html


@pytest.mark.parametrize("kwargs, status, message", [
    ({"json": {}}, 400, "Invalid request: missing q parameter"),
    ({"json": {"q": ""}}, 400, "Invalid request: missing q parameter"),
    ({"json": {"q": " \n "}}, 400, "Invalid request: q is blank"),
    ({"json": {"q": ["Hallo."]}}, 400, "Invalid request: q must be a string"),
    ({"json": {"q": 5}}, 400, "Invalid request: q must be a string"),
    ({"json": {"q": "a" * 5001}}, 413,
     "Invalid request: 5001 characters exceed the limit of 5000 characters per request"),
    ({"json": {"q": "Hal\x00lo"}}, 400, "Invalid request: q contains a control character (U+0000)"),
    ({"json": ["Hallo."]}, 400, "Invalid JSON format"),
    ({"data": "{", "content_type": "application/json"}, 400, "Invalid JSON format"),
    ({"data": "Hallo", "content_type": "text/plain"}, 415,
     "Unsupported media type text/plain: send application/json or application/x-www-form-urlencoded"),
])
def test_permalink_refuses_bad_input(client, no_logged_errors, kwargs, status, message):
    response = client.post("/api/permalink", **kwargs)
    assert (response.status_code, response.get_json()) == (status, {"error": message})


def test_permalink_takes_a_form_body_and_only_post(client):
    response = client.post("/api/permalink", data={"q": "Guten Morgen."})
    assert response.status_code == 201 and response.get_json()["url"].startswith("/?p=")
    response = client.get("/api/permalink")
    assert (response.status_code, response.get_json()) == (405, {"error": "Method GET not allowed; use POST"})


def test_a_text_larger_than_the_store_is_a_413(make_app):
    client = make_app(MAX_PERMALINK_BYTES=10).test_client()
    response = client.post("/api/permalink", json={"q": "Grüße aus Köln."})
    assert (response.status_code, response.get_json()) == (
        413, {"error": "Invalid request: the text (18 bytes) is larger than the permalink store (10 bytes)"})


@pytest.mark.parametrize("link", ["AAAAAAAAAAAAAAAA", "../../etc/passwd", "x" * 17])
@pytest.mark.parametrize("path", ["/", "/attention", "/beam"])
def test_an_unknown_link_is_a_404_page(client, path, link):
    response = client.get(path, query_string={"p": link})
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert ('role="alert" >This permalink does not exist or has expired: a stored link is kept 30 days after '
            'it was last opened. Paste the text again to translate it.</p>') in text_of(response)


def test_a_stored_text_is_rendered_escaped(client):
    xss = '</textarea><script>alert("x")</script>' * 100
    html = text_of(client.get(f"/?p={stored(client, xss)}"))
    assert "<script>alert" not in html and textarea(html) == xss


# ------------------------------------------------------------------------------ the store

def store(tmp_path, clock, **limits) -> SqliteLinkStore:
    return SqliteLinkStore(tmp_path / "links.sqlite3", clock=lambda: clock[0],
                           **{"max_links": 3, "max_bytes": 1000, "ttl": 100, **limits})


def test_store_evicts_the_least_recently_used_by_count_and_bytes(tmp_path):
    clock = [0.0]
    links = store(tmp_path, clock)
    ids = []
    for text in ("eins", "zwei", "drei"):
        ids.append(links.put(text))
        clock[0] += 1
    assert links.get(ids[0]) == "eins"    # opened: now the most recently used
    clock[0] += 1
    links.put("vier")                     # a fourth: "zwei" goes, not "eins"
    assert [links.get(i) for i in ids] == ["eins", None, "drei"]
    clock[0] += 1
    big = links.put("x" * 997)            # bytes: 3 × 4 + 997 > 1000, and 4 + 997 too
    assert [i for i, _, _ in links.links()] == [big]
    too_large = r"^the text \(1001 bytes\) is larger than the permalink store \(1000 bytes\)$"
    with pytest.raises(LinkTooLarge, match=too_large):
        links.put("ü" * 500 + "a")


def test_store_links_expire_unless_used(tmp_path):
    clock = [0.0]
    links = store(tmp_path, clock)
    kept, dropped = links.put("bleibt"), links.put("geht")
    clock[0] = 90
    assert links.get(kept) == "bleibt"    # renewed until 190
    clock[0] = 150
    assert links.get(dropped) is None and links.get(kept) == "bleibt"
    assert links.put("geht") == dropped   # stored again: the same link


def test_store_survives_a_restart_and_its_ids_are_keyed(tmp_path):
    clock = [0.0]
    first = store(tmp_path, clock)
    link = first.put("Guten Morgen.")
    again = store(tmp_path, clock)        # a new process on the same file
    assert again.get(link) == "Guten Morgen." and again.put("Guten Morgen.") == link
    other = SqliteLinkStore(tmp_path / "other.sqlite3", max_links=3, max_bytes=1000, ttl=100)
    assert other.put("Guten Morgen.") != link  # another store's secret: the text alone does not tell the id


def test_permalink_db_keeps_links_across_app_restarts(make_app, tmp_path):
    path = tmp_path / "links.sqlite3"
    link = stored(make_app(PERMALINK_DB=str(path)).test_client(), LONG)
    assert textarea(text_of(make_app(PERMALINK_DB=str(path)).test_client().get(f"/?p={link}"))) == LONG


def test_a_bad_permalink_db_stops_the_start_with_one_line(make_app, tmp_path):
    path = tmp_path / "missing" / "links.sqlite3"
    with pytest.raises(StartupError, match=rf"^PERMALINK_DB: cannot use '{re.escape(str(path))}' as an SQLite "
                                           r"database: unable to open database file$"):
        make_app(PERMALINK_DB=str(path))


def test_redis_store_is_shared_by_replicas_and_bounded(redis_url):
    first = RedisLinkStore(connect(redis_url), max_links=2, max_bytes=1000, ttl=60)
    second = RedisLinkStore(connect(redis_url), max_links=2, max_bytes=1000, ttl=60)
    a = first.put("eins")
    assert second.get(a) == "eins" and second.put("eins") == a  # one secret for all replicas
    time.sleep(0.002)                      # distinct times of use (milliseconds, Redis's clock)
    b = second.put("zwei")
    time.sleep(0.002)
    assert first.get(a) == "eins"          # "eins" used: "zwei" is the least recently used now
    time.sleep(0.002)
    c = first.put("drei")
    assert [second.get(i) for i in (a, b, c)] == ["eins", None, "drei"]
    with pytest.raises(LinkTooLarge):
        first.put("x" * 1001)
    assert second.get("../../etc/passwd") is None


# ------------------------------------------------------------------------------ the page without JavaScript

def location(response) -> tuple[str, dict]:
    parts = urlsplit(response.headers["Location"])
    return parts.path, parse_qs(parts.query)


@pytest.mark.parametrize("form, expected", [
    ({"q": "Guten Morgen."}, {"q": ["Guten Morgen."]}),
    ({"q": "Guten Morgen.", "source": "de"}, {"q": ["Guten Morgen."], "source": ["de"]}),
    ({"q": "Guten Morgen.", "source": "auto"}, {"q": ["Guten Morgen."]}),
    ({"q": "  "}, {}),
])
def test_the_form_redirects_to_the_texts_page(client, form, expected):
    response = client.post("/", data=form)
    assert response.status_code == 303 and location(response) == ("/", expected)


def test_the_form_gives_a_long_text_a_stored_link(client):
    response = client.post("/", data={"q": LONG, "source": "de"})
    path, args = location(response)
    assert response.status_code == 303 and len(response.headers["Location"]) < 100
    assert path == "/" and args["source"] == ["de"] and client.get(response.headers["Location"]).status_code == 200
    for page in ("/attention", "/beam"):
        response = client.post(page, data={"q": LONG})
        assert response.status_code == 303 and location(response) == (page, {"p": args["p"]})


def test_the_forms_random_gives_a_random_sentence(client, pairs40):
    for form in ({"q": "", "random": "1"}, {"q": " Random "}):
        path, args = location(client.post("/", data=form))
        assert path == "/" and args["q"][0] in {de for de, _ in pairs40}


def test_the_form_refuses_a_bad_source(client):
    response = client.post("/", data={"q": "Hallo.", "source": "fr"})
    assert response.status_code == 400 and 'role="alert" >fr is not supported</p>' in text_of(response)
    assert textarea(text_of(response)) == "Hallo."


def test_a_long_q_that_fits_the_server_still_links_by_a_stored_link(client):
    q = "Guten Morgen. " * 150
    assert URL_TEXT_BYTES < len(urlencode({"q": q})) <= MAX_QUERY_BYTES
    html = text_of(client.get("/", query_string={"q": q}))
    assert re.fullmatch(r"/\?p=[A-Za-z0-9_-]{16}", href(html, "permalink"))
    assert href(html, "attention-link").startswith("/attention?p=")


# ------------------------------------------------------------------------------ source language

def test_auto_detection_is_shown_with_the_english_hint(client):
    html = text_of(client.get("/", query_string={"q": ENGLISH}))
    assert re.search(r'<span id="detected" class="detected">Detected: English \(\d+%\)</span>', html)
    assert '<p id="english-hint" class="hint" >' in html
    assert 'This looks like <span data-language-name="target">English</span>:' in html
    assert '<option value="auto" selected>' in html
    assert f'<p id="translation" class="output" lang="en">{ENGLISH}</p>' in html  # kept as it is
    assert href(html, "force-german") == "/?" + urlencode({"q": ENGLISH, "source": "de"})

    german = text_of(client.get("/", query_string={"q": ENGLISH, "source": "de"}))
    assert '<option value="de" selected>' in german
    assert '<span id="detected" class="detected"></span>' in german
    assert 'id="english-hint" class="hint" hidden' in german
    assert f'<p id="translation" class="output" lang="en">{ENGLISH}</p>' not in german  # translated as German
    assert href(german, "permalink") == "/?" + urlencode({"q": ENGLISH, "source": "de"})


def test_german_input_is_detected_without_a_hint(client):
    html = text_of(client.get("/", query_string={"q": "Das Wetter ist heute schön."}))
    assert re.search(r'Detected: German \(\d+%\)', html) and 'id="english-hint" class="hint" hidden' in html
    assert "The weather is nice today." in html


def test_character_counter_counts_what_the_server_counts(client):
    html = text_of(client.get("/", query_string={"q": "Grüße 🎶"}))
    assert '<span id="char-count" class="char-count">7 / 5,000<' in html
    assert '<span id="char-count" class="char-count">0 / 5,000<' in text_of(client.get("/"))


@pytest.mark.parametrize("source, message", [
    ("fr", "fr is not supported"),
    # English into German (the target English text takes) is not served by the de-en model alone
    ("en", "German (de) is not available as a target language from English (en): this service translates "
            "German (de) into English (en)"),
])
def test_a_bad_source_is_a_400_page(client, source, message):
    response = client.get("/", query_string={"q": "Hallo.", "source": source})
    assert response.status_code == 400 and f'role="alert" >{message}</p>' in text_of(response)


# ------------------------------------------------------------------------------ 414

def message_414(size: int) -> str:
    return (f"URI too long: the query string has {size} bytes, more than the limit of {MAX_QUERY_BYTES} bytes "
            "(send long texts in a request body, or paste them into the form)")


@pytest.mark.parametrize("method, path", [("GET", "/"), ("GET", "/attention"), ("GET", "/nowhere")])
def test_a_too_long_query_is_our_own_414_page(client, method, path):
    query = "q=" + "a" * (MAX_QUERY_BYTES - 1)
    response = client.open(path + "?" + query, method=method)
    assert response.status_code == 414 and response.mimetype == "text/html"
    assert f"<h1>414: {message_414(len(query))}</h1>" in text_of(response)


@pytest.mark.parametrize("method, path", [("GET", "/api/random"), ("POST", "/translate"), ("POST", "/api/permalink"),
                                          ("GET", "/health")])
def test_a_too_long_query_is_a_json_414_on_the_api(client, method, path):
    query = "q=" + "a" * MAX_QUERY_BYTES
    response = client.open(path + "?" + query, method=method)
    assert (response.status_code, response.get_json()) == (414, {"error": message_414(len(query))})


def test_a_query_at_the_limit_is_served(client):
    query = "q=Hallo.&x=" + "a" * (MAX_QUERY_BYTES - len("q=Hallo.&x="))
    assert len(query) == MAX_QUERY_BYTES and client.get("/?" + query).status_code == 200


def raw_get(live_server, target: str) -> tuple[int, str, str]:
    conn = http.client.HTTPConnection("127.0.0.1", live_server.port, timeout=30)
    try:
        conn.request("GET", target)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read().decode()
    finally:
        conn.close()


def test_gunicorn_lets_long_request_lines_through_to_our_414(live_server):
    query = "q=" + "a" * 6000                   # over gunicorn's default limit (4094), under 8190
    status, kind, body = raw_get(live_server, "/?" + query)
    assert status == 414 and kind.startswith("text/html") and f"<h1>414: {message_414(len(query))}</h1>" in body
    status, kind, body = raw_get(live_server, "/api/random?" + query)
    assert status == 414 and kind == "application/json" and message_414(len(query)) in body
