"""pipeline/documents/pdf.py: .pdf files in, their pages' text translated into a .docx, read
within the budgets of PDF content streams."""

from __future__ import annotations

import io
import itertools

import docx
import pypdf
import pytest

from pipeline import documents
from pipeline.documents import DocumentError, DocumentTooLarge, base, pdf, read
from pipeline.language_pair import DE_EN, EN_DE
from tests.pipeline.documents import hostile_files as hostile
from tests.pipeline.documents.limits import over
from tests.pipeline.documents.office_files import pdf_file
from tests.pipeline.documents.upper import Upper


LINE = "Die Katze schläft auf dem Sofa und träumt von einer Maus."


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


@pytest.mark.parametrize("languages, tag", [(DE_EN, "en-US"), (EN_DE, "de-DE")])
def test_the_docx_of_a_pdf_names_the_target_language(languages, tag):
    from docx.oxml.ns import qn

    out = docx.Document(io.BytesIO(read(".pdf", pdf_file([["Good morning."]])).translate(Upper(), languages)))
    default = out.styles.element.find(qn("w:docDefaults")).find(".//" + qn("w:lang"))
    assert (default.get(qn("w:val")), default.get(qn("w:eastAsia"))) == (tag, tag)


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
    assert pdf.pdf_paragraphs(text) == expected


def encrypted_pdf(user_password: str) -> bytes:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(pdf_file([["Es regnet."]]))))
    writer.encrypt(user_password=user_password, owner_password="besitzer", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_pdf_only_its_owner_restricts_is_read():
    out = docx.Document(io.BytesIO(read(".pdf", encrypted_pdf("")).translate(Upper())))
    assert [p.text for p in out.paragraphs] == ["ES REGNET."]


BAD = {
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


def test_pages_sharing_one_stream_stop_in_the_first_page(extracted):
    # The review's PDF: 16 pages show one stream of 2,000 lines (116,000 characters each).
    data = hostile.pdf_shared_stream(16, hostile.text_stream(2_000))
    with pytest.raises(DocumentTooLarge, match=over(".pdf")):
        read(".pdf", data, 20_000)
    assert extracted == [0]


def test_many_small_pages_stop_at_the_page_that_passes_the_limit(extracted):
    page = [LINE] * 9
    chars = len(pdf.pdf_paragraphs("\n".join(page))[0])   # 9 lines, one paragraph
    with pytest.raises(DocumentTooLarge, match=over(".pdf")):
        read(".pdf", pdf_file([page] * 1000), 20_000)
    assert extracted == list(range(20_000 // chars + 1))   # the page that passes it is the last one read
    assert len(read(".pdf", pdf_file([page] * (20_000 // chars)), 20_000).pages) == 20_000 // chars


def test_a_pdf_within_the_limit_is_read_whole(extracted):
    document = read(".pdf", pdf_file([[LINE], [LINE]]), 2 * len(LINE))
    assert (document.chars, extracted) == (2 * len(LINE), [0, 1])


def test_a_stream_that_unpacks_to_too_much_is_refused(monkeypatch, extracted):
    monkeypatch.setattr(pdf, "MAX_PDF_STREAM_BYTES", 10_000)
    with pytest.raises(DocumentTooLarge, match=r"^the \.pdf has a stream over the limits of reading PDFs: 10000 bytes "
                                               r"unpacked, 500000 tokens parsed$"):
        read(".pdf", hostile.pdf_shared_stream(1000, hostile.text_stream(1000, "Es regnet.")))
    assert extracted == []   # refused as the first page's stream was unpacked
    assert pypdf.get_configuration().zlib_maximum_output_length == 75_000_000   # only while reading


def test_a_stream_with_too_many_tokens_is_refused(monkeypatch):
    monkeypatch.setattr(pdf, "MAX_PDF_STREAM_TOKENS", 1000)
    with pytest.raises(DocumentTooLarge, match=r"^the \.pdf has a stream over the limits of reading PDFs: 4194304 "
                                               r"bytes unpacked, 1000 tokens parsed$"):
        read(".pdf", hostile.pdf_shared_stream(2, hostile.drawing_stream(1000) + hostile.text_stream(1)))


def test_the_pages_content_together_is_bounded_before_each_page_is_parsed(monkeypatch, extracted):
    # A stream of drawings with a word of text, which every page parses again.
    stream = hostile.drawing_stream(1000) + hostile.text_stream(1, "Hallo")
    monkeypatch.setattr(pdf, "MAX_PDF_CONTENT_BYTES", 3 * len(stream))
    with pytest.raises(DocumentTooLarge, match=rf"^the \.pdf's pages have more than {3 * len(stream)} bytes of content "
                                               rf"\(a stream that pages share counts for each\), over the limit of "):
        read(".pdf", hostile.pdf_shared_stream(1000, stream))
    assert extracted == [0, 1, 2]


def test_reading_stops_at_the_time_budget(monkeypatch, extracted):
    clock = itertools.count(0.0, 0.001)   # a millisecond a look
    monkeypatch.setattr(base.time, "monotonic", lambda: next(clock))
    with pytest.raises(DocumentTooLarge, match=r"^reading the \.pdf took more than 0\.5 seconds, over the limit of "
                                               r"0\.5 seconds per file: it is too large or too complex$"):
        read(".pdf", pdf_file([[LINE]] * 1000), seconds=0.5)
    assert 0 < len(extracted) < 500   # stopped within pages, each looking at the clock several times


def test_no_limits_for_a_local_file(extracted):
    data = hostile.pdf_shared_stream(3, hostile.text_stream(400))
    assert read(".pdf", data, seconds=None).chars > 20_000 and extracted == [0, 1, 2]
