"""bench/v4_data.py: the v4 corpora rebuilt from snapshots at pinned commits, checked, and the
licence check that picks the system catalogs a GPL-3.0-or-later model may learn from."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import tarfile

import pytest

from model.data import corpus_sha256
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import v4_data  # noqa: E402

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "init.defaultBranch=main"]


@pytest.fixture()
def mirrors(tmp_path):
    """A mirror folder: ``owner+name/repo``, a bare git directory,
    of a repository with a file and a folder; returns (mirrors, commit)."""
    work = tmp_path / "work"
    (work / "docs" / "a").mkdir(parents=True)
    (work / "train.json").write_text('{"x": 1}\n', encoding="utf-8")
    (work / "docs" / "a" / "one.conllu").write_text("# text = One.\n", encoding="utf-8")
    (work / "docs" / "two.conllu").write_text("# text = Two.\n", encoding="utf-8")
    subprocess.run([*GIT, "init", "-q", str(work)], check=True)
    subprocess.run([*GIT, "-C", str(work), "add", "."], check=True)
    subprocess.run([*GIT, "-C", str(work), "commit", "-q", "-m", "data"], check=True)
    commit = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    root = tmp_path / "mirrors"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(root / "owner+name" / "repo")], check=True)
    return root, commit, work


def test_a_file_and_a_folder_come_out_as_committed(mirrors, tmp_path):
    root, commit, work = mirrors
    out = tmp_path / "data"
    out.mkdir()
    file_sha = hashlib.sha256(b'{"x": 1}\n').hexdigest()
    assert v4_data.extract(v4_data.Snapshot("owner/name", commit, "train.json", "c/train.json", file_sha),
                           root, out) == file_sha
    assert (out / "c" / "train.json").read_bytes() == b'{"x": 1}\n'
    folder_sha = corpus_sha256(work / "docs")
    v4_data.extract(v4_data.Snapshot("owner/name", commit, "docs", "c/docs", folder_sha), root, out)
    assert sorted(p.relative_to(out).as_posix() for p in (out / "c" / "docs").rglob("*.conllu")) == [
        "c/docs/a/one.conllu", "c/docs/two.conllu"]
    # again: replaced, not nested
    v4_data.extract(v4_data.Snapshot("owner/name", commit, "docs", "c/docs", folder_sha), root, out)
    assert not (out / "c" / "docs" / "docs").exists()
    assert sorted(p.name for p in out.iterdir()) == ["c"]   # no temporary folder left


def test_a_changed_file_or_a_missing_snapshot_stops_it_with_one_line(mirrors, tmp_path, capsys, monkeypatch):
    root, commit, _ = mirrors
    wrong = v4_data.Snapshot("owner/name", commit, "train.json", "c/train.json", "0" * 64)
    monkeypatch.setattr(v4_data, "SNAPSHOTS", [wrong])
    monkeypatch.setattr(v4_data, "DERIVED", [])
    assert v4_data.main(["--mirrors", str(root), "--out", str(tmp_path / "data")]) == 2
    found = hashlib.sha256(b'{"x": 1}\n').hexdigest()
    assert capsys.readouterr().err == (f"v4_data: error: owner/name {commit[:9]}:train.json has SHA-256 {found}, "
                                       f"not the recorded {'0' * 64}\n")
    assert not (tmp_path / "data" / "c").exists() and not (tmp_path / "data" / "MANIFEST.tsv").exists()
    monkeypatch.setattr(v4_data, "SNAPSHOTS", [v4_data.Snapshot("other/repo", commit, "x", "x", "0" * 64)])
    assert v4_data.main(["--mirrors", str(root), "--out", str(tmp_path / "data")]) == 2
    assert capsys.readouterr().err == (f"v4_data: error: no snapshot of other/repo in {root} "
                                       "(clone github.com/other/repo into it first)\n")


def test_the_manifest_names_every_file_its_hash_and_source(mirrors, tmp_path, capsys, monkeypatch):
    root, commit, _ = mirrors
    sha = hashlib.sha256(b'{"x": 1}\n').hexdigest()
    monkeypatch.setattr(v4_data, "SNAPSHOTS", [v4_data.Snapshot("owner/name", commit, "train.json", "c/t.json", sha)])
    monkeypatch.setattr(v4_data, "DERIVED", [])
    assert v4_data.main(["--mirrors", str(root), "--out", str(tmp_path / "data")]) == 0
    assert (tmp_path / "data" / "MANIFEST.tsv").read_text(encoding="utf-8") == (
        f"c/t.json\t{sha}\towner/name@{commit[:9]}:train.json\n")


def test_the_pinned_snapshots_are_those_docs_v4_data_records():
    docs = (ROOT / "docs" / "data.md").read_text(encoding="utf-8")
    for snapshot in v4_data.SNAPSHOTS:
        assert snapshot.sha256 in docs, snapshot.out
        assert snapshot.commit[:7] in docs, snapshot.repo


@pytest.mark.parametrize(("names", "taken"), [
    (["GPL-2+", "LGPL-2.1+", "Expat"], True),
    (["GPL-3+", "GPL-2.0-or-later", "BSD-3-clause"], True),
    (["GPL-1+ or Artistic-1"], True),             # a choice that allows later versions
    (["LGPL-2.1"], True),                         # the LGPL lets its text go under the GPL, v2 or later
    (["GPL"], True),                              # no version named: any version
    (["GPL-2+", "GPL-2"], False),                 # git, dpkg, apt: one part is GPL-2.0 only
    (["GPL-2 with Linux-syscall-note exception", "LGPL-2.1+"], False),   # systemd
    (["GPL-2.0-only"], False),
    (["GPL-1"], False),
    ([], False),                                  # no licence stated
])
def test_gpl3_compatible(names, taken):
    assert v4_data.gpl3_compatible(names) is taken


def test_licences_are_the_license_fields_of_a_copyright_file():
    text = ("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\nFiles: *\n"
            "Copyright: 2005 Someone\nLicense: GPL-2\n\nFiles: compat/*\nLicense: LGPL-2.1+\n This library is free.\n"
            "\nLicense: GPL-2\n On Debian systems ...\n")
    assert v4_data.licences(text) == ["GPL-2", "LGPL-2.1+", "GPL-2"]


@pytest.mark.parametrize(("env", "message"), [
    ({}, "V4DATA: set V4DATA to the folder bench/v4_data.py wrote"),
    ({"V4DATA": "data"}, "TATOEBA: set TATOEBA to deu-eng.zip"),
])
def test_the_mixture_script_names_the_folder_it_lacks(env, message):
    import os

    clean = {k: v for k, v in os.environ.items() if k not in ("V4DATA", "TATOEBA")}
    done = subprocess.run(["bash", "bench/v4_mixture.sh"], cwd=ROOT, env={**clean, **env}, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1].endswith(message)
    assert done.stdout == ""


def archive(files: dict[str, str]) -> bytes:
    """A .tar.gz of ``files`` (name -> text), as MLQE-PE packs a split."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for name, text in files.items():
            raw = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
    return data.getvalue()


def test_post_edits_are_the_sources_and_their_post_edited_german_detokenized():
    split = archive({"en-de-dev/dev.src": 'The museum ( opened in 1901 ) isn \'t " small " .\nIt \'s a well @-@ known town .\n',
                     "en-de-dev/dev.mt": "Das Museum ist nicht klein.\nEine Stadt.\n",
                     "en-de-dev/dev.pe": 'Das Museum ( 1901 eröffnet ) ist nicht " klein " .\nEs ist eine bekannte Stadt .\n'})
    assert v4_data.post_edited_pairs(split) == [
        ('Das Museum (1901 eröffnet) ist nicht "klein".', 'The museum (opened in 1901) isn\'t "small".'),
        ("Es ist eine bekannte Stadt.", "It's a well-known town.")]


@pytest.mark.parametrize(("files", "message"), [
    ({"x/dev.src": "A .\n"}, "an MLQE-PE split without its .src and .pe files (found ['.src'])"),
    ({"x/dev.src": "A .\nB .\n", "x/dev.pe": "A .\n"}, "an MLQE-PE split with 2 sources but 1 post-edits"),
])
def test_a_broken_split_stops_it_with_one_line(files, message, tmp_path, capsys, monkeypatch):
    for split in ("train", "dev", "test"):
        (tmp_path / "data" / "mlqe-pe").mkdir(parents=True, exist_ok=True)
        (tmp_path / "data" / "mlqe-pe" / f"en-de-{split}.tar.gz").write_bytes(archive(files))
    monkeypatch.setattr(v4_data, "SNAPSHOTS", [])
    monkeypatch.setattr(v4_data, "DERIVED", [v4_data.post_edits])
    assert v4_data.main(["--mirrors", str(tmp_path), "--out", str(tmp_path / "data")]) == 2
    assert capsys.readouterr().err == f"v4_data: error: {message}\n"


def test_the_debates_paragraphs_in_session_order_without_markup_or_minutes(tmp_path):
    root = tmp_path / "europarlmin"
    for folder, name, text in [
            ("train/2007-01-15", "ep-2007-01-15-ch003-00.txt", '<CHAPTER ID="003">\nVotes\n<P>\n\nWe voted.\n'),
            ("train/2006-12-11", "ep-2006-12-11-ch001-02.txt", '<SPEAKER ID="1" NAME="President">\nFirst. Second.\n'),
            ("train/2006-12-11", "min-2006-12-11-ch001-02.txt", "Minutes: the President spoke.\n"),
            ("dev/2006-10-11", "ep-2006-10-11-ch002-00.txt", "<P>\nEarlier.\n")]:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text(text, encoding="utf-8")
    assert v4_data.europarl_text(tmp_path) == [tmp_path / "europarl" / "en.txt"]
    assert (tmp_path / "europarl" / "en.txt").read_text(encoding="utf-8") == "Earlier.\nFirst. Second.\nVotes\nWe voted.\n"
