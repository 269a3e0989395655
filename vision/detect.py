"""Find every card in a frame: its corner quad and a perspective-corrected upright crop.

Why this module exists: the classifier only ever sees one card, upright and the same size;
this is the step that turns a table photo into those crops. It is classical OpenCV (fast on a
Pi core) and assumes nothing about the table: no dark cloth, no fixed card size, any rotation,
cards touching each other.

How, in seven steps:

1. *Candidates*: every contour, outlines and holes alike, whose convex hull is a
   quadrilateral, in three maps (Canny edges of the grey and the "paperness" image together,
   as found and thickened a little; a mask of light paper), largest first; a shape seen
   before in another map is tried once.
2. *Snap*: each side is re-fitted as a straight line through the nearest clear edge, so rounded
   corners and edge thickness do not bias the corners; a side without a straight edge under
   most of it rejects the candidate.
3. *Grow and split*: a candidate that is part of a card's face (its panel, a frame printed
   on it) grows outwards to the next edge with a light margin inside it (cards have a light
   border; a side with a touching card beside it moves out as far as the others); a candidate
   that is two or three touching cards in a row, or four two by two, is split where straight
   edges run right across it.
4. *Check*: a card has a printed face (not blank, not a grid of lines along its sides), a
   light margin all round (a cell of a checked cloth alternates light and dark along its
   sides) and its sides stop at its corners (a checked cloth's lines run on).
5. *Choose*: nested candidates of one card keep the outermost well-edged one; a candidate
   tiled by smaller candidates of one size, or a loose outline round two or more well-edged
   cards, gives way to them, unless they are too small for cards beside their neighbours and
   it is their size (the panels printed on one card's face). A loose outline that lost to a
   better-edged neighbour gives back the outline it held inside, when that is a card's size.
   Cards on one table look about the same size (a tilted camera makes the nearest at most
   about twice the farthest): a "card" far smaller than the well-outlined ones is a patch of
   the table, one far larger the outline of a group.
6. *Corners*: an outline that ran into other edges (a touching card, printing touching the
   margin, texture) belongs to a larger contour that is no quadrilateral; each right-angled
   corner of such a contour is completed to a card the size of the nearest cards found (where
   none was found, only a corner whose two arms are a card's two sides, and then the cards
   so found give the size for a second round), and kept when it snaps and passes the checks;
   where the guessed size does not snap, the far sides are looked for on edges near it. A
   rounded corner the polygon cut off is one corner; an outline broken by dots touching it
   still has a corner with one arm nearly a whole side. Where one arm runs along a
   neighbour's outline, the card lies across that arm. The best-shaped corners are tried
   first, at most 50 a round (a checked cloth offers hundreds).
7. *Sizes*: a card smaller and squatter than the cards beside it, whose sides run on past
   one of its sides, was cut at a line across its face (a wave band): it is extended to the
   next edge (so is a candidate too square to be a card; one that is their size and edged all
   round is a card seen squat through a steep camera, kept as it is). A card twice their size
   whose halves are cards like them, light along the cut, is two touching cards.

With a card locator (``detect_cards(..., locator=...)``, :mod:`ducktable.vision.locator`), a
small network's first look replaces steps 1 and 3-7: it gives every card's rough corners at
once, and only step 2 remains, with a longer reach (:func:`_fitted`). That is about three
times faster on a 12-card table; the edge-map search stays for pictures unlike the tables the
network was trained on (close-ups, enrolment photos) and, in the table reader, for a frame where
the locator missed a card (:class:`~ducktable.vision.frame_reader.FrameReader`).

Where each step lives: this module keeps the public API (:func:`detect_cards`,
:class:`Detection`, cutting crops) and the two searches that tie the steps together;
:mod:`.detect_shapes` the quad geometry and the settings, :mod:`.detect_edges` the picture's
edges and step 2, :mod:`.detect_checks` step 4, :mod:`.detect_candidates` steps 1 and 3, and
:mod:`.detect_choose` steps 5-7.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from .detect_candidates import _candidate_quads, _cards_of, _grown, _splits
from .detect_checks import _acceptable, _is_card, _row_shaped, _squat
from .detect_choose import _choose, _explained, _from_corners, _of_one_size, _panelled, _Tried, _tried_before, _whole
from .detect_edges import _Gradients, _snap, paperness
from .detect_shapes import (
    DetectorSettings,
    _area,
    _box,
    _card_shaped,
    _clockwise,
    _Found,
    _intersection,
    _order_portrait,
    quad_iou,
    sides_of,
)

__all__ = ["CROP_SIZE", "RECUT_MOVES", "SIZE_SCALES", "Detection", "DetectorSettings", "LocatesCards",
           "crop_card", "detect_cards", "laid_at_corners", "moved_sides", "paperness", "quad_iou", "sides_of"]

CROP_SIZE = (100, 150)
"""Width and height of every crop handed to the classifier (portrait)."""

RECUT_MOVES = tuple((side, shift) for side in range(4) for shift in (-0.16, -0.08, 0.08, 0.16)) \
    + tuple((end, shift) for end in (0, 2) for shift in (0.24, 0.33))
"""How a second look cuts a card again: (side, shift) pairs, side 0-3 from the top clockwise of
the portrait outline, moved by the shift times the card's length across that side (negative:
inwards). The outlines of the cards the classifier could not name are most often a little off
- a printed frame inside the card, a shadow or the next card beside it - and a DUCK card found
only down to its wave band is a quarter to a third short, so its ends also move out further.
Of 70 such cards in the 500 bench scenes, 38 were named right from these cuts."""

SIZE_SCALES = (0.92, 1.0, 1.08)
"""How a look at a card's size cuts it again (:meth:`Detection.laid_at_size`): at the size of the
cards beside it times each of these (a tilted camera makes neighbours differ by a few percent),
laid at each of its corners. Where an outline took in part of a neighbour, or lost part of its
own card on two sides, one of its corners is most often still the card's own: of the 32 cards
of the 500 bench scenes no side move could name, 23 were named right this way."""

LOCATOR_REACH = 0.15
"""A side of the network's rough outline moves at most this share of the card's short side
onto the frame's edge. With the first trained locator on bench scenes 0-99: 98.5% of the cards
found as it drew them, 99.0% fitted at 0.1, 99.1% at 0.15, 99.0% at 0.25."""

LOCATOR_SURE = 0.7
LOCATOR_SQUAT_MIN = 0.5
"""Where the locator's word is enough. An outline it scores :data:`LOCATOR_SURE` or more is a
card even where a side has no clear edge; one scored lower must fit the edges on every side
and pass the edge search's card checks (:func:`_is_card`). An outline too square for a card (a
card seen squat through a steep camera, or a square note) needs :data:`LOCATOR_SQUAT_MIN`.
Chosen on 200 tables and 200 empty tables no benchmark reads (seeds 40000-40199, 2,430 cards;
3100000-3100199): 99.51% of the cards found, 99.79% of the outlines cards, 1 false card on the
empty tables; with no checks, 99.55%, 99.67% and 4; refusing every square or unfitted
outline, 98.97% (13 true cards seen squat lost) and 99.75%."""


@dataclass(frozen=True, eq=False)
class Detection:
    """One card found in a frame.

    ``quad``: 4 x 2 float32 frame coordinates of its corners, top-left, top-right,
    bottom-right, bottom-left of the upright (portrait) card; which short side is "top" is
    a guess (cards look the same turned 180 degrees). ``crop``: the card seen straight on,
    ``CROP_SIZE`` BGR. ``score``: 0-1, how much of its outline is backed by a clear edge (an
    outline a card locator drew and no edge fitted: the network's score).
    ``area``: its area in frame pixels. ``picture`` and ``picture_quad``: the picture the
    crop was cut from and the corners in its pixels, kept for :meth:`recuts`.
    """

    quad: np.ndarray
    crop: np.ndarray
    score: float
    area: float
    picture: np.ndarray | None = field(default=None, repr=False)
    picture_quad: np.ndarray | None = field(default=None, repr=False)

    def recuts(self) -> list[np.ndarray]:
        """The card cut again along outlines with one side moved (:data:`RECUT_MOVES`), for a
        second look at a card that could not be named; none without the picture."""
        if self.picture is None or self.picture_quad is None:
            return []
        return [crop_card(self.picture, quad) for quad in moved_sides(self.picture_quad)]

    def laid_at_size(self, size: tuple[float, float]) -> list[Detection]:
        """The card this detection may be, cut at ``size`` (short and long side, in the
        picture's pixels) times each of :data:`SIZE_SCALES`, laid at each of its corners
        (:func:`laid_at_corners`); none without the picture."""
        if self.picture is None or self.picture_quad is None:
            return []
        to_frame = (float(np.linalg.norm(self.quad[2] - self.quad[0]))
                    / max(float(np.linalg.norm(self.picture_quad[2] - self.picture_quad[0])), 1e-6))
        out = []
        for quad in laid_at_corners(self.picture_quad, size):
            in_frame = quad * np.float32(to_frame)
            out.append(Detection(in_frame, crop_card(self.picture, quad), self.score,
                                 _area(in_frame), self.picture, quad))
        return out


_DEFAULTS = DetectorSettings()


class LocatesCards(Protocol):
    """A first look that says roughly where the cards are (:class:`~ducktable.vision.locator.
    CardLocator`): each card's corners in the image's pixels, in any order, and a 0-1 score."""

    def locate(self, image: np.ndarray) -> list[tuple[np.ndarray, float]]: ...


def detect_cards(
    frame: np.ndarray,
    *,
    min_area_frac: float = _DEFAULTS.min_area_frac,
    max_area_frac: float = _DEFAULTS.max_area_frac,
    min_aspect: float = _DEFAULTS.min_aspect,
    max_aspect: float = _DEFAULTS.max_aspect,
    min_score: float = _DEFAULTS.min_score,
    max_side: int = _DEFAULTS.max_side,
    detail: np.ndarray | None = None,
    locator: LocatesCards | None = None,
) -> list[Detection]:
    """Every card in ``frame`` (BGR, BGRA or grey uint8, any size), largest first.

    ``min_area_frac``/``max_area_frac`` bound a card's area as a share of the frame;
    ``min_aspect``/``max_aspect`` bound long side over short side *as seen* (a tilted camera
    squashes or stretches cards, so the range is wide); ``min_score`` is the share of the
    outline that must lie on a clear edge; frames larger than ``max_side`` are searched at
    reduced size (crops still come from the full frame). ``detail``: the same picture at a
    higher resolution (the camera's full frame when ``frame`` is the view the table reader
    works on): quads stay in ``frame``'s pixels, crops are cut from ``detail``, where a card's
    index has more pixels. ``locator``: a network's first look (:mod:`ducktable.vision.locator`)
    in place of the edge-map search; its rough outlines are fitted to the frame's edges.
    """
    settings = DetectorSettings(min_area_frac, max_area_frac, min_aspect, max_aspect,
                                min_score, max_side)
    frame = _as_bgr(frame)
    h, w = frame.shape[:2]
    source, to_source = frame, np.ones(2, np.float32)
    if detail is not None:
        source = _as_bgr(detail)
        to_source = np.array([source.shape[1] / w, source.shape[0] / h], np.float32)
        if abs(to_source[1] / to_source[0] - 1) > 0.05:
            raise ValueError(f"the detail picture ({source.shape[1]}x{source.shape[0]}) is not the "
                             f"frame ({w}x{h}) at another size: give the same view")
    factor = min(1.0, settings.max_side / max(h, w))
    work = frame if factor == 1.0 else cv2.resize(
        frame, (round(w * factor), round(h * factor)), interpolation=cv2.INTER_AREA)
    detections = []
    search = _find_cards(work, settings) if locator is None else \
        _fitted(locator.locate(work), work, settings)
    for found in search:
        quad = _order_portrait(found.quad / factor)
        in_source = quad * to_source
        detections.append(Detection(quad=quad, crop=crop_card(source, in_source),
                                    score=found.support, area=float(abs(cv2.contourArea(quad))),
                                    picture=source, picture_quad=in_source))
    detections.sort(key=lambda d: -d.area)
    return detections


def crop_card(frame: np.ndarray, quad: np.ndarray, size: tuple[int, int] = CROP_SIZE) -> np.ndarray:
    """The card inside ``quad`` (TL, TR, BR, BL) warped to an upright ``size`` image."""
    w, h = size
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    homography = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    return cv2.warpPerspective(frame, homography, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def moved_sides(quad: np.ndarray, moves: Sequence[tuple[int, float]] = RECUT_MOVES
                ) -> list[np.ndarray]:
    """``quad`` with one side at a time moved outwards (positive shift) or inwards, by the shift
    times the length of the sides that meet it; one outline per (side, shift) of ``moves``."""
    q = np.asarray(quad, np.float32)
    out = []
    for side, shift in moves:
        a, b = side, (side + 1) % 4
        before_a, after_b = (side - 1) % 4, (side + 2) % 4
        moved = q.copy()
        moved[a] += shift * (q[a] - q[before_a])
        moved[b] += shift * (q[b] - q[after_b])
        out.append(moved)
    return out


def laid_at_corners(quad: np.ndarray, size: tuple[float, float],
                    scales: Sequence[float] = SIZE_SCALES) -> list[np.ndarray]:
    """Portrait outlines of a card of ``size`` (short, long side) times each scale, laid at each
    corner of ``quad`` along its two sides there, the long side along either of them."""
    q = np.asarray(quad, np.float32)
    short, long = size
    out = []
    for i in range(4):
        corner = q[i]
        along = [q[(i + 1) % 4] - corner, q[(i - 1) % 4] - corner]
        ua, ub = (v / max(float(np.linalg.norm(v)), 1e-6) for v in along)
        for scale in scales:
            for la, lb in ((short * scale, long * scale), (long * scale, short * scale)):
                laid = np.array([corner, corner + la * ua, corner + la * ua + lb * ub,
                                 corner + lb * ub], np.float32)
                out.append(_order_portrait(laid))
    return out


def _as_bgr(frame: np.ndarray) -> np.ndarray:
    if frame.dtype != np.uint8 or frame.ndim not in (2, 3):
        raise ValueError("detect_cards wants an 8-bit BGR, BGRA or grey image")
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        return np.ascontiguousarray(frame[:, :, :3])
    if frame.shape[2] != 3:
        raise ValueError("detect_cards wants an 8-bit BGR, BGRA or grey image")
    return frame

def _find_cards(image: np.ndarray, settings: DetectorSettings) -> list[_Found]:
    h, w = image.shape[:2]
    grads = _Gradients(image)
    min_area = settings.min_area_frac * h * w
    max_area = settings.max_area_frac * h * w
    found: list[_Found] = []
    squat: list[_Found] = []
    merged: list[np.ndarray] = []
    tried: list[_Tried] = []  # largest first
    for area, quad in sorted(((_area(q), q) for q in _candidate_quads(grads, min_area, merged)),
                             key=lambda item: -item[0]):
        if area < min_area:
            continue  # smaller than a card (of 1,953 such tried in 230 frames, none became one)
        if _explained(area, quad, found):
            continue
        if not _card_shaped(quad, 0.85 * settings.min_aspect, 3.3 * settings.max_aspect,
                            1.8, 0.6):
            continue  # snapping moves sides a little: nothing this far off becomes a card
        if _tried_before(area, quad, tried):
            continue  # the same outline from another edge map
        tried.append((area, quad, _box(quad)))
        snapped = _snap(quad, grads)
        if snapped is None:
            continue
        grow = _acceptable(snapped, settings, min_area, max_area) \
            or _row_shaped(snapped, settings, min_area, max_area)
        for cand in (_grown(snapped, grads) if grow else [snapped]):
            single = _acceptable(cand, settings, min_area, max_area)
            if not single and not _row_shaped(cand, settings, min_area, max_area):
                if _squat(cand, settings, min_area, max_area) and _is_card(cand, grads):
                    squat.append(cand)  # perhaps a card cut short (see _whole)
                continue
            cuts = _splits(cand.quad, grads, settings) if cand.area >= 1.6 * min_area else []
            if cuts:  # touching cards - or a tiled pattern, whose tiles are blank
                found += _cards_of(cuts, grads, settings, min_area, max_area)
            elif single and _is_card(cand, grads):
                found.append(cand)
    chosen, grouped = _choose(found)
    cards = _of_one_size(_panelled(grouped, chosen))
    more = _from_corners(merged, cards, grads, settings, min_area, max_area)
    if more and not any(c.support >= 0.9 for c in cards):
        # No well-outlined card to measure by (a light cloth whose dots touch every outline):
        # the cards completed from corners give the size for a second round.
        more += _from_corners(merged, cards + more, grads, settings, min_area, max_area,
                              measure_by=more)
    cards += more
    return _whole(_of_one_size(cards), squat, grads, settings, min_area, max_area)


def _fitted(rough: Sequence[tuple[np.ndarray, float]], image: np.ndarray,
            settings: DetectorSettings) -> list[_Found]:
    """The network's rough outlines (strongest first), each fitted to the image's edges:
    every side moved onto the nearest clear edge within :data:`LOCATOR_REACH` of the short
    side, twice (the second fit starts nearer).

    Where the network is sure (:data:`LOCATOR_SURE`) its outline is kept, fitted or not;
    below that it must fit and pass the card checks. One too square for a card needs
    :data:`LOCATOR_SQUAT_MIN`; one the size settings refuse, or covering half of a stronger
    one (the same card found twice), is dropped.
    """
    h, w = image.shape[:2]
    grads = _Gradients(image, with_edges=False)
    min_area = settings.min_area_frac * h * w
    max_area = settings.max_area_frac * h * w
    found: list[_Found] = []
    for corners, score in rough:
        quad = _clockwise(corners.astype(np.float32))
        card, fitted = _Found(quad, score, _area(quad)), False  # unfitted: the network's score
        for _ in range(2):
            snapped = _snap(card.quad, grads, LOCATOR_REACH)
            if snapped is None:
                break
            card, fitted = snapped, True
        if not min_area <= card.area <= max_area:
            continue
        if score < LOCATOR_SURE and not (fitted and _is_card(card, grads)):
            continue
        if not _card_shaped(card.quad, settings.min_aspect, settings.max_aspect) and (
                score < LOCATOR_SQUAT_MIN  # (below: sides within 2 times, corners 53-127 deg)
                or not _card_shaped(card.quad, 1.0, settings.max_aspect, 2.0, 0.6)):
            continue
        if any(_intersection(card.quad, other.quad) >= 0.5 * min(card.area, other.area)
               for other in found):
            continue
        found.append(card)
    return found
