"""The Procfile's command with no setting but PORT, as a PaaS starts it: the shipped model, Random
and Random held-out from the shipped samples, and LibreTranslate's endpoints, driven by a real
LibreTranslate client."""

from __future__ import annotations

import http.client
import json
import uuid
from pathlib import Path

import pytest
from libretranslatepy import LibreTranslateAPI

from bench import server

from .conftest import ROOT, isolated_environ

SAMPLE = ROOT / "checkpoints" / "random-sample.tsv"
HELD_OUT = ROOT / "checkpoints" / "random-held-out.tsv"


@pytest.fixture(scope="module")
def bare_server(tmp_path_factory, release_checkpoint):
    """gunicorn from the Procfile with PORT only: every other setting is its default (the release
    checkpoints, both directions)."""
    log_path = tmp_path_factory.mktemp("bare") / "server.log"
    with open(log_path, "wb") as log:
        process, port = server.start(log, environ=isolated_environ(), timeout=120)
        try:
            yield f"http://127.0.0.1:{port}", log_path
        finally:
            server.stop(process)


def get(url: str, path: str, method: str = "GET", body: bytes | None = None, headers: dict | None = None):
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    return response.status, response.getheader("Content-Type"), response.read()


def served(url: str, text: str, source: str = "de", target: str = "en") -> str:
    """The server's own /translate answer: what the models write is pinned in tests/test_release.py
    and tests/test_release_en_de.py."""
    body = json.dumps({"q": text, "source": source, "target": target}).encode()
    status, _, body = get(url, "/translate", "POST", body, {"Content-Type": "application/json"})
    assert status == 200, body
    return json.loads(body)["translatedText"]


def test_random_from_the_shipped_sample(bare_server):
    url, _ = bare_server
    status, _, body = get(url, "/api/random")
    assert status == 200
    example = json.loads(body)
    sample = SAMPLE.read_text(encoding="utf-8")
    assert f"\t{example['source']}\t" in sample
    assert all(f"{ref}\t{example['source']}\t" in sample for ref in example["references"])
    assert example["translation"] and 0 <= example["chrf"] <= 100 and example["split"] == "train"
    # Random held-out: the shipped sample of the test split, which the shipped models never trained on
    status, _, body = get(url, "/api/random?split=test")
    assert status == 200
    example = json.loads(body)
    held_out = HELD_OUT.read_text(encoding="utf-8")
    assert example["split"] == "test" and f"\t{example['source']}\t" in held_out
    assert f"\t{example['source']}\t" not in sample
    assert all(f"{ref}\t{example['source']}\t" in held_out for ref in example["references"])
    assert example["translation"] and 0 <= example["chrf"] <= 100
    status, _, page = get(url, "/")
    assert status == 200 and b'id="random-button"' in page and b'id="held-out-button"' in page
    status, _, page = get(url, "/?q=random")
    assert status == 302  # typing "random" alone: a random sentence's permalink


def test_a_libretranslate_client_library_works_unchanged(bare_server):
    url, _ = bare_server
    client = LibreTranslateAPI(url)
    assert client.translate("Guten Morgen.", "de", "en") == served(url, "Guten Morgen.")
    # the shipped English→German model is served beside it
    assert client.translate("Good morning.", "en", "de") == served(url, "Good morning.", "en", "de") != "Good morning."
    assert client.detect("Ich habe heute keine Zeit, weil ich arbeiten muss.")[0]["language"] == "de"
    assert client.detect("I have no time today because I have to work.")[0]["language"] == "en"
    assert {language["code"]: language["targets"] for language in client.languages()} == {"de": ["en"], "en": ["de"]}
    # source=auto: an English sentence inside German text is carried over unchanged
    assert client.translate("Guten Morgen. This sentence is already in English.", "auto", "en") == \
        served(url, "Guten Morgen.") + " This sentence is already in English."


def test_frontend_settings_spec_and_file_translation(bare_server):
    url, log_path = bare_server
    status, _, body = get(url, "/frontend/settings")
    settings = json.loads(body)
    assert status == 200 and settings["filesTranslation"] is True and ".docx" in settings["supportedFilesFormat"]
    status, _, body = get(url, "/spec")
    assert status == 200 and "/translate_file" in json.loads(body)["paths"]

    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
             for name, value in (("source", "de"), ("target", "en"))]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="gruss.txt"\r\n'
                 "Content-Type: text/plain\r\n\r\n".encode() + "Guten Morgen.\n\nVielen Dank.\n".encode() + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    status, _, answer = get(url, "/translate_file", "POST", body,
                            {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert status == 200, answer
    download = json.loads(answer)["translatedFileUrl"]
    path = "/" + download.split("/", 3)[3]
    status, _, content = get(url, path)
    assert (status, content.decode()) == (200, f"{served(url, 'Guten Morgen.')}\n\n{served(url, 'Vielen Dank.')}\n")
    assert get(url, path)[0] == 404  # served once
    assert "Traceback" not in Path(log_path).read_text(errors="replace")
