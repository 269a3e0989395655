"""Words, not internals: how the pages say option values, seats, times and the end of a game.

Why this module exists: the engines speak in identifiers (``all_tied_discard``, seat 0,
``points:77``, UTC timestamps) because logs and JSON need them; a family at the table needs
plain sentences. The data formats stay as they are; only what a page shows goes through here.
Seats, tables and events count from 1 on the pages (the first seat is "seat 1").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from flask import Flask
from markupsafe import Markup

OPTION_WORDS: dict[tuple[str, str], dict[str, str]] = {
    ("duck", "starting_face_up"): {
        "dealer": "Only the dealer turns a card face up",
        "everyone": "Everyone turns a card face up",
    },
    ("duck", "highest_tie"): {
        "all_tied_discard": "Everyone tied for the highest hand discards it",
        "none_discard": "Nobody discards when the highest hands tie",
    },
    ("grey", "names"): {
        "classic": "Classic names: grey duck, quack, Duckling",
        "minnesota": "Minnesota names: grey goose, honk, Gosling",
    },
    ("ducky", "layout"): {
        "default": "The standard board",
    },
}
"""Plain words for the choice values of the engines' options, by (game, option)."""

SEAT_OPTIONS = frozenset({"first_dealer", "first", "swap_captain", "swap_duckling"})
"""Options whose number is a seat (0 is the first seat; -1, where allowed, is nobody)."""

HIDDEN_FACTS = frozenset({"names", "terms", "unseen", "over", "elapsed_ms", "layout", "phase"})
"""Public-view keys that are the engine's bookkeeping, not news for the table: the board's
banner already says when the game is over, and the naming scheme and unseen-card count mean
nothing to the players."""

_END = re.compile(r"^(rounds|minutes|points):(\d+)$")


def option_value_words(game: str, option: str, value: Any) -> str:
    """``all_tied_discard`` -> ``Everyone tied for the highest hand discards it``."""
    if option in SEAT_OPTIONS and isinstance(value, int) and not isinstance(value, bool):
        return "nobody" if value < 0 else f"seat {value + 1}"
    words = OPTION_WORDS.get((game, option), {}).get(str(value))
    if words:
        return words
    if option == "end" and isinstance(value, str):
        return end_words(value)
    return str(value).replace("_", " ")


def end_words(value: str) -> str:
    """Duck Duck Bruce's ``end`` option: ``points:77`` -> ``first to 77 points``."""
    found = _END.match(value.strip())
    if not found:
        return value
    kind, n = found.group(1), int(found.group(2))
    if kind == "rounds":
        return f"after {n} round{'s' if n != 1 else ''}"
    if kind == "minutes":
        return f"after {n} minute{'s' if n != 1 else ''}"
    return f"first to {n} point{'s' if n != 1 else ''}"


def seat_choices(option: str, seats: int) -> list[tuple[int, str]]:
    """The menu of a seat option: (value, words), ``-1`` first where it means nobody."""
    menu = [(i, f"Seat {i + 1}") for i in range(seats)]
    if option.startswith("swap_"):
        menu.insert(0, (-1, "Nobody (a new party)"))
    return menu


def local_time(iso: object) -> Markup:
    """A stored ISO time as ``<time datetime="...">28 Nov 2026, 01:59 UTC</time>``: readable
    without JavaScript; the page's script rewrites it in the phone's own time zone."""
    text = str(iso or "")
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return Markup("<span>{}</span>").format(text)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    shown = when.astimezone(UTC).strftime("%-d %b %Y, %H:%M UTC")
    return Markup('<time datetime="{}">{}</time>').format(when.isoformat(), shown)


def winner_words(winners: Sequence[int], players: Sequence[str]) -> str:
    """``Ann wins!``, ``Ann and Ben share the win!`` or ``Nobody wins.``"""
    names = [players[w] for w in winners if 0 <= w < len(players)]
    if not names:
        return "Game over. Nobody wins."
    if len(names) == 1:
        return f"{names[0]} wins!"
    return f"{', '.join(names[:-1])} and {names[-1]} share the win!"


_SEAT = re.compile(r"\bseat (\d+)\b")
_SEATS = re.compile(r"\bseats are 0( to |\.\.)(\d+)\b")


def seats_from_one(text: object) -> str:
    """The engines' sentences name seats as the log does, from 0 ("Ada (seat 0) must play");
    the pages count from 1 ("Ada (seat 1) must play")."""
    out = _SEATS.sub(lambda m: f"seats are 1{m.group(1)}{int(m.group(2)) + 1}", str(text))
    return _SEAT.sub(lambda m: f"seat {int(m.group(1)) + 1}", out)


def init_app(app: Flask) -> None:
    app.jinja_env.filters["local_time"] = local_time
    app.jinja_env.filters["from_one"] = seats_from_one
    app.jinja_env.globals["option_value_words"] = option_value_words
    app.jinja_env.globals["winner_words"] = winner_words
