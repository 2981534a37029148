"""model.data.mozilla: a Mozilla language pack paired with the program's English strings."""

from __future__ import annotations

import os
import zipfile

import pytest

from model.data import CorpusError, CorpusSpec
from model.data.mozilla import canonical, read_mozilla

# Our own strings, laid out as Firefox's language pack and omni.ja archives are.
DE_FTL = """\
-brand-short-name =
    { $case ->
       *[nominative] Fuchs
        [genitive] Fuchs'
    }
menu-file =
    .label = Datei
    .accesskey = D
history-title = Verlauf
tabs-close =
    .tooltiptext =
        { $tabCount ->
            [one] Tab schließen
           *[other] { $tabCount } Tabs schließen
        }
about = Über { -brand-short-name }
greeting = Hallo { $user }, willkommen!
untranslated = Firefox Sync
only-german = Nur deutsch
"""
EN_FTL = """\
-brand-short-name = Fox
menu-file =
    .label = File
    .accesskey = F
history-title = History
tabs-close =
    .tooltiptext =
        { $tabCount ->
            [one] Close tab
           *[other] Close { $tabCount } tabs
        }
about = About { -brand-short-name }
greeting = Hello { $user }, welcome!
untranslated = Firefox Sync
"""
DE_PROPERTIES = """\
openFile=Datei öffnen
openFile.accesskey=f
removeTabs=#1 Tab entfernen;#1 Tabs entfernen
searchWith=Mit %S suchen
"""
EN_PROPERTIES = """\
openFile=Open File
openFile.accesskey=O
removeTabs=Remove #1 tab;Remove #1 tabs
searchWith=Search with %S
"""
DE_DTD = '<!ENTITY saveAs.label "Speichern unter…">\n<!ENTITY saveAs.accesskey "u">\n'
EN_DTD = '<!ENTITY saveAs.label "Save As…">\n<!ENTITY saveAs.accesskey "A">\n'


def write_zip(path, files):
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)


@pytest.fixture
def program(tmp_path):
    """A program folder as ``dpkg -x firefox-esr ...`` leaves it: toolkit and browser archives
    with the English strings, the language pack in ``browser/extensions``."""
    app = tmp_path / "usr" / "lib" / "fox"
    write_zip(app / "omni.ja", {"chrome/en-US/locale/en-US/global/tabs.properties": EN_PROPERTIES,
                                "chrome/en-US/locale/en-US/global/dialog.dtd": EN_DTD,
                                "modules/code.js": "var x = 1;"})
    write_zip(app / "browser" / "omni.ja", {"localization/en-US/browser/menu.ftl": EN_FTL})
    write_zip(app / "browser" / "extensions" / "langpack-de@fox.mozilla.org.xpi",
              {"browser/localization/de/browser/menu.ftl": DE_FTL,
               "chrome/de/locale/de/global/tabs.properties": DE_PROPERTIES,
               "chrome/de/locale/de/global/dialog.dtd": DE_DTD,
               "manifest.json": "{}"})
    return tmp_path


def test_strings_pair_by_file_and_id(program):
    # files in path order (dialog.dtd, tabs.properties, menu.ftl), entries in file order; access
    # keys, the untranslated entry and the German-only one left out
    assert read_mozilla(program) == [
        ("Speichern unter…", "Save As…"),
        ("Datei öffnen", "Open File"),
        ("⦅X1⦆ Tab entfernen", "Remove ⦅X1⦆ tab"),     # .properties plural forms, #1 a directive
        ("⦅X1⦆ Tabs entfernen", "Remove ⦅X1⦆ tabs"),
        ("Mit ⦅X1⦆ suchen", "Search with ⦅X1⦆"),       # Mozilla's %S
        ("Datei", "File"),                                # a Fluent attribute (.label)
        ("Verlauf", "History"),
        ("Tab schließen", "Close tab"),                   # Fluent plural variants, paired by key
        ("⦅X1⦆ Tabs schließen", "Close ⦅X1⦆ tabs"),
        ("Über Fuchs", "About Fox"),                      # a term: its default German case
        ("Hallo ⦅X1⦆, willkommen!", "Hello ⦅X1⦆, welcome!"),
    ]


def test_the_language_pack_alone_names_its_program(program):
    pack = next(program.rglob("langpack-de@*.xpi"))
    assert len(read_mozilla(pack)) == 11


@pytest.mark.parametrize("name, locale, expected", [
    ("browser/localization/de/browser/menu.ftl", "de", "localization/@/browser/menu.ftl"),
    ("localization/en-US/browser/menu.ftl", "en-US", "localization/@/browser/menu.ftl"),
    ("chrome/de/locale/de/global/tabs.properties", "de", "chrome/@/locale/@/global/tabs.properties"),
    ("browser/chrome/de/locale/browser/x.properties", "de", "chrome/@/locale/browser/x.properties"),
])
def test_both_copies_of_a_file_have_one_name(name, locale, expected):
    assert canonical(name, locale) == expected


def test_spec_kind_and_domain(program):
    spec = CorpusSpec.parse(f"mozilla:{program}@2")
    assert (spec.kind, spec.domain, spec.weight) == ("mozilla", "ui", 2.0)
    assert len(spec.read()) == 11


@pytest.mark.parametrize("layout, message", [
    ("missing", "no such file or folder: '{path}'"),
    ("empty", "no Mozilla language pack (langpack-de@*.xpi) under '{path}'"),
    ("pack only", "no omni.ja (the English strings) beside '{path}/extensions/langpack-de@x.xpi': the "
                  "program's own package (firefox-esr, thunderbird) is needed too"),
    ("broken archive", "cannot read Mozilla archive '{path}/extensions/langpack-de@x.xpi': File is not a zip file"),
])
def test_bad_folders_say_what_is_missing(tmp_path, layout, message):
    path = tmp_path / "app"
    if layout != "missing":
        path.mkdir()
    if layout == "pack only":
        write_zip(path / "extensions" / "langpack-de@x.xpi", {"manifest.json": "{}"})
    if layout == "broken archive":
        write_zip(path / "omni.ja", {"a.ftl": "a = b"})
        (path / "extensions").mkdir()
        (path / "extensions" / "langpack-de@x.xpi").write_bytes(b"not a zip")
    with pytest.raises(CorpusError) as error:
        read_mozilla(path)
    assert str(error.value) == message.format(path=path)


FIREFOX = os.environ.get("MOZILLA_PATH", "/usr/lib/firefox-esr")


@pytest.mark.skipif(not list(__import__("pathlib").Path(FIREFOX).glob("browser/extensions/langpack-de@*.xpi")),
                    reason=f"needs Debian's firefox-esr and firefox-esr-l10n-de in {FIREFOX} (MOZILLA_PATH)")
def test_firefox_as_debian_ships_it():
    pairs = read_mozilla(FIREFOX)
    assert 8_000 < len(pairs) < 20_000
    assert {("Lesezeichen hinzufügen", "Add bookmark"), ("Herunterladen", "Download")} <= set(pairs)
