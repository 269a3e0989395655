"""How game data looks on a phone: card chips, the per-seat score breakdown, the score chart.

Why this module exists: the scoreboard must show any game's ``public_view()`` without knowing
the game. The helpers here read a view generically (a ``seats`` list of per-seat dicts, or
top-level lists with one entry per seat) and turn card labels into coloured chips using the
game's deck from ``rules.decks``. Games with a partial (templates/game-<name>.html) get a
tailored table; the rest get the generic one built from :func:`seat_rows`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ducktable.rules.decks import DECKS, Deck
from flask import Flask
from markupsafe import Markup, escape

from . import cards_svg
from .words import HIDDEN_FACTS, end_words

NOT_PER_SEAT = frozenset(
    {"seats", "players", "game", "scores", "winners", "round_points", "results", "history",
     "rounds", "options", "line", "last_events", "races", "out"}
)
"""Top-level view keys that are never one-entry-per-seat lists, whatever their length."""

CHART_W, CHART_H, CHART_PAD = 340, 170, 26


def init_app(app: Flask) -> None:
    app.jinja_env.filters["card"] = card_chip
    app.jinja_env.filters["cards"] = card_chips
    app.jinja_env.filters["humanise"] = humanise
    app.jinja_env.globals["cell"] = cell
    app.jinja_env.filters["card_svg"] = cards_svg.card_svg
    app.jinja_env.filters["card_row"] = cards_svg.card_row
    app.jinja_env.globals["card_back"] = cards_svg.card_back
    app.jinja_env.globals["card_name"] = cards_svg.card_name
    app.jinja_env.globals["duck_token"] = cards_svg.duck_token
    app.jinja_env.globals["event_value"] = event_value
    app.jinja_env.filters["end_words"] = end_words


def humanise(key: object) -> str:
    """``towel_points`` -> ``Towel points``; ``race-open`` -> ``Race open``."""
    text = str(key).replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:]


@functools.lru_cache(maxsize=32)
def _deck_lookup(game: str) -> dict[str, Mapping[str, Any]]:
    deck: Deck | None = DECKS.get(game)
    if deck is None:
        return {}
    return {c.label: c.attrs for c in deck.cards}


def is_card(game: str, value: object) -> bool:
    return isinstance(value, str) and value in _deck_lookup(game)


def card_face(game: str, label: str) -> tuple[str, str]:
    """(colour class, short text) of a card: ``yellow-5`` -> (``c-yellow``, ``5``)."""
    attrs = _deck_lookup(game).get(label, {})
    colour = attrs.get("colour") or attrs.get("suit") or attrs.get("kind") or "plain"
    if "value" in attrs:
        text = str(attrs["value"])
    elif "rank" in attrs:
        text = str(attrs["rank"])
    elif "action" in attrs:
        text = str(attrs["action"]).replace("-", " ")
    else:
        text = label
    return f"c-{colour}", text


def card_chip(label: object, game: str) -> Markup:
    """One card as a small coloured chip; unknown labels are shown as plain text."""
    if label is None:
        return Markup('<span class="none">—</span>')
    if not is_card(game, label):
        return Markup('<span class="card c-plain">{}</span>').format(label)
    colour, text = card_face(game, str(label))
    return Markup('<span class="card {}" title="{}">{}</span>').format(colour, label, text)


def card_chips(labels: Sequence[object] | None, game: str) -> Markup:
    if not labels:
        return Markup('<span class="none">—</span>')
    return Markup("").join(card_chip(label, game) for label in labels)


def cell(value: Any, game: str) -> Markup:
    """Any JSON value from a public view, readable in a table cell."""
    if value is None:
        return Markup('<span class="none">—</span>')
    if isinstance(value, bool):
        return Markup("yes" if value else "no")
    if isinstance(value, str):
        return card_chip(value, game) if is_card(game, value) else Markup(escape(value))
    if isinstance(value, int | float):
        return Markup(escape(str(value)))
    if isinstance(value, list | tuple):
        if value and all(is_card(game, v) for v in value):
            return card_chips(value, game)
        if not value:
            return Markup('<span class="none">—</span>')
        return Markup(", ").join(cell(v, game) for v in value)
    if isinstance(value, Mapping):
        parts = [Markup("{} {}").format(humanise(k), cell(v, game)) for k, v in value.items()]
        return Markup("; ").join(parts)
    return Markup(escape(str(value)))


def event_value(value: Any, game: str) -> Markup:
    """An event's field on the board: a card (or a list of cards) drawn as small cards, any
    other value as :func:`cell` shows it."""
    if is_card(game, value):
        return cards_svg.card_svg(value, game, "s")
    if isinstance(value, list) and value and all(is_card(game, v) for v in value):
        return cards_svg.card_row(value, game, "s")
    return cell(value, game)


@dataclass(frozen=True)
class SeatRow:
    """One line of the per-seat breakdown: a title and one value per seat."""

    key: str
    title: str
    values: list[Any]


def seat_rows(view: Mapping[str, Any], num_players: int) -> list[SeatRow]:
    """What makes up each seat's score, read generically from a public view."""
    rows: list[SeatRow] = []
    seats = view.get("seats")
    if (
        isinstance(seats, list)
        and len(seats) == num_players
        and all(isinstance(s, Mapping) for s in seats)
    ):
        keys: list[str] = []
        for seat in seats:
            keys.extend(k for k in seat if k not in keys and k not in ("seat", "name"))
        rows.extend(SeatRow(k, humanise(k), [s.get(k) for s in seats]) for k in keys)
    for key, value in view.items():
        if key in NOT_PER_SEAT:
            continue
        if isinstance(value, list) and len(value) == num_players and all(
                v is None or isinstance(v, str | int | float) for v in value):
            # (a list of records that happens to be as long is no per-seat figure: Sitting
            # Ducks' six line places at a six-player table)
            rows.append(SeatRow(key, humanise(key), list(value)))
    return rows


SEAT_FACTS = frozenset({"dealer", "leader", "turn", "captain", "duckling"})
"""Top-level view keys whose number is a seat: shown as that player's name."""


def table_facts(view: Mapping[str, Any], players: Sequence[str] = ()) -> list[tuple[str, Any]]:
    """The view's plain facts about the whole table (round, draw pile size...); a seat
    (the dealer, the leader) by the name of its player when ``players`` are given. The
    engine's bookkeeping (:data:`words.HIDDEN_FACTS`) and facts with no value are left out."""
    skip = NOT_PER_SEAT | HIDDEN_FACTS | {"next", "to_move"}

    def shown(key: str, value: Any) -> Any:
        if key in SEAT_FACTS and isinstance(value, int) and not isinstance(value, bool) \
                and 0 <= value < len(players):
            return players[value]
        if key == "end" and isinstance(value, str):
            return end_words(value)
        return value

    return [
        (humanise(k), shown(k, v))
        for k, v in view.items()
        if k not in skip and isinstance(v, str | int | float | bool)
    ]


@dataclass(frozen=True)
class ChartLine:
    seat: int
    name: str
    points: str
    end_x: float
    end_y: float
    total: int


@dataclass(frozen=True)
class Chart:
    """A per-round cumulative score chart, ready for the inline-SVG template."""

    width: int
    height: int
    lines: list[ChartLine]
    rounds: list[tuple[float, str]]
    gridlines: list[tuple[float, int]]

    @property
    def empty(self) -> bool:
        return not self.rounds or len(self.rounds) < 2


def cumulative(per_round: Sequence[Sequence[int]], num_players: int) -> list[list[int]]:
    """Running totals after each round, starting from 0 (``[[0, 0], [3, -1], ...]``)."""
    totals = [0] * num_players
    out = [list(totals)]
    for points in per_round:
        totals = [t + int(p) for t, p in zip(totals, points, strict=False)]
        out.append(list(totals))
    return out


def chart(series: Sequence[Sequence[int]], players: Sequence[str]) -> Chart:
    """Lay out running totals (one list per scoring moment, the first all zero) as lines."""
    n = len(players)
    values = [v for row in series for v in row] or [0]
    low, high = min(0, *values), max(1, *values)
    span = high - low or 1
    steps = max(1, len(series) - 1)
    inner_w = CHART_W - 2 * CHART_PAD
    inner_h = CHART_H - 2 * CHART_PAD

    def x(i: int) -> float:
        return round(CHART_PAD + inner_w * i / steps, 1)

    def y(v: int) -> float:
        return round(CHART_PAD + inner_h * (high - v) / span, 1)

    lines = []
    for seat in range(n):
        pts = [(x(i), y(row[seat])) for i, row in enumerate(series) if seat < len(row)]
        if not pts:
            continue
        lines.append(
            ChartLine(
                seat,
                players[seat],
                " ".join(f"{px},{py}" for px, py in pts),
                pts[-1][0],
                pts[-1][1],
                int(series[-1][seat]),
            )
        )
    rounds = [(x(i), str(i)) for i in range(len(series))]
    grid = sorted({low, 0, high})
    return Chart(CHART_W, CHART_H, lines, rounds, [(y(v), v) for v in grid])
