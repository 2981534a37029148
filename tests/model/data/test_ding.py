"""model.data.ding: the Ding dictionary's lines as sentence pairs and word/phrase pairs.

The LINES below are real lines of Ding (Debian ``trans-de-en``, © Frank Richter, TU Chemnitz,
GPL-2.0-or-later; https://dict.tu-chemnitz.de/), quoted to test the reader.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from model.data import CorpusError
from model.data.ding import is_sentence, parse_line, place_names, read_ding

DING = os.environ.get("DING_PATH", "/usr/share/trans/de-en")

LINES = {
    "passion": "Leidenschaft {f}; Herzensangelegenheit {f} | Leidenschaften {pl} | aus Leidenschaft | eine "
               "Leidenschaft für etw. haben | in jdm. die Leidenschaft für etw. entfachen :: passion | passions | of "
               "passion | to have a passion for sth. | to fire the passion for sth. in sb.",
    "bus": "Busverkehr {m}; Busbetrieb {m}; Busdienst {m} [transp.] | Unser Hotel unterhält einen Busdienst. :: "
           "bus service | Our hotel runs a bus service.",
    "cake": "Das ist die Höhe!; Das schießt den Vogel ab! [übtr.] :: That takes the cake! [fig.]",
    "convention": "Abkommen {n} über die Rechtsstellung der Flüchtlinge; Genfer Flüchtlingskonvention {f} /GFK/ "
                  "[pol.] :: Convention relating to the Status of Refugees /CRSR/; Geneva refugee convention",
    "smokery": "Aalräucherei {f} | Aalräuchereien {pl} :: eel smokery; eel-smoking business <eelsmoking business> "
               "<eel smoking business> | eel smokeries; eel-smoking businesses",
    "descry": "etw. wahrnehmen; etw. entdecken {vt} | wahrnehmend; entdeckend | wahrgenommen; entdeckt | nimmt wahr "
              "| nahm wahr :: to descry sth. | descrying | descried | descries | descries",
    "flounder": "Flunder {f} (Platichthys flesus) [zool.] | Flundern {pl} :: European flounder | European flounders",
    "bird": "Sumatrablauschnäpper {m} [ornith.] :: Sumatran niltava",
    "sheer": "blank; pur; rein; schier [geh.]; bar [geh.] [selten] {adj} (in reinster Form) | blanker Hohn | die "
             "reine Wahrheit :: sheer; pure; plain; arrant [dated] <purer> <purest> | sheer/pure mockery | the plain "
             "truth",
    "header": "# Version :: devel 2023-01-30",
}


def pairs(line: str) -> list[tuple[str, tuple[str, str]]]:
    return list(parse_line(line))


def test_sub_entries_are_aligned_and_annotations_stripped():
    assert pairs(LINES["smokery"]) == [
        ("words", ("Aalräucherei", "eel smokery")), ("words", ("Aalräucherei", "eel-smoking business")),
        ("words", ("Aalräuchereien", "eel smokeries")), ("words", ("Aalräuchereien", "eel-smoking businesses"))]
    assert pairs(LINES["convention"]) == [
        ("words", ("Abkommen über die Rechtsstellung der Flüchtlinge", "Convention relating to the Status of Refugees")),
        ("words", ("Genfer Flüchtlingskonvention", "Convention relating to the Status of Refugees")),
        ("words", ("Abkommen über die Rechtsstellung der Flüchtlinge", "Geneva refugee convention"))]


def test_example_sentences_are_their_own_kind():
    assert pairs(LINES["bus"]) == [
        ("words", ("Busverkehr", "bus service")), ("words", ("Busbetrieb", "bus service")),
        ("words", ("Busdienst", "bus service")),
        ("sentences", ("Unser Hotel unterhält einen Busdienst.", "Our hotel runs a bus service."))]
    assert pairs(LINES["cake"]) == [("sentences", ("Das ist die Höhe!", "That takes the cake!")),
                                    ("sentences", ("Das schießt den Vogel ab!", "That takes the cake!"))]


def test_placeholders_are_removed_at_the_edge_and_dropped_inside():
    # "eine Leidenschaft für etw. haben" cannot lose its "etw." without becoming wrong German
    assert pairs(LINES["passion"]) == [
        ("words", ("Leidenschaft", "passion")), ("words", ("Herzensangelegenheit", "passion")),
        ("words", ("Leidenschaften", "passions")), ("words", ("aus Leidenschaft", "of passion"))]
    assert pairs(LINES["descry"])[:3] == [("words", ("wahrnehmen", "to descry")), ("words", ("entdecken", "to descry")),
                                          ("words", ("wahrnehmend", "descrying"))]


def test_junk_is_filtered():
    assert pairs(LINES["flounder"]) == []   # a species with its Latin name
    assert pairs(LINES["bird"]) == []
    assert pairs(LINES["header"]) == []
    assert pairs("Hund {m} | Hunde {pl} :: dog") == []  # misaligned sub-entries
    assert pairs("kein Trenner hier") == []
    # rare/archaic synonyms and slash alternatives go, the rest stays
    assert pairs(LINES["sheer"]) == [
        ("words", ("blank", "sheer")), ("words", ("pur", "sheer")), ("words", ("rein", "sheer")),
        ("words", ("schier", "sheer")), ("words", ("blank", "pure")), ("words", ("blank", "plain")),
        ("words", ("die reine Wahrheit", "the plain truth"))]


@pytest.mark.parametrize("text, expected", [
    ("Das ist die Höhe!", True), ("Unser Hotel unterhält einen Busdienst.", True), ("„Komm her!“", True),
    ("Leidenschaft", False), ("etw.", False), ("aus Leidenschaft", False), ("Hallo.", False)])
def test_is_sentence(text, expected):
    assert is_sentence(text) is expected


def test_read_ding_reads_a_file_of_real_lines(tmp_path: Path):
    path = tmp_path / "de-en"
    path.write_text("\n".join(LINES.values()) + "\n", encoding="utf-8")
    sentences = read_ding(path, "sentences")
    words = read_ding(path, "words")
    assert sentences == [("Unser Hotel unterhält einen Busdienst.", "Our hotel runs a bus service."),
                         ("Das ist die Höhe!", "That takes the cake!"),
                         ("Das schießt den Vogel ab!", "That takes the cake!")]
    assert len(words) == len(set(words)) == 29  # 4 + 3 + 3 + 4 + 8 + 7 from the lines above
    assert ("Genfer Flüchtlingskonvention", "Convention relating to the Status of Refugees") in words


@pytest.mark.parametrize("content, kind, message", [
    (None, "words", "file not found: '{path}'"),
    ("Hallo\tHello\n", "words", "not a Ding dictionary (no 'German :: English' line): '{path}'"),
    ("a :: b\n", "pages", "kind must be one of ('sentences', 'words'), got 'pages'"),
])
def test_read_ding_errors(tmp_path: Path, content, kind, message):
    path = tmp_path / "de-en"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=f"^{re.escape(message.format(path=path))}$") as info:
        read_ding(path, kind)
    assert isinstance(info.value, CorpusError) or kind == "pages"


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isfile(DING), reason=f"the Ding dictionary is not installed at {DING}")
def test_the_installed_dictionary():
    sentences = read_ding(DING, "sentences")
    words = read_ding(DING, "words")
    assert 18_000 < len(sentences) < 22_000
    assert 500_000 < len(words) < 700_000
    assert ("Unser Hotel unterhält einen Busdienst.", "Our hotel runs a bus service.") in sentences
    assert ("Leidenschaft", "passion") in words and ("Hund", "dog") in words
    assert not any("{" in de or "[" in en or "etw." in de or "sth." in en for de, en in words)


# Real lines of Ding, and one made up (Testland) for a name whose English is German's.
PLACE_LINES = [
    "Köln (Stadt in Deutschland) [geogr.] :: Cologne (city in Germany)",
    "Österreich {n} /AT/ (Kfz: /A/) [geogr.] | Ostösterreich {n} | Westösterreich {n} :: Austria | Eastern Austria; "
    "East Austria | Western Austria; West Austria",
    "Athínai; Athen (Hauptstadt von Griechenland) [geogr.] :: Athínai; Athens (capital of Greece)",
    "Kabul (Hauptstadt von Afghanistan) [geogr.] :: Kabol; Kabul (capital of Afghanistan)",
    "Tokyo; Tokio (Hauptstadt von Japan) [geogr.] :: Tokyo (capital of Japan); County Palatine of the Rhine",
    "Franken {n}; Frankenland {n} [geogr.] | Mainfranken | Oberfranken | Unterfranken :: Franconia | Main-Franconia "
    "| Upper Franconia | Lower Franconia",
    "Schweizer Franken {m} | Schweizer Franken {pl} | Rappen {m} /Rp./ :: Swiss franc /CHF/ | Swiss francs | Rappen; "
    "centime",
    "Moldau {f} (Fluss in Tschechien) [geogr.] :: Vltava (river in the Czech Republic)",
    "Moldau {f} (historische Region in Osteuropa) [geogr.] :: Moldavia",
    "Abfall {m}; Ansteigen {n} (des Geländes/einer Straße) [geogr.] :: falling gradient; slope",
    "Kunstförderpreis {m} [art] | Kunstförderpreise {pl} | der Kunstförderpreis der Stadt Köln :: art award | art "
    "awards | the art award of the city of Cologne",
    "Testland {n} [geogr.] :: Testland",
    "Türkei {f} /TR/ [geogr.] :: Turkey",
    "Philippinen {pl} /PH/ [geogr.] :: Philippines",
    "Vatikan {m}; Vatikanstadt {f} /VA/ [geogr.] :: Vatican; Vatican City",
]


def test_place_names_are_the_names_english_writes_otherwise(tmp_path: Path):
    path = tmp_path / "de-en"
    path.write_text("\n".join(PLACE_LINES) + "\n", encoding="utf-8")
    # Athen pairs with Athens by position; Kabul, Tokyo and Testland are written as in German;
    # Tokio's English is out of step (5 words); Franken is a currency in "Schweizer Franken";
    # Moldau has two English names; Abfall's is no name; a phrase naming Köln takes nothing;
    # Frankenland has the one English name of its line
    places = place_names(path)
    assert places == {"Köln": "Cologne", "Österreich": "Austria", "Athen": "Athens", "Frankenland": "Franconia",
                      "Türkei": "Turkey", "Philippinen": "Philippines", "Vatikan": "Vatican", "Vatikanstadt": "Vatican City"}
    # countries (a country code) that English writes without "the": not a plural, not the Vatican
    assert places.countries == {"Österreich", "Türkei", "Vatikanstadt"}


@pytest.mark.skipif(not os.path.isfile(DING), reason=f"the Ding dictionary is not installed at {DING}")
def test_place_names_of_the_installed_dictionary():
    places = place_names(DING)
    assert 900 < len(places) < 1300
    assert {k: places[k] for k in ("Köln", "München", "Wien", "Zürich", "Österreich", "Mailand", "Warschau")} == {
        "Köln": "Cologne", "München": "Munich", "Wien": "Vienna", "Zürich": "Zurich", "Österreich": "Austria",
        "Mailand": "Milan", "Warschau": "Warsaw"}
    # words of other entries too: law studies, a currency, a sausage, stamps, Poles
    assert not {"Jura", "Franken", "Wiener", "Marken", "Polen", "Essen"} & places.keys()
    assert {"Türkei", "Schweiz", "Irak", "Libanon", "Slowakei", "Österreich"} <= places.countries
    assert not {"Köln", "Wien", "Philippinen", "Vatikan"} & places.countries
