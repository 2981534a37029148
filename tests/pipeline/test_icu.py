"""pipeline/icu.py: ICU plural/select messages keep their structure; their texts are translated."""

from __future__ import annotations

import pytest

from pipeline.icu import Choice, parse, translate_messages

TABLE = {
    "Sie haben {__c0} gelöscht.": "You have deleted {__c0}.",
    "{__n} Datei": "{__n} file",
    "{__n} Dateien": "{__n} files",
    "keine Dateien": "No files",
    "{__c0} hat {__c1} hochgeladen.": "{__c0} uploaded {__c1}.",
    "Sie": "She", "Er": "He", "Jemand": "Someone",
    "ein Foto": "A photo", "{__n} Fotos": "{__n} photos",
    "Hallo {name}!": "Hello {name}!",
    "{__c0}": "{__c0}",
}


class Table:
    def __init__(self):
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[str]:
        self.calls.append(list(texts))
        return [TABLE.get(t, t.upper()) for t in texts]


@pytest.mark.parametrize("text, expected", [
    ("Sie haben {count, plural, one {# Datei} other {# Dateien}} gelöscht.",
     "You have deleted {count, plural, one {# file} other {# files}}."),
    # offset, an exact selector and the spacing as written
    ("Sie haben {count,plural,offset:1 =0{keine Dateien} one{# Datei} other {# Dateien}} gelöscht.",
     "You have deleted {count,plural,offset:1 =0{no files} one{# file} other {# files}}."),
    # select and plural side by side; option texts inside a sentence start in lower case
    ("{gender, select, female {Sie} male {Er} other {Jemand}} hat {n, plural, one {ein Foto} other {# Fotos}} hochgeladen.",
     "{gender, select, female {She} male {He} other {Someone}} uploaded {n, plural, one {a photo} other {# photos}}."),
    # a message that is only the argument
    ("{n, selectordinal, one {# Datei} other {# Dateien}}", "{n, selectordinal, one {# file} other {# files}}"),
])
def test_structure_kept_and_texts_translated(text, expected):
    translate = Table()
    assert translate_messages([text], translate) == [expected]
    assert len(translate.calls) == 1  # every part of every message in one call


def test_plain_texts_and_simple_arguments_go_through_as_they_are():
    translate = Table()
    texts = ["Hallo {name}!", "Guten Morgen.", "Sie haben {count, plural, one {# Datei} other {# Dateien}} gelöscht."]
    assert translate_messages(texts, translate) == [
        "Hello {name}!", "GUTEN MORGEN.", "You have deleted {count, plural, one {# file} other {# files}}."]
    assert translate.calls == [["Hallo {name}!", "Guten Morgen.", "{__n} Datei", "{__n} Dateien",
                                "Sie haben {__c0} gelöscht."]]


@pytest.mark.parametrize("text", [
    "Hallo {name}!",                              # no plural/select
    "Klammer {count, plural, one {# Datei}",      # unclosed
    "Zu viel } hier {n, plural, other {x}}",      # unbalanced
    "{n, plural, one # Datei}",                   # an option without braces
    "'{n, plural, one {# Datei}}' wörtlich",      # quoted: literal text in ICU
])
def test_what_is_not_a_plural_or_select_message_is_not_parsed(text):
    assert parse(text) is None


def test_parse_keeps_what_is_written():
    message = parse("A {n, plural, offset:1 =0 {null} other {# mehr}} B")
    assert message.parts[0] == "A " and message.parts[2] == " B"
    choice = message.parts[1]
    assert isinstance(choice, Choice) and choice.head == "n, plural," and choice.offset == " offset:1 "
    assert [selector for selector, _ in choice.options] == ["=0 ", " other "]


def test_a_lost_argument_token_is_put_back_at_the_end():
    out = translate_messages(["Sie haben {count, plural, one {# Datei} other {# Dateien}} gelöscht."],
                             lambda texts: ["You deleted it." if "__c0" in t else t for t in texts])
    assert out == ["You deleted it. {count, plural, one {{__n} Datei} other {{__n} Dateien}}".replace("{__n}", "#")]
