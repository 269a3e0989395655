"""Ducky Ducky's board as data: river cells, logs and pad counts, with a JSON form.

Why a separate module: the only rulebook gives no measurements, so the geometry is
configuration (DUCKY-C1). The engine, the camera's zone map and the renderer all read the same
:class:`BoardLayout`; a user whose board differs writes a layout as JSON and passes it as the
game's ``layout`` option. Loading and dumping work on dicts and strings only; reading a file is
the caller's business (rules/ does no I/O).

Cells are numbered from 0 at the river's entrance to ``cells - 1`` beside the waterfall. Logs
are numbered in the order they are listed; each faces exactly one cell.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .core import JSONTextError, RulesError, read_json
from .decks import DUCKY_COLOURS

DEFAULT_CELLS = 20
DEFAULT_PADS_PER_COLOUR = 4
LAYOUT_KEYS = ("name", "cells", "pads_per_colour", "logs")
LOG_KEYS = ("faces", "white_star", "blue_star")


class LayoutError(RulesError, ValueError):
    """A board layout that cannot be played; the message says what to change."""


@dataclass(frozen=True)
class Log:
    """A log beside the river where one fisher pawn may stand, facing one river cell."""

    faces: int
    white_star: bool = False
    blue_star: bool = False


@dataclass(frozen=True)
class BoardLayout:
    """The river and its logs (DUCKY-C1) and how many pads of each colour there are (DUCKY-C2).

    Every river cell holds a pad at all times: white pads on the cells faced by white-star logs,
    coloured pads on all the others, so ``cells`` must equal the number of white-star cells plus
    ``pads_per_colour`` times the four duck colours. One more white pad is the spare.
    """

    cells: int
    logs: tuple[Log, ...]
    pads_per_colour: int = DEFAULT_PADS_PER_COLOUR
    name: str = "custom"

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise LayoutError(f"board layout {self.name!r}: {problem}")

    def _problem(self) -> str | None:
        if self.cells < 2:
            return f"the river needs at least 2 cells, got {self.cells}"
        if self.pads_per_colour < 2:
            return ("each colour needs at least 2 pads (and ducks): a card may ask for two ducks "
                    f"of one colour; got {self.pads_per_colour}")
        for index, log in enumerate(self.logs):
            if not 0 <= log.faces < self.cells:
                return (f"log {index} faces cell {log.faces}, but the cells are "
                        f"0..{self.cells - 1}")
        if len(self.start_logs) < 2:
            return "at least 2 logs must carry a blue star (the start logs)"
        if len(self.logs) < 3:
            return "there must be at least 3 logs, so a pawn always has a free log to move to"
        coloured = self.pads_per_colour * len(DUCKY_COLOURS)
        if len(self.white_cells) + coloured != self.cells:
            return (
                f"every cell holds a pad at set-up: {len(self.white_cells)} white-star cell(s) + "
                f"{coloured} coloured pads ({self.pads_per_colour} x {len(DUCKY_COLOURS)} "
                f"colours) must equal the {self.cells} river cells"
            )
        return None

    @property
    def white_cells(self) -> tuple[int, ...]:
        """Cells faced by a white-star log: a white pad starts there (DUCKY-S1)."""
        return tuple(sorted({log.faces for log in self.logs if log.white_star}))

    @property
    def start_logs(self) -> tuple[int, ...]:
        """Indices of the blue-star logs, where pawns start (DUCKY-S1)."""
        return tuple(i for i, log in enumerate(self.logs) if log.blue_star)

    @property
    def white_pads(self) -> int:
        """White pads in the box: one per white-star cell plus the spare."""
        return len(self.white_cells) + 1

    def max_players(self) -> int:
        """Most pawns the board seats: one per start log, with a free log left to move to."""
        return min(len(self.start_logs), len(self.logs) - 1)


def _default_layout() -> BoardLayout:
    """20 cells; 10 logs facing the odd cells 1..19; white stars at 3, 7, 13, 17; blue stars at
    1, 5, 11, 15 (our default: the publisher's board was not measured)."""
    white = {3, 7, 13, 17}
    blue = {1, 5, 11, 15}
    logs = tuple(Log(cell, cell in white, cell in blue) for cell in range(1, DEFAULT_CELLS, 2))
    return BoardLayout(DEFAULT_CELLS, logs, DEFAULT_PADS_PER_COLOUR, "default")


DEFAULT_LAYOUT = _default_layout()


def layout_to_json(layout: BoardLayout) -> dict[str, Any]:
    return {
        "name": layout.name,
        "cells": layout.cells,
        "pads_per_colour": layout.pads_per_colour,
        "logs": [
            {"faces": log.faces, "white_star": log.white_star, "blue_star": log.blue_star}
            for log in layout.logs
        ],
    }


def dumps_layout(layout: BoardLayout) -> str:
    """Canonical JSON text of a layout (sorted keys, no spaces): equal layouts, equal text."""
    return json.dumps(layout_to_json(layout), sort_keys=True, separators=(",", ":"))


def layout_from_json(obj: str | Mapping[str, Any]) -> BoardLayout:
    """A layout from its JSON text or dict, or :class:`LayoutError` saying what is wrong."""
    if isinstance(obj, str):
        try:
            obj = read_json(obj)
        except JSONTextError as exc:
            raise LayoutError(
                f"the board layout is not valid JSON ({exc}); write it "
                'like {"cells": 20, "logs": [{"faces": 1, "blue_star": true}, ...]}'
            ) from None
    if not isinstance(obj, Mapping):
        raise LayoutError("a board layout must be a JSON object with 'cells' and 'logs'")
    unknown = set(obj) - set(LAYOUT_KEYS)
    if unknown:
        raise LayoutError(f"unknown layout key(s) {sorted(unknown)}; allowed: {list(LAYOUT_KEYS)}")
    cells = _whole(obj.get("cells"), "'cells'")
    pads = _whole(obj.get("pads_per_colour", DEFAULT_PADS_PER_COLOUR), "'pads_per_colour'")
    name = obj.get("name", "custom")
    if not isinstance(name, str):
        raise LayoutError(f"layout 'name' must be text, got {name!r}")
    raw_logs = obj.get("logs")
    if not isinstance(raw_logs, list) or not raw_logs:
        raise LayoutError("layout 'logs' must be a non-empty list of {\"faces\": cell, ...} objects")
    return BoardLayout(cells, tuple(_log(i, raw) for i, raw in enumerate(raw_logs)), pads, name)


def _log(index: int, raw: Any) -> Log:
    if not isinstance(raw, Mapping):
        raise LayoutError(f"log {index} must be an object like {{\"faces\": 3}}, got {raw!r}")
    unknown = set(raw) - set(LOG_KEYS)
    if unknown:
        raise LayoutError(f"log {index} has unknown key(s) {sorted(unknown)}; allowed: "
                          f"{list(LOG_KEYS)}")
    faces = _whole(raw.get("faces"), f"log {index} 'faces'")
    flags = []
    for key in ("white_star", "blue_star"):
        value = raw.get(key, False)
        if not isinstance(value, bool):
            raise LayoutError(f"log {index} '{key}' must be true or false, got {value!r}")
        flags.append(value)
    return Log(faces, flags[0], flags[1])


def _whole(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise LayoutError(f"layout {what} must be a whole number, got {value!r}")
    return value


def resolve_layout(value: str | Mapping[str, Any] | None) -> BoardLayout:
    """The game option's value as a layout: "default" (or empty) or a layout's JSON."""
    if value is None or (isinstance(value, str) and value.strip() in ("", "default")):
        return DEFAULT_LAYOUT
    return layout_from_json(value)
