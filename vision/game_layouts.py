"""The default zones of the card games whose layout is not DUCK's seat layout: Grey Duck and
Duck Duck Bruce.

Why this module exists: the camera reader (:mod:`.table_views`) needs each game's zones to read
a table, and the synthetic videos of those games (:mod:`ducktable.sim`) lay their cards in the
same zones. DUCK's layout is :func:`.layout.duck_layout`; the board games' are in
:mod:`.pile_layouts`.
"""

from __future__ import annotations

from ducktable.rules.infer_bruce import DISCARD, DRAW, ROW, STEAL, nest_zone

from .layout import SLOT_H, SLOT_W, TABLE_SIZE, TableLayout, Zone, corner_markers, seat_layout

ROW_SLOTS = 10  # one duck of every colour at most, then a double duck must follow (BRUCE-T3)
STEAL_SLOTS = 3  # a raid moves at most three cards (BRUCE-T4)


def grey_layout(players: int) -> TableLayout:
    """Each seat's trick spot (a spread of slots for a play) and grey pile around the table,
    placed like the default seat layout (the pile where DUCK has its discard pile)."""
    cols = 5 if players <= 4 else 4
    base = seat_layout("grey", players, (), reveal_cols=cols, reveal_rows=2)
    rename = {"discard": "grey", "reveal": "trick"}
    zones = []
    for zone in base.zones:
        head, _, kind = zone.name.partition(".")
        zones.append(Zone(f"{head}.{rename.get(kind, kind)}", zone.x, zone.y, zone.w, zone.h, zone.kind,
                          zone.cols, zone.rows))
    return TableLayout(base.name, tuple(zones), base.size, base.markers)


def bruce_layout(players: int) -> TableLayout:
    """Nests along the top and bottom edges (seats clockwise: bottom row right to left, then the
    top row left to right); draw pile, row and discard pile across the middle; the steal area
    below the row."""
    w, h = TABLE_SIZE
    bottom = (players + 1) // 2
    top = players - bottom
    order = [("bottom", bottom - 1 - i, bottom) for i in range(bottom)] + [("top", i, top) for i in range(top)]
    rows_y = {"top": 56.0, "bottom": h - 56.0 - SLOT_H}
    zones: list[Zone] = []
    for seat, (row, index, count) in enumerate(order):
        gap = (w - count * SLOT_W) / (count + 1)
        zones.append(Zone(nest_zone(seat), gap + index * (SLOT_W + gap), rows_y[row], SLOT_W, SLOT_H))
    mid_y = h / 2 - SLOT_H / 2 - 50
    row_w = SLOT_W * ROW_SLOTS
    row_x = w / 2 - row_w / 2
    zones.append(Zone(DRAW, row_x - 40 - SLOT_W, mid_y, SLOT_W, SLOT_H))
    zones.append(Zone(ROW, row_x, mid_y, row_w, SLOT_H, "spread", ROW_SLOTS, 1))
    zones.append(Zone(DISCARD, row_x + row_w + 40, mid_y, SLOT_W, SLOT_H))
    zones.append(Zone(STEAL, w / 2 - SLOT_W * STEAL_SLOTS / 2, mid_y + SLOT_H + 12, SLOT_W * STEAL_SLOTS,
                      SLOT_H, "spread", STEAL_SLOTS, 1))
    return TableLayout(f"bruce-{players}", tuple(zones), TABLE_SIZE, corner_markers())
