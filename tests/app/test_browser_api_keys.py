"""The translate page on a server that requires API keys, in real headless Chromium (Debian's
/usr/bin/chromium, driven by Playwright) against the gunicorn server of the Procfile: the key field,
the server's message next to it for a missing or wrong key, every request of the page carrying the
key once typed, the key kept across a reload (localStorage), a text's link opened without a key,
and API_KEYS_ORIGIN: the site's own origin translating without one."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from playwright.sync_api import expect

from bench import server

from .conftest import CHROMIUM, isolated_environ
from .test_browser_translate import new_page

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")

KEYS = ("b2pN7-first-key", "Zq4x-second-key")
KEY_MISSING = "Please contact the server operator to get an API key"
KEY_INVALID = "Invalid API key"
# The routes whose requests must carry the key (app/limits.py's model routes, and glossaries).
CHECKED = ("/translate", "/translate_file", "/detect", "/glossaries", "/api/")


@pytest.fixture(scope="module")
def keyed_server(tiny_checkpoint, corpus_path, tmp_path_factory):
    """A server with API keys whose API_KEYS_ORIGIN is its own address by the name localhost:
    pages opened as http://127.0.0.1:PORT are another origin and need a key, pages opened as
    http://localhost:PORT are the origin and need none."""
    port = server.free_port()
    log_path = tmp_path_factory.mktemp("keyed_server") / "server.log"
    env = server.procfile_env(isolated_environ(), PORT=str(port), MODEL_PATH=str(tiny_checkpoint),
                              CORPUS_PATH=str(corpus_path), WEB_CONCURRENCY="1", BEAM_SIZE="1",
                              API_KEYS=",".join(KEYS), API_KEYS_ORIGIN=f"http://localhost:{port}")
    with open(log_path, "wb") as log:
        process = server.start_procfile(env, log)
        try:
            server.wait_healthy(port, process)
            yield port
        finally:
            server.stop(process)


def sent_key(request) -> str | None:
    """The api_key a request of the page carries: in its JSON body or its query string."""
    query = parse_qs(urlsplit(request.url).query)
    if "api_key" in query:
        return query["api_key"][0]
    body = request.post_data_buffer or b""
    if request.headers.get("content-type", "").startswith("application/json"):
        return json.loads(body).get("api_key")
    return None


def checked_requests(page) -> list:
    """The page's requests to routes that check the key, as they are sent."""
    sent = []
    page.on("request", lambda r: urlsplit(r.url).path.startswith(CHECKED) and sent.append(r))
    return sent


def only_refusals(problems) -> bool:
    """Chromium reports each refused request (400, 403) in the console; nothing else may show."""
    return all("status of 400" in p or "status of 403" in p for p in problems)


@pytest.mark.parametrize("q, english", [("Wo ist der Bahnhof?", "Where is the train station?"),
                                        ("Ich mag Kaffee.", "I like coffee.")])
def test_the_key_field_gives_the_servers_message_and_keeps_the_key(browser, keyed_server, q, english):
    context, page, problems = new_page(browser)
    sent = checked_requests(page)
    page.goto(f"http://127.0.0.1:{keyed_server}/")
    field = page.get_by_label("API key")
    message = page.locator("#api-key-message")
    expect(field).to_be_visible()
    expect(field).to_have_value("")

    page.get_by_label("German text").fill(q)                       # no key: the server's message
    expect(message).to_have_text(KEY_MISSING)
    expect(page.locator("#error")).to_have_text(KEY_MISSING)
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#result")).to_be_hidden()

    field.fill("not-a-key")                                       # a wrong key: translated again, refused
    expect(message).to_have_text(KEY_INVALID)
    expect(page.locator("#error")).to_have_text(KEY_INVALID)
    assert sent_key(sent[-1]) == "not-a-key"

    field.fill(KEYS[1])                                           # a valid key: translated
    expect(page.locator("#translation")).to_have_text(english)
    expect(message).to_have_text("")
    expect(page.locator("#error")).to_be_hidden()
    assert field.get_attribute("aria-invalid") is None
    expect(page.locator("#translation .word").first).to_be_visible()  # the inspector's calls carry it too
    assert len(sent) > 3 and {sent_key(r) for r in sent[2:]} == {KEYS[1]}, [r.url for r in sent]

    # a reload of the text's page (/?q=...): the server does not translate it without a key, the
    # page does, with the key this browser kept
    assert parse_qs(urlsplit(page.url).query) == {"q": [q]}
    page.reload()
    expect(field).to_have_value(KEYS[1])
    expect(page.locator("#translation")).to_have_text(english)
    expect(message).to_have_text("")
    context.close()
    assert only_refusals(problems), problems


def test_a_text_s_link_opened_without_a_key_asks_for_one(browser, keyed_server):
    context, page, problems = new_page(browser)
    response = page.goto(f"http://127.0.0.1:{keyed_server}/?" + urlencode({"q": "Guten Morgen."}))
    assert response.status == 400
    expect(page.get_by_label("German text")).to_have_value("Guten Morgen.")
    expect(page.locator("#api-key-message")).to_have_text(KEY_MISSING)   # the page's own try, refused
    page.get_by_label("API key").fill(KEYS[0])
    expect(page.locator("#translation")).to_have_text("Good morning.")
    context.close()
    assert only_refusals(problems), problems


def test_files_and_the_glossary_send_the_key(browser, keyed_server, tmp_path):
    context, page, problems = new_page(browser)
    checked_requests(page)
    base = f"http://127.0.0.1:{keyed_server}"
    page.goto(base + "/")
    path = tmp_path / "Brief.txt"
    path.write_text("Guten Morgen.\n", encoding="utf-8")
    page.get_by_role("tab", name="Files").click()
    page.get_by_label("German file to translate").set_input_files(str(path))
    page.get_by_role("button", name="Translate file").click()
    expect(page.locator("#file-error")).to_have_text(KEY_MISSING)
    expect(page.locator("#api-key-message")).to_have_text(KEY_MISSING)

    page.get_by_label("API key").fill(KEYS[0])
    page.get_by_role("button", name="Translate file").click()
    # translated: the server, which requires a key from this origin, had it (Chromium does not hand
    # Playwright the body of an upload, so the form cannot be read here)
    expect(page.locator("#file-link")).to_have_text("Brief_en.txt")
    expect(page.locator("#api-key-message")).to_have_text("")

    page.locator("#glossary > summary").click()                   # stored under the key
    page.get_by_label("German term 1").fill("Morgen")
    page.get_by_label("English term 1").fill("dawn")
    page.get_by_role("button", name="Save as stored glossary").click()
    expect(page.locator("#glossary-save-status")).to_contain_text("Stored as glossary ")
    stored = page.request.get(base + "/glossaries", params={"api_key": KEYS[0]}).json()["glossaries"]
    assert [g["name"] for g in stored] == ["My glossary"]
    assert page.request.get(base + "/glossaries", params={"api_key": KEYS[1]}).json()["glossaries"] == []
    context.close()
    assert only_refusals(problems), problems


def test_the_api_keys_origin_translates_without_a_key(browser, keyed_server):
    context, page, problems = new_page(browser)
    sent = checked_requests(page)
    page.goto(f"http://localhost:{keyed_server}/")
    expect(page.get_by_label("API key")).to_be_visible()           # a key still gives its own limit
    page.get_by_label("German text").fill("Ich mag Kaffee.")       # a POST: the browser's Origin
    expect(page.locator("#translation .word").first).to_be_visible()
    expect(page.locator("#translation")).to_have_text("I like coffee.")
    page.get_by_role("button", name="Random", exact=True).click()              # a GET: no Origin, the Referer
    expect(page.locator("#references li").first).to_be_visible()
    page.get_by_role("link", name="Beam search behind this translation").click()  # a link: the Referer
    page.wait_for_url("**/beam?q=*")
    expect(page.locator("#beam-translation")).not_to_be_empty()
    expect(page.locator("#error")).to_be_hidden()
    assert sent and all(sent_key(r) is None for r in sent)
    context.close()
    assert problems == []
