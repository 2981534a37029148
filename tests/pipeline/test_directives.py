"""Property: every format directive of every input comes back exactly once, whatever the model
writes (pipeline.spans protects them as placeholders; pipeline.translation restores and repairs),
and without what the model glued to it that the source does not have there ("%d- Foto":
model.data.software.stray_glue, repaired by the verbatim rule's ``words.unglued``).

Run here on the fixture model (a tiny model trained on span examples); on the release model in
tests/test_release.py, with these examples and ``check``."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import replace

import polib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.data.software import directives, stray_glue
from model.search.options import SERVED
from pipeline.documents import read
from pipeline.language_pair import EN_DE
from pipeline.rules.verbatim import ENGLISH_RULE, RULE, find_spans
from pipeline.spans import mask
from pipeline.texts import translate_texts
from pipeline.translation import Options, Pipeline
from pipeline.words import Restorer, Word, render, unglued

# One of each kind the issue lists: printf with flags, width, precision and positions; Python;
# Qt; Ruby; shell and Make; i18next; Mozilla's and Apple's printf; Fluent.
DIRECTIVES = ["%s", "%d", "%5.2f", "%-10s", "%1$s", "%2$d", "%%", "%(name)s", "%(count)d", "{name}", "{0}",
              "{0:.2f}", "{name!r}", "%1", "%2", "%{name}", "$VAR", "${var}", "$(ARG1)", "{{count}}", "%S", "%1$S",
              "%@", "{ $count }", "{ -brand-short-name }", "{ NUMBER($size, maximumFractionDigits: 1) }"]
TEMPLATES = [
    "Die Datei @ wurde nicht gefunden.",
    "Willkommen, @!",
    "@ Dateien wurden gelöscht.",
    "Fehler beim Öffnen von @: @",
    "Kopiere @ nach @ …",
    "Noch @ Minuten bis zum Ende von @.",
    "Bitte starten Sie @ neu.",
    "@",
    "Der Benutzer @ hat @ Nachrichten und @ Termine.",
]


def fill(template: str, chosen: list[str]) -> str:
    parts = template.split("@")
    return parts[0] + "".join(directive + part for directive, part in zip(chosen, parts[1:]))


EXAMPLES = st.tuples(st.sampled_from(TEMPLATES), st.lists(st.sampled_from(DIRECTIVES), min_size=3, max_size=3))


def check(pipeline: Pipeline, example) -> None:
    template, chosen = example
    text = fill(template, chosen)
    expected = sorted(directives(text))
    assert len(expected) == template.count("@")
    [out] = pipeline.translate([text])
    assert sorted(directives(out)) == expected, (text, out)


@pytest.fixture(scope="module")
def fixture_pipeline(span_translator):
    return Pipeline(span_translator, Options(search=replace(SERVED, beam_size=1)))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(example=EXAMPLES)
def test_every_directive_comes_back_once_on_the_fixture_model(fixture_pipeline, example):
    check(fixture_pipeline, example)



# ---------------------------------------------------------------- what the model glues to a directive

@pytest.mark.parametrize(("source", "output", "stray"), [
    # English into German
    ("Move %d photo to %s?", "%d- Foto nach %s verschieben?", "-"),       # the issue's
    ("Delete %d file?", "%d-Datei löschen?", "-"),                         # a number makes no compound
    ("Remove %(count)d items?", "%(count)d-Elemente entfernen?", "-"),
    ("PKCS %s driver", "PKCS%s-Treiber", "S"),                             # a word glued on the other side
    ("Request: %s, %s", "Anfrage: %s-, %s", "-"),
    ("%1 of %2 photos", "%1n von %2 Fotos", "n"),                          # a letter fragment
    ("Move %d photo to %s?", "%d. Foto nach %s verschieben?", "."),       # one sentence end more than the source
    ("The %s-based editor is ready.", "Der %s-basierte Editor ist bereit.", ""),   # the source's own hyphen
    ("Insert %s Chart", "%s-Diagramm einfügen", ""),                       # a name in a German compound
    ("Delete %s if it exists", "Lösche %s, wenn es existiert", ""),       # a comma comes with the clause
    ("File %s not found", "Datei „%s“ nicht gefunden", ""),                # quotation marks as German writes them
    ("Could not read log file '%s'", "Logdatei `%s' konnte nicht gelesen werden", ""),
    ("Move to %s", "Nach %s verschieben", ""),
    ("Saved to %s.", "Gespeichert in %s.", ""),                            # the sentence's last mark
    # German into English
    ("Datei %s konnte nicht geöffnet werden.", "Could not open file %s.", ""),
    ("Verbindung zu %s wird hergestellt …", "Connecting to %s...", ""),
    ("%sCommit-Ersteller: %s", "%scommit author: %s", ""),                 # a word glued, as in the source
    ("Hallo {name}!", "Hello {name}s!", "s"),
    ("Seite %1 von %2", "Page %1of %2", "o"),
    ("Verbindung zu %s wird hergestellt, bitte warten", "Connecting to %s., please wait", "."),
    ("%d Dateien gelöscht", "%dx files deleted", "x"),
])
def test_stray_glue(source, output, stray):
    assert "".join(output[at] for at in stray_glue(source, output)) == stray


def test_stray_glue_of_placeholders_that_stand_for_directives():
    tokens = {"⦅X1⦆": "%d", "⦅X2⦆": "%s"}
    # "-" after ⦅X1⦆, a number; ⦅X2⦆ stands for a name, which German joins to a word with a hyphen
    assert stray_glue("Move ⦅X1⦆ photo to ⦅X2⦆?", "⦅X1⦆- Foto nach ⦅X2⦆-Ordner verschieben?", tokens) == [4]
    # a placeholder that stands for something else (a name, a file) is not looked at
    assert stray_glue("Open ⦅X1⦆ in ⦅X2⦆", "⦅X1⦆- in ⦅X2⦆ öffnen", {"⦅X2⦆": "%s"}) == []


def words_of(text: str) -> list[Word]:
    """Words as the word alignment splits them: punctuation apart, with no gap before it."""
    return [Word(m[1], m[0][:-len(m[1])]) for m in re.finditer(r"\s*([\w⦅⦆]+|[^\w\s⦅⦆])", text)]


@pytest.mark.parametrize(("output", "expected"), [
    ("⦅X1⦆- Foto nach ⦅X2⦆ verschieben?", "⦅X1⦆ Foto nach ⦅X2⦆ verschieben?"),
    ("⦅X1⦆-Datei löschen?", "⦅X1⦆ Datei löschen?"),          # the word the hyphen glued stays, apart
    ("⦅X1⦆--Datei löschen?", "⦅X1⦆ Datei löschen?"),
    ("PKCS⦅X2⦆-Treiber", "PKCS ⦅X2⦆-Treiber"),              # a word glued to it: parted
    ("Anfrage: ⦅X2⦆-, ⦅X1⦆", "Anfrage: ⦅X2⦆, ⦅X1⦆"),          # a comma closes up
    ("⦅X2⦆-⦅X1⦆ Fotos", "⦅X2⦆ ⦅X1⦆ Fotos"),
    ("(-⦅X1⦆) Fotos", "(⦅X1⦆) Fotos"),
    ("Der ⦅X2⦆-basierte Editor", "Der ⦅X2⦆-basierte Editor"),   # a name in a compound: as written
])
def test_what_the_model_glued_to_a_directive_comes_off(output, expected):
    source = "Move ⦅X1⦆ photo to ⦅X2⦆?"
    assert render(unglued(words_of(output), source, {"⦅X1⦆": "%d", "⦅X2⦆": "%s"}))[0] == expected


@pytest.mark.parametrize(("rule", "text", "output", "expected"), [
    (ENGLISH_RULE, "Move %d photo to %s?", "⦅X1⦆- Foto nach ⦅X2⦆ verschieben?", "%d Foto nach %s verschieben?"),
    (ENGLISH_RULE, "Delete %d file?", "⦅X1⦆-Datei löschen?", "%d Datei löschen?"),
    (ENGLISH_RULE, "The %s-based editor is ready.", "Der ⦅X1⦆-basierte Editor ist bereit.",
     "Der %s-basierte Editor ist bereit."),
    (RULE, "Verbindung zu %s wird hergestellt, bitte warten", "Connecting to ⦅X1⦆., please wait",
     "Connecting to %s, please wait"),
    (RULE, "Seite %1 von %2", "Page ⦅X1⦆of ⦅X2⦆", "Page %1 of %2"),
    # a span that is no directive keeps what the model glued to it: "config.yaml-Datei" is German
    (ENGLISH_RULE, "Open the config.yaml file", "Öffnen Sie die ⦅X1⦆-Datei", "Öffnen Sie die config.yaml-Datei"),
])
def test_the_verbatim_rule_repairs_what_the_model_glued_to_a_directive(rule, text, output, expected):
    masked = mask(text, find_spans(text))
    assert Restorer(masked, (rule.repair(masked),)).text(output) == expected


# Catalog strings with the shipped models (as served: CTranslate2), where the model glued something
# to a directive or writes a compound with one; every one comes out without stray glue.
EN_DE_STRINGS = {
    "Move %d photo to %s?": "%d Foto nach %s verschieben?",    # the model wrote "%d- Foto"
    "Delete %d file?": "%d Datei löschen?",                    # the model wrote "%d-Datei"
    "The %s-based editor is ready.": "Der %s-basierter Editor ist bereit.",
    "Insert %s Chart": "%s-Diagramm einfügen",
}
DE_EN_STRINGS = {
    "Der %s-basierte Editor ist bereit.": "The %s-based editor is ready.",
    "%s-Datei konnte nicht gelesen werden.": "Could not read %s file.",
    "%d-mal wiederholen": "Repeat %d times",
    "Möchten Sie %d Elemente löschen?": "Do you want to delete %d items?",
}


def test_english_catalog_strings_come_out_without_stray_glue(release_en_de_pipeline):
    out = release_en_de_pipeline.translate(list(EN_DE_STRINGS))
    assert dict(zip(EN_DE_STRINGS, out)) == EN_DE_STRINGS
    assert all(stray_glue(source, german) == [] for source, german in zip(EN_DE_STRINGS, out))


def test_german_catalog_strings_come_out_without_stray_glue(release_pipeline):
    out = release_pipeline.translate(list(DE_EN_STRINGS))
    assert dict(zip(DE_EN_STRINGS, out)) == DE_EN_STRINGS
    assert all(stray_glue(source, english) == [] for source, english in zip(DE_EN_STRINGS, out))


def test_an_english_po_comes_back_without_stray_glue_and_passes_msgfmt_c(release_en_de_pipeline, tmp_path):
    catalog = ('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
               '#, c-format\nmsgid "Move %d photo to %s?"\nmsgstr ""\n')
    translated = read(".po", catalog.encode()).translate(
        lambda texts, html=False: translate_texts(release_en_de_pipeline, texts, html=html, languages=EN_DE), EN_DE)
    path = tmp_path / "de.po"
    path.write_bytes(translated)
    assert polib.pofile(str(path)).find("Move %d photo to %s?").msgstr == "%d Foto nach %s verschieben?"
    assert subprocess.run(["msgfmt", "-c", "-o", os.devnull, str(path)], capture_output=True).returncode == 0
