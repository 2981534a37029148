"""pipeline/accelerators.py: a keyboard accelerator marker goes onto the translated word."""

from __future__ import annotations

import pytest

from model.inference.alignment import AlignedText
from pipeline.accelerators import Accelerator, find, place, translate_marked

KNOWN = {"Öffnen", "Speichern", "schließen", "Datei"}


@pytest.mark.parametrize("text, stripped, accelerator", [
    ("&Datei", "Datei", Accelerator("&", (0, 5))),
    ("Spei&chern", "Speichern", Accelerator("&", (0, 9))),
    ("Ö_ffnen", "Öffnen", Accelerator("_", (0, 6))),
    ("Fenster _schließen", "Fenster schließen", Accelerator("_", (8, 17))),
    ("~Datei öffnen", "Datei öffnen", Accelerator("~", (0, 5))),
    # not accelerators
    ("Tom & Jerry", "Tom & Jerry", None),              # between spaces
    ("A &amp; B", "A &amp; B", None),                  # an entity
    ("file_name ist leer", "file_name ist leer", None),  # an identifier
    ("_unbekannt", "_unbekannt", None),                # the lexicon does not know the word
    ("&Datei &Ansicht", "&Datei &Ansicht", None),      # two of a kind are text
    ("5&6", "5&6", None),
])
def test_find(text, stripped, accelerator):
    assert find(text, KNOWN.__contains__) == (stripped, accelerator)


def test_underscore_needs_a_lexicon():
    assert find("_Öffnen", None) == ("_Öffnen", None)
    assert find("&Öffnen", None) == ("Öffnen", Accelerator("&", (0, 6)))


def aligned(source: str, target: str, links: list[tuple[int, int]]) -> AlignedText:
    import re

    spans = lambda text: [m.span() for m in re.finditer(r"\w+|[^\w\s]", text)]  # noqa: E731
    return AlignedText(source, target, spans(source), spans(target), links)


def test_place_on_the_aligned_word_or_the_first():
    # "Datei speichern" -> "Save file": the marked "Datei" (source word 0) is aligned to "file" (1)
    assert place(aligned("Datei speichern", "Save file", [(0, 1), (1, 0)]), Accelerator("&", (0, 5))) == "Save &file"
    assert place(aligned("Speichern", "Save", []), Accelerator("_", (0, 9))) == "_Save"
    assert place(aligned("Öffnen", "... open", [(3, 0)]), Accelerator("~", (0, 6))) == "... ~open"


def test_translate_marked_aligns_only_the_marked_texts():
    calls = []

    def translate(texts):
        calls.append(("plain", texts))
        return [t.upper() for t in texts]

    def translate_aligned(texts):
        calls.append(("aligned", texts))
        return [aligned(t, "Save", [(0, 0)]) for t in texts]

    assert translate_marked(["Hallo", "Spei&chern"], translate, translate_aligned, None) == ["HALLO", "&Save"]
    assert calls == [("plain", ["Hallo"]), ("aligned", ["Speichern"])]
