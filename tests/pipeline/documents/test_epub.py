"""pipeline/documents/epub.py: .epub books in, translated books out."""

from __future__ import annotations

import pytest
from lxml import etree

from pipeline.documents import DocumentError, DocumentTooLarge, read
from pipeline.documents.epub import find_body
from pipeline.language_pair import EN_DE
from tests.pipeline.documents import hostile_files as hostile
from tests.pipeline.documents.limits import over
from tests.pipeline.documents.office_files import assert_mimetype_first_and_stored, epub_file, epub_members, zip_file
from tests.pipeline.documents.office_files import zip_members as members
from tests.pipeline.documents.upper import MOVING, Upper


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


BAD = {
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
}


@pytest.mark.parametrize("extension, data, message", BAD.values(), ids=BAD.keys())
def test_unreadable_files(extension, data, message):
    with pytest.raises(DocumentError) as info:
        read(extension, data)
    assert str(info.value) == message and not isinstance(info.value, DocumentTooLarge)


def test_many_body_tags_are_read_in_linear_time_and_counted_before_translation():
    # The review's upload (925 bytes, 4.3 s with the old pattern), here with a closing tag: its
    # body is 96,000 characters of tags, refused as soon as it is found.
    closed = hostile.epub_of(("<html><body>" + "<body>" * 16_000 + "</body></html>").encode())
    with pytest.raises(DocumentTooLarge, match=over(".epub")):
        read(".epub", closed, 20_000)
    # Without one there is no body to translate (as before): only the navigation document's.
    assert read(".epub", hostile.many_bodies(16_000), 20_000).chars == read(".epub", epub_file("")).chars


@pytest.mark.parametrize("text, body", [
    ("<html><body>Hallo</body></html>", "Hallo"),
    ('<html><BODY class="k" >Hallo</BODY ></html>', "Hallo"),
    ("<html><body\n>a</body>b</body></html>", "a</body>b"),     # the first opening, the last closing
    ("<html><body>" + "<BODY >" * 1000 + "x</body>", "<BODY >" * 1000 + "x"),
    ("<html><body " + "<body " * 1000 + ">x</body>", "x"),      # only the last "<body" ends before a "<"
    ("<html><bodyx>x</bodyx></html>", None),
    ("<html><body>x</html>", None),
])
def test_the_body_is_between_the_first_opening_and_the_last_closing_tag(text, body):
    found = find_body(text)
    assert (text[found[0]:found[1]] if found else None) == body


def test_an_epub_over_the_limit_stops_at_the_document_that_passes_it():
    document = read(".epub", epub_file("<p>" + "Es regnet. " * 100 + "</p>"), 20_000)
    with pytest.raises(DocumentTooLarge, match=over(".epub", document.chars - 1)):
        read(".epub", epub_file("<p>" + "Es regnet. " * 100 + "</p>"), document.chars - 1)


def test_an_english_epub_says_it_is_german_after_en_de():
    source = {name: data.replace(b'xml:lang="de"', b'xml:lang="en-GB"') for name, data in epub_members(
        '<p>It is <b>raining</b>.</p>\n<p lang="fr">Il pleut.</p>').items()}
    source["OEBPS/content.opf"] = source["OEBPS/content.opf"].replace(b"<dc:language>de</dc:language>",
                                                                      b"<dc:language>en-US</dc:language>")
    after, before = members(read(".epub", zip_file(source)).translate(Upper(languages=EN_DE), EN_DE)), source
    assert after["OEBPS/Text/kapitel 1.xhtml"] == before["OEBPS/Text/kapitel 1.xhtml"].replace(
        b'xml:lang="en-GB"', b'xml:lang="de"').replace(b"It is <b>raining</b>.", b"IT IS <b>RAINING</b>.").replace(
        b"Il pleut.", b"IL PLEUT.")    # French stays French
    assert after["OEBPS/content.opf"] == before["OEBPS/content.opf"].replace(b">en-US<", b">de<")
