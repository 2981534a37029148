"""pipeline/documents.py: every file is read within a budget, checked while it is parsed.

Small uploads that cost much more than their size (tests/pipeline/hostile_files.py) are refused
as soon as they pass a limit, not after everything was extracted. What is asserted is behaviour:
the message, and how far reading went (pages extracted, paragraphs scanned, counted by a spy);
the times are in bench/README.md ("File parsing budgets", bench/file_budgets.py).
"""

from __future__ import annotations

import itertools

import pypdf
import pytest

from pipeline import documents
from pipeline.documents import DocumentError, DocumentTooLarge, read
from tests.pipeline import hostile_files as hostile
from tests.pipeline.office_files import epub_file, odf_file, pdf_file, zip_file
from tests.pipeline.test_documents import Upper

LINE = "Die Katze schläft auf dem Sofa und träumt von einer Maus."


def over(extension: str, limit: int = 20_000) -> str:
    return (f"^the \\{extension} has more than {limit} characters of text, over the limit of {limit} "
            "characters per file$")


def too_many_paragraphs(extension: str, limit: int) -> str:
    return f"^the \\{extension} has more than {limit} paragraphs \\(empty ones count too\\), over the limit of {limit}$"


@pytest.fixture
def extracted(monkeypatch):
    """The pages pypdf extracted text from, in order."""
    pages: list[int] = []
    original = pypdf.PageObject.extract_text

    def spy(page, *args, **kwargs):
        pages.append(page.page_number)
        return original(page, *args, **kwargs)

    monkeypatch.setattr(pypdf.PageObject, "extract_text", spy)
    return pages


def spy_on(monkeypatch, name: str) -> list[object]:
    """The elements ``documents.<name>`` (a paragraph scanner) was called with."""
    seen: list[object] = []
    original = getattr(documents, name)

    def spy(element):
        seen.append(element)
        return original(element)

    monkeypatch.setattr(documents, name, spy)
    return seen


# ---------------------------------------------------------------------------------------- .epub

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
    found = documents._body(text)
    assert (text[found[0]:found[1]] if found else None) == body


def test_an_epub_over_the_limit_stops_at_the_document_that_passes_it():
    document = read(".epub", epub_file("<p>" + "Es regnet. " * 100 + "</p>"), 20_000)
    with pytest.raises(DocumentTooLarge, match=over(".epub", document.chars - 1)):
        read(".epub", epub_file("<p>" + "Es regnet. " * 100 + "</p>"), document.chars - 1)


# ----------------------------------------------------------------------------------------- .pdf

def test_pages_sharing_one_stream_stop_in_the_first_page(extracted):
    # The review's PDF: 16 pages show one stream of 2,000 lines (116,000 characters each).
    data = hostile.pdf_shared_stream(16, hostile.text_stream(2_000))
    with pytest.raises(DocumentTooLarge, match=over(".pdf")):
        read(".pdf", data, 20_000)
    assert extracted == [0]


def test_many_small_pages_stop_at_the_page_that_passes_the_limit(extracted):
    page = [LINE] * 9
    chars = len(documents.pdf_paragraphs("\n".join(page))[0])   # 9 lines, one paragraph
    with pytest.raises(DocumentTooLarge, match=over(".pdf")):
        read(".pdf", pdf_file([page] * 1000), 20_000)
    assert extracted == list(range(20_000 // chars + 1))   # the page that passes it is the last one read
    assert len(read(".pdf", pdf_file([page] * (20_000 // chars)), 20_000).pages) == 20_000 // chars


def test_a_pdf_within_the_limit_is_read_whole(extracted):
    document = read(".pdf", pdf_file([[LINE], [LINE]]), 2 * len(LINE))
    assert (document.chars, extracted) == (2 * len(LINE), [0, 1])


def test_a_stream_that_unpacks_to_too_much_is_refused(monkeypatch, extracted):
    monkeypatch.setattr(documents, "MAX_PDF_STREAM_BYTES", 10_000)
    with pytest.raises(DocumentTooLarge, match=r"^the \.pdf has a stream over the limits of reading PDFs: 10000 bytes "
                                               r"unpacked, 500000 tokens parsed$"):
        read(".pdf", hostile.pdf_shared_stream(1000, hostile.text_stream(1000, "Es regnet.")))
    assert extracted == []   # refused as the first page's stream was unpacked
    assert pypdf.get_configuration().zlib_maximum_output_length == 75_000_000   # only while reading


def test_a_stream_with_too_many_tokens_is_refused(monkeypatch):
    monkeypatch.setattr(documents, "MAX_PDF_STREAM_TOKENS", 1000)
    with pytest.raises(DocumentTooLarge, match=r"^the \.pdf has a stream over the limits of reading PDFs: 4194304 "
                                               r"bytes unpacked, 1000 tokens parsed$"):
        read(".pdf", hostile.pdf_shared_stream(2, hostile.drawing_stream(1000) + hostile.text_stream(1)))


def test_the_pages_content_together_is_bounded_before_each_page_is_parsed(monkeypatch, extracted):
    # A stream of drawings with a word of text, which every page parses again.
    stream = hostile.drawing_stream(1000) + hostile.text_stream(1, "Hallo")
    monkeypatch.setattr(documents, "MAX_PDF_CONTENT_BYTES", 3 * len(stream))
    with pytest.raises(DocumentTooLarge, match=rf"^the \.pdf's pages have more than {3 * len(stream)} bytes of content "
                                               rf"\(a stream that pages share counts for each\), over the limit of "):
        read(".pdf", hostile.pdf_shared_stream(1000, stream))
    assert extracted == [0, 1, 2]


def test_reading_stops_at_the_time_budget(monkeypatch, extracted):
    clock = itertools.count(0.0, 0.001)   # a millisecond a look
    monkeypatch.setattr(documents.time, "monotonic", lambda: next(clock))
    with pytest.raises(DocumentTooLarge, match=r"^reading the \.pdf took more than 0\.5 seconds, over the limit of "
                                               r"0\.5 seconds per file: it is too large or too complex$"):
        read(".pdf", pdf_file([[LINE]] * 1000), seconds=0.5)
    assert 0 < len(extracted) < 500   # stopped within pages, each looking at the clock several times


def test_no_limits_for_a_local_file(extracted):
    data = hostile.pdf_shared_stream(3, hostile.text_stream(400))
    assert read(".pdf", data, seconds=None).chars > 20_000 and extracted == [0, 1, 2]


# --------------------------------------------------------------------------- .odt .odp .docx .pptx

@pytest.mark.parametrize("extension", [".odt", ".odp"])
def test_an_odf_of_empty_paragraphs_stops_while_its_xml_is_parsed(monkeypatch, extension):
    scanned = spy_on(monkeypatch, "_odf_scan")
    with pytest.raises(DocumentTooLarge, match=too_many_paragraphs(extension, 50_000)):
        read(extension, hostile.odf_empty_paragraphs(60_000, extension), 20_000)
    assert scanned == []   # refused before any paragraph was scanned


def test_the_paragraph_limit_counts_headings_and_empty_paragraphs(monkeypatch):
    monkeypatch.setattr(documents, "MAX_PARAGRAPHS", 3)
    assert read(".odt", odf_file("<text:p>Eins.</text:p><text:p/><text:h>Drei.</text:h>")).chars == 10
    with pytest.raises(DocumentTooLarge, match=too_many_paragraphs(".odt", 3)):
        read(".odt", odf_file("<text:p>Eins.</text:p><text:p/><text:h>Drei.</text:h><text:p/>"))


def test_an_odt_stops_at_the_paragraph_that_passes_the_limit(monkeypatch):
    scanned = spy_on(monkeypatch, "_odf_scan")
    paragraph = "Es regnet. " * 30   # 330 characters, 329 without the last space
    with pytest.raises(DocumentTooLarge, match=over(".odt", 1000)):
        read(".odt", odf_file(f"<text:p>{paragraph}</text:p>" * 100), 1000)
    assert len(scanned) == 4


def test_a_docx_of_empty_paragraphs_is_refused_and_stops_there(monkeypatch):
    scanned = spy_on(monkeypatch, "_scan")
    with pytest.raises(DocumentTooLarge, match=too_many_paragraphs(".docx", 50_000)):
        read(".docx", hostile.docx_empty_paragraphs(60_000), 20_000)
    assert len(scanned) == 50_000


def test_a_pptx_of_empty_paragraphs_is_refused_and_stops_there(monkeypatch):
    scanned = spy_on(monkeypatch, "_pptx_scan")
    with pytest.raises(DocumentTooLarge, match=too_many_paragraphs(".pptx", 50_000)):
        read(".pptx", hostile.pptx_empty_paragraphs(60_000), 20_000)
    assert len(scanned) == 50_000


def test_the_xml_tags_of_a_zip_are_counted_before_it_is_parsed(monkeypatch):
    monkeypatch.setattr(documents, "MAX_XML_TAGS", 1000)
    scanned = spy_on(monkeypatch, "_odf_scan")
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
    members = hostile._members(hostile.docx_empty_paragraphs(0))
    xml = members["word/document.xml"]
    at = xml.index(b"<w:body>") + len(b"<w:body>")
    nested = b"<w:sdt><w:sdtContent>" * 300 + b"</w:sdtContent></w:sdt>" * 300
    members["word/document.xml"] = xml[:at] + nested + xml[at:]
    with pytest.raises(DocumentError, match=r"^file is not a valid \.docx document: its XML is nested more than 256 "
                                            r"elements deep, over the limit of 256$"):
        read(".docx", zip_file(members))


# ----------------------------------------------------------------------------------------- .json

@pytest.mark.parametrize("depth", [101, 500, 2000, 100_000])
def test_json_nested_too_deep_is_a_400(depth):
    with pytest.raises(DocumentError, match=r"^the \.json is nested more than 100 deep, over the limit of 100 "
                                            r"\(localization files are rarely more than 10 deep\)$") as info:
        read(".json", hostile.nested_json(depth))
    assert not isinstance(info.value, DocumentTooLarge)


def test_json_nested_100_deep_is_read():
    assert read(".json", hostile.nested_json(100)).translate(Upper()) == hostile.nested_json(100).replace(
        b"Guten Morgen.", b"GUTEN MORGEN.")


@pytest.mark.parametrize("text, depth", [
    ('"a"', 0), ("[]", 1), ('{"a": [1, {"b": "]]]"}], "c": "\\"[{"}', 3), ('[[], [[]], "[[[["]', 3),
])
def test_json_depth(text, depth):
    assert documents.json_depth(text) == depth


def test_json_strings_are_counted_as_they_are_found():
    data = ("{" + ", ".join(f'"k{i}": "Es regnet heute."' for i in range(2000)) + "}").encode()
    with pytest.raises(DocumentTooLarge, match=over(".json")):
        read(".json", data, 20_000)


# ------------------------------------------------------------------------------ deep HTML, Markdown

def test_deeply_nested_html_and_markdown_are_read_without_recursion_errors():
    html = "<b>" * 1500 + "Hallo Welt." + "</b>" * 1500
    assert read(".html", html.encode(), 20_000).translate(Upper()).decode() == html.replace("Hallo Welt", "HALLO WELT")
    markdown = ">" * 3000 + " Hallo Welt.\n\n" + "".join("  " * i + "- Hallo\n" for i in range(500))
    assert read(".md", markdown.encode(), 20_000).translate(Upper()).decode().count("HALLO") >= 2
    book = epub_file("<div>" * 1000 + "Hallo" + "</div>" * 1000)
    assert b"HALLO" in zip_members(read(".epub", book, 20_000).translate(Upper()))["OEBPS/Text/kapitel 1.xhtml"]


def zip_members(data: bytes) -> dict[str, bytes]:
    return hostile._members(data)


# ----------------------------------------------------------------------------------- all formats

@pytest.mark.parametrize("extension, data", [
    (".txt", "a" * 101), (".html", "<p>" + "a" * 98 + "</p>"), (".md", "a" * 101),
    (".po", 'msgid "' + "a" * 101 + '"\nmsgstr ""\n'),
    (".srt", "1\n00:00:01,000 --> 00:00:02,000\n" + "a" * 101 + "\n"),
    (".vtt", "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n" + "a" * 101 + "\n"), (".json", '{"a": "' + "a" * 101 + '"}'),
])
def test_every_format_has_the_character_limit(extension, data):
    with pytest.raises(DocumentTooLarge, match=over(extension, 100)):
        read(extension, data.encode(), 100)
    assert read(extension, data.encode(), 200).chars > 100
