"""Entries sent twice are recorded once: every POST may carry an entry key, and a key already
recorded gets the first try's answer instead of a second recording.

Why this module exists: on a busy table a phone can give up on an entry that the table records
later; the person enters it again and the match held it twice. web/static/app.js gives every
POST form a random hidden ``idempotency_key`` (and every script's POST an ``Idempotency-Key``
header), so no page or form has to do anything. Here, before the view runs, a key whose entry
was recorded answers at once with what that entry answered; otherwise the view runs with the
key attached to the store (``MatchStore.entry_key``), whose first write claims it in the same
transaction as the data, against a unique constraint (device/store_index.py). A second try
that arrives while the first is still being recorded fails that claim, waits for the first
one's answer and gives it. A POST that records nothing (a refused event, the PIN page) claims
nothing: trying it again simply runs again.
"""

from __future__ import annotations

import time
from contextlib import suppress
from typing import Any

from ducktable.device.store import Answer, DuplicateEntry, StoreError, check_key
from flask import Flask, Response, abort, flash, g, request

from .db import get_store
from .errors import _page

FIELD = "idempotency_key"
HEADER = "Idempotency-Key"
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})

WAIT_S = 10.0
"""How long a second try waits for the first try's answer."""

MAX_KEPT_BODY = 256 * 1024
"""The largest answer body kept for later tries (a page is far smaller)."""


def init_app(app: Flask) -> None:
    app.before_request(_answer_again_or_claim)
    app.after_request(_keep_answer)
    app.teardown_request(_release)
    app.register_error_handler(DuplicateEntry, _sent_twice)


def _key() -> str | None:
    if request.method not in _UNSAFE:
        return None
    key = request.form.get(FIELD) or request.headers.get(HEADER)  # the form's own key first
    if not key:
        return None
    try:
        return check_key(key)
    except ValueError as exc:
        abort(400, description=f"This form's entry key is not valid ({exc}). Reload the page and "
                               "try again.")


def _answer_again_or_claim() -> Response | None:
    key = _key()
    if key is None:
        return None
    store = get_store()
    answer = store.entry_answer(key)
    if answer is not None:
        return _replay(store, key, answer)
    claims = store.entry_key(key)
    g.entry_claim = claims.__enter__()
    g.entry_claims = claims
    return None


def _keep_answer(response: Response) -> Response:
    claim = g.get("entry_claim")
    if claim is None or not claim.claimed or response.status_code >= 500:
        return response
    body = b"" if response.is_streamed else response.get_data()
    answer = Answer(response.status_code, response.headers.get("Location"),
                    response.headers.get("Content-Type"), body[:MAX_KEPT_BODY])
    with suppress(StoreError):  # the entry is recorded; its answer for a retry is only a nicety
        get_store().save_entry_answer(claim.key, answer)
    return response


def _release(exc: BaseException | None) -> None:
    claims = g.pop("entry_claims", None)
    if claims is not None:
        claims.__exit__(None, None, None)


def _sent_twice(exc: DuplicateEntry) -> Response:
    """The first try of this entry claimed its key while this one ran: answer as it did."""
    store = get_store()
    answer = store.entry_answer(exc.key)
    return _replay(store, exc.key, answer)


def _replay(store: Any, key: str, answer: Answer | None) -> Response:
    deadline = time.monotonic() + WAIT_S
    while (answer is None or answer.status is None) and time.monotonic() < deadline:
        time.sleep(0.05)  # the first try is still being recorded
        answer = store.entry_answer(key)
    if answer is None or answer.status is None:
        return _page(409, "Already recorded",
                     "This entry was sent twice; it is recorded once. Look at the board.")
    response = Response(answer.body, status=answer.status, content_type=answer.content_type)
    if answer.location:
        response.headers["Location"] = answer.location
    if answer.status in (302, 303):
        flash("That entry was sent twice; it is recorded once.", "ok")
    return response
