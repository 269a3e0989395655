"""The one card in a photograph taken to enrol or name it: the table detector first, then the
card's silhouette.

The table detector (:mod:`ducktable.vision.detect`) follows edges and is tuned for cards a
fixed camera sees on a table. A phone or webcam photo of one card breaks its assumptions: the
card may fill most of the picture, a lit patch of cloth or a fingertip may join its outline,
and a stretched webcam frame squashes it. When the detector finds nothing, this module looks
for the card as a region instead: a card is lighter than the table, or whiter, or simply other
than the photo's border. Each such region's convex hull is cut back to its four longest sides,
so that fingers over an edge or a corner stay outside the card; what remains must be
card-shaped (four near-right angles, long side 1.1-1.75 times the short), be filled by the
region and be outlined by it. A card the picture's edge cuts is rebuilt from its own sides:
the hull's sides along the edge are the edge's and are left out, and the card's four sides,
each followed by the region in the picture for a part of its length, are crossed beyond it;
at most a quarter of the card may lie outside. Where a whole side of the card is off the
picture, where it runs is a guess: only the part the picture shows is taken, with the edge for
a side, and only when the edge cuts it along a strip (its corners on the edge near-right; it
counts as :data:`EDGE_CUT` hidden), never when the edge cuts it aslant across a corner, as it
cuts a slanted screen or door. When none of that finds a card, a hand may cover too much of it
(a fifth, a third) for its region to fill or outline it: a rectangle on the straight stretches
of the paper's region is then taken when each of its sides is seen along a part of its length,
the table lies beyond them, and what the region leaves out of it is not the table (a hand over
the card, not a gap in a light thing). Doors, screens and keyboards fail those tests: too long, cut
aslant or mostly outside the picture, or not one solid region. The crop paints the part of a
card outside the picture in the colour of the card's edge, so that it reads as blank paper,
not as ink.

Each card found also says how much of it is hidden (:func:`hidden_share`): by what reaches over
its outline from outside (a hand, also one coming in from off the picture) or by the picture's
edge (``cut``: the share of the rebuilt card outside the picture). Enrolment refuses a card
hidden at all; naming answers unknown for one hidden past :data:`MAX_HIDDEN_TO_NAME`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np
from ducktable.vision.detect import crop_card, detect_cards
from ducktable.vision.detect_shapes import _order_portrait
from ducktable.vision.photo_rectangles import (
    outline_support,
    outward_normal,
    perimeter_share,
    rectangle_guesses,
    short_side,
    side_support,
    spill_beyond,
    spill_per_side,
)

WORK_SIDE = 400
"""Silhouettes are looked for at this long side (px): a card of 4% of the picture still spans
tens of pixels, and the search takes a few ms."""

MIN_AREA = 0.03
MAX_AREA = 0.97
ASPECT = (1.1, 1.75)
"""Long side over short side as photographed: playing cards are 1.40, bridge and SET cards 1.56,
tarot 1.72; a slanted view or a stretched webcam frame moves that by up to a fifth."""

HELD_ASPECT = (1.25, 1.75)
"""The same for a card a hand holds, whose sides are guessed: no squarer than a card seen a
little slanted, for a part of a card cut off by a finger is often near square."""

MAX_ANGLE_ERROR = 25.0
MIN_FILLED = 0.88
"""Share of the card's quad the region fills (the pips and index, holes in a mask, are inside
the region's outer outline and count as filled)."""

MIN_OUTLINED = 0.6
"""Share of the quad's perimeter that the region's own border follows."""

MAX_CUT = 0.08
"""Largest share of a held card's outline that may lie outside the picture (a corner cut off):
its sides are guessed, and a guess that runs off the picture is seldom the card."""

MAX_REBUILT_CUT = 0.25
"""Largest share of a card's outline outside the picture when its four sides are all seen in
it and crossed beyond the edge: the rest still shows enough of the card to tell it."""

MIN_SIDE_SEEN = 0.15
"""Least share of each side of a card cut by the picture's edge along which the card's region
is seen to run in the picture: a side seen only as a stub near a corner, or one that only the
picture's edge bounds, does not say where it runs."""

EDGE_SQUARE = 10.0
"""Largest error from a right angle (degrees) of the corners where a quad with the picture's
edge for a side meets it: a card cut along a strip by the edge shows near-right ones, one cut
aslant across a corner (or a screen or a door) does not, and its crop would be skewed."""

FRAME_PX = 1.5
"""Hull sides this near (px at the search size) to the picture's edge along their length are
the edge's, not the card's."""

HELD_CHECKED = 12
"""Rectangles per region, best outlined first, checked fully when the hull's sides fail."""

MAX_SPILL = 0.12
"""Largest share of a band just outside a held card's outline that may have the card's colour
(more, and the outline is a part of the card cut off by a finger's edge)."""

_MERGE_ANGLE = np.radians(12)
_OPENINGS = (3, 11, 25)


@dataclass(frozen=True)
class FoundCard:
    """A card found in a photo: its outline (TL, TR, BR, BL in the photo's pixels, portrait),
    the upright crop and how much of the card is hidden."""

    quad: np.ndarray
    crop: np.ndarray
    hidden: Hidden


def find_photo_cards(image: np.ndarray) -> list[FoundCard]:
    """The cards in ``image`` (BGR): the table detector's when it finds any, otherwise at most
    one card found by its silhouette."""
    detections = detect_cards(image, min_area_frac=MIN_AREA, min_aspect=ASPECT[0], max_aspect=ASPECT[1])
    if detections:
        return [FoundCard(np.asarray(d.quad), np.asarray(d.crop), hidden_share(image, d.quad))
                for d in detections]
    quad = silhouette_card(image)
    if quad is None:
        return []
    return [FoundCard(quad, crop_in_picture(image, quad), hidden_share(image, quad))]


def crop_in_picture(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """:func:`crop_card`, the part of the card outside the picture painted in the colour of its
    edge where seen (its paper): smearing the picture's last row out over it, as the crop
    does, would draw stripes of whatever ink that row crosses, which read as print."""
    crop = crop_card(image, quad)
    h, w = crop.shape[:2]
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    homography = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), target)
    seen = _in_picture(image.shape, homography, (w, h))
    if seen.all():
        return crop
    seen = cv2.erode(seen.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0  # no smeared rim
    rim = np.zeros((h, w), bool)
    band = max(2, min(h, w) // 20)
    rim[:band], rim[-band:], rim[:, :band], rim[:, -band:] = True, True, True, True
    edge = crop[rim & seen] if np.any(rim & seen) else crop[seen] if np.any(seen) else crop.reshape(-1, 3)
    crop = crop.copy()
    crop[~seen] = np.median(edge, axis=0).astype(crop.dtype)
    return crop


def _in_picture(shape: tuple[int, ...], homography: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Which pixels of a canvas of ``size`` that ``homography`` maps the photo onto come from
    inside the photo (a card cut by its edge leaves the rest empty)."""
    return cv2.warpPerspective(np.full(shape[:2], 255, np.uint8), homography, size,
                               flags=cv2.INTER_NEAREST, borderValue=0) > 0


def photo_crops(image: np.ndarray) -> list[np.ndarray]:
    """:func:`find_photo_cards`' crops: the ``CardFinder`` that enrolment and the photo
    benchmark use."""
    return [card.crop for card in find_photo_cards(image)]


def silhouette_card(image: np.ndarray) -> np.ndarray | None:
    """The outline of the one card found as a region of ``image``, or ``None``. The regions of
    the lightness, whiteness and unlike-the-border masks are tried first, whole card then held
    card; the paper-colour mask only when they find nothing (it cuts a card free of a hand or
    a lamp's spot it touches, but outlines a card it need not cut less closely); last, a card
    a hand covers in part among the paper's regions (:func:`_covered_card`)."""
    h, w = image.shape[:2]
    scale = WORK_SIDE / max(h, w)
    small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))),
                       interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    min_area = MIN_AREA * small.shape[0] * small.shape[1]
    for masks, spill in ((_masks(lab), None), ([_paper_mask(lab)], lab)):
        regions = list(_regions(masks, small.shape[:2]))
        best = _whole_card(regions, small.shape[:2], spill)
        if best is None:
            guessed = [(region, rectangle_guesses(region, min_area, HELD_ASPECT)) for region in regions]
            best = _held_card(guessed, small.shape[:2], lab)
        if best is not None:
            return _order_portrait(best[1] / scale)
    covered = _covered_card(guessed, small.shape[:2], lab)
    return None if covered is None else _order_portrait(covered / scale)


def _whole_card(regions: list[np.ndarray], shape: tuple[int, int],
                spill_lab: np.ndarray | None = None) -> tuple[float, np.ndarray] | None:
    """The best card outline bounded by the four longest sides of a region's hull; given the
    photo (``spill_lab``), only one past whose sides the card's colour does not go on (a
    patterned thing's patch of the paper's colour is card-shaped too)."""
    best: tuple[float, np.ndarray] | None = None
    for region in regions:
        for quad in _four_sides(region, shape):
            fitted = _fitted_to_outline(quad, region)
            if fitted is None or (_side_on_edge(fitted, shape)
                                  and not _square_to_the_edge(fitted, shape)):
                continue  # the part the picture shows of something its edge cuts aslant
            score = _card_score(fitted, region, shape)
            if score is None or (spill_lab is not None
                                 and spill_beyond(fitted, spill_lab) > MAX_SPILL):
                continue
            if best is None or score > best[0]:
                best = (score, fitted)
            break  # a card rebuilt beyond the picture before the part of it the picture shows
    return best


Guessed = list[tuple[np.ndarray, np.ndarray]]
"""Regions' outlines, each with the rectangles guessed on its straight stretches
(:func:`rectangle_guesses`)."""


def _held_card(guessed: Guessed, shape: tuple[int, int], lab: np.ndarray) -> tuple[float, np.ndarray] | None:
    """A card outline among the rectangles on each region's straight stretches (a card a hand
    holds, whose hull's longest sides are the hand's). Of those the region fills and outlines,
    past whose sides the card's colour does not go on, the largest wins (a part of the card
    that the fingers leave free is card-shaped too), or the best outlined of those nearly the
    same as it."""
    passed: list[tuple[float, np.ndarray]] = []
    for region, guesses in guessed:
        if not len(guesses):
            continue
        drawn = _border(region, shape)
        support = outline_support(guesses, drawn)
        checked = 0
        for i in np.argsort(-support):
            if support[i] < MIN_OUTLINED or checked == HELD_CHECKED:
                break
            if _inside_share(guesses[i], shape) < 1 - MAX_CUT:
                continue
            checked += 1
            score = _card_score(guesses[i], region, shape, MAX_CUT)
            if score is not None and spill_beyond(guesses[i], lab) <= MAX_SPILL:
                passed.append((score, guesses[i]))
    return _largest_of(passed)


def _border(region: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``region``'s outline drawn 3 px wide on a blank picture of ``shape``."""
    drawn = np.zeros(shape, np.uint8)
    cv2.drawContours(drawn, [region], -1, 255, 3)
    return drawn


def _largest_of(passed: list[tuple[float, np.ndarray]]) -> tuple[float, np.ndarray] | None:
    """The largest outline of ``passed`` (a part of the card that the fingers leave free is
    card-shaped too), or the best scored of those nearly the same as it."""
    if not passed:
        return None
    largest = max(passed, key=lambda found: cv2.contourArea(found[1]))[1]
    return max((found for found in passed if _overlap(found[1], largest) >= 0.85),
               key=lambda found: found[0])


COVERED_FILLED = 0.6
"""Least share of a covered card's rectangle that its paper's region fills (the rest under a
hand): a part of the card hidden past this is guessed, not seen."""

COVERED_OUTLINED = 0.4
"""Least share of a covered card's perimeter in the picture that its region's border follows."""

COVERED_SIDE = 0.2
"""Least share of each side in the picture that the region's border follows: a rectangle
guessed past the card onto the hand has a side that runs over no border at all."""

COVERED_CUT = 0.2
"""Largest share of a covered card's rectangle outside the picture."""

COVERED_BEYOND = 0.35
COVERED_SPILL = 0.2
"""Largest share of the card's colour in a band beyond any one side, ``COVERED_BEYOND`` of the
short side deep: a part of a card cut off by a finger lying across it has the rest of the card
beyond the finger."""

COVERED_LIKE_TABLE = 0.15
"""Largest share of what the region leaves out of the rectangle that has the table's colour:
the rest is a hand (or another thing) over the card, not the table through a gap."""

TABLE_COLOUR = 8.0
TABLE_LIGHT = 25.0
"""Distance in the a*b* plane and in lightness (OpenCV's 0-255 Lab) within which a pixel has
the table's colour."""

SIDE_ON_TABLE = 0.5
SIDE_COLOUR = 10.0
"""Least share of the samples beyond each side's followed stretch that are within
``SIDE_COLOUR`` in the a*b* plane of the table's colour (lightness aside: a lamp lights one
side and not another): a side along a finger's edge has the hand beyond it."""


def _covered_card(guessed: Guessed, shape: tuple[int, int], lab: np.ndarray) -> np.ndarray | None:
    """A card a hand covers in part, among the rectangles on the straight stretches of its
    paper's regions: each side seen along a part of its length with the table beyond it, no
    more of the card beyond any side, and the part its region leaves out not the table's
    colour (the colour beyond the card's seen sides). Each side is refitted to the outline
    along it; the largest such card wins, or the best filled and outlined of those nearly the
    same as it (as for a held card)."""
    passed: list[tuple[float, np.ndarray]] = []
    for region, guesses in guessed:
        if not len(guesses):
            continue
        drawn = _border(region, shape)
        followed, seen = side_support(guesses, drawn)
        outlined = perimeter_share(followed, seen)
        filled_region = np.zeros(shape, np.uint8)
        cv2.drawContours(filled_region, [region], -1, 255, -1)
        checked = 0
        for i in np.argsort(-outlined):
            if outlined[i] < COVERED_OUTLINED or checked == HELD_CHECKED:
                break
            quad = guesses[i]
            in_view = seen[i] >= 0.5
            if np.any(followed[i][in_view] < COVERED_SIDE) or _inside_share(quad, shape) < 1 - COVERED_CUT \
                    or _side_on_edge(quad, shape):
                continue  # a side along the picture's edge is the edge's, not a seen side of the card
            checked += 1
            if spill_beyond(quad, lab) > MAX_SPILL or spill_per_side(quad, lab, COVERED_BEYOND).max() > COVERED_SPILL:
                continue
            filled, like_table = _left_out(quad, filled_region, drawn, lab)
            if filled < COVERED_FILLED or like_table > COVERED_LIKE_TABLE or \
                    _off_picture_unseen(quad, filled_region) > EDGE_UNSEEN:
                continue
            quad = _refitted(quad, region)
            passed.append((filled + float(outlined[i]), quad))
    best = _largest_of(passed)
    return None if best is None else best[1]


EDGE_UNSEEN = 0.5
"""Largest share of the picture's edge inside a covered card's rectangle that its region does
not reach (a finger may cover the card where it runs off the picture)."""


def _off_picture_unseen(quad: np.ndarray, region: np.ndarray) -> float:
    """The share of the picture's edge inside ``quad`` that ``region`` does not reach: a card
    that runs off the picture crosses its edge there; a rectangle placed off the picture by the
    card's proportions beside a card whose own side is seen does not."""
    h, w = region.shape
    inside = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 255)
    rim = np.zeros((h, w), bool)
    rim[0], rim[-1], rim[:, 0], rim[:, -1] = True, True, True, True
    edge = rim & (inside > 0)
    if not np.any(edge):
        return 0.0
    return float(np.mean(region[edge] == 0))


REFIT_MOVE = 0.08
"""Farthest a covered card's corner may move (a share of its short side) when its sides are
refitted to the outline along them; farther, the refit followed a finger or the picture's
edge, not the card's side."""


def _refitted(quad: np.ndarray, region: np.ndarray) -> np.ndarray:
    """``quad`` with its sides refitted to ``region``'s outline along them (a guessed rectangle
    is square, a card seen a little slanted is not), where that keeps a card's shape and moves
    no corner far."""
    fitted = _fitted_to_outline(quad, region)
    if fitted is None or not _near_right_angles(fitted) or not HELD_ASPECT[0] <= _aspect(fitted) <= ASPECT[1]:
        return quad
    moved = float(np.linalg.norm(fitted - quad, axis=1).max())
    return fitted if moved <= REFIT_MOVE * short_side(quad) else quad


def _left_out(quad: np.ndarray, region: np.ndarray, border: np.ndarray, lab: np.ndarray) -> tuple[float, float]:
    """The share of ``quad`` (in the picture) its ``region`` fills, and the share of the rest
    that has the table's colour: the median colour just outside the sides where the region's
    ``border`` runs along them; 1 when too little of that is seen, or when beyond a side's
    followed stretch is mostly something else (a finger whose edge the side is)."""
    h, w = region.shape
    inside = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 255)
    area = int(np.count_nonzero(inside))
    left = (inside > 0) & (region == 0)
    filled = 1.0 - np.count_nonzero(left) / max(1, area)
    reach = max(3.0, 0.08 * short_side(quad))
    table: list[tuple[int, np.ndarray]] = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        normal = outward_normal(quad, i)
        for t in (np.arange(24) + 0.5) / 24:
            p = a + (b - a) * t
            x, y = int(round(p[0])), int(round(p[1]))
            if not (0 <= x < w and 0 <= y < h) or border[y, x] == 0:
                continue
            ox, oy = (int(round(v)) for v in p + normal * reach)
            if 0 <= ox < w and 0 <= oy < h and not inside[oy, ox]:
                table.append((i, lab[oy, ox]))
    if len(table) < 8:
        return filled, 1.0
    colour = np.median(np.array([lab_at for _, lab_at in table]), axis=0)
    sides = np.array([side for side, _ in table])
    outside = np.array([lab_at for _, lab_at in table])
    outside_like = np.hypot(outside[:, 1] - colour[1], outside[:, 2] - colour[2]) <= SIDE_COLOUR
    if any(np.mean(outside_like[sides == i]) < SIDE_ON_TABLE for i in np.unique(sides)):
        return filled, 1.0
    if not np.any(left):
        return filled, 0.0
    return filled, float(np.mean(_like(lab[left], colour)))


def _like(pixels: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Which of ``pixels`` (n x 3 Lab) have the table's ``colour``."""
    return (np.hypot(pixels[:, 1] - colour[1], pixels[:, 2] - colour[2]) <= TABLE_COLOUR) & \
        (np.abs(pixels[:, 0] - colour[0]) <= TABLE_LIGHT)


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads."""
    common, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = cv2.contourArea(a) + cv2.contourArea(b) - common
    return float(common) / max(1e-9, union)


def _inside_share(quad: np.ndarray, shape: tuple[int, int]) -> float:
    h, w = shape
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    overlap, _ = cv2.intersectConvexConvex(quad.astype(np.float32), frame)
    return float(overlap) / max(1e-9, cv2.contourArea(quad))


# ---- regions ---------------------------------------------------------------------------------
def _masks(lab: np.ndarray) -> list[np.ndarray]:
    """Three guesses at what is card in a photo (``lab``, float Lab): lighter than the rest,
    whiter than the rest, unlike the photo's border (each split by Otsu's threshold)."""
    lightness = lab[..., 0]
    chroma = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    border = np.concatenate([lab[:4].reshape(-1, 3), lab[-4:].reshape(-1, 3),
                             lab[:, :4].reshape(-1, 3), lab[:, -4:].reshape(-1, 3)])
    unlike_border = np.sqrt(((lab - np.median(border, axis=0)) ** 2).sum(axis=-1))
    masks = []
    for channel in (lightness, lightness - 2.0 * chroma, 2.0 * unlike_border):
        grey = np.clip(channel, 0, 255).astype(np.uint8)
        _, mask = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        masks.append(mask)
    return masks


PAPER_SHARE = 2.0
"""Percent of a photo's pixels, the lightest, whose median colour is taken for the card's
paper."""

PAPER_COLOUR = 8.0
"""Largest distance in the a*b* plane (OpenCV's 0-255 Lab) from that paper colour for a pixel
to count as paper: a hand in dim light is 10-15 from it, a lamp's spot on green cloth 20 and
more, though both may be as light as the card."""

PAPER_LIGHT = 0.55
"""Least lightness, as a share of the paper's, of a pixel counted as paper (the card's far end
in the dark corner of a vignetted webcam frame)."""


def _paper_mask(lab: np.ndarray) -> np.ndarray:
    """The pixels of the colour of the photo's lightest ones, and not much darker. A single
    threshold over lightness or whiteness joins a card to a hand touching it, or to a lamp's
    bright spot on the cloth, when those are as light as the card in a dim frame; they differ
    from its paper in colour."""
    lightness = lab[..., 0]
    whiteness = lightness - 2.0 * np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    paper = np.median(lab[whiteness >= np.percentile(whiteness, 100 - PAPER_SHARE)], axis=0)
    colour = np.hypot(lab[..., 1] - paper[1], lab[..., 2] - paper[2])
    return ((colour <= PAPER_COLOUR) & (lightness >= PAPER_LIGHT * paper[0])).astype(np.uint8) * 255


def _regions(masks: list[np.ndarray], shape: tuple[int, int]) -> Iterator[np.ndarray]:
    """Outer outlines of the masks' large regions, after closing small gaps and opening at two
    sizes (the larger one cuts a fingertip's narrow bridge to the card)."""
    h, w = shape
    close = np.ones((3, 3), np.uint8)
    for mask in masks:
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close, iterations=2)
        for size in _OPENINGS:
            opened = cv2.morphologyEx(
                mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
            contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            for contour in contours:
                if MIN_AREA * h * w <= cv2.contourArea(contour) <= MAX_AREA * h * w:
                    yield contour


# ---- the card's four sides ------------------------------------------------------------------
Side = tuple[np.ndarray, np.ndarray]
"""A side as its two end points."""


def _four_sides(contour: np.ndarray, shape: tuple[int, int]) -> list[np.ndarray]:
    """The quad bounded by the four longest sides of the region's convex hull (nearly collinear
    hull edges joined first), so that a bump where a finger joins the card is left out. Where
    the region meets the picture's edge, first the quad bounded by the four longest of its
    other sides: a card the edge cuts is bounded by its own sides, crossed beyond the picture
    (the quad with the edge for a side is the part of it the picture shows)."""
    sides = _hull_sides(cv2.convexHull(contour).reshape(-1, 2).astype(np.float64))
    own = [side for side in sides if not _along_frame(side, shape)]
    quads = ([_bounded_by(own)] if len(own) < len(sides) else []) + [_bounded_by(sides)]
    return [quad for quad in quads if quad is not None]


def _bounded_by(sides: list[Side]) -> np.ndarray | None:
    """The convex quad that the four longest of ``sides`` (in hull order) bound, or None."""
    if len(sides) < 4:
        return None
    longest = sorted(sorted(range(len(sides)), key=lambda i: -_length(sides[i]))[:4])
    four = [sides[i] for i in longest]
    corners = [_crossing(four[i], four[(i + 1) % 4]) for i in range(4)]
    if any(c is None for c in corners):
        return None
    quad = np.array(corners, np.float32)
    return quad if cv2.isContourConvex(quad.reshape(-1, 1, 2)) else None


def _hull_sides(points: np.ndarray) -> list[Side]:
    sides: list[Side] = []
    for i, start in enumerate(points):
        end = points[(i + 1) % len(points)]
        if _length((start, end)) == 0:
            continue
        if sides and _turn(sides[-1], (start, end)) < _MERGE_ANGLE:
            sides[-1] = (sides[-1][0], end)
        else:
            sides.append((start, end))
    if len(sides) > 1 and _turn(sides[-1], sides[0]) < _MERGE_ANGLE:
        sides[0] = (sides[-1][0], sides[0][1])
        sides.pop()
    return sides


def _along_frame(side: Side, shape: tuple[int, int]) -> bool:
    h, w = shape
    ends = np.array(side)
    for axis, limit in ((0, 0.0), (0, w - 1.0), (1, 0.0), (1, h - 1.0)):
        if np.all(np.abs(ends[:, axis] - limit) <= FRAME_PX):
            return True
    return False


def _length(side: Side) -> float:
    return float(np.hypot(*(side[1] - side[0])))


def _turn(a: Side, b: Side) -> float:
    """The angle between the directions of two sides (radians, 0..pi)."""
    da = np.arctan2(*(a[1] - a[0])[::-1])
    db = np.arctan2(*(b[1] - b[0])[::-1])
    return float(abs((db - da + np.pi) % (2 * np.pi) - np.pi))


def _crossing(a: Side, b: Side) -> np.ndarray | None:
    p, r = a[0], a[1] - a[0]
    q, s = b[0], b[1] - b[0]
    denominator = r[0] * s[1] - r[1] * s[0]
    if abs(denominator) < 1e-9:
        return None
    t = ((q - p)[0] * s[1] - (q - p)[1] * s[0]) / denominator
    return np.asarray(p + t * r)


def _fitted_to_outline(quad: np.ndarray, contour: np.ndarray) -> np.ndarray | None:
    """``quad`` with each side refitted to the outline points that lie along it (a robust line
    fit, twice, in a narrowing band), so that a stub left where a finger joined the card does
    not tilt the side through it."""
    points = contour.reshape(-1, 2).astype(np.float32)
    sides: list[Side] = []
    for i in range(4):
        start, end = quad[i].astype(np.float64), quad[(i + 1) % 4].astype(np.float64)
        for band in (6.0, 3.0):
            along = _points_along((start, end), points, band)
            if len(along) < 8:
                break
            vx, vy, x0, y0 = cv2.fitLine(along, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
            direction, origin = np.array([vx, vy]), np.array([x0, y0])
            start = origin + direction * np.dot(start - origin, direction)
            end = origin + direction * np.dot(end - origin, direction)
        sides.append((start, end))
    corners = [_crossing(sides[i - 1], sides[i]) for i in range(4)]
    if any(c is None for c in corners):
        return None
    fitted = np.array(corners, np.float32)
    return fitted if cv2.isContourConvex(fitted.reshape(-1, 1, 2)) else None


def _points_along(side: Side, points: np.ndarray, band: float) -> np.ndarray:
    start, end = side
    direction = (end - start) / max(1e-9, _length(side))
    offset = points - start
    along = offset @ direction
    across = np.abs(offset[:, 0] * direction[1] - offset[:, 1] * direction[0])
    keep = (across <= band) & (along >= 0) & (along <= _length(side))
    return points[keep]


# ---- is it a card? ---------------------------------------------------------------------------
def _card_score(quad: np.ndarray, contour: np.ndarray, shape: tuple[int, int],
                max_cut: float = MAX_REBUILT_CUT) -> float | None:
    """How well ``contour`` fills and outlines ``quad`` (higher is better) where the picture
    shows it, or ``None`` when the quad cannot be a card: one cut by the picture's edge by
    more than ``max_cut``, or cut with a side along the edge, or (rebuilt past the
    :data:`MAX_CUT` a held card's guess may run off) with a side the region is not seen to
    follow."""
    h, w = shape
    in_picture = _inside_share(quad, shape)
    cut = in_picture < 0.999
    if cut and (in_picture < 1 - max_cut or _side_on_edge(quad, shape)):
        return None
    if not _near_right_angles(quad) or not ASPECT[0] <= _aspect(quad) <= ASPECT[1]:
        return None
    if cv2.contourArea(quad) < MIN_AREA * h * w:
        return None
    region = np.zeros((h, w), np.uint8)
    cv2.drawContours(region, [contour], -1, 255, -1)
    inside = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(inside, quad.astype(np.int32), 255)
    if cut:
        region |= _holes_open_to_the_edge(region, inside)
    filled = np.count_nonzero(region & inside) / max(1, int(np.count_nonzero(inside)))
    if filled < MIN_FILLED:
        return None
    border = np.asarray(cv2.dilate(cv2.Canny(region, 50, 150), np.ones((5, 5), np.uint8)), np.uint8)
    ring = np.zeros((h, w), np.uint8)
    cv2.polylines(ring, [quad.astype(np.int32)], True, 255, 1)
    outlined = np.count_nonzero(border & ring) / max(1, int(np.count_nonzero(ring)))
    if outlined < MIN_OUTLINED or (cut and max_cut > MAX_CUT
                                   and min(_sides_followed(quad, border)) < MIN_SIDE_SEEN):
        return None
    return filled + outlined


def _holes_open_to_the_edge(region: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """The parts of ``inside`` (a card's quad, in the picture) that ``region`` leaves out but
    encloses together with the picture's edge: a card's print that the edge cuts is open to the
    edge, so its region's outer outline does not go round it."""
    gaps = (region == 0).astype(np.uint8)
    _, parts = cv2.connectedComponents(gaps, connectivity=4)
    outer = np.unique(parts[(inside == 0) & (gaps > 0)])
    return ((gaps > 0) & ~np.isin(parts, outer)).astype(np.uint8) * 255


def _sides_followed(quad: np.ndarray, border: np.ndarray) -> list[float]:
    """The share of each side of ``quad`` along which the region's ``border`` runs in the
    picture (a side that runs off it, or that only the picture's edge bounds, has little)."""
    shares: list[float] = []
    for i in range(4):
        a, b = np.round(quad[i]).astype(int), np.round(quad[(i + 1) % 4]).astype(int)
        line = np.zeros_like(border)
        cv2.line(line, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 255, 1)
        pixels = max(1, int(np.abs(b - a).max()))  # a drawn line's length in pixels
        shares.append(np.count_nonzero(line & border) / pixels)
    return shares


def _square_to_the_edge(quad: np.ndarray, shape: tuple[int, int]) -> bool:
    """Whether the corners of ``quad`` on the picture's edge are near-right: a card the edge
    cuts along a strip parallel to its side (the part shown is still most of a card, counted
    as :data:`EDGE_CUT` hidden), not aslant across a corner."""
    h, w = shape
    on_edge = [i for i, (x, y) in enumerate(quad) if min(x, y, w - 1 - x, h - 1 - y) <= FRAME_PX + 1]
    return all(_off_square(quad, i) <= EDGE_SQUARE for i in on_edge)


def _side_on_edge(quad: np.ndarray, shape: tuple[int, ...], near: float = 2.0) -> bool:
    """Whether a side of ``quad`` runs along the picture's edge (a region the frame cuts, when
    the quad goes on past the picture)."""
    h, w = shape[:2]
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        for axis, limit in ((0, 0.0), (0, w - 1.0), (1, 0.0), (1, h - 1.0)):
            if abs(a[axis] - limit) <= near and abs(b[axis] - limit) <= near:
                return True
    return False


def _near_right_angles(quad: np.ndarray) -> bool:
    return all(_off_square(quad, i) <= MAX_ANGLE_ERROR for i in range(4))


def _off_square(quad: np.ndarray, i: int) -> float:
    """How far (degrees) the corner ``i`` of ``quad`` is from a right angle."""
    a, b, c = quad[i - 1], quad[i], quad[(i + 1) % 4]
    u, v = a - b, c - b
    cos = float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-9))
    return abs(float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))) - 90.0)


def _aspect(quad: np.ndarray) -> float:
    sides = [float(np.linalg.norm(quad[i] - quad[(i + 1) % 4])) for i in range(4)]
    ratio = (sides[0] + sides[2]) / max(1e-9, sides[1] + sides[3])
    return max(ratio, 1.0 / max(ratio, 1e-9))



# ---- how much of the card is hidden ----------------------------------------------------------
COVER_CARD = (60, 84)
"""The card's size (px) when its hidden share is measured: fingers span a dozen pixels, the
card's thin printed lines one or two."""

COVER_PAD = 10
"""Pixels of the photo kept round the card when its hidden share is measured."""

COVER_INSET = 4
"""Pixels of the card's edge left out of the share (the outline is found to a few pixels)."""

EDGE_PX = 3.0
EDGE_CUT = 0.05
"""A card found with a side along the picture's edge (the edge-map search takes the picture's
edge for the card's) is cut by it, by an unknown share counted as this much: enough to keep
it out of an enrolment, not enough to stop it being named."""

MAX_HIDDEN_TO_NAME = 0.25
"""Largest hidden share of a card that is still named: past it a hand may hide what tells
the card from its neighbours (a pip that makes a 7 an 8), so it is answered unknown."""

UNLIKE_LIGHT = 0.35
"""Lightness below this share under the card's paper is not paper (a shadowed hand)."""

UNLIKE_COLOUR = 9.0
"""Distance in the a*b* plane (OpenCV's 0-255 Lab) past which a pixel is not the card's paper:
skin is 10-15 from a white card's paper, the paper's own shading 2-4."""


@dataclass(frozen=True)
class Hidden:
    """How much of a found card's face cannot be seen: ``over`` by something that reaches over
    its outline from outside (a hand, a finger, another card), ``cut`` by the picture's edge;
    both as shares of the face."""

    over: float
    cut: float

    @property
    def total(self) -> float:
        return self.over + self.cut


def nameable(hidden: float) -> bool:
    """Whether a card of which ``hidden`` (a share of its face) is hidden may be named."""
    return hidden <= MAX_HIDDEN_TO_NAME


def hidden_share(image: np.ndarray, quad: np.ndarray) -> Hidden:
    """How much of the card inside ``quad`` (TL, TR, BR, BL) is hidden. What is not the colour
    of the card's edge (its paper, or a printed border) and joins the world outside the card
    across its outline hides it; what the card itself prints (pips, an index, a frame line)
    lies inside its edge, or is thin, and does not count."""
    w, h = COVER_CARD
    pad = COVER_PAD
    target = np.array([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]], np.float32)
    homography = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), target)
    size = (w + 2 * pad, h + 2 * pad)
    seen = _in_picture(image.shape, homography, size)
    warped = cv2.warpPerspective(image, homography, size, flags=cv2.INTER_AREA,
                                 borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(warped, cv2.COLOR_BGR2LAB).astype(np.float32)
    face = _inset(seen.shape, COVER_INSET)
    faces = max(1, int(np.count_nonzero(face)))
    cut = float(np.count_nonzero(face & ~seen)) / faces
    if _side_on_edge(np.asarray(quad, np.float32), image.shape[:2], EDGE_PX):
        cut = max(cut, EDGE_CUT)
    over = 1.0 - cut
    for depth in (1, COVER_INSET):  # the edge colour at two depths: a printed border, or inside it
        edge = _inset(seen.shape, depth) & ~_inset(seen.shape, depth + COVER_INSET) & seen
        if np.any(edge):
            over = min(over, _reached_over(lab, np.median(lab[edge], axis=0), seen, face) / faces)
    return Hidden(over, cut)


def _reached_over(lab: np.ndarray, paper: np.ndarray, seen: np.ndarray, face: np.ndarray) -> int:
    """Pixels of ``face`` unlike ``paper`` that join the canvas's rim through pixels unlike it
    (thin lines left out). Beyond the card's outline the part off the picture counts as
    unlike (a hand comes in from there); within it, it joins nothing (the card's print the
    picture's edge cuts is no hand)."""
    unlike = (lab[..., 0] < (1 - UNLIKE_LIGHT) * paper[0]) | \
        (np.hypot(lab[..., 1] - paper[1], lab[..., 2] - paper[2]) > UNLIKE_COLOUR)
    unlike = cv2.morphologyEx(unlike.astype(np.uint8), cv2.MORPH_OPEN,
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))) > 0
    card = _inset(seen.shape, 0)
    unlike = (unlike & seen) | (~seen & ~card)
    _, parts = cv2.connectedComponents(unlike.astype(np.uint8), connectivity=4)
    rim = np.concatenate([parts[0], parts[-1], parts[:, 0], parts[:, -1]])
    outside = np.isin(parts, np.unique(rim[rim > 0]))
    return int(np.count_nonzero(face & outside & seen))


def _inset(shape: tuple[int, ...], inset: int) -> np.ndarray:
    """The card's face on the canvas of :func:`hidden_share`, less ``inset`` pixels each side."""
    w, h = COVER_CARD
    face = np.zeros(shape[:2], bool)
    face[COVER_PAD + inset:COVER_PAD + h - inset, COVER_PAD + inset:COVER_PAD + w - inset] = True
    return face
