"""The zips and their XML: .docx, .pptx, .odt, .odp and .epub are zips.

Their declared sizes are checked before anything is decompressed (zipfile never reads past a
declared size), so a small upload cannot unpack into gigabytes (MAX_UNPACKED_BYTES, MAX_PARTS),
and every member's CRC is checked before any text goes to the model. Only the members that hold
the text are changed (``rezip``); the others are written back byte for byte. The XML the formats
parse themselves (``parse_xml``) is read with entities and DTDs off and nothing fetched, and a
DOCTYPE is refused (python-docx and python-pptx resolve no entities either). Nothing in a file is
ever run.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from typing import Any

from lxml import etree

from .base import Budget, DocumentError, DocumentTooLarge

MAX_UNPACKED_BYTES = 64 * 1024 * 1024
MAX_PARTS = 1000               # members of a zip; also a PDF's pages
MAX_XML_TAGS = 2_000_000       # "<" in a zip's XML, counted before it is parsed: ~20x a big document's

_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, RuntimeError,
               NotImplementedError, zlib.error)   # RuntimeError: an encrypted member


_XML_MEMBERS = (".xml", ".rels", ".opf")   # what the formats, python-docx or python-pptx parse as XML


def unzip(data: bytes, label: str, budget: Budget) -> zipfile.ZipFile:
    """The archive in ``data`` (``label``: its extension, for messages), within MAX_PARTS,
    MAX_UNPACKED_BYTES and MAX_XML_TAGS and with every member readable; DocumentError otherwise.
    The tags are counted as the "<" of the XML members (text and attribute values cannot hold
    one), before any is parsed: a tree of millions of tiny elements takes 15 to 20 times their
    bytes (8 MiB of <text:p/>: ~120 MiB)."""
    invalid = DocumentError(f"file is not a valid {label} document")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except _ZIP_ERRORS:
        raise invalid from None
    unpacked = sum(info.file_size for info in infos)
    if len(infos) > MAX_PARTS:
        raise DocumentTooLarge(f"the {label} has {len(infos)} parts, over the limit of {MAX_PARTS}")
    if unpacked > MAX_UNPACKED_BYTES:
        raise DocumentTooLarge(f"the {label} unpacks to {unpacked} bytes, over the limit of "
                               f"{MAX_UNPACKED_BYTES} bytes")
    tags = 0
    for info in infos:   # each member read once: its CRC checked, its XML's tags counted
        try:
            member = archive.read(info)
        except _ZIP_ERRORS:
            raise invalid from None
        if info.filename.lower().endswith(_XML_MEMBERS):
            tags += member.count(b"<")
        budget.tick()
    if tags > MAX_XML_TAGS:
        raise DocumentTooLarge(f"the {label} has {tags} XML tags, over the limit of {MAX_XML_TAGS}")
    return archive


def rezip(archive: zipfile.ZipFile, changed: dict[str, bytes], *, mimetype_first: bool = False) -> bytes:
    """The archive with the members in ``changed`` replaced and every other member's bytes as they
    were, in their order; with ``mimetype_first`` (ODF, EPUB) the ``mimetype`` member first and
    stored uncompressed, as those formats require."""
    infos = archive.infolist()
    if mimetype_first:
        infos.sort(key=lambda info: info.filename != "mimetype")   # stable: the rest in order
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as new:
        for info in infos:
            member = zipfile.ZipInfo(info.filename, info.date_time)
            member.external_attr = info.external_attr
            stored = info.compress_type == zipfile.ZIP_STORED or (mimetype_first and info.filename == "mimetype")
            member.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            new.writestr(member, changed[info.filename] if info.filename in changed else archive.read(info))
    return out.getvalue()


def read_member(archive: zipfile.ZipFile, name: str, label: str) -> bytes:
    """The member ``name`` of the ``label`` file's archive; DocumentError where it has none."""
    try:
        return archive.read(name)
    except KeyError:
        raise DocumentError(f"file is not a valid {label} document: it has no {name}") from None


_XML_CHUNK = 64 * 1024
_XML_DEPTH = 256   # libxml2's: deeper elements are an error (its XML_PARSE_HUGE is never set)


def xml_error(exc: Exception, name: str, label: str) -> DocumentError:
    """The DocumentError of XML (the member ``name``; "its XML" where unknown) that lxml refused."""
    if isinstance(exc, etree.XMLSyntaxError) and "Excessive depth" in str(exc):
        return DocumentError(f"file is not a valid {label} document: {name} is nested more than {_XML_DEPTH} "
                             f"elements deep, over the limit of {_XML_DEPTH}")
    return DocumentError(f"file is not a valid {label} document: {name} is not well-formed XML")


def parse_xml(data: bytes, name: str, label: str, *, paragraphs: tuple[str, ...] = (),
              budget: Budget | None = None) -> Any:
    """The root element of the XML member ``name``: no entity expanded, no DTD loaded, nothing
    fetched, and a document with a DOCTYPE refused (none of these formats has one). With
    ``paragraphs`` (tags) and the file's ``budget`` the elements of those tags are counted as the
    tree is built, which stops with DocumentTooLarge once they pass MAX_PARAGRAPHS
    (``Budget.check_paragraphs``, which also stops at the budget's deadline)."""
    options = {"resolve_entities": False, "no_network": True, "load_dtd": False}
    try:
        if not paragraphs or budget is None:
            root = etree.fromstring(data, etree.XMLParser(**options))
        else:
            parser = etree.XMLPullParser(events=("start",), tag=paragraphs, **options)
            count = 0
            for start in range(0, len(data), _XML_CHUNK):
                parser.feed(data[start:start + _XML_CHUNK])
                count += sum(1 for _ in parser.read_events())
                budget.check_paragraphs(count)
            root = parser.close()
    except etree.XMLSyntaxError as exc:
        raise xml_error(exc, name, label) from None
    if root.getroottree().docinfo.doctype:
        raise DocumentError(f"file is not a valid {label} document: {name} has a DOCTYPE, which is refused")
    return root


