"""Ducky Ducky's river and Sitting Ducks' line: synthetic top views, their readers, and bot
games followed through the table-reading path.

Why this module exists: issue 5 asks the camera to read the Ducky Ducky board (for each river
cell the pad's colour and whether a duck rides it, the pawns on the logs) and the Sitting Ducks
line (for each position the card, a target, a Bottoms Up card, a duck hidden under it), and to
turn those readings into game events. This module draws seeded pictures of both boards (OpenCV,
with lighting, noise, blur and a tilted camera), reads them back with classical colour and shape
analysis, measures the reading (:func:`run_board_bench`), and plays bot games as a script of
table contents frame by frame, followed by :mod:`ducktable.rules.infer_ducky` /
:mod:`ducktable.rules.infer_sitting` and compared with the true log (:func:`run_game_bench`).
"""

from __future__ import annotations

import functools
import math
import random
import sys
import time
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import cv2
import numpy as np
from ducktable.rules import infer_ducky, infer_sitting, make_game, simulate
from ducktable.rules.core import Bot, Event, State
from ducktable.rules.decks import BACK, DUCKY_COLOURS, SIT_COLOURS, UNKNOWN
from ducktable.rules.ducky import CARD_SLOTS, DuckyState
from ducktable.rules.ducky import GreedyBot as DuckyBot
from ducktable.rules.ducky_board import DEFAULT_LAYOUT, BoardLayout, resolve_layout
from ducktable.rules.infer_base import Inferrer, TableFollower
from ducktable.rules.infer_ducky import DuckyInferrer
from ducktable.rules.infer_sitting import SittingInferrer
from ducktable.rules.sitting import (
    ACTION_BY_CARD,
    ACTION_BY_TYPE,
    BOTTOMS_UP_CARD,
    LINE_LENGTH,
    POSITIONS,
    SittingDucksState,
)
from ducktable.rules.sitting import WATER as WATER_CARD
from ducktable.rules.sitting import GreedyBot as SittingBot
from ducktable.rules.snapshot import HIDDEN, CardRead, TableSnapshot, ZoneRead
from ducktable.rules.stability import StabilityTracker

from . import render
from .calibrate import calibrate_from_markers, marker_image
from .detect import Detection
from .layout import CARD_H, CARD_W, TABLE_SIZE, LayoutError, TableLayout, Zone, corner_markers
from .pipeline import Classify

Labels = tuple[str, ...]
BGR = tuple[int, int, int]


# ---- where the boards lie on the table plane ------------------------------------------------------

def _tint(colour: BGR, white: float) -> BGR:
    b, g, r = (round(c + (255 - c) * white) for c in colour)
    return b, g, r


DUCK_COLOURS: dict[str, BGR] = {name: render._PALETTES["reference"][name] for name in DUCKY_COLOURS}
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
SKIN = ((70, 100, 150), (110, 145, 200), (150, 175, 225), (45, 65, 100))
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


# ---- what lies on a board -----------------------------------------------------------------------

@dataclass(frozen=True)
class RiverContent:
    """The truth about a Ducky Ducky board: each cell's pad colour (None: lifted) and whether a
    duck rides it, the spare pad, and the seat standing on each log (None: free)."""

    pads: tuple[str | None, ...]
    ducks: tuple[bool, ...]
    spare: str | None
    spare_duck: bool
    pawns: tuple[int | None, ...]

    def zones(self) -> dict[str, Labels]:
        out = {infer_ducky.river_zone(c): infer_ducky.pad_labels(pad, duck)
               for c, (pad, duck) in enumerate(zip(self.pads, self.ducks, strict=True))}
        out[infer_ducky.SPARE_ZONE] = infer_ducky.pad_labels(self.spare, self.spare_duck)
        for k, seat in enumerate(self.pawns):
            out[infer_ducky.log_zone(k)] = () if seat is None else (infer_ducky.pawn_label(seat),)
        return out

    @classmethod
    def from_zones(cls, zones: Mapping[str, Labels], board: BoardLayout) -> RiverContent:
        def pad(labels: Labels) -> tuple[str | None, bool]:
            colour = next((x[4:] for x in labels if x.startswith(infer_ducky.PAD)), None)
            return colour, any(x.startswith("duck-") for x in labels)

        cells = [pad(zones.get(infer_ducky.river_zone(c), ())) for c in range(board.cells)]
        spare = pad(zones.get(infer_ducky.SPARE_ZONE, ()))
        pawns = []
        for k in range(len(board.logs)):
            labels = zones.get(infer_ducky.log_zone(k), ())
            pawns.append(int(labels[0][5:]) if labels else None)
        return cls(tuple(c for c, _ in cells), tuple(d for _, d in cells), spare[0], spare[1],
                   tuple(pawns))

    @classmethod
    def random(cls, rng: np.random.Generator, board: BoardLayout = DEFAULT_LAYOUT) -> RiverContent:
        """Any board a game can show: the 21 pads in any order, ducks on some coloured ones."""
        pads = ["white"] * board.white_pads
        pads += [c for c in DUCKY_COLOURS for _ in range(board.pads_per_colour)]
        rng.shuffle(pads)
        ducks = [p != "white" and rng.random() < 0.6 for p in pads]
        players = int(rng.integers(2, 5))
        logs = rng.choice(len(board.logs), size=players, replace=False)
        pawns: list[int | None] = [None] * len(board.logs)
        for seat, log in enumerate(logs):
            pawns[int(log)] = seat
        return cls(tuple(pads[:board.cells]), tuple(ducks[:board.cells]), pads[-1], ducks[-1],
                   tuple(pawns))


@dataclass(frozen=True)
class LineContent:
    """The truth about a Sitting Ducks line: each position's card (None: empty), the targeted
    positions, those with a Bottoms Up card, and those hiding a duck under their card."""

    cards: tuple[str | None, ...]
    targets: frozenset[int] = frozenset()
    bottoms_up: frozenset[int] = frozenset()
    covered: frozenset[int] = frozenset()

    def zones(self) -> dict[str, Labels]:
        out = {}
        for p in POSITIONS:
            card = self.cards[p - 1]
            labels: list[str] = []
            if card is not None:
                labels.append(card)
                if p in self.covered:
                    labels.append(infer_sitting.COVERED)
                if p in self.bottoms_up:
                    labels.append(BOTTOMS_UP_CARD)
            if p in self.targets:
                labels.append(infer_sitting.TARGET)
            out[infer_sitting.line_zone(p)] = tuple(labels)
        return out

    @classmethod
    def from_zones(cls, zones: Mapping[str, Labels]) -> LineContent:
        cards: list[str | None] = []
        targets, bottoms_up, covered = set(), set(), set()
        for p in POSITIONS:
            labels = zones.get(infer_sitting.line_zone(p), ())
            cards.append(next((x for x in labels if x in infer_sitting.LINE_CARDS), None))
            if infer_sitting.TARGET in labels:
                targets.add(p)
            if BOTTOMS_UP_CARD in labels:
                bottoms_up.add(p)
            if infer_sitting.COVERED in labels:
                covered.add(p)
        return cls(tuple(cards), frozenset(targets), frozenset(bottoms_up), frozenset(covered))

    @classmethod
    def random(cls, rng: np.random.Generator) -> LineContent:
        length = LINE_LENGTH if rng.random() < 0.75 else int(rng.integers(0, LINE_LENGTH))
        kinds = sorted(infer_sitting.LINE_CARDS)
        cards = [str(rng.choice(kinds)) if p <= length else None for p in POSITIONS]
        ducks = [p for p in POSITIONS if cards[p - 1] not in (None, WATER_CARD)]
        targets = frozenset(p for p in POSITIONS if rng.random() < 0.4)
        bottoms_up = frozenset(p for p in ducks if rng.random() < 0.2)
        covered = frozenset(p for p in ducks if rng.random() < 0.2)
        return cls(tuple(cards), targets, bottoms_up, covered)


# ---- drawing ----------------------------------------------------------------------------------------

MARGIN = 160
"""The table plane is drawn this much larger on every side, so a tilted view shows no edge."""


@dataclass(frozen=True)
class BoardPhoto:
    """A rendered frame of a board, the truth about it, its (uncalibrated) layout, the true
    table -> frame homography, and the zones a hand hides."""

    image: np.ndarray
    truth: dict[str, Labels]
    layout: TableLayout
    homography: np.ndarray
    covered: frozenset[str]


def _plane(rng: np.random.Generator) -> np.ndarray:
    """A table cover (wood, cloth or felt look) larger than the table area, as float32 BGR."""
    h, w = TABLE_H + 2 * MARGIN, TABLE_W + 2 * MARGIN
    base = np.array([rng.uniform(40, 200) for _ in range(3)], np.float32)
    small = rng.standard_normal((h // 24 + 2, w // 24 + 2, 1)).astype(np.float32)
    noise = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)[..., None]
    plane = np.empty((h, w, 3), np.float32)
    plane[:] = base
    plane += noise * rng.uniform(4, 18)
    if rng.random() < 0.5:  # grain
        stripes = np.sin(np.arange(h, dtype=np.float32)[:, None] / rng.uniform(3, 9)) * rng.uniform(3, 10)
        plane += stripes[..., None]
    return plane


def paste_card(plane: np.ndarray, image: np.ndarray, centre: tuple[float, float], angle: float,
               scale: float = 1.0, shadow: float = 0.25) -> None:
    """Lay ``image`` (BGR uint8) on the plane at a table point, turned by ``angle`` degrees,
    darkening the table under its edge by up to ``shadow``."""
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -angle, scale)
    m[:, 2] += (centre[0] + MARGIN - w / 2, centre[1] + MARGIN - h / 2)
    size = (plane.shape[1], plane.shape[0])
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, size, flags=cv2.INTER_LINEAR)
    x, y, bw, bh = cv2.boundingRect(mask)
    if not bw:
        return
    paint = cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR)[y:y + bh, x:x + bw]
    alpha = mask[y:y + bh, x:x + bw].astype(np.float32) / 255.0
    roi = plane[y:y + bh, x:x + bw]
    if shadow:
        under = np.roll(cv2.GaussianBlur(alpha, (0, 0), 2.0), (2, 2), axis=(0, 1))
        roi *= (1 - shadow * under)[..., None]
    roi += alpha[..., None] * (paint.astype(np.float32) - roi)


def _at(point: tuple[float, float]) -> tuple[int, int]:
    return round(point[0] + MARGIN), round(point[1] + MARGIN)


def _markers(plane: np.ndarray) -> None:
    """The calibration markers, printed on white card with a margin around them."""
    for marker_id, (cx, cy) in corner_markers(TABLE_SIZE, BOARD_MARKER).items():
        side = int(BOARD_MARKER)
        tile = cv2.cvtColor(marker_image(marker_id, side), cv2.COLOR_GRAY2BGR)
        tile = cv2.copyMakeBorder(tile, side // 8, side // 8, side // 8, side // 8, cv2.BORDER_CONSTANT,
                                  value=(255, 255, 255))
        paste_card(plane, tile, (cx, cy), 0.0)


def duck_token(plane: np.ndarray, centre: tuple[float, float], radius: float, colour: BGR,
                facing: float) -> None:
    """A rubber duck seen from above: body, head, orange beak, black outline and a shadow."""
    cx, cy = centre
    ux, uy = math.cos(facing), math.sin(facing)
    body = (cx - ux * 0.1 * radius, cy - uy * 0.1 * radius)
    head = (cx + ux * 0.38 * radius, cy + uy * 0.38 * radius)
    beak = [(head[0] + ux * 0.2 * radius - uy * 0.08 * radius, head[1] + uy * 0.2 * radius + ux * 0.08 * radius),
            (head[0] + ux * 0.38 * radius, head[1] + uy * 0.38 * radius),
            (head[0] + ux * 0.2 * radius + uy * 0.08 * radius, head[1] + uy * 0.2 * radius - ux * 0.08 * radius)]
    angle = math.degrees(facing)
    axes = (round(0.47 * radius), round(0.36 * radius))
    _shadow(plane, (body[0] + 3, body[1] + 4), axes, angle, 0.25)
    for thickness, paint in ((3, (20, 20, 20)), (-1, colour)):
        cv2.ellipse(plane, _at(body), axes, angle, 0, 360, paint, thickness, cv2.LINE_AA)
        cv2.circle(plane, _at(head), round(0.22 * radius), paint, thickness, cv2.LINE_AA)
    cv2.fillPoly(plane, [np.array([_at(p) for p in beak], np.int32)], (20, 130, 250), cv2.LINE_AA)
    eye = (head[0] + ux * 0.05 * radius - uy * 0.1 * radius, head[1] + uy * 0.05 * radius + ux * 0.1 * radius)
    cv2.circle(plane, _at(eye), max(1, round(0.04 * radius)), (20, 20, 20), -1, cv2.LINE_AA)


def _shadow(plane: np.ndarray, centre: tuple[float, float], axes: tuple[int, int], angle: float,
            strength: float) -> None:
    """Darken an ellipse of the plane (an object's soft shadow)."""
    x, y = _at(centre)
    r = max(axes) + 4
    roi = plane[y - r:y + r + 1, x - r:x + r + 1]
    mask = np.zeros(roi.shape[:2], np.float32)
    cv2.ellipse(mask, (r, r), axes, angle, 0, 360, 1.0, -1, cv2.LINE_AA)
    roi *= (1 - strength * cv2.GaussianBlur(mask, (0, 0), 1.5))[..., None]


def _star(plane: np.ndarray, centre: tuple[float, float], r: float, colour: BGR) -> None:
    pts = [(centre[0] + (r if k % 2 == 0 else r * 0.45) * math.sin(k * math.pi / 5),
            centre[1] - (r if k % 2 == 0 else r * 0.45) * math.cos(k * math.pi / 5)) for k in range(10)]
    cv2.fillPoly(plane, [np.array([_at(p) for p in pts], np.int32)], colour, cv2.LINE_AA)


def draw_river(content: RiverContent, geometry: RiverBoard, rng: np.random.Generator) -> np.ndarray:
    """The board seen straight down, on the table plane (float32, with ``MARGIN`` around)."""
    plane = _plane(rng)
    p = geometry.pitch
    xs = [x for x, _ in geometry.cells]
    top_left = (min(xs) - p * 1.8, 60.0)
    bottom_right = (max(xs) + p * 1.0, 660.0)
    cv2.rectangle(plane, _at(top_left), _at(bottom_right), RIVER_MAT, -1, cv2.LINE_AA)
    band = round(p * 0.95)
    path = [geometry.cells[0], *geometry.cells, geometry.cells[-1]]
    path[0] = (path[0][0] - p * 0.6, path[0][1])
    path[-1] = (path[-1][0] - p * 0.6, path[-1][1])
    for a, b in zip(path, path[1:], strict=False):
        cv2.line(plane, _at(a), _at(b), RIVER_WATER, band, cv2.LINE_AA)
    cv2.circle(plane, _at(geometry.spare), round(band * 0.6), RIVER_WATER, -1, cv2.LINE_AA)  # its pool
    for k, (log, (x, y)) in enumerate(zip(geometry.board.logs, geometry.logs, strict=True)):
        w, h = p * 0.8, p * 0.36
        cv2.rectangle(plane, _at((x - w / 2, y - h / 2)), _at((x + w / 2, y + h / 2)), WOOD, -1, cv2.LINE_AA)
        for j in range(3):
            yy = y - h / 2 + h * (j + 1) / 4
            cv2.line(plane, _at((x - w / 2 + 4, yy)), _at((x + w / 2 - 4, yy)), (75, 88, 65), 1, cv2.LINE_AA)
        side = 1 if geometry.cells[log.faces][1] < 360 else -1
        if log.white_star:
            _star(plane, (x - w * 0.3, y - side * h * 1.05), 7, (250, 250, 250))
        if log.blue_star:
            _star(plane, (x + w * 0.3, y - side * h * 1.05), 7, (200, 110, 25))
        seat = content.pawns[k]
        if seat is not None:
            r = p * 0.17
            centre = (x + rng.normal(0, 1.5), y + rng.normal(0, 1.5))
            _shadow(plane, (centre[0] + 3, centre[1] + 4), (round(r), round(r)), 0.0, 0.3)
            cv2.circle(plane, _at(centre), round(r), (15, 15, 15), -1, cv2.LINE_AA)
            cv2.circle(plane, _at(centre), round(r) - 2, PAWN_COLOURS[seat], -1, cv2.LINE_AA)
            cv2.circle(plane, _at((centre[0] - r * 0.35, centre[1] - r * 0.35)), max(1, round(r * 0.18)),
                       tuple(min(255, c + 90) for c in PAWN_COLOURS[seat]), -1, cv2.LINE_AA)
    places = [*zip(geometry.cells, content.pads, content.ducks, strict=True),
              (geometry.spare, content.spare, content.spare_duck)]
    r = geometry.pad_radius
    for (x, y), pad, duck in places:
        if pad is None:
            continue
        centre = (x + rng.normal(0, 2), y + rng.normal(0, 2))
        notch = rng.uniform(0, 360)
        cv2.ellipse(plane, _at(centre), (round(r), round(r)), notch, 20, 340, PAD_COLOURS[pad], -1, cv2.LINE_AA)
        edge = tuple(int(c * 0.75) for c in PAD_COLOURS[pad])
        cv2.ellipse(plane, _at(centre), (round(r), round(r)), notch, 20, 340, edge, 2, cv2.LINE_AA)
        for k in range(5):
            vein = math.radians(notch + 40 + 56 * k)
            tip = (centre[0] + math.cos(vein) * r * 0.55, centre[1] + math.sin(vein) * r * 0.55)
            cv2.line(plane, _at(centre), _at(tip), edge, 1, cv2.LINE_AA)
        if duck and pad != "white":
            duck_token(plane, (centre[0] + rng.normal(0, 1.5), centre[1] + rng.normal(0, 1.5)), r,
                        DUCK_COLOURS[pad], rng.uniform(0, 2 * math.pi))
    _markers(plane)
    return plane


@functools.lru_cache(maxsize=32)
def _card_face(label: str) -> np.ndarray:
    return render.render_card("sitting", label, width=round(CARD_W), height=round(CARD_H))


@functools.cache
def _ducky_face(label: str) -> np.ndarray:
    """A Ducky Ducky card face; a face-down card shows its back, which is its gift side."""
    face = infer_ducky.GIFT if label in (BACK, infer_ducky.GIFT) else label
    return render.render_card("ducky", face, width=round(CARD_W), height=round(CARD_H))


def draw_ducky_piles(plane: np.ndarray, layout: TableLayout, zones: Mapping[str, Labels],
                     rng: np.random.Generator) -> None:
    """Each seat's piles (the top card, duck tokens on its slots, the first slot towards the
    card's top) and gifts as ``zones`` hold them, on a drawn table plane, in the zones of
    ``layout`` (:func:`.pile_layouts.ducky_table_layout`: beyond the board's long edges)."""
    for zone in layout.zones:
        labels = zones.get(zone.name, ())
        if not zone.name.startswith("seat") or not labels:
            continue
        if zone.kind == "spread":
            for (x, y), _ in zip(zone.slot_centres(), labels, strict=False):
                paste_card(plane, _ducky_face(infer_ducky.GIFT), (x + rng.normal(0, 2), y + rng.normal(0, 2)),
                           rng.normal(0, 2.5))
            continue
        x, y = zone.centre
        angle = float(rng.normal(0, 2.5))
        paste_card(plane, _ducky_face(labels[0]), (x + rng.normal(0, 2), y + rng.normal(0, 2)), angle)
        free = list(enumerate(CARD_SLOTS.get(labels[0], ())))
        for duck in labels[1:]:
            slot = next(s for s in free if infer_ducky.DUCK + s[1] == duck)
            free.remove(slot)
            dy, turn = (-0.2 if slot[0] == 0 else 0.2) * CARD_H, math.radians(angle)
            duck_token(plane, (x - math.sin(turn) * dy, y + math.cos(turn) * dy), 0.42 * CARD_W,
                       DUCK_COLOURS[slot[1]], float(rng.uniform(0, 2 * math.pi)))


PILES_FRAME = (1920, 1080)
"""A Ducky Ducky table with the seats' piles beyond the board fills a wide view: a 1080p camera
keeps the cards about as large in the frame as a 720p one shows the card games' cards."""


def piles_view(rng: np.random.Generator) -> np.ndarray:
    """A camera's table -> frame homography for :data:`PILES_FRAME` that sees the board and
    the bands of piles beyond its long edges, its corners moved independently."""
    w, h = PILES_FRAME
    seen = np.array([[-150, -140], [TABLE_W + 150, -140], [TABLE_W + 150, TABLE_H + 140],
                     [-150, TABLE_H + 140]], np.float32)
    corners = np.array([[30, 22], [w - 30, 22], [w - 30, h - 22], [30, h - 22]], np.float32)
    corners += rng.uniform(-35, 35, (4, 2)).astype(np.float32)
    return np.asarray(cv2.getPerspectiveTransform(seen, corners), np.float64)


def draw_line(content: LineContent, geometry: LineBoard, rng: np.random.Generator,
              played: tuple[str, tuple[float, float]] | None = None) -> np.ndarray:
    """The line seen straight down, on the table plane (float32, with ``MARGIN`` around);
    ``played``: the action card on top of the played pile and where the pile lies."""
    plane = _plane(rng)
    left, right = geometry.xs[0] - LINE_PITCH * 0.7, geometry.xs[-1] + LINE_PITCH * 0.7
    top, bottom = TARGET_Y - geometry.card_h * 0.8, CARD_Y + geometry.card_h * 1.4
    cv2.rectangle(plane, _at((left, top)), _at((right, bottom)), FELT, -1, cv2.LINE_AA)
    felt_noise = cv2.GaussianBlur(rng.standard_normal(plane.shape[:2]).astype(np.float32), (0, 0), 1.0) * 5
    box = np.zeros(plane.shape[:2], np.uint8)
    cv2.rectangle(box, _at((left, top)), _at((right, bottom)), 1, -1)
    plane += (felt_noise * box)[..., None]
    h = geometry.card_h

    def jitter() -> tuple[float, float, float]:
        return rng.normal(0, 2.0), rng.normal(0, 2.0), rng.normal(0, 2.5)

    for p, x in zip(POSITIONS, geometry.xs, strict=True):
        if p in content.targets:
            dx, dy, da = jitter()
            paste_card(plane, _card_face("target"), (x + dx, TARGET_Y + dy), da)
        card = content.cards[p - 1]
        if card is None:
            continue
        if p in content.covered:
            dx, dy, da = jitter()
            hidden = str(rng.choice([c for c in infer_sitting.LINE_CARDS if c != WATER_CARD]))
            paste_card(plane, _card_face(hidden), (x + dx, CARD_Y - UNDER_SHIFT * h + dy), da)
        dx, dy, da = jitter()
        paste_card(plane, _card_face(card), (x + dx, CARD_Y + dy), da)
        if p in content.bottoms_up:
            dx, dy, da = jitter()
            paste_card(plane, _card_face(BOTTOMS_UP_CARD), (x + dx, CARD_Y + BOTTOMS_UP_SHIFT * h + dy), da)
    if played is not None:
        card, (x, y) = played
        # no shadow: on a warm (olive, tan) table it darkens into skin tones, and the pile reader's
        # skin test then sees a hand there (a known weakness, docs/benchmarks.md)
        paste_card(plane, _card_face(card), (x + rng.normal(0, 2), y + rng.normal(0, 2)), rng.normal(0, 3), shadow=0)
    _markers(plane)
    return plane


def random_view(rng: np.random.Generator, size: tuple[int, int] = (1280, 720),
                max_skew: float = 70.0) -> np.ndarray:
    """A camera's table -> frame homography: the table area fills most of the frame, its corners
    moved independently (a tilted, slightly turned camera)."""
    w, h = size
    inset = rng.uniform(50, 90)
    src = np.array([[0, 0], [TABLE_W, 0], [TABLE_W, TABLE_H], [0, TABLE_H]], np.float32)
    dst = np.array([[inset, inset], [w - inset, inset], [w - inset, h - inset], [inset, h - inset]], np.float32)
    dst = np.clip(dst + rng.uniform(-max_skew, max_skew, (4, 2)), 60, [w - 60, h - 60]).astype(np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, dst), np.float64)


def view_of(plane: np.ndarray, homography: np.ndarray, size: tuple[int, int] = (1280, 720)) -> np.ndarray:
    """The drawn plane as the camera with ``homography`` (table -> frame) sees it, before light,
    hands and noise (float32): the same for every frame of one table content."""
    shift = np.array([[1, 0, -MARGIN], [0, 1, -MARGIN], [0, 0, 1]], np.float64)
    return np.asarray(cv2.warpPerspective(plane, homography @ shift, size, flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE))


def photograph(plane: np.ndarray | None, homography: np.ndarray, rng: np.random.Generator, *,
               size: tuple[int, int] = (1280, 720),
               hands: Sequence[tuple[float, float]] = (),
               seen: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """What a camera with ``homography`` (table -> frame) sees of a drawn plane: lighting, hands
    over given table points, blur, sensor noise and JPEG loss; and where the hands are (a mask).
    ``seen``: :func:`view_of` the plane, when already made (it is not changed; ``plane`` may
    then be None)."""
    w, h = size
    if seen is None:
        if plane is None:
            raise ValueError("photograph needs the drawn plane or the camera's view of it")
        seen = view_of(plane, homography, size)
        frame = seen
    else:
        frame = seen.copy()
    yy, xx = np.mgrid[0:h // 8, 0:w // 8].astype(np.float32)
    direction = rng.uniform(0, 2 * math.pi)
    ramp = (xx / (w / 8) - 0.5) * math.cos(direction) + (yy / (h / 8) - 0.5) * math.sin(direction)
    light = rng.uniform(0.7, 1.1) + rng.uniform(0.0, 0.45) * ramp
    light *= 1 - rng.uniform(0, 0.4) * ((xx / (w / 8) - 0.5) ** 2 + (yy / (h / 8) - 0.5) ** 2)
    if rng.random() < 0.5:  # a soft shadow across part of the table
        shadow = np.zeros_like(light)
        pts = np.array([[rng.uniform(-0.2, 1.2) * w / 8, rng.uniform(-0.2, 1.2) * h / 8] for _ in range(4)], np.int32)
        cv2.fillPoly(shadow, [cv2.convexHull(pts)], rng.uniform(0.15, 0.4))
        light *= 1 - cv2.GaussianBlur(shadow, (0, 0), 4)
    tint = np.array([rng.uniform(0.85, 1.1), 1.0, rng.uniform(0.88, 1.12)], np.float32)
    mask = np.zeros((h, w), np.uint8)
    for target in hands:  # under the same light as the table
        at = cv2.perspectiveTransform(np.array([[target]], np.float64), homography)[0, 0]
        _hand(frame, mask, (float(at[0]), float(at[1])), rng)
    frame *= cv2.resize(np.clip(light, 0.3, 1.4), (w, h))[..., None] * tint
    if rng.random() < 0.4:
        dot = np.zeros((h // 8, w // 8), np.float32)
        cv2.circle(dot, (int(rng.uniform(0, w / 8)), int(rng.uniform(0, h / 8))), 1, 1.0, -1)
        spot = np.asarray(cv2.GaussianBlur(dot, (0, 0), rng.uniform(3, 10)), np.float32)
        frame += rng.uniform(20, 70) * cv2.resize(spot / max(float(spot.max()), 1e-6), (w, h))[..., None]
    sigma = rng.uniform(0.0, 1.3)
    if sigma > 0.3:
        cv2.GaussianBlur(frame, (0, 0), sigma, dst=frame)
    frame += rng.standard_normal((h, w, 1)).astype(np.float32) * rng.uniform(1.0, 5.0)
    image = np.clip(frame, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 96))])
    return (np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR)) if ok else image), mask


def _hand(frame: np.ndarray, mask: np.ndarray, target: tuple[float, float], rng: np.random.Generator) -> None:
    """A hand over ``target`` (frame pixels), its arm reaching in from the nearest frame edge;
    ``mask`` gets where it lies."""
    h, w = frame.shape[:2]
    tx, ty = target
    sx, sy = min([(tx, -60.0), (tx, h + 60.0), (-60.0, ty), (w + 60.0, ty)],
                 key=lambda e: math.hypot(e[0] - tx, e[1] - ty))
    # a brightness and a slight cast (half the spread of the brightness), so that skin stays
    # red above green above blue as real skin does
    tone = SKIN[int(rng.integers(len(SKIN)))]
    spread = rng.uniform(0.9, 1.1, 3)
    spread = spread.mean() + (spread - spread.mean()) / 2
    skin = tuple(float(c) * f for c, f in zip(tone, spread, strict=True))
    palm = (int(tx + rng.normal(0, 6)), int(ty + rng.normal(0, 6)))
    arm = int(rng.uniform(50, 70))
    axes = (int(rng.uniform(42, 55)), int(rng.uniform(36, 46)))
    turn = float(rng.uniform(0, 180))
    for image, paint in ((frame, skin), (mask, 255)):
        cv2.line(image, (int(sx), int(sy)), palm, paint, arm, cv2.LINE_AA)
        cv2.ellipse(image, palm, axes, turn, 0, 360, paint, -1, cv2.LINE_AA)


def hidden_zones(layout: TableLayout, homography: np.ndarray, mask: np.ndarray,
                 share: float = 0.03) -> frozenset[str]:
    """The zones a hand reaches into: at least ``share`` of their area under ``mask`` (frame pixels)."""
    hidden = []
    for zone in layout.zones:
        u, v = np.meshgrid(np.linspace(0.05, 0.95, 9), np.linspace(0.05, 0.95, 9))
        points = np.stack([zone.x + u.ravel() * zone.w, zone.y + v.ravel() * zone.h], axis=1)
        frame_points = cv2.perspectiveTransform(points.reshape(-1, 1, 2), homography).reshape(-1, 2)
        xs = np.clip(frame_points[:, 0].astype(int), 0, mask.shape[1] - 1)
        ys = np.clip(frame_points[:, 1].astype(int), 0, mask.shape[0] - 1)
        if (mask[ys, xs] > 127).mean() >= share:
            hidden.append(zone.name)
    return frozenset(hidden)


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
        self._refs = _lab([render._PALETTES["reference"][n[5:]] if n != WATER_CARD else _WATER_BODY
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


# ---- measuring the readers -------------------------------------------------------------------------

@dataclass
class BoardTally:
    """Places read against the truth: all of them, the ones read right, and the ones a hand
    covered that were still read as something wrong (a covered place read as covered is fine)."""

    places: int = 0
    right: int = 0
    covered: int = 0
    covered_wrong: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return self.right / self.places if self.places else 1.0

    def add(self, zone: str, read: ZoneRead, truth: Labels, covered: bool, seed: int) -> None:
        if covered:
            self.covered += 1
            self.covered_wrong += not read.occluded and read.labels != truth
            return
        self.places += 1
        if not read.occluded and read.labels == truth:
            self.right += 1
        elif len(self.misses) < 40:
            self.misses.append(f"seed {seed} {zone}: read {'covered' if read.occluded else read.labels}, truth {truth}")


def board_photo(kind: str, seed: int, *, hands: int = 0) -> BoardPhoto:
    """A random board photo, ``kind`` "river" (Ducky Ducky) or "line" (Sitting Ducks), with
    ``hands`` hands reaching over random zones."""
    rng = np.random.default_rng([seed, 0xB0A2D])
    homography = random_view(rng)
    if kind == "river":
        geometry = RiverBoard.of()
        content = RiverContent.random(rng)
        layout = geometry.layout()
        plane = draw_river(content, geometry, rng)
        truth = content.zones()
    else:
        line = LineBoard()
        lc = LineContent.random(rng)
        layout = line.layout()
        plane = draw_line(lc, line, rng)
        truth = lc.zones()
    names = sorted(truth)
    targets = [layout.zone(names[int(i)]).centre
               for i in rng.choice(len(names), size=min(hands, len(names)), replace=False)]
    image, mask = photograph(plane, homography, rng, hands=targets)
    return BoardPhoto(image, truth, layout, homography, hidden_zones(layout, homography, mask))


def run_board_bench(n_frames: int = 200, seed: int = 0, *, hands: float = 0.3,
                    out: TextIO | None = None) -> dict[str, Any]:
    """Render ``n_frames`` random boards (half river, half line), calibrate each from its markers,
    read it and compare with the truth. Prints and returns per-cell river accuracy, per-log
    accuracy, per-position line accuracy and milliseconds per read (issue 5 target: 99.5%)."""
    river, logs, line = BoardTally(), BoardTally(), BoardTally()
    seconds = {"river": 0.0, "line": 0.0}
    failed_calibrations = 0
    for k in range(n_frames):
        frame_seed = seed * 1_000_003 + k
        kind = "river" if k % 2 == 0 else "line"
        count = 1 if np.random.default_rng(frame_seed).random() < hands else 0
        photo = board_photo(kind, frame_seed, hands=count)
        image, truth, covered = photo.image, photo.truth, photo.covered
        try:
            calibrated = calibrate_from_markers(photo.layout, image).layout
        except LayoutError:
            failed_calibrations += 1
            continue
        t0 = time.perf_counter()
        if kind == "river":
            reads = RiverReader(RiverBoard.of(), calibrated).read(image)
        else:
            reads = LineReader(LineBoard(), calibrated).read(image)
        seconds[kind] += time.perf_counter() - t0
        for zone, labels in truth.items():
            tally = (logs if zone.startswith("log.") else river) if kind == "river" else line
            tally.add(zone, reads[zone], labels, zone in covered, frame_seed)
    frames = {"river": (n_frames + 1) // 2, "line": n_frames // 2}
    result = {
        "frames": n_frames,
        "river_cells": river.places, "river_accuracy": river.accuracy,
        "log_places": logs.places, "log_accuracy": logs.accuracy,
        "line_positions": line.places, "line_accuracy": line.accuracy,
        "covered_read_wrong": river.covered_wrong + logs.covered_wrong + line.covered_wrong,
        "covered": river.covered + logs.covered + line.covered,
        "failed_calibrations": failed_calibrations,
        "river_ms": 1000 * seconds["river"] / max(1, frames["river"]),
        "line_ms": 1000 * seconds["line"] / max(1, frames["line"]),
        "misses": (river.misses + logs.misses + line.misses)[:20],
        "target": BOARD_TARGET,
    }
    print(format_board_bench(result), file=out or sys.stdout)
    return result


BOARD_TARGET = 0.995


def format_board_bench(result: Mapping[str, Any]) -> str:
    lines = [
        f"board reading over {result['frames']} synthetic frames (target {result['target']:.1%} per place):",
        f"  Ducky Ducky river cells   {result['river_accuracy']:.2%} of {result['river_cells']}",
        f"  Ducky Ducky logs (pawns)  {result['log_accuracy']:.2%} of {result['log_places']}",
        f"  Sitting Ducks positions   {result['line_accuracy']:.2%} of {result['line_positions']}",
        f"  places under a hand read as something wrong: {result['covered_read_wrong']} of {result['covered']}",
        f"  calibration failed on {result['failed_calibrations']} frames; "
        f"{result['river_ms']:.1f} ms per river read, {result['line_ms']:.1f} ms per line read",
    ]
    lines += [f"  miss: {m}" for m in result["misses"][:10]]
    return "\n".join(lines)


# ---- bot games and their table scripts ----------------------------------------------------------

FPS = 15
FRAME_MS = 1000 / FPS
GAMES = ("ducky", "sitting")


@dataclass(frozen=True)
class BoardShot:
    """One frame's truth: every zone's labels and the zones a hand covers."""

    zones: tuple[tuple[str, Labels], ...]
    covered: frozenset[str]
    ts: int
    event_index: int  # how many true events have happened by this frame
    hands: tuple[tuple[str, ...], ...] | None = None
    """Where hands are: each over the middle of the zones it names; None: one over every
    covered zone. A hand sliding the river lies across two pads at once."""

    def hand_zones(self) -> tuple[tuple[str, ...], ...]:
        """The zones each hand is drawn over (see ``hands``)."""
        if self.hands is not None:
            return self.hands
        return tuple((name,) for name in sorted(self.covered))

    def contents(self) -> dict[str, Labels]:
        return dict(self.zones)


class _Script:
    """The table as a game changes it; every change is made under a hand and then left alone
    for ``hold`` frames (now and then a stray hand passes over some zone)."""

    def __init__(self, contents: dict[str, Labels], rng: random.Random, *, hold: int, cover: int,
                 stray: float) -> None:
        self.names = sorted(contents)
        self.contents = dict(contents)
        self.rng, self.hold, self.cover, self.stray = rng, hold, cover, stray
        self.shots: list[BoardShot] = []
        self.event_index = 0

    def _shot(self, covered: Iterable[str], hands: tuple[tuple[str, ...], ...] | None = None) -> None:
        view = tuple((name, self.contents[name]) for name in self.names)
        self.shots.append(BoardShot(view, frozenset(covered), round(len(self.shots) * FRAME_MS),
                                    self.event_index, hands))

    def settle(self) -> None:
        for _ in range(self.hold):
            stray = [self.rng.choice(self.names)] if self.rng.random() < self.stray else []
            self._shot(stray)

    def change(self, contents: Mapping[str, Labels], only: Iterable[str] | None = None,
               touch: Iterable[str] = (), along: Sequence[Sequence[str]] = ()) -> None:
        """Lay ``contents`` (all zones, or ``only`` those) with a hand over what changes and
        over ``touch`` (a card laid on an equal one changes nothing the camera can see).
        ``along``: stretches of zones in a row (a river's pads); when more than
        ``SWEEP_FROM`` of them change, one or two hands slide along them instead (see
        :meth:`sweep`), after the other zones are laid."""
        names = self.names if only is None else list(only)
        reach = sorted({n for n in names if self.contents[n] != contents[n]} | set(touch))
        if not reach:
            return
        in_row = {n for stretch in along for n in stretch}
        if len(in_row.intersection(reach)) > SWEEP_FROM:
            rest = [n for n in reach if n not in in_row]
            if rest:
                self.change(contents, only=rest)
            self.sweep(contents, along)
            return
        for _ in range(self.cover):
            self._shot(reach)
        for name in reach:
            self.contents[name] = contents[name]
        for _ in range(max(1, self.cover // 2)):
            self._shot(reach)
        self.settle()

    def sweep(self, contents: Mapping[str, Labels], along: Sequence[Sequence[str]]) -> None:
        """Change the zones ``along`` the way a person slides a river: one or two hands move
        along it, each lying across two neighbouring pads a frame, and every pad changes while
        a hand is over it (never all pads at once under a hand each)."""
        stops = [tuple(stretch[k:k + 2]) for stretch in along for k in range(0, len(stretch), 2)
                 if any(self.contents[n] != contents[n] for n in stretch)]
        if not stops:
            return
        if self.rng.random() < 0.5:
            stops.reverse()
        paths = [stops]
        if self.rng.random() < 0.5 and len(stops) > 1:  # two hands, one on each half
            half = (len(stops) + 1) // 2
            paths = [stops[:half], stops[half:]]
        for k in range(max(len(path) for path in paths)):
            hands = tuple(path[min(k, len(path) - 1)] for path in paths)
            for names in hands:
                for name in names:
                    self.contents[name] = contents[name]
            self._shot({n for names in hands for n in names}, hands)
        for _ in range(max(1, self.cover // 2)):  # the hands leave the last pads
            self._shot({n for names in hands for n in names}, hands)
        self.settle()


SWEEP_FROM = 3
"""More river zones than this changing at once are slid along by hand, not laid one by one."""


def ducky_script(state: DuckyState, events: Sequence[Event], rng: random.Random, *, hold: int = 6,
                 cover: int = 2, stray: float = 0.03, pawn_first: float = 0.7,
                 card_before_gift: float = 0.7) -> list[BoardShot]:
    """The frames of a Ducky Ducky game played by the convention of
    :mod:`ducktable.rules.infer_ducky`; ``state`` is a fresh full-information state."""
    script = _Script(infer_ducky.expected_zones(state), rng, hold=hold, cover=cover, stray=stray)
    river = _river_stretches(state.layout.cells)
    script.settle()
    for event in events:
        now = dict(script.contents)
        seat = event.seat
        if event.type == "move" and seat is not None and rng.random() < pawn_first:
            now[infer_ducky.log_zone(state.pawns[seat])] = ()
            now[infer_ducky.log_zone(event.data["log"])] = (infer_ducky.pawn_label(seat),)
            script.change(now)
        if event.type in ("take", "fish") and seat is not None and rng.random() < card_before_gift:
            _duck_on_full_card(state, event, script)
        state.apply_or_raise(event)
        script.event_index += 1
        script.change(infer_ducky.expected_zones(state), along=river)
        if event.type == "pass":
            script.settle()
    return script.shots


def _river_stretches(cells: int) -> list[list[str]]:
    """The river's zones in rows a hand can slide along (see :class:`RiverBoard`): the spare
    pad, the top row and the bottom row."""
    top = (cells + 1) // 2
    return [[infer_ducky.SPARE_ZONE], [infer_ducky.river_zone(c) for c in range(top)],
            [infer_ducky.river_zone(c) for c in range(top, cells)]]


def _duck_on_full_card(state: DuckyState, event: Event, script: _Script) -> None:
    """Show the duck that completes a card lying on it before the card becomes a gift."""
    seat, pile = event.seat, event.data["pile"]
    assert seat is not None
    card = state.visible[seat][pile]
    if card is None or card.filled.count(False) != 1:
        return
    now = dict(script.contents)
    now[infer_ducky.pile_zone(seat, pile)] = infer_ducky.card_labels(card.label, [True, True])
    if event.type == "fish":
        cell = state.faced_cell(seat)
        assert cell is not None
        now[infer_ducky.river_zone(cell)] = infer_ducky.pad_labels(state.pad_colour[cell], False)
    else:
        now[infer_ducky.SPARE_ZONE] = infer_ducky.pad_labels(state.spare_colour, False)
    script.change(now)


def sitting_script(state: SittingDucksState, events: Sequence[Event], rng: random.Random, *,
                   hold: int = 8, cover: int = 2, stray: float = 0.03,
                   card_first: float = 0.7) -> list[BoardShot]:
    """The frames of a Sitting Ducks game played by the convention of
    :mod:`ducktable.rules.infer_sitting`: an action card goes on the played pile before (or,
    now and then, after) its change is made in the line."""
    script = _Script(infer_sitting.expected_zones(state), rng, hold=hold, cover=cover, stray=stray)
    script.settle()
    played = infer_sitting.PLAYED_ZONE
    for event in events:
        info = ACTION_BY_TYPE.get(event.type)
        card: str | None = ACTION_BY_TYPE[event.data["action"]].card if event.type == "discard" else (
            info.card if info is not None and info.action != "bottoms-up" else None)
        first = card is not None and rng.random() < card_first
        if card is not None and first:
            script.change({**script.contents, played: (card,)}, [played], touch=[played])
        state.apply_or_raise(event)
        script.event_index += 1
        after = infer_sitting.expected_zones(state)
        script.change(after, [n for n in script.names if n != played or first])
        script.change(after, touch=[played] if card is not None and not first else ())
        if event.type in ("draw", "shuffle"):
            script.settle()
    return script.shots


# ---- oracle reads -----------------------------------------------------------------------------

def _alternatives(label: str) -> list[str]:
    """Labels a reader could mistake ``label`` for (same kind of thing, other colour or seat)."""
    for prefix, values in ((infer_ducky.PAD, ("white", *DUCKY_COLOURS)),
                           (infer_ducky.PAWN, ("0", "1", "2", "3"))):
        if label.startswith(prefix):
            return [prefix + v for v in values if prefix + v != label]
    if label.startswith("duck-"):
        return [f"duck-{c}" for c in SIT_COLOURS if f"duck-{c}" != label] + [WATER_CARD]
    if label == WATER_CARD:
        return [f"duck-{c}" for c in SIT_COLOURS]
    if label in CARD_SLOTS:
        return [c for c in CARD_SLOTS if c != label]
    if label in ACTION_BY_CARD:
        return [c for c in ACTION_BY_CARD if c != label]
    return [UNKNOWN]


def misread_labels(labels: Labels, rng: random.Random) -> tuple[CardRead, ...]:
    """One wrong reading of a zone: a label swapped for a look-alike, dropped, or unknown."""
    reads = [CardRead(label, 0.95) for label in labels]
    roll = rng.random()
    if reads and roll < 0.5:
        k = rng.randrange(len(reads))
        reads[k] = CardRead(rng.choice(_alternatives(labels[k])), 0.6)
    elif reads and roll < 0.7:
        del reads[rng.randrange(len(reads))]
    elif reads:
        k = rng.randrange(len(reads))
        reads[k] = CardRead(UNKNOWN, 0.3)
    else:
        reads.append(CardRead(rng.choice(["target", "pad-white", "duck-yellow", "pawn-0", "back"]), 0.6))
    return tuple(reads)


def oracle_snapshots(shots: Sequence[BoardShot], *, misread: float = 0.0,
                     seed: int = 0) -> Iterator[TableSnapshot]:
    """Snapshots straight from the script (true labels, covered zones marked), and with
    probability ``misread`` per zone and frame a wrong reading of it instead."""
    rng = random.Random(seed)
    for index, shot in enumerate(shots):
        zones: dict[str, ZoneRead] = {}
        for name, labels in shot.zones:
            if name in shot.covered:
                zones[name] = HIDDEN
            elif misread and rng.random() < misread:
                zones[name] = ZoneRead(misread_labels(labels, rng))
            else:
                zones[name] = ZoneRead(tuple(CardRead(label, 0.95) for label in labels))
        yield TableSnapshot(shot.ts, zones, index)


# ---- following a game and comparing with the truth ----------------------------------------------

class _SometimesPasses(Bot):
    """A greedy Ducky Ducky player who now and then leaves a duck it could fish (so passes,
    which the camera only sees by what follows, are tested too)."""

    def __init__(self, inner: Bot, rng: random.Random, chance: float) -> None:
        self.inner, self.rng, self.chance = inner, rng, chance

    def choose(self, state: State, seat: int) -> Event:
        passes = [e for e in state.legal_events(seat) if e.type == "pass"]
        if passes and self.rng.random() < self.chance:
            return passes[0]
        return self.inner.choose(state, seat)


@dataclass(frozen=True)
class TrueGame:
    """A finished full-information bot game: its players, true log and final scores."""

    game: str
    players: tuple[str, ...]
    events: tuple[Event, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]


def default_players(game: str, seed: int) -> int:
    """How many play the seeded game when nobody says: every count the game allows, in turn."""
    low, high = (2, 4) if game == "ducky" else (3, 6)
    return low + seed % (high - low + 1)


def bot_game(game: str, seed: int, players: int | None = None) -> TrueGame:
    """A seeded greedy-bot game of Ducky Ducky (2-4 players) or Sitting Ducks (3-6)."""
    if game not in GAMES:
        raise ValueError(f"board games are {list(GAMES)}, not {game!r}")
    n = players if players is not None else default_players(game, seed)
    names = tuple(f"P{i + 1}" for i in range(n))
    state = make_game(game).new_state(names)
    bots: list[Bot]
    if game == "ducky":
        bots = [_SometimesPasses(DuckyBot(random.Random(seed * 100 + i)), random.Random(seed * 7 + i), 0.2)
                for i in range(n)]
    else:
        bots = [SittingBot(random.Random(seed * 100 + i)) for i in range(n)]
    simulate(state, bots, random.Random(seed))
    return TrueGame(game, names, tuple(state.history), tuple(state.scores()), tuple(state.winners()))


def script_for(game: TrueGame, seed: int, *, hold: int | None = None) -> list[BoardShot]:
    """The game's frames; ``hold`` (frames the table stays still after a change) None keeps
    each script's own default."""
    state = make_game(game.game).new_state(game.players)
    rng = random.Random(seed)
    held = {} if hold is None else {"hold": hold}
    if isinstance(state, DuckyState):
        return ducky_script(state, game.events, rng, **held)
    assert isinstance(state, SittingDucksState)
    return sitting_script(state, game.events, rng, **held)


def inferrer_for(game: str) -> Inferrer:
    if game == "ducky":
        return DuckyInferrer()
    if game == "sitting":
        return SittingInferrer()
    raise ValueError(f"no board inference for {game!r}")


@dataclass
class FollowResult:
    """How one followed game compares with its truth."""

    game: str
    seed: int
    true_events: int
    camera_right: int = 0  # true events the camera applied by itself (or one with the same effect)
    confirmed: int = 0  # events a person confirmed or entered
    wrong_applied: int = 0  # camera events whose effect the true log does not have
    exact: bool = False  # final scores and winners as in the truth, and nothing wrong applied
    frames: int = 0
    first_problem: str = ""
    camera_in_video: int = 0  # camera_right when the frames ran out (before a person entered the rest)
    hand_in_video: int = 0  # confirmed, likewise
    pending_episodes: int = 0  # times the camera held an event for a person
    cells_read: int = 0  # zone reads compared with the script (zones no hand covers)
    cells_right: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    by_type: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per true event type: ``true``, ``camera`` (applied alone, right), ``confirmed`` (by a
    person) and ``wrong`` (the camera applied something the truth does not have)."""

    def tally(self, event_type: str, outcome: str) -> None:
        counts = self.by_type.setdefault(event_type, {"true": 0, "camera": 0, "confirmed": 0, "wrong": 0})
        counts[outcome] += 1


def _view(state: State) -> dict[str, Any]:
    view = dict(state.public_view())
    view.pop("history", None)
    view.pop("last_events", None)
    return view


def same_effect(before: State, seen: Event, true: Event) -> bool:
    """Whether ``seen`` is ``true`` or leaves the same public table (a Duck Shuffle swapping two
    equal cards, ducks put back on either of two pads of their colour...)."""
    if seen.type != true.type or seen.seat != true.seat:
        return False
    if dict(seen.data) == dict(true.data):
        return True
    a, b = before.clone(), before.clone()
    return a.apply(seen).ok and b.apply(true).ok and _view(a) == _view(b)


def _open_window(game: str, remaining: Sequence[Event]) -> int:
    """How many of the next true events the camera may meet first. Ducky Ducky's fishers fish
    or pass in any order, and a pass only shows once the next pawn moves, so within a turn the
    camera may see events in another order than the log; Sitting Ducks' order is fixed."""
    if game != "ducky":
        return min(1, len(remaining))
    return next((i for i, e in enumerate(remaining) if i > 0 and e.type == "move"), len(remaining))


def follow(game: TrueGame, frames: Iterable[tuple[TableSnapshot, int]], *, seed: int = 0,
           patience_frames: int = 15) -> FollowResult:
    """Feed snapshots to a follower on an observer state, each with how many true events had
    happened at the table by then. A simulated person looks at what stays pending for
    ``patience_frames`` frames: if the next true event has already happened they enter it
    (confirming or correcting the camera), otherwise they reject the suggestion; at the end they
    enter whatever the camera did not settle.

    Each applied event must be one of the true events still open (see :func:`_open_window`), or
    have the same effect on the table; anything else counts as wrong and ends the game."""
    g = make_game(game.game)
    remaining = list(enumerate(g.public_event(e) for e in game.events))
    state = g.new_state(game.players, observer=True)
    mirror = g.new_state(game.players, observer=True)  # the follower's state one event behind
    follower = TableFollower(state, inferrer_for(game.game), StabilityTracker(window=5, needed=3))
    result = FollowResult(game.game, seed, len(remaining))
    for _, event in remaining:
        result.tally(event.type, "true")

    def open_events() -> list[tuple[int, Event]]:
        return remaining[:_open_window(game.game, [e for _, e in remaining])]

    def check_new(start: int) -> bool:
        for k in range(start, len(follower.log)):
            inference = follower.log[k]
            window = open_events()
            j = next((i for i, (_, true) in enumerate(window)
                      if inference.event is true or same_effect(mirror, inference.event, true)), None)
            if j is None:
                result.wrong_applied += 1
                result.tally(inference.event.type, "wrong")
                expected = " or ".join(e.dumps() for _, e in window) or "nothing"
                result.first_problem = result.first_problem or (
                    f"event #{k}: applied {inference.event.dumps()} ({inference.why}) but the "
                    f"truth is {expected}")
                return False
            by_camera = inference.why not in ("confirmed by hand", "entered by hand")
            result.camera_right += by_camera
            result.tally(window[j][1].type, "camera" if by_camera else "confirmed")
            mirror.apply_or_raise(inference.event)
            del remaining[j]
        return True

    def enter(happened: int, now: int) -> bool | None:
        """The person enters the next true event if it has happened (None: nothing to enter),
        stamped with the time they entered it, as the phone does."""
        true = next((e for k, e in open_events() if k < happened and state.check(e).ok), None)
        if true is None:
            return None
        result.confirmed += 1
        start = len(follower.log)
        follower.confirm(Event(true.type, true.seat, true.data, now, "manual"))
        return check_new(start)

    waited = 0
    ok = True
    for snapshot, happened in frames:
        result.frames += 1
        before = len(follower.log)
        t0 = time.perf_counter()
        step = follower.feed(snapshot)
        result.seconds["follow"] = result.seconds.get("follow", 0.0) + time.perf_counter() - t0
        if not check_new(before):
            ok = False
            break
        result.pending_episodes += step.pending is not None and not waited
        waited = waited + 1 if step.pending is not None else 0
        if waited >= patience_frames:
            waited = 0
            entered = enter(happened, snapshot.ts)
            if entered is None:
                follower.reject()
            elif not entered:
                ok = False
                break
    result.camera_in_video, result.hand_in_video = result.camera_right, result.confirmed
    while ok and not state.is_over() and remaining:
        entered = enter(len(game.events), follower.tracker.last_ts)
        if not entered:
            result.first_problem = result.first_problem or (
                f"after event #{len(follower.log)}: no open true event is legal now")
            ok = False
    result.exact = (ok and not result.wrong_applied and state.is_over()
                    and tuple(state.scores()) == game.scores and tuple(state.winners()) == game.winners)
    return result


def oracle_follow(game: str, seed: int, *, misread: float = 0.02, players: int | None = None,
                  hold: int | None = None) -> FollowResult:
    """One bot game followed from oracle snapshots (no pixels); ``players`` None lets the seed
    choose, ``hold`` None keeps the script's own."""
    true = bot_game(game, seed, players)
    shots = script_for(true, seed, hold=hold)
    counted = _CellCount(shots)
    snapshots = counted.wrap(oracle_snapshots(shots, misread=misread, seed=seed))
    result = follow(true, zip(snapshots, (shot.event_index for shot in shots), strict=True), seed=seed)
    counted.into(result)
    return result


class _CellCount:
    """Counts zone reads that match the script, over zones no hand covers (and, if given, only
    ``zones``): the read accuracy of a followed game."""

    def __init__(self, shots: Sequence[BoardShot], zones: Iterable[str] | None = None) -> None:
        self.shots = shots
        self.zones = None if zones is None else set(zones)
        self.read = self.right = 0

    def wrap(self, snapshots: Iterable[TableSnapshot]) -> Iterator[TableSnapshot]:
        for shot, snapshot in zip(self.shots, snapshots, strict=False):
            for name, labels in shot.zones:
                if name in shot.covered or (self.zones is not None and name not in self.zones):
                    continue
                read = snapshot.zone(name)
                if read is not None and not read.occluded:
                    self.read += 1
                    self.right += read.labels == labels
            yield snapshot

    def into(self, result: FollowResult) -> None:
        result.cells_read, result.cells_right = self.read, self.right


GAME_TARGETS = {"exact": 0.95, "wrong_events": 0}


def run_game_bench(n_games: int = 20, seed: int = 0, *, misread: float = 0.02,
                   games: Sequence[str] = GAMES, out: TextIO | None = None) -> dict[str, Any]:
    """Follow ``n_games`` bot games of each kind from oracle snapshots (true zone contents, with
    ``misread`` of the zone reads per frame wrong) and compare with the true logs. Prints and
    returns, per game, how many games ended with the exact true result, how many events the
    camera applied that the truth does not have (issue 5 target: none), and how many it applied
    alone or a person had to enter."""
    result: dict[str, Any] = {"games": n_games, "misread": misread, "targets": GAME_TARGETS}
    for game in games:
        runs = [oracle_follow(game, s, misread=misread) for s in range(seed, seed + n_games)]
        result[game] = {
            "exact": sum(r.exact for r in runs),
            "wrong_events": sum(r.wrong_applied for r in runs),
            "true_events": sum(r.true_events for r in runs),
            "camera_events": sum(r.camera_right for r in runs),
            "entered_by_hand": sum(r.confirmed for r in runs),
            "problems": [f"{r.game} seed {r.seed}: {r.first_problem}" for r in runs if r.first_problem][:5],
        }
    print(format_game_bench(result), file=out or sys.stdout)
    return result


def format_game_bench(result: Mapping[str, Any]) -> str:
    lines = [f"bot games followed from oracle snapshots ({result['misread']:.0%} of zone reads wrong per frame):"]
    for game in GAMES:
        if game not in result:
            continue
        r = result[game]
        lines.append(
            f"  {game:8s} exact result {r['exact']}/{result['games']}, wrong events applied {r['wrong_events']}, "
            f"camera applied {r['camera_events']} of {r['true_events']} true events, "
            f"entered by hand {r['entered_by_hand']}")
        lines += [f"    {p}" for p in r["problems"]]
    return "\n".join(lines)


# ---- following a game through rendered board frames ------------------------------------------------

def camera_snapshots(game: TrueGame, shots: Sequence[BoardShot], seed: int, *,
                     misread: float = 0.02, seconds: dict[str, float] | None = None,
                     piles: str = "script", capture_size: tuple[int, int] | None = None,
                     frames_dir: str | None = None) -> Iterator[TableSnapshot]:
    """Snapshots whose board zones (river and logs, or the line) are read from rendered frames by
    the board reader (a fixed camera calibrated from its markers, hands drawn where a script
    frame puts them, fresh noise every frame). ``piles`` says how the cards beside the board are
    read: "script" takes them from the script as :func:`oracle_snapshots` gives them; "truth"
    and "model" draw them where the camera reader expects them (:mod:`.pile_layouts`; Ducky
    Ducky's in a wider 1080p view) and read them as it does (:class:`.pile_reading.CardZones`),
    naming the cards found by their true labels or with the shipped classifier. Ducky Ducky's
    piles are drawn in "model" mode only (see :func:`_piles_drawn`). ``capture_size``: the
    pictures are taken at this size (the same table and view, more or fewer pixels) and read as
    ``ducktable run`` reads them: calibrated and read at :func:`~.reader.calibration_view`'s
    size, the cards cut from the whole picture. ``frames_dir``: the pictures are also written
    there as JPEGs."""
    from .reader import calibration_view, reading_view

    rng = np.random.default_rng([seed, 0xCA3E])
    river = RiverBoard.of(resolve_layout(None)) if game.game == "ducky" else None
    line = LineBoard()
    pile = _piles_drawn(game.game, piles)
    size = PILES_FRAME if pile and river is not None else (1280, 720)
    homography = piles_view(rng) if size == PILES_FRAME else random_view(rng)
    if capture_size is not None:
        homography = np.diag([capture_size[0] / size[0], capture_size[1] / size[1], 1.0]) @ homography
        size = capture_size
    layout = _pixel_layout(game.game, len(game.players), pile)
    pixel_zones = {z.name for z in layout.zones}
    played = infer_sitting.PLAYED_ZONE
    pile_at = layout.zone(played).centre if pile and river is None else (0.0, 0.0)
    views: dict[Any, np.ndarray] = {}

    def view_for(zones: Mapping[str, Labels]) -> np.ndarray:
        """The camera's view of the table drawn with this content (kept a while)."""
        content: RiverContent | LineContent = (
            RiverContent.from_zones(zones, river.board) if river is not None else LineContent.from_zones(zones))
        top = _top(zones, played) if pile and river is None else None
        seats = tuple(sorted((k, v) for k, v in zones.items() if k.startswith("seat"))) if pile else ()
        key = (content, top, seats)
        if key not in views:
            if len(views) >= 8:  # a view is 11-25 MB: keep only the recent few
                del views[next(iter(views))]
            draw_rng = np.random.default_rng([seed, zlib.crc32(repr(key).encode())])
            if isinstance(content, RiverContent):
                assert river is not None
                plane = draw_river(content, river, draw_rng)
                if pile:
                    draw_ducky_piles(plane, layout, zones, draw_rng)
            else:
                plane = draw_line(content, line, draw_rng, played=None if top is None else (top, pile_at))
            views[key] = view_of(plane, homography, size)
        return views[key]

    bare = {**shots[0].contents(), played: ()}  # the empty table: no action card played yet
    first, _ = photograph(None, homography, rng, seen=view_for(bare), size=size)
    first = calibration_view(first, game.game)  # as `ducktable calibrate` measures it
    read_size = (first.shape[1], first.shape[0])
    calibrated = calibrate_from_markers(layout, first).layout
    reader: RiverReader | LineReader = (RiverReader(river, calibrated) if river is not None
                                        else LineReader(line, calibrated))
    shown: list[str | None] = [None]  # the true top card of the frame being read

    def true_labels(detections: list[Detection]) -> list[tuple[str, float]]:
        top = shown[0]
        return [(top, 0.95) if top is not None else (UNKNOWN, 0.1) for _ in detections]

    cards = _pile_reader(game.game, calibrated, read_size, true_labels, piles) if pile else None
    if frames_dir is not None:
        Path(frames_dir).mkdir(parents=True, exist_ok=True)
    others = oracle_snapshots(shots, misread=misread, seed=seed)
    for index, (shot, oracle) in enumerate(zip(shots, others, strict=True)):
        zones = shot.contents()
        hands = [_middle([layout.zone(z).centre for z in names]) for names in shot.hand_zones()
                 if all(z in pixel_zones for z in names)]
        t0 = time.perf_counter()
        picture, _ = photograph(None, homography, np.random.default_rng([seed, index]), hands=hands,
                                seen=view_for(zones), size=size)
        t1 = time.perf_counter()
        if frames_dir is not None:
            cv2.imwrite(f"{frames_dir}/frame-{index:05d}.jpg", picture)
        image, detail = reading_view(picture, read_size)
        reads = reader.read(image)
        if cards is not None:
            shown[0] = _top(zones, played)
            reads.update(cards.read(image, detail))
        if seconds is not None:
            seconds["render"] = seconds.get("render", 0.0) + t1 - t0
            seconds["read"] = seconds.get("read", 0.0) + time.perf_counter() - t1
        merged = {name: read for name, read in oracle.zones.items() if name not in pixel_zones}
        merged.update(reads)
        yield TableSnapshot(shot.ts, merged, index)


def _top(zones: Mapping[str, Labels], name: str) -> str | None:
    labels = zones.get(name, ())
    return labels[-1] if labels else None


def _piles_drawn(game: str, piles: str) -> bool:
    """Whether the cards beside the board are drawn and read from the frames: Sitting Ducks'
    played pile in truth and model modes (a pile's true label is its top card), Ducky Ducky's
    piles and gifts in model mode only (their true labels would need the reader's zone for
    each crop: truth mode takes them from the script)."""
    return piles == "model" or (game == "sitting" and piles == "truth")


def _pixel_layout(game: str, players: int, pile: bool) -> TableLayout:
    """The zones read from the frames: the board's, and with ``pile`` the cards' beside it
    where the camera reader has them (:mod:`.pile_layouts`)."""
    board = resolve_layout(None)
    if not pile:
        return RiverBoard.of(board).layout() if game == "ducky" else LineBoard().layout()
    from .pile_layouts import ducky_table_layout, sitting_table_layout  # they build on this module

    return ducky_table_layout(players, board) if game == "ducky" else sitting_table_layout()


def _pile_reader(game: str, calibrated: TableLayout, frame_size: tuple[int, int],
                 true_labels: Classify, piles: str) -> Any:
    """The camera reader's reader of the cards beside the board, naming them with the shipped
    classifier (``piles`` "model") or, for Sitting Ducks' played pile, with the true label of
    its top card ("truth")."""
    from .pile_reading import CardZones, ducky_pile_card, sitting_card
    from .table_video import model_classifier

    classify = model_classifier(game) if piles == "model" else true_labels
    if game == "ducky":
        seats = {z.name for z in calibrated.zones if z.name.startswith("seat")}
        return CardZones(calibrated, seats, frame_size, classify, ducky_pile_card)
    return CardZones(calibrated, {infer_sitting.PLAYED_ZONE}, frame_size, classify, sitting_card)


def _middle(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    return (sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points))


def camera_follow(game: str, seed: int, *, misread: float = 0.02, players: int | None = None,
                  hold: int | None = None, max_frames: int | None = None, piles: str = "truth",
                  capture_size: tuple[int, int] | None = None, frames_dir: str | None = None
                  ) -> FollowResult:
    """One bot game followed with its board read from rendered frames (slow: a frame ~0.1 s);
    ``piles``, ``capture_size`` and ``frames_dir``: see :func:`camera_snapshots`. The cell
    figures count the zones read from pixels only (the others come from the script)."""
    true = bot_game(game, seed, players)
    shots = script_for(true, seed, hold=hold)
    if max_frames is not None:
        shots = shots[:max_frames]
    seconds: dict[str, float] = {}
    snapshots = camera_snapshots(true, shots, seed, misread=misread, seconds=seconds, piles=piles,
                                 capture_size=capture_size, frames_dir=frames_dir)
    counted = _CellCount(shots, pixel_zones(game, piles, len(true.players)))
    result = follow(true, zip(counted.wrap(snapshots), (shot.event_index for shot in shots), strict=True),
                    seed=seed)
    counted.into(result)
    result.seconds.update(seconds)
    return result


def pixel_zones(game: str, piles: str = "script", players: int = 3) -> set[str]:
    """The zones of ``game`` read from rendered frames: its board's (by the board reader) and
    the cards' beside it that ``piles`` has drawn (by the card reader, see :func:`_piles_drawn`)."""
    return {zone.name for zone in _pixel_layout(game, players, _piles_drawn(game, piles)).zones}
