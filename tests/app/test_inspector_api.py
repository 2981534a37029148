"""app/inspector.py: /api/sentences, /api/explain, /api/complete and /api/beam on the tiny models of
tests/conftest.py (for placeholders, the tiny span model). /api/explain with a given translation:
test_explain_translation.py. The inspector on the release model (spans and casing, unpunctuated
sentences, alternatives): tests/test_release.py."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from app import create_app, inspection
from app.spec import document
from model.network.batch import Batch
from model.search.decoding import beam_search
from model.search.options import SERVED, SearchOptions
from model.inference.explain import word_confidences
from model.search.scoring import teacher_force
from pipeline.segment import join_layout, segment

ENDPOINTS = ["/api/explain", "/api/complete", "/api/beam"]
EXPLAIN_KEYS = {"translation", "source_words", "source_spans", "target_words", "target_spans", "alignment", "confidence"}
BEAM_KEYS = {"source_pieces", "beam_size", "length_penalty", "no_repeat_ngram_size", "max_length", "steps",
             "stop_reason", "winner"}

def piece_logprobs(model, src_ids, out_ids, **kwargs):
    """Each output's piece log-probabilities, from the one scorer."""
    return [forced.logprobs for forced in teacher_force(model, src_ids, out_ids, **kwargs)]



@pytest.fixture(scope="module")
def beam_client(app_config):
    """The app with the default beam size, 4 (the session's app uses greedy search)."""
    return create_app({**app_config, "BEAM_SIZE": 4}).test_client()


@pytest.fixture(scope="module")
def span_client(app_config, span_checkpoint):
    """The app on a tiny model that has learned to copy placeholders."""
    return create_app({**app_config, "MODEL_PATH": str(span_checkpoint)}).test_client()


def post(client, path, **body):
    response = client.post(path, json=body)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def translate(client, q, glossary=None, **extra):
    """/translate's translatedText for q (a text or a list), with a glossary (inline or an id) where given."""
    if glossary is not None:
        extra["glossary"] = glossary
    return post(client, "/translate", q=q, source="de", target="en", **extra)["translatedText"]


def check_explanation(body, q):
    """The words are the spans' text; every link and confidence belongs to a word."""
    assert set(body) == EXPLAIN_KEYS
    assert [q[s:e] for s, e in body["source_spans"]] == body["source_words"]
    assert [body["translation"][s:e] for s, e in body["target_spans"]] == body["target_words"]
    assert len(body["confidence"]) == len(body["target_words"])
    assert all(0 <= c <= 1 for c in body["confidence"])
    assert body["alignment"] == sorted(body["alignment"])
    assert all(0 <= t < len(body["target_words"]) and 0 <= s < len(body["source_words"]) for t, s in body["alignment"])


# --------------------------------------------------------------------------- /api/sentences

def test_sentences_exact_shape(client):
    q = "Er isst z. B. Brot. Es regnet.\r\n\nWo ist der Bahnhof?"
    assert post(client, "/api/sentences", q=q) == {"sentences": [
        {"text": "Er isst z. B. Brot.", "start": 0, "end": 19, "separator": ""},
        {"text": "Es regnet.", "start": 20, "end": 30, "separator": " "},
        {"text": "Wo ist der Bahnhof?", "start": 33, "end": 52, "separator": "\n\n"}]}


def margins(q: str, translation: str) -> str:
    """``translation`` inside the whitespace that ``q`` has before and after its text."""
    return q[:len(q) - len(q.lstrip())] + translation + q[len(q.rstrip()):]


@pytest.mark.parametrize("q", ["Guten Morgen.", "Zeile eins.\nZeile zwei. Drei?\r\n\r\nVier…  Fünf",
                               "Am 3. Mai kommt Dr. Müller. Er isst z. B. Brot! „Gut“, sagt er. (Ja.) Nein",
                               "Die Hauptstr. 5 ist hier. Es kostet 3.5 Euro... Wirklich?! Ja.",
                               "  \n\nEr kam um 10. Dann ging er.\n\n\n", "A. Merkel spricht. 1999 war gut. Ende",
                               "Ich bin mu\u0308de. Ü\u0308ber 🎶 alles.", "  \n\t", "🎶"])
def test_sentences_are_the_pipeline_s(client, q):
    """The spans of pipeline.segment (mapped to q as sent), joined again as join_layout joins
    translations: explaining each sentence and joining gives /translate's translation."""
    sentences = post(client, "/api/sentences", q=q)["sentences"]
    layout = segment(q)  # q as sent is NFC except for the decomposed ü: same spans bar the offsets
    assert len(sentences) == sum(map(len, layout))
    assert [s["text"] for s in sentences] == [q[s["start"]:s["end"]] for s in sentences]
    assert all(s["text"] == s["text"].strip() and s["text"] for s in sentences)
    names = [f"S{i}" for i in range(len(sentences))]
    assert "".join(s["separator"] + n for s, n in zip(sentences, names)) == join_layout(layout, names).text
    if "mu\u0308de" not in q:
        assert [[s["start"], s["end"]] for s in sentences] == [list(span) for line in layout for span in line]
    explained = [post(client, "/api/explain", q=s["text"])["translation"] for s in sentences]
    # /translate gives the text's own whitespace around it back (a blank text: ""); the views show its sentences
    joined = "".join(s["separator"] + e for s, e in zip(sentences, explained))
    assert (margins(q, joined) if q.strip() else "") == translate(client, q)


def test_sentences_index_q_as_sent(client):
    q = "Ich bin mu\u0308de. Gut."  # decomposed ü: the pipeline cuts the NFC form
    assert [(s["start"], s["end"], s["text"]) for s in post(client, "/api/sentences", q=q)["sentences"]] == [
        (0, 14, "Ich bin mu\u0308de."), (15, 19, "Gut.")]


SENTENCES_CASES = {
    "missing": ({}, 400, "Invalid request: missing q parameter"),
    "empty": ({"q": ""}, 400, "Invalid request: missing q parameter"),
    "list": ({"q": ["Hallo"]}, 400, "Invalid request: q must be a string"),
    "number": ({"q": 5}, 400, "Invalid request: q must be a string"),
    "too long": ({"q": "Hallo " * 1000}, 413,
                 "Invalid request: 6000 characters exceed the limit of 5000 characters per request"),
    "control": ({"q": "Hal\x00lo"}, 400, "Invalid request: q contains a control character (U+0000)"),
    "surrogate": ({"q": "Hal\ud800lo"}, 400, "Invalid request: q is not valid Unicode text"),
}


@pytest.mark.parametrize("body, status, message", SENTENCES_CASES.values(), ids=SENTENCES_CASES.keys())
def test_sentences_errors(client, body, status, message):
    response = client.post("/api/sentences", json=body)
    assert (response.status_code, response.get_json()) == (status, {"error": message})


def test_sentences_take_what_translate_takes(client):
    q = "Hallo. " * 714  # 4998 characters: over the inspector's limit, within /translate's
    response = client.post("/api/sentences", data={"q": q})
    assert response.status_code == 200 and len(response.get_json()["sentences"]) == 714


# --------------------------------------------------------------------------- /api/explain

def test_explain_exact_shape(client):
    body = post(client, "/api/explain", q="Wo ist der Bahnhof?")
    check_explanation(body, "Wo ist der Bahnhof?")
    assert {k: v for k, v in body.items() if k not in ("alignment", "confidence")} == {
        "translation": "Where is the train station?",
        "source_words": ["Wo", "ist", "der", "Bahnhof", "?"],
        "source_spans": [[0, 2], [3, 6], [7, 10], [11, 18], [18, 19]],
        "target_words": ["Where", "is", "the", "train", "station", "?"],
        "target_spans": [[0, 5], [6, 8], [9, 12], [13, 18], [19, 26], [26, 27]],
    }


def test_explain_warns_as_translate_does(client):
    # the tiny model drops "keine": the inspector says so as /translate does, for the pipeline's
    # translation and for one given; a translation that keeps the negation has no warnings
    q = "Ich habe heute keine Zeit."
    answer = client.post("/translate", json={"q": q, "source": "de", "target": "en"}).get_json()
    warning = [{"check": "negation",
                "message": "the translation may have lost or added a negation (not, no, never): check its meaning"}]
    assert answer["warnings"] == warning and post(client, "/api/explain", q=q)["warnings"] == warning
    assert post(client, "/api/explain", q=q, translation="I have time today.")["warnings"] == warning
    assert "warnings" not in post(client, "/api/explain", q=q, translation="I have no time today.")


@pytest.mark.parametrize("q, pairs", [
    ("Wo ist der Bahnhof?", {("Where", "Wo"), ("station", "Bahnhof"), ("?", "?")}),
    ("Ich liebe Musik.", {("I", "Ich"), ("love", "liebe"), ("music", "Musik"), (".", ".")}),
    ("Das Wetter ist heute schön.", {("The", "Das"), ("weather", "Wetter"), ("nice", "schön")}),
    ("Die Katze schläft.", {("The", "Die"), ("cat", "Katze")}),
])
def test_explain_aligns_known_word_pairs(client, q, pairs):
    body = post(client, "/api/explain", q=q)
    linked = {(body["target_words"][t], body["source_words"][s]) for t, s in body["alignment"]}
    assert pairs <= linked


@pytest.mark.parametrize("q", ["Ich liebe Musik.", "Es regnet. Ich bin müde.", "Es regnet. https://beispiel.org/wetter 🎶",
                               "Ich bin müde, 1.450 Euro!", "ICH HABE HUNGER", "  Ich   liebe\tMusik. ",
                               " und ".join(["Ich habe Hunger", "es regnet", "die Katze schläft"] * 4)])
def test_explain_translation_is_translate_s(client, q):
    body = post(client, "/api/explain", q=q)
    assert margins(q, body["translation"]) == translate(client, q)
    check_explanation(body, q)


@pytest.mark.parametrize("q", ["Das kostet 5 Euro.", "Der Zug fährt um 7:30 ab.", "Es regnet. https://beispiel.org/wetter 🎶",
                               "DAS KOSTET 5 EURO"])
def test_explain_with_placeholders_is_translate_s(span_client, q):
    body = post(span_client, "/api/explain", q=q)
    assert body["translation"] == translate(span_client, q)
    check_explanation(body, q)


def test_explain_confidence_is_the_model_s_own(client, app):
    """The product of the pieces' probabilities in the model's output, by teacher forcing."""
    body = post(client, "/api/explain", q="Ich liebe Musik.")
    translator = app.extensions["translation_service"].translator
    src, out = translator.tokenizer.encode("Ich liebe Musik."), translator.tokenizer.encode("I love music.")
    _, _, expected = word_confidences(translator.tokenizer, out, piece_logprobs(translator.model, [src], [out])[0])
    assert body["confidence"] == [round(c, 4) for c in expected]


def test_a_restored_placeholder_has_its_piece_s_probability(span_client):
    body = post(span_client, "/api/explain", q="Das kostet 5 Euro.")
    assert body["translation"] == "That costs 5 euros."
    translator = span_client.application.extensions["translation_service"].translator
    model_output = "That costs ⦅N1⦆ euros."
    [(spans, confidences)] = translator.word_confidences(["Das kostet ⦅N1⦆ Euro."], [model_output])
    assert [model_output[s:e] for s, e in spans] == ["That", "costs", "⦅N1⦆", "euros", "."]
    assert body["target_words"] == ["That", "costs", "5", "euros", "."]
    assert body["confidence"] == [round(c, 4) for c in confidences] and body["confidence"][2] < 1


def test_explain_spans_index_q_as_sent(client):
    q = "Ich bin mu\u0308de."  # decomposed ü: the model reads the NFC form
    body = post(client, "/api/explain", q=q)
    assert body["source_words"] == ["Ich", "bin", "mu\u0308de", "."] and body["source_spans"][2] == [8, 13]
    assert body["translation"] == translate(client, unicodedata.normalize("NFC", q)) == "I am tired."


# --------------------------------------------------------------------------- /api/complete

def next_word(text: str, prefix: str) -> str:
    complete = prefix.rpartition(" ")[0]
    return text[len(complete):].split()[0]


@pytest.mark.parametrize("prefix", ["", "W", "Where", "Where ", "Where is the tr", "Where is the train ",
                                    "  Where  is\tthe", "Where is the train station?", "The"])
def test_complete_keeps_the_prefix_with_distinct_next_words(client, prefix):
    completions = post(client, "/api/complete", q="Wo ist der Bahnhof?", prefix=prefix)["completions"]
    normal = " ".join(prefix.split()) + (" " if prefix.strip() and prefix[-1].isspace() else "")
    assert 1 <= len(completions) <= 5  # n defaults to 5
    assert all(set(c) == {"text", "score"} and c["text"].startswith(normal) for c in completions)
    assert [c["score"] for c in completions] == sorted((c["score"] for c in completions), reverse=True)
    words = [next_word(c["text"], normal) for c in completions]
    assert len(set(words)) == len(words)
    if "Where is the train station?".startswith(normal):
        assert completions[0]["text"] == "Where is the train station?"


@pytest.fixture
def every_completion(monkeypatch):
    """No score margin: what the search finds, for tests of the search (the tiny model's other
    words are all far below its one translation)."""
    monkeypatch.setattr(inspection, "COMPLETIONS", inspection.CompletionOptions(score_margin=math.inf))


def test_complete_mid_word_continues_the_word(client, every_completion):
    completions = post(client, "/api/complete", q="Wo ist der Bahnhof?", prefix="Where is the tr", n=3)["completions"]
    assert completions[0]["text"] == "Where is the train station?" and len(completions) == 3
    assert all(next_word(c["text"], "Where is the tr").startswith("tr") for c in completions)


def test_complete_scores_are_the_search_s(client, app):
    completions = post(client, "/api/complete", q="Ich liebe Musik.", prefix="I lo", n=1)["completions"]
    translator = app.extensions["translation_service"].translator
    best = beam_search(translator.model, Batch.make([translator.tokenizer.encode("Ich liebe Musik.")]),
                       SearchOptions(beam_size=1, no_repeat_ngram_size=6))[0][0]
    assert completions == [{"text": "I love music.", "score": round(best.score, 4)}]


@pytest.mark.parametrize("n", [1, 3, "2", " 4 "])
def test_complete_n(client, n, every_completion):
    completions = post(client, "/api/complete", q="Wo ist der Bahnhof?", prefix="Wh", n=n)["completions"]
    assert len(completions) == int(n)


def test_complete_form_body(client, every_completion):
    response = client.post("/api/complete", data={"q": "Ich liebe Musik.", "prefix": "I ", "n": "2"})
    assert response.status_code == 200 and len(response.get_json()["completions"]) == 2


@pytest.mark.parametrize("prefix", ["That costs 5 ", "That costs 5", "That co", ""])
def test_complete_keeps_numbers(span_client, prefix):
    """The number is masked as the pipeline does it and restored in every completion; in the prefix
    too (5 is forced as its placeholder)."""
    completions = post(span_client, "/api/complete", q="Das kostet 5 Euro.", prefix=prefix)["completions"]
    assert completions[0]["text"] == "That costs 5 euros."
    assert all(c["text"].startswith(prefix) and "⦅" not in c["text"] for c in completions)


# --------------------------------------------------------------------------- /api/beam

@pytest.mark.parametrize("q", ["Wo ist der Bahnhof?", "Ich liebe Musik.", "Das Wetter ist heute schön.", "Es regnet."])
def test_beam_agrees_with_beam_search(beam_client, q):
    body = post(beam_client, "/api/beam", q=q)
    assert set(body) == BEAM_KEYS
    assert (body["beam_size"], body["length_penalty"], body["no_repeat_ngram_size"]) == (4, 0.6, 6)
    translator = beam_client.application.extensions["translation_service"].translator
    src = translator.tokenizer.encode(q)
    best = beam_search(translator.model, Batch.make([src]), SERVED)[0][0]
    winner = body["winner"]
    assert set(winner) == {"id", "pieces", "logprob", "score", "translation"}
    assert winner["pieces"] == translator.tokenizer.pieces(best.tokens) and winner["score"] == round(best.score, 4)
    assert winner["translation"] == translate(beam_client, q)
    assert body["source_pieces"] == translator.tokenizer.pieces(src)
    ended = [h for step in body["steps"] for h in step["hypotheses"] if h["id"] == winner["id"]]
    assert [(h["status"], h["reason"], h["score"], h["pieces"]) for h in ended] == [
        ("ended", "eos", winner["score"], winner["pieces"])]
    assert body["stop_reason"] == "beam_full"


def test_beam_step_shape(beam_client):
    body = post(beam_client, "/api/beam", q="Ich liebe Musik.")
    first = body["steps"][0]
    assert first["step"] == 1 and len(first["hypotheses"]) == 8  # 2 x beam size candidates
    assert all(h["parent"] == "0.0" and h["pieces"] == [h["piece"]] for h in first["hypotheses"])
    assert [h["status"] for h in first["hypotheses"]] == ["alive"] * 4 + ["pruned"] * 4
    for step in body["steps"]:
        for h in step["hypotheses"]:
            assert set(h) == {"id", "parent", "piece", "pieces", "logprob", "status"} | (
                {"reason", "score", "translation"} if h["status"] == "ended"
                else {"reason"} if h["status"] == "pruned" else set())
    won = [h for step in body["steps"] for h in step["hypotheses"] if h["id"] == body["winner"]["id"]]
    assert [h["translation"] for h in won] == [body["winner"]["translation"]]   # each ended one's, as shown
    assert "reranked" not in body                                            # one model: no channel


def test_beam_with_placeholders(span_client):
    """The model reads and writes ⦅N1⦆; the pieces show the number it stands for."""
    body = post(span_client, "/api/beam", q="Das kostet 5 Euro.")
    assert "5" in body["source_pieces"] and "5" in body["winner"]["pieces"]
    assert "⦅" not in json.dumps(body, ensure_ascii=False)
    assert body["winner"]["translation"] == "That costs 5 euros." and body["beam_size"] == 1


# --------------------------------------------------------------------------- errors

MISSING_Q = "Invalid request: missing q parameter"
Q_CASES = {
    "missing": ({}, 400, MISSING_Q),
    "empty": ({"q": ""}, 400, MISSING_Q),
    "blank": ({"q": "  \n"}, 400, "Invalid request: q is blank"),
    "list": ({"q": ["Hallo"]}, 400, "Invalid request: q must be a string"),
    "number": ({"q": 5}, 400, "Invalid request: q must be a string"),
    "too long": ({"q": "Hallo " * 100}, 413,
                 "Invalid request: 600 characters exceed the limit of 500 characters for the inspector"),
    "control": ({"q": "Hal\x00lo"}, 400, "Invalid request: q contains a control character (U+0000)"),
    "surrogate": ({"q": "Hal\ud800lo"}, 400, "Invalid request: q is not valid Unicode text"),
    "invisible only": ({"q": "\u200b\ufeff"}, 400, "Invalid request: q has no text to translate"),
}


@pytest.mark.parametrize("path", ENDPOINTS)
@pytest.mark.parametrize("body, status, message", Q_CASES.values(), ids=Q_CASES.keys())
def test_q_errors(client, path, body, status, message):
    response = client.post(path, json=body)
    assert (response.status_code, response.get_json()) == (status, {"error": message})


COMPLETE_CASES = {
    "prefix number": ({"prefix": 5}, "Invalid request: prefix must be a string"),
    "prefix list": ({"prefix": ["The"]}, "Invalid request: prefix must be a string"),
    "prefix control": ({"prefix": "The\x07"}, "Invalid request: prefix contains a control character (U+0007)"),
    "prefix too long": ({"prefix": "a" * 501}, "Invalid request: prefix has 501 characters, more than the limit of 500"),
    "prefix unwritable": ({"prefix": "The Ωmega ω"}, "Invalid request: prefix contains characters the model cannot write: Ωω"),
    "n zero": ({"n": 0}, "Invalid request: n must be an integer from 1 to 10"),
    "n eleven": ({"n": 11}, "Invalid request: n must be an integer from 1 to 10"),
    "n negative": ({"n": "-1"}, "Invalid request: n must be an integer from 1 to 10"),
    "n word": ({"n": "five"}, "Invalid request: n must be an integer from 1 to 10"),
    "n float": ({"n": 2.5}, "Invalid request: n must be an integer from 1 to 10"),
    "n bool": ({"n": True}, "Invalid request: n must be an integer from 1 to 10"),
    "n list": ({"n": [3]}, "Invalid request: n must be an integer from 1 to 10"),
}


@pytest.mark.parametrize("body, message", COMPLETE_CASES.values(), ids=COMPLETE_CASES.keys())
def test_complete_errors(client, body, message):
    response = client.post("/api/complete", json={"q": "Wo ist der Bahnhof?", **body})
    assert (response.status_code, response.get_json()) == (400, {"error": message})


def test_input_too_long_for_the_model(make_app, app):
    """With a larger character limit, a sentence can have more pieces than the model reads: the
    pipeline (explain) cuts it, complete and beam give the model the whole text and refuse it."""
    client = make_app(MAX_ATTENTION_CHARS=3000).test_client()
    q = "Ich " * 300
    service = app.extensions["translation_service"]
    pieces = len(service.translator.tokenizer.encode(service.pipeline.closed(q)))  # as the model reads it
    assert pieces == 601
    for path in ("/api/complete", "/api/beam"):
        response = client.post(path, json={"q": q})
        assert (response.status_code, response.get_json()) == (
            413, {"error": f"Invalid request: q has {pieces} pieces, more than the 255 the model reads at once"})
    assert client.post("/api/explain", json={"q": q}).status_code == 200
    prefix = "a " * 300
    pieces = len(app.extensions["translation_service"].translator.tokenizer.encode(prefix))
    response = client.post("/api/complete", json={"q": "Ich liebe Musik.", "prefix": prefix})
    assert (response.status_code, response.get_json()) == (
        400, {"error": f"Invalid request: prefix has {pieces} pieces, more than the 254 the model can write"})
    longest = "a " * 253 + "a"  # as many pieces as the model can write: no room for a next word
    assert len(app.extensions["translation_service"].translator.tokenizer.encode(longest)) == 254
    response = client.post("/api/complete", json={"q": "Ich liebe Musik.", "prefix": longest})
    assert response.status_code == 200 and all(c["text"].startswith(longest) for c in response.get_json()["completions"])


@pytest.mark.parametrize("path", ["/api/sentences", *ENDPOINTS])
def test_broken_json_get_and_cross_origin(client, path):
    broken = client.post(path, data="{", content_type="application/json")
    assert (broken.status_code, broken.get_json()) == (400, {"error": "Invalid JSON format"})
    get = client.get(path)
    assert (get.status_code, get.get_json()) == (405, {"error": "Method GET not allowed; use POST"})
    ok = client.post(path, data={"q": "Es regnet."})
    assert ok.status_code == 200 and ok.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("q", ["?!", "😀" * 50, "⦅N1⦆ ⦅X3⦆ ⦆⦅ " * 20, "我爱你。" * 30, "Dr. z.B. usw. 3. 4.",
                               " ".join(f"{i} https://x.de/{i} 🎶{i}" for i in range(15))])
def test_odd_text_never_breaks_the_inspector(client, span_client, q):
    for c in (client, span_client):
        for path in ENDPOINTS:
            response = c.post(path, json={"q": q, "prefix": "The "})
            assert response.status_code in (200, 400, 413), (path, response.get_json())


def test_spec_documents_the_inspector():
    paths = document()["paths"]
    for path in ["/api/sentences", *ENDPOINTS]:
        assert set(paths[path]) == {"post"} and paths[path]["post"]["tags"] == ["inspect"]
    assert set(paths["/api/complete"]["post"]["requestBody"]["content"]["application/json"]["schema"]["properties"]) == {
        "q", "prefix", "n"}
    assert set(paths["/api/explain"]["post"]["requestBody"]["content"]["application/json"]["schema"]["properties"]) == {
        "q", "translation"}


def test_bench_runs_on_the_tiny_model(tiny_checkpoint, tmp_path):
    root = Path(__file__).resolve().parents[2]
    report = tmp_path / "inspector.json"
    proc = subprocess.run([sys.executable, "bench/inspector.py", "--checkpoint", str(tiny_checkpoint), "--calls", "2",
                           "--beam", "2", "--engine", "torch", "--sentence", "Wo ist der Bahnhof?", "--json",
                           str(report)], cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "prefix: 'Where is th' (n = 5)" in proc.stdout and "engine torch, beam 2" in proc.stdout
    rows = json.loads(report.read_text())["rows"]
    assert [row["endpoint"] for row in rows] == ["/translate", "/api/explain", "/api/complete", "/api/beam",
                                                "/api/explain +translation"]
    assert all(0 < row["median_ms"] <= row["p90_ms"] and row["calls"] == 2 for row in rows)
