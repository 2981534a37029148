"""The translation inspector in real headless Chromium (Debian's /usr/bin/chromium, driven by
Playwright) against the gunicorn server of the Procfile: sentences as the pipeline cuts them, word
alignment on hover and focus, confidence shading, alternatives for a word (mouse and keyboard, per
sentence; the chosen text explained again), the attention page's model view and words toggle, the
beam search page, no console errors, phone width."""

import json
import math
import re
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from app import inspection
from pipeline.segment import join_layout, segment

from .conftest import CHROMIUM, recording

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")

HEADS, LAYERS = 4, 2  # the tiny preset: 4 heads, 2 encoder and 2 decoder layers


def api(page, live_server, path, **body):
    response = page.request.post(live_server.url + path, data=body)
    assert response.ok, response.text()
    return response.json()


@pytest.fixture
def wide(client, monkeypatch):
    """The app in this process on the live server's tiny model and beam, without a score margin
    for completions: the tiny model is far surer of its one translation than the release model
    (its other words lie 4 to 6 below the best, past ``CompletionOptions.score_margin``), and
    these tests need words to choose from."""
    monkeypatch.setattr(inspection, "COMPLETIONS", inspection.CompletionOptions(score_margin=math.inf))
    return client


def complete_with(page, client):
    """The page's /api/complete answered by ``client`` (``wide``)."""
    def answer(route):
        response = client.post("/api/complete", json=route.request.post_data_json)
        route.fulfill(status=response.status_code, content_type="application/json", body=response.get_data())
    page.route("**/api/complete", answer)


def completions_of(client, **body):
    response = client.post("/api/complete", json=body)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def inspected(page, live_server, q):
    """Open /?q=... and wait until the translation is drawn word by word."""
    page.goto(live_server.url + "/?" + urlencode({"q": q}))
    expect(page.locator("#translation .word").first).to_be_visible()


def aligned_words(page, box):
    return page.locator(f"#{box} .word.aligned").all_text_contents()


def near(p, noise=5e-4):
    """``p`` and the values next to it that the page may have been given for the same word: its
    own request can be batched with another sentence's (the batching engine), and padding moves
    the model's float results a little, enough to cross a percent's rounding."""
    return (p - noise, p, p + noise)


def confidence_class(p):
    """inspector.js's shading class: conf-0 under 30% ... conf-4 from 90%."""
    return sum(p >= bound for bound in (0.3, 0.5, 0.7, 0.9))


# ------------------------------------------------------------------------------ translate page

def test_hover_and_focus_highlight_the_aligned_words(page, live_server):
    q = "Wo ist der Bahnhof?"
    explained = api(page, live_server, "/api/explain", q=q)
    inspected(page, live_server, q)
    # the text is unchanged: /translate's translation, now one button per word
    expect(page.locator("#translation")).to_have_text("Where is the train station?")
    assert page.locator("#translation .word").all_text_contents() == explained["target_words"]
    assert page.locator("#source-words .word").all_text_contents() == explained["source_words"]

    for t, word in enumerate(explained["target_words"]):
        page.locator("#translation .word").nth(t).hover()
        expected = sorted({explained["source_words"][s] for tt, s in explained["alignment"] if tt == t})
        assert sorted(aligned_words(page, "source-words")) == expected, word
        assert page.locator("#translation .word.current").all_text_contents() == [word]

    # the other way round
    s = 3  # Bahnhof
    page.locator("#source-words .word").nth(s).hover()
    expected = sorted({explained["target_words"][t] for t, ss in explained["alignment"] if ss == s})
    assert sorted(aligned_words(page, "translation")) == expected

    # keyboard: one tab stop per side, arrow keys move, the live region says what is aligned
    page.locator("#translation .word").first.focus()
    page.keyboard.press("ArrowRight")
    focused = page.evaluate("document.activeElement.textContent")
    assert focused == explained["target_words"][1]
    expect(page.locator("#inspector-status")).to_contain_text(f"English “{focused}” is aligned to German")
    assert page.locator("#translation .word[tabindex='0']").count() == 1


def test_confidence_shading_has_a_legend_and_accessible_numbers(page, live_server):
    q = "Wo ist der Bahnhof?"
    explained = api(page, live_server, "/api/explain", q=q)
    inspected(page, live_server, q)
    legend = page.locator("#confidence-legend")
    assert legend.is_hidden()
    page.get_by_label("Shade English words by the model's confidence").check()
    assert legend.is_visible()
    assert "show-confidence" in page.locator("#translation").get_attribute("class")
    first = page.locator("#translation .word").first
    percent = f"{round(explained['confidence'][0] * 100)}%"
    assert first.get_attribute("aria-label") == f"{explained['target_words'][0]}, confidence {percent}"
    assert percent in first.get_attribute("title")
    assert page.get_by_role("button", name=f"{explained['target_words'][0]}, confidence {percent}").count() == 1
    page.get_by_label("Shade English words by the model's confidence").uncheck()
    assert first.get_attribute("aria-label") is None and legend.is_hidden()


def test_choosing_an_alternative_keeps_the_prefix_and_retranslates_the_rest(page, live_server, wide):
    q = "Guten Morgen. Wo ist der Bahnhof?"
    complete_with(page, wide)
    inspected(page, live_server, q)
    expect(page.locator("#translation")).to_have_text("Good morning. Where is the train station?")
    words = page.locator("#translation .word")
    train = [w.strip() for w in words.all_text_contents()].index("train")
    # the page asks for one more than it shows: the word already there is usually among them
    completions = completions_of(wide, q="Wo ist der Bahnhof?", prefix="Where is the ", n=6)
    expected_words = [c["text"][len("Where is the "):].split()[0] for c in completions["completions"]]
    expected_words = [w for w in dict.fromkeys(expected_words) if w != "train"][:5]
    assert expected_words  # the model knows other words

    words.nth(train).click()
    listbox = page.get_by_role("listbox")
    expect(listbox).to_be_visible()
    assert listbox.evaluate("el => el === document.activeElement")  # focus moved into the list
    options = listbox.get_by_role("option")
    labels = [o.locator("strong").text_content() for o in options.all()]
    assert 1 <= len(labels) <= 5 and labels == expected_words  # best first
    assert words.nth(train).get_attribute("aria-expanded") == "true"

    # Escape closes and gives the focus back to the word
    page.keyboard.press("Escape")
    expect(listbox).to_be_hidden()
    assert page.evaluate("document.activeElement.textContent") == "train"

    # Enter on the word opens it again; arrow down + Enter takes the second alternative
    page.keyboard.press("Enter")
    expect(listbox).to_be_visible()
    if len(labels) > 1:
        page.keyboard.press("ArrowDown")
    chosen = labels[1] if len(labels) > 1 else labels[0]
    assert options.nth(labels.index(chosen)).get_attribute("aria-selected") == "true"
    page.keyboard.press("Enter")
    expect(listbox).to_be_hidden()
    text = next(c["text"] for c in completions["completions"] if c["text"].startswith("Where is the " + chosen))
    # the first sentence and the words before the chosen one are kept
    expect(page.locator("#translation")).to_have_text("Good morning. " + text)
    assert page.evaluate("document.activeElement.textContent") == chosen  # focus on the new word
    expect(page.locator("#inspector-status")).to_contain_text("now reads")
    # words before it keep their alignment
    page.locator("#translation .word").first.hover()
    assert aligned_words(page, "source-words")
    check_explained_as_chosen(page, live_server, text, chosen)


def check_explained_as_chosen(page, live_server, text, chosen):
    """After a choice in "Guten Morgen. Wo ist der Bahnhof?": the second sentence is explained
    as chosen (/api/explain with the translation), every new word aligned and shaded."""
    given = api(page, live_server, "/api/explain", q="Wo ist der Bahnhof?", translation=text)
    assert given["translation"] == text
    sentence = page.locator("#translation .sentence[data-unit='1'] .word")
    expect(sentence.last).to_have_attribute("title", re.compile("Model's confidence"))
    assert sentence.all_text_contents() == given["target_words"]
    assert text.endswith("?")  # the text ends the message: no "?." after it
    expect(page.locator("#inspector-status")).to_have_text(f"Sentence 2 now reads: {text}")
    page.get_by_label("Shade English words by the model's confidence").check()
    first_new = given["target_words"].index(chosen)
    assert first_new == 3 and len(given["target_words"]) > first_new
    for t in range(first_new, len(given["target_words"])):
        word, p = sentence.nth(t), given["confidence"][t]
        shown = re.fullmatch(r"Model's confidence: (\d+)%", word.get_attribute("title"))
        assert shown and int(shown[1]) in {round(q * 100) for q in near(p)}
        assert word.get_attribute("aria-label") == f"{given['target_words'][t]}, confidence {shown[1]}%"
        assert {f"conf-{confidence_class(q)}" for q in near(p)} & set(word.get_attribute("class").split())
        word.hover()
        expected = sorted({given["source_words"][s] for tt, s in given["alignment"] if tt == t})
        assert expected and sorted(aligned_words(page, "source-words")) == expected, given["target_words"][t]


def test_an_unpunctuated_sentence_s_alternative_previews_the_rest_and_reads_once_punctuated(page, live_server, wide):
    """The pipeline reads "Das Wetter ist heute schön" with a full stop and drops the one the
    model writes: so do the alternatives, and the status line ends the sentence with one stop."""
    q, prefix = "Das Wetter ist heute schön", "The weather is "
    translation = api(page, live_server, "/translate", q=q, source="de", target="en")["translatedText"]
    assert translation == "The weather is nice today"
    completions = completions_of(wide, q=q, prefix=prefix, n=6)["completions"]
    assert completions[0]["text"] == translation and not any(c["text"].endswith(".") for c in completions)
    complete_with(page, wide)
    inspected(page, live_server, q)
    expect(page.locator("#translation")).to_have_text(translation)
    page.locator("#translation .word", has_text="nice").click()
    options = page.get_by_role("listbox").get_by_role("option")
    expect(options.first).to_be_visible()
    shown = [(o.locator("strong").text_content(), o.locator(".rest").text_content()) for o in options.all()]
    # each option: the other word, then the rest of the sentence as it will read
    expected = [(c["text"][len(prefix):].split(" ")[0], c["text"][len(prefix):][len(c["text"][len(prefix):].split(" ")[0]):])
                for c in completions[1:]]
    assert shown == expected[:5] and any(rest.strip() for _, rest in shown), shown
    k = next(k for k, (_, rest) in enumerate(shown) if rest.strip())
    assert options.nth(k).is_visible() and options.nth(k).locator(".rest").is_visible()
    text = prefix + "".join(shown[k])
    options.nth(k).click()
    expect(page.locator("#translation")).to_have_text(text)
    expect(page.locator("#inspector-status")).to_have_text(f"Sentence 1 now reads: {text}.")
    assert not text.endswith(".")


def test_mouse_choice_in_the_first_of_several_sentences(page, live_server, wide):
    complete_with(page, wide)
    inspected(page, live_server, "Das Wetter ist heute schön.\nEs regnet.")
    expect(page.locator("#translation")).to_have_text("The weather is nice today.\nIt is raining.")
    assert page.locator("#translation").text_content() == "The weather is nice today.\nIt is raining."
    page.locator("#translation .word", has_text="nice").click()
    option = page.get_by_role("listbox").get_by_role("option").first  # not the source select's
    word = option.locator("strong").text_content()
    option.click()
    expect(page.get_by_role("listbox")).to_be_hidden()
    text = page.locator("#translation").text_content()
    assert text.startswith("The weather is " + word) and text.endswith("\nIt is raining.")


def test_more_of_the_same_word_is_no_alternative(page, live_server):
    """/api/complete fills up to n with more translations for a word already there (the rest said
    otherwise): the list offers each word once, the word already there not at all, whatever its
    capitals or the punctuation after it. (The live server itself, with the release margin, has
    no other word from the tiny model here.)"""
    q, prefix = "Wo ist der Bahnhof?", "Where is the "
    texts = ["Where is the train station?", "Where is the train station then?", "Where is the TRAIN station?",
             "Where is the train. Station?", "Where is the bus station?", "Where is the bus. Station?",
             "Where is the Bus station?", "Where is the tram then?", "Where is the tram?"]
    answered = []

    def canned(route):
        answered.append(route.request.post_data_json)
        body = {"completions": [{"text": t, "score": -1.0 - k} for k, t in enumerate(texts)]}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/api/complete", canned)
    inspected(page, live_server, q)
    page.locator("#translation .word", has_text="train").click()
    options = page.get_by_role("listbox").get_by_role("option")
    expect(options).to_have_count(2)
    shown = [(o.locator("strong").text_content(), o.locator(".rest").text_content()) for o in options.all()]
    assert shown == [("bus", " station?"), ("tram", " then?")]  # each word's first, best first
    assert answered == [{"q": q, "prefix": prefix, "n": 6, "source": "de", "target": "en"}]
    options.nth(1).click()
    expect(page.locator("#translation")).to_have_text("Where is the tram then?")
    # the live server (the release margin): the tiny model has no other word for "train" (its
    # score is left alone: the tiny model is trained where the tests run, and differs by CPU)
    completions = api(page, live_server, "/api/complete", q=q, prefix=prefix, n=6)["completions"]
    assert [c["text"] for c in completions] == ["Where is the train station?"]


def test_a_chosen_text_that_cannot_be_explained_keeps_rough_words(browser, live_server, wide):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page, problems = recording(context)
    complete_with(page, wide)

    def refuse_given_translations(route):
        if "translation" in (route.request.post_data_json or {}):
            route.fulfill(status=503, content_type="application/json", body='{"error": "Too busy"}')
        else:
            route.continue_()

    page.route("**/api/explain", refuse_given_translations)
    inspected(page, live_server, "Wo ist der Bahnhof?")
    page.locator("#translation .word", has_text="train").click()
    option = page.get_by_role("listbox").get_by_role("option").first
    chosen = option.locator("strong").text_content()
    option.click()
    status = page.locator("#inspector-status")
    expect(status).to_contain_text("(no alignment or confidence for the new words: Too busy).")
    words = page.locator("#translation .word")
    assert words.nth(3).text_content() == chosen and words.nth(3).get_attribute("title") is None
    assert words.nth(2).get_attribute("title").startswith("Model's confidence")  # "the" keeps its own
    page.locator("#translation .word").nth(3).hover()
    assert aligned_words(page, "source-words") == []
    context.close()
    assert problems and all("Failed to load resource" in p for p in problems), problems  # only the refusal


def test_each_sentence_is_explained_as_the_pipeline_cuts_it(page, live_server):
    q = "Er isst z. B. Brot. Es regnet 🎶 heute.\nWo ist der Bahnhof?"
    layout = segment(q)
    sentences = [q[s:e] for line in layout for s, e in line]
    assert sentences == ["Er isst z. B. Brot.", "Es regnet 🎶 heute.", "Wo ist der Bahnhof?"]  # "z. B." ends none
    asked = []
    page.on("request", lambda r: r.url.endswith("/api/explain") and asked.append(r.post_data_json["q"]))
    inspected(page, live_server, q)
    expect(page.locator("#translation .sentence")).to_have_count(3)
    assert sorted(asked) == sorted(sentences)  # one call per sentence, two at a time
    assert page.locator("#source-words .sentence").all_text_contents() == sentences
    explained = [api(page, live_server, "/api/explain", q=sentence) for sentence in sentences]
    assert page.locator("#translation .sentence").all_text_contents() == [e["translation"] for e in explained]
    # joined as the pipeline joins them: /translate's translation, unchanged
    translation = api(page, live_server, "/translate", q=q, source="de", target="en")["translatedText"]
    assert translation == join_layout(layout, [e["translation"] for e in explained]).text
    assert page.locator("#translation").text_content() == translation
    for k, e in enumerate(explained):  # the words after the emoji too (a character there, two units here)
        assert page.locator(f"#source-words .sentence[data-unit='{k}'] .word").all_text_contents() == e["source_words"]
        assert page.locator(f"#translation .sentence[data-unit='{k}'] .word").all_text_contents() == e["target_words"]
    assert "🎶" in explained[1]["source_words"] and explained[1]["source_words"][-2:] == ["heute", "."]


def test_translating_in_place_inspects_the_new_text(page, live_server):
    page.goto(live_server.url + "/")
    page.get_by_label("German text").fill("Ich mag Kaffee.")
    page.get_by_role("button", name="Translate", exact=True).click()
    expect(page.locator("#translation .word").first).to_be_visible()
    expect(page.locator("#translation")).to_have_text("I like coffee.")
    assert page.locator("#source-words .word").all_text_contents()[:3] == ["Ich", "mag", "Kaffee"]
    page.get_by_role("link", name="Beam search behind this translation").click()
    page.wait_for_url("**/beam?q=*")
    expect(page.locator("#beam-translation")).to_have_text("I like coffee.")


@pytest.mark.parametrize("q, terms", [("Wo ist der Bahnhof?", {"Bahnhof": "depot"}),
                                       ("Ich mag Kaffee.", {"Kaffee": "espresso"})])
def test_the_confidence_controls_go_and_come_back_with_the_words(page, live_server, q, terms):
    """A glossary's translation is not the model's own: the inspector cannot explain it and says
    so; its controls (help, confidence checkbox and legend, German side) go with the words, and
    come back with them once the glossary is emptied."""
    plain = api(page, live_server, "/translate", q=q, source="de", target="en")["translatedText"]
    with_terms = api(page, live_server, "/translate", q=q, source="de", target="en", glossary=terms)["translatedText"]
    assert with_terms != plain and list(terms.values())[0] in with_terms  # the fixture model's own difference
    toggle = page.get_by_label("Shade English words by the model's confidence")
    legend = page.locator("#confidence-legend")
    inspected(page, live_server, q)
    toggle.check()
    expect(legend).to_be_visible()

    page.locator("#glossary > summary").click()
    (term, translation), = terms.items()
    page.get_by_label("German term 1").fill(term)
    page.get_by_label("English term 1").fill(translation)
    expect(page.locator("#translation")).to_have_text(with_terms)
    expect(page.locator("#inspector-status")).to_have_text(
        "The inspector is not available for this text: its sentences' translations differ from the translation shown.")
    for control in (toggle, legend, page.locator("#inspector-help"), page.locator("#source-title")):
        expect(control).to_be_hidden()
    assert page.locator("#translation .word").count() == 0

    page.get_by_role("button", name="Remove term 1").click()
    expect(page.locator("#translation .word").first).to_be_visible()
    expect(page.locator("#translation")).to_have_text(plain)
    expect(toggle).to_be_visible()
    expect(toggle).to_be_checked()
    expect(legend).to_be_visible()
    expect(page.locator("#inspector-status")).to_have_text("")


# ------------------------------------------------------------------------------ attention page

def test_model_view_shows_every_layer_and_head(page, live_server):
    q = "Wo ist der Bahnhof?"
    page.goto(live_server.url + "/attention?q=" + q)
    expect(page.locator(".js-plotly-plot")).to_have_count(HEADS + 1)  # the single-layer view as before
    thumbs = page.locator("#model-view button.thumb")
    expect(thumbs).to_have_count(LAYERS * HEADS)
    assert page.locator("#model-view thead th").all_text_contents() == [f"Head {h + 1}" for h in range(HEADS)]
    assert page.locator("#model-view tbody th").all_text_contents() == [f"Layer {i + 1}" for i in range(LAYERS)]
    page.get_by_label("Attention", exact=True).select_option("encoder")
    expect(thumbs).to_have_count(LAYERS * HEADS)

    # keyboard: one tab stop, arrow keys move over the grid, Enter enlarges, Escape closes
    thumbs.first.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Layer 2, head 2: enlarge"
    page.keyboard.press("Enter")
    expect(page.locator("#enlarged")).to_be_visible()
    expect(page.locator("#enlarged-title")).to_contain_text("Layer 2, head 2")
    expect(page.locator(".js-plotly-plot")).to_have_count(HEADS + 2)
    assert page.evaluate("document.activeElement.id") == "enlarged-title"
    page.keyboard.press("Escape")
    expect(page.locator("#enlarged")).to_be_hidden()
    expect(page.locator(".js-plotly-plot")).to_have_count(HEADS + 1)
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Layer 2, head 2: enlarge"
    # a click enlarges too; Close closes
    thumbs.nth(3).click()
    expect(page.locator("#enlarged-title")).to_contain_text("Layer 1, head 4")
    page.get_by_role("button", name="Close").click()
    expect(page.locator("#enlarged")).to_be_hidden()


def test_words_toggle_joins_pieces_as_the_server_does(page, live_server):
    q = "Wo ist der Bahnhof?"
    explained = api(page, live_server, "/api/explain", q=q)
    page.goto(live_server.url + "/attention?q=" + q)
    expect(page.locator(".js-plotly-plot")).to_have_count(HEADS + 1)
    pieces = page.locator("#queries .token").count()
    page.get_by_label("words").check()
    expect(page.locator("#queries .token")).to_have_count(len(explained["target_words"]) + 1)
    assert page.locator("#queries .token").all_text_contents() == explained["target_words"] + ["</s>"]
    assert page.locator("#keys .token").all_text_contents() == explained["source_words"] + ["</s>"]
    assert pieces > len(explained["target_words"]) + 1
    # summed over attended pieces, averaged over attending ones: every row still sums to 1
    sums = page.evaluate("Array.from(document.querySelectorAll('#heatmaps .js-plotly-plot'))"
                         ".map(d => d.data[0].z.map(r => r.reduce((a, b) => a + b, 0)))")
    assert len(sums) == HEADS + 1 and all(abs(s - 1) < 0.01 for row in sums for s in row)
    expect(page.locator("#model-view button.thumb")).to_have_count(LAYERS * HEADS)
    # the single-layer view still works on words
    page.locator("#queries .token").nth(1).hover()
    expect(page.locator("#selection")).to_contain_text(f"output word {explained['target_words'][1]} attends most to")
    help_text = page.locator("#units-help")
    assert help_text.is_visible() and "sum" in help_text.text_content() and "mean" in help_text.text_content()
    page.get_by_label("pieces").check()
    expect(help_text).to_be_hidden()
    expect(page.locator("#queries .token")).to_have_count(pieces)


# ---------------------------------------------------------------------------------- beam page

def test_beam_view_draws_the_search_tree(page, live_server):
    q = "Wo ist der Bahnhof?"
    trace = api(page, live_server, "/api/beam", q=q)
    page.goto(live_server.url + "/attention?q=" + q)
    page.get_by_role("link", name="Beam search behind this translation").click()
    page.wait_for_url("**/beam?q=*")
    hypotheses = [h for step in trace["steps"] for h in step["hypotheses"]]
    nodes = page.locator("#beam-tree .node")
    expect(nodes).to_have_count(len(hypotheses) + 1)  # and the start
    assert page.locator("#beam-tree .node.pruned").count() == sum(h["status"] == "pruned" for h in hypotheses)
    assert page.locator("#beam-tree .node.ended").count() == sum(h["status"] == "ended" for h in hypotheses)
    # the winning path: the start, one hypothesis per step up to the winner
    winner_step = int(trace["winner"]["id"].split(".")[0])
    assert page.locator("#beam-tree .node.winner").count() == winner_step + 1
    assert page.locator("#beam-tree .edge").count() == len(hypotheses)
    # text alternative: one table row per hypothesis
    assert page.locator("#beam-steps tbody tr").count() == len(hypotheses)
    assert page.locator("#beam-steps tr.on-path").count() == winner_step

    # keyboard: the tab stop is on the winning path; right follows the best continuation
    start = page.locator("#beam-tree .node[tabindex='0']")
    expect(start).to_have_count(1)
    start.focus()
    expect(page.locator("#beam-focus")).to_contain_text("Step 1")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#beam-focus")).to_contain_text("Step 2")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#beam-focus")).to_contain_text("Step 1")
    page.keyboard.press("End")
    expect(page.locator("#beam-focus")).to_contain_text("the winner")
    assert page.locator("#beam-tree .node.path").count() == winner_step + 1


# ---------------------------------------------------------------------------------- phone

def test_phone_width_has_no_horizontal_scrolling(browser, live_server, wide):
    context = browser.new_context(viewport={"width": 390, "height": 800}, is_mobile=True)
    page, problems = recording(context)
    complete_with(page, wide)
    q = "Guten Morgen. Wo ist der Bahnhof?\nDas Wetter ist heute schön."
    inspected(page, live_server, q)
    page.get_by_label("Shade English words by the model's confidence").check()
    page.locator("#translation .word", has_text="nice").click()
    expect(page.get_by_role("listbox")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    box = page.get_by_role("listbox").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.goto(live_server.url + "/attention?q=Wo+ist+der+Bahnhof%3F")
    expect(page.locator("#model-view button.thumb")).to_have_count(LAYERS * HEADS)
    page.locator("#model-view button.thumb").first.click()
    expect(page.locator("#enlarged")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.goto(live_server.url + "/beam?q=Wo+ist+der+Bahnhof%3F")
    expect(page.locator("#beam-tree .node").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    context.close()
    assert problems == []
