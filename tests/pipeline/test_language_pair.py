"""pipeline/language_pair.py: the two languages of a translation, and the tags that name them."""

from __future__ import annotations

import pytest

from pipeline.language_pair import DE_EN, EN_DE, LanguagePair


def test_the_pairs_and_their_directions():
    assert LanguagePair() == DE_EN == LanguagePair.of("de-en")
    assert LanguagePair.of("en-de") == EN_DE == LanguagePair("en", "de")
    assert (DE_EN.direction, EN_DE.direction) == ("de-en", "en-de")
    assert (DE_EN.target_tag, EN_DE.target_tag) == ("en-US", "de-DE")
    assert (DE_EN.region, EN_DE.region) == ("US", "DE")


@pytest.mark.parametrize("source, target", [("de", "de"), ("en", "fr"), ("fr", "en"), ("", "")])
def test_only_german_and_english_pair(source, target):
    with pytest.raises(ValueError) as info:
        LanguagePair(source, target)
    assert str(info.value) == f"a language pair is de-en or en-de, got {source}-{target}"


@pytest.mark.parametrize("tag, german, english", [
    ("de", True, False), ("de-DE", True, False), ("DE_at", True, False), (" de-CH ", True, False),
    ("en", False, True), ("en-GB", False, True), ("en_US", False, True), ("EN", False, True),
    ("deu", False, False), ("eng", False, False), ("fr-FR", False, False), ("", False, False), (None, False, False),
])
def test_names_source(tag, german, english):
    assert (DE_EN.names_source(tag), EN_DE.names_source(tag)) == (german, english)


@pytest.mark.parametrize("languages, tag, expected", [
    (DE_EN, "de", "en"), (DE_EN, "de-DE", "en-US"), (DE_EN, "de_AT", "en_US"), (DE_EN, " de-CH", " en-US"),
    (EN_DE, "en", "de"), (EN_DE, "en-GB", "de-DE"), (EN_DE, "en_US", "de_DE"), (EN_DE, "EN", "de"),
])
def test_retag_keeps_the_form_of_the_tag(languages, tag, expected):
    assert languages.retag(tag) == expected
