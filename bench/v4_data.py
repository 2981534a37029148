"""Rebuild Model v4's corpora from public snapshots and Debian's packages, every file checked.

    python bench/v4_data.py --mirrors DIR --out DATA [--debian] [--catalogs]

A machine comes without the corpora that docs/data.md lists, and a GPU session has minutes, not
hours. This writes them where train.py's ``--data`` and ``commands.mixture`` read them:

* ``--mirrors DIR``: the repositories of ``SNAPSHOTS`` as bare git directories ``DIR/OWNER+NAME/repo``
  (``git clone --bare https://github.com/OWNER/NAME DIR/OWNER+NAME/repo``, or a mirror of them).
  Each file is read from its pinned commit and its SHA-256 checked against the one docs/data.md
  records (a mismatch stops it): BConTrasT, MT4All, UD German PUD, XQuAD, the WMT newstest dev and
  test sets (research only: never trained on), UD English EWT's web text for back-translation
  (one CoNLL-U file per document), MLQE-PE's post-edited Wikipedia sentences and EuroParlMin's
  European Parliament debates. From the last two it writes (``DERIVED``) ``mlqe/mlqe-{train,dev,test}.{de,en}``,
  line-aligned and detokenized (sacremoses), and ``europarl/en.txt``, the debates' paragraphs for
  back-translation.
* ``--debian``: ``apt-get download`` and ``dpkg -x`` of the LibreOffice, Firefox ESR and Thunderbird
  packages into ``DATA/debian`` (the catalogs and help pages of ``gettext:``, ``mozilla:`` and
  ``libreoffice-help:``). Debian updates them, so their versions are recorded, not pinned.
* ``--catalogs``: ``DATA/catalogs``, this system's German gettext catalogs whose package's
  ``copyright`` names no GPL-2.0-only, GPL-1.0-only or unstated licence (``gpl3_compatible``), so that
  a model trained on them beside CC BY-SA text can be GPL-3.0-or-later (docs/data.md, "Licence of trained weights").

``DATA/MANIFEST.tsv`` lists every file written, its SHA-256 and its source. The commands that follow
(back-translation, the mixture, the vocabulary): docs/data.md, "Rebuilding the data".
Exit status: 0, or 2 with one "v4_data: error:" line.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model.data import corpus_sha256  # noqa: E402
from model.network.checkpoint import atomic_open  # noqa: E402


@dataclass(frozen=True)
class Snapshot:
    """A file (or, for a folder, every file below it) of a public repository at a commit."""

    repo: str        # OWNER/NAME
    commit: str
    path: str        # in the repository
    out: str         # under DATA
    sha256: str      # of the file; of a folder: model.data.corpus_sha256's

    @property
    def mirror(self) -> str:
        return self.repo.replace("/", "+")


BCONTRAST = ("Unbabel/BConTrasT", "96f33050c704eea1c10da6e8effcfb5495539e74")
MT4ALL = ("Helsinki-NLP/OPUS-MT-testsets", "e5c23c1a978eec10ada58863602875fde801e31e")  # gone from the newest
NEWSTEST = ("Helsinki-NLP/OPUS-MT-testsets", "ac0f19c0be3cb4e0d9450fcb2d7a9847c4bdd180")
MLQE_PE = ("sheffieldnlp/mlqe-pe", "2a670a1140416cf80507b5a829659383c878feb8")
EUROPARLMIN = ("ufal/europarlmin", "7e8a0ddf2cb4f94085579ea971290416a98550ba")
SNAPSHOTS = [
    Snapshot(*BCONTRAST, "train.json", "bconstrast/train.json",
             "9bfef7e7f7cf4f80dd766ed1396e80e5b3535b71bc8052e0b9adcbf753f40a4d"),
    Snapshot(*BCONTRAST, "dev.json", "bconstrast/dev.json",
             "b4b001dd093b5b1719d83bd2b6ad367bb7ed2c2793feb4ce751c3d1ff4485f72"),
    Snapshot(*BCONTRAST, "test1_corpus-with_gold_references.json", "bconstrast/test1_corpus-with_gold_references.json",
             "fc07d22a8fee7172539e8cb3f83bee7eb0ebc949d0d4abae11e0791ff0c2f2a8"),
    Snapshot(*MT4ALL, "testsets/eng-deu/mt4all_customer_support.eng-spa-nob-deu.deu", "mt4all/customer_support.deu",
             "2fb2d89bced190a63a314bc637e84f5044cc25dd3c04308672d8ce1481f35793"),
    Snapshot(*MT4ALL, "testsets/eng-deu/mt4all_customer_support.eng-spa-nob-deu.eng", "mt4all/customer_support.eng",
             "f295e13116328a2ad05dec142c125e0612b7388af16825025427a95bd300dc86"),
    Snapshot("UniversalDependencies/UD_German-PUD", "ff80846ae60a0a70fc4d6251ef73e6a483a620ee",
             "de_pud-ud-test.conllu", "ud-pud/de_pud-ud-test.conllu",
             "a530bdb50349bbd7c13706b6a759a9d73e8f514fff41fbf27149e914b0c3e723"),
    Snapshot("google-deepmind/xquad", "7d30520c717524000f0d9d2f9c10a069acd9d285", "xquad.de.json",
             "xquad/xquad.de.json", "990b5d746746ed65ed4702ea5f35f99ffa4e2f1c390c07d003642acd937916f9"),
    Snapshot("google-deepmind/xquad", "7d30520c717524000f0d9d2f9c10a069acd9d285", "xquad.en.json",
             "xquad/xquad.en.json", "e4c57d1c9143aaa1c5d265ba5987a65f4e69528d2a98f29d6e75019b10344f29"),
    *(Snapshot(*NEWSTEST, f"datasets/statmt/wmt_newstest/{year}/de-en/newstest{year}.{lang}",
               f"wmt/newstest{year}.de-en.{lang}", sha)
      for year, lang, sha in [
          (2018, "de", "c53059fc440b3771aef2a83b15fddd8d2b3490c55b552dcae245f9a2df126c9c"),
          (2018, "en", "721b207ca2b4e4689f978e17ee5edb0988d7c901acd651fd666bcd9c1950233b"),
          (2019, "de", "601988e41931965e2c4eba80799d1fc9b43837e20bcae8e61edf21542805d449"),
          (2019, "en", "95152920451528b9e167d42def3fd7d0ea0d9a4f12e88bdf63b4adba4975cb1d"),
          (2020, "de", "0add9464880d8d0b4b546344c7d77a00711878830397f7333c49c993eb048d31"),
          (2020, "en", "39ed144d204c675097e5a53514c89549fbe4d753520d96c4c513b8b9920e89a9")]),
    # UD English EWT's web text (e-mails, reviews, forums, blogs, answers), one file per document:
    # its train file is missing from the snapshot (a large blob), these hold every sentence.
    Snapshot("UniversalDependencies/UD_English-EWT", "15d613d8447b3478787d4c278730a1e48a945efb",
             "not-to-release/sources", "ewt/sources",
             "85405ba17a47fe78c961a43c2599ca5a9022c12de02fee357ae2eb5328b2535b"),
    # MLQE-PE's English Wikipedia sentences and their German post-edited by translators (CC0):
    # written out as line-aligned files by post_edits.
    *(Snapshot(*MLQE_PE, f"data/post-editing/{split}/en-de-{split}.tar.gz", f"mlqe-pe/en-de-{split}.tar.gz", sha)
      for split, sha in [("train", "219cdfd4e1d89d47e6136651af5136e3942ee93b4c9c44354b232baa18c75731"),
                         ("dev", "7ca5e97c00e9733ba97aa70ca03c1ac9840ececcc4a09900262027912d432c4c"),
                         ("test", "78d136444c9e50c189c35dc898c4b9580ccd057121bc3349cb3df5f56a943457")]),
    # European Parliament debates in English (EuroParlMin: Europarl's transcripts and the minutes),
    # for back-translation: the transcripts' paragraphs are written out by europarl_text.
    Snapshot(*EUROPARLMIN, "train", "europarlmin/train",
             "b28fa3f07d45ad015167c40eb0a48a4debf5736ba86f29e579feecdd8b296db0"),
    Snapshot(*EUROPARLMIN, "dev", "europarlmin/dev",
             "ce50e72ec01216b48923e4469d3c3cf8f3718475c97b9c887417fd8e04ee24f2"),
]

DEBIAN_PACKAGES = ("libreoffice-l10n-de", "libreoffice-help-de", "libreoffice-help-en-us", "firefox-esr",
                   "firefox-esr-l10n-de", "thunderbird", "thunderbird-l10n-de")
SYSTEM_CATALOGS = Path("/usr/share/locale/de/LC_MESSAGES")


class DataError(Exception):
    """Something this script cannot rebuild: one line that says what."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _git(mirror: Path, *args: str) -> bytes:
    done = subprocess.run(["git", f"--git-dir={mirror}", *args], capture_output=True)
    if done.returncode != 0:
        raise DataError(f"git {' '.join(args)} in {mirror}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def extract(snapshot: Snapshot, mirrors: Path, out: Path) -> str:
    """Write ``snapshot`` under ``out`` from its mirror, checked; return its SHA-256."""
    mirror = mirrors / snapshot.mirror / "repo"
    if not mirror.is_dir():
        raise DataError(f"no snapshot of {snapshot.repo} in {mirrors} (clone github.com/{snapshot.repo} into it first)")
    target = out / snapshot.out
    kind = _git(mirror, "cat-file", "-t", f"{snapshot.commit}:{snapshot.path}").decode().strip()
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        made = Path(tmp) / "made"
        if kind == "tree":
            archive = _git(mirror, "archive", "--format=tar", snapshot.commit, snapshot.path)
            with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                tar.extractall(tmp, filter="data")
            (Path(tmp) / snapshot.path).rename(made)
            found = corpus_sha256(made)
        else:
            data = _git(mirror, "show", f"{snapshot.commit}:{snapshot.path}")
            made.write_bytes(data)
            found = _sha256(data)
        if found != snapshot.sha256:
            raise DataError(f"{snapshot.repo} {snapshot.commit[:9]}:{snapshot.path} has SHA-256 {found}, "
                            f"not the recorded {snapshot.sha256}")
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        made.rename(target)
    return found


def post_edited_pairs(archive: bytes) -> list[tuple[str, str]]:
    """The (German, English) pairs of one MLQE-PE split (its ``.tar.gz``): the English source
    (``*.src``) and the German that translators post-edited from a machine translation (``*.pe``;
    the ``*.mt`` beside it is the raw machine output, not used), detokenized with sacremoses
    (the files are Moses-tokenized: "Freiburg in 1934 ."). A split whose two files differ in
    length stops it."""
    from sacremoses import MosesDetokenizer

    sides = {}
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        for member in tar.getmembers():
            suffix = Path(member.name).suffix
            if member.isfile() and suffix in (".src", ".pe"):
                sides[suffix] = tar.extractfile(member).read().decode("utf-8").splitlines()
    if set(sides) != {".src", ".pe"}:
        raise DataError(f"an MLQE-PE split without its .src and .pe files (found {sorted(sides)})")
    english, german = sides[".src"], sides[".pe"]
    if len(english) != len(german):
        raise DataError(f"an MLQE-PE split with {len(english)} sources but {len(german)} post-edits")
    de, en = MosesDetokenizer("de"), MosesDetokenizer("en")
    return [(de.detokenize(g.split()), en.detokenize(e.split())) for g, e in zip(german, english)]


def post_edits(out: Path) -> list[Path]:
    """``mlqe/mlqe-{train,dev,test}.de`` and ``.en`` from the MLQE-PE archives under ``out``; return them."""
    written = []
    for split in ("train", "dev", "test"):
        pairs = post_edited_pairs((out / "mlqe-pe" / f"en-de-{split}.tar.gz").read_bytes())
        for index, lang in enumerate(("de", "en")):
            path = out / "mlqe" / f"mlqe-{split}.{lang}"   # the name a mixture's file takes after it
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_open(path, "w", encoding="utf-8") as f:
                f.write("".join(pair[index] + "\n" for pair in pairs))
            written.append(path)
    return written


def transcript_paragraphs(text: str) -> list[str]:
    """The paragraphs of one Europarl transcript (``ep-*.txt``): its lines but the markup lines
    (``<CHAPTER ID="1">``, ``<SPEAKER ID="2" NAME="...">``, ``<P>``) and blank ones."""
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("<")]


def europarl_text(out: Path) -> list[Path]:
    """``europarl/en.txt``: the paragraphs of EuroParlMin's transcripts (not its minutes) under
    ``out``, one a line, in the order of the sessions, their chapters and parts."""
    files = sorted((out / "europarlmin").glob("*/*/ep-*.txt"), key=lambda p: p.name)
    if not files:
        raise DataError(f"no ep-*.txt transcript under {out / 'europarlmin'}")
    path = out / "europarl" / "en.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "w", encoding="utf-8") as f:
        for file in files:
            f.write("".join(p + "\n" for p in transcript_paragraphs(file.read_text(encoding="utf-8"))))
    return [path]


# What is written from the snapshots once they are out, in this order: each takes DATA, returns its files.
DERIVED = [post_edits, europarl_text]


# A licence that allows no later version: GPL-2 or GPL-1 without "+" ("GPL-2", "GPL-2.0", "GPL-2 with
# Linux-syscall-note exception"; not "GPL-2+", "GPL-2.0-or-later", "GPL-1+ or Artistic-1").
_ONLY = re.compile(r"^GPL-?[12](?:\.0)?(?:-only)?(?![.\d+]|-or-later)", re.IGNORECASE)


def licences(copyright_text: str) -> list[str]:
    """The ``License:`` short names of a Debian copyright file (machine-readable format)."""
    return [line.partition(":")[2].strip() for line in copyright_text.splitlines()
            if line.lower().startswith("license:") and line.partition(":")[2].strip()]


def gpl3_compatible(names: list[str]) -> bool:
    """Whether text under all of ``names`` may go into GPL-3.0-or-later weights: at least one licence
    is stated, and none is GPL-2.0 or GPL-1.0 only. An alternative ("GPL-2 or Artistic") counts as
    compatible when one of its choices is."""
    if not names:
        return False
    for name in names:
        choices = [choice.strip() for choice in re.split(r"\s+or\s+", name)]
        if all(_ONLY.match(choice) for choice in choices):
            return False
    return True


def catalog_package(path: Path) -> str | None:
    """The Debian package that installed ``path`` (``dpkg -S``), or None."""
    done = subprocess.run(["dpkg", "-S", str(path)], capture_output=True, text=True)
    return (done.stdout.partition(":")[0].strip() or None) if done.returncode == 0 else None


def copy_catalogs(source: Path, out: Path) -> list[tuple[str, str, bool]]:
    """Copy the catalogs of ``source`` whose package ``gpl3_compatible`` allows into ``out``; return
    (catalog, package, taken) for each."""
    out.mkdir(parents=True, exist_ok=True)
    verdicts = []
    for mo in sorted(source.glob("*.mo")):
        package = catalog_package(mo)
        copyright_file = Path("/usr/share/doc") / (package or "") / "copyright"
        found = package is not None and copyright_file.is_file()
        text = copyright_file.read_text(encoding="utf-8", errors="replace") if found else ""
        taken = gpl3_compatible(licences(text))
        if taken:
            shutil.copyfile(mo, out / mo.name)
        verdicts.append((mo.name, package or "?", taken))
    return verdicts


def debian_packages(out: Path) -> list[str]:
    """``apt-get download`` and ``dpkg -x`` DEBIAN_PACKAGES into ``out/root``; return the .deb names."""
    debs = out / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["apt-get", "download", *DEBIAN_PACKAGES], cwd=debs, capture_output=True, text=True)
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise DataError(f"apt-get download: {said[-1] if said else done.returncode} (run apt-get update first)")
    names = sorted(p.name for p in debs.glob("*.deb"))
    for name in names:
        subprocess.run(["dpkg", "-x", str(debs / name), str(out / "root")], check=True)
    return names


def parse_args(argv):
    lines = __doc__.splitlines()
    p = argparse.ArgumentParser(prog="v4_data", description=lines[0], epilog="\n".join(lines[1:]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mirrors", required=True, type=Path, help="the folder of the bare git clones (OWNER+NAME/repo)")
    p.add_argument("--out", required=True, type=Path, help="where the corpora go (outside the repository)")
    p.add_argument("--debian", action="store_true",
                   help="also download and unpack the LibreOffice and Mozilla packages")
    p.add_argument("--catalogs", action="store_true",
                   help="also copy the system catalogs a GPL-3.0-or-later model may take")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        manifest = []
        for snapshot in SNAPSHOTS:
            manifest.append((snapshot.out, extract(snapshot, args.mirrors, args.out),
                             f"{snapshot.repo}@{snapshot.commit[:9]}:{snapshot.path}"))
            print(f"{snapshot.out}: {snapshot.repo} {snapshot.commit[:9]}, SHA-256 as recorded")
        for path in (path for derive in DERIVED for path in derive(args.out)):
            manifest.append((path.relative_to(args.out).as_posix(), corpus_sha256(path), "derived, bench/v4_data.py"))
            print(f"{path.relative_to(args.out).as_posix()}: written from the snapshots above")
        if args.catalogs:
            verdicts = copy_catalogs(SYSTEM_CATALOGS, args.out / "catalogs")
            left = [f"{name} ({package})" for name, package, taken in verdicts if not taken]
            manifest.append(("catalogs", corpus_sha256(args.out / "catalogs"), f"{SYSTEM_CATALOGS}, licence-checked"))
            print(f"catalogs: {len(verdicts) - len(left)} of {len(verdicts)}; left out: {', '.join(left)}")
        if args.debian:
            names = debian_packages(args.out / "debian")
            manifest += [(f"debian/debs/{name}", corpus_sha256(args.out / "debian" / "debs" / name),
                          "apt-get download") for name in names]
            print(f"debian: {', '.join(names)} unpacked into {args.out / 'debian' / 'root'}")
    except (DataError, OSError, tarfile.TarError) as exc:
        print(f"v4_data: error: {exc}", file=sys.stderr)
        return 2
    with atomic_open(args.out / "MANIFEST.tsv", "w", encoding="utf-8") as f:
        f.write("".join(f"{path}\t{sha}\t{source}\n" for path, sha, source in manifest))
    print(f"wrote {args.out / 'MANIFEST.tsv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
