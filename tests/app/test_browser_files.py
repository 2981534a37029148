"""The translate page's Files tab and glossary editor, in real headless Chromium (Debian's
/usr/bin/chromium, driven by Playwright) against the gunicorn server of the Procfile: a file
chosen, translated by POST /translate_file and downloaded once from its link, the server's
error for a format it does not take, the glossary changing the translation (and kept across a
reload), its inline messages (the server's), and both features from the keyboard alone."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from app.files import NOT_SUPPORTED
from pipeline.documents import FORMATS

from .conftest import CHROMIUM
from .test_browser_translate import new_page, tab_to, translate_requests

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")

LINES = ["Guten Morgen.", "Es regnet.", "", "Wo ist der Bahnhof?"]
SENTENCE = "Die Katze schläft."
TERMS = {"Katze": "kitty"}


def translated(page, live_server, q, **fields):
    """What POST /translate answers (the same fixture model as the page's)."""
    return page.request.post(live_server.url + "/translate",
                             data={"q": q, "source": "de", "target": "en", **fields}).json()


def expected_file(page, live_server) -> str:
    """The .txt of LINES translated as /translate translates its lines (blank lines kept)."""
    lines = [line for line in LINES if line]
    english = iter(translated(page, live_server, lines)["translatedText"])
    return "".join((next(english) if line else "") + "\n" for line in LINES)


def txt_file(tmp_path: Path, name: str = "Brief.txt") -> Path:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in LINES), encoding="utf-8")
    return path


def open_files_tab(page) -> None:
    page.get_by_role("tab", name="Files").click()
    expect(page.get_by_role("tab", name="Files")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel", name="Files")).to_be_visible()
    expect(page.get_by_label("German text")).to_be_hidden()


def server_message(page, live_server, glossary) -> str:
    """The server's message for a refused glossary, as the editor shows it: without the prefix,
    with a capital letter."""
    answer = page.request.post(live_server.url + "/translate",
                               data={"q": SENTENCE, "source": "de", "target": "en", "glossary": glossary})
    assert answer.status == 400
    message = answer.json()["error"].removeprefix("Invalid request: glossary: ")
    return message[0].upper() + message[1:]


# ------------------------------------------------------------------------------ files

def test_a_file_is_translated_and_downloaded_once(page, live_server, tmp_path):
    expected = expected_file(page, live_server)
    assert expected.splitlines()[0] == "Good morning." and expected.count("\n") == 4
    path = txt_file(tmp_path)
    page.goto(live_server.url + "/")
    expect(page.get_by_role("tab", name="Text")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel", name="Files")).to_be_hidden()
    open_files_tab(page)
    # the server's own list (GET /frontend/settings), also the chooser's filter
    expect(page.locator("#file-formats-list")).to_have_text(", ".join(FORMATS))
    assert page.get_by_label("German file to translate").get_attribute("accept") == ",".join(FORMATS)
    expect(page.locator("#file-chosen")).to_have_text("")  # the chooser itself says "No file chosen", once
    assert "No file chosen" not in page.locator("#panel-files").inner_text()

    page.get_by_label("German file to translate").set_input_files(path)
    expect(page.locator("#file-chosen")).to_have_text(f"Brief.txt ({path.stat().st_size} bytes)")
    page.get_by_role("button", name="Translate file").click()
    link = page.get_by_role("link", name="Brief_en.txt")
    expect(link).to_be_visible()
    expect(page.locator("#file-status")).to_have_text(
        "Translated: Brief_en.txt is ready to download.")
    expect(page.locator("#file-error")).to_be_hidden()
    href = link.get_attribute("href")
    assert urlsplit(href).path.startswith("/download_file/") and href.endswith(".Brief_en.txt")

    with page.expect_download() as info:
        link.click()
    download = info.value
    assert download.suggested_filename == "Brief_en.txt"
    assert Path(download.path()).read_text(encoding="utf-8") == expected
    # one download: the link goes, a note says why, and the server has forgotten the file
    expect(link).to_be_hidden()
    expect(page.locator("#file-used")).to_have_text(
        "Downloaded. The link worked once: translate the file again for another copy.")
    assert page.request.get(href).status == 404


def test_an_unsupported_file_shows_the_servers_message(browser, live_server):
    context, page, problems = new_page(browser)
    page.goto(live_server.url + "/")
    open_files_tab(page)
    page.get_by_label("German file to translate").set_input_files(
        {"name": "setup.exe", "mimeType": "application/octet-stream", "buffer": b"MZ\x90\x00" * 64})
    expect(page.locator("#file-chosen")).to_have_text("setup.exe (256 bytes)")
    page.get_by_role("button", name="Translate file").click()
    error = page.get_by_role("alert").filter(has_text="Invalid request")
    expect(error).to_have_text(NOT_SUPPORTED)
    expect(page.locator("#file-result")).to_be_hidden()
    expect(page.locator("#file-status")).to_have_text("")
    context.close()
    # the 400 itself is the one thing Chromium reports
    assert len(problems) <= 1 and all("status of 400" in p for p in problems), problems


# ------------------------------------------------------------------------------ glossary

def test_the_glossary_changes_the_translation_and_is_kept(page, live_server):
    plain = translated(page, live_server, SENTENCE, source="auto")["translatedText"]
    with_terms = translated(page, live_server, SENTENCE, source="auto", glossary=TERMS)["translatedText"]
    assert "kitty" not in plain and "kitty" in with_terms  # the fixture model's own difference
    sent = translate_requests(page)
    page.goto(live_server.url + "/")
    page.get_by_label("German text").fill(SENTENCE)
    expect(page.locator("#translation")).to_have_text(plain)
    assert "glossary" not in sent[-1]

    page.locator("#glossary > summary").click()  # its summary: the editor opens
    page.get_by_label("German term 1").fill("Katze")
    expect(page.locator("#glossary-count")).to_have_text("")  # no translation yet: not an entry
    page.get_by_label("English term 1").fill("kitty")
    expect(page.locator("#glossary-count")).to_have_text("(1 term)")
    expect(page.locator("#translation")).to_have_text(with_terms)  # translated again at once
    assert sent[-1] == {"q": SENTENCE, "source": "auto", "target": "en", "format": "text", "glossary": TERMS}

    # typing sends it too
    page.get_by_label("German text").press("End")
    page.keyboard.type(" Es regnet.", delay=30)
    expect(page.locator("#translation")).to_contain_text("kitty")
    expect(page.locator("#translation")).to_contain_text("It is raining.")
    assert sent[-1]["q"] == SENTENCE + " Es regnet." and sent[-1]["glossary"] == TERMS

    # a reload: the same glossary, the server's plain translation translated again with it
    page.get_by_label("German text").fill(SENTENCE)
    expect(page.locator("#translation")).to_have_text(with_terms)
    page.reload()
    expect(page.get_by_label("German term 1")).to_have_value("Katze")
    expect(page.get_by_label("English term 1")).to_have_value("kitty")
    expect(page.locator("#translation")).to_have_text(with_terms)

    page.get_by_role("button", name="Remove term 1").click()
    expect(page.locator("#translation")).to_have_text(plain)
    expect(page.locator("#glossary-count")).to_have_text("")
    assert "glossary" not in sent[-1]
    page.reload()
    expect(page.get_by_label("German term 1")).to_have_value("")
    expect(page.locator("#translation")).to_have_text(plain)


def test_the_glossary_applies_to_files(page, live_server, tmp_path):
    path = tmp_path / "Katze.txt"
    path.write_text(SENTENCE + "\n", encoding="utf-8")
    expected = translated(page, live_server, SENTENCE, glossary=TERMS)["translatedText"] + "\n"
    page.goto(live_server.url + "/")
    page.locator("#glossary > summary").click()
    page.get_by_label("German term 1").fill("Katze")
    page.get_by_label("English term 1").fill("kitty")
    open_files_tab(page)
    page.get_by_label("German file to translate").set_input_files(path)
    page.get_by_role("button", name="Translate file").click()
    with page.expect_download() as info:
        page.get_by_role("link", name="Katze_en.txt").click()
    assert Path(info.value.path()).read_text(encoding="utf-8") == expected
    assert "kitty" in expected


def test_glossary_messages_are_the_servers(page, live_server):
    sent = translate_requests(page)
    page.goto(live_server.url + "/")
    page.get_by_label("German text").fill(SENTENCE)
    expect(page.locator("#translation")).not_to_be_empty()
    page.locator("#glossary > summary").click()
    page.get_by_label("German term 1").fill("Katze")
    page.get_by_label("English term 1").fill("kitty")
    expect(page.locator("#translation")).to_contain_text("kitty")

    page.get_by_role("button", name="Add term").click()
    expect(page.get_by_label("German term 2")).to_be_focused()
    page.keyboard.type("katze")
    page.keyboard.press("Tab")  # leaving the field: its message shows
    duplicate = "The term 'katze' is given twice (also as 'Katze')"
    assert duplicate == server_message(page, live_server, {"Katze": "kitty", "katze": "cat"})
    term2 = page.get_by_label("German term 2")
    expect(term2).to_have_accessible_description(duplicate)
    expect(page.locator("#glossary-rows li").nth(1).locator(".field-error")).to_have_text(duplicate)
    expect(term2).to_have_attribute("aria-invalid", "true")
    page.keyboard.type("cat")
    page.keyboard.press("Shift+Tab")
    expect(term2).to_have_accessible_description(duplicate)  # still given twice, translation or not

    term2.fill("")  # a translation without its term
    term2.press("Tab")
    empty = "A term is empty"
    assert empty == server_message(page, live_server, {"": "cat"})
    expect(term2).to_have_accessible_description(empty)

    term2.fill("Hund")  # a term without its translation
    page.get_by_label("English term 2").fill("")
    page.get_by_label("English term 2").press("Tab")
    expect(term2).to_have_accessible_description("")  # said once the row is left, not before
    page.keyboard.press("Tab")  # from its Remove button to Add term
    expect(page.get_by_role("button", name="Add term")).to_be_focused()
    no_translation = "The translation of 'Hund' is empty"
    assert no_translation == server_message(page, live_server, {"Hund": ""})
    expect(page.get_by_label("English term 2")).to_have_accessible_description(no_translation)
    expect(page.get_by_label("English term 2")).to_have_attribute("aria-invalid", "true")
    expect(term2).to_have_attribute("aria-invalid", "false")

    term2.fill("123")  # the row was left once: its messages follow every change now
    page.get_by_label("English term 2").fill("one two three")
    expect(term2).to_have_accessible_description(server_message(page, live_server, {"123": "x"}))

    # the rows with a message are left out; the valid one still applies, and the server never refused one
    assert all(body.get("glossary") in (None, TERMS) for body in sent)
    expect(page.locator("#glossary-count")).to_have_text("(1 term)")
    page.get_by_label("English term 2").fill("")
    term2.fill("Hund")
    page.get_by_label("English term 2").fill("dog")
    expect(term2).to_have_accessible_description("")
    expect(page.locator("#glossary-count")).to_have_text("(2 terms)")
    expect(page.locator("#error")).to_be_hidden()


def test_a_glossary_can_be_stored_for_the_api(page, live_server):
    page.goto(live_server.url + "/")
    page.locator("#glossary > summary").click()
    expect(page.get_by_role("button", name="Save as stored glossary")).to_be_hidden()  # no terms yet
    page.get_by_label("German term 1").fill("Katze")
    page.get_by_label("English term 1").fill("kitty")
    page.get_by_label("Name", exact=True).fill("Tiere")
    page.get_by_role("button", name="Save as stored glossary").click()
    status = page.locator("#glossary-save-status")
    expect(status).to_contain_text("Stored as glossary ")
    glossary_id = status.text_content().split()[3]
    expect(status).to_have_text(f'Stored as glossary {glossary_id} (1 term): send "glossary": "{glossary_id}" '
                                "to /translate.")
    stored = page.request.get(f"{live_server.url}/glossaries/{glossary_id}").json()
    assert stored["name"] == "Tiere" and stored["entries"] == TERMS


# ------------------------------------------------------------------------------ keyboard

def space_opens_the_chooser(page, tries: int = 3):
    """The file chooser that Space on the focused file input opens. Chromium opens it only within
    the user activation of the key press, which a machine loaded by other work can outlast (one
    CI run beside a training run waited 20 s in vain): the key is pressed again, at most ``tries``
    times, and the input must still have the focus each time."""
    for attempt in range(tries):
        assert page.evaluate("document.activeElement && document.activeElement.id") == "file-input"
        try:
            with page.expect_file_chooser(timeout=10_000) as chooser:
                page.keyboard.press("Space")
            return chooser.value
        except PlaywrightTimeoutError:
            if attempt == tries - 1:
                raise


def test_files_and_glossary_from_the_keyboard_alone(browser, live_server, tmp_path):
    context, page, problems = new_page(browser)
    expected = expected_file(page, live_server)
    path = txt_file(tmp_path, "Notiz.txt")
    page.goto(live_server.url + "/")
    tab_to(page, "#tab-text")                 # the selected tab is the tab list's one stop
    page.keyboard.press("ArrowRight")         # arrows move to the other tab and show its panel
    expect(page.get_by_role("tab", name="Files")).to_be_focused()
    expect(page.get_by_role("tabpanel", name="Files")).to_be_visible()
    page.keyboard.press("ArrowRight")         # wrapping round
    expect(page.get_by_role("tab", name="Text")).to_be_focused()
    expect(page.get_by_label("German text")).to_be_visible()
    page.keyboard.press("End")
    expect(page.get_by_role("tab", name="Files")).to_be_focused()
    assert page.evaluate("document.getElementById('tab-text').tabIndex") == -1

    tab_to(page, "#file-input")               # the real file input: Space opens the chooser
    space_opens_the_chooser(page).set_files(path)
    expect(page.locator("#file-chosen")).to_have_text(f"Notiz.txt ({path.stat().st_size} bytes)")
    tab_to(page, "#file-button")
    page.keyboard.press("Enter")
    expect(page.get_by_role("link", name="Notiz_en.txt")).to_be_visible()
    tab_to(page, "#file-link")
    with page.expect_download() as info:
        page.keyboard.press("Enter")
    assert Path(info.value.path()).read_text(encoding="utf-8") == expected

    tab_to(page, "#glossary > summary")       # the glossary: Enter opens it, Tab reaches its fields
    page.keyboard.press("Enter")
    expect(page.get_by_label("German term 1")).to_be_visible()
    page.keyboard.press("Tab")
    expect(page.get_by_label("German term 1")).to_be_focused()
    page.keyboard.type("Hund")
    page.keyboard.press("Tab")
    page.keyboard.type("puppy")
    tab_to(page, "#glossary-add")
    page.keyboard.press("Enter")              # a new row, its first field focused
    expect(page.get_by_label("German term 2")).to_be_focused()
    page.keyboard.type("Katze")
    page.keyboard.press("Tab")
    page.keyboard.type("kitty")
    page.keyboard.press("Enter")              # Enter in a row's English term: the next row
    expect(page.get_by_label("German term 3")).to_be_focused()
    expect(page.locator("#glossary-count")).to_have_text("(2 terms)")

    tab_to(page, "#tab-files", "Shift+Tab")   # back to the Text tab, and a text to translate
    page.keyboard.press("Home")
    expect(page.get_by_role("tab", name="Text")).to_be_focused()
    tab_to(page, "#q")
    page.keyboard.type(SENTENCE)
    expect(page.locator("#translation")).to_have_text(
        translated(page, live_server, SENTENCE, source="auto", glossary={"Hund": "puppy", **TERMS})["translatedText"])
    expect(page.locator("#translation")).to_contain_text("kitty")
    context.close()
    assert problems == []
