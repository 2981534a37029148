"""The beam search page (/beam, app/pages.py + templates/beam.html), rendered on the server: the
tree's data, the step table (its text alternative), the winning path, escaping, errors, links."""

import json
import re

import pytest

XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def text_of(response) -> str:
    return response.get_data(as_text=True)


def beam_data(html: str):
    match = re.search(r'<script type="application/json" id="beam-data">(.*?)</script>', html, re.S)
    assert match
    return json.loads(match.group(1))


def test_without_text_it_is_a_form(client):
    response = client.get("/beam")
    html = text_of(response)
    assert response.status_code == 200
    assert '<label for="q">German sentence</label>' in html and 'action="/beam"' in html
    assert 'id="beam-data"' not in html and "beam.js" not in html
    assert 'href="/beam" aria-current="page">Beam search</a>' in html


def test_the_search_of_a_sentence(client):
    response = client.get("/beam", query_string={"q": "Wo ist der Bahnhof?"})
    html = text_of(response)
    assert response.status_code == 200
    data = beam_data(html)
    assert data["winner"]["translation"] == "Where is the train station?"
    assert '<dd lang="en" id="beam-translation">Where is the train station?</dd>' in html
    assert "/static/beam.js" in html
    hypotheses = [h for step in data["steps"] for h in step["hypotheses"]]
    # the table: a row per hypothesis, a row group per step
    assert html.count("<tbody>") == len(data["steps"])
    rows = re.findall(r'<tr class="(alive|ended|pruned)( on-path)?">', html)
    assert [status for status, _ in rows] == [h["status"] for h in hypotheses]
    # the winning path: one hypothesis per step up to the winner, ending with it
    on_path = [h for h, (_, path) in zip(hypotheses, rows) if path]
    assert [h["id"].split(".")[0] for h in on_path] == [str(i + 1) for i in range(len(on_path))]
    assert on_path[-1]["id"] == data["winner"]["id"] and on_path[-1]["status"] == "ended"
    assert "winner ★" in html
    assert f"beam size {data['beam_size']}" in html
    # links to the other views of the same text
    assert 'href="/attention?q=Wo+ist+der+Bahnhof?&amp;s=0"' in html
    assert 'href="/?q=Wo+ist+der+Bahnhof?"' in html


def test_several_sentences_show_one_at_a_time(client):
    q = "Guten Morgen. Es regnet."
    first = text_of(client.get("/beam", query_string={"q": q}))
    assert beam_data(first)["winner"]["translation"] == "Good morning."
    assert 'href="/beam?q=Guten+Morgen.+Es+regnet.&amp;s=1"' in first
    second = text_of(client.get("/beam", query_string={"q": q, "s": "1"}))
    assert beam_data(second)["winner"]["translation"] == "It is raining."
    assert '<dd lang="de" id="beam-source">Es regnet.</dd>' in second
    for s in ("9", "-1", "x", "²"):
        assert beam_data(text_of(client.get("/beam", query_string={"q": q, "s": s})))["winner"]["translation"] == "Good morning."


def test_q_is_escaped_in_the_page_and_in_the_embedded_json(client):
    html = text_of(client.get("/beam", query_string={"q": XSS}))
    assert XSS not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    html = text_of(client.get("/beam", query_string={"q": "</script><script>alert(1)</script>"}))
    data = html.split('id="beam-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data  # tojson escapes < > & '


@pytest.mark.parametrize("via, q, status, message", [
    ("get", "Hallo" * 120, 413, "600 characters exceed the limit of 500 characters for the beam search view"),
    ("get", "\u200b", 400, "q has no text to translate"),
    ("get", "Hal\x00lo", 400, "Invalid request: q contains a control character (U+0000)"),
    # too long for a URL: by the form (POST), whose errors show on the page at once
    ("post", "a" * 5001, 413, "5001 characters exceed the limit of 5000 characters per request"),
])
def test_bad_input_shows_the_error(client, via, q, status, message):
    response = client.get("/beam", query_string={"q": q}) if via == "get" else client.post("/beam", data={"q": q})
    assert response.status_code == status
    html = text_of(response)
    assert message in html and 'role="alert" >' in html
    assert 'id="beam-data"' not in html


def test_the_translate_and_attention_pages_link_here(client):
    html = text_of(client.get("/", query_string={"q": "Guten Morgen."}))
    assert '<a id="beam-link" href="/beam?q=Guten+Morgen.">Beam search behind this translation</a>' in html
    html = text_of(client.get("/attention", query_string={"q": "Guten Morgen. Es regnet.", "s": "1"}))
    assert '<a id="beam-link" href="/beam?q=Guten+Morgen.+Es+regnet.&amp;s=1">' in html
