"""Ducky Ducky's river and Sitting Ducks' line read from the camera: board geometry, the
printed colours, and the readers.

Why this module exists: the camera must read the Ducky Ducky board (for each river cell the
pad's colour and whether a duck rides it, the pawns on the logs) and the Sitting Ducks line
(for each position the card, a target, a Bottoms Up card, a duck hidden under it) to turn those
readings into game events. :class:`RiverBoard` and :class:`LineBoard` say where everything lies
on the board; :class:`RiverReader` and :class:`LineReader` read a frame with classical colour
and shape analysis. The seeded pictures of both boards are drawn by
:mod:`ducktable.sim.board_pictures`, bot games on them are followed by
:mod:`ducktable.sim.board_games`, and the reading is measured by :mod:`ducktable.bench.boards`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from ducktable.rules import infer_ducky, infer_sitting
from ducktable.rules.decks import DUCKY_COLOURS, UNKNOWN
from ducktable.rules.ducky_board import DEFAULT_LAYOUT, BoardLayout
from ducktable.rules.infer_base import Inferrer
from ducktable.rules.infer_ducky import DuckyInferrer
from ducktable.rules.infer_sitting import SittingInferrer
from ducktable.rules.sitting import (
    BOTTOMS_UP_CARD,
    POSITIONS,
)
from ducktable.rules.sitting import WATER as WATER_CARD
from ducktable.rules.snapshot import HIDDEN, CardRead, ZoneRead

from . import printing
from .layout import CARD_H, CARD_W, TABLE_SIZE, LayoutError, TableLayout, Zone, corner_markers

Labels = tuple[str, ...]
BGR = tuple[int, int, int]


# ---- where the boards lie on the table plane ------------------------------------------------------

def _tint(colour: BGR, white: float) -> BGR:
    b, g, r = (round(c + (255 - c) * white) for c in colour)
    return b, g, r


DUCK_COLOURS: dict[str, BGR] = {name: printing.PALETTES["reference"][name] for name in DUCKY_COLOURS}
"""Duck tokens wear the colours the card renderer prints the game's ducks in."""
PAD_COLOURS: dict[str, BGR] = {"white": (242, 242, 242),
                               **{name: _tint(colour, 0.42) for name, colour in DUCK_COLOURS.items()}}
"""Pads are a light tint of their colour (a duck, the same colour at full strength, stands out)."""
PAWN_COLOURS: tuple[BGR, ...] = ((40, 40, 215), (170, 150, 20), (150, 40, 120), (35, 35, 35))
"""Seat 0..3's pawns: red, teal, purple, black (none of them a pad, duck or wood colour)."""
RIVER_MAT: BGR = (200, 222, 232)
RIVER_WATER: BGR = (160, 118, 62)
WOOD: BGR = (95, 110, 85)
"""Logs are painted a grey olive: no pawn, pad or skin colour."""
FELT: BGR = (118, 118, 118)
"""The line lies on grey felt: neutral, so it tells the light's colour; darker than card paper."""
TABLE_W, TABLE_H = int(TABLE_SIZE[0]), int(TABLE_SIZE[1])
LINE_PITCH = 150.0
TARGET_Y, CARD_Y = 170.0, 400.0
UNDER_SHIFT = 0.3  # a hidden duck lies this share of a card's height above its cover
BOTTOMS_UP_SHIFT = 0.65  # a Bottoms Up card lies this share lower than its duck
BOARD_MARKER = 60.0
"""Calibration markers for the boards: larger than the card table's (a board fills the view)."""


@dataclass(frozen=True)
class RiverBoard:
    """The Ducky Ducky board on the table plane: the river in two rows joined by a bend (cells
    0.. left to right along the top, then right to left along the bottom to the waterfall), each
    log beside the cell it faces, the spare pad left of the river."""

    board: BoardLayout
    cells: tuple[tuple[float, float], ...]
    logs: tuple[tuple[float, float], ...]
    spare: tuple[float, float]
    pitch: float

    @classmethod
    def of(cls, board: BoardLayout = DEFAULT_LAYOUT) -> RiverBoard:
        top = (board.cells + 1) // 2
        pitch = min(100.0, 960.0 / top)
        x0 = TABLE_W / 2 - pitch * (top - 1) / 2
        cells = [(x0 + pitch * c, 270.0) for c in range(top)]
        cells += [(x0 + pitch * (top - 1 - j), 450.0) for j in range(board.cells - top)]
        logs: list[tuple[float, float]] = []
        for k, log in enumerate(board.logs):
            x, y = cells[log.faces]
            twins = [i for i, other in enumerate(board.logs) if other.faces == log.faces]
            shift = (twins.index(k) - (len(twins) - 1) / 2) * pitch * 0.45
            logs.append((x + shift, y - pitch * 0.95 if y < 360 else y + pitch * 0.95))
        return cls(board, tuple(cells), tuple(logs), (x0 - pitch * 1.1, 360.0), pitch)

    @property
    def pad_radius(self) -> float:
        return self.pitch * 0.36

    def layout(self) -> TableLayout:
        """Zones for every cell, the spare pad and every log, with the calibration markers."""
        half = self.pitch / 2
        zones = [Zone(infer_ducky.river_zone(c), x - half, y - half, self.pitch, self.pitch)
                 for c, (x, y) in enumerate(self.cells)]
        sx, sy = self.spare
        zones.append(Zone(infer_ducky.SPARE_ZONE, sx - half, sy - half, self.pitch, self.pitch))
        zones += [Zone(infer_ducky.log_zone(k), x - half * 0.9, y - half * 0.45, self.pitch * 0.9,
                       self.pitch * 0.45) for k, (x, y) in enumerate(self.logs)]
        return TableLayout(f"ducky-{self.board.name}", tuple(zones), TABLE_SIZE,
                           corner_markers(TABLE_SIZE, BOARD_MARKER), BOARD_MARKER)


@dataclass(frozen=True)
class LineBoard:
    """The Sitting Ducks line on the table plane: six card places, front (1) on the left, and
    above them the row where targets lie."""

    xs: tuple[float, ...] = tuple(TABLE_W / 2 + (p - 3.5) * LINE_PITCH for p in POSITIONS)
    card_w: float = CARD_W
    card_h: float = CARD_H

    def layout(self) -> TableLayout:
        zones = [Zone(infer_sitting.line_zone(p), x - LINE_PITCH / 2, TARGET_Y - self.card_h / 2,
                      LINE_PITCH, CARD_Y - TARGET_Y + self.card_h * (1 + BOTTOMS_UP_SHIFT))
                 for p, x in zip(POSITIONS, self.xs, strict=True)]
        return TableLayout("sitting-line", tuple(zones), TABLE_SIZE,
                           corner_markers(TABLE_SIZE, BOARD_MARKER), BOARD_MARKER)


# ---- reading ---------------------------------------------------------------------------------------

def _lab(colours: Iterable[BGR]) -> np.ndarray:
    return cv2.cvtColor(np.array([list(colours)], np.uint8), cv2.COLOR_BGR2LAB)[0].astype(np.float32)


def _disc(radius: float, inner: float = 0.0) -> np.ndarray:
    """Offsets (dx, dy) of the table pixels in a disc or ring around a point."""
    r = int(math.ceil(radius))
    yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
    d = np.hypot(xx, yy)
    keep = (d <= radius) & (d >= inner)
    return np.stack([xx[keep], yy[keep]], axis=1)


def _rect(w: float, h: float, dy: float = 0.0) -> np.ndarray:
    yy, xx = np.mgrid[-int(h / 2):int(h / 2) + 1, -int(w / 2):int(w / 2) + 1]
    return np.stack([xx.ravel(), yy.ravel() + int(dy)], axis=1)


MAT_PERCENTILE = 10.0
"""The least red tenth of the mat points is taken to be bare mat (a hand may cover the rest)."""
MAT_REDNESS = 0.13
"""How much redder against blue (log red/blue) than that a mat point may be and still count as
bare mat; the palest skin is about 0.25 redder than the mat under the same light."""
MAT_POINTS_NEEDED = 12
"""Fewer bare mat points than this cannot fix a quadratic light; then every point is fitted."""


def skin_mask(hsv: np.ndarray) -> np.ndarray:
    """Where a hand is (an HSV picture in, booleans out): warm, moderately saturated pixels
    (glare makes skin paler and redder) in broad blobs only, so thin warm strokes on cards
    (borders, rings, a beak's rim) are not a hand."""
    warm = ((hsv[..., 0] <= 19) & (hsv[..., 1] >= 45) & (hsv[..., 1] <= 165) & (hsv[..., 2] >= 50))
    return cv2.morphologyEx(warm.astype(np.uint8), cv2.MORPH_OPEN, np.ones((7, 7), np.uint8)) > 0


class _TableView:
    """A frame seen from above: the calibrated table area, its light and colour cast undone by
    a known plain surface (the board's mat), as float32 Lab."""

    def __init__(self, frame: np.ndarray, layout: TableLayout, mat_points: np.ndarray, mat: BGR) -> None:
        homography = layout.homography
        if homography is None:
            raise LayoutError(f"the layout {layout.name!r} is not calibrated; run `ducktable calibrate`")
        flat = cv2.warpPerspective(frame, homography, (TABLE_W, TABLE_H),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP).astype(np.float32)
        self.bgr = flat / self._light(flat, mat_points) * np.array(mat, np.float32)
        plain = np.clip(self.bgr, 0, 255).astype(np.uint8)
        self.lab = cv2.cvtColor(plain, cv2.COLOR_BGR2LAB).astype(np.float32)
        hsv = cv2.cvtColor(plain, cv2.COLOR_BGR2HSV)
        self.skin = skin_mask(hsv)
        self.red = (((hsv[..., 0] <= 8) | (hsv[..., 0] >= 170)) & (hsv[..., 1] >= 90))

    @staticmethod
    def _light(flat: np.ndarray, points: np.ndarray) -> np.ndarray:
        """The light falling on the table: a smooth surface (quadratic per channel) fitted to the
        mat's colour at known points, refitted once without the points a hand or a card hides.
        Only points about as little red against blue as the least red ones are fitted at all:
        light, shadow and the camera's colour cast move every point alike, and skin is far
        redder against blue than the mat, so many hands over the board cannot pass for its light."""
        small = cv2.blur(flat, (9, 9))
        xs, ys = points[:, 0], points[:, 1]
        values = small[ys, xs]
        u, v = xs / TABLE_W - 0.5, ys / TABLE_H - 0.5
        basis = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=1)
        redness = np.log(np.maximum(values[:, 2], 1.0) / np.maximum(values[:, 0], 1.0))
        plain = redness <= float(np.percentile(redness, MAT_PERCENTILE)) + MAT_REDNESS
        if plain.sum() < MAT_POINTS_NEEDED:
            plain = np.ones(len(points), bool)
        keep = plain
        for _ in range(2):
            coef, *_ = np.linalg.lstsq(basis[keep], values[keep], rcond=None)
            fit = basis @ coef
            error = np.abs(values - fit).sum(axis=1)
            keep = plain & (error < max(12.0, 2.5 * float(np.median(error[keep]))))
            if keep.sum() < MAT_POINTS_NEEDED:
                keep = plain
        yy, xx = np.mgrid[0:TABLE_H:8, 0:TABLE_W:8].astype(np.float32)
        uu, vv = xx / TABLE_W - 0.5, yy / TABLE_H - 0.5
        grid = np.stack([np.ones_like(uu), uu, vv, uu * uu, uu * vv, vv * vv], axis=-1) @ coef
        return cv2.resize(np.clip(grid, 8, None).astype(np.float32), (TABLE_W, TABLE_H))

    def _pixels(self, centre: tuple[float, float], offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xs = np.clip(offsets[:, 0] + round(centre[0]), 0, TABLE_W - 1)
        ys = np.clip(offsets[:, 1] + round(centre[1]), 0, TABLE_H - 1)
        return ys, xs

    def sample(self, centre: tuple[float, float], offsets: np.ndarray,
               local: tuple[np.ndarray, BGR] | None = None) -> tuple[np.ndarray, float]:
        """The median Lab colour of the table pixels at ``centre + offsets`` and the share of
        them that look like skin. ``local`` (offsets of a nearby plain surface and its colour)
        corrects a shadow the smooth light model misses."""
        ys, xs = self._pixels(centre, offsets)
        colour = np.median(self.bgr[ys, xs], axis=0)
        if local is not None:  # one gain for all channels: glare adds light, it does not tint
            ref_ys, ref_xs = self._pixels(centre, local[0])
            seen = float(np.median(self.bgr[ref_ys, ref_xs], axis=0).sum())
            colour = colour * (sum(local[1]) / max(seen, 24.0))
        return _lab([tuple(int(c) for c in np.clip(colour, 0, 255))])[0], float(self.skin[ys, xs].mean())  # type: ignore[list-item]

    def skin_share(self, centre: tuple[float, float], offsets: np.ndarray) -> float:
        ys, xs = self._pixels(centre, offsets)
        return float(self.skin[ys, xs].mean())

    def red_share(self, centre: tuple[float, float], offsets: np.ndarray) -> float:
        """The share of strongly red pixels (a target's rings; skin is never this red)."""
        ys, xs = self._pixels(centre, offsets)
        return float(self.red[ys, xs].mean())

    def unlike(self, centre: tuple[float, float], offsets: np.ndarray, beside: np.ndarray,
               margin: float = 18.0) -> float:
        """The share of the pixels that are not the plain surface around them (a card on the
        felt), skin left out. The surface's colour is taken ``beside`` (offsets of bare felt
        next to the place), so a patch of glare or shadow there is no card."""
        ys, xs = self._pixels(centre, offsets)
        side_ys, side_xs = self._pixels(centre, beside)
        surface = np.median(self.lab[side_ys, side_xs], axis=0)
        diff = self.lab[ys, xs] - surface
        far = np.sqrt((diff[:, 0] * 0.5) ** 2 + diff[:, 1] ** 2 + diff[:, 2] ** 2) > margin
        return float((far & ~self.skin[ys, xs]).mean())


def _distance(a: np.ndarray, b: np.ndarray) -> float:
    """Lab colour distance with lightness counting half (light varies more than hue)."""
    d = a - b
    return float(np.sqrt((d[0] * 0.5) ** 2 + d[1] ** 2 + d[2] ** 2))


def _nearest(colour: np.ndarray, names: Sequence[str], refs: np.ndarray,
             chroma_weight: float = 1.0) -> tuple[str, float]:
    """The reference nearest to a Lab colour (lightness counts half) and how sure: the gap to
    the second nearest, against the distance to the nearest."""
    diff = refs - colour
    dist = np.sqrt((diff[:, 0] * 0.5) ** 2 + chroma_weight * (diff[:, 1] ** 2 + diff[:, 2] ** 2))
    order = np.argsort(dist)
    best, second = float(dist[order[0]]), float(dist[order[1]]) if len(order) > 1 else 1e9
    confidence = max(0.0, min(1.0, (second - best) / (second + best + 1e-6) * 2.0)) * min(1.0, 30.0 / (best + 1e-6))
    return names[order[0]], min(1.0, confidence)


OCCLUDED_SKIN = 0.04
"""A place whose surroundings are this much skin-coloured is reported as under a hand: a hand
near a place may hide part of it, and a part misread is worse than a frame skipped."""
DUCK_MARGIN = 15.0
"""How much nearer (Lab) to the duck's colour than to the pad's a pad's middle must be to be sure."""


PRESENT = 0.5
"""A card lies in a place when this share of it is not felt."""
PEEKING = 0.4
"""A hidden duck or a Bottoms Up card shows when this share of the strip beyond the card is not felt."""
TARGET_RINGS = 0.08
"""A target card's red rings fill about a quarter of its middle; nothing else there is as red."""
_WATER_BODY: BGR = (205, 175, 125)
"""What the middle of a water card looks like where a duck card shows its duck's body."""


class RiverReader:
    """Reads a Ducky Ducky board: for every cell (and the spare pad) the pad's colour and whether
    a duck rides it, and which pawn stands on each log. Classical colour analysis on the table
    plane: the pad's rim gives its colour, its middle the duck, a log's middle the pawn."""

    def __init__(self, geometry: RiverBoard, layout: TableLayout) -> None:
        self.geometry = geometry
        self.layout = layout
        r = geometry.pad_radius
        self._rim = _disc(r * 0.86, r * 0.64)
        self._middle = _disc(r * 0.24)
        self._pawn = _disc(geometry.pitch * 0.09)
        self._water = _disc(r * 1.24, r * 1.1)
        self._cell = _rect(geometry.pitch * 0.9, geometry.pitch * 0.9)
        self._log_area = _rect(geometry.pitch * 0.9, geometry.pitch * 0.5)
        self._log_ends = np.vstack([_rect(geometry.pitch * 0.1, geometry.pitch * 0.2) + (dx, 0)
                                    for dx in (-geometry.pitch * 0.32, geometry.pitch * 0.32)]).astype(int)
        self._mat_points = self._find_mat()
        self._pad_names = ["water", *PAD_COLOURS]
        self._pad_refs = _lab([RIVER_WATER, *PAD_COLOURS.values()])
        self._pawn_names = ["wood", *(str(s) for s in range(len(PAWN_COLOURS)))]
        self._pawn_refs = _lab([WOOD, *PAWN_COLOURS])

    def _find_mat(self) -> np.ndarray:
        """Points of bare mat: a grid over the board, away from the river, logs and pads."""
        g = self.geometry
        mask = np.zeros((TABLE_H, TABLE_W), np.uint8)
        xs = [x for x, _ in g.cells]
        cv2.rectangle(mask, (int(min(xs) - g.pitch * 1.7), 70), (int(max(xs) + g.pitch * 0.9), 650), 1, -1)
        for x, y in g.cells:
            cv2.circle(mask, (int(x), int(y)), int(g.pitch * 0.75), 0, -1)
        for x, y in g.logs:
            cv2.rectangle(mask, (int(x - g.pitch * 0.6), int(y - g.pitch * 0.5)),
                          (int(x + g.pitch * 0.6), int(y + g.pitch * 0.5)), 0, -1)
        cv2.circle(mask, (int(g.spare[0]), int(g.spare[1])), int(g.pitch * 0.6), 0, -1)
        cv2.rectangle(mask, (int(min(xs) - g.pitch * 0.7), 270 - int(g.pitch * 0.6)),
                      (int(max(xs) + g.pitch * 0.6), 450 + int(g.pitch * 0.6)), 0, -1)
        ys, xs_ = np.nonzero(mask[::12, ::12])
        return np.stack([xs_ * 12, ys * 12], axis=1)

    def read(self, frame: np.ndarray) -> dict[str, ZoneRead]:
        view = _TableView(frame, self.layout, self._mat_points, RIVER_MAT)
        out: dict[str, ZoneRead] = {}
        places = [(infer_ducky.river_zone(c), xy) for c, xy in enumerate(self.geometry.cells)]
        places.append((infer_ducky.SPARE_ZONE, self.geometry.spare))
        for zone, centre in places:
            out[zone] = self._pad(view, centre)
        for k, centre in enumerate(self.geometry.logs):
            out[infer_ducky.log_zone(k)] = self._log(view, centre)
        return out

    def _pad(self, view: _TableView, centre: tuple[float, float]) -> ZoneRead:
        local = (self._water, RIVER_WATER)
        if view.skin_share(centre, self._cell) > OCCLUDED_SKIN:
            return HIDDEN
        rim, _ = view.sample(centre, self._rim, local)
        middle, _ = view.sample(centre, self._middle, local)
        pad, sure = _nearest(rim, self._pad_names, self._pad_refs)
        if pad == "water":
            return _empty(sure)
        reads = [CardRead(infer_ducky.PAD + pad, sure)]
        # the middle is either the pad's light tint or a duck's body, the same colour at full strength
        score = _distance(middle, _lab([PAD_COLOURS[pad]])[0]) - _distance(middle, _lab([DUCK_COLOURS[pad]])[0]) \
            if pad != "white" else -DUCK_MARGIN
        if score > 0:
            reads.append(CardRead(f"duck-{pad}", min(1.0, score / DUCK_MARGIN)))
        else:
            reads[0] = CardRead(reads[0].label, min(sure, -score / DUCK_MARGIN))
        return ZoneRead(tuple(reads))

    def _log(self, view: _TableView, centre: tuple[float, float]) -> ZoneRead:
        if view.skin_share(centre, self._log_area) > OCCLUDED_SKIN:
            return HIDDEN
        middle, _ = view.sample(centre, self._pawn, (self._log_ends, WOOD))
        who, sure = _nearest(middle, self._pawn_names, self._pawn_refs)
        if who == "wood":
            return _empty(sure)
        return ZoneRead((CardRead(infer_ducky.PAWN + who, sure),))


class LineReader:
    """Reads the Sitting Ducks line: for every position the card (a duck's colour or water), a
    target above it, a Bottoms Up card below it and a hidden duck peeking out above it. Card paper
    stands out from the felt; a duck card's colour shows in its duck's body."""

    def __init__(self, geometry: LineBoard, layout: TableLayout) -> None:
        self.geometry = geometry
        self.layout = layout
        w, h = geometry.card_w, geometry.card_h
        self._slot = _rect(w * 0.6, h * 0.6)
        self._beside: dict[int, np.ndarray] = {}
        self._body = _rect(w * 0.3, h * 0.08, dy=h * 0.05)  # the duck's body, below the middle
        self._under = _rect(w * 0.5, h * UNDER_SHIFT * 0.5, dy=-h * (0.5 + UNDER_SHIFT * 0.5))
        self._below = _rect(w * 0.5, h * 0.35, dy=h * (0.5 + BOTTOMS_UP_SHIFT * 0.5 + 0.1))
        for region in (self._slot, self._under, self._below):  # bare felt left and right of it
            top, bottom = int(region[:, 1].min()), int(region[:, 1].max())
            strip = _rect(LINE_PITCH * 0.1, bottom - top, dy=(top + bottom) / 2)
            self._beside[id(region)] = np.vstack([strip + (-int(LINE_PITCH * 0.42), 0),
                                                  strip + (int(LINE_PITCH * 0.42), 0)])
        self._area = _rect(LINE_PITCH * 0.8, CARD_Y - TARGET_Y + h * 2.2)  # target row to Bottoms Up
        self._names = sorted(infer_sitting.LINE_CARDS)
        self._refs = _lab([printing.PALETTES["reference"][n[5:]] if n != WATER_CARD else _WATER_BODY
                           for n in self._names])
        left, right = geometry.xs[0] - LINE_PITCH * 0.6, geometry.xs[-1] + LINE_PITCH * 0.6
        points = [(x, y) for x in np.arange(left, right, 12.0)
                  for y in (TARGET_Y - h * 0.72, (TARGET_Y + CARD_Y - h * (1 + UNDER_SHIFT)) / 2, CARD_Y + h * 1.32)]
        points += [(x + LINE_PITCH / 2, y) for x in geometry.xs[:-1] for y in np.arange(TARGET_Y, CARD_Y + h, 12.0)]
        self._mat_points = np.array(points, int)

    def read(self, frame: np.ndarray) -> dict[str, ZoneRead]:
        view = _TableView(frame, self.layout, self._mat_points, FELT)
        return {infer_sitting.line_zone(p): self._position(view, x)
                for p, x in zip(POSITIONS, self.geometry.xs, strict=True)}

    def _position(self, view: _TableView, x: float) -> ZoneRead:
        card_at, target_at = (x, CARD_Y), (x, TARGET_Y)
        if view.skin_share((x, (TARGET_Y + CARD_Y) / 2 + self.geometry.card_h * 0.3), self._area) > OCCLUDED_SKIN:
            return HIDDEN
        reads: list[CardRead] = []
        card = view.unlike(card_at, self._slot, self._beside[id(self._slot)])
        if card > PRESENT:
            body, _ = view.sample(card_at, self._body)
            name, sure = _nearest(body, self._names, self._refs)
            reads.append(CardRead(name, sure * _sureness(card, PRESENT)))
            under = view.unlike(card_at, self._under, self._beside[id(self._under)])
            if under > PEEKING:
                reads.append(CardRead(infer_sitting.COVERED, _sureness(under, PEEKING)))
            below = view.unlike(card_at, self._below, self._beside[id(self._below)])
            if below > PEEKING:
                reads.append(CardRead(BOTTOMS_UP_CARD, _sureness(below, PEEKING)))
        target = view.unlike(target_at, self._slot, self._beside[id(self._slot)])
        rings = view.red_share(target_at, self._slot)
        if target > PRESENT and rings > TARGET_RINGS:
            sure_target = min(_sureness(target, PRESENT), _sureness(rings, TARGET_RINGS))
            reads.append(CardRead(infer_sitting.TARGET, sure_target))
        elif target > PRESENT:  # something lies there, but not a target card: a hand, perhaps
            reads.append(CardRead(UNKNOWN, 0.2))
        sure_empty = min(_sureness(card, PRESENT), _sureness(target, PRESENT))
        return ZoneRead(tuple(reads)) if reads else _empty(sure_empty)


def _empty(sure: float) -> ZoneRead:
    """Nothing there, or, when that is in doubt, a card that could not be recognised."""
    return ZoneRead() if sure >= 0.3 else ZoneRead((CardRead(UNKNOWN, sure),))


def _sureness(share: float, threshold: float) -> float:
    """How clear a share of pixels is about a yes/no question decided at ``threshold``."""
    return max(0.0, min(1.0, abs(share - threshold) / min(threshold, 1 - threshold) * 1.5))


def inferrer_for(game: str) -> Inferrer:
    if game == "ducky":
        return DuckyInferrer()
    if game == "sitting":
        return SittingInferrer()
    raise ValueError(f"no board inference for {game!r}")


def _middle(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    return (sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points))
