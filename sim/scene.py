"""Synthetic photographs of a card table, with the truth about every card in them.

Why this module exists: the detector and classifier are measured, and the table-reading work
is tested, on thousands of table photos that nobody has to take or label. A scene is drawn
from a seed, so the same seed always gives the same pixels. It varies what a real camera meets:
light and dark wood, felt, cloth and patterned covers; a camera tilted up to 30 degrees;
rotated and touching cards of any size; hands and clutter; a lighting gradient, soft shadows,
glare, blur, sensor noise and JPEG loss.

Geometry: cards live on the *table plane*, measured in pixels of a camera looking straight
down at a ``size`` frame (so with no tilt, table and frame coordinates are the same). The
camera view is a homography from table to frame; a card's quad in the frame is its four table
corners mapped through it, listed top-left, top-right, bottom-right, bottom-left of the
upright card. The table cover extends beyond the frame, so a tilted view shows no edge.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from ducktable.sim import render

CARD_ASPECT = 1.5
"""Height over width of the rendered cards (render_card's default 200 x 300)."""

DEFAULT_CARD_WIDTH_FRAC = 1 / 16
"""Card width at ``Placement.scale == 1``, as a fraction of the frame width (80 px at 1280)."""

SURFACES = ("light-wood", "dark-wood", "felt", "light-cloth", "dark-cloth", "checked",
            "striped", "dotted")
MAX_TILT_DEG = 30.0
MIN_CARD_SIDE_FRAC = 0.036
"""Random scenes keep every card's short side at least this share of the frame width (46 px)."""


@dataclass(frozen=True)
class TrueCard:
    """A card in a scene: what the classifier should say (``game/label`` or ``back``) and
    its frame corners (4 x 2 float32: top-left, top-right, bottom-right, bottom-left)."""

    label: str
    quad: np.ndarray


@dataclass(frozen=True)
class Scene:
    """A rendered frame (BGR uint8) and every card fully inside it."""

    image: np.ndarray
    cards: list[TrueCard]
    seed: int


@dataclass(frozen=True)
class Placement:
    """Where to put one card on the table.

    ``label`` is game-qualified (``duck/yellow-5``); ``game/back`` lays a card face down.
    ``center_xy`` is in table coordinates (frame pixels of an untilted camera), ``angle_deg``
    turns the card clockwise from upright, ``scale`` 1 makes it 1/16 of the frame width.
    """

    label: str
    center_xy: tuple[float, float]
    angle_deg: float = 0.0
    scale: float = 1.0


# ---- public API ---------------------------------------------------------------------------------


def render_scene(
    seed: int,
    *,
    game: str | None = None,
    n_cards: tuple[int, int] | int = (4, 20),
    size: tuple[int, int] = (1280, 720),
    edition: str = "reference",
    clutter: bool = True,
    hands: bool = True,
    empty: bool = False,
) -> Scene:
    """A random table with random cards, fully determined by ``seed``.

    ``game`` None picks one of the five games per scene. ``n_cards`` is a count or an
    inclusive range; crowded tables may hold a few fewer when no free spot is found. A few
    cards lie face down (truth label ``back``). ``empty`` gives a table with no cards.
    """
    rng = np.random.default_rng([seed, 0x5CE7E])
    chosen_game = game if game is not None else str(rng.choice(render.GAMES))
    view = _View.random(rng, size)
    low, high = (n_cards, n_cards) if isinstance(n_cards, int) else n_cards
    count = 0 if empty else int(rng.integers(low, high + 1))
    placements = _random_placements(rng, view, chosen_game, count)
    return _compose(
        rng, view, placements, edition=edition, clutter_items=_clutter_count(rng, clutter),
        hand_count=int(rng.integers(1, 3)) if hands and rng.random() < 0.7 else 0, seed=seed,
    )


def compose_scene(
    background_seed: int,
    placements: Sequence[Placement],
    effects_seed: int,
    *,
    size: tuple[int, int] = (1280, 720),
    edition: str = "reference",
    tilt_deg: float | None = 0.0,
    clutter: bool = False,
) -> Scene:
    """Given cards at given table positions, on a table and camera chosen by ``background_seed``.

    The surface, lighting, clutter and camera stay the same for one ``background_seed``, so
    a game can be drawn frame by frame; ``effects_seed`` varies glare, blur, noise and JPEG
    like successive camera frames. ``tilt_deg`` None lets the seed pick a tilt up to 30
    degrees. The truth lists only cards that lie fully inside the frame.
    """
    bg_rng = np.random.default_rng([background_seed, 0xB6])
    view = _View.random(bg_rng, size, tilt_deg=tilt_deg, keep_table=True)
    background = _Background.random(bg_rng, view, clutter_items=_clutter_count(bg_rng, clutter))
    fx_rng = np.random.default_rng([effects_seed, 0xEF])
    return _draw(view, background, list(placements), edition, fx_rng, hand_count=0,
                 seed=background_seed)


def compose_table(
    background_seed: int,
    placements: Sequence[Placement],
    effects_seed: int,
    *,
    size: tuple[int, int] = (1280, 720),
    edition: str = "reference",
    tilt_deg: float | None = 0.0,
    clutter: bool = False,
) -> np.ndarray:
    """Only the image of :func:`compose_scene` (same arguments)."""
    return compose_scene(background_seed, placements, effects_seed, size=size, edition=edition,
                         tilt_deg=tilt_deg, clutter=clutter).image


def card_quad(placement: Placement, size: tuple[int, int]) -> np.ndarray:
    """The placement's four corners in table coordinates (TL, TR, BR, BL of the upright card)."""
    w = placement.scale * DEFAULT_CARD_WIDTH_FRAC * size[0]
    return _rect_corners(placement.center_xy, w, w * CARD_ASPECT, placement.angle_deg)


# ---- camera view ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _View:
    """The camera: table coordinates -> frame pixels (``homography``), and the frame size."""

    size: tuple[int, int]
    homography: np.ndarray
    table_size: tuple[int, int] | None = None
    """The frame size the table's coordinates were laid out for (cards are sized by it) when
    the picture is taken at another size (see :meth:`taken_at`); None: ``size``."""

    def taken_at(self, size: tuple[int, int]) -> _View:
        """The same view in a picture of ``size``: the same field of view, more (or fewer)
        pixels, as a camera mode with more pixels sees the table."""
        sx, sy = size[0] / self.size[0], size[1] / self.size[1]
        return _View(size, np.diag([sx, sy, 1.0]) @ self.homography, self.table_size or self.size)

    @classmethod
    def random(cls, rng: np.random.Generator, size: tuple[int, int],
               tilt_deg: float | None = None, *, keep_table: bool = False) -> _View:
        """A camera tilted up to 30 degrees in a random direction (or by ``tilt_deg``).

        ``keep_table`` zooms out so the untilted frame's area of the table stays in view.
        """
        w, h = size
        tilt = math.radians(rng.uniform(0.0, MAX_TILT_DEG) if tilt_deg is None else tilt_deg)
        azimuth = rng.uniform(0.0, 2 * math.pi)
        focal = w * rng.uniform(0.9, 1.4)
        k = np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1]], np.float64)
        axis = np.array([math.cos(azimuth), math.sin(azimuth), 0.0]) * tilt
        rotation, _ = cv2.Rodrigues(axis)
        tilt_h = k @ rotation @ np.linalg.inv(k)
        # Zoom out so the whole untilted frame area of the table stays in view.
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        mapped = _apply(tilt_h, corners) - (w / 2, h / 2)
        zoom = min(1.0, (w / 2) / np.abs(mapped[:, 0]).max(),
                   (h / 2) / np.abs(mapped[:, 1]).max()) if keep_table else 1.0
        zoom_h = np.array([[zoom, 0, w / 2 * (1 - zoom)], [0, zoom, h / 2 * (1 - zoom)],
                           [0, 0, 1]])
        return cls(size, zoom_h @ tilt_h)

    def to_frame(self, points: np.ndarray) -> np.ndarray:
        return _apply(self.homography, points).astype(np.float32)

    def to_table(self, points: np.ndarray) -> np.ndarray:
        return _apply(np.linalg.inv(self.homography), points).astype(np.float32)

    def inside(self, quad: np.ndarray, margin: float) -> bool:
        w, h = self.size
        return bool((quad[:, 0] >= margin).all() and (quad[:, 0] <= w - 1 - margin).all()
                    and (quad[:, 1] >= margin).all() and (quad[:, 1] <= h - 1 - margin).all())


def _apply(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, homography).reshape(-1, 2)


def _rect_corners(center: tuple[float, float], w: float, h: float, angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    ux = np.array([math.cos(a), math.sin(a)])  # the card's "right", clockwise on screen
    uy = np.array([-math.sin(a), math.cos(a)])  # the card's "down"
    c = np.asarray(center, np.float64)
    return np.array([c - ux * w / 2 - uy * h / 2, c + ux * w / 2 - uy * h / 2,
                     c + ux * w / 2 + uy * h / 2, c - ux * w / 2 + uy * h / 2], np.float32)


# ---- random card layouts ----------------------------------------------------------------------


def _random_placements(rng: np.random.Generator, view: _View, game: str,
                       count: int) -> list[Placement]:
    """Up to ``count`` non-overlapping cards, many touching a neighbour, all inside the frame."""
    if count == 0:
        return []
    w, h = view.size
    labels = render.card_labels(game)
    # Card width in frame pixels: at most what lets ``count`` cards cover ~35% of the frame.
    widest = math.sqrt(0.35 * w * h / (CARD_ASPECT * count))
    frame_width = rng.uniform(0.047 * w, min(0.09 * w, widest))
    scale_px = frame_width / _local_zoom(view)
    touch_chance = rng.uniform(0.0, 0.6)
    placed: list[tuple[Placement, np.ndarray]] = []  # with its frame quad
    for _ in range(count):
        label = f"{game}/back" if rng.random() < 0.08 else f"{game}/{rng.choice(labels)}"
        for _attempt in range(60):
            card_w = scale_px * rng.uniform(0.98, 1.02)
            if placed and rng.random() < touch_chance:
                center, angle = _next_to(rng, placed[int(rng.integers(len(placed)))][0], card_w,
                                         w)
            else:
                center = tuple(view.to_table(np.array([[rng.uniform(0, w),
                                                        rng.uniform(0, h)]]))[0])
                angle = rng.uniform(0, 360) if rng.random() < 0.8 else rng.normal(0, 8)
            p = Placement(label, (float(center[0]), float(center[1])), float(angle),
                          card_w / (DEFAULT_CARD_WIDTH_FRAC * w))
            quad = view.to_frame(card_quad(p, view.size))
            sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
            if not (MIN_CARD_SIDE_FRAC * w <= sides.min() and sides.max() <= 0.16 * w):
                continue  # perspective made it too small or too big to be fair
            if view.inside(quad, 4.0) and not any(_overlap(quad, q) for _, q in placed):
                placed.append((p, quad))
                break
    return [p for p, _ in placed]


def _local_zoom(view: _View) -> float:
    """How many frame pixels one table pixel covers near the middle of the frame."""
    w, h = view.size
    centre = view.to_table(np.array([[w / 2, h / 2], [w / 2 + 10, h / 2]]))
    return 10.0 / float(np.linalg.norm(centre[1] - centre[0]))


def _next_to(rng: np.random.Generator, other: Placement, card_w: float,
             frame_w: int) -> tuple[tuple[float, float], float]:
    """A spot that touches ``other`` edge to edge (a row or column of cards), gap 0-1 px."""
    other_w = other.scale * DEFAULT_CARD_WIDTH_FRAC * frame_w
    angle = other.angle_deg + rng.normal(0, 1.5)
    a = math.radians(other.angle_deg)
    gap = rng.uniform(0.0, 1.0)
    if rng.random() < 0.6:  # side by side
        step = (other_w + card_w) / 2 + gap
        direction = np.array([math.cos(a), math.sin(a)])
        slide = np.array([-math.sin(a), math.cos(a)]) * rng.uniform(-0.4, 0.4) * card_w
    else:  # one above the other
        step = (other_w + card_w) * CARD_ASPECT / 2 + gap
        direction = np.array([-math.sin(a), math.cos(a)])
        slide = np.array([math.cos(a), math.sin(a)]) * rng.uniform(-0.3, 0.3) * card_w
    sign = 1.0 if rng.random() < 0.5 else -1.0
    centre = np.asarray(other.center_xy) + sign * step * direction + slide
    return (float(centre[0]), float(centre[1])), angle


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """True when two card quads overlap by more than a touching sliver."""
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    edge = float(np.linalg.norm(a[1] - a[0]))
    return area > 1.5 * edge


# ---- table cover, lighting and clutter (fixed for a background seed) ---------------------------


@dataclass
class _Background:
    """Everything that stays put between frames of one table: cover, light, shadows, clutter."""

    surface: np.ndarray  # float32 frame, the cover as seen by the camera
    light: np.ndarray  # float32 H x W x 3 multiplicative lighting (gradient, shadows, tint)
    clutter: list[_Item]

    @classmethod
    def random(cls, rng: np.random.Generator, view: _View, clutter_items: int) -> _Background:
        surface = _surface(rng, view)
        light = _lighting(rng, view.size)
        items = [_Item.random(rng, view.size) for _ in range(clutter_items)]
        return cls(surface, light, items)


def _clutter_count(rng: np.random.Generator, clutter: bool) -> int:
    return int(rng.integers(1, 7)) if clutter else 0


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    """Zero-mean, unit-ish noise with features about ``cell`` pixels across."""
    small = (max(2, int(shape[0] / cell) + 2), max(2, int(shape[1] / cell) + 2))
    coarse = rng.standard_normal(small).astype(np.float32)
    return cv2.resize(coarse, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _random_colour(rng: np.random.Generator, value: tuple[float, float],
                   saturation: tuple[float, float]) -> np.ndarray:
    hsv = np.array([[[rng.uniform(0, 180), rng.uniform(*saturation), rng.uniform(*value)]]],
                   np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _surface(rng: np.random.Generator, view: _View) -> np.ndarray:
    """A table cover drawn on a turned sheet that covers the view, then seen through it.

    Patterns are defined in table pixels; the sheet is drawn at half resolution or coarser
    (far away parts of a tilted table are small in the frame anyway), at most ~0.4 MP.
    """
    w, h = view.size
    kind = SURFACES[int(rng.integers(len(SURFACES)))]
    turn = math.radians(rng.uniform(0, 180))
    rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    seen = view.to_table(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)) - (w / 2, h / 2)
    local = seen @ rot  # table -> sheet axes (rot is orthonormal)
    lo, hi = local.min(axis=0) - 8, local.max(axis=0) + 8
    step = max(2.0, math.sqrt(float(np.prod(hi - lo)) / 400_000))  # table px per sheet px
    sheet_w, sheet_h = int((hi[0] - lo[0]) / step) + 2, int((hi[1] - lo[1]) / step) + 2
    grid_y, grid_x = np.mgrid[0:sheet_h, 0:sheet_w].astype(np.float32)
    xx, yy = grid_x * step + lo[0], grid_y * step + lo[1]  # table units along the sheet
    shape = (sheet_h, sheet_w)
    if kind in ("light-wood", "dark-wood"):
        base = (np.array([120, 165, 200], np.float32) if kind == "light-wood"
                else np.array([35, 58, 90], np.float32))
        base = base * rng.uniform(0.85, 1.12, 3).astype(np.float32)
        plank = rng.uniform(90, 220)
        warp = _smooth_noise(rng, shape, 80 / step) * rng.uniform(8, 24)
        grain = np.sin((yy + warp) * (2 * np.pi / rng.uniform(10, 24)))
        streak = cv2.resize(rng.standard_normal((sheet_h, max(2, int(sheet_w * step / 60))))
                            .astype(np.float32), (sheet_w, sheet_h),
                            interpolation=cv2.INTER_LINEAR)
        plank_row = np.floor((yy - lo[1]) / plank).astype(np.int32)
        tones = rng.uniform(-0.08, 0.08, int(plank_row.max()) + 1).astype(np.float32)
        seam = (np.mod(yy - lo[1], plank) < step).astype(np.float32) * 0.35
        shade = 1 + 0.07 * grain + 0.05 * streak + tones[plank_row] - seam
        img = base * shade[..., None]
    elif kind == "felt":
        base = _random_colour(rng, (40, 200), (60, 230))
        fine = rng.standard_normal(shape).astype(np.float32)
        shade = 1 + 0.04 * cv2.GaussianBlur(fine, (0, 0), 0.8) + 0.04 * _smooth_noise(
            rng, shape, 120 / step)
        img = base * shade[..., None]
    elif kind in ("light-cloth", "dark-cloth"):
        value = (170, 225) if kind == "light-cloth" else (25, 90)
        base = _random_colour(rng, value, (0, 140))
        period = rng.uniform(4.4, 8.0)
        weave = np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period)
        folds = _smooth_noise(rng, shape, 180 / step)
        img = base * (1 + 0.05 * weave + 0.06 * folds)[..., None]
    else:
        a = _random_colour(rng, (150, 250), (0, 200))
        b = _random_colour(rng, (20, 150), (40, 255))
        cell = rng.uniform(12, 44)
        if kind == "checked":
            ca = (np.floor(xx / cell) % 2).astype(np.float32)
            cb = (np.floor(yy / cell) % 2).astype(np.float32)
            mix = (ca + cb) / 2  # gingham: bands cross in a darker square
        elif kind == "striped":
            mix = (np.mod(xx + 0.3 * yy, 2 * cell) < cell * rng.uniform(0.3, 0.7)).astype(
                np.float32)
        else:
            mix = (((np.mod(xx, 2 * cell) - cell) ** 2 + (np.mod(yy, 2 * cell) - cell) ** 2)
                   < (cell * rng.uniform(0.3, 0.6)) ** 2).astype(np.float32)
        mix = cv2.GaussianBlur(mix, (0, 0), 0.7)
        img = a * (1 - mix[..., None]) + b * mix[..., None]
        img *= (1 + 0.05 * _smooth_noise(rng, shape, 160 / step))[..., None]
    sheet_to_table = (
        np.array([[1, 0, w / 2], [0, 1, h / 2], [0, 0, 1]])
        @ np.array([[rot[0, 0], rot[0, 1], 0], [rot[1, 0], rot[1, 1], 0], [0, 0, 1]])
        @ np.array([[step, 0, lo[0]], [0, step, lo[1]], [0, 0, 1]])
    )
    return cv2.warpPerspective(img, view.homography @ sheet_to_table, (w, h),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def _lighting(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A smooth brightness gradient, vignette, colour tint and a few soft cast shadows."""
    w, h = size
    sw, sh = w // 8, h // 8  # lighting is smooth: draw small, enlarge
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    direction = rng.uniform(0, 2 * math.pi)
    ramp = ((xx / sw - 0.5) * math.cos(direction) + (yy / sh - 0.5) * math.sin(direction))
    light = rng.uniform(0.75, 1.1) + rng.uniform(0.0, 0.5) * ramp
    vignette = ((xx / sw - 0.5) ** 2 + (yy / sh - 0.5) ** 2)
    light = light * (1 - rng.uniform(0, 0.5) * vignette)
    shadow = np.zeros((sh, sw), np.float32)
    for _ in range(int(rng.integers(0, 3))):
        pts = np.array([[rng.uniform(-0.2, 1.2) * sw, rng.uniform(-0.2, 1.2) * sh]
                        for _ in range(int(rng.integers(3, 6)))], np.int32)
        layer = np.zeros_like(shadow)
        cv2.fillPoly(layer, [cv2.convexHull(pts)], rng.uniform(0.15, 0.45))
        shadow = np.maximum(shadow, cv2.GaussianBlur(layer, (0, 0), rng.uniform(0.6, 4)))
    light = np.clip(light * (1 - shadow), 0.25, 1.4)
    tint = np.array([rng.uniform(0.85, 1.1), 1.0, rng.uniform(0.9, 1.12)], np.float32)
    big = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)
    return big[..., None] * tint


# ---- clutter and hands --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Item:
    """One thing on the table that is not a card (drawn in frame pixels)."""

    kind: str
    center: tuple[float, float]
    size: float
    angle: float
    colour: tuple[float, float, float]
    extra: float

    KINDS = ("coin", "die", "pen", "mug", "phone", "note", "keys")

    @classmethod
    def random(cls, rng: np.random.Generator, size: tuple[int, int]) -> _Item:
        kind = cls.KINDS[int(rng.integers(len(cls.KINDS)))]
        scale = {"coin": (8, 18), "die": (10, 16), "pen": (60, 110), "mug": (35, 60),
                 "phone": (55, 80), "note": (22, 38), "keys": (20, 35)}[kind]
        b, g, r = (float(v) for v in _random_colour(rng, (30, 250), (0, 255)))
        return cls(kind, (rng.uniform(0, size[0]), rng.uniform(0, size[1])),
                   rng.uniform(*scale), rng.uniform(0, 180), (b, g, r), rng.random())

    def mask_and_paint(self, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """A coverage mask (uint8, 255 = covered) and the BGR paint for this item."""
        mask = np.zeros(shape, np.uint8)
        paint = np.zeros((*shape, 3), np.uint8)
        cx, cy = self.center
        c = (int(cx), int(cy))
        col = tuple(int(v) for v in self.colour)
        r = int(self.size)
        if self.kind == "coin":
            metal = (60, 170, 200) if self.extra < 0.5 else (185, 185, 180)
            cv2.circle(mask, c, r, 255, -1, cv2.LINE_AA)
            cv2.circle(paint, c, r, metal, -1, cv2.LINE_AA)
            cv2.circle(paint, c, max(1, int(r * 0.75)), tuple(int(v * 0.8) for v in metal), 1,
                       cv2.LINE_AA)
        elif self.kind in ("die", "note", "phone"):
            aspect = {"die": 1.0, "note": 1.0, "phone": 2.05}[self.kind]
            box = cv2.boxPoints(((cx, cy), (2 * r, 2 * r * aspect), self.angle)).astype(np.int32)
            body = {"die": (235, 235, 235), "note": (90, 230, 250) if self.extra < 0.5
                    else (200, 160, 250), "phone": (25, 25, 28)}[self.kind]
            cv2.fillPoly(mask, [box], 255, cv2.LINE_AA)
            cv2.fillPoly(paint, [box], body, cv2.LINE_AA)
            if self.kind == "die":
                for k in range(int(self.extra * 6) + 1):
                    off = (int(cx + r * 0.5 * math.cos(k * 1.1)), int(cy + r * 0.5 * math.sin(k)))
                    cv2.circle(paint, off, max(1, r // 5), (30, 30, 30), -1, cv2.LINE_AA)
            if self.kind == "phone" and self.extra < 0.5:  # screen on
                screen = cv2.boxPoints(((cx, cy), (2 * r * 0.85, 2 * r * aspect * 0.85),
                                        self.angle)).astype(np.int32)
                cv2.fillPoly(paint, [screen], col, cv2.LINE_AA)
        elif self.kind == "pen":
            a = math.radians(self.angle)
            p = (int(cx + r * math.cos(a)), int(cy + r * math.sin(a)))
            q = (int(cx - r * math.cos(a)), int(cy - r * math.sin(a)))
            thick = 5 + int(self.extra * 6)
            cv2.line(mask, p, q, 255, thick, cv2.LINE_AA)
            cv2.line(paint, p, q, col, thick, cv2.LINE_AA)
        elif self.kind == "mug":
            cv2.circle(mask, c, r, 255, -1, cv2.LINE_AA)
            cv2.circle(paint, c, r, col, -1, cv2.LINE_AA)
            cv2.circle(paint, c, int(r * 0.8), (20, 35, 50), -1, cv2.LINE_AA)
            a = math.radians(self.angle)
            handle = (int(cx + r * 1.15 * math.cos(a)), int(cy + r * 1.15 * math.sin(a)))
            cv2.circle(mask, handle, max(3, r // 3), 255, max(2, r // 8), cv2.LINE_AA)
            cv2.circle(paint, handle, max(3, r // 3), col, max(2, r // 8), cv2.LINE_AA)
        else:  # keys: a ring and a few blades
            cv2.circle(mask, c, r // 2, 255, 3, cv2.LINE_AA)
            cv2.circle(paint, c, r // 2, (160, 160, 165), 3, cv2.LINE_AA)
            for k in range(3):
                a = math.radians(self.angle + 40 * k)
                tip = (int(cx + 2 * r * math.cos(a)), int(cy + 2 * r * math.sin(a)))
                cv2.line(mask, c, tip, 255, 6, cv2.LINE_AA)
                cv2.line(paint, c, tip, (140 + 30 * k, 150, 160), 6, cv2.LINE_AA)
        return mask, paint


def _hand(rng: np.random.Generator, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A hand reaching in from a frame edge: coverage mask (uint8) and shaded skin paint."""
    w, h = size
    edge = int(rng.integers(4))
    along = rng.uniform(0.1, 0.9)
    reach = rng.uniform(0.08, 0.22) * h
    start = [(along * w, -20), (w + 20, along * h), (along * w, h + 20), (-20, along * h)][edge]
    inward = [(0, 1), (-1, 0), (0, -1), (1, 0)][edge]
    a = math.atan2(inward[1], inward[0]) + rng.normal(0, 0.35)
    ux, uy = math.cos(a), math.sin(a)
    palm_r = rng.uniform(0.045, 0.07) * h
    palm = (start[0] + ux * reach, start[1] + uy * reach)
    mask = np.zeros((h, w), np.uint8)
    cv2.line(mask, (int(start[0] - ux * 200), int(start[1] - uy * 200)),
             (int(palm[0]), int(palm[1])), 255, int(palm_r * 1.5), cv2.LINE_AA)  # arm
    cv2.ellipse(mask, (int(palm[0]), int(palm[1])), (int(palm_r * 1.2), int(palm_r)),
                math.degrees(a), 0, 360, 255, -1, cv2.LINE_AA)
    spread = rng.uniform(0.15, 0.3)
    for k in range(5):
        fa = a + (k - 2) * spread + (0.9 if k == 0 else 0)
        length = palm_r * (rng.uniform(1.2, 1.9) if k else 1.1)
        base = (palm[0] + math.cos(fa) * palm_r * 0.8, palm[1] + math.sin(fa) * palm_r * 0.8)
        tip = (base[0] + math.cos(fa) * length, base[1] + math.sin(fa) * length)
        cv2.line(mask, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), 255,
                 max(3, int(palm_r * 0.38)), cv2.LINE_AA)
    skin = np.array([[70, 100, 150], [110, 145, 200], [150, 175, 225], [45, 65, 100],
                     [90, 125, 175]], np.float32)[int(rng.integers(5))] * rng.uniform(0.9, 1.1)
    paint = np.zeros((h, w, 3), np.uint8)
    x, y, bw, bh = cv2.boundingRect(mask)
    if bw and bh:
        cover = mask[y:y + bh, x:x + bw].astype(np.float32) / 255.0
        shade = cv2.GaussianBlur(cover, (0, 0), palm_r * 0.25)  # rounder look: darker rim
        paint[y:y + bh, x:x + bw] = np.clip(skin * (0.7 + 0.35 * shade)[..., None], 0, 255)
    return mask, paint


# ---- drawing ----------------------------------------------------------------------------------


def _compose(rng: np.random.Generator, view: _View, placements: list[Placement], *,
             edition: str, clutter_items: int, hand_count: int, seed: int) -> Scene:
    background = _Background.random(rng, view, clutter_items)
    return _draw(view, background, placements, edition, rng, hand_count=hand_count, seed=seed)


@functools.lru_cache(maxsize=256)
def _face(label: str, edition: str) -> np.ndarray:
    game, _, name = label.partition("/")
    if name == "back":
        return render.render_back(game, edition=edition)
    return render.render_card(game, name, edition=edition)


@functools.lru_cache(maxsize=64)
def _corner_mask(width: int, height: int) -> np.ndarray:
    """Coverage of a card with rounded corners (radius ~4.5% of its width), anti-aliased."""
    k = 4
    big = np.zeros((height * k, width * k), np.uint8)
    r = max(1, int(0.045 * width * k))
    cv2.rectangle(big, (r, 0), (width * k - 1 - r, height * k - 1), 255, -1)
    cv2.rectangle(big, (0, r), (width * k - 1, height * k - 1 - r), 255, -1)
    for x, y in ((r, r), (width * k - 1 - r, r), (r, height * k - 1 - r),
                 (width * k - 1 - r, height * k - 1 - r)):
        cv2.circle(big, (x, y), r, 255, -1)
    return cv2.resize(big, (width, height), interpolation=cv2.INTER_AREA)


def _draw(view: _View, background: _Background, placements: list[Placement], edition: str,
          rng: np.random.Generator, *, hand_count: int, seed: int) -> Scene:
    w, h = view.size
    frame = background.surface.copy()
    footprint = np.zeros((h, w), np.uint8)
    quads = [view.to_frame(card_quad(p, view.table_size or view.size)) for p in placements]
    for quad in quads:
        cv2.fillConvexPoly(footprint, quad.astype(np.int32), 255)
    occupied = cv2.dilate(footprint, np.ones((15, 15), np.uint8))

    # Clutter first (it lies on the cover), skipping items that would cover a card.
    for item in background.clutter:
        cover, paint = item.mask_and_paint((h, w))
        if not cv2.countNonZero(cv2.bitwise_and(cover, occupied)):
            _paste(frame, cover, paint, offset=(3, 4), strength=0.35, blur=3)

    light_dir = rng.uniform(0, 2 * math.pi)
    shadow_len = rng.uniform(0.5, 3.5)
    shadow_strength = rng.uniform(0.15, 0.45)
    rim = rng.uniform(0.08, 0.3)
    cards: list[TrueCard] = []
    for p, quad in zip(placements, quads, strict=True):
        _draw_card(frame, _face(p.label, edition), quad, rim=rim,
                   shadow=(shadow_len * math.cos(light_dir), shadow_len * math.sin(light_dir)),
                   shadow_strength=shadow_strength)
        if view.inside(quad, 0.0):
            truth = "back" if p.label.endswith("/back") else p.label
            cards.append(TrueCard(truth, quad))

    for _ in range(hand_count):  # hands hover near the cards but never over them
        for _attempt in range(8):
            cover, paint = _hand(rng, view.size)
            if not cv2.countNonZero(cv2.bitwise_and(cover, occupied)):
                _paste(frame, cover, paint, offset=(12, 16), strength=0.3, blur=12)
                break

    frame *= background.light
    _camera_effects(frame, rng)
    image = _jpeg(np.clip(frame, 0, 255).astype(np.uint8), rng)
    return Scene(image=image, cards=cards, seed=seed)


def _draw_card(frame: np.ndarray, face: np.ndarray, quad: np.ndarray, *, rim: float,
               shadow: tuple[float, float], shadow_strength: float) -> None:
    """Paste one card (rounded corners, slightly dark cut edge, drop shadow) onto ``frame``."""
    side = float(np.linalg.norm(quad[1] - quad[0]))
    cw = max(16, int(round(side)))
    ch = max(24, int(round(cw * face.shape[0] / face.shape[1])))
    small = cv2.resize(face, (cw, ch), interpolation=cv2.INTER_AREA).astype(np.float32)
    alpha = _corner_mask(cw, ch).astype(np.float32) / 255.0
    edge = alpha - cv2.erode(alpha, np.ones((3, 3), np.uint8))
    small *= (1 - rim * edge)[..., None]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 12
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 12
    fh, fw = frame.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(fw, x1), min(fh, y1)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    dst = (quad - (x0, y0)).astype(np.float32)
    homography = cv2.getPerspectiveTransform(src, dst)
    roi = frame[y0:y1, x0:x1]
    size = (x1 - x0, y1 - y0)
    cover = cv2.warpPerspective(alpha, homography, size, flags=cv2.INTER_LINEAR)
    moved = np.array([[1, 0, shadow[0]], [0, 1, shadow[1]]], np.float32)
    shade = cv2.GaussianBlur(cv2.warpAffine(cover, moved, size), (0, 0), 1.0 + abs(shadow[0]))
    roi *= (1 - shadow_strength * shade)[..., None]
    paint = cv2.warpPerspective(small, homography, size, flags=cv2.INTER_LINEAR)
    roi += cover[..., None] * (paint - roi)


def _paste(frame: np.ndarray, cover: np.ndarray, paint: np.ndarray, *, offset: tuple[int, int],
           strength: float, blur: float) -> None:
    """Lay an object (uint8 coverage and paint) on ``frame`` with a soft shadow under it."""
    x, y, bw, bh = cv2.boundingRect(cover)
    if not bw or not bh:
        return
    margin = int(3 * blur + max(abs(offset[0]), abs(offset[1]))) + 2
    fh, fw = frame.shape[:2]
    x0, y0 = max(0, x - margin), max(0, y - margin)
    x1, y1 = min(fw, x + bw + margin), min(fh, y + bh + margin)
    roi = frame[y0:y1, x0:x1]
    alpha = cover[y0:y1, x0:x1].astype(np.float32) / 255.0
    moved = cv2.warpAffine(alpha, np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float32),
                           (x1 - x0, y1 - y0))
    roi *= (1 - strength * cv2.GaussianBlur(moved, (0, 0), blur))[..., None]
    roi += alpha[..., None] * (paint[y0:y1, x0:x1].astype(np.float32) - roi)


def _camera_effects(frame: np.ndarray, rng: np.random.Generator) -> None:
    """Glare, lens blur or a little motion blur, and sensor noise, in place."""
    h, w = frame.shape[:2]
    if rng.random() < 0.5:
        sw, sh = w // 8, h // 8
        spot = np.zeros((sh, sw), np.float32)
        cv2.circle(spot, (int(rng.uniform(0, sw)), int(rng.uniform(0, sh))), 1, 1.0, -1)
        soft = cv2.GaussianBlur(spot, (0, 0), rng.uniform(2, 10))
        peak = np.float32(max(float(soft.max()), 1e-6))
        glare = cv2.resize(np.divide(soft, peak, dtype=np.float32), (w, h),
                           interpolation=cv2.INTER_LINEAR)
        frame += rng.uniform(30, 110) * glare[..., None]
    if rng.random() < 0.15:  # someone nudged the camera: a short streak
        length = int(rng.integers(3, 6))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        streak = cv2.warpAffine(kernel, turn, (length, length))
        total = np.float32(max(float(streak.sum()), 1e-6))
        cv2.filter2D(frame, -1, np.divide(streak, total, dtype=np.float32), dst=frame)
    else:
        sigma = rng.uniform(0.0, 1.2)  # focus
        if sigma > 0.3:
            cv2.GaussianBlur(frame, (0, 0), sigma, dst=frame)
    noise_sigma = rng.uniform(1.0, 6.0)
    noise = rng.standard_normal((h, w, 1), dtype=np.float32) * noise_sigma
    frame += noise * (0.5 + frame / 255.0)  # brighter pixels carry more shot noise


def _jpeg(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    quality = int(rng.integers(45, 96))
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return decoded if decoded is not None else image
