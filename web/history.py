"""History: every match played on this table, and per-player totals for each game.

Totals are kept per game because points of different games do not add up (a DUCK point is
not a Grey Duck point). Scores and winners come from each match's summary, kept by the store
with every change (device/store_index.py), so the page costs the same after a restart and with
a long history. A match whose log no longer replays is listed with the store's message
instead of breaking the page. Each match's log can be downloaded: the public form
(hidden cards removed) for anyone, the full form for an unlocked phone.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ducktable.device.store import MatchInfo, StoreError
from ducktable.rules.registry import game_class
from flask import Blueprint, Response, render_template, request

from .auth import is_unlocked, pin_required
from .db import MAX_MATCH_ID, get_store, match_or_404

bp = Blueprint("history", __name__)


@dataclass
class PlayerTotal:
    name: str
    matches: int = 0
    finished: int = 0
    wins: int = 0
    points: int = 0


@dataclass
class MatchRow:
    info: MatchInfo
    title: str
    scores: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    problem: str | None = None


def _title(game: str) -> str:
    try:
        return game_class(game).title or game
    except Exception:  # an engine not installed here still lists by its name
        return game


PAGE_SIZE = 50
"""Matches listed per history page (the totals always cover every match)."""


def summarise(matches: list[MatchInfo]) -> list[MatchRow]:
    """A row per match from its stored summary; a match without one yet (a database from
    before summaries) is replayed once, and its summary kept."""
    store = get_store()
    rows: list[MatchRow] = []
    for info in matches:
        row = MatchRow(info, _title(info.game))
        try:
            if info.damaged:
                raise StoreError(info.damaged)
            summary = info if info.scores is not None else store.summary(info.id)
            row.scores = list(summary.scores or [])
            row.winners = list(summary.winners or [])
            if len(row.scores) != len(info.players):
                raise StoreError(f"match {info.id}'s summary does not fit its seats")
        except StoreError as exc:
            row.problem = str(exc)
        rows.append(row)
    return rows


def totals() -> dict[str, list[PlayerTotal]]:
    """Each game's players, best first: wins, then points (summed by the store)."""
    by_game: dict[str, list[PlayerTotal]] = defaultdict(list)
    for game, name, matches, finished, wins, points in get_store().player_totals():
        by_game[_title(game)].append(PlayerTotal(name, matches, finished, wins, points))
    return {title: sorted(players, key=lambda t: (-t.wins, -t.points, t.name))
            for title, players in sorted(by_game.items())}


@bp.get("/history")
def index() -> Any:
    before = request.args.get("before", type=int)
    if before is not None and not 0 < before <= MAX_MATCH_ID:
        before = None
    shown = get_store().list_matches(limit=PAGE_SIZE + 1, before=before)
    older = shown[PAGE_SIZE].id + 1 if len(shown) > PAGE_SIZE else None
    return render_template("history.html", rows=summarise(shown[:PAGE_SIZE]), totals=totals(),
                           older=older, newest=before is not None)


@bp.get("/match/<int:match_id>/export.jsonl")
def export(match_id: int) -> Response:
    match_or_404(match_id)
    full = request.args.get("full") == "1" and is_unlocked()
    text = get_store().export_jsonl(match_id, public=not full)
    suffix = "" if full else "-public"
    return Response(
        text,
        mimetype="application/x-ndjson",
        headers={
            "Content-Disposition": f'attachment; filename="match-{match_id}{suffix}.jsonl"'
        },
    )


@bp.get("/backup.sqlite3")
@pin_required
def backup() -> Response:
    """The whole match database (hidden hands included, hence the PIN), made with SQLite's
    online backup so that events not yet checkpointed from the write-ahead log are in it."""
    with tempfile.TemporaryDirectory(prefix="ducktable-backup-") as folder:
        path = get_store().backup(Path(folder) / "matches.sqlite3")
        data = path.read_bytes()
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
    return Response(
        data,
        mimetype="application/vnd.sqlite3",
        headers={
            "Content-Disposition": f'attachment; filename="ducktable-backup-{stamp}.sqlite3"',
            "Cache-Control": "no-store",
        },
    )
