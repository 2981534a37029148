"""pipeline/rules/names.py: the capitalized words the model's lexicon does not know, full names,
surnames, places and countries with their article, as name spans."""

from __future__ import annotations

import pytest

from model.data.ding import Places
from model.data.lexicon import Lexicon
from pipeline.rules.names import leading_preposition, with_names
from pipeline.rules.verbatim import find_spans
from pipeline.spans import Span, mask
from tests.pipeline.rules.helpers import restore


@pytest.mark.parametrize("text, names", [
    ("Wie geht es dir, Anna?", ["Anna"]),
    ("Anna kommt morgen.", ["Anna"]),                         # at the start too, when unknown in any case
    ("Heute kommt Anna.", ["Anna"]),                          # "Heute" is known in lower case at the start
    ("Sag Björn und Ayşe: Kowalczyk zahlt.", ["Björn", "Ayşe", "Kowalczyk"]),
    ("Die Katze von Müller-Lüdenscheidt schläft.", ["Müller-Lüdenscheidt"]),
    ("Schick es an anna@example.de oder https://Anna.de/Anna.", []),  # inside other spans: theirs
    ("Das ist gut. Heute schläft Anna.", ["Anna"]),           # after a full stop, "Heute" is initial
    ("Das sagte „Heute“ nicht.", []),                         # after an opening quote too
    ("Ich mag die NASA und Ämter.", ["NASA"]),                # acronyms, unknown ones carried too
    ("Wir sehen uns in Berlin, A.", ["Berlin"]),              # single letters never
])
def test_with_names(text, names):
    lexicon = Lexicon(["Liebe", "wie", "geht", "es", "dir", "kommt", "morgen", "heute", "Sag", "und", "zahlt",
                       "Die", "Katze", "von", "schläft", "Schick", "an", "oder", "Das", "ist", "gut", "sagte", "Wie",
                       "nicht", "Ich", "mag", "die", "Ämter", "Wir", "sehen", "uns", "in"])
    spans = find_spans(text)
    found = with_names(text, spans, lexicon.knows)
    assert [s.text for s in found if s.kind == "name"] == names
    assert [s for s in found if s.kind != "name"] == spans
    assert all(s.family == "X" and text[s.start:s.end] == s.text for s in found if s.kind == "name")
    assert [s.start for s in found] == sorted(s.start for s in found)


# What a German dictionary reads (as Coverage.reads does with Ding): these words, and compounds
# ending in them.
READ = {"Kauf", "Kaufes", "Pack", "Packs", "Rechnung", "Belag", "Beläge", "Bremse", "Vogel", "Anna", "Wagen",
        "ostfriesischer", "finnische", "ernst"}


def reads(word: str) -> bool:
    return word in READ or any(word[k:].capitalize() in READ for k in range(3, len(word) - 3))


@pytest.mark.parametrize("text, names", [
    # German the model has not seen is no name: carried over, it stayed German in the English
    ("Die Akkupacks und die Rechnung des Kaufes.", []),
    ("Die Bremsbeläge sind neu.", []),
    # evidence of a name: the name tables, the lexicon's names, capitals; no dictionary reading
    ("Vogel und Anna kommen mit Kowalczyk.", ["Vogel", "Anna", "Kowalczyk"]),
    ("Der Volkswagen und die PACKS.", ["Volkswagen", "PACKS"]),
    # opening a sentence or a label, any word is capitalized: its lower case may be what is read
    ("Ostfriesischer Tee und finnische Sprachen.", []),
    ("Finnische Sprachen. Ostfriesischer Tee.", []),
    ("Der Ostfriesischer und die Finnische.", ["Ostfriesischer", "Finnische"]),   # inside: capitals are evidence
    ("Ernst und Anna kommen.", ["Ernst", "Anna"]),                                # a first name still is one
])
def test_a_word_the_dictionary_reads_is_a_name_only_with_evidence(text, names):
    lexicon = Lexicon(["Die", "und", "die", "des", "sind", "neu", "kommen", "mit", "Der", "Tee", "Sprachen"],
                      names=["Volkswagen"])
    found = with_names(text, find_spans(text), lexicon.knows, reads=reads, named=lexicon.names.__contains__)
    assert [s.text for s in found if s.kind == "name"] == names
    assert [s.text for s in with_names(text, find_spans(text), lexicon.knows) if s.kind == "name"] == [
        w.rstrip(".") for w in text.rstrip(".").split()
        if w[0].isupper() and w.rstrip(".") not in ("Die", "Der", "Tee", "Sprachen")]   # before: all names


@pytest.mark.parametrize("text, names", [
    ("Der ICE 578 nach Hamburg hat Verspätung.", ["ICE 578"]),
    ("Mein Lexus RX 350, Baujahr 2015.", ["Lexus", "RX 350"]),
    ("Flug LH\u00a0454 ist gelandet.", ["LH\u00a0454"]),
    ("Die Operation 16 MOD 6 gibt 4 zurück.", ["MOD 6"]),
    ("Die FDP 10 Prozent, die NFL 100 Jahre, die SPD 20 %.", ["FDP", "NFL", "SPD"]),   # counts of something
    ("Die Zahl XY 3,5 und AB 12.5 und CD 7-8 und EF 9er.", ["XY", "AB", "CD", "EF"]),  # not an integer alone
    ("Ich mag die NASA 2024 und Ämter 5.", ["NASA 2024"]),                               # unknown acronyms only
])
def test_an_unknown_acronym_and_its_number_are_one_name(text, names):
    lexicon = Lexicon(["Der", "nach", "Hamburg", "hat", "Verspätung", "Mein", "Baujahr", "Flug", "ist", "gelandet",
                       "Die", "Operation", "gibt", "zurück", "die", "Prozent", "Jahre", "Zahl", "und", "Ich", "mag",
                       "Ämter"])
    found = with_names(text, find_spans(text), lexicon.knows)
    assert [s.text for s in found if s.kind == "name"] == names
    assert [s.start for s in found] == sorted(s.start for s in found)
    assert all(text[s.start:s.end] == s.text for s in found)


@pytest.mark.parametrize("text, names", [
    ("Ich heiße Jürgen Koch.", ["Jürgen Koch"]),                 # a surname that is also a word
    ("Hallo, ich heisse Klaus Weber!", ["Klaus Weber"]),
    ("Er heißt Thomas Müller und wohnt hier.", ["Thomas Müller"]),
    ("Mein Name ist Koch.", ["Koch"]),
    ("Ich bin Stefan Fischer, der Neue.", ["Stefan Fischer"]),
    ("Ich bin Lehrer.", []),                                     # after "bin", one word is a noun as often
    ("Das heißt Hunger.", []),                                   # "that means"
    ("Was heißt Liebe?", []),
    # more than three: no introduction, but a first name with an unknown word after it, and the lexicon's names
    ("Ich heiße Anna Maria Berta Koch.", ["Anna Maria", "Berta"]),
])
def test_a_person_introducing_themselves_names_themselves(text, names):
    lexicon = Lexicon(["Ich", "heiße", "Hallo", "ich", "heisse", "Er", "heißt", "und", "wohnt", "hier", "Mein",
                       "Name", "ist", "bin", "der", "Neue", "Lehrer", "Das", "Hunger", "Was", "Liebe", "Koch",
                       "Weber", "Müller", "Thomas", "Fischer", "Stefan", "Klaus"])
    found = with_names(text, find_spans(text), lexicon.knows)
    assert [s.text for s in found if s.kind == "name"] == names


@pytest.mark.parametrize("text, names", [
    ("Morgen kommt Sabine Bauer vorbei.", ["Sabine Bauer"]),          # a surname that is also a word
    ("Wir haben Thomas Fischer und Petra Lange eingeladen.", ["Thomas Fischer", "Petra Lange"]),
    ("Gib das bitte Stefan Wagner-Schulz.", ["Stefan Wagner-Schulz"]),  # unknown: a name anyway, now with its first name
    ("Lukas Becker schreibt.", ["Lukas Becker"]),                     # opening the sentence too
    ("Ich habe Anna Blumen geschenkt.", ["Anna"]),                    # a known word, no surname: a noun
    ("Thomas Bücher liegen hier.", []),                               # "Thomas" known, "Bücher" a noun
    ("Der Bauer und der Fischer kommen.", []),                        # no first name: words
])
def test_a_first_name_and_a_surname_are_one_name(text, names):
    lexicon = Lexicon(["Morgen", "kommt", "vorbei", "Wir", "haben", "Thomas", "und", "eingeladen", "Gib", "das",
                       "bitte", "Stefan", "schreibt", "Ich", "habe", "Blumen", "geschenkt", "Bücher", "liegen", "hier",
                       "Der", "der", "kommen", "Bauer", "Fischer", "Lange", "Becker", "Lukas", "Petra", "Sabine"])
    found = with_names(text, find_spans(text), lexicon.knows)
    assert [s.text for s in found if s.kind == "name"] == names


@pytest.mark.parametrize("text, names", [
    ("Koch hat das Spiel entschieden.", ["Koch"]),                    # a singular noun needs an article
    ("Müller meinte, die Lieferung komme morgen.", ["Müller"]),
    ("„Schneider kann heute nicht“, sagte sie.", ["Schneider"]),      # after an opening quote
    ("Fischer muss warten.", ["Fischer"]),                            # a modal verb of _SINGULAR_VERBS
    ("Weber und Schmidt haben das Projekt geleitet.", ["Weber", "Schmidt"]),
    ("„Wir sind zufrieden“, sagte Richter.", ["Richter"]),            # after a reporting verb, before the end
    ("Das war ein Erfolg, so Bauer.", ["Bauer"]),
    ("Der Koch hat gekocht.", []),                                    # an article: the word
    ("Richter sagen oft nein.", []),                                  # a plural verb: judges
    ("Fischer und Jäger leben hier.", []),                            # plurals like their singulars
    ("Fischer Fritz fischt.", []),                                    # not a verb after it
    ("Er ist Koch.", []),                                             # no reporting verb before it
    ("Lange hat es gedauert.", []),                                   # surnames_not_alone.txt
    ("Sommer ist schön.", []),
    ("Heute sagt Bauer nichts.", []),                                 # not the clause's end
])
def test_a_surname_alone_as_a_subject_is_a_name(text, names):
    lexicon = Lexicon(["Koch", "hat", "das", "Spiel", "entschieden", "Müller", "meinte", "die", "Lieferung", "komme",
                       "morgen", "Schneider", "kann", "heute", "nicht", "sagte", "sie", "Fischer", "muss", "warten",
                       "Weber", "und", "Schmidt", "haben", "Projekt", "geleitet", "Wir", "sind", "zufrieden",
                       "Richter", "Das", "war", "ein", "Erfolg", "so", "Bauer", "Der", "gekocht", "sagen", "oft",
                       "nein", "Jäger", "leben", "hier", "Fritz", "fischt", "Er", "ist", "Lange", "es", "gedauert",
                       "Sommer", "schön", "Heute", "sagt", "nichts"])
    found = with_names(text, find_spans(text), lexicon.knows)
    assert [s.text for s in found if s.kind == "name"] == names


@pytest.mark.parametrize("text, expected", [
    ("Die Herrschaft von Philipp II. dauerte lange.", [("Philipp II.", "Philipp II")]),  # the stop is the ordinal's
    ("Ludwig XIV. war König.", [("XIV.", "XIV")]),
    ("Dann kam Christian VI. im Jahr 1766.", [("Christian VI.", "Christian VI")]),
    ("Das war Ludwig XIV.", [("XIV", None)]),                     # the sentence's end: its stop stays
    ("Sie las Kapitel IV. Dann schlief sie.", [("IV", None)]),     # a new sentence after it
    ("Wir trafen Heinrich VIII., den König.", [("VIII", None)]),
    ("Der Film Rocky II. war gut.", [("Rocky", None), ("II.", "II")]),
])
def test_a_regnal_number_s_stop_is_not_written(text, expected):
    lexicon = Lexicon(["Die", "Herrschaft", "von", "Philipp", "dauerte", "lange", "Ludwig", "war", "König", "Dann",
                       "kam", "Christian", "im", "Jahr", "Das", "Sie", "las", "Kapitel", "schlief", "sie", "Wir",
                       "trafen", "Heinrich", "den", "Der", "Film", "gut"])
    found = with_names(text, find_spans(text), lexicon.knows)
    assert [(s.text, s.target) for s in found if s.kind == "name"] == expected


def test_a_name_takes_in_its_unrepresentable_characters():
    text = "Ayşe und Zoë"
    spans = find_spans(text, lambda ch: ch not in "şë")
    assert [(s.kind, s.text) for s in spans] == [("unrepresentable", "ş"), ("unrepresentable", "ë")]
    found = with_names(text, spans, Lexicon(["und"]).knows)
    assert [(s.kind, s.text) for s in found] == [("name", "Ayşe"), ("name", "Zoë")]


@pytest.mark.parametrize("text, expected", [
    ("Ich fahre nach Köln.", [("Köln", "Cologne")]),
    ("Österreichs Hauptstadt ist Wien.", [("Österreichs", "Austria's"), ("Wien", "Vienna")]),
    ("Wien ist die Hauptstadt Österreichs.", [("Wien", "Vienna"), ("Österreichs", "of Austria")]),
    ("Wir treffen Anna in Köln.", [("Anna", None), ("Köln", "Cologne")]),   # a name the lexicon lacks too
    ("Ich esse Kölner Würstchen.", []),                                     # not an adjective of the place
])
def test_places_are_written_in_english(text, expected):
    lexicon = Lexicon(["Ich", "fahre", "nach", "Hauptstadt", "ist", "Wir", "treffen", "in", "esse", "Kölner",
                       "Würstchen", "Köln", "Wien", "Österreich", "Österreichs"])
    places = {"Köln": "Cologne", "Wien": "Vienna", "Österreich": "Austria"}
    found = [s for s in with_names(text, find_spans(text), lexicon.knows, places) if s.kind == "name"]
    assert [(s.text, s.target) for s in found] == expected


@pytest.mark.parametrize("text, expected", [
    ("Ich wohne in der Schweiz.", [("der Schweiz", "Switzerland")]),
    ("Die Türkei ist schön.", [("Die Türkei", "Turkey")]),
    ("Wir fahren in die Türkei.", [("in die Türkei", "to Turkey")]),
    ("In den Irak reist er nicht.", [("In den Irak", "to Iraq")]),
    ("Die Hauptstadt der Türkei ist Ankara.", [("der Türkei", "of Turkey")]),   # a genitive, after a noun
    ("Der Türkei geht es gut.", [("Der Türkei", "Turkey")]),                   # no noun before the article
    ("Er lebt im Irak.", [("Irak", "Iraq")]),                                  # "im": left to the model
    ("Ich fahre nach Köln und in die Schweiz.", [("Köln", "Cologne"), ("in die Schweiz", "to Switzerland")]),
    ("Ich wohne in der Kölner Straße.", []),
    ("Sie fährt auf die Philippinen.", [("Philippinen", "Philippines")]),     # not one of ``countries``
    ("Der Rhein fließt durch Köln.", [("Köln", "Cologne")]),
])
def test_a_country_takes_the_german_article_into_its_span(text, expected):
    lexicon = Lexicon(["Ich", "Er", "Sie", "Wir", "In", "Der", "Die", "Hauptstadt", "Rhein", "Kölner", "Straße", "Ankara"])
    places = Places({"Türkei": "Turkey", "Schweiz": "Switzerland", "Irak": "Iraq", "Köln": "Cologne",
                     "Philippinen": "Philippines"}, countries={"Türkei", "Schweiz", "Irak"})
    found = [s for s in with_names(text, find_spans(text), lexicon.knows, places) if s.kind == "name"]
    assert [(s.text, s.target) for s in found] == expected
    assert all(text[s.start:s.end] == s.text for s in found)


def test_a_plain_mapping_of_places_has_no_countries():
    text = "Ich wohne in der Schweiz."
    found = with_names(text, find_spans(text), lambda word, initial: True, {"Schweiz": "Switzerland"})
    assert [(s.text, s.target) for s in found] == [("Schweiz", "Switzerland")]


def test_a_name_written_in_lower_case_english_is_capitalizable():
    text = "In die Türkei, nach Köln."
    spans = with_names(text, find_spans(text), lambda word, initial: True,
                       Places({"Türkei": "Turkey", "Köln": "Cologne"}, countries={"Türkei"}))
    masked = mask(text, spans)
    assert masked.text == "⦅X1⦆, nach ⦅X2⦆."
    assert masked.slots == {"⦅X1⦆": "to Turkey", "⦅X2⦆": "Cologne"}
    assert masked.capitalizable == {"⦅X1⦆"}


@pytest.mark.parametrize("english, expected", [
    ("of Turkey", "of"), ("to Turkey", "to"), ("Turkey", None), ("of", None), ("in Iraq", None),
])
def test_the_preposition_a_country_phrase_opens_with(english, expected):
    assert leading_preposition(english) == expected


@pytest.mark.parametrize("source, phrase, output, expected", [
    # the 22M model (v3.6) writes the preposition itself: "The capital of of Turkey is Ankara."
    ("Die Hauptstadt der Türkei ist Ankara.", "of Turkey", "The capital of ⦅X1⦆ is Ankara.",
     "The capital of Turkey is Ankara."),
    ("Die Hauptstadt der Türkei ist Ankara.", "of Turkey", "The capital ⦅X1⦆ is Ankara.",
     "The capital of Turkey is Ankara."),
    ("Wir fliegen in die Türkei.", "to Turkey", "We fly to ⦅X1⦆.", "We fly to Turkey."),
    ("Wir fliegen in die Türkei.", "to Turkey", "We fly of ⦅X1⦆.", "We fly of to Turkey."),  # not the same word
    ("Die Türkei ist schön.", "Turkey", "The beauty of ⦅X1⦆.", "The beauty of Turkey."),     # none in the span
    ("Die Hauptstadt der Türkei ist Ankara.", "of Turkey", "Proof ⦅X1⦆.", "Proof of Turkey."),  # "of" in a word
])
def test_restore_drops_a_preposition_the_country_phrase_says(source, phrase, output, expected):
    start = source.lower().index("türkei") - 4  # the article before it
    span = Span(start, start + 10, "name", source[start:start + 10], phrase)
    assert restore(output, mask(source, [span])) == expected
