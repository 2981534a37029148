"""model.data.ding: the Ding dictionary's lines as sentence pairs and word/phrase pairs, and its
index looked up from English (``DingDictionary(path, source="en")``; the German side and the API
are tested in tests/app/test_dictionary.py).

The LINES below are real lines of Ding (Debian ``trans-de-en``, © Frank Richter, TU Chemnitz,
GPL-2.0-or-later; https://dict.tu-chemnitz.de/), quoted to test the reader. The English lookups
read tests/data/ding-sample.txt (lines in Ding's format written for the tests).
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest

from model.data import CorpusError
from model.data.ding import (DictionaryEntry, DingDictionary, is_sentence, line_keys, load_dictionary, parse_line,
                             place_names, read_ding)

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


# ------------------------------------------------------------------------------ English lookups

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "ding-sample.txt"
APPOINTMENT = DictionaryEntry(
    headword="appointment (arrangement to meet)", word_class="noun", gender=None, labels=(), forms=("appointments",),
    senses=("Termin", "Verabredung"), synonyms=(), phrases=(("einen Termin absagen", "to cancel an appointment"),),
    examples=(("Ich habe morgen einen Termin.", "I have an appointment tomorrow."),), match="headword")
CANCEL = DictionaryEntry(
    headword="to cancel sth.", word_class="transitive verb, intransitive verb", gender=None, labels=(),
    forms=("cancelling", "cancelled", "he/she cancels"), senses=("absagen",), synonyms=("to call off sth.",),
    phrases=(), examples=(), match="headword")
CALL_OFF = DictionaryEntry(
    headword="to call off sth.", word_class="transitive verb, intransitive verb", gender=None, labels=(),
    forms=("calling off", "called off"), senses=("absagen",), synonyms=("to cancel sth.",), phrases=(),
    examples=(), match="headword")
DEADLINE = DictionaryEntry(
    headword="deadline", word_class="noun", gender=None, labels=(), forms=("deadlines",), senses=("Termin [adm.]",),
    synonyms=("due date",), phrases=(), examples=(), match="headword")
EAT = DictionaryEntry(
    headword="to eat", word_class="intransitive verb, transitive verb", gender=None, labels=(),
    forms=("eating", "eaten", "I eat", "I/he/she ate"), senses=("essen",), synonyms=(),
    phrases=(("zu Hause essen", "to eat at home"),), examples=(("Wir essen um sieben.", "We eat at seven."),),
    match="headword")
TO_DATE = DictionaryEntry(
    headword="to date", word_class="adverb", gender=None, labels=(), forms=(), senses=("bis heute", "bis dato [adm.]"),
    synonyms=("up to now",), phrases=(), examples=(), match="headword")
DATE = DictionaryEntry(
    headword="date", word_class="noun", gender=None, labels=(), forms=("dates",), senses=("Datum",), synonyms=(),
    phrases=(), examples=(), match="headword")


def form(entry: DictionaryEntry) -> DictionaryEntry:
    return dataclasses.replace(entry, match="form")


@pytest.fixture(scope="module")
def english():
    index = DingDictionary(SAMPLE, source="en")
    yield index
    index.close()


def test_an_english_headword_has_the_german_senses_and_both_languages_of_its_phrases(english):
    # gender None: Termin {m} and Verabredung {f} are the senses' genders, not the English word's
    assert english.lookup("appointment") == [APPOINTMENT]
    assert english.lookup("deadline") == [DEADLINE]
    assert english.lookup("eat") == [EAT]
    [lift] = english.lookup("lift")  # the English headword's labels; the German senses keep theirs
    assert (lift.headword, lift.labels, lift.synonyms, lift.senses, lift.forms) == (
        "lift", ("Br.",), ("elevator [Am.]",), ("Aufzug", "Fahrstuhl"), ("lifts",))


@pytest.mark.parametrize("q, found", [
    ("cancel", [CANCEL]),                   # a verb without "to"
    ("to cancel", [CANCEL]),
    ("To cancel sth.", [CANCEL]),           # the placeholder at the edge is no word; case ignored
    ("call off", [CALL_OFF]),               # the second headword, with its own forms
    ("called off", [form(CALL_OFF)]),
    ("cancels", [form(CANCEL)]),            # "he/she cancels" without its pronouns
    ("ate", [form(EAT)]),                   # "I/he/she ate"
    ("I eat", [form(EAT)]),
    ("appointments", [form(APPOINTMENT)]),  # the plural beside the German one
    ("the appointment", [APPOINTMENT]),     # an article dropped when the text finds nothing
    ("an appointment", [APPOINTMENT]),
    ("a deadline", [DEADLINE]),
    ("date", [DATE]),                       # not "to date" (bis heute): no verb, its "to" stays
    ("to date", [TO_DATE]),
    ("the Netherlands", [DictionaryEntry("the Netherlands", "noun (plural)", None, (), (), ("die Niederlande [geogr.]",),
                                         (), (), (), "headword")]),
])
def test_english_lookups(english, q, found):
    assert english.lookup(q) == found


@pytest.mark.parametrize("q", ["Netherlands", "the Termin", "Termin", "he cancels", "to cancel an appointment", "house"])
def test_english_lookups_that_find_nothing(english, q):
    # an article is dropped from the text looked up, not from headwords (as "Niederlande" does not
    # find "die Niederlande"); German headwords, phrases and misaligned lines are not found
    assert english.lookup(q) == []


def test_typographic_apostrophes_match_ascii_ones(english):
    [entry] = english.lookup("doctor's appointment")
    assert (entry.headword, entry.senses, entry.match) == ("doctor’s appointment", ("Arzttermin",), "headword")
    assert [e.match for e in english.lookup("Doctor’s appointments")] == ["form"]


def test_english_line_keys():
    line = ("absagen {vt} {vi} | absagend | abgesagt | er/sie sagt ab :: to cancel sth.; to call off sth. | "
            "cancelling; calling off | cancelled; called off | he/she cancels")
    assert line_keys(line, "en") == {"to cancel", "cancel", "to call off", "call off", "cancelling", "calling off",
                                     "cancelled", "called off", "cancels"}
    assert line_keys(line) == {"absagen", "absagend", "abgesagt", "sagt ab"}
    assert line_keys("bis heute {adv} :: to date; up to now", "en") == {"to date", "up to now"}
    assert line_keys("Termin {m} | Termine {pl} :: appointment", "en") == set()  # misaligned


def test_the_source_is_de_or_en(tmp_path: Path):
    with pytest.raises(ValueError, match="^source must be de or en, got 'fr'$"):
        DingDictionary(SAMPLE, source="fr")
    with pytest.raises(ValueError, match="^source must be de or en, got 'fr'$"):
        load_dictionary(SAMPLE, "fr")
    copy = tmp_path / "de-en"
    copy.write_bytes(SAMPLE.read_bytes())
    german, english = load_dictionary(copy), load_dictionary(copy, "en")
    assert (german.source, english.source) == ("de", "en")
    assert load_dictionary(copy, source="en") is english and load_dictionary(copy, "de") is german  # cached per source
    assert [e.headword for e in german.lookup("Termin")] == ["Termin", "Termin"] and english.lookup("Termin") == []


@pytest.mark.skipif(not os.path.isfile(DING), reason=f"the Ding dictionary is not installed at {DING}")
def test_english_lookups_in_the_installed_dictionary():
    english = load_dictionary(DING, "en")
    first = english.lookup("appointment")[0]
    assert (first.headword, first.word_class, first.gender, first.match) == (
        "appointment (arrangement to meet with sb.)", "noun", None, "headword")
    assert "Termin" in first.senses and "appointments" in first.forms
    cancel = english.lookup("cancel")
    assert cancel[0].headword == "to cancel sth." and "absagen" in cancel[0].senses
    assert all(e.headword.startswith(("to cancel", "cancel")) for e in cancel)
    assert [(e.headword, e.match) for e in english.lookup("went")][:1] == [("to go", "form")]
    assert english.lookup("the appointment")[0] == first
