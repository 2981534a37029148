"""The OpenAPI 3 description of the JSON API, served as GET /spec (LibreTranslate serves its own there).

Kept as data built in code, next to nothing else, so that a change of the API is a change here too:
tests/app/test_libretranslate.py checks that every API route of the app is described, with its
methods, and that the document is valid OpenAPI 3.0.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import metadata
from typing import Any

from pipeline import harm

from .errors import KEY_REFUSED_HEADER
from .inspection import COMPLETIONS
from .settings import ROOT
from .validation import FORMALITIES, FORMATS

OPENAPI_VERSION = "3.0.3"

# Parameters come from a JSON object, a form body or the query string (validation.request_params).
_BODY_TYPES = ("application/json", "application/x-www-form-urlencoded")


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    reasons = {
        400: "Invalid request: a missing or bad parameter, or a missing API key when the server has keys "
             "(API_KEYS, API_KEYS_DB) and the request does not come from API_KEYS_ORIGIN",
        403: "Invalid API key",
        404: "Not found",
        413: "Too large: more than MAX_CHARS characters, BATCH_LIMIT texts or MAX_CONTENT_LENGTH bytes",
        415: "Unsupported media type: send application/json or application/x-www-form-urlencoded",
        429: "Too many requests: more than REQ_LIMIT per minute from this address, or the API key's own limit "
             "(one budget for every route that runs the model)",
        503: "Service unavailable: the request took longer than REQUEST_TIMEOUT seconds (send less text at "
             "once), or a store it needs is down",
    }
    responses = {str(status): _json(reasons[status], _ref("Error")) for status in statuses}
    for status in {400, 403} & set(statuses):
        responses[str(status)]["headers"] = {KEY_REFUSED_HEADER: {
            "description": "1 where the API key is what was refused (missing or unknown)", "schema": {"type": "string", "enum": ["1"]}}}
    if 429 in statuses:
        responses["429"]["headers"] = {"Retry-After": {
            "description": "seconds until the next request is allowed", "schema": {"type": "integer", "minimum": 1}}}
    return responses


def _body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"required": True, "content": {media: {"schema": schema} for media in _BODY_TYPES}}


_STRINGS = {"type": "array", "items": {"type": "string"}}
_Q = {"oneOf": [{"type": "string"}, _STRINGS],
      "description": "Text, or a list of texts (at most BATCH_LIMIT); MAX_CHARS characters in all",
      "example": "Guten Morgen!"}
_API_KEY = {"type": "string", "description": "API key; required when the server has keys (API_KEYS, API_KEYS_DB), "
                                            "else ignored. A valid key has its own rate limit"}


# en -> de is served where the server has that model (MODEL_PATHS): GET /languages lists the pairs.
_SOURCE = {"type": "string", "enum": ["de", "en", "auto"],
           "description": "auto: the language the target is translated from (de for en, en for de); sentences "
                          "clearly not in it come back unchanged (with format=text). en only where GET /languages "
                          "lists en with the target de"}
_TARGET = {"type": "string", "enum": ["en", "de"]}
_FORMALITY = {"type": "string", "enum": list(FORMALITIES), "default": "formal",
              "description": "how German output (target=de) addresses the reader: formal (Sie), informal (du) or "
                             "any (as the model writes it); English output is the same for all"}


def _translate() -> dict[str, Any]:
    properties = {
        "q": _Q,
        "source": _SOURCE,
        "target": _TARGET,
        "formality": _FORMALITY,
        "format": {"type": "string", "enum": list(FORMATS), "default": "text"},
        "alternatives": {"type": "integer", "minimum": 0, "default": 0,
                         "description": "other translations to add, at most MAX_ALTERNATIVES (text format only)"},
        "glossary": {"oneOf": [_ENTRIES, {"type": "string", "pattern": "^[A-Za-z0-9_-]{16}$"}],
                     "description": "term -> translation pairs (at most MAX_GLOSSARY_ENTRIES; from a form, "
                                    "as JSON text), or the id of a stored glossary (POST /glossaries): each term, "
                                    "read in the source language (a German noun in every inflected form, an English "
                                    "term as written), comes out as its translation",
                     "example": {"Termin": "appointment"}},
        "api_key": _API_KEY,
    }
    return {"post": {
        "summary": "Translate text from German to English (or English to German: GET /languages)",
        "tags": ["translate"],
        "requestBody": _body(properties, ["q", "source", "target"]),
        "responses": {"200": _json("Translation, in the shape of q", _ref("Translation")),
                      **_errors(400, 403, 404, 413, 415, 429, 503)},
    }}


_ENTRIES = {"type": "object", "additionalProperties": {"type": "string"},
            "description": "German term -> English term; terms are unique ignoring case, none empty"}


def _glossaries() -> dict[str, Any]:
    body = _body({"name": {"type": "string", "maxLength": 100, "example": "Praxis"},
                  "entries": {**_ENTRIES, "example": {"Termin": "appointment", "Rechnung": "invoice"}},
                  "api_key": _API_KEY}, ["name", "entries"])
    too_many = _json("More than MAX_GLOSSARY_ENTRIES entries, or already MAX_GLOSSARIES glossaries", _ref("Error"))
    listing = {"type": "object", "required": ["glossaries"],
               "properties": {"glossaries": {"type": "array", "items": _ref("GlossaryInfo")}}}
    return {
        "post": {"summary": "Store a glossary", "tags": ["glossaries"], "requestBody": body,
                 "responses": {"201": _json("The stored glossary", _ref("Glossary")),
                               **_errors(400, 403, 415, 429), "413": too_many}},
        "get": {"summary": "The stored glossaries, oldest first, without their entries", "tags": ["glossaries"],
                "parameters": [_KEY_PARAMETER],
                "responses": {"200": _json("The stored glossaries", listing), **_errors(400, 403)}},
    }


_KEY_PARAMETER = {"name": "api_key", "in": "query", "required": False, "schema": _API_KEY}


def _glossary() -> dict[str, Any]:
    parameters = [{"name": "glossary_id", "in": "path", "required": True,
                   "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{16}$"}}, _KEY_PARAMETER]
    return {
        "get": {"summary": "A stored glossary with its entries", "tags": ["glossaries"], "parameters": parameters,
                "responses": {"200": _json("The glossary", _ref("Glossary")), **_errors(400, 403, 404)}},
        "delete": {"summary": "Delete a stored glossary", "tags": ["glossaries"], "parameters": parameters,
                   "responses": {"204": {"description": "Deleted"}, **_errors(400, 403, 404)}},
    }


def _detect() -> dict[str, Any]:
    return {"post": {
        "summary": "Detect the language of a text (German or English)",
        "description": "Candidates among the served languages, best first. For a list, each language's "
                       "mean confidence over the texts; for a text without words, German with confidence 0.",
        "tags": ["translate"],
        "requestBody": _body({"q": _Q, "api_key": _API_KEY}, ["q"]),
        "responses": {"200": _json("Detections", {"type": "array", "items": _ref("Detection")}),
                      **_errors(400, 403, 413, 415, 429, 503)},
    }}


def _translate_file() -> dict[str, Any]:
    form = {"type": "object", "required": ["file", "source", "target"], "properties": {
        "file": {"type": "string", "format": "binary",
                 "description": "a .txt, .html, .docx, .json, .md, .po, .pot, .srt, .vtt, .odt, .odp, .pptx, .epub "
                                "or .pdf file (a .pdf comes back as a .docx)"},
        "source": _SOURCE,
        "target": _TARGET,
        "formality": _FORMALITY,
        "glossary": {"type": "string", "description": "as for POST /translate: a stored glossary's id, or the "
                                                      "term -> translation pairs as JSON text"},
        "api_key": _API_KEY,
    }}
    result = {"type": "object", "required": ["translatedFileUrl"],
              "properties": {"translatedFileUrl": {"type": "string", "format": "uri"}}}
    too_large = _json("Too large: the file is over MAX_FILE_BYTES, or its text over MAX_FILE_CHARS", _ref("Error"))
    return {"post": {
        "summary": "Translate a file, keeping its format",
        "tags": ["translate"],
        "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": form}}},
        "responses": {"200": _json("Where to download the translated file", result),
                      **_errors(400, 403, 404, 415, 429, 503), "413": too_large},
    }}


def _download_file() -> dict[str, Any]:
    name = {"name": "filename", "in": "path", "required": True, "schema": {"type": "string"},
            "description": "the last part of a translatedFileUrl"}
    binary = {"schema": {"type": "string", "format": "binary"}}
    return {"get": {
        "summary": "Download a translated file (once)",
        "tags": ["translate"],
        "parameters": [name],
        "responses": {"200": {"description": "The translated file, as an attachment",
                              "content": {media: binary for media in ("text/plain", "text/html", "application/"
                                          "vnd.openxmlformats-officedocument.wordprocessingml.document")}},
                      **_errors(404)},
    }}


def _get(summary: str, tag: str, schema: dict[str, Any], *errors: int) -> dict[str, Any]:
    return {"get": {"summary": summary, "tags": [tag], "responses": {"200": _json(summary, schema),
                                                                    **_errors(*errors)}}}


def _metrics() -> dict[str, Any]:
    unauthorized = _json("METRICS_TOKEN is set and the request lacks Authorization: Bearer <that token>",
                         _ref("Error"))
    unauthorized["headers"] = {"WWW-Authenticate": {"description": 'Bearer realm="metrics"',
                                                    "schema": {"type": "string"}}}
    return {"get": {
        "summary": "Prometheus metrics of every worker of this instance",
        "description": "Only with METRICS=1 (else 404). The Prometheus text format: requests by endpoint and "
                       "status, latency histograms, characters translated, cache hits, engine batch sizes and "
                       "queue wait. With METRICS_TOKEN set it needs Authorization: Bearer <token>.",
        "tags": ["status"],
        "security": [{}, {"metricsToken": []}],
        "responses": {
            "200": {"description": "The metrics", "content": {"text/plain": {"schema": {"type": "string"}}}},
            "401": unauthorized,
            **_errors(404),
        },
    }}


def _attention() -> dict[str, Any]:
    weights = {"type": "array", "description": "[layer][head][query][key], rounded to 4 decimals",
               "items": {"type": "array", "items": {"type": "array", "items": {"type": "array",
                                                                                 "items": {"type": "number"}}}}}
    result = {"type": "object", "properties": {
        "source_tokens": _STRINGS, "target_tokens": _STRINGS, "decoder_input_tokens": _STRINGS,
        "translation": {"type": "string"},
        "attention": {"type": "object", "properties": {"encoder": weights, "decoder": weights, "cross": weights}},
    }}
    q = {"type": "string", "description": "one sentence, at most MAX_ATTENTION_CHARS characters and MAX_ATTENTION_PIECES pieces"}
    return {"post": {
        "summary": "The attention weights behind the translation of one sentence",
        "tags": ["inspect"],
        "requestBody": _body({"q": q}, ["q"]),
        "responses": {"200": _json("Tokens, translation and attention weights", result),
                      **_errors(400, 403, 413, 415, 429, 503)},
    }}


_INSPECTOR_Q = {"type": "string", "description": "one sentence, at most MAX_ATTENTION_CHARS characters",
                "example": "Wo ist der Bahnhof?"}
_INTS = {"type": "array", "items": {"type": "integer"}}
_PAIRS = {"type": "array", "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}}


def _inspector(summary: str, description: str, properties: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    too_long = _json("q is over MAX_ATTENTION_CHARS characters, or more pieces than the model reads", _ref("Error"))
    return {"post": {
        "summary": summary, "description": description, "tags": ["inspect"],
        "requestBody": _body({"q": _INSPECTOR_Q, **properties}, ["q"]),
        "responses": {"200": _json(summary, result), **_errors(400, 403, 415, 429, 503), "413": too_long},
    }}


def _sentences() -> dict[str, Any]:
    sentence = {"type": "object", "required": ["text", "start", "end", "separator"], "properties": {
        "text": {"type": "string", "description": "the sentence as in q, without surrounding whitespace"},
        "start": {"type": "integer", "description": "[start, end) character offsets of text in q"},
        "end": {"type": "integer"},
        "separator": {"type": "string", "example": " ",
                      "description": "what goes before the sentence's translation: \"\" for the first, a space "
                                     "within a line, one line break per line ended (blank lines kept)"}}}
    result = {"type": "object", "required": ["sentences"],
              "properties": {"sentences": {"type": "array", "items": sentence}}}
    q = {"type": "string", "description": "a text as for POST /translate (MAX_CHARS characters), not a list",
         "example": "Er isst z. B. Brot.\nWo ist der Bahnhof?"}
    return {"post": {
        "summary": "The sentences of a text, as the translation pipeline cuts and joins them",
        "description": "Each sentence is translated on its own; the translation is the sentences' translations, "
                       "each after its separator. A blank text has none.",
        "tags": ["inspect"],
        "requestBody": _body({"q": q}, ["q"]),
        "responses": {"200": _json("The sentences, in order", result), **_errors(400, 403, 413, 415, 429, 503)},
    }}


def _explain() -> dict[str, Any]:
    words = {"type": "array", "items": {"type": "string"}}
    result = {"type": "object", "required": ["translation", "source_words", "source_spans", "target_words",
                                             "target_spans", "alignment", "confidence"], "properties": {
        "translation": {"type": "string", "description": "as POST /translate gives it, or the given one "
                                                         "(whitespace runs as one space)"},
        "source_words": words, "target_words": words,
        "source_spans": {**_PAIRS, "description": "[start, end) character offsets of each source word in q"},
        "target_spans": {**_PAIRS, "description": "[start, end) of each target word in translation"},
        "alignment": {**_PAIRS, "description": "[target word, source word] links, sorted"},
        "confidence": {"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1},
                       "description": "per target word: the product of its pieces' probabilities in the "
                                      "output the model chose (or was forced to); 1 for words copied, not "
                                      "predicted"}}}
    translation = {"type": "string", "example": "Where is the station?",
                   "description": "an English translation of q to explain instead of the model's own (e.g. an "
                                  "alternative from /api/complete), at most MAX_ATTENTION_CHARS characters; the "
                                  "model is forced to write it, reading q whole as /api/complete does"}
    return _inspector("Why the model translated a sentence so: words, alignment, confidence",
                      "Words are the model's pieces merged into words, punctuation a word of its own.",
                      {"translation": translation}, result)


def _complete() -> dict[str, Any]:
    completion = {"type": "object", "required": ["text", "score"], "properties": {
        "text": {"type": "string", "description": "starts with prefix (whitespace runs as one space)"},
        "score": {"type": "number", "description": "log-probability of the whole output / GNMT length penalty"}}}
    result = {"type": "object", "required": ["completions"],
              "properties": {"completions": {"type": "array", "items": completion}}}
    properties = {
        "prefix": {"type": "string", "default": "", "example": "The we",
                   "description": "English start of the translation, at most MAX_ATTENTION_CHARS characters; "
                                  "it may end inside a word; a trailing space ends its last word"},
        "n": {"type": "integer", "minimum": 1, "maximum": 10, "default": 5}}
    return _inspector("Translations that start with a prefix, one per next word first",
                      "The prefix is forced; the n most probable distinct next words are each completed by "
                      "beam search. Whole sentences as /translate shows them, best score first: the best for "
                      "each next word, then, up to n, the search's other sentences for those words. None "
                      "translates a source word again with a word of the prefix (\"Yesterday ... yesterday\"). "
                      "Fewer than n when the model "
                      "has no more or some are implausible (the same word in other capitals, a word glued onto "
                      "the prefix's last, the prefix repeated, a score more than "
                      f"{COMPLETIONS.score_margin:g} below the best).",
                      properties, result)


def _beam() -> dict[str, Any]:
    required = ["id", "parent", "piece", "pieces", "logprob", "status"]
    hypothesis = {"type": "object", "required": required, "properties": {
        "id": {"type": "string", "description": "step.rank"},
        "parent": {"type": "string", "description": "id of the hypothesis it extends; 0.0 is the empty start"},
        "piece": {"type": "string", "description": "the piece it adds; </s> ends it"},
        "pieces": {**_STRINGS, "description": "its output so far (without </s>)"},
        "logprob": {"type": "number", "description": "cumulative log-probability"},
        "status": {"type": "string", "enum": ["alive", "ended", "pruned"]},
        "reason": {"type": "string", "enum": ["eos", "max_length", "beam", "finished"],
                   "description": "ended: eos or max_length; pruned: beam (not among the best) or finished "
                                  "(alive when the search stopped)"},
        "score": {"type": "number", "description": "ended only: logprob / GNMT length penalty"}}}
    step = {"type": "object", "properties": {"step": {"type": "integer"},
                                             "hypotheses": {"type": "array", "items": hypothesis}}}
    winner = {"type": "object", "properties": {
        "id": {"type": "string"}, "pieces": _STRINGS, "logprob": {"type": "number"}, "score": {"type": "number"},
        "translation": {"type": "string"}}}
    result = {"type": "object", "required": ["source_pieces", "beam_size", "steps", "stop_reason", "winner"],
              "properties": {
                  "source_pieces": _STRINGS, "beam_size": {"type": "integer"}, "length_penalty": {"type": "number"},
                  "no_repeat_ngram_size": {"type": "integer"},
                  "max_length": {"type": "integer", "description": "output budget in pieces, </s> included"},
                  "steps": {"type": "array", "items": step},
                  "stop_reason": {"type": "string", "enum": ["beam_full", "max_length", "no_alive"]},
                  "winner": winner}}
    return _inspector("The beam search behind a translation, step by step",
                      "Every candidate each step scored (the best 2 x beam_size extensions), best first.",
                      {}, result)


def _permalink() -> dict[str, Any]:
    link = {"type": "object", "required": ["id", "url"], "properties": {
        "id": {"type": "string", "pattern": "^[A-Za-z0-9_-]{16}$"},
        "url": {"type": "string", "example": "/?p=AbCdEfGhIjKlMnOp",
                "description": "the translate page of the text; /attention and /beam take p= as well"}}}
    text = {"type": "string", "description": "one text, at most MAX_CHARS characters, not blank"}
    return {"post": {
        "summary": "A stored link for a text too long for a /?q=... URL",
        "description": "The same text always gets the same link. Links are kept PERMALINK_TTL seconds after "
                       "their last use, at most MAX_PERMALINKS of them (least recently used dropped first).",
        "tags": ["translate"],
        "requestBody": _body({"q": text}, ["q"]),
        "responses": {"201": _json("The stored link", link), **_errors(400, 403, 413, 415, 429),
                      "503": _json("The link store (Redis) is unavailable", _ref("Error"))},
    }}


def _dictionary() -> dict[str, Any]:
    pair = {"type": "object", "required": ["de", "en"], "properties": {"de": {"type": "string"},
                                                                      "en": {"type": "string"}}}
    nullable = {"type": "string", "nullable": True}
    entry = {"type": "object", "properties": {
        "headword": {"type": "string", "example": "Termin"},
        "word_class": {**nullable, "example": "noun"},
        "gender": {**nullable, "example": "m", "description": "m, f, n (German nouns), or several: \"m, f\"; "
                                                        "null for an English headword"},
        "labels": {**_STRINGS, "description": "Ding's labels of the headword: register, region, domain"},
        "forms": {**_STRINGS, "description": "a noun's plural, a verb's participles and persons, an "
                                             "adjective's comparison, as Ding lists them"},
        "senses": {**_STRINGS, "example": ["appointment (arrangement to meet with sb.)"],
                   "description": "the other language's words"},
        "synonyms": {**_STRINGS, "description": "the line's other headwords"},
        "phrases": {"type": "array", "items": pair},
        "examples": {"type": "array", "items": pair, "description": "example sentences"},
        "match": {"type": "string", "enum": ["headword", "form"]}}}
    result = {"type": "object", "required": ["query", "source", "entries", "attribution", "license"], "properties": {
        "query": {"type": "string"}, "source": {"type": "string", "enum": ["de", "en"]},
        "entries": {"type": "array", "items": entry},
        "attribution": {"type": "string"}, "license": {"type": "string", "example": "GPL-2.0-or-later"}}}
    return {"get": {
        "summary": "Ding dictionary entries for one to three German or English words",
        "description": "The headword as written, else ignoring case, or a form Ding lists with it (Termine, "
                       "gegessen, appointments), an English verb without \"to\", or the words without a "
                       "leading article. Nothing found: 200 with no entries. 404 when the server has no "
                       "dictionary (DICTIONARY_PATH).",
        "tags": ["inspect"],
        "parameters": [{"name": "q", "in": "query", "required": True, "example": "Termin",
                        "schema": {"type": "string", "maxLength": 100},
                        "description": "one to three words"},
                       {"name": "source", "in": "query", "required": False,
                        "schema": {"type": "string", "enum": ["de", "en"], "default": "de"},
                        "description": "the language of q: German headwords with English senses, or English "
                                       "headwords with German senses"}],
        "responses": {"200": _json("The entries, best first, with the dictionary's attribution and licence",
                                   result), **_errors(400, 403, 404, 429)},
    }}


def _schemas() -> dict[str, Any]:
    detection = {"type": "object", "required": ["confidence", "language"], "properties": {
        "confidence": {"type": "number", "minimum": 0, "maximum": 100, "example": 97.4},
        "language": {"type": "string", "example": "de"}}}
    language = {"type": "object", "required": ["code", "name"], "properties": {
        "code": {"type": "string"}, "name": {"type": "string"}}}
    glossary_info = {"type": "object", "required": ["id", "name", "created", "entry_count"], "properties": {
        "id": {"type": "string", "pattern": "^[A-Za-z0-9_-]{16}$"}, "name": {"type": "string"},
        "created": {"type": "string", "format": "date-time", "example": "2026-11-25T09:30:00Z"},
        "entry_count": {"type": "integer"}}}
    warning = {"type": "object", "required": ["check", "message"], "properties": {
        "check": {"type": "string", "enum": list(harm.MESSAGES)}, "message": {"type": "string"}}}
    warnings = {"type": "array", "items": warning}
    return {
        "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
        "GlossaryInfo": glossary_info,
        "Glossary": {"allOf": [glossary_info, {"type": "object", "required": ["entries"],
                                               "properties": {"entries": _ENTRIES}}]},
        "Detection": detection,
        "Translation": {"type": "object", "required": ["translatedText"], "properties": {
            "translatedText": {"oneOf": [{"type": "string"}, _STRINGS]},
            "alternatives": {"oneOf": [_STRINGS, {"type": "array", "items": _STRINGS}],
                             "description": "when asked for"},
            "detectedLanguage": {"oneOf": [detection, {"type": "array", "items": detection}],
                                 "description": "with source=auto: the detection of each text"},
            "warnings": {"oneOf": [warnings, {"type": "array", "items": warnings}],
                         "description": "only where a check found something: what each translation may have got "
                                        "wrong (a negation lost or added, profanity, the address asked)"}}},
        "Language": {"allOf": [language, {"type": "object", "required": ["targets"],
                                          "properties": {"targets": _STRINGS}}]},
        "FrontendSettings": {"type": "object", "properties": {
            "charLimit": {"type": "integer", "description": "MAX_CHARS"},
            "frontendTimeout": {"type": "integer", "description": "milliseconds"},
            "apiKeys": {"type": "boolean", "description": "whether API keys are enabled (API_KEYS, API_KEYS_DB)"},
            "keyRequired": {"type": "boolean"},
            "suggestions": {"type": "boolean"},
            "filesTranslation": {"type": "boolean"},
            "supportedFilesFormat": _STRINGS,
            "language": {"type": "object", "properties": {"source": language, "target": language}}}},
    }


def _version() -> str:
    try:
        return metadata.version("de-en-nmt")
    except metadata.PackageNotFoundError:  # not pip-installed (the Docker image): pyproject.toml says
        pyproject = ROOT / "pyproject.toml"
        found = re.search(r'(?m)^version = "([^"]+)"', pyproject.read_text()) if pyproject.exists() else None
        return found.group(1) if found else "unknown"


@lru_cache(maxsize=1)
def document() -> dict[str, Any]:
    """The whole OpenAPI document (built once; treat it as read-only)."""
    random = {"type": "object", "properties": {
        "source": {"type": "string"}, "references": _STRINGS, "translation": {"type": "string"},
        "chrf": {"type": "number", "description": "sentence chrF of the translation against the references"},
        "split": {"type": "string", "enum": ["train", "test"],
                  "description": "train: a training sentence, which the model learned; test: a held-out one, "
                                 "which it never trained on (there chrF measures the model)"}}}
    random_get = _get("A random corpus sentence with its references and translation", "inspect",
                      random, 400, 403, 404, 429, 503)
    random_get["get"]["parameters"] = [{
        "name": "split", "in": "query", "required": False,
        "schema": {"type": "string", "enum": ["train", "test"], "default": "train"},
        "description": "the sample to draw from: training sentences (CORPUS_PATH) or held-out test sentences "
                       "(HELD_OUT_PATH); 404 where its setting is empty"}]
    health = {"type": "object", "properties": {
        "status": {"type": "string", "enum": ["ok"]}, "device": {"type": "string"},
        "checkpoint": {"type": "string", "description": "the de-en model's"},
        "models": {"type": "object", "additionalProperties": {"type": "string"},
                   "description": "each direction served (de-en, en-de) and its checkpoint"}}}
    return {
        "openapi": OPENAPI_VERSION,
        "info": {"title": "de-en-nmt", "version": _version(),
                 "description": "German to English translation with a LibreTranslate-compatible API. "
                                "Errors are JSON objects {\"error\": message}."},
        "paths": {
            "/translate": _translate(),
            "/languages": _get("Languages and their targets", "translate",
                               {"type": "array", "items": _ref("Language")}),
            "/detect": _detect(),
            "/translate_file": _translate_file(),
            "/download_file/{filename}": _download_file(),
            "/frontend/settings": _get("Settings for a LibreTranslate web front end", "frontend",
                                       _ref("FrontendSettings")),
            "/api/attention": _attention(),
            "/api/sentences": _sentences(),
            "/api/explain": _explain(),
            "/api/complete": _complete(),
            "/api/beam": _beam(),
            "/api/permalink": _permalink(),
            "/api/dictionary": _dictionary(),
            "/glossaries": _glossaries(),
            "/glossaries/{glossary_id}": _glossary(),
            "/api/random": random_get,
            "/health": _get("Service status", "status", health),
            "/spec": _get("This OpenAPI document", "status", {"type": "object"}),
            "/metrics": _metrics(),
        },
        "components": {"schemas": _schemas(),
                       "securitySchemes": {"metricsToken": {"type": "http", "scheme": "bearer",
                                                            "description": "METRICS_TOKEN, for /metrics"}}},
    }
