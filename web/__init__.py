"""ducktable.web: the phone pages of the table (scoreboard, setup, entry, disputes, history).

``create_app(test_config=None)`` builds the Flask application (flaskr's application factory:
no module-level app). Every feature is one blueprint; the match store, the table PIN, the CSRF
tokens and the error pages wire themselves in with ``init_app(app)``.

Configuration keys (all optional; the run loop passes the real ones):

``INSTANCE_PATH`` the folder for files the app keeps itself (default: the data folder)

``DATABASE``      path of the match database (default: the instance folder's matches.sqlite3)
``STORE``         an already open match store to use instead of ``DATABASE``
``TABLE_PIN``     the PIN every change needs (default: a random one, logged at start)
``PIN_FILE``      where a PIN chosen on the setup page is kept across restarts
``CONFIG_FILE``   the TOML settings file the first-run and Settings pages write (default:
                  ducktable.toml in the instance folder)
``TABLE_NAME``    the table's name shown on the pages
``SECRET_KEY``    signs the session cookie (default: kept in ``SECRET_KEY_FILE``)
``PUBLIC_URL``    the scoreboard address phones should open (for the QR code)
``LAN_URL``       the same by IP address, shown beside a ``ducktable.local`` PUBLIC_URL for
                  phones that cannot resolve mDNS names
``CUES``          an object with ``snapshot() -> dict`` for the virtual LEDs
``PARTY_FILE``    where Grey Duck's multiple-tables party is kept (JSON)
``STOP_EVENT``    a ``threading.Event`` set at shutdown, ending live streams
``ENROLMENT``     what reads layout photos and stores enrolled decks (device/enrolment.py
                  LayoutEnrolment; None: the enrolment page says where to enrol)
``CAMERA``        the camera's status (device/runloop.py CameraStatus): its problem and the
                  event it asks the phones to confirm or reject (None: no camera)
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

LIVE_KEEPALIVE_S = 15.0
"""Seconds between keep-alive comments on a quiet live stream (finds phones that went away)."""

LIVE_WAIT_S = 0.5
"""Longest wait of the live hub between two looks at the watched matches (bounds how late a
cue or camera change, or another process's event, shows; this store's changes show at once)."""


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the web application; ``test_config`` replaces the defaults (tests, run loop)."""
    given = dict(test_config or {})
    instance = given.pop("INSTANCE_PATH", None) or _default_instance_path()
    app = Flask(__name__, instance_path=str(Path(instance).resolve()))
    app.config.from_mapping(
        DATABASE=None,
        STORE=None,
        TABLE_PIN=None,
        PIN_FILE=None,
        SECRET_KEY=None,
        SECRET_KEY_FILE=None,
        PUBLIC_URL=None,
        LAN_URL=None,
        CUES=None,
        PARTY_FILE=None,
        STOP_EVENT=None,
        CAMERA=None,
        LIVE_KEEPALIVE_S=LIVE_KEEPALIVE_S,
        LIVE_WAIT_S=LIVE_WAIT_S,
        MAX_CONTENT_LENGTH=512 * 1024,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        CSRF_MAX_AGE_S=12 * 3600,
        TEMPLATES_AUTO_RELOAD=False,
    )
    app.config.update(given)
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    _fill_defaults(app)

    from . import auth, csrf, db, errors, headers, idempotency, present, words

    db.init_app(app)
    auth.init_app(app)
    csrf.init_app(app)
    idempotency.init_app(app)  # after the CSRF check: a forged POST claims no key
    errors.init_app(app)
    present.init_app(app)
    words.init_app(app)
    headers.init_app(app)

    from . import camera, dispute, entry, history, join, party, scoreboard, settings, setup

    for module in (scoreboard, setup, entry, dispute, history, party, join, auth, camera):
        app.register_blueprint(module.bp)
    settings.init_app(app)
    from . import enrol

    app.register_blueprint(enrol.bp)
    return app


def _default_instance_path() -> str:
    """The data folder (``$DUCKTABLE_DATA`` or the default); created only when needed."""
    from ducktable.device.paths import ENV_VAR, default_data_dir

    return os.environ.get(ENV_VAR) or str(default_data_dir())


def _fill_defaults(app: Flask) -> None:
    """Give every path-like setting a home in the instance folder when none was given."""
    needs_instance = (
        app.config["DATABASE"] is None and app.config["STORE"] is None
    ) or app.config["SECRET_KEY"] is None
    if needs_instance:
        os.makedirs(app.instance_path, exist_ok=True)
    if app.config["DATABASE"] is None and app.config["STORE"] is None:
        app.config["DATABASE"] = os.path.join(app.instance_path, "matches.sqlite3")
    if app.config["SECRET_KEY"] is None:
        key_file = app.config["SECRET_KEY_FILE"] or os.path.join(app.instance_path, "secret-key")
        app.config["SECRET_KEY"] = load_or_create_secret(Path(key_file))
    if app.config["STOP_EVENT"] is None:
        app.config["STOP_EVENT"] = threading.Event()


def load_or_create_secret(path: Path) -> str:
    """The session-signing key kept in ``path`` (created, owner-only, on first use).

    Kept on disk so phones stay unlocked across a restart of the appliance.
    """
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    if len(text) >= 32:
        return text
    key = secrets.token_hex(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(key + "\n")
    return key
