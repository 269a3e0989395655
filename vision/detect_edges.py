"""The card detector's view of a picture: its edges and "paperness" sampled at sub-pixel points
(:class:`_Gradients`), and step 2 of :mod:`.detect`: each side of a candidate snapped onto the
nearest clear straight edge (:func:`_snap`).

Why this module exists: every later step asks the same questions of the picture - is there an
edge here, how light is the paper there, does this line run on past a corner - and asks them
through one object built once per frame.
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from .detect_shapes import (
    _NEXT,
    _area,
    _clockwise,
    _Found,
    _intersect,
    _linspace32,
    _normals,
    _shares,
    _side_frames,
    _side_lengths,
    _stepped,
)

EDGE_MIN = 24.0
"""Smallest Sobel response (blurred grey or paperness image) that counts as an edge: a step of
~10 grey levels."""


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


def _nearest_peaks(across: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per sample, the edge peak nearest the current line (not the strongest: a touching
    card's edge a few pixels away is often stronger), and whether there is one at all (where
    there is none, the index is meaningless)."""
    is_peak = across >= EDGE_MIN  # (not above a neighbour off the ends: there is none)
    is_peak[..., 1:] &= across[..., 1:] >= across[..., :-1]
    is_peak[..., :-1] &= across[..., :-1] >= across[..., 1:]
    distance = np.where(is_peak, np.abs(offsets), np.float32(np.inf))
    return distance.argmin(axis=-1), np.asarray(is_peak.any(axis=-1))  # of two as near: the inner
