"""pipeline/documents/word.py: .docx files in, translated files out.

``Upper`` (tests/pipeline/documents/upper.py) upper-cases every word in place (each aligned to
itself) or follows an explicit table, so that what is under test is where text, runs and
formatting end up; the model itself is used end to end in tests/app/test_files.py.
"""

from __future__ import annotations

import io
import zipfile

import docx
import pytest
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from pipeline.documents import DocumentError, DocumentTooLarge, read, word
from tests.pipeline.documents import hostile_files as hostile
from tests.pipeline.documents.limits import spy_on, too_many_paragraphs
from tests.pipeline.documents.office_files import PNG, zip_file
from pipeline.language_pair import EN_DE
from tests.pipeline.documents.upper import FRIDAY, SPLIT, Upper


def saved(document) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def in_languages(paragraphs: list[tuple[str, str]], language: str) -> bytes:
    """A document of ``paragraphs`` (text and the w:lang of its one run) whose core properties
    name ``language``."""
    document = docx.Document()   # python-docx's template: its styles say en-US
    for text, lang in paragraphs:
        properties = document.add_paragraph(text).runs[0]._r.get_or_add_rPr()
        element = OxmlElement("w:lang")
        element.set(qn("w:val"), lang)
        properties.append(element)
    document.core_properties.language = language
    return saved(document)


def roundtrip(document, translate=None) -> docx.Document:
    return docx.Document(io.BytesIO(read(".docx", saved(document)).translate(translate or Upper())))


def runs(paragraph) -> list[tuple[str, bool | None]]:
    return [(r.text, r.bold) for r in paragraph.runs]


@pytest.mark.parametrize("extension, data, message", [
    (".docx", b"Hallo", "file is not a valid .docx document"),
    (".docx", b"PK\x03\x04 truncated", "file is not a valid .docx document"),
])
def test_unreadable_files(extension, data, message):
    with pytest.raises(DocumentError) as info:
        read(extension, data)
    assert str(info.value) == message and not isinstance(info.value, DocumentTooLarge)


def test_a_zip_that_is_no_word_document_is_refused():
    with pytest.raises(DocumentError, match="^file is not a valid .docx document$"):
        read(".docx", zip_file({"hello.txt": b"Hallo"}))


def test_macro_enabled_document_is_refused():
    # A .docm renamed to .docx: python-docx refuses the content type; nothing is ever run anyway.
    data = saved(docx.Document())
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        entries = {info.filename: archive.read(info) for info in archive.infolist()}
    entries["[Content_Types].xml"] = entries["[Content_Types].xml"].replace(
        b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
        b"application/vnd.ms-word.document.macroEnabled.main+xml")
    entries["word/vbaProject.bin"] = b"\x00" * 64
    with pytest.raises(DocumentError, match="^file is not a valid .docx document$"):
        read(".docx", zip_file(entries))


def test_runs_keep_their_formatting_and_paragraphs_their_style():
    document = docx.Document()
    document.add_heading("Das Wetter", level=1)
    p = document.add_paragraph("Die Katze ")
    p.add_run("schläft").bold = True
    p.add_run(".")
    p.runs[1].italic = True
    document.add_paragraph("")                      # empty: left alone
    out = roundtrip(document)
    assert len(out.paragraphs) == 3
    assert [q.style.name for q in out.paragraphs] == ["Heading 1", "Normal", "Normal"]
    assert out.paragraphs[0].text == "DAS WETTER"
    assert runs(out.paragraphs[1]) == [("DIE KATZE ", None), ("SCHLÄFT", True), (".", None)]
    assert out.paragraphs[1].runs[1].italic is True
    assert out.paragraphs[2].text == ""


def test_formatting_follows_a_word_that_moves():
    table = {"Ich habe das Buch gelesen.": ("I have read the book.", [(0, 0), (1, 1), (2, 4), (3, 2), (4, 3), (5, 5)])}
    document = docx.Document()
    p = document.add_paragraph("Ich habe das Buch ")
    p.add_run("gelesen").bold = True
    p.add_run(".")
    out = roundtrip(document, Upper(table))
    assert runs(out.paragraphs[0]) == [("I have ", None), ("read", True), (" the book.", None)]


def test_formatting_keeps_to_the_words_that_translate_it():
    document = docx.Document()
    p = document.add_paragraph("Das hat mir ")
    p.add_run("gar nicht").bold = True
    p.add_run(" gefallen.")
    out = roundtrip(document, Upper(SPLIT))
    assert runs(out.paragraphs[0]) == [("I did not like that ", None), ("at all", True), (".", None)]


def test_bold_with_no_credible_place_goes_around_its_sentence():
    # "**Freitag, dem 12. Juli** feiern wir ..." came out as "**Friday, we** will celebrate 12 July ..."
    document = docx.Document()
    p = document.add_paragraph()
    p.add_run("Freitag, dem 12. Juli").bold = True
    p.add_run(" feiern wir unser Sommerfest.")
    out = roundtrip(document, Upper(FRIDAY))
    assert runs(out.paragraphs[0]) == [("Friday, we will celebrate 12 July with our summer party.", True)]


def test_a_run_with_its_own_place_keeps_it_inside_a_sentence_around_which_another_went():
    (source, (target, links)), = FRIDAY.items()
    invited = {source + " Alle Kolleginnen und Kollegen sind eingeladen.": (
        target + " All colleagues are invited.", links + [(12, 11), (13, 12), (13, 14), (14, 15), (15, 16), (16, 17)])}
    document = docx.Document()
    p = document.add_paragraph()
    p.add_run("Freitag, dem 12. Juli").bold = True
    p.add_run(" feiern wir unser ")
    p.add_run("Sommerfest").italic = True
    p.add_run(". Alle Kolleginnen und Kollegen sind eingeladen.")
    out = roundtrip(document, Upper(invited))
    assert [(r.text, r.bold, r.italic) for r in out.paragraphs[0].runs] == [
        ("Friday, we will celebrate 12 July with our ", True, None), ("summer party", None, True), (".", True, None),
        (" All colleagues are invited.", None, None)]


def test_a_span_stands_for_formatting_that_stands_out():
    document = docx.Document()
    p = document.add_paragraph()
    p.add_run("Freitag, dem ").bold = True    # split by the word processor: one bold stretch
    p.add_run("12. Juli").bold = True
    p.add_run(" feiern wir ")
    p.add_run("unser Sommerfest.")            # formatted as the paragraph mostly is
    translate = Upper()
    roundtrip(document, translate)
    assert translate.calls == [(['<span data-r="0">Freitag, dem 12. Juli</span> feiern wir unser Sommerfest.'], True)]


def test_one_call_for_the_whole_document_and_chars_count_the_text():
    document = docx.Document()
    document.add_paragraph("Guten Morgen.")
    document.add_paragraph("Es regnet.")
    translate = Upper()
    parsed = read(".docx", saved(document))
    assert parsed.chars == len("Guten Morgen.") + len("Es regnet.")
    parsed.translate(translate)
    # a paragraph of one formatting has no span: nothing in it stands out
    assert translate.calls == [(["Guten Morgen.", "Es regnet."], True)]


def test_tables_nested_tables_headers_and_footers_are_translated():
    document = docx.Document()
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Es regnet."
    inner = table.cell(0, 1).add_table(rows=1, cols=1)
    inner.cell(0, 0).text = "Bis morgen."
    section = document.sections[0]
    section.header.paragraphs[0].text = "Kopf"
    section.footer.paragraphs[0].text = "Fuss"
    out = roundtrip(document)
    assert out.tables[0].cell(0, 0).text == "ES REGNET."
    assert out.tables[0].cell(0, 1).tables[0].cell(0, 0).text == "BIS MORGEN."
    assert out.sections[0].header.paragraphs[0].text == "KOPF"
    assert out.sections[0].footer.paragraphs[0].text == "FUSS"


def test_line_breaks_split_lines_and_tabs_stay_between_their_words():
    document = docx.Document()
    p = document.add_paragraph("Name:\tAnna")
    p.runs[0].add_break()
    p.add_run("Es regnet.").add_break(docx.enum.text.WD_BREAK.PAGE)
    translate = Upper()
    out = roundtrip(document, translate)
    assert out.paragraphs[0].text == "NAME:\tANNA\nES REGNET."    # python-docx shows no page break
    xml = out.paragraphs[0]._p.xml
    assert xml.count("<w:br/>") == 1 and xml.count('<w:br w:type="page"/>') == 1
    html = translate.calls[0][0][0]
    assert html.count("<br ") == 2    # each line is translated apart


def hyperlink(paragraph, url: str, text: str):
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), paragraph.part.relate_to(url, RT.HYPERLINK, is_external=True))
    run = OxmlElement("w:r")
    rpr = OxmlElement("w:rPr")
    underline = OxmlElement("w:u")
    underline.set(qn("w:val"), "single")
    rpr.append(underline)
    run.append(rpr)
    t = OxmlElement("w:t")
    t.text = text
    run.append(t)
    link.append(run)
    paragraph._p.append(link)
    return link


def test_hyperlinks_keep_their_target_and_their_words():
    document = docx.Document()
    p = document.add_paragraph("Wo ist der ")
    rid = hyperlink(p, "https://example.org/bahnhof", "Bahnhof").get(qn("r:id"))
    p.add_run("?")
    out = roundtrip(document)
    links = out.paragraphs[0]._p.findall(qn("w:hyperlink"))
    assert len(links) == 1 and links[0].get(qn("r:id")) == rid
    assert "".join(t.text for t in links[0].iter(qn("w:t"))) == "BAHNHOF"
    assert links[0].find(qn("w:r")).find(qn("w:rPr")).find(qn("w:u")) is not None
    assert out.paragraphs[0].text == "WO IST DER BAHNHOF?"


def field_runs(paragraph, instruction: str, result: str) -> None:
    for kind, text in (("begin", None), (None, instruction), ("separate", None), (None, result), ("end", None)):
        run = OxmlElement("w:r")
        if kind:
            char = OxmlElement("w:fldChar")
            char.set(qn("w:fldCharType"), kind)
            run.append(char)
        else:
            t = OxmlElement("w:instrText" if text == instruction else "w:t")
            t.text = text
            run.append(t)
        paragraph._p.append(run)


def test_fields_and_pictures_are_kept_as_written_where_they_stood():
    document = docx.Document()
    p = document.add_paragraph("Seite ")
    field_runs(p, " PAGE ", "3")
    p.add_run(" von 5 ")
    p.add_run().add_picture(io.BytesIO(PNG))
    p.add_run(" Bild ").add_picture(io.BytesIO(PNG))   # a picture in a run with text
    p.add_run("oben.")
    out = roundtrip(document)
    body = out.paragraphs[0]._p
    texts = [(e.tag.split("}")[1], e.text) for e in body.iter(qn("w:t"), qn("w:instrText"))]
    assert texts == [("t", "SEITE "), ("instrText", " PAGE "), ("t", "3"), ("t", " VON 5 "), ("t", " BILD "),
                     ("t", "OBEN.")]
    content = [c.tag.split("}")[1] for r in body.iter(qn("w:r")) for c in r if c.tag != qn("w:rPr")]
    assert content[-5:] == ["t", "drawing", "t", "drawing", "t"]   # each picture where it was
    assert [c.get(qn("w:fldCharType")) for c in body.iter(qn("w:fldChar"))] == ["begin", "separate", "end"]


def test_spelling_marks_are_dropped_and_blank_paragraphs_untouched():
    document = docx.Document()
    p = document.add_paragraph("Ich mag ")
    p._p.append(OxmlElement("w:proofErr"))
    p.add_run("Kaffee.")
    blank = document.add_paragraph("   ")
    before = blank._p.xml
    out = roundtrip(document)
    assert out.paragraphs[0].text == "ICH MAG KAFFEE." and "proofErr" not in out.paragraphs[0]._p.xml
    assert out.paragraphs[1]._p.xml == before


def test_text_outside_every_run_takes_the_longest_runs_formatting():
    # "sehr" aligns to nothing, so the output word "really" lies outside both runs' spans.
    table = {"Das ist sehr gut.": ("That is really good.", [(0, 0), (1, 1), (3, 3), (4, 4)])}
    document = docx.Document()
    p = document.add_paragraph()
    p.add_run("Das ist").italic = True
    p.add_run(" sehr gut.").bold = True
    translate = Upper(table)
    out = roundtrip(document, translate)
    assert translate.aligned(["Das ist sehr gut."])[0].target == "That is really good."
    assert [(r.text, r.italic, r.bold) for r in out.paragraphs[0].runs] == [
        ("That is", True, None), (" really good.", None, True)]


def test_a_docx_says_it_is_english_where_it_said_german():
    data = in_languages([("Guten Morgen.", "de-DE"), ("Bonjour.", "fr-FR")], "de-AT")
    out = docx.Document(io.BytesIO(read(".docx", data).translate(Upper())))
    assert [(p.text, p.runs[0]._r.rPr.find(qn("w:lang")).get(qn("w:val"))) for p in out.paragraphs] == [
        ("GUTEN MORGEN.", "en-US"), ("BONJOUR.", "fr-FR")]
    assert out.core_properties.language == "en-US"


def test_a_docx_of_empty_paragraphs_is_refused_and_stops_there(monkeypatch):
    scanned = spy_on(monkeypatch, word)
    with pytest.raises(DocumentTooLarge, match=too_many_paragraphs(".docx", 50_000)):
        read(".docx", hostile.docx_empty_paragraphs(60_000), 20_000)
    assert len(scanned) == 50_000


def test_an_english_docx_says_it_is_german_after_en_de():
    data = in_languages([("Good morning.", "en-GB"), ("Guten Tag.", "de-AT"), ("Bonjour.", "fr-FR")], "en_US")
    out = docx.Document(io.BytesIO(read(".docx", data).translate(Upper(languages=EN_DE), EN_DE)))
    assert [(p.text, p.runs[0]._r.rPr.find(qn("w:lang")).get(qn("w:val"))) for p in out.paragraphs] == [
        ("GOOD MORNING.", "de-DE"), ("GUTEN TAG.", "de-AT"), ("BONJOUR.", "fr-FR")]
    assert out.core_properties.language == "de-DE"
    default = out.styles.element.find(qn("w:docDefaults")).find(".//" + qn("w:lang"))
    assert (default.get(qn("w:val")), default.get(qn("w:eastAsia")), default.get(qn("w:bidi"))) == ("de-DE", "de-DE", "ar-SA")
