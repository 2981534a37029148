"""app/modelcard.py: the /model page's data from checkpoint metadata, every key optional."""

from app.modelcard import DEFAULT_ATTRIBUTION, curve_charts, data_facts


def test_curves_grouped_with_their_steps():
    curves = {"step": [10, 20], "train_loss": [3.0, 2.0], "dev_loss": [3.5, 2.5], "dev_bleu": [1.0, 5.0], "lr": [1e-3, 9e-4]}
    charts = curve_charts(curves)
    assert [c["title"] for c in charts] == ["Loss (per token)", "Dev BLEU", "Learning rate"]
    loss = charts[0]["series"]
    assert [s["name"] for s in loss] == ["train loss", "dev loss"]
    assert all(s["x"] == [10, 20] for c in charts for s in c["series"])


def test_dev_curves_at_their_own_steps():
    curves = {"step": [1, 2, 3, 4], "train_loss": [4, 3, 2, 1], "dev_step": [2, 4], "dev_bleu": [5.0, None]}
    charts = {c["title"]: c for c in curve_charts(curves)}
    assert charts["Dev BLEU"]["series"][0]["x"] == [2, 4]
    assert charts["Loss (per token)"]["series"][0]["x"] == [1, 2, 3, 4]


def test_odd_curves_are_skipped_or_indexed():
    assert curve_charts(None) == [] and curve_charts({"step": []}) == []
    charts = curve_charts({"dev_bleu": [1.0, 2.0], "notes": "text", "empty": [], "mixed": [1, "a"], "grad_norm": [0.5]})
    assert charts == [{"id": "curve-bleu", "title": "Dev BLEU", "series": [{"name": "dev bleu", "x": [1, 2], "y": [1.0, 2.0]}]},
                      {"id": "curve-other", "title": "Other", "series": [{"name": "grad norm", "x": [1], "y": [0.5]}]}]


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


def test_data_facts_without_data():
    assert data_facts({}) == ([], DEFAULT_ATTRIBUTION, False)
    assert data_facts({"data": "weird"}) == ([], DEFAULT_ATTRIBUTION, False)
