"""The translate page as an everyday translator, in real headless Chromium (Debian's
/usr/bin/chromium, driven by Playwright) against the gunicorn server of the Procfile: translation as
you type (one request after a pause, stale answers never shown), the detected source language and
the English hint, copy, the character counter, a 5,000-character text across a reload (stored on
the server only when its link is asked for), the dictionary panel, the random shortcut,
keyboard-only use and the dark theme's contrast (the Files tab and the glossary editor are in
test_browser_files.py)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from app.settings import DEFAULTS

from .conftest import CHROMIUM, recording

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")

ENGLISH = "This is a sentence in English about the weather today."
LONG = "Guten Morgen. Es regnet. " * 200  # 5,000 characters, the limit
assert len(LONG) == 5000


def path_of(url: str) -> str:
    return urlsplit(url).path


def translate_requests(page) -> list[dict]:
    """The bodies of the page's POST /translate requests, as they are sent."""
    sent: list[dict] = []
    page.on("request", lambda r: path_of(r.url) == "/translate" and sent.append(r.post_data_json))
    return sent


def permalink_requests(page) -> list[str]:
    """The texts the page sends to POST /api/permalink (to be stored on the server)."""
    sent: list[str] = []
    page.on("request", lambda r: path_of(r.url) == "/api/permalink" and sent.append(r.post_data_json["q"]))
    return sent


def query(page) -> dict:
    return parse_qs(urlsplit(page.url).query)


def wait_until(page, condition, timeout_ms: int = 10_000) -> None:
    for _ in range(timeout_ms // 50):
        if condition():
            return
        page.wait_for_timeout(50)
    raise AssertionError("timed out")


def new_page(browser, **options):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, **options)
    page, problems = recording(context)
    return context, page, problems


# ------------------------------------------------------------------------------ as you type

def test_typing_translates_after_a_pause_with_one_request(page, live_server):
    sent = translate_requests(page)
    page.goto(live_server.url + "/")
    page.get_by_label("German text").click()
    page.keyboard.type("Wo ist der Bahnhof?", delay=40)  # keystrokes 40 ms apart: one pause, at the end
    expect(page.locator("#translation")).to_have_text("Where is the train station?")
    page.wait_for_timeout(600)
    assert sent == [{"q": "Wo ist der Bahnhof?", "source": "auto", "target": "en", "format": "text"}]
    assert query(page) == {"q": ["Wo ist der Bahnhof?"]}
    expect(page.locator("#detected")).to_have_text(re.compile(r"^Detected: German \(\d+%\)$"))
    expect(page.locator("#char-count")).to_have_text("19 / 5,000 characters")

    page.keyboard.type(" Es regnet.", delay=40)
    expect(page.locator("#translation")).to_have_text("Where is the train station? It is raining.")
    assert len(sent) == 2 and sent[1]["q"] == "Wo ist der Bahnhof? Es regnet."

    # back to a text shown before: from the page's cache, no request
    for _ in range(len(" Es regnet.")):
        page.keyboard.press("Backspace")
    expect(page.locator("#translation")).to_have_text("Where is the train station?")
    page.wait_for_timeout(600)
    assert len(sent) == 2 and query(page) == {"q": ["Wo ist der Bahnhof?"]}

    # emptied: nothing to show, the bare page's address
    page.get_by_label("German text").fill("")
    expect(page.locator("#result")).to_be_hidden()
    assert page.url == live_server.url + "/"


def test_warnings_are_shown_with_their_translation_and_go_with_it(page, live_server):
    page.goto(live_server.url + "/")
    page.get_by_label("German text").fill("Ich habe heute keine Zeit.")   # the tiny model drops "keine"
    expect(page.locator("#warnings li")).to_have_text(
        ["the translation may have lost or added a negation (not, no, never): check its meaning"])
    expect(page.locator("#warnings")).to_be_visible()
    page.get_by_label("German text").fill("Wo ist der Bahnhof?")
    expect(page.locator("#translation")).to_have_text("Where is the train station?")
    expect(page.locator("#warnings")).to_be_hidden()


def test_an_older_answer_never_overwrites_a_newer_one(page, live_server):
    held = []
    page.route("**/translate", lambda route: held.append(route))
    failed = []
    page.on("requestfailed", lambda r: path_of(r.url) == "/translate" and failed.append(r.failure))
    page.goto(live_server.url + "/")
    box = page.get_by_label("German text")
    box.click()
    page.keyboard.type("Guten Morgen.")
    wait_until(page, lambda: len(held) == 1)          # the first text's request, held back
    page.keyboard.type(" Es regnet.")
    wait_until(page, lambda: len(held) == 2)          # the newer one aborts it
    wait_until(page, lambda: len(failed) == 1)
    assert failed == ["net::ERR_ABORTED"]
    held[1].continue_()
    expect(page.locator("#translation")).to_have_text("Good morning. It is raining.")
    try:  # the stale answer, if the browser still took it, must change nothing
        held[0].fulfill(status=200, content_type="application/json", body='{"translatedText": "STALE"}')
    except Exception:  # noqa: BLE001 - the aborted request is gone
        pass
    page.wait_for_timeout(300)
    expect(page.locator("#translation")).to_have_text("Good morning. It is raining.")
    assert query(page) == {"q": ["Guten Morgen. Es regnet."]}


# ------------------------------------------------------------------------------ source language

def test_english_input_is_detected_and_german_forced_by_one_click(page, live_server):
    sent = translate_requests(page)
    page.goto(live_server.url + "/")
    page.get_by_label("German text").fill(ENGLISH)
    expect(page.locator("#detected")).to_have_text(re.compile(r"^Detected: English \(\d+%\)$"))
    hint = page.locator("#english-hint")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("This looks like English: sentences that are clearly English are kept as they are.")
    expect(page.locator("#translation")).to_have_text(ENGLISH)  # kept as it is
    # the inspector draws it as it is too, without words to inspect
    expect(page.locator('#translation .sentence[title="Kept as written: not German"]')).to_have_text(ENGLISH)
    assert page.get_by_label("Translate from").input_value() == "auto"

    page.get_by_role("link", name="Translate it as German").click()
    expect(hint).to_be_hidden()
    expect(page.locator("#detected")).to_have_text("")
    expect(page.locator("#translation")).not_to_have_text(ENGLISH)
    assert page.get_by_label("Translate from").input_value() == "de"
    assert sent[-1]["source"] == "de" and query(page) == {"q": [ENGLISH], "source": ["de"]}
    page.reload()
    assert page.get_by_label("Translate from").input_value() == "de"
    expect(page.locator("#translation")).not_to_have_text(ENGLISH)

    page.get_by_label("Translate from").select_option("auto")  # back at once, no typing needed
    expect(page.locator("#translation")).to_have_text(ENGLISH)
    assert sent[-1]["source"] == "auto" and query(page) == {"q": [ENGLISH]}


# ------------------------------------------------------------------------------ copy

def test_copy_puts_the_translation_on_the_clipboard(browser, live_server):
    context, page, problems = new_page(browser, permissions=["clipboard-read", "clipboard-write"])
    page.goto(live_server.url + "/?q=Wo+ist+der+Bahnhof%3F")
    expect(page.locator("#translation .word").first).to_be_visible()  # drawn word by word: copied as text
    page.get_by_role("button", name="Copy").click()
    expect(page.locator("#copy-status")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == "Where is the train station?"
    expect(page.locator("#copy-status")).to_have_text("", timeout=6000)  # the confirmation goes
    context.close()
    assert problems == []


# ------------------------------------------------------------------------------ a paste over the limit

PASTE = """(text) => {
  const data = new DataTransfer();
  data.setData("text/plain", text);
  document.getElementById("q").dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true}));
}"""


def test_a_paste_over_the_limit_is_cut_at_a_word_said_and_offered_as_a_file(page, live_server):
    text = "Wir gehen nach Hause. Der Vogel singt. " * 150   # 5,850 characters
    page.goto(live_server.url + "/")
    page.get_by_label("German text").fill("Guten Morgen. ")
    page.get_by_label("German text").press("End")
    page.evaluate(PASTE, text)
    kept = page.get_by_label("German text").input_value()
    whole = "Guten Morgen. " + text
    assert len(kept) <= 5000 and whole.startswith(kept) and whole[len(kept)] == " "   # cut after a whole word
    assert len(kept) > 5000 - len("Vogel ") - 1
    expect(page.locator("#char-count")).to_have_text(f"{len(kept):,} / 5,000 characters")
    expect(page.locator("#too-long")).to_have_text(
        f"The pasted text has {len(whole):,} characters; this box takes 5,000, so it holds the text up to the last "
        f"whole word that fits ({len(kept):,}). Translate the whole text as a file")
    page.get_by_role("button", name="Translate the whole text as a file").click()
    expect(page.get_by_role("tab", name="Files")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#file-chosen")).to_have_text(f"text.txt ({len(whole.encode()) / 1000:.1f} kB)")
    assert page.evaluate("document.getElementById('file-input').files[0].text()") == whole   # all of it
    # a paste that fits is the browser's own
    page.get_by_role("tab", name="Text").click()
    page.get_by_label("German text").fill("")
    expect(page.locator("#too-long")).to_be_hidden()
    page.evaluate(PASTE, "Es regnet.")   # not cancelled: the page leaves it to the browser, which a
    assert page.get_by_label("German text").input_value() == ""  # synthetic event does not insert
    expect(page.locator("#too-long")).to_be_hidden()


# ------------------------------------------------------------------------------ permalinks

def test_a_long_text_is_stored_only_when_its_permalink_is_asked_for(page, live_server):
    urls = []
    page.on("request", lambda r: urls.append(r.url))
    stored = permalink_requests(page)
    expected = page.request.post(live_server.url + "/translate",
                                 data={"q": LONG, "source": "auto", "target": "en"}).json()["translatedText"]
    page.goto(live_server.url + "/")
    page.get_by_label("German text").fill(LONG)
    expect(page.locator("#char-count")).to_have_text("5,000 / 5,000 characters")
    expect(page.locator("#translation")).to_have_text(expected, timeout=20_000)
    expect(page.locator("#link-note")).to_be_visible()  # following a link would store it: said beside them
    page.wait_for_timeout(600)
    assert stored == [] and page.url == live_server.url + "/"  # typed, translated: not stored, not in the URL

    page.reload()  # the same text and translation again, from the page's history entry
    assert page.get_by_label("German text").input_value() == LONG
    expect(page.locator("#translation")).to_have_text(expected, timeout=20_000)
    page.wait_for_timeout(300)
    assert stored == [] and page.url == live_server.url + "/"

    with page.expect_event("load"):  # the stored link's page (the address bar changes before it loads)
        page.get_by_role("link", name="Permalink").click()  # asked for: stored now, once
    assert re.search(r"/\?p=[A-Za-z0-9_-]{16}$", page.url)
    assert stored == [LONG]
    link = query(page)["p"][0]
    page.reload()
    assert page.get_by_label("German text").input_value() == LONG
    expect(page.locator("#translation")).to_have_text(expected, timeout=20_000)
    expect(page.locator("#link-note")).to_be_hidden()
    hrefs = [page.get_by_role("link", name=name).get_attribute("href") for name in
             ("Permalink", "Attention behind this translation", "Beam search behind this translation")]
    assert hrefs == [f"/?p={link}", f"/attention?p={link}", f"/beam?p={link}"]
    page.get_by_role("link", name="Beam search behind this translation").click()
    page.wait_for_url(f"**/beam?p={link}")
    expect(page.locator("#beam-translation")).to_have_text("Good morning.")
    page.get_by_role("link", name="Es regnet.").first.click()  # another sentence of the same stored text
    expect(page.locator("#beam-translation")).to_have_text("It is raining.")
    assert stored == [LONG]
    assert max(len(url) for url in urls) < 2100  # no request ever carried the text in its URL


def test_following_beam_search_stores_a_long_text_first(page, live_server):
    stored = permalink_requests(page)
    text = LONG[:3000]
    page.goto(live_server.url + "/")
    page.get_by_label("German text").fill(text)
    expect(page.locator("#status")).to_have_text("Translated.", timeout=20_000)
    assert stored == [] and page.url == live_server.url + "/"
    page.get_by_role("link", name="Beam search behind this translation").click()  # needs a URL: stored
    page.wait_for_url(re.compile(r"/beam\?p=[A-Za-z0-9_-]{16}$"))
    assert stored == [text]
    link = query(page)["p"][0]
    expect(page.locator("#beam-translation")).to_have_text("Good morning.")
    page.go_back()  # the translate page, now named by its stored link
    page.wait_for_url(f"**/?p={link}")
    expect(page.locator("#translation")).to_contain_text("Good morning. It is raining.")
    assert page.get_by_label("German text").input_value() == text and stored == [text]


def test_without_javascript_a_long_text_gets_a_stored_link_too(browser, live_server):
    context, page, problems = new_page(browser, java_script_enabled=False)
    page.goto(live_server.url + "/")
    page.get_by_label("German text").fill(LONG)
    page.get_by_label("Translate from").select_option("de")
    page.get_by_role("button", name="Translate").click()   # POST, then 303 to the stored link
    page.wait_for_url(re.compile(r"/\?p=[A-Za-z0-9_-]{16}&source=de$"))
    expect(page.locator("#translation")).to_contain_text("Good morning. It is raining. Good morning.")
    page.reload()
    assert page.get_by_label("German text").input_value() == LONG
    assert page.get_by_label("Translate from").input_value() == "de"
    page.get_by_label("German text").fill("random")
    page.get_by_role("button", name="Translate").click()   # the word alone: a random sentence, as Random
    page.wait_for_url(re.compile(r"/\?q="))
    assert page.get_by_label("German text").input_value() != "random"
    expect(page.locator("#references li").first).to_be_visible()
    context.close()
    assert problems == []


# ------------------------------------------------------------------------------ dictionary

needs_ding = pytest.mark.skipif(not Path(DEFAULTS["DICTIONARY_PATH"]).is_file(),
                                reason="needs Debian's trans-de-en (the Ding dictionary)")


@needs_ding
def test_the_dictionary_panel_follows_the_text(page, live_server):
    lookups = []
    page.on("request", lambda r: path_of(r.url) == "/api/dictionary" and lookups.append(parse_qs(urlsplit(r.url).query)))
    page.goto(live_server.url + "/")
    panel = page.locator("#dictionary")
    expect(panel).to_be_hidden()
    box = page.get_by_label("German text")
    box.click()
    page.keyboard.type("Termin", delay=40)
    expect(panel).to_be_visible()
    expect(panel.get_by_role("heading", name="Dictionary")).to_be_visible()
    expect(panel.locator(".dict-headword").first).to_have_text("Termin")
    expect(panel.locator(".dict-class").first).to_have_text("noun, masculine")
    expect(panel.locator(".dict-senses").first).to_contain_text("appointment")
    attribution = page.locator("#dictionary-attribution")
    expect(attribution).to_contain_text("Ding German–English dictionary, © Frank Richter, TU Chemnitz")
    expect(attribution).to_contain_text("Licence: GPL-2.0-or-later")
    assert lookups == [{"q": ["Termin"], "source": ["de"]}]

    # with the keyboard: Tab reaches the phrases of the first entry, Enter opens them
    tab_to(page, "#dictionary .dict-entry:first-child .dict-phrases summary")
    page.keyboard.press("Enter")
    expect(panel.locator(".dict-entry").first.locator(".dict-phrases ul li").first).to_be_visible()

    # a sentence: the panel goes as soon as the text is more than three words
    box.fill("Ich habe morgen einen Termin beim Arzt.")
    expect(panel).to_be_hidden()
    wait_until(page, lambda: page.locator("#result").get_attribute("data-source").startswith("Ich habe"))
    expect(panel).to_be_hidden()
    box.fill("Termin")  # back: from the page's cache, no second lookup
    expect(panel).to_be_visible()
    assert lookups == [{"q": ["Termin"], "source": ["de"]}]

    page.goto(live_server.url + "/?q=Termin")  # the link of a word: the panel rendered by the server
    expect(panel.locator(".dict-senses").first).to_contain_text("appointment")
    assert len(lookups) == 1


# ------------------------------------------------------------------------------ keyboard

def test_random_alone_with_ctrl_enter_gives_a_random_sentence(page, live_server, pairs40):
    sent = translate_requests(page)
    page.goto(live_server.url + "/")
    box = page.get_by_label("German text")
    box.click()
    page.keyboard.type("random", delay=30)
    expect(page.locator("#status")).to_have_text("Press Translate or Ctrl+Enter for a random sentence.")
    page.wait_for_timeout(600)
    assert sent == []  # a pause in typing never replaces the text
    page.keyboard.press("Control+Enter")
    expect(box).not_to_have_value("random")
    source = box.input_value()
    references = [en for de, en in pairs40 if de == source]
    assert references and page.locator("#references li").all_text_contents() == references
    expect(page.locator("#chrf")).not_to_be_empty()
    assert sent == [] and query(page) == {"q": [source]}  # /api/random, as the button does


def tab_to(page, selector: str, key: str = "Tab", limit: int = 40) -> None:
    """Press Tab (or ``key``: Shift+Tab) until the element matching ``selector`` has the focus."""
    for _ in range(limit):
        page.keyboard.press(key)
        if page.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_keyboard_only(browser, live_server):
    context, page, problems = new_page(browser, permissions=["clipboard-read", "clipboard-write"])
    sent = translate_requests(page)
    page.goto(live_server.url + "/")
    tab_to(page, "#q")
    page.keyboard.type("Es regnet.")
    expect(page.locator("#translation")).to_have_text("It is raining.")

    tab_to(page, "#source", "Shift+Tab")   # the source language, above the text: German with an arrow key
    page.keyboard.press("ArrowDown")
    expect(page.locator("#detected")).to_have_text("")
    wait_until(page, lambda: sent[-1]["source"] == "de")

    tab_to(page, "#q")                     # more text, then Enter on Translate
    page.keyboard.press("End")
    page.keyboard.type(" Wo ist der Bahnhof?")
    tab_to(page, "#translate-button")
    page.keyboard.press("Enter")
    expect(page.locator("#translation")).to_have_text("It is raining. Where is the train station?")
    assert len(sent) == 3 and sent[-1] == {"q": "Es regnet. Wo ist der Bahnhof?", "source": "de", "target": "en",
                                           "format": "text"}

    tab_to(page, "#copy-button")
    page.keyboard.press("Enter")
    expect(page.locator("#copy-status")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == "It is raining. Where is the train station?"

    tab_to(page, "#permalink")
    page.keyboard.press("Enter")
    page.wait_for_load_state()
    assert query(page) == {"q": ["Es regnet. Wo ist der Bahnhof?"], "source": ["de"]}
    expect(page.locator("#translation")).to_have_text("It is raining. Where is the train station?")
    context.close()
    assert problems == []


# ------------------------------------------------------------------------------ dark theme

COLORS = """(selectors) => selectors.flatMap((selector) => Array.from(document.querySelectorAll(selector)).slice(0, 3)
  .map((el) => {
    const svg = el instanceof SVGElement;
    const color = getComputedStyle(el)[svg ? "fill" : "color"];
    let node = svg ? el.closest("g").querySelector(".box") : el;
    let background = null;
    while (node && node.nodeType === 1) {
      const style = getComputedStyle(node);
      const b = svg && node.classList.contains("box") ? style.fill : style.backgroundColor;
      if (b && b !== "transparent" && !/rgba\\(.*, 0\\)$/.test(b)) { background = b; break; }
      node = svg ? node.parentElement : node.parentElement;
    }
    return [selector, color, background];
  }))"""


def luminance(rgb: str) -> float:
    channels = [int(c) / 255 for c in re.findall(r"\d+", rgb)[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def hue(hex_colour: str) -> float:
    """The hue of "#rrggbb" in degrees."""
    import colorsys

    r, g, b = (int(hex_colour.strip().lstrip("#")[k:k + 2], 16) / 255 for k in (0, 2, 4))
    return 360 * colorsys.rgb_to_hls(r, g, b)[0]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


PAGES = {
    "/?q=Wo+ist+der+Bahnhof%3F+This+is+a+sentence+in+English+about+the+weather+today.": [
        "body", "h1", "label", ".help", "#char-count", "#detected", "#english-hint", "#english-hint a",
        "#translate-button", "#random-button", "#held-out-button", "#copy-button", "#result h2", "#translation .word",
        "#translation .sentence[title]", "#source-words .word", "#result .links a", "header.site a", "footer.site",
        '[role="tab"]', '[role="tab"][aria-selected="true"]', ".drop-zone label", ".drop-zone .help", "#file-help",
        "#file-button", ".glossary > summary", "#glossary-help", ".glossary-head", "#glossary-rows input",
        ".glossary-remove", "#glossary-add"],
    "/beam?q=Wo+ist+der+Bahnhof%3F": ["body", ".beam-tree .piece", ".beam-tree .node.pruned .piece",
                                     ".beam-tree .node.ended .piece", ".beam-steps td", ".legend li"],
    "/attention?q=Wo+ist+der+Bahnhof%3F": ["body", ".token", ".help", "select", "#attention-translation"],
}
if Path(DEFAULTS["DICTIONARY_PATH"]).is_file():  # the dictionary panel (Debian's trans-de-en)
    PAGES["/?q=Termin"] = ["#dictionary h2", ".dict-headword", ".dict-class", ".dict-label", ".dict-senses",
                           ".dict-key", ".dict-examples li span", ".dict-arrow", ".dictionary summary", ".dict-source"]


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_theme_follows_the_system_with_readable_contrast(browser, live_server, scheme):
    context, page, problems = new_page(browser, color_scheme=scheme, permissions=["clipboard-write"])
    for path, selectors in PAGES.items():
        page.goto(live_server.url + path)
        if path.startswith("/?"):
            expect(page.locator("#translation .word").first).to_be_visible()
            page.get_by_label("Shade English words by the model's confidence").check()
            selectors = selectors + [f"#translation .word.conf-{k}" for k in range(5)]
        else:
            page.locator(".js-plotly-plot, .beam-tree .node").first.wait_for()
        background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
        assert (luminance(background) < 0.05) if scheme == "dark" else (luminance(background) > 0.9), background
        # The focus ring is no error: far in hue from the error colour (it was raspberry beside red).
        focus, error = (page.evaluate(f"getComputedStyle(document.documentElement).getPropertyValue('{name}')")
                        for name in ("--focus", "--error"))
        assert min(abs(hue(focus) - hue(error)), 360 - abs(hue(focus) - hue(error))) >= 60, (focus, error)
        r, g, b = (int(focus.strip().lstrip("#")[k:k + 2], 16) for k in (0, 2, 4))
        assert contrast(f"rgb({r}, {g}, {b})", background) >= 3, focus  # a visible ring (WCAG 1.4.11)
        found = page.evaluate(COLORS, selectors)
        assert {s for s, _, _ in found} >= {s for s in selectors if "conf-" not in s}, path
        for selector, color, back in found:
            assert back is not None, selector
            assert contrast(color, back) >= 4.5, (path, selector, color, back, contrast(color, back))
    context.close()
    assert problems == []
