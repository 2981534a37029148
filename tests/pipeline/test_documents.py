"""pipeline/documents.py: .txt, .html, .docx and .po/.pot files in, translated files out.

``translate`` here upper-cases every word in place (each aligned to itself) or follows an
explicit table, so that what is under test is where text, runs and formatting end up; the model
itself is used end to end in tests/app/test_files.py.
"""

from __future__ import annotations

import base64
import io
import re
import zipfile

import docx
import pytest
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from model.inference.alignment import AlignedText
from pipeline import documents, segment
from pipeline.documents import DocumentError, DocumentTooLarge, read
from pipeline.markup import translate_html
from tests.pipeline.office_files import zip_file

# A 1x1 PNG, for a picture among the runs.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJ"
                       "RU5ErkJggg==")


def words(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\w+|[^\w\s]", text)]


class Upper:
    """Every word upper-cased in place and aligned to itself; records each call."""

    def __init__(self, table: dict[str, tuple[str, list[tuple[int, int]]]] | None = None) -> None:
        self.table = table or {}
        self.calls: list[tuple[list[str], bool]] = []

    def aligned(self, texts: list[str]) -> list[AlignedText]:
        out = []
        for text in texts:
            target, links = self.table.get(text, (text.upper(), [(i, i) for i in range(len(words(text)))]))
            out.append(AlignedText(text, target, words(text), words(target), sorted(links)))
        return out

    def __call__(self, texts: list[str], html: bool = False) -> list[str]:
        self.calls.append((list(texts), html))
        return translate_html(texts, self.aligned) if html else [t.upper() for t in texts]


def saved(document) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def roundtrip(document, translate=None) -> docx.Document:
    return docx.Document(io.BytesIO(read(".docx", saved(document)).translate(translate or Upper())))


def runs(paragraph) -> list[tuple[str, bool | None]]:
    return [(r.text, r.bold) for r in paragraph.runs]


# ------------------------------------------------------------------------------------- .txt, .html

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


@pytest.mark.parametrize("extension, data, message", [
    (".txt", "Grüße".encode("latin-1"), "file is not UTF-8 text"),
    (".html", b"<p>\xff</p>", "file is not UTF-8 text"),
    (".txt", b"Seite 1\x0cSeite 2", "file contains a control character (U+000C)"),
    (".html", b"<p>a\x00b</p>", "file contains a control character (U+0000)"),
    (".docx", b"Hallo", "file is not a valid .docx document"),
    (".docx", b"PK\x03\x04 truncated", "file is not a valid .docx document"),
    (".po", "msgid \"Grüße\"".encode("latin-1"), "file is not UTF-8 text"),
    (".po", b'msgid "Hallo"\nmsgstr "Hello\nfoo', "file is not a valid gettext catalog: Syntax error in po file (line 3)"),
    (".pot", b'msgid "Hallo"\nmsgid "Welt"\n', "file is not a valid gettext catalog: Syntax error in po file (line 2)"),
])
def test_unreadable_files(extension, data, message):
    with pytest.raises(DocumentError) as info:
        read(extension, data)
    assert str(info.value) == message and not isinstance(info.value, DocumentTooLarge)




def test_a_zip_that_is_no_word_document_is_refused():
    with pytest.raises(DocumentError, match="^file is not a valid .docx document$"):
        read(".docx", zip_file({"hello.txt": b"Hallo"}))


def test_macro_enabled_document_is_refused():
    # A .docm renamed to .docx: python-docx refuses the content type; nothing is ever run anyway.
    data = saved(docx.Document())
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        entries = {info.filename: archive.read(info) for info in archive.infolist()}
    entries["[Content_Types].xml"] = entries["[Content_Types].xml"].replace(
        b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
        b"application/vnd.ms-word.document.macroEnabled.main+xml")
    entries["word/vbaProject.bin"] = b"\x00" * 64
    with pytest.raises(DocumentError, match="^file is not a valid .docx document$"):
        read(".docx", zip_file(entries))


def test_unpacked_size_is_checked_before_decompressing(monkeypatch):
    monkeypatch.setattr(documents, "MAX_UNPACKED_BYTES", 1000)
    bomb = zip_file({"word/document.xml": b"<" * 5000})   # 5,000 bytes packed into a few dozen
    with pytest.raises(DocumentTooLarge) as info:
        read(".docx", bomb)
    assert str(info.value) == "the .docx unpacks to 5000 bytes, over the limit of 1000 bytes"


def test_too_many_parts(monkeypatch):
    monkeypatch.setattr(documents, "MAX_PARTS", 3)
    with pytest.raises(DocumentTooLarge, match=r"^the \.docx has 4 parts, over the limit of 3$"):
        read(".docx", zip_file({f"{i}.xml": b"" for i in range(4)}))


# ------------------------------------------------------------------------------------------- .docx

def test_runs_keep_their_formatting_and_paragraphs_their_style():
    document = docx.Document()
    document.add_heading("Das Wetter", level=1)
    p = document.add_paragraph("Die Katze ")
    p.add_run("schläft").bold = True
    p.add_run(".")
    p.runs[1].italic = True
    document.add_paragraph("")                      # empty: left alone
    out = roundtrip(document)
    assert len(out.paragraphs) == 3
    assert [q.style.name for q in out.paragraphs] == ["Heading 1", "Normal", "Normal"]
    assert out.paragraphs[0].text == "DAS WETTER"
    assert runs(out.paragraphs[1]) == [("DIE KATZE ", None), ("SCHLÄFT", True), (".", None)]
    assert out.paragraphs[1].runs[1].italic is True
    assert out.paragraphs[2].text == ""


def test_formatting_follows_a_word_that_moves():
    table = {"Ich habe das Buch gelesen.": ("I have read the book.", [(0, 0), (1, 1), (2, 4), (3, 2), (4, 3), (5, 5)])}
    document = docx.Document()
    p = document.add_paragraph("Ich habe das Buch ")
    p.add_run("gelesen").bold = True
    p.add_run(".")
    out = roundtrip(document, Upper(table))
    assert runs(out.paragraphs[0]) == [("I have ", None), ("read", True), (" the book.", None)]


# "gar nicht" -> "not ... at all": bold goes on "at all", not on everything from "not" to "all"
SPLIT = {"Das hat mir gar nicht gefallen.": ("I did not like that at all.",
                                              [(0, 2), (1, 1), (2, 4), (3, 5), (4, 0), (5, 3), (6, 3), (7, 6)])}


def test_formatting_keeps_to_the_words_that_translate_it():
    document = docx.Document()
    p = document.add_paragraph("Das hat mir ")
    p.add_run("gar nicht").bold = True
    p.add_run(" gefallen.")
    out = roundtrip(document, Upper(SPLIT))
    assert runs(out.paragraphs[0]) == [("I did not like that ", None), ("at all", True), (".", None)]


def test_one_call_for_the_whole_document_and_chars_count_the_text():
    document = docx.Document()
    document.add_paragraph("Guten Morgen.")
    document.add_paragraph("Es regnet.")
    translate = Upper()
    parsed = read(".docx", saved(document))
    assert parsed.chars == len("Guten Morgen.") + len("Es regnet.")
    parsed.translate(translate)
    assert translate.calls == [(['<span data-r="0">Guten Morgen.</span>', '<span data-r="0">Es regnet.</span>'], True)]


def test_tables_nested_tables_headers_and_footers_are_translated():
    document = docx.Document()
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Es regnet."
    inner = table.cell(0, 1).add_table(rows=1, cols=1)
    inner.cell(0, 0).text = "Bis morgen."
    section = document.sections[0]
    section.header.paragraphs[0].text = "Kopf"
    section.footer.paragraphs[0].text = "Fuss"
    out = roundtrip(document)
    assert out.tables[0].cell(0, 0).text == "ES REGNET."
    assert out.tables[0].cell(0, 1).tables[0].cell(0, 0).text == "BIS MORGEN."
    assert out.sections[0].header.paragraphs[0].text == "KOPF"
    assert out.sections[0].footer.paragraphs[0].text == "FUSS"


def test_line_breaks_split_lines_and_tabs_stay_between_their_words():
    document = docx.Document()
    p = document.add_paragraph("Name:\tAnna")
    p.runs[0].add_break()
    p.add_run("Es regnet.").add_break(docx.enum.text.WD_BREAK.PAGE)
    translate = Upper()
    out = roundtrip(document, translate)
    assert out.paragraphs[0].text == "NAME:\tANNA\nES REGNET."    # python-docx shows no page break
    xml = out.paragraphs[0]._p.xml
    assert xml.count("<w:br/>") == 1 and xml.count('<w:br w:type="page"/>') == 1
    html = translate.calls[0][0][0]
    assert html.count("<br ") == 2    # each line is translated apart


def hyperlink(paragraph, url: str, text: str):
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), paragraph.part.relate_to(url, RT.HYPERLINK, is_external=True))
    run = OxmlElement("w:r")
    rpr = OxmlElement("w:rPr")
    underline = OxmlElement("w:u")
    underline.set(qn("w:val"), "single")
    rpr.append(underline)
    run.append(rpr)
    t = OxmlElement("w:t")
    t.text = text
    run.append(t)
    link.append(run)
    paragraph._p.append(link)
    return link


def test_hyperlinks_keep_their_target_and_their_words():
    document = docx.Document()
    p = document.add_paragraph("Wo ist der ")
    rid = hyperlink(p, "https://example.org/bahnhof", "Bahnhof").get(qn("r:id"))
    p.add_run("?")
    out = roundtrip(document)
    links = out.paragraphs[0]._p.findall(qn("w:hyperlink"))
    assert len(links) == 1 and links[0].get(qn("r:id")) == rid
    assert "".join(t.text for t in links[0].iter(qn("w:t"))) == "BAHNHOF"
    assert links[0].find(qn("w:r")).find(qn("w:rPr")).find(qn("w:u")) is not None
    assert out.paragraphs[0].text == "WO IST DER BAHNHOF?"


def field_runs(paragraph, instruction: str, result: str) -> None:
    for kind, text in (("begin", None), (None, instruction), ("separate", None), (None, result), ("end", None)):
        run = OxmlElement("w:r")
        if kind:
            char = OxmlElement("w:fldChar")
            char.set(qn("w:fldCharType"), kind)
            run.append(char)
        else:
            t = OxmlElement("w:instrText" if text == instruction else "w:t")
            t.text = text
            run.append(t)
        paragraph._p.append(run)


def test_fields_and_pictures_are_kept_as_written_where_they_stood():
    document = docx.Document()
    p = document.add_paragraph("Seite ")
    field_runs(p, " PAGE ", "3")
    p.add_run(" von 5 ")
    p.add_run().add_picture(io.BytesIO(PNG))
    p.add_run(" Bild ").add_picture(io.BytesIO(PNG))   # a picture in a run with text
    p.add_run("oben.")
    out = roundtrip(document)
    body = out.paragraphs[0]._p
    texts = [(e.tag.split("}")[1], e.text) for e in body.iter(qn("w:t"), qn("w:instrText"))]
    assert texts == [("t", "SEITE "), ("instrText", " PAGE "), ("t", "3"), ("t", " VON 5 "), ("t", " BILD "),
                     ("t", "OBEN.")]
    content = [c.tag.split("}")[1] for r in body.iter(qn("w:r")) for c in r if c.tag != qn("w:rPr")]
    assert content[-5:] == ["t", "drawing", "t", "drawing", "t"]   # each picture where it was
    assert [c.get(qn("w:fldCharType")) for c in body.iter(qn("w:fldChar"))] == ["begin", "separate", "end"]


def test_spelling_marks_are_dropped_and_blank_paragraphs_untouched():
    document = docx.Document()
    p = document.add_paragraph("Ich mag ")
    p._p.append(OxmlElement("w:proofErr"))
    p.add_run("Kaffee.")
    blank = document.add_paragraph("   ")
    before = blank._p.xml
    out = roundtrip(document)
    assert out.paragraphs[0].text == "ICH MAG KAFFEE." and "proofErr" not in out.paragraphs[0]._p.xml
    assert out.paragraphs[1]._p.xml == before


def test_text_outside_every_run_takes_the_longest_runs_formatting():
    # "sehr" aligns to nothing, so the output word "really" lies outside both runs' spans.
    table = {"Das ist sehr gut.": ("That is really good.", [(0, 0), (1, 1), (3, 3), (4, 4)])}
    document = docx.Document()
    p = document.add_paragraph()
    p.add_run("Das ist").italic = True
    p.add_run(" sehr gut.").bold = True
    translate = Upper(table)
    out = roundtrip(document, translate)
    assert translate.aligned(["Das ist sehr gut."])[0].target == "That is really good."
    assert [(r.text, r.italic, r.bold) for r in out.paragraphs[0].runs] == [
        ("That is", True, None), (" really good.", None, True)]


CATALOG = r"""# Übersetzung von Beispiel.
msgid ""
msgstr ""
"Project-Id-Version: beispiel 1.0\n"
"Language: fr\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\n"

#. Ein Kommentar für Übersetzer
#: src/main.c:12
#, c-format
msgid "Datei %s nicht gefunden"
msgstr "Fichier %s introuvable"

msgctxt "Menü"
msgid "Öffnen"
msgstr ""

#, fuzzy
msgid "Speichern"
msgstr "Enregistrer"

#, python-format
msgid "%(count)d Datei"
msgid_plural "%(count)d Dateien"
msgstr[0] ""
msgstr[1] ""

msgid ""
"\n"
"Zeile eins\n"
msgstr ""

#~ msgid "Alt"
#~ msgstr "Ancien"
"""


def test_catalog_msgids_become_english_msgstrs_and_the_rest_is_kept():
    import polib

    translate = Upper()
    document = read(".po", CATALOG.encode())
    assert document.chars == len("Datei %s nicht gefunden") + len("Öffnen") + len("Speichern") + len(
        "%(count)d Datei") + len("%(count)d Dateien") + len("\nZeile eins\n")
    out = polib.pofile(document.translate(translate).decode("utf-8"))
    assert translate.calls == [(["Datei %s nicht gefunden", "Öffnen", "Speichern", "%(count)d Datei",
                                 "%(count)d Dateien", "Zeile eins"], False)]  # one call for the catalog
    assert out.metadata["Language"] == "en" and out.metadata["Plural-Forms"] == "nplurals=2; plural=(n != 1);"
    assert out.metadata["Project-Id-Version"] == "beispiel 1.0"
    entries = {(e.msgctxt, e.msgid): e for e in out}
    first = entries[None, "Datei %s nicht gefunden"]
    assert first.msgstr == "DATEI %S NICHT GEFUNDEN"  # the fake upper-cases all; the pipeline keeps directives
    assert (first.comment, first.occurrences, first.flags) == ("Ein Kommentar für Übersetzer", [("src/main.c", "12")],
                                                                ["c-format"])
    assert entries["Menü", "Öffnen"].msgstr == "ÖFFNEN"
    assert entries[None, "Speichern"].msgstr == "SPEICHERN" and entries[None, "Speichern"].fuzzy
    plural = entries[None, "%(count)d Datei"]
    assert plural.msgstr_plural == {0: "%(COUNT)D DATEI", 1: "%(COUNT)D DATEIEN"}
    assert entries[None, "\nZeile eins\n"].msgstr == "\nZEILE EINS\n"  # the newlines stay, as msgfmt -c wants
    assert [(e.msgid, e.msgstr) for e in out.obsolete_entries()] == [("Alt", "Ancien")]
    assert out.header == "Übersetzung von Beispiel."


SRT = """1
00:00:01,000 --> 00:00:03,500
Die Katze schläft
auf dem <i>Sofa</i>.

2
00:00:04,000 --> 00:00:05,250
Guten Morgen!

"""


def test_srt_cues_keep_numbers_timings_and_their_number_of_lines():
    translate = Upper()
    document = read(".srt", SRT.encode())
    assert document.chars == len("Die Katze schläft auf dem <i>Sofa</i>.") + len("Guten Morgen!")
    out = document.translate(translate).decode()
    # one call for the plain cues, one for the cues with tags (as HTML, the tags following their words)
    assert translate.calls == [(["Guten Morgen!"], False), (["Die Katze schläft auf dem <i>Sofa</i>."], True)]
    assert out == ("1\n00:00:01,000 --> 00:00:03,500\nDIE KATZE SCHLÄFT\nAUF DEM <i>SOFA</i>.\n\n"
                   "2\n00:00:04,000 --> 00:00:05,250\nGUTEN MORGEN!\n\n")


def test_vtt_keeps_header_notes_styles_identifiers_and_cue_settings():
    vtt = ("WEBVTT - Untertitel\n\nSTYLE\n::cue { color: yellow }\n\nNOTE Von Hand geprüft\n\n"
           "eins\n00:00:01.000 --> 00:00:02.000 align:start line:0\nEs regnet\nschon wieder.\n\n"
           "00:00:03.000 --> 00:00:04.000\nBis morgen.\n")
    out = read(".vtt", vtt.encode()).translate(Upper()).decode()
    assert out == ("WEBVTT - Untertitel\n\nSTYLE\n::cue { color: yellow }\n\nNOTE Von Hand geprüft\n\n"
                   "eins\n00:00:01.000 --> 00:00:02.000 align:start line:0\nES REGNET\nSCHON WIEDER.\n\n"
                   "00:00:03.000 --> 00:00:04.000\nBIS MORGEN.\n")


@pytest.mark.parametrize("text, lines, expected", [
    ("The cat is sleeping on the sofa today", 2, "The cat is sleeping\non the sofa today"),
    ("one two three four five six", 3, "one two\nthree four\nfive six"),
    ("Hello", 2, "Hello"),                                   # fewer words than lines: as many as it has
    ('<font color="red">The cat</font> is sleeping now', 2, '<font color="red">The cat</font> is\nsleeping now'),
    ("a b c", 1, "a b c"),
])
def test_subtitle_lines_are_balanced_at_spaces_outside_tags(text, lines, expected):
    assert segment.lines_like(text, lines) == expected


@pytest.mark.parametrize("extension, data, message", [
    (".srt", b"kaputt\n", "file is not a valid .srt subtitle file"),
    (".vtt", b"kaputt\n", "file is not a valid .vtt subtitle file"),
    (".srt", "1\n00:00:01,000 --> 00:00:02,000\nGrüße\n".encode("latin-1"), "file is not UTF-8 text"),
])
def test_unreadable_subtitles(extension, data, message):
    with pytest.raises(DocumentError) as info:
        read(extension, data)
    assert str(info.value) == message


JSON = """{
  "app": {
    "title": "Mein Kalender",
    "greeting": "Hallo {{name}}, willkommen zur\\u00fcck!",
    "buttons": ["Speichern", "Abbrechen", "", "42 %"],
    "count": 3, "enabled": true, "nothing": null
  },
  "title": "  Titel  "
}
"""


def test_json_strings_are_translated_in_place_and_the_rest_is_byte_for_byte():
    translate = Upper()
    document = read(".json", JSON.encode())
    assert document.chars == len("Mein Kalender") + len("Hallo {{name}}, willkommen zurück!") + len(
        "Speichern") + len("Abbrechen") + len("  Titel  ")
    out = document.translate(translate).decode()
    # keys, numbers, order, layout as written; the strings without a letter untouched; one call
    assert translate.calls == [(["Mein Kalender", "Hallo {{name}}, willkommen zurück!", "Speichern", "Abbrechen",
                                 "Titel"], False)]
    assert out == JSON.replace('"Mein Kalender"', '"MEIN KALENDER"').replace(
        '"Hallo {{name}}, willkommen zur\\u00fcck!"', '"HALLO {{NAME}}, WILLKOMMEN ZURÜCK!"').replace(
        '["Speichern", "Abbrechen"', '["SPEICHERN", "ABBRECHEN"').replace('"  Titel  "', '"  TITEL  "')


def test_chrome_messages_keep_their_descriptions():
    messages = '{"save": {"message": "Speichern", "description": "Knopf"}, "description": {"message": "Hallo"}}'
    out = read(".json", messages.encode()).translate(Upper()).decode()
    assert out == '{"save": {"message": "SPEICHERN", "description": "Knopf"}, "description": {"message": "HALLO"}}'


@pytest.mark.parametrize("data, message", [
    (b'{"a": "Hallo",}', "file is not valid JSON: Expecting property name enclosed in double quotes: line 1 column 15 (char 14)"),
    (b'', "file is not valid JSON: Expecting value: line 1 column 1 (char 0)"),
    (b'{"a": "\xff"}', "file is not UTF-8 text"),
])
def test_unreadable_json(data, message):
    with pytest.raises(DocumentError) as info:
        read(".json", data)
    assert str(info.value) == message
