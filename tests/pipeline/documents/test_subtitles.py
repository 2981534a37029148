"""pipeline/documents/subtitles.py: .srt and .vtt subtitles in, translated subtitles out."""

from __future__ import annotations

import pytest

from pipeline import segment
from pipeline.documents import DocumentError, read
from pipeline.language_pair import EN_DE
from tests.pipeline.documents.upper import Upper


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


def test_an_english_vtt_names_german_where_it_named_english_after_en_de():
    vtt = ("WEBVTT\nKind: captions\nLanguage: en-GB\n\nNOTE Language: en\n\n"
           "00:00:01.000 --> 00:00:02.000\n<lang en>It is raining</lang> <lang fr>encore</lang>.\n")
    out = read(".vtt", vtt.encode()).translate(Upper(languages=EN_DE), EN_DE).decode()
    assert out == ("WEBVTT\nKind: captions\nLanguage: de-DE\n\nNOTE Language: en\n\n"   # a note stays as written
                   "00:00:01.000 --> 00:00:02.000\n<lang de>IT IS RAINING</lang> <lang fr>ENCORE</lang>.\n")


def test_a_vtt_names_english_where_it_named_german_by_default():
    vtt = "WEBVTT\nLanguage: de\n\n00:00:01.000 --> 00:00:02.000\n<lang.x de-AT>Servus</lang>\n"
    assert read(".vtt", vtt.encode()).translate(Upper()).decode() == (
        "WEBVTT\nLanguage: en\n\n00:00:01.000 --> 00:00:02.000\n<lang.x en-US>SERVUS</lang>\n")


def test_every_vtt_cue_is_kept_with_its_timing_as_written_even_where_it_is_out_of_range():
    """webvtt-py dropped a cue whose timestamp it could not read: 2,000 of them came back as WEBVTT."""
    bad = "".join(f"00:00:{k:02d}.000 --> 00:99:06.000\nZeile {k}\n\n" for k in range(60))
    out = read(".vtt", ("WEBVTT\n\n" + bad).encode()).translate(Upper()).decode()
    assert out == "WEBVTT\n\n" + bad.replace("Zeile", "ZEILE")


@pytest.mark.parametrize("timing", ["00:00:03,5 --> 00:00:04,75", "0:0:3,500 --> 0:0:4,000 X1:10 Y1:20",
                                    "00:00:03.500 --> 00:00:04.000"])
def test_srt_timings_stay_exactly_as_written(timing):
    """srt wrote them anew: "00:00:03,5" (3.5 s) came back as "00:00:03,005"."""
    srt = f"7\r\n{timing}\r\nHallo\r\nWelt\r\n\r\n8\r\n{timing}\r\nTschüss"
    out = read(".srt", srt.encode()).translate(Upper()).decode()
    assert out == f"7\r\n{timing}\r\nHALLO\r\nWELT\r\n\r\n8\r\n{timing}\r\nTSCHÜSS"


def test_srt_text_after_a_blank_line_inside_a_cue_is_translated_too():
    srt = "1\n00:00:01,000 --> 00:00:02,000\nErste Zeile\n\nZweite Zeile\n\n2\n00:00:03,000 --> 00:00:04,000\nDritte\n"
    assert read(".srt", srt.encode()).translate(Upper()).decode() == srt.replace("Erste Zeile", "ERSTE ZEILE").replace(
        "Zweite Zeile", "ZWEITE ZEILE").replace("Dritte", "DRITTE")


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
    (".vtt", b"WEBVTTX\n\n00:00:01.000 --> 00:00:02.000\nA\n", "file is not a valid .vtt subtitle file"),
    (".srt", b"Nur Text\n\nohne Zeiten\n", "file is not a valid .srt subtitle file"),
    (".srt", "1\n00:00:01,000 --> 00:00:02,000\nGrüße\n".encode("latin-1"), "file is not UTF-8 text"),
])
def test_unreadable_subtitles(extension, data, message):
    with pytest.raises(DocumentError) as info:
        read(extension, data)
    assert str(info.value) == message
