"""pipeline/documents/json_strings.py: .json string files in, translated string files out, within
their nesting limit."""

from __future__ import annotations

import pytest

from pipeline.documents import DocumentError, DocumentTooLarge, read
from pipeline.documents.json_strings import json_depth
from pipeline.language_pair import EN_DE
from tests.pipeline.documents import hostile_files as hostile
from tests.pipeline.documents.limits import over
from tests.pipeline.documents.upper import Upper


JSON = """{
  "app": {
    "title": "Mein Kalender",
    "greeting": "Hallo {{name}}, willkommen zur\\u00fcck!",
    "buttons": ["Speichern", "Abbrechen", "", "42 %"],
    "count": 3, "enabled": true, "nothing": null
  },
  "title": "  Titel  "
}
"""


def test_json_strings_are_translated_in_place_and_the_rest_is_byte_for_byte():
    translate = Upper()
    document = read(".json", JSON.encode())
    assert document.chars == len("Mein Kalender") + len("Hallo {{name}}, willkommen zurück!") + len(
        "Speichern") + len("Abbrechen") + len("  Titel  ")
    out = document.translate(translate).decode()
    # keys, numbers, order, layout as written; the strings without a letter untouched; one call
    assert translate.calls == [(["Mein Kalender", "Hallo {{name}}, willkommen zurück!", "Speichern", "Abbrechen",
                                 "Titel"], False)]
    assert out == JSON.replace('"Mein Kalender"', '"MEIN KALENDER"').replace(
        '"Hallo {{name}}, willkommen zur\\u00fcck!"', '"HALLO {{NAME}}, WILLKOMMEN ZURÜCK!"').replace(
        '["Speichern", "Abbrechen"', '["SPEICHERN", "ABBRECHEN"').replace('"  Titel  "', '"  TITEL  "')


def test_chrome_messages_keep_their_descriptions():
    messages = '{"save": {"message": "Speichern", "description": "Knopf"}, "description": {"message": "Hallo"}}'
    out = read(".json", messages.encode()).translate(Upper()).decode()
    assert out == '{"save": {"message": "SPEICHERN", "description": "Knopf"}, "description": {"message": "HALLO"}}'


def test_an_english_json_names_german_where_it_named_english_after_en_de():
    source = '{"en-GB": {"translation": {"title": "My calendar", "language": "en", "other": {"locale": "fr"}}}}'
    translate = Upper(languages=EN_DE)
    document = read(".json", source.encode())
    assert document.chars == len("My calendar")   # the tags are not translated
    assert document.translate(translate, EN_DE).decode() == (
        '{"de-DE": {"translation": {"title": "MY CALENDAR", "language": "de", "other": {"locale": "fr"}}}}')
    assert translate.calls == [(["My calendar"], False)]


@pytest.mark.parametrize("source, expected", [
    ('{"@@locale": "de", "hello": "Hallo"}', '{"@@locale": "en", "hello": "HALLO"}'),       # Flutter's ARB
    ('{"de": {"Lang": "de_AT", "ok": "Gut"}}', '{"en": {"Lang": "en_US", "ok": "GUT"}}'),   # i18next, vue-i18n
    ('{"de": {"ok": "Gut"}, "en": {"ok": "Good"}}', '{"de": {"ok": "GUT"}, "en": {"ok": "GOOD"}}'),  # two languages
    ('{"de": "Deutsch"}', '{"de": "DEUTSCH"}'),                  # a list of language names: the key stays
    ('{"locale": "fr", "language": "Deutsch"}', '{"locale": "fr", "language": "DEUTSCH"}'),  # French; not a tag
    ('["de", {"de": {"x": "y"}}]', '["DE", {"de": {"x": "Y"}}]'),   # no key names the file's language
])
def test_a_json_names_english_where_it_named_german_by_default(source, expected):
    assert read(".json", source.encode()).translate(Upper()).decode() == expected


@pytest.mark.parametrize("data, message", [
    (b'{"a": "Hallo",}', "file is not valid JSON: Expecting property name enclosed in double quotes: line 1 column 15 (char 14)"),
    (b'', "file is not valid JSON: Expecting value: line 1 column 1 (char 0)"),
    (b'{"a": "\xff"}', "file is not UTF-8 text"),
])
def test_unreadable_json(data, message):
    with pytest.raises(DocumentError) as info:
        read(".json", data)
    assert str(info.value) == message


@pytest.mark.parametrize("depth", [101, 500, 2000, 100_000])
def test_json_nested_too_deep_is_a_400(depth):
    with pytest.raises(DocumentError, match=r"^the \.json is nested more than 100 deep, over the limit of 100 "
                                            r"\(localization files are rarely more than 10 deep\)$") as info:
        read(".json", hostile.nested_json(depth))
    assert not isinstance(info.value, DocumentTooLarge)


def test_json_nested_100_deep_is_read():
    assert read(".json", hostile.nested_json(100)).translate(Upper()) == hostile.nested_json(100).replace(
        b"Guten Morgen.", b"GUTEN MORGEN.")


@pytest.mark.parametrize("text, depth", [
    ('"a"', 0), ("[]", 1), ('{"a": [1, {"b": "]]]"}], "c": "\\"[{"}', 3), ('[[], [[]], "[[[["]', 3),
])
def test_json_depth(text, depth):
    assert json_depth(text) == depth


def test_json_strings_are_counted_as_they_are_found():
    data = ("{" + ", ".join(f'"k{i}": "Es regnet heute."' for i in range(2000)) + "}").encode()
    with pytest.raises(DocumentTooLarge, match=over(".json")):
        read(".json", data, 20_000)
