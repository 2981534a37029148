"""Error responses: JSON ``{"error": ...}`` on API paths, a small HTML page elsewhere.

Client errors are expected and answered without a traceback in the log; only real bugs (500)
are logged with one.
"""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from .api import API_PREFIXES
from .validation import ApiError

MESSAGES = {
    404: "Not found",
    405: "Method not allowed",
    413: "Request body too large",
    415: "Unsupported media type",
}


def is_api_path(path: str) -> bool:
    return path.startswith(API_PREFIXES)


def _respond(status: int, message: str):
    if is_api_path(request.path):
        return jsonify({"error": message}), status
    return render_template("error.html", status=status, message=message), status


def handle_api_error(error: ApiError):
    return _respond(error.status, error.message)


def handle_http_error(error: HTTPException):
    status = error.code or 500
    message = MESSAGES.get(status, error.name)
    if status == 413:
        limit = request.max_content_length
        message = f"Request body too large: the limit is {limit} bytes" if limit else message
    elif status == 405:
        allowed = ", ".join(sorted(m for m in (error.valid_methods or []) if m not in ("HEAD", "OPTIONS")))
        message = f"Method {request.method} not allowed; use {allowed}" if allowed else message
    elif status == 400:
        message = "Bad request"
    body, code = _respond(status, message)
    # Keep the Allow header a 405 must carry.
    headers = {"Allow": ", ".join(error.valid_methods)} if status == 405 and error.valid_methods else {}
    return body, code, headers


def handle_unexpected(error: InternalServerError):
    # Flask has already logged the traceback of the original exception; say nothing more to clients.
    return _respond(500, "Internal server error")


def register(app: Flask) -> None:
    app.register_error_handler(ApiError, handle_api_error)
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(InternalServerError, handle_unexpected)
