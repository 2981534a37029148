"""pipeline/spans.py and pipeline/rules/: finding protected spans, masking them with placeholders and
restoring them."""

import pytest

from model.data.ding import Places
from model.data.lexicon import Lexicon
from pipeline.rules import RULES
from pipeline.rules.abbreviations import respell_abbreviations, with_abbreviations
from pipeline.rules.amounts import with_amounts
from pipeline.rules.clock import english_clock_time, oclock_spans, takes_no_oclock, with_clock_times
from pipeline.rules.letters import signature
from pipeline.rules.names import leading_preposition, with_names
from pipeline.rules.ranges import with_ranges
from pipeline.rules.weekdays import with_weekdays
from pipeline.rules.verbatim import find_spans, the_before_date
from pipeline.spans import (
    NUMBER_SLOTS, OTHER_SLOTS, PLACEHOLDER_RE, PLACEHOLDERS, Masked, Span, check, english_number, glued_spans, mask,
    placeholder, slots_needed, words_only,
)
from pipeline.casing import style
from pipeline.words import Restorer


def restore(output, masked):
    """The model's output with the spans restored and every rule's repair made, as the pipeline does."""
    return Restorer(masked, tuple(fix for rule in RULES if (fix := rule.repair(masked)) is not None)).text(output)


def wrong_before(word, english):
    """The words the rules' repairs take out before a span: "the" before a day-first date
    (verbatim), a country phrase's preposition (names)."""
    return the_before_date(word, english) or word.lower() == leading_preposition(english)


def masked(text, representable=None):
    return mask(text, find_spans(text, representable))


def test_placeholders():
    assert (NUMBER_SLOTS, OTHER_SLOTS) == (20, 20)
    assert len(PLACEHOLDERS) == 40 == len(set(PLACEHOLDERS))
    assert PLACEHOLDERS[:2] == ("⦅N1⦆", "⦅N2⦆") and PLACEHOLDERS[19:21] == ("⦅N20⦆", "⦅X1⦆")
    assert PLACEHOLDERS[-1] == placeholder("X", 20) == "⦅X20⦆"
    assert all(PLACEHOLDER_RE.fullmatch(p) for p in PLACEHOLDERS)
    assert PLACEHOLDER_RE.findall("a ⦅N1⦆ b ⦅X12⦆ ⦅Y1⦆ (N1)") == ["⦅N1⦆", "⦅X12⦆"]


@pytest.mark.parametrize("family, index, message", [
    ("Z", 1, "placeholder family must be 'N' or 'X', got 'Z'"),
    ("N", 0, "placeholder index must be an integer in 1..20, got 0"),
    ("X", 21, "placeholder index must be an integer in 1..20, got 21"),
    ("N", True, "placeholder index must be an integer in 1..20, got True"),
])
def test_placeholder_rejects(family, index, message):
    with pytest.raises(ValueError) as error:
        placeholder(family, index)
    assert str(error.value) == message


@pytest.mark.parametrize("text, spans, expected", [
    # URLs: trailing sentence punctuation and unbalanced brackets stay outside
    ("Laden Sie die Datei von https://beispiel.org/daten.zip herunter.",
     [("url", "https://beispiel.org/daten.zip")], "Laden Sie die Datei von ⦅X1⦆ herunter."),
    ("Siehe (https://de.wikipedia.org/wiki/Foo_(Bar)).",
     [("url", "https://de.wikipedia.org/wiki/Foo_(Bar)")], "Siehe (⦅X1⦆)."),
    ("Besuchen Sie www.beispiel.de!", [("url", "www.beispiel.de")], "Besuchen Sie ⦅X1⦆!"),
    ("Quelle: ftp://ftp.example.com/pub/datei.txt;",
     [("url", "ftp://ftp.example.com/pub/datei.txt")], "Quelle: ⦅X1⦆;"),
    ("Gehe zu http://.", [], "Gehe zu http://."),
    # e-mails, handles, hashtags
    ("Schreib an max.mueller@firma.de, bitte.", [("email", "max.mueller@firma.de")],
     "Schreib an ⦅X1⦆, bitte."),
    ("Folgt @tom_m und @anna@mastodon.social!",
     [("handle", "@tom_m"), ("handle", "@anna@mastodon.social")], "Folgt ⦅X1⦆ und ⦅X2⦆!"),
    ("Mehr unter #Urlaub2026 und #COVID-19.",
     [("hashtag", "#Urlaub2026"), ("hashtag", "#COVID-19")], "Mehr unter ⦅X1⦆ und ⦅X2⦆."),
    ("Platz #1", [("number", "1")], "Platz #⦅N1⦆"),
    # emoji: one span per run, ZWJ sequences, flags, skin tones, keycaps, variation selectors
    ("Das war ein toller Abend 🎶", [("emoji", "🎶")], "Das war ein toller Abend ⦅X1⦆"),
    ("Abend🎶🎉!", [("emoji", "🎶🎉")], "Abend⦅X1⦆!"),
    ("Familie 👨\u200d👩\u200d👧 und 🇩🇪🇫🇷 im Urlaub 👍🏽!",
     [("emoji", "👨\u200d👩\u200d👧"), ("emoji", "🇩🇪🇫🇷"), ("emoji", "👍🏽")],
     "Familie ⦅X1⦆ und ⦅X2⦆ im Urlaub ⦅X3⦆!"),
    ("Drücke 1\ufe0f\u20e3 oder #\ufe0f\u20e3.", [("emoji", "1\ufe0f\u20e3"), ("emoji", "#\ufe0f\u20e3")],
     "Drücke ⦅X1⦆ oder ⦅X2⦆."),
    ("Ich ❤\ufe0f dich ☺", [("emoji", "❤\ufe0f"), ("emoji", "☺")], "Ich ⦅X1⦆ dich ⦅X2⦆"),
    # "°" is no emoji; "°C" is a symbol (below)
    ("25 °C und © 2024", [("number", "25"), ("symbol", "°C"), ("emoji", "©"), ("number", "2024")],
     "⦅N1⦆ ⦅X1⦆ und ⦅X2⦆ ⦅N2⦆"),
    # backticks and placeholder lookalikes typed by the user
    ("Tippe `rm -rf /` ein.", [("backticks", "`rm -rf /`")], "Tippe ⦅X1⦆ ein."),
    ("Gib ⦅N1⦆ und ⦅ ein.", [("placeholder", "⦅N1⦆"), ("placeholder", "⦅")], "Gib ⦅X1⦆ und ⦅X2⦆ ein."),
    # numbers; the ordinal dot stays outside
    ("Die Miete beträgt 1.450 Euro im Monat.", [("number", "1.450")],
     "Die Miete beträgt ⦅N1⦆ Euro im Monat."),
    ("250.000 Einwohner, 1.234.567,89 Euro", [("number", "250.000"), ("number", "1.234.567,89")],
     "⦅N1⦆ Einwohner, ⦅N2⦆ Euro"),
    ("42,195 Kilometer, 6,9 Prozent, 3.5 Punkte",
     [("number", "42,195"), ("number", "6,9"), ("number", "3.5")], "⦅N1⦆ Kilometer, ⦅N2⦆ Prozent, ⦅N3⦆ Punkte"),
    ("Es ist -3,5 Grad, ruf +49 30 an.", [("number", "-3,5"), ("number", "+49"), ("number", "30")],
     "Es ist ⦅N1⦆ Grad, ruf ⦅N2⦆ ⦅N3⦆ an."),
    ("Am 3. Mai 1956.", [("date", "3. Mai 1956")], "Am ⦅N1⦆."),       # written "3 May 1956" in English
    ("Bis 3. Mai", [("date", "3. Mai")], "Bis ⦅N1⦆"),                  # at the end of the text too
    ("Version 1.2.3 und 1,2,3", [("number", "1.2.3"), ("number", "1,2,3")], "Version ⦅N1⦆ und ⦅N2⦆"),
    ("Der Wert ist 3.5.", [("number", "3.5")], "Der Wert ist ⦅N1⦆."),
    # dates: a year-less date only when a word follows
    ("Am 23.11.2026 oder 23.11.26 oder 2026-11-23 oder 23/11/2026.",
     [("date", "23.11.2026"), ("date", "23.11.26"), ("date", "2026-11-23"), ("date", "23/11/2026")],
     "Am ⦅N1⦆ oder ⦅N2⦆ oder ⦅N3⦆ oder ⦅N4⦆."),
    ("Ab 1.1. gilt das.", [("date", "1.1.")], "Ab ⦅N1⦆ gilt das."),
    ("Am 32.13.2026", [("number", "32.13.2026")], "Am ⦅N1⦆"),
    # times
    ("um 19:30 Uhr, um 7:05, um 19:30:15 oder 19.30 Uhr",
     [("time", "19:30"), ("time", "7:05"), ("time", "19:30:15"), ("time", "19.30")],
     "um ⦅N1⦆ Uhr, um ⦅N2⦆, um ⦅N3⦆ oder ⦅N4⦆ Uhr"),
    ("Es endete 3:1.", [("number", "3"), ("number", "1")], "Es endete ⦅N1⦆:⦅N2⦆."),
    # codes; words joined to numbers are translated, only their digits protected
    ("Bestellnummer 58213-B", [("code", "58213-B")], "Bestellnummer ⦅N1⦆"),
    ("COVID-19, MP3, A4, B2B, 4/5, 2-3, 3D",
     [("code", t) for t in ("COVID-19", "MP3", "A4", "B2B", "4/5", "2-3", "3D")],
     "⦅N1⦆, ⦅N2⦆, ⦅N3⦆, ⦅N4⦆, ⦅N5⦆, ⦅N6⦆, ⦅N7⦆"),
    ("ISO 9001", [("number", "9001")], "ISO ⦅N1⦆"),
    ("Der 10-jährige Junge, ein 5-Sterne-Hotel, das A4-Blatt",
     [("number", "10"), ("number", "5"), ("code", "A4")],
     "Der ⦅N1⦆-jährige Junge, ein ⦅N2⦆-Sterne-Hotel, das ⦅N3⦆-Blatt"),
    ("In den 20er Jahren lief er 5km.", [("number", "20"), ("number", "5")],
     "In den ⦅N1⦆er Jahren lief er ⦅N2⦆km."),
    # format directives of software strings, as the data layer masks them in training pairs
    ("Die Datei %s wurde nicht gefunden.", [("directive", "%s")], "Die Datei ⦅X1⦆ wurde nicht gefunden."),
    ("Hallo %(user)s, Sie haben %(count)d neue Nachrichten.",
     [("directive", "%(user)s"), ("directive", "%(count)d")], "Hallo ⦅X1⦆, Sie haben ⦅X2⦆ neue Nachrichten."),
    ("Willkommen, {name}! {0:.2f} von %1 in ${HOME} und $(ARG1) mit %5.2f%%",
     [("directive", t) for t in ("{name}", "{0:.2f}", "%1", "${HOME}", "$(ARG1)", "%5.2f", "%%")],
     "Willkommen, ⦅X1⦆! ⦅X2⦆ von ⦅X3⦆ in ⦅X4⦆ und ⦅X5⦆ mit ⦅X6⦆⦅X7⦆"),
    ("Eine 50%ige Lösung, 10 % mehr, 5 $", [("number", "50"), ("number", "10"), ("number", "5")],
     "Eine ⦅N1⦆%ige Lösung, ⦅N2⦆ % mehr, ⦅N3⦆ $"),
    # paths and file names (with a known extension or top-level domain)
    ("Öffnen Sie die Datei config.yaml im Ordner /etc/app.",
     [("filename", "config.yaml"), ("path", "/etc/app")], "Öffnen Sie die Datei ⦅X1⦆ im Ordner ⦅X2⦆."),
    ("Siehe ~/.bashrc, ../docs/ und C:\\Users\\anna\\brief.docx.",
     [("path", "~/.bashrc"), ("path", "../docs/"), ("path", "C:\\Users\\anna\\brief.docx")],
     "Siehe ⦅X1⦆, ⦅X2⦆ und ⦅X3⦆."),
    ("Mehr auf beispiel.de, in README.md und setup.py", [("filename", t) for t in ("beispiel.de", "README.md", "setup.py")],
     "Mehr auf ⦅X1⦆, in ⦅X2⦆ und ⦅X3⦆"),
    ("Ende.der Satz, z.B. und d.h. und/oder", [], "Ende.der Satz, z.B. und d.h. und/oder"),
    # commands up to a German particle, HTML entities in plain text, identifiers
    ("Führen Sie zuerst npm install express aus.", [("command", "npm install express")],
     "Führen Sie zuerst ⦅X1⦆ aus."),
    ("Mit sudo apt-get install -y redis-server und dann git commit -m fix.",
     [("command", "sudo apt-get install -y redis-server"), ("command", "git commit -m fix")],
     "Mit ⦅X1⦆ und dann ⦅X2⦆."),
    ("Bitte cd ins Verzeichnis, make sure", [], "Bitte cd ins Verzeichnis, make sure"),
    ("A &amp; B &#160; C &x", [("entity", "&amp;"), ("entity", "&#160;")], "A ⦅X1⦆ B ⦅X2⦆ C &x"),
    ("Die Variable file_name, getElementById, DataFrame und iPhone.",
     [("identifier", t) for t in ("file_name", "getElementById", "DataFrame", "iPhone")],
     "Die Variable ⦅X1⦆, ⦅X2⦆, ⦅X3⦆ und ⦅X4⦆."),
    ("DER ZUG SCHLIESST DIE TÜREN. Das Auto ist rot.", [], "DER ZUG SCHLIESST DIE TÜREN. Das Auto ist rot."),
    # phone numbers: the groups of one number stay together
    ("Rufen Sie uns unter 0221 9876543 an.", [("phone", "0221 9876543")], "Rufen Sie uns unter ⦅N1⦆ an."),
    ("Tel. +49 221 9876543 oder (030) 123 45 67 oder 030/1234567.",
     [("phone", "+49 221 9876543"), ("phone", "(030) 123 45 67"), ("phone", "030/1234567")],
     "Tel. ⦅N1⦆ oder ⦅N2⦆ oder ⦅N3⦆."),
    ("Die Jahre 2024 2025, Raum 0221 und 1 000", [("number", "2024"), ("number", "2025"), ("number", "0221"),
     ("number", "1"), ("number", "000")], "Die Jahre ⦅N1⦆ ⦅N2⦆, Raum ⦅N3⦆ und ⦅N4⦆ ⦅N5⦆"),
    # signs the model dropped or altered; against a number, spaced for the model
    ("Siehe § 3 BGB.", [("symbol", "§"), ("number", "3")], "Siehe ⦅X1⦆ ⦅N1⦆ BGB."),
    ("Nach §§ 823 ff.", [("symbol", "§§"), ("number", "823")], "Nach ⦅X1⦆ ⦅N1⦆ ff."),
    ("Es kostet ~5 £.", [("symbol", "~"), ("number", "5"), ("symbol", "£")], "Es kostet ⦅X1⦆ ⦅N1⦆ ⦅X2⦆."),
    ("Bei 100°C kocht es.", [("number", "100"), ("symbol", "°C")], "Bei ⦅N1⦆ ⦅X1⦆ kocht es."),
    ("20 °Celsius, Welle ~ Form", [("number", "20")], "⦅N1⦆ °Celsius, Welle ~ Form"),
    # a label in square brackets: its brackets set apart from its words for the model ("[Cancest]")
    ("Klicken Sie auf [Abbrechen].", [("symbol", "["), ("symbol", "]")], "Klicken Sie auf ⦅X1⦆ Abbrechen ⦅X2⦆."),
    ("[Bild auf] oder [OK]", [("phrase", "Bild auf"), ("symbol", "["), ("symbol", "]")], "[⦅X1⦆] oder ⦅X2⦆ OK ⦅X3⦆"),
    ("Liste [1, 2], [Shell [Argument ...]]", [("number", "1"), ("number", "2")],
     "Liste [⦅N1⦆, ⦅N2⦆], [Shell [Argument ...]]"),
    # keys that English names otherwise: a whole combination with a named key is one span
    ("Drücken Sie Strg + Alt + Entf.", [("phrase", "Strg + Alt + Entf")], "Drücken Sie ⦅X1⦆."),
    ("Mit Umschalt+F5 und Strg+Umschalt+Pos1, Alt+F4.",
     [("phrase", "Umschalt+F5"), ("phrase", "Strg+Umschalt+Pos1"), ("phrase", "Alt+F4")], "Mit ⦅X1⦆ und ⦅X2⦆, ⦅X3⦆."),
    ("Halten Sie Strg gedrückt und drücken Sie [Entf].", [("phrase", "Strg"), ("phrase", "Entf")],
     "Halten Sie ⦅X1⦆ gedrückt und drücken Sie [⦅X2⦆]."),
    # not keys: letters or numbers alone, a word that names a key only in a combination
    ("Klasse A+B, am Ende + der Eingabe, 1+2", [("number", "1"), ("number", "2")],
     "Klasse A+B, am Ende + der Eingabe, ⦅N1⦆+⦅N2⦆"),
    # nothing to protect in ordinary German
    ("Straße, Ärger, „Zitat“ – gut… ja", [], "Straße, Ärger, „Zitat“ – gut… ja"),
    ("", [], ""),
])
def test_find_and_mask(text, spans, expected):
    found = find_spans(text)
    assert [(s.kind, s.text) for s in found] == spans
    assert all(text[s.start:s.end] == s.text for s in found)
    assert mask(text, found).text == expected


@pytest.mark.parametrize("text, english", [
    ("Strg + Alt + Entf", "Ctrl + Alt + Del"),
    ("Strg+Umschalt+Pos1", "Ctrl+Shift+Home"),
    ("BefehlStrg+F", "CommandCtrl+F"),  # LibreOffice's help: the Mac's key and the PC's
    ("Umschalt+Leertaste", "Shift+Space"),
    ("[Bild ab]", "Page Down"),
    ("Alt+F4", "Alt+F4"),
])
def test_keys_are_written_in_english(text, english):
    [key] = [s for s in find_spans(text) if s.kind == "phrase"]
    assert key.target == english


def test_unrepresentable_runs_exclude_spaces_and_sentence_marks():
    def representable(ch):
        return ch not in "你好世界"

    text = "Hallo 你好 世界! 你好🎶"
    found = find_spans(text, representable)
    assert [(s.kind, s.text, s.family) for s in found] == [
        ("unrepresentable", "你好", "X"), ("unrepresentable", "世界", "X"),
        ("unrepresentable", "你好", "X"), ("emoji", "🎶", "X")]
    assert mask(text, found).text == "Hallo ⦅X1⦆ ⦅X2⦆! ⦅X1⦆⦅X3⦆"
    assert find_spans(text) == [Span(15, 16, "emoji", "🎶")]


def representable_without_brackets(ch):
    return ch not in "[]{}*!"


@pytest.mark.parametrize("text, spans, masked, glued", [
    # brackets the vocabulary lacks are spans (the model wrote "⁇"); against a word, the mask
    # puts a space between, for the model, and glued_spans names them for the output
    ("Klicke auf [OK].", ["[", "]"], "Klicke auf ⦅X1⦆ OK ⦅X2⦆.", (["⦅X1⦆"], ["⦅X2⦆"])),
    ("Die Menge {a, b} ist leer.", ["{", "}"], "Die Menge ⦅X1⦆ a, b ⦅X2⦆ ist leer.", (["⦅X1⦆"], ["⦅X2⦆"])),
    # spaced as written: nothing to glue ("{ $user }" itself is a directive, one span)
    ("Setze { x } ein.", ["{", "}"], "Setze ⦅X1⦆ x ⦅X2⦆ ein.", ([], [])),
    # not brackets: a symbol stays a span without spaces; a sentence mark the vocabulary lacks
    # ("!") stays the model's
    ("Ein *wichtiger* Hinweis!", ["*", "*"], "Ein ⦅X1⦆wichtiger⦅X1⦆ Hinweis!", ([], [])),
])
def test_brackets_the_vocabulary_lacks(text, spans, masked, glued):
    found = find_spans(text, representable_without_brackets)
    assert [(s.kind, s.text) for s in found] == [("unrepresentable", span) for span in spans]
    result = mask(text, found)
    assert result.text == masked
    assert glued_spans(result) == tuple(frozenset(symbols) for symbols in glued)
    # every word still maps back to where it was written
    start = masked.index(" OK ") + 1 if "OK" in masked else 0
    if start:
        assert result.original_span(start, start + 2) == (text.index("OK"), text.index("OK") + 2)


@pytest.mark.parametrize("german, english", [
    ("250.000", "250,000"), ("1.450", "1,450"), ("1.234.567,89", "1,234,567.89"),
    ("6,9", "6.9"), ("42,195", "42.195"), ("-3,5", "-3.5"), ("+1.000", "+1,000"),
    ("3.5", "3.5"), ("1956", "1956"), ("1.2.3", "1.2.3"), ("1,2,3", "1,2,3"), ("12.34.567", "12.34.567"),
])
def test_english_number(german, english):
    assert english_number(german) == english


@pytest.mark.parametrize("text", ["", "abc", "1.", "1,5 Euro", "1 000"])
def test_english_number_rejects(text):
    with pytest.raises(ValueError) as error:
        english_number(text)
    assert str(error.value) == f"not a number: {text!r}"


@pytest.mark.parametrize("source, output, expected", [
    ("Die Miete beträgt 1.450 Euro im Monat.", "The rent is ⦅N1⦆ euros per month.",
     "The rent is 1,450 euros per month."),
    ("42,195 Kilometer", "⦅N1⦆ kilometers", "42.195 kilometers"),
    ("Bestellnummer 58213-B", "Order number ⦅N1⦆", "Order number 58213-B"),
    ("am 23.11.2026 um 19:30 Uhr", "on ⦅N1⦆ at ⦅N2⦆", "on 23.11.2026 at 19:30"),
    ("Das war ein toller Abend 🎶", "That was a great evening ⦅X1⦆", "That was a great evening 🎶"),
    # restored text that looks like a placeholder is not substituted again
    ("Gib ⦅N1⦆ und 5 ein.", "Enter ⦅X1⦆ and ⦅N1⦆.", "Enter ⦅N1⦆ and 5."),
    # hallucinated placeholders go, with their spaces
    ("Abend🎶", "⦅X4⦆ Evening ⦅X1⦆ ⦅N1⦆.", "Evening 🎶."),
    ("Abend🎶", "Evening ⦅X2⦆ ⦅X3⦆ now⦅N7⦆", "Evening now"),
    ("Abend🎶", "a ⦅X2⦆b, c⦅X3⦆ d, e⦅X9⦆f", "a b, c d, ef"),
    ("Abend🎶", "Evening ⦅X1⦆ ⦅X1⦆", "Evening 🎶 🎶"),
    ("Abend", "Evening  ⦅X1⦆  there", "Evening there"),
    ("Abend", "Evening  there", "Evening  there"),
])
def test_restore(source, output, expected):
    assert restore(output, masked(source)) == expected


def test_shared_placeholders_and_slots():
    result = masked("5 Äpfel 🎶 und 5 Birnen 🎶 für 1.450")
    assert result.text == "⦅N1⦆ Äpfel ⦅X1⦆ und ⦅N1⦆ Birnen ⦅X1⦆ für ⦅N2⦆"
    assert result.slots == {"⦅N1⦆": "5", "⦅X1⦆": "🎶", "⦅N2⦆": "1,450"}
    assert result.counts == {"⦅N1⦆": 2, "⦅X1⦆": 2, "⦅N2⦆": 1}
    assert slots_needed(find_spans(result.original)) == {"N": 2, "X": 1}


@pytest.mark.parametrize("output, missing, duplicated", [
    ("⦅N1⦆ apples ⦅X1⦆ and ⦅N1⦆ pears for ⦅N2⦆", [], []),
    ("⦅N1⦆ apples and pears for ⦅N2⦆ ⦅N2⦆ ⦅X7⦆", ["⦅N1⦆", "⦅X1⦆"], ["⦅N2⦆"]),
    ("apples", ["⦅N1⦆", "⦅X1⦆", "⦅N2⦆"], []),
    ("⦅N1⦆ ⦅N1⦆ ⦅N1⦆ ⦅X1⦆ ⦅X1⦆ ⦅N2⦆", [], ["⦅N1⦆", "⦅X1⦆"]),
])
def test_check(output, missing, duplicated):
    assert check(output, masked("5 Äpfel 🎶 und 5 Birnen für 1.450")) == (missing, duplicated)


@pytest.mark.parametrize("start, end, expected", [
    (0, 2, (0, 2)),            # "a " before any placeholder
    (2, 6, (2, 7)),            # exactly ⦅N1⦆ -> "1.450"
    (3, 4, (2, 7)),            # inside a placeholder -> the whole span
    (0, 3, (0, 7)),
    (6, 9, (7, 10)),           # " b " shifted by len("1.450") - len("⦅N1⦆")
    (6, 10, (7, 11)),          # reaching into ⦅X1⦆ -> up to the end of "🎶"
    (13, 15, (11, 13)),
    (0, 15, (0, 13)),
    (6, 6, (7, 7)),
])
def test_original_span(start, end, expected):
    result = masked("a 1.450 b 🎶 c")
    assert result.text == "a ⦅N1⦆ b ⦅X1⦆ c"
    assert result.original_span(start, end) == expected


@pytest.mark.parametrize("start, end", [(-1, 2), (3, 2), (0, 16), (0.0, 1)])
def test_original_span_rejects(start, end):
    with pytest.raises(ValueError) as error:
        masked("a 1.450 b 🎶 c").original_span(start, end)
    assert str(error.value) == f"range must satisfy 0 <= start <= end <= 15, got {(start, end)!r}"


def test_mask_without_spans():
    assert mask("Hallo", []) == Masked("Hallo", "Hallo")
    assert restore("Hello ⦅N1⦆.", Masked("Hallo", "Hallo")) == "Hello."


@pytest.mark.parametrize("family, text", [
    ("N", " ".join(str(i) for i in range(21))),
    ("X", " ".join(f"@user{i}" for i in range(21))),
])
def test_mask_too_many_spans(family, text):
    spans = find_spans(text)
    assert slots_needed(spans)[family] == 21
    with pytest.raises(ValueError) as error:
        mask(text, spans)
    assert str(error.value) == f"too many distinct {family!r} spans for 20 placeholders: 21"
    assert mask(text, spans[:20]).text.endswith(f"{placeholder(family, 20)} {spans[20].text}")


@pytest.mark.parametrize("spans", [
    [Span(0, 1, "number", "5")],                                    # text differs
    [Span(2, 3, "number", "1"), Span(2, 3, "number", "1")],         # overlap
    [Span(2, 3, "digits", "1")],                                    # unknown kind
    [Span(3, 3, "number", "")],                                     # empty
    [Span(4, 5, "number", "2"), Span(2, 3, "number", "1")],         # unsorted
])
def test_mask_rejects_foreign_spans(spans):
    with pytest.raises(ValueError) as error:
        mask("a 1 2", spans)
    assert str(error.value).startswith("span does not fit the text or overlaps the previous one: Span(")


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


@pytest.mark.parametrize("text, expected", [
    ("Mit freundlichen Grüßen\nAnna Müller", "Anna Müller"),
    ("Viele Grüße,\n\nThomas Schmidt.", "Thomas Schmidt"),
    ("Danke!\nLG\nPetra", "Petra"),
    ("Beste Grüße\nDein Klaus", "Klaus"),                          # "Dein" is translated: "Your Klaus"
    ("Gute Besserung\nAnna Müller", None),                        # a wish, not a closing that signs
    ("Mit freundlichen Grüßen\nim Auftrag Anna Müller", None),   # not a line of names
    ("Mit freundlichen Grüßen\nAnna Müller und Tom Berg Meier Schulz", None),
    ("Anna Müller", None),                                       # no line before
    ("Wir sehen uns.\nAnna Müller", None),
])
def test_the_line_after_a_closing_is_the_writers_name(text, expected):
    start = text.rfind("\n") + 1
    found = signature(text, start, len(text))
    assert (found.text if found else None) == expected
    if found:
        assert text[start + found.start:start + found.end] == found.text and found.kind == "name"


def test_a_name_takes_in_its_unrepresentable_characters():
    text = "Ayşe und Zoë"
    spans = find_spans(text, lambda ch: ch not in "şë")
    assert [(s.kind, s.text) for s in spans] == [("unrepresentable", "ş"), ("unrepresentable", "ë")]
    found = with_names(text, spans, Lexicon(["und"]).knows)
    assert [(s.kind, s.text) for s in found] == [("name", "Ayşe"), ("name", "Zoë")]


@pytest.mark.parametrize("start, end, expected", [
    (0, 6, (0, 7)),            # "Straße" -> "STRASSE"
    (4, 5, (4, 6)),            # "ß" -> "SS"
    (5, 6, (6, 7)),            # "e" after it, shifted back by one
    (7, 11, (8, 9)),           # ⦅N1⦆ -> "5", its region moved with the text before it
    (12, 16, (10, 15)),        # "groß" -> "GROSS"
    (0, 16, (0, 15)),
])
def test_respelled_maps_back_through_the_changed_lengths(start, end, expected):
    result = masked("STRASSE 5 GROSS")
    assert result.text == "STRASSE ⦅N1⦆ GROSS"
    respelled = result.respelled("Straße ⦅N1⦆ groß", [(4, 5, 4, 6), (15, 16, 16, 18)])
    assert respelled.text == "Straße ⦅N1⦆ groß" and respelled.slots == {"⦅N1⦆": "5"}
    assert respelled.original_span(start, end) == expected
    assert result.text == "STRASSE ⦅N1⦆ GROSS"  # the masked text it came from is unchanged


@pytest.mark.parametrize("text, expected", [
    ("Frau Schmidt kommt.", [("Frau Schmidt", "Ms Schmidt")]),          # a name even when it is a word
    ("Er dankt Herrn Wagner.", [("Herrn Wagner", "Mr Wagner")]),
    ("Gib es Herrn Meier.", [("Herrn Meier", "Mr Meier")]),
    ("Ich gab es der Frau Koch.", [("Frau Koch", "Ms Koch")]),          # after a definite article too
    ("Frau Dr. Koch hat Sprechstunde.", [("Frau Dr. Koch", "Dr Koch")]),
    ("Wir grüßen Herrn Prof. Dr. Weber.", [("Herrn Prof. Dr. Weber", "Professor Weber")]),  # the highest title
    ("Termin bei Prof. Weber", [("Prof. Weber", "Professor Weber")]),
    ("Frau Doktor Koch hat Sprechstunde.", [("Frau Doktor Koch", "Dr Koch")]),  # titles written out
    ("Herr Professor Wagner ist krank.", [("Herr Professor Wagner", "Professor Wagner")]),
    ("Frau Professorin Dr. Meier liest.", [("Frau Professorin Dr. Meier", "Professor Meier")]),
    ("Doktor Schmidt kommt.", [("Doktor Schmidt", "Dr Schmidt")]),
    ("Gib es Prof.Dr. Weber.", [("Prof.Dr. Weber", "Professor Weber")]),
    ("Herr Doktor, kommt er?", []),                                     # a title without a name
    ("Fräulein Rottenmeier ruft.", [("Fräulein Rottenmeier", "Miss Rottenmeier")]),
    ("Das ist Frau Müller-Lüdenscheidt.", [("Frau Müller-Lüdenscheidt", "Ms Müller-Lüdenscheidt")]),
    ("Meine Frau Anna kommt.", [("Anna", None)]),                       # my wife: only the unknown name
    ("Die Frau ist nett.", []),
    ("Frau und Herr", []),                                              # no name after them
])
def test_forms_of_address_are_names_written_in_english(text, expected):
    lexicon = Lexicon(["Schmidt", "Wagner", "Meier", "Koch", "Weber", "kommt", "Hallo", "danke", "Gib", "es",
                       "Ich", "gab", "der", "hat", "Sprechstunde", "Sehr", "geehrter", "Termin", "bei", "ruft",
                       "Das", "ist", "Meine", "Die", "nett", "und", "Frau", "Herr", "Herrn", "Er", "dankt", "Wir",
                       "grüßen", "Doktor", "Professor", "krank", "liest", "Meier"])
    found = [s for s in with_names(text, find_spans(text), lexicon.knows) if s.kind == "name"]
    assert [(s.text, s.target) for s in found] == expected
    assert all(text[s.start:s.end] == s.text for s in found)


@pytest.mark.parametrize("text, expected", [
    # greetings with a name: one span, even when the name is also a word (Tom, Lukas)
    ("Liebe Anna, wie geht es dir?", [("name", "Liebe Anna", "Dear Anna")]),
    ("Hallo Lukas, kommst du?", [("name", "Hallo Lukas", "Hello Lukas")]),
    ("Lieber Tom!", [("name", "Lieber Tom", "Dear Tom")]),
    ("Guten Morgen Anna Schmidt:", [("name", "Guten Morgen Anna Schmidt", "Good morning Anna Schmidt")]),
    ("Liebe Anna und Tom,", [("name", "Liebe Anna und Tom", "Dear Anna and Tom")]),
    ("  „Hi Björn, na?", [("name", "Hi Björn", "Hi Björn")]),
    ("hallo Anna, wie geht es dir?", [("name", "hallo Anna", "Hello Anna")]),  # typed in lower case
    # with a form of address
    ("Sehr geehrte Frau Dr. Koch,", [("name", "Sehr geehrte Frau Dr. Koch", "Dear Dr Koch")]),
    ("Sehr geehrter Herr Prof. Dr. Weber,", [("name", "Sehr geehrter Herr Prof. Dr. Weber", "Dear Professor Weber")]),
    ("Sehr geehrte Frau Doktor Braun,", [("name", "Sehr geehrte Frau Doktor Braun", "Dear Dr Braun")]),
    ("Hallo Herr Wagner, danke!", [("name", "Hallo Herr Wagner", "Hello Mr Wagner")]),
    # people addressed by a noun: in English from a table, the singular after "Lieber" where the
    # noun has one form for both, a repeat said once; beside a name, the whole is a name
    ("Liebe Freunde, wir sehen uns morgen.", [("letter", "Liebe Freunde", "Dear friends")]),
    ("Hallo Mama, ich komme später.", [("letter", "Hallo Mama", "Hello Mom")]),
    ("Lieber Leser!", [("letter", "Lieber Leser", "Dear reader")]),
    ("Liebe Leser!", [("letter", "Liebe Leser", "Dear readers")]),
    ("Liebe Freundinnen und Freunde,", [("letter", "Liebe Freundinnen und Freunde", "Dear friends")]),
    ("Liebe Damen und Herren,", [("letter", "Liebe Damen und Herren", "Dear ladies and gentlemen")]),
    ("Liebe Anna und Freunde,", [("name", "Liebe Anna und Freunde", "Dear Anna and friends")]),
    # set phrases
    ("Sehr geehrte Damen und Herren, ich schreibe Ihnen.", [("letter", "Sehr geehrte Damen und Herren", "Dear Sir or Madam")]),
    ("Hallo zusammen!", [("letter", "Hallo zusammen", "Hello everyone")]),
    ("Hallo Welt!", [("letter", "Hallo Welt", "Hello world")]),
    ("Hallo Welt, wie geht es dir?", [("letter", "Hallo Welt", "Hello world")]),
    ("Mit freundlichen Grüßen", [("letter", "Mit freundlichen Grüßen", "Kind regards")]),
    ("Danke schön, auf Wiedersehen.", [("letter", "Danke schön", "Thank you very much")]),  # thanks, replies
    ("Keine Ursache!", [("letter", "Keine Ursache", "You're welcome")]),
    ("bitte sehr. Ihre Pizza kommt.", [("letter", "bitte sehr", "You're welcome")]),
    ("Danke schön für das Geschenk.", []),                          # a formula only where it ends
    ("Viele Grüße, Anna", [("letter", "Viele Grüße", "Best regards"), ("name", "Anna", None)]),
    ("Liebe Grüße Anna", [("letter", "Liebe Grüße", "Best wishes"), ("name", "Anna", None)]),
    # the writer's name after a closing is a name, even when it is a word too
    ("Mit freundlichen Grüßen Anna Schmidt", [("letter", "Mit freundlichen Grüßen", "Kind regards"),
                                             ("name", "Anna Schmidt", None)]),
    ("Viele Grüße, Tom.", [("letter", "Viele Grüße", "Best regards"), ("name", "Tom", None)]),
    # a line that is only a name is not a formula (a rule for such lines took "Ocotlán Zapotekisch"
    # and "DL Umschlag" of the UI test split too): "Anna Schmidt" is a full name (first_names.txt)
    ("Anna Schmidt", [("name", "Anna Schmidt", None)]),
    ("LG", [("letter", "LG", "Best wishes")]),
    ("mit  freundlichem   Gruß.", [("letter", "mit  freundlichem   Gruß", "Kind regards")]),
    # everyday wishes and goodbyes, also before "und"
    ("Gute Besserung!", [("letter", "Gute Besserung", "Get well soon")]),
    ("Gute Besserung und bis bald!", [("letter", "Gute Besserung", "Get well soon"), ("letter", "bis bald", "see you soon")]),
    ("Viele Grüße und alles Gute, Tom", [("letter", "Viele Grüße", "Best regards"),
                                        ("letter", "alles Gute", "all the best"), ("name", "Tom", None)]),
    ("Gute Besserung und komm bald wieder!", [("letter", "Gute Besserung", "Get well soon")]),
    # ... and after a comma
    ("Liebe Grüße, bis bald, Anna", [("letter", "Liebe Grüße", "Best wishes"), ("letter", "bis bald", "see you soon"),
                                     ("name", "Anna", None)]),
    ("Gern geschehen, tschüss!", [("letter", "Gern geschehen", "You're welcome"), ("letter", "tschüss", "bye")]),
    ("Viele Grüße, bis morgen!", [("letter", "Viele Grüße", "Best regards")]),
    ("Tschüss Tom!", [("letter", "Tschüss", "Bye"), ("name", "Tom", None)]),
    ("Mach’s gut, Lukas.", [("letter", "Mach’s gut", "Take care"), ("name", "Lukas", None)]),
    ("Prost!", [("letter", "Prost", "Cheers")]),
    ("Herzlichen Glückwunsch, gut gemacht!", [("letter", "Herzlichen Glückwunsch", "Congratulations")]),
    ("Einen guten Rutsch ins neue Jahr!", [("letter", "Einen guten Rutsch ins neue Jahr", "Happy New Year")]),
    ("Herzliches Beileid.", [("letter", "Herzliches Beileid", "My condolences")]),
    ("Alles Liebe, Anna", [("letter", "Alles Liebe", "Lots of love"), ("name", "Anna", None)]),
    ("Alles Gute zum Geburtstag!", []),                                   # the model's: "Happy birthday!"
    # not formulas: not at the start, no comma or end after the addressee, no addressee
    ("Ich sage: Liebe Anna, komm!", [("name", "Anna", None)]),
    ("Hallo Anna wie geht es dir", [("name", "Anna", None)]),
    ("Liebe ist schön.", []),
    ("Hallo, wie geht es dir?", []),
    ("Viele Grüße an deine Mutter.", []),
    ("Liebe Grüße aus Berlin", [("name", "Berlin", None)]),
])
def test_letter_formulas_are_written_in_english(text, expected):
    lexicon = Lexicon(["Liebe", "wie", "geht", "es", "dir", "Hallo", "kommst", "du", "Tom", "Lukas", "Freunde", "wir",
                       "sehen", "uns", "morgen", "Mama", "ich", "komme", "später", "schreibe", "Ihnen", "danke", "Ich",
                       "sage", "komm", "ist", "schön", "Viele", "Grüße", "an", "deine", "Mutter", "aus", "na",
                       "Schmidt", "kommt", "Gute", "Besserung", "und", "bis", "bald", "Alles", "zum", "Geburtstag",
                       "auf", "Wiedersehen", "Ihre", "Pizza", "für", "das", "Geschenk"])
    found = with_names(text, find_spans(text), lexicon.knows)
    assert [(s.kind, s.text, s.target) for s in found] == expected
    assert all(text[s.start:s.end] == s.text for s in found)
    for span in found:
        assert span.family == "X"
        assert restore(mask(text, [span]).text, mask(text, [span])) == text.replace(span.text, span.target or span.text, 1)


@pytest.mark.parametrize("text, date, english", [
    ("Ich bin bis zum 15. August im Urlaub.", "15. August", "15 August"),
    ("Am 3. März 2027 ziehen wir um.", "3. März 2027", "3 March 2027"),
    ("Der 01. Mai ist frei.", "01. Mai", "1 May"),
    # a range of days of one month, a dash as written
    ("Ich bin vom 3. bis 5. Mai im Urlaub.", "3. bis 5. Mai", "3 to 5 May"),
    ("Die Messe ist vom 3.–5. März.", "3.–5. März", "3–5 March"),
    ("Vom 10. bis zum 12. Juni 2026 ist zu.", "10. bis zum 12. Juni 2026", "10 to 12 June 2026"),
])
def test_dates_with_a_month_name_are_written_in_english(text, date, english):
    [span] = find_spans(text)
    assert (span.kind, span.text, span.target) == ("date", date, english)
    assert restore(mask(text, [span]).text, mask(text, [span])) == text.replace(date, english)


@pytest.mark.parametrize("text", ["Im August regnet es.", "Es waren 15. Augustiner da.", "Am 40. Mai"])
def test_a_month_without_its_day_is_no_date(text):
    assert [s.kind for s in find_spans(text) if s.kind == "date"] == []


@pytest.mark.parametrize("text, expected", [
    ("Das kostet ca. 5 Euro.", [("ca.", "approx.")]),
    ("Wir treffen uns z. B. am Montag.", [("z. B.", "e.g.")]),
    ("Wir treffen uns z.B. am Montag.", [("z.B.", "e.g.")]),
    ("Das ist u.\u00a0a. wichtig.", [("u.\u00a0a.", "among others")]),           # a no-break space
    ("Z. B. heute, d. h. jetzt.", [("Z. B.", "E.g."), ("d. h.", "i.e.")]),    # capitalized opening a sentence
    ("Er kommt i. d. R. um 8 Uhr.", [("i. d. R.", "as a rule")]),
    ("Altpersisch (ca. 600-400 v.Chr.)", [("ca.", "approx."), ("v.Chr.", "BC")]),
    ("Äpfel, Birnen usw.", [("usw.", "etc.")]),                               # its stop stays its own
    ("Wir brauchen Papier o. Ä.", [("o. Ä", "or similar")]),                  # its stop is the sentence's
    ("Papier o. Ä.“ sagte er", [("o. Ä.", "or similar")]),
    # "MwSt" alone is an identifier span (an inner capital); with its stop, the abbreviation
    ("Der Preis beträgt 19,99 € inkl. MwSt.", [("inkl.", "incl."), ("MwSt", "VAT")]),
    ("Preise zzgl. MwSt. und Versand", [("zzgl.", "plus"), ("MwSt.", "VAT")]),
    ("Enthält 19 % USt.", [("USt", "VAT")]),                                 # its stop is the sentence's
    # only before a number, or after one
    ("Siehe S. 12 ff.", [("S.", "p.")]),
    ("Bitte rufen Sie Nr.\u00a05 an.", [("Nr.", "No.")]),
    ("Das S. ist groß, die Nr. auch, Mio. sind viel.", []),
    ("Der Min. sagte, die Std. sei gut.", []),                                   # Minister, Standard
    ("Das gilt einschl. Juni.", [("einschl.", "incl.")]),
    # not inside a word or another abbreviation, not in upper case, not inside another span
    ("Die Pizza.ca. war gut, bzgl.x nichts.", []),
    ("DAS KOSTET CA. 5 EURO.", []),
    ("Siehe https://ca.example.org/z.B./", []),
])
def test_abbreviations_are_written_in_english(text, expected):
    found = [s for s in with_abbreviations(text, find_spans(text)) if s.kind == "abbreviation"]
    assert [(s.text, s.target) for s in found] == expected
    assert all(text[s.start:s.end] == s.text and s.family == "X" for s in found)


@pytest.mark.parametrize("text, expected, restored", [
    ("Die Firma hat 5 Mio. Euro verdient.", [("5 Mio.", "5 million")], "Die Firma hat 5 million Euro verdient."),
    ("Die Stadt hat 1,2 Mio. Einwohner.", [("1,2 Mio.", "1.2 million")], "Die Stadt hat 1.2 million Einwohner."),
    ("Gewinn 1.250 Mio. Euro, Umsatz 3,5\u00a0Mrd. Euro.", [("1.250 Mio.", "1,250 million"), ("3,5\u00a0Mrd.", "3.5 billion")],
     "Gewinn 1,250 million Euro, Umsatz 3.5 billion Euro."),
    ("Sie verdiente 2 Mio.", [("2 Mio", "2 million")], "Sie verdiente 2 million."),  # its stop is the sentence's
    ("Er verdient 50 Tsd. Euro.", [("50 Tsd.", "50 thousand")], "Er verdient 50 thousand Euro."),
    # units of time: the model kept "2 Std." as it was; one is singular
    ("Ich habe 2 Std. gewartet.", [("2 Std.", "2 hours")], "Ich habe 2 hours gewartet."),
    ("Es dauert 1 Std. und 1,5 Min.", [("1 Std.", "1 hour"), ("1,5 Min", "1.5 minutes")],
     "Es dauert 1 hour und 1.5 minutes."),
    ("Warte 30 Sek. lang", [("30 Sek.", "30 seconds")], "Warte 30 seconds lang"),
])
def test_a_number_and_its_multiplier_are_one_number_span(text, expected, restored):
    """As two spans the model put the noun between them ("5 Mio. Euro" -> "5 euros million")."""
    spans = with_abbreviations(text, find_spans(text))
    assert [(s.text, s.target) for s in spans] == expected
    assert all(s.kind == "number" and s.family == "N" and text[s.start:s.end] == s.text for s in spans)
    masked = mask(text, spans)
    assert not any(word in masked.text for word in ("Mio", "Mrd", "Tsd", "Std", "Min", "Sek"))
    assert restore(masked.text, masked) == restored


@pytest.mark.parametrize("text, expected", [
    ("Lieferung in 3–5 Werktagen", [("number", "3–5", "3–5")]),
    ("Nehmen Sie 1,5 – 2 Tabletten.", [("number", "1,5 – 2", "1.5 – 2")]),       # spaced as written
    ("Seiten 10–15 und 20–1.000", [("number", "10–15", "10–15"), ("number", "20–1.000", "20–1,000")]),
    ("Das kostet 10–15 €.", [("amount", "10–15 €", "€10–15")]),                   # the sign before the range
    ("Das kostet 10 € – 15 €.", [("amount", "10 € – 15 €", "€10 – €15")]),
    ("Das kostet 1,5–2 Mio. €.", [("amount", "1,5–2 Mio. €", "€1.5–2 million")]),
    # hours whose end is a clock time: the start in English beside it
    ("Geöffnet 9–18 Uhr", [("time", "9–18", "9 a.m.–6 p.m.")]),
    ("Ab 20–22 Uhr", [("time", "20–22", "8–10 p.m.")]),
    ("Von 9:30–18:30 Uhr", [("time", "9:30–18:30", "9:30 a.m.–6:30 p.m.")]),
    ("Sprechstunde 8.00 – 12.00 Uhr", [("time", "8.00 – 12.00", "8:00 a.m. – 12:00 p.m.")]),
    # weekdays
    ("Öffnungszeiten: Mo–Fr 9–18 Uhr", [("abbreviation", "Mo–Fr", "Mon–Fri"), ("time", "9–18", "9 a.m.–6 p.m.")]),
    ("Mo.-Fr. geöffnet, Sa/So geschlossen", [("abbreviation", "Mo.-Fr.", "Mon-Fri"), ("abbreviation", "Sa/So", "Sat/Sun")]),
    ("Geöffnet Mo–Fr.", [("abbreviation", "Mo–Fr", "Mon–Fri")]),                     # the stop is the sentence's
    # not a range: a hyphen (one code span already), a dash between words, a morning hour before "Uhr",
    # a weekday alone, a word
    ("Lieferung in 3-5 Werktagen", [("code", "3-5", None)]),
    ("Es steht 3 – aber nicht 5.", [("number", "3", None), ("number", "5", None)]),
    ("Geöffnet 8–10 Uhr", [("number", "8", None), ("number", "10", None)]),
    ("Das kostet 10 €–15.", [("amount", "10 €", "€10"), ("number", "15", None)]),  # an amount, then a number
    ("So geht das, Do–Re–Mi, Mo-Fritz", []),
])
def test_a_range_of_numbers_is_one_span(text, expected):
    spans = with_ranges(text, with_abbreviations(text, with_amounts(text, with_clock_times(text, find_spans(text)))))
    assert [(s.kind, s.text, s.target) for s in spans] == expected
    assert all(text[s.start:s.end] == s.text for s in spans)


@pytest.mark.parametrize("text, expected", [
    # adverbs and their lists
    ("Das Museum ist montags geschlossen.", [("phrase", "montags", "on Mondays")]),
    ("Wir haben montags und donnerstags geöffnet.", [("phrase", "montags und donnerstags", "on Mondays and Thursdays")]),
    ("Training ist dienstags, mittwochs oder sonnabends.",
     [("phrase", "dienstags, mittwochs oder sonnabends", "on Tuesdays, Wednesdays or Saturdays")]),
    # ranges of adverbs or names, a dash as written
    ("Wir haben montags bis freitags geöffnet.", [("phrase", "montags bis freitags", "Monday to Friday")]),
    ("Die Apotheke hat Montag bis Samstag auf.", [("phrase", "Montag bis Samstag", "Monday to Saturday")]),
    ("Geöffnet Montag – Freitag, 9–18 Uhr", [("phrase", "Montag – Freitag", "Monday – Friday"),
                                           ("time", "9–18", "9 a.m.–6 p.m.")]),
    ("wir haben von montags bis freitags auf", [("phrase", "montags bis freitags", "Monday to Friday")]),
    # working days, weekdays and holidays; a first half that German leaves out before "und"
    ("Der Laden ist wochentags auf.", [("phrase", "wochentags", "on weekdays")]),
    ("Wir haben sonn- und feiertags zu.", [("phrase", "sonn- und feiertags", "on Sundays and public holidays")]),
    ("Post kommt mon- oder dienstags.", [("phrase", "mon- oder dienstags", "on Mondays or Tuesdays")]),
    ("Das ist ein Sonn- und Feiertag.", []),
    ("Wir haben werk- und sonntags auf.", [("phrase", "werk- und sonntags", "on working days and Sundays")]),
    ("Es ist Werk- und Urlaubszeit.", []),
    # the model's: names alone or after "von", days that open the sentence, words that hold a day
    ("Er kommt am Montag oder bis Freitag.", []),
    ("Wir haben von Montag bis Freitag geöffnet.", []),
    ("Dienstags gehe ich schwimmen.", []),
    ("„Montags bis freitags“, sagte er.", []),
    ("Das Montagsmeeting ist am Sonntagabend.", []),
])
def test_days_of_the_week_are_written_in_english(text, expected):
    spans = with_weekdays(text, with_ranges(text, with_clock_times(text, find_spans(text))))
    assert [(s.kind, s.text, s.target) for s in spans] == expected
    assert all(text[s.start:s.end] == s.text for s in spans)


@pytest.mark.parametrize("text, expected", [
    ("Er kommt heute bzw. morgen.", "Er kommt heute oder morgen."),
    ("Evtl. komme ich, z.T. schon um 8.", "Vielleicht komme ich, teilweise schon um 8."),
    ("Das dauert u.\u00a0U. länger.", "Das dauert möglicherweise länger."),
    ("Ich komme evtl.", "Ich komme vielleicht."),          # its stop is the sentence's
    ("„Ich komme evtl.“", "„Ich komme vielleicht.“"),
    ("Die bzw.-Liste, etwa bzw.x", "Die bzw.-Liste, etwa bzw.x"),  # not inside a word
    ("Kein Punkt, also nichts", "Kein Punkt, also nichts"),
    ("Er ist zzt. krank, z. Zt. im Bett.", "Er ist zurzeit krank, zurzeit im Bett."),
])
def test_conjunctions_and_adverbs_are_written_out(text, expected):
    assert respell_abbreviations(mask(text, [])).text == expected


def test_written_out_abbreviations_map_back_to_the_original():
    text = "Heute bzw. 5 Tage"
    result = respell_abbreviations(mask(text, find_spans(text)))
    assert result.text == "Heute oder ⦅N1⦆ Tage" and result.slots == {"⦅N1⦆": "5"}
    assert result.original_span(6, 10) == (6, 10)                 # "oder" <- "bzw."
    assert result.original_span(11, 15) == (11, 12)               # the placeholder <- "5"
    assert result.original_span(16, 20) == (13, 17)               # "Tage"
    assert with_abbreviations(text, []) == []                     # no longer a span


def test_abbreviations_keep_the_other_spans():
    text = "Das kostet ca. 5 Euro, siehe www.example.org."
    spans = find_spans(text)
    assert [s for s in with_abbreviations(text, spans) if s.kind != "abbreviation"] == spans


def test_an_identifier_gives_way_only_to_an_abbreviation_around_it():
    text = "Die MwSt. und die MwSt und MwStSatz."
    assert [(s.kind, s.text) for s in find_spans(text)] == [("identifier", "MwSt"), ("identifier", "MwSt"),
                                                            ("identifier", "MwStSatz")]
    assert [(s.kind, s.text, s.target) for s in with_abbreviations(text, find_spans(text))] == [
        ("abbreviation", "MwSt.", "VAT"), ("identifier", "MwSt", None), ("identifier", "MwStSatz", None)]


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


@pytest.mark.parametrize("hour, minutes, expected", [
    (14, None, "2 p.m."), (20, "15", "8:15 p.m."), (9, "30", "9:30"), (12, None, "noon"), (12, "15", "12:15 p.m."),
    (0, None, "midnight"), (0, "30", "12:30 a.m."), (24, None, "midnight"),
    (8, None, None),                                   # a morning hour stays the number it is
    (24, "30", None), (25, None, None),
])
def test_english_clock_times(hour, minutes, expected):
    assert english_clock_time(hour, minutes) == expected


@pytest.mark.parametrize("text, expected", [
    ("Ich muss um 14 Uhr beim Zahnarzt sein.", [("14", "2 p.m.")]),
    ("Der Film beginnt um 20:15 Uhr.", [("20:15", "8:15 p.m.")]),
    ("Ich komme um 18.30 Uhr nach Hause.", [("18.30", "6:30 p.m.")]),
    ("Ich stehe um 6 Uhr 30 auf.", [("6 Uhr 30", "6:30")]),
    ("Der Zug fährt um 7 Uhr 15.", [("7 Uhr 15", "7:15")]),
    ("Der Zug fährt um 7 Uhr.", [("7", None)]),                                  # left to the model
    ("Um 9 Uhr 30 Minuten später.", [("9", None), ("30", None)]),               # minutes of something else
    ("Es ist von 9 bis 23 Uhr offen.", [("9", None), ("23", "11 p.m.")]),
    ("Er kommt um 24:30 Uhr.", [("24:30", None)]),                              # no time: left as it was
    ("Die Uhr zeigt 5.", [("5", None)]),
    ("Kannst du mich um halb acht abholen?", [("halb acht", "7:30")]),
    ("Halb eins!", [("Halb eins", "12:30")]),
    ("Um halb 8 Uhr.", [("halb 8", "7:30")]),
    ("Er hat halb so viel.", []),
    ("Es ist halb 8,5.", [("8,5", None)]),
    # in words
    ("Der Zug fährt um zwanzig Uhr.", [("zwanzig", "8 p.m.")]),
    ("Toms Flug geht um vierzehn Uhr dreißig.", [("vierzehn Uhr dreißig", "2:30 p.m.")]),
    ("Ich stehe um sechs Uhr fünfzehn auf.", [("sechs Uhr fünfzehn", "6:15")]),
    ("Um null Uhr und um zwölf Uhr.", [("null", "midnight"), ("zwölf", "noon")]),
    # a part of the day joins the span
    ("Um zwölf Uhr mittags, um neun Uhr dreißig abends.", [("zwölf Uhr mittags", "noon"),
                                                          ("neun Uhr dreißig abends", "9:30 p.m.")]),
    ("Wir essen um 7 Uhr abends, um 12 Uhr mittags, um 6 Uhr 30 früh.", [
        ("7 Uhr abends", "7 p.m."), ("12 Uhr mittags", "noon"), ("6 Uhr 30 früh", "6:30 a.m.")]),
    ("Um 23:15 Uhr nachts, um 2 Uhr nachts, um 12 Uhr nachts.", [
        ("23:15 Uhr nachts", "11:15 p.m."), ("2 Uhr nachts", "2 a.m."), ("12 Uhr nachts", "midnight")]),
    ("Um 20 Uhr morgens?", [("20", None)]),                                    # no such time: the model's
    ("Er schlief um sechzehn Uhr ein.", [("sechzehn", "4 p.m.")]),             # "ein": no minute
    ("Wir treffen uns um acht Uhr.", []),                                       # left to the model
    ("Sie kam um ein Uhr zwanzig.", [("ein Uhr zwanzig", "1:20")]),
    ("Meine Uhr geht vor, fünfundzwanzig Uhr gibt es nicht.", []),
])
def test_the_time_before_uhr_is_written_in_english(text, expected):
    spans = with_clock_times(text, find_spans(text))
    assert [(s.text, s.target) for s in spans] == expected
    assert all(s.family == "N" for s in spans)


@pytest.mark.parametrize("english, expected", [
    ("8:15 p.m.", True), ("2 p.m.", True), ("9:30", True), ("noon", True), ("midnight", True),
    ("8", False), ("8 o'clock", False), ("1,450", False),
    ("9 a.m.–6 p.m.", True), ("8–10 p.m.", True), ("9:30 a.m. – 6:30 p.m.", True), ("3–5", False), ("8–10", False),
])
def test_which_times_take_no_oclock(english, expected):
    assert takes_no_oclock(english) is expected


@pytest.mark.parametrize("source, output, expected", [
    ("Der Film beginnt um 20:15 Uhr.", "The film begins at ⦅N1⦆ o'clock.", "The film begins at 8:15 p.m."),
    ("Der Film beginnt um 20:15 Uhr.", "The film begins at ⦅N1⦆.", "The film begins at 8:15 p.m."),
    ("Um 9:30 Uhr", "At ⦅N1⦆ o'clock", "At 9:30"),
    ("Um 8 Uhr", "At ⦅N1⦆ o'clock.", "At 8 o'clock."),
    # an "o'clock" after a span that no "Uhr" follows in the source is in the wrong place
    ("Das Meeting ist am 12.03.2025 um 14:30 Uhr.", "The meeting is at ⦅N1⦆ o'clock at ⦅N2⦆.",
     "The meeting is at 12.03.2025 at 2:30 p.m."),
    ("Der Zug fährt um 8 Uhr von Gleis 3 ab.", "The train leaves at ⦅N1⦆ o'clock from platform ⦅N2⦆ o'clock.",
     "The train leaves at 8 o'clock from platform 3."),
    ("Zimmer 12", "Room ⦅N1⦆ o'clock.", "Room 12."),
])
def test_restore_drops_what_a_time_says_already(source, output, expected):
    assert restore(output, mask(source, with_clock_times(source, find_spans(source)))) == expected


@pytest.mark.parametrize("source, expected", [
    ("Um 8 Uhr", ["8"]),                                     # a plain hour: "at 8 o'clock"
    ("Um 20:15 Uhr", []),                                    # "8:15 p.m." says it already
    ("Der Zug fährt um 8 Uhr von Gleis 3 ab.", ["8"]),
    ("Das Meeting ist am 12.03.2025 um 14:30 Uhr.", []),
    ("Die Uhr zeigt 8.", []),                                # "Uhr" before the number: a clock, not a time
    ("Um 8\u00a0Uhr und um 9 Uhr", ["8", "9"]),
    ("Um 8 Uhrzeiten", []),
    ("Ich habe den 7-Uhr-Zug verpasst.", ["7"]),              # "the 7 o'clock train"
])
def test_the_spans_an_oclock_may_follow(source, expected):
    masked = mask(source, with_clock_times(source, find_spans(source)))
    assert sorted(masked.slots[p] for p in oclock_spans(masked)) == expected


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


@pytest.mark.parametrize("word, english, expected", [
    ("of", "of Turkey", True), ("Of", "of Turkey", True), ("to", "of Turkey", False),
    ("the", "1 January 2000", True), ("The", "26 May", True), ("the", "May 26", False),
    ("the", "12.03.2025", False), ("the", "3", False), ("on", "1 January", False),
])
def test_the_words_wrong_before_a_span(word, english, expected):
    assert wrong_before(word, english) is expected


@pytest.mark.parametrize("source, output, expected", [
    # the release model: "He was born on the 1 January 2000.", "Yesterday was Tuesday, the 26 January 2010."
    ("Er wurde am 1. Januar 2000 geboren.", "He was born on the ⦅N1⦆.", "He was born on 1 January 2000."),
    ("Gestern war Dienstag, der 26. Januar 2010.", "Yesterday was Tuesday, the ⦅N1⦆.",
     "Yesterday was Tuesday, 26 January 2010."),
    ("Am 26. Mai", "The ⦅N1⦆", "26 May"),
    ("Am 12.03.2025", "On the ⦅N1⦆", "On the 12.03.2025"),          # not written day first in words
    ("Seite 3", "On the ⦅N1⦆", "On the 3"),
])
def test_restore_drops_the_before_a_date(source, output, expected):
    assert restore(output, mask(source, find_spans(source))) == expected


@pytest.mark.parametrize("text, expected", [
    ("Bitte überweisen Sie 49,99 € bis Freitag.", [("amount", "49,99 €", "€49.99")]),
    ("Das kostet €5.", [("amount", "€5", "€5")]),
    ("Es kostet 1.200€ im Jahr.", [("amount", "1.200€", "€1,200")]),
    ("Das sind 5 € und 50 Cent.", [("amount", "5 €", "€5"), ("number", "50", None)]),
    ("Es sind minus 5 Grad.", [("number", "minus 5", "minus 5")]),
    ("Minus 3,5 Prozent.", [("number", "Minus 3,5", "minus 3.5")]),
    ("Das ist ein Minus.", []),
    ("Es kostet 5 Euro.", [("number", "5", None)]),                       # the model writes euros well
    ("Er hat 3 Mrd. € investiert.", [("amount", "3 Mrd. €", "€3 billion")]),  # one amount with its multiplier
    ("Budget: € 1,5\u00a0Mio. im Jahr", [("amount", "€ 1,5\u00a0Mio.", "€1.5 million")]),
    ("Es kostet 5 Mio. Euro.", [("number", "5", None)]),                  # Euro as a word: with_abbreviations
])
def test_amounts_and_minus_are_written_in_english(text, expected):
    spans = with_amounts(text, find_spans(text))
    assert [(s.kind, s.text, s.target) for s in spans] == expected
    assert all(s.family == "N" for s in spans)



@pytest.mark.parametrize("text, spans, expected", [
    # the writer's own words count for the casing style: names and a letter's greetings and closings
    ("Hallo Welt, wie geht es dir?", [Span(0, 10, "letter", "Hallo Welt", "Hello world")], "normal"),
    ("hallo welt, wie geht es dir?", [Span(0, 10, "letter", "hallo welt", "Hello world")], "lower"),
    ("Anna, kommst du heute mit?", [Span(0, 4, "name", "Anna")], "normal"),
    # what the writer did not type as words does not
    ("siehe https://Example.org/Hilfe für mehr", [Span(6, 30, "url", "https://Example.org/Hilfe")], "lower"),
])
def test_casing_style_reads_the_writers_words(text, spans, expected):
    assert style(words_only(text, spans)) == expected
