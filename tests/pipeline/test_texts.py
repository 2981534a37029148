"""pipeline/texts.py: the service's texts (and the documents') to the pipeline, plain or HTML.

``UpperPipeline`` stands for a ``Pipeline``: it upper-cases every word outside braces (the real
one keeps placeholders as written), each aligned to itself, and records what it was asked, so
that what is under test is which texts reach which of the pipeline's calls; the model is used end
to end in tests/app/test_api.py.
"""

from __future__ import annotations

import re
import unicodedata
from types import SimpleNamespace

from model.inference.alignment import AlignedText
from pipeline.language_pair import EN_DE
from pipeline.texts import translate_texts

OUTSIDE_BRACES = re.compile(r"[^{}]+(?![^{]*})")


def words(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\w+|[^\w\s]", text)]


class UpperPipeline:
    def __init__(self) -> None:
        self.translator = SimpleNamespace(lexicon=None)
        self.calls: list[tuple[str, list[str]]] = []

    def translate(self, texts: list[str]) -> list[str]:
        self.calls.append(("translate", list(texts)))
        return [OUTSIDE_BRACES.sub(lambda m: m.group().upper(), text) for text in texts]

    def translate_aligned(self, texts: list[str]) -> list[AlignedText]:
        self.calls.append(("translate_aligned", list(texts)))
        return [AlignedText(text, text.upper(), words(text), words(text.upper()),
                            [(i, i) for i in range(len(words(text)))]) for text in texts]


def test_plain_texts_go_to_translate_with_icu_messages_by_their_parts_in_one_call():
    pipeline = UpperPipeline()
    texts = ["Guten Morgen.", "Sie haben {count, plural, one {# Datei} other {# Dateien}} gelöscht."]
    assert translate_texts(pipeline, texts) == [
        "GUTEN MORGEN.", "SIE HABEN {count, plural, one {# DATEI} other {# DATEIEN}} GELÖSCHT."]
    assert pipeline.calls == [("translate", ["Guten Morgen.", "{__n} Datei", "{__n} Dateien",
                                             "Sie haben {__c0} gelöscht."])]


def test_a_keyboard_accelerator_goes_through_the_alignment_onto_its_word():
    pipeline = UpperPipeline()
    assert translate_texts(pipeline, ["&Datei öffnen"]) == ["&DATEI ÖFFNEN"]
    assert pipeline.calls == [("translate_aligned", ["Datei öffnen"])]


def test_html_fragments_go_through_the_markup_pipeline_in_nfc():
    pipeline = UpperPipeline()
    decomposed = unicodedata.normalize("NFD", "<b>Grüße</b> aus Köln")
    assert translate_texts(pipeline, [decomposed, "Hallo"], html=True) == ["<b>GRÜSSE</b> AUS KÖLN", "HALLO"]
    assert pipeline.calls == [("translate_aligned", ["Grüße aus Köln", "Hallo"])]


def test_no_texts_no_call():
    pipeline = UpperPipeline()
    assert translate_texts(pipeline, []) == [] and translate_texts(pipeline, [], html=True) == []
    assert pipeline.calls == []


def test_html_lang_attributes_name_the_target_of_the_language_pair():
    fragments = ['<p lang="de-DE">Hallo</p>', '<p lang="en-GB">Hello</p>']
    assert translate_texts(UpperPipeline(), fragments, html=True) == ['<p lang="en">HALLO</p>', '<p lang="en-GB">HELLO</p>']
    assert translate_texts(UpperPipeline(), fragments, html=True, languages=EN_DE) == [
        '<p lang="de-DE">HALLO</p>', '<p lang="de">HELLO</p>']
