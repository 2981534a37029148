"""model.data.gettext: catalogs compiled by GNU msgfmt (as Debian ships them) read as training pairs."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from model.data import CorpusError, CorpusSpec
from model.data.gettext import catalog_files, read_gettext

pytestmark = pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext (msgfmt) is not installed")

# Our own catalog, written like the ones Debian ships: accelerators, directives, plurals, a
# context, an untranslated, a fuzzy and a layout entry, an English "translation", markup only.
PO = r'''
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Language: de\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

msgid "_Save File"
msgstr "Datei _speichern"

msgid "The file %s was not found."
msgstr "Die Datei %s wurde nicht gefunden."

msgid "Welcome, {name}!"
msgstr "Willkommen, {name}!"

msgid "%d file"
msgid_plural "%d files"
msgstr[0] "%d Datei"
msgstr[1] "%d Dateien"

msgctxt "menu"
msgid "Open"
msgstr "Öffnen"

msgid "Build ID"
msgstr "Build ID"

#, fuzzy
msgid "Delete history"
msgstr "Verlauf"

msgid ""
"Usage: tool [OPTION]\n"
"  -h    show help\n"
msgstr ""
"Aufruf: tool [OPTION]\n"
"  -h    Hilfe zeigen\n"

msgid "Could not connect to the server at all."
msgstr "Could not connect to the server at all."

msgid "The connection to the server was lost again."
msgstr "The connection to the server was lost again."

msgid "%s: %s"
msgstr "%s: %s"

msgid "Copy %s to %s"
msgstr "%s kopieren"

msgid "Untranslated"
msgstr ""
'''

EXPECTED = [
    ("Datei speichern", "Save File"),
    ("Die Datei ⦅X1⦆ wurde nicht gefunden.", "The file ⦅X1⦆ was not found."),
    ("Willkommen, ⦅X1⦆!", "Welcome, ⦅X1⦆!"),
    ("⦅X1⦆ Datei", "⦅X1⦆ file"),
    ("⦅X1⦆ Dateien", "⦅X1⦆ files"),
    ("Öffnen", "Open"),
]


@pytest.fixture
def catalogs(tmp_path):
    folder = tmp_path / "de" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (tmp_path / "app.po").write_text(PO, encoding="utf-8")
    subprocess.run(["msgfmt", "-o", str(folder / "app.mo"), str(tmp_path / "app.po")], check=True)
    return tmp_path


def test_po_catalog_gives_cleaned_pairs(catalogs):
    assert read_gettext(catalogs / "app.po") == EXPECTED


def test_mo_catalog_gives_the_same_pairs_in_its_order(catalogs):
    # msgfmt leaves fuzzy entries out and sorts by msgid (the context first: "menu\x04Open" last).
    mo = read_gettext(catalogs / "de" / "LC_MESSAGES" / "app.mo")
    assert mo == [EXPECTED[i] for i in (3, 4, 1, 2, 0, 5)]


def test_folder_reads_every_catalog_once(catalogs):
    assert catalog_files(catalogs) == [catalogs / "app.po", catalogs / "de" / "LC_MESSAGES" / "app.mo"]
    assert read_gettext(catalogs) == EXPECTED   # the same pairs in both: distinct pairs only


def test_spec_kind_and_domain(catalogs):
    spec = CorpusSpec.parse(f"gettext:{catalogs}@2")
    assert (spec.kind, spec.weight, spec.domain) == ("gettext", 2.0, "ui")
    assert spec.read() == EXPECTED


@pytest.mark.parametrize("name, message", [
    ("missing", "gettext catalog or folder not found: '{path}'"),
    ("empty", "no .mo or .po catalog under '{path}'"),
])
def test_bad_paths(tmp_path, name, message):
    path = tmp_path / name
    if name == "empty":
        path.mkdir()
    with pytest.raises(CorpusError) as error:
        read_gettext(path)
    assert str(error.value) == message.format(path=path)


def test_broken_catalog(tmp_path):
    path = tmp_path / "broken.mo"
    path.write_bytes(b"not a catalog")
    with pytest.raises(CorpusError, match=r"^cannot read gettext catalog '.*broken\.mo': "):
        read_gettext(path)
