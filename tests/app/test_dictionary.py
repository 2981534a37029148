"""app/dictionary.py and model/data/ding.py's DingDictionary: GET /api/dictionary, the translate
page's dictionary panel, and the setting DICTIONARY_PATH. Exact answers come from
tests/data/ding-sample.txt (lines in Ding's format written for these tests); the Debian file
(trans-de-en) is checked for what the brief promises of it."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from app import StartupError, create_app
from app.dictionary import panel
from app.settings import DEFAULTS
from app.service import get_service
from app.spec import document
from model.data.ding import DING_ATTRIBUTION, DingDictionary, line_keys, load_dictionary

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "ding-sample.txt"
DING = Path(DEFAULTS["DICTIONARY_PATH"])
needs_ding = pytest.mark.skipif(not DING.is_file(), reason="needs Debian's trans-de-en (/usr/share/trans/de-en)")

ATTRIBUTION = {"attribution": "Ding German–English dictionary, © Frank Richter, TU Chemnitz (https://dict.tu-chemnitz.de/)",
               "license": "GPL-2.0-or-later"}
TERMIN = {"headword": "Termin", "word_class": "noun", "gender": "m", "labels": [], "forms": ["Termine"],
          "senses": ["appointment (arrangement to meet)"], "synonyms": ["Verabredung"],
          "phrases": [{"de": "einen Termin absagen", "en": "to cancel an appointment"}],
          "examples": [{"de": "Ich habe morgen einen Termin.", "en": "I have an appointment tomorrow."}],
          "match": "headword"}
TERMIN_ADM = {"headword": "Termin", "word_class": "noun", "gender": "m", "labels": ["adm."], "forms": ["Termine"],
              "senses": ["deadline", "due date"], "synonyms": [], "phrases": [], "examples": [], "match": "headword"}
TERMIN_ADV = {"headword": "termin", "word_class": "adverb", "gender": None, "labels": ["humor."], "forms": [],
              "senses": ["on the dot"], "synonyms": [], "phrases": [], "examples": [], "match": "headword"}


@pytest.fixture(scope="module")
def sample_app(app_config):
    return create_app({**app_config, "DICTIONARY_PATH": str(SAMPLE)})


@pytest.fixture(scope="module")
def sample(sample_app):
    return sample_app.test_client()


@pytest.fixture(scope="module")
def off(app_config):
    return create_app({**app_config, "DICTIONARY_PATH": ""}).test_client()


def panel_tag(html: str) -> str:
    """The panel's opening tag, whitespace runs as one space."""
    return " ".join(re.search(r'<section id="dictionary"[^>]*>', html)[0].split())


def lookup(client, q: str, **args: str) -> dict:
    response = client.get("/api/dictionary", query_string={"q": q, **args})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


# ------------------------------------------------------------------------------ the API

def test_termin_exactly(sample):
    assert ATTRIBUTION["attribution"] == DING_ATTRIBUTION
    assert lookup(sample, "Termin") == {"query": "Termin", "source": "de", "entries": [TERMIN, TERMIN_ADM], **ATTRIBUTION}
    assert lookup(sample, "Termin", source="de") == lookup(sample, "Termin", source="") == lookup(sample, "Termin")


@pytest.mark.parametrize("q, found", [
    ("termin", [TERMIN_ADV]),                          # as written: the lower-case headword alone
    ("TERMIN", [TERMIN, TERMIN_ADM, TERMIN_ADV]),       # none as written: every case, richest line first
    ("der Termin", [TERMIN, TERMIN_ADM]),               # the article dropped
    ("  Termin \t", [TERMIN, TERMIN_ADM]),
    ("Termine", [{**TERMIN, "match": "form"}, {**TERMIN_ADM, "match": "form"}]),  # the plural Ding lists
])
def test_case_articles_and_plurals(sample, q, found):
    answer = lookup(sample, q)
    assert answer["entries"] == found and answer["query"] == " ".join(q.split())


@pytest.mark.parametrize("q, headword, match, forms", [
    ("Verabredungen", "Verabredung", "form", ["Verabredungen"]),    # the plural of the second headword
    ("gegessen", "essen", "form", ["essend", "gegessen", "ich esse", "ich/er/sie aß"]),
    ("aß", "essen", "form", ["essend", "gegessen", "ich esse", "ich/er/sie aß"]),  # not "Ass": no case folding
    ("macht ab", "etw. abmachen", "form", ["abmachend", "abgemacht", "macht ab"]),  # a separable verb's form
    ("vereinbart", "vereinbaren", "form", ["vereinbarend", "vereinbart", "vereinbart"]),
    ("abmachen", "etw. abmachen", "headword", ["abmachend", "abgemacht", "macht ab"]),  # "etw." is no word
    ("besten", "gut", "form", ["besser", "am besten"]),
    ("Guten Morgen", "Guten Morgen!", "headword", []),                # punctuation at the ends ignored
])
def test_listed_forms_and_headwords(sample, q, headword, match, forms):
    [entry] = lookup(sample, q)["entries"]
    assert (entry["headword"], entry["match"], entry["forms"]) == (headword, match, forms)


def test_verbs_and_their_examples(sample):
    [entry] = lookup(sample, "essen")["entries"]
    assert entry == {"headword": "essen", "word_class": "intransitive verb, transitive verb", "gender": None,
                     "labels": [], "forms": ["essend", "gegessen", "ich esse", "ich/er/sie aß"],
                     "senses": ["to eat"], "synonyms": [],
                     "phrases": [{"de": "zu Hause essen", "en": "to eat at home"}],
                     "examples": [{"de": "Wir essen um sieben.", "en": "We eat at seven."}], "match": "headword"}
    [untagged] = lookup(sample, "vereinbaren")["entries"]
    assert untagged["word_class"] == "transitive verb"  # the tag on the sub-entry's last headword


@pytest.mark.parametrize("q", ["Baum", "Häuser", "Haus", "a line", "sieben", "Hause"])
def test_nothing_found_is_an_empty_list(sample, q):
    # Häuser, Haus: a misaligned line is left out; words of phrases and examples are no headwords
    assert lookup(sample, q) == {"query": q, "source": "de", "entries": [], **ATTRIBUTION}


def test_text_is_data(sample):
    [entry] = lookup(sample, "Fisch & Chips")["entries"]
    assert (entry["headword"], entry["word_class"], entry["senses"]) == ("Fisch & Chips", "noun (plural)",
                                                                          ["fish & chips"])
    html = sample.get("/", query_string={"q": "Fisch & Chips"}).get_data(as_text=True)
    assert '<strong class="dict-headword" lang="de">Fisch &amp; Chips</strong>' in html


@pytest.mark.parametrize("query, message", [
    ({}, "Invalid request: missing q parameter"),
    ({"q": ""}, "Invalid request: missing q parameter"),
    ({"q": " \t "}, "Invalid request: q is blank"),
    ({"q": "ein Termin am Montag"}, "Invalid request: q has 4 words; the dictionary looks up at most 3"),
    ({"q": "x" * 101}, "Invalid request: q has 101 characters; the dictionary looks up at most 100"),
    ({"q": "Ter\x07min"}, "Invalid request: q contains a control character (U+0007)"),
])
def test_errors(sample, query, message):
    response = sample.get("/api/dictionary", query_string=query)
    assert (response.status_code, response.get_json()) == (400, {"error": message})


# ------------------------------------------------------------------------------ English (source=en)

APPOINTMENT = {"headword": "appointment (arrangement to meet)", "word_class": "noun", "gender": None, "labels": [],
               "forms": ["appointments"], "senses": ["Termin", "Verabredung"], "synonyms": [],
               "phrases": [{"de": "einen Termin absagen", "en": "to cancel an appointment"}],
               "examples": [{"de": "Ich habe morgen einen Termin.", "en": "I have an appointment tomorrow."}],
               "match": "headword"}
CANCEL = {"headword": "to cancel sth.", "word_class": "transitive verb, intransitive verb", "gender": None,
          "labels": [], "forms": ["cancelling", "cancelled", "he/she cancels"], "senses": ["absagen"],
          "synonyms": ["to call off sth."], "phrases": [], "examples": [], "match": "headword"}


def test_appointment_in_english_exactly(sample):
    # the English headword, the German senses; phrases and examples keep "de" and "en" as they are
    assert lookup(sample, "appointment", source="en") == {
        "query": "appointment", "source": "en", "entries": [APPOINTMENT], **ATTRIBUTION}
    assert lookup(sample, "appointment")["entries"] == []  # German by default


@pytest.mark.parametrize("q, found", [
    ("the appointment", [APPOINTMENT]),
    ("An appointment", [APPOINTMENT]),
    ("appointments", [{**APPOINTMENT, "match": "form"}]),
    ("cancel", [CANCEL]),
    ("to cancel", [CANCEL]),
    ("cancelled", [{**CANCEL, "match": "form"}]),
    ("Termin", []),
    ("cancel an appointment", []),      # words of a phrase are no headword
])
def test_english_to_and_articles(sample, q, found):
    assert lookup(sample, q, source="en")["entries"] == found


def test_the_panel_function_looks_up_either_source(sample_app):
    with sample_app.test_request_context():
        assert panel("appointment", source="en")["entries"] == [APPOINTMENT]
        assert panel("Termin")["entries"] == [TERMIN, TERMIN_ADM] and panel("Termin", "en")["entries"] == []
        assert panel("ein Termin am Montag", "en") is None
        with pytest.raises(ValueError, match="^source must be de or en, got 'fr'$"):
            panel("Termin", "fr")


def test_the_english_index_is_built_at_the_start_where_english_is_translated(app_config, tiny_checkpoint,
                                                                               reverse_checkpoint):
    both = create_app({**app_config, "DICTIONARY_PATH": str(SAMPLE), "MODEL_PATH": DEFAULTS["MODEL_PATH"],
                       "MODEL_PATHS": f"de-en:{tiny_checkpoint},en-de:{reverse_checkpoint}"})
    indexes = both.extensions["dictionary"].indexes
    assert {source: index.source for source, index in indexes.items()} == {"de": "de", "en": "en"}
    assert indexes["en"] is load_dictionary(SAMPLE, "en") and indexes["de"] is load_dictionary(SAMPLE)


def test_else_by_the_first_english_lookup(make_app):
    app = make_app(DICTIONARY_PATH=str(SAMPLE))
    indexes = app.extensions["dictionary"].indexes
    assert list(indexes) == ["de"]
    response = app.test_client().get("/api/dictionary", query_string={"q": "appointment", "source": "en"})
    assert response.status_code == 200 and response.get_json()["entries"] == [APPOINTMENT]
    assert indexes["en"] is load_dictionary(SAMPLE, "en")


@pytest.mark.parametrize("source, message", [
    ("fr", "Invalid request: source must be de or en, got 'fr'"),
    ("EN", "Invalid request: source must be de or en, got 'EN'"),
    ("auto", "Invalid request: source must be de or en, got 'auto'"),
    ("e\x07n", "Invalid request: source must be de or en, got 'e\\x07n'"),
    ("x" * 41, f"Invalid request: source must be de or en, got '{'x' * 40}…'"),
])
def test_a_source_other_than_de_or_en_is_a_400(sample, source, message):
    response = sample.get("/api/dictionary", query_string={"q": "Termin", "source": source})
    assert (response.status_code, response.get_json()) == (400, {"error": message})


def test_the_spec_documents_source():
    [q, source] = document()["paths"]["/api/dictionary"]["get"]["parameters"]
    assert (q["name"], source["name"], source["required"], source["schema"]) == (
        "q", "source", False, {"type": "string", "enum": ["de", "en"], "default": "de"})


def test_q_is_checked_before_source(sample):
    response = sample.get("/api/dictionary", query_string={"source": "fr"})
    assert (response.status_code, response.get_json()) == (400, {"error": "Invalid request: missing q parameter"})


def test_only_get(sample):
    response = sample.post("/api/dictionary", json={"q": "Termin"})
    assert (response.status_code, response.get_json()) == (405, {"error": "Method POST not allowed; use GET"})


@needs_ding
def test_termin_in_debians_ding(client):
    answer = lookup(client, "Termin")
    assert answer["attribution"] == ATTRIBUTION["attribution"] and answer["license"] == "GPL-2.0-or-later"
    first = answer["entries"][0]
    assert (first["headword"], first["word_class"], first["gender"], first["match"]) == ("Termin", "noun", "m", "headword")
    assert "Termine" in first["forms"] and "Verabredung" in first["synonyms"]
    assert any(sense.startswith("appointment") for sense in first["senses"])
    assert {"de": "Ich muss diesen Termin absagen.", "en": "I’ll have to cancel this appointment."} in first["examples"]
    assert len(answer["entries"]) >= 5 and all(e["headword"].startswith(("Termin", "(")) for e in answer["entries"])
    assert [e["headword"] for e in lookup(client, "gegessen")["entries"]][:1] == ["essen"]


@needs_ding
def test_appointment_in_debians_ding(client):
    answer = lookup(client, "appointment", source="en")
    first = answer["entries"][0]
    assert (first["headword"], first["word_class"], first["gender"], first["match"]) == (
        "appointment (arrangement to meet with sb.)", "noun", None, "headword")
    assert "Termin" in first["senses"] and "appointments" in first["forms"]
    assert all(e["headword"].startswith("appointment") for e in answer["entries"])
    assert [e["headword"] for e in lookup(client, "cancel", source="en")["entries"]][:1] == ["to cancel sth."]


# ------------------------------------------------------------------------------ the setting

def test_empty_path_turns_it_off(off):
    response = off.get("/api/dictionary", query_string={"q": "Termin"})
    assert (response.status_code, response.get_json()) == (404, {"error": "The dictionary is off: DICTIONARY_PATH is empty"})
    assert off.get("/api/dictionary", query_string={"q": "Termin", "source": "fr"}).status_code == 404
    assert off.get("/api/dictionary").status_code == 404  # off first, whatever q is
    html = off.get("/", query_string={"q": "Termin"}).get_data(as_text=True)
    assert 'id="dictionary"' not in html and "dictionary.js" not in html and "Frank Richter" not in html


def test_without_the_package_it_is_off(app_config, monkeypatch, tmp_path):
    missing = str(tmp_path / "trans" / "de-en")
    monkeypatch.setitem(DEFAULTS, "DICTIONARY_PATH", missing)  # the default path, as on a machine without the package
    client = create_app({**app_config, "DICTIONARY_PATH": missing}).test_client()
    response = client.get("/api/dictionary", query_string={"q": "Termin"})
    assert (response.status_code, response.get_json()) == (404, {"error": (
        "The dictionary is not installed on this server: it needs Debian's trans-de-en package "
        f"(DICTIONARY_PATH, {missing})")})
    assert 'id="dictionary"' not in client.get("/?q=Termin").get_data(as_text=True)


def test_a_path_set_but_missing_or_not_ding_stops_the_start(app_config, tmp_path):
    with pytest.raises(StartupError, match=r"^DICTIONARY_PATH: no such file: '/nowhere/de-en'$"):
        create_app({**app_config, "DICTIONARY_PATH": "/nowhere/de-en"})
    other = tmp_path / "words.txt"
    other.write_text("Termin\tappointment\n", encoding="utf-8")
    with pytest.raises(StartupError) as info:
        create_app({**app_config, "DICTIONARY_PATH": str(other)})
    assert str(info.value) == (f"DICTIONARY_PATH: cannot read {str(other)!r} as a Ding dictionary: "
                               f"not a Ding dictionary (no 'German :: English' line): {os.path.abspath(other)!r}")


def test_loaded_once_per_file_version(tmp_path):
    copy = tmp_path / "de-en"
    copy.write_bytes(SAMPLE.read_bytes())
    first = load_dictionary(copy)
    assert load_dictionary(copy) is first and first.version == "test 2026-11-25"
    copy.write_bytes(SAMPLE.read_bytes() + "Baum {m} | Bäume {pl} :: tree | trees\n".encode())
    again = load_dictionary(copy)
    assert again is not first and [e.senses for e in again.lookup("Bäume")] == [("tree",)]


def test_the_index_reads_the_file_it_indexed(tmp_path):
    # dpkg replaces a file by renaming a new one over it: the index keeps reading the old one
    path = tmp_path / "de-en"
    path.write_bytes(SAMPLE.read_bytes())
    index = DingDictionary(path)
    replacement = tmp_path / "new"
    replacement.write_text("Baum {m} :: tree\n", encoding="utf-8")
    os.replace(replacement, path)
    assert [e.headword for e in index.lookup("Termin")] == ["Termin", "Termin"]
    index.close()


def test_line_keys():
    assert line_keys("etw. abmachen; vereinbaren {vt} | abmachend; vereinbarend | abgemacht; vereinbart | macht ab; "
                     "vereinbart :: to agree on sth. | agreeing | agreed | agrees") == {
        "abmachen", "vereinbaren", "abmachend", "vereinbarend", "abgemacht", "vereinbart", "macht ab"}
    assert line_keys("sich beeilen {vr} | sich beeilend | er/sie beeilt sich :: to hurry | hurrying | he/she hurries") == {
        "sich beeilen", "beeilen", "sich beeilend", "beeilend", "beeilt sich"}  # not "er/sie ...": a slash
    assert line_keys("# comment :: no") == set() and line_keys("A | B :: a") == set()


# ------------------------------------------------------------------------------ the page

def test_the_panel_beside_the_translation(sample):
    html = sample.get("/", query_string={"q": "Termin"}).get_data(as_text=True)
    assert panel_tag(html) == ('<section id="dictionary" class="dictionary" aria-labelledby="dictionary-title" '
                               'data-query="Termin" data-max-words="3" data-max-chars="100" data-shown="5">')
    assert "dictionary.js" in html
    assert '<strong class="dict-headword" lang="de">Termin</strong> <span class="dict-class">noun, masculine</span>' in html
    assert '<p class="dict-senses" lang="en">appointment (arrangement to meet)</p>' in html
    assert '<span class="dict-key">Plural:</span> <span lang="de">Termine</span>' in html
    assert ('<li><span lang="de">Ich habe morgen einen Termin.</span><span class="dict-arrow" aria-hidden="true"> → '
            '</span><span class="visually-hidden">: </span><span lang="en">I have an appointment tomorrow.</span></li>') in html
    assert "<summary>Phrases (1)</summary>" in html and '<span class="dict-label">[adm.]</span>' in html
    assert ("Ding German–English dictionary, © Frank Richter, TU Chemnitz (https://dict.tu-chemnitz.de/). Licence:\n"
            "      GPL-2.0-or-later.</p>") in html
    assert 'id="dictionary-more" class="dict-more" hidden' in html  # two entries: nothing more


def test_the_panel_says_when_nothing_is_found_and_hides_for_longer_texts(sample):
    html = sample.get("/", query_string={"q": "Baum"}).get_data(as_text=True)
    assert "No dictionary entry for “Baum”." in html and 'data-query="Baum"' in html
    for page in ("/?q=Wo+ist+der+Bahnhof%3F", "/"):
        html = sample.get(page).get_data(as_text=True)
        assert " hidden data-query=\"\" " in panel_tag(html) and 'class="dict-entry"' not in html


def test_more_than_five_entries_go_under_more(sample_app, monkeypatch):
    from model.data.ding import DictionaryEntry

    entries = [DictionaryEntry(f"Wort{i}", None, None, (), (), (f"word {i}",), (), (), (), "headword") for i in range(7)]
    monkeypatch.setattr(sample_app.extensions["dictionary"].index, "lookup", lambda text: entries)
    html = sample_app.test_client().get("/", query_string={"q": "Wort"}).get_data(as_text=True)
    assert html.count('class="dict-entry"') == 7
    assert '<summary>More entries (<span id="dictionary-more-count">2</span>)</summary>' in html
    assert re.search(r'<details id="dictionary-more" class="dict-more"\s*>', html)


def test_its_place_names_are_the_pipelines(app_config, tmp_path, off):
    # the translation pipeline writes the dictionary's place names in English ("Köln" -> "Cologne")
    ding = tmp_path / "de-en"
    ding.write_text(SAMPLE.read_text(encoding="utf-8")
                    + "Köln (Stadt in Deutschland) [geogr.] :: Cologne (city in Germany)\n", encoding="utf-8")
    app = create_app({**app_config, "DICTIONARY_PATH": str(ding)})
    with app.app_context():
        assert get_service().pipeline.places == {"Köln": "Cologne"}
    with off.application.app_context():
        assert get_service().pipeline.places == {}          # dictionary off: no place names
