"""model/explain.py, model/beamtrace.py and beam_search's forced prefix and recorder: word
confidences by teacher forcing, prefix-constrained completion, the beam search trace.

Most tests use the tiny model trained on the 40 pairs (tests/conftest.py); decoding details use the
pinned models of test_decoding.py, whose outputs can be worked out by hand."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch

from model.network.batch import Batch, causal_mask
from model.search.beamtrace import ROOT_ID, BeamTrace
from model.search.decoding import beam_search
from model.search.options import SearchOptions
from model.search.scoring import teacher_force
from model.inference import explain
from model.inference.alignment import align_outputs, target_words
from model.inference.explain import (
    PieceIndex, PrefixPlan, UnwritablePrefix, attention_sources, banned_pieces, complete, follow_confidences,
    nfc_spans_in, normalize_prefix, occlusion_sources, plan_prefix, retranslations, slots_as_placeholders,
    word_confidences,
)
from model.network.tokenizer import BOS_ID, EOS_ID, PAD_ID
from model.inference.translator import PrefixTooLong, Translator
from tests.model.search.test_decoding import CAP, SRC, pinned_model

SENTENCES = ["Wo ist der Bahnhof?", "Ich liebe Musik.", "Das Wetter ist heute schön.", "Die Katze schläft."]
BEAM = SearchOptions(beam_size=4)  # the searches here, unless a test says otherwise


def beam(model, batch, *, use_cache=True, forced_prefix=None, banned=None, recorder=None, **knobs):
    """``beam_search`` with ``BEAM``'s knobs, those given replaced."""
    return beam_search(model, batch, replace(BEAM, **knobs), use_cache=use_cache, forced_prefix=forced_prefix,
                       banned=banned, recorder=recorder)

def piece_logprobs(model, src_ids, out_ids, **kwargs):
    """Each output's piece log-probabilities, from the one scorer."""
    return [forced.logprobs for forced in teacher_force(model, src_ids, out_ids, **kwargs)]



@pytest.fixture(scope="module")
def translator(tiny_checkpoint) -> Translator:
    return Translator.from_checkpoint(tiny_checkpoint, device="cpu")


def source(translator: Translator, text: str) -> list[int]:
    return translator.tokenizer.encode(text)


# --------------------------------------------------------------------------- forced prefix

def test_forced_prefix_starts_every_hypothesis():
    model = pinned_model(list(range(7, 21)) + [EOS_ID])  # prefers 7, 8, ... and EOS last: loops on 7
    hyps = beam(model, Batch.make(SRC, None), n_best=4, forced_prefix=[[9, 10], [], [12]])
    assert [sentence[0].tokens for sentence in hyps] == [
        [9, 10] + [7] * (CAP[0] - 2),  # the cap, 13 pieces, counts the forced ones
        [7] * CAP[1],
        [12] + [7] * (CAP[2] - 1)]
    assert all(h.tokens[:2] == [9, 10] for h in hyps[0]) and all(h.tokens[0] == 12 for h in hyps[2])
    assert len(hyps[0]) == len(hyps[2]) == 4


def test_forced_prefix_gets_its_model_logprob_and_room():
    """The EOS-preferring model ends right after what is forced; the score is the log-probability of
    the forced pieces and EOS, as the model gives them (no constraint overrides a forced piece: 7 7
    would be a repeated bigram), and 15 forced pieces fit though the source's budget is 12."""
    model = pinned_model([EOS_ID, 7, 8, 9])
    forced = [7, 7, 8, 7, 7] + [9] * 10
    best = beam(model, Batch.make([[5]], None), forced_prefix=[forced], length_penalty=0.0,
                       no_repeat_ngram_size=2)[0][0]
    logp = model.embed.weight[:, 0].detach().log_softmax(dim=0)  # the pinned logits of every step
    assert best.tokens == forced
    assert best.score == pytest.approx(float(logp[forced].sum() + logp[EOS_ID]), abs=1e-4)


def test_forcing_the_search_s_own_choice_changes_nothing(translator):
    for text in SENTENCES:
        batch = Batch.make([source(translator, text)])
        for beam_size in (1, 4):
            best = beam(translator.model, batch, beam_size=beam_size)[0][0]
            for k in range(1, len(best.tokens) + 1):
                again = beam(translator.model, batch, beam_size=beam_size, forced_prefix=[best.tokens[:k]])
                assert again[0][0].tokens == best.tokens
                assert again[0][0].score == pytest.approx(best.score, abs=1e-5)


def test_forced_prefix_prefill_equals_stepping_through_it(translator):
    """The shared forced pieces are decoded in one pass (with the cache); without a cache the search
    steps through them one by one: the same hypotheses and scores."""
    srcs = [source(translator, t) for t in SENTENCES]
    forced = [translator.tokenizer.encode(t) for t in ["Where is the", "I", "The weather is", "The cat"]]
    batch = Batch.make(srcs)
    fast = beam(translator.model, batch, beam_size=3, n_best=3, forced_prefix=forced)
    slow = beam(translator.model, batch, beam_size=3, n_best=3, forced_prefix=forced, use_cache=False)
    assert [[h.tokens for h in hyps] for hyps in fast] == [[h.tokens for h in hyps] for hyps in slow]
    assert [h.score for hyps in fast for h in hyps] == pytest.approx([h.score for hyps in slow for h in hyps], abs=1e-5)
    assert all(h.tokens[:len(f)] == f for hyps, f in zip(fast, forced) for h in hyps)


def test_one_source_with_several_prefixes_equals_each_alone(translator):
    """A batch that repeats a source (as completion does) encodes it once: the same results."""
    src = source(translator, "Wo ist der Bahnhof?")
    prefixes = [translator.tokenizer.encode(p) for p in ["Where", "Where is", "The"]]
    together = beam(translator.model, Batch.make([src] * 3), forced_prefix=prefixes, n_best=2)
    alone = [beam(translator.model, Batch.make([src]), forced_prefix=[p], n_best=2)[0] for p in prefixes]
    assert [[h.tokens for h in hyps] for hyps in together] == [[h.tokens for h in hyps] for hyps in alone]
    assert [h.score for hyps in together for h in hyps] == pytest.approx([h.score for hyps in alone for h in hyps],
                                                                        abs=1e-5)


@pytest.mark.parametrize("prefix, message", [
    ([[7], [8]], "prefix needs one list of pieces per sentence (3), got 2"),
    ([[7], [EOS_ID], []], "prefix pieces must be output ids in [0, 24) other than PAD, BOS and EOS, got 3"),
    ([[PAD_ID], [], []], "prefix pieces must be output ids in [0, 24) other than PAD, BOS and EOS, got 0"),
    ([[BOS_ID], [], []], "prefix pieces must be output ids in [0, 24) other than PAD, BOS and EOS, got 2"),
    ([[24], [], []], "prefix pieces must be output ids in [0, 24) other than PAD, BOS and EOS, got 24"),
    ([[True], [], []], "prefix pieces must be output ids in [0, 24) other than PAD, BOS and EOS, got True"),
    ([[7] * 63, [], []], "a forced prefix has 63 pieces, but the model's output takes at most 62 before EOS"),
])
def test_forced_prefix_refuses_bad_pieces(prefix, message):
    with pytest.raises(ValueError) as err:
        beam(pinned_model([7]), Batch.make(SRC, None), forced_prefix=prefix)
    assert str(err.value) == message


def test_banned_pieces_are_never_written_after_the_forced_ones():
    """The model that prefers 7, 8, 9, ... writes 7 7 8 7 9 7 10 ... with bigrams blocked; banning
    7 and 9 for the first sentence leaves 8, 10, 11, ... after its forced 7 7 (a forced piece is
    written whatever the ban says); the other sentences, without a ban, are as before."""
    model = pinned_model(list(range(7, 21)) + [EOS_ID])
    plain = beam(model, Batch.make(SRC, None), n_best=4, no_repeat_ngram_size=2)
    assert plain[0][0].tokens[:7] == [7, 7, 8, 7, 9, 7, 10]
    hyps = beam(model, Batch.make(SRC, None), n_best=4, no_repeat_ngram_size=2,
                       forced_prefix=[[7, 7], [], []], banned=[[7, 9], [], []])
    assert hyps[0][0].tokens == [7, 7, 8, 10, 8, 8, 11, 8, 12, 8, 13, 8, 14]  # CAP[0] = 13 pieces
    assert len(hyps[0]) == 4 and all(h.tokens[:2] == [7, 7] and not {7, 9} & set(h.tokens[2:]) for h in hyps[0])
    assert [[h.tokens for h in s] for s in hyps[1:]] == [[h.tokens for h in s] for s in plain[1:]]
    # no ban: the same search
    again = beam(model, Batch.make(SRC, None), n_best=4, no_repeat_ngram_size=2, banned=[[], [], []])
    assert [[h.tokens for h in s] for s in again] == [[h.tokens for h in s] for s in plain]


@pytest.mark.parametrize("banned, message", [
    ([[7], [8]], "banned needs one list of pieces per sentence (3), got 2"),
    ([[7], [EOS_ID], []], "banned pieces must be output ids in [0, 24) other than PAD, BOS and EOS, got 3"),
    ([[PAD_ID], [], []], "banned pieces must be output ids in [0, 24) other than PAD, BOS and EOS, got 0"),
    ([[24], [], []], "banned pieces must be output ids in [0, 24) other than PAD, BOS and EOS, got 24"),
    ([[True], [], []], "banned pieces must be output ids in [0, 24) other than PAD, BOS and EOS, got True"),
])
def test_banned_refuses_bad_pieces(banned, message):
    with pytest.raises(ValueError) as err:
        beam(pinned_model([7]), Batch.make(SRC, None), banned=banned)
    assert str(err.value) == message


# --------------------------------------------------------------------------- confidence

def test_piece_logprobs_equal_step_by_step_decoding(translator):
    model = translator.model
    outputs = translator._output_ids([source(translator, t) for t in SENTENCES], BEAM)
    got = piece_logprobs(model, [source(translator, t) for t in SENTENCES], outputs, batch_size=3)
    for text, out, logprobs in zip(SENTENCES, outputs, got):
        batch = Batch.make([source(translator, text)])
        with torch.inference_mode():
            memory = model.encode(batch.src, batch.src_mask)
        expected = []
        for i, piece in enumerate(out):  # one uncached decoder run per step, as the search does it
            tgt_in = torch.tensor([[BOS_ID, *out[:i]]])
            with torch.inference_mode():
                logits = model.decode(tgt_in, memory, batch.src_mask, causal_mask(i + 1))
            allowed = logits[0, -1].clone()
            allowed[[PAD_ID, BOS_ID]] = float("-inf")  # never produced: the rest sums to one
            expected.append(float(allowed.log_softmax(dim=-1)[piece]))
        assert logprobs == pytest.approx(expected, abs=1e-5)
    assert piece_logprobs(model, [[5], []], [[], [6, 7]])[0] == []


def test_word_confidence_is_the_product_of_its_pieces(translator):
    tokenizer = translator.tokenizer
    ids = tokenizer.encode("Where is the train station?")
    assert tokenizer.pieces(ids) == ["▁W", "her", "e", "▁is", "▁", "the", "▁t", "rain", "▁", "sta", "ti", "on", "?"]
    logprobs = [-0.1 * (i + 1) for i in range(len(ids))]
    text, words, confidences = word_confidences(tokenizer, ids, logprobs)
    assert [text[s:e] for s, e in words] == ["Where", "is", "the", "train", "station", "?"]
    # The lone "▁" pieces (5th and 9th) belong to no word and count nowhere.
    assert confidences == pytest.approx([math.exp(-0.6), math.exp(-0.4), math.exp(-0.6), math.exp(-1.5),
                                         math.exp(-3.3), math.exp(-1.3)])
    with pytest.raises(ValueError) as err:
        word_confidences(tokenizer, ids, logprobs[:-1])
    assert str(err.value) == "13 pieces but 12 log-probabilities"


def test_translator_word_confidences(translator):
    texts = ["Ich liebe Musik.", "Es regnet."]
    outputs = translator.translate(texts)
    (spans, confidences), (spans2, _) = translator.word_confidences(texts, outputs)
    assert [outputs[0][s:e] for s, e in spans] == ["I", "love", "music", "."]
    assert [outputs[1][s:e] for s, e in spans2] == ["It", "is", "raining", "."]
    ids = translator.tokenizer.encode(outputs[0])
    logprobs = piece_logprobs(translator.model, [source(translator, texts[0])], [ids])[0]
    assert confidences == pytest.approx(word_confidences(translator.tokenizer, ids, logprobs)[2])
    assert all(0.5 < c <= 1 for c in confidences)  # learned by heart


@pytest.mark.parametrize("model_words, final_words, expected", [
    (["I", "am", "tired", "."], ["I", "AM", "TIRED", "."], [0.1, 0.2, 0.3, 0.4]),           # casing
    (["I", "am", "tired", "."], ["I", "am", "tired", ","], [0.1, 0.2, 0.3, 0.4]),           # boundary
    (["It", "costs", "5", "."], ["It", "costs", "5", "euros", "."], [0.1, 0.2, 0.3, 1.0, 0.4]),  # put back
    (["It", "costs", "5", "5", "."], ["It", "costs", "5", "."], [0.1, 0.2, 0.3, 0.5]),      # duplicate gone
    (["It", "is", "."], ["It", "is"], [0.1, 0.2]),                                          # full stop gone
    ([], ["x"], [1.0]),
])
def test_follow_confidences(model_words, final_words, expected):
    confidences = [0.1, 0.2, 0.3, 0.4, 0.5][:len(model_words)]
    assert follow_confidences(model_words, confidences, final_words) == pytest.approx(expected)


@pytest.mark.parametrize("prefix, expected", [
    ("The rent is 1,450 a month", "The rent is ⦅N1⦆ a month"),
    ("It costs 1,450.", "It costs ⦅N1⦆."),
    ("1 or 1,4501 or 11 or 2.1", "⦅N2⦆ or 1,4501 or 11 or 2.1"),
    ("See https://x.org/a, then", "See ⦅X1⦆, then"),
    ("See https://x.org/ab", "See https://x.org/ab"),
    ("", ""),
])
def test_slots_as_placeholders(prefix, expected):
    slots = {"⦅N1⦆": "1,450", "⦅N2⦆": "1", "⦅X1⦆": "https://x.org/a", "⦅X2⦆": ""}
    assert slots_as_placeholders(prefix, slots) == expected


@pytest.mark.parametrize("text, spans, expected", [
    ("Ich bin müde.", [(0, 3), (8, 12), (12, 13)], [(0, 3), (8, 12), (12, 13)]),
    ("Ich bin mu\u0308de.", [(0, 3), (8, 12), (12, 13)], [(0, 3), (8, 13), (13, 14)]),
    ("A\u030a\u0301 x", [(0, 1), (2, 3)], [(0, 3), (4, 5)]),  # two marks compose into one character
])
def test_nfc_spans_in(text, spans, expected):
    assert nfc_spans_in(text, spans) == expected


def test_follow_confidences_needs_one_per_word():
    with pytest.raises(ValueError) as err:
        follow_confidences(["a", "b"], [0.5], ["a"])
    assert str(err.value) == "2 words but 1 confidences"


# --------------------------------------------------------------------------- prefixes

@pytest.mark.parametrize("raw, normal", [
    ("", ""), ("   ", ""), ("The", "The"), ("  The   we", "The we"), ("The\tweather \n", "The weather "),
    ("The weather  ", "The weather "),
])
def test_normalize_prefix(raw, normal):
    assert normalize_prefix(raw) == normal


def test_plan_prefix(translator):
    tokenizer = translator.tokenizer
    the, where_is = tokenizer.encode("The"), tokenizer.encode("Where is")
    assert plan_prefix(tokenizer, "") == PrefixPlan([], "▁", "", 0)
    assert plan_prefix(tokenizer, "Wh") == PrefixPlan([], "▁Wh", "Wh", 0)
    assert plan_prefix(tokenizer, "The we") == PrefixPlan(the, "▁we", "The we", 4)
    assert plan_prefix(tokenizer, "Where is ") == PrefixPlan(where_is, "▁", "Where is ", 9)
    assert plan_prefix(tokenizer, "Where is the tr") == PrefixPlan(tokenizer.encode("Where is the"), "▁tr",
                                                                   "Where is the tr", 13)


def test_plan_prefix_refusals(translator):
    with pytest.raises(ValueError) as err:
        plan_prefix(translator.tokenizer, "The  we")
    assert str(err.value) == "prefix must be whitespace-normalized (normalize_prefix), got 'The  we'"
    with pytest.raises(UnwritablePrefix) as err:
        plan_prefix(translator.tokenizer, "Wo ist Ωmega Ω?")
    assert err.value.characters == "Ω" and str(err.value) == "the vocabulary cannot write 'Ω'"


def test_piece_index_agrees_with_a_scan(translator):
    tokenizer = translator.tokenizer
    index = PieceIndex(tokenizer)
    pieces = tokenizer.pieces(range(tokenizer.vocab_size))
    for text in ["▁", "▁t", "▁tr", "rain", "▁station", "e", "zzz"]:
        assert sorted(index.starting_with(text).tolist()) == [i for i, p in enumerate(pieces) if i >= 4 and p.startswith(text)]
        assert sorted(index.prefixes_of(text)) == sorted(
            (i, text[len(p):]) for i, p in enumerate(pieces) if i >= 4 and p and len(p) < len(text) and text.startswith(p))
    assert index.prefixes_of("▁tr") == [(pieces.index("▁"), "tr"), (pieces.index("▁t"), "r")]


# --------------------------------------------------------------------------- completion

@pytest.mark.parametrize("prefix", ["", "W", "Where", "Where ", "Where is the tr", "Where is the train ",
                                    "Where  is\tthe", "The"])
def test_completions_keep_the_prefix_and_differ_in_the_next_word(translator, prefix):
    found = translator.complete("Wo ist der Bahnhof?", prefix, BEAM, n=4)
    normal = normalize_prefix(prefix)
    assert 1 <= len(found) <= 4
    assert all(text.startswith(normal) for text, _ in found)
    assert [score for _, score in found] == sorted((score for _, score in found), reverse=True)
    head = normal.rpartition(" ")[0]  # the complete words: the next word starts after them
    next_words = [text[len(head):].split()[0] for text, _ in found]
    assert len(set(next_words)) == len(next_words)
    if "Where is the train station?".startswith(normal):  # on the model's own path: its translation first
        assert found[0][0] == "Where is the train station?"


def test_completion_scores_are_beam_search_scores(translator):
    src = source(translator, "Wo ist der Bahnhof?")
    plain = beam(translator.model, Batch.make([src]), beam_size=4)[0][0]
    found = translator.complete("Wo ist der Bahnhof?", "Where is the t", BEAM, n=2)
    assert found[0] == ("Where is the train station?", pytest.approx(plain.score, abs=1e-5))
    plan = plan_prefix(translator.tokenizer, "Where is the t")
    for c in complete(translator.model, translator.tokenizer, src, plan, translator.piece_index, BEAM, n=3):
        # log-probability of the pieces and EOS, divided by the GNMT penalty of their number
        logprob = sum(piece_logprobs(translator.model, [src], [c.tokens + [EOS_ID]])[0])
        assert c.score == pytest.approx(logprob / BEAM.penalty(len(c.tokens) + 1), abs=1e-4)
        assert c.tokens[:len(plan.forced)] == plan.forced and c.text.startswith("Where is the t")


def test_a_whole_translation_as_prefix_completes_to_itself(translator):
    assert translator.complete("Ich liebe Musik.", "I love music.", BEAM, n=5) == [
        ("I love music.", pytest.approx(beam(translator.model, Batch.make([source(translator, "Ich liebe Musik.")]))[0][0].score))]


def test_complete_refusals(translator):
    with pytest.raises(UnwritablePrefix):
        translator.complete("Ich liebe Musik.", "I love Ωmega", BEAM, n=2)
    long = "a " * 254 + "b"
    with pytest.raises(PrefixTooLong) as err:
        translator.complete("Ich liebe Musik.", long, BEAM, n=2)
    pieces = len(translator.tokenizer.encode(long))
    assert pieces > 254 and str(err.value) == f"the prefix has {pieces} pieces, but the model writes at most 254"
    with pytest.raises(ValueError) as err:
        translator.complete("", "I", BEAM, n=2)
    assert str(err.value) == "cannot complete the translation of an empty text"
    with pytest.raises(ValueError) as err:
        translator.complete("Ich liebe Musik.", "I", BEAM, n=0)
    assert str(err.value) == "n must be an integer >= 1, got 0"


def test_more_translations_per_next_word(translator):
    """n_best: each next word's best completion as with n_best=1, then the search's next ones for
    it, distinct texts, best first; never more than n_best for one word."""
    one = translator.complete("Wo ist der Bahnhof?", "Where is the ", BEAM, n=3)
    more = translator.complete("Wo ist der Bahnhof?", "Where is the ", replace(BEAM, n_best=4), n=3)
    assert set(one) <= set(more) and len(more) > len(one)
    assert len({text for text, _ in more}) == len(more)
    assert [score for _, score in more] == sorted((score for _, score in more), reverse=True)
    assert len(one) == 3 and len(one) < len(more) <= 3 * 4  # three rows, four hypotheses each at most


def test_what_a_completion_says_again_is_left_out_and_searched_without(translator, monkeypatch):
    """complete() drops the hypotheses ``retranslations`` finds saying something again (stubbed
    here: "station" after the prefix, as if the forced "Where" had translated "Bahnhof"), searches
    those next words again with the repeated word banned, and checks what it kept before then."""
    tokenizer = translator.tokenizer
    searched, checked = [], []
    search = explain.beam_search

    def spy(model, batch, options, **kwargs):
        searched.append(kwargs["banned"])
        return search(model, batch, options, **kwargs)

    def stub(model, tok, src, outputs):
        checked.append([set(covered) for _, _, covered in outputs])
        result = []
        for ids, forced, covered in outputs:
            later = tokenizer.decode(ids)[len(tokenizer.decode(ids[:forced])):]
            said = "station" in later
            result.append(({4: {"station"}}, {"station"} if not covered else set()) if said else ({}, set()))
        return result

    monkeypatch.setattr(explain, "beam_search", spy)
    monkeypatch.setattr(explain, "retranslations", stub)
    found = translator.complete("Wo ist der Bahnhof?", "Where is the ", replace(BEAM, n_best=4), n=2)
    assert all("station" not in text[len("Where is the "):] for text, _ in found)
    assert searched[0] is None and len(searched) == 2  # without a ban, then with it (nothing new banned then)
    assert all(ban == banned_pieces(tokenizer, {"station"}) for ban in searched[1]) and len(searched[1]) == 2
    assert checked[-1] and all(covered == {4} for covered in checked[-1])  # the final check of what was kept


def test_banned_pieces_start_each_casing_of_a_word(translator):
    tokenizer = translator.tokenizer
    assert tokenizer.pieces(tokenizer.encode("where")) == ["▁w", "her", "e"]
    assert tokenizer.pieces(tokenizer.encode("station")) == ["▁", "sta", "ti", "on"]  # a lone "▁" first
    assert sorted(tokenizer.pieces(banned_pieces(tokenizer, ["where"]))) == ["▁W", "▁w"]  # Where, WHERE: "▁W"
    assert tokenizer.pieces(banned_pieces(tokenizer, ["station"])) == ["▁S"]  # Station; station left alone
    assert tokenizer.pieces(banned_pieces(tokenizer, ["⦅N1⦆"])) == ["⦅N1⦆"]  # a placeholder is one piece
    assert banned_pieces(tokenizer, ["Ω"]) == [] and banned_pieces(tokenizer, []) == []


@pytest.mark.parametrize("output, forced_text, covered, sources, expected", [
    # Where(0) is(1) the(2) station(3) ?(4) The(5) station(6) .(7): "station" translates again what
    # the forced one did; "The" another source word than "the"
    ("Where is the station? The station.", "Where is the station", set(), {2: 2, 3: 3, 5: 0, 6: 3},
     ({3: {"station"}}, {"station"})),
    # the same words for other source words ("I think I", "the ... the") are no repeats
    ("Where is the station? The station.", "Where is the station", set(), {2: 2, 3: 3, 5: 4, 6: 1}, ({}, set())),
    # casefolded: Where(0) ... train(3), a word that starts among the forced pieces, where(4)
    ("Where is the train where?", "Where is the tr", set(), {0: 0, 4: 0}, ({0: {"where"}}, {"where"})),
    # punctuation is no word; nothing after the forced pieces repeats them
    ("Where is the train station? ?", "Where is the train station?", set(), {}, ({}, set())),
    ("Where is the train station?", "Where", set(), {}, ({}, set())),
    # a source word the forced pieces are known to translate: any later word for it is said again,
    # but only a repeated forced word is one to ban; Where(0) is(1) the(2) train(3) station(4) ?(5)
    ("Where is the train station?", "Where is", {3}, {2: 2, 3: 3, 4: 3}, ({3: {"train", "station"}}, set())),
    ("Where is the station? The station.", "Where is the station", {0}, {2: 2, 3: 3, 5: 2, 6: 0},
     ({2: {"The"}, 0: {"station"}}, {"The"})),
])
def test_retranslations_pair_a_repeated_word_with_its_source(translator, monkeypatch, output, forced_text, covered,
                                                              sources, expected):
    """Which source word each word translates is stubbed (``sources``: word index -> source word):
    a forced word's comes from occlusion, read up to its end, a later word's from attention."""
    tokenizer = translator.tokenizer
    asked = {"occlusion": [], "attention": []}

    def stub(kind):
        def sources_of(model, tok, src, outputs):
            asked[kind] += [(tokenizer.decode(ids), list(words)) for ids, words in outputs]
            return [[sources[j] for j in words] for _, words in outputs]
        return sources_of

    monkeypatch.setattr(explain, "occlusion_sources", stub("occlusion"))
    monkeypatch.setattr(explain, "attention_sources", stub("attention"))
    ids = tokenizer.encode(output)
    forced = len(tokenizer.encode(forced_text))
    assert retranslations(translator.model, tokenizer, source(translator, "Wo ist der Bahnhof?"),
                          [(ids, forced, covered)]) == [expected]
    _, words, _ = target_words(tokenizer, ids)
    early = [j for j in sources if words[j][0] < len(forced_text)]
    repeated_early = [p for p in early if any(words[p] != words[j] and output[slice(*words[p])].casefold()
                                              == output[slice(*words[j])].casefold() for j in sources)]
    assert sorted(p for _, (p,) in asked["occlusion"]) == sorted(repeated_early)
    assert all(text == output[:words[p][1]] for text, (p,) in asked["occlusion"])  # up to the word's end
    later = sorted(set(sources) - set(early))
    assert asked["attention"] == ([(output, later)] if later else [])


def test_occlusion_reads_an_output_only_up_to_the_word_asked_about(translator):
    tokenizer = translator.tokenizer
    src = source(translator, "Wo ist der Bahnhof?")
    whole = tokenizer.encode("Where is the train station?")
    text, words, piece_word = target_words(tokenizer, whole)
    cut = whole[:max(i for i, w in enumerate(piece_word) if w == 3) + 1]  # up to "train"
    found = occlusion_sources(translator.model, tokenizer, src, [(whole, [0, 3]), (cut, [0, 3]), (whole, [])])
    assert found[0] == found[1] and found[2] == [] and len(found[0]) == 2
    assert all(-1 <= s < 5 for s in found[0])  # Wo ist der Bahnhof ?


def test_attention_sources_are_the_alignment_s_forward_links(translator):
    tokenizer = translator.tokenizer
    text = "Wo ist der Bahnhof?"
    out = tokenizer.encode("Where is the train station?")
    [aligned] = align_outputs(translator.model, tokenizer, [text], [out])
    found = attention_sources(translator.model, tokenizer, source(translator, text), [(out, list(range(6)))])[0]
    assert all((t, s) in aligned.links for t, s in enumerate(found))


# --------------------------------------------------------------------------- beam trace

def traced(model, src, **kwargs):
    trace = BeamTrace(lambda ids: [str(i) for i in ids])
    hyps = beam(model, Batch.make(src, None), recorder=trace, **kwargs)
    return trace, hyps


@pytest.mark.parametrize("beam_size, no_repeat", [(1, 0), (3, 0), (4, 2), (5, 0)])
def test_trace_agrees_with_the_search(translator, beam_size, no_repeat):
    for text in SENTENCES:
        src = [source(translator, text)]
        settings = {"beam_size": beam_size, "no_repeat_ngram_size": no_repeat}
        trace, hyps = traced(translator.model, src, **settings)
        untraced = beam(translator.model, Batch.make(src, None), **settings)
        assert hyps == untraced  # recording changes nothing
        result = trace.result(0, hyps[0][0])
        winner = result["winner"]
        assert winner["pieces"] == [str(i) for i in hyps[0][0].tokens] and winner["score"] == hyps[0][0].score
        assert winner["score"] == winner["logprob"] / BEAM.penalty(len(hyps[0][0].tokens) + 1)
        check_trace(result["steps"], beam_size)
        assert result["stop_reason"] == "beam_full"


def check_trace(steps, beam_size):
    """Every hypothesis extends a live one of the step before, by its piece, never gaining
    probability; at most beam_size are alive per step and beam_size end in all."""
    alive = {ROOT_ID: ([], 0.0)}
    ended = 0
    for number, step in enumerate(steps, start=1):
        assert step["step"] == number
        assert [h["logprob"] for h in step["hypotheses"]] == sorted((h["logprob"] for h in step["hypotheses"]), reverse=True)
        now = {}
        for h in step["hypotheses"]:
            pieces, logprob = alive[h["parent"]]
            assert h["id"].startswith(f"{number}.") and h["logprob"] <= logprob + 1e-6
            assert h["pieces"] == (pieces if h["piece"] == "3" else pieces + [h["piece"]])
            assert h["status"] in ("alive", "ended", "pruned")
            if h["status"] == "alive":
                now[h["id"]] = (h["pieces"], h["logprob"])
            ended += h["status"] == "ended"
        assert len(now) <= beam_size
        alive = now
    assert ended <= beam_size


def test_trace_of_a_search_that_runs_out_of_length():
    """The looping model never ends by itself: at the cap every live hypothesis is made to end."""
    trace, hyps = traced(pinned_model(list(range(7, 21)) + [EOS_ID]), SRC[2:], beam_size=2)
    result = trace.result(0, hyps[0][0])
    assert result["stop_reason"] == "max_length" and len(result["steps"]) == CAP[2] + 1
    last = result["steps"][-1]["hypotheses"]
    assert [(h["piece"], h["status"], h["reason"]) for h in last] == [("3", "ended", "max_length")] * 2
    assert result["winner"]["pieces"] == ["7"] * CAP[2]
    check_trace(result["steps"], 2)


def test_trace_marks_eos_and_pruned_hypotheses():
    """A model that prefers EOS by far (logits EOS 10, 7: 5, 8: 4.5, 9: 0, the rest -20), beam 2.
    Step 1 may not end (min_len 1): 7 and 8 stay, 9 and the next are pruned. Step 2: EOS after 7
    and after 8 are the best two candidates: two translations have ended, the beam is full, and
    the two best other candidates, kept for a step 3 that never comes, are pruned as finished."""
    model = pinned_model([EOS_ID, 7, 8, 9])
    with torch.no_grad():
        model.embed.weight[:, 0] = -20.0
        model.embed.weight[[EOS_ID, 7, 8, 9], 0] = torch.tensor([10.0, 5.0, 4.5, 0.0])
    trace, hyps = traced(model, SRC[:1], beam_size=2)
    result = trace.result(0, hyps[0][0])
    first, second = (step["hypotheses"] for step in result["steps"])
    assert [(h["id"], h["parent"], h["piece"], h["status"], h.get("reason")) for h in first[:3]] == [
        ("1.0", "0.0", "7", "alive", None), ("1.1", "0.0", "8", "alive", None), ("1.2", "0.0", "9", "pruned", "beam")]
    assert len(first) == 4 and (first[3]["status"], first[3]["reason"]) == ("pruned", "beam")
    assert [(h["id"], h["parent"], h["piece"], h["pieces"], h["status"], h["reason"]) for h in second[:2]] == [
        ("2.0", "1.0", "3", ["7"], "ended", "eos"), ("2.1", "1.1", "3", ["8"], "ended", "eos")]
    assert second[0]["score"] == pytest.approx(second[0]["logprob"] / BEAM.penalty(2))
    assert [(h["status"], h["reason"]) for h in second[2:]] == [("pruned", "finished")] * 2
    assert (second[2]["parent"], second[2]["pieces"]) == ("1.0", ["7", "7"])
    assert result["stop_reason"] == "beam_full" and result["winner"]["id"] == "2.0"


def test_trace_result_must_match_the_search(translator):
    trace, hyps = traced(translator.model, [source(translator, "Ich liebe Musik.")], beam_size=2)
    other = beam(translator.model, Batch.make([source(translator, "Es regnet.")]), beam_size=2)[0][0]
    with pytest.raises(ValueError) as err:
        trace.result(0, other)
    assert str(err.value).startswith("the best hypothesis Hypothesis(") and str(err.value).endswith(
        "is not among the recorded ones: another search?")
    with pytest.raises(ValueError) as err:
        trace.result(1, hyps[0][0])
    assert str(err.value) == "no steps were recorded for sentence 1"


def test_translator_beam_trace(translator):
    trace = translator.beam_trace("Wo ist der Bahnhof?", SearchOptions(beam_size=3, no_repeat_ngram_size=6))
    assert set(trace) == {"source_pieces", "beam_size", "length_penalty", "no_repeat_ngram_size", "max_length",
                          "steps", "stop_reason", "winner"}
    assert trace["source_pieces"] == translator.tokenizer.pieces(source(translator, "Wo ist der Bahnhof?"))
    assert (trace["beam_size"], trace["length_penalty"], trace["no_repeat_ngram_size"]) == (3, 0.6, 6)
    assert trace["winner"]["translation"] == translator.translate(["Wo ist der Bahnhof?"], SearchOptions(beam_size=3))[0]
    assert trace["winner"]["pieces"] == translator.tokenizer.pieces(translator.tokenizer.encode(
        trace["winner"]["translation"]))
    assert trace["max_length"] == int(1.5 * (len(trace["source_pieces"]) + 1) + 10)
