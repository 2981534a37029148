"""The shipped English→German model, checkpoints/en-de.pt: size, provenance, licence, the card, translations.

As tests/test_release.py does for de-en.pt: these tests pin what was shipped, and change with the file.
"""

from __future__ import annotations

import io
import os
import subprocess

import polib
import pytest
import torch

from app import create_app
from app.settings import DEFAULTS, SHIPPED_EN_DE
from model.data.software import directives
from model.inference.translator import Translator
from model.network.checkpoint import read_checkpoint
from model.network.config import preset
from model.search.options import SearchOptions
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # loads the release models

CARD = ROOT / "MODEL_CARD.md"
CATALOG = ROOT / "tests" / "data" / "en-catalog.po"   # 22 entries written for this test
# What en-de.pt was trained on (MODEL_CARD.md, "English→German"): the SHA-256s of the corpora as read
TATOEBA_SHA256 = "5a014e53a7fa3ec5f9e0ec7f6b27c2ef88e5d247c5074eaaa173f411c15aba77"
DING_SHA256 = "34052c6021d09eadfee7a893a789204265954df70fe9c36d38fa00058d79d326"
CATALOGS_SHA256 = "c33a610d7cf87bbc60c72dbf449c6feec00ecc3606e9743c4b1fcf67fd966f82"   # GPL-2.0-only ones left out
LIBREOFFICE_UI_SHA256 = "2d54be4238f0c6308ac12ad8c019ccec48fd08efa307dffc3a8cf1a05e8528a8"
MOZILLA_SHA256 = "ef368822419307c1eda9ee578976ec82bfdf30a6aaed46b73492874fea23abf7"
LIBREOFFICE_HELP_SHA256 = "bd890e623a04426b2378c62f105739a06dcf19058c880414569e00c2b142007c"
MT4ALL_SHA256 = "35971d53004cb718f5f00fda8885cd6285a731e8ae4d41f48aa6cbd6e2ff93bc"
SHA256S = [TATOEBA_SHA256, DING_SHA256, DING_SHA256, CATALOGS_SHA256, LIBREOFFICE_UI_SHA256, MOZILLA_SHA256,
           LIBREOFFICE_HELP_SHA256, MT4ALL_SHA256]


@pytest.fixture(scope="module")
def release() -> dict:
    return read_checkpoint(SHIPPED_EN_DE)


@pytest.fixture(scope="module")
def translator() -> Translator:
    return Translator.from_checkpoint(SHIPPED_EN_DE, device="cpu")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """The app with its default models, the shipped pair, on the engine and beam size as served."""
    app = create_app({
        **DEFAULTS, "TESTING": True, "ENGINE": "ct2", "BEAM_SIZE": 4, "DEVICE": "cpu", "CORPUS_PATH": "",
        "TORCH_THREADS": torch.get_num_threads(),
        "GLOSSARY_DB": str(tmp_path_factory.mktemp("glossaries") / "glossaries.sqlite3"),
    })
    assert list(app.config["MODELS"]) == ["de-en", "en-de"]
    return app.test_client()


def test_file_is_small_and_fp16(release):
    assert os.path.getsize(SHIPPED_EN_DE) <= 62_000_000  # 29.5M fp16 weights and the lexicon
    assert "train_state" not in release
    assert {v.dtype for v in release["model"].values() if v.is_floating_point()} == {torch.float16}


def test_the_release_shape_and_vocabulary_of_de_en(release, translator, release_checkpoint):
    assert translator.meta["direction"] == "en-de"
    assert translator.config == preset("medium").replace(encoder_layers=10, decoder_layers=3, dropout=0.15)
    # fine-tuned from de-en.pt (v3.8): the same SentencePiece model, so the two engines share it
    assert release["tokenizer"] == read_checkpoint(release_checkpoint)["tokenizer"]


def test_provenance_and_licence_in_metadata(release):
    meta = release["meta"]
    sources = meta["data"]["sources"]
    assert [s["sha256"] for s in sources] == SHA256S
    assert [s["train_pairs"] for s in sources] == [159_003, 16_828, 629_678, 21_618, 15_786, 15_609, 31_829, 1_084]
    assert meta["data"]["train_pairs"] == 891_435
    # no CC BY-SA corpus: the weights stand where v3.8's do (MODEL_CARD.md, "Licence")
    assert meta["data"]["license"] == "GPL-2.0-or-later"
    assert "BY-SA" not in meta["data"]["attribution"] and "MT4All" in meta["data"]["attribution"]
    args = meta["train_args"]
    assert (os.path.basename(args["init"]), args["device"], args["max_tokens"], args["lr"], args["warmup"],
            args["dropout"], args["concat_share"]) == ("init.pt", "cuda", 32768, 7e-4, 300, 0.15, 0.1)
    assert meta["hardware"] == "1 x cuda (NVIDIA H200)"
    assert meta["curves"]["dev_bleu"] == [45.84, 49.15, 50.46, 50.34, 50.62]
    assert [a["step"] for a in meta["averaged_from"]] == [4250, 4500, 4750, 5000, 5010, 5250, 5500, 5592]


def test_model_card_has_its_section(translator):
    card = CARD.read_text(encoding="utf-8")
    section = card[card.index("## English→German"):]
    assert all(sha in section for sha in SHA256S)
    assert "steps 4,250–5,592" in section and "891,435 training pairs" in section
    assert "65.56" in section and "69.28" in section   # Tatoeba test and UI test chrF, English→German


EXAMPLES = [  # (English, greedy, beam 4), the bare model
    ('Good morning.', 'Guten Morgen.', 'Guten Morgen.'),
    ('Where is the train station?', 'Wo ist der Bahnhof?', 'Wo ist der Bahnhof?'),
    ('I have been learning German for three years.', 'Ich lerne seit drei Jahren Deutsch.',
     'Ich lerne seit drei Jahren Deutsch.'),
    ("I don't know what to say.", 'Ich weiß nicht, was ich sagen soll.', 'Ich weiß nicht, was ich sagen soll.'),
    ('Could you please send me the invoice again?', 'Könnten Sie mir bitte die Rechnung noch einmal senden?',
     'Könnten Sie mir bitte die Rechnung noch einmal senden?'),
    ('Please restart the program.', 'Bitte starten Sie das Programm neu.', 'Bitte starten Sie das Programm neu.'),
    # weaknesses the model card quotes: a compound it makes up, and gender and a preposition
    ("I'm allergic to nuts.", 'Ich habe eine Nüsseallergie.', 'Ich habe eine Nüsseallergie.'),
    ('The parliament voted for the proposal by a large majority.',
     'Die Parlament stimmte für den Vorschlag um eine große Mehrheit.',
     'Der Parlament stimmte für den Vorschlag um eine große Mehrheit.'),
]


@pytest.mark.parametrize("english, greedy, beam", EXAMPLES)
def test_translations(translator, english, greedy, beam):
    assert translator.translate([english], SearchOptions(beam_size=1)) == [greedy]
    assert translator.translate([english], SearchOptions(beam_size=4)) == [beam]


def test_the_api_translates_both_ways_by_default(client):
    def translate(q, source, target):
        response = client.post("/translate", json={"q": q, "source": source, "target": target})
        assert response.status_code == 200, response.get_json()
        return response.get_json()["translatedText"]

    assert translate("Where is the train station?", "en", "de") == "Wo ist der Bahnhof?"
    # a source this short is served the forward model's best, which the channel does not rerank
    # (model.inference.channel.SERVED_SHORTEST): CTranslate2 int8's best of a beam of 4, which is
    # "Where's ..." on one CPU and "Where is ..." on another (their int8 kernels differ)
    from model.inference.engines import bare_engine
    from model.search.options import SERVED

    best = bare_engine(DEFAULTS["MODEL_PATH"], engine="ct2", device="cpu", threads=1).translate(
        ["Wo ist der Bahnhof?"], SERVED)
    assert best in (["Where's the train station?"], ["Where is the train station?"])
    assert translate("Wo ist der Bahnhof?", "de", "en") == best[0]
    languages = {lang["code"]: lang["targets"] for lang in client.get("/languages").get_json()}
    assert languages == {"de": ["en"], "en": ["de"]}


@pytest.mark.parametrize("english, german", [
    # with a full stop added, as German input gets one, these were "Seite %1 Von %2" and "Schritt 3 von 5!"
    ("Page %1 of %2", "Seite %1 von %2"),
    ("Step 3 of 5", "Schritt 3 von 5"),
    ("Open recent documents", "Neueste Dokumente öffnen"),
])
def test_an_unpunctuated_string_is_translated_as_written(client, english, german):
    response = client.post("/translate", json={"q": english, "source": "en", "target": "de"})
    assert response.get_json() == {"translatedText": german}


def test_an_english_catalog_comes_back_german_with_every_directive_and_passes_msgfmt_c(client, tmp_path):
    catalog = polib.pofile(CATALOG.read_text(encoding="utf-8"))
    assert len(catalog) == 22 and {flag for entry in catalog for flag in entry.flags} == {
        "c-format", "python-format", "python-brace-format", "qt-format"}
    response = client.post("/translate_file", data={"file": (io.BytesIO(CATALOG.read_bytes()), "demo.po"),
                                                    "source": "en", "target": "de"}, content_type="multipart/form-data")
    assert response.status_code == 200, response.get_json()
    got = client.get(response.get_json()["translatedFileUrl"][len("http://localhost"):])
    assert got.status_code == 200 and got.headers["Content-Disposition"] == "attachment; filename=demo_de.po"
    out = polib.pofile(got.data.decode("utf-8"))
    assert out.metadata["Language"] == "de" and out.metadata["Plural-Forms"] == "nplurals=2; plural=(n != 1);"
    kept = 0
    for entry in out:
        sources = [entry.msgid, entry.msgid_plural] if entry.msgid_plural else [entry.msgid]
        translations = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        for source, translation in zip(sources, translations):
            assert translation and translation != source
            assert sorted(directives(translation)) == sorted(directives(source)), (source, translation)
            kept += len(directives(source))
    assert kept == 17   # every directive of the 22 entries, each once
    assert out.find("Please restart the program.").msgstr == "Bitte starten Sie das Programm neu."
    assert out.find("Page %1 of %2").msgstr == "Seite %1 von %2"
    assert out.find("Print", msgctxt="menu").msgstr == "Drucken"
    path = tmp_path / "demo_de.po"
    path.write_bytes(got.data)
    checked = subprocess.run(["msgfmt", "-c", "-o", os.devnull, str(path)], capture_output=True, text=True)
    # the one warning is the source's own: it has no Language-Team header either
    assert checked.returncode == 0 and checked.stderr.splitlines() == [
        f"{path}:3: warning: header field 'Language-Team' missing in header"]
