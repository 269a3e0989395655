"""Cross-site request forgery protection: every form carries a signed, per-session token.

Why not a package: Flask already ships itsdangerous, and the whole mechanism is a random
nonce kept in the (signed) session plus that nonce signed with a timestamp in each form. A
POST whose token is missing, forged, from another session or too old is refused with a 400
page that says to reload, before any view runs. JavaScript sends the token as a header.
"""

from __future__ import annotations

import hmac
import secrets

from flask import Flask, abort, current_app, g, request, session
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

FIELD = "csrf_token"
HEADER = "X-CSRF-Token"
_SESSION_KEY = "csrf_nonce"
_SALT = "ducktable-csrf"
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def init_app(app: Flask) -> None:
    app.jinja_env.globals["csrf_token"] = generate_token
    app.before_request(_protect)


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


def generate_token() -> str:
    """The token for forms on this page (one nonce per session, freshly time-stamped)."""
    token: str | None = g.get("_csrf_token")
    if token is None:
        nonce = session.get(_SESSION_KEY)
        if not isinstance(nonce, str):
            nonce = secrets.token_urlsafe(16)
            session[_SESSION_KEY] = nonce
        token = _serializer().dumps(nonce)
        g._csrf_token = token
    return token


def token_problem(token: object) -> str | None:
    """Why ``token`` is not valid for this session, or None when it is."""
    if not isinstance(token, str) or not token:
        return "This form was sent without its security token. Reload the page and try again."
    try:
        nonce = _serializer().loads(token, max_age=current_app.config["CSRF_MAX_AGE_S"])
    except SignatureExpired:
        return "This page is too old to send. Reload it and try again."
    except BadSignature:
        return "This form's security token is not valid. Reload the page and try again."
    expected = session.get(_SESSION_KEY)
    if not isinstance(expected, str) or not isinstance(nonce, str) or not hmac.compare_digest(
        expected, nonce
    ):
        return (
            "This form belongs to another browser session (or cookies are blocked). "
            "Reload the page and try again."
        )
    return None


def _protect() -> None:
    if request.method not in _UNSAFE:
        return
    token = request.headers.get(HEADER) or request.form.get(FIELD)
    problem = token_problem(token)
    if problem is not None:
        abort(400, description=problem)
