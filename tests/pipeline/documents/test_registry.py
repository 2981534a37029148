"""pipeline/documents/registry.py: the formats by extension, with their media types and results,
and every format read within its budget."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pipeline.documents import FORMATS, SUPPORTED, DocumentError, DocumentTooLarge, extension, media_type, output_extension, read
from tests.pipeline.documents.limits import over
from tests.pipeline.documents.office_files import epub_file, zip_members
from tests.pipeline.documents.upper import Upper


def test_deeply_nested_html_and_markdown_are_read_without_recursion_errors():
    html = "<b>" * 1500 + "Hallo Welt." + "</b>" * 1500
    assert read(".html", html.encode(), 20_000).translate(Upper()).decode() == html.replace("Hallo Welt", "HALLO WELT")
    markdown = ">" * 3000 + " Hallo Welt.\n\n" + "".join("  " * i + "- Hallo\n" for i in range(500))
    with pytest.raises(DocumentError) as info:   # never a RecursionError, never text left silently
        read(".md", markdown.encode(), 20_000)
    assert str(info.value) == "line 1 nests quotes or lists more than 49 levels deep: its text would be left untranslated"
    markdown = ">" * 40 + " Hallo Welt.\n\n" + "".join("  " * i + "- Hallo\n" for i in range(20))
    assert read(".md", markdown.encode(), 20_000).translate(Upper()).decode().count("HALLO") == 21
    book = epub_file("<div>" * 1000 + "Hallo" + "</div>" * 1000)
    assert b"HALLO" in zip_members(read(".epub", book, 20_000).translate(Upper()))["OEBPS/Text/kapitel 1.xhtml"]


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


MEDIA_TYPES = {   # what /download_file serves a translated file as (a .pdf's translation is a .docx)
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".epub": "application/epub+zip", ".html": "text/html", ".json": "application/json", ".md": "text/markdown",
    ".odp": "application/vnd.oasis.opendocument.presentation", ".odt": "application/vnd.oasis.opendocument.text",
    ".pdf": "application/pdf", ".po": "text/x-gettext-translation", ".pot": "text/x-gettext-translation",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".srt": "application/x-subrip", ".txt": "text/plain", ".vtt": "text/vtt",
}


def test_formats_their_media_types_and_their_results():
    assert FORMATS == tuple(MEDIA_TYPES)
    assert SUPPORTED == ".docx, .epub, .html, .json, .md, .odp, .odt, .pdf, .po, .pot, .pptx, .srt, .txt or .vtt"
    assert {extension: media_type(extension) for extension in FORMATS} == MEDIA_TYPES
    assert media_type(".doc") is None
    assert [output_extension(e) for e in FORMATS] == [e if e != ".pdf" else ".docx" for e in FORMATS]


@pytest.mark.parametrize("path, expected", [
    ("Brief.DOCX", ".docx"), ("a/b/kapitel.1.md", ".md"), ("catalog.pot", ".pot"),
])
def test_the_extension_of_a_path(path, expected):
    assert extension(path) == expected


@pytest.mark.parametrize("path", ["brief.doc", "README", "archiv.tar.gz"])
def test_an_unsupported_extension_is_refused_naming_the_supported_ones(path):
    with pytest.raises(ValueError) as info:
        extension(path)
    assert str(info.value) == f"{path!r}: unsupported file format; use {SUPPORTED}"
    with pytest.raises(ValueError, match=r"^unsupported extension '\.doc'; supported: \.docx, \.epub, "):
        read(".doc", b"Hallo")


@pytest.mark.slow
def test_office_and_pdf_libraries_wait_for_their_first_file():
    # A server that translates text never holds them: importing the app leaves them out.
    code = "import sys, app; print(' '.join(m for m in ('docx', 'pptx', 'pypdf') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == ""
