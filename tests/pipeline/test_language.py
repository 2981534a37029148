"""pipeline/language.py: language identification and the stretches that source=auto carries over."""

from __future__ import annotations

import re

import pytest

from pipeline import language
from pipeline.language import Mixed, Stretch, detect, is_clearly_not_german, other_language, split_languages

# Our own sentences, a German one and its English counterpart on each line.
PAIRS = [
    ("Ich habe heute keine Zeit.", "I don't have time today."),
    ("Der Zug nach Berlin fährt um acht Uhr ab.", "The train to Berlin leaves at eight o'clock."),
    ("Kannst du mir bitte das Salz geben?", "Could you pass me the salt, please?"),
    ("Wir gehen morgen ins Kino.", "We are going to the cinema tomorrow."),
    ("Das Wetter ist heute wirklich schön.", "The weather is really nice today."),
    ("Er trinkt seinen Kaffee ohne Zucker.", "He drinks his coffee without sugar."),
    ("Die Kinder spielen im Garten.", "The children are playing in the garden."),
    ("Hast du den Schlüssel gesehen?", "Have you seen the key?"),
    ("Sie arbeitet seit drei Jahren bei der Bank.", "She has been working at the bank for three years."),
    ("Morgen regnet es wahrscheinlich.", "It will probably rain tomorrow."),
    ("Ich möchte ein Zimmer reservieren.", "I would like to book a room."),
    ("Bitte schließen Sie die Tür.", "Please close the door."),
    ("Ich bin gestern sehr früh aufgestanden.", "I got up very early yesterday."),
    ("Warum hast du nicht angerufen?", "Why didn't you call?"),
    ("Das Museum ist montags geschlossen.", "The museum is closed on Mondays."),
    ("Vielen Dank für deine Hilfe.", "Thank you for your help."),
]
GERMAN = [de for de, _ in PAIRS]
ENGLISH = [en for _, en in PAIRS]
# German that borrows English words, is written casually, or quotes English: translated all the same.
GERMAN_WITH_ENGLISH = ["Das Meeting wurde auf Montag verschoben.", "Ich habe das Update gestern installiert.",
                       "Das ist ein Bug im Backend.", "Sorry, ich bin zu spät.", "Ich liebe New York.",
                       'Der Film "The Lord of the Rings" läuft heute.', "ich hab heute echt keine lust mehr",
                       "Bitte lesen Sie die Terms and Conditions.", "WIR MÜSSEN JETZT GEHEN.",
                       "Schau mal auf https://example.com/the/best/english/page nach."]
# Too short or too ambiguous to tell: names, numbers, single words, two-word phrases.
AMBIGUOUS = ["Hamburg", "Tom", "OK", "12345", "Berlin 2024", "Hallo!", "Hotel", "Computer", "Anna und Tom.",
             "Thank you!", "Good morning.", "🎉 Party!", "https://example.org/this/is/all/english"]
OTHER_LANGUAGES = ["C'est la vie, mon ami, nous verrons demain.", "Dov'è la stazione dei treni?",
                   "Gdzie jest dworzec kolejowy?"]


@pytest.mark.parametrize("text", GERMAN)
def test_german_is_detected_as_german(text):
    assert detect(text)[0][0] == "de"


@pytest.mark.parametrize("text", ENGLISH)
def test_english_is_detected_as_english(text):
    assert detect(text)[0][0] == "en"


@pytest.mark.parametrize("text", GERMAN[:4] + ENGLISH[:4] + ["Tom", "Hallo!"])
def test_detect_ranks_the_served_languages(text):
    candidates = detect(text)
    assert sorted(code for code, _ in candidates) == list(language.SERVED)
    confidences = [confidence for _, confidence in candidates]
    assert confidences == sorted(confidences, reverse=True)
    assert all(0 <= c <= 100 and c == round(c, 1) for c in confidences)
    assert abs(sum(confidences) - 100) <= 0.1


def test_detect_is_confident_on_sentences_and_not_on_names():
    assert detect("Das Wetter ist heute wirklich schön.") == [("de", 100.0), ("en", 0.0)]
    assert detect("Tom") == [("de", 50.0), ("en", 50.0)]  # no evidence either way: German first


@pytest.mark.parametrize("text, code", list(zip(OTHER_LANGUAGES + ["Bonjour, je voudrais réserver une table pour ce soir."],
                                                 ["fr", "it", "pl", "fr"])))
def test_another_language_comes_first_by_its_code(text, code):
    other = other_language(text)
    assert other is not None and other[0] == code and 60 <= other[1] <= 100
    candidates = detect(text)
    assert candidates[0] == other and sorted(c for c, _ in candidates[1:]) == list(language.SERVED)
    assert all(confidence < 5 for _, confidence in candidates[1:])


@pytest.mark.parametrize("text", GERMAN + ENGLISH + AMBIGUOUS + ["Merci beaucoup", "Dank je wel, tot morgen!",
                                                                 "Luxemburgisch; Lëtzebuergesch"])
def test_german_english_and_short_or_close_texts_are_no_other_language(text):
    """German and English never; two words are too few to tell ("Merci beaucoup"), and Dutch this
    close to German is left to the served ranking."""
    assert other_language(text) is None


@pytest.mark.parametrize("text", ["", "   \n", "12345", "3,5 + 4 = 7,5", "🎉🎉", "https://example.org/english/words",
                                  "info@example.org", "@someone #hashtag", "?!", "⦅N1⦆"])
def test_nothing_to_detect(text):
    assert detect(text) == []


@pytest.mark.parametrize("value", [None, 5, ["Hallo"], b"Hallo"])
def test_detect_wants_a_string(value):
    with pytest.raises(ValueError, match=re.escape(f"text must be a string, got {value!r}")):
        detect(value)


@pytest.mark.parametrize("sentence", ENGLISH[:-1] + OTHER_LANGUAGES)
def test_clearly_not_german(sentence):
    assert is_clearly_not_german(sentence)


@pytest.mark.parametrize("sentence", GERMAN + GERMAN_WITH_ENGLISH + AMBIGUOUS)
def test_german_and_ambiguous_sentences_are_translated(sentence):
    assert not is_clearly_not_german(sentence)


def test_short_english_is_translated_rather_than_guessed():
    # Three words, but short enough that the model is not sure: the conservative choice is German.
    assert not is_clearly_not_german("I am sorry.")


def test_load_is_done_once():
    assert language.load() is language.load()


def test_the_identifier_ranks_exactly_as_py3langid_does():
    # Ours keeps the model compactly (pipeline.language.Identifier); the figures must not move.
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    every = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    served = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    served.set_languages(list(language.SERVED))
    texts = [*GERMAN, *ENGLISH, *GERMAN_WITH_ENGLISH, *AMBIGUOUS, *OTHER_LANGUAGES, "", "   ", "🙂 🎉",
             "Добар дан, како сте? Ја сам добро, хвала.", "Dobar dan, kako ste?"]  # sr: two columns
    for text in texts:
        assert language.load().rank(text) == every.rank(text), text
        assert language.load().rank_served(text) == served.rank(text), text


def test_split_keeps_other_languages_and_the_whitespace_around_them():
    text = "  Ich habe heute keine Zeit.  The weather is really nice today.\n\nWir gehen morgen ins Kino. Bis dann!\n"
    mixed = split_languages(text)
    first, english, last = (text.index(s) for s in ("Ich", "The", "Wir"))
    assert mixed.stretches == (Stretch(first, text.index("  The"), True),
                               Stretch(english, text.index("\n\n"), False),
                               Stretch(last, len(text) - 1, True))
    assert mixed.runs == ["Ich habe heute keine Zeit.", "Wir gehen morgen ins Kino. Bis dann!"]
    assert mixed.join(["I have no time today.", "We are going to the cinema tomorrow. See you!"]) == (
        "I have no time today.  The weather is really nice today.\n\nWe are going to the cinema tomorrow. See you!")


def test_english_sentences_next_to_each_other_are_one_stretch():
    text = "Es regnet. I don't have time today. Why didn't you call?"
    mixed = split_languages(text)
    assert mixed.stretches == (Stretch(0, 10, True), Stretch(11, len(text), False))
    assert mixed.join(["It is raining."]) == "It is raining. I don't have time today. Why didn't you call?"


def test_only_english_keeps_the_text_without_outer_whitespace():
    text = "\n I don't have time today.\tWhy didn't you call? \n"
    mixed = split_languages(text)
    assert mixed.runs == []
    assert mixed.join([]) == "I don't have time today.\tWhy didn't you call?"


@pytest.mark.parametrize("text", ["", "  ", "Ich habe heute keine Zeit.", " Hallo!\n\nTom ", "Es regnet. I am sorry."])
def test_text_with_nothing_to_keep_is_one_stretch_to_translate(text):
    mixed = split_languages(text)
    assert mixed == Mixed(text, (Stretch(0, len(text), True),))
    assert mixed.runs == [text] and mixed.join(["done"]) == "done"


def test_kept_sentences_are_byte_for_byte_not_normalized():
    english = "The cafe\u0301 is  closed on Mondays."  # decomposed é and a double space, as written
    mixed = split_languages(f"Es regnet. {english}")
    assert mixed.join(["It is raining."]) == f"It is raining. {english}"


@pytest.mark.parametrize("translations, message", [([], "expected 2 translations, got 0"),
                                                   (["a", "b", "c"], "expected 2 translations, got 3")])
def test_join_wants_one_translation_per_stretch_to_translate(translations, message):
    mixed = split_languages("Es regnet. The weather is really nice today. Die Katze schläft.")
    with pytest.raises(ValueError, match=message):
        mixed.join(translations)
