"""app/libretranslate.py and app/spec.py: /detect, /frontend/settings, /spec; and source=auto on /translate."""

import json
import re
from urllib.parse import urlencode

import pytest
from openapi_spec_validator import validate

from app.api import API_PREFIXES
from app.service import get_service
from app.spec import document
from app.errors import MAX_QUERY_BYTES
from tests.app.test_api_errors import ODD_TEXTS, QUERY_TOO_LONG

GERMAN = "Das Wetter ist heute wirklich schön."
ENGLISH = "The weather is really nice today."
MISSING_Q = "Invalid request: missing q parameter"
NOT_STRINGS = "Invalid request: q must be a string or a list of strings"
NO_KEY = "Please contact the server operator to get an API key"


pytestmark = pytest.mark.usefixtures("no_logged_errors")


def send(client, how, path, **params):
    if how == "json":
        return client.post(path, json=params)
    if how == "form":
        return client.post(path, data=params)
    return client.post(path, query_string=params)


# ---------------------------------------------------------------------------------------- /detect

@pytest.mark.parametrize("how", ["json", "form", "query"])
@pytest.mark.parametrize("q, best", [(GERMAN, "de"), (ENGLISH, "en"), ("Ich habe heute keine Zeit.", "de"),
                                     ("Why didn't you call?", "en")])
def test_detect(client, how, q, best):
    response = send(client, how, "/detect", q=q)
    assert response.status_code == 200 and response.mimetype == "application/json"
    body = response.get_json()
    assert [c["language"] for c in body] == [best, ({"de", "en"} - {best}).pop()]
    assert all(set(c) == {"confidence", "language"} for c in body)
    assert body[0]["confidence"] >= 90 and abs(sum(c["confidence"] for c in body) - 100) <= 0.1


FRENCH = "Bonjour, je voudrais réserver une table pour deux personnes ce soir."


def test_detect_names_another_language(client):
    body = client.post("/detect", json={"q": FRENCH}).get_json()
    assert body[0] == {"confidence": 100.0, "language": "fr"}
    assert sorted(c["language"] for c in body[1:]) == ["de", "en"]


@pytest.mark.parametrize("q, where", [(FRENCH, "q"), (["Es regnet.", FRENCH], "q[1]")])
def test_auto_source_refuses_another_language_by_name(client, q, where):
    response = client.post("/translate", json={"q": q, "source": "auto", "target": "en"})
    assert response.status_code == 400
    assert response.get_json() == {"error": f"Invalid request: {where} is in another language (fr, confidence 100.0): "
                                            "this service translates German (de) into English (en)"}
    # Named as German, it is translated as German: the caller said so.
    assert client.post("/translate", json={"q": q, "source": "de", "target": "en"}).status_code == 200


def test_detect_exact_answer(client):
    assert client.post("/detect", json={"q": GERMAN}).get_json() == [{"confidence": 100.0, "language": "de"},
                                                                      {"confidence": 0.0, "language": "en"}]


def test_detect_a_list_ranks_all_texts_together(client):
    one = {q: {c["language"]: c["confidence"] for c in client.post("/detect", json={"q": q}).get_json()}
           for q in ("Es regnet.", ENGLISH, "Wir gehen morgen ins Kino.")}
    body = client.post("/detect", json={"q": list(one) + ["12345"]}).get_json()  # "12345": no words, no vote
    mean = {code: round(sum(c[code] for c in one.values()) / 3, 1) for code in ("de", "en")}
    assert body == sorted(({"confidence": v, "language": k} for k, v in mean.items()),
                          key=lambda c: -c["confidence"])
    assert body[0]["language"] == "de"


@pytest.mark.parametrize("q", ["12345", "   ", "🎉", "https://example.org/english/words", ["", "42"]])
def test_detect_without_words_reports_german_with_no_confidence(client, q):
    # LibreTranslate reports {"confidence": 0.0, "language": "en"}; such text is translated as German here.
    assert client.post("/detect", json={"q": q}).get_json() == [{"confidence": 0.0, "language": "de"}]


DETECT_ERRORS = {
    "missing": ({}, 400, MISSING_Q),
    "empty": ({"q": ""}, 400, MISSING_Q),
    "null": ({"q": None}, 400, MISSING_Q),
    "empty list": ({"q": []}, 400, MISSING_Q),
    "number": ({"q": 5}, 400, NOT_STRINGS),
    "object": ({"q": {"text": "Hallo"}}, 400, NOT_STRINGS),
    "list of numbers": ({"q": ["Hallo", 2]}, 400, NOT_STRINGS),
    "too long": ({"q": "a" * 5001}, 413, "Invalid request: 5001 characters exceed the limit of 5000 characters per request"),
    "too long together": ({"q": ["a" * 3000, "b" * 3000]}, 413,
                          "Invalid request: 6000 characters exceed the limit of 5000 characters per request"),
    "too many texts": ({"q": ["Hallo."] * 51}, 413, "Invalid request: 51 texts exceed the limit of 50 texts per request"),
    "control": ({"q": "Hallo\x00Welt"}, 400, "Invalid request: q contains a control character (U+0000)"),
}


@pytest.mark.parametrize("body, status, message", DETECT_ERRORS.values(), ids=DETECT_ERRORS.keys())
def test_detect_errors(client, body, status, message):
    response = client.post("/detect", json=body)
    assert (response.status_code, response.get_json()) == (status, {"error": message})


@pytest.mark.parametrize("how", ["form", "query"])
@pytest.mark.parametrize("params, status, message", [({}, 400, MISSING_Q), ({"q": ""}, 400, MISSING_Q),
                                                     ({"q": "ä" * 5001}, 413, DETECT_ERRORS["too long"][2])])
def test_detect_form_and_query_errors(client, how, params, status, message):
    if how == "query" and len(urlencode(params)) > MAX_QUERY_BYTES:  # too long for a URL: the app's 414 first
        status, message = 414, QUERY_TOO_LONG.format(n=len(urlencode(params)))
    response = send(client, how, "/detect", **params)
    assert (response.status_code, response.get_json()) == (status, {"error": message})


@pytest.mark.parametrize("request_kwargs, status, message", [
    ({"data": "{broken", "content_type": "application/json"}, 400, "Invalid JSON format"),
    ({"data": '["Hallo"]', "content_type": "application/json"}, 400, "Invalid JSON format"),
    ({"data": "q=Hallo", "content_type": "text/plain"}, 415,
     "Unsupported media type text/plain: send application/json or application/x-www-form-urlencoded"),
    ({"data": json.dumps({"q": "a" * 1_100_000}), "content_type": "application/json"}, 413,
     "Request body too large: the limit is 1000000 bytes"),
])
def test_detect_bad_bodies(client, request_kwargs, status, message):
    response = client.post("/detect", **request_kwargs)
    assert (response.status_code, response.get_json()) == (status, {"error": message})


def test_detect_api_keys_when_configured(make_app):
    client = make_app(API_KEYS="k1,k2").test_client()
    assert client.post("/detect", json={"q": GERMAN, "api_key": "k2"}).status_code == 200
    assert client.post("/detect", data={"q": GERMAN, "api_key": "k1"}).status_code == 200
    wrong = client.post("/detect", json={"q": GERMAN, "api_key": "nope"})
    assert (wrong.status_code, wrong.get_json()) == (403, {"error": "Invalid API key"})
    missing = client.post("/detect", json={"q": GERMAN})
    assert (missing.status_code, missing.get_json()) == (400, {"error": NO_KEY})
    # The key is checked first, as in LibreTranslate.
    assert client.post("/detect", json={}).get_json() == {"error": NO_KEY}


def test_detect_api_key_accepted_and_ignored_without_configured_keys(client):
    assert client.post("/detect", json={"q": GERMAN, "api_key": "xyz"}).status_code == 200


# ------------------------------------------------------------------------------ /frontend/settings

def test_frontend_settings(client):
    response = client.get("/frontend/settings")
    assert response.status_code == 200
    assert response.get_json() == {
        "charLimit": 5000, "frontendTimeout": 500, "apiKeys": False, "keyRequired": False, "suggestions": False,
        "filesTranslation": True,
        "supportedFilesFormat": [".docx", ".epub", ".html", ".json", ".md", ".odp", ".odt", ".pdf", ".po", ".pot",
                                 ".pptx", ".srt", ".txt", ".vtt"],
        "language": {"source": {"code": "de", "name": "German"}, "target": {"code": "en", "name": "English"}},
    }


def test_frontend_settings_follow_the_settings(make_app):
    body = make_app(API_KEYS="k1", MAX_CHARS=42).test_client().get("/frontend/settings").get_json()
    assert (body["charLimit"], body["apiKeys"], body["keyRequired"]) == (42, True, True)


# ------------------------------------------------------------------------------------------ /spec

def test_spec_is_valid_openapi_3(client):
    response = client.get("/spec")
    assert response.status_code == 200 and response.mimetype == "application/json"
    spec = response.get_json()
    assert spec == document() and spec["openapi"].startswith("3.")
    validate(spec)  # raises on anything that is not OpenAPI 3


def _openapi_path(rule: str) -> str:
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule)


@pytest.mark.parametrize("settings, optional", [({}, set()), ({"METRICS": 1}, {"/metrics"})])
def test_spec_describes_every_api_route_with_its_methods(make_app, settings, optional):
    app = make_app(**settings)
    paths = document()["paths"]
    routes = [r for r in app.url_map.iter_rules() if r.endpoint != "static" and r.rule.startswith(API_PREFIXES)]
    assert {"/translate", "/languages", "/detect", "/frontend/settings", "/spec", "/health", *optional} \
        <= {r.rule for r in routes}
    for rule in routes:
        path = _openapi_path(rule.rule)
        assert path in paths, f"{rule.rule} is not in app/spec.py"
        methods = {m.lower() for m in rule.methods} - {"head", "options"}
        assert methods <= set(paths[path]), f"{rule.rule}: {methods - set(paths[path])} not described"


def test_spec_error_responses_are_json_errors():
    for path, item in document()["paths"].items():
        for method, operation in item.items():
            errors = {s: r for s, r in operation["responses"].items() if s.startswith("4")}
            if "requestBody" in operation:
                assert {"400", "413", "415"} <= set(errors), f"{method} {path}: errors {set(errors)}"
            for response in errors.values():
                assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}


# ----------------------------------------------------------------------- errors on the new paths

@pytest.mark.parametrize("method, path, status, message", [
    ("get", "/detect", 405, "Method GET not allowed; use POST"),
    ("put", "/detect", 405, "Method PUT not allowed; use POST"),
    ("post", "/frontend/settings", 405, "Method POST not allowed; use GET"),
    ("post", "/spec", 405, "Method POST not allowed; use GET"),
    ("get", "/frontend/nothing", 404, "Not found"),
    ("get", "/detect/more", 404, "Not found"),
])
def test_errors_on_the_new_paths_are_json(client, method, path, status, message):
    response = getattr(client, method)(path)
    assert (response.status_code, response.get_json()) == (status, {"error": message})


@pytest.mark.parametrize("path", ["/detect", "/frontend/settings", "/spec"])
def test_cross_origin_allowed(client, path):
    response = client.post(path, json={"q": "Hallo"}) if path == "/detect" else client.get(path)
    assert response.headers["Access-Control-Allow-Origin"] == "*"


# ------------------------------------------------------------------------------ source=auto

def test_auto_keeps_an_english_sentence_and_translates_the_german_ones(client):
    q = "Ich habe Hunger.  The weather is really nice today.\n\nVielen Dank."
    auto = client.post("/translate", json={"q": q, "source": "auto", "target": "en"}).get_json()
    assert auto["translatedText"] == "I am hungry.  The weather is really nice today.\n\nThank you very much."
    assert auto["detectedLanguage"] == client.post("/detect", json={"q": q}).get_json()[0]
    german = client.post("/translate", json={"q": q, "source": "de", "target": "en"}).get_json()
    assert ENGLISH not in german["translatedText"]  # source=de translates everything, as before


def test_service_sends_only_german_to_the_model_in_one_batch(app, model_calls):
    with app.app_context():
        service = get_service()
    texts = [f"Ich habe Hunger. {ENGLISH} Vielen Dank.", "Es regnet.", "I don't have time today."]
    assert service.translate(texts, keep_other_languages=True) == [
        f"I am hungry. {ENGLISH} Thank you very much.", "It is raining.", "I don't have time today."]
    assert model_calls == [["Ich habe Hunger.", "Vielen Dank.", "Es regnet."]]
    model_calls.clear()
    assert service.translate(["I don't have time today.", ""], keep_other_languages=True) == [
        "I don't have time today.", ""]
    assert model_calls == []


def test_auto_reports_the_detection_of_each_text(client):
    q = ["Es regnet.", ENGLISH, "12345"]
    body = client.post("/translate", json={"q": q, "source": "auto", "target": "en"}).get_json()
    assert body["translatedText"][:2] == ["It is raining.", ENGLISH]
    assert body["detectedLanguage"] == [client.post("/detect", json={"q": text}).get_json()[0] for text in q]
    assert [d["language"] for d in body["detectedLanguage"]] == ["de", "en", "de"]
    assert body["detectedLanguage"][2] == {"confidence": 0.0, "language": "de"}


@pytest.mark.parametrize("q", ["Tom", "Hallo!", "Ich habe Hunger.", "I am sorry."])
def test_auto_translates_short_or_german_text_as_german(client, q):
    auto = client.post("/translate", json={"q": q, "source": "auto", "target": "en"}).get_json()
    german = client.post("/translate", json={"q": q, "source": "de", "target": "en"}).get_json()
    assert auto["translatedText"] == german["translatedText"]


def test_auto_with_alternatives_keeps_the_english_sentence_in_each(client):
    q = f"Ich habe Hunger. {ENGLISH}"
    body = client.post("/translate", json={"q": [q], "source": "auto", "target": "en", "alternatives": 2}).get_json()
    assert body["translatedText"] == [f"I am hungry. {ENGLISH}"]
    assert len(body["alternatives"][0]) <= 2
    assert all(a.endswith(f" {ENGLISH}") and a != body["translatedText"][0] for a in body["alternatives"][0])


def test_auto_with_html_translates_everything(client):
    q = f"<p>Ich habe Hunger.</p><p>{ENGLISH}</p>"
    auto = client.post("/translate", json={"q": q, "source": "auto", "target": "en", "format": "html"}).get_json()
    german = client.post("/translate", json={"q": q, "source": "de", "target": "en", "format": "html"}).get_json()
    assert auto["translatedText"] == german["translatedText"]
    assert auto["detectedLanguage"] == client.post("/detect", json={"q": f"Ich habe Hunger.\n{ENGLISH}"}).get_json()[0]


def test_auto_with_html_detects_the_text_not_the_markup(client):
    q = ('<div class="header navigation wrapper" title="the main menu of the page"><p>Ich habe heute keine Zeit.</p>'
         '<script>let message = "this is not text";</script></div>')
    body = client.post("/translate", json={"q": q, "source": "auto", "target": "en", "format": "html"}).get_json()
    assert body["detectedLanguage"] == client.post("/detect", json={"q": "Ich habe heute keine Zeit."}).get_json()[0]


@pytest.mark.parametrize("q", ODD_TEXTS)
def test_odd_text_never_breaks_detection(client, q):
    answers = [client.post("/detect", json={"q": q}),
               client.post("/translate", json={"q": q, "source": "auto", "target": "en"}),
               client.post("/translate", json={"q": [q, ENGLISH], "source": "auto", "target": "en", "alternatives": 1})]
    assert [a.status_code for a in answers] == [200, 200, 200]
