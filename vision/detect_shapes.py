"""The card detector's geometry: quads (area, overlap, corner order, sides), straight lines
and sampling along a quad's sides, and the settings that say what counts as a card.

Why this module exists: every step of :mod:`.detect` measures quads the same way; these
helpers know nothing of pictures.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class DetectorSettings:
    """What counts as a card (see :func:`detect_cards`)."""

    min_area_frac: float = 0.0015
    max_area_frac: float = 0.9
    min_aspect: float = 1.1
    max_aspect: float = 2.3
    min_score: float = 0.6
    max_side: int = 1280


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads."""
    inter = _intersection(a, b)
    union = _area(a) + _area(b) - inter
    return inter / union if union > 0 else 0.0


# ---- the search ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Found:
    quad: np.ndarray  # clockwise on screen, float32
    support: float
    area: float


def _box(quad: np.ndarray) -> tuple[float, float, float, float]:
    xs, ys = quad[:, 0].tolist(), quad[:, 1].tolist()
    return min(xs), min(ys), max(xs), max(ys)


def sides_of(quad: np.ndarray) -> tuple[float, float]:
    """Mean short and long side of a quad."""
    sides = _side_lengths(quad)
    a, b = float(sides[0] + sides[2]) / 2, float(sides[1] + sides[3]) / 2
    return (min(a, b), max(a, b))


# ---- 2. snapping sides onto straight edges -------------------------------------------------------


def _linspace32(start: float, stop: float, num: int) -> np.ndarray:
    """``np.linspace(start, stop, num, dtype=np.float32)`` for two floats, the same figures
    (numpy's own arithmetic: float64 steps from the start, the stop exact, then float32)."""
    values = np.arange(num, dtype=np.float64)
    values *= (stop - start) / (num - 1)
    values += start
    values[-1] = stop
    return values.astype(np.float32)


@functools.lru_cache(maxsize=128)
def _fractions(n: int, t0: float, t1: float) -> np.ndarray:
    """``np.linspace(t0, t1, n)`` in float32, made once (read-only): every snap asks for one."""
    ts = np.linspace(t0, t1, n, dtype=np.float32)
    ts.flags.writeable = False
    return ts


def _side_frames(quad: np.ndarray, n: int, t0: float = 0.12, t1: float = 0.88
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Sample points along each side (4, n, 2) and each side's outward normal (4, 2)."""
    a = quad
    b = quad[_NEXT]
    ts = _fractions(n, t0, t1)
    base = a[:, None, :] + ts[None, :, None] * (b - a)[:, None, :]
    return base.astype(np.float32), _normals(b - a)


def _side_lengths(quad: np.ndarray) -> np.ndarray:
    """The lengths of a quad's four sides (np.linalg.norm's arithmetic, without its overhead)."""
    d = quad - quad[_NEXT]
    return np.sqrt((d * d).sum(axis=1))


def _normals(d: np.ndarray) -> np.ndarray:
    """Unit normals (dy, -dx) of the vectors ``d`` (k x 2) in float32: outward for the sides of a
    quad listed clockwise on screen. (np.linalg.norm's arithmetic, without its overhead.)"""
    direction = d / np.maximum(np.sqrt((d * d).sum(axis=1)), 1e-6)[:, None]
    normal = np.empty(d.shape, np.float32)
    normal[:, 0] = direction[:, 1]
    normal[:, 1] = -direction[:, 0]
    return normal


def _stepped(base: np.ndarray, offsets: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """``base[..., None, :] + offsets[:, None] * normal[..., None, :]`` in float32: every base
    point moved by each offset along its normal. Filled one coordinate at a time, which numpy
    does several times faster than a broadcast over a last axis of two (the side searches
    build thousands of these a frame)."""
    out = np.empty((*base.shape[:-1], len(offsets), 2), np.float32)
    for axis in (0, 1):
        out[..., axis] = base[..., None, axis] + offsets * normal[..., None, axis]
    return out


def _intersect(l1: list[float], l2: list[float]) -> tuple[float, float] | None:
    """Where two lines meet, each given as ``cv2.fitLine`` has it: direction, then a point."""
    rx, ry, px, py = l1
    sx, sy, qx, qy = l2
    cross = rx * sy - ry * sx
    if abs(cross) < 1e-6:
        return None
    t = ((qx - px) * sy - (qy - py) * sx) / cross
    return px + t * rx, py + t * ry


def _share(mask: np.ndarray) -> float:
    """``mask.mean()`` for a boolean array: the same figure, without the general mean's
    overhead (the side searches take thousands of these a frame)."""
    return int(np.count_nonzero(mask)) / mask.size


def _shares(mask: np.ndarray, axis: int) -> np.ndarray:
    """``mask.mean(axis)`` for a boolean array, as :func:`_share`."""
    return mask.sum(axis=axis) / mask.shape[axis]


def _upper_quartile(values: np.ndarray) -> np.floating:
    """``np.percentile(values, 75)`` of a float32 array (linear interpolation, the same
    figure to the bit), without its general machinery: every grown candidate asks for one."""
    ordered = np.sort(values, axis=None)
    position = 0.75 * (ordered.size - 1)
    low = int(position)
    t = np.float32(position - low)
    a, b = ordered[low], ordered[min(low + 1, ordered.size - 1)]
    return b - (b - a) * (np.float32(1) - t) if t >= 0.5 else a + (b - a) * t


def _median(values: np.ndarray, axis: int) -> np.ndarray:
    """``np.median(values, axis)`` for a small float32 array, several times faster (a sort)."""
    ordered = np.sort(values, axis=axis)
    n = ordered.shape[axis]
    upper = ordered.take(n // 2, axis=axis)
    if n % 2:
        return upper
    return (ordered.take(n // 2 - 1, axis=axis) + upper) / np.float32(2)


# ---- geometry -----------------------------------------------------------------------------------

_NEXT = np.array([1, 2, 3, 0])


def _card_shaped(quad: np.ndarray, min_aspect: float, max_aspect: float,
                 max_taper: float = 1.6, max_cos: float = 0.5) -> bool:
    pts = quad.tolist()  # plain floats: this runs for every candidate and split piece
    sides = [math.dist(pts[i], pts[(i + 1) % 4]) for i in range(4)]
    a = (sides[0] + sides[2]) / 2
    b = (sides[1] + sides[3]) / 2
    if min(a, b) <= 0:
        return False
    if not min_aspect <= max(a, b) / min(a, b) <= max_aspect:
        return False
    # A card seen at up to ~45 degrees keeps opposite sides within a factor of ~1.6.
    if max(sides[0], sides[2]) > max_taper * min(sides[0], sides[2]):
        return False
    if max(sides[1], sides[3]) > max_taper * min(sides[1], sides[3]):
        return False
    return _corner_angles_ok(quad, max_cos)


def _corner_angles_ok(quad: np.ndarray, max_cos: float) -> bool:
    """Every corner within acos(max_cos) of a right angle (0.5: between 60 and 120 degrees)."""
    pts = quad.tolist()
    for i in range(len(pts)):
        (px, py), (x, y), (nx, ny) = pts[i - 1], pts[i], pts[(i + 1) % len(pts)]
        ux, uy, vx, vy = px - x, py - y, nx - x, ny - y
        cos = (ux * vx + uy * vy) / (math.sqrt((ux * ux + uy * uy) * (vx * vx + vy * vy)) + 1e-9)
        if abs(cos) > max_cos:
            return False
    return True


def _area(quad: np.ndarray) -> float:
    return float(abs(cv2.contourArea(quad.astype(np.float32, copy=False))))


def _intersection(a: np.ndarray, b: np.ndarray) -> float:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32, copy=False),
                                        b.astype(np.float32, copy=False))
    return float(area)


def _clockwise(quad: np.ndarray) -> np.ndarray:
    """The same corners, listed clockwise on screen (y down)."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = quad.tolist()
    signed = (x0 * y1 - x1 * y0) + (x1 * y2 - x2 * y1) + (x2 * y3 - x3 * y2) + (x3 * y0 - x0 * y3)
    return quad if signed > 0 else quad[::-1].copy()


def _order_portrait(quad: np.ndarray) -> np.ndarray:
    """TL, TR, BR, BL with TL-TR a short side, the upright reading nearer to the frame's."""
    quad = _clockwise(quad.astype(np.float32))
    sides = _side_lengths(quad)
    start = 0 if sides[0] + sides[2] <= sides[1] + sides[3] else 1
    first = quad[(np.arange(4) + start) % 4]
    second = quad[(np.arange(4) + start + 2) % 4]
    # Of the two readings, prefer the one whose top edge lies higher in the frame.
    top_first = float(first[0, 1] + first[1, 1])
    top_second = float(second[0, 1] + second[1, 1])
    return np.ascontiguousarray(first if top_first <= top_second else second, np.float32)
