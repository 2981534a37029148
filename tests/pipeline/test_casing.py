"""pipeline/casing.py: recognizing ALL CAPS, headline and lower-case style, and putting outputs into it."""

import random

import pytest

from pipeline.casing import (
    apply_style, augment_case, capital_start, respellings, sharp_s_regions, style, title_case, truecase,
)


@pytest.mark.parametrize("text, expected", [
    ("NOTAUSGANG FREIHALTEN.", "upper"),
    ("BITTE NICHT STÖREN!", "upper"),
    ("STRASSE GESPERRT ⦅N1⦆", "upper"),
    ("USA", "upper"),
    ("OK", "normal"),                                   # too short to tell
    ("Die USA und die EU.", "normal"),
    ("Neue Regeln Für Den Bahnverkehr", "title"),
    ("Das Ist Ein Test", "title"),
    ("Die Kinder Berlins", "normal"),                   # nouns are capitalized in German anyway
    ("Das ist gut.", "normal"),
    ("", "normal"),
    ("⦅X1⦆ ⦅N1⦆", "normal"),
    ("hast du morgen zeit?", "lower"),
    ("das kostet ⦅N1⦆ euro", "lower"),
    ("danke schön", "normal"),                          # too short to tell
    ("leider funktioniert die Heizung nicht.", "normal"),  # a lower-case start only: capital_start
    ("ok 123 456 789", "normal"),                       # one word
])
def test_style(text, expected):
    assert style(text) == expected


@pytest.mark.parametrize("output, text_style, expected", [
    ("Keep the emergency exit clear.", "upper", "KEEP THE EMERGENCY EXIT CLEAR."),
    ("Call ⦅N1⦆ now.", "upper", "CALL ⦅N1⦆ NOW."),
    ("new rules for the rail traffic", "title", "New Rules for the Rail Traffic"),
    ("a guide to the city of the future", "title", "A Guide to the City of the Future"),
    ("It's done.", "normal", "It's done."),
    ("Do you have time tomorrow?", "lower", "Do you have time tomorrow?"),  # English capitalizes
])
def test_apply_style(output, text_style, expected):
    assert apply_style(output, text_style) == expected


def test_apply_style_rejects_unknown_style():
    with pytest.raises(ValueError, match=r"^style must be one of normal, upper, title, lower, got 'shout'$"):
        apply_style("x", "shout")


@pytest.mark.parametrize("text, expected", [
    ("leider funktioniert die Heizung nicht.", "Leider funktioniert die Heizung nicht."),
    ("„ich komme morgen“, sagte sie.", "„Ich komme morgen“, sagte sie."),
    ("  über ⦅N1⦆ Leute kamen.", "  Über ⦅N1⦆ Leute kamen."),
    ("Leider nicht.", "Leider nicht."),
    ("iPhone ist kaputt.", "iPhone ist kaputt."),         # a capital inside: a name as written
    ("eBay hat geschrieben.", "eBay hat geschrieben."),
    ("e-Mail ist da.", "e-Mail ist da."),
    ("⦅N1⦆ kommen morgen.", "⦅N1⦆ kommen morgen."),
    ("3 äpfel", "3 äpfel"),
    ("", ""),
])
def test_capital_start(text, expected):
    assert capital_start(text) == expected
    assert len(capital_start(text)) == len(text)


def test_title_case():
    assert title_case("don't stop me now") == "Don't Stop Me Now"


# How a vocabulary encodes words: (pieces, log-probability); unknown words fall apart into letters.
VOCABULARY = {"habe": (1, -6.0), "Habe": (1, -8.7), "keine": (1, -7.3), "Keine": (1, -10.2),
              "zeit": (2, -15.0), "Zeit": (1, -7.4),
              "morgen": (1, -8.1), "Morgen": (1, -8.8), "neue": (1, -9.0), "Neue": (2, -16.3),
              "notausgang": (3, -31.2), "Notausgang": (3, -27.5), "freihalten": (3, -25.0), "Freihalten": (3, -26.1)}


def pieces(word):
    return VOCABULARY.get(word, (len(word), -5.0 * len(word)))


@pytest.mark.parametrize("text, expected", [
    ("ICH HABE KEINE ZEIT.", "Ich habe keine Zeit."),       # fewer pieces win
    ("BITTE NOTAUSGANG FREIHALTEN", "Bitte Notausgang freihalten"),  # as many pieces: the likelier
    ("ES GEHT UM XYZQ", "Es geht um xyzq"),                  # an exact tie: lower case
    ("Die Neue Zeit", "Die neue Zeit"),
    ("BIS MORGEN ⦅N1⦆!", "Bis morgen ⦅N1⦆!"),                 # one piece each: the likelier; placeholders kept
    ("„HALT!“", "„Halt!“"),
    ("", ""),
])
def test_truecase_follows_the_vocabulary(text, expected):
    assert truecase(text, pieces) == expected


@pytest.mark.parametrize("text, expected", [
    ("bitte notausgang freihalten", "bitte Notausgang freihalten"),   # the first word as the others
    ("zeit für mich", "Zeit für mich"),                              # a noun first is still one
    ("ICH HABE ZEIT", "ich habe Zeit"),
])
def test_truecase_without_a_capital_first(text, expected):
    assert truecase(text, pieces, capital_first=False) == expected


def test_truecase_with_a_real_vocabulary(release_checkpoint):
    from model.inference.translator import Translator

    tokenizer = Translator.from_checkpoint(release_checkpoint, "cpu").tokenizer
    assert truecase("NOTAUSGANG FREIHALTEN.", tokenizer.score) == "Notausgang freihalten."
    assert truecase("DER ZUG FÄHRT HEUTE NICHT.", tokenizer.score) == "Der Zug fährt heute nicht."
    assert truecase("Wie Man Einen Kuchen Backt", tokenizer.score) == "Wie man einen Kuchen backt"
    for upper, expected in [("ICH WEISS, DASS DIE STRASSE ZU GROSS IST.", "Ich weiß, dass die Straße zu groß ist."),
                            ("BITTE DIE TÜR SCHLIESSEN!", "Bitte die Tür schließen!"),
                            ("WIR MÜSSEN ESSEN, ES MACHT SPASS", "Wir müssen essen, es macht Spaß"),
                            ("VIELE GRÜSSE AUS DER FUSSGÄNGERZONE", "Viele Grüße aus der Fußgängerzone")]:
        assert truecase(upper, tokenizer.score, sharp_s=True) == expected


@pytest.mark.parametrize("word, expected", [
    ("strasse", ["strasse", "straße"]),
    ("schlossstrasse", ["schlossstrasse", "schloßstrasse", "schlossstraße", "schloßstraße"]),
    ("ssd", ["ssd"]),                                                 # no word starts with ß
    ("haus", ["haus"]),
    ("assassassassassa", ["assassassassassa"]),                       # more than four: as written
])
def test_respellings(word, expected):
    assert respellings(word) == expected


# ß against ss: (pieces, log-probability), as a real vocabulary has them (tests below use one)
SPELLINGS = {"Straße": (1, -9.4), "Strasse": (3, -22.5), "straße": (2, -14.2), "strasse": (3, -21.9),
             "dass": (1, -6.1), "daß": (2, -17.2), "Gruß": (3, -23.1), "Gruss": (3, -21.1),
             "gruß": (3, -24.0), "gruss": (3, -22.0)}


def spelling_pieces(word):
    return SPELLINGS.get(word, pieces(word))


@pytest.mark.parametrize("text, known, expected", [
    ("DIE STRASSE", None, "Die Straße"),          # fewer pieces, and Capitalized in fewer still
    ("SO DASS", None, "So dass"),                 # ss in fewer pieces
    ("VIELE GRUSS", None, "Viele Gruss"),         # as many pieces: the likelier
    ("VIELE GRUSS", {"Gruß"}, "Viele Gruß"),      # the lexicon knows it: that spelling
    ("STRAẞE", None, "Straße"),                   # the capital ß is lower-cased as it is
])
def test_truecase_writes_sharp_s_where_the_vocabulary_has_it(text, known, expected):
    known_word = (lambda word: word in known) if known else None
    assert truecase(text, spelling_pieces, known=known_word, sharp_s=True) == expected
    assert truecase("DIE STRASSE", spelling_pieces) == "Die strasse"  # only when asked (ALL CAPS)


@pytest.mark.parametrize("cased, text, expected", [
    ("Die Straße", "DIE STRASSE", ((8, 9, 8, 10),)),
    ("Schloßstraße ⦅N1⦆", "SCHLOSSSTRASSE ⦅N1⦆", ((5, 6, 5, 7), (10, 11, 11, 13))),
    ("Straße", "STRAẞE", ()),                    # ẞ -> ß keeps the length
    ("Die Strasse", "DIE STRASSE", ()),
    ("i̇stanbul", "İSTANBUL", None),              # İ lower-cases to two characters
    ("Die Straße", "DIE WEG", None),
])
def test_sharp_s_regions(cased, text, expected):
    assert sharp_s_regions(cased, text) == expected


def test_augment_case_shares_and_both_sides():
    rng = random.Random(0)
    pairs = [augment_case("Die Straße ist groß.", "The street is big.", rng, p_upper=0.2, p_title=0.1)
             for _ in range(2000)]
    upper = pairs.count(("DIE STRASSE IST GROSS.", "THE STREET IS BIG."))
    title = pairs.count(("Die Straße Ist Groß.", "The Street Is Big."))
    unchanged = pairs.count(("Die Straße ist groß.", "The street is big."))
    assert upper + title + unchanged == 2000
    assert 340 <= upper <= 460 and 150 <= title <= 250
    assert augment_case("a", "b", random.Random(0), p_upper=0.0, p_title=0.0) == ("a", "b")
