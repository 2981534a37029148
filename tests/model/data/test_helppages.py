"""model.data.helppages: LibreOffice help pages of both languages paired by paragraph id."""

from __future__ import annotations

import pytest

from model.data import CorpusError, CorpusSpec
from model.data.helppages import read_help

# Our own two pages, laid out as LibreOffice's help is.
PAGE = '''<!DOCTYPE html><html lang="{lang}"><head><title>x</title><script>var x = "{title}";</script></head>
<body><div id="DisplayArea">
<h1 id="hd_id1" dir="auto">{title}</h1>
<p id="par_id2" class="paragraph">{p2}</p>
<p id="par_id3">LibreOffice</p>
<p>{unnamed}</p>
<table><tr><td><p id="par_id4">{cell}</p></td></tr></table>
{extra}
</div></body></html>'''
DE = dict(lang="de", title="Suchleiste", p2='Die <span class="menuitem">Suchleiste</span> sucht schnell.',
          unnamed="Ohne id", cell="Wählen Sie <emph>Format - Zeichen</emph>.", extra='<p id="par_id9">Nur deutsch</p>')
EN = dict(lang="en-US", title="Find Bar", p2='The <span class="menuitem">Find</span> bar searches fast.',
          unnamed="No id", cell="Choose <emph>Format - Character</emph>.", extra="")


@pytest.fixture
def help_root(tmp_path):
    for language, fields in (("de", DE), ("en-US", EN)):
        folder = tmp_path / language / "text" / "shared"
        folder.mkdir(parents=True)
        (folder / "find_toolbar.html").write_text(PAGE.format(**fields), encoding="utf-8")
    (tmp_path / "de" / "text" / "shared" / "only_german.html").write_text(PAGE.format(**DE), encoding="utf-8")
    return tmp_path


def test_paragraphs_pair_by_id(help_root):
    assert read_help(help_root) == [
        ("Suchleiste", "Find Bar"),
        ("Die Suchleiste sucht schnell.", "The Find bar searches fast."),
        ("Wählen Sie Format - Zeichen.", "Choose Format - Character."),
    ]


def test_spec_kind_and_domain(help_root):
    spec = CorpusSpec.parse(f"libreoffice-help:{help_root}")
    assert (spec.kind, spec.domain) == ("libreoffice-help", "help")
    assert len(spec.read()) == 3


def test_not_a_help_folder(tmp_path):
    with pytest.raises(CorpusError) as error:
        read_help(tmp_path)
    assert str(error.value) == f"not a LibreOffice help folder (no de/ inside): '{tmp_path}'"
