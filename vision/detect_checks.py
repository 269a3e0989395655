"""Step 4 of :mod:`.detect`: is this quad a card? A printed face (not blank, not a grid of
lines along its sides), a light margin all round, sides that stop at its corners, and a card's
size and shape.

Why this module exists: the candidates of every step (contours, grown panels, split rows,
completed corners, the locator's outlines) pass the same checks before they count as cards.
"""

from __future__ import annotations

import cv2
import numpy as np

from .detect_edges import EDGE_MIN, _Gradients, _margin_levels, _runs_on
from .detect_shapes import DetectorSettings, _card_shaped, _Found, _median, _share

MARGIN_EVEN_MIN = 0.9
"""Share of a card's outline that must have its light margin just inside (see
:func:`_margin`)."""

MARGIN_PAPER_MIN = 0.45
"""Smallest paperness (see :func:`_margin`) of a card's margin: paper under tinted light
measures 0.6 and more."""


def _squat(cand: _Found, settings: DetectorSettings, min_area: float, max_area: float) -> bool:
    """Well edged and as large as a card, but too square for one."""
    return (min_area <= cand.area <= max_area and cand.support >= settings.min_score
            and _card_shaped(cand.quad, 1.0, settings.min_aspect))


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
