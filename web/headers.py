"""Security headers on every response: only this appliance's own scripts, styles and images.

Everything the pages need is served locally (no CDN), so the content security policy can
forbid any other origin and any inline script; pages cannot be framed by other sites.
"""

from __future__ import annotations

from flask import Flask, Response

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
)


def init_app(app: Flask) -> None:
    app.after_request(_add_headers)


def _add_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response
