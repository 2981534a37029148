"""model/inference/channel.py: the noisy channel's scores, its direction check and the reranking.

The scores are worked out by hand on the pinned model of test_decoding.py (the same logits at every
step, whatever the source), with a tokenizer of the 40 pairs; the trained tiny reverse model
(tests/conftest.py) shows that the channel prefers a source's own translation."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch

from model.data import normalize
from model.inference.channel import (ChannelOptions, ChannelReranked, ChannelScore, ChannelScorer, choice,
                                     contenders, ranked, rerank, served_options)
from model.inference.batching import BatchingEngine, BatchingOptions
from model.inference.engines import CachedTranslator, bare_engine, serve_engine
from model.search.options import DEFAULT, SERVED, SearchOptions
from model.inference.translator import Translator
from model.network.checkpoint import CheckpointError, save_checkpoint
from model.network.tokenizer import EOS_ID, Tokenizer
from model.network.transformer import Transformer
from model.search.scoring import teacher_force
from tests.model.search.test_decoding import CFG, pinned_model

PREFERENCE = [EOS_ID, 7, 8, 9]
PAIRS = [("Wo ist der Bahnhof?", "Where is the station?"), ("Ich liebe Musik.", "I love music."),
         ("Die Katze schläft.", "")]


@pytest.fixture(scope="module")
def tokenizer(pairs40) -> Tokenizer:
    return Tokenizer.train([s for p in pairs40 for s in p], 200)


@pytest.fixture(scope="module")
def model(tokenizer):
    return pinned_model(PREFERENCE, vocab_size=tokenizer.vocab_size)


@pytest.fixture(scope="module")
def random_model(tokenizer) -> Transformer:
    """Random weights with sharp outputs (as in test_decoding.py): scores that depend on the English
    and on the German before each piece."""
    torch.manual_seed(4)
    m = Transformer(CFG.replace(vocab_size=tokenizer.vocab_size, decoder_layers=2)).eval()
    with torch.no_grad():
        m.embed.weight.mul_(8.0)
    return m


def reverse(model, tokenizer) -> Translator:
    """An English->German translator of ``model``, as a reverse checkpoint loads."""
    return Translator(model, tokenizer, {"direction": "en-de"}, torch.device("cpu"), checkpoint="reverse.pt")


def logp(piece: int, vocab_size: int) -> float:
    """log P(piece) under pinned_model(PREFERENCE), at any step, by hand."""
    logits = {p: 10.0 - 1.5 * rank for rank, p in enumerate(PREFERENCE)}
    log_z = math.log(sum(math.exp(v) for v in logits.values()) + (vocab_size - 6) * math.exp(-20.0))
    return logits.get(piece, -20.0) - log_z


def test_scores_are_the_german_pieces_and_eos_given_the_english(model, tokenizer):
    scores = ChannelScorer(reverse(model, tokenizer)).score([de for de, _ in PAIRS], [en for _, en in PAIRS])
    for (de, en), found in zip(PAIRS, scores):
        german = tokenizer.encode(de)
        expected = sum(logp(p, tokenizer.vocab_size) for p in [*german, EOS_ID])
        assert (found.pieces, found.hypothesis_pieces) == (len(german) + 1, len(tokenizer.encode(en)))
        assert found.logprob == pytest.approx(expected, rel=1e-6)
        assert found.per_piece == found.logprob / found.pieces


def test_scores_are_teacher_forcings_sums_in_any_batching(random_model, tokenizer):
    scorer = ChannelScorer(reverse(random_model, tokenizer))
    sources, hypotheses = [de for de, _ in PAIRS] * 2, [en for _, en in PAIRS] + ["Music.", "No.", "The cat."]
    forced = teacher_force(random_model, [tokenizer.encode(normalize(h)) for h in hypotheses],
                           [tokenizer.encode(normalize(s)) for s in sources])
    scores = scorer.score(sources, hypotheses)
    assert [s.logprob for s in scores] == [sum(f.logprobs) + f.eos for f in forced]
    one_by_one = scorer.score(sources, hypotheses, batch_size=1)  # no padding: float error only
    # float32 sums of a few hundred nats: the error grows with the sum (rel), whatever the CPU's kernels
    assert [s.logprob for s in one_by_one] == pytest.approx([s.logprob for s in scores], rel=1e-6)
    bounded = scorer.score(sources, hypotheses, batch_pieces=12)
    assert [s.logprob for s in bounded] == pytest.approx([s.logprob for s in scores], rel=1e-6)


class Counting:
    """An engine that records the source pieces of each ``score_outputs`` call it passes on."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def score_outputs(self, sources_ids, outputs_ids, *, batch_size):
        self.calls.append([len(ids) + 1 for ids in outputs_ids])
        return self.inner.score_outputs(sources_ids, outputs_ids, batch_size=batch_size)

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.mark.parametrize(("batch_size", "batch_pieces"), [(64, None), (2, None), (64, 12), (64, 1), (3, 20)])
def test_a_scoring_call_holds_at_most_its_pairs_and_pieces(random_model, tokenizer, batch_size, batch_pieces):
    engine = Counting(reverse(random_model, tokenizer))
    sources, hypotheses = [de for de, _ in PAIRS] * 3, [en for _, en in PAIRS] * 3
    lengths = [len(tokenizer.encode(normalize(s))) + 1 for s in sources]
    ChannelScorer(engine).score(sources, hypotheses, batch_size=batch_size, batch_pieces=batch_pieces)
    assert [n for call in engine.calls for n in call] == lengths          # every pair once, in order
    for call in engine.calls:
        assert 1 <= len(call) <= batch_size
        assert len(call) == 1 or batch_pieces is None or sum(call) <= batch_pieces
    # each call as full as the bounds allow: the next pair would not have fitted
    for call, after in zip(engine.calls, engine.calls[1:]):
        assert len(call) == batch_size or batch_pieces is not None and sum(call) + after[0] > batch_pieces


@pytest.mark.parametrize("meta", [{"direction": "de-en"}, {}])  # files without a direction are de-en
def test_a_forward_checkpoint_is_refused_in_one_line(tmp_path, model, tokenizer, meta):
    path = tmp_path / "forward.pt"
    save_checkpoint(path, model, tokenizer, meta)
    with pytest.raises(CheckpointError) as error:
        ChannelScorer.from_checkpoint(path, device="cpu", forward="de-en")
    assert str(error.value) == (f"{str(path)!r} translates de-en, not en-de: the noisy channel of de-en needs a "
                                "reverse model (train.py --direction en-de)")


def test_a_reverse_checkpoint_loads_and_scores_as_in_memory(tmp_path, model, tokenizer):
    path = tmp_path / "reverse.pt"
    save_checkpoint(path, model, tokenizer, {"direction": "en-de", "step": 3})
    scorer = ChannelScorer.from_checkpoint(path, device="cpu")
    assert scorer.checkpoint == str(path)
    loaded = scorer.score(["Ich liebe Musik."], ["I love music."])
    assert loaded == ChannelScorer(reverse(model, tokenizer)).score(["Ich liebe Musik."], ["I love music."])


def test_too_long_and_mismatched_inputs_are_refused(model, tokenizer):
    scorer = ChannelScorer(reverse(model, tokenizer))
    long = " ".join(["Bahnhof"] * CFG.max_len)
    assert len(tokenizer.encode(long)) > CFG.max_len - 1
    with pytest.raises(ValueError) as error:
        scorer.score([long], ["Station."])
    assert str(error.value) == (f"source 0 has {len(tokenizer.encode(long))} pieces, but the model writes at most "
                                f"{CFG.max_len - 1} pieces per text")
    with pytest.raises(ValueError, match=r"^text 0 has \d+ pieces, but the model takes at most 63 pieces per text"):
        scorer.score(["Bahnhof."], [" ".join(["station"] * CFG.max_len)])
    with pytest.raises(ValueError) as error:
        scorer.score(["Bahnhof.", "Musik."], ["Station."])
    assert str(error.value) == "2 sources but 1 hypotheses"


def test_score_where_fits_is_score_with_none_for_what_the_model_cannot_read(random_model, tokenizer):
    scorer = ChannelScorer(reverse(random_model, tokenizer))
    long = " ".join(["Bahnhof"] * CFG.max_len)
    sources = ["Ich liebe Musik.", long, "", "Wo ist der Bahnhof?", "Ich liebe Musik."]
    hypotheses = ["I love music.", "Station.", "Music.", " ".join(["station"] * CFG.max_len), "Music."]
    found = scorer.score_where_fits(sources, hypotheses)
    assert [score is None for score in found] == [False, True, True, True, False]
    assert [found[0], found[4]] == scorer.score([sources[0], sources[4]], [hypotheses[0], hypotheses[4]])
    with pytest.raises(ValueError) as error:
        scorer.score_where_fits(sources, hypotheses[:2])
    assert str(error.value) == "5 sources but 2 hypotheses"


def test_combined_score_and_rerank():
    # per piece: -1.5 and -0.5; English per German piece: 0.5 and 1.25
    short = ChannelScore(logprob=-6.0, pieces=4, hypothesis_pieces=2)
    full = ChannelScore(logprob=-2.0, pieces=4, hypothesis_pieces=5)
    assert ChannelOptions().combined(-0.25, short) == -0.25
    assert ChannelOptions(weight=0.5, length_bonus=0.25).combined(-0.25, short) == -0.25 - 0.75 + 0.125
    forward = [-0.25, -0.75]
    assert rerank(forward, [short, full], ChannelOptions()) == 0
    assert rerank(forward, [short, full], ChannelOptions(weight=0.25)) == 0           # -0.625 against -0.875
    assert rerank(forward, [short, full], ChannelOptions(weight=1.0)) == 1            # -1.75 against -1.25
    assert rerank(forward, [short, full], ChannelOptions(length_bonus=1.0)) == 1      # 0.25 against 0.5
    assert rerank(forward, [short, full], ChannelOptions(weight=0.5)) == 0            # -1.0 against -1.0: the first
    with pytest.raises(ValueError, match="^2 forward scores but 1 channel scores$"):
        rerank(forward, [short], ChannelOptions())
    with pytest.raises(ValueError, match="^cannot rerank an empty n-best list$"):
        rerank([], [], ChannelOptions())


def test_ranked_puts_the_unscored_last_and_keeps_the_forward_order_of_equals():
    short = ChannelScore(logprob=-6.0, pieces=4, hypothesis_pieces=2)   # -1.5 a piece
    full = ChannelScore(logprob=-2.0, pieces=4, hypothesis_pieces=5)    # -0.5 a piece
    options = ChannelOptions(weight=0.5)
    # combined: -1.0, unscored, -1.0 (a tie: the first stays first), -0.5
    assert ranked([-0.25, 0.0, -0.75, -0.25], [short, None, full, full], options) == [
        (3, -0.5), (0, -1.0), (2, -1.0), (1, -math.inf)]
    assert ranked([], [], options) == []
    with pytest.raises(ValueError, match="^1 forward scores but 2 channel scores$"):
        ranked([0.0], [short, None], options)


def test_contenders_are_the_best_within_the_margin_at_most_most():
    forward = [-1.0, -0.2, -3.0, -1.6, -0.2]   # best first: 1, 4 (a tie keeps its place), 0, 3, 2
    assert contenders(forward, ChannelOptions()) == [1, 4, 0, 3, 2]
    assert contenders(forward, ChannelOptions(margin=1.0)) == [1, 4, 0]
    assert contenders(forward, ChannelOptions(margin=1.0, most=2)) == [1, 4]
    assert contenders(forward, ChannelOptions(margin=0.5, most=3)) == [1, 4]
    assert contenders(forward, ChannelOptions(margin=0.0)) == [1, 4]
    assert contenders([-0.5], ChannelOptions(margin=1.0, most=3)) == [0]
    assert contenders([], ChannelOptions()) == []
    # a source of fewer than ``shortest`` pieces: the best alone; its length unknown: not checked
    assert contenders(forward, ChannelOptions(shortest=6), pieces=5) == [1]
    assert contenders(forward, ChannelOptions(shortest=6), pieces=6) == [1, 4, 0, 3, 2]
    assert contenders(forward, ChannelOptions(shortest=6)) == [1, 4, 0, 3, 2]


def test_the_choice_is_the_contender_of_best_combined_score():
    short = ChannelScore(logprob=-6.0, pieces=4, hypothesis_pieces=2)   # -1.5 a piece
    full = ChannelScore(logprob=-2.0, pieces=4, hypothesis_pieces=5)    # -0.5 a piece
    forward = [-0.25, -0.75, -2.0]
    # combined at weight 1: -1.75, -1.25, -2.5
    assert choice(forward, [short, full, full], ChannelOptions(weight=1.0)) == 1
    assert choice(forward, [short, full, full], ChannelOptions(weight=1.0, margin=0.25)) == 0   # it stands alone
    assert choice(forward, [short, full, full], ChannelOptions(weight=1.0, most=1)) == 0
    # only the contenders' channel scores are read: the others may be missing
    assert choice(forward, [short, full, None], ChannelOptions(weight=1.0, margin=1.0)) == 1
    assert choice(forward, [None, None, full], ChannelOptions(weight=1.0, margin=1.0)) == 0    # none scored
    # a third hypothesis of far better combined score is no contender beyond the margin
    assert choice(forward, [short, short, ChannelScore(-0.4, 4, 5)], ChannelOptions(weight=9.0, margin=1.0)) == 0
    assert choice(forward, [short, short, ChannelScore(-0.4, 4, 5)], ChannelOptions(weight=9.0)) == 2
    assert choice(forward, [short, full, full], ChannelOptions(weight=1.0, shortest=3), pieces=2) == 0
    assert choice(forward, [short, full, full], ChannelOptions(weight=1.0, shortest=3), pieces=3) == 1
    with pytest.raises(ValueError, match="^cannot choose from an empty beam$"):
        choice([], [], ChannelOptions())
    with pytest.raises(ValueError, match="^3 forward scores but 1 channel scores$"):
        choice(forward, [short], ChannelOptions())


@pytest.mark.parametrize(("knobs", "message"), [
    ({"weight": -0.1}, "weight must be a number >= 0, got -0.1"),
    ({"margin": -1}, "margin must be a number >= 0, got -1"),
    ({"margin": math.nan}, "margin must be a number >= 0, got nan"),
    ({"most": 1.5}, "most must be an integer >= 0, got 1.5"),
    ({"most": -1}, "most must be an integer >= 0, got -1"),
    ({"most": True}, "most must be an integer >= 0, got True"),
    ({"shortest": -2}, "shortest must be an integer >= 0, got -2"),
    ({"shortest": 2.0}, "shortest must be an integer >= 0, got 2.0"),
    ({"wide_beam": -1}, "wide_beam must be an integer >= 0, got -1"),
    ({"wide_beam": 8.0}, "wide_beam must be an integer >= 0, got 8.0"),
    ({"length_bonus": math.inf}, "length_bonus must be a number >= 0, got inf"),
    ({"weight": True}, "weight must be a number >= 0, got True"),
    ({"length_bonus": "1"}, "length_bonus must be a number >= 0, got '1'"),
])
def test_bad_options_are_refused(knobs, message):
    with pytest.raises(ValueError) as error:
        ChannelOptions(**knobs)
    assert str(error.value) == message


def test_the_trained_reverse_model_prefers_each_sources_own_translation(reverse_checkpoint, pairs40):
    scorer = ChannelScorer.from_checkpoint(reverse_checkpoint, device="cpu")
    german = [de for de, _ in pairs40]
    own = scorer.score(german, [en for _, en in pairs40])
    other = scorer.score(german, [en for _, en in pairs40[1:] + pairs40[:1]])  # the next pair's English
    assert sum(a.logprob > b.logprob for a, b in zip(own, other)) == len(pairs40)


def test_ctranslate2_scores_as_pytorch_does(reverse_checkpoint, pairs40):
    # float32: PyTorch's figures within 1% (CTranslate2's CPU kernels compute exp and log their own
    # way); int8, the served reverse model's weights, still tells a source's own translation apart.
    german, english = [de for de, _ in pairs40], [en for _, en in pairs40[1:] + pairs40[:1]] + ["", "Music."]
    german += ["Ich liebe Musik.", "Ich liebe Musik."]
    torch_scores = ChannelScorer.from_checkpoint(reverse_checkpoint, device="cpu").score(german, english)
    ct2 = ChannelScorer.from_checkpoint(reverse_checkpoint, device="cpu", engine="ct2", quantization="float32")
    ct2_scores = ct2.score(german, english)
    assert [(s.pieces, s.hypothesis_pieces) for s in ct2_scores] == [(s.pieces, s.hypothesis_pieces) for s in torch_scores]
    assert [s.logprob for s in ct2_scores] == pytest.approx([s.logprob for s in torch_scores], rel=0.01)
    assert ct2.score([], []) == []
    int8 = ChannelScorer.from_checkpoint(reverse_checkpoint, device="cpu", engine="ct2", threads=1)
    own, other = int8.score(german[:40], [en for _, en in pairs40]), int8.score(german[:40], english[:40])
    assert sum(a.logprob > b.logprob for a, b in zip(own, other)) == len(pairs40)


def test_an_unknown_engine_is_refused(reverse_checkpoint):
    with pytest.raises(ValueError) as error:
        ChannelScorer.from_checkpoint(reverse_checkpoint, device="cpu", engine="onnx")
    assert str(error.value) == "engine must be torch or ct2, got 'onnx'"


# ---------------------------------------------------------------- the reranked engine (trained tiny models)

SOURCES = ["Ich liebe Musik.", "Wo ist der Bahnhof?", "", "Musik Bahnhof Katze schläft liebe."]


@pytest.fixture(scope="module")
def forward_torch(tiny_checkpoint) -> Translator:
    return Translator.from_checkpoint(tiny_checkpoint, device="cpu")


@pytest.fixture(scope="module")
def channel_torch(reverse_checkpoint) -> ChannelScorer:
    return ChannelScorer.from_checkpoint(reverse_checkpoint, device="cpu")


def by_hand(forward, scorer, texts, search, weight):
    """Each text's whole beam, reordered by forward + weight x channel per piece (stable), as
    ChannelReranked should: worked out here from the parts."""
    found = forward.translate_n_best(texts, SearchOptions(beam_size=search.beam_size, n_best=search.beam_size,
                                                          length_penalty=search.length_penalty,
                                                          no_repeat_ngram_size=search.no_repeat_ngram_size))
    results = []
    for text, hyps in zip(texts, found):
        if not text:
            results.append(hyps[:search.n_best])
            continue
        channel = scorer.score([text] * len(hyps), [h for h, _ in hyps])
        combined = [(score + weight * c.logprob / c.pieces, h) for (h, score), c in zip(hyps, channel)]
        ranked = sorted(combined, key=lambda pair: -pair[0])
        results.append([(h, score) for score, h in ranked][:search.n_best])
    return results


@pytest.mark.parametrize("weight", [0.0, 2.0, 50.0])
def test_the_reranked_beam_is_ordered_by_forward_and_channel(forward_torch, channel_torch, weight):
    engine = ChannelReranked(forward_torch, channel_torch, ChannelOptions(weight=weight))
    search = SearchOptions(beam_size=4, n_best=3, no_repeat_ngram_size=6)
    expected = by_hand(forward_torch, channel_torch, SOURCES, search, weight)
    found = engine.translate_n_best(SOURCES, search)
    assert [[h for h, _ in hyps] for hyps in found] == [[h for h, _ in hyps] for hyps in expected]
    assert [s for hyps in found for _, s in hyps] == pytest.approx([s for hyps in expected for _, s in hyps])
    best = [hyps[0][0] for hyps in expected]
    assert engine.translate(SOURCES, search) == best
    assert engine.output_ids(SOURCES, search) == [forward_torch.tokenizer.encode(text) for text in best]
    assert [a.target for a in engine.translate_aligned(SOURCES, search)] == best
    if weight == 0:  # the forward model's own order and scores
        assert found == forward_torch.translate_n_best(SOURCES, search)


def test_a_large_weight_changes_what_the_forward_model_chose(forward_torch, channel_torch):
    # At weight 50 the channel decides: at least one of these sources' best differs from the
    # forward model's (they are worked out above; this checks the test set can tell a difference).
    search = SearchOptions(beam_size=4, no_repeat_ngram_size=6)
    engine = ChannelReranked(forward_torch, channel_torch, ChannelOptions(weight=50.0))
    assert engine.translate(SOURCES, search) != forward_torch.translate(SOURCES, search)


def test_after_scoring_runs_once_per_call_that_scored(forward_torch, channel_torch):
    calls = []
    engine = ChannelReranked(forward_torch, channel_torch, ChannelOptions(weight=2.0), lambda: calls.append(1))
    search = SearchOptions(beam_size=4, no_repeat_ngram_size=6)
    assert engine.translate(SOURCES, search) == ChannelReranked(
        forward_torch, channel_torch, ChannelOptions(weight=2.0)).translate(SOURCES, search)
    assert len(calls) == 1
    engine.translate_n_best(["Katze Musik."], replace(search, beam_size=3, n_best=2))   # a new text
    assert len(calls) == 2
    engine.translate_n_best(SOURCES[:1], replace(search, n_best=2))  # that beam was just scored
    assert len(calls) == 2
    engine.translate(SOURCES, DEFAULT)   # greedy: nothing scored
    assert len(calls) == 2


def test_greedy_search_is_the_forward_engine_s(forward_torch, channel_torch):
    engine = ChannelReranked(forward_torch, channel_torch, ChannelOptions(weight=2.0))
    assert engine.translate(SOURCES, DEFAULT) == forward_torch.translate(SOURCES, DEFAULT)
    assert engine.output_ids(SOURCES, DEFAULT) == forward_torch.output_ids(SOURCES, DEFAULT)


def test_a_channel_of_the_wrong_direction_is_refused(forward_torch, tiny_checkpoint, reverse_checkpoint):
    reverse = Translator.from_checkpoint(reverse_checkpoint, device="cpu")
    with pytest.raises(CheckpointError) as error:
        ChannelScorer(forward_torch, "de-en")
    assert str(error.value) == (f"{str(tiny_checkpoint)!r} translates de-en, not en-de: the noisy channel of de-en "
                                "needs a reverse model (train.py --direction en-de)")
    de_en_channel = ChannelScorer(forward_torch)  # scores en-de translations
    assert de_en_channel.forward == "en-de"
    with pytest.raises(CheckpointError) as error:
        ChannelReranked(forward_torch, de_en_channel, ChannelOptions(weight=1.0))
    assert str(error.value) == (f"the channel {str(tiny_checkpoint)!r} scores en-de, but {str(tiny_checkpoint)!r} "
                                "translates de-en")
    # The reverse direction reranked by the forward model: English sources, German hypotheses.
    engine = ChannelReranked(reverse, de_en_channel, ChannelOptions(weight=2.0))
    english = ["I love music.", "Where is the station?"]
    search = SearchOptions(beam_size=4, no_repeat_ngram_size=6)
    assert engine.translate(english, search) == [h[0][0] for h in by_hand(reverse, de_en_channel, english, search, 2.0)]


def test_served_it_sits_under_the_batcher_and_the_cache(tiny_checkpoint, reverse_checkpoint):
    import threading

    forward = bare_engine(tiny_checkpoint, engine="ct2", device="cpu", threads=1)
    channel = ChannelScorer(bare_engine(reverse_checkpoint, engine="ct2", device="cpu", threads=1), "de-en")
    served = serve_engine(forward, cache_size=10, batching=BatchingOptions(),
                          channel=channel, channel_weight=2.0, after_scoring=print)
    assert isinstance(served, CachedTranslator) and isinstance(served.inner, BatchingEngine)
    assert isinstance(served.inner.inner, ChannelReranked) and served.inner.inner.inner is forward
    assert served.inner.inner.after_scoring is print
    # the served contenders, and the wide beam of German->English alone (SERVED_WIDE_BEAM)
    assert served.inner.inner.options == ChannelOptions(weight=2.0, margin=1.5, most=3, shortest=8, wide_beam=8)
    assert served_options(2.0, "en-de") == ChannelOptions(weight=2.0, margin=1.5, most=3, shortest=8, wide_beam=0)
    alone = ChannelReranked(forward, channel, served_options(2.0, "de-en")).translate(SOURCES, SERVED)
    results: dict[int, list[str]] = {}

    def call(k: int) -> None:
        results[k] = served.translate(SOURCES[k % 4:] + SOURCES[:k % 4], SERVED)

    threads = [threading.Thread(target=call, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(results[k] == alone[k % 4:] + alone[:k % 4] for k in range(8))
    assert served.translate(SOURCES, SERVED) == alone and served.hits >= len(SOURCES)
    plain = serve_engine(forward, channel=channel, channel_weight=0.0)
    assert plain is forward   # weight 0: nothing in front


@pytest.mark.parametrize(("knobs", "message"), [
    ({"cache_size": -1}, "cache_size must be an integer >= 0, got -1"),
    ({"channel_weight": -1.0}, "weight must be a number >= 0, got -1.0"),
    ({"channel_weight": math.nan}, "weight must be a number >= 0, got nan"),
])
def test_bad_serving_options_are_refused(forward_torch, knobs, message):
    with pytest.raises(ValueError) as error:
        serve_engine(forward_torch, **knobs)
    assert str(error.value) == message


def test_a_hypothesis_the_reverse_model_cannot_read_goes_last(forward_torch, channel_torch):
    # A runaway output longer than the reverse model reads cannot be scored: it is ranked after
    # every scored one, whatever its forward score (a stub n-best list: the tiny model writes none).
    from bench.stub_engine import NBest

    runaway = " ".join(["music"] * 300)
    table = {"Ich liebe Musik.": [(runaway, -0.1), ("I love music.", -0.5), ("I like music.", -0.9)],
             "Wo ist der Bahnhof?": [("Where is the station?", -0.2)]}
    engine = ChannelReranked(NBest(forward_torch, table), channel_torch, ChannelOptions(weight=2.0))
    found = engine.translate_n_best(list(table), SearchOptions(beam_size=3, n_best=3))
    scores = channel_torch.score(["Ich liebe Musik."] * 2 + ["Wo ist der Bahnhof?"],
                                 ["I love music.", "I like music.", "Where is the station?"])
    expected = sorted([("I love music.", -0.5 + 2 * scores[0].per_piece),
                       ("I like music.", -0.9 + 2 * scores[1].per_piece)], key=lambda pair: -pair[1])
    assert found == [[*expected, (runaway, -math.inf)], [("Where is the station?", -0.2 + 2 * scores[2].per_piece)]]
    # a source it cannot write either: nothing to rerank by, the list as the model gave it
    long = " ".join(["Musik"] * 300)
    engine = ChannelReranked(NBest(forward_torch, {long: [("a", -0.3), ("b", -0.4)]}), channel_torch,
                             ChannelOptions(weight=2.0))
    assert engine.translate_n_best([long], SearchOptions(beam_size=2, n_best=2)) == [[("a", -0.3), ("b", -0.4)]]


def test_continuations_are_reranked_as_the_n_best_lists_are(forward_torch, channel_torch):
    # The text pipeline weighs continuations against the beam's hypotheses: both combined the same.
    from bench.stub_engine import NBest

    source = "Ich liebe Musik."
    hyps = [("I love music.", -0.5), ("I like music.", -0.9)]
    inner = NBest(forward_torch, {source: hyps}, {(source, "I"): hyps})
    engine = ChannelReranked(inner, channel_torch, ChannelOptions(weight=2.0))
    prefix = forward_torch.tokenizer.encode("I")
    assert engine.continue_n_best([source], [prefix], SearchOptions(beam_size=2), n=2) == \
        engine.translate_n_best([source], SearchOptions(beam_size=2, n_best=2))
    assert inner.continue_calls == [[(source, "I")]]


TABLE = {"Ich liebe Musik.": [("I love music.", -0.5), ("I like music.", -0.9), ("Me love music.", -1.4)],
         "Wo ist der Bahnhof?": [("Where is the station?", -0.2), ("Where's the station?", -0.6)],
         "Es regnet.": [("It is raining.", -0.1), ("It rains.", -0.7)]}


def test_a_beam_just_searched_and_scored_is_not_searched_again(forward_torch, channel_torch):
    # The text pipeline asks for the n-best list of a sentence right after its best translation.
    from bench.stub_engine import NBest

    first, second, third = TABLE
    inner = NBest(forward_torch, TABLE)
    engine = ChannelReranked(inner, channel_torch, ChannelOptions(weight=2.0))
    search = SearchOptions(beam_size=3, no_repeat_ngram_size=6)
    best = engine.translate([first, second], search)
    lists = engine.translate_n_best([second, first], replace(search, n_best=3))
    assert inner.n_best_calls == [[first, second]]
    fresh = ChannelReranked(NBest(forward_torch, TABLE), channel_torch, ChannelOptions(weight=2.0))
    assert lists == fresh.translate_n_best([second, first], replace(search, n_best=3))
    assert best == [lists[1][0][0], lists[0][0][0]]
    assert engine.translate_n_best([first], replace(search, n_best=1)) == [lists[1][:1]]
    # a new text alone is searched, once however often it is asked; other options search again
    engine.translate_n_best([third, first, third], replace(search, n_best=2))
    engine.translate_n_best([first], replace(search, beam_size=2, n_best=2))
    assert inner.n_best_calls == [[first, second], [third], [first]]


def test_a_served_translation_scores_only_the_contenders(forward_torch, channel_torch):
    from bench.stub_engine import NBest

    first, second, third = TABLE   # forward gaps: 0.4 and 0.9; 0.4; 0.6
    scored: list[tuple[str, str]] = []

    class Counting(ChannelScorer):
        def score_where_fits(self, sources, hypotheses, **kwargs):
            scored.extend(zip(sources, hypotheses))
            return super().score_where_fits(sources, hypotheses, **kwargs)

    counting = Counting(channel_torch.reverse)
    options = ChannelOptions(weight=2.0, margin=0.5, most=3)
    engine = ChannelReranked(NBest(forward_torch, TABLE), counting, options)
    search = SearchOptions(beam_size=3)
    served = engine.translate([first, second, third], search)
    assert scored == [(first, "I love music."), (first, "I like music."),
                      (second, "Where is the station?"), (second, "Where's the station?")]   # "It rains." is 0.6 off
    assert served[2] == "It is raining."
    for source, hyps, got in zip((first, second), (TABLE[first][:2], TABLE[second]), served):
        channel = channel_torch.score([source] * 2, [h for h, _ in hyps])
        combined = [f + 2.0 * c.per_piece for (_, f), c in zip(hyps, channel)]
        assert got == hyps[0 if combined[0] >= combined[1] else 1][0]
    # the n-best list then scores only what the choice did not
    engine.translate_n_best([first], replace(search, n_best=3))
    assert scored[4:] == [(first, "Me love music.")]
    # a source shorter than ``shortest`` pieces is served the forward model's best, unscored
    pieces = len(forward_torch.source_ids([second])[0])
    short = ChannelReranked(NBest(forward_torch, TABLE), counting, replace(options, shortest=pieces + 1))
    scored.clear()
    assert short.translate([second], search) == ["Where is the station?"] and scored == []
    assert short.beam([second], search) == [TABLE[second]] and scored == []   # its beam: the forward order
    just = ChannelReranked(NBest(forward_torch, TABLE), counting, replace(options, shortest=pieces))
    just.translate([second], search)
    assert scored == [(second, "Where is the station?"), (second, "Where's the station?")]


def test_the_served_beam_is_searched_once_and_apart_from_the_exact_n_best_list(forward_torch, channel_torch):
    # CTranslate2's own beam (patience 1) is not its exact n-best list: the served choice and
    # ``beam`` read the first, searched once; ``translate_n_best`` searches the second.
    from bench.stub_engine import NBest

    first = "Ich liebe Musik."
    quick = {first: [("I love music.", -0.5), ("I like the music.", -0.8), ("Love music.", -1.1)]}

    class TwoSearches(NBest):
        beam_exact = False

        def __init__(self, *args):
            super().__init__(*args)
            self.beam_calls: list[list[str]] = []

        def beam(self, texts, search):
            self.beam_calls.append(list(texts))
            return [quick[text] for text in texts]

    inner = TwoSearches(forward_torch, TABLE)
    engine = ChannelReranked(inner, channel_torch, ChannelOptions(weight=2.0, margin=1.5, most=3))
    search = SearchOptions(beam_size=3)
    served = engine.translate([first], search)[0]
    channel = channel_torch.score([first] * 3, [h for h, _ in quick[first]])
    combined = sorted(((f + 2.0 * c.per_piece, h) for (h, f), c in zip(quick[first], channel)), key=lambda p: -p[0])
    assert served == combined[0][1]
    assert engine.beam([first], search) == [[(h, pytest.approx(s)) for s, h in combined]]
    assert (inner.beam_calls, inner.n_best_calls) == ([[first]], [])    # the served beam, kept
    listed = engine.translate_n_best([first], replace(search, n_best=3))
    assert sorted(h for h, _ in listed[0]) == sorted(h for h, _ in TABLE[first])   # the exact list's own
    assert (inner.beam_calls, inner.n_best_calls) == ([[first]], [[first]])


def test_the_beam_the_channel_chooses_in_is_searched_wide(forward_torch, channel_torch):
    # A source of ``shortest`` pieces or more: its served beam searched ``wide_beam`` wide, and
    # read whole by ``beam``; a shorter source, and the exact n-best list, at the search's own
    # size. One engine call per search size.
    from bench.stub_engine import NBest

    long_text, short_text = "Ich liebe Musik.", "Es regnet."
    wide = {long_text: [("I love music.", -0.5), ("I like music.", -0.6), ("Me love music.", -0.7),
                        ("I love the music.", -0.8), ("Love music.", -2.0)]}

    class Sized(NBest):
        beam_exact = False

        def __init__(self, *args):
            super().__init__(*args)
            self.beam_calls: list[tuple[int, list[str]]] = []

        def beam(self, texts, search):
            self.beam_calls.append((search.beam_size, list(texts)))
            return [(wide[text] if search.beam_size == 5 else TABLE[text])[:search.beam_size] for text in texts]

    pieces = len(forward_torch.source_ids([long_text])[0])
    assert len(forward_torch.source_ids([short_text])[0]) < pieces
    inner = Sized(forward_torch, TABLE)
    engine = ChannelReranked(inner, channel_torch, ChannelOptions(weight=2.0, margin=1.5, most=3, shortest=pieces,
                                                                  wide_beam=5))
    search = SearchOptions(beam_size=3)
    served = engine.translate([long_text, short_text], search)
    assert inner.beam_calls == [(5, [long_text]), (3, [short_text])]
    contenders_ = wide[long_text][:3]   # the wide beam's best three, within 1.5 of the first
    channel = channel_torch.score([long_text] * 3, [h for h, _ in contenders_])
    combined = sorted(((f + 2.0 * c.per_piece, h) for (h, f), c in zip(contenders_, channel)), key=lambda p: -p[0])
    assert served == [combined[0][1], "It is raining."]
    # ``beam`` reads the same searches again: the long source's five reranked
    channel = channel_torch.score([long_text] * 5, [h for h, _ in wide[long_text]])
    whole = sorted(((f + 2.0 * c.per_piece, h) for (h, f), c in zip(wide[long_text], channel)), key=lambda p: -p[0])
    assert engine.beam([long_text, short_text], search) == [[(h, pytest.approx(f)) for f, h in whole],
                                                            TABLE[short_text]]
    assert len(inner.beam_calls) == 2 and inner.n_best_calls == []
    engine.translate_n_best([long_text], replace(search, n_best=3))   # the exact list: the search's size
    assert inner.n_best_calls == [[long_text]]
    # what the inspector's beam view traces: the served beam's search
    assert engine.served_search(pieces, search) == replace(search, beam_size=5)
    assert engine.served_search(pieces - 1, search) == search
    # not wider than the search: as if 0
    narrow = Sized(forward_torch, TABLE)
    ChannelReranked(narrow, channel_torch, ChannelOptions(weight=2.0, shortest=pieces, wide_beam=2)).translate(
        [long_text], search)
    assert narrow.beam_calls == [(3, [long_text])]


def test_only_the_latest_beams_are_kept(forward_torch, channel_torch, monkeypatch):
    from bench.stub_engine import NBest
    from model.inference import channel

    monkeypatch.setattr(channel, "RECENT_BEAMS", 2)
    first, second, third = TABLE
    inner = NBest(forward_torch, TABLE)
    engine = ChannelReranked(inner, channel_torch, ChannelOptions(weight=2.0))
    search = SearchOptions(beam_size=3)
    for text in (first, second, first, third):   # first used again: second is the oldest
        engine.translate([text], search)
    engine.translate([first], search)
    engine.translate([second], search)
    assert inner.n_best_calls == [[first], [second], [third], [second]]
