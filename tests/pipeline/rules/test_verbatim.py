"""pipeline/rules/verbatim.py: the spans copied as written (find_spans), dates with a month name, the
"the" before a date; and the verbatim rule of an English source: a tool's name is often an English
word (pipeline.rules.verbatim.ENGLISH_RULE)."""

from __future__ import annotations

import pytest

from pipeline.rules.base import Context
from pipeline.rules.names import leading_preposition
from pipeline.rules.verbatim import ENGLISH_RULE, RULE, find_spans, the_before_date
from pipeline.spans import Span, mask
from tests.pipeline.rules.helpers import restore


@pytest.mark.parametrize("text, english, german", [
    ("The cat is sleeping.", [], [("command", "cat is sleeping")]),           # words, not a command
    ("Just find out what happened.", [], []),
    ("Run cat notes.txt now.", [("command", "cat notes.txt")], [("command", "cat notes.txt now")]),
    ("Use git commit -m to commit.", [("command", "git commit -m")], [("command", "git commit -m to commit")]),
    ("Type sudo apt update.", [("command", "sudo apt update")], [("command", "sudo apt update")]),
    ("Then run ls -la /tmp and check.", [("command", "ls -la /tmp")], [("command", "ls -la /tmp and check")]),
    ("Visit https://example.com today.", [("url", "https://example.com")], [("url", "https://example.com")]),
])
def test_an_english_source_s_commands_need_an_argument_that_reads_as_code(text, english, german):
    assert [(s.kind, s.text) for s in ENGLISH_RULE.find(text, [], Context())] == english
    assert [(s.kind, s.text) for s in RULE.find(text, [], Context())] == german   # a German source's, as before


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


def wrong_before(word, english):
    """The words the rules' repairs take out before a span: "the" before a day-first date
    (verbatim), a country phrase's preposition (names)."""
    return the_before_date(word, english) or word.lower() == leading_preposition(english)


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
