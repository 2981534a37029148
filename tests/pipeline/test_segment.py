"""pipeline/segment.py: sentence and clause spans, layout-keeping reassembly, retry predicates."""

from __future__ import annotations

import math

import pytest

from pipeline.segment import (
    ABBREVIATIONS, BARE_CONJUNCTIONS, CLAUSE_OPENERS, ENGLISH_ABBREVIATIONS, ENGLISH_BEFORE_NUMBER, Joined, has_loop, implausibly_short, join_layout, line_spans, segment, sentences,
    smaller_pieces, split_long, split_sentences,
)


def words(text: str) -> int:
    return len(text.split())


def pieces(text: str) -> int:
    """A stand-in for the tokenizer: German runs at about 1.4 pieces a word."""
    return math.ceil(1.4 * len(text.split()))


def cut_out(text: str, spans) -> list[str]:
    return [text[start:end] for start, end in spans]


def whole(text: str) -> tuple[int, int]:
    return 0, len(text)


# ---- sentences ----------------------------------------------------------------------------------

@pytest.mark.parametrize("line, expected", [
    ("Guten Morgen.", ["Guten Morgen."]),
    ("Guten Morgen. Wie geht es dir?", ["Guten Morgen.", "Wie geht es dir?"]),
    ("Hallo! Wer ist da? Ich.", ["Hallo!", "Wer ist da?", "Ich."]),
    # abbreviations
    ("Das ist z.B. gut. Dann gehen wir.", ["Das ist z.B. gut.", "Dann gehen wir."]),
    ("Das ist z. B. Anna.", ["Das ist z. B. Anna."]),
    ("Dr. Müller kommt. Prof. Schmidt auch.", ["Dr. Müller kommt.", "Prof. Schmidt auch."]),
    ("Äpfel, Birnen usw. Alles ist frisch.", ["Äpfel, Birnen usw. Alles ist frisch."]),
    ("Sie wohnt in der Goethestr. Fünf.", ["Sie wohnt in der Goethestr. Fünf."]),
    ("Er heißt A. Merkel.", ["Er heißt A. Merkel."]),
    ("Siehe Nr. 5 und vgl. Abs. 3.", ["Siehe Nr. 5 und vgl. Abs. 3."]),
    ("Der Zug hat 20 Min. Verspätung, das sind 50 Tsd. Minuten.", ["Der Zug hat 20 Min. Verspätung, das sind 50 Tsd. Minuten."]),
    ("Es gilt einschl. Juni, exkl. Versand, zzt. Mai.", ["Es gilt einschl. Juni, exkl. Versand, zzt. Mai."]),
    # "MwSt." ends a sentence more often than not
    ("19,99 € inkl. MwSt. Versand ist frei.", ["19,99 € inkl. MwSt.", "Versand ist frei."]),
    # ordinals and decimals
    ("Am 3. Mai ist Feiertag. Am 4. Mai nicht.", ["Am 3. Mai ist Feiertag.", "Am 4. Mai nicht."]),
    ("Im 19. Jahrhundert war das anders.", ["Im 19. Jahrhundert war das anders."]),
    ("Die Messe ist vom 3.–5. März. Sie ist groß.", ["Die Messe ist vom 3.–5. März.", "Sie ist groß."]),
    ("Das kostet 3.50 Euro. Das ist billig.", ["Das kostet 3.50 Euro.", "Das ist billig."]),
    ("Es sind 3,5 Grad. Es ist kalt.", ["Es sind 3,5 Grad.", "Es ist kalt."]),
    ("Er wurde im Jahr 1990. Geboren.", ["Er wurde im Jahr 1990.", "Geboren."]),
    # quotes, ellipses, lower case after a period, numbers starting a sentence
    ("Er sagte: „Komm!“ Dann ging er.", ["Er sagte: „Komm!“", "Dann ging er."]),
    ("Ich weiß nicht... Vielleicht.", ["Ich weiß nicht...", "Vielleicht."]),
    ("Das ist gut. und dann?", ["Das ist gut. und dann?"]),
    # a line without a single capital (chat) starts its sentences in lower case; abbreviations hold
    ("geht leider nicht. bin krank! bis morgen?", ["geht leider nicht.", "bin krank!", "bis morgen?"]),
    ("das kostet ca. zehn euro. danke", ["das kostet ca. zehn euro.", "danke"]),
    ("siehe z. b. seite drei. ok", ["siehe z. b. seite drei.", "ok"]),
    ("Es war spät. 20 Leute kamen.", ["Es war spät.", "20 Leute kamen."]),
    ("www.example.de ist eine Seite.", ["www.example.de ist eine Seite."]),
    # whitespace
    ("  Viel   Platz.\tNoch mehr.  ", ["Viel Platz.", "Noch mehr."]),
    ("", []),
    ("   ", []),
    ("Kein Punkt am Ende", ["Kein Punkt am Ende"]),
])
def test_sentences(line, expected):
    assert sentences(line) == expected


@pytest.mark.parametrize("line, expected", [
    # English abbreviations: titles, months, Latin ones; "No." only before a number
    ("Dear Mr. Smith, thank you. Bye.", ["Dear Mr. Smith, thank you.", "Bye."]),
    ("Mrs. Jones and Dr. Brown met on Oct. 5. They talked.", ["Mrs. Jones and Dr. Brown met on Oct. 5.", "They talked."]),
    ("Fruit, e.g. Apples, is healthy. Eat it.", ["Fruit, e.g. Apples, is healthy.", "Eat it."]),
    ("See No. 5 here. Then go.", ["See No. 5 here.", "Then go."]),
    ("I said no. Then we left.", ["I said no.", "Then we left."]),
    # an English number before a full stop ends the sentence (in German it is an ordinal)
    ("I counted 42. Then I stopped.", ["I counted 42.", "Then I stopped."]),
    ("J. K. Rowling wrote it. Yes.", ["J. K. Rowling wrote it.", "Yes."]),
])
def test_english_sentences(line, expected):
    assert sentences(line, "en") == expected


def test_german_abbreviations_are_not_english_ones():
    assert sentences("Dear Mr. Smith, thank you.") == ["Dear Mr.", "Smith, thank you."]
    assert sentences("Am 3. Mai kam er.", "en") == ["Am 3.", "Mai kam er."]
    assert segment("Mr. Smith.\nMr. Jones.", "en") == [[(0, 10)], [(11, 21)]]


@pytest.mark.parametrize("words, members, non_members", [
    # pipeline/tables/: lower-cased, the abbreviations without their final period
    (ABBREVIATIONS, {"z.b", "d.h", "usw", "dr", "nr", "u.a.m", "o.ä"}, {"z.b.", "Dr", "mwst", "ust"}),
    (ENGLISH_ABBREVIATIONS, {"mr", "e.g", "i.e", "al", "oct", "u.s"}, {"etc", "a.m", "p.m", "no"}),
    (ENGLISH_BEFORE_NUMBER, {"no", "vol", "pp", "ch"}, {"mr", "p"}),
    (CLAUSE_OPENERS, {"und", "daß", "der", "um", "während", "soweit"}, {"und,", "auch"}),
    (BARE_CONJUNCTIONS, {"und", "daß", "sodass", "jedoch"}, {"die", "als", "wie", "bis", "seit", "um", "ohne"}),
])
def test_word_lists_from_the_tables(words, members, non_members):
    assert isinstance(words, frozenset)
    assert members <= words and not non_members & words
    assert all(word == word.lower() and "#" not in word for word in words)   # no comment line read as words


def test_the_tables_drive_the_sentence_cuts():
    assert sentences("Er kam z.B. Montag. Dann ging er.") == ["Er kam z.B. Montag.", "Dann ging er."]
    assert sentences("Er zahlt inkl. MwSt. Versand ist frei.") == ["Er zahlt inkl. MwSt.", "Versand ist frei."]
    assert sentences("See Vol. 2 of it. I said no. Then I left.", "en") == [
        "See Vol. 2 of it.", "I said no.", "Then I left."]


@pytest.mark.parametrize("language", ["fr", "", "DE"])
def test_an_unknown_language_is_refused(language):
    for call in (split_sentences, segment):
        with pytest.raises(ValueError) as error:
            call("Text.", language)
        assert str(error.value) == f"language must be one of de, en, got {language!r}"


def test_an_english_abbreviation_is_no_clause_cut():
    text = "Yesterday Mr. Smith and his old friends from school went to the new cinema in town"
    pieces = split_long(text, (0, len(text)), lambda t: len(t.split()), 4, language="en")
    assert all(not text[s:e].endswith("Mr.") for s, e in pieces)
    assert " ".join(text[s:e] for s, e in pieces) == text


@pytest.mark.parametrize("text, expected", [
    ("  Viel   Platz.\tNoch mehr.  ", [(2, 15), (16, 26)]),
    ("Eins.\r\nZwei.\n\n\tDrei", [(0, 5), (7, 12), (15, 19)]),  # newlines are whitespace here
    ("Er sagte: „Komm!“  Dann.", [(0, 17), (19, 24)]),
    (" \n ", []),
])
def test_split_sentences_gives_spans_of_the_original(text, expected):
    assert split_sentences(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("", [(0, 0)]),
    ("a", [(0, 1)]),
    ("a\r\nb\rc\nd", [(0, 1), (3, 4), (5, 6), (7, 8)]),
    ("a\n\r\n", [(0, 1), (2, 2), (4, 4)]),
    ("\r\r", [(0, 0), (1, 1), (2, 2)]),
])
def test_line_spans(text, expected):
    assert line_spans(text) == expected


def test_segment_keeps_lines_and_paragraphs():
    text = "Guten Morgen. Wie geht es?\r\nGut.\n\nNeuer Absatz."
    assert segment(text) == [[(0, 13), (14, 26)], [(28, 32)], [], [(34, 47)]]
    assert [cut_out(text, line) for line in segment(text)] == [
        ["Guten Morgen.", "Wie geht es?"], ["Gut."], [], ["Neuer Absatz."]]


def test_segment_offsets_with_tabs_spaces_and_blank_lines():
    text = "\r\n  Eins.\t\tZwei.  \r\n \t \r\n\r\nDrei   vier.\rFünf.\n"
    layout = segment(text)
    assert layout == [[], [(4, 9), (11, 16)], [], [], [(27, 39)], [(40, 45)], []]
    assert [cut_out(text, line) for line in layout] == [
        [], ["Eins.", "Zwei."], [], [], ["Drei   vier."], ["Fünf."], []]


# ---- reassembly ---------------------------------------------------------------------------------

def upper_layout(text: str) -> Joined:
    layout = segment(text)
    return join_layout(layout, [text[start:end].upper() for line in layout for start, end in line])


@pytest.mark.parametrize("text, expected", [
    ("Eins. Zwei.\n\nDrei.", Joined("EINS. ZWEI.\n\nDREI.", [0, 6, 13])),
    ("", Joined("", [])),
    (" \n ", Joined("", [])),
    ("Vier.\n", Joined("VIER.", [0])),
    # leading and trailing blank lines go, paragraphs in between stay (as one blank line each)
    ("\r\n\r\nEins.\r\n\r\n\r\nZwei.  Drei.\n\n", Joined("EINS.\n\n\nZWEI. DREI.", [0, 8, 14])),
])
def test_join_layout(text, expected):
    assert upper_layout(text) == expected


def test_join_layout_offsets_locate_every_translation():
    layout = [[(0, 1)], [], [(2, 3), (4, 5)]]
    joined = join_layout(layout, ["Good morning.", "How", "are you?"])
    assert joined.text == "Good morning.\n\nHow are you?"
    assert [joined.text[offset:offset + len(t)] for offset, t in
            zip(joined.offsets, ["Good morning.", "How", "are you?"])] == ["Good morning.", "How", "are you?"]


def test_join_layout_of_split_pieces_joins_them_with_spaces():
    assert join_layout([[(0, 1), (2, 3)]], ["When I came,", "the door was open."]) == Joined(
        "When I came, the door was open.", [0, 13])


@pytest.mark.parametrize("translations, message", [
    (["a"], "layout has 2 sentences but got 1 translations"),
    (["a", "b", "c"], "layout has 2 sentences but got 3 translations"),
])
def test_join_layout_needs_one_translation_per_sentence(translations, message):
    with pytest.raises(ValueError) as error:
        join_layout([[(0, 1)], [], [(2, 3)]], translations)
    assert str(error.value) == message


# ---- long segments ------------------------------------------------------------------------------

LONG = ("Als ich gestern nach Hause kam, war die Tür offen, und ich wusste nicht, ob jemand im Haus war, "
        "der mich beobachtete, weil alles so still war.")


@pytest.mark.parametrize("limit, expected", [
    (27, [LONG]),
    # the clause boundary nearest the middle that opens a subordinate clause ("ob")
    (20, ["Als ich gestern nach Hause kam, war die Tür offen, und ich wusste nicht,",
          "ob jemand im Haus war, der mich beobachtete, weil alles so still war."]),
    (10, ["Als ich gestern nach Hause kam, war die Tür offen,", "und ich wusste nicht, ob jemand im Haus war,",
          "der mich beobachtete, weil alles so still war."]),
    # "Als ich gestern nach Hause kam," has 6 words: cut at a word boundary, then at the comma
    (5, ["Als ich gestern", "nach Hause kam,", "war die Tür offen,", "und ich wusste nicht,",
         "ob jemand im Haus war,", "der mich beobachtete,", "weil alles so still war."]),
])
def test_split_long_cuts_at_clause_boundaries(limit, expected):
    assert cut_out(LONG, split_long(LONG, whole(LONG), words, limit)) == expected


@pytest.mark.parametrize("text, limit, expected", [
    # spaced dashes, semicolons and colons are clause boundaries; the dash stays on the left
    ("Er kam – wie immer – viel zu spät; sie wartete: lange - sehr lange.", 3,
     ["Er kam –", "wie immer –", "viel zu spät;", "sie wartete:", "lange -", "sehr lange."]),
    # no crumb: "Ja," alone would still leave 15 words, so cut before "und" instead
    ("Ja, ich habe das Buch gelesen und den Film gesehen und beides hat mir gut gefallen", 10,
     ["Ja, ich habe das Buch gelesen und den Film gesehen", "und beides hat mir gut gefallen"]),
    # a comma far from the middle is fine when both sides fit
    ("Ja, ich habe das Buch gelesen und den Film gesehen", 9,
     ["Ja,", "ich habe das Buch gelesen und den Film gesehen"]),
    # no cut after abbreviations or a period that is not a sentence end
    ("Das ist z.B. gut. und dann ist es usw. schön, sagt er", 3,
     ["Das ist", "z.B. gut.", "und dann ist", "es usw. schön,", "sagt er"]),
])
def test_split_long_clause_kinds(text, limit, expected):
    assert cut_out(text, split_long(text, whole(text), words, limit)) == expected


UNPUNCTUATED = """ich habe heute morgen lange geschlafen und bin dann mit dem fahrrad zur arbeit gefahren
meine kollegin hat mir erzählt dass sie im sommer nach italien reisen möchte
wir haben im büro über das neue projekt gesprochen aber niemand wusste genau was zu tun ist
der chef war nicht da weil er krank zu hause im bett lag
nach der mittagspause sind wir in den park gegangen obwohl es draußen ziemlich kalt war
am abend habe ich für meine familie eine große suppe mit gemüse gekocht
die kinder wollten lieber pizza essen oder wenigstens nudeln mit tomatensoße
mein bruder ruft mich jeden sonntag an wenn er zeit hat
im fernsehen lief ein alter film den ich schon dreimal gesehen habe
bevor ich ins bett gehe lese ich meistens noch ein paar seiten in einem buch
morgen muss ich früh aufstehen denn der zug nach berlin fährt schon um sechs uhr
falls es regnet nehme ich einen regenschirm mit sonst werde ich nass
unsere nachbarn haben einen kleinen hund der jeden morgen laut bellt""".split("\n")


def unpunctuated_text(count: int) -> str:
    """``count`` words of everyday German without a single punctuation mark."""
    result: list[str] = []
    for index in range(count):
        result += UNPUNCTUATED[index % len(UNPUNCTUATED)].split()
        if len(result) >= count:
            return " ".join(result[:count])
    raise AssertionError("unreachable")


@pytest.mark.parametrize("limit", [60, 40, 20])
def test_split_long_without_punctuation_keeps_every_word(limit):
    text = unpunctuated_text(500)
    spans = split_long(text, whole(text), pieces, limit)
    assert " ".join(cut_out(text, spans)).split() == text.split()  # every word once, in order
    assert all(text[end:start].isspace() for (_, end), (start, _) in zip(spans, spans[1:]))
    assert max(pieces(text[start:end]) for start, end in spans) <= limit
    # no crumbs; cuts before conjunctions are worth some pieces more than the minimum
    assert min(pieces(text[start:end]) for start, end in spans) >= limit / 4
    assert len(spans) <= 1.75 * math.ceil(pieces(text) / limit)
    assert sum(text[start:end].split()[0] in BARE_CONJUNCTIONS for start, end in spans) >= len(spans) / 2


def test_split_long_never_cuts_numbers_or_protected_spans():
    text = "Der Preis stieg um 3,5 Prozent auf 1.000 Euro, die Zahl 10 000 blieb und Frankfurt am Main ist weit."
    frankfurt = text.index("Frankfurt")
    spans = split_long(text, whole(text), words, 1, protected=[(frankfurt, frankfurt + 17)])
    assert cut_out(text, spans) == ["Der", "Preis", "stieg", "um", "3,5", "Prozent", "auf", "1.000", "Euro,", "die",
                                    "Zahl", "10 000", "blieb", "und", "Frankfurt am Main", "ist", "weit."]


def test_split_long_cuts_one_overlong_word_but_never_a_protected_one():
    text = "Siehe Donaudampfschifffahrtsgesellschaftskapitän 1234567890123456789012"
    by_characters = lambda s: math.ceil(len(s) / 4)  # noqa: E731
    assert cut_out(text, split_long(text, whole(text), by_characters, 5)) == [
        "Siehe", "Donaudampf", "schifffahrt", "sgesellsch", "aftskapitän", "1234567890123456789012"]
    assert cut_out(text, split_long(text, whole(text), by_characters, 5, protected=[(6, 48)])) == [
        "Siehe", "Donaudampfschifffahrtsgesellschaftskapitän", "1234567890123456789012"]


def test_split_long_cuts_a_run_of_digits_only_where_the_model_could_not_read_it_whole():
    text = "Siehe 1234567890 1234567890 1234567890"
    by_characters = lambda s: len(s)  # noqa: E731
    assert cut_out(text, split_long(text, whole(text), by_characters, 10)) == ["Siehe", "1234567890 1234567890 1234567890"]
    assert cut_out(text, split_long(text, whole(text), by_characters, 10, most=40)) == [
        "Siehe", "1234567890 1234567890 1234567890"]
    # over ``most``: cut in the middle until the model can read each part, not down to ``limit``
    assert cut_out(text, split_long(text, whole(text), by_characters, 10, most=20)) == [
        "Siehe", "1234567890 12345", "67890 1234567890"]
    run = "¹" * 100
    assert cut_out(run, split_long(run, whole(run), by_characters, 30, most=60)) == ["¹" * 50] * 2


def test_split_long_works_on_a_span_of_a_larger_text():
    text = "Erste Zeile.\r\n  Zweite Zeile, die länger ist, weil sie mehr sagt.  \r\n"
    spans = split_long(text, (12, len(text)), words, 4)
    assert spans == [(16, 29), (30, 45), (46, 65)]
    assert cut_out(text, spans) == ["Zweite Zeile,", "die länger ist,", "weil sie mehr sagt."]
    assert split_long(text, (12, 16), words, 5) == []


@pytest.mark.parametrize("span, limit, protected, message", [
    ((0, 3), 0, (), "limit must be a positive integer, got 0"),
    ((0, 3), 2.5, (), "limit must be a positive integer, got 2.5"),
    ((0, 3), True, (), "limit must be a positive integer, got True"),
    ((2, 1), 3, (), "span (2, 1) is not inside a text of 9 characters"),
    ((0, 10), 3, (), "span (0, 10) is not inside a text of 9 characters"),
    ((-1, 3), 3, (), "span (-1, 3) is not inside a text of 9 characters"),
    ((0, 3), 3, [(4, 12)], "span (4, 12) is not inside a text of 9 characters"),
])
def test_split_long_rejects_bad_arguments(span, limit, protected, message):
    with pytest.raises(ValueError) as error:
        split_long("Ein Satz.", span, words, limit, protected)
    assert str(error.value) == message


@pytest.mark.parametrize("text, expected", [
    (LONG, ["Als ich gestern nach Hause kam, war die Tür offen, und ich wusste nicht,",
            "ob jemand im Haus war, der mich beobachtete, weil alles so still war."]),
    # 9 pieces: the middle by characters would give 6 + 3, which misses the limit of 5
    ("ich habe heute morgen lange geschlafen", ["ich habe heute", "morgen lange geschlafen"]),
    ("zwei Wörter", ["zwei", "Wörter"]),
    ("  Haus ", ["Haus"]),
    ("Donaudampfschifffahrtsgesellschaftskapitän", ["Donaudampfschifffahrtsgesellschaftskapitän"]),
    ("   ", []),
])
def test_smaller_pieces_halves_at_most_once(text, expected):
    assert cut_out(text, smaller_pieces(text, whole(text), pieces)) == expected


def test_smaller_pieces_respects_protected_spans():
    text = "Besuchen Sie https://example.org/a b heute"
    # the middle (character 21) lies inside the protected span: the nearest gap outside wins
    assert cut_out(text, smaller_pieces(text, whole(text), words, protected=[(13, 36)])) == [
        "Besuchen Sie", "https://example.org/a b heute"]


# ---- retry predicates ---------------------------------------------------------------------------

@pytest.mark.parametrize("source, output, expected", [
    # the reported failure: a long source, a few words out
    (unpunctuated_text(158), " ".join(["word"] * 36), True),
    (unpunctuated_text(480), " ".join(["word"] * 28), True),
    ("Ich habe gestern meinen Schlüssel verloren und konnte nicht in meine Wohnung.",
     "Yesterday I lost my key.", True),
    # normal translations
    ("Ich habe gestern meinen Schlüssel verloren und konnte nicht in meine Wohnung.",
     "Yesterday I lost my key and couldn't get into my apartment.", False),
    ("Das Essen war lecker, aber etwas zu salzig.", "The food was delicious, but a bit too salty.", False),
    # exactly half is not under half; under eight source words nothing is judged
    ("eins zwei drei vier fünf sechs sieben acht", "one two three four", False),
    ("eins zwei drei vier fünf sechs sieben acht", "one two three", True),
    ("eins zwei drei vier fünf sechs sieben", "one", False),
    # idioms are the known false positives (0.15% of Tatoeba's pairs with 8+ German words)
    ("Tom bekam es mit der Angst zu tun.", "Tom was scared.", True),
    ("eins zwei drei vier fünf sechs sieben acht", "", True),
])
def test_implausibly_short(source, output, expected):
    assert implausibly_short(source, output) is expected


@pytest.mark.parametrize("output, expected", [
    ("I'm going to the city of the city of the city of the city.", True),
    ("No, no, no, no!", True),
    ("He said that that that was wrong.", False),
    ("No, no, no!", False),
    ("I don't know, I don't know, I don't know what to do.", True),
    ("I don't know, I don't know what to do.", False),
    ("Tom is a friend of a friend of a friend.", False),
    ("A man in a red cap is speaking to a man in a black shirt and a man in a pink shirt.", False),
    ("Yesterday I lost my key and couldn't get into my apartment.", False),
    ("", False),
    ("the the the the", True),
    ("a b c d e f g h a b c d e f g h a b c d e f g h", True),
    ("a b c d e f g h i a b c d e f g h i a b c d e f g h i", False),  # units over 8 words are not looked for
])
def test_has_loop(output, expected):
    assert has_loop(output) is expected
