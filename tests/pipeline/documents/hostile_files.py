"""Small uploads that cost a reader much more than their size: the inputs of the file-parsing
budgets (``pipeline.documents.read(extension, data, max_chars, seconds=...)``), made in the
tests (tests/pipeline/documents/, tests/app/test_files.py) and timed by bench/file_budgets.py."""

from __future__ import annotations

import io
import zlib

from tests.pipeline.documents.office_files import epub_members, odf_members, pdf_bytes, pptx_file, zip_file, zip_members


def nested_json(depth: int) -> bytes:
    """A .json of ``depth`` nested objects around one German string."""
    return ('{"a": ' * depth + '"Guten Morgen."' + "}" * depth).encode()


def epub_of(chapter_document: bytes) -> bytes:
    """An .epub whose chapter's content document is ``chapter_document`` as written."""
    members = epub_members("<p>Hallo</p>")
    members["OEBPS/Text/kapitel 1.xhtml"] = chapter_document
    return zip_file(members)


def many_bodies(count: int, tag: str = "<body>") -> bytes:
    """The review's .epub: a content document of one ``<body>`` opening and ``count`` more tags
    (``tag``), with no closing one: 925 bytes for 16,000."""
    return epub_of(("<html><body>" + tag * count).encode())


def odf_empty_paragraphs(count: int, extension: str = ".odt") -> bytes:
    """An .odt (or .odp) whose content.xml holds ``count`` empty ``<text:p/>`` (8 MiB for 932,067:
    a 16.8 KB upload)."""
    members = odf_members("<text:p/>" * count, extension)
    return zip_file(members)


def docx_empty_paragraphs(count: int) -> bytes:
    """A .docx whose body holds ``count`` empty ``<w:p/>`` and one paragraph of text."""
    import docx

    document = docx.Document()
    document.add_paragraph("Guten Morgen.")
    out = io.BytesIO()
    document.save(out)
    members = zip_members(out.getvalue())
    xml = members["word/document.xml"]
    at = xml.index(b"<w:body>") + len(b"<w:body>")
    members["word/document.xml"] = xml[:at] + b"<w:p/>" * count + xml[at:]
    return zip_file(members)


def pptx_empty_paragraphs(count: int) -> bytes:
    """A .pptx whose slide's first text box holds ``count`` empty ``<a:p/>`` after its title."""
    members = zip_members(pptx_file("Guten Morgen.", [("Es regnet.", False)]))
    xml = members["ppt/slides/slide1.xml"]
    at = xml.index(b"</a:p>") + len(b"</a:p>")
    members["ppt/slides/slide1.xml"] = xml[:at] + b"<a:p/>" * count + xml[at:]
    return zip_file(members)


def pdf_shared_stream(pages: int, stream: bytes) -> bytes:
    """A PDF of ``pages`` pages that all show one Flate-compressed content stream (``stream``,
    e.g. ``text_stream(...)``): the stream is unpacked and read again for every page."""
    packed = zlib.compress(stream, 9)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
               b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed)]
    kids = []
    for _ in range(pages):
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                       b"/Resources << /Font << /F1 3 0 R >> >> >>")
        kids.append(b"%d 0 R" % len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    return pdf_bytes(objects)


def text_stream(lines: int, line: str = "Die Katze schläft auf dem Sofa und träumt von einer Maus.") -> bytes:
    """A content stream that shows ``line`` ``lines`` times."""
    shown = b"(" + line.encode("cp1252") + b") Tj T*\n"
    return b"BT /F1 12 Tf 14 TL 72 720 Td\n" + shown * lines + b"ET"


def drawing_stream(strokes: int) -> bytes:
    """A content stream of ``strokes`` line drawings and no text."""
    return b"0 0 m 100 100 l S\n" * strokes
