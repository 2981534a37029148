"""Request parsing and checking for the API, with LibreTranslate's parameter names and messages.

Parameters come from a JSON object body when the request is JSON, otherwise from the form body and
the query string (``request.values``), exactly as LibreTranslate reads them. Every failure is an
``ApiError`` carrying the HTTP status and the one-line message that goes back as ``{"error": ...}``.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import Any

from flask import Request

from pipeline.formality import FORMALITIES

LANGUAGES = {"de": "German", "en": "English"}
# The pairs of the German->English model alone (the pages translate those); the API's are the
# service's (``TranslationService.pairs``: en->de too where MODEL_PATHS names an en-de model).
PAIRS = (("de", "en"),)
FORMATS = ("text", "html")
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
# C0 and C1 controls except tab, line feed and carriage return, which are layout.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_INTEGER = re.compile(r"[+-]?\d{1,9}")
NOTHING_TO_TRANSLATE = "Invalid request: q has no text to translate"


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class KeyRefused(ApiError):
    """No valid ``api_key`` where the server requires one: answered as any ``ApiError``, with the
    header ``API-Key-Refused`` too (``errors.py``), so that a page can tell it from other errors."""


KEY_MISSING = "Please contact the server operator to get an API key"
KEY_INVALID = "Invalid API key"


@dataclass(frozen=True)
class TranslateRequest:
    texts: list[str]
    batch: bool            # q was a list: answer with lists
    source: str            # "de" or "en"; with source=auto the one the target is served from
    target: str
    auto: bool             # source=auto: sentences clearly in another language are kept as they are
    html: bool
    alternatives: int
    formality: str | None  # how German output addresses the reader; None: the default ("formal")


def _shown(value: Any) -> str:
    """A user-supplied value for an error message, cut short so errors stay one short line."""
    text = value if isinstance(value, str) else repr(value)
    text = _CONTROL.sub("?", _SURROGATE.sub("?", text))
    return text if len(text) <= 40 else text[:40] + "…"


# How deep a JSON body or value may nest. Ours are at most three levels ({"q": [...]}, a glossary's
# entries); far deeper ones only serve to exhaust the parser's or a later walk's recursion (a 2 KB
# body of 1,000 brackets raised RecursionError: a 500).
MAX_JSON_DEPTH = 32
TOO_DEEP = f"Invalid JSON format: nested more than {MAX_JSON_DEPTH} levels deep"


def check_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> None:
    """ApiError (400) when the decoded JSON ``value`` nests more than ``limit`` levels; iterative,
    so that checking cannot exhaust the recursion it guards."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    raise ApiError(400, TOO_DEEP)
                stack.append((child, depth + 1))


def parse_json(text: str | bytes) -> Any:
    """A JSON text decoded, at most ``MAX_JSON_DEPTH`` deep; ValueError when it is not JSON,
    ApiError (400) when it nests deeper."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ApiError(400, TOO_DEEP) from None
    check_depth(value)
    return value


def request_params(request: Request) -> dict[str, Any]:
    """The request's parameters as a dict, from JSON, form or query string."""
    if request.is_json:
        try:
            data = parse_json(request.get_data(cache=True))
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ApiError(400, "Invalid JSON format")
        return data
    if request.content_length or request.headers.get("Transfer-Encoding"):
        if request.mimetype not in _FORM_TYPES:
            raise ApiError(415, f"Unsupported media type {_shown(request.mimetype or 'none')}: send "
                                "application/json or application/x-www-form-urlencoded")
        if request.mimetype == _FORM_TYPES[0]:
            check_utf8("the form data", request.get_data(cache=True))   # the form is parsed from the cache
    check_utf8("the query string", request.query_string)
    return {key: request.values.get(key) for key in request.values}


def check_utf8(what: str, encoded: bytes) -> None:
    """URL-encoded ``encoded`` must decode as UTF-8, as a JSON body must: Werkzeug keeps the
    bytes it cannot decode as they were written ("%FF"), and they reached the model as text."""
    if b"%" not in encoded and encoded.isascii():
        return
    try:
        urllib.parse.unquote_to_bytes(encoded.replace(b"+", b" ")).decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, f"Invalid request: {what} is not UTF-8 text") from None


def check_text(name: str, text: str) -> None:
    if _SURROGATE.search(text):
        raise ApiError(400, f"Invalid request: {name} is not valid Unicode text")
    bad = _CONTROL.search(text)
    if bad:
        raise ApiError(400, f"Invalid request: {name} contains a control character (U+{ord(bad.group()):04X})")


def parse_texts(value: Any, *, max_chars: int, batch_limit: int) -> tuple[list[str], bool]:
    """``q`` as a list of texts (at most ``batch_limit``) and whether it came as a list."""
    if value is None or value == "" or value == []:
        raise ApiError(400, "Invalid request: missing q parameter")
    batch = isinstance(value, list)
    texts = value if batch else [value]
    if not all(isinstance(t, str) for t in texts):
        raise ApiError(400, "Invalid request: q must be a string or a list of strings")
    if len(texts) > batch_limit:
        raise ApiError(413, f"Invalid request: {len(texts)} texts exceed the limit of {batch_limit} texts per request")
    chars = sum(len(t) for t in texts)
    if chars > max_chars:
        raise ApiError(413, f"Invalid request: {chars} characters exceed the limit of {max_chars} characters per request")
    for text in texts:
        check_text("q", text)
    return texts, batch


def served(pairs: Sequence[tuple[str, str]]) -> str:
    """The pairs a service translates, for messages: "German (de) into English (en) and ..."."""
    return " and ".join(f"{LANGUAGES[s]} ({s}) into {LANGUAGES[t]} ({t})" for s, t in pairs)


def parse_languages(source: Any, target: Any, pairs: Sequence[tuple[str, str]] = PAIRS) -> tuple[str, str]:
    """The (source, target) pair of a request, one of ``pairs``. ``source`` "auto" is the language
    ``target`` is translated from (each language is the target of one pair at most); where no pair
    has that target, German, as before there was more than one pair."""
    for name, value in (("source", source), ("target", target)):
        if value is None or value == "":
            raise ApiError(400, f"Invalid request: missing {name} parameter")
        if not isinstance(value, str):
            raise ApiError(400, f"Invalid request: {name} must be a language code string")
    if source != "auto" and source not in LANGUAGES:
        raise ApiError(400, f"{_shown(source)} is not supported")
    if target not in LANGUAGES:
        raise ApiError(400, f"{_shown(target)} is not supported")
    resolved = next((s for s, t in pairs if t == target), "de") if source == "auto" else source
    if (resolved, target) not in pairs:
        raise ApiError(400, f"{LANGUAGES[target]} ({target}) is not available as a target language "
                            f"from {LANGUAGES[resolved]} ({resolved}): this service translates {served(pairs)}")
    return resolved, target


def parse_pair(params: dict[str, Any], pairs: Sequence[tuple[str, str]] = PAIRS) -> tuple[str, str]:
    """The model a view asks for (the translate page, and those of one model's workings:
    attention, beam search, the inspector): ``source`` and ``target`` as /translate takes them,
    each optional. Neither: German into
    English; ``source`` alone: into the other language; ``target`` alone: from the language it is
    translated from (as ``source=auto``)."""
    source, target = params.get("source"), params.get("target")
    if source in (None, "") and target in (None, ""):
        return PAIRS[0]
    if target in (None, ""):
        target = "de" if source == "en" else "en"
    return parse_languages("auto" if source in (None, "") else source, target, pairs)


def parse_formality(value: Any) -> str | None:
    """``formality``: how German output addresses the reader, "formal" ("Sie"), "informal" ("du")
    or "any" (as the model writes it); None when not given (the default, formal). English output
    has one "you": it takes any of them and is the same."""
    if value is None or value == "":
        return None
    if value not in FORMALITIES:
        raise ApiError(400, f"Invalid request: formality must be one of {', '.join(FORMALITIES)}, got {_shown(value)}")
    return value


# Random's samples, by the split of the corpus each was drawn from (``commands.sample``): "train",
# sentences the models learned, and "test", held-out ones that none of them trained on.
SPLITS = ("train", "test")


def parse_split(value: Any) -> str:
    """``split``: the sample Random draws from, "train" (the default) or "test" (held out)."""
    if value is None or value == "":
        return "train"
    if value not in SPLITS:
        raise ApiError(400, f"Invalid request: split must be one of {', '.join(SPLITS)}, got {_shown(value)}")
    return value


def parse_alternatives(value: Any, limit: int) -> int:
    """``alternatives``: an integer from 0 to ``limit`` (MAX_ALTERNATIVES), as a number or its
    decimal digits; anything else (a word, -1, 1e3, 1.5) is refused with the range."""
    if value is None or value == "":
        return 0
    integer = not isinstance(value, bool) and (
        isinstance(value, int) or (isinstance(value, str) and _INTEGER.fullmatch(value.strip())))
    if not integer or not 0 <= int(value) <= limit:
        raise ApiError(400, f"Invalid request: alternatives must be an integer from 0 to {limit}")
    return int(value)


def parse_format(value: Any) -> bool:
    """True for html, False for text."""
    if value is None or value == "":
        return False
    if value not in FORMATS:
        raise ApiError(400, f"{_shown(value)} format is not supported")
    return value == "html"


def check_api_key(value: Any, keys: Container[str]) -> None:
    """Keys are only checked when the server has some, as in LibreTranslate: ``keys`` is falsy
    without (a set of keys, or ``apikeys.ApiKeys``: API_KEYS and the key database)."""
    if not keys:
        return
    if value is None or value == "":
        raise KeyRefused(400, KEY_MISSING)
    if not isinstance(value, str) or value not in keys:
        raise KeyRefused(403, KEY_INVALID)


def parse_translate(params: dict[str, Any], config: dict[str, Any],
                    pairs: Sequence[tuple[str, str]] = PAIRS) -> TranslateRequest:
    """All /translate parameters but the key (``limits.check_access``), checked in LibreTranslate's
    order; ``pairs``: the language pairs served."""
    texts, batch = parse_texts(params.get("q"), max_chars=config["MAX_CHARS"], batch_limit=config["BATCH_LIMIT"])
    source, target = parse_languages(params.get("source"), params.get("target"), pairs)
    alternatives = parse_alternatives(params.get("alternatives"), config["MAX_ALTERNATIVES"])
    html = parse_format(params.get("format"))
    formality = parse_formality(params.get("formality"))
    return TranslateRequest(texts, batch, source, target, params.get("source") == "auto", html, alternatives, formality)


def parse_attention_text(value: Any, max_chars: int, purpose: str = "attention") -> str:
    """One sentence for /api/attention or the inspector (``purpose`` names it in the 413 message)."""
    if value is None or value == "":
        raise ApiError(400, "Invalid request: missing q parameter")
    if not isinstance(value, str):
        raise ApiError(400, "Invalid request: q must be a string")
    check_text("q", value)
    if not value.strip():
        raise ApiError(400, "Invalid request: q is blank")
    if len(value) > max_chars:
        raise ApiError(413, f"Invalid request: {len(value)} characters exceed the limit of {max_chars} "
                            f"characters for {purpose}")
    return value


def parse_text(value: Any, max_chars: int) -> str:
    """One text, checked as /translate checks ``q`` (``MAX_CHARS``), but not a list: for
    /api/sentences, which cuts the whole text of the translate form into sentences."""
    if value is not None and value != "" and not isinstance(value, str):
        raise ApiError(400, "Invalid request: q must be a string")
    texts, _ = parse_texts(value, max_chars=max_chars, batch_limit=1)
    return texts[0]


def parse_translation(value: Any, max_chars: int) -> str | None:
    """/api/explain's optional English ``translation`` to explain instead of the model's own: not
    blank, at most ``max_chars`` characters (as ``prefix``). None when not given."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ApiError(400, "Invalid request: translation must be a string")
    check_text("translation", value)
    if not value.strip():
        raise ApiError(400, "Invalid request: translation is blank")
    if len(value) > max_chars:
        raise ApiError(400, f"Invalid request: translation has {len(value)} characters, more than the limit of {max_chars}")
    return value


MAX_COMPLETIONS = 10  # most completions /api/complete returns: each one is a beam search


def parse_prefix(value: Any, max_chars: int) -> str:
    """/api/complete's English prefix: optional (empty = from the start), at most ``max_chars``."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ApiError(400, "Invalid request: prefix must be a string")
    check_text("prefix", value)
    if len(value) > max_chars:
        raise ApiError(400, f"Invalid request: prefix has {len(value)} characters, more than the limit of {max_chars}")
    return value


def parse_completions(value: Any, default: int = 5, limit: int = MAX_COMPLETIONS) -> int:
    """/api/complete's ``n``: an integer (or its decimal string) from 1 to ``limit``."""
    if value is None or value == "":
        return default
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        number = int(value)
    if number is None or not 1 <= number <= limit:
        raise ApiError(400, f"Invalid request: n must be an integer from 1 to {limit}")
    return number
