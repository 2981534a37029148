"""Joint German/English SentencePiece vocabulary.

One subword model is shared by the source and the target side so that the
Transformer can tie its encoder, decoder and output embeddings.  The model is
trained entirely in memory and handled as its serialized protobuf bytes
(``Tokenizer.proto``), which is what checkpoints store: a checkpoint is then
self-contained and never points at a separate ``.model`` file on disk.

The four special symbols have fixed ids so that the rest of the code can use
the module constants instead of asking the tokenizer:

    PAD_ID = 0 ("<pad>"), UNK_ID = 1 ("<unk>"), BOS_ID = 2 ("<s>"), EOS_ID = 3 ("</s>")

Text goes through SentencePiece's default ``nmt_nfkc`` normalization when it is
encoded, so ``decode(encode(text))`` reproduces already-normalized text exactly
(whitespace runs are collapsed, compatibility characters are folded).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

import sentencepiece as spm

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
SPECIAL_PIECES = ("<pad>", "<unk>", "<s>", "</s>")

MIN_VOCAB_SIZE = 16
MODEL_TYPES = ("unigram", "bpe", "char", "word")

# Ids that carry no text: decode() drops them so callers can pass raw model
# output (with BOS/EOS/padding) straight in.  UNK stays, it decodes to " ⁇ ".
_NON_TEXT_IDS = frozenset((PAD_ID, BOS_ID, EOS_ID))


def training_sentences(pairs: Iterable[tuple[str, str]]) -> Iterator[str]:
    """Yield the German and then the English side of every pair.

    Interleaving both languages gives the joint vocabulary a balanced view of
    the two sides even when ``input_sentence_size`` subsamples the corpus.
    """
    for src, tgt in pairs:
        yield src
        yield tgt


# Batches smaller than this are encoded in the calling thread (a served sentence: 1.3 ms -> 0.05 ms).
_THREADED_BATCH = 64


def _encode_threads() -> int:
    # sentencepiece's batch encoder parallelises over sentences; more threads
    # than cores only adds scheduling overhead.
    return max(1, min(8, os.cpu_count() or 1))


class _Counted:
    """Iterable wrapper that counts what sentencepiece consumed, to explain failures."""

    def __init__(self, items: Iterable[str]) -> None:
        self._items = items
        self.count = 0

    def __iter__(self) -> Iterator[str]:
        for item in self._items:
            if not isinstance(item, str):
                raise ValueError(f"training sentences must be str, got {type(item).__name__}")
            self.count += 1
            yield item


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def _user_defined_pieces(proto: bytes) -> list[str]:
    """Pieces of type USER_DEFINED in a serialized ``ModelProto``.

    The Python package exposes no piece type other than control/unknown/unused/byte, and its
    protobuf classes need the ``protobuf`` package, so this reads the two fields it needs from
    the wire format: ``ModelProto.pieces`` (field 1) with ``piece`` (1) and ``type`` (3, 4 =
    USER_DEFINED) each. Every other field is skipped by its wire type."""
    found: list[str] = []

    def fields(data: bytes):
        pos = 0
        while pos < len(data):
            key, pos = _varint(data, pos)
            number, wire = key >> 3, key & 7
            if wire == 0:
                value, pos = _varint(data, pos)
            elif wire == 2:
                size, pos = _varint(data, pos)
                value, pos = data[pos:pos + size], pos + size
            elif wire in (1, 5):
                value, pos = None, pos + (8 if wire == 1 else 4)
            else:
                raise ValueError(f"invalid SentencePiece model: unexpected wire type {wire!r}")
            yield number, value

    for number, value in fields(proto):
        if number == 1 and isinstance(value, bytes):
            entry = dict(fields(value))
            if entry.get(3) == 4:
                found.append(entry.get(1, b"").decode("utf-8"))
    return found


class Tokenizer:
    """A SentencePiece model loaded from its serialized protobuf."""

    def __init__(self, model_proto: bytes) -> None:
        if not isinstance(model_proto, (bytes, bytearray)):
            raise ValueError(f"invalid SentencePiece model: expected bytes, got {type(model_proto).__name__}")
        if not model_proto:
            raise ValueError("invalid SentencePiece model: empty bytes")
        processor = spm.SentencePieceProcessor()
        try:
            processor.LoadFromSerializedProto(bytes(model_proto))
        except (RuntimeError, OSError):
            # The C++ message only names a source line, which helps nobody.
            raise ValueError(f"invalid SentencePiece model: {len(model_proto)} bytes do not parse as a model proto") from None
        self._check_specials(processor)
        self.proto: bytes = bytes(model_proto)
        self._sp = processor
        # Read from the model itself, so a checkpoint's vocabulary says whether it has placeholders.
        self._user_symbols = frozenset(_user_defined_pieces(self.proto))

    @staticmethod
    def _check_specials(processor: spm.SentencePieceProcessor) -> None:
        # The model code hard-codes PAD/BOS/EOS ids, so a model trained with
        # another layout would silently produce garbage; refuse it up front.
        actual = tuple(processor.id_to_piece(i) for i in range(min(4, processor.get_piece_size())))
        if actual != SPECIAL_PIECES:
            raise ValueError(f"invalid SentencePiece model: ids 0-3 must be {SPECIAL_PIECES!r}, got {actual!r}")

    @classmethod
    def train(
        cls,
        sentences: Iterable[str],
        vocab_size: int,
        *,
        model_type: str = "unigram",
        character_coverage: float = 1.0,
        input_sentence_size: int = 2_000_000,
        seed: int = 0,
        user_defined_symbols: Sequence[str] = (),
    ) -> Tokenizer:
        """Train a model in memory on ``sentences`` (see ``training_sentences``).

        ``vocab_size`` is an upper bound: ``hard_vocab_limit=False`` lets a tiny
        corpus produce a smaller vocabulary instead of failing.  Training is
        deterministic for the same sentences, options and ``seed``.

        ``user_defined_symbols`` (the pipeline's placeholders, ``pipeline.spans.PLACEHOLDERS``)
        get the ids right after the four specials and are always one piece wherever they occur
        in a text, so the model can learn to copy them.
        """
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < MIN_VOCAB_SIZE:
            raise ValueError(f"vocab_size must be an integer >= {MIN_VOCAB_SIZE}, got {vocab_size!r}")
        if model_type not in MODEL_TYPES:
            raise ValueError(f"model_type must be one of {', '.join(MODEL_TYPES)}, got {model_type!r}")
        if not 0.0 < character_coverage <= 1.0:
            raise ValueError(f"character_coverage must be in (0, 1], got {character_coverage!r}")
        if isinstance(input_sentence_size, bool) or not isinstance(input_sentence_size, int) or input_sentence_size < 1:
            raise ValueError(f"input_sentence_size must be a positive integer, got {input_sentence_size!r}")
        symbols = list(user_defined_symbols)
        for symbol in symbols:
            if not isinstance(symbol, str) or not symbol or any(c.isspace() for c in symbol):
                raise ValueError(f"user_defined_symbols must be non-empty strings without spaces, got {symbol!r}")
        # The seed drives the reservoir sampling behind input_sentence_size;
        # sentencepiece only exposes it as process-wide state.
        spm.set_random_generator_seed(seed)
        writer = io.BytesIO()
        counted = _Counted(sentences)
        try:
            spm.SentencePieceTrainer.train(
                sentence_iterator=iter(counted),
                model_writer=writer,
                vocab_size=vocab_size,
                model_type=model_type,
                character_coverage=character_coverage,
                input_sentence_size=input_sentence_size,
                shuffle_input_sentence=True,
                hard_vocab_limit=False,
                pad_id=PAD_ID,
                unk_id=UNK_ID,
                bos_id=BOS_ID,
                eos_id=EOS_ID,
                pad_piece=SPECIAL_PIECES[PAD_ID],
                unk_piece=SPECIAL_PIECES[UNK_ID],
                bos_piece=SPECIAL_PIECES[BOS_ID],
                eos_piece=SPECIAL_PIECES[EOS_ID],
                user_defined_symbols=symbols,
                num_threads=_encode_threads(),
                minloglevel=2,  # silence the per-iteration progress lines on stderr
            )
        except RuntimeError as exc:
            if counted.count == 0:
                raise ValueError("cannot train tokenizer: no training sentences") from None
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else "unknown error"
            detail = detail.removeprefix("INTERNAL: ")  # sentencepiece status code, not informative
            raise ValueError(f"cannot train tokenizer: {detail}") from None
        return cls(writer.getvalue())

    @property
    def vocab_size(self) -> int:
        return self._sp.get_piece_size()

    @property
    def user_symbols(self) -> frozenset[str]:
        """Pieces trained as user-defined symbols (placeholders); empty for older vocabularies."""
        return self._user_symbols

    def encode_offsets(self, text: str) -> dict:
        """SentencePiece's offset mapping of ``text``: ``{"ids", "pieces", "offsets"}``, each
        piece's (start, end) in ``text``."""
        return self._sp.encode(text, out_type="offset_mapping")

    def decode_offsets(self, ids: Sequence[int]) -> dict:
        """The decoded text of ``ids`` with SentencePiece's offset mapping: ``{"text", "pieces",
        "offsets"}``."""
        return self._sp.decode(self._check_ids(ids), out_type="offset_mapping")

    def _check_ids(self, ids: Sequence[int]) -> list[int]:
        ids = [int(i) for i in ids]  # accepts tensors' .tolist() and numpy ints alike
        size = self.vocab_size
        for i in ids:
            if not 0 <= i < size:
                raise ValueError(f"token id out of range [0, {size}): {i!r}")
        return ids

    def encode(self, text: str) -> list[int]:
        """Subword ids of ``text`` without BOS/EOS."""
        if not isinstance(text, str):
            raise ValueError(f"text must be a str, got {type(text).__name__}")
        return self._sp.encode(text, out_type=int)

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """``encode`` for many texts at once, multi-threaded inside sentencepiece."""
        texts = list(texts)
        for text in texts:
            if not isinstance(text, str):
                raise ValueError(f"texts must contain only str, got {type(text).__name__}")
        if not texts:
            return []
        if len(texts) < _THREADED_BATCH:  # starting the thread pool costs ~1 ms: more than a few sentences
            return [self._sp.encode(text, out_type=int) for text in texts]
        return self._sp.encode(texts, out_type=int, num_threads=_encode_threads())

    def decode(self, ids: Sequence[int]) -> str:
        """Text of ``ids``; PAD/BOS/EOS are dropped wherever they occur."""
        kept = [i for i in self._check_ids(ids) if i not in _NON_TEXT_IDS]
        return self._sp.decode(kept)

    def score(self, text: str) -> tuple[int, float]:
        """How the unigram model segments ``text``: number of pieces and summed log-probability."""
        ids = self.encode(text)
        return len(ids), float(sum(self._sp.get_score(i) for i in ids))

    def pieces(self, ids: Sequence[int]) -> list[str]:
        """Piece string of each id, specials included (e.g. for attention plot axes)."""
        return [self._sp.id_to_piece(i) for i in self._check_ids(ids)]

    # Pickling by proto keeps DataLoader workers and deep copies cheap and
    # independent of sentencepiece's own pickling support.
    def __getstate__(self) -> bytes:
        return self.proto

    def __setstate__(self, state: bytes) -> None:
        self.__init__(state)

    def __repr__(self) -> str:
        return f"Tokenizer(vocab_size={self.vocab_size})"


@lru_cache(maxsize=8)
def shared_tokenizer(model_proto: bytes) -> Tokenizer:
    """The ``Tokenizer`` of ``model_proto``, one per process and model: checkpoints with the same
    SentencePiece model (the two directions of a joint vocabulary, served side by side) share one
    (a Tokenizer is never changed once made)."""
    return Tokenizer(model_proto)
