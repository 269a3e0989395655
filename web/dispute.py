"""The dispute check: "may I play this now?" answered with a verdict, never changing the game.

Anyone at the table may ask (no PIN): the proposed move is checked against the current
position by the store's ``check``, and the page shows legal or not, the reason, and each
cited rule with the project's own summary of it. A move can be given with the same tap forms
as manual entry, or as the event's JSON. The form used stays open after the answer, filled in
as it was, with the answer beside it, so a second question is one tap away.
"""

from __future__ import annotations

from typing import Any

from ducktable.rules.core import BadEvent, Event, Verdict
from flask import Blueprint, render_template, request

from . import forms
from .db import get_store, match_or_404
from .entry import cited, due_forms, now_ms, picker, refill, spec_or_400

bp = Blueprint("dispute", __name__)


@bp.route("/match/<int:match_id>/dispute", methods=["GET", "POST"])
def check(match_id: int) -> Any:
    info = match_or_404(match_id)
    store = get_store()
    state = store.state(match_id)
    problem: str | None = None
    verdict: Verdict | None = None
    proposed: Event | None = None
    status = 200
    if request.method == "POST":
        raw_json = (request.form.get("event_json") or "").strip()
        try:
            if raw_json:
                proposed = Event.from_json(raw_json)
            else:
                spec = spec_or_400(state, request.form.get(forms.TYPE_FIELD, ""))
                proposed = forms.parse_event(spec, state, request.form, ts=now_ms())
        except (forms.FormError, BadEvent) as exc:
            problem, status = str(exc), 400
        else:
            verdict = store.check(match_id, proposed)
    event_forms = due_forms(state, list(state.game.event_specs))
    asked_type = request.form.get(forms.TYPE_FIELD) if request.method == "POST" else None
    for i, form in enumerate(event_forms):
        if form.spec.type == asked_type:
            event_forms[i] = refill(form, request.form)
    return (
        render_template(
            "dispute.html",
            info=info,
            state=state,
            event_forms=event_forms,
            picker=picker(info, state),
            problem=problem,
            verdict=verdict,
            proposed=proposed,
            asked_type=asked_type,
            cited=cited(verdict, info.game) if verdict is not None else [],
        ),
        status,
    )
