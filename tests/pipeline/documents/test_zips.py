"""pipeline/documents/zips.py: every zip's declared sizes and parts are checked before anything is
decompressed, and its XML's tags counted before it is parsed, with no DTD and no entity."""

from __future__ import annotations

import pytest

from pipeline.documents import DocumentError, DocumentTooLarge, opendocument, read, zips
from tests.pipeline.documents import hostile_files as hostile
from tests.pipeline.documents.limits import spy_on
from tests.pipeline.documents.office_files import epub_file, odf_file, pdf_file, zip_file, zip_members


def test_the_unpacked_size_of_a_docx_is_checked_before_decompressing(monkeypatch):
    monkeypatch.setattr(zips, "MAX_UNPACKED_BYTES", 1000)
    bomb = zip_file({"word/document.xml": b"<" * 5000})   # 5,000 bytes packed into a few dozen
    with pytest.raises(DocumentTooLarge) as info:
        read(".docx", bomb)
    assert str(info.value) == "the .docx unpacks to 5000 bytes, over the limit of 1000 bytes"


def test_too_many_parts(monkeypatch):
    monkeypatch.setattr(zips, "MAX_PARTS", 3)
    with pytest.raises(DocumentTooLarge, match=r"^the \.docx has 4 parts, over the limit of 3$"):
        read(".docx", zip_file({f"{i}.xml": b"" for i in range(4)}))


@pytest.mark.parametrize("extension", [".odt", ".odp", ".pptx", ".epub"])
def test_unpacked_size_is_checked_before_decompressing(monkeypatch, extension):
    monkeypatch.setattr(zips, "MAX_UNPACKED_BYTES", 1000)
    bomb = zip_file({"mimetype": b"x", "content.xml": b"<" * 5000})   # 5,000 bytes packed into a few dozen
    with pytest.raises(DocumentTooLarge) as info:
        read(extension, bomb)
    assert str(info.value) == f"the {extension} unpacks to 5001 bytes, over the limit of 1000 bytes"


def test_too_many_parts_and_pages(monkeypatch):
    monkeypatch.setattr(zips, "MAX_PARTS", 1)
    with pytest.raises(DocumentTooLarge, match=r"^the \.epub has 8 parts, over the limit of 1$"):
        read(".epub", epub_file("<p>Hallo</p>"))
    with pytest.raises(DocumentTooLarge, match=r"^the \.pdf has 2 pages, over the limit of 1$"):
        read(".pdf", pdf_file([["Eins."], ["Zwei."]]))


def test_the_xml_tags_of_a_zip_are_counted_before_it_is_parsed(monkeypatch):
    monkeypatch.setattr(zips, "MAX_XML_TAGS", 1000)
    scanned = spy_on(monkeypatch, opendocument)
    with pytest.raises(DocumentTooLarge, match=r"^the \.odt has \d+ XML tags, over the limit of 1000$"):
        read(".odt", odf_file("<text:p/>" * 1000))
    assert scanned == []
    assert read(".odt", odf_file("<text:p>Hallo</text:p>" * 10)).chars == 50


def test_xml_nested_too_deep_is_a_clear_400():
    deep = "<text:p>" + "<text:span>" * 300 + "Hallo" + "</text:span>" * 300 + "</text:p>"
    with pytest.raises(DocumentError, match=r"^file is not a valid \.odt document: content\.xml is nested more than "
                                            r"256 elements deep, over the limit of 256$") as info:
        read(".odt", odf_file(deep))
    assert not isinstance(info.value, DocumentTooLarge)
    members = zip_members(hostile.docx_empty_paragraphs(0))
    xml = members["word/document.xml"]
    at = xml.index(b"<w:body>") + len(b"<w:body>")
    nested = b"<w:sdt><w:sdtContent>" * 300 + b"</w:sdtContent></w:sdt>" * 300
    members["word/document.xml"] = xml[:at] + nested + xml[at:]
    with pytest.raises(DocumentError, match=r"^file is not a valid \.docx document: its XML is nested more than 256 "
                                            r"elements deep, over the limit of 256$"):
        read(".docx", zip_file(members))
