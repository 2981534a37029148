"""pipeline/documents/presentation.py: .pptx files in, translated files out."""

from __future__ import annotations

import io

import docx
import pptx
import pytest

from pipeline.documents import DocumentError, DocumentTooLarge, presentation, read
from tests.pipeline.documents import hostile_files as hostile
from tests.pipeline.documents.limits import spy_on, too_many_paragraphs
from tests.pipeline.documents.office_files import PNG, pptx_file, zip_file
from tests.pipeline.documents.office_files import zip_members as members
from tests.pipeline.documents.upper import MOVING, Upper


def test_pptx_text_frames_groups_tables_and_notes_are_translated_with_runs_on_their_words():
    source = pptx_file("Guten Morgen", [("Die Katze ", False), ("schläft", True), (".", False)],
                       cell="Es regnet.", notes="Langsam sprechen.")
    translate = Upper()
    document = read(".pptx", source)
    assert document.chars == len("Guten Morgen") + len("Die Katze schläft.") + len("Es regnet.") + len(
        "Langsam sprechen.")
    out = document.translate(translate)
    assert len(translate.calls) == 1
    slide = pptx.Presentation(io.BytesIO(out)).slides[0]
    title, group, picture, table = slide.shapes
    assert title.text_frame.text == "GUTEN MORGEN"
    assert [(r.text, r.font.bold) for r in group.shapes[0].text_frame.paragraphs[0].runs] == [
        ("DIE KATZE ", None), ("SCHLÄFT", True), (".", None)]
    assert table.table.cell(0, 0).text == "ES REGNET."
    assert slide.notes_slide.notes_text_frame.text == "LANGSAM SPRECHEN."
    assert picture.image.blob == PNG
    before, after = members(source), members(out)
    assert list(after) == list(before)
    changed = {"ppt/slides/slide1.xml", "ppt/notesSlides/notesSlide1.xml"}
    assert {n: d for n, d in after.items() if n not in changed} == {n: d for n, d in before.items() if n not in changed}


def test_pptx_formatting_follows_a_word_that_moves_and_tabs_and_breaks_stay():
    source = pptx_file("Name:\tAnna\vEs regnet.", [("Ich habe das Buch ", False), ("gelesen", True), (".", False)])
    slide = pptx.Presentation(io.BytesIO(read(".pptx", source).translate(Upper(MOVING)))).slides[0]
    assert slide.shapes[0].text_frame.text == "NAME:\tANNA\vES REGNET."     # \v: python-pptx's a:br
    assert [(r.text, r.font.bold) for r in slide.shapes[1].shapes[0].text_frame.paragraphs[0].runs] == [
        ("I have ", None), ("read", True), (" the book.", None)]


def test_a_slide_number_field_is_kept_as_written():
    entries = members(pptx_file("Seite", [("Hallo", False)]))
    field = (b'<a:fld id="{B6F15528-21DE-4FAA-801E-634DDDAF4B2B}" type="slidenum"><a:rPr lang="de-DE"/>'
             b"<a:t>3</a:t></a:fld>")
    entries["ppt/slides/slide1.xml"] = entries["ppt/slides/slide1.xml"].replace(b"<a:t>Seite</a:t></a:r>",
                                                                                b"<a:t>Seite </a:t></a:r>" + field, 1)
    out = read(".pptx", zip_file(entries)).translate(Upper())
    assert field in members(out)["ppt/slides/slide1.xml"]
    assert pptx.Presentation(io.BytesIO(out)).slides[0].shapes[0].text_frame.text == "SEITE 3"


def macro_enabled_pptx() -> bytes:
    entries = members(pptx_file("Hallo", []))
    entries["[Content_Types].xml"] = entries["[Content_Types].xml"].replace(
        b"application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
        b"application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml")
    entries["ppt/vbaProject.bin"] = b"\x00" * 64
    return zip_file(entries)


def word_file() -> bytes:
    out = io.BytesIO()
    docx.Document().save(out)
    return out.getvalue()


BAD = {
    "pptx not a zip": (".pptx", b"PK\x03\x04 truncated", "file is not a valid .pptx document"),
    "docx as pptx": (".pptx", word_file(), "file is not a valid .pptx document"),
    "pptm as pptx": (".pptx", macro_enabled_pptx(), "file is not a valid .pptx document: macro-enabled presentations are refused"),
}


@pytest.mark.parametrize("extension, data, message", BAD.values(), ids=BAD.keys())
def test_unreadable_files(extension, data, message):
    with pytest.raises(DocumentError) as info:
        read(extension, data)
    assert str(info.value) == message and not isinstance(info.value, DocumentTooLarge)


def test_a_pptx_of_empty_paragraphs_is_refused_and_stops_there(monkeypatch):
    scanned = spy_on(monkeypatch, presentation)
    with pytest.raises(DocumentTooLarge, match=too_many_paragraphs(".pptx", 50_000)):
        read(".pptx", hostile.pptx_empty_paragraphs(60_000), 20_000)
    assert len(scanned) == 50_000
