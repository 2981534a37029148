"""Word alignment: words from pieces, links from attention, Translator.translate_aligned, bench/alignment.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from model.inference.alignment import (AlignedText, align_words, reduce_cross, single_layer, source_words, target_words,
                             word_attention, word_spans)
from model.search.options import SearchOptions
from model.network.tokenizer import Tokenizer, training_sentences
from model.inference.translator import Translator
from tests.conftest import ROOT, read_pairs40

GOLD = ROOT / "tests" / "data" / "alignment_gold.tsv"
SYMBOLS = ("⦅N1⦆", "⦅X3⦆")


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    """A 200-piece vocabulary of the 40 pairs with two placeholders: most words are several pieces."""
    return Tokenizer.train(training_sentences(read_pairs40()), 200, user_defined_symbols=SYMBOLS)


@pytest.fixture(scope="module")
def translator(tiny_checkpoint) -> Translator:
    return Translator.from_checkpoint(tiny_checkpoint, device="cpu")


def words(text: str, spans) -> list[str]:
    return [text[a:b] for a, b in spans]


# ---------------------------------------------------------------------------------------- words

def test_word_spans_from_pieces():
    text = "Ich heiße ⦅N1⦆, 😀!"
    pieces = ["▁Ich", "▁hei", "ße", "▁", "⦅N1⦆", ",", "▁😀", "!"]
    offsets = [(0, 3), (3, 7), (7, 9), (9, 10), (10, 14), (14, 15), (15, 17), (17, 18)]
    spans, piece_word = word_spans(text, pieces, offsets, {"⦅N1⦆"})
    assert spans == [(0, 3), (4, 9), (10, 14), (14, 15), (16, 17), (17, 18)]
    assert piece_word == [0, 1, 1, -1, 2, 3, 4, 5]


def test_word_spans_needs_one_offset_per_piece():
    with pytest.raises(ValueError, match=r"^2 pieces but 1 offsets$"):
        word_spans("ab", ["▁a", "b"], [(0, 1)])


def test_source_words_umlauts_eszett_emoji_placeholders(tokenizer):
    text = "Die Straße ist schön, oder? 😀 ⦅N1⦆ Grüße!"
    ids, spans, piece_word = source_words(tokenizer, text)
    assert ids == tokenizer.encode(text)
    assert spans == [(0, 3), (4, 10), (11, 14), (15, 20), (20, 21), (22, 26), (26, 27), (28, 29), (30, 34),
                     (35, 40), (40, 41)]
    assert words(text, spans) == ["Die", "Straße", "ist", "schön", ",", "oder", "?", "😀", "⦅N1⦆", "Grüße", "!"]
    assert len(piece_word) == len(ids)
    # Lone "▁" pieces (before the emoji, the placeholder and "oder" in this vocabulary) are no word.
    pieces = tokenizer.pieces(ids)
    assert [w for p, w in zip(pieces, piece_word) if p == "▁"] == [-1, -1, -1]
    assert piece_word[pieces.index("⦅N1⦆")] == 8


def test_source_words_punctuation_inside_words(tokenizer):
    text = "Größe:⦅X3⦆km/h (ungefähr) «Tschüß»"
    _, spans, _ = source_words(tokenizer, text)
    assert words(text, spans) == ["Größe", ":", "⦅X3⦆", "km", "/", "h", "(", "ungefähr", ")", "«", "Tschüß", "»"]


def test_source_spans_index_the_text_before_normalization(tokenizer):
    # normalize() strips, collapses whitespace and composes a + U+0308 to ä; the spans are in the input.
    text = " Ha\u0308user  sind\tschön. "
    ids, spans, _ = source_words(tokenizer, text)
    assert ids == tokenizer.encode("Häuser sind schön.")
    assert spans == [(1, 8), (10, 14), (15, 20), (20, 21)]
    assert words(text, spans) == ["Ha\u0308user", "sind", "schön", "."]


def test_target_words_follow_the_decoded_text(tokenizer):
    ids = tokenizer.encode("I am ⦅N1⦆, ok! Grüße")
    text, spans, piece_word = target_words(tokenizer, ids)
    assert text == tokenizer.decode(ids)
    assert words(text, spans)[:3] == ["I", "am", "⦅N1⦆"]
    assert words(text, spans)[-1] == "Grüße"
    assert len(piece_word) == len(ids) and max(piece_word) == len(spans) - 1


# ---------------------------------------------------------------------------------------- links

def attention(rows: list[list[float]]) -> torch.Tensor:
    return torch.tensor(rows)


# Source: word 0 = pieces 0-1, word 1 = piece 2, word 2 = piece 3, then EOS.
# Target: word 0 = piece 0, word 1 = pieces 1-2, word 2 = piece 3, then EOS.
SRC_PW, TGT_PW = [0, 0, 1, 2], [0, 1, 1, 2]
CROSS = attention([
    [0.3, 0.3, 0.3, 0.0, 0.1],   # word 0 -> source 0 (0.6: its two pieces add up)
    [0.0, 0.0, 0.2, 0.7, 0.1],   # word 1 = mean of these two rows: source 2 (0.5) beats source 1 (0.4)
    [0.0, 0.0, 0.6, 0.3, 0.1],
    [0.0, 0.0, 0.0, 0.1, 0.9],   # word 2: nearly all on EOS, which does not count -> source 2
    [0.2, 0.2, 0.2, 0.2, 0.2],   # the EOS step, never a word
])


def test_word_attention_sums_source_pieces_and_averages_target_pieces():
    expected = torch.tensor([[0.6, 0.3, 0.0], [0.0, 0.4, 0.5], [0.0, 0.0, 0.1]])
    assert torch.allclose(word_attention(CROSS, SRC_PW, TGT_PW), expected)


def test_align_words_forward_links_every_target_word():
    assert align_words(CROSS, SRC_PW, TGT_PW, bidirectional=False) == [(0, 0), (1, 2), (2, 2)]


def test_align_words_bidirectional_adds_each_source_words_best_target():
    # Source 1 gets most from target word 1 (0.4); source 0 -> 0 and source 2 -> 1 are there already.
    assert align_words(CROSS, SRC_PW, TGT_PW) == [(0, 0), (1, 1), (1, 2), (2, 2)]


def test_align_words_links_identical_placeholders_whatever_the_attention():
    src_pieces, tgt_pieces = ["▁A", "b", "⦅N1⦆", "⦅N1⦆"], ["▁x", "⦅N1⦆", "▁", "⦅N1⦆"]
    src_pw, tgt_pw = [0, 0, 1, 2], [0, 1, -1, 2]
    cross = attention([
        [0.9, 0.0, 0.0, 0.0, 0.1],
        [0.9, 0.0, 0.0, 0.0, 0.1],   # attention says source 0; the twin rule says source 1
        [0.0, 0.0, 0.9, 0.0, 0.1],
        [0.0, 0.0, 0.9, 0.0, 0.1],   # the second ⦅N1⦆ of the output goes to the second one
        [0.2, 0.2, 0.2, 0.2, 0.2],
    ])
    links = align_words(cross, src_pw, tgt_pw, src_pieces=src_pieces, tgt_pieces=tgt_pieces,
                        symbols={"⦅N1⦆"}, bidirectional=False)
    assert links == [(0, 0), (1, 1), (2, 2)]
    assert align_words(cross, src_pw, tgt_pw, bidirectional=False) == [(0, 0), (1, 0), (2, 1)]


def test_align_words_without_output_words():
    assert align_words(attention([[0.5, 0.5]]), [0], []) == []


@pytest.mark.parametrize("shape", [(5, 4), (4, 5), (5, 5, 1)])
def test_align_words_refuses_a_wrong_shape(shape):
    with pytest.raises(ValueError) as err:
        align_words(torch.zeros(shape), SRC_PW, TGT_PW)
    assert str(err.value) == ("cross-attention must be (T + 1, S + 1) = (5, 5) for 4 target and 4 source pieces, "
                              f"got {shape!r}")


@pytest.mark.parametrize("decoder_layers, layer", [(6, 4), (3, 1), (2, 0), (1, 0)])
def test_single_layer_is_the_second_from_the_top_where_there_is_one(decoder_layers, layer):
    assert single_layer(decoder_layers) == layer


def test_reduce_cross_means_layers_and_heads():
    cross = torch.arange(2 * 3 * 1 * 1, dtype=torch.float).view(2, 3, 1, 1)  # layer 0: 0 1 2, layer 1: 3 4 5
    assert reduce_cross(cross).item() == 2.5
    assert reduce_cross(cross, [-1]).item() == 4.0
    assert reduce_cross(cross, [0], [0, 2]).item() == 1.0


@pytest.mark.parametrize("layers, heads, message", [
    ([2], None, "decoder layer must be in [-2, 2), got 2"),
    ([-3], None, "decoder layer must be in [-2, 2), got -3"),
    ([0], [3], "head must be in [0, 3), got 3"),
])
def test_reduce_cross_refuses_bad_layers_and_heads(layers, heads, message):
    with pytest.raises(ValueError) as err:
        reduce_cross(torch.zeros(2, 3, 1, 1), layers, heads)
    assert str(err.value) == message


# ----------------------------------------------------------------------------------- translator

def test_translate_aligned_invariants(translator, pairs40):
    texts = [de for de, _ in pairs40] + ["", "  Ich   liebe\tMusik. "]
    aligned = translator.translate_aligned(texts, SearchOptions(batch_size=7))
    assert [a.target for a in aligned] == translator.translate(texts)
    assert [a.source for a in aligned] == texts
    assert aligned[-2] == AlignedText(source="", target="")
    for a in aligned[:-2] + aligned[-1:]:
        assert a.source_words and a.target_words
        assert a.links == sorted(set(a.links))
        assert all(0 <= t < len(a.target_words) and 0 <= s < len(a.source_words) for t, s in a.links)
        assert {t for t, _ in a.links} == set(range(len(a.target_words)))  # every output word is linked
        assert {s for _, s in a.links} == set(range(len(a.source_words)))  # and every source word
        assert all(a.source[x:y].strip() == a.source[x:y] != "" for x, y in a.source_words)


@pytest.mark.parametrize("german, pairs", [
    ("Ich liebe Musik.", {("I", "Ich"), ("love", "liebe"), ("music", "Musik")}),
    ("Ich bin müde.", {("I", "Ich"), ("tired", "müde")}),  # "am": too weak a signal in 40 pairs
    ("  Ich   liebe\tMusik. ", {("I", "Ich"), ("love", "liebe"), ("music", "Musik")}),
])
def test_translate_aligned_links_known_word_pairs(translator, german, pairs):
    a = translator.translate_aligned([german])[0]
    linked = {(a.target[slice(*a.target_words[t])], a.source[slice(*a.source_words[s])]) for t, s in a.links}
    assert pairs <= linked


def test_align_given_output_equals_translate_aligned(translator):
    text = "Die Sonne scheint."
    own = translator.translate_aligned([text])[0]
    forced = translator.align([text], [translator.tokenizer.encode(own.target)])[0]
    assert forced == own


def test_beam_search_output_is_aligned_too(translator):
    text = "Wo ist mein Schlüssel?"
    a = translator.translate_aligned([text], SearchOptions(beam_size=3))[0]
    assert a.target == translator.translate([text], SearchOptions(beam_size=3))[0]
    assert a.links


@pytest.mark.parametrize("method", ["translate", "translate_aligned", "translate_n_best", "align"])
def test_overlong_input_is_refused(translator, method):
    long = "Ich " * 200
    n = len(translator.tokenizer.encode(long))
    assert n > 255
    call = getattr(translator, method)
    with pytest.raises(ValueError) as err:
        if method == "align":
            call(["Hallo.", long], [[], []])
        else:
            call(["Hallo.", long], SearchOptions(beam_size=4))
    assert str(err.value) == f"text 1 has {n!r} pieces, but the model takes at most 255 pieces per text: split it first"


# ---------------------------------------------------------------------------------------- bench

def run_bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "bench/alignment.py", "--threads", "1", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_bench_scores_every_layer_and_head(tiny_checkpoint, tmp_path):
    report = tmp_path / "alignment.json"
    proc = run_bench("--checkpoint", str(tiny_checkpoint), "--gold", str(GOLD), "--json", str(report))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("alignment of 35 gold sentences (257 sure, 40 possible links); ")
    assert lines[1].split() == ["variant", "precision", "recall", "F1", "AER", "forward", "only:", "F1", "AER"]
    rows = json.loads(report.read_text())["rows"]
    names = [r["variant"] for r in rows]
    assert names == ["layer 0", "layer 1"] + [f"layer {l} head {h}" for l in (0, 1) for h in range(4)] + [
        "all layers", "default: all layers"]
    assert len(lines) == 2 + len(rows)
    for r in rows:
        assert 0.0 <= r["precision"] <= 1.0 and 0.0 <= r["recall"] <= 1.0 and 0.0 <= r["aer"] <= 1.0
    assert rows[-1] == {**rows[-2], "variant": "default: all layers"}


@pytest.mark.parametrize("line, message", [
    ("Hallo.\tHello.", "expected 3 tab-separated fields, got 2"),
    ("Hallo.\tHello.\t0-0 1-2", "bad link '1-2' (2 target, 2 source words)"),
    ("Hallo.\tHello.\t0:0", "bad link '0:0' (2 target, 2 source words)"),
])
def test_bench_refuses_a_malformed_gold_file(tmp_path, line, message):
    gold = tmp_path / "gold.tsv"
    gold.write_text("# comment\n" + line + "\n", encoding="utf-8")
    proc = run_bench("--gold", str(gold))
    assert proc.returncode == 2
    assert proc.stderr == f"bench/alignment.py: error: {gold}:2: {message}\n"
