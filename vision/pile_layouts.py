"""Where the cards lie beside a board game's board: Ducky Ducky's piles and gifts, Sitting
Ducks' played pile.

Why this module exists: the board readers (vision/boards.py) know only the board itself, but
the camera must also read the cards the players lay next to it to follow those games. These
layouts add those zones to the board's own; the camera reader (vision/reader.py, through
vision/table_views.py) and its tests use them.
"""

from __future__ import annotations

from dataclasses import replace

from ducktable.rules.ducky import GIFTS_TO_WIN, PILES
from ducktable.rules.ducky_board import BoardLayout
from ducktable.rules.infer_ducky import gifts_zone, pile_zone
from ducktable.rules.infer_sitting import PLAYED_ZONE

from .boards import LineBoard, RiverBoard
from .layout import SLOT_H, SLOT_W, TableLayout, Zone

PILE_GAP = 8.0
"""Table units between a seat's two piles and its gifts."""
BAND_GAP = 15.0
"""Table units between the board's edge (the table area) and the seats' piles beyond it."""


def ducky_table_layout(players: int, board: BoardLayout) -> TableLayout:
    """The Ducky Ducky table: the board's zones (:meth:`~.boards.RiverBoard.layout`, its
    markers at the table area's corners) and, beyond its long edges, each seat's two piles and
    its gifts laid in a row (``seat<N>.pile0``, ``pile1``, ``gifts``, DUCKY-S1/T5). Seats go
    clockwise: below the board from right to left, then above it from left to right (as Duck
    Duck Bruce's nests). The camera must see those bands too (they lie outside the table area).

    boards.py has no such layout yet; this is the one the reader and its tests use."""
    base = RiverBoard.of(board).layout()
    w, h = base.size
    bottom = (players + 1) // 2
    top = players - bottom
    order = [("bottom", bottom - 1 - i, bottom) for i in range(bottom)] + [("top", i, top) for i in range(top)]
    group = PILES * (SLOT_W + PILE_GAP) + PILE_GAP + GIFTS_TO_WIN * SLOT_W
    zones = list(base.zones)
    for seat, (band, index, count) in enumerate(order):
        y = h + BAND_GAP if band == "bottom" else -BAND_GAP - SLOT_H
        gap = (w - count * group) / (count + 1)
        x = gap + index * (group + gap)
        for pile in range(PILES):
            zones.append(Zone(pile_zone(seat, pile), x + pile * (SLOT_W + PILE_GAP), y, SLOT_W, SLOT_H))
        gifts_x = x + PILES * (SLOT_W + PILE_GAP) + PILE_GAP
        zones.append(Zone(gifts_zone(seat), gifts_x, y, GIFTS_TO_WIN * SLOT_W, SLOT_H, "spread", GIFTS_TO_WIN, 1))
    return TableLayout(f"{base.name}-{players}p", tuple(zones), base.size, base.markers, base.marker_size,
                       base.homography)


def sitting_table_layout() -> TableLayout:
    """The Sitting Ducks table: the line's zones (:meth:`~.boards.LineBoard.layout`) and, right
    of the line, the pile of played action cards (``middle.played``, which
    :mod:`~ducktable.rules.infer_sitting` needs to tell which card was played). The camera
    reader uses it, and the rendered replays lay and read the pile there
    (:func:`~.boards.camera_snapshots`)."""
    base = LineBoard().layout()
    w, h = base.size
    right = max(z.x + z.w for z in base.zones)
    played = Zone(PLAYED_ZONE, right + (w - right - SLOT_W) / 2, h / 2 - SLOT_H / 2, SLOT_W, SLOT_H)
    return replace(base, name=f"{base.name}-played", zones=(*base.zones, played))
