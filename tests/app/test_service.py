"""app/service.py: the translator behind the views, on the tiny checkpoint."""

import random

import pytest
import torch

from app.service import Corpus, TranslationService, chrf, get_service, thread_count
from model.search.options import SearchOptions


@pytest.fixture(scope="module")
def service(app) -> TranslationService:
    with app.app_context():
        return get_service()


def test_loaded_once_per_app(app, service):
    with app.app_context():
        assert get_service() is service
    assert service.translator.device == torch.device("cpu")


def test_one_search_for_the_pipeline_and_the_inspector(service):
    # BEAM_SIZE=1 (app_config) in the served search: n-gram blocking of 6 as the pipeline's loop guard
    assert service.search == SearchOptions(beam_size=1, length_penalty=0.6, no_repeat_ngram_size=6, batch_size=64)
    assert service.pipeline.options.search is service.search


def test_translates_every_corpus_sentence(service, pairs40):
    assert service.translate([de for de, _ in pairs40]) == [en for _, en in pairs40]


def test_long_input_is_split_batched_and_keeps_paragraphs(service, model_calls):
    text = "Guten Morgen. Vielen Dank.\n\nIch habe Hunger.\nEs regnet."
    assert service.translate([text, "Die Katze schläft."]) == [
        "Good morning. Thank you very much.\n\nI am hungry.\nIt is raining.", "The cat is sleeping."]
    assert model_calls == [["Guten Morgen.", "Vielen Dank.", "Ich habe Hunger.", "Es regnet.", "Die Katze schläft."]]


def test_inference_mode_and_no_grad(service, monkeypatch):
    seen = []
    original = service.translator.translate
    monkeypatch.setattr(service.translator, "translate",
                        lambda texts, *search: seen.append(torch.is_inference_mode_enabled()) or original(texts, *search))
    service.translate(["Es regnet."])
    assert seen == [True]


def test_alternatives_differ_from_the_best_and_each_other(service):
    best, alternatives = service.translate_with_alternatives(["Guten Morgen.", "Es regnet. Ich bin müde."], 2)
    assert best == ["Good morning.", "It is raining. I am tired."]
    for text, others in zip(best, alternatives):
        assert len(others) <= 2
        assert text not in others and "" not in others
        assert len(set(others)) == len(others)


def test_html(service):
    assert service.translate(["<p>Guten Morgen.</p>"], html=True) == ["<p>Good morning.</p>"]


def test_attention_shapes_and_rows(service):
    result = service.attention("Guten Morgen.")
    config = service.translator.config
    S, T = len(result["source_tokens"]), len(result["target_tokens"])
    assert result["translation"] == "Good morning."
    assert len(result["decoder_input_tokens"]) == T
    shapes = {"encoder": (config.encoder_layers, S, S), "decoder": (config.decoder_layers, T, T),
              "cross": (config.decoder_layers, T, S)}
    for kind, (layers, rows, cols) in shapes.items():
        weights = result["attention"][kind]
        assert len(weights) == layers and all(len(layer) == config.n_heads for layer in weights)
        for layer in weights:
            for head in layer:
                assert len(head) == rows and all(len(row) == cols for row in head)
                assert all(abs(sum(row) - 1) < 2e-3 for row in head)


def test_random_example(service, pairs40):
    example = service.random_example(random.Random(0))
    references = [en for de, en in pairs40 if de == example["source"]]
    assert example["references"] == references
    assert example["translation"] == references[0]
    assert example["chrf"] == 100.0
    assert example["split"] == "train"


def test_references_name_the_sample_that_holds_the_sentence(service, pairs40):
    # app_config keeps HELD_OUT_PATH's default: the shipped held-out sample
    held_out = service.random_example(random.Random(0), split="test")
    assert held_out["split"] == "test" and held_out["source"] in service.held_out.sources
    assert service.references_for(held_out["source"]) == (held_out["references"], "test")
    assert service.references_for(pairs40[0][0]) == ([pairs40[0][1]], "train")
    assert service.references_for("Guten Morgen. Es regnet.") == ([], None)


def test_corpus_groups_references(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text("Hello.\tHallo.\nHi.\tHallo.\nBye.\t Tschüss. \n\tLeer.\n", encoding="utf-8")
    corpus = Corpus.load(str(path))
    assert corpus.sources == ["Hallo.", "Tschüss."]
    assert corpus.references == [["Hello.", "Hi."], ["Bye."]]
    assert corpus.references_for("  Tschüss.") == ["Bye."]
    assert corpus.references_for("Unbekannt.") == []


def test_chrf():
    assert chrf("Good morning.", ["Good morning."]) == 100.0
    assert 0 <= chrf("Bad.", ["Good morning.", "Morning!"]) < 50


@pytest.mark.parametrize("setting, env, cores, expected", [
    (3, {}, 8, 3),                          # TORCH_THREADS wins
    (0, {}, 8, 8),                          # one process: all cores
    (0, {"WEB_CONCURRENCY": "2"}, 8, 4),    # cores shared among workers
    (0, {"WEB_CONCURRENCY": "4"}, 2, 1),    # never below 1
    (0, {"WEB_CONCURRENCY": "x"}, 2, 2),
])
def test_thread_count(monkeypatch, setting, env, cores, expected):
    monkeypatch.setattr("app.service.available_cpus", lambda: cores)
    assert thread_count(setting, env) == expected
