"""Steps 1 and 3 of :mod:`.detect`: candidate quads from the picture's edge and paper maps,
a printed panel grown to its card's outline, and a row of touching cards split where straight
edges run right across it.

Why this module exists: these are the ways the edge-map search proposes cards; which of them
are kept is decided by :mod:`.detect_checks` and :mod:`.detect_choose`.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import cv2
import numpy as np

from .detect_checks import _acceptable, _is_card
from .detect_edges import EDGE_MIN, _Gradients, _snap
from .detect_shapes import (
    _NEXT,
    DetectorSettings,
    _area,
    _card_shaped,
    _clockwise,
    _corner_angles_ok,
    _Found,
    _fractions,
    _median,
    _side_lengths,
    _upper_quartile,
)

MARGIN_LIGHT = 0.8
"""A printed panel grows to the card's outline across a margin at least this light, as a share
of the panel's face: a thin margin on a dark cloth, blurred, reads 15% darker than the panel
inside it (at 0.9, 7 more bench cards were found only by their printed frame; at 0.7, 4)."""


# ---- 1. candidates from edge contours -------------------------------------------------------------


def _candidate_quads(grads: _Gradients, min_area: float,
                     merged: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """Quadrilaterals outlined in several edge maps, largest first.

    The edges as found keep a card's thin light margin apart from its panel; thickened a
    little they bridge small gaps; the paper mask outlines light margins whatever the table looks
    like. Edges of the paperness image join those of the grey image: they part a light card
    from a coloured cloth of its grey level. Large contours of the two edge maps that are no
    quadrilateral go to ``merged`` (see :func:`_from_corners`).
    """
    edges = grads.edges
    maps = [edges, cv2.dilate(edges, np.ones((2, 2), np.uint8)), _paper_mask(grads.blurred)]
    # A quad this small shares no key below with one large enough to be tried (the key steps
    # by 3 px of its area's root): it need not be made unless its contour may go to ``merged``.
    never_tried = (3 * math.floor(math.sqrt(min_area) / 3)) ** 2
    quads: list[np.ndarray] = []
    seen: set[tuple[int, int, int]] = set()
    for map_index, edge_map in enumerate(maps):
        contours, _ = cv2.findContours(edge_map, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            continue
        # Most contours are specks of texture: judge all their boxes at once.
        boxes, hull_bounds = _contour_bounds(contours)
        large = np.flatnonzero((boxes[:, 0] * boxes[:, 1] >= min_area * 0.7)
                               & (boxes.min(axis=1) >= 10))
        for index in large.tolist():
            contour = contours[index]
            bw, bh = boxes[index].tolist()
            may_merge = merged is not None and map_index < 2 and bw * bh >= 1.5 * min_area
            if not may_merge and hull_bounds[index] < never_tried:
                continue  # (about a quarter of the contours judged one by one, each a convex hull)
            quad = None if hull_bounds[index] < min_area * 0.6 else _quad_of(contour, min_area * 0.6)
            if quad is None:
                if may_merge and merged is not None:
                    merged.append(contour)
                continue
            if _area(quad) < min_area * 0.6:
                continue
            centre = quad.sum(axis=0) / 4
            key = (int(centre[0] / 3), int(centre[1] / 3), int(_area(quad) ** 0.5 / 3))
            if key not in seen:  # the same shape found in another edge map
                seen.add(key)
                quads.append(quad)
    return quads


def _contour_bounds(contours: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Width and height of each contour's bounding box (as ``cv2.boundingRect`` has them),
    and a bound on its convex hull's area (the octagon of its extents along x, y and both
    diagonals), all at once: a textured table gives thousands of contours a map, and a
    diagonal line's box is large but its hull no card."""
    points = np.concatenate(contours).reshape(-1, 2)
    lengths = np.fromiter(map(len, contours), np.int64, len(contours))
    starts = np.zeros(len(contours), np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    # x, y, x + y, x - y, a row each: numpy reduces along contiguous rows faster
    extents = np.empty((4, len(points)), np.int32)
    extents[:2] = points.T
    np.add(extents[0], extents[1], out=extents[2])
    np.subtract(extents[0], extents[1], out=extents[3])
    low = np.minimum.reduceat(extents, starts, axis=1).astype(np.int64)
    high = np.maximum.reduceat(extents, starts, axis=1).astype(np.int64)
    (x0, y0, s0, d0), (x1, y1, s1, d1) = low, high
    corners = ((s0 - x0 - y0) ** 2 + (x1 + y1 - s1) ** 2  # the box less its four corners
               + (d0 - x0 + y1) ** 2 + (x1 - y0 - d1) ** 2)
    octagon = (x1 - x0) * (y1 - y0) - corners / 2
    return (high - low + 1)[:2].T, octagon


def _paper_mask(blurred: np.ndarray) -> np.ndarray:
    """Pixels nearly as light as the lightest thing around them: a card's paper margin.

    Around a card the table is darker than its paper, so each card's margin stands alone
    (touching cards are parted by the thin dark line where they meet)."""
    h, w = blurred.shape
    small = cv2.resize(blurred, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    local_max = cv2.GaussianBlur(cv2.dilate(small, np.ones((15, 15), np.uint8)), (0, 0), 3)
    threshold = cv2.resize(cv2.convertScaleAbs(local_max, alpha=0.93), (w, h),
                           interpolation=cv2.INTER_LINEAR)
    return cv2.compare(blurred, threshold, cv2.CMP_GE)


def _quad_of(contour: np.ndarray, min_area: float = 0.0) -> np.ndarray | None:
    """The quadrilateral around a contour, or None when its hull is not 4-sided or its hull
    is smaller than ``min_area`` (the quad's corners are hull points, so it is no larger).

    The hull, not the contour, is judged: the hole just inside a card's outline often runs
    round the inner panel too, so only its hull is card-shaped.
    """
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    if hull_area <= 0 or hull_area < min_area:
        return None
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.02, 0.035, 0.05):
        poly = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(poly) == 4:
            quad = _clockwise(poly.reshape(4, 2).astype(np.float32))
            if _area(quad) / hull_area > 0.9 and _corner_angles_ok(quad, 0.55):
                return quad
            return None
        if len(poly) < 4:
            return None
    return None


# ---- 3a. growing an inner panel to the card's outline --------------------------------------------


def _grown(cand: _Found, grads: _Gradients) -> list[_Found]:
    """The candidate and, when a clean light margin surrounds it, the quads it grows into."""
    out = [cand]
    bigger = _outline(cand, grads)
    if bigger is not None:
        out.append(bigger)
    return out


def _outline(cand: _Found, grads: _Gradients) -> _Found | None:
    """The card whose light margin ends at the first outward edge around ``cand``.

    The neighbourhood is warped so that ``cand`` becomes an upright rectangle; edge and
    brightness profiles across its rows and columns then show straight lines parallel to its
    sides. Each side moves out to the nearest edge beyond its own that gets darker going
    outwards (or lighter, onto a cloth lighter than the face: see :func:`_margin_end`) and has
    a margin about as light as the card's face just inside it (cards have a light border). At
    least two sides must find one; a side that finds none, or one far off the others, moves out
    as far as the others do. None when fewer than two sides find an edge, the result is just
    ``cand`` again, or it grew onto a lighter outside without a clean outline all round.
    """
    quad = cand.quad
    sides = _side_lengths(quad)
    w = float(sides[0] + sides[2]) / 2
    h = float(sides[1] + sides[3]) / 2
    scale = min(1.0, 48.0 / min(w, h))  # work at most 48 px across the short side
    w, h = w * scale, h * scale
    mx, my = 0.6 * w + 4, 0.6 * h + 4
    size = (int(w + 2 * mx), int(h + 2 * my))
    rect = np.array([[mx, my], [mx + w, my], [mx + w, my + h], [mx, my + h]], np.float32)
    to_rect = cv2.getPerspectiveTransform(quad.astype(np.float32), rect)
    view = cv2.warpPerspective(grads.blurred, to_rect, size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    dx = cv2.Sobel(view, cv2.CV_32F, 1, 0, ksize=3)
    dy = cv2.Sobel(view, cv2.CV_32F, 0, 1, ksize=3)
    rows = slice(int(my + 0.1 * h), int(my + 0.9 * h) + 1)
    cols = slice(int(mx + 0.1 * w), int(mx + 0.9 * w) + 1)
    face = float(_upper_quartile(view[rows, cols]))
    col_edge = _median(dx[rows], axis=0)  # + : darker on the left
    col_level = _median(view[rows], axis=0)
    row_edge = _median(dy[:, cols], axis=1)
    row_level = _median(view[:, cols], axis=1)
    band = max(2, int(0.03 * min(w, h)))
    ends = [_margin_end(col_edge, col_level, int(round(mx)) + 2, -1, band, face),
            _margin_end(-col_edge, col_level, int(round(mx + w)) - 2, +1, band, face),
            _margin_end(row_edge, row_level, int(round(my)) + 2, -1, band, face),
            _margin_end(-row_edge, row_level, int(round(my + h)) - 2, +1, band, face)]
    white_cloth = any(end is not None and end[1] for end in ends)
    left, right, top, bottom = (None if end is None else end[0] for end in ends)
    found = [None if left is None else mx - left, None if right is None else right - mx - w,
             None if top is None else my - top, None if bottom is None else bottom - my - h]
    known = [d for d in found if d is not None]
    if len(known) < 2:
        return None
    # A card's margin is as wide on every side: a side that found no edge (a touching card
    # beside it) or an edge far off the others moves out as far as the others do.
    typical = statistics.median(known)
    out = [d if d is not None and abs(d - typical) <= max(2.0, 0.4 * typical) else typical
           for d in found]
    left, right, top, bottom = mx - out[0], mx + w + out[1], my - out[2], my + h + out[3]
    box = np.array([[left, top], [right, top], [right, bottom], [left, bottom]], np.float32)
    if np.abs(box - rect).max() < 1.5:
        return None  # already the outline
    back = cv2.perspectiveTransform(box.reshape(-1, 1, 2), np.linalg.inv(to_rect))
    grown = _snap(back.reshape(4, 2).astype(np.float32), grads)
    if grown is not None and white_cloth and grown.support < 0.9:
        return None  # lighter outside: a card on a white cloth has a clean outline, a check's cell not
    return grown


def _margin_end(edge: np.ndarray, level: np.ndarray, start: int, step: int, band: int,
                face: float) -> tuple[float, bool] | None:
    """Walking from ``start`` in direction ``step``, the first edge peak, and whether it gets
    lighter going out, with a light band of ``band`` samples on its inner side (at least
    :data:`MARGIN_LIGHT` of ``face``, the candidate's own face). The edge gets darker further
    out (edge > 0), or lighter where the table beyond is lighter than the face itself (a white
    cloth round cream paper). The candidate's own edge (a dark printed frame line, an edge
    under ``start``) is stepped over first."""
    light = MARGIN_LIGHT * face
    strength = np.abs(edge)
    i = start + 4 * step  # 2 past the candidate's own side, which is stepped over
    while 1 <= i < len(edge) - 1:
        if strength[i] >= EDGE_MIN and strength[i] >= strength[i - 1] \
                and strength[i] >= strength[i + 1]:
            inner = level[i + 1: i + 2 + band] if step < 0 else level[max(0, i - band - 1): i]
            outer = level[max(0, i - 2 * band - 1): i] if step < 0 \
                else level[i + 1: i + 2 + 2 * band]
            white_cloth = len(outer) > 0 and float(outer.min()) >= face
            if len(inner) and float(inner.max()) >= light and (edge[i] > 0 or white_cloth):
                return float(i), bool(edge[i] <= 0)
        i += step
    return None


# ---- 3b. splitting a row of touching cards -----------------------------------------------------


def _cards_of(cuts: list[list[np.ndarray]], grads: _Gradients, settings: DetectorSettings,
              min_area: float, max_area: float) -> list[_Found]:
    """The cards of the first way of cutting a row of touching cards whose pieces all are."""
    for pieces in cuts:
        snapped = [_snap(p, grads) for p in pieces]
        cards = [s for s in snapped if s is not None and _acceptable(s, settings, min_area,
                                                                      max_area)
                 and _is_card(s, grads)]
        if len(cards) == len(pieces):
            return cards
    return []


_CUT_AT = {k: np.array([[j / k] for j in range(k + 1)], np.float32) for k in (2, 3)}
"""Where the cuts of a row of 2 or 3 cards lie along it, its ends included."""


def _splits(quad: np.ndarray, grads: _Gradients, settings: DetectorSettings,
            need_edge: bool = True) -> list[list[np.ndarray]]:
    """Ways to cut ``quad`` into 2 or 3 card-shaped pieces in a row, or 4 two by two, along
    lines that lie on an edge. (A patch of a tiled pattern cuts too, into blank pieces: it is
    then no card, whole or cut.)"""
    ways: list[tuple[list[np.ndarray], list[tuple[np.ndarray, np.ndarray]]]] = []  # pieces, lines
    for axis in (0, 1):  # cut across sides 0/2 or across sides 1/3
        q = quad if axis == 0 else quad[_NEXT]
        for k, ts in _CUT_AT.items():  # each cut's ends on sides 0 and 2, all at once
            top = q[0] + ts * (q[1] - q[0])
            bottom = q[3] + ts * (q[2] - q[3])
            pieces = list(np.stack([top[:-1], top[1:], bottom[1:], bottom[:-1]], axis=1))
            if all(_card_shaped(p, settings.min_aspect, settings.max_aspect) for p in pieces):
                ways.append((pieces, list(zip(top[1:k], bottom[1:k], strict=True))))
    # Four cards two by two: both middle lines run right across.
    mid = (quad + quad[_NEXT]) / 2  # the middle of each side
    centre = quad.sum(axis=0) / 4
    quarters = [np.array([quad[i], mid[i], centre, mid[i - 1]], np.float32) for i in range(4)]
    if all(_card_shaped(p, settings.min_aspect, settings.max_aspect) for p in quarters):
        ways.append((quarters, [(mid[0], mid[2]), (mid[1], mid[3])]))
    if need_edge and ways:  # every line looked at in one go
        on_edge = iter(_cuts_on_edge([line for _, lines in ways for line in lines], grads))
        ways = [(pieces, lines) for pieces, lines in ways
                if all([next(on_edge) for _ in lines])]
    return [[_clockwise(p) for p in pieces] for pieces, _ in ways]


def _cuts_on_edge(lines: list[tuple[np.ndarray, np.ndarray]], grads: _Gradients) -> list[bool]:
    """:func:`_straight_edges`, each line looked at once per frame."""
    keys = [(a.dtype.str, a.tobytes(), b.tobytes()) for a, b in lines]
    todo = [n for n, key in enumerate(keys) if key not in grads.cuts]
    if todo:
        for n, on_edge in zip(todo, _straight_edges([lines[n] for n in todo], grads), strict=True):
            grads.cuts[keys[n]] = on_edge
    return [grads.cuts[key] for key in keys]


def _straight_edges(lines: list[tuple[np.ndarray, np.ndarray]], grads: _Gradients) -> list[bool]:
    """For each line (a, b): does a straight edge run all the way from a to b, as where two
    touching cards meet?

    A line on a card's face (a crosshair, a wave) stops short of the card's light margin;
    the meeting line of two cards runs from outline to outline, so the samples next to both
    ends must lie on the edge too. All lines are sampled at once, each at offsets across it
    up to 5% of its length (padded to the longest's).
    """
    ts = _fractions(24, 0.02, 0.98)
    count = len(lines)
    base = np.stack([a[None, :] + ts[:, None] * (b - a)[None, :] for a, b in lines])
    normals = np.empty((count, 2), np.float32)
    offsets_each = []
    for n, (a, b) in enumerate(lines):
        length = float(np.linalg.norm(b - a))
        direction = (b - a) / max(length, 1e-6)
        normals[n] = direction[1], -direction[0]
        reach = max(2.0, 0.05 * length)
        offsets_each.append(np.arange(-reach, reach + 0.01, 0.5, dtype=np.float32))
    width = max(map(len, offsets_each))
    offsets = np.zeros((count, width), np.float32)
    valid = np.zeros((count, 1, width), bool)
    for n, row in enumerate(offsets_each):
        offsets[n, :len(row)] = row
        valid[n, 0, :len(row)] = True
    pts = np.empty((count, len(ts), width, 2), np.float32)  # as _stepped, a row per line
    for axis in (0, 1):
        pts[..., axis] = base[:, :, None, axis] + offsets[:, None, :] * normals[:, None, None, axis]
    across = grads.edge_across(pts.reshape(count * len(ts), width, 2),
                               np.repeat(normals, len(ts), axis=0)[:, None, :])
    hit = (across >= EDGE_MIN).reshape(count, len(ts), width) & valid
    # Allow the line to wander +-1 px (perspective), then find the offset most samples share.
    near = hit.copy()
    for shift in (1, 2):
        near[..., shift:] |= hit[..., :-shift]
        near[..., :-shift] |= hit[..., shift:]
    near &= valid
    best = near.sum(axis=1).argmax(axis=1)
    strong = near[np.arange(count), :, best]  # (lines, samples)
    return [bool(row.sum() / row.size >= 0.7 and (row[:3].all() or row[-3:].all()))
            for row in strong]
