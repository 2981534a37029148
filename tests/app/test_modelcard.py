"""app/modelcard.py: the /model page's data from checkpoint metadata, every key optional."""

from app.modelcard import DEFAULT_ATTRIBUTION, curve_charts, curve_values, data_facts


def test_curves_grouped_with_their_steps():
    curves = {"step": [10, 20], "train_loss": [3.0, 2.0], "dev_loss": [3.5, 2.5], "dev_bleu": [1.0, 5.0], "lr": [1e-3, 9e-4]}
    charts = curve_charts(curves)
    assert [c["title"] for c in charts] == ["Loss (per token)", "Dev BLEU", "Learning rate"]
    loss = charts[0]["series"]
    assert [s["name"] for s in loss] == ["train loss", "dev loss"]
    assert all(s["x"] == [10, 20] for c in charts for s in c["series"])


def test_dev_curves_at_their_own_steps():
    curves = {"step": [1, 2, 3, 4], "train_loss": [4, 3, 2, 1], "dev_step": [2, 4, 6], "dev_bleu": [5.0, None, 6.0]}
    charts = {c["title"]: c for c in curve_charts(curves)}
    assert charts["Dev BLEU"]["series"][0]["x"] == [2, 4, 6]
    assert charts["Loss (per token)"]["series"][0]["x"] == [1, 2, 3, 4]


def test_odd_curves_are_skipped_or_indexed():
    assert curve_charts(None) == [] and curve_charts({"step": []}) == []
    charts = curve_charts({"dev_bleu": [1.0, 2.0], "notes": "text", "empty": [], "mixed": [1, "a"],
                           "grad_norm": [0.5, 0.25]})
    assert charts == [{"id": "curve-bleu", "title": "Dev BLEU", "series": [{"name": "dev bleu", "x": [1, 2], "y": [1.0, 2.0]}]},
                      {"id": "curve-other", "title": "Other", "series": [{"name": "grad norm", "x": [1, 2], "y": [0.5, 0.25]}]}]


def test_a_series_of_one_point_is_listed_not_drawn():
    # the release checkpoint's curves: one evaluation (step 1,000) each
    curves = {"step": [1000], "train_loss": [2.1002], "dev_loss": [0.8612], "dev_bleu": [56.02], "lr": [2.236e-4]}
    assert curve_charts(curves) == []
    assert curve_values(curves) == [("train loss", "2.1002 at step 1,000"), ("dev loss", "0.8612 at step 1,000"),
                                    ("dev bleu", "56.02 at step 1,000"), ("lr", "2.24e-04 at step 1,000")]
    # a lone point among curves: the curves drawn, the point listed (without a step where none fits)
    mixed = {"step": [1, 2], "train_loss": [3.0, 2.0], "grad_norm": [0.5], "dev_bleu": [None, 4.0]}
    assert [c["title"] for c in curve_charts(mixed)] == ["Loss (per token)"]
    assert curve_values(mixed) == [("grad norm", "0.5"), ("dev bleu", "4 at step 2")]
    assert curve_values(None) == [] and curve_values({"lr": []}) == []


def test_the_learning_rate_axis_is_in_scientific_notation():
    charts = {c["title"]: c for c in curve_charts({"step": [1, 2], "lr": [1e-4, 2e-4], "dev_bleu": [1.0, 2.0]})}
    assert charts["Learning rate"]["yformat"] == ".1e" and "yformat" not in charts["Dev BLEU"]


def test_data_facts_with_licence_in_meta():
    meta = {"data": {"train_pairs": 10, "sha256": {"train": "abc"}, "source": "Tatoeba", "license": "CC BY 2.0 FR"}}
    rows, license, from_meta = data_facts(meta)
    assert rows == [("train pairs", "10"), ("sha256", "train: abc")]
    assert license == {"source": "Tatoeba", "license": "CC BY 2.0 FR"} and from_meta


def test_data_facts_of_several_corpora_and_the_weights_licence():
    meta = {"data": {"train_pairs": 30, "corpora": [{"corpus": "deu-eng.zip", "weight": 1.0, "train_pairs": 1200},
                                                    {"corpus": "ding-words:de-en@0.1", "weight": 0.1, "train_pairs": 20}],
                     "attribution": "Tatoeba, CC-BY 2.0 (France); Ding, GPL-2.0-or-later", "license": "GPL-2.0-or-later"}}
    rows, license, from_meta = data_facts(meta)
    assert rows == [("train pairs", "30"), ("corpora", "deu-eng.zip: 1,200 pairs, weight 1; "
                                                      "ding-words:de-en@0.1: 20 pairs, weight 0.1")]
    assert license == {"attribution": "Tatoeba, CC-BY 2.0 (France); Ding, GPL-2.0-or-later",
                       "license": "GPL-2.0-or-later"} and from_meta


def test_data_facts_name_the_corpora_a_mixture_was_written_from():
    meta = {"data": {"train_pairs": 5, "sources": [
        {"corpus": "deu-eng.zip@1.5", "sha256": "5a01", "file": "00-pairs-deu-eng.tsv.gz", "train_pairs": 3},
        {"corpus": "gettext:/usr/share/locale/de/LC_MESSAGES", "sha256": "d8cc", "file": "01-gettext.tsv.gz",
         "train_pairs": 2}]}}
    rows, _, _ = data_facts(meta)
    assert rows == [("train pairs", "5"), ("sources", "deu-eng.zip@1.5: 3 pairs, SHA-256 5a01; "
                                                      "gettext:/usr/share/locale/de/LC_MESSAGES: 2 pairs, SHA-256 d8cc")]


def test_data_facts_without_data():
    assert data_facts({}) == ([], DEFAULT_ATTRIBUTION, False)
    assert data_facts({"data": "weird"}) == ([], DEFAULT_ATTRIBUTION, False)


# ------------------------------------------------------------------------------ which BLEU is which

RELEASE_LIKE = {
    "dev_bleu": 50.33,
    "train_args": {"data": ["/data/tatoeba-deu-eng/deu-eng.zip", "ding-words:/usr/share/trans/de-en@0.1"],
                   "eval_sentences": 1000},
    "data": {"dev_pairs": 2000, "test_pairs": 2001},
    "curves": {"step": [500, 1000, 1500, 2000], "dev_bleu": [49.41, 49.93, 50.33, 50.28]},
    "averaged_from": [{"file": "de-en.pt", "step": 12000}, {"file": "step-0002000.pt", "step": 2000}],
}


def test_dev_bleu_says_its_set_search_and_when():
    from app.modelcard import dev_bleu_facts

    facts = dev_bleu_facts(RELEASE_LIKE)
    assert facts["value"] == 50.33 and facts["split"] == "the dev split of Tatoeba (deu-eng.zip)"
    assert facts["text"] == (
        "Measured on the dev split of Tatoeba (deu-eng.zip), up to 1,000 of its sources spread evenly (the split "
        "has 2,000 pairs), with all their references; greedy search, the bare model (no text pipeline); the best "
        "of the run's evaluations during training (step 1,500); measured before averaging: this checkpoint "
        "averages 2 checkpoints and carries the metadata of one.")


def test_dev_bleu_of_a_valid_file_and_of_checkpoints_that_say_less():
    from app.modelcard import dev_bleu_facts

    facts = dev_bleu_facts({"dev_bleu": 12.5, "train_args": {"valid": "runs/x/dev.tsv", "data": ["a.tsv"]}})
    assert facts["text"] == ("Measured on dev.tsv (--valid); greedy search, the bare model (no text pipeline); the "
                             "best of the run's evaluations during training.")
    assert dev_bleu_facts({"dev_bleu": 3.0})["split"] == "the dev split of the training corpus"
    assert dev_bleu_facts({}) is None and dev_bleu_facts({"dev_bleu": "n/a"}) is None


def test_the_shipped_checkpoints_dev_bleu_is_labelled_from_its_meta(release_checkpoint):
    import torch

    from app.modelcard import dev_bleu_facts

    meta = torch.load(release_checkpoint, map_location="cpu", weights_only=True)["meta"]
    facts = dev_bleu_facts(meta)
    assert facts["value"] == meta["dev_bleu"]
    assert facts["split"] == "the dev split of Tatoeba (deu-eng.zip) (--valid dev.tsv, written by commands.mixture)"
    assert facts["search"] == "greedy search, the bare model (no text pipeline)"
    assert f"up to {meta['train_args']['eval_sentences']:,} of its sources" in facts["sample"]


def test_the_model_page_says_which_bleu_it_shows(client):
    import re
    from html import unescape

    html = client.get("/model").get_data(as_text=True)
    dev = " ".join(unescape(re.search(r'<dd id="dev-bleu">(.*?)</dd>', html, re.S)[1]).split())
    dev = re.sub(r"<[^>]+>", "", dev)
    assert dev.startswith("100.0 Measured on pairs40.tsv (--valid), up to 1,000 of its sources spread evenly (the "
                          "split has 40 pairs), with all their references; greedy search, the bare model (no text "
                          "pipeline); the best of the run's evaluations during training (step ")
    assert dev.endswith("Not the headline figure: the README and the model card give test BLEU, on the Tatoeba test "
                        "split (held out like the dev split), with beam 4, through the text pipeline (python -m "
                        "commands.evaluate). Model card.")
    assert "<dt>best dev BLEU (greedy, dev split)</dt>" in html
