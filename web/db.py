"""The web app's door to the match store: one shared store per application.

The store is thread-safe and long-lived (live streams wait on it), so unlike flaskr's
per-request connection it is opened once, on first use, and closed by whoever opened it:
the run loop for a store it passed in as ``STORE``, :func:`close_store` otherwise.
"""

from __future__ import annotations

import threading

from ducktable.device.store import MatchInfo, MatchStore, NoSuchMatch
from flask import Flask, abort, current_app

_EXT = "ducktable.store"
_LOCK = threading.Lock()


def init_app(app: Flask) -> None:
    app.extensions[_EXT] = app.config["STORE"]


def get_store() -> MatchStore:
    """The application's match store, opened from ``DATABASE`` on first use."""
    app = current_app
    store = app.extensions.get(_EXT)
    if store is None:
        with _LOCK:
            store = app.extensions.get(_EXT)
            if store is None:
                store = MatchStore(app.config["DATABASE"])
                app.extensions[_EXT] = store
                app.extensions[_EXT + ".owned"] = True
    return store


def close_store(app: Flask) -> None:
    """Close the store if this app opened it itself (idempotent)."""
    if app.extensions.pop(_EXT + ".owned", False):
        store = app.extensions.pop(_EXT, None)
        if store is not None:
            store.close()


MAX_MATCH_ID = 2**63 - 1
"""SQLite's largest integer: a bigger id in an address cannot name a match."""


def match_or_404(match_id: int) -> MatchInfo:
    """The match's summary, or a 404 page that says which matches exist."""
    if not 0 <= match_id <= MAX_MATCH_ID:
        abort(404, description=f"There is no match {match_id}. Pick one from the history page.")
    try:
        return get_store().match(match_id)
    except NoSuchMatch:  # other store errors (a failing card) say what they are
        abort(404, description=f"There is no match {match_id}. Pick one from the history page.")


def current_match() -> MatchInfo | None:
    """The match the table is playing: the newest one, finished or not (an older match left
    unfinished must not take over the phones when the newest ends: they keep its result)."""
    return get_store().newest_match()
