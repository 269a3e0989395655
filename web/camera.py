"""The camera on the phones: what stops it (a problem line on the scoreboard), the cards it sees
that no recorded event explains yet ("on the table now") and the event it is unsure of, put as
"camera unsure - is this it?" with Confirm and Reject; and, when the rules refuse it because
of a card the camera recorded earlier (a card read as another, or a card missed or one too many
in a play), one tap on the card or the cards that were really there mends that earlier event.

Why this module exists: the camera never applies an event it is not sure of; a person settles
it. The run loop's camera status (``CAMERA`` in the app's configuration: ``snapshot()``,
``notice(id)``, ``answered(id)``, ``reject(id)``; see device/runloop.py CameraStatus) is shared
with the camera thread; this blueprint shows it and takes the answers. A confirmation goes to
the store like any entry (checked against the rules, recorded, undoable); the camera then
follows the store. Both answers need the table PIN and the page's CSRF token.
"""

from __future__ import annotations

import re
from typing import Any

from ducktable.device.store import MatchInfo, StoreError
from ducktable.rules.core import Verdict
from flask import Blueprint, abort, flash, redirect, render_template, url_for
from markupsafe import Markup

from .auth import pin_required
from .camera_status import camera_snapshot, camera_status
from .db import get_store, match_or_404
from .entry import entry_page
from .words import zone_words

bp = Blueprint("camera", __name__)


def camera_view(info: MatchInfo, snap: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the scoreboard of ``info`` shows about the camera (None: nothing to show)."""
    if snap is None:
        return None
    notice = snap.get("notice")
    shown: dict[str, Any] | None = None
    if isinstance(notice, dict) and notice.get("match_id") == info.id:
        event = notice.get("event") or {}
        seat = event.get("seat")
        who = info.players[seat] if isinstance(seat, int) and 0 <= seat < len(info.players) else "the table"
        data = event.get("data") if isinstance(event.get("data"), dict) else {}
        mends = [{"choice": k, "index": m.get("index"), "was": m.get("was"), "now": m.get("now"),
                  "count": bool(m.get("count")), "was_cards": str(m.get("was") or "").split(),
                  "now_cards": str(m.get("now") or "").split()}
                 for k, m in enumerate(notice.get("mends") or []) if isinstance(m, dict)]
        shown = {"id": notice.get("id"), "type": event.get("type", "?"), "who": who, "data": data,
                 "why": notice.get("why", ""), "mends": mends}
    problem = snap.get("problem")
    seen = seen_zones(info, snap.get("seen"))
    if shown is None and not problem and not seen:
        return None
    short, detail = problem_line(problem) if problem else ("", "")
    return {"problem": short, "detail": detail, "notice": shown, "seen": seen}


def seen_zones(info: MatchInfo, seen: Any) -> list[dict[str, Any]]:
    """The cards the camera sees on ``info``'s table that no recorded event explains yet, as
    (the zone in words, its cards): a play laid out shows on the phones before it is stacked."""
    if not isinstance(seen, dict) or seen.get("match_id") != info.id:
        return []
    zones = seen.get("zones")
    if not isinstance(zones, list):
        return []
    return [{"where": zone_words(z.get("zone", ""), info.players), "cards": list(z.get("cards") or [])}
            for z in zones if isinstance(z, dict) and z.get("cards")]


SHORT_PROBLEM = 90
"""The most characters of the one line a camera problem gets on the phones."""


def problem_line(problem: str) -> tuple[str, str]:
    """A camera problem as (one short line, the whole text or "" when the line says it all).

    The run loop's problems can carry an installer's or a driver's many lines; the table needs
    to know only that the camera stopped and roughly why, the rest stays behind a "details".
    """
    text = str(problem).strip()
    line = text.splitlines()[0].strip() if text else ""
    # the lead clause: "the camera cannot be opened: <the library's own words>; trying again"
    line = re.split(r": |; | \(", line, maxsplit=1)[0]
    if len(line) > SHORT_PROBLEM:
        line = line[: SHORT_PROBLEM - 1].rstrip() + "…"
    line = line[:1].upper() + line[1:]
    if line and line[-1] not in ".!?…":
        line += "."
    said_all = text.rstrip(".").casefold() == line.rstrip(".").casefold()
    return line, ("" if said_all else text)


def render_camera(info: MatchInfo, snap: dict[str, Any] | None = None) -> Markup:
    view = camera_view(info, camera_snapshot() if snap is None else snap)
    if view is None:
        return Markup("")
    return Markup(render_template("_camera.html", camera=view, info=info))


def _notice_or_409(match_id: int, notice_id: int) -> Any:
    status = camera_status()
    if status is None:
        abort(404, description="This table has no camera; enter events on the Enter page.")
    notice = status.notice(notice_id)
    if notice is None or notice.match_id != match_id:
        abort(409, description="That camera question has been answered or has gone; look at the "
                               "board again.")
    return status, notice


@bp.post("/match/<int:match_id>/camera/<int:notice_id>/confirm")
@pin_required
def confirm(match_id: int, notice_id: int) -> Any:
    """Record the camera's guess as the next event (the rules still check it)."""
    info = match_or_404(match_id)
    status, notice = _notice_or_409(match_id, notice_id)
    store = get_store()
    if len(store.events(match_id)) != notice.position:
        status.answered(notice_id)
        abort(409, description="The game has moved on since the camera asked; look at the board "
                               "again and enter what happened on the Enter page if it is missing.")
    verdict = store.submit(match_id, notice.event)
    if not verdict.ok:
        return entry_page(info, verdict=verdict, status=422)
    status.answered(notice_id)
    flash(f"Recorded #{notice.position + 1} {notice.event.type} as the camera saw it.", "ok")
    return redirect(url_for("scoreboard.board", match_id=match_id), code=303)


@bp.post("/match/<int:match_id>/camera/<int:notice_id>/reject")
@pin_required
def reject(match_id: int, notice_id: int) -> Any:
    """The camera's guess is wrong: drop it (it is not suggested again at this point) and let
    the person enter what really happened."""
    match_or_404(match_id)
    status, _ = _notice_or_409(match_id, notice_id)
    status.reject(notice_id)
    flash("The camera's guess was dropped. Enter what really happened here.", "ok")
    return redirect(url_for("entry.page", match_id=match_id), code=303)


@bp.post("/match/<int:match_id>/camera/<int:notice_id>/mend/<int:choice>")
@pin_required
def mend(match_id: int, notice_id: int, choice: int) -> Any:
    """One tap on the card an earlier camera event really showed: that event is replaced (the
    store keeps the old one in the audit trail), then the event the rules refused because of it
    is recorded, as a Confirm would."""
    info = match_or_404(match_id)
    status, notice = _notice_or_409(match_id, notice_id)
    if not 0 <= choice < len(notice.mends):
        abort(404, description="The camera offered no such card; look at the board again.")
    chosen = notice.mends[choice]
    store = get_store()
    events = store.events(match_id)
    if (len(events) != notice.position or chosen.index >= len(events)
            or events[chosen.index].content_key() != chosen.recorded.content_key()):
        status.answered(notice_id)
        abort(409, description="The game has moved on since the camera asked; look at the board "
                               "again, and correct the event on the Enter page if it is still wrong.")
    if chosen.count:
        was, now = chosen.was.split(), chosen.now.split()
        reason = (f"the camera saw {len(was)} card(s), {chosen.was}; a person said there were "
                  f"{len(now)}, {chosen.now}")
        said = f"Event #{chosen.index + 1} corrected: {len(now)} card(s), {chosen.now}, not {len(was)}."
    else:
        reason = f"the camera read {chosen.was}; a person said it was {chosen.now}"
        said = f"Event #{chosen.index + 1} corrected: {chosen.now}, not {chosen.was}."
    try:
        verdict = store.correct(match_id, chosen.index, chosen.mended, reason)
    except StoreError as exc:
        return entry_page(info, verdict=Verdict.illegal(str(exc)), status=422)
    if not verdict.ok:
        return entry_page(info, verdict=verdict, status=422)
    status.answered(notice_id)
    then = store.submit(match_id, notice.event)
    if then.ok:
        flash(f"{said} Recorded #{notice.position + 1} {notice.event.type} as the camera saw it.", "ok")
    else:
        flash(f"{said} The camera's {notice.event.type} is still refused ({then.reason}); enter what "
              "happened here.", "error")
        return redirect(url_for("entry.page", match_id=match_id), code=303)
    return redirect(url_for("scoreboard.board", match_id=match_id), code=303)
