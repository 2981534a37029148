"""Error responses: JSON ``{"error": ...}`` on API paths, a small HTML page elsewhere.

Client errors are expected and answered without a traceback in the log; only real bugs (500)
are logged with one.
"""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from .api import API_PREFIXES
from .validation import ApiError, KeyRefused

MESSAGES = {
    404: "Not found",
    405: "Method not allowed",
    413: "Request body too large",
    415: "Unsupported media type",
}


# The longest query string the app takes (bytes, as sent). gunicorn refuses a request line over its
# limit_request_line with its own bare page before the app sees it; gunicorn.conf.py sets that to
# its maximum, 8190, so that a URL between this bound and that one gets our own 414 (JSON on API
# paths). The pages never make a URL this long: a long text gets a stored link (permalinks.py).
MAX_QUERY_BYTES = 4096


def limit_query_string():
    size = len(request.query_string)
    if size > MAX_QUERY_BYTES:
        raise ApiError(414, f"URI too long: the query string has {size} bytes, more than the limit of "
                            f"{MAX_QUERY_BYTES} bytes (send long texts in a request body, or paste them into the form)")


def is_api_path(path: str) -> bool:
    return path.startswith(API_PREFIXES)


def _respond(status: int, message: str):
    if is_api_path(request.path):
        return jsonify({"error": message}), status
    return render_template("error.html", status=status, message=message), status


def handle_api_error(error: ApiError):
    return _respond(error.status, error.message)


# Marks a refusal for the API key (400 missing, 403 unknown) apart from the request's other errors:
# the translate page shows its message by its key field (static/api.js).
KEY_REFUSED_HEADER = "API-Key-Refused"


def handle_key_refused(error: KeyRefused):
    body, status = _respond(error.status, error.message)
    return body, status, {KEY_REFUSED_HEADER: "1"}


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
    app.before_request(limit_query_string)
    app.register_error_handler(ApiError, handle_api_error)
    app.register_error_handler(KeyRefused, handle_key_refused)
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(InternalServerError, handle_unexpected)
