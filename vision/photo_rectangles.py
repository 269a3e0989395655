"""Card outlines guessed from the straight stretches of a region's outline, for a card that a
hand holds.

When fingers cover part of a card, the light region that holds the card also holds the hand,
and the four longest sides of its convex hull are often the hand's. The card's own sides are
still there in the outline, as straight stretches: a finger covers a part of a side, seldom all
of it. This module turns those stretches into rectangles: the outline's points are looked at in
the directions of its longest straight runs; in each direction, the offsets where many points
run parallel are the candidate sides; two parallel sides in each direction make a rectangle,
and where a whole side is hidden, the card's usual proportions place it. The caller checks each
rectangle against the photo (:func:`ducktable.vision.photo_finder.silhouette_card`).
"""

from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np

CARD_RATIO = 1.4
"""Long side over short side of a playing card (63 x 88 mm), used only to place a side that a
hand hides completely."""

MIN_RUN = 12.0
"""Shortest straight run of the outline (px at the search size) taken as a direction to try."""

MIN_SIDE_POINTS = 10
"""Outline points that must run parallel at one offset for it to count as a side."""

_PARALLEL = np.sin(np.radians(12))
_STEP = 3
_DIRECTIONS = 4
_SIDES_PER_DIRECTION = 4


def rectangle_guesses(contour: np.ndarray, min_area: float,
                      aspect: tuple[float, float]) -> np.ndarray:
    """Rectangles (n x 4 x 2 float32 corners) whose sides lie on straight stretches of
    ``contour`` (an outer outline, as ``cv2.findContours`` gives it), of at least ``min_area``
    and long side over short side within ``aspect``."""
    points = contour.reshape(-1, 2).astype(np.float64)
    found = [np.zeros((0, 4, 2), np.float32)]
    if len(points) >= 4 * MIN_SIDE_POINTS:
        ahead = np.roll(points, -_STEP, axis=0) - np.roll(points, _STEP, axis=0)
        heading = np.arctan2(ahead[:, 1], ahead[:, 0])
        found += [_rectangles_at(points, heading, angle, min_area, aspect)
                  for angle in _directions(contour)]
    return np.concatenate(found)


def _directions(contour: np.ndarray) -> list[float]:
    """The directions (radians, modulo a quarter turn) of the outline's longest straight runs,
    nearly equal ones taken once."""
    polygon = cv2.approxPolyDP(contour, 2.0, True).reshape(-1, 2).astype(np.float64)
    runs = np.roll(polygon, -1, axis=0) - polygon
    lengths = np.hypot(runs[:, 0], runs[:, 1])
    chosen: list[float] = []
    for i in np.argsort(-lengths):
        if lengths[i] < MIN_RUN or len(chosen) == _DIRECTIONS:
            break
        angle = float(np.arctan2(runs[i, 1], runs[i, 0]) % (np.pi / 2))
        if all(_quarter_gap(angle, other) > np.radians(4) for other in chosen):
            chosen.append(angle)
    return chosen


def _quarter_gap(a: float, b: float) -> float:
    gap = abs(a - b) % (np.pi / 2)
    return min(gap, np.pi / 2 - gap)


def _rectangles_at(points: np.ndarray, heading: np.ndarray, angle: float, min_area: float,
                   aspect: tuple[float, float]) -> np.ndarray:
    along = np.array([np.cos(angle), np.sin(angle)])
    across = np.array([-along[1], along[0]])
    u, v = points @ along, points @ across
    turn = heading - angle
    v_sides = _side_offsets(v[np.abs(np.sin(turn)) < _PARALLEL])  # sides parallel to ``along``
    u_sides = _side_offsets(u[np.abs(np.cos(turn)) < _PARALLEL])
    boxes = [(*u_pair, *v_pair) for u_pair in _pairs(u_sides) for v_pair in _pairs(v_sides, u_pair)]
    boxes += [(*u_pair, *v_pair) for v_pair in _pairs(v_sides) for u_pair in _pairs(u_sides, v_pair)]
    if not boxes:
        return np.zeros((0, 4, 2), np.float32)
    u0, u1, v0, v1 = np.unique(np.round(np.array(boxes), 1), axis=0).T
    long_side = np.maximum(u1 - u0, v1 - v0)
    short_side = np.maximum(1e-9, np.minimum(u1 - u0, v1 - v0))
    keep = (long_side * short_side >= min_area) & (long_side / short_side >= aspect[0]) \
        & (long_side / short_side <= aspect[1])
    corner_u = np.stack([u0, u1, u1, u0], axis=1)[keep]
    corner_v = np.stack([v0, v0, v1, v1], axis=1)[keep]
    return (corner_u[..., None] * along + corner_v[..., None] * across).astype(np.float32)


def _side_offsets(offsets: np.ndarray) -> list[float]:
    """Offsets where at least ``MIN_SIDE_POINTS`` parallel outline points line up (to within a
    pixel), most points first."""
    if len(offsets) < MIN_SIDE_POINTS:
        return []
    low = np.floor(offsets.min()) - 2
    counts = np.bincount((offsets - low).astype(np.int64))
    smooth = np.convolve(counts, np.ones(3), mode="same")
    found: list[tuple[float, float]] = []
    for i in np.argsort(-smooth, kind="stable"):
        if smooth[i] < MIN_SIDE_POINTS or len(found) == _SIDES_PER_DIRECTION:
            break
        if all(abs(i - j) > 3 for _, j in found):
            near = (offsets >= low + i - 1) & (offsets < low + i + 2)
            found.append((float(np.median(offsets[near])), float(i)))
    return [offset for offset, _ in found]


def _pairs(sides: list[float], span: tuple[float, float] | None = None
           ) -> Iterator[tuple[float, float]]:
    """Two offsets that bound the card in one direction: two sides found, or (given the span
    of the other direction) one side found and the other placed by the card's proportions."""
    for i, a in enumerate(sides):
        for b in sides[i + 1:]:
            yield (min(a, b), max(a, b))
    if span is None:
        return
    width = span[1] - span[0]
    for side in sides:
        for length in (width * CARD_RATIO, width / CARD_RATIO):
            yield (side, side + length)
            yield (side - length, side)


def side_support(quads: np.ndarray, border: np.ndarray, samples: int = 24) -> tuple[np.ndarray, np.ndarray]:
    """For each side of each of ``quads`` (n x 4 x 2): the share of its samples inside the
    picture that fall on ``border`` (a mask of the region's outline, widened by a pixel or two),
    and the share of its samples inside the picture (both n x 4)."""
    h, w = border.shape
    t = (np.arange(samples) + 0.5) / samples
    start = quads[:, :, None, :]
    end = np.roll(quads, -1, axis=1)[:, :, None, :]
    along = start + (end - start) * t[None, None, :, None]
    x = np.round(along[..., 0]).astype(np.int64)
    y = np.round(along[..., 1]).astype(np.int64)
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    on = np.zeros(x.shape, bool)
    on[inside] = border[y[inside], x[inside]] > 0
    seen = inside.sum(axis=2)
    return on.sum(axis=2) / np.maximum(1, seen), seen / samples


def perimeter_share(followed: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """From :func:`side_support`'s shares, each quad's share of its perimeter inside the
    picture that falls on the border; sides outside the picture count for nothing either way."""
    return (followed * seen).sum(axis=1) / np.maximum(1e-9, seen.sum(axis=1))


def outline_support(quads: np.ndarray, border: np.ndarray, samples: int = 24) -> np.ndarray:
    """For each of ``quads`` (n x 4 x 2), the share of its perimeter inside the picture that
    falls on ``border`` (:func:`perimeter_share`)."""
    return perimeter_share(*side_support(quads, border, samples))


def short_side(quad: np.ndarray) -> float:
    """The length of ``quad``'s shortest side."""
    return min(float(np.linalg.norm(quad[i] - quad[(i + 1) % 4])) for i in range(4))


def outward_normal(quad: np.ndarray, i: int) -> np.ndarray:
    """The unit normal of ``quad``'s side ``i`` (from corner i to i + 1), pointing away from
    its centre."""
    a, b = quad[i].astype(np.float64), quad[(i + 1) % 4].astype(np.float64)
    normal = np.array([a[1] - b[1], b[0] - a[0]]) / max(1e-9, float(np.linalg.norm(b - a)))
    return -normal if np.dot((a + b) / 2 - quad.mean(axis=0), normal) < 0 else normal


def _card_colour(quad: np.ndarray, lab: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The mask of ``quad`` in the picture and the card's colour: the median of its lighter
    half, in ``lab`` (None when the quad covers no pixel)."""
    inside = np.zeros(lab.shape[:2], np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 255)
    pixels = lab[inside > 0]
    if len(pixels) == 0:
        return inside, None
    return inside, np.median(pixels[pixels[:, 0] >= np.median(pixels[:, 0])], axis=0)


def _card_share(around: np.ndarray, card: np.ndarray) -> float:
    """The share of ``around`` (n x 3 Lab) in the card's colour."""
    like = (np.abs(around[:, 0] - card[0]) <= 0.25 * max(card[0], 1.0)) & \
        (np.hypot(around[:, 1] - card[1], around[:, 2] - card[2]) <= SAME_COLOUR)
    return float(np.mean(like))


def spill_beyond(quad: np.ndarray, lab: np.ndarray) -> float:
    """The share of a band around ``quad`` (outside it, a tenth of its short side wide) whose
    colour is the card's (the median of the quad's lighter half, in ``lab``): near 0 for a
    whole card on cloth or under fingers, high for a part of a card."""
    inside, card = _card_colour(quad, lab)
    if card is None:
        return 1.0
    short = short_side(quad)
    gap, width = max(2, round(0.03 * short)), max(3, round(0.1 * short))
    near = np.asarray(cv2.dilate(inside, np.ones((2 * gap + 1,) * 2, np.uint8))) > 0
    wide = np.asarray(cv2.dilate(inside, np.ones((2 * (gap + width) + 1,) * 2, np.uint8))) > 0
    around = lab[wide & ~near]
    return _card_share(around, card) if len(around) else 0.0


def spill_per_side(quad: np.ndarray, lab: np.ndarray, width: float) -> np.ndarray:
    """For each side of ``quad``, the share of a band beyond it (as long as the side, ``width``
    of the short side deep) whose colour is the card's (as :func:`spill_beyond` tells it): a
    part of a card that a finger lying across it cuts off has the rest of the card beyond the
    finger."""
    inside, card = _card_colour(quad, lab)
    if card is None:
        return np.ones(4)
    short = short_side(quad)
    shares = np.zeros(4)
    for i in range(4):
        a, b = quad[i].astype(np.float64), quad[(i + 1) % 4].astype(np.float64)
        normal = outward_normal(quad, i)
        near, far = 0.03 * short * normal, (0.03 + width) * short * normal
        band = np.zeros(lab.shape[:2], np.uint8)
        cv2.fillConvexPoly(band, np.round([a + near, b + near, b + far, a + far]).astype(np.int32), 255)
        around = lab[(band > 0) & (inside == 0)]
        if len(around):
            shares[i] = _card_share(around, card)
    return shares


SAME_COLOUR = 6.0
"""Largest distance in the a*b* plane (OpenCV's 0-255 Lab) for a pixel to count as the card's
colour: a card's white is within 2-3 of itself, skin 10-15 from it, green cloth 20 and more."""
