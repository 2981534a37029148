"""The web service: ``create_app()`` is the WSGI application factory (gunicorn: "app:create_app()")."""

from __future__ import annotations

import os
from typing import Any, Mapping

import plotly
from flask import Flask

from . import api, errors, filestore, glossaries, inspector, libretranslate, pages, permalinks, service, settings
from . import apikeys, dictionary, limits
from . import metrics
from .service import StartupError
from .settings import SettingsError

__all__ = ["create_app", "StartupError"]


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Settings from defaults, then the environment, then ``test_config``; loads the model once.

    Raises ``StartupError`` (one line: which setting, what is wrong) when the service cannot run."""
    app = Flask(__name__, template_folder=str(settings.ROOT / "templates"),
                static_folder=str(settings.ROOT / "static"))
    app.config.from_mapping(settings.DEFAULTS)
    app.config.from_mapping(settings.from_env(os.environ))
    app.config.from_mapping(test_config or {})
    try:
        settings.validate(app.config)
    except SettingsError as exc:
        raise StartupError(str(exc)) from None
    dictionary.init_app(app)
    service.init_app(app, dictionary.coverage_of(app))  # translations checked against its index
    metrics.init_app(app)  # first of the request hooks: times and counts every request
    filestore.init_app(app)
    permalinks.init_app(app)
    glossaries.init_app(app)  # its noun plurals come from the dictionary's index
    apikeys.init_app(app)
    limits.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(libretranslate.bp)
    app.register_blueprint(inspector.bp)
    app.register_blueprint(permalinks.bp)
    app.register_blueprint(glossaries.bp)
    app.register_blueprint(dictionary.bp)
    errors.register(app)
    app.after_request(_security_headers)
    app.jinja_env.globals["plotly_version"] = plotly.__version__
    return app


def _security_headers(response):
    # Everything is served from this origin; Plotly injects <style> elements, hence 'unsafe-inline'
    # for styles only.
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response
