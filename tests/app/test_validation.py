"""app/validation.py: the parsers on their own (the request matrix is in test_api_errors.py)."""

import pytest

from app.validation import (ApiError, check_api_key, parse_alternatives, parse_format, parse_languages,
                            parse_texts)


def error_of(call, *args, **kwargs):
    with pytest.raises(ApiError) as info:
        call(*args, **kwargs)
    return info.value.status, info.value.message


def test_parse_texts_shapes():
    assert parse_texts("Hallo", max_chars=10, batch_limit=1) == (["Hallo"], False)
    assert parse_texts(["a", ""], max_chars=10, batch_limit=2) == (["a", ""], True)
    assert parse_texts("\tTab\r\n", max_chars=10, batch_limit=1) == (["\tTab\r\n"], False)


def test_parse_texts_limits_are_inclusive():
    assert parse_texts("a" * 10, max_chars=10, batch_limit=1)
    assert error_of(parse_texts, "a" * 11, max_chars=10, batch_limit=1)[0] == 413
    assert parse_texts(["a"] * 3, max_chars=10, batch_limit=3)
    assert error_of(parse_texts, ["a"] * 4, max_chars=10, batch_limit=3)[0] == 413


@pytest.mark.parametrize("value, expected", [(None, 0), ("", 0), (0, 0), (3, 3), ("2", 2), (" 1 ", 1), ("+1", 1)])
def test_parse_alternatives(value, expected):
    assert parse_alternatives(value, 3) == expected


@pytest.mark.parametrize("value", ["1.0", "1e3", 1e3, [], {}, 2.0, False, "9999999999", -1, "-1", -5, 4, "4"])
def test_parse_alternatives_rejects(value):
    assert error_of(parse_alternatives, value, 3) == (400, "Invalid request: alternatives must be an integer from 0 to 3")


def test_parse_format():
    assert parse_format(None) is False and parse_format("text") is False and parse_format("html") is True
    assert error_of(parse_format, "HTML") == (400, "HTML format is not supported")
    assert error_of(parse_format, 5) == (400, "5 format is not supported")


def test_parse_languages():
    parse_languages("de", "en")
    parse_languages("auto", "en")
    assert error_of(parse_languages, "de", None) == (400, "Invalid request: missing target parameter")
    assert error_of(parse_languages, "\x00evil", "en") == (400, "?evil is not supported")


def test_api_keys():
    check_api_key(None, frozenset())
    check_api_key("anything", frozenset())
    check_api_key("k", frozenset({"k"}))
    assert error_of(check_api_key, 5, frozenset({"k"})) == (403, "Invalid API key")
