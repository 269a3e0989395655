"""Steps 5-7 of :mod:`.detect`: one quad per card (nested and overlapping candidates), cards
completed from the right-angled corners of outlines that ran into other edges, and cards whose
size says they were cut short or are two cards.

Why this module exists: after the candidates are found and checked, these steps compare them
with each other and with the sizes of the cards around them; each rule names the table picture
that needed it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .detect_candidates import _splits
from .detect_checks import MARGIN_PAPER_MIN, _acceptable, _is_card, _margin
from .detect_edges import _far_side_at, _Gradients, _lightest_inwards, _margin_levels, _runs_on, _snap
from .detect_shapes import (
    _NEXT,
    DetectorSettings,
    _area,
    _box,
    _clockwise,
    _Found,
    _fractions,
    _intersect,
    _intersection,
    quad_iou,
    sides_of,
)

CORNER_REACH = 0.12
SMALLEST_SHARE = 0.4
"""Smallest area of a card, as a share of the median well-outlined card's in the same frame
(see :func:`_of_one_size`)."""
PAIR_SHARE = 1.6
"""A card at least this share of the median area of the three well-outlined cards nearest it
may be two touching cards side by side (see :func:`_halves`)."""
LARGEST_SHARE = 2.5
"""Largest area of a card, as a share of the median well-outlined card's in the same frame."""
WHOLE_SHARE = 0.95
"""A card under this share of the median area of the three well-outlined cards nearest it, and
squatter than they are by this share (long over short side), may have been cut short at a line
across its face (see :func:`_whole`)."""
NEIGHBOURS_SIZE = (0.8, 1.25)
"""About the size of the cards beside it: an area within these shares of the median area of the
three well-outlined cards nearest it (see :func:`_whole_but_squat`, :func:`_panelled`)."""
SQUAT_SUPPORT = 0.95
"""A candidate too square for a card, of its neighbours' size, whose outline lies on an edge for
at least this share of its length is a whole card seen through a steeply tilted camera (see
:func:`_whole_but_squat`)."""
PANEL_SHARE = 0.6
"""Parts of an outline, tiling it as touching cards would, under this share of the median area of
the three well-outlined cards nearest it are panels of one card's face (see :func:`_panelled`)."""
CORNER_PAPER_SLACK = 0.18
"""A card completed from a corner to sides found on edges must have a margin nearly as neutral
(see :func:`_margin`) as the median well-outlined card's in the same frame, less this. Cells
of a light checked cloth measure about 0.2 less than the cards on it; of 5,971 cards found in
the 500 bench scenes, 69 (1.2%) measure more than 0.18 less, and of 99 false detections, 30."""
CORNER_GATE_SLACK = 0.28
"""A corner is completed to a card only where the paper just inside it (see
:func:`_corner_paperness`) is nearly as neutral as the median well-outlined card's margin, less
this. Over 1,300 bench frames (scenes 0-799 and 500 taken at 1920 x 1080), of 683 cards
completed from corners, 17 of the 41 that were no card measured more than 0.28 less (patches
of tinted table), and 2 of the 642 real ones; of 18,034 corners tried in vain, half did, and
each of those had cost two snaps or more."""
CORNERS_MEASURED_AT_ONCE = 128
"""How many corners :func:`_corner_paperness` measures in one go, as far as the corners are
tried: most frames try fewer, and a checked cloth offers thousands."""
MAX_CORNER_TRIES = 50
"""Corners completed to a card at the guessed size at most (see :func:`_from_corners`), those
whose arms best match a card's sides first: in 200 bench frames (scenes 0-119 and 500-539, 40
empty tables) 42 had a card found at a corner, at a median of the 2nd try and at most the 40th;
7 offered more than 50 corners (at most 262), a gingham cloth offers over 600, each a snap."""
MAX_FAR_SIDE_TRIES = 20
"""Corners then completed to far sides found on edges at most (up to three guesses and six snaps
each): over 1,300 bench frames the 41 cards found so were found by the 16th such try, and on a
gingham cloth every frame used to try 50, most of its time."""
CARD_ARMS = (1.2, 1.75)
"""Long over short arm of a corner taken for a whole card's two sides when no card was found
to measure it by (see :func:`_from_corners`)."""


def _whole(cards: list[_Found], squat: list[_Found], grads: _Gradients,
           settings: DetectorSettings, min_area: float, max_area: float) -> list[_Found]:
    """Cards measured against the three well-outlined cards nearest them (cards beside each
    other look about the same size): the ``cards`` found, and ``squat`` candidates, too square
    for cards, which are kept when extended, or as they are when they are whole cards seen
    squat through a steeply tilted camera (:func:`_whole_but_squat`) covering no card kept.

    A "card" at least :data:`PAIR_SHARE` of their size may be two touching cards side by side
    (see :func:`_halves`). One smaller and squatter than they are, with a side whose two
    neighbouring sides run on past it, straight, as a card's outline does, was cut short where
    a straight line runs across its face (a wave band, the rim of a printed circle). That side
    is moved out to an edge 1.05-1.9 times as far; of the longer cards that snap, pass the
    checks, are at most a quarter larger than the cards beside it and cover no other card (but
    pieces of itself, kept cut short, which it replaces), the best-edged is kept (of equals,
    the one nearest their size).
    """
    out = cards + squat
    kept = [True] * len(cards) + [False] * len(squat)  # a squat one once judged whole
    sure = [c for c in cards if c.support >= 0.9]
    centres = np.array([c.quad.mean(axis=0) for c in sure], np.float32).reshape(-1, 2)
    for k, card in enumerate(cards + squat):
        near = [sure[j] for j in np.argsort(((centres - card.quad.mean(axis=0)) ** 2).sum(axis=1))
                if sure[j] is not card][:3]
        if len(near) < 2:
            continue
        usual = statistics.median([c.area for c in near])  # np.median's figure, sooner
        short, long = np.mean([sides_of(c.quad) for c in near], axis=0).tolist()
        if k < len(cards) and card.area >= PAIR_SHARE * usual:
            halves = _halves(card, grads, settings, min_area, max_area, (short, long))
            if halves:
                out[k] = halves[0]
                out.append(halves[1])
                kept.append(True)
            continue
        if k >= len(cards) and _whole_but_squat(card, usual) and not any(
                kept[j] and _overlapping(card, o) for j, o in enumerate(out) if j != k):
            kept[k] = True
            continue
        own_short, own_long = sides_of(card.quad)
        if card.area >= WHOLE_SHARE * usual or own_long / own_short >= WHOLE_SHARE * long / short:
            continue  # as large as they are, or no squatter: not cut
        options = []
        for i in _cut_short(card.quad, grads):
            for longer in _lengthened(card.quad, i, grads):
                snapped = _snap(longer, grads)
                if snapped is None or snapped.support < 0.85 or snapped.area > 1.25 * usual \
                        or not _acceptable(snapped, settings, min_area, max_area) \
                        or not _is_card(snapped, grads):
                    continue
                covered = [j for j, o in enumerate(out) if j != k and kept[j]
                           and _intersection(snapped.quad, o.quad) > 0.3 * o.area]
                if all(_cut_piece(out[j], snapped, usual) for j in covered):
                    a, b = sides_of(snapped.quad)  # how far from its neighbours' sides:
                    unlike = abs(math.log(a / short)) + abs(math.log(b / long))
                    options.append((-snapped.support, unlike, snapped, covered))
        if options:
            _, _, out[k], covered = min(options, key=lambda option: option[:2])
            kept[k] = True
            for j in covered:
                kept[j] = False
    return [card for card, keep in zip(out, kept, strict=True) if keep]


def _whole_but_squat(card: _Found, usual: float) -> bool:
    """Is a ``card`` too square for a card still one, seen squat through a steeply tilted
    camera: about as large as the cards beside it (``usual``) and edged all round? (A card cut
    short is smaller; a checked cloth's cells fail :func:`_is_card` before they come here.)"""
    return _neighbours_size(card.area, usual) and card.support >= SQUAT_SUPPORT


def _neighbours_size(area: float, usual: float) -> bool:
    """Is ``area`` about the size of the cards beside it, ``usual`` (:data:`NEIGHBOURS_SIZE`)?"""
    return NEIGHBOURS_SIZE[0] * usual <= area <= NEIGHBOURS_SIZE[1] * usual


def _cut_piece(card: _Found, whole: _Found, usual: float) -> bool:
    """Is ``card`` a piece of ``whole``: smaller than it and than the cards beside it
    (``usual``), and mostly inside it? (The same card cut short may be kept once and come
    again as a squat candidate whose extension is the whole card.)"""
    return card.area < min(whole.area, WHOLE_SHARE * usual) \
        and _intersection(whole.quad, card.quad) >= 0.75 * card.area


def _halves(card: _Found, grads: _Gradients, settings: DetectorSettings, min_area: float,
            max_area: float, usual: tuple[float, float]) -> list[_Found]:
    """Two touching cards side by side taken for one (their meeting line too faint for
    :func:`_splits`): the two halves, when both snap and pass as cards whose short and long
    sides are within 15% of the ``usual`` ones of the cards beside them, each with a margin
    along the cut about as light as along its other sides (a cut through one card's face runs
    through its print; a shadow may darken any outer side); else nothing."""
    def usual_sides(quad: np.ndarray) -> bool:
        return all(abs(math.log(side / side_usual)) < 0.15
                   for side, side_usual in zip(sides_of(quad), usual, strict=True))

    for pieces in _splits(card.quad, grads, settings, need_edge=False):
        if len(pieces) != 2 or not all(usual_sides(p) for p in pieces):
            continue
        halves = [s for s in (_snap(p, grads) for p in pieces)
                  if s is not None and s.support >= 0.85 and usual_sides(s.quad)
                  and _acceptable(s, settings, min_area, max_area) and _is_card(s, grads)]
        if len(halves) == 2 and _light_along_cut(halves[0].quad, halves[1].quad, grads) \
                and _light_along_cut(halves[1].quad, halves[0].quad, grads):
            return halves
    return []


def _light_along_cut(quad: np.ndarray, other: np.ndarray, grads: _Gradients) -> bool:
    """Is the margin of ``quad`` along its side facing ``other`` about as light as along its
    other sides? (See :func:`_halves`.)"""
    sides = np.median(_margin_levels(quad, grads)[0], axis=1)
    middles = (quad + quad[_NEXT]) / 2
    facing = int(np.argmin(((middles - other.mean(axis=0)) ** 2).sum(axis=1)))
    return bool(sides[facing] >= 0.85 * np.median(sides))


def _cut_short(quad: np.ndarray, grads: _Gradients) -> list[int]:
    """The sides of ``quad`` whose two neighbouring sides both run on past them."""
    ends = _runs_on(quad, grads)
    return [i for i in range(4) if ends[(i - 1) % 4, 1] and ends[(i + 1) % 4, 0]]


def _lengthened(quad: np.ndarray, i: int, grads: _Gradients) -> list[np.ndarray]:
    """``quad`` with side ``i`` moved out, along the two sides that meet it, to the edges
    found 1.05-1.9 times as far from the opposite side (at most two)."""
    start_l, start_r = quad[(i - 1) % 4], quad[(i + 2) % 4]  # the opposite side's corners
    arm_l, arm_r = quad[i] - start_l, quad[(i + 1) % 4] - start_r
    length = max(float(np.linalg.norm(arm_l)), 1e-6)
    width = max(float(np.linalg.norm(start_r - start_l)), 1e-6)
    return [_clockwise(np.array([start_l, start_l + arm_l * (end / length),
                                 start_r + arm_r * (end / length), start_r], np.float32))
            for end in _far_side_at(start_l, arm_l / length, (start_r - start_l) / width,
                                    1.4 * length, width, grads)]


def _of_one_size(cards: list[_Found]) -> list[_Found]:
    """Cards lie on one table at one distance from the camera, so they look about the same size
    (a tilted camera makes the nearest at most about twice the farthest): a "card" under
    ``SMALLEST_SHARE`` of the median well-outlined card's area is a patch of the table, and
    one over ``LARGEST_SHARE`` of it (given three well-outlined cards to go by) the outline
    around a group of touching cards."""
    sure = sorted(c.area for c in cards if c.support >= 0.9)
    if not sure:
        return cards
    median = sure[len(sure) // 2]
    most = LARGEST_SHARE * median if len(sure) >= 3 else math.inf
    return [c for c in cards if SMALLEST_SHARE * median <= c.area <= most]


_Tried = tuple[float, np.ndarray, tuple[float, float, float, float]]
"""A quad already tried: its area, corners and bounding box (x0, y0, x1, y1)."""


def _tried_before(area: float, quad: np.ndarray, tried: list[_Tried]) -> bool:
    """Is ``quad`` (no larger than any in ``tried``) nearly one of ``tried`` (IoU > 0.95)?

    Two quads overlap at most as much as the smaller one's area over the larger's, and at
    most as much as their bounding boxes do, so only the few tried quads within 5% of its
    area and with boxes overlapping that much are compared.
    """
    x0, y0, x1, y1 = _box(quad)
    for tried_area, other, (ox0, oy0, ox1, oy1) in reversed(tried):
        if area <= 0.95 * tried_area:
            return False
        overlap = max(0.0, min(x1, ox1) - max(x0, ox0)) * max(0.0, min(y1, oy1) - max(y0, oy0))
        if overlap < 0.9 * tried_area:
            continue  # IoU > 0.95 needs more than 0.95 of the larger area (0.9: slack)
        inter = _intersection(quad, other)  # IoU as quad_iou has it, areas known
        if inter / (area + tried_area - inter) > 0.95:
            return True
    return False


def _from_corners(merged: list[np.ndarray], cards: list[_Found], grads: _Gradients,
                  settings: DetectorSettings, min_area: float, max_area: float,
                  measure_by: list[_Found] | None = None) -> list[_Found]:
    """Cards whose outline ran into other edges (a touching card, printing, texture).

    Such an outline is part of a larger contour that is no quadrilateral; its corners are
    still corners of that contour. Each corner with two straight arms is completed to a card
    of the size of the nearest cards already found (or of its arms' lengths, where they end
    near there) and kept when its sides snap onto edges and it passes the usual checks. With
    no well-outlined card found (a light table whose pattern touches every card), only corners
    whose arms have a card's proportions are completed, to their arms' lengths. A corner where
    the outline meets a neighbour's has one arm along the neighbour: when the card it gives
    would lie on a card found, the card across that arm is tried instead. Every corner is
    first tried at the guessed size, then, where nothing was found, with its far sides looked
    for on edges near it (:func:`_corner_cards`), which must also be well edged and about as
    neutral as the cards found. A corner with no paper just inside it (see
    :data:`CORNER_GATE_SLACK`) is not tried at all. The corners whose arms best match a card's
    sides are tried first, at most :data:`MAX_CORNER_TRIES` at the guessed size and
    :data:`MAX_FAR_SIDE_TRIES` with far sides found on edges, so that a checked cloth cannot
    take a second a frame.

    ``measure_by``: the cards whose sizes guide the guesses (default: the well-outlined ones),
    given for a second round on a table where no card was well outlined (a light cloth whose
    dots touch every card). There, dots touching a card break its outline into pieces: a
    piece may be smaller than a card yet hold one of its sides nearly whole, with the card
    inside the piece's corner rather than inside the piece, and the card's rounded corner
    cut off by the polygon. Such a corner, one arm at least 0.8 of its side, is completed
    (as a less sure guess) even when the other arm is short or the card's centre lies outside
    the piece.
    """
    sure = [c for c in cards if c.support >= 0.9] if measure_by is None else measure_by
    broken = measure_by is not None  # a second round: outlines broken by dots are looked at
    if not merged:
        return []
    h, w = grads.blurred.shape
    covered = np.zeros((h, w), np.uint8)
    for c in cards:
        cv2.fillConvexPoly(covered, c.quad.astype(np.int32), 255)
    sizes = np.array([sides_of(c.quad) for c in sure], np.float32)
    centres = np.array([c.quad.mean(axis=0) for c in sure], np.float32)
    smallest = float(min((c.area for c in cards), default=min_area))
    shortest = float(min((sides_of(c.quad)[0] for c in sure), default=math.inf))
    corners: list[tuple[float, _Corner]] = []  # (how far the arms are from a card's sides, ...)
    boxes: set[tuple[int, int, int, int]] = set()
    for contour in merged:
        x, y, bw, bh = cv2.boundingRect(contour)
        box = (x // 4, y // 4, bw // 4, bh // 4)
        piece = bw * bh < 0.9 * smallest  # of an outline broken by dots touching it?
        if box in boxes or (piece and not (broken and max(bw, bh) >= 0.85 * shortest)):
            continue  # smaller than a card (and, in a second round, too short for its side)
        boxes.add(box)
        hull: np.ndarray | None = None  # taken when first needed: most contours have no corner
        poly = cv2.approxPolyDP(contour, 2.5, True).reshape(-1, 2).astype(np.float32)
        if broken and piece:  # its corner may be the card's rounded one, cut off
            poly = _without_chamfers(poly)
        if len(poly) < 4:
            continue
        order = np.arange(len(poly))
        prev = poly[order - 1] - poly  # np.roll(poly, 1, axis=0) - poly
        nxt = poly[(order + 1) % len(poly)] - poly
        lp = np.sqrt((prev * prev).sum(axis=1))
        ln = np.sqrt((nxt * nxt).sum(axis=1))
        cos = (prev * nxt).sum(axis=1) / np.maximum(lp * ln, 1e-6)
        at = np.flatnonzero((np.minimum(lp, ln) >= 12) & (np.abs(cos) <= 0.45))
        if sure and len(at):  # the size of the well-outlined cards nearest to each corner
            distances = ((centres[None, :, :] - poly[at][:, None, :]) ** 2).sum(axis=2)
            near_sizes = sizes[np.argsort(distances, axis=1)[:, :3]].mean(axis=1).tolist()
        for n, i in enumerate(at.tolist()):
            v = poly[i]
            if covered[min(h - 1, max(0, int(v[1]))), min(w - 1, max(0, int(v[0])))]:
                continue
            la, lb = float(lp[i]), float(ln[i])
            ua, ub = prev[i] / la, nxt[i] / lb
            if sure:
                short, long = near_sizes[n]
            else:  # no card to go by: only a corner whose arms are a card's two sides
                short, long = min(la, lb), max(la, lb)
                if not CARD_ARMS[0] <= long / short <= CARD_ARMS[1] or short * long < min_area:
                    continue
            for side_a, side_b in ((short, long), (long, short)):
                whole_a = 0.85 * side_a <= la <= 1.25 * side_a  # the arm is that whole side
                whole_b = 0.85 * side_b <= lb <= 1.25 * side_b
                short_arm = la < 0.4 * side_a or lb < 0.4 * side_b
                nearly_whole = broken and (la >= 0.8 * side_a or lb >= 0.8 * side_b)
                if short_arm and not (whole_a or whole_b or nearly_whole):
                    continue  # (a short arm will do beside a whole side: the rest ran into dots)
                # An arm that ends near where a side of that size would is the side itself
                # (cards nearer a tilted camera look bigger than their neighbours).
                sa = la if whole_a else side_a
                sb = lb if whole_b else side_b
                # Where the outline meets a neighbour's, one arm may run along the neighbour:
                # the card then lies across that arm, on the side the neighbour does not cover.
                for da, db in ((ua, ub), (ua, -ub), (-ua, ub)):
                    centre = v + (sa * da + sb * db) / 2
                    if covered[min(h - 1, max(0, int(centre[1]))), min(w - 1, max(0, int(centre[0])))]:
                        continue
                    if hull is None:
                        hull = cv2.convexHull(contour)
                    if (piece and da is ua and db is ub and nearly_whole) or \
                            cv2.pointPolygonTest(hull, (float(centre[0]), float(centre[1])), False) >= 0:
                        corners.append((abs(math.log(la / side_a)) + abs(math.log(lb / side_b))
                                        + (da is not ua or db is not ub),
                                        _Corner(v, da, db, sa, sb, short_arm)))
                        break  # a reflected arm only where the card's own side is covered
    # The best-shaped corners first: a card completed from a corner whose arms match a card's
    # sides is placed before a worse guess overlapping it can be (and a checked or striped
    # cloth's hundreds of corners are cut to the best).
    corners.sort(key=lambda corner: corner[0])
    out: list[_Found] = []
    placed = _Quads([c.quad for c in cards])  # the cards found so far
    # First each corner completed to the size guessed (snapped a little further than usual),
    # then, where that found nothing, to sides found on edges near the guess.
    paper: float | None = None  # the cards' margin paperness, measured at the first try
    inside = np.full(len(corners), np.nan, np.float32)  # _corner_paperness, when first needed
    for guessed_size in (True, False):
        tried = _Quads()
        for n, (_, corner) in enumerate(corners):
            quad = corner.quad()
            area = _area(quad)
            if placed.share_more(quad, 0.3 * area) or tried.share_more(quad, 0.85 * area):
                continue
            if len(tried.quads) == (MAX_CORNER_TRIES if guessed_size else MAX_FAR_SIDE_TRIES):
                break
            if paper is None:
                paper = statistics.median([_margin(c.quad, grads)[1] for c in sure]) if sure \
                    else 0.0
            if paper and np.isnan(inside[n]):  # measured a batch at a time, as far as needed
                batch = slice(n, n + CORNERS_MEASURED_AT_ONCE)
                inside[batch] = _corner_paperness([c for _, c in corners[batch]], grads)
            if paper and inside[n] < paper - CORNER_GATE_SLACK:
                continue  # no paper inside the corner: a card's margin would show there
            tried.add(quad)
            # A card from a less sure guess must be well edged, on paper.
            sure_guess = guessed_size and not corner.short_arm
            support_min = 0.85 if sure_guess else 0.9
            paper_min = MARGIN_PAPER_MIN if sure_guess \
                else max(MARGIN_PAPER_MIN, paper - CORNER_PAPER_SLACK)
            for guess in [quad] if guessed_size else _corner_cards(corner, grads):
                snapped = _snap(guess, grads, CORNER_REACH)
                if snapped is not None:
                    snapped = _snap(snapped.quad, grads)
                if snapped is None or snapped.support < support_min \
                        or not _acceptable(snapped, settings, min_area, max_area):
                    continue
                if not _is_card(snapped, grads, even_min=0.95, paper_min=paper_min):
                    continue
                if not placed.share_more(snapped.quad, 0.3 * snapped.area):
                    out.append(snapped)
                    placed.add(snapped.quad)
                break
    return out


def _corner_paperness(corners: Sequence[_Corner], grads: _Gradients) -> np.ndarray:
    """:func:`_measure_margin`'s paperness just inside each corner, along the first 10-40% of
    both its arms: the corner and its arms are edges of the frame, so where a card lies there
    its margin shows even when the guessed far sides are off. All corners at once, for less
    than one snap costs."""
    if not corners:
        return np.zeros(0, np.float32)
    at = np.array([c.at for c in corners], np.float32)[:, None, None, :]
    along = np.array([(c.along_a, c.along_b) for c in corners], np.float32)  # (n, arm, xy)
    sides = np.array([(c.side_a, c.side_b) for c in corners], np.float32)  # (n, arm)
    ts = _fractions(8, 0.1, 0.4)
    deepest = np.maximum(2.5, 0.08 * sides.min(axis=1))  # as _margin_levels goes in
    depths = 1 + (deepest - 1)[:, None] * _fractions(6, 0.0, 1.0)[None, :]  # (n, depth)
    # Along arm a, inwards along arm b; then along arm b, inwards along arm a.
    runs = (ts[None, None, :] * sides[:, :, None])[..., None, None] * along[:, :, None, None, :]
    inwards = depths[:, None, None, :, None] * along[:, ::-1, None, None, :]
    level, paper = _lightest_inwards(at[:, None] + runs + inwards, grads)  # a row per corner
    return np.median((paper / np.maximum(level, 1.0)).reshape(len(corners), -1), axis=1)


def _without_chamfers(poly: np.ndarray) -> np.ndarray:
    """``poly`` with each short edge between two long ones at about a right angle (a card's
    rounded corner, cut off by the polygon) replaced by the corner where the long ones meet."""
    n = len(poly)
    if n < 5:
        return poly
    pts = poly.tolist()
    out: list[list[float]] = []
    i = 0
    while i < n:
        a, b = pts[i], pts[(i + 1) % n]
        before, after = pts[i - 1], pts[(i + 2) % n]
        short = math.dist(a, b)
        la, lb = math.dist(before, a), math.dist(b, after)
        if short < 10 and la >= 12 and lb >= 12 and i + 1 < n:
            ux, uy = (a[0] - before[0]) / la, (a[1] - before[1]) / la
            vx, vy = (after[0] - b[0]) / lb, (after[1] - b[1]) / lb
            corner = _intersect([ux, uy, *a], [vx, vy, *b])
            if abs(ux * vx + uy * vy) <= 0.45 and corner is not None:
                out.append(list(corner))
                i += 2
                continue
        out.append(a)
        i += 1
    return np.array(out, np.float32)


@dataclass(frozen=True)
class _Corner:
    """A card guessed from one corner: the corner, its two arm directions (unit), the
    guessed lengths of the card's sides along them, and whether one arm is far shorter than
    its side (only the other is known to be a whole side)."""

    at: np.ndarray
    along_a: np.ndarray
    along_b: np.ndarray
    side_a: float
    side_b: float
    short_arm: bool = False

    def quad(self, side_a: float | None = None, side_b: float | None = None) -> np.ndarray:
        a = (self.side_a if side_a is None else side_a) * self.along_a
        b = (self.side_b if side_b is None else side_b) * self.along_b
        v = self.at
        return _clockwise(np.array([v, v + a, v + a + b, v + b], np.float32))


def _corner_cards(corner: _Corner, grads: _Gradients) -> list[np.ndarray]:
    """Cards at ``corner``, their far sides on edges, nearest the guessed size first.

    The guess is a neighbour's size (a tilted camera makes cards nearer it look up to a fifth
    larger than those beside them). Along each arm, the far side is looked for where a
    straight edge crosses most of the card's width, at 0.75-1.35 times the guess; the two
    nearest the guess on each arm are combined, at most three quads, nearest first.
    """
    ends_a = _far_side_at(corner.at, corner.along_a, corner.along_b, corner.side_a, corner.side_b,
                          grads)
    ends_b = _far_side_at(corner.at, corner.along_b, corner.along_a, corner.side_b, corner.side_a,
                          grads)
    combos = sorted((abs(math.log(a / corner.side_a)) + abs(math.log(b / corner.side_b)), a, b)
                    for a in ends_a for b in ends_b)
    return [corner.quad(a, b) for _, a, b in combos[:3]]


class _Quads:
    """Quads and their bounding boxes, asked whether a new quad overlaps one of them by more
    than some area. Two quads share at most what their boxes share, so the boxes rule out most
    of them at once without intersecting quads: a striped cloth gives a thousand corners to try."""

    def __init__(self, quads: Iterable[np.ndarray] = ()) -> None:
        self.quads: list[np.ndarray] = []
        self.boxes = np.empty((16, 4), np.float32)
        for quad in quads:
            self.add(quad)

    def add(self, quad: np.ndarray) -> None:
        if len(self.quads) == len(self.boxes):
            self.boxes = np.concatenate([self.boxes, np.empty_like(self.boxes)])
        self.boxes[len(self.quads)] = _box(quad)
        self.quads.append(quad)

    def share_more(self, quad: np.ndarray, area: float) -> bool:
        x0, y0, x1, y1 = _box(quad)
        boxes = self.boxes[:len(self.quads)]
        w = np.minimum(boxes[:, 2], x1) - np.maximum(boxes[:, 0], x0)
        h = np.minimum(boxes[:, 3], y1) - np.maximum(boxes[:, 1], y0)
        near = np.flatnonzero((w > 0) & (h > 0) & (w * h > area))
        return any(_intersection(quad, self.quads[i]) > area for i in near)


def _explained(area: float, quad: np.ndarray, found: list[_Found]) -> bool:
    """Is this candidate a part of a card already found (its panel, a feature of its face)?

    Candidates of 30-60% of a found card are still examined: they may be one of two
    touching cards that were found together. So are those inside a loosely edged "card" (an
    outline pieced together from a checked cloth's lines can surround a dozen cards).
    ``area`` is the candidate's own.
    """
    centre = quad.sum(axis=0) / 4  # quad.mean(axis=0), without its overhead
    for card in found:
        ratio = area / card.area
        if 0.3 <= ratio < 0.6 or ratio > 1.05 or card.support < 0.8:
            continue
        inside = cv2.pointPolygonTest(card.quad, (float(centre[0]), float(centre[1])), False) > 0
        if inside and _intersection(quad, card.quad) > 0.8 * area:
            return True
    return False


# ---- 4. one quad per card --------------------------------------------------------------------------


def _choose(candidates: list[_Found]) -> tuple[list[_Found], list[tuple[_Found, list[_Found]]]]:
    """Nested candidates of one card keep the outermost; groups of cards give way to parts.
    Also the groups, each with its parts, in case the parts were panels of one card's face
    (see :func:`_panelled`)."""
    items = sorted(candidates, key=lambda c: -c.area)
    n = len(items)
    inside: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if items[j].area > 0.97 * items[i].area and quad_iou(items[i].quad,
                                                                 items[j].quad) > 0.9:
                inside[i].append(j)  # the same quad twice
            elif _intersection(items[i].quad, items[j].quad) > 0.8 * items[j].area:
                inside[i].append(j)
    grouped: list[tuple[_Found, list[_Found]]] = []
    held: list[tuple[_Found, list[_Found]]] = []  # each outline kept, with those it dropped
    dropped = [False] * n
    for i in range(n):
        if dropped[i]:
            continue
        smaller = [j for j in inside[i] if items[j].area < 0.75 * items[i].area]
        parts = _disjoint_parts(items, smaller)
        if _is_group(items[i].area, [items[j].area for j in parts]):
            grouped.append((items[i], [items[j] for j in parts]))
            continue  # touching cards seen as one; the parts stand on their own
        better = [j for j in inside[i] if items[j].support > items[i].support + 0.15]
        if any(items[j].area > 0.5 * items[i].area for j in better) \
                or len(set(better) & set(parts)) >= 2:
            continue  # a loose outline around well-edged cards: they are the better guess
        held.append((items[i], [items[j] for j in inside[i] if not dropped[j]]))
        for j in inside[i]:
            dropped[j] = True  # the same card's panel, hole or a feature of its face
    return _inner_outlines_back(_non_overlapping([kept for kept, _ in held]), held), grouped


def _inner_outlines_back(chosen: list[_Found],
                         held: list[tuple[_Found, list[_Found]]]) -> list[_Found]:
    """``chosen`` and, for each outline that lost to a better-supported card overlapping it
    (:func:`_non_overlapping`), the largest outline it held inside that overlaps no card, is at
    least half its size and about the size of the cards beside it (:func:`_neighbours_size`): a
    loose outline that took in part of a neighbour was not the card, the outline inside it may
    be. (One that took in two cards may hold another outline of both: hence the size.)"""
    out = list(chosen)
    kept = {id(c) for c in chosen}
    for lost, inside in held:
        if id(lost) in kept:
            continue
        for inner in inside:  # largest first
            if inner.area < 0.5 * lost.area or any(_overlapping(inner, o) for o in out):
                continue
            usual = _neighbours_area(inner, out)
            if usual is not None and _neighbours_size(inner.area, usual):
                out.append(inner)
                break
    return out


def _panelled(grouped: list[tuple[_Found, list[_Found]]], cards: list[_Found]) -> list[_Found]:
    """``cards`` with each group of parts taken for touching cards (:func:`_choose`) given back
    to their whole outline when the parts are too small for cards beside the three nearest
    well-outlined ones (under :data:`PANEL_SHARE` of their median area) and the whole is about
    their size (:func:`_neighbours_size`): the parts were the panels of one card's face (a
    Sitting Ducks water card, a Bruce card's nests). Touching cards are each about their
    neighbours' size, so they stay."""
    out = list(cards)
    for whole, parts in sorted(grouped, key=lambda group: -group[0].support):
        ids = {id(p) for p in parts}
        if not any(id(c) in ids for c in out):
            continue
        others = [c for c in out if id(c) not in ids]
        usual = _neighbours_area(whole, others)
        part = statistics.mean([p.area for p in parts])
        if usual is None or part >= PANEL_SHARE * usual or not _neighbours_size(whole.area, usual):
            continue  # the parts are about the cards' size, or the whole is not: touching cards
        if not any(_overlapping(whole, o) for o in others):
            out = [*others, whole]
    return out


def _neighbours_area(card: _Found, cards: list[_Found]) -> float | None:
    """The median area of the (up to) three well-outlined ``cards`` nearest ``card`` that it
    does not overlap; None when fewer than two are there to go by."""
    near = [c for c in cards if c.support >= 0.9 and not _overlapping(card, c)]
    if len(near) < 2:
        return None
    centre = card.quad.mean(axis=0)
    near.sort(key=lambda c: float(((c.quad.mean(axis=0) - centre) ** 2).sum()))
    return statistics.median([c.area for c in near[:3]])


def _is_group(area: float, part_areas: list[float]) -> bool:
    """Do these disjoint, similar-sized parts tile the candidate, as touching cards would?"""
    if len(part_areas) < 2:
        return False
    mean = sum(part_areas) / len(part_areas)
    similar = all(0.7 * mean <= a <= 1.3 * mean for a in part_areas)
    return similar and sum(part_areas) > 0.8 * area


def _disjoint_parts(items: list[_Found], members: list[int]) -> list[int]:
    chosen: list[int] = []
    for j in members:  # largest first
        if all(_intersection(items[j].quad, items[k].quad)
               < 0.15 * min(items[j].area, items[k].area) for k in chosen):
            chosen.append(j)
    return chosen


def _non_overlapping(keep: list[_Found]) -> list[_Found]:
    """Cards do not overlap much: of two that do, the better supported one stays."""
    out: list[_Found] = []
    for cand in sorted(keep, key=lambda c: -c.support):
        if not any(_overlapping(cand, o) for o in out):
            out.append(cand)
    return out


def _overlapping(a: _Found, b: _Found) -> bool:
    """Do ``a`` and ``b`` overlap by 30% of the smaller or more, more than two cards can?"""
    return _intersection(a.quad, b.quad) >= 0.3 * min(a.area, b.area)
