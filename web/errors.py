"""Error pages: every failure becomes a short page (or JSON) that says what to do.

A user-fixable problem that escapes a view (an unknown match, a refused rule option) becomes
a 400 with the store's or engine's own message; only a real bug reaches the 500 page, which
says that the recorded games are safe (they are: the store commits or changes nothing).
"""

from __future__ import annotations

import logging

from ducktable.device.store import StoreError
from ducktable.rules.core import RulesError
from flask import Flask, Response, jsonify, make_response, render_template, request
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(StoreError, _user_error)
    app.register_error_handler(RulesError, _user_error)
    app.register_error_handler(Exception, _bug)


def wants_json() -> bool:
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return request.path.endswith(".json") or best == "application/json"


def _page(code: int, title: str, message: str) -> Response:
    if wants_json():
        response = jsonify({"error": title, "message": message, "status": code})
    else:
        response = make_response(
            render_template("error.html", code=code, title=title, message=message)
        )
    response.status_code = code
    return response


def _http_error(exc: HTTPException) -> Response:
    code = exc.code or 500
    if code == 405:
        message = "This address does not take that kind of request; use the page's buttons."
    elif code == 413:
        message = "What was sent is too large; send less (an exported match log up to 512 KiB)."
    else:
        message = exc.description or ""
    response = _page(code, exc.name, message)
    valid = getattr(exc, "valid_methods", None)
    if code == 405 and valid:
        response.headers["Allow"] = ", ".join(valid)
    return response


def _user_error(exc: Exception) -> Response:
    return _page(400, "Cannot do that", str(exc))


def _bug(exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.path)
    return _page(
        500,
        "Something went wrong",
        "ducktable hit an internal error. The recorded games are safe; go back and try again.",
    )
