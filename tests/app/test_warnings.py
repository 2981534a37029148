"""The API's "warnings": what a translation may have got wrong (pipeline/harm.py), where the model
had no hypothesis without it; and alternatives that do no harm first. Two stub models whose n-best
lists are TABLE's, behind the real service and views."""

from __future__ import annotations

import pytest

NEGATION = {"check": "negation",
            "message": "the translation may have lost or added a negation (not, no, never): check its meaning"}
FORMALITY = {"check": "formality", "message": "the translation could not address the reader as asked"}

TABLE = {
    # every hypothesis loses "keinen"
    "Trinken Sie keinen Alkohol.": [("Drink alcohol.", -0.1), ("Drink some alcohol.", -0.3)],
    # the best loses "nicht"; an alternative that keeps it is listed before one that does not
    "Brechen Sie sie nicht ab.": [("Stop it.", -0.1), ("Stop it now.", -0.2), ("Do not stop it.", -0.3)],
    "Guten Morgen.": [("Good morning.", -0.1)],
    # no hypothesis addresses the reader formally
    "Take it.": [("Nimm es.", -0.1)],
    "Do not drink it.": [("Trinken Sie es nicht.", -0.1)],
    # alternatives addressing the reader as asked come first too
    "Help me.": [("Hilf mir.", -0.1), ("Hilf mir bitte.", -0.2), ("Helfen Sie mir.", -0.3),
                 ("Bitte helfen Sie mir.", -0.4)],
}


@pytest.fixture(scope="module")
def client(app_config, tiny_checkpoint, reverse_checkpoint):
    from app import create_app
    from app.service import EXTENSION, TranslationService
    from app.settings import DEFAULTS
    from bench.stub_engine import NBest
    from model.inference.translator import Translator
    from model.search.options import SERVED

    app = create_app({**app_config, "MODEL_PATH": DEFAULTS["MODEL_PATH"],
                      "MODEL_PATHS": f"de-en:{tiny_checkpoint},en-de:{reverse_checkpoint}"})
    engines = {name: NBest(Translator.from_checkpoint(path, "cpu"), TABLE)
               for name, path in (("de-en", tiny_checkpoint), ("en-de", reverse_checkpoint))}
    app.extensions[EXTENSION] = TranslationService(engines, None, SERVED)
    return app.test_client()


def translate(client, **params):
    response = client.post("/translate", json=params)
    return response.status_code, response.get_json()


@pytest.mark.parametrize("params, expected", [
    ({"q": "Trinken Sie keinen Alkohol.", "source": "de", "target": "en"},
     {"translatedText": "Drink alcohol.", "warnings": [NEGATION]}),
    ({"q": "Guten Morgen.", "source": "de", "target": "en"}, {"translatedText": "Good morning."}),   # none: no field
    ({"q": ["Guten Morgen.", "Trinken Sie keinen Alkohol."], "source": "de", "target": "en"},
     {"translatedText": ["Good morning.", "Drink alcohol."], "warnings": [[], [NEGATION]]}),
    ({"q": "Take it.", "source": "en", "target": "de"},   # formal: the default
     {"translatedText": "Nimm es.", "warnings": [FORMALITY]}),
    ({"q": "Take it.", "source": "en", "target": "de", "formality": "informal"},
     {"translatedText": "Nimm es."}),
    ({"q": "Do not drink it.", "source": "en", "target": "de"}, {"translatedText": "Trinken Sie es nicht."}),
])
def test_warnings_say_what_the_translation_may_have_got_wrong(client, params, expected):
    assert translate(client, **params) == (200, expected)


def test_alternatives_that_do_no_harm_come_first(client):
    assert translate(client, q="Brechen Sie sie nicht ab.", source="de", target="en", alternatives=2) == (
        200, {"translatedText": "Do not stop it.", "alternatives": ["Stop it.", "Stop it now."]})
    assert translate(client, q="Trinken Sie keinen Alkohol.", source="de", target="en", alternatives=1) == (
        200, {"translatedText": "Drink alcohol.", "alternatives": ["Drink some alcohol."], "warnings": [NEGATION]})


def test_alternatives_that_address_the_reader_as_asked_come_first(client):
    assert translate(client, q="Help me.", source="en", target="de", alternatives=3) == (
        200, {"translatedText": "Helfen Sie mir.", "alternatives": ["Bitte helfen Sie mir.", "Hilf mir.", "Hilf mir bitte."]})
    assert translate(client, q="Help me.", source="en", target="de", alternatives=3, formality="informal") == (
        200, {"translatedText": "Hilf mir.", "alternatives": ["Hilf mir bitte.", "Helfen Sie mir.", "Bitte helfen Sie mir."]})
