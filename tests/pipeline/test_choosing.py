"""pipeline/choosing.py: the one caller of the engine for translations. What it chooses is tested
with the pipeline (test_translation.py, test_coverage.py, test_formality.py, test_harm.py); here,
that every model call of a translation goes through it, and its joining of pieces."""

from __future__ import annotations

import ast
from dataclasses import replace

from model.inference.alignment import AlignedText
from model.search.options import SERVED
from pipeline.choosing import Chooser, concat
from pipeline.translation import Options, Pipeline
from tests.conftest import ROOT

ENGINE_CALLS = {"translate", "translate_aligned", "translate_n_best", "beam", "continue_n_best", "output_ids"}


def test_the_pipeline_calls_the_engine_for_translations_only_through_the_chooser():
    # (Pipeline.translate_n_best too: the alternatives a user is offered are Chooser.alternatives)
    tree = ast.parse((ROOT / "pipeline" / "translation.py").read_text(encoding="utf-8"))
    calls = {node.func.attr for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and ast.unparse(node.func.value).endswith("translator")}
    assert calls & ENGINE_CALLS == set()


def test_a_pipeline_has_its_chooser(tiny_checkpoint):
    from model.inference.translator import Translator

    translator = Translator.from_checkpoint(tiny_checkpoint, device="cpu")
    pipeline = Pipeline(translator, Options(search=replace(SERVED, beam_size=1)))
    chooser = pipeline.chooser
    assert isinstance(chooser, Chooser) and chooser.translator is translator and chooser.source == "de"
    assert pipeline.model_outputs(["Wo ist der Bahnhof?"], False) == chooser.outputs(["Wo ist der Bahnhof?"], False)


def test_concat_joins_pieces_fitted_to_their_sentence():
    source = "Ich komme, wenn es regnet."
    parts = [AlignedText("Ich komme,", "I am coming.", [(0, 3), (4, 9)], [(0, 1), (2, 4), (5, 11)],
                         [(0, 0), (2, 1)]),
             AlignedText("wenn es regnet.", "When it rains.", [(0, 4), (5, 7), (8, 14)],
                         [(0, 4), (5, 7), (8, 13)], [(0, 0), (1, 1), (2, 2)])]
    joined = concat(source, [(0, 10), (11, 26)], parts)
    # the second part's words and links shifted to its place in the sentence
    assert joined.source_words == [(0, 3), (4, 9), (11, 15), (16, 18), (19, 25)]
    assert joined.links == [(0, 0), (2, 1), (3, 2), (4, 3), (5, 4)]
    text_only = concat(source, [(0, 10), (11, 26)], [AlignedText("Ich komme,", "I am coming."),
                                                     AlignedText("wenn es regnet.", "When it rains.")])
    # no full stop inside the sentence, lower case where its piece starts lower case
    assert (text_only.target, text_only.source_words) == ("I am coming, when it rains.", [])
