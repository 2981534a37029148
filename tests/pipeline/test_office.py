"""pipeline/documents.py: .odt, .odp, .pptx, .epub and .pdf files in, translated files out.

As in test_documents.py, ``Upper`` upper-cases every word in place (or follows a table), so that
what is under test is where text and formatting end up and what stays byte for byte; the files
are made here (tests/pipeline/office_files.py) and the model is used end to end in
tests/app/test_files.py.
"""

from __future__ import annotations

import io
import re
import zipfile

import docx
import pptx
import pypdf
import pytest
from lxml import etree

from pipeline import documents
from pipeline.documents import DocumentError, DocumentTooLarge, read
from tests.pipeline.office_files import (ODF_NAMESPACES, PNG, epub_file, epub_members, odf_content, odf_file,
                                         odf_members, pdf_file, pptx_file, zip_file)
from tests.pipeline.test_documents import SPLIT, Upper

MOVING = {"Ich habe das Buch gelesen.": ("I have read the book.", [(0, 0), (1, 1), (2, 4), (3, 2), (4, 3), (5, 5)])}


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def assert_mimetype_first_and_stored(data: bytes, mimetype: bytes) -> None:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        first = archive.infolist()[0]
        assert (first.filename, first.compress_type, archive.read(first)) == ("mimetype", zipfile.ZIP_STORED, mimetype)
    assert data[30:38] == b"mimetype" and data[38:38 + len(mimetype)] == mimetype   # as ODF and OCF readers sniff


def paragraphs(content: bytes) -> list[str]:
    """The text paragraphs and headings of a content.xml, as XML with prefixes and no declarations."""
    root = etree.fromstring(content)
    found = root.iter(f"{{{ODF_NAMESPACES['text']}}}p", f"{{{ODF_NAMESPACES['text']}}}h")
    return [re.sub(r' xmlns:\w+="[^"]*"', "", etree.tostring(p, encoding="unicode", with_tail=False)) for p in found]


# ------------------------------------------------------------------------------------ .odt / .odp

ODT_BODY = (
    '<text:h text:outline-level="1">Das Wetter</text:h>'
    '<text:p text:style-name="P1">Die Katze <text:span text:style-name="T1">schläft</text:span>.</text:p>'
    "<text:p>Name:<text:tab/>Anna<text:line-break/>Es regnet.</text:p>"
    "<text:list><text:list-item><text:p>Guten Morgen.</text:p></text:list-item></text:list>"
    "<table:table><table:table-row><table:table-cell><text:p>Bis morgen.</text:p></table:table-cell>"
    "</table:table-row></table:table>"
    '<text:p>Wo ist der <text:a xlink:href="https://example.org/bahnhof">Bahnhof</text:a>?</text:p>'
    '<text:p>Siehe Bild<text:note text:id="n1" text:note-class="footnote"><text:note-citation>1</text:note-citation>'
    "<text:note-body><text:p>Eine Fußnote.</text:p></text:note-body></text:note> oben.</text:p>"
    '<text:p><draw:frame draw:name="Bild"><draw:image xlink:href="Pictures/bild.png"/></draw:frame></text:p>'
    '<text:p><text:s text:c="3"/>Eingerückt <text:span text:style-name="T1">und <text:span '
    'text:style-name="T2">fett</text:span></text:span></text:p>'
    "<text:p>   </text:p>"
)


def test_odt_paragraphs_are_translated_in_place_with_spans_on_their_words():
    source = odf_file(ODT_BODY)
    translate = Upper()
    document = read(".odt", source)
    assert document.chars == sum(map(len, ["Das Wetter", "Die Katze schläft.", "Name:Anna", "Es regnet.",
                                           "Guten Morgen.", "Bis morgen.", "Wo ist der Bahnhof?", "Siehe Bild oben.",
                                           "   Eingerückt und fett"]))
    out = document.translate(translate)
    assert len(translate.calls) == 1 and translate.calls[0][1] is True      # one batch, as HTML fragments
    assert paragraphs(members(out)["content.xml"]) == [
        '<text:h text:outline-level="1">DAS WETTER</text:h>',
        '<text:p text:style-name="P1">DIE KATZE <text:span text:style-name="T1">SCHLÄFT</text:span>.</text:p>',
        "<text:p>NAME:<text:tab/>ANNA<text:line-break/>ES REGNET.</text:p>",
        "<text:p>GUTEN MORGEN.</text:p>",
        "<text:p>BIS MORGEN.</text:p>",
        '<text:p>WO IST DER <text:a xlink:href="https://example.org/bahnhof">BAHNHOF</text:a>?</text:p>',
        '<text:p>SIEHE BILD<text:note text:id="n1" text:note-class="footnote"><text:note-citation>1</text:note-citation>'
        "<text:note-body><text:p>Eine Fußnote.</text:p></text:note-body></text:note> OBEN.</text:p>",  # notes: as written
        "<text:p>Eine Fußnote.</text:p>",
        '<text:p><draw:frame draw:name="Bild"><draw:image xlink:href="Pictures/bild.png"/></draw:frame></text:p>',
        '<text:p><text:s text:c="3"/>EINGERÜCKT <text:span text:style-name="T1">UND</text:span> '
        '<text:span text:style-name="T1"><text:span text:style-name="T2">FETT</text:span></text:span></text:p>',
        "<text:p>   </text:p>",
    ]
    before, after = members(source), members(out)
    assert list(after) == list(before)
    assert {name: data for name, data in after.items() if name != "content.xml"} == {
        name: data for name, data in before.items() if name != "content.xml"}     # styles, pictures ... byte for byte
    assert_mimetype_first_and_stored(out, b"application/vnd.oasis.opendocument.text")


ODF_STYLE_NS = ('xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
                'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"')


def test_an_odt_says_it_is_english_where_it_said_german():
    """The default style's, a paragraph style's and the metadata's language: German becomes
    English (spelling checkers and screen readers follow it); another language stays."""
    german = '<style:text-properties fo:language="de" fo:country="DE"/>'
    french = '<style:text-properties fo:language="fr" fo:country="FR"/>'
    files = odf_members("<text:p>Guten Morgen.</text:p>")
    files["content.xml"] = files["content.xml"].replace(b"office:version=", f"{ODF_STYLE_NS} office:version=".encode()).replace(
        b"<office:body>", f'<office:automatic-styles><style:style style:name="P1">{german}</style:style>'
                          f'<style:style style:name="P2">{french}</style:style></office:automatic-styles>'
                          "<office:body>".encode())
    files["styles.xml"] = files["styles.xml"].replace(b"<office:document-styles ", f"<office:document-styles {ODF_STYLE_NS} ".encode()).replace(
        b"<office:master-styles>", f'<office:styles><style:default-style style:family="paragraph">{german}'
                                   "</style:default-style></office:styles><office:master-styles>".encode())
    files["meta.xml"] = files["meta.xml"].replace(b"<office:meta/>", b'<office:meta><dc:language xmlns:dc="http://purl.org/'
                                                                     b'dc/elements/1.1/">de-DE</dc:language></office:meta>')
    source = zip_file(files)
    after = members(read(".odt", source).translate(Upper()))
    english = german.replace('"de"', '"en"').replace('"DE"', '"US"')
    assert english.encode() in after["content.xml"] and french.encode() in after["content.xml"]
    assert after["styles.xml"] == files["styles.xml"].replace(german.encode(), english.encode())
    assert after["meta.xml"] == files["meta.xml"].replace(b">de-DE<", b">en<")
    assert {n: d for n, d in after.items() if n not in ("content.xml", "styles.xml", "meta.xml")} == {
        n: d for n, d in files.items() if n not in ("content.xml", "styles.xml", "meta.xml")}


def test_a_docx_says_it_is_english_where_it_said_german():
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    document = docx.Document()
    for text, language in (("Guten Morgen.", "de-DE"), ("Bonjour.", "fr-FR")):
        properties = document.add_paragraph(text).runs[0]._r.get_or_add_rPr()
        lang = OxmlElement("w:lang")
        lang.set(qn("w:val"), language)
        properties.append(lang)
    document.core_properties.language = "de-AT"
    data = io.BytesIO()
    document.save(data)
    out = docx.Document(io.BytesIO(read(".docx", data.getvalue()).translate(Upper())))
    assert [(p.text, p.runs[0]._r.rPr.find(qn("w:lang")).get(qn("w:val"))) for p in out.paragraphs] == [
        ("GUTEN MORGEN.", "en-US"), ("BONJOUR.", "fr-FR")]
    assert out.core_properties.language == "en-US"


def test_odt_formatting_follows_a_word_that_moves():
    body = '<text:p>Ich habe das Buch <text:span text:style-name="T1">gelesen</text:span>.</text:p>'
    out = read(".odt", odf_file(body)).translate(Upper(MOVING))
    assert paragraphs(members(out)["content.xml"]) == [
        '<text:p>I have <text:span text:style-name="T1">read</text:span> the book.</text:p>']


def test_odt_formatting_keeps_to_the_words_that_translate_it():
    body = '<text:p>Das hat mir <text:span text:style-name="T1">gar nicht</text:span> gefallen.</text:p>'
    out = read(".odt", odf_file(body)).translate(Upper(SPLIT))
    assert paragraphs(members(out)["content.xml"]) == [
        '<text:p>I did not like that <text:span text:style-name="T1">at all</text:span>.</text:p>']


def test_odp_slides_tables_and_speaker_notes_are_translated():
    body = ('<draw:page draw:name="Folie 1"><draw:frame presentation:class="title"><draw:text-box>'
            "<text:p>Guten Morgen</text:p></draw:text-box></draw:frame>"
            '<draw:frame><draw:text-box><text:list><text:list-item><text:p>Die Katze <text:span text:style-name="T1">'
            "schläft</text:span>.</text:p></text:list-item></text:list></draw:text-box></draw:frame>"
            "<draw:frame><table:table><table:table-row><table:table-cell><text:p>Es regnet.</text:p>"
            "</table:table-cell></table:table-row></table:table></draw:frame>"
            '<draw:frame><draw:image xlink:href="Pictures/bild.png"/></draw:frame>'
            "<presentation:notes><draw:frame><draw:text-box><text:p>Langsam sprechen.</text:p></draw:text-box>"
            "</draw:frame></presentation:notes></draw:page>")
    source = odf_file(body, ".odp")
    out = read(".odp", source).translate(Upper())
    assert paragraphs(members(out)["content.xml"]) == [
        "<text:p>GUTEN MORGEN</text:p>",
        '<text:p>DIE KATZE <text:span text:style-name="T1">SCHLÄFT</text:span>.</text:p>',
        "<text:p>ES REGNET.</text:p>",
        "<text:p>LANGSAM SPRECHEN.</text:p>",
    ]
    assert members(out)["Pictures/bild.png"] == PNG and members(out)["styles.xml"] == members(source)["styles.xml"]
    assert_mimetype_first_and_stored(out, b"application/vnd.oasis.opendocument.presentation")


def test_a_text_box_inside_a_paragraph_is_translated_on_its_own():
    body = ('<text:p>Oben <text:span text:style-name="T1"><draw:frame><draw:text-box><text:p>Es regnet.</text:p>'
            "</draw:text-box></draw:frame></text:span>links.</text:p>")
    out = read(".odt", odf_file(body)).translate(Upper())
    assert paragraphs(members(out)["content.xml"]) == [
        '<text:p>OBEN <text:span text:style-name="T1"><draw:frame><draw:text-box><text:p>ES REGNET.</text:p>'
        "</draw:text-box></draw:frame></text:span>LINKS.</text:p>",
        "<text:p>ES REGNET.</text:p>",
    ]


def test_an_odt_without_text_comes_back_as_it_was():
    source = odf_file("<text:p> </text:p>")
    translate = Upper()
    out = read(".odt", source).translate(translate)
    assert translate.calls == [] and members(out) == members(source)


# ------------------------------------------------------------------------------------------- .pptx

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


# ------------------------------------------------------------------------------------------- .epub

CHAPTER = ('<h1 id="k1">Das Wetter</h1>\n<p>Die Katze <b>schläft</b> &amp; träumt.</p>\n'
           '<p><img src="../bild.png" alt="Bild"/></p>')


def test_epub_bodies_are_translated_as_html_and_the_rest_is_byte_for_byte():
    source = epub_file(CHAPTER)
    translate = Upper()
    document = read(".epub", source)
    nav = '<nav epub:type="toc" xmlns:epub="http://www.idpf.org/2007/ops"><ol><li><a href="Text/kapitel%201.xhtml">' \
          "Guten Morgen.</a></li></ol></nav>"
    assert document.chars == len(f"\n{nav}\n") + len(f"\n{CHAPTER}\n")
    out = document.translate(translate)
    assert translate.calls == [([f"\n{nav}\n", f"\n{CHAPTER}\n"], True)]   # the manifest's order, one call
    after, before = members(out), members(source)
    chapter = after["OEBPS/Text/kapitel 1.xhtml"]
    assert chapter == before["OEBPS/Text/kapitel 1.xhtml"].replace(CHAPTER.encode(), (
        '<h1 id="k1">DAS WETTER</h1>\n<p>DIE KATZE <b>SCHLÄFT</b> &amp; TRÄUMT.</p>\n'
        '<p><img src="../bild.png" alt="Bild"/></p>').encode()).replace(
        b'xml:lang="de"', b'xml:lang="en"')    # the head, with its title, as written; its language English
    etree.fromstring(chapter, etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True))   # XML still
    assert b">GUTEN MORGEN.</a>" in after["OEBPS/nav.xhtml"] and b'xml:lang="en"' in after["OEBPS/nav.xhtml"]
    assert after["OEBPS/content.opf"] == before["OEBPS/content.opf"].replace(
        b"<dc:language>de</dc:language>", b"<dc:language>en</dc:language>")
    changed = {"OEBPS/Text/kapitel 1.xhtml", "OEBPS/nav.xhtml", "OEBPS/content.opf"}
    assert list(after) == list(before)
    assert {n: d for n, d in after.items() if n not in changed} == {n: d for n, d in before.items() if n not in changed}
    assert_mimetype_first_and_stored(out, b"application/epub+zip")


def test_epub_formatting_follows_a_word_that_moves():
    out = read(".epub", epub_file("<p>Ich habe das Buch <em>gelesen</em>.</p>")).translate(Upper(MOVING))
    assert b"<p>I have <em>read</em> the book.</p>" in members(out)["OEBPS/Text/kapitel 1.xhtml"]


def test_an_epub_with_mimetype_not_first_comes_back_with_it_first():
    entries = epub_members("<p>Es regnet.</p>")
    entries = {**{k: v for k, v in entries.items() if k != "mimetype"}, "mimetype": entries["mimetype"]}
    out = read(".epub", zip_file(entries)).translate(Upper())
    assert_mimetype_first_and_stored(out, b"application/epub+zip")


# -------------------------------------------------------------------------------------------- .pdf

def test_pdf_pages_come_back_as_a_docx_with_paragraphs_and_page_breaks():
    source = pdf_file([["Das Wetter", "Die Katze schläft auf dem Sofa und", "träumt von einer Maus.",
                        "Guten Morgen!"], [], ["Seite drei."]])
    translate = Upper()
    document = read(".pdf", source)
    assert document.chars == len("Das Wetter") + len("Die Katze schläft auf dem Sofa und träumt von einer Maus.") + len(
        "Guten Morgen!") + len("Seite drei.")
    out = docx.Document(io.BytesIO(document.translate(translate)))
    assert translate.calls == [(["Das Wetter", "Die Katze schläft auf dem Sofa und träumt von einer Maus.",
                                 "Guten Morgen!", "Seite drei."], False)]
    assert [(p.text, p.paragraph_format.page_break_before) for p in out.paragraphs] == [
        ("DAS WETTER", None), ("DIE KATZE SCHLÄFT AUF DEM SOFA UND TRÄUMT VON EINER MAUS.", None),
        ("GUTEN MORGEN!", None), ("", True), ("SEITE DREI.", True)]      # the empty second page kept
    assert documents.output_extension(".pdf") == ".docx" and documents.output_extension(".odt") == ".odt"


@pytest.mark.parametrize("text, expected", [
    ("Eine lange Zeile, die weiter geht\nund hier endet.\nKurz.\n", ["Eine lange Zeile, die weiter geht und hier endet.",
                                                                    "Kurz."]),
    ("Die Zusammen-\nfassung ist gut.", ["Die Zusammenfassung ist gut."]),            # hyphenation undone
    ("Der Ein-\nund Ausgang ist hier.", ["Der Ein- und Ausgang ist hier."]),          # German coordination
    ("Die Software-\nEntwicklung dauert.", ["Die Software-Entwicklung dauert."]),
    ("Absatz eins.\n\nAbsatz zwei.", ["Absatz eins.", "Absatz zwei."]),
    ("Null\x00Byte", ["NullByte"]),
    ("", []),
])
def test_pdf_paragraphs_from_lines(text, expected):
    assert documents.pdf_paragraphs(text) == expected


def encrypted_pdf(user_password: str) -> bytes:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(pdf_file([["Es regnet."]]))))
    writer.encrypt(user_password=user_password, owner_password="besitzer", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_pdf_only_its_owner_restricts_is_read():
    out = docx.Document(io.BytesIO(read(".pdf", encrypted_pdf("")).translate(Upper())))
    assert [p.text for p in out.paragraphs] == ["ES REGNET."]


# ----------------------------------------------------------------------------------------- bad input

def odt_with(name: str, data: bytes) -> bytes:
    return zip_file({**odf_members("<text:p>Hallo</text:p>"), name: data})


def corrupted(data: bytes, member: bytes) -> bytes:
    """``data`` with a byte of the stored member ``member`` changed: its CRC no longer matches."""
    at = data.index(member) + len(member)
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]


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
    "odt not a zip": (".odt", b"Guten Morgen.", "file is not a valid .odt document"),
    "odt truncated": (".odt", odf_file("<text:p>Hallo</text:p>")[:200], "file is not a valid .odt document"),
    "odp renamed odt": (".odt", odf_file("<text:p>Hallo</text:p>", ".odp"), "file is not a valid .odt document"),
    "zipped text as odt": (".odt", zip_file({"hallo.txt": b"Hallo"}),
                           "file is not a valid .odt document: it has no mimetype"),
    "odt crc": (".odt", corrupted(zip_file(odf_members("<text:p>Hallo</text:p>"), stored=True), b"<office:text>"),
                "file is not a valid .odt document"),
    "odt doctype": (".odt", odt_with("content.xml", odf_content("<text:p>&a;</text:p>", prolog='<!DOCTYPE x [<!ENTITY a "b">]>')),
                    "file is not a valid .odt document: content.xml has a DOCTYPE, which is refused"),
    "odt external entity": (".odt", odt_with("content.xml", odf_content(
        "<text:p>&x;</text:p>", prolog='<!DOCTYPE x [<!ENTITY x SYSTEM "file:///etc/passwd">]>')),
        "file is not a valid .odt document: content.xml has a DOCTYPE, which is refused"),
    "odt broken xml": (".odt", odt_with("content.xml", b"<office:document-content>"),
                       "file is not a valid .odt document: content.xml is not well-formed XML"),
    "odt encrypted": (".odt", odt_with("META-INF/manifest.xml", b'<manifest:manifest xmlns:manifest="urn:oasis:names:tc:'
                                       b'opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path='
                                       b'"content.xml"><manifest:encryption-data/></manifest:file-entry>'
                                       b"</manifest:manifest>"),
                      "encrypted .odt: it needs a password to be opened"),
    "pptx not a zip": (".pptx", b"PK\x03\x04 truncated", "file is not a valid .pptx document"),
    "docx as pptx": (".pptx", word_file(), "file is not a valid .pptx document"),
    "pptm as pptx": (".pptx", macro_enabled_pptx(), "file is not a valid .pptx document: macro-enabled presentations are refused"),
    "epub wrong mimetype": (".epub", zip_file({"mimetype": b"application/zip"}), "file is not a valid .epub document"),
    "epub no container": (".epub", zip_file({"mimetype": b"application/epub+zip"}),
                          "file is not a valid .epub document: it has no META-INF/container.xml"),
    "epub no package": (".epub", zip_file({k: v for k, v in epub_members("<p>Hallo</p>").items()
                                           if k != "OEBPS/content.opf"}),
                        "file is not a valid .epub document: it has no OEBPS/content.opf"),
    "epub drm": (".epub", zip_file({**epub_members("<p>Hallo</p>"), "META-INF/encryption.xml": (
        b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">'
        b'<enc:EncryptedData><enc:CipherData><enc:CipherReference URI="OEBPS/Text/kapitel%201.xhtml"/>'
        b"</enc:CipherData></enc:EncryptedData></encryption>")}),
        "encrypted EPUB: its text is protected (DRM) and cannot be read"),
    "epub latin-1": (".epub", zip_file({**epub_members(""), "OEBPS/Text/kapitel 1.xhtml": "<p>Grüße</p>".encode("latin-1")}),
                     "file is not a valid .epub document: OEBPS/Text/kapitel 1.xhtml is not UTF-8 text"),
    "pdf header only": (".pdf", b"%PDF-1.4", "file is not a valid .pdf document"),
    "text as pdf": (".pdf", b"Guten Morgen.", "file is not a valid .pdf document"),
    "pdf with a password": (".pdf", encrypted_pdf("geheim"), "encrypted PDF: it needs a password to be opened"),
    "pdf without text": (".pdf", pdf_file([[], []]), "the .pdf has no text to translate (scanned pages need OCR first)"),
}


@pytest.mark.parametrize("extension, data, message", BAD.values(), ids=BAD.keys())
def test_unreadable_files(extension, data, message):
    with pytest.raises(DocumentError) as info:
        read(extension, data)
    assert str(info.value) == message and not isinstance(info.value, DocumentTooLarge)


@pytest.mark.parametrize("extension", [".odt", ".odp", ".pptx", ".epub"])
def test_unpacked_size_is_checked_before_decompressing(monkeypatch, extension):
    monkeypatch.setattr(documents, "MAX_UNPACKED_BYTES", 1000)
    bomb = zip_file({"mimetype": b"x", "content.xml": b"<" * 5000})   # 5,000 bytes packed into a few dozen
    with pytest.raises(DocumentTooLarge) as info:
        read(extension, bomb)
    assert str(info.value) == f"the {extension} unpacks to 5001 bytes, over the limit of 1000 bytes"


def test_too_many_parts_and_pages(monkeypatch):
    monkeypatch.setattr(documents, "MAX_PARTS", 1)
    with pytest.raises(DocumentTooLarge, match=r"^the \.epub has 8 parts, over the limit of 1$"):
        read(".epub", epub_file("<p>Hallo</p>"))
    with pytest.raises(DocumentTooLarge, match=r"^the \.pdf has 2 pages, over the limit of 1$"):
        read(".pdf", pdf_file([["Eins."], ["Zwei."]]))
