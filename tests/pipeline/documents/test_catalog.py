"""pipeline/documents/catalog.py: gettext .po/.pot catalogs in, catalogs of the target language out."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from pipeline.documents import DocumentError, DocumentTooLarge, read
from pipeline.documents.catalog import in_argument_order
from pipeline.language_pair import EN_DE
from tests.conftest import ROOT
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


@pytest.mark.parametrize("msgid, msgstr, expected", [
    ("%s is %5.2f%% done.", "Zu %5.2f%% ist %s fertig.", "Zu %2$5.2f%% ist %1$s fertig."),
    ("%s of %s, %d", "%d: %s von %s", "%3$d: %1$s von %2$s"),        # the same directive twice: in order
    ("%s is %d", "%s ist %d", "%s ist %d"),                          # the same order
    ("%s is %d", "%d ist", "%d ist"),                                # not the same directives: as it is
    ("%2$s is %1$d", "%1$d ist %2$s", "%1$d ist %2$s"),              # numbered already
    ("%*d of %s", "%s von %*d", "%s von %*d"),                       # a width argument
    ("%-10s %'lu", "%'lu %-10s", "%2$'lu %1$-10s"),
])
def test_c_format_directives_in_another_order_are_numbered(msgid, msgstr, expected):
    assert in_argument_order(msgid, msgstr) == expected


def test_only_c_format_entries_are_numbered():
    catalog = '#, c-format\nmsgid "%s has %d"\nmsgstr ""\n\n#, python-format\nmsgid "%s has %d"\nmsgstr ""\n'
    swap = {"%s has %d": "%d hat %s"}
    out = read(".po", catalog.encode()).translate(lambda texts, html=False: [swap[t] for t in texts]).decode()
    assert '#, c-format\nmsgid "%s has %d"\nmsgstr "%2$d hat %1$s"' in out
    assert '#, python-format\nmsgid "%s has %d"\nmsgstr "%d hat %s"' in out


# ------------------------------------------------------------- an English catalog through the reverse model

def same_directives(source: str, translation: str, c_format: bool) -> bool:
    """Whether ``translation`` has exactly the format directives of ``source``
    (``model.data.software.directives``), a c-format one numbered ("%2$d" for "%d") as itself."""
    from model.data.software import directives

    def unnumbered(text: str) -> list[str]:
        return sorted(re.sub(r"^%[1-9][0-9]*\$", "%", d) if c_format else d for d in directives(text))

    return unnumbered(translation) == unnumbered(source)


ENGLISH_PO = ROOT / "tests" / "data" / "english.po"


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext (msgfmt) is not installed")
def test_an_english_catalog_comes_back_german_with_every_directive_and_passes_msgfmt_c(reverse_checkpoint, tmp_path):
    """The tiny en-de model through the text pipeline, as the service would run it: every entry of
    tests/data/english.po gets a msgstr with exactly its msgid's directives (the pipeline's
    spans), the header names German, and GNU msgfmt -c finds nothing to say."""
    import polib

    from model.data.software import directives
    from model.inference.translator import Translator
    from model.network.checkpoint import direction
    from pipeline.language_pair import LanguagePair
    from pipeline.texts import translate_texts
    from pipeline.translation import Pipeline

    translator = Translator.from_checkpoint(reverse_checkpoint, "cpu")
    languages = LanguagePair.of(direction(translator.meta))
    pipeline = Pipeline(translator)
    source = polib.pofile(str(ENGLISH_PO))
    out_data = read(".po", ENGLISH_PO.read_bytes()).translate(
        lambda texts, html=False: translate_texts(pipeline, texts, html=html, languages=languages), languages)
    out = polib.pofile(out_data.decode("utf-8"))
    assert languages == EN_DE and out.metadata["Language"] == "de"
    assert out.metadata["Plural-Forms"] == "nplurals=2; plural=(n != 1);"
    assert len(out) == len(source) == 25 and [e.msgid for e in out.obsolete_entries()] == ["Old text"]
    kept = checked = 0
    for entry, before in zip(out, source, strict=True):
        assert (entry.msgctxt, entry.msgid, entry.msgid_plural, entry.flags) == (
            before.msgctxt, before.msgid, before.msgid_plural, before.flags)
        sources = [entry.msgid, entry.msgid_plural] if entry.msgid_plural else [entry.msgid]
        translations = [entry.msgstr_plural[0], entry.msgstr_plural[1]] if entry.msgid_plural else [entry.msgstr]
        for text, translation in zip(sources, translations, strict=True):
            assert translation.strip(), text
            checked += bool(directives(text))
            kept += bool(directives(text)) and same_directives(text, translation, "c-format" in entry.flags)
    assert kept == checked == 18   # every directive, text by text (both forms of a plural)
    assert out.find("%s is %5.2f%% done.").msgstr == "Wir %2$5.2f %1$s. %%"   # the tiny model's order, numbered
    assert out.find("Save", msgctxt="verb") is not None and out.find("Print %s now?").fuzzy
    assert out.find("\nThe shop is closed.\n").msgstr.startswith("\n")
    assert out.find("Good morning.").msgstr == "Guten Morgen."   # one of the 40 pairs the model knows
    path = tmp_path / "de.po"
    path.write_bytes(out_data)
    checked_by_msgfmt = subprocess.run(["msgfmt", "-c", "-o", os.devnull, str(path)], capture_output=True, text=True)
    assert (checked_by_msgfmt.returncode, checked_by_msgfmt.stderr) == (0, "")
