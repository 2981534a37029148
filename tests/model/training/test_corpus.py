"""model/training/corpus.py: the splits written as TSV, and a mixture's sources.json read back."""

from __future__ import annotations

import gzip
import json

import pytest

from model.data import CorpusError
from model.training.corpus import read_sources, write_tsv

PAIRS = [("Guten Morgen.", "Good morning."), ("Wo ist der Bahnhof?", "Where is the train station?")]


def test_write_tsv_writes_the_corpus_layout_and_gzip_without_a_time_stamp(tmp_path):
    write_tsv(tmp_path / "dev.tsv", PAIRS)
    text = "Good morning.\tGuten Morgen.\nWhere is the train station?\tWo ist der Bahnhof?\n"
    assert (tmp_path / "dev.tsv").read_bytes() == text.encode("utf-8")
    write_tsv(tmp_path / "a.tsv.gz", PAIRS)
    write_tsv(tmp_path / "b.tsv.gz", PAIRS)
    assert (tmp_path / "a.tsv.gz").read_bytes() == (tmp_path / "b.tsv.gz").read_bytes()
    assert gzip.decompress((tmp_path / "a.tsv.gz").read_bytes()) == text.encode("utf-8")


def test_read_sources_returns_the_records_or_one_clear_error(tmp_path):
    records = [{"corpus": "deu-eng.zip@2", "sha256": "ab12", "train_pairs": 3}]
    (tmp_path / "sources.json").write_text(json.dumps(records), encoding="utf-8")
    assert read_sources(tmp_path / "sources.json") == records
    with pytest.raises(CorpusError) as error:
        read_sources(tmp_path / "missing.json")
    assert str(error.value) == f"--data-sources not found: {str(tmp_path / 'missing.json')!r}"
    (tmp_path / "other.json").write_text('{"corpus": "x"}', encoding="utf-8")
    with pytest.raises(CorpusError) as error:
        read_sources(tmp_path / "other.json")
    assert str(error.value) == (f"--data-sources {str(tmp_path / 'other.json')!r} is not a sources.json of "
                                "commands.mixture (a list of records with 'corpus' and 'sha256')")
