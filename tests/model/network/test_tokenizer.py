"""Tests for model.tokenizer: in-memory training, special ids, round trips."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from model.network.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Tokenizer, training_sentences

PAIRS40 = Path(__file__).parents[2] / "data" / "pairs40.tsv"


def load_pairs() -> list[tuple[str, str]]:
    # Read the fixture directly so these tests do not depend on model.data.
    lines = PAIRS40.read_text(encoding="utf-8").splitlines()
    return [(de, en) for en, de in (line.split("\t") for line in lines if line)]


@pytest.fixture(scope="module")
def pairs() -> list[tuple[str, str]]:
    return load_pairs()


@pytest.fixture(scope="module")
def tok(pairs: list[tuple[str, str]]) -> Tokenizer:
    return Tokenizer.train(training_sentences(pairs), vocab_size=1000)


def test_training_sentences_interleaves_german_and_english() -> None:
    assert list(training_sentences([("Hallo", "Hello"), ("Ja", "Yes")])) == ["Hallo", "Hello", "Ja", "Yes"]


def test_tiny_corpus_shrinks_vocab(tok: Tokenizer) -> None:
    assert 16 < tok.vocab_size < 1000


def test_special_ids(tok: Tokenizer) -> None:
    assert (PAD_ID, UNK_ID, BOS_ID, EOS_ID) == (0, 1, 2, 3)
    assert tok.pieces([0, 1, 2, 3]) == ["<pad>", "<unk>", "<s>", "</s>"]


def test_round_trip_german_and_english(tok: Tokenizer, pairs: list[tuple[str, str]]) -> None:
    de, en = pairs[2]
    for text in (de, en):
        ids = tok.encode(text)
        assert ids and all(4 <= i < tok.vocab_size for i in ids)  # no specials added
        assert tok.decode(ids) == text
    for de, en in pairs:
        assert tok.decode(tok.encode(de)) == de
        assert tok.decode(tok.encode(en)) == en


def test_decode_drops_pad_bos_eos(tok: Tokenizer, pairs: list[tuple[str, str]]) -> None:
    de = pairs[0][0]
    ids = tok.encode(de)
    assert tok.decode([BOS_ID, *ids, EOS_ID, PAD_ID, PAD_ID]) == de
    assert tok.decode([]) == ""


def test_pieces_show_specials(tok: Tokenizer) -> None:
    ids = [BOS_ID, *tok.encode("Guten Morgen."), EOS_ID]
    pieces = tok.pieces(ids)
    assert pieces[0] == "<s>" and pieces[-1] == "</s>"
    assert "".join(pieces[1:-1]).replace("\u2581", " ").strip() == "Guten Morgen."


def test_encode_batch_matches_encode(tok: Tokenizer, pairs: list[tuple[str, str]]) -> None:
    texts = [text for pair in pairs for text in pair]
    assert tok.encode_batch(texts) == [tok.encode(text) for text in texts]
    assert tok.encode_batch([]) == []


def test_unknown_characters_map_to_unk(tok: Tokenizer) -> None:
    assert UNK_ID in tok.encode("\u4e2d\u6587")


def test_proto_round_trip(tok: Tokenizer, pairs: list[tuple[str, str]]) -> None:
    clone = Tokenizer(tok.proto)
    assert clone.vocab_size == tok.vocab_size
    texts = [text for pair in pairs for text in pair]
    assert clone.encode_batch(texts) == tok.encode_batch(texts)
    restored = pickle.loads(pickle.dumps(tok))
    assert restored.proto == tok.proto


def test_training_is_deterministic(pairs: list[tuple[str, str]]) -> None:
    first = Tokenizer.train(training_sentences(pairs), vocab_size=100, seed=3)
    second = Tokenizer.train(training_sentences(pairs), vocab_size=100, seed=3)
    assert first.proto == second.proto


def test_bpe_model_type(pairs: list[tuple[str, str]]) -> None:
    bpe = Tokenizer.train(training_sentences(pairs), vocab_size=200, model_type="bpe")
    assert bpe.pieces([0, 1, 2, 3]) == ["<pad>", "<unk>", "<s>", "</s>"]
    de = pairs[5][0]
    assert bpe.decode(bpe.encode(de)) == de


@pytest.mark.parametrize(
    ("proto", "message"),
    [
        (b"not a sentencepiece model", "invalid SentencePiece model: 25 bytes do not parse as a model proto"),
        (b"", "invalid SentencePiece model: empty bytes"),
        ("text", "invalid SentencePiece model: expected bytes, got str"),
    ],
)
def test_invalid_proto(proto: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        Tokenizer(proto)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"vocab_size": 8}, r"^vocab_size must be an integer >= 16, got 8$"),
        ({"vocab_size": 100, "model_type": "wordpiece"}, r"^model_type must be one of .*, got 'wordpiece'$"),
        ({"vocab_size": 100, "character_coverage": 0.0}, r"^character_coverage must be in \(0, 1\], got 0.0$"),
        ({"vocab_size": 100, "user_defined_symbols": ["⦅N1⦆", "a b"]},
         r"^user_defined_symbols must be non-empty strings without spaces, got 'a b'$"),
        ({"vocab_size": 100, "user_defined_symbols": [""]},
         r"^user_defined_symbols must be non-empty strings without spaces, got ''$"),
    ],
)
def test_train_rejects_bad_arguments(pairs: list[tuple[str, str]], kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Tokenizer.train(training_sentences(pairs), **kwargs)


def test_train_rejects_empty_corpus() -> None:
    with pytest.raises(ValueError, match="^cannot train tokenizer: no training sentences$"):
        Tokenizer.train([], vocab_size=100)


def test_out_of_range_ids(tok: Tokenizer) -> None:
    with pytest.raises(ValueError, match=rf"^token id out of range \[0, {tok.vocab_size}\): {tok.vocab_size}$"):
        tok.decode([tok.vocab_size])
    with pytest.raises(ValueError, match=r"token id out of range"):
        tok.pieces([-1])


def test_user_defined_symbols_are_single_pieces(pairs: list[tuple[str, str]]) -> None:
    symbols = ["⦅N1⦆", "⦅N2⦆", "⦅X1⦆"]
    tok = Tokenizer.train(training_sentences(pairs), vocab_size=200, user_defined_symbols=symbols)
    assert tok.user_symbols == frozenset(symbols)
    assert tok.pieces([4, 5, 6]) == symbols  # right after the four specials
    ids = tok.encode("Er hat ⦅N1⦆ Hunde⦅X1⦆.")
    assert [p for p in tok.pieces(ids) if p in tok.user_symbols] == ["⦅N1⦆", "⦅X1⦆"]
    assert tok.decode(ids) == "Er hat ⦅N1⦆ Hunde⦅X1⦆."
    assert Tokenizer(tok.proto).user_symbols == frozenset(symbols)  # read back from the proto


def test_vocabulary_without_user_symbols(tok: Tokenizer) -> None:
    assert tok.user_symbols == frozenset()
