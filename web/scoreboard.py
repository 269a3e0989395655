"""The scoreboard: each seat's score and what makes it up, whose turn, the last events, a
per-round chart, the virtual LEDs and the camera's questions, kept live with Server-Sent Events.

Why SSE: one long GET per phone that the server writes to when the match changes, so a phone
shows an event well within a second without polling or reloading, and a browser reconnects by
itself. One hub builds each match's message once per change for every phone (web/live.py);
the rendered board is also cached per (match, seq) for the pages.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ducktable.device.store import MatchInfo
from ducktable.rules.core import Event, Game, State
from ducktable.rules.registry import make_game
from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from markupsafe import Markup

from . import boards, present
from .camera import render_camera
from .camera_status import camera_snapshot
from .cards_svg import share_drawings
from .db import current_match, get_store, match_or_404
from .live import LiveHub, live_hub

bp = Blueprint("scoreboard", __name__)

RECENT_EVENTS = 8


@bp.get("/")
def home() -> Any:
    """Follow the table: the match being played now, or the setup page when there is none."""
    info = current_match()
    if info is None:
        return redirect(url_for("setup.new_match"))
    return redirect(url_for("scoreboard.board", match_id=info.id, follow=1))


@bp.get("/match/<int:match_id>")
def board(match_id: int) -> Any:
    info = match_or_404(match_id)
    snapshot = board_snapshot(info)
    return render_template(
        "scoreboard.html",
        info=info,
        snap=snapshot,
        me=my_seat(request.args.get("seat"), len(info.players)),
        board_html=render_board(snapshot),
        leds_html=render_leds(info),
        camera_html=render_camera(info),
        follow=request.args.get("follow") == "1",
    )


def my_seat(raw: str | None, seats: int) -> int | None:
    """The seat a phone asked to follow (``?seat=K``, counted from 1 as the pages count), or
    None for the whole table; anything else (text, a seat the match does not have) is ignored:
    the board is still worth showing."""
    if raw is None or not raw.strip().isdigit():
        return None
    seat = int(raw.strip()) - 1
    return seat if 0 <= seat < seats else None


@bp.get("/match/<int:match_id>/view.json")
def view_json(match_id: int) -> Response:
    info = match_or_404(match_id)
    snap = board_snapshot(info)
    return jsonify(
        {
            "match": info.to_json(),
            "seq": snap.seq,
            "view": snap.view,
            "scores": snap.scores,
            "to_move": snap.to_move,
            "next": snap.next,
            "over": snap.over,
            "winners": snap.winners,
            "camera": camera_snapshot(),
        }
    )


@bp.get("/match/<int:match_id>/live")
def live(match_id: int) -> Response:
    """The live stream: a ``board`` message now and after every change, keep-alives between.

    This route holds a server thread while the phone watches; the appliance's server answers
    this address itself without one (web/asgi.py). Both send the hub's messages (web/live.py).
    """
    match_or_404(match_id)
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    stop: threading.Event = app.config["STOP_EVENT"]
    keepalive_s = float(app.config["LIVE_KEEPALIVE_S"])
    hub = board_hub(app)

    def stream() -> Iterator[bytes]:
        feed = hub.subscribe(match_id)
        try:
            yield b"retry: 1000\n\n"
            seen = 0
            last_write = time.monotonic()
            while not stop.is_set() and not feed.missing:
                if feed.version != seen and feed.message:
                    seen = feed.version
                    last_write = time.monotonic()
                    yield feed.message
                elif time.monotonic() - last_write >= keepalive_s:
                    last_write = time.monotonic()
                    yield b": keep-alive\n\n"
                feed.wait(seen, min(1.0, keepalive_s))
        finally:
            hub.unsubscribe(feed)

    return Response(
        stream(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def board_hub(app: Flask) -> LiveHub:
    """The app's live hub (web/live.py), building this module's ``board`` messages."""
    return live_hub(app, live_message, cue_snapshot)


def live_message(match_id: int, newer: int | None, camera: dict[str, Any] | None) -> bytes:
    """One ``board`` message of the event stream: the board, LEDs and camera of the match."""
    payload = live_payload(get_store().match(match_id), newer, camera)
    return f"id: {payload['seq']}\nevent: board\ndata: {json.dumps(payload)}\n\n".encode()


def live_payload(info: MatchInfo, newer: int | None,
                 camera: dict[str, Any] | None = None) -> dict[str, Any]:
    snap = board_snapshot(info)
    return {
        "seq": snap.seq,
        "board": str(render_board(snap)),
        "leds": str(render_leds(info)),
        "camera": str(render_camera(info, camera)) if camera is not None else "",
        "over": snap.over,
        "newer": newer,
        "event_count": snap.event_count,
    }


# --------------------------------------------------------------------------------------------
# What the board shows
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecentEvent:
    index: int
    who: str
    seat: int | None
    type: str
    data: dict[str, Any]
    source: str


@dataclass(frozen=True)
class BoardSnapshot:
    """Everything the board template needs, taken once per (match, seq)."""

    info: MatchInfo
    seq: int
    title: str
    view: dict[str, Any]
    scores: list[int]
    to_move: int | None
    next: str
    over: bool
    winners: list[int]
    event_count: int
    recent: list[RecentEvent]
    rows: list[present.SeatRow]
    facts: list[tuple[str, Any]]
    chart: present.Chart
    round_points: list[list[int]]
    board: boards.BoardExtras


class _SnapshotCache:
    """The last few snapshots and rendered boards, keyed by (match id, seq)."""

    def __init__(self, size: int = 16) -> None:
        self._items: OrderedDict[tuple[int, int], tuple[BoardSnapshot, Markup | None]] = (
            OrderedDict()
        )
        self._lock = threading.Lock()
        self.size = size

    def get(self, key: tuple[int, int]) -> tuple[BoardSnapshot, Markup | None] | None:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key: tuple[int, int], value: tuple[BoardSnapshot, Markup | None]) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


class _TimelineCache:
    """Running score totals after each scoring moment, extended event by event.

    Used for games whose view has no ``round_points``: a "round" is then any event after
    which the scores changed. Re-replays only when an earlier event was undone or corrected.
    """

    def __init__(self) -> None:
        self._items: dict[int, tuple[list[Event], State, list[list[int]]]] = {}
        self._lock = threading.Lock()

    def series(self, info: MatchInfo, game: Game, events: list[Event]) -> list[list[int]]:
        with self._lock:
            cached = self._items.get(info.id)
            if cached is not None and events[: len(cached[0])] == cached[0]:
                done, state, series = cached
                series = [list(row) for row in series]
            else:
                done, state = [], game.new_state(info.players, observer=info.observer)
                series = [[0] * len(info.players)]
            for event in events[len(done):]:
                if not state.apply(event).ok:
                    break  # the store replays the same log; this cannot differ from it
                scores = [int(s) for s in state.scores()]
                if scores != series[-1]:
                    series.append(scores)
            self._items[info.id] = (list(events), state, series)
            return series


_BUILD_LOCK = "ducktable.board_build_lock"


def _caches() -> tuple[_SnapshotCache, _TimelineCache]:
    ext = current_app.extensions
    if "ducktable.board_cache" not in ext:
        ext.setdefault("ducktable.board_cache", (_SnapshotCache(), _TimelineCache()))
        ext.setdefault(_BUILD_LOCK, threading.Lock())
    return ext["ducktable.board_cache"]


def _build_lock() -> threading.Lock:
    """Held while a board is built, so phones woken by one event wait for one render
    instead of each rendering the same board."""
    _caches()
    return current_app.extensions[_BUILD_LOCK]


def board_snapshot(info: MatchInfo) -> BoardSnapshot:
    store = get_store()
    seq = store.seq(info.id)
    cache, _ = _caches()
    hit = cache.get((info.id, seq))
    if hit is not None:
        return hit[0]
    with _build_lock():
        hit = cache.get((info.id, seq))
        if hit is not None:
            return hit[0]
        snap = _build_snapshot(info, seq)
        cache.put((info.id, seq), (snap, None))
        return snap


def _build_snapshot(info: MatchInfo, seq: int) -> BoardSnapshot:
    store = get_store()
    _, timelines = _caches()
    state = store.state(info.id)
    events = store.events(info.id)
    game = state.game
    view = state.public_view()
    n = len(info.players)
    round_points = _round_points(view, n)
    if round_points is not None:
        series = present.cumulative(round_points, n)
    else:
        series = timelines.series(info, make_game(info.game, info.options), events)
        round_points = [
            [b - a for a, b in zip(prev, row, strict=True)]
            for prev, row in zip(series, series[1:], strict=False)
        ]
    recent = [
        _recent(i, game.public_event(e), info.players)
        for i, e in list(enumerate(events))[-RECENT_EVENTS:][::-1]
    ]
    over = state.is_over()
    snap = BoardSnapshot(
        info=info,
        seq=seq,
        title=game.title or info.game,
        view=view,
        scores=[int(s) for s in state.scores()],
        to_move=state.to_move(),
        next=state.describe_next(),
        over=over,
        winners=state.winners() if over else [],
        event_count=len(events),
        recent=recent,
        rows=present.seat_rows(view, n),
        facts=present.table_facts(view, info.players),
        chart=present.chart(series, info.players),
        round_points=round_points,
        board=boards.extras(info.game, view, info.players, info.options),
    )
    return snap


def _round_points(view: dict[str, Any], n: int) -> list[list[int]] | None:
    points = view.get("round_points")
    if not isinstance(points, list):
        return None
    rows: list[list[int]] = []
    for row in points:
        if not isinstance(row, list) or len(row) != n:
            return None
        if not all(isinstance(p, int) and not isinstance(p, bool) for p in row):
            return None
        rows.append(list(row))
    return rows


def _recent(index: int, event: Event, players: Sequence[str]) -> RecentEvent:
    seat = event.seat
    who = players[seat] if seat is not None and 0 <= seat < len(players) else "table"
    return RecentEvent(index, who, seat, event.type, dict(event.data), event.source)


def render_board(snap: BoardSnapshot) -> Markup:
    cache, _ = _caches()
    key = (snap.info.id, snap.seq)
    hit = cache.get(key)
    if hit is not None and hit[1] is not None:
        return hit[1]
    with _build_lock():
        hit = cache.get(key)
        if hit is not None and hit[1] is not None:
            return hit[1]
        template = current_app.jinja_env.select_template(
            [f"game-{snap.info.game}.html", "game-generic.html"]
        )
        html = share_drawings(render_template("board.html", snap=snap, game_template=template))
        cache.put(key, (snap, html))
        return html


def cue_snapshot() -> Any:
    cues = current_app.config.get("CUES")
    if cues is None:
        return None
    try:
        return json.dumps(cues.snapshot(), sort_keys=True)
    except Exception:  # a cue board that fails must never take the scoreboard down
        current_app.logger.exception("the cue board's snapshot failed")
        return None


def render_leds(info: MatchInfo) -> Markup:
    raw = cue_snapshot()
    if raw is None:
        return Markup("")
    return Markup(render_template("leds.html", cues=json.loads(raw), players=info.players))
