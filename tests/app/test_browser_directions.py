"""The translate page both ways, in real headless Chromium (Debian's /usr/bin/chromium, driven by
Playwright) against the gunicorn server of the Procfile serving both tiny models
(MODEL_PATHS=de-en:...,en-de:...): the direction chosen, the swap button, the links, the
inspector, Random and Random held-out, the footer's direction, and phone widths (390 and 360 px)
in both directions. The tiny models know the 40 pairs of tests/data/pairs40.tsv by heart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app.settings import DEFAULTS
from bench import server

from .conftest import CHROMIUM, ROOT, LiveServer, isolated_environ, recording
from .test_browser_translate import path_of, query

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")


@pytest.fixture(scope="module")
def both_server(tiny_checkpoint, reverse_checkpoint, corpus_path, tmp_path_factory):
    log_path = tmp_path_factory.mktemp("both_server") / "server.log"
    with open(log_path, "wb") as log:
        process, port = server.start(log, environ=isolated_environ(), MODEL_PATH=DEFAULTS["MODEL_PATH"],
                                     MODEL_PATHS=f"de-en:{tiny_checkpoint},en-de:{reverse_checkpoint}",
                                     CORPUS_PATH=str(corpus_path), WEB_CONCURRENCY="1", BEAM_SIZE="1")
        try:
            yield LiveServer(f"http://127.0.0.1:{port}", port, log_path)
        finally:
            server.stop(process)


def sent_to(page, path: str) -> list[dict]:
    """The bodies of the page's POST requests to ``path``, as they are sent."""
    sent: list[dict] = []
    page.on("request", lambda r: r.method == "POST" and path_of(r.url) == path and sent.append(r.post_data_json))
    return sent


def test_swap_translates_the_translation_back_the_other_way(page, both_server):
    sent = sent_to(page, "/translate")
    page.goto(both_server.url + "/")
    page.get_by_label("German text").fill("Guten Morgen.")
    expect(page.locator("#translation")).to_have_text("Good morning.")
    page.get_by_role("button", name="Swap languages").click()
    expect(page.locator("#translation")).to_have_text("Guten Morgen.")
    expect(page.get_by_label("English text")).to_have_value("Good morning.")
    expect(page.locator("h1")).to_have_text("English → German")
    expect(page.locator("#result-title")).to_have_text("German")
    expect(page.locator("#q")).to_have_attribute("lang", "en")
    expect(page.locator("#translation")).to_have_attribute("lang", "de")
    assert (page.locator("#source").input_value(), page.locator("#target").input_value()) == ("en", "de")
    assert sent[-1] == {"q": "Good morning.", "source": "en", "target": "de", "format": "text", "formality": "formal"}
    assert query(page) == {"q": ["Good morning."], "source": ["en"], "target": ["de"]}
    expect(page.locator("#attention-link")).to_have_attribute(
        "href", "/attention?q=Good+morning.&source=en&target=de")
    # German output: how it addresses the reader is a choice, in the request and the links
    expect(page.locator("#formality-choice")).to_be_visible()
    page.get_by_label("addressing the reader as").select_option("informal")
    expect(page).to_have_url(both_server.url + "/?q=Good+morning.&source=en&target=de&formality=informal")
    assert sent[-1]["formality"] == "informal"
    page.get_by_role("button", name="Swap languages").click()
    expect(page.locator("#formality-choice")).to_be_hidden()
    expect(page.locator("#translation")).to_have_text("Good morning.")
    assert "formality" not in sent[-1]


def test_choosing_german_as_the_target_detects_english(page, both_server):
    sent = sent_to(page, "/translate")
    page.goto(both_server.url + "/")
    page.locator("#target").select_option("de")
    assert page.locator("#source").input_value() == "auto"
    expect(page.locator("label[for=q]")).to_have_text("English text")
    page.locator("#q").fill("We are going home.")
    expect(page.locator("#translation")).to_have_text("Wir gehen nach Hause.")
    assert sent[-1] == {"q": "We are going home.", "source": "auto", "target": "de", "format": "text",
                        "formality": "formal"}
    # a source that is the target's language turns the target round
    with page.expect_request(lambda r: path_of(r.url) == "/translate"):
        page.locator("#source").select_option("de")
    assert page.locator("#target").input_value() == "en"
    expect(page.locator("label[for=q]")).to_have_text("German text")
    expect(page.locator("#translation")).to_have_attribute("lang", "en")
    assert sent[-1] == {"q": "We are going home.", "source": "de", "target": "en", "format": "text"}


def test_the_inspector_explains_the_en_de_model_s_translation(page, both_server):
    explained = sent_to(page, "/api/explain")
    page.goto(both_server.url + "/?q=Good+morning.&source=en")
    expect(page.locator("#translation")).to_have_text("Guten Morgen.")
    expect(page.locator("#source-words .word")).to_have_text(["Good", "morning", "."])
    expect(page.locator("#source-title")).to_have_text("English, aligned")
    assert explained == [{"q": "Good morning.", "source": "en", "target": "de", "formality": "formal"}]
    page.locator("#translation .word").first.focus()
    expect(page.locator("#inspector-status")).to_contain_text("German “Guten” is aligned to English")


def test_random_goes_back_to_german_into_english(page, both_server, pairs40):
    page.goto(both_server.url + "/?q=Good+morning.&source=en")
    expect(page.locator("#translation")).to_have_text("Guten Morgen.")
    page.get_by_role("button", name="Random", exact=True).click()
    expect(page.locator("h1")).to_have_text("German → English")
    assert page.locator("#q").input_value() in {de for de, _ in pairs40}
    assert (page.locator("#source").input_value(), page.locator("#target").input_value()) == ("auto", "en")


@pytest.mark.skipif(not Path(DEFAULTS["DICTIONARY_PATH"]).is_file(),
                    reason="needs Debian's trans-de-en (/usr/share/trans/de-en)")
def test_the_dictionary_panel_follows_the_direction(page, both_server):
    looked_up = []
    page.on("request", lambda r: path_of(r.url) == "/api/dictionary" and looked_up.append(r.url.split("?")[1]))
    page.goto(both_server.url + "/")
    page.locator("#target").select_option("de")
    page.locator("#q").fill("appointment")
    expect(page.locator("#dictionary .dict-headword").first).to_have_text(re.compile(r"^appointment\b"))
    expect(page.locator("#dictionary .dict-headword").first).to_have_attribute("lang", "en")
    expect(page.locator("#dictionary .dict-senses").first).to_have_attribute("lang", "de")
    assert looked_up[-1] == "q=appointment&source=en"
    with page.expect_request(lambda r: path_of(r.url) == "/api/dictionary"):
        page.locator("#source").select_option("de")   # the same text, looked up in German
    assert looked_up[-1] == "q=appointment&source=de"


def footer_and_title(page) -> tuple[str, str]:
    return page.locator("footer.site p").inner_text(), page.title()


FOOTER = "{} neural machine translation. API: POST /translate (LibreTranslate-compatible), GET /languages, /health."


def test_the_footer_and_title_name_the_direction_and_follow_it_in_the_page(page, both_server):
    page.goto(both_server.url + "/")
    assert footer_and_title(page) == (FOOTER.format("German → English"), "Translate · German → English")
    page.locator("#target").select_option("de")   # in the page, without a reload
    expect(page.locator("footer.site p")).to_have_text(FOOTER.format("English → German"))
    assert page.title() == "Translate · English → German"
    page.locator("#q").fill("Good morning.")
    expect(page.locator("#translation")).to_have_text("Guten Morgen.")
    page.get_by_role("button", name="Swap languages").click()
    expect(page.locator("footer.site p")).to_have_text(FOOTER.format("German → English"))
    assert page.title() == "Translate · German → English"
    # the server's pages say it too: a link in English into German, its attention and beam views
    for path, title in (("/?q=Good+morning.&source=en&target=de", "Translate"),
                        ("/attention?q=Good+morning.&source=en&target=de", "Attention"),
                        ("/beam?q=Good+morning.&source=en&target=de", "Beam search")):
        page.goto(both_server.url + path)
        assert footer_and_title(page) == (FOOTER.format("English → German"), f"{title} · English → German"), path
    page.goto(both_server.url + "/model")  # in no one direction: both
    assert footer_and_title(page) == (FOOTER.format("German → English and English → German"),
                                      "Model · German → English and English → German")


def test_random_held_out_shows_a_test_sentence_and_says_so(page, both_server, pairs40):
    from model.data import read_references

    sources, references = read_references(ROOT / "checkpoints" / "random-held-out.tsv")  # HELD_OUT_PATH's default
    page.goto(both_server.url + "/?q=Good+morning.&source=en")
    expect(page.locator("#translation")).to_have_text("Guten Morgen.")
    with page.expect_response(lambda r: path_of(r.url) == "/api/random") as answer:
        page.get_by_role("button", name="Random held-out").click()
    assert answer.value.url.endswith("/api/random?split=test")
    body = answer.value.json()
    assert body["split"] == "test" and body["source"] in sources and body["source"] not in {de for de, _ in pairs40}
    expect(page.locator("#q")).to_have_value(body["source"])
    expect(page.locator("h1")).to_have_text("German → English")
    expect(page.locator("#reference-split")).to_have_text(  # the label shown, the other one hidden
        "Held-out test sentence: the model never trained on it, so chrF measures the translation.", use_inner_text=True)
    assert page.locator("#references li").all_text_contents() == references[sources.index(body["source"])]
    assert page.locator("#chrf").text_content() == f"{body['chrf']:.1f}"
    # Random: a training sentence, labelled so
    with page.expect_response(lambda r: path_of(r.url) == "/api/random") as answer:
        page.get_by_role("button", name="Random", exact=True).click()
    assert answer.value.url.endswith("/api/random?split=train") and answer.value.json()["split"] == "train"
    expect(page.locator("#reference-split")).to_have_text(
        "Training sentence: the model learned this pair, so a high chrF says little.", use_inner_text=True)
    assert page.locator("#chrf").text_content() == "100.0"
    # a text typed has no references and no label (two sentences: in no sample, whatever Random drew)
    page.locator("#q").fill("Es regnet. Guten Morgen.")
    expect(page.locator("#translation")).to_have_text("It is raining. Good morning.")
    expect(page.locator("#references-block")).to_be_hidden()


# Phones: the page is never wider than the screen (no sideways scrolling), in either direction, on
# every page a phone user opens and in the translate page's tabs and inspector.
PHONE_PAGES = ["/?q=Wo+ist+der+Bahnhof%3F", "/?q=Good+morning.&source=en&target=de",
               "/attention?q=Wo+ist+der+Bahnhof%3F", "/attention?q=Good+morning.&source=en&target=de",
               "/beam?q=Wo+ist+der+Bahnhof%3F", "/beam?q=Good+morning.&source=en&target=de", "/model"]


@pytest.mark.parametrize("width", [390, 360])
def test_phone_widths_never_scroll_sideways(browser, both_server, width):
    context = browser.new_context(viewport={"width": width, "height": 800}, is_mobile=True)
    page, problems = recording(context)

    def page_width() -> int:
        return page.evaluate("document.documentElement.scrollWidth")

    for path in PHONE_PAGES:
        page.goto(both_server.url + path)
        if path.startswith("/?"):
            # the inspector's words and its confidence shading shown, as wide as the page gets
            expect(page.locator("#source-words .word").first).to_be_visible()
            page.locator("#confidence-toggle").check()
            expect(page.locator("#confidence-legend")).to_be_visible()
            label = page.locator("label.check:has(#confidence-toggle)")
            line = page.evaluate("parseFloat(getComputedStyle(document.querySelector('label.check span')).lineHeight)")
            # the label's words wrap as one text beside the box (two lines at most), never in columns
            assert label.bounding_box()["height"] <= 2 * line + 1, (path, width)
            assert page_width() == width, (path, width)
            page.get_by_role("tab", name="Files").click()
            page.locator("#glossary").evaluate("details => { details.open = true; }")  # kept open across pages
            page.get_by_role("button", name="Add term").click()
            assert page_width() == width, (path, width, "files")
        else:
            page.locator(".js-plotly-plot, .beam-tree .node, #card, #curve-values").first.wait_for()
            assert page_width() == width, (path, width)
    # the language choices on one phone screen: each label beside its select
    page.goto(both_server.url + "/?q=Good+morning.&source=en&target=de")
    for label, select in (("label[for=source]", "#source"), ("label[for=target]", "#target")):
        box, other = page.locator(label).bounding_box(), page.locator(select).bounding_box()
        assert abs((box["y"] + box["height"] / 2) - (other["y"] + other["height"] / 2)) < 2, label
        assert other["x"] + other["width"] <= width
    context.close()
    assert problems == []
