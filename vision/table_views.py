"""Each game's way of reading a calibrated table: its zones, how a frame becomes a snapshot, and
the inferrer that turns snapshots into the game's events.

Why this module exists: the camera reader (vision/reader.py) follows any game the same way; only
what it looks at differs. This module picks, per game, from what vision/ already has: the card
path (:class:`~.frame_reader.FrameReader`) for the card games (DUCK, Grey Duck, Duck Duck
Bruce); the board readers (:class:`~.boards.RiverReader`, :class:`~.boards.LineReader`) plus
the cards beside the board (:class:`~.pile_reading.CardZones`) for Ducky Ducky and Sitting
Ducks. Readers are imported when a game needs them, so a card game never loads the board ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from ducktable.rules.core import State
from ducktable.rules.infer_base import Inferrer
from ducktable.rules.snapshot import TableSnapshot

from .detect import LocatesCards
from .layout import LayoutError, TableLayout
from .pipeline import Classify

BOARD_GAMES = ("ducky", "sitting")


@dataclass
class TableView:
    """One game's way of reading the calibrated table: its zones (calibrated layout), how a
    frame becomes a snapshot, and a fresh inferrer for it."""

    layout: TableLayout
    read: Callable[[np.ndarray, int, int, np.ndarray | None], TableSnapshot]
    """(reading view, ts, frame index, full-resolution picture or None) -> snapshot."""
    inferrer: Callable[[], Inferrer]
    counts: dict[str, int] = field(default_factory=dict)
    """How the card path spent its frames (:attr:`~.frame_reader.FrameReader.counts`); empty
    for the board games."""


def game_layout(game: str, players: int, options: dict[str, Any]) -> TableLayout:
    """The default zones of ``game`` for ``players`` seats (table units, not calibrated)."""
    if game == "duck":
        from .layout import duck_layout

        return duck_layout(players)
    if game == "grey":
        from .game_layouts import grey_layout

        return grey_layout(players)
    if game == "bruce":
        from .game_layouts import bruce_layout

        return bruce_layout(players)
    if game == "ducky":
        from ducktable.rules.ducky_board import resolve_layout

        from .pile_layouts import ducky_table_layout

        return ducky_table_layout(players, resolve_layout(options.get("layout")))
    if game == "sitting":
        from .pile_layouts import sitting_table_layout

        return sitting_table_layout()
    raise LayoutError(f"the camera cannot read a table of {game!r} yet")


def inferrer_for(game: str) -> Inferrer:
    """The game's inferrer (each game module has its own; this only picks)."""
    if game == "duck":
        from ducktable.rules.infer_duck import DuckInferrer

        return DuckInferrer()
    if game in BOARD_GAMES:
        from .boards import inferrer_for as board_inferrer

        return board_inferrer(game)
    if game == "grey":
        from ducktable.rules.infer_grey import GreyInferrer

        return GreyInferrer()
    if game == "bruce":
        from ducktable.rules.infer_bruce import BruceInferrer

        return BruceInferrer()
    raise ValueError(f"no camera inference for {game!r}")


def table_view(state: State, saved: TableLayout, empty: np.ndarray,
               classify: Callable[[str], Classify], locator: LocatesCards | None = None) -> TableView:
    """How to read ``state``'s game on the table calibrated as ``saved``. The saved zones are
    used when they are this game's for this many players, else the game's default zones with
    the saved camera view. ``locator``: the card games find their cards with it (see
    :class:`~.frame_reader.FrameReader`); None: by the edge-map search on every frame. Raises
    LayoutError (uncalibrated, unknown game)."""
    game, n = state.game.name, state.num_players
    default = game_layout(game, n, dict(state.game.options))
    if saved.homography is None:
        raise LayoutError(f"the table layout {saved.name!r} is not calibrated; run `ducktable calibrate`")
    layout = saved if saved.name == default.name else default.with_homography(saved.homography)
    frame_size = (empty.shape[1], empty.shape[0])
    if game == "ducky":
        from ducktable.rules.ducky_board import resolve_layout

        from .boards import RiverBoard, RiverReader
        from .pile_reading import CardZones, ducky_pile_card

        river = RiverReader(RiverBoard.of(resolve_layout(state.game.options.get("layout"))), layout)
        piles = CardZones(layout, {z.name for z in layout.zones if z.name.startswith("seat")},
                          frame_size, classify(game), ducky_pile_card)

        def read_ducky(image: np.ndarray, ts: int, index: int, detail: np.ndarray | None) -> TableSnapshot:
            zones = river.read(image)
            zones.update(piles.read(image, detail))
            return TableSnapshot(ts, zones, index)

        return TableView(layout, read_ducky, lambda: inferrer_for(game))
    if game == "sitting":
        from ducktable.rules.infer_sitting import PLAYED_ZONE

        from .boards import LineBoard, LineReader
        from .pile_reading import CardZones, sitting_card

        line = LineReader(LineBoard(), layout)
        played = CardZones(layout, {PLAYED_ZONE}, frame_size, classify(game), sitting_card, whole_tops=True)

        def read_line(image: np.ndarray, ts: int, index: int, detail: np.ndarray | None) -> TableSnapshot:
            zones = line.read(image)
            zones.update(played.read(image, detail))
            return TableSnapshot(ts, zones, index)

        return TableView(layout, read_line, lambda: inferrer_for(game))
    from .frame_reader import FrameReader

    cards = FrameReader(layout, empty, game, classify(game), locator=locator)

    def read_cards(image: np.ndarray, ts: int, index: int, detail: np.ndarray | None) -> TableSnapshot:
        return cards.read(image, ts, index, detail=detail)

    return TableView(layout, read_cards, lambda: inferrer_for(game), cards.counts)
