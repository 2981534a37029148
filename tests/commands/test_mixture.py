"""python -m commands.mixture: the corpora train.py reads, written as files for a machine without them."""

from __future__ import annotations

import gzip
import json

import pytest

from commands import mixture
from model.data import read_pairs
from tests.conftest import PAIRS40

UI = [("Datei speichern", "Save file"), ("Datei öffnen", "Open file"), ("Lesezeichen hinzufügen", "Add bookmark"),
      ("Verlauf löschen", "Clear history"), ("Programm beenden", "Quit the program"),
      ("Fenster schließen", "Close the window"), ("Neuen Ordner anlegen", "Create a new folder"),
      ("Einstellungen ändern", "Change the settings"), ("Alle Dateien auswählen", "Select all files"),
      ("Seite drucken", "Print the page")]


def write_po(path):
    entries = "".join(f'msgid "{en}"\nmsgstr "{de}"\n\n' for de, en in UI)
    path.write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n' + entries, encoding="utf-8")
    return path


def run(argv, capsys):
    code = mixture.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def gz_pairs(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [tuple(line.rstrip("\n").split("\t")) for line in f]


def test_writes_each_corpus_without_the_held_out_pairs_and_the_arguments_of_train_py(tmp_path, capsys):
    po = write_po(tmp_path / "app.po")
    out = tmp_path / "mix"
    code, stdout, err = run(["--data", f"{PAIRS40}@1.5", "--data", f"gettext:{po}", "--out", out, "--dev-size", 4,
                             "--test-size", 4, "--domain-split-size", 1, "--license", "GPL-2.0-or-later",
                             "--data-attribution", "Pairs, CC BY 2.0 FR", "--data-attribution", "App catalog, MIT"],
                            capsys)
    assert (code, err) == (0, "")
    names = ["00-pairs-pairs40.tsv.gz", "01-gettext-app.po.tsv.gz"]
    assert sorted(p.name for p in out.iterdir()) == sorted(
        names + ["dev.tsv", "test.tsv", "dev.ui.tsv", "test.ui.tsv", "train-args.txt", "sources.json"])
    assert (out / "train-args.txt").read_text(encoding="utf-8").splitlines() == [
        "--data", f"{out}/00-pairs-pairs40.tsv.gz@1.5", "--data", f"{out}/01-gettext-app.po.tsv.gz",
        "--valid", f"{out}/dev.tsv", "--data-sources", f"{out}/sources.json", "--data-attribution", "Pairs, CC BY 2.0 FR",
        "--data-attribution", "App catalog, MIT", "--license", "GPL-2.0-or-later"]
    dev, test = read_pairs(out / "dev.tsv"), read_pairs(out / "test.tsv")
    ui_dev, ui_test = read_pairs(out / "dev.ui.tsv"), read_pairs(out / "test.ui.tsv")
    assert (len(dev), len(test), len(ui_dev), len(ui_test)) == (4, 4, 1, 1)
    held_out = {side for pair in dev + test + ui_dev + ui_test for side in pair}
    pairs, ui = gz_pairs(out / names[0]), gz_pairs(out / names[1])
    assert len(ui) == len(UI) - 2 and {(de, en) for en, de in ui} <= set(UI)
    assert not {side for pair in pairs + ui for side in pair} & held_out
    sources = json.loads((out / "sources.json").read_text(encoding="utf-8"))
    assert [(s["corpus"], s["file"], s["train_pairs"]) for s in sources] == [
        (f"{PAIRS40}@1.5", names[0], len(pairs)), (f"gettext:{po}", names[1], 8)]
    assert all(len(s["sha256"]) == 64 for s in sources)
    assert stdout.splitlines()[-1].startswith(f"wrote {out}: 2 corpora, ")
    # The same corpora give the same bytes (gzip without a time stamp): a mixture can be checked by hash.
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert run(["--data", f"{PAIRS40}@1.5", "--data", f"gettext:{po}", "--out", out, "--dev-size", 4,
                "--test-size", 4, "--domain-split-size", 1, "--license", "GPL-2.0-or-later", "--data-attribution",
                "Pairs, CC BY 2.0 FR", "--data-attribution", "App catalog, MIT"], capsys)[0] == 0
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


@pytest.mark.parametrize("extra, message", [
    (["--data-attribution", "two\nlines"],
     "error: --data-attribution and --license must be one line each (train-args.txt holds one argument per line)"),
    (["--dev-size", "-1"], "error: --dev-size must be >= 0, got -1"),
    (["--data", "missing.tsv"], "error: corpus not found: 'missing.tsv'"),
])
def test_bad_arguments_are_one_line_errors(tmp_path, capsys, extra, message):
    code, stdout, err = run(["--data", PAIRS40, "--out", tmp_path / "mix", *extra], capsys)
    assert code == 2 and stdout == ""
    assert err.strip().endswith(message) and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("text", "name"), [
    ("deu-eng.zip@2", "00-pairs-deu-eng.tsv.gz"),
    ("bt/ewt.tsv.gz@2", "00-pairs-ewt.tsv.gz"),            # every corpus suffix goes, not only the last
    ("gettext:/data/app.po", "00-gettext-app.po.tsv.gz"),
    ("mozilla:/data/root/usr/lib/", "00-mozilla-lib.tsv.gz"),
    ("support:/data/mt4all/customer support", "00-support-customer_support.tsv.gz"),
])
def test_a_corpus_file_is_named_after_its_kind_and_last_path_part(text, name):
    from model.data import CorpusSpec

    assert mixture.file_name(0, CorpusSpec.parse(text)) == name
