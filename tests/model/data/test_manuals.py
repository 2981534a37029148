"""model.data.manuals: the Debian Reference's HTML and Mallard help pages paired block by block."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from model.data import CorpusError, CorpusSpec
from model.data.manuals import html_blocks, read_debian_reference, read_mallard

# Our own pages, laid out as DocBook's HTML output in /usr/share/debian-reference is.
CHAPTER = """<html><head><title>{title}</title><style>p {{ color: red }}</style></head><body>
<div class="navheader"><table><tr><td><a href="x">{prev}</a></td></tr></table></div>
<h2 class="title"><a name="_shell"></a>1.1. {title}</h2>
<p>{intro}</p>
<pre class="screen">$ ls -la /etc</pre>
<div class="itemizedlist"><ul><li class="listitem"><p>{item}</p></li></ul></div>
<table><tr><td>coreutils</td><td>{cell}</td></tr></table>
</body></html>"""
DE_CHAPTER = dict(title="Die Shell", prev="Zurück", cell="Grundlegende Werkzeuge",
                  intro='Die Shell liest Befehle. Sie führt <span class="command">ls</span> aus!',
                  item="Vermischen Sie nicht Debian mit <code>Ubuntu</code>.")
EN_CHAPTER = dict(title="The shell", prev="Prev", cell="Basic tools",
                  intro='The shell reads commands. It runs <span class="command">ls</span>!',
                  item="Do not mix Debian with <code>Ubuntu</code>.")


@pytest.fixture
def reference(tmp_path):
    (tmp_path / "ch01.de.html").write_text(CHAPTER.format(**DE_CHAPTER), encoding="utf-8")
    (tmp_path / "ch01.en.html").write_text(CHAPTER.format(**EN_CHAPTER), encoding="utf-8")
    # another version of a page: a paragraph more in German, so no block can be trusted to pair
    (tmp_path / "ch02.de.html").write_text("<p>Eins.</p><p>Zwei.</p>", encoding="utf-8")
    (tmp_path / "ch02.en.html").write_text("<p>One.</p>", encoding="utf-8")
    (tmp_path / "ch03.de.html").write_text("<p>Nur deutsch.</p>", encoding="utf-8")
    return tmp_path


def test_debian_reference_pairs_blocks_by_position(reference):
    assert read_debian_reference(reference) == [
        ("Zurück", "Prev"),
        ("Die Shell", "The shell"),
        ("Die Shell liest Befehle.", "The shell reads commands."),
        ("Sie führt ls aus!", "It runs ls!"),
        ("Vermischen Sie nicht Debian mit Ubuntu.", "Do not mix Debian with Ubuntu."),
        ("Grundlegende Werkzeuge", "Basic tools"),
    ]


def test_debian_reference_keeps_a_paragraph_whole_where_sentences_differ(tmp_path):
    (tmp_path / "a.de.html").write_text("<p>Das geht. Das auch, z. B. hier.</p>", encoding="utf-8")
    (tmp_path / "a.en.html").write_text("<p>This works. So does this, e.g. here.</p>", encoding="utf-8")
    assert read_debian_reference(tmp_path) == [("Das geht. Das auch, z. B. hier.", "This works. So does this, e.g. here.")]


@pytest.mark.parametrize("layout", ["empty", "german only", "a file"])
def test_not_a_debian_reference_folder(tmp_path, layout):
    path = tmp_path
    if layout == "german only":
        (tmp_path / "ch01.de.html").write_text("<p>Hallo.</p>", encoding="utf-8")
    elif layout == "a file":
        path = tmp_path / "ch01.en.html"
        path.write_text("<p>Hello.</p>", encoding="utf-8")
    with pytest.raises(CorpusError) as error:
        read_debian_reference(path)
    assert str(error.value) == f"not a Debian Reference folder (no NAME.de.html with its NAME.en.html): '{path}'"


# Our own Mallard pages, as itstool writes GNOME's help: the German page mirrors C/'s blocks.
PAGE = """<?xml version="1.0" encoding="utf-8"?>
<page xmlns="http://projectmallard.org/1.0/" xmlns:its="http://www.w3.org/2005/11/its" type="topic" id="net">
  <info><desc>{desc}</desc><credit type="author"><name>GNOME</name></credit></info>
  <title>{title}</title>
  {comment}
  <steps>
    <item><p>{step}</p></item>
    <item><p>{keys}</p></item>
  </steps>
  <p>{media}</p>
  <code>nmcli device wifi</code>
</page>"""
C_PAGE = dict(desc="Get on the internet.", title="Connect to a wireless network",
              comment="<comment><cite>Editor</cite><p>Say more about hidden networks.</p></comment>",
              step="Open the <gui>system menu</gui>.",
              keys="Press <keyseq><key>Ctrl</key><key>Alt</key><key>T</key></keyseq> to open a terminal.",
              media='The icon <media type="image" src="wifi.svg">wifi</media> shows the signal.')
DE_PAGE = dict(desc="Gehen Sie ins Internet.", title="Verbinden mit Funknetzwerken", comment="",
               step="Öffnen Sie das <gui>Systemmenü</gui>.",
               keys="Drücken Sie <keyseq><key>Strg</key><key>Alt</key><key>T</key></keyseq>, um ein Terminal zu öffnen.",
               media='Das Symbol <media type="image" src="wifi.svg">wifi</media> zeigt das Signal.')


@pytest.fixture
def help_root(tmp_path):
    for language, fields in (("C", C_PAGE), ("de", DE_PAGE)):
        folder = tmp_path / language / "gnome-help"
        folder.mkdir(parents=True)
        (folder / "net.page").write_text(PAGE.format(**fields), encoding="utf-8")
    (tmp_path / "de" / "gnome-help" / "only-german.page").write_text(PAGE.format(**DE_PAGE), encoding="utf-8")
    return tmp_path


def test_mallard_pairs_blocks_without_comments_or_media(help_root):
    assert read_mallard(help_root) == [
        ("Gehen Sie ins Internet.", "Get on the internet."),
        ("Verbinden mit Funknetzwerken", "Connect to a wireless network"),
        ("Öffnen Sie das Systemmenü.", "Open the system menu."),
        ("Drücken Sie Strg+Alt+T, um ein Terminal zu öffnen.", "Press Ctrl+Alt+T to open a terminal."),
        ("Das Symbol zeigt das Signal.", "The icon shows the signal."),
    ]


def test_mallard_skips_a_page_of_another_version(help_root):
    german = help_root / "de" / "gnome-help" / "net.page"
    german.write_text(german.read_text(encoding="utf-8").replace("</steps>", "<item><p>Neu.</p></item></steps>"),
                      encoding="utf-8")
    assert read_mallard(help_root) == []


def test_mallard_never_resolves_entities(help_root):
    secret = help_root / "secret.txt"
    secret.write_text("Geheimnis", encoding="utf-8")
    for language, text in (("C", "Read &xxe;."), ("de", "Lies &xxe;.")):
        (help_root / language / "gnome-help" / "net.page").write_text(
            f'<?xml version="1.0"?><!DOCTYPE page [<!ENTITY xxe SYSTEM "file://{secret}">]>'
            f'<page xmlns="http://projectmallard.org/1.0/"><p>{text}</p></page>', encoding="utf-8")
    assert read_mallard(help_root) == [("Lies .", "Read .")]


def test_mallard_malformed_page(help_root):
    broken = help_root / "de" / "gnome-help" / "net.page"
    broken.write_text("<page><p>offen</page>", encoding="utf-8")
    with pytest.raises(CorpusError) as error:
        read_mallard(help_root)
    assert str(error.value).startswith(f"cannot read page '{broken}': Opening and ending tag mismatch: p line 1")


@pytest.mark.parametrize("missing", ["C", "de"])
def test_not_a_mallard_root(tmp_path, missing):
    (tmp_path / ({"C", "de"} - {missing}).pop()).mkdir()
    with pytest.raises(CorpusError) as error:
        read_mallard(tmp_path)
    assert str(error.value) == f"not a Mallard help root (no {missing}/ inside): '{tmp_path}'"


@pytest.mark.parametrize("kind", ["debian-reference", "mallard"])
def test_spec_kinds_only_train(reference, help_root, kind):
    path = reference if kind == "debian-reference" else help_root
    spec = CorpusSpec.parse(f"{kind}:{path}@3")
    assert (spec.kind, spec.weight, spec.domain) == (kind, 3.0, None)
    assert spec.read() == (read_debian_reference(path) if kind == "debian-reference" else read_mallard(path))


REFERENCE = os.environ.get("DEBIAN_REFERENCE_PATH", "/usr/share/debian-reference")
HELP = os.environ.get("MALLARD_PATH", "/usr/share/help")


@pytest.mark.skipif(not Path(REFERENCE, "ch02.de.html").is_file(),
                    reason=f"needs Debian's debian-reference-de and -en in {REFERENCE} (DEBIAN_REFERENCE_PATH)")
def test_debian_reference_as_debian_ships_it():
    pairs = read_debian_reference(REFERENCE)
    assert 5_000 < len(pairs) < 10_000
    assert ('Erstellen Sie keine "/etc/apt/preferences"-Datei.', 'Do not create "/etc/apt/preferences".') in pairs
    # the chapters have their English ones' blocks; only the appendix (the translators' credits) differs
    skipped = [de_file.name for de_file in sorted(Path(REFERENCE).glob("*.de.html"))
               if [t for t, _ in html_blocks(de_file)]
               != [t for t, _ in html_blocks(de_file.with_name(de_file.name.replace(".de.", ".en.")))]]
    assert skipped == ["apa.de.html"]


@pytest.mark.skipif(not Path(HELP, "de", "gnome-help").is_dir(),
                    reason=f"needs Debian's gnome-user-docs in {HELP} (MALLARD_PATH)")
def test_gnome_help_as_debian_ships_it():
    pairs = read_mallard(HELP)
    assert 3_500 < len(pairs) < 8_000
    assert ("Klicken Sie auf Farbe in der Seitenleiste, um das Panel zu öffnen.",
            "Click Color in the sidebar to open the panel.") in pairs
    assert not [pair for pair in pairs if "I'd like this page" in pair[1]]   # editors' comments
