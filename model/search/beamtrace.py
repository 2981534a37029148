"""A record of a beam search as it happened, for the translation inspector's ``/api/beam``.

``BeamTrace`` is a ``decoding.BeamRecorder``: ``beam_search(..., recorder=trace)`` hands it every
step, so the trace is the search itself, not a re-enactment that could drift from it. Per step and
sentence it keeps every candidate the search scored (the best 2K extensions of the K live
hypotheses; non-finite ones, which are no hypotheses, left out), best first, each with:

- ``id`` "step.rank" (rank among the step's candidates) and ``parent``, the id of the live
  hypothesis it extends ("0.0" is the empty start);
- ``piece`` (the piece it adds, "</s>" for EOS), ``pieces`` (its output so far, EOS not included)
  and ``logprob`` (cumulative log-probability);
- ``status``: ``alive`` (kept in the beam for the next step), ``ended`` (EOS: a finished
  translation, with its length-penalized ``score`` and ``reason`` ``eos``, or ``max_length`` when
  the length budget forced the EOS) or ``pruned`` (``reason`` ``beam``: not among the best K, or an
  EOS after K translations had ended; ``finished``: still alive when the search stopped).

``result`` adds why the search stopped (``beam_full``: K translations ended, fairseq's rule;
``max_length``; ``no_alive``: every extension was blocked) and the winner, found among the ended
hypotheses by the search's own answer so that the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from model.search.decoding import BeamStep, Hypothesis
from model.network.tokenizer import EOS_ID

ROOT_ID = "0.0"


@dataclass
class _Sentence:
    slots: dict[int, tuple[str, list[int]]] = field(default_factory=lambda: {0: (ROOT_ID, [])})  # slot -> id, tokens
    steps: list[dict[str, Any]] = field(default_factory=list)
    ended: list[dict[str, Any]] = field(default_factory=list)
    stop: str = ""


class BeamTrace:
    """Records the steps of a beam search over any number of sentences (see the module docstring).

    ``pieces`` turns ids into piece strings (``Tokenizer.pieces``)."""

    def __init__(self, pieces: Callable[[Sequence[int]], list[str]]):
        self.pieces = pieces
        self.sentences: dict[int, _Sentence] = {}

    def __call__(self, step: BeamStep) -> None:
        ended = {(row, col): score for row, col, score in step.ended}
        beam, token, logprob = step.beam.tolist(), step.token.tolist(), step.logprob.tolist()
        kept = step.kept.tolist()
        for row, index in enumerate(step.sentences):
            sentence = self.sentences.setdefault(index, _Sentence())
            at_limit, done = bool(step.at_limit[row]), bool(step.done[row])
            hypotheses, alive = [], {}
            for col, (slot, tok, lp) in enumerate(zip(beam[row], token[row], logprob[row])):
                if lp == float("-inf") or slot not in sentence.slots:
                    continue
                parent, tokens = sentence.slots[slot]
                h = {"id": f"{step.t + 1}.{col}", "parent": parent, "piece": self.pieces([tok])[0],
                     "pieces": self.pieces(tokens if tok == EOS_ID else tokens + [tok]), "logprob": lp}
                if (row, col) in ended:
                    h.update(status="ended", reason="max_length" if at_limit else "eos", score=ended[row, col])
                    sentence.ended.append({**h, "tokens": tokens})
                elif tok != EOS_ID and col in kept[row] and not done:
                    h["status"] = "alive"
                    alive[kept[row].index(col)] = (h["id"], tokens + [tok])
                else:
                    finished = done and tok != EOS_ID and col in kept[row]  # kept for a step that never came
                    h.update(status="pruned", reason="finished" if finished else "beam")
                hypotheses.append(h)
            sentence.steps.append({"step": step.t + 1, "hypotheses": hypotheses})
            sentence.slots = alive
            if done:
                full = len(sentence.ended) >= len(kept[row])
                sentence.stop = "max_length" if at_limit else "beam_full" if full else "no_alive"

    def result(self, sentence: int, best: Hypothesis) -> dict[str, Any]:
        """``steps``, ``stop_reason`` and ``winner`` of one sentence; ``best`` is beam_search's
        best hypothesis for it (the trace must have recorded that very search)."""
        record = self.sentences.get(sentence)
        if record is None:
            raise ValueError(f"no steps were recorded for sentence {sentence!r}")
        match = next((h for h in record.ended if h["tokens"] == best.tokens and h["score"] == best.score), None)
        if match is None:
            raise ValueError(f"the best hypothesis {best!r} is not among the recorded ones: another search?")
        winner = {"id": match["id"], "pieces": match["pieces"], "logprob": match["logprob"], "score": match["score"]}
        return {"steps": record.steps, "stop_reason": record.stop, "winner": winner}

    def ended_tokens(self, sentence: int) -> dict[str, list[int]]:
        """The output ids (EOS not included) of each hypothesis of ``sentence`` that ended, by id."""
        record = self.sentences.get(sentence)
        return {} if record is None else {h["id"]: h["tokens"] for h in record.ended}
