""".epub: a zip of XHTML documents (no ebooklib: it is AGPL).

META-INF/container.xml names the package document (OPF), whose manifest lists the content
documents (application/xhtml+xml, the EPUB 3 navigation document among them). The body of each is
translated as an .html file is (``pipeline.markup``: tags and attributes byte for byte, text
escaped, so the XHTML stays well-formed); everything else, the head, the package document with its
metadata, the EPUB 2 table of contents (toc.ncx), stylesheets, fonts, pictures, stays byte for
byte, untranslated (but for a lang and dc:language of the source language, which name the target). A book whose content
documents are encrypted (DRM; META-INF/encryption.xml) is refused; obfuscated fonts are fine.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from ..language_pair import DE_EN, LanguagePair
from ..markup import target_lang
from .base import BOM, Budget, Document, DocumentError, Unit, dc_language
from .zips import parse_xml, read_member, rezip, unzip

MEDIA_TYPE = "application/epub+zip"   # also the book's mimetype member

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_XMLENC = "{http://www.w3.org/2001/04/xmlenc#}"
# The body is what lies between the first opening tag and the last closing one, found in linear
# time (a pattern "<body...>(.*)</body>" backtracks quadratically over many <body> tags): an
# attribute's value in XHTML cannot hold a "<", so an opening tag ends before the next one.
_BODY_OPEN = re.compile(r"<body(?:\s[^<>]*)?>", re.I)
_BODY_CLOSE = re.compile(r"</body\s*>", re.I)
_XML_ENCODING = re.compile(r"""^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)""")


def find_body(text: str) -> tuple[int, int] | None:
    """Where the body's content begins and ends in an XHTML ``text``; None without a body."""
    opening = _BODY_OPEN.search(text)
    if opening is None:
        return None
    end = None
    for end in _BODY_CLOSE.finditer(text, opening.end()):
        pass
    return (opening.end(), end.start()) if end is not None else None


class Epub(Document):
    """An .epub: the body of each content document with text, as HTML."""

    def __init__(self, data: bytes, budget: Budget):
        self.archive = archive = unzip(data, ".epub", budget)
        if read_member(archive, "mimetype", ".epub").strip() != MEDIA_TYPE.encode():
            raise DocumentError("file is not a valid .epub document")
        container = parse_xml(read_member(archive, "META-INF/container.xml", ".epub"), "META-INF/container.xml", ".epub")
        rootfile = container.find(f"{_CONTAINER}rootfiles/{_CONTAINER}rootfile")
        path = rootfile.get("full-path", "") if rootfile is not None else ""
        package = parse_xml(read_member(archive, path, ".epub"), path, ".epub") if path else None
        if package is None or package.tag != _OPF + "package":
            raise DocumentError("file is not a valid .epub document: it has no package document")
        names = set(archive.namelist())
        self.package = (path, read_member(archive, path, ".epub"))
        documents = []
        for item in package.iter(_OPF + "item"):
            href = posixpath.normpath(posixpath.join(posixpath.dirname(path), unquote(item.get("href", ""))))
            if item.get("media-type") == "application/xhtml+xml" and href in names and href not in documents:
                documents.append(href)
        if "META-INF/encryption.xml" in names:
            encryption = parse_xml(archive.read("META-INF/encryption.xml"), "META-INF/encryption.xml", ".epub")
            encrypted = {unquote(r.get("URI", "")) for r in encryption.iter(_XMLENC + "CipherReference")}
            if encrypted & set(documents):
                raise DocumentError("encrypted EPUB: its text is protected (DRM) and cannot be read")
        self.bodies: list[tuple[str, str, str, str]] = []   # (name, before the body's text, it, after it)
        for name in documents:
            budget.tick()
            try:
                text = archive.read(name).decode("utf-8")
            except UnicodeDecodeError:
                raise DocumentError(f"file is not a valid .epub document: {name} is not UTF-8 text") from None
            declared = _XML_ENCODING.match(text.removeprefix(BOM))
            if declared and declared.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
                raise DocumentError(f"file is not a valid .epub document: {name} is not UTF-8 text")
            body = find_body(text)
            if body and text[body[0]:body[1]].strip():
                budget.add(body[1] - body[0])   # the body goes to the model as it is, tags and all
                self.bodies.append((name, text[:body[0]], text[body[0]:body[1]], text[body[1]:]))
        self.chars = sum(len(body) for _, _, body, _ in self.bodies)

    def units(self) -> list[Unit]:
        return [Unit(body, html=True) for _, _, body, _ in self.bodies]

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        # The head's lang (the body's are the translate function's: markup.translate_html) and the
        # package's dc:language name the target.
        changed = {name: (target_lang(before, languages) + output + after).encode("utf-8")
                   for (name, before, _, after), output in zip(self.bodies, translations, strict=True)}
        path, package = self.package
        try:
            named = dc_language(package.decode("utf-8"), languages).encode("utf-8")
        except UnicodeDecodeError:   # a package in another encoding keeps its metadata as written
            named = package
        if named != package:
            changed[path] = named
        return rezip(self.archive, changed, mimetype_first=True)
