"""pipeline/documents/catalog.py: gettext .po/.pot catalogs in, English catalogs out."""

from __future__ import annotations

import pytest

from pipeline.documents import DocumentError, DocumentTooLarge, read
from pipeline.language_pair import EN_DE
from tests.pipeline.documents.upper import Upper


CATALOG = r"""# Übersetzung von Beispiel.
msgid ""
msgstr ""
"Project-Id-Version: beispiel 1.0\n"
"Language: fr\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\n"

#. Ein Kommentar für Übersetzer
#: src/main.c:12
#, c-format
msgid "Datei %s nicht gefunden"
msgstr "Fichier %s introuvable"

msgctxt "Menü"
msgid "Öffnen"
msgstr ""

#, fuzzy
msgid "Speichern"
msgstr "Enregistrer"

#, python-format
msgid "%(count)d Datei"
msgid_plural "%(count)d Dateien"
msgstr[0] ""
msgstr[1] ""

msgid ""
"\n"
"Zeile eins\n"
msgstr ""

#~ msgid "Alt"
#~ msgstr "Ancien"
"""


def test_catalog_msgids_become_english_msgstrs_and_the_rest_is_kept():
    import polib

    translate = Upper()
    document = read(".po", CATALOG.encode())
    assert document.chars == len("Datei %s nicht gefunden") + len("Öffnen") + len("Speichern") + len(
        "%(count)d Datei") + len("%(count)d Dateien") + len("\nZeile eins\n")
    out = polib.pofile(document.translate(translate).decode("utf-8"))
    assert translate.calls == [(["Datei %s nicht gefunden", "Öffnen", "Speichern", "%(count)d Datei",
                                 "%(count)d Dateien", "Zeile eins"], False)]  # one call for the catalog
    assert out.metadata["Language"] == "en" and out.metadata["Plural-Forms"] == "nplurals=2; plural=(n != 1);"
    assert out.metadata["Project-Id-Version"] == "beispiel 1.0"
    entries = {(e.msgctxt, e.msgid): e for e in out}
    first = entries[None, "Datei %s nicht gefunden"]
    assert first.msgstr == "DATEI %S NICHT GEFUNDEN"  # the fake upper-cases all; the pipeline keeps directives
    assert (first.comment, first.occurrences, first.flags) == ("Ein Kommentar für Übersetzer", [("src/main.c", "12")],
                                                                ["c-format"])
    assert entries["Menü", "Öffnen"].msgstr == "ÖFFNEN"
    assert entries[None, "Speichern"].msgstr == "SPEICHERN" and entries[None, "Speichern"].fuzzy
    plural = entries[None, "%(count)d Datei"]
    assert plural.msgstr_plural == {0: "%(COUNT)D DATEI", 1: "%(COUNT)D DATEIEN"}
    assert entries[None, "\nZeile eins\n"].msgstr == "\nZEILE EINS\n"  # the newlines stay, as msgfmt -c wants
    assert [(e.msgid, e.msgstr) for e in out.obsolete_entries()] == [("Alt", "Ancien")]
    assert out.header == "Übersetzung von Beispiel."


ENGLISH_CATALOG = r"""msgid ""
msgstr ""
"Project-Id-Version: example 1.0\n"
"Language: en_GB\n"
"Content-Type: text/plain; charset=UTF-8\n"

#, c-format
msgid "%d file"
msgid_plural "%d files"
msgstr[0] "%d file"
msgstr[1] "%d files"
"""


def test_an_english_catalog_becomes_german_after_en_de():
    import polib

    out = polib.pofile(read(".po", ENGLISH_CATALOG.encode()).translate(Upper(), EN_DE).decode("utf-8"))
    assert out.metadata["Language"] == "de" and out.metadata["Plural-Forms"] == "nplurals=2; plural=(n != 1);"
    assert [(e.msgid, e.msgstr_plural) for e in out] == [("%d file", {0: "%D FILE", 1: "%D FILES"})]


@pytest.mark.parametrize("extension, data, message", [
    (".po", "msgid \"Grüße\"".encode("latin-1"), "file is not UTF-8 text"),
    (".po", b'msgid "Hallo"\nmsgstr "Hello\nfoo', "file is not a valid gettext catalog: Syntax error in po file (line 3)"),
    (".pot", b'msgid "Hallo"\nmsgid "Welt"\n', "file is not a valid gettext catalog: Syntax error in po file (line 2)"),
])
def test_unreadable_files(extension, data, message):
    with pytest.raises(DocumentError) as info:
        read(extension, data)
    assert str(info.value) == message and not isinstance(info.value, DocumentTooLarge)
