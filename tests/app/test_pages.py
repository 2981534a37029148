"""app/pages.py and templates/: server-rendered pages, escaping, plotly.js from the package."""

import json
import re
from urllib.parse import parse_qs, urlsplit
from html import unescape

import plotly
import pytest

from tests.conftest import ROOT

XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def text_of(response) -> str:
    return response.get_data(as_text=True)


def embedded_json(html: str, element_id: str):
    match = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html, re.S)
    assert match, element_id
    return json.loads(match.group(1))


def test_index_empty(client):
    response = client.get("/")
    html = text_of(response)
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert '<html lang="en">' in html
    assert '<label for="q">' in html and 'id="q" name="q" lang="de"' in html
    assert 'id="translate-button"' in html and 'id="random-button"' in html
    assert 'id="result" aria-labelledby="result-title" hidden' in html


def test_index_permalink_shows_translation_references_and_chrf(client):
    html = text_of(client.get("/", query_string={"q": "Guten Morgen."}))
    assert '<p id="translation" class="output" lang="en">Good morning.</p>' in html
    assert "<li>Good morning.</li>" in html
    assert '<strong id="chrf">100.0</strong>' in html
    assert 'href="/attention?q=Guten+Morgen."' in html


NEGATION = "the translation may have lost or added a negation (not, no, never): check its meaning"


def test_index_shows_what_the_translation_may_have_got_wrong(client):
    # the tiny model drops "keine": the page says so, as /translate's "warnings" do
    html = text_of(client.get("/", query_string={"q": "Ich habe heute keine Zeit."}))
    assert f'<ul id="warnings" class="warnings" role="status" ><li data-check="negation">{NEGATION}</li></ul>' in html
    html = text_of(client.get("/", query_string={"q": "Guten Morgen."}))
    assert '<ul id="warnings" class="warnings" role="status" hidden></ul>' in html


def test_index_translation_of_text_not_in_the_corpus_has_no_references(client):
    html = text_of(client.get("/", query_string={"q": "Guten Morgen. Es regnet."}))
    assert "Good morning. It is raining." in html
    assert 'id="references-block" hidden' in html


def test_random_redirects_to_a_permalink(client, pairs40):
    response = client.get("/?random=1")
    assert response.status_code == 302
    location = response.headers["Location"]
    follow = client.get(location)
    sources = {de for de, _ in pairs40}
    q = re.search(r'lang="de" rows="6"[^>]*>(.*?)</textarea>', text_of(follow), re.S).group(1)
    assert unescape(q) in sources


@pytest.mark.parametrize("typed", ["random", " Random ", "RANDOM"])
def test_typing_random_alone_gives_a_random_sentence(client, pairs40, typed):
    response = client.get("/", query_string={"q": typed})
    assert response.status_code == 302
    q = parse_qs(urlsplit(response.headers["Location"]).query)["q"][0]
    assert q in {de for de, _ in pairs40}


def test_random_in_a_sentence_or_without_a_corpus_is_translated(client, make_app):
    assert client.get("/", query_string={"q": "random Zufall"}).status_code == 200
    assert make_app(CORPUS_PATH="").test_client().get("/", query_string={"q": "random"}).status_code == 200


def test_random_button_hidden_without_corpus(make_app):
    html = text_of(make_app(CORPUS_PATH="").test_client().get("/"))
    assert "random-button" not in html


HELD_OUT = ROOT / "checkpoints" / "random-held-out.tsv"  # HELD_OUT_PATH's default, which app_config keeps
TRAINING_LABEL = (r'<span data-split="train"\s*><strong>Training\s+sentence</strong>: the model learned this pair, '
                  r'so a high chrF says little.</span>')
HELD_OUT_LABEL = (r'<span data-split="test"\s*><strong>Held-out test\s+sentence</strong>: the model never trained '
                  r'on it, so chrF measures the translation.</span>')


def shown_labels(html: str) -> list[str]:
    """The splits whose label the references block shows (not hidden)."""
    return re.findall(r'<span data-split="(\w+)"\s*>', html)


def test_both_random_buttons_and_what_they_draw(client, make_app):
    html = text_of(client.get("/"))
    assert '<button type="submit" id="random-button" name="random" value="train"' in html
    assert '<button type="submit" id="held-out-button" name="random" value="test"' in html
    assert re.search(r'<span id="random-help" class="help">Random: a training sentence, which the model learned '
                     r'\(or type <kbd>random</kbd>\); Random held-out: a test sentence it never trained on; each '
                     r'with its\s+reference translations</span>', html)
    html = text_of(make_app(HELD_OUT_PATH="").test_client().get("/"))
    assert 'id="random-button"' in html and "held-out-button" not in html
    assert re.search(r'<span id="random-help" class="help">Random: a training sentence, which the model learned '
                     r'\(or type <kbd>random</kbd>\); each with its\s+reference translations</span>', html)
    html = text_of(make_app(CORPUS_PATH="").test_client().get("/"))
    assert "random-button" not in html and 'id="held-out-button"' in html
    assert re.search(r'<span id="random-help" class="help">Random held-out: a test sentence it never trained on; '
                     r'each with its\s+reference translations</span>', html)


@pytest.mark.parametrize("via", ["get", "post"])
def test_random_held_out_gives_a_held_out_sentence_labelled_as_such(client, pairs40, via):
    from model.data import read_references

    sources, references = read_references(HELD_OUT)
    response = (client.get("/", query_string={"random": "test"}) if via == "get"
                else client.post("/", data={"q": "", "random": "test"}))
    assert response.status_code == (302 if via == "get" else 303)
    q = parse_qs(urlsplit(response.headers["Location"]).query)["q"][0]
    assert q in sources and q not in {de for de, _ in pairs40}
    html = text_of(client.get(response.headers["Location"]))
    assert shown_labels(html) == ["test"] and re.search(HELD_OUT_LABEL, html)
    assert [unescape(ref) for ref in re.findall(r"<li>(.*?)</li>", html.split('id="references"', 1)[1]
                                                .split("</ul>", 1)[0])] == references[sources.index(q)]


def test_a_training_sentence_is_labelled_as_such_and_other_text_has_no_label(client):
    html = text_of(client.get("/", query_string={"q": "Es regnet."}))
    assert shown_labels(html) == ["train"] and re.search(TRAINING_LABEL, html)
    assert '<strong id="chrf">100.0</strong>' in html
    html = text_of(client.get("/", query_string={"q": "Es regnet. Guten Morgen."}))
    assert shown_labels(html) == [] and 'id="references-block" hidden' in html


@pytest.mark.parametrize("value", ["dev", "TEST", "yes"])
def test_random_of_another_split_is_refused_on_the_page(client, value):
    for response in (client.get("/", query_string={"random": value}), client.post("/", data={"q": "", "random": value})):
        assert response.status_code == 400
        assert f'role="alert" >Invalid request: split must be one of train, test, got {value}</p>' in text_of(response)


@pytest.mark.parametrize("path, direction", [
    ("/?q=Guten+Morgen.", '<span data-language-name="source">German</span> → <span data-language-name="target">English</span>'),
    ("/attention?q=Guten+Morgen.", "German → English"),
    ("/beam?q=Guten+Morgen.", "German → English"),
    ("/model", "German → English"),  # the directions served: here only the tiny de-en model
    ("/no-such-page", "German → English"),
])
def test_title_and_footer_name_the_direction(client, path, direction):
    html = text_of(client.get(path))
    assert f'<span id="footer-direction">{direction}</span>\n      neural machine translation. API:' in html
    page = {"/": "Translate", "/attention": "Attention", "/beam": "Beam search", "/model": "Model"}.get(
        urlsplit(path).path, "404 Not found")
    assert f"<title>{page} · German → English</title>" in html


@pytest.mark.parametrize("path", ["/", "/attention"])
def test_xss_is_escaped(client, path):
    html = text_of(client.get(path, query_string={"q": XSS}))
    assert XSS not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert "<img src=x" not in html


def test_xss_in_embedded_json_cannot_close_the_script(client):
    html = text_of(client.get("/attention", query_string={"q": "</script><script>alert(1)</script>"}))
    data = html.split('id="attention-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data  # tojson escapes < > & '


@pytest.mark.parametrize("via, q, status, message", [
    # a text too long for a URL comes by the form (POST), whose errors show on the page at once
    ("post", "a" * 5001, 413, "Invalid request: 5001 characters exceed the limit of 5000 characters per request"),
    ("get", "Hal\x00lo", 400, "Invalid request: q contains a control character (U+0000)"),
    ("post", "Hal\x00lo", 400, "Invalid request: q contains a control character (U+0000)"),
])
def test_index_bad_input_shows_the_error(client, via, q, status, message):
    response = client.get("/", query_string={"q": q}) if via == "get" else client.post("/", data={"q": q})
    assert response.status_code == status
    assert f'role="alert" >{message}</p>' in text_of(response)


def test_attention_page(client, app):
    response = client.get("/attention", query_string={"q": "Guten Morgen."})
    html = text_of(response)
    assert response.status_code == 200
    data = embedded_json(html, "attention-data")
    assert data["translation"] == "Good morning."
    assert '<label for="kind">' in html and '<label for="layer">' in html
    for kind in ("cross", "encoder", "decoder"):
        assert f'<option value="{kind}">' in html
    assert f'/vendor/plotly.min.js?v={plotly.__version__}' in html
    assert "/static/attention.js" in html


def test_attention_page_for_several_sentences(client):
    q = "Guten Morgen. Es regnet."
    first = text_of(client.get("/attention", query_string={"q": q}))
    assert embedded_json(first, "attention-data")["translation"] == "Good morning."
    assert 'href="/attention?q=Guten+Morgen.+Es+regnet.&amp;s=1"' in first
    second = text_of(client.get("/attention", query_string={"q": q, "s": "1"}))
    assert embedded_json(second, "attention-data")["translation"] == "It is raining."
    for s in ("9", "-1", "x", "²", "١"):
        fallback = text_of(client.get("/attention", query_string={"q": q, "s": s}))
        assert embedded_json(fallback, "attention-data")["translation"] == ("It is raining." if s == "١" else "Good morning.")


def test_attention_page_with_invisible_text_only(client):
    response = client.get("/attention", query_string={"q": "\u200b"})
    assert response.status_code == 400 and "q has no text to translate" in text_of(response)


def test_attention_page_without_text_is_a_form(client):
    html = text_of(client.get("/attention"))
    assert 'id="attention-data"' not in html and "plotly" not in html


def test_attention_page_too_long(client):
    response = client.get("/attention", query_string={"q": "Hallo" * 120})
    assert response.status_code == 413
    assert "600 characters exceed the limit of 500 characters for attention" in text_of(response)


def test_model_page(client, app):
    html = text_of(client.get("/model"))
    with app.app_context():
        params = app.extensions["translation_service"].translator.num_parameters()
    assert f"{params:,}" in html
    assert "<code>d_model</code>" in html and "<code>encoder_layers</code>" in html
    assert "Dev BLEU" in html and "100.0" in html
    assert "1 x cpu (" in html  # hardware
    assert "averaged checkpoints" not in html
    assert "Tatoeba" in html and "CC BY 2.0 FR" in html
    # the tiny model evaluates once: its curves are single points, listed instead of drawn
    assert 'id="curves-data"' not in html
    values = re.search(r'<dl class="facts" id="curve-values">(.*?)</dl>', html, re.S)[1]
    assert [name for name, _ in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", values)] == [
        "train loss", "dev loss", "dev bleu", "lr"]
    assert "dev bleu</dt><dd>100 at step 150" in values
    assert "No <code>MODEL_CARD.md</code> has been written yet." in html
    assert client.get("/model/card.md").status_code == 404


def test_model_page_says_where_random_sentences_come_from(make_app):
    from app.settings import DEFAULTS

    html = text_of(make_app(CORPUS_PATH=DEFAULTS["CORPUS_PATH"]).test_client().get("/model"))
    assert re.search(r"The Random button draws from <code>random-sample.tsv</code>:\s+4,\d{3} German sentences "
                     r"with 5,000 reference translations.\s+CC-BY 2.0 \(France\) Attribution: tatoeba.org, "
                     r"manythings.org/anki.</p>", html)
    html = text_of(make_app(CORPUS_PATH="").test_client().get("/model"))
    assert "Random is off (<code>CORPUS_PATH</code> is empty)." in html
    # app_config keeps HELD_OUT_PATH's default: the shipped held-out sample
    assert re.search(r"Random held-out draws from <code>random-held-out.tsv</code>:\s+285 German sentences with 300 "
                     r"reference\s+translations from the test split, which the model never trained on: there the "
                     r"chrF shown measures it.\s+CC-BY 2.0 \(France\) Attribution: tatoeba.org, manythings.org/anki."
                     r"</p>", html)
    html = text_of(make_app(HELD_OUT_PATH="").test_client().get("/model"))
    assert "Random held-out is off (<code>HELD_OUT_PATH</code> is empty)." in html


def test_model_page_shows_the_licence_of_weights_trained_on_gpl_data(make_app, tiny_checkpoint, tmp_path):
    from model.network.checkpoint import atomic_save, read_checkpoint

    ckpt = read_checkpoint(tiny_checkpoint)
    ckpt["meta"]["data"].update(attribution="Tatoeba, CC-BY 2.0 (France); Ding, GPL-2.0-or-later",
                                license="GPL-2.0-or-later")
    atomic_save(ckpt, tmp_path / "gpl.pt")
    html = text_of(make_app(MODEL_PATH=str(tmp_path / "gpl.pt")).test_client().get("/model"))
    assert re.search(r"Tatoeba, CC-BY 2.0 \(France\); Ding, GPL-2.0-or-later.\s+Licence of the trained weights:\s+"
                     r"GPL-2.0-or-later.", html)


def test_model_page_of_an_averaged_checkpoint(make_app, tiny_checkpoint, tmp_path):
    from model.network.averaging import average_checkpoints
    from model.network.checkpoint import atomic_save

    atomic_save(average_checkpoints([tiny_checkpoint, tiny_checkpoint]), tmp_path / "avg.pt")
    html = text_of(make_app(MODEL_PATH=str(tmp_path / "avg.pt")).test_client().get("/model"))
    assert "averaged checkpoints" in html and "2 (steps 150, 150)" in html


def test_model_page_lists_curves_of_one_point_instead_of_drawing_them(make_app, tiny_checkpoint, tmp_path):
    # The release checkpoint's curves hold one evaluation each (its run was short): a chart of one
    # dot says nothing, and Plotly stretched a lone learning rate's axis to +-1, so it sat at 0.
    from model.network.checkpoint import atomic_save, read_checkpoint

    ckpt = read_checkpoint(tiny_checkpoint)
    ckpt["meta"]["curves"] = {"step": [1000], "train_loss": [2.1002], "dev_loss": [0.8612], "dev_bleu": [56.02],
                              "lr": [0.00022360679774997898]}
    atomic_save(ckpt, tmp_path / "one.pt")
    html = text_of(make_app(MODEL_PATH=str(tmp_path / "one.pt")).test_client().get("/model"))
    assert 'id="curves-data"' not in html and "plotly.min.js" not in html and "model.js" not in html
    values = re.search(r'<dl class="facts" id="curve-values">(.*?)</dl>', html, re.S)[1]
    assert re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", values) == [
        ("train loss", "2.1002 at step 1,000"), ("dev loss", "0.8612 at step 1,000"),
        ("dev bleu", "56.02 at step 1,000"), ("lr", "2.24e-04 at step 1,000")]
    assert "so there is no curve to draw" in html


def test_model_page_renders_the_model_card(make_app, tmp_path):
    card = tmp_path / "MODEL_CARD.md"
    card.write_text("# Card\n\nTrained on **Tatoeba**. [link](javascript:alert(1)) <b>raw</b>\n\n- one\n- two\n",
                    encoding="utf-8")
    client = make_app(MODEL_CARD_PATH=str(card)).test_client()
    html = text_of(client.get("/model"))
    assert "<h2>Card</h2>" in html and "<strong>Tatoeba</strong>" in html and "<li>one</li>" in html
    assert "&lt;b&gt;raw&lt;/b&gt;" in html and 'href="javascript' not in html
    source = client.get("/model/card.md")
    assert source.status_code == 200 and source.mimetype == "text/markdown"


def test_plotly_is_served_from_the_package_with_caching(client):
    response = client.get(f"/vendor/plotly.min.js?v={plotly.__version__}")
    assert response.status_code == 200 and response.mimetype == "text/javascript"
    assert len(response.data) > 1_000_000
    assert "max-age=31536000" in response.headers["Cache-Control"]
    assert "immutable" in response.headers["Cache-Control"]
    again = client.get(f"/vendor/plotly.min.js?v={plotly.__version__}", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304


def test_no_cdn_anywhere(client):
    for path in ("/", "/attention?q=Hallo.", "/model"):
        html = text_of(client.get(path))
        for src in re.findall(r'(?:src|href)="([^"]+)"', html):
            assert not src.startswith(("http:", "https:", "//")) or src.startswith("https://creativecommons.org"), src


@pytest.mark.parametrize("path", ["/static/style.css", "/static/translate.js", "/static/attention.js", "/static/model.js"])
def test_static_files(client, path):
    assert client.get(path).status_code == 200


def test_security_headers(client):
    response = client.get("/")
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_keyboard_and_screen_reader_basics(client):
    html = text_of(client.get("/"))
    assert 'class="skip" href="#main"' in html
    assert 'role="alert"' in html and 'aria-live="polite"' in html
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert 'aria-current="page"' in html
