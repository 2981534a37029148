"""Word alignment from cross-attention: which source words each output word was translated from.

Three steps, each usable on its own:

1. Words from pieces (``word_spans``). SentencePiece reports for every piece its character span
   in the text (``out_type="offset_mapping"``: code-point offsets, so ä, ß and emoji count as one
   character each; a "▁" piece's span includes the space before it). A word starts at a piece
   beginning with "▁", at a piece that is only punctuation or symbols, after such a piece, and at
   a user-defined symbol (a placeholder such as ``⦅N1⦆``, always one piece). A lone "▁" piece,
   which SentencePiece emits before a user-defined symbol or an unknown character, belongs to no
   word. Words are spans [start, end) with no surrounding whitespace.
2. Attention (``cross_attention``): one teacher-forced pass over the model's own output, batched,
   gives exactly the cross-attention of the decoding steps that produced it (eval mode).
3. Links (``align_words``): the attention of the chosen decoder layers, averaged over heads, is
   summed over the pieces of a source word (the mass a target piece gives that word) and averaged
   over the pieces of a target word; every target word links to its best source word, and every
   source word to its best target word (union of both directions). The source EOS column is left
   out: attention resting on EOS means "no particular source word". Identical placeholders are
   linked to each other whatever the attention says.
4. ``align_outputs``: all of it for whole texts, as ``Translator.translate_aligned`` and
   ``Translator.align`` use it; ``align_texts`` the same from any engine's attention
   (``CT2Translator.align``: CTranslate2's, of one layer, ``SINGLE_LAYER``). Source spans index
   the text as given, before ``normalize``.

The default layers, ``DEFAULT_LAYERS``, were chosen with ``bench/alignment.py`` on
``tests/data/alignment_gold.tsv`` (see the numbers next to it).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

import torch
from torch import Tensor

from model.data import normalize
from model.network.tokenizer import Tokenizer
from model.network.transformer import Transformer
from model.search.options import DEFAULT
from model.search.scoring import cross_attention

Range = tuple[int, int]  # [start, end) character offsets

WORD_START = "▁"

# Decoder layers whose cross-attention (mean over heads) aligns words: None = all of them.
# Measured with bench/alignment.py on tests/data/alignment_gold.tsv (35 sentences, 257 sure links)
# for checkpoints/de-en.pt (3 decoder layers), AER / F1 with bidirectional links (forward only):
#   layer 0 0.264 / 0.740, layer 1 (L-2) 0.110 / 0.893 (0.125 / 0.875), layer 2 0.138 / 0.865,
#   all layers 0.105 / 0.897 (0.127 / 0.873); single heads 0.22-0.53 forward only.
# Layer L-2 (Garg et al. 2019's choice) and the mean of all layers tie within a link or two; the
# mean of all layers is the choice that depends least on which layer a retrained model
# specialises. A minimum attention weight (0.1-0.4) or dropping words whose attention rests on
# the source EOS changed AER by at most 0.001 or made it worse, so there is none.
DEFAULT_LAYERS: tuple[int, ...] | None = None
# An engine that returns one layer's attention (CTranslate2: ``alignment_layer``, all heads
# averaged) aligns by layer L-2, the better single layer above: served, CTranslate2 aligns with
# the weights it translates with, and the PyTorch weights stay out of a worker's memory
# (docs/journal/memory.md, "Alignment by CTranslate2").
SINGLE_LAYER = -2


def single_layer(decoder_layers: int) -> int:
    """``SINGLE_LAYER`` as an index into ``decoder_layers`` layers (the only one where there is one)."""
    return max(decoder_layers + SINGLE_LAYER, 0)


@dataclass
class AlignedText:
    """A translation with a word alignment between its source and its output.

    Words are given as character spans, so callers can map them back to any text they derived
    the source from. ``links`` holds (target word index, source word index) pairs, sorted."""

    source: str                                              # the text the model translated
    target: str                                              # its translation
    source_words: list[Range] = field(default_factory=list)   # char spans in ``source``
    target_words: list[Range] = field(default_factory=list)   # char spans in ``target``
    links: list[tuple[int, int]] = field(default_factory=list)


# ---------------------------------------------------------------------------------------- words

def is_punctuation(text: str) -> bool:
    """True for a non-empty string of only punctuation (P*) and symbol (S*) characters."""
    return bool(text) and all(unicodedata.category(c)[0] in "PS" for c in text)


def word_spans(
    text: str, pieces: Sequence[str], offsets: Sequence[Range], user_symbols: Collection[str] = frozenset(),
) -> tuple[list[Range], list[int]]:
    """Words of ``text`` from its pieces and their character ``offsets`` in it.

    Returns the word spans and, for every piece, the index of its word (-1 for a piece that is
    only whitespace, such as a lone "▁")."""
    if len(pieces) != len(offsets):
        raise ValueError(f"{len(pieces)!r} pieces but {len(offsets)!r} offsets")
    words: list[Range] = []
    piece_word: list[int] = []
    joinable = False  # may the next piece continue the last word?
    for piece, (begin, end) in zip(pieces, offsets):
        surface = text[begin:end]
        stripped = surface.strip()
        if not stripped:
            piece_word.append(-1)
            joinable = False
            continue
        start = begin + (len(surface) - len(surface.lstrip()))
        stop = start + len(stripped)
        alone = piece in user_symbols or is_punctuation(piece.lstrip(WORD_START))
        if joinable and not alone and not piece.startswith(WORD_START) and start == words[-1][1]:
            words[-1] = (words[-1][0], stop)
        else:
            words.append((start, stop))
        piece_word.append(len(words) - 1)
        joinable = not alone
    return words, piece_word


def _composes(cluster: str, nxt: str) -> bool:
    nfc = unicodedata.normalize
    return nfc("NFC", cluster + nxt) != nfc("NFC", cluster) + nfc("NFC", nxt)


def _normalize_map(text: str) -> tuple[str, list[Range]]:
    """``normalize(text)`` and, for each of its characters, the span in ``text`` it comes from.

    NFC is applied per cluster (a character plus the combining marks after it, or anything else
    it composes with, such as Hangul jamo), which gives the same string as NFC on the whole text;
    then control characters and whitespace runs become single spaces, and the ends are stripped,
    as ``normalize`` does."""
    chars: list[str] = []
    spans: list[Range] = []
    i = 0
    while i < len(text):
        j = i + 1
        while j < len(text) and (unicodedata.combining(text[j]) or _composes(text[i:j], text[j])):
            j += 1
        for c in unicodedata.normalize("NFC", text[i:j]):
            space = c.isspace() or ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F
            if not space:
                chars.append(c)
                spans.append((i, j))
            elif chars and chars[-1] != " ":
                chars.append(" ")
                spans.append((i, j))
        i = j
    if chars and chars[-1] == " ":
        chars.pop()
        spans.pop()
    return "".join(chars), spans


def source_words(tokenizer: Tokenizer, text: str) -> tuple[list[int], list[Range], list[int]]:
    """The piece ids the model sees for ``text`` (that of ``normalize(text)``), the words as spans
    in ``text`` itself, and each piece's word index (-1 for none)."""
    normal, origin = _normalize_map(text)
    assert normal == normalize(text), (normal, normalize(text))
    mapping = tokenizer.encode_offsets(normal)
    words, piece_word = word_spans(normal, mapping["pieces"], mapping["offsets"], tokenizer.user_symbols)
    spans = [(origin[s][0], origin[e - 1][1]) for s, e in words]
    return list(mapping["ids"]), spans, piece_word


def target_words(tokenizer: Tokenizer, ids: Sequence[int]) -> tuple[str, list[Range], list[int]]:
    """The decoded text of output ``ids`` (as ``tokenizer.decode`` gives it), its words, and each
    id's word index (-1 for none)."""
    mapping = tokenizer.decode_offsets(ids)
    words, piece_word = word_spans(mapping["text"], mapping["pieces"], mapping["offsets"], tokenizer.user_symbols)
    return mapping["text"], words, piece_word


# ------------------------------------------------------------------------------------ attention

# ---------------------------------------------------------------------------------------- links

def word_attention(cross: Tensor, src_piece_word: Sequence[int], tgt_piece_word: Sequence[int]) -> Tensor:
    """(T + 1, S + 1) piece attention -> (target words, source words): summed over the pieces of
    a source word, averaged over the pieces of a target word. EOS row and column are dropped."""
    T, S = len(tgt_piece_word), len(src_piece_word)
    if tuple(cross.shape) != (T + 1, S + 1):
        raise ValueError(f"cross-attention must be (T + 1, S + 1) = {(T + 1, S + 1)!r} "
                         f"for {T!r} target and {S!r} source pieces, got {tuple(cross.shape)!r}")
    n_src = max(src_piece_word, default=-1) + 1
    n_tgt = max(tgt_piece_word, default=-1) + 1
    src_onehot = torch.zeros(S, n_src)  # piece -> word
    for p, w in enumerate(src_piece_word):
        if w >= 0:
            src_onehot[p, w] = 1.0
    tgt_onehot = torch.zeros(n_tgt, T)
    for p, w in enumerate(tgt_piece_word):
        if w >= 0:
            tgt_onehot[w, p] = 1.0
    tgt_onehot = tgt_onehot / tgt_onehot.sum(dim=1, keepdim=True).clamp(min=1.0)
    return tgt_onehot @ cross[:T, :S].float() @ src_onehot  # (n_tgt, n_src)


def _placeholder_links(
    src_pieces: Sequence[str], src_piece_word: Sequence[int], tgt_pieces: Sequence[str],
    tgt_piece_word: Sequence[int], symbols: Collection[str],
) -> list[tuple[int, int]]:
    """Links between identical placeholders: the k-th occurrence of a symbol in the output to the
    k-th in the source (to the last one when the output repeats it more often)."""
    src_at: dict[str, list[int]] = {}
    for piece, word in zip(src_pieces, src_piece_word):
        if piece in symbols and word >= 0:
            src_at.setdefault(piece, []).append(word)
    seen: dict[str, int] = {}
    links = []
    for piece, word in zip(tgt_pieces, tgt_piece_word):
        if piece in symbols and word >= 0 and piece in src_at:
            k = seen.get(piece, 0)
            seen[piece] = k + 1
            links.append((word, src_at[piece][min(k, len(src_at[piece]) - 1)]))
    return links


def align_words(
    cross: Tensor,
    src_piece_word: Sequence[int],
    tgt_piece_word: Sequence[int],
    *,
    src_pieces: Sequence[str] = (),
    tgt_pieces: Sequence[str] = (),
    symbols: Collection[str] = frozenset(),
    bidirectional: bool = True,
) -> list[tuple[int, int]]:
    """Sorted (target word, source word) links from ``cross`` (T + 1, S + 1), the attention of
    the chosen layers and heads already averaged (see ``reduce_cross``).

    Every target word links to the source word it gives the most attention; with
    ``bidirectional`` every source word also links to the target word that gives it the most
    (the union of both directions: on the gold set it finds the second word of "rufe ... an" or
    "heute Abend" -> "tonight", and no source word is left without a target). A placeholder (a
    piece in ``symbols``; ``src_pieces``/``tgt_pieces`` are the piece strings, needed only for
    this) that occurs on both sides links to its twin instead, whatever the attention says."""
    weights = word_attention(cross, src_piece_word, tgt_piece_word)  # (n_tgt, n_src)
    links: set[tuple[int, int]] = set()
    if symbols and src_pieces and tgt_pieces:
        if len(src_pieces) != len(src_piece_word) or len(tgt_pieces) != len(tgt_piece_word):
            raise ValueError(f"need one piece per word index: {len(src_pieces)!r} source pieces for "
                             f"{len(src_piece_word)!r}, {len(tgt_pieces)!r} target pieces for {len(tgt_piece_word)!r}")
        links.update(_placeholder_links(src_pieces, src_piece_word, tgt_pieces, tgt_piece_word, symbols))
    fixed_tgt = {t for t, _ in links}
    fixed_src = {s for _, s in links}
    if weights.numel():
        links.update((t, s) for t, s in enumerate(weights.argmax(dim=1).tolist()) if t not in fixed_tgt)
        if bidirectional:
            links.update((t, s) for s, t in enumerate(weights.argmax(dim=0).tolist()) if s not in fixed_src)
    return sorted(links)


def reduce_cross(cross: Tensor, layers: Sequence[int] | None = None, heads: Sequence[int] | None = None) -> Tensor:
    """(L, H, T, S) -> (T, S): mean over the given decoder layers (negative counts from the top)
    and heads; None means all."""
    L, H = cross.shape[:2]
    for layer in layers or ():
        if not -L <= layer < L:
            raise ValueError(f"decoder layer must be in [{-L}, {L}), got {layer!r}")
    for head in heads or ():
        if not 0 <= head < H:
            raise ValueError(f"head must be in [0, {H}), got {head!r}")
    picked = cross if layers is None else cross[list(layers)]
    if heads is not None:
        picked = picked[:, list(heads)]
    return picked.float().mean(dim=(0, 1))


# ------------------------------------------------------------------------------------ sentences

def align_outputs(
    model: Transformer,
    tokenizer: Tokenizer,
    sources: Sequence[str],
    outputs_ids: Sequence[Sequence[int]],
    *,
    layers: Sequence[int] | None = DEFAULT_LAYERS,
    batch_size: int = DEFAULT.batch_size,
) -> list[AlignedText]:
    """Word-align each source text with the output ids the model produced (or is forced to) for it,
    from the PyTorch model's cross-attention of ``layers`` (``align_texts``)."""
    def attention(src_ids: list[list[int]], out_ids: list[list[int]]) -> list[Tensor]:
        return [reduce_cross(weights, layers) for weights in cross_attention(model, src_ids, out_ids, batch_size=batch_size)]

    return align_texts(tokenizer, sources, outputs_ids, attention)


# (source piece ids, output piece ids) of each pair -> its cross-attention (T + 1, S + 1), reduced
CrossAttention = Callable[[list[list[int]], list[list[int]]], list[Tensor]]


def align_texts(tokenizer: Tokenizer, sources: Sequence[str], outputs_ids: Sequence[Sequence[int]],
                attention: CrossAttention) -> list[AlignedText]:
    """Word-align each source text with its output ids by ``attention``, whichever engine reads it
    (``align_outputs``: PyTorch; ``CT2Translator.align``: CTranslate2). ``source`` is kept exactly
    as given: its word spans are mapped back through ``normalize``."""
    if len(sources) != len(outputs_ids):
        raise ValueError(f"{len(sources)!r} sources but {len(outputs_ids)!r} outputs")
    src = [source_words(tokenizer, text) for text in sources]
    tgt = [target_words(tokenizer, ids) for ids in outputs_ids]
    todo = [i for i, (ids, _, _) in enumerate(src) if ids and outputs_ids[i]]
    cross = attention([src[i][0] for i in todo], [list(outputs_ids[i]) for i in todo]) if todo else []
    result = [AlignedText(source=text, target=t[0], source_words=s[1], target_words=t[1])
              for text, s, t in zip(sources, src, tgt)]
    for i, weights in zip(todo, cross):
        result[i].links = align_words(
            weights, src[i][2], tgt[i][2],
            src_pieces=tokenizer.pieces(src[i][0]), tgt_pieces=tokenizer.pieces(outputs_ids[i]),
            symbols=tokenizer.user_symbols)
    return result
