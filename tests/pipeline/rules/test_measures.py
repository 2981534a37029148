"""pipeline/rules/measures.py: finding measures, writing them in English, and checking a translation."""

import pytest

from pipeline.rules.measures import find_measures, find_number_words, kept, number_words_kept, with_measures, with_number_words
from pipeline.rules.verbatim import find_spans
from pipeline.spans import mask


@pytest.mark.parametrize("text, expected", [
    ("Sie läuft jeden Morgen fünf Kilometer.", [("fünf Kilometer", "five kilometers")]),
    ("Es sind 1.450 Meter.", [("1.450 Meter", "1,450 meters")]),
    ("Es sind 1,5 Liter.", [("1,5 Liter", "1.5 liters")]),
    ("Nimm 1 Liter.", [("1 Liter", "1 liter")]),
    ("Der Tisch ist 80 Zentimeter breit.", [("80 Zentimeter breit", "80 centimeters wide")]),
    ("Er ist zwei Meter groß.", [("zwei Meter", "two meters")]),               # "groß": tall or big
    ("Ein 80 Zentimeter breiter Tisch.", [("80 Zentimeter", "80 centimeters")]),  # no predicate
    ("Wir haben drei Liter Milch getrunken.", [("drei Liter", "three liters of")]),
    ("Ich möchte achtundfünfzig Kilo und 200 Gramm.", [("achtundfünfzig Kilo", "fifty-eight kilos"),
                                                       ("200 Gramm", "200 grams")]),
    ("Die Wohnung hat 70 Quadratmeter.", [("70 Quadratmeter", "70 square meters")]),
    ("Ich brauche einen Liter Wasser.", []),          # "einen": the article, left to the model
    ("Viele Kilometer weit.", []),                    # no number
    ("Der Kilometerzähler zeigt 5.", []),
    ("Rund 3.5 Meter", [("3.5 Meter", "3.5 meters")]),                 # ambiguous: kept as written
    ("Ich bin 1,80 m groß.", [("1,80 m", "1.80 m")]),                     # symbols as written
    ("Der Schrank ist 2 m hoch.", [("2 m hoch", "2 m high")]),
    ("Bitte 500 g Mehl zugeben.", [("500 g", "500 g of")]),
    ("Wir liefen 10km und 70 m².", [("10km", "10 km"), ("70 m²", "70 m²")]),
    ("Wir fahren 100 km/h.", []),                                         # a speed: the model keeps it
    ("Er kam 5 mal.", []),
])
def test_measures_are_written_in_english(text, expected):
    found = find_measures(text)
    assert [(text[m.start:m.end], m.english) for m in found] == expected


def test_measure_spans_replace_their_number_and_are_numbers_to_the_model():
    text = "Es sind 5 Kilometer bis Köln, siehe www.example.org/5 Meter."
    spans = with_measures(text, find_spans(text))
    assert [(s.kind, s.text, s.target) for s in spans] == [
        ("measure", "5 Kilometer", "5 kilometers"), ("url", "www.example.org/5", None)]
    masked = mask(text, spans)
    assert masked.text == "Es sind ⦅N1⦆ bis Köln, siehe ⦅X1⦆ Meter."
    assert masked.slots == {"⦅N1⦆": "5 kilometers", "⦅X1⦆": "www.example.org/5"}
    assert masked.capitalizable == set()  # "5 kilometers": nothing to capitalize
    opening = "Fünf Kilometer sind weit."
    assert mask(opening, with_measures(opening, find_spans(opening))).capitalizable == {"⦅N1⦆"}


@pytest.mark.parametrize("source, output, expected", [
    ("Sie läuft fünf Kilometer.", "She runs five kilometers.", True),
    ("Sie läuft fünf Kilometer.", "She runs five kilometres.", True),
    ("Sie läuft fünf Kilometer.", "She runs 5 km.", True),
    ("Sie läuft fünf Kilometer.", "She runs five miles.", False),           # the unit lost
    ("Sie läuft fünf Kilometer.", "She runs fifty kilometers.", False),     # "five" is not in "fifty"
    ("Es sind 5 Kilometer.", "It's 50 kilometers.", False),
    ("Er wohnt sechzehn Kilometer weg.", "He lives six kilometers away.", False),
    ("Er wohnt sechzehn Kilometer weg.", "He lives 16 kilometers away.", True),
    ("Der Tisch ist 80 Zentimeter breit.", "The table is 80 centimeter.", False),   # the plural and "wide" lost
    ("Der Tisch ist 80 Zentimeter breit.", "The table is 80 centimeters wide.", True),
    ("Es sind 1.450 Meter.", "It's 1,450 meters.", True),
    ("Es sind 3 Meter.", "It's 3 m.", True),
    ("Es sind 3 Meter.", "It's 3 my.", False),                              # "m" only as a symbol
    ("Ich habe Hunger.", "I'm hungry.", True),                              # no measure: nothing to check
    ("Ich bin 1,80 m groß.", "I'm 1.80 m tall.", True),
    ("Ich bin 1,80 m groß.", "I'm 1.80 meters tall.", True),
    ("Ich bin 1,80 m groß.", "I'm tall at 1.80.", False),                   # the "m" of "I'm" is no unit
    ("Tom hat 30 kg abgenommen.", "Tom lost 30 kicks.", False),
])
def test_a_translation_keeps_its_measures(source, output, expected):
    assert kept(source, output) is expected


@pytest.mark.parametrize("text, expected", [
    ("Die Lieferung erfolgt in drei bis fünf Werktagen.", [("drei", "three"), ("fünf", "five")]),
    ("Er hat vierundzwanzig Katzen und hundert Hunde.", [("vierundzwanzig", "twenty-four"), ("hundert", "a hundred")]),
    ("Zwei Männer kamen. Drei gingen.", [("Zwei", "two"), ("Drei", "three")]),   # opening a sentence
    ("Er sagte: „Zwei, bitte.“", [("Zwei", "two")]),
    ("Ich habe einen Bruder und eine Schwester.", []),                            # "ein": the article
    # not counts: attention, clock times, capitalized nouns
    ("Gib acht! Ihr müsst acht geben. Das lässt er außer Acht.", []),
    ("Wir treffen uns um halb drei oder um vier Uhr.", []),
    ("Um vierzehn Uhr dreißig, Viertel nach acht.", []),
    ("Die Elf hat gewonnen.", []),
])
def test_number_words_that_count(text, expected):
    assert [(text[w.start:w.end], w.english) for w in find_number_words(text)] == expected


@pytest.mark.parametrize("source, output, expected", [
    ("Die Lieferung erfolgt in drei bis fünf Werktagen.", "The delivery takes three to five working days.", True),
    ("Die Lieferung erfolgt in drei bis fünf Werktagen.", "The delivery takes 3-5 working days.", True),
    ("Die Lieferung erfolgt in drei bis fünf Werktagen.", "The delivery will take three working days.", False),
    ("Der Dezember hat einunddreißig Tage.", "December has a thirty days.", False),
    ("Der Dezember hat einunddreißig Tage.", "December has thirty-one days.", True),
    ("Das kostet hundert Euro.", "It costs one hundred euros.", True),
    ("Er hat vier Kinder.", "He has fourteen children.", False),
    ("Gib acht!", "Be careful!", True),
])
def test_a_translation_keeps_its_number_words(source, output, expected):
    assert number_words_kept(source, output) is expected


def test_number_words_become_number_spans_in_english_outside_other_spans():
    text = "In drei bis fünf Tagen, fünf Kilometer weit."
    spans = with_number_words(text, with_measures(text, find_spans(text)))
    assert [(s.text, s.kind, s.target) for s in spans] == [
        ("drei", "number", "three"), ("fünf", "number", "five"), ("fünf Kilometer", "measure", "five kilometers")]
