"""Tests for model.data.specs: the registry of corpus kinds and how a ``--data`` spec finds its kind."""

from __future__ import annotations

import dataclasses
import re
from functools import partial

import pytest

from model.data import CorpusError, CorpusSpec, read_pairs
from model.data.ding import read_ding
from model.data.freedict import read_freedict
from model.data.general import held_out_bconstrast, read_bconstrast, read_ud_pud, read_xquad
from model.data.gettext import read_gettext
from model.data.helppages import read_help
from model.data.manuals import read_debian_reference, read_mallard
from model.data.mozilla import read_mozilla
from model.data.specs import CORPUS_KINDS, DEFAULT_KIND, KINDS, REGISTRY, corpus_kind

# Every kind, in registration order: a spec of it, the reader it resolves to (with the arguments the
# entry fixes beyond the path), and the domain held out of it.
EXPECTED = {
    "pairs": ("deu-eng.zip@2", (read_pairs, {}), None),
    "ding-sentences": ("ding-sentences:/usr/share/trans/de-en@3", (read_ding, {"kind": "sentences"}), "ding"),
    "ding-words": ("ding-words:/usr/share/trans/de-en@0.3", (read_ding, {"kind": "words"}), None),
    "freedict": ("freedict:/usr/share/dictd/freedict-deu-eng.index@0.1", (read_freedict, {}), None),
    "gettext": ("gettext:/usr/share/locale/de/LC_MESSAGES@2", (read_gettext, {}), "ui"),
    "mozilla": ("mozilla:debian/root/usr/lib@2", (read_mozilla, {}), "ui"),
    "libreoffice-help": ("libreoffice-help:debian/root/usr/share/libreoffice/help", (read_help, {}), "help"),
    "bconstrast": ("bconstrast:v4data/bconstrast@4", (read_bconstrast, {}), "chat"),
    "support": ("support:v4data/mt4all/customer_support@5", (read_pairs, {}), "support"),
    "ud-pud": ("ud-pud:v4data/ud-pud/de_pud-ud-test.conllu@5", (read_ud_pud, {}), None),
    "xquad": ("xquad:v4data/xquad@5", (read_xquad, {}), None),
    "debian-reference": ("debian-reference:/usr/share/debian-reference@2", (read_debian_reference, {}), None),
    "mallard": ("mallard:/usr/share/help@2", (read_mallard, {}), None),
}
NOT_FOUND = "corpus not found: 'bogus:/nonexistent/x.tsv'"
UNKNOWN = "kind must be one of ('pairs', 'ding-sentences', 'ding-words', 'freedict', 'gettext', 'mozilla', " \
          "'libreoffice-help', 'bconstrast', 'support', 'ud-pud', 'xquad', 'debian-reference', 'mallard'), got 'bogus'"


def test_every_kind_is_registered_once_in_order():
    assert CORPUS_KINDS == tuple(EXPECTED)   # registration order: the order CORPUS_KINDS lists them in
    assert len(set(CORPUS_KINDS)) == len(KINDS) == len(REGISTRY)
    assert all(REGISTRY[kind.name] is kind for kind in KINDS)
    # a spec's kind is what comes before its first colon: a name holding one could never be given
    assert all(kind and ":" not in kind for kind in CORPUS_KINDS)


@pytest.mark.parametrize("kind", EXPECTED)
def test_each_kind_resolves_to_its_reader(kind, monkeypatch):
    text, (reader, fixed), domain = EXPECTED[kind]
    spec = CorpusSpec.parse(text)
    assert spec.kind == kind and spec.domain == domain
    read = corpus_kind(kind).read
    assert ((read.func, read.keywords) if isinstance(read, partial) else (read, {})) == (reader, fixed)
    assert corpus_kind(kind).held_out is (held_out_bconstrast if kind == "bconstrast" else None)
    # CorpusSpec.read and own_held_out go through the registry's entry, nothing else
    monkeypatch.setitem(REGISTRY, kind, dataclasses.replace(
        REGISTRY[kind], read=lambda path: [(kind, path)], held_out=lambda path: ([(kind, path)], [])))
    assert spec.read() == [(kind, spec.path)]
    assert spec.own_held_out() == ([(kind, spec.path)], [])


def test_the_default_kind_is_pairs():
    assert DEFAULT_KIND == KINDS[0].name == "pairs"
    assert CorpusSpec("x.tsv") == CorpusSpec.parse("x.tsv") == CorpusSpec.parse("pairs:x.tsv")
    assert str(CorpusSpec.parse("pairs:x.tsv@2")) == "x.tsv@2"
    assert CorpusSpec.parse("x.tsv").own_held_out() is None


@pytest.mark.parametrize("text, kind, path", [
    ("gettext:pairs:x", "gettext", "pairs:x"),   # only the first colon separates a kind
    ("pairs:gettext:x", "pairs", "gettext:x"),   # so pairs: gives a path that starts with a kind's name
    ("bconstrast:a:b@0.5", "bconstrast", "a:b"),
    ("Gettext:x", "pairs", "Gettext:x"),   # names match exactly
    ("ding-:x", "pairs", "ding-:x"),
    ("sentences:x", "pairs", "sentences:x"),
    ("C:/data/x.tsv", "pairs", "C:/data/x.tsv"),   # a prefix that is no kind's name is part of the path
    (":x", "pairs", ":x"),
])
def test_a_spec_names_its_kind_before_its_first_colon(text, kind, path):
    spec = CorpusSpec.parse(text)
    assert (spec.kind, spec.path) == (kind, path)


def test_an_unknown_kind_is_part_of_the_path():
    spec = CorpusSpec.parse("bogus:/nonexistent/x.tsv")
    assert spec == CorpusSpec("bogus:/nonexistent/x.tsv", "pairs", 1.0)
    with pytest.raises(CorpusError, match=f"^{re.escape(NOT_FOUND)}$"):   # read_pairs' own message
        spec.read()


def test_an_unregistered_kind_is_an_error():
    with pytest.raises(ValueError, match=f"^{re.escape(UNKNOWN)}$"):
        corpus_kind("bogus")
    with pytest.raises(ValueError, match=f"^{re.escape(UNKNOWN)}$"):
        CorpusSpec("x", "bogus").read()
