"""Small .odt, .odp, .pptx, .epub and .pdf files made in the tests, for tests/pipeline/documents/
and tests/app/test_files.py, and what the tests read back of a zip."""

from __future__ import annotations

import base64
import io
import zipfile

# A 1x1 PNG, for a picture that must come back byte for byte.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJ"
                       "RU5ErkJggg==")

ODF_NAMESPACES = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
    "xlink": "http://www.w3.org/1999/xlink",
}
_DECLARATIONS = " ".join(f'xmlns:{prefix}="{uri}"' for prefix, uri in ODF_NAMESPACES.items())
ODF_MIMETYPES = {".odt": "application/vnd.oasis.opendocument.text",
                 ".odp": "application/vnd.oasis.opendocument.presentation"}


def zip_file(members: dict[str, bytes], *, stored: bool = False) -> bytes:
    """A zip of ``members`` in their order, ``mimetype`` stored and the rest deflated (all stored
    with ``stored``: their bytes as written, for a test to corrupt)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            packed = stored or name == "mimetype"
            archive.writestr(name, data, zipfile.ZIP_STORED if packed else zipfile.ZIP_DEFLATED)
    return out.getvalue()


def zip_members(data: bytes) -> dict[str, bytes]:
    """The members of the zip ``data``, name by name in their order."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def assert_mimetype_first_and_stored(data: bytes, mimetype: bytes) -> None:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        first = archive.infolist()[0]
        assert (first.filename, first.compress_type, archive.read(first)) == ("mimetype", zipfile.ZIP_STORED, mimetype)
    assert data[30:38] == b"mimetype" and data[38:38 + len(mimetype)] == mimetype   # as ODF and OCF readers sniff


def odf_content(body: str, extension: str = ".odt", prolog: str = "") -> bytes:
    kind = "text" if extension == ".odt" else "presentation"
    return (f'<?xml version="1.0" encoding="UTF-8"?>{prolog}<office:document-content {_DECLARATIONS} '
            f'office:version="1.3"><office:body><office:{kind}>{body}</office:{kind}></office:body>'
            "</office:document-content>").encode()


def odf_members(body: str, extension: str = ".odt") -> dict[str, bytes]:
    manifest = (f'<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest xmlns:manifest="urn:oasis:names:tc:'
                f'opendocument:xmlns:manifest:1.0" manifest:version="1.3">\n <manifest:file-entry manifest:full-path="/" '
                f'manifest:media-type="{ODF_MIMETYPES[extension]}"/>\n</manifest:manifest>\n')
    return {
        "mimetype": ODF_MIMETYPES[extension].encode(),
        "content.xml": odf_content(body, extension),
        "styles.xml": f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-styles {_DECLARATIONS}>'
                      '<office:master-styles><text:p>Kopfzeile</text:p></office:master-styles>'
                      "</office:document-styles>\n".encode(),
        "meta.xml": b'<?xml version="1.0"?>\n<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:'
                    b'xmlns:office:1.0"><office:meta/></office:document-meta>\n',
        "Pictures/bild.png": PNG,
        "Thumbnails/thumbnail.png": PNG,
        "META-INF/manifest.xml": manifest.encode(),
    }


def odf_file(body: str, extension: str = ".odt") -> bytes:
    return zip_file(odf_members(body, extension))


CONTAINER = (b'<?xml version="1.0" encoding="UTF-8"?>\n<container version="1.0" '
             b'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile '
             b'full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>\n')
OPF = b"""<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:x</dc:identifier>
    <dc:title>Ein Buch</dc:title><dc:language>de</dc:language></metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="k1" href="Text/kapitel%201.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
    <item id="bild" href="bild.png" media-type="image/png"/>
    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
  </manifest>
  <spine toc="ncx"><itemref idref="k1"/></spine>
</package>
"""


def xhtml(head: str, body: str) -> bytes:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" '
            f'xml:lang="de">\n<head><title>{head}</title><link rel="stylesheet" href="../style.css"/></head>\n'
            f'<body class="k">\n{body}\n</body>\n</html>\n').encode()


def epub_members(chapter: str) -> dict[str, bytes]:
    return {
        "mimetype": b"application/epub+zip",
        "META-INF/container.xml": CONTAINER,
        "OEBPS/content.opf": OPF,
        "OEBPS/nav.xhtml": xhtml("Inhalt", '<nav epub:type="toc" xmlns:epub="http://www.idpf.org/2007/ops"><ol><li>'
                                           '<a href="Text/kapitel%201.xhtml">Guten Morgen.</a></li></ol></nav>'),
        "OEBPS/Text/kapitel 1.xhtml": xhtml("Kapitel", chapter),
        "OEBPS/style.css": b"p { margin: 0 }\n",
        "OEBPS/bild.png": PNG,
        "OEBPS/toc.ncx": b'<?xml version="1.0"?>\n<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"/>\n',
    }


def epub_file(chapter: str) -> bytes:
    return zip_file(epub_members(chapter))


def pptx_file(title: str, runs: list[tuple[str, bool]], *, cell: str = "", notes: str = "") -> bytes:
    """A presentation of one slide: a text box with ``title``, one with ``runs`` (text, bold) in a
    group, a picture, a table with ``cell`` and speaker notes."""
    import pptx
    from pptx.util import Inches

    presentation = pptx.Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[6])   # blank
    slide.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1)).text_frame.text = title
    group = slide.shapes.add_group_shape()
    paragraph = group.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1)).text_frame.paragraphs[0]
    for text, bold in runs:
        run = paragraph.add_run()
        run.text = text
        run.font.bold = bold or None
    slide.shapes.add_picture(io.BytesIO(PNG), Inches(5), Inches(1))
    if cell:
        table = slide.shapes.add_table(1, 1, Inches(1), Inches(4), Inches(4), Inches(1)).table
        table.cell(0, 0).text = cell
    if notes:
        slide.notes_slide.notes_text_frame.text = notes
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def pdf_file(pages: list[list[str]]) -> bytes:
    """A PDF whose pages show the lines given (Helvetica, WinAnsi), written by hand."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"]
    kids = []
    for lines in pages:
        shown = [b"(" + line.encode("cp1252").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
                 + b") Tj T*" for line in lines]
        stream = b"\n".join([b"BT /F1 12 Tf 14 TL 72 720 Td", *shown, b"ET"])
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                       b"/Resources << /Font << /F1 3 0 R >> >> >>" % len(objects))
        kids.append(b"%d 0 R" % len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    return pdf_bytes(objects)


def pdf_bytes(objects: list[bytes]) -> bytes:
    """A PDF file of ``objects`` (numbered from 1; the first is the catalog), with its xref table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()
