"""app/api.py: LibreTranslate-compatible /translate and /languages, attention, random, health."""

import pytest


def translate(client, how, **params):
    if how == "json":
        return client.post("/translate", json=params)
    if how == "form":
        return client.post("/translate", data=params)
    return client.post("/translate", query_string=params)


@pytest.mark.parametrize("how", ["json", "form", "query"])
def test_translate_a_string(client, how):
    response = translate(client, how, q="Guten Morgen.", source="de", target="en")
    assert response.status_code == 200
    assert response.get_json() == {"translatedText": "Good morning."}


def test_translate_a_list_keeps_shape_and_order(client):
    response = client.post("/translate", json={"q": ["Es regnet.", "", "Vielen Dank."], "source": "de", "target": "en"})
    assert response.get_json() == {"translatedText": ["It is raining.", "", "Thank you very much."]}


def test_blank_text_translates_to_empty(client):
    response = client.post("/translate", json={"q": "  \n ", "source": "de", "target": "en"})
    assert response.status_code == 200 and response.get_json() == {"translatedText": ""}


def test_paragraphs_are_kept(client):
    q = "Guten Morgen. Vielen Dank.\n\nIch habe Hunger."
    response = client.post("/translate", json={"q": q, "source": "de", "target": "en"})
    assert response.get_json()["translatedText"] == "Good morning. Thank you very much.\n\nI am hungry."


def test_auto_source_reports_the_detected_language(client):
    # Real detection (pipeline/language.py); more in test_libretranslate.py.
    q = "Ich habe heute keine Zeit."
    single = client.post("/translate", json={"q": q, "source": "auto", "target": "en"}).get_json()
    german = client.post("/translate", json={"q": q, "source": "de", "target": "en"}).get_json()
    # the same translation, and the same warnings where it has some (the tiny model drops "keine")
    assert single == {**german, "detectedLanguage": {"confidence": 100.0, "language": "de"}}
    batch = client.post("/translate", json={"q": ["Es regnet.", "I don't have time today."], "source": "auto",
                                            "target": "en"}).get_json()
    assert batch["translatedText"] == ["It is raining.", "I don't have time today."]
    assert [d["language"] for d in batch["detectedLanguage"]] == ["de", "en"]


@pytest.mark.parametrize("how, n", [("json", 2), ("form", "2"), ("query", "1")])
def test_alternatives_for_a_string(client, how, n):
    body = translate(client, how, q="Guten Morgen.", source="de", target="en", alternatives=n).get_json()
    assert body["translatedText"] == "Good morning."
    assert isinstance(body["alternatives"], list) and len(body["alternatives"]) <= int(n)
    assert all(isinstance(a, str) and a and a != "Good morning." for a in body["alternatives"])


def test_alternatives_for_a_list_are_lists(client):
    body = client.post("/translate", json={"q": ["Es regnet.", "Ich bin müde."], "source": "de", "target": "en",
                                           "alternatives": 1}).get_json()
    assert body["translatedText"] == ["It is raining.", "I am tired."]
    assert len(body["alternatives"]) == 2 and all(isinstance(a, list) for a in body["alternatives"])


def test_no_alternatives_key_unless_asked(client):
    body = client.post("/translate", json={"q": "Es regnet.", "source": "de", "target": "en", "alternatives": 0}).get_json()
    assert body == {"translatedText": "It is raining."}


def test_html_format_keeps_tags(client):
    body = client.post("/translate", json={"q": '<p class="a">Guten Morgen.</p><b>Es regnet.</b>', "source": "de",
                                           "target": "en", "format": "html", "alternatives": 2}).get_json()
    assert body == {"translatedText": '<p class="a">Good morning.</p><b>It is raining.</b>', "alternatives": []}


def test_html_inline_tags_travel_with_their_words(client):
    body = client.post("/translate", json={"q": "<p>Die Katze <b>schläft</b>. Der Hund bellt.</p>", "source": "de",
                                           "target": "en", "format": "html"}).get_json()
    text = body["translatedText"]
    assert text.startswith("<p>") and text.endswith("</p>") and text.count("<b>") == text.count("</b>") == 1
    assert "The dog is barking." in text                     # one sentence, not three fragments


def test_spans_and_long_text_survive_the_api(client):
    long_text = " und ".join(["Ich habe Hunger", "es regnet", "die Katze schläft"] * 40)
    texts = ["Es regnet. https://beispiel.org/wetter 🎶", "Ich bin müde, 1.450 Euro!", long_text]
    body = client.post("/translate", json={"q": texts, "source": "de", "target": "en"}).get_json()
    first, second, third = body["translatedText"]
    assert first.startswith("It is raining.") and "https://beispiel.org/wetter" in first and first.endswith("🎶")
    assert "1,450" in second
    assert len(third.split()) >= 0.6 * len(long_text.split())


def test_api_key_accepted_and_ignored_without_configured_keys(client):
    response = client.post("/translate", json={"q": "Es regnet.", "source": "de", "target": "en", "api_key": "xyz"})
    assert response.status_code == 200


def test_api_keys_when_configured(make_app):
    client = make_app(API_KEYS="k1,k2").test_client()
    body = {"q": "Es regnet.", "source": "de", "target": "en"}
    assert client.post("/translate", json={**body, "api_key": "k2"}).status_code == 200
    assert client.post("/translate", data={**body, "api_key": "k1"}).status_code == 200
    wrong = client.post("/translate", json={**body, "api_key": "nope"})
    assert (wrong.status_code, wrong.get_json()) == (403, {"error": "Invalid API key"})
    missing = client.post("/translate", json=body)
    assert (missing.status_code, missing.get_json()) == (400, {"error": "Please contact the server operator to get an API key"})


def test_cross_origin_allowed_on_the_api(client):
    response = client.post("/translate", json={"q": "Es regnet.", "source": "de", "target": "en"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    preflight = client.options("/translate", headers={"Origin": "https://example.org",
                                                      "Access-Control-Request-Method": "POST"})
    assert preflight.status_code == 200 and preflight.headers["Access-Control-Allow-Origin"] == "*"


def test_languages(client):
    response = client.get("/languages")
    assert response.status_code == 200
    assert response.get_json() == [{"code": "de", "name": "German", "targets": ["en"]},
                                   {"code": "en", "name": "English", "targets": []}]


@pytest.mark.parametrize("how", ["json", "form"])
def test_attention(client, how):
    kwargs = {"json": {"q": "Guten Morgen."}} if how == "json" else {"data": {"q": "Guten Morgen."}}
    body = client.post("/api/attention", **kwargs).get_json()
    assert set(body) >= {"source_tokens", "target_tokens", "translation", "attention"}
    assert body["translation"] == "Good morning."
    S, T = len(body["source_tokens"]), len(body["target_tokens"])
    for kind, (rows, cols) in {"encoder": (S, S), "decoder": (T, T), "cross": (T, S)}.items():
        for layer in body["attention"][kind]:
            for head in layer:
                assert len(head) == rows
                for row in head:
                    assert len(row) == cols and abs(sum(row) - 1) < 2e-3


def test_attention_is_bounded_by_pieces(make_app):
    """The answer is square in the pieces: "１" * 499 + "0" (500 characters) was 53 MB of JSON."""
    client = make_app(MAX_ATTENTION_PIECES=5).test_client()
    response = client.post("/api/attention", json={"q": "Guten Morgen, wie geht es Ihnen?"})
    assert response.status_code == 413
    assert response.get_json() == {"error": "Invalid request: q has 17 pieces, more than the 5 the attention view shows"}
    assert client.post("/api/attention", json={"q": "Guten Morgen."}).status_code == 200
    page = client.get("/attention", query_string={"q": "Guten Morgen, wie geht es Ihnen?"})
    assert page.status_code == 413 and "more than the 5 the attention view shows" in page.get_data(as_text=True)


def test_attention_stops_when_the_request_budget_is_spent(app):
    from pipeline import deadline

    service = app.extensions["translation_service"]
    with app.app_context(), deadline.budget(1e-9):
        with pytest.raises(deadline.DeadlineExceeded):
            service.attention("Guten Morgen.")


@pytest.mark.parametrize("query", [{}, {"split": ""}, {"split": "train"}])
def test_random(client, pairs40, query):
    body = client.get("/api/random", query_string=query).get_json()
    assert set(body) == {"source", "references", "translation", "chrf", "split"}
    assert body["references"] == [en for de, en in pairs40 if de == body["source"]]
    assert body["translation"] == body["references"][0] and body["chrf"] == 100.0
    assert body["split"] == "train"  # a sentence the model learned: chrF 100 says little


def test_random_held_out_draws_from_the_held_out_sample_only(make_app, pairs40, tmp_path):
    from app.service import chrf

    # sentences of our own that the tiny model never saw (it knows pairs40, the training sample)
    held_out = tmp_path / "held-out.tsv"
    held_out.write_text("The lamp is broken.\tDie Lampe ist kaputt.\tours\n"
                        "The lamp does not work.\tDie Lampe ist kaputt.\tours\n"
                        "We are waiting for the bus.\tWir warten auf den Bus.\tours\n", encoding="utf-8")
    client = make_app(HELD_OUT_PATH=str(held_out)).test_client()
    references = {"Die Lampe ist kaputt.": ["The lamp is broken.", "The lamp does not work."],
                  "Wir warten auf den Bus.": ["We are waiting for the bus."]}
    seen = set()
    for _ in range(12):
        body = client.get("/api/random", query_string={"split": "test"}).get_json()
        assert set(body) == {"source", "references", "translation", "chrf", "split"}
        assert body["split"] == "test" and body["references"] == references[body["source"]]
        assert body["chrf"] == chrf(body["translation"], body["references"]) < 100
        seen.add(body["source"])
    assert seen <= set(references) and not seen & {de for de, _ in pairs40}
    assert client.get("/api/random").get_json()["source"] in {de for de, _ in pairs40}  # train: CORPUS_PATH's


@pytest.mark.parametrize("value", ["dev", "TEST", "test ", "1"])
def test_random_refuses_another_split(client, value):
    response = client.get("/api/random", query_string={"split": value})
    assert response.status_code == 400
    assert response.get_json() == {"error": f"Invalid request: split must be one of train, test, got {value}"}


def test_random_without_corpus(make_app):
    client = make_app(CORPUS_PATH="", HELD_OUT_PATH="").test_client()
    response = client.get("/api/random")
    assert response.status_code == 404
    assert response.get_json() == {"error": "Random is not available: no corpus is configured (set CORPUS_PATH)"}
    response = client.get("/api/random", query_string={"split": "test"})
    assert response.status_code == 404
    assert response.get_json() == {"error": "Random is not available for split=test: no held-out sample is "
                                            "configured (set HELD_OUT_PATH)"}


def test_health(client, app_config):
    assert client.get("/health").get_json() == {"status": "ok", "device": "cpu", "checkpoint": app_config["MODEL_PATH"],
                                                 "models": {"de-en": app_config["MODEL_PATH"]}}


def test_health_is_503_when_the_worker_cannot_translate(make_app, monkeypatch):
    """A gunicorn worker forked after CUDA was touched answers every request with a 500; /health
    must say so instead of "ok" (checked once per process, by translating a word)."""
    from app.service import TranslationService

    def broken(self, texts, **kwargs):
        raise RuntimeError("Cannot re-initialize CUDA in forked subprocess.\nmore detail")

    client = make_app().test_client()
    monkeypatch.setattr(TranslationService, "translate", broken)
    response = client.get("/health")
    assert response.status_code == 503
    assert response.get_json()["status"] == "error"
    assert response.get_json()["error"] == "RuntimeError: Cannot re-initialize CUDA in forked subprocess."


@pytest.mark.parametrize("q, expected", [
    ("\n" * 200 + "Guten Morgen.", "\n" * 200 + "Good morning."),
    ("  Guten Morgen.\t\n", "  Good morning.\t\n"),
    ("\n\nGuten Morgen.\n\nEs regnet.\n", "\n\nGood morning.\n\nIt is raining.\n"),
    (" \n ", ""),    # a blank text: "", as test_blank_text_translates_to_empty
])
def test_whitespace_around_a_text_comes_back_as_sent(client, q, expected):
    """The leading lines of "\\n" * 4990 + "Ja" were dropped; whitespace inside a text was kept."""
    response = client.post("/translate", json={"q": q, "source": "de", "target": "en"})
    assert (response.status_code, response.get_json()) == (200, {"translatedText": expected})
