"""What each game's board draws beyond the engine's public view: seat colours, the round
outcomes in words, and Ducky Ducky's river laid out with its logs and pawns.

Why this module exists: the game templates (templates/game-<name>.html) draw the table as it
looks; the few things they need that are not in ``public_view()`` as it stands - a sentence for
"was the duck right?", the river's logs (they live in the board layout, not the view), a seat
colour that does not clash with Sitting Ducks' own duck colours - are worked out here once per
board, in plain Python that tests can call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ducktable.rules.ducky_board import LayoutError, resolve_layout

from .cards_svg import card_name

MAX_OUTCOMES = 3
"""The board says the last few rounds in words; the chart and table below show them all."""


@dataclass(frozen=True)
class RiverCell:
    """One cell of Ducky Ducky's river, with the log facing it (if any) and that log's pawn."""

    index: int
    pad: str
    duck: bool
    log: int | None = None
    white_star: bool = False
    blue_star: bool = False
    pawn: int | None = None

    @property
    def words(self) -> str:
        text = f"cell {self.index + 1}: {self.pad} pad" + (" with a duck" if self.duck else "")
        if self.log is not None:
            text += f"; log {self.log + 1}"
        return text


@dataclass(frozen=True)
class BoardExtras:
    """Per board: each seat's colour class, the last round outcomes (newest first), whether the
    game has rounds, and Ducky Ducky's river cells."""

    seat_class: list[str]
    outcomes: list[str] = field(default_factory=list)
    has_rounds: bool = False
    river: list[RiverCell] = field(default_factory=list)


def extras(game: str, view: Mapping[str, Any], players: Sequence[str],
           options: Mapping[str, Any]) -> BoardExtras:
    return BoardExtras(
        seat_class=seat_classes(game, view, len(players)),
        outcomes=round_outcomes(game, view, players)[:MAX_OUTCOMES],
        has_rounds=isinstance(view.get("round_points"), list),
        river=ducky_river(view, options) if game == "ducky" else [],
    )


def seat_classes(game: str, view: Mapping[str, Any], n: int) -> list[str]:
    """``seat-<i>`` (the site's seat colours), except in Sitting Ducks, where each seat plays a
    duck colour of its own: the seat is shown in that colour (``duck-blue``), so a seat's dot
    and its ducks on the line never disagree."""
    classes = [f"seat-{i}" for i in range(n)]
    if game == "sitting":
        for i, seat in enumerate(view.get("seats") or []):
            colour = seat.get("colour") if isinstance(seat, Mapping) else None
            if i < n and isinstance(colour, str) and colour.isalpha():
                classes[i] = f"duck-{colour}"
    return classes


# --------------------------------------------------------------------------------------------
# Round outcomes in words
# --------------------------------------------------------------------------------------------


def _name(players: Sequence[str], seat: object) -> str:
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players):
        return players[seat]
    return "someone"


def _listing(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def round_outcomes(game: str, view: Mapping[str, Any], players: Sequence[str]) -> list[str]:
    """How each finished round (hand) ended, newest first: ``Round 2: Ann called DUCK and was
    right — lifebelt +7.`` Games without rounds (Ducky Ducky, Sitting Ducks) have none."""
    if game == "duck":
        return [_duck_outcome(r, players) for r in reversed(view.get("results") or [])
                if isinstance(r, Mapping)]
    if game == "bruce":
        return _bruce_outcomes(view, players)
    if game == "grey":
        return _grey_outcomes(view, players)
    return []


def _duck_outcome(result: Mapping[str, Any], players: Sequence[str]) -> str:
    who = _name(players, result.get("ender"))
    belt = result.get("lifebelt")
    how = result.get("how")
    if how == "out":
        text = f"{who} played out their hand — lifebelt +{belt}"
    elif how == "ducked_right":
        text = f"{who} called DUCK and was right — lifebelt +{belt}"
    else:
        text = f"{who} called DUCK and was wrong — lifebelt −{belt}"
    towels = [f"{_name(players, i)} {card_name('duck', c)}"
              for i, c in enumerate(result.get("towel_cards") or []) if isinstance(c, str)]
    discarded = [_name(players, i) for i in result.get("discarded") or []]
    parts = [f"Round {result.get('round')}: {text}."]
    if towels:
        parts.append(f"To the towel: {_listing(towels)}.")
    if discarded:
        parts.append(f"{_listing(discarded)} held the highest hand and "
                     f"{'discards' if len(discarded) == 1 else 'discard'} it.")
    return " ".join(parts)


def _bruce_outcomes(view: Mapping[str, Any], players: Sequence[str]) -> list[str]:
    out = []
    rows = [r for r in view.get("round_points") or [] if isinstance(r, list)]
    for number, row in reversed(list(enumerate(rows, start=1))):
        if not row or len(row) != len(players):
            continue
        best = max(row)
        leaders = [players[i] for i, p in enumerate(row) if p == best]
        scores = ", ".join(f"{players[i]} {p}" for i, p in enumerate(row))
        verb = "scores" if len(leaders) == 1 else "score"
        out.append(f"Round {number}: {_listing(leaders)} {verb} most ({best}). {scores}.")
    return out


def _grey_outcomes(view: Mapping[str, Any], players: Sequence[str]) -> list[str]:
    raw_terms = view.get("terms")
    terms: Mapping[str, Any] = raw_terms if isinstance(raw_terms, Mapping) else {}
    captain = str(terms.get("captain", "Captain"))
    duckling = str(terms.get("duckling", "Duckling"))
    out = []
    for number, order in reversed(list(enumerate(view.get("results") or [], start=1))):
        if not isinstance(order, list) or len(order) < 2:
            continue
        out.append(f"Hand {number}: {_name(players, order[0])} went out first ({captain}); "
                   f"{_name(players, order[-1])} was last ({duckling}).")
    return out


# --------------------------------------------------------------------------------------------
# Ducky Ducky's river
# --------------------------------------------------------------------------------------------


def ducky_river(view: Mapping[str, Any], options: Mapping[str, Any]) -> list[RiverCell]:
    """The river's cells from the entrance to the waterfall, each with the log that faces it
    and the pawn on that log (layouts are the match's option; an unreadable one shows the
    river without logs rather than failing the board)."""
    raw_board = view.get("board")
    board: Mapping[str, Any] = raw_board if isinstance(raw_board, Mapping) else {}
    river = [c for c in board.get("river") or [] if isinstance(c, Mapping)]
    try:
        layout = resolve_layout(options.get("layout"))
        logs = {log.faces: (i, log) for i, log in enumerate(layout.logs)}
    except LayoutError:
        logs = {}
    pawns = {}
    for seat in view.get("seats") or []:
        if isinstance(seat, Mapping) and isinstance(seat.get("pawn"), int):
            pawns[seat["pawn"]] = seat.get("seat")
    cells = []
    for index, cell in enumerate(river):
        found = logs.get(index)
        log_no = found[0] if found else None
        cells.append(RiverCell(
            index=index, pad=str(cell.get("pad", "white")), duck=bool(cell.get("duck")),
            log=log_no, white_star=bool(found and found[1].white_star),
            blue_star=bool(found and found[1].blue_star),
            pawn=pawns.get(log_no) if log_no is not None else None,
        ))
    return cells

