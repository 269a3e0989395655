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


# -- events, choices and cards in words (the entry and dispute forms) ------------------------

EVENT_WORDS: dict[tuple[str, str], str] = {
    ("duck", "deal"): "Deal a new round",
    ("duck", "play"): "Play cards",
    ("duck", "draw"): "Draw a card",
    ("duck", "duck"): "Duck (claim the lowest hand)",
    ("duck", "reveal"): "Show the hands (round end)",
    ("grey", "deal"): "Deal a new hand",
    ("grey", "counts"): "Correct the cards dealt",
    ("grey", "swap_pass"): "Swap: the Duckling passes a card",
    ("grey", "drake_request"): "Swap: ask for another rank",
    ("grey", "cannot_comply"): "Swap: the Captain has no such card",
    ("grey", "swap_return"): "Swap: the Captain returns a card",
    ("grey", "lame_duck"): "Lame Duck (the Captain refuses)",
    ("grey", "lucky_duck"): "Lucky Duck (both Drakes)",
    ("grey", "play"): "Play cards",
    ("grey", "quack"): "Quack (pass)",
    ("grey", "grey"): "Grey duck out of turn",
    ("bruce", "shuffle"): "Shuffle the deck",
    ("bruce", "reveal"): "Turn over a card",
    ("bruce", "stop"): "Stop and keep the row",
    ("bruce", "continue"): "Turn another card",
    ("bruce", "declare"): "Bruce: name an opponent",
    ("bruce", "roll"): "Roll the die",
    ("bruce", "steal"): "Cards taken by Bruce",
    ("ducky", "setup"): "Set up the board",
    ("ducky", "move"): "Move your pawn",
    ("ducky", "take"): "Take the fallen duck",
    ("ducky", "fish"): "Fish a duck",
    ("ducky", "pass"): "Do not fish",
    ("ducky", "uncover"): "Next card of a pile",
    ("ducky", "return"): "Put the ducks back on the river",
    ("sitting", "shuffle"): "Shuffle a pile",
    ("sitting", "reveal"): "Fill the line from the pond",
    ("sitting", "draw"): "Draw an action card",
    ("sitting", "discard"): "Throw away a card (none can be played)",
}
"""Plain names of the engines' event types, by (game, type); others are spelled out
(``double_barrel`` -> ``Double barrel``)."""

CHOICE_WORDS: dict[tuple[str, str], dict[str, str]] = {
    ("ducky", "pile"): {"0": "first pile", "1": "second pile"},
    ("sitting", "pile"): {"pond": "the pond", "actions": "the action cards"},
    ("bruce", "face"): {"-1": "−1 (Bruce backfires)"},
}
"""Plain words for the choices of event fields, by (game, field)."""


def event_words(game: str, etype: str) -> str:
    """``double_barrel`` -> ``Double barrel``; ``quack`` in Grey Duck -> ``Quack (pass)``."""
    words = EVENT_WORDS.get((game, etype))
    if words:
        return words
    text = etype.replace("_", " ")
    return text[:1].upper() + text[1:]


def choice_words(game: str, name: str, value: str, players: Sequence[str],
                 seat: int | None) -> str:
    """The words of one choice of an event field. A DUCK neighbour's pile is named by the
    person: ``Ben's pile (left of Ann)``, not ``left``."""
    if game == "duck" and name == "pile":
        if value == "deck":
            return "the draw pile"
        if seat is not None and value in ("left", "right") and players:
            n = len(players)
            other = (seat + 1) % n if value == "left" else (seat - 1) % n
            return f"{players[other]}'s pile ({value} of {players[seat]})"
        return f"the {value} neighbour's pile"
    return CHOICE_WORDS.get((game, name), {}).get(value, value.replace("_", " "))


def card_words(game: str, label: str) -> str:
    """A card as words, from its deck entry: ``duck-blue`` -> ``blue duck``."""
    from ducktable.rules.decks import DECKS  # the deck table is built once, on first use

    deck = DECKS.get(game)
    attrs = next((c.attrs for c in deck.cards if c.label == label), None) if deck else None
    if not attrs:
        return label.replace("-", " ")
    kind = str(attrs.get("kind", ""))
    colour = attrs.get("colour") or attrs.get("suit")
    if kind == "action":
        return str(attrs.get("action", label)).replace("-", " ")
    if "value" in attrs or "rank" in attrs:
        return f"{colour} {attrs.get('value', attrs.get('rank'))}".strip()
    if colour:
        return f"{colour} {kind}".strip()
    return kind or label


# -- the camera's table zones in words ("why it asks") -----------------------------------------

SEAT_ZONE_WORDS = {
    "trick": "spot", "grey": "grey-duck pile", "discard": "discard pile", "reveal": "hand shown",
    "nest": "nest", "gifts": "gifts", "pile0": "first pile", "pile1": "second pile",
}
MIDDLE_ZONE_WORDS = {
    "draw": "the draw pile", "row": "the row", "discard": "the discard pile",
    "steal": "the cards Bruce took", "played": "the played cards",
}
_SEAT_ZONE = re.compile(r"\bseat(\d+)\.([a-z0-9_]+)")
_MIDDLE_ZONE = re.compile(r"\bmiddle\.([a-z_]+)")
_PLACE_ZONE = re.compile(r"\b(line|river|log)\.(\d+|spare)(?:\.([a-z_]+))?")


def zone_words(text: object, players: Sequence[str]) -> str:
    """The camera's reasons name the table's zones as the calibration does (``seat1.trick``,
    ``middle.draw``, ``line.3``); a person reads whose spot or which place it is. A seat without
    a player keeps the log's number, for :func:`seats_from_one` to count from 1."""
    def seat(m: re.Match[str]) -> str:
        n = int(m.group(1))
        who = f"{players[n]}'s" if 0 <= n < len(players) else f"seat {n}'s"  # then seats_from_one
        return f"{who} {SEAT_ZONE_WORDS.get(m.group(2), m.group(2).replace('_', ' '))}"

    def place(m: re.Match[str]) -> str:
        where, at, extra = m.group(1), m.group(2), m.group(3)
        if at == "spare":
            words = "the spare pad"
        elif where == "line":
            words = f"position {at} of the line"
        else:
            words = f"{where} {at}"
        return f"the {extra} at {words}" if extra else words

    out = _SEAT_ZONE.sub(seat, str(text))
    out = _MIDDLE_ZONE.sub(lambda m: MIDDLE_ZONE_WORDS.get(m.group(1), m.group(1)), out)
    return _PLACE_ZONE.sub(place, out)


def init_app(app: Flask) -> None:
    app.jinja_env.filters["local_time"] = local_time
    app.jinja_env.filters["from_one"] = seats_from_one
    app.jinja_env.globals["option_value_words"] = option_value_words
    app.jinja_env.globals["winner_words"] = winner_words
    app.jinja_env.globals["event_words"] = event_words
    app.jinja_env.globals["choice_words"] = choice_words
    app.jinja_env.globals["zone_words"] = zone_words
