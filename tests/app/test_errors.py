"""app/errors.py: JSON errors on API paths, HTML pages elsewhere, a quiet 500."""

import logging

import pytest

from app.errors import is_api_path


@pytest.mark.parametrize("path, api", [("/translate", True), ("/languages", True), ("/api/x", True), ("/health", True),
                                       ("/", False), ("/attention", False), ("/model", False), ("/apis", False)])
def test_is_api_path(path, api):
    assert is_api_path(path) is api


@pytest.mark.parametrize("method, path, status, message", [
    ("get", "/translate", 405, "Method GET not allowed; use POST"),
    ("put", "/translate", 405, "Method PUT not allowed; use POST"),
    ("post", "/languages", 405, "Method POST not allowed; use GET"),
    ("get", "/api/attention", 405, "Method GET not allowed; use POST"),
    ("post", "/api/random", 405, "Method POST not allowed; use GET"),
    ("delete", "/health", 405, "Method DELETE not allowed; use GET"),
    ("get", "/api/nothing", 404, "Not found"),
    ("post", "/api/translate", 404, "Not found"),
])
def test_routing_errors_are_json_on_api_paths(client, method, path, status, message):
    response = getattr(client, method)(path)
    assert (response.status_code, response.get_json()) == (status, {"error": message})
    if status == 405:
        assert "POST" in response.headers["Allow"] or "GET" in response.headers["Allow"]


@pytest.mark.parametrize("method, path, status", [("get", "/nothing", 404), ("put", "/", 405), ("post", "/model", 405)])
def test_page_errors_are_html(client, method, path, status):
    response = getattr(client, method)(path)
    assert response.status_code == status and response.mimetype == "text/html"
    assert f"<h1>{status}:" in response.get_data(as_text=True)


def test_unexpected_failure_is_a_plain_500(make_app, caplog, monkeypatch):
    app = make_app(TESTING=False)
    service = app.extensions["translation_service"]
    monkeypatch.setattr(service, "translate", lambda *a, **k: 1 / 0)
    caplog.set_level(logging.ERROR)
    response = app.test_client().post("/translate", json={"q": "Hallo", "source": "de", "target": "en"})
    assert (response.status_code, response.get_json()) == (500, {"error": "Internal server error"})
    assert "ZeroDivisionError" not in response.get_data(as_text=True)
    assert any(r.exc_info for r in caplog.records)  # a real bug is logged with its traceback
