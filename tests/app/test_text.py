"""app/text.py: German-aware sentence splitting and layout-keeping reassembly."""

import pytest

from app.text import segment, split_sentences, translate_layout


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
    # ordinals and decimals
    ("Am 3. Mai ist Feiertag. Am 4. Mai nicht.", ["Am 3. Mai ist Feiertag.", "Am 4. Mai nicht."]),
    ("Im 19. Jahrhundert war das anders.", ["Im 19. Jahrhundert war das anders."]),
    ("Das kostet 3.50 Euro. Das ist billig.", ["Das kostet 3.50 Euro.", "Das ist billig."]),
    ("Es sind 3,5 Grad. Es ist kalt.", ["Es sind 3,5 Grad.", "Es ist kalt."]),
    ("Er wurde im Jahr 1990. Geboren.", ["Er wurde im Jahr 1990.", "Geboren."]),
    # quotes, ellipses, lower case after a period, numbers starting a sentence
    ("Er sagte: „Komm!“ Dann ging er.", ["Er sagte: „Komm!“", "Dann ging er."]),
    ("Ich weiß nicht... Vielleicht.", ["Ich weiß nicht...", "Vielleicht."]),
    ("Das ist gut. und dann?", ["Das ist gut. und dann?"]),
    ("Es war spät. 20 Leute kamen.", ["Es war spät.", "20 Leute kamen."]),
    ("www.example.de ist eine Seite.", ["www.example.de ist eine Seite."]),
    # whitespace
    ("  Viel   Platz.\tNoch mehr.  ", ["Viel Platz.", "Noch mehr."]),
    ("", []),
    ("   ", []),
    ("Kein Punkt am Ende", ["Kein Punkt am Ende"]),
])
def test_split_sentences(line, expected):
    assert split_sentences(line) == expected


def test_segment_keeps_lines_and_paragraphs():
    text = "Guten Morgen. Wie geht es?\r\nGut.\n\nNeuer Absatz."
    assert segment(text) == [["Guten Morgen.", "Wie geht es?"], ["Gut."], [], ["Neuer Absatz."]]


def test_translate_layout_is_one_batch_in_order():
    calls = []

    def fake(sentences):
        calls.append(list(sentences))
        return [s.upper() for s in sentences]

    texts = ["Eins. Zwei.\n\nDrei.", "", "Vier.\n"]
    assert translate_layout(texts, fake) == ["EINS. ZWEI.\n\nDREI.", "", "VIER."]
    assert calls == [["Eins.", "Zwei.", "Drei.", "Vier."]]


def test_translate_layout_without_sentences_never_calls_the_model():
    def fail(sentences):
        raise AssertionError("called")

    assert translate_layout(["", " \n "], fail) == ["", ""]
