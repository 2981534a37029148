"""model.data.software: format directives become placeholders; accelerator markers are stripped."""

from __future__ import annotations

import pytest

from model.data.software import directives, has_words, mask_directives, strip_accelerators


@pytest.mark.parametrize("text, expected", [
    ("Die Datei %s wurde nicht gefunden.", ["%s"]),
    ("%d von %5.2f, %-10s und %1$s sind 100%%", ["%d", "%5.2f", "%-10s", "%1$s", "%%"]),
    ("%lu Bytes, %X/%X", ["%lu", "%X", "%X"]),
    ("Hallo %(name)s, %(count)d neue", ["%(name)s", "%(count)d"]),
    ("Willkommen, {name}! {0} {0:.2f} {name!r} {}", ["{name}", "{0}", "{0:.2f}", "{name!r}", "{}"]),
    ("Ruby %{name} und Qt %1 bis %2", ["%{name}", "%1", "%2"]),
    ("%PRODUCTNAME Writer", ["%PRODUCTNAME"]),
    ("Prozedur $(ARG1) in ${HOME} und $PATH", ["$(ARG1)", "${HOME}", "$PATH"]),
    ("<b>fett</b> &amp; <a href=\"x\">Link</a><br/>", ["<b>", "</b>", "&amp;", "<a href=\"x\">", "</a>", "<br/>"]),
    # Not directives: a percentage, a price, a space after %, a brace with spaces (ICU structure).
    ("50 % der Nutzer zahlen $5 {count, plural}", []),
    # A conversion glued to a word is German: "50%ige", "%sfoo" is no directive either.
    ("eine 50%ige Lösung und %sfoo", []),
])
def test_directives(text, expected):
    assert directives(text) == expected


def test_mask_directives_numbers_in_german_order_and_shares_equal_texts():
    assert mask_directives("Von %s nach %d: %s", "From %s to %d: %s") == (
        "Von ⦅X1⦆ nach ⦅X2⦆: ⦅X1⦆", "From ⦅X1⦆ to ⦅X2⦆: ⦅X1⦆")
    assert mask_directives("{count} Dateien in {folder}", "{folder} holds {count} files") == (
        "⦅X1⦆ Dateien in ⦅X2⦆", "⦅X2⦆ holds ⦅X1⦆ files")


@pytest.mark.parametrize("de, en", [
    ("Datei %s fehlt", "File %d is missing"),        # a different directive: misaligned
    ("Datei fehlt", "File %s is missing"),           # one side lost it
    (" ".join(f"{{a{i}}}" for i in range(21)), " ".join(f"{{a{i}}}" for i in range(21))),  # over 20 slots
])
def test_mask_directives_refuses_misaligned_pairs(de, en):
    assert mask_directives(de, en) is None


@pytest.mark.parametrize("de, en, expected", [
    ("_Datei", "_File", ("Datei", "File")),
    ("Ö_ffnen", "_Open", ("Öffnen", "Open")),
    ("&Speichern", "&Save", ("Speichern", "Save")),
    ("~Einfügen", "~Paste", ("Einfügen", "Paste")),
    ("Einfügen", "_Paste", ("Einfügen", "Paste")),           # one side only: still stripped there
    ("file_name setzen", "set file_name", ("file_name setzen", "set file_name")),   # an identifier
    ("A &amp; B", "A &amp; B", ("A &amp; B", "A &amp; B")),   # an entity
    ("A & B & C", "A & B & C", ("A & B & C", "A & B & C")),   # text, no marker before a letter
    ("Rock &Roll &Jazz", "Rock &Roll &Jazz", ("Rock &Roll &Jazz", "Rock &Roll &Jazz")),  # two: text
    ("~/Dokumente", "~/Documents", ("~/Dokumente", "~/Documents")),
])
def test_strip_accelerators(de, en, expected):
    assert strip_accelerators(de, en) == expected


@pytest.mark.parametrize("text, expected", [("%s: %s", False), ("<b></b>", False), ("%s Dateien", True), ("OK", True)])
def test_has_words(text, expected):
    assert has_words(text) is expected
