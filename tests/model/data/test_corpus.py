"""Tests for model.data: corpus formats, cleaning, grouped split, batching."""

from __future__ import annotations

import gzip
import random
import re
import zipfile
from pathlib import Path

import pytest
import sacrebleu

from model.data import (
    CorpusError,
    CorpusSpec,
    clean_pairs,
    corpus_attribution,
    corpus_sha256,
    group_references,
    grouped_split,
    normalize,
    read_lines,
    read_pairs,
    read_references,
    reference_streams,
)

PAIRS40 = Path(__file__).parents[2] / "data" / "pairs40.tsv"

TSV_2COL = "Hi.\tHallo!\nRun!\tLauf!\n\nI see.\tIch verstehe.\n"
TSV_3COL = "Hi.\tHallo!\tCC-BY 2.0 (France) Attribution: tatoeba.org #538123 (CM)\r\nRun!\tLauf!\tCC-BY\r\n"
EXPECTED_2COL = [("Hallo!", "Hi."), ("Lauf!", "Run!"), ("Ich verstehe.", "I see.")]


def write_zip(path: Path, text: str) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_about.txt", "Tab-delimited bilingual sentence pairs.\n")
        archive.writestr("deu.txt", text)
    return path


def write_pair(directory: Path, de: list[str], en: list[str], *, gz: bool = True) -> Path:
    suffix = ".gz" if gz else ""
    for lang, lines in (("de", de), ("en", en)):
        data = "".join(f"{line}\n" for line in lines).encode()
        (directory / f"train.{lang}{suffix}").write_bytes(gzip.compress(data) if gz else data)
    return directory / "train"


# --------------------------------------------------------------------------- reading


def test_read_zip_skips_about_and_swaps_columns(tmp_path: Path) -> None:
    assert read_pairs(write_zip(tmp_path / "deu-eng.zip", TSV_2COL)) == EXPECTED_2COL


def test_read_zip_ignores_macos_resource_forks(tmp_path: Path) -> None:
    path = write_zip(tmp_path / "deu-eng.zip", TSV_2COL)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("__MACOSX/._deu.txt", b"\x00\x05\x16\x07")
        archive.writestr("._deu.txt", b"\x00\x05\x16\x07")
    assert read_pairs(path) == EXPECTED_2COL


def test_read_tsv_two_and_three_columns(tmp_path: Path) -> None:
    (tmp_path / "two.tsv").write_text(TSV_2COL, encoding="utf-8")
    (tmp_path / "three.txt").write_text(TSV_3COL, encoding="utf-8", newline="")
    assert read_pairs(tmp_path / "two.tsv") == EXPECTED_2COL
    assert read_pairs(str(tmp_path / "three.txt")) == [("Hallo!", "Hi."), ("Lauf!", "Run!")]


def test_read_gzipped_tsv(tmp_path: Path) -> None:
    (tmp_path / "deu.txt.gz").write_bytes(gzip.compress(TSV_2COL.encode()))
    assert read_pairs(tmp_path / "deu.txt.gz") == EXPECTED_2COL


def test_read_repo_fixture() -> None:
    pairs = read_pairs(PAIRS40)
    assert len(pairs) == 40
    assert pairs[0] == ("Guten Morgen.", "Good morning.")


@pytest.mark.parametrize("gz", [True, False])
def test_read_pair_by_prefix_and_by_language_file(tmp_path: Path, gz: bool) -> None:
    # The empty line is kept: it is what keeps the two files aligned.
    prefix = write_pair(tmp_path, ["Ein Hund.", "", "Zwei Katzen."], ["A dog.", "", "Two cats."], gz=gz)
    expected = [("Ein Hund.", "A dog."), ("", ""), ("Zwei Katzen.", "Two cats.")]
    suffix = ".gz" if gz else ""
    assert read_pairs(prefix) == expected
    assert read_pairs(f"{prefix}.de{suffix}") == expected
    assert read_pairs(f"{prefix}.en{suffix}") == expected


def test_pair_files_may_mix_plain_and_gzip(tmp_path: Path) -> None:
    (tmp_path / "val.de").write_text("Hallo\n", encoding="utf-8")
    (tmp_path / "val.en.gz").write_bytes(gzip.compress(b"Hello\n"))
    assert read_pairs(tmp_path / "val") == [("Hallo", "Hello")]


BAD_UTF8 = b"Hi.\tHallo!\nOK.\tGut.\nBad\tschl\xfcssel\n"


def _bad_input(tmp_path: Path, case: str) -> tuple[Path, str]:
    """Build one malformed corpus; return its path and the exact expected message."""
    if case == "missing":
        path = tmp_path / "x.zip"
        return path, f"corpus not found: {str(path)!r}"
    if case == "one_column":
        path = tmp_path / "x.tsv"
        path.write_text("Hi.\tHallo!\n\nno tab here\n", encoding="utf-8")
        return path, f"cannot read corpus {str(path)!r}: line 3 has 1 column, expected English<TAB>German"
    if case == "four_columns":
        path = write_zip(tmp_path / "x.zip", "a\tb\tc\td\n")
        return path, f"cannot read corpus {str(path)!r}: line 1 has 4 columns, expected English<TAB>German"
    if case == "bad_utf8":
        path = tmp_path / "x.txt"
        path.write_bytes(BAD_UTF8)
        return path, f"cannot read corpus {str(path)!r}: line 3 is not valid UTF-8"
    if case == "bad_utf8_gz_pair":
        prefix = write_pair(tmp_path, ["a", "b"], ["a", "b"])
        Path(f"{prefix}.en.gz").write_bytes(gzip.compress(b"ok\n\xff\n"))
        return prefix, f"cannot read corpus {str(prefix) + '.en.gz'!r}: line 2 is not valid UTF-8"
    if case == "unequal":
        prefix = write_pair(tmp_path, ["a", "b", "c"], ["a", "b"])
        de, en = f"{prefix}.de.gz", f"{prefix}.en.gz"
        return prefix, f"cannot read corpus {str(prefix)!r}: {de!r} has 3 lines but {en!r} has 2"
    if case == "no_english":
        (tmp_path / "train.de").write_text("a\n", encoding="utf-8")
        prefix = tmp_path / "train"
        return prefix, f"corpus not found: {str(prefix)!r} has no English file {prefix}.en[.gz]"
    if case == "bad_gzip":
        path = tmp_path / "x.gz"
        path.write_bytes(b"\x1f\x8b" + b"garbage")
        return path, f"cannot read corpus {str(path)!r}: not a valid gzip file"
    if case == "bad_zip":
        path = tmp_path / "x.zip"
        path.write_bytes(b"PK not really")
        return path, f"cannot read corpus {str(path)!r}: not a valid zip file"
    assert case == "zip_without_data"
    path = tmp_path / "x.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_about.txt", "about")
    return path, f"cannot read corpus {str(path)!r}: expected one .txt file besides _about.txt, found 0"


BAD_CASES = [
    "missing",
    "one_column",
    "four_columns",
    "bad_utf8",
    "bad_utf8_gz_pair",
    "unequal",
    "no_english",
    "bad_gzip",
    "bad_zip",
    "zip_without_data",
]


@pytest.mark.parametrize("case", BAD_CASES)
def test_read_pairs_rejects_bad_input(tmp_path: Path, case: str) -> None:
    path, message = _bad_input(tmp_path, case)
    with pytest.raises(CorpusError, match=f"^{re.escape(message)}$"):
        read_pairs(path)


def test_corpus_error_is_value_error() -> None:
    assert issubclass(CorpusError, ValueError)


def test_read_lines_plain_gz_and_missing(tmp_path: Path) -> None:
    (tmp_path / "src.de").write_text("eins\n\nzwei\u2028drei\r\n", encoding="utf-8")
    (tmp_path / "ref.en.gz").write_bytes(gzip.compress("\ufeffone\ntwo".encode()))
    assert read_lines(tmp_path / "src.de") == ["eins", "", "zwei\u2028drei"]
    assert read_lines(tmp_path / "ref.en.gz") == ["one", "two"]
    missing = tmp_path / "nope.txt"
    with pytest.raises(CorpusError, match=f"^{re.escape(f'file not found: {str(missing)!r}')}$"):
        read_lines(missing)
    (tmp_path / "bad.txt").write_bytes(b"ok\n\xc3\n")
    with pytest.raises(CorpusError, match=r"line 2 is not valid UTF-8$"):
        read_lines(tmp_path / "bad.txt")


def test_corpus_sha256(tmp_path: Path) -> None:
    import hashlib

    (tmp_path / "c.tsv").write_bytes(b"Hi.\tHallo!\n")
    assert corpus_sha256(tmp_path / "c.tsv") == hashlib.sha256(b"Hi.\tHallo!\n").hexdigest()
    prefix = write_pair(tmp_path, ["Hallo"], ["Hello"], gz=False)
    expected = hashlib.sha256(b"Hallo\nHello\n").hexdigest()
    assert corpus_sha256(prefix) == expected
    assert corpus_sha256(f"{prefix}.en") == expected
    with pytest.raises(CorpusError, match="^corpus not found"):
        corpus_sha256(tmp_path / "missing.zip")


# --------------------------------------------------------------------------- cleaning


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("e\u0301", "\u00e9"),
        ("  Guten\tTag\n  Welt \r\n", "Guten Tag Welt"),
        ("a\u00a0\u00a0b\u2028c", "a b c"),
        ("x\x00y\x85z", "x y z"),
        ("", ""),
    ],
)
def test_normalize(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


def test_clean_pairs_filters_and_keeps_order() -> None:
    long = "x" * 301
    pairs = [
        ("Hallo!", "Hi."),  # short: ratio filter does not apply
        ("Gute  Nacht.", "Good\tnight."),
        ("", "Empty German."),
        ("Leeres Englisch.", "   "),
        (long, "Too long."),
        ("Das ist ein ganz normaler Satz.", "Short one."),  # 31 vs 10 chars: 10 is not > 10, kept
        ("Das ist ein ganz normaler Satz.", "Short one!!"),  # 31 vs 11 chars: ratio 2.8, kept
        ("Das ist ein sehr, sehr langer deutscher Satz.", "Too short!!"),  # 46 vs 11 chars: ratio 4.2
        ("Gute Nacht.", "Good night."),  # duplicate after normalization
        ("Caf\u0065\u0301.", "Cafe."),
    ]
    assert clean_pairs(pairs) == [
        ("Hallo!", "Hi."),
        ("Gute Nacht.", "Good night."),
        ("Das ist ein ganz normaler Satz.", "Short one."),
        ("Das ist ein ganz normaler Satz.", "Short one!!"),
        ("Caf\u00e9.", "Cafe."),
    ]
    assert clean_pairs([("abcdefghijk", "a" * 40)], max_ratio=4.0) == [("abcdefghijk", "a" * 40)]
    assert clean_pairs([("abc", "abcd")], max_chars=3) == []


@pytest.mark.parametrize(("kwargs", "message"), [({"max_chars": 0}, "max_chars"), ({"max_ratio": 0.5}, "max_ratio")])
def test_clean_pairs_rejects_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        clean_pairs([], **kwargs)


# --------------------------------------------------------------------------- splitting


def synthetic_corpus(n_groups: int = 400) -> list[tuple[str, str]]:
    """Groups of 1-4 pairs chained by shared German or English sentences."""
    rng = random.Random(7)
    pairs: list[tuple[str, str]] = []
    for g in range(n_groups):
        size = rng.randint(1, 4)
        for k in range(size):
            # Alternate which side is shared so groups are chains, not stars.
            de = f"Satz {g}-{k // 2}"
            en = f"Sentence {g}-{(k + 1) // 2}"
            pairs.append((de, en))
    pairs.append(("Satz 0-0", "Sentence 0-0 alternative"))  # joins group 0 late in the corpus
    return pairs


def _sentences(split: list[tuple[str, str]]) -> tuple[set[str], set[str]]:
    return {de for de, _ in split}, {en for _, en in split}


def test_grouped_split_invariants() -> None:
    pairs = synthetic_corpus()
    train, dev, test = grouped_split(pairs, dev_size=60, test_size=50, seed=1)
    assert len(test) >= 50 and len(dev) >= 60
    assert sorted(train + dev + test) == sorted(pairs)
    splits = [_sentences(s) for s in (train, dev, test)]
    for a in range(3):
        for b in range(a + 1, 3):
            assert not splits[a][0] & splits[b][0], "German sentence in two splits"
            assert not splits[a][1] & splits[b][1], "English sentence in two splits"
    for split in (train, dev, test):  # corpus order kept inside each split
        assert split == sorted(split, key=pairs.index)


def test_grouped_split_is_deterministic_and_order_independent() -> None:
    pairs = synthetic_corpus()
    first = grouped_split(pairs, dev_size=60, test_size=50)
    assert grouped_split(pairs, dev_size=60, test_size=50) == first
    shuffled = pairs[:]
    random.Random(3).shuffle(shuffled)
    again = grouped_split(shuffled, dev_size=60, test_size=50)
    assert [set(s) for s in again] == [set(s) for s in first]
    other = grouped_split(pairs, dev_size=60, test_size=50, seed=2)
    assert set(other[2]) != set(first[2])


def test_grouped_split_sends_big_groups_to_train() -> None:
    hub = [("Ja.", f"Yes {i}.") for i in range(5)]  # one group of 5 via the German side
    singles = [(f"Satz {i}", f"Sentence {i}") for i in range(20)]
    for seed in range(5):
        train, dev, test = grouped_split(hub + singles, dev_size=3, test_size=3, seed=seed, max_group=4)
        assert set(hub) <= set(train)
        assert len(dev) == 3 and len(test) == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dev_size": -1, "test_size": 1}, "dev_size must be an integer >= 0, got -1"),
        ({"dev_size": 1, "test_size": 1.5}, "test_size must be an integer >= 0, got 1.5"),
        ({"dev_size": 1, "test_size": 1, "max_group": 0}, "max_group must be an integer >= 1, got 0"),
        ({"dev_size": 20, "test_size": 20}, "corpus too small to split: 40 pairs for test_size=20, dev_size=20"),
    ],
)
def test_grouped_split_rejects_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        grouped_split(read_pairs(PAIRS40), **kwargs)


# --------------------------------------------------------------------------- references


def test_group_references_and_streams() -> None:
    pairs = [("Hallo!", "Hi."), ("Lauf!", "Run!"), ("Hallo!", "Hello!"), ("Hallo!", "Hi."), ("Geh.", "Go.")]
    sources, refs = group_references(pairs)
    assert sources == ["Hallo!", "Lauf!", "Geh."]
    assert refs == [["Hi.", "Hello!"], ["Run!"], ["Go."]]
    streams = reference_streams(refs)
    assert streams == [["Hi.", "Run!", "Go."], ["Hello!", None, None]]
    with pytest.raises(ValueError, match="references of segment 1"):
        reference_streams([["a"], []])


def test_read_references_normalizes_groups_and_drops_empty_sides(tmp_path) -> None:
    path = tmp_path / "c.tsv"
    path.write_text("Hi.\tHallo!\nHello!\t  Hallo!\nRun!\tLauf!\n \tGeh.\nHi.\tHallo!\n", encoding="utf-8")
    assert read_references(path) == (["Hallo!", "Lauf!"], [["Hi.", "Hello!"], ["Run!"]])
    empty = tmp_path / "e.tsv"
    empty.write_text(" \tGeh.\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=re.escape(f"no sentence pair with both sides non-empty in {str(empty)!r}")):
        read_references(empty)


def test_reference_streams_work_with_sacrebleu() -> None:
    hyps = ["the cat sat on the mat today", "a dog runs in the park"]
    refs = [["the cat sat on the mat today", "a cat was sitting on the mat"], ["a dog runs in the park"]]
    assert sacrebleu.corpus_bleu(hyps, reference_streams(refs)).score == pytest.approx(100.0)
    # None padding means "no reference": identical to scoring that segment alone.
    single = sacrebleu.corpus_bleu(hyps[1:], [["a dog runs in the park"]]).score
    padded = sacrebleu.corpus_bleu(hyps[1:], [["a dog runs in the park"], [None]]).score
    assert padded == single


@pytest.mark.parametrize("text, expected", [
    ("deu-eng.zip", CorpusSpec("deu-eng.zip", "pairs", 1.0)),
    ("runs/x/train.tsv@2", CorpusSpec("runs/x/train.tsv", "pairs", 2.0)),
    ("ding-words:/usr/share/trans/de-en@0.1", CorpusSpec("/usr/share/trans/de-en", "ding-words", 0.1)),
    ("ding-sentences:/usr/share/trans/de-en", CorpusSpec("/usr/share/trans/de-en", "ding-sentences", 1.0)),
    ("C:/data/x.tsv", CorpusSpec("C:/data/x.tsv", "pairs", 1.0)),  # an unknown prefix is part of the path
    ("mail@host/x.tsv@1.5", CorpusSpec("mail@host/x.tsv", "pairs", 1.5)),  # the last @ gives the weight
])
def test_corpus_spec_parse(text, expected):
    spec = CorpusSpec.parse(text)
    assert spec == expected
    assert CorpusSpec.parse(str(spec)) == spec


@pytest.mark.parametrize("text, message", [
    ("x.tsv@", "corpus weight must be a number, got '' in 'x.tsv@'"),
    ("x.tsv@heavy", "corpus weight must be a number, got 'heavy' in 'x.tsv@heavy'"),
    ("x.tsv@0", "corpus weight must be in (0, 100], got 0.0 in 'x.tsv@0'"),
    ("x.tsv@-1", "corpus weight must be in (0, 100], got -1.0 in 'x.tsv@-1'"),
    ("x.tsv@nan", "corpus weight must be in (0, 100], got nan in 'x.tsv@nan'"),
    ("ding-words:@1", "corpus path is empty in 'ding-words:@1'; expected [KIND:]PATH[@WEIGHT]"),
])
def test_corpus_spec_errors(text, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        CorpusSpec.parse(text)


def test_corpus_spec_reads_pairs_and_ding(tmp_path: Path):
    assert CorpusSpec.parse(f"{PAIRS40}@3").read() == read_pairs(PAIRS40)
    ding = tmp_path / "de-en"
    ding.write_text("Hund {m} | Hunde {pl} :: dog | dogs\nDas ist die Höhe! :: That takes the cake!\n", encoding="utf-8")
    assert CorpusSpec.parse(f"ding-words:{ding}").read() == [("Hund", "dog"), ("Hunde", "dogs")]
    assert CorpusSpec.parse(f"ding-sentences:{ding}@2").read() == [("Das ist die Höhe!", "That takes the cake!")]


def test_corpus_attribution(tmp_path: Path):
    same = tmp_path / "same.tsv"
    same.write_text("Hi.\tHallo!\tCC-BY x\nRun!\tLauf!\tCC-BY x\n", encoding="utf-8")
    mixed = tmp_path / "mixed.tsv"
    mixed.write_text(TSV_3COL, encoding="utf-8")
    assert corpus_attribution(same) == "CC-BY x"
    assert corpus_attribution(mixed) == "per pair: see the third column of the corpus file"
    assert corpus_attribution(PAIRS40) is None
    assert corpus_attribution(write_zip(tmp_path / "c.zip", TSV_3COL)) is None
