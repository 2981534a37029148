"""pipeline/documents/text.py: .txt and .html files in, translated files out."""

from __future__ import annotations

import pytest

from pipeline.documents import DocumentError, DocumentTooLarge, read
from pipeline.language_pair import EN_DE
from tests.pipeline.documents.upper import Upper


def test_txt_keeps_every_line_blank_line_indent_and_line_ending():
    text = "\ufeffGuten Morgen.\r\n\r\n  Es regnet.  \n\n\nEnde\n"
    translate = Upper()
    document = read(".txt", text.encode())
    assert document.chars == len(text) - 1   # without the BOM
    assert document.translate(translate).decode() == "\ufeffGUTEN MORGEN.\r\n\r\n  ES REGNET.  \n\n\nENDE\n"
    assert translate.calls == [(["Guten Morgen.", "Es regnet.", "Ende"], False)]   # one batch


def test_blank_txt_is_not_sent_to_the_model():
    translate = Upper()
    assert read(".txt", b" \n\n\t\n").translate(translate) == b" \n\n\t\n"
    assert translate.calls == []


def test_html_goes_through_the_markup_pipeline_whole():
    html = '<html><head><title>Titel</title></head><body><p class="x">Das ist <b>gut</b>.</p></body></html>'
    translate = Upper()
    out = read(".html", html.encode()).translate(translate).decode()
    assert out == '<html><head><title>TITEL</title></head><body><p class="x">DAS IST <b>GUT</b>.</p></body></html>'
    assert translate.calls == [([html], True)]


def test_html_names_german_where_it_named_english_after_en_de():
    html = '<html lang="en-US"><body><p>It is <b>good</b>.</p><p lang="de">Gut.</p></body></html>'
    out = read(".html", html.encode()).translate(Upper(languages=EN_DE), EN_DE).decode()
    assert out == '<html lang="de"><body><p>IT IS <b>GOOD</b>.</p><p lang="de">GUT.</p></body></html>'


def test_html_names_english_where_it_named_german_by_default():
    html = '<html lang="de-DE"><body><p>Gut.</p><p lang="en">Good.</p></body></html>'
    out = read(".html", html.encode()).translate(Upper()).decode()
    assert out == '<html lang="en"><body><p>GUT.</p><p lang="en">GOOD.</p></body></html>'


@pytest.mark.parametrize("extension, data, message", [
    (".txt", "Grüße".encode("latin-1"), "file is not UTF-8 text"),
    (".html", b"<p>\xff</p>", "file is not UTF-8 text"),
    (".txt", b"Seite 1\x0cSeite 2", "file contains a control character (U+000C)"),
    (".html", b"<p>a\x00b</p>", "file contains a control character (U+0000)"),
])
def test_unreadable_files(extension, data, message):
    with pytest.raises(DocumentError) as info:
        read(extension, data)
    assert str(info.value) == message and not isinstance(info.value, DocumentTooLarge)
