"""pipeline/rules/letters.py: a letter's greetings and closings, forms of address, and the writer's
name under a closing."""

from __future__ import annotations

import pytest

from model.data.lexicon import Lexicon
from pipeline.rules.letters import signature
from pipeline.rules.names import with_names
from pipeline.rules.verbatim import find_spans
from pipeline.spans import mask
from tests.pipeline.rules.helpers import restore


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
