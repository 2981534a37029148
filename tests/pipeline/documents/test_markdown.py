"""pipeline/documents/markdown.py (through documents.read(".md")): text translated, markup as written.

``Upper`` (tests/pipeline/documents/upper.py) upper-cases every word in place, aligned to itself,
so that what is under test is where text and markup end up."""

from __future__ import annotations

import pytest

from pipeline.documents import DocumentError, read

from tests.pipeline.documents.upper import Upper

SOURCE = """---
title: Hallo
---
# Titel mit `code` und ``a ` b``

Ein **fetter** und __starker__ Satz mit [einem Link](https://x.de "Der Titel") und
eine *zweite* Zeile mit ~~alt~~.  
Nach dem Umbruch\\
und file_name.

> Ein Zitat über
> zwei Zeilen.

1. Erster Punkt
   - innen mit ![Bild](a.png "B") und <https://y.de>
2. Zweiter <b>Punkt</b>

| Spalte | Wert |
|:---|---:|
| Hallo Welt | eins |

```python
print("Hallo Welt")
```

    eingerückter Code

Überschrift
===========

<div>HTML-Block bleibt</div>

[ref]: https://example.org "Ref"
"""

EXPECTED = """---
title: Hallo
---
# TITEL MIT `code` UND ``a ` b``

EIN **FETTER** UND __STARKER__ SATZ MIT [EINEM
LINK](https://x.de "Der Titel") UND EINE *ZWEITE* ZEILE MIT ~~ALT~~.\\
NACH DEM UMBRUCH\\
UND FILE_NAME.

> EIN ZITAT ÜBER
> ZWEI ZEILEN.

1. ERSTER PUNKT
   - INNEN MIT ![Bild](a.png "B") UND <https://y.de>
2. ZWEITER <b>PUNKT</b>

| SPALTE | WERT |
|:---|---:|
| HALLO WELT | EINS |

```python
print("Hallo Welt")
```

    eingerückter Code

ÜBERSCHRIFT
===========

<div>HTML-Block bleibt</div>

[ref]: https://example.org "Ref"
"""


def test_text_is_translated_and_everything_else_kept_as_written():
    translate = Upper()
    document = read(".md", SOURCE.encode())
    out = document.translate(translate).decode()
    assert out == EXPECTED
    assert len(translate.calls) == 1 and translate.calls[0][1] is True  # one call, as HTML fragments
    fragments = translate.calls[0][0]
    assert fragments[:2] == [
        'Titel mit <code data-m="0">code</code> und <code data-m="1">a ` b</code>',
        'Ein <md-e data-m="0">fetter</md-e> und <md-e data-m="1">starker</md-e> Satz mit <md-a data-m="2">einem '
        'Link</md-a> und eine <md-e data-m="3">zweite</md-e> Zeile mit <md-e data-m="4">alt</md-e>.<br data-m="5">'
        'Nach dem Umbruch<br data-m="6">und file_name.']
    assert len(fragments) == 11  # the blocks with text: headings, paragraphs, items, quote, cells
    assert document.chars == sum(len(f) for f in [
        "Titel mit `code` und ``a ` b``", "Ein **fetter** und __starker__ Satz mit [einem Link](https://x.de "
        '"Der Titel") und eine *zweite* Zeile mit ~~alt~~.   Nach dem Umbruch\\ und file_name.',
        "Ein Zitat über zwei Zeilen.", "Erster Punkt", 'innen mit ![Bild](a.png "B") und <https://y.de>',
        "Zweiter <b>Punkt</b>", "Spalte", "Wert", "Hallo Welt", "eins", "Überschrift"])


def test_markdown_specials_in_the_translation_are_escaped():
    out = read(".md", "Ein Satz.\n".encode()).translate(lambda texts, html=False: ["5 * 3 [x] `y` _z_"]).decode()
    assert out == "5 \\* 3 \\[x\\] \\`y\\` \\_z\\_\n"


def test_a_text_without_letters_is_not_sent():
    translate = Upper()
    assert read(".md", b"```\ncode\n```\n\n---\n\n1234\n").translate(translate) == b"```\ncode\n```\n\n---\n\n1234\n"
    assert translate.calls == []


@pytest.mark.parametrize("data, message", [
    (b"\xff", "file is not UTF-8 text"),
    (b"Seite 1\x0cSeite 2", "file contains a control character (U+000C)"),
])
def test_unreadable_markdown(data, message):
    with pytest.raises(DocumentError) as info:
        read(".md", data)
    assert str(info.value) == message


@pytest.mark.parametrize("prefix", ["> " * 20, "> " * 49, "- " * 24, "> - " * 12])
def test_text_nested_deeper_than_markdown_its_default_allows_is_translated(prefix):
    """markdown-it's default of 20 levels dropped the text of deeper quotes: it came back as written."""
    source = f"Eins\n\n{prefix}Hallo Welt\n"
    assert read(".md", source.encode()).translate(Upper()).decode() == f"EINS\n\n{prefix}HALLO WELT\n"


@pytest.mark.parametrize("prefix, line", [("> " * 50, 3), ("- " * 25, 3), ("> " * 2000, 1)])
def test_text_nested_beyond_the_bound_is_refused_with_its_line(prefix, line):
    source = ("Eins\n\n" if line == 3 else "") + f"{prefix}Hallo Welt\n"
    with pytest.raises(DocumentError) as info:
        read(".md", source.encode())
    assert str(info.value) == (f"line {line} nests quotes or lists more than 49 levels deep: "
                               "its text would be left untranslated")
