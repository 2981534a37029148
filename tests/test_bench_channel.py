"""bench/channel.py: its arguments, its refusal of a forward model as the channel, and a run on the
tiny models, which know their 40 pairs by heart."""

from __future__ import annotations

import re
import sys

import pytest
import torch

from model.network.checkpoint import save_checkpoint
from model.network.tokenizer import Tokenizer
from model.network.transformer import Transformer
from tests.conftest import PAIRS40, ROOT
from tests.model.search.test_decoding import CFG

sys.path.insert(0, str(ROOT / "bench"))
import channel as bench_channel  # noqa: E402

DATA = ["--data", str(PAIRS40)]


@pytest.mark.parametrize(("args", "message"), [
    (["--channel", "r.pt"], "give --data CORPUS, or --src FILE with --ref FILE"),
    (["--channel", "r.pt", "--src", "a.de"], "give --data CORPUS, or --src FILE with --ref FILE"),
    (["--channel", "r.pt", *DATA, "--src", "a.de", "--ref", "a.en"],
     "give --data CORPUS, or --src FILE with --ref FILE"),
    (["--channel", "r.pt", *DATA, "--weights", "0,x"], "--weights must be numbers separated by commas, got '0,x'"),
    (["--channel", "r.pt", *DATA, "--length-bonuses", "0,-1"], "--length-bonuses must be numbers >= 0, got '0,-1'"),
    (["--channel", "r.pt", *DATA, "--n", "1"], "--n must be >= 2, got 1"),
    (["--channel", "r.pt", *DATA, "--margins", "1,-inf"], "--margins must be numbers >= 0 or inf, got '1,-inf'"),
    (["--channel", "r.pt", *DATA, "--most", "inf"], "--most must be numbers >= 0, got 'inf'"),
    (["--channel", "r.pt", *DATA, "--most", "2.5"], "--most must be integers >= 0, got '2.5'"),
    (["--channel", "r.pt", *DATA, "--limit", "0"], "--limit must be >= 1, got 0"),
    (["--channel", "r.pt", *DATA, "--skip", "-1"], "--skip must be >= 0, got -1"),
    (["--channel", "r.pt", *DATA, "--skip", "40"], "--skip 40 leaves no sources"),   # the 40 pairs' 40 sources
    ([*DATA], "the following arguments are required: --channel"),
])
def test_bad_arguments_give_one_line_errors(capsys, args, message):
    assert bench_channel.main(args) == 2
    assert capsys.readouterr().err == f"bench/channel.py: error: {message}\n"


def test_a_forward_model_as_the_channel_is_refused(capsys, tmp_path, pairs40):
    tokenizer = Tokenizer.train([s for p in pairs40 for s in p], 200)
    path = tmp_path / "forward.pt"
    save_checkpoint(path, Transformer(CFG.replace(vocab_size=tokenizer.vocab_size)), tokenizer, {"direction": "de-en"})
    assert bench_channel.main(["--channel", str(path), *DATA, "--dictionary", ""]) == 2
    assert capsys.readouterr().err == (f"bench/channel.py: error: {str(path)!r} translates de-en, not en-de: the noisy "
                                       "channel of de-en needs a reverse model (train.py --direction en-de)\n")


@pytest.mark.parametrize("channel_engine, named", [("torch", "fp32"), ("ct2", "ct2 int8")])
def test_a_run_on_the_tiny_models(capsys, tiny_checkpoint, reverse_checkpoint, channel_engine, named):
    threads = torch.get_num_threads()
    try:
        status = bench_channel.main(["--checkpoint", str(tiny_checkpoint), "--channel", str(reverse_checkpoint),
                                     "--engine", "torch", "--dictionary", "", *DATA, "--limit", "6", "--n", "3",
                                     "--threads", "1", "--weights", "0,100", "--length-bonuses", "0,100", "--show",
                                     "--channel-engine", channel_engine, "--margins", "inf,0"])
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert out[0] == ("bench/channel.py: 6 sources, n=3 (3.00 distinct hypotheses per source), forward best.pt on "
                      f"torch, channel best.pt ({named}), 1 thread(s)")
    assert out[1:3] == ["| rerank | chrF | BLEU | picks changed | pairs scored | beams unscored | p |",
                        "| --- | --- | --- | --- | --- | --- | --- |"]
    rows = {label: (float(chrf), float(bleu), int(changed), scored, unscored, p)
            for label, chrf, bleu, changed, scored, unscored, p in (line.strip("| ").split(" | ") for line in out[3:13])}
    # Served, the forward model's first hypothesis is each reference; the reverse model agrees with
    # it whatever its weight; a large length bonus takes longer hypotheses instead.
    for label in ("w=0 bonus=0", "w=100 bonus=0"):
        assert rows[label] == (100.0, 100.0, 0, "18", "0", "–")   # every hypothesis of every source scored
    for label in ("served (translate)", "oracle (sentence chrF)"):
        assert rows[label] == (100.0, 100.0, 0, "–", "–", "–")
    for label in ("w=0 bonus=100", "w=100 bonus=100"):
        chrf, _, changed, scored, unscored, p = rows[label]
        assert chrf < 100.0 and changed >= 1 and (scored, unscored) == ("18", "0") and 0 < float(p) <= 1
    # margin 0: only hypotheses as good as the best contend; the tiny model's best stands alone
    for label in ("w=0 bonus=100 margin=0 most=0", "w=100 bonus=100 margin=0 most=0"):
        assert rows[label] == (100.0, 100.0, 0, "0", "6", "–")
    assert out[13].startswith("median ms per source: translate ")
    assert out[14:] == ["best chrF at w=0 bonus=0: +0.00 over served",  # the first of equals
                        "", "changed picks at w=0 bonus=0:"]


def test_what_reranking_costs_on_the_bare_engines(capsys, tiny_checkpoint, reverse_checkpoint):
    threads = torch.get_num_threads()
    try:
        status = bench_channel.main(["--checkpoint", str(tiny_checkpoint), "--channel", str(reverse_checkpoint),
                                     "--engine", "ct2", "--channel-engine", "ct2", "--dictionary", "", *DATA,
                                     "--limit", "4", "--n", "4", "--threads", "1", "--bare"])
    finally:
        torch.set_num_threads(threads)
    assert status == 0
    assert re.fullmatch(r"bench/channel\.py: 4 sources one at a time, bare engines \(forward ct2, channel ct2\), "
                        r"median ms: translate \d+\.\d, 4-best \d+\.\d, channel \d+\.\d; reranked / translate "
                        r"\d+\.\d\d\n", capsys.readouterr().out)
