"""Seeded pictures of Ducky Ducky's river and Sitting Ducks' line, with the truth about them.

Why this module exists: the board readers (:mod:`ducktable.vision.boards`) are tested and
measured on pictures nobody has to take or label. This draws both boards from their contents
(OpenCV, with lighting, noise, blur, hands over them and a tilted camera), the cards laid
beside them, and says which zones a hand hides.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from ducktable.rules import infer_ducky, infer_sitting
from ducktable.rules.decks import BACK, DUCKY_COLOURS
from ducktable.rules.ducky import CARD_SLOTS
from ducktable.rules.ducky_board import DEFAULT_LAYOUT, BoardLayout
from ducktable.rules.sitting import (
    BOTTOMS_UP_CARD,
    LINE_LENGTH,
    POSITIONS,
)
from ducktable.rules.sitting import WATER as WATER_CARD
from ducktable.sim import render
from ducktable.vision.boards import (
    BGR,
    BOARD_MARKER,
    BOTTOMS_UP_SHIFT,
    CARD_Y,
    DUCK_COLOURS,
    FELT,
    LINE_PITCH,
    PAD_COLOURS,
    PAWN_COLOURS,
    RIVER_MAT,
    RIVER_WATER,
    TABLE_H,
    TABLE_W,
    TARGET_Y,
    UNDER_SHIFT,
    WOOD,
    Labels,
    LineBoard,
    RiverBoard,
)
from ducktable.vision.calibrate import marker_image
from ducktable.vision.layout import CARD_H, CARD_W, TABLE_SIZE, TableLayout, corner_markers

SKIN = ((70, 100, 150), (110, 145, 200), (150, 175, 225), (45, 65, 100))


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
