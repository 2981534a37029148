"""pipeline/augment.py: training pairs that teach the model placeholders and casing."""

import random

import pytest

from pipeline.augment import (CONCAT_MAX, CONCAT_MAX_CHARS, Augmentation, augment_pairs, concatenate_pairs,
                              mask_number_words, mask_pair)


PAIR = ("Tom kam um 7:05 an.", "Tom arrived at 7:05.")


@pytest.mark.parametrize("seed, expected", [
    (0, ("Tom kam um ⦅N1⦆ an. ⦅X1⦆", "Tom arrived at ⦅N1⦆. ⦅X1⦆")),       # end, after punctuation
    (5, ("Tom kam um ⦅N1⦆ an ⦅X1⦆.", "Tom arrived at ⦅N1⦆ ⦅X1⦆.")),       # end, before it
    (1, ("⦅X1⦆: Tom kam um ⦅N1⦆ an.", "⦅X1⦆: Tom arrived at ⦅N1⦆.")),     # start
])
def test_mask_pair_synthetic(seed, expected):
    assert mask_pair(*PAIR, random.Random(seed), p_names=0, p_synthetic=1) == expected


@pytest.mark.parametrize("de, en, expected", [
    ("Die Miete beträgt 1.450 Euro im Monat.", "The rent is 1,450 euros per month.",
     ("Die Miete beträgt ⦅N1⦆ Euro im Monat.", "The rent is ⦅N1⦆ euros per month.")),
    ("Er lief 42,195 Kilometer in 3 Stunden.", "He ran 42.195 kilometers in 3 hours.",
     ("Er lief ⦅N1⦆ Kilometer in ⦅N2⦆ Stunden.", "He ran ⦅N1⦆ kilometers in ⦅N2⦆ hours.")),
    # numbered in German order, whatever the English order
    ("Tom kam 1956 mit 3 Koffern an.", "With 3 suitcases, Tom arrived in 1956.",
     ("Tom kam ⦅N1⦆ mit ⦅N2⦆ Koffern an.", "With ⦅N2⦆ suitcases, Tom arrived in ⦅N1⦆.")),
    # a date with a month name is one span, written in English ("3 May"): "May 3rd" is no match
    ("Tom wurde 1956 in Boston geboren, am 3. Mai.", "Tom was born on May 3rd, 1956 in Boston.",
     ("Tom wurde ⦅N1⦆ in Boston geboren, am 3. Mai.", "Tom was born on May 3rd, ⦅N1⦆ in Boston.")),
    # present on one side only, or with different counts: left alone on both sides
    ("Ich habe 2 Katzen und 2 Hunde.", "I have two cats and 2 dogs.",
     ("Ich habe 2 Katzen und 2 Hunde.", "I have two cats and 2 dogs.")),
    ("Er ist 30.", "He is thirty.", ("Er ist 30.", "He is thirty.")),
    ("Schreib an info@firma.de 🎶", "Write to info@firma.de 🎶",
     ("Schreib an ⦅X1⦆ ⦅X2⦆", "Write to ⦅X1⦆ ⦅X2⦆")),
    ("Kein Treffer hier.", "No match here.", ("Kein Treffer hier.", "No match here.")),
])
def test_mask_pair_spans(de, en, expected):
    assert mask_pair(de, en, random.Random(0), p_names=0, p_synthetic=0) == expected


def test_mask_pair_names():
    de = "Tom und Maria fahren um 7:05 nach Boston, sagt Tom."
    en = "Tom says he and Mary leave for Boston at 7:05."
    # "Tom" twice in German, once in English: left alone; Maria/Mary differ
    assert mask_pair(de, en, random.Random(0), p_names=1, p_synthetic=0) == (
        "Tom und Maria fahren um ⦅N1⦆ nach ⦅X1⦆, sagt Tom.",
        "Tom says he and Mary leave for ⦅X1⦆ at ⦅N1⦆.")
    assert mask_pair(de, en, random.Random(0), p_names=0, p_synthetic=0) == (
        "Tom und Maria fahren um ⦅N1⦆ nach Boston, sagt Tom.",
        "Tom says he and Mary leave for Boston at ⦅N1⦆.")


def test_mask_pair_is_deterministic_and_varies():
    pairs = [PAIR, ("Hallo Tom!", "Hi Tom!"), ("Die Miete beträgt 1.450 Euro.", "The rent is 1,450 euros.")] * 20
    first = [mask_pair(de, en, random.Random(7)) for de, en in pairs]
    assert first == [mask_pair(de, en, random.Random(7)) for de, en in pairs]
    rng = random.Random(3)
    results = [mask_pair(de, en, rng, p_names=0.5, p_synthetic=0.5) for de, en in pairs]
    assert {r[0] for r in results} > {"Hallo ⦅X1⦆!", "Hallo Tom!", "Hallo Tom! ⦅X1⦆", "⦅X1⦆: Hallo ⦅X2⦆!"}


def test_mask_pair_never_exceeds_slots():
    de = " ".join(f"{i} Tom{chr(97 + i)}" for i in range(25)) + "."
    en = " ".join(f"{i} Tom{chr(97 + i)}" for i in range(25)) + "."
    masked_de, masked_en = mask_pair(de, en, random.Random(0), p_names=1, p_synthetic=1)
    assert masked_de.count("⦅N") == masked_en.count("⦅N") == 20
    assert masked_de.count("⦅X") == masked_en.count("⦅X") == 20
    assert masked_de.startswith("⦅N1⦆ ⦅X1⦆ ⦅N2⦆ ⦅X2⦆")
    assert masked_de.endswith("⦅N20⦆ ⦅X20⦆ 20 Tomu 21 Tomv 22 Tomw 23 Tomx 24 Tomy.")


@pytest.mark.parametrize("name, value", [("p_names", -0.1), ("p_names", 1.5), ("p_synthetic", "0.1"),
                                         ("p_synthetic", True)])
def test_mask_pair_rejects_probabilities(name, value):
    with pytest.raises(ValueError) as error:
        mask_pair("a", "b", random.Random(0), **{name: value})
    assert str(error.value) == f"{name} must be a probability in [0, 1], got {value!r}"


@pytest.mark.parametrize("de, en, expected", [
    ("Ich habe zwei Katzen und drei Hunde.", "I have three dogs and two cats.",
     ("Ich habe ⦅N1⦆ Katzen und ⦅N2⦆ Hunde.", "I have ⦅N2⦆ dogs and ⦅N1⦆ cats.")),
    ("Er ist ⦅N1⦆ Jahre alt und hat zwei Söhne.", "He is ⦅N1⦆ years old and has two sons.",
     ("Er ist ⦅N1⦆ Jahre alt und hat ⦅N2⦆ Söhne.", "He is ⦅N1⦆ years old and has ⦅N2⦆ sons.")),
    ("Zwei plus zwei ist vier.", "Two plus two is four.",            # which "two" is which: unclear
     ("Zwei plus zwei ist vier.", "Two plus two is four.")),
    ("Ich habe drei Brüder.", "I have 3 brothers.",                  # no English word to pair with
     ("Ich habe drei Brüder.", "I have 3 brothers.")),
    ("Sie hat zwölf Enkel.", "She has twelve grandchildren.",
     ("Sie hat ⦅N1⦆ Enkel.", "She has ⦅N1⦆ grandchildren.")),
])
def test_mask_number_words(de, en, expected):
    assert mask_number_words(de, en) == expected


def test_augment_pairs_is_seeded_and_adds_to_the_originals():
    pairs = [("Tom hat 3 Katzen.", "Tom has 3 cats."), ("Wir brauchen das.", "We need this.")] * 200
    first = augment_pairs(pairs, Augmentation(), seed=1)
    assert first == augment_pairs(pairs, Augmentation(), seed=1)
    assert first != augment_pairs(pairs, Augmentation(), seed=2)
    assert [p for p in first if p in pairs] == pairs                         # every original, in order
    cats = [p for p in first if "katzen" in p[0].lower()]
    assert len(cats) == 400                   # the shared number is always masked: one more pair each
    assert sum("⦅N1⦆" in de and "⦅N1⦆" in en for de, en in cats) == 200
    assert ("⦅X1⦆ hat ⦅N1⦆ Katzen.", "⦅X1⦆ has ⦅N1⦆ cats.") in first      # name and number masked
    assert ("WIR BRAUCHEN DAS.", "WE NEED THIS.") in first                  # upper-cased share
    off = Augmentation(placeholders=False, upper_share=0.0, title_share=0.0)
    assert augment_pairs(pairs, off, seed=1) == pairs


@pytest.mark.parametrize("changes, message", [
    ({"placeholder_names": 1.5}, "placeholder_names must be in [0, 1], got 1.5"),
    ({"upper_share": -0.1}, "upper_share must be in [0, 1], got -0.1"),
    ({"upper_share": 0.6, "title_share": 0.6}, "upper_share + title_share must be <= 1, got 1.2"),
])
def test_augmentation_rejects_bad_shares(changes, message):
    with pytest.raises(ValueError) as error:
        Augmentation(**changes)
    assert str(error.value) == message


# ------------------------------------------------------------------ long inputs: concatenation

SENTENCES = [(f"Satz Nummer {i} ist kurz.", f"Sentence number {i} is short.") for i in range(300)]


def test_concatenations_join_2_to_5_consecutive_sentence_pairs():
    joined = concatenate_pairs(SENTENCES, 0.2, random.Random(1))
    assert joined == concatenate_pairs(SENTENCES, 0.2, random.Random(1))          # seeded
    assert 30 < len(joined) < 90                                                   # about a fifth of 300
    for de, en in joined:
        parts = de.split(" ist kurz. ")
        assert 2 <= len(parts) <= CONCAT_MAX and len(de) <= CONCAT_MAX_CHARS
        first = int(parts[0].split()[2])
        # consecutive pairs of the corpus, German with a space, English likewise
        assert (de, en) == (" ".join(d for d, _ in SENTENCES[first:first + len(parts)]),
                            " ".join(e for _, e in SENTENCES[first:first + len(parts)]))
    assert {de.count("Satz") for de, _ in joined} == {2, 3, 4, 5}
    assert concatenate_pairs(SENTENCES, 0.0, random.Random(1)) == []


def test_only_sentences_join_and_long_runs_stop_early():
    words = [("Haus", "house"), ("Datei öffnen", "Open File")] * 50
    assert concatenate_pairs(words, 1.0, random.Random(1)) == []                   # no pseudo-sentences
    mixed = [("Das ist gut.", "That is good."), ("Hallo,", "Hello,"), ("Ja!", "Yes!"), ("Wirklich?", "Really?")]
    assert set(concatenate_pairs(mixed, 1.0, random.Random(1))) <= {("Ja! Wirklich?", "Yes! Really?")}
    long = [("Ein langer Satz " + "mit vielen Wörtern " * 12 + ".", "A long sentence.")] * 10
    assert all(len(de) <= CONCAT_MAX_CHARS and de.count(".") == 2
               for de, _ in concatenate_pairs(long, 1.0, random.Random(1)))


def test_augment_pairs_adds_concatenations_after_the_unchanged_pairs():
    plain = augment_pairs(SENTENCES, Augmentation(), seed=1)
    with_concat = augment_pairs(SENTENCES, Augmentation(concat_share=0.1), seed=1)
    assert with_concat[:len(plain)] == plain          # its own random stream: the rest is as before
    assert len(with_concat) > len(plain) and all(de.count("Satz") >= 2 for de, _ in with_concat[len(plain):])
    assert with_concat == augment_pairs(SENTENCES, Augmentation(concat_share=0.1), seed=1)
    with pytest.raises(ValueError, match=r"concat_share must be in \[0, 1\]"):
        Augmentation(concat_share=1.5)
