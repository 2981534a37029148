"""Parallel corpora: reading, cleaning and leak-free splitting.

A pair is always ``(german, english)`` in code, whatever the column order of
the file it came from.  Supported inputs (see ``read_pairs``):

* the manythings.org/Tatoeba zip (``deu-eng.zip``: ``deu.txt`` + ``_about.txt``),
  whose lines are ``English<TAB>German[<TAB>attribution]``;
* that text file directly, plain or gzipped (any name: ``.txt``, ``.tsv``, ``.gz``);
* a fairseq-style pair of line-aligned files given by prefix: ``dir/train``
  stands for ``dir/train.de[.gz]`` + ``dir/train.en[.gz]`` (or OPUS's ``.deu``/``.eng``);
  either language file itself may be given too.

Tatoeba has many sentences with several translations, so a random split would
leak test sentences into training.  ``grouped_split`` keeps every German and
every English sentence inside a single split.

Bad input raises ``CorpusError`` (a ``ValueError``) with a one-line message that
names the file and, where it applies, the line.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import unicodedata
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from model.network.checkpoint import oriented
from model.network.config import require_int

Pair = tuple[str, str]
PathLike = str | os.PathLike

_GZIP_MAGIC = b"\x1f\x8b"
# OPUS and the Tatoeba Challenge name their files by ISO 639-3 code (``.deu``/``.eng``).
_LANG_SUFFIX = re.compile(r"^(?P<prefix>.+)\.(?P<lang>de|en|deu|eng)(?:\.gz)?$")
# C0/C1 control characters; tabs and newlines are among them.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class CorpusError(ValueError):
    """A corpus or text file is missing, unreadable or malformed."""


def _pair_files(prefix: str) -> tuple[Path | None, Path | None]:
    """The German and English files of a prefix; plain files win over ``.gz``."""
    found: list[Path | None] = []
    for codes in (("de", "deu"), ("en", "eng")):
        candidates = [Path(f"{prefix}.{code}{gz}") for code in codes for gz in ("", ".gz")]
        found.append(next((c for c in candidates if c.is_file()), None))
    return found[0], found[1]


def _resolve(path: PathLike) -> tuple[str, list[Path]]:
    """Classify ``path`` as ``("zip"|"tsv", [file])`` or ``("pair", [de, en])``."""
    shown = os.fspath(path)
    file = Path(path)
    if file.is_file():
        match = _LANG_SUFFIX.match(shown)
        if match is None:
            return ("zip" if file.suffix.lower() == ".zip" else "tsv"), [file]
        prefix = match["prefix"]
    elif file.is_dir():
        raise CorpusError(f"corpus is a directory, expected a file or a file prefix: {shown!r}")
    else:
        prefix = shown
    de, en = _pair_files(prefix)
    if de is not None and en is not None:
        return "pair", [de, en]
    if de is None and en is None:
        raise CorpusError(f"corpus not found: {shown!r}")
    missing = ("German", "de") if de is None else ("English", "en")
    raise CorpusError(f"corpus not found: {shown!r} has no {missing[0]} file {prefix}.{missing[1]}[.gz]")


def _load_lines(file: Path, shown: str, what: str = "corpus") -> list[str]:
    """Lines of a file, transparently gunzipped (detected by magic bytes, not name)."""
    try:
        data = file.read_bytes()
        return _decode_lines(gzip.decompress(data) if data.startswith(_GZIP_MAGIC) else data, shown, what)
    except FileNotFoundError:
        raise CorpusError(f"{what} not found: {shown!r}") from None
    except (gzip.BadGzipFile, EOFError, zlib.error):
        raise CorpusError(f"cannot read {what} {shown!r}: not a valid gzip file") from None
    except OSError as exc:
        raise CorpusError(f"cannot read {what} {shown!r}: {exc.strerror or exc}") from None


def _load_zip_member(file: Path, shown: str) -> bytes:
    """The single data ``.txt`` of a manythings zip (``_about.txt`` is the licence)."""
    try:
        with zipfile.ZipFile(file) as archive:
            names = [info.filename for info in archive.infolist() if not info.is_dir()]
            # macOS archivers add "._x.txt" resource forks that look like text files.
            members = [
                name
                for name in names
                if name.lower().endswith(".txt") and not name.startswith("__MACOSX/")
                and PurePosixPath(name).name.lower() != "_about.txt" and not PurePosixPath(name).name.startswith("._")
            ]
            if len(members) != 1:
                raise CorpusError(
                    f"cannot read corpus {shown!r}: expected one .txt file besides _about.txt, found {len(members)}"
                )
            return archive.read(members[0])
    except (zipfile.BadZipFile, zlib.error, EOFError):
        raise CorpusError(f"cannot read corpus {shown!r}: not a valid zip file") from None


def _decode_lines(data: bytes, shown: str, what: str) -> list[str]:
    """UTF-8 lines without terminators; only ``\\n`` (and ``\\r\\n``) end a line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise CorpusError(f"cannot read {what} {shown!r}: line {line} is not valid UTF-8") from None
    # str.splitlines() would also split on U+2028, U+0085 etc. inside sentences
    # and misalign parallel files, so split on newlines only.
    lines = text.removeprefix("\ufeff").split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _parse_tsv(lines: list[str], shown: str) -> list[Pair]:
    pairs: list[Pair] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        columns = line.split("\t")
        if len(columns) not in (2, 3):  # third column: Tatoeba attribution
            plural = "" if len(columns) == 1 else "s"
            raise CorpusError(
                f"cannot read corpus {shown!r}: line {number} has {len(columns)} column{plural}, "
                "expected English<TAB>German"
            )
        pairs.append((columns[1], columns[0]))
    return pairs


def read_pairs(path: PathLike) -> list[Pair]:
    """All ``(german, english)`` pairs of a corpus, in file order, uncleaned."""
    kind, files = _resolve(path)
    shown = os.fspath(path)
    if kind == "zip":
        return _parse_tsv(_decode_lines(_load_zip_member(files[0], shown), shown, "corpus"), shown)
    if kind == "tsv":
        return _parse_tsv(_load_lines(files[0], shown), shown)
    de_file, en_file = files
    # Blank lines are kept here: they hold the alignment of the two files.
    de, en = _load_lines(de_file, str(de_file)), _load_lines(en_file, str(en_file))
    if len(de) != len(en):
        raise CorpusError(
            f"cannot read corpus {shown!r}: {str(de_file)!r} has {len(de)} lines but {str(en_file)!r} has {len(en)}"
        )
    return list(zip(de, en))


def corpus_attribution(path: PathLike) -> str | None:
    """The third column of a TSV corpus when every line carries the same one (``commands.sample``
    writes it); "per pair: see the third column" when lines differ; None without one."""
    kind, files = _resolve(path)
    if kind != "tsv":
        return None
    found = {line.split("\t")[2] for line in _load_lines(files[0], os.fspath(path)) if line.count("\t") == 2}
    if not found:
        return None
    return found.pop() if len(found) == 1 else "per pair: see the third column of the corpus file"


def read_lines(path: PathLike) -> list[str]:
    """Lines of a plain or gzipped UTF-8 text file; blank lines are kept for alignment."""
    shown = os.fspath(path)
    if not Path(path).is_file():
        raise CorpusError(f"file not found: {shown!r}")
    return _load_lines(Path(path), shown, "file")


def corpus_sha256(path: PathLike) -> str:
    """Hex SHA-256 of the corpus file(s) as stored; a prefix pair hashes de then en; a folder (of
    catalogs, of help pages) hashes each file's relative path and content, in path order."""
    digest = hashlib.sha256()
    if Path(path).is_dir():
        files = sorted(p for p in Path(path).rglob("*") if p.is_file())
    else:
        _, files = _resolve(path)
    for file in files:
        if Path(path).is_dir():
            digest.update(file.relative_to(path).as_posix().encode() + b"\0")
        try:
            with open(file, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
        except OSError as exc:
            raise CorpusError(f"cannot read corpus {str(file)!r}: {exc.strerror or exc}") from None
    return digest.hexdigest()


def normalize(text: str) -> str:
    """NFC, control characters (tabs, newlines) to spaces, whitespace runs collapsed, stripped."""
    text = unicodedata.normalize("NFC", text)
    # str.split() without arguments splits on every Unicode whitespace (NBSP,
    # U+2028, ...), so this both collapses runs and strips the ends.
    return " ".join(_CONTROL.sub(" ", text).split())


def clean_pairs(pairs: Iterable[Pair], *, max_chars: int = 300, max_ratio: float = 3.0) -> list[Pair]:
    """Normalized pairs without empty/overlong/misaligned sides or exact duplicates.

    The length-ratio filter only looks at pairs whose sides are both longer
    than 10 characters: short greetings ("Hi." / "Hallo!") vary wildly in
    length without being misaligned.  First occurrences win; order is kept.
    """
    require_int("max_chars", max_chars, 1)
    if not max_ratio >= 1.0:
        raise ValueError(f"max_ratio must be >= 1, got {max_ratio!r}")
    seen: set[Pair] = set()
    kept: list[Pair] = []
    for de, en in pairs:
        de, en = normalize(de), normalize(en)
        short, long = sorted((len(de), len(en)))
        if short == 0 or long > max_chars:
            continue
        if short > 10 and long > max_ratio * short:
            continue
        if (de, en) in seen:
            continue
        seen.add((de, en))
        kept.append((de, en))
    return kept


def _sentence_groups(de_keys: Sequence[str], en_keys: Sequence[str]) -> list[list[int]]:
    """Connected components of pairs linked by a shared German or English sentence."""
    parent = list(range(len(de_keys)))

    def find(i: int) -> int:
        root = i
        while parent[root] != root:
            root = parent[root]
        while parent[i] != root:  # path compression keeps later finds O(1)
            parent[i], i = root, parent[i]
        return root

    first_de: dict[str, int] = {}
    first_en: dict[str, int] = {}
    for i, (de, en) in enumerate(zip(de_keys, en_keys)):
        for first, sentence in ((first_de, de), (first_en, en)):
            j = first.setdefault(sentence, i)
            root_i, root_j = find(i), find(j)
            if root_i != root_j:
                parent[max(root_i, root_j)] = min(root_i, root_j)
    groups: dict[int, list[int]] = {}
    for i in range(len(parent)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def grouped_split(
    pairs: Sequence[Pair], *, dev_size: int, test_size: int, seed: int = 1, max_group: int = 50
) -> tuple[list[Pair], list[Pair], list[Pair]]:
    """``(train, dev, test)`` such that no sentence of either language is in two splits.

    Groups of pairs that share a sentence are ordered by the SHA-1 of the seed
    and the group's smallest German sentence (unique per group), so the split
    depends only on the set of pairs and the seed, not on input order or the
    process.  Test is filled first, then dev, each until it holds at least the
    requested number of pairs; groups over ``max_group`` pairs (very common
    sentences) always train.  Each split keeps the corpus order.
    """
    require_int("dev_size", dev_size, 0)
    require_int("test_size", test_size, 0)
    require_int("max_group", max_group, 1)
    pairs = list(pairs)
    de_keys = [normalize(de) for de, _ in pairs]
    groups = _sentence_groups(de_keys, [normalize(en) for _, en in pairs])

    def order(members: list[int]) -> tuple[bytes, str]:
        smallest = min(de_keys[i] for i in members)
        return hashlib.sha1(f"{seed}\0{smallest}".encode()).digest(), smallest

    train: list[int] = []
    dev: list[int] = []
    test: list[int] = []
    for members in sorted(groups, key=order):
        if len(members) > max_group:
            train.extend(members)
        elif len(test) < test_size:
            test.extend(members)
        elif len(dev) < dev_size:
            dev.extend(members)
        else:
            train.extend(members)
    if len(test) < test_size or len(dev) < dev_size or (pairs and not train):
        raise ValueError(
            f"corpus too small to split: {len(pairs)} pairs for test_size={test_size!r}, "
            f"dev_size={dev_size!r} and a non-empty train set"
        )
    return tuple([pairs[i] for i in sorted(split)] for split in (train, dev, test))  # type: ignore[return-value]


def capped_split(pairs: Sequence[Pair], *, dev_size: int, test_size: int, seed: int = 1):
    """``grouped_split`` with dev and test capped at a tenth of the corpus each, so small corpora
    still train on most pairs: how ``train.py`` (and ``commands.sample``, which must agree) split."""
    cap = max(1, len(pairs) // 10)
    return grouped_split(pairs, dev_size=min(dev_size, cap), test_size=min(test_size, cap), seed=seed)


def group_references(pairs: Iterable[Pair]) -> tuple[list[str], list[list[str]]]:
    """Unique sources in first-seen order and each one's distinct references."""
    sources: list[str] = []
    references: dict[str, list[str]] = {}
    for de, en in pairs:
        refs = references.get(de)
        if refs is None:
            refs = references[de] = []
            sources.append(de)
        if en not in refs:
            refs.append(en)
    return sources, [references[de] for de in sources]


def read_references(path: PathLike, to: str = "de-en") -> tuple[list[str], list[list[str]]]:
    """A corpus as distinct (normalized) source sentences, each with all its references: German
    sources and English references, or the reverse for a model of direction ``to`` "en-de"."""
    pairs = [(normalize(de), normalize(en)) for de, en in read_pairs(path)]
    sources, references = group_references(oriented([(de, en) for de, en in pairs if de and en], to))
    if not sources:
        raise CorpusError(f"no sentence pair with both sides non-empty in {str(path)!r}")
    return sources, references


def reference_streams(refs: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """Transpose per-source reference lists into sacrebleu's reference streams.

    sacrebleu 2.x takes ``references[k][i]`` = k-th reference of segment i and
    handles a variable number of references by skipping ``None`` entries
    (``Metric._cache_references``).  Short lists are therefore padded with
    ``None``, never with ``""``: an empty string would count as a real
    zero-length reference and distort the brevity penalty.
    """
    for i, options in enumerate(refs):
        if isinstance(options, str) or not options or not all(isinstance(r, str) for r in options):
            raise ValueError(f"references of segment {i} must be a non-empty list of str, got {options!r}")
    width = max((len(options) for options in refs), default=0)
    return [[options[k] if k < len(options) else None for options in refs] for k in range(width)]
