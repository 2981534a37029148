"""The translation inspector's model side: how sure the model was of each word, and what it would
say after a prefix the user chose. Free functions on a model and its tokenizer; no text pipeline.

Word confidence (``word_confidences`` over ``model.search.scoring.teacher_force``): one teacher-forced pass over the output
gives log P(piece | source, pieces before it) for every output piece, the same numbers the search
saw at each step (eval mode; cached and uncached decoding agree). A word's confidence is the
**product** of its pieces' probabilities, i.e. the probability of spelling exactly that word given
everything before it; a mean would rate "station" split into three likely pieces as high as a sure
one-piece word. (It leaves out the probability that the word ends there.) Words are those of
``alignment.target_words``: pieces merged, punctuation a word of its own, a lone "▁" in none.

Completion (``plan_prefix``, ``complete``): the English prefix is forced, and it may end inside a
word ("The we"). SentencePiece encodes each whitespace-separated word on its own, so the complete
words' pieces are exactly those of the full text and are forced as they are. The last, partial
word is not forced as pieces (its encoding, "▁we", is rarely how "▁weather" starts), but as text:
the pieces after the forced ones must spell a string that starts with it (``PrefixPlan.rest``, in
piece notation: "▁we"). ``next_words`` searches those piece sequences (each piece either covers
what is left of ``rest`` or is a proper prefix of it) and finishes each word greedily (while the
model's best next piece continues it); the ``n`` most probable distinct words are forced too and
completed by one batched beam search (``decoding.beam_search(forced_prefix=...)``), whose
``n_best`` hypotheses per next word are kept (distinct texts, best first). A prefix that ends with a
space has a complete last word: ``rest`` is "▁", so the next piece must start a new word. Scores
are beam search's: the log-probability of the whole output, forced pieces included, divided by the
GNMT length penalty.

A source word translated twice (``retranslations``): the model reads a forced word as something it
wrote, but its attention never rested on the source word that word translates, so it often says
that word again later ("Yesterday I lost my key yesterday." for "Ich habe gestern meinen
Schlüssel verloren."). A completion is left out when a word after the forced pieces is a forced
word again (casefolded) and both translate the same source word: for the later word, which the
model chose, its attention says which (``attention_sources``); for the forced one, occlusion
(``occlusion_sources``: the source word that, seen alone, makes the word likeliest; the
cross-attention of a forced first word rests on the first source word whatever it translates,
so attention cannot tell). The next word's search is then run again with those words
banned after the forced pieces (``beam_search(banned=...)``): the rest re-decoded without them.
Only the same word counts: a phrase that translates one source word across the prefix's end ("got"
+ "up" for "aufgestanden") is a translation, not a repeat.
"""

from __future__ import annotations

import bisect
import difflib
import math
import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace

import torch

from model.inference.alignment import (
    DEFAULT_LAYERS, Range, is_punctuation, reduce_cross, target_words, word_attention)
from model.network.batch import Batch
from model.search.decoding import Hypothesis, beam_search
from model.search.incremental import IncrementalDecoder
from model.search.options import SearchOptions
from model.search.scoring import cross_attention, piece_logp
from model.network.tokenizer import BOS_ID, UNK_ID, Tokenizer
from model.network.transformer import Transformer

WORD_START = "▁"
FIRST_ID = 4  # ids below are PAD, UNK, BOS, EOS: never part of a completion's spelling
NEXT_WORD_PIECES = 8  # most probable pieces read per next word asked (``PieceIndex.next_words``):
                      # some of them go on with the prefix's last word instead


# ------------------------------------------------------------------------------- confidence

def word_confidences(tokenizer: Tokenizer, ids: Sequence[int], logprobs: Sequence[float],
                     ) -> tuple[str, list[Range], list[float]]:
    """The decoded text of output ``ids``, its words and each word's probability (the product of
    its pieces' probabilities, from ``logprobs``: one per id)."""
    if len(ids) != len(logprobs):
        raise ValueError(f"{len(ids)!r} pieces but {len(logprobs)!r} log-probabilities")
    text, words, piece_word = target_words(tokenizer, ids)
    sums = [0.0] * len(words)
    for word, logprob in zip(piece_word, logprobs):
        if word >= 0:
            sums[word] += logprob
    return text, words, [math.exp(s) for s in sums]


def follow_confidences(model_words: Sequence[str], confidences: Sequence[float], final_words: Sequence[str],
                       default: float = 1.0) -> list[float]:
    """Confidences for ``final_words``, an output after edits that keep most words (casing, spans
    restored, a placeholder put back or removed, a full stop changed): position by position when
    the counts agree, else by matching the casefolded words (difflib); a final word that no model
    word stands behind gets ``default``. ``model_words`` should already have spans restored."""
    if len(model_words) != len(confidences):
        raise ValueError(f"{len(model_words)!r} words but {len(confidences)!r} confidences")
    if len(model_words) == len(final_words):
        return list(confidences)
    result = [default] * len(final_words)
    matcher = difflib.SequenceMatcher(None, [w.casefold() for w in model_words],
                                      [w.casefold() for w in final_words], autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and a1 - a0 == b1 - b0):
            result[b0:b1] = confidences[a0:a1]
    return result


def nfc_spans_in(text: str, spans: Sequence[Range]) -> list[Range]:
    """Character spans in ``NFC(text)`` (the text pipeline's coordinates) as spans in ``text`` as
    given, for a caller that highlights words in what the user typed (a decomposed "ü" is two
    characters there)."""
    if unicodedata.is_normalized("NFC", text):
        return [tuple(span) for span in spans]
    origin: list[Range] = []  # for each NFC character, the original characters it comes from
    i = 0
    while i < len(text):
        j = i + 1
        while j < len(text) and unicodedata.combining(text[j]):
            j += 1
        origin += [(i, j)] * len(unicodedata.normalize("NFC", text[i:j]))
        i = j
    if len(origin) != len(unicodedata.normalize("NFC", text)):  # composition across clusters (Hangul jamo)
        return [tuple(span) for span in spans]
    return [(origin[s][0], origin[e - 1][1]) for s, e in spans]


# ------------------------------------------------------------------------------- completion

class PieceIndex:
    """The vocabulary's pieces in sorted order, to find the pieces that start with a string or are
    a prefix of it without scanning all of them at every step."""

    def __init__(self, tokenizer: Tokenizer):
        self.pieces = tokenizer.pieces(range(tokenizer.vocab_size))  # by id
        # Pieces that are a word on their own (alignment.word_spans): placeholders, punctuation.
        self.alone = [p in tokenizer.user_symbols or is_punctuation(p.lstrip(WORD_START)) for p in self.pieces]
        pairs = sorted((piece, i) for i, piece in enumerate(self.pieces) if i >= FIRST_ID)
        self.strings = [piece for piece, _ in pairs]
        self.ids = torch.tensor([i for _, i in pairs], dtype=torch.long)
        self.by_string = {piece: i for piece, i in pairs}

    def starting_with(self, text: str) -> torch.Tensor:
        """Ids of the pieces that start with ``text`` (all of them for "")."""
        lo = bisect.bisect_left(self.strings, text)
        hi = bisect.bisect_left(self.strings, text + "\U0010ffff", lo)
        return self.ids[lo:hi]

    def starts_word(self, piece: int) -> bool:
        """Whether ``piece`` begins a new word after any other (``alignment.word_spans``'s rule):
        it starts with "▁" or is a word on its own; PAD, UNK, BOS and EOS do not."""
        return piece >= FIRST_ID and (self.pieces[piece].startswith(WORD_START) or self.alone[piece])

    def next_words(self, ranked: Iterable[int], n: int) -> list[int]:
        """The first ``n`` of the ``ranked`` piece ids (most probable first) that begin a new word;
        a caller reads ``NEXT_WORD_PIECES`` * ``n`` of them at most."""
        found: list[int] = []
        for piece in ranked:
            if len(found) == n:
                break
            if self.starts_word(piece):
                found.append(piece)
        return found

    def prefixes_of(self, text: str) -> list[tuple[int, str]]:
        """(id, what is left of ``text``) for every piece that is a proper, non-empty prefix of it."""
        return [(self.by_string[text[:k]], text[k:]) for k in range(1, len(text)) if text[:k] in self.by_string]


class UnwritablePrefix(ValueError):
    """The prefix holds characters the vocabulary lacks; ``characters`` lists them."""

    def __init__(self, characters: str):
        super().__init__(f"the vocabulary cannot write {characters!r}")
        self.characters = characters


@dataclass(frozen=True)
class PrefixPlan:
    forced: list[int]   # pieces of the prefix's complete words
    rest: str           # what the next pieces must spell, in piece notation ("▁we"; "▁": a new word)
    text: str           # the prefix as the model writes it: every completion's decoded text starts so
    word_start: int     # where the first word after the forced pieces starts in the decoded text


def normalize_prefix(prefix: str) -> str:
    """Whitespace runs become one space and leading space goes; a trailing space stays (it says the
    last word is complete)."""
    words = prefix.split()
    return " ".join(words) + (" " if words and prefix[-1:].isspace() else "")


def slots_as_placeholders(prefix: str, slots: dict[str, str]) -> str:
    """``prefix`` with each slot's text (``{"⦅N1⦆": "1,450"}``: a span of the source as the
    translation shows it) written as its placeholder again where it stands as a word of its own,
    so that a prefix that repeats a number or URL of the source forces the placeholder the model
    copies. Longer texts first, so "1,450" is not read as "1"."""
    for symbol, value in sorted(slots.items(), key=lambda item: -len(item[1])):
        if value:
            # Not inside a longer word or number: "1" is not the start of "1,4501".
            prefix = re.sub(rf"(?<!\w)(?<!\d[.,]){re.escape(value)}(?!\w|[.,]\d)", symbol, prefix)
    return prefix


def unwritable(tokenizer: Tokenizer, text: str) -> str:
    """The characters of ``text`` the vocabulary lacks (each once, in order of appearance)."""
    return "".join(c for c in dict.fromkeys(text) if not c.isspace() and UNK_ID in tokenizer.encode(c))


def plan_prefix(tokenizer: Tokenizer, prefix: str) -> PrefixPlan:
    """How to force a ``normalize_prefix``-ed prefix: raises ``UnwritablePrefix`` for characters
    the vocabulary lacks."""
    if prefix != normalize_prefix(prefix):
        raise ValueError(f"prefix must be whitespace-normalized (normalize_prefix), got {prefix!r}")
    complete, _, partial = prefix.rpartition(" ")
    forced = tokenizer.encode(complete) if complete else []
    partial_ids = tokenizer.encode(partial) if partial else []
    if UNK_ID in forced or UNK_ID in partial_ids:
        raise UnwritablePrefix(unwritable(tokenizer, prefix))
    rest = "".join(tokenizer.pieces(partial_ids)) or WORD_START
    start = len(tokenizer.decode(forced)) + 1 if forced else 0
    text = tokenizer.decode(forced + partial_ids) + (" " if forced and not partial_ids else "")
    return PrefixPlan(forced, rest, text, start)


class _Decoder:
    """Incremental decoding of a tree of outputs that all start with the same forced pieces, for
    one source: the source is encoded and the forced pieces decoded once (``IncrementalDecoder.
    prefill``), then every step feeds one new piece per row, rows following their parents."""

    def __init__(self, model: Transformer, src_ids: Sequence[int], forced: Sequence[int]):
        self.device = next(model.parameters()).device
        batch = Batch.make([src_ids], device=self.device)
        self.decoder = IncrementalDecoder(model, model.encode(batch.src, batch.src_mask), batch.src_mask)
        tgt_in = torch.tensor([[BOS_ID, *forced]], device=self.device)  # (1, P + 1)
        self.first = self.decoder.prefill(tgt_in)[:, -1].cpu()  # (1, V) after the forced pieces

    def step(self, parents: Sequence[int], pieces: Sequence[int]) -> torch.Tensor:
        """Row i becomes row ``parents[i]`` + ``pieces[i]``; returns the (R, V) next-piece log-probs."""
        self.decoder.select(torch.tensor(list(parents), device=self.device))  # (R,)
        return self.decoder(torch.tensor([[p] for p in pieces], device=self.device)).cpu()  # (R, V)


FINISH_STEPS = 4  # most pieces a word is extended by after it has spelled the partial word
SEARCHES = 3  # searches per next word at most: the first, and again with what it said twice banned


def next_words(decoder: _Decoder, plan: PrefixPlan, index: PieceIndex, count: int,
               room: int | None = None) -> list[tuple[list[int], float]]:
    """Up to ``count`` piece sequences that, after ``plan.forced``, write a next word: they spell
    ``plan.rest`` (each piece covers what is left of it or is a proper prefix of it), then go on
    greedily while the model's most probable piece continues the word (as ``alignment.word_spans``
    joins pieces), at most ``FINISH_STEPS`` pieces. Each comes with its log-probability (forced
    pieces left out: the same for all), most probable first. A best-first search with at most
    ``count`` open rows: a sequence only loses probability as it grows, so rows below the
    ``count``-th finished word are dropped. ``room``: most pieces after the forced ones (the
    model's length limit); a word that needs more is not found."""
    finished: list[tuple[list[int], float]] = []
    rows: list[tuple[list[int], float, str | None]] = [([], 0.0, plan.rest)]  # rest None: spelled, finishing
    logp = decoder.first
    steps = len(plan.rest) + FINISH_STEPS  # every piece spells at least one character
    for _ in range(steps if room is None else min(steps, room)):
        grown: list[tuple[int, int, float, str | None]] = []  # parent row, piece, score, rest
        for row, (tokens, score, rest) in enumerate(rows):
            if rest is None:
                lp, best = logp[row].max(dim=-1)
                if _continues(index, tokens[-1], int(best)):
                    grown.append((row, int(best), score + float(lp), None))
                else:
                    finished.append((tokens, score))
                continue
            ids = index.starting_with(rest)
            if ids.numel():
                best_lp, where = logp[row, ids].topk(min(count, ids.numel()))
                grown += [(row, int(ids[w]), score + float(b), None) for b, w in zip(best_lp, where)]
            grown += [(row, i, score + float(logp[row, i]), left) for i, left in index.prefixes_of(rest)]
        finished = sorted(finished, key=lambda f: -f[1])[:count]
        floor = finished[-1][1] if len(finished) == count else float("-inf")
        grown = sorted((g for g in grown if g[2] > floor and math.isfinite(g[2])), key=lambda g: -g[2])[:count]
        if not grown:
            break
        logp = decoder.step([g[0] for g in grown], [g[1] for g in grown])
        rows = [(rows[parent][0] + [piece], score, rest) for parent, piece, score, rest in grown]
    else:  # out of steps: words still growing count as they are, spelling ones not at all
        finished += [(tokens, score) for tokens, score, rest in rows if rest is None]
    return sorted(finished, key=lambda f: -f[1])[:count]


def _continues(index: PieceIndex, last: int, nxt: int) -> bool:
    """Does piece ``nxt`` continue the word that piece ``last`` ends (alignment.word_spans's rule)?"""
    return nxt >= FIRST_ID and not index.starts_word(nxt) and not index.alone[last]


@dataclass
class Completion:
    tokens: list[int]  # every output piece, the forced ones included
    text: str          # decoded; starts with the plan's ``text``
    word: str          # the first word after the forced pieces (the completed partial word)
    score: float       # log-probability of the whole output / GNMT length penalty, as beam_search's


@torch.inference_mode()
def complete(model: Transformer, tokenizer: Tokenizer, src_ids: Sequence[int], plan: PrefixPlan, index: PieceIndex,
             search: SearchOptions, *, n: int, candidates: int | None = None) -> list[Completion]:
    """Completions of ``plan`` for up to ``n`` distinct next words, up to ``search.n_best`` (at
    most its ``beam_size``) for each, best score first; none that translates a source word again
    (``retranslations``).

    ``candidates`` (default 2n) next words are found (``next_words``; several can be the same word:
    "▁we" + "ather" and "▁weather"); the ``n`` most probable distinct ones are forced too and
    completed by one batched beam search; a word whose completions wrote a forced word again for
    its source word is searched again with those words banned after it, up to ``SEARCHES`` times
    in all, and what was kept before is checked again against what turned out translated."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    words: dict[str, tuple[list[int], float]] = {}
    room = model.config.max_len - 2 - len(plan.forced)  # beam_search's most forced pieces, less the prefix's
    for tokens, score in next_words(_Decoder(model, src_ids, plan.forced), plan, index, candidates or 2 * n, room):
        key = _next_word(tokenizer, plan, tokens)
        if key not in words or score > words[key][1]:
            words[key] = (tokens, score)
    forced = [plan.forced + tokens for tokens, _ in sorted(words.values(), key=lambda w: -w[1])[:n]]
    if not forced:
        return []

    every = replace(search, n_best=search.beam_size)  # each row's every ended hypothesis

    def run(rows: list[int], banned: list[list[int]] | None) -> list[list[Hypothesis]]:
        batch = Batch.make([list(src_ids)] * len(rows), device=next(model.parameters()).device)
        return beam_search(model, batch, every, forced_prefix=[forced[r] for r in rows], banned=banned)

    pool: list[list[Hypothesis]] = [[] for _ in forced]
    covered: list[set[int]] = [set() for _ in forced]  # per row: source words its forced pieces translate
    banned: list[set[str]] = [set() for _ in forced]   # per row: forced words written again, banned after them
    rows = list(range(len(forced)))
    for _ in range(SEARCHES):
        found = run(rows, [banned_pieces(tokenizer, banned[r]) for r in rows] if any(banned) else None)
        again = iter(retranslations(model, tokenizer, src_ids,
                                    [(h.tokens, len(forced[r]), covered[r]) for r, hyps in zip(rows, found) for h in hyps]))
        redo = []
        for r, hyps in zip(rows, found):
            before = set(banned[r])
            for h in hyps:
                sources, repeated = next(again)
                if not sources:
                    pool[r].append(h)
                covered[r] |= set(sources)
                banned[r] |= repeated
            if banned[r] != before:  # a word said twice: the rest again without it
                redo.append(r)
        if not redo:
            break
        rows = redo
    # What a row kept before a later search showed what its forced pieces translate, checked again.
    late = [(r, h) for r, hyps in enumerate(pool) if covered[r] for h in hyps]
    if late:
        again = retranslations(model, tokenizer, src_ids, [(h.tokens, len(forced[r]), covered[r]) for r, h in late])
        drop = {id(h) for (_, h), (sources, _) in zip(late, again) if sources}
        pool = [[h for h in hyps if id(h) not in drop] for hyps in pool]
    # Grouped by the word each row's best writes after the prefix: beam search may still grow a
    # forced word ("▁we" + "ather" and "▁weather" are two rows of one word).
    by_word: dict[str, dict[str, Completion]] = {}
    for hyps in pool:
        texts = None
        for h in sorted(hyps, key=lambda h: -h.score):
            text = tokenizer.decode(h.tokens)
            if not text.startswith(plan.text):  # cannot happen with the constraints; never return a wrong start
                continue
            word = _next_word(tokenizer, plan, h.tokens[len(plan.forced):])
            texts = by_word.setdefault(word, {}) if texts is None else texts
            if text not in texts or h.score > texts[text].score:
                texts[text] = Completion(h.tokens, text, word, h.score)
    found = [c for texts in by_word.values() for c in sorted(texts.values(), key=lambda c: -c.score)[:search.n_best]]
    return sorted(found, key=lambda c: -c.score)


# ------------------------------------------------------------------ a source word translated again

@torch.inference_mode()
def occlusion_sources(model: Transformer, tokenizer: Tokenizer, src_ids: Sequence[int],
                      outputs: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[list[int]]:
    """For each (output ids, word indices) the source word each of those output words translates
    (words as ``alignment.target_words`` finds them, on both sides), by occlusion: the one that,
    left alone in the decoder's view of the source (its cross-attention sees that word and the
    source's end only), raises the model's log-probability of the word's pieces most over seeing
    none; -1 where no word raises it. Alone, not hidden one at a time: hiding "Ich" makes any first
    word but "I" likelier, which drowns what hiding "jetzt" does to "Now". The source is encoded
    once; each output is read up to the last word asked about (the decoder reads nothing after a
    piece), once per source word and once seeing none."""
    _, source_words, src_piece_word = target_words(tokenizer, src_ids)
    alone = [[i for i, w in enumerate(src_piece_word) if w == k] for k in range(len(source_words))]
    rows = len(alone) + 1  # per output: seeing no word, then each word alone
    asked: list[tuple[list[list[int]], list[int]]] = []  # per output: each word's pieces, what is read
    for ids, words in outputs:
        piece_word = target_words(tokenizer, ids)[2]
        pieces = [[i for i, w in enumerate(piece_word) if w == j] for j in words]
        asked.append((pieces, list(ids[:max((p[-1] + 1 for p in pieces if p), default=0)])))
    todo = [k for k, (_, read) in enumerate(asked) if read]
    result = [[-1] * len(words) for _, words in outputs]
    if not todo or not alone:
        return result
    device = next(model.parameters()).device
    batch = Batch.make([list(src_ids)] * (rows * len(todo)), [asked[k][1] for k in todo for _ in range(rows)],
                       device=device)
    src_mask = torch.zeros_like(batch.src_mask)  # (R, 1, 1, S + 1): True where the decoder may attend
    src_mask[..., len(src_ids)] = True  # the source's end (EOS), so that no row attends to nothing
    for t in range(len(todo)):
        for k, at in enumerate(alone):
            src_mask[t * rows + k + 1, 0, 0, at] = True
    memory = model.encode(batch.src[:1], batch.src_mask[:1]).expand(batch.src.size(0), -1, -1)  # (R, S + 1, D)
    logits = model.decode(batch.tgt_in, memory, src_mask, batch.tgt_mask)  # (R, T, V)
    logp = piece_logp(logits).gather(2, batch.tgt_out[:, :, None]).squeeze(2).float().cpu()  # (R, T)
    for t, k in enumerate(todo):
        none, each = logp[t * rows], logp[t * rows + 1:(t + 1) * rows]  # (T,), (W, T)
        for j, at in enumerate(asked[k][0]):
            if at:
                gains = (each[:, at] - none[at]).sum(dim=1)  # (W,)
                if float(gains.max()) > 0:
                    result[k][j] = int(gains.argmax())
    return result


@torch.inference_mode()
def attention_sources(model: Transformer, tokenizer: Tokenizer, src_ids: Sequence[int],
                      outputs: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[list[int]]:
    """For each (output ids, word indices) the source word each of those output words gives the
    most attention (``alignment.word_attention`` of the alignment's layers, as its forward links
    are): what a word the model chose itself translates. One teacher-forced pass per distinct
    output, read up to the last word asked about (the decoder reads nothing after a piece)."""
    _, _, src_piece_word = target_words(tokenizer, src_ids)
    reads: dict[tuple[int, ...], int] = {}  # what is read -> its row in the batch
    asked_at: list[tuple[tuple[int, ...], list[int], list[int]]] = []  # per output: its read, its words
    for ids, asked in outputs:
        piece_word = target_words(tokenizer, ids)[2]
        end = max((i + 1 for i, w in enumerate(piece_word) if w in set(asked)), default=0)
        read = tuple(ids[:end])
        reads.setdefault(read, len(reads))
        asked_at.append((read, piece_word[:end], list(asked)))
    crosses = cross_attention(model, [list(src_ids)] * len(reads), [list(read) for read in reads])
    best = {read: word_attention(reduce_cross(cross, DEFAULT_LAYERS), src_piece_word, piece_word).argmax(dim=1)
            for (read, piece_word, _), cross in zip(asked_at, [crosses[reads[r]] for r, _, _ in asked_at])}
    return [[int(best[read][j]) for j in asked] for read, _, asked in asked_at]


def retranslations(model: Transformer, tokenizer: Tokenizer, src_ids: Sequence[int],
                   outputs: Sequence[tuple[Sequence[int], int, Collection[int]]],
                   ) -> list[tuple[dict[int, set[str]], set[str]]]:
    """For each (output ids, how many of them were forced, source words the forced ones are known
    to translate): the source words that words after the forced pieces translate again, each with
    those words as written (empty for an output that says nothing again), and of those words the
    ones that repeat a forced word (what a search may ban: not "in the" of "in the morning"). Said
    again is

    - a later word that repeats a forced word (casefolded: "Yesterday ... yesterday") and
      translates the same source word;
    - any later word that translates a source word the forced ones are known to translate (one
      found so in an earlier search of the same forced pieces: "Tomorrow ... in the morning" once
      "Tomorrow ... tomorrow" showed that "Tomorrow" translates "morgen").

    A forced word's source is found by occlusion (``occlusion_sources``, once per distinct run of
    forced pieces), a later word's, which the model chose, by attention (``attention_sources``).
    Punctuation is no word here; a word that starts among the forced pieces is a forced one. Only
    the same word counts otherwise: "got" + "up" for "aufgestanden" across the prefix's end is one
    translation, not two."""
    pairs: dict[int, list[tuple[int, int]]] = {}  # output -> (forced word, later word) written alike
    later_words: dict[int, list[int]] = {}  # output -> the later words whose source is asked for
    spelled: dict[int, list[str]] = {}  # output -> its words as written
    for k, (ids, forced, covered) in enumerate(outputs):
        text, spans, piece_word = target_words(tokenizer, ids)
        first = [piece_word.index(j) for j in range(len(spans))]  # each word's first piece
        spelled[k] = [text[s:e] for s, e in spans]
        said = [w.casefold() for w in spelled[k]]
        words = [j for j in range(len(spans)) if not is_punctuation(said[j])]
        early = [j for j in words if first[j] < forced]
        later = [j for j in words if first[j] >= forced]
        found = [(p, j) for j in later for p in early if said[p] == said[j]]
        if found:
            pairs[k] = found
        if found or covered:
            later_words[k] = later if covered else sorted({j for _, j in found})
    result: list[tuple[dict[int, set[str]], set[str]]] = [({}, set()) for _ in outputs]
    if not later_words:
        return result
    # A forced word's source depends only on the pieces up to it: read each distinct run once.
    upto: dict[tuple[int, int], tuple[int, ...]] = {}  # (output, forced word) -> the pieces up to its end
    for k, found in pairs.items():
        piece_word = target_words(tokenizer, outputs[k][0])[2]
        for p, _ in found:
            upto[k, p] = tuple(outputs[k][0][:max(i for i, w in enumerate(piece_word) if w == p) + 1])
    runs = {run: p for (_, p), run in upto.items()}  # the pieces -> the forced word they end with
    early_source = {run: found[0] for run, found in zip(runs, occlusion_sources(
        model, tokenizer, src_ids, [(list(run), [p]) for run, p in runs.items()]))}
    asked = list(later_words.items())
    for (k, later), sources in zip(asked, attention_sources(model, tokenizer, src_ids,
                                                            [(outputs[k][0], later) for k, later in asked])):
        source_of = dict(zip(later, sources))
        repeats = [(source_of[j], j) for p, j in pairs.get(k, ()) if early_source[upto[k, p]] == source_of[j]]
        again, repeated = result[k]
        for s, j in [(s, j) for j, s in source_of.items() if s in outputs[k][2]] + repeats:
            again.setdefault(s, set()).add(spelled[k][j])
        repeated |= {spelled[k][j] for _, j in repeats}
    return result


def banned_pieces(tokenizer: Tokenizer, words: Iterable[str]) -> list[int]:
    """The pieces that start ``words`` as a word of their own, in the casings a sentence writes
    them ("yesterday", "Yesterday", "YESTERDAY"): banning them keeps a search from writing them
    that way. A word's first piece may start longer words too ("▁key" in "keyboard"). A form the
    vocabulary starts with a lone "▁" is left alone (banning "▁" or the piece after it would ban
    far more), but for a placeholder ("▁" "⦅N1⦆"), which is one piece."""
    banned: set[int] = set()
    for word in words:
        for form in {word, word.lower(), word.capitalize(), word.upper()}:
            ids = tokenizer.encode(form)
            pieces = tokenizer.pieces(ids)
            if pieces[:1] == [WORD_START]:
                ids = ids[1:2] if pieces[1:2] and pieces[1] in tokenizer.user_symbols else []
            if ids and ids[0] != UNK_ID:
                banned.add(ids[0])
    return sorted(banned)


def _next_word(tokenizer: Tokenizer, plan: PrefixPlan, tokens: Sequence[int]) -> str:
    """The first word that ``tokens`` (the pieces after the forced ones) write."""
    text, words, _ = target_words(tokenizer, plan.forced + list(tokens))
    return next((text[s:e] for s, e in words if s >= plan.word_start), "")
