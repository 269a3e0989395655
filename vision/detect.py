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
network was trained on (close-ups, enrolment photos, piles in the table reader).
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

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

EDGE_MIN = 24.0
"""Smallest Sobel response (blurred grey or paperness image) that counts as an edge: a step of
~10 grey levels."""

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
MARGIN_EVEN_MIN = 0.9
"""Share of a card's outline that must have its light margin just inside (see
:func:`_margin`)."""

MARGIN_PAPER_MIN = 0.45
"""Smallest paperness (see :func:`_margin`) of a card's margin: paper under tinted light
measures 0.6 and more."""

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

MARGIN_LIGHT = 0.8
"""A printed panel grows to the card's outline across a margin at least this light, as a share
of the panel's face: a thin margin on a dark cloth, blurred, reads 15% darker than the panel
inside it (at 0.9, 7 more bench cards were found only by their printed frame; at 0.7, 4)."""


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


@dataclass(frozen=True)
class DetectorSettings:
    """What counts as a card (see :func:`detect_cards`)."""

    min_area_frac: float = 0.0015
    max_area_frac: float = 0.9
    min_aspect: float = 1.1
    max_aspect: float = 2.3
    min_score: float = 0.6
    max_side: int = 1280


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


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads."""
    inter = _intersection(a, b)
    union = _area(a) + _area(b) - inter
    return inter / union if union > 0 else 0.0


def paperness(image: np.ndarray, grey: np.ndarray | None = None) -> np.ndarray:
    """Grey level minus colourfulness: card paper (light and neutral) stands out from coloured
    and from dark tables alike, even where their plain grey levels are the same. ``grey``:
    the image's grey level where the caller has it already."""
    b, g, r = cv2.split(image)
    top = cv2.max(cv2.max(b, g), r)
    bottom = cv2.min(cv2.min(b, g), r)
    if grey is None:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return cv2.subtract(grey, cv2.subtract(top, bottom))


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


# ---- the search ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Found:
    quad: np.ndarray  # clockwise on screen, float32
    support: float
    area: float


class _Gradients:
    """The blurred grey image and its edges, sampled at sub-pixel points.

    Gradients are taken on the grey image and on its "paperness" (grey minus colourfulness),
    keeping at each pixel whichever is stronger: a light card on a teal cloth of the same grey
    level still has a clear edge.
    """

    def __init__(self, image: np.ndarray, *, with_edges: bool = True) -> None:
        """``with_edges`` False leaves the Canny map until it is asked for (:attr:`edges`):
        fitting the card locator's outlines needs only the gradients, 3 ms less a frame."""
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        self.blurred = cv2.GaussianBlur(grey, (5, 5), 0)
        self.paper = cv2.GaussianBlur(paperness(image, grey), (5, 5), 0)
        gx, gy, px, py = self._derivatives()
        if with_edges:
            self.__dict__["edges"] = self._canny(gx, gy, px, py)  # the cached property, now
        grey_strength = cv2.add(cv2.convertScaleAbs(gx, alpha=0.25),
                                cv2.convertScaleAbs(gy, alpha=0.25))
        paper_strength = cv2.add(cv2.convertScaleAbs(px, alpha=0.25),
                                 cv2.convertScaleAbs(py, alpha=0.25))
        use_paper = cv2.compare(paper_strength, grey_strength, cv2.CMP_GT)
        cv2.copyTo(px, use_paper, gx)
        cv2.copyTo(py, use_paper, gy)
        self.gradient = cv2.merge([gx, gy])
        """The stronger of the two images' x and y derivatives, as two channels: one lookup
        samples both (the side searches sample it hundreds of times a frame)."""
        self.margins: dict[tuple[str, bytes], tuple[float, float]] = {}
        """:func:`_margin` of each quad measured (a card's is asked again by later steps)."""
        self.cuts: dict[tuple[str, bytes, bytes], bool] = {}
        """:func:`_straight_edges` of each line looked at (two ways of cutting share lines)."""

    @functools.cached_property
    def edges(self) -> np.ndarray:
        """Canny edges of the grey and the paperness image together."""
        return self._canny(*self._derivatives())

    def _derivatives(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Canny's own derivatives (3 x 3 Sobel, replicated border), so Canny reuses them."""
        border = cv2.BORDER_REPLICATE
        return (cv2.Sobel(self.blurred, cv2.CV_16S, 1, 0, ksize=3, borderType=border),
                cv2.Sobel(self.blurred, cv2.CV_16S, 0, 1, ksize=3, borderType=border),
                cv2.Sobel(self.paper, cv2.CV_16S, 1, 0, ksize=3, borderType=border),
                cv2.Sobel(self.paper, cv2.CV_16S, 0, 1, ksize=3, borderType=border))

    @staticmethod
    def _canny(gx: np.ndarray, gy: np.ndarray, px: np.ndarray, py: np.ndarray) -> np.ndarray:
        return cv2.bitwise_or(cv2.Canny(gx, gy, 20, 50, L2gradient=True),
                              cv2.Canny(px, py, 20, 50, L2gradient=True))

    def edge_across(self, points: np.ndarray, normal: np.ndarray) -> np.ndarray:
        """|derivative along normal| where the edge runs along the line, else 0.

        An edge crossing the line at a slant (a lattice, texture) has a gradient far from the
        normal; only edges within ~27 degrees of the line's direction count.
        """
        sx, sy = self._sample(points)
        nx, ny = normal[..., 0], normal[..., 1]
        n = sx * nx  # in place from here: hundreds of calls a frame
        n += sy * ny
        np.abs(n, out=n)
        t = sy * nx
        t -= sx * ny
        np.abs(t, out=t)
        t *= 2
        n *= n >= t  # (n >= 0: the same as zeroing where n < t, without boolean indexing)
        return n

    def _sample(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """x and y derivatives at ``points`` (rows x columns x 2, frame coordinates)."""
        mx = np.ascontiguousarray(points[..., 0], dtype=np.float32)
        my = np.ascontiguousarray(points[..., 1], dtype=np.float32)
        both = cv2.remap(self.gradient, mx, my, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        return both[..., 0], both[..., 1]

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


def _squat(cand: _Found, settings: DetectorSettings, min_area: float, max_area: float) -> bool:
    """Well edged and as large as a card, but too square for one."""
    return (min_area <= cand.area <= max_area and cand.support >= settings.min_score
            and _card_shaped(cand.quad, 1.0, settings.min_aspect))


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


_BEYOND_ENDS = np.concatenate([np.linspace(-0.25, -0.08, 6), np.linspace(1.08, 1.25, 6)]
                              ).astype(np.float32)
"""Where :func:`_runs_on` looks along a side's line, as fractions of the side (0: its start)."""
_NEAR_LINE = np.arange(-1.5, 1.51, 0.5, dtype=np.float32)
"""Offsets (px) across a side's line within which :func:`_runs_on` takes an edge as on it."""


def _runs_on(quad: np.ndarray, grads: _Gradients) -> np.ndarray:
    """For each side (4) and each of its ends (before its first corner, past its second),
    whether a straight edge carries on there along the side's line."""
    b = quad[_NEXT]
    normal = _normals(b - quad)
    ts = _BEYOND_ENDS
    base = quad[:, None, :] + ts[None, :, None] * (b - quad)[:, None, :]
    pts = _stepped(base, _NEAR_LINE, normal[:, None, :])
    across = grads.edge_across(pts.reshape(4 * len(ts), -1, 2),
                               np.repeat(normal, len(ts), axis=0)[:, None, :])
    strong = (across.max(axis=1) >= EDGE_MIN).reshape(4, 2, -1)
    return _shares(strong, axis=2) >= 0.6


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


def _box(quad: np.ndarray) -> tuple[float, float, float, float]:
    xs, ys = quad[:, 0].tolist(), quad[:, 1].tolist()
    return min(xs), min(ys), max(xs), max(ys)


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


def _far_side_at(v: np.ndarray, along: np.ndarray, across: np.ndarray, guess: float,
                 width: float, grads: _Gradients) -> list[float]:
    """Distances from ``v`` along ``along`` (0.75-1.35 x ``guess``) where an edge crosses the
    arm over most of the band 15-60% of ``width`` out along ``across``: the two nearest the
    guess. Each sample may find its edge 2 px nearer or further (the far side of a card seen in
    perspective is not quite parallel to the near one)."""
    steps = np.arange(0.75 * guess, 1.35 * guess, 0.5, dtype=np.float32)
    offsets = _linspace32(0.15 * width, 0.6 * width, 10)
    pts = (v[None, None, :] + steps[None, :, None] * along[None, None, :]
           + offsets[:, None, None] * across[None, None, :])
    hit = grads.edge_across(pts, np.broadcast_to(along.astype(np.float32), pts.shape)) >= EDGE_MIN
    near = hit.copy()
    for shift in (1, 2, 3, 4):
        near[:, shift:] |= hit[:, :-shift]
        near[:, :-shift] |= hit[:, shift:]
    share = _shares(near, axis=0)
    ends = []
    strong = share >= 0.7
    start = None
    for i, on in enumerate(np.append(strong, False).tolist()):
        if on and start is None:
            start = i
        elif not on and start is not None:
            run = share[start:i]
            best = np.flatnonzero(run == run.max())
            ends.append(float(steps[start + int(best[len(best) // 2])]))
            start = None
    return sorted(ends, key=lambda end: abs(math.log(end / guess)))[:2]


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


def sides_of(quad: np.ndarray) -> tuple[float, float]:
    """Mean short and long side of a quad."""
    sides = _side_lengths(quad)
    a, b = float(sides[0] + sides[2]) / 2, float(sides[1] + sides[3]) / 2
    return (min(a, b), max(a, b))


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


def _has_face(cand: _Found, grads: _Gradients) -> bool:
    """A card's face has something printed on it, and not a grid of lines along its sides.

    Plain paper and sticky notes have nothing inside; the squares of a checked cloth or tiles
    have only straight lines along both sides. The face is judged on a 40 x 60 view, 15% in.
    """
    w, h = 40, 60
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    to_rect = cv2.getPerspectiveTransform(cand.quad.astype(np.float32), target)
    view = cv2.warpPerspective(grads.blurred, to_rect, (w, h), flags=cv2.INTER_LINEAR)
    gx = cv2.Sobel(view, cv2.CV_32F, 1, 0, ksize=3)[9:-9, 6:-6]
    gy = cv2.Sobel(view, cv2.CV_32F, 0, 1, ksize=3)[9:-9, 6:-6]
    magnitude = np.abs(gx) + np.abs(gy)
    edges = magnitude >= 1.25 * EDGE_MIN
    if _share(edges) < 0.05:
        return False
    ax, ay = np.abs(gx[edges]), np.abs(gy[edges])
    weight = magnitude[edges]
    across_x = ay <= 0.21 * ax  # edges within ~12 degrees of the card's long axis
    across_y = ax <= 0.21 * ay  # ... of its short axis
    total = float(weight.sum())
    share_x = float(weight[across_x].sum()) / total
    share_y = float(weight[across_y].sum()) / total
    if share_x + share_y <= 0.85:
        return True  # curves and slants: printed art
    # Only lines along the sides: a checked cloth's few grid lines - or a card printed with
    # many stripes (DUCK's towel); the latter is dense with edges.
    return bool(_share(edges) >= 0.5 and min(share_x, share_y) < 0.2 * (share_x + share_y))


def _is_card(cand: _Found, grads: _Gradients, *, even_min: float = MARGIN_EVEN_MIN,
             paper_min: float = MARGIN_PAPER_MIN) -> bool:
    """Sides that stop at the corners, a printed face, a light margin all round (at least
    ``even_min`` of it even, its paperness at least ``paper_min``: see :func:`_margin`).

    The test a checked cloth's cells fail most often comes first: a gingham offers hundreds
    of corners a frame to complete, and every one is judged here.
    """
    if _part_of_grid(cand, grads) or not _has_face(cand, grads):
        return False
    even, neutral = _margin(cand.quad, grads)
    return even >= even_min and neutral >= paper_min


def _margin(quad: np.ndarray, grads: _Gradients) -> tuple[float, float]:
    """:func:`_measure_margin`, measured once per quad and frame."""
    key = (quad.dtype.str, quad.tobytes())
    known = grads.margins.get(key)
    if known is None:
        known = grads.margins[key] = _measure_margin(quad, grads)
    return known


def _measure_margin(quad: np.ndarray, grads: _Gradients) -> tuple[float, float]:
    """How card-like the band just inside the outline is: (evenness, paperness).

    Along each side, the lightest grey level a few pixels inwards is taken (a card's paper
    margin). Evenness is the share of the outline where that is nearly as light as nearby
    along the same side: uniformly light all round for a card (a glare or shadow changes it
    only slowly), alternating for a tile cut from a checked cloth or a shape on a patterned
    table. Paperness is the median of paperness over grey level there: near 1 for neutral
    paper, low for a coloured sticky note or cloth.
    """
    level, paper = _margin_levels(quad, grads)
    neutral = float(_median((paper / np.maximum(level, 1.0)).ravel(), axis=0))
    local = level.copy()  # the largest within 2 samples along the side
    for shift in (1, 2):
        local[:, shift:] = np.maximum(local[:, shift:], level[:, :-shift])
        local[:, :-shift] = np.maximum(local[:, :-shift], level[:, shift:])
    return _share(level >= 0.7 * local), neutral


def _margin_levels(quad: np.ndarray, grads: _Gradients, n: int = 16
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Along each side (4 x ``n`` samples), the lightest grey level and paperness found a few
    pixels inwards: where a card's paper margin is."""
    base, normal = _side_frames(quad, n, 0.1, 0.9)
    short = float(_side_lengths(quad).min())
    depths = _linspace32(1.0, max(2.5, 0.08 * short), 6)
    level, paper = _lightest_inwards(_stepped(base, -depths, normal[:, None, :]), grads)
    return level.reshape(4, n), paper.reshape(4, n)


def _lightest_inwards(pts: np.ndarray, grads: _Gradients) -> tuple[np.ndarray, np.ndarray]:
    """The lightest grey level and paperness over the last-but-one axis of ``pts`` (..., depths,
    2): for each sample along an outline, the paper margin found going inwards. Flat arrays, in
    the order of ``pts``; one row of samples per entry of its first axis (OpenCV's remap takes
    at most 32,767 rows)."""
    depth = pts.shape[-2]
    mx = np.ascontiguousarray(pts[..., 0].reshape(len(pts), -1))
    my = np.ascontiguousarray(pts[..., 1].reshape(len(pts), -1))
    level = cv2.remap(grads.blurred, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    paper = cv2.remap(grads.paper, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return (level.reshape(-1, depth).max(axis=1).astype(np.float32),
            paper.reshape(-1, depth).max(axis=1).astype(np.float32))


def _part_of_grid(cand: _Found, grads: _Gradients) -> bool:
    """Do most of its sides run on past its corners, as the lines of a checked cloth do?

    A card's outline stops at its corners; in a row of touching cards only the long sides go
    on into the neighbours. A square picked out of a grid has lines going on everywhere.
    """
    continues = _runs_on(cand.quad, grads).all(axis=1)  # at both ends
    return int(continues.sum()) >= 3


def _acceptable(cand: _Found, settings: DetectorSettings, min_area: float,
                max_area: float) -> bool:
    return (min_area <= cand.area <= max_area and cand.support >= settings.min_score
            and _card_shaped(cand.quad, settings.min_aspect, settings.max_aspect))


def _row_shaped(cand: _Found, settings: DetectorSettings, min_area: float,
               max_area: float) -> bool:
    return (2 * min_area <= cand.area <= max_area and cand.support >= settings.min_score
            and _card_shaped(cand.quad, settings.max_aspect, 3 * settings.max_aspect))


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


def _snap(quad: np.ndarray, grads: _Gradients, reach_frac: float = 0.05) -> _Found | None:
    """Refit each side on the nearest clear edge within ``reach_frac`` of the shortest side
    (2 to 6 pixels by default); None when a side has no clear edge."""
    sides = _side_lengths(quad)
    if sides.min() < 8:
        return None
    n = int(min(32, max(10, sides.max() / 4)))
    base, normal = _side_frames(quad, n)
    # np.clip's figure (a float32 within float32 bounds), without its overhead
    reach = float(np.float32(min(max(float(reach_frac * sides.min()), 2.0),
                                 max(6.0, reach_frac * 120))))
    offsets = np.arange(-reach, reach + 0.01, 0.5, dtype=np.float32)
    pts = _stepped(base, offsets, normal[:, None, :])
    across = grads.edge_across(pts.reshape(4 * n, -1, 2),
                               np.repeat(normal, n, axis=0)[:, None, :])
    best, strong = _nearest_peaks(across.reshape(4, n, -1), offsets)
    shares = _shares(strong, axis=1)
    if shares.min() < 0.35:
        return None
    chosen = pts[np.arange(4)[:, None], np.arange(n)[None, :], best]
    lines = [cv2.fitLine(chosen[i][strong[i]].reshape(-1, 1, 2), cv2.DIST_HUBER, 0, 0.01,
                         0.01).ravel().tolist() for i in range(4)]
    corners = [_intersect(lines[i - 1], lines[i]) for i in range(4)]
    if any(c is None for c in corners):
        return None
    refined = _clockwise(np.array(corners, np.float32))
    if np.abs(refined - quad).max() > 0.2 * sides.min() + 3:
        return None  # the refit wandered off: not a clean quadrilateral
    return _Found(refined, float(shares.mean()), _area(refined))


def _stepped(base: np.ndarray, offsets: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """``base[..., None, :] + offsets[:, None] * normal[..., None, :]`` in float32: every base
    point moved by each offset along its normal. Filled one coordinate at a time, which numpy
    does several times faster than a broadcast over a last axis of two (the side searches
    build thousands of these a frame)."""
    out = np.empty((*base.shape[:-1], len(offsets), 2), np.float32)
    for axis in (0, 1):
        out[..., axis] = base[..., None, axis] + offsets * normal[..., None, axis]
    return out


def _nearest_peaks(across: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per sample, the edge peak nearest the current line (not the strongest: a touching
    card's edge a few pixels away is often stronger), and whether there is one at all (where
    there is none, the index is meaningless)."""
    is_peak = across >= EDGE_MIN  # (not above a neighbour off the ends: there is none)
    is_peak[..., 1:] &= across[..., 1:] >= across[..., :-1]
    is_peak[..., :-1] &= across[..., :-1] >= across[..., 1:]
    distance = np.where(is_peak, np.abs(offsets), np.float32(np.inf))
    return distance.argmin(axis=-1), np.asarray(is_peak.any(axis=-1))  # of two as near: the inner


def _intersect(l1: list[float], l2: list[float]) -> tuple[float, float] | None:
    """Where two lines meet, each given as ``cv2.fitLine`` has it: direction, then a point."""
    rx, ry, px, py = l1
    sx, sy, qx, qy = l2
    cross = rx * sy - ry * sx
    if abs(cross) < 1e-6:
        return None
    t = ((qx - px) * sy - (qy - py) * sx) / cross
    return px + t * rx, py + t * ry


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
