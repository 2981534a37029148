"""End to end in real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) against
the gunicorn server of the Procfile: translate, Random, attention view, kind and layer, hover."""

from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from .conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")


def plots(page) -> int:
    return page.locator(".js-plotly-plot").count()


def test_translate_random_and_attention(page, live_server, pairs40, app_config):
    page.goto(live_server.url + "/")
    page.get_by_label("German text").fill("Wo ist der Bahnhof?")
    page.get_by_role("button", name="Translate").click()
    expect(page.locator("#translation")).to_have_text("Where is the train station?")
    assert page.locator("#result").is_visible()
    assert parse_qs(urlsplit(page.url).query)["q"] == ["Wo ist der Bahnhof?"]

    # Ctrl+Enter translates too
    page.get_by_label("German text").fill("Es regnet.")
    page.get_by_label("German text").press("Control+Enter")
    expect(page.locator("#translation")).to_have_text("It is raining.")

    page.get_by_role("button", name="Random", exact=True).click()
    expect(page.locator("#chrf")).not_to_be_empty()
    source = page.get_by_label("German text").input_value()
    references = [en for de, en in pairs40 if de == source]
    assert references, source
    assert page.locator("#translation").text_content() == references[0]
    assert page.locator("#references li").all_text_contents() == references
    assert page.locator("#chrf").text_content() == "100.0"

    # the word "random" alone in the form gives a random sentence too, as in the original demo
    page.get_by_label("German text").fill(" Random ")
    page.get_by_role("button", name="Translate").click()
    expect(page.get_by_label("German text")).not_to_have_value(" Random ")
    typed = page.get_by_label("German text").input_value()
    assert [en for de, en in pairs40 if de == typed] == page.locator("#references li").all_text_contents()
    page.get_by_label("German text").fill(source)
    page.get_by_role("button", name="Translate").click()
    expect(page.locator("#translation")).to_have_text(references[0])

    page.get_by_role("link", name="Attention behind this translation").click()
    page.wait_for_url("**/attention?q=*")
    heads = 4  # the tiny preset
    expect(page.locator(".js-plotly-plot")).to_have_count(heads + 1)
    assert page.locator("#attention-translation").text_content() == references[0]


def test_attention_controls_and_hover(page, live_server):
    page.goto(live_server.url + "/attention?q=" + "Wo ist der Bahnhof?")
    expect(page.locator(".js-plotly-plot")).to_have_count(5)
    layers = page.locator("#layer option")
    assert layers.count() == 2

    page.get_by_label("Attention", exact=True).select_option("encoder")
    page.get_by_label("Layer", exact=True).select_option("1")
    expect(page.locator(".js-plotly-plot")).to_have_count(5)
    assert page.locator("#layer").input_value() == "1"
    # encoder self-attention: source pieces on both axes
    assert page.locator("#queries .token").all_text_contents() == page.locator("#keys .token").all_text_contents()
    assert page.locator("#queries .token").last.text_content() == "</s>"

    page.get_by_label("Attention", exact=True).select_option("decoder")
    expect(page.locator(".js-plotly-plot")).to_have_count(5)
    assert page.locator("#keys .token").first.text_content() == "<s>"

    # hovering a piece highlights its row in every head and shades the attended pieces
    page.locator("#queries .token").nth(1).hover()
    expect(page.locator("#selection")).to_contain_text("attends most to")
    shapes = page.evaluate("Array.from(document.querySelectorAll('.js-plotly-plot')).map(d => (d.layout.shapes || []).length)")
    assert shapes == [1] * 5
    assert page.locator("#keys .token").first.get_attribute("style")

    # clicking (here: the keyboard) pins the selection
    page.locator("#queries .token").nth(2).focus()
    page.keyboard.press("Enter")
    assert page.locator("#queries .token").nth(2).get_attribute("aria-pressed") == "true"

    # hovering a heatmap cell shows both pieces and the weight
    box = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
    page.mouse.move(box["x"] + 4, box["y"] + 4)
    page.mouse.move(box["x"] + box["width"] / 3, box["y"] + box["height"] / 3)
    hover = page.locator(".hoverlayer .hovertext").first
    hover.wait_for()
    assert "weight" in hover.text_content() and "→" in hover.text_content()


def test_model_page_charts(page, live_server, make_app, tiny_checkpoint, tmp_path):
    # The tiny model evaluates once (one point per curve: listed, not drawn), so the page of a
    # checkpoint with real curves is rendered by the app and served at /model of the live server,
    # which serves its scripts and plotly.js.
    from model.network.checkpoint import atomic_save, read_checkpoint

    ckpt = read_checkpoint(tiny_checkpoint)
    ckpt["meta"]["curves"] = {"step": [50, 100, 150], "train_loss": [6.0, 4.0, 3.0], "dev_loss": [5.0, 3.5, 2.9],
                              "dev_bleu": [1.0, 20.0, 40.0], "lr": [1e-3, 2e-3, 1.6e-3]}
    atomic_save(ckpt, tmp_path / "curves.pt")
    html = make_app(MODEL_PATH=str(tmp_path / "curves.pt")).test_client().get("/model").get_data(as_text=True)
    page.route(live_server.url + "/model", lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.goto(live_server.url + "/model")
    expect(page.locator(".js-plotly-plot")).to_have_count(3)  # loss, BLEU, learning rate
    assert page.get_by_role("heading", name="Configuration").is_visible()
    # the learning rate's axis spans its values (a lone value's axis spanned +-1: the curve sat at 0)
    lr = page.evaluate("(() => { const d = document.getElementById('curve-learning-rate');"
                       " return {y: d.data[0].y, range: d._fullLayout.yaxis.range,"
                       " format: d._fullLayout.yaxis.tickformat}; })()")
    low, high = lr["range"]
    assert low <= min(lr["y"]) and max(lr["y"]) <= high and high - low < 10 * max(lr["y"])
    assert lr["format"] == ".1e"


def test_model_page_of_the_tiny_model_lists_its_one_evaluation(page, live_server):
    page.goto(live_server.url + "/model")
    expect(page.locator("#curve-values dt")).to_have_count(4)  # train loss, dev loss, dev BLEU, lr
    assert page.locator(".js-plotly-plot").count() == 0


def test_phone_width_has_no_horizontal_scrolling(browser, live_server):
    context = browser.new_context(viewport={"width": 375, "height": 700}, is_mobile=True)
    page = context.new_page()
    for path in ("/?q=Guten+Morgen.", "/model"):
        page.goto(live_server.url + path)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
    context.close()


def test_model_card_fits_a_phone_its_wide_tables_scroll_in_their_box(browser, live_server):
    # The server shows the repository's MODEL_CARD.md (the default MODEL_CARD_PATH): its tables are
    # wider than a phone. They scroll inside their own box; the page itself never scrolls sideways.
    context = browser.new_context(viewport={"width": 375, "height": 800}, is_mobile=True)
    page = context.new_page()
    page.goto(live_server.url + "/model")
    assert page.locator("#card table").count() >= 2 and page.locator("#card pre").count() >= 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    boxes = page.evaluate("Array.from(document.querySelectorAll('#card table, #card pre')).map(e => "
                          "({wide: e.scrollWidth > e.clientWidth, right: e.getBoundingClientRect().right, "
                          "overflow: getComputedStyle(e).overflowX}))")
    assert all(b["right"] <= 375 for b in boxes)
    assert any(b["wide"] for b in boxes) and all(b["overflow"] == "auto" for b in boxes if b["wide"])
    context.close()
