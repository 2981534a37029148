"""pipeline/documents/base.py: a ``Document``'s units are translated in one call per kind (plain
first, then HTML) and written back in their order."""

from __future__ import annotations

import pytest

from pipeline.documents import Document, Unit
from pipeline.language_pair import DE_EN, EN_DE, LanguagePair
from tests.pipeline.documents.upper import Upper


class Listed(Document):
    """A document of the units given, written back as its translations joined by "|"."""

    def __init__(self, units: list[Unit]):
        self.listed = units
        self.chars = sum(len(unit.text) for unit in units)

    def units(self) -> list[Unit]:
        return self.listed

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        self.languages = languages
        return "|".join(translations).encode()


def test_plain_units_in_one_call_then_html_ones_in_another_written_back_in_order():
    translate = Upper()
    document = Listed([Unit("<i>Hallo</i> Welt", html=True), Unit("Guten Morgen."), Unit("<b>Tschüss</b>", html=True),
                       Unit("Es regnet.")])
    assert document.translate(translate) == "<i>HALLO</i> WELT|GUTEN MORGEN.|<b>TSCHÜSS</b>|ES REGNET.".encode()
    assert translate.calls == [(["Guten Morgen.", "Es regnet."], False), (["<i>Hallo</i> Welt", "<b>Tschüss</b>"], True)]
    assert document.languages == DE_EN   # the default: German into English


def test_the_language_pair_goes_to_write():
    document = Listed([Unit("Good morning.")])
    assert document.translate(Upper(), EN_DE) == b"GOOD MORNING." and document.languages == EN_DE


@pytest.mark.parametrize("units, calls", [
    ([], []),
    ([Unit("Hallo")], [(["Hallo"], False)]),
    ([Unit("<b>Hallo</b>", html=True)], [(["<b>Hallo</b>"], True)]),
])
def test_no_call_for_a_kind_without_units(units, calls):
    translate = Upper()
    Listed(units).translate(translate)
    assert translate.calls == calls


def test_a_translate_function_that_loses_a_text_is_an_error():
    with pytest.raises(ValueError):
        Listed([Unit("Hallo"), Unit("Welt")]).translate(lambda texts, html=False: texts[:1])
