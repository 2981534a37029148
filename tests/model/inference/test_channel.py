"""model/inference/channel.py: the noisy channel's scores, its direction check and the reranking.

The scores are worked out by hand on the pinned model of test_decoding.py (the same logits at every
step, whatever the source), with a tokenizer of the 40 pairs; the trained tiny reverse model
(tests/conftest.py) shows that the channel prefers a source's own translation."""

from __future__ import annotations

import math

import pytest
import torch

from model.data import normalize
from model.inference.channel import ChannelOptions, ChannelScore, ChannelScorer, rerank
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
        assert (found.pieces, found.english_pieces) == (len(german) + 1, len(tokenizer.encode(en)))
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
    assert [s.logprob for s in one_by_one] == pytest.approx([s.logprob for s in scores], abs=1e-5)


@pytest.mark.parametrize("meta", [{"direction": "de-en"}, {}])  # files without a direction are de-en
def test_a_forward_checkpoint_is_refused_in_one_line(tmp_path, model, tokenizer, meta):
    path = tmp_path / "forward.pt"
    save_checkpoint(path, model, tokenizer, meta)
    with pytest.raises(CheckpointError) as error:
        ChannelScorer.from_checkpoint(path, device="cpu")
    assert str(error.value) == (f"{str(path)!r} translates de-en, not en-de: the noisy channel needs a reverse "
                                "model (train.py --direction en-de)")


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


def test_combined_score_and_rerank():
    # per piece: -1.5 and -0.5; English per German piece: 0.5 and 1.25
    short = ChannelScore(logprob=-6.0, pieces=4, english_pieces=2)
    full = ChannelScore(logprob=-2.0, pieces=4, english_pieces=5)
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


@pytest.mark.parametrize(("knobs", "message"), [
    ({"weight": -0.1}, "weight must be a number >= 0, got -0.1"),
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
    assert [(s.pieces, s.english_pieces) for s in ct2_scores] == [(s.pieces, s.english_pieces) for s in torch_scores]
    assert [s.logprob for s in ct2_scores] == pytest.approx([s.logprob for s in torch_scores], rel=0.01)
    assert ct2.score([], []) == []
    int8 = ChannelScorer.from_checkpoint(reverse_checkpoint, device="cpu", engine="ct2", threads=1)
    own, other = int8.score(german[:40], [en for _, en in pairs40]), int8.score(german[:40], english[:40])
    assert sum(a.logprob > b.logprob for a, b in zip(own, other)) == len(pairs40)


def test_an_unknown_engine_is_refused(reverse_checkpoint):
    with pytest.raises(ValueError) as error:
        ChannelScorer.from_checkpoint(reverse_checkpoint, device="cpu", engine="onnx")
    assert str(error.value) == "engine must be torch or ct2, got 'onnx'"


def test_a_forward_model_is_no_channel(tiny_checkpoint):
    with pytest.raises(CheckpointError, match=r"translates de-en, not en-de: the noisy channel needs a reverse"):
        ChannelScorer.from_checkpoint(tiny_checkpoint, device="cpu")
