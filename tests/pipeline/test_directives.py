"""Property: every format directive of every input comes back exactly once, whatever the model
writes (pipeline.spans protects them as placeholders; pipeline.translation restores and repairs).

Run here on the fixture model (a tiny model trained on span examples); on the release model in
tests/test_release.py, with these examples and ``check``."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.data.software import directives
from model.search.options import SERVED
from pipeline.translation import Options, Pipeline

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

