"""/api/explain with a given translation (app/inspection.py's ``explain_forced``): the alternative the
inspector's user chose, explained as the model's own translation is, with both engines."""

from __future__ import annotations

import pytest

from app import create_app
from model.inference.explain import word_confidences
from model.search.scoring import teacher_force

from .test_inspector_api import check_explanation, post

SENTENCES = ["Wo ist der Bahnhof?", "Ich liebe Musik.", "Das Wetter ist heute schön.", "Die Katze schläft.",
             "  Ich   liebe\tMusik. ", "Ich bin mu\u0308de.",
             "Guten Morgen", "Wo ist der Bahnhof", " Ich liebe Musik  "]  # the pipeline adds a stop for the model

def piece_logprobs(model, src_ids, out_ids, **kwargs):
    """Each output's piece log-probabilities, from the one scorer."""
    return [forced.logprobs for forced in teacher_force(model, src_ids, out_ids, **kwargs)]



@pytest.fixture(scope="module", params=["torch", "ct2"])
def engine_client(request, app_config):
    """The app on each engine (ct2 aligns and scores with the PyTorch model it keeps)."""
    if request.param == "ct2":
        pytest.importorskip("ctranslate2")
    return create_app({**app_config, "ENGINE": request.param, "TRANSLATION_CACHE": 0}).test_client()


@pytest.fixture(scope="module")
def span_client(app_config, span_checkpoint):
    """The app on a tiny model that has learned to copy placeholders."""
    return create_app({**app_config, "MODEL_PATH": str(span_checkpoint)}).test_client()


def translator_of(client):
    return client.application.extensions["translation_service"].translator


def same_explanation(given, own):
    assert {k: v for k, v in given.items() if k != "confidence"} == {k: v for k, v in own.items() if k != "confidence"}
    assert len(given["confidence"]) == len(own["confidence"])
    assert all(abs(a - b) <= 1e-6 for a, b in zip(given["confidence"], own["confidence"]))


@pytest.mark.parametrize("q", SENTENCES)
def test_the_model_s_own_translation_given_is_explained_as_without(engine_client, q):
    c = engine_client
    own = post(c, "/api/explain", q=q)
    same_explanation(post(c, "/api/explain", q=q, translation=own["translation"]), own)


@pytest.mark.parametrize("q", ["Das kostet 5 Euro.", "Der Zug fährt um 7:30 ab.", "Es regnet. https://beispiel.org/wetter"])
def test_with_placeholders_too(span_client, q):
    own = post(span_client, "/api/explain", q=q)
    assert any(c.isdigit() or "/" in c for c in own["translation"])
    same_explanation(post(span_client, "/api/explain", q=q, translation=own["translation"]), own)


def test_another_translation_gets_its_own_words_and_confidences(engine_client):
    c = engine_client
    q, given = "Wo ist der Bahnhof?", "  Where is\tthe   cat station?"
    body = post(c, "/api/explain", q=q, translation=given)
    check_explanation(body, q)
    assert body["translation"] == "Where is the cat station?"
    assert body["target_words"] == ["Where", "is", "the", "cat", "station", "?"]
    assert body["source_words"] == ["Wo", "ist", "der", "Bahnhof", "?"]
    assert {t for t, _ in body["alignment"]} == set(range(6))  # every word is aligned somewhere
    # the confidences are the teacher-forced probabilities of exactly these pieces
    translator = translator_of(c)
    src, out = translator.tokenizer.encode(q), translator.tokenizer.encode(body["translation"])
    _, _, expected = word_confidences(translator.tokenizer, out, piece_logprobs(translator.model, [src], [out])[0])
    assert body["confidence"] == [round(p, 4) for p in expected]
    own = post(c, "/api/explain", q=q)
    assert body["confidence"][:3] == own["confidence"][:3]  # the decoder sees only the words before
    assert body["confidence"][3] < 0.5 < own["confidence"][3]  # "cat" is not what the model says


def test_a_translation_that_ends_with_its_own_stop_keeps_it(client):
    """For "Guten Morgen" the model reads "Guten Morgen." and its own stop is dropped (as
    /translate drops it); a full stop in the translation given is the user's and stays."""
    own = post(client, "/api/explain", q="Guten Morgen")
    assert own["translation"] == "Good morning" and own["source_words"] == ["Guten", "Morgen"]
    given = post(client, "/api/explain", q="Guten Morgen", translation="Good morning.")
    check_explanation(given, "Guten Morgen")
    assert given["target_words"] == ["Good", "morning", "."] and given["source_words"] == ["Guten", "Morgen"]
    assert given["confidence"][:2] == own["confidence"]


def test_alternatives_from_complete_are_explained(span_client):
    """What the inspector does when a word is chosen: explain the completion it got."""
    q = "Das kostet 5 Euro."
    for completion in post(span_client, "/api/complete", q=q, prefix="That ", n=3)["completions"]:
        body = post(span_client, "/api/explain", q=q, translation=completion["text"])
        check_explanation(body, q)
        assert body["translation"] == completion["text"] and "⦅" not in body["translation"]
        assert body["target_words"][0] == "That"


def test_whole_text_as_one_model_input(client):
    """Two sentences are forced as one input, as /api/complete completes them."""
    q = "Es regnet. Ich bin müde."
    body = post(client, "/api/explain", q=q, translation="It is raining. I am tired.")
    check_explanation(body, q)
    assert body["target_words"] == ["It", "is", "raining", ".", "I", "am", "tired", "."]


def test_pieces_limit(make_app):
    client = make_app(MAX_ATTENTION_CHARS=3000).test_client()
    tokenizer = translator_of(client).tokenizer
    longest = "a " * 254 + "a"
    assert len(tokenizer.encode(longest)) == 255  # the decoder reads BOS and 255 pieces
    body = post(client, "/api/explain", q="Ich liebe Musik.", translation=longest)
    assert len(body["target_words"]) == 255
    response = client.post("/api/explain", json={"q": "Ich liebe Musik.", "translation": longest + " a"})
    assert (response.status_code, response.get_json()) == (
        413, {"error": "Invalid request: translation has 256 pieces, more than the 255 the model writes at once"})


TRANSLATION_CASES = {
    "number": (5, "Invalid request: translation must be a string"),
    "list": (["The"], "Invalid request: translation must be a string"),
    "empty": ("", "Invalid request: translation is blank"),
    "blank": (" \n\t", "Invalid request: translation is blank"),
    "control": ("The\x07", "Invalid request: translation contains a control character (U+0007)"),
    "surrogate": ("The\ud800", "Invalid request: translation is not valid Unicode text"),
    "too long": ("a" * 501, "Invalid request: translation has 501 characters, more than the limit of 500"),
    "unwritable": ("The Ωmega ω", "Invalid request: translation contains characters the model cannot write: Ωω"),
    "invisible only": ("\u200b\ufeff", "Invalid request: translation has no text the model can write"),
}


@pytest.mark.parametrize("value, message", TRANSLATION_CASES.values(), ids=TRANSLATION_CASES.keys())
def test_translation_errors(client, value, message):
    response = client.post("/api/explain", json={"q": "Wo ist der Bahnhof?", "translation": value})
    assert (response.status_code, response.get_json()) == (400, {"error": message})


def test_q_is_checked_first(client):
    response = client.post("/api/explain", json={"q": "", "translation": 5})
    assert (response.status_code, response.get_json()) == (400, {"error": "Invalid request: missing q parameter"})


def test_form_body(client):
    response = client.post("/api/explain", data={"q": "Ich liebe Musik.", "translation": "I love music."})
    assert response.status_code == 200 and response.get_json()["translation"] == "I love music."
