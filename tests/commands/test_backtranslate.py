"""python -m commands.backtranslate: monolingual text and its machine translation as a training corpus."""

from __future__ import annotations

import gzip
import json

import pytest

from commands import backtranslate, cli
from model.data import corpus_attribution, read_pairs
from model.inference.engines import load_engine
from pipeline.translation import Pipeline
from tests.conftest import read_pairs40

ATTRIBUTION = "Our own test sentences, MIT"


def run(argv, capsys):
    code = backtranslate.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def served(checkpoint) -> Pipeline:
    """The pipeline the command translates through (no dictionary: the tests pass --dictionary '')."""
    return Pipeline(load_engine(checkpoint, engine="torch", device="cpu", threads=1))


@pytest.fixture()
def english(tmp_path):
    path = tmp_path / "english.txt"
    path.write_text("".join(f"{en}\n" for _, en in read_pairs40()[:7]), encoding="utf-8")
    return path


def test_english_text_becomes_pairs_with_the_models_german(reverse_checkpoint, english, tmp_path, capsys):
    out = tmp_path / "bt.tsv.gz"
    code, stdout, err = run(["--checkpoint", reverse_checkpoint, "--engine", "torch", "--text", english, "--out", out,
                             "--attribution", ATTRIBUTION, "--dictionary", "", "--no-progress"], capsys)
    assert (code, stdout) == (0, "")
    texts = english.read_text(encoding="utf-8").splitlines()
    german = served(reverse_checkpoint).translate(texts)
    assert all(german)
    assert read_pairs(out) == list(zip(german, texts))      # what train.py's --data reads: (German, English)
    assert corpus_attribution(out) == ATTRIBUTION
    assert err == f"wrote {out}: 7 pairs from 7 texts (en-de)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bt.tsv.gz", "english.txt"]  # no part left behind
    assert gzip.decompress(out.read_bytes()).decode("utf-8").count("\n") == 7


def test_german_text_becomes_pairs_with_the_models_english(tiny_checkpoint, tmp_path, capsys):
    texts = [de for de, _ in read_pairs40()[:5]]
    source = tmp_path / "german.txt"
    source.write_text("\n".join(texts) + "\n", encoding="utf-8")
    out = tmp_path / "bt.tsv"
    code, _, err = run(["--checkpoint", tiny_checkpoint, "--engine", "torch", "--text", source, "--out", out,
                        "--dictionary", "", "--no-progress"], capsys)
    assert code == 0, err
    assert read_pairs(out) == list(zip(texts, served(tiny_checkpoint).translate(texts)))
    assert corpus_attribution(out) is None                      # two columns without --attribution


class StopsAfter:
    """A pipeline that raises after ``calls`` translations, as a run stopped (Ctrl-C, a kill) would."""

    def __init__(self, inner, calls):
        self.inner, self.calls = inner, calls

    def translate(self, texts):
        if self.calls == 0:
            raise KeyboardInterrupt
        self.calls -= 1
        return self.inner.translate(texts)


def test_a_stopped_run_continues_where_it_stopped(reverse_checkpoint, tmp_path, monkeypatch):
    monkeypatch.setattr(backtranslate, "CHUNK", 3)
    texts = [en for _, en in read_pairs40()[:8]]
    engine = served(reverse_checkpoint)
    state = {"checkpoint_sha256": "abc", "texts_sha256": "def"}
    whole = tmp_path / "whole.tsv"
    assert backtranslate.backtranslate(engine, texts, whole, "en-de", None, state, progress=False) == 8
    out = tmp_path / "bt.tsv"
    with pytest.raises(KeyboardInterrupt):
        backtranslate.backtranslate(StopsAfter(engine, 2), texts, out, "en-de", None, state, progress=False)
    part = tmp_path / "bt.tsv.part"
    assert part.read_text(encoding="utf-8").count("\n") == 6   # two whole chunks
    with open(part, "a", encoding="utf-8") as f:
        f.write("a torn li")                                    # a stop in the middle of a write
    calls = []

    class Counting:
        def translate(self, chunk):
            calls.append(chunk)
            return engine.translate(chunk)

    assert backtranslate.backtranslate(Counting(), texts, out, "en-de", None, state, progress=False) == 8
    assert calls == [texts[6:]]                                 # only the last chunk is translated again
    assert out.read_bytes() == whole.read_bytes()
    assert not part.exists() and not (tmp_path / "bt.tsv.part.json").exists()


def test_a_part_of_other_texts_is_refused(reverse_checkpoint, english, tmp_path, capsys):
    out = tmp_path / "bt.tsv"
    (tmp_path / "bt.tsv.part").write_text("Hello.\tHallo.\n", encoding="utf-8")
    (tmp_path / "bt.tsv.part.json").write_text(json.dumps({"checkpoint_sha256": "other", "done": 1, "bytes": 14}),
                                               encoding="utf-8")
    code, _, err = run(["--checkpoint", reverse_checkpoint, "--engine", "torch", "--text", english, "--out", out,
                        "--dictionary", ""], capsys)
    assert code == 2
    assert err == (f"python -m commands.backtranslate: error: {str(tmp_path / 'bt.tsv.part')!r} holds translations "
                   "of other texts, or by another checkpoint or options: remove it to start over\n")
    assert not out.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--text", "missing.txt", "--out", "bt.tsv"], "file not found: 'missing.txt'"),
    (["--text", "{english}", "--out", "no/such/dir/bt.tsv"], "No such directory for --out: 'no/such/dir/bt.tsv'"),
    (["--text", "{english}", "--out", "bt.tsv", "--attribution", "a\tb"],
     "--attribution must be one line of text without tabs"),
    (["--text", "{english}", "--out", "bt.tsv", "--checkpoint", "missing.pt"], "checkpoint not found: 'missing.pt'"),
    (["--out", "bt.tsv"], "the following arguments are required: --text"),
    (["--text", "{empty}", "--out", "bt.tsv"], "no text to translate in {empty}"),
])
def test_bad_arguments_are_one_line(english, tmp_path, args, message, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n", encoding="utf-8")
    code, _, err = run([a.format(english=english, empty=empty) for a in args], capsys)
    assert code == 2
    assert err.splitlines()[-1] == f"{cli.invoked_as(backtranslate.PROG)}: error: {message.format(empty=empty)}"


def test_the_command_run_again_after_a_stop_continues_its_part(reverse_checkpoint, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(backtranslate, "CHUNK", 2)
    texts = [en for _, en in read_pairs40()[:5]]
    source = tmp_path / "english.txt"
    source.write_text("\n".join(texts) + "\n", encoding="utf-8")
    argv = ["--checkpoint", reverse_checkpoint, "--engine", "torch", "--text", source, "--dictionary", "",
            "--no-progress"]
    whole = tmp_path / "whole.tsv"
    assert run([*argv, "--out", whole], capsys)[0] == 0
    out = tmp_path / "bt.tsv"
    real = Pipeline.translate
    calls = []

    def stops_on_the_second_chunk(self, chunk, *args, **kwargs):
        calls.append(list(chunk))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, chunk, *args, **kwargs)

    monkeypatch.setattr(Pipeline, "translate", stops_on_the_second_chunk)
    code, _, err = run([*argv, "--out", out], capsys)
    assert (code, err) == (130, "python -m commands.backtranslate: error: interrupted\n")
    assert not out.exists() and (tmp_path / "bt.tsv.part").read_text(encoding="utf-8").count("\n") == 2
    monkeypatch.setattr(Pipeline, "translate", real)
    assert run([*argv, "--out", out], capsys)[0] == 0
    assert out.read_bytes() == whole.read_bytes()


@pytest.mark.parametrize("count", [0, 1, 5, 7, 12])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_shards_are_equal_runs_that_join_into_the_texts(count, n):
    texts = [f"Text {i}." for i in range(count)]
    shards = [backtranslate.shard_of(texts, k, n) for k in range(1, n + 1)]
    assert [t for s in shards for t in s] == texts
    assert max(map(len, shards)) - min(map(len, shards)) <= 1
    assert [len(s) for s in shards] == sorted((len(s) for s in shards), reverse=True)   # the first ones longer


@pytest.mark.parametrize("value", ["0/2", "3/2", "a/b", "2", "1/0", "1/-2", "1/2/3"])
def test_a_bad_shard_is_one_line(english, tmp_path, value, capsys):
    code, _, err = run(["--text", english, "--out", tmp_path / "bt.tsv", "--shard", value], capsys)
    assert code == 2
    assert err.splitlines()[-1] == (f"{cli.invoked_as(backtranslate.PROG)}: error: argument --shard: "
                                    f"expected K/N with 1 <= K <= N, got {value!r}")


def test_paragraphs_become_a_pair_a_sentence_and_shards_join_into_the_whole(reverse_checkpoint, tmp_path, capsys):
    english = [en for _, en in read_pairs40()[:9]]
    paragraphs = [" ".join(english[0:2]), english[2], " ".join(english[3:6]), " ".join(english[6:9])]
    source = tmp_path / "debates.txt"
    source.write_text("".join(p + "\n" for p in paragraphs), encoding="utf-8")
    argv = ["--checkpoint", reverse_checkpoint, "--engine", "torch", "--text", source, "--dictionary", "",
            "--no-progress", "--sentences"]
    whole = tmp_path / "whole.tsv.gz"
    assert run([*argv, "--out", whole], capsys)[:2] == (0, "")
    german = served(reverse_checkpoint).translate(english)
    assert read_pairs(whole) == list(zip(german, english))       # one pair a sentence, in order
    parts = [tmp_path / f"part{k}.tsv.gz" for k in (1, 2, 3)]
    for k, part in enumerate(parts, 1):
        code, _, err = run([*argv, "--out", part, "--shard", f"{k}/3"], capsys)
        assert code == 0, err
        assert err == f"wrote {part}: 3 pairs from 3 texts (en-de)\n"
    joined = tmp_path / "joined.tsv.gz"
    joined.write_bytes(b"".join(p.read_bytes() for p in parts))   # cat part1 part2 part3
    assert read_pairs(joined) == read_pairs(whole)
