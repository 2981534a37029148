"""pipeline/documents/opendocument.py: .odt and .odp files in, translated files out.

As in test_word.py, ``Upper`` upper-cases every word in place (or follows a table), so that what
is under test is where text and formatting end up and what stays byte for byte; the files are
made here (tests/pipeline/documents/office_files.py) and the model is used end to end in
tests/app/test_files.py.
"""

from __future__ import annotations

import re

import pytest
from lxml import etree

from pipeline.documents import DocumentError, DocumentTooLarge, base, opendocument, read
from pipeline.language_pair import EN_DE
from tests.pipeline.documents import hostile_files as hostile
from tests.pipeline.documents.limits import over, spy_on, too_many_paragraphs
from tests.pipeline.documents.office_files import (ODF_NAMESPACES, PNG, assert_mimetype_first_and_stored, odf_content,
                                                   odf_file, odf_members, zip_file)
from tests.pipeline.documents.office_files import zip_members as members
from tests.pipeline.documents.upper import MOVING, SPLIT, Upper


def paragraphs(content: bytes) -> list[str]:
    """The text paragraphs and headings of a content.xml, as XML with prefixes and no declarations."""
    root = etree.fromstring(content)
    found = root.iter(f"{{{ODF_NAMESPACES['text']}}}p", f"{{{ODF_NAMESPACES['text']}}}h")
    return [re.sub(r' xmlns:\w+="[^"]*"', "", etree.tostring(p, encoding="unicode", with_tail=False)) for p in found]


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


def odt_in_languages(body: str, first: str, second: str, language: str) -> dict[str, bytes]:
    """The members of an .odt of ``body`` whose paragraph styles P1 and P2 have the text
    properties ``first`` and ``second``, and whose metadata names ``language``."""
    files = odf_members(body)
    files["content.xml"] = files["content.xml"].replace(b"office:version=", f"{ODF_STYLE_NS} office:version=".encode()).replace(
        b"<office:body>", f'<office:automatic-styles><style:style style:name="P1">{first}</style:style>'
                          f'<style:style style:name="P2">{second}</style:style></office:automatic-styles>'
                          "<office:body>".encode())
    files["meta.xml"] = files["meta.xml"].replace(b"<office:meta/>", b'<office:meta><dc:language xmlns:dc="http://purl.org/'
                                                                     b'dc/elements/1.1/">' + language.encode()
                                                                     + b'</dc:language></office:meta>')
    return files


def test_an_odt_says_it_is_english_where_it_said_german():
    """The default style's, a paragraph style's and the metadata's language: German becomes
    English (spelling checkers and screen readers follow it); another language stays."""
    german = '<style:text-properties fo:language="de" fo:country="DE"/>'
    french = '<style:text-properties fo:language="fr" fo:country="FR"/>'
    files = odt_in_languages("<text:p>Guten Morgen.</text:p>", german, french, "de-DE")
    files["styles.xml"] = files["styles.xml"].replace(b"<office:document-styles ", f"<office:document-styles {ODF_STYLE_NS} ".encode()).replace(
        b"<office:master-styles>", f'<office:styles><style:default-style style:family="paragraph">{german}'
                                   "</style:default-style></office:styles><office:master-styles>".encode())
    source = zip_file(files)
    after = members(read(".odt", source).translate(Upper()))
    english = german.replace('"de"', '"en"').replace('"DE"', '"US"')
    assert english.encode() in after["content.xml"] and french.encode() in after["content.xml"]
    assert after["styles.xml"] == files["styles.xml"].replace(german.encode(), english.encode())
    assert after["meta.xml"] == files["meta.xml"].replace(b">de-DE<", b">en<")
    assert {n: d for n, d in after.items() if n not in ("content.xml", "styles.xml", "meta.xml")} == {
        n: d for n, d in files.items() if n not in ("content.xml", "styles.xml", "meta.xml")}


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


def odt_with(name: str, data: bytes) -> bytes:
    return zip_file({**odf_members("<text:p>Hallo</text:p>"), name: data})


def corrupted(data: bytes, member: bytes) -> bytes:
    """``data`` with a byte of the stored member ``member`` changed: its CRC no longer matches."""
    at = data.index(member) + len(member)
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]


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
}


@pytest.mark.parametrize("extension, data, message", BAD.values(), ids=BAD.keys())
def test_unreadable_files(extension, data, message):
    with pytest.raises(DocumentError) as info:
        read(extension, data)
    assert str(info.value) == message and not isinstance(info.value, DocumentTooLarge)


@pytest.mark.parametrize("extension", [".odt", ".odp"])
def test_an_odf_of_empty_paragraphs_stops_while_its_xml_is_parsed(monkeypatch, extension):
    scanned = spy_on(monkeypatch, opendocument)
    with pytest.raises(DocumentTooLarge, match=too_many_paragraphs(extension, 50_000)):
        read(extension, hostile.odf_empty_paragraphs(60_000, extension), 20_000)
    assert scanned == []   # refused before any paragraph was scanned


def test_the_paragraph_limit_counts_headings_and_empty_paragraphs(monkeypatch):
    monkeypatch.setattr(base, "MAX_PARAGRAPHS", 3)
    assert read(".odt", odf_file("<text:p>Eins.</text:p><text:p/><text:h>Drei.</text:h>")).chars == 10
    with pytest.raises(DocumentTooLarge, match=too_many_paragraphs(".odt", 3)):
        read(".odt", odf_file("<text:p>Eins.</text:p><text:p/><text:h>Drei.</text:h><text:p/>"))


def test_an_odt_stops_at_the_paragraph_that_passes_the_limit(monkeypatch):
    scanned = spy_on(monkeypatch, opendocument)
    paragraph = "Es regnet. " * 30   # 330 characters, 329 without the last space
    with pytest.raises(DocumentTooLarge, match=over(".odt", 1000)):
        read(".odt", odf_file(f"<text:p>{paragraph}</text:p>" * 100), 1000)
    assert len(scanned) == 4


def test_an_english_odt_says_it_is_german_after_en_de():
    english = '<style:text-properties fo:language="en" fo:country="GB"/>'
    german = '<style:text-properties fo:language="de" fo:country="AT"/>'
    files = odt_in_languages("<text:p>Good morning.</text:p>", english, german, "en-US")
    after = members(read(".odt", zip_file(files)).translate(Upper(languages=EN_DE), EN_DE))
    assert paragraphs(after["content.xml"]) == ["<text:p>GOOD MORNING.</text:p>"]
    named = '<style:text-properties fo:language="de" fo:country="DE"/>'
    assert named.encode() in after["content.xml"] and german.encode() in after["content.xml"]
    assert english.encode() not in after["content.xml"]
    assert after["meta.xml"] == files["meta.xml"].replace(b">en-US<", b">de<")
    assert after["styles.xml"] == files["styles.xml"]
