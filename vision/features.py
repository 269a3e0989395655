"""Name real cards after a few photos: pretrained features, whitened by the enrolled deck.

The shipped classifier learnt our renders; a real printing looks different, and a deck we never
heard of has cards it cannot know. So an enrolled deck is named the way chesscog learns a new
chess set: by what a network trained on real photographs sees in the crop
(``models/card_features.onnx``, the first blocks of EfficientNet-Lite0 with its ImageNet
weights; :mod:`ducktable.training.features` says how it is made), compared with the crops of the
enrolment photos.

Plain nearest-neighbour search in that space confuses cards of one design that differ in a
few pips. What varies between two photos of *one* card (light, blur, a slightly other cut) is
what must not count, so the enrolled views' within-card scatter is whitened away
(:meth:`PhotoDeck.fit`, a linear discriminant fitted at enrolment time, in milliseconds, with
numpy): on real photographs of a 52-card deck, two photos per card, the nearest view alone
named 98.3% right and whitened 99.8%, before any rejection (today's figures, with rejection:
docs/benchmarks.md). Two photos of a card show little of that scatter, so re-photographed
copies of each photo add to it (:data:`RETAKES`). A crop is named by its closest enrolled view
when that view is close enough and no other card is nearly as close; otherwise it is
``unknown``.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from ducktable.rules.decks import UNKNOWN
from ducktable.vision import augment
from ducktable.vision.model_files import checked_session, read_manifest, shipped

FEATURES_FILE = "card_features.onnx"
PHOTO_DECK_FILE = "photo_deck.npz"
INPUT_SIZE = (96, 144)
"""Width and height a whole crop is fed at (portrait)."""
GRID = (3, 2)
"""Rows and columns of regions the feature map is averaged into."""
CORNER = (0.42, 0.30)
"""Width and height, as shares of the card, of the top-left corner looked at a second time
close up: where most cards print their index. Cards of one design that differ only in a
small printed digit (DUCK's yellow 1 and 7) look alike as a whole at 96 x 144."""
CORNER_SIZE = (64, 64)
CORNER_WEIGHT = 0.35
"""How much the corner counts beside the whole card. Real playing cards (2 photos per card)
were named best with little of it (0.35: 99.35% right; 0.5: 99.10%, more wrong), rendered
DUCK cards need some (yellow 1 and 7)."""
WHITENING = 1e-3
"""Added to the within-card covariance before whitening (the embedding is unit length, so each
of its numbers varies by about 1e-3): less makes two photos of one card the whole story,
more undoes the whitening. 1e-2 and 1e-4 both named fewer real photos right."""
MIN_RAW = 0.90
MIN_GAP = 0.02
"""A crop is named only when its closest enrolled view is ``MIN_RAW`` similar before whitening
(most cards of a printing not enrolled stay below it) and the closest view of any other card is
``MIN_GAP`` less similar after whitening. Chosen on the development photos with 2 photos per
card (docs/benchmarks.md): 99.2-99.35% named right, at most 0.07% wrong."""
LOWEST_RAW = 0.80
RAW_QUANTILE = 25
RAW_MARGIN = 0.04
"""A deck whose own enrolment photos of one card are less alike than that (a dim webcam, a
card at many angles) gets a lower gate than ``MIN_RAW``: the :data:`RAW_QUANTILE` th percentile
of how similar each card's two photos are (before whitening), less ``RAW_MARGIN``, never below
``LOWEST_RAW``. A deck photographed well keeps ``MIN_RAW`` (the floor-tile and Piatnik decks
name exactly as before); the dim webcam hearts, 2 photos per card, go from 64.9% to 79.7%
named right, wrong 0.12% to 0.35%. The price: more photos of another printing pass the gate
(SET screenshots against SET crops, 7.9% to 9.9% named as another card; docs/benchmarks.md)."""
RETAKES = 16
"""Copies of each enrolment photo as the camera might take it again (:func:`retaken`:
:func:`~ducktable.vision.augment.augment_card`, the card model's capture model, seeded), each with
its half-turned twin, whose strays from the photo :meth:`PhotoDeck.fit` adds to the within-card
scatter: two photos of a card show little of what light, blur, noise and another cut do to it.
Webcam hearts, 2 photos per card, 20 rounds, against a Bicycle deck's photos (`bench photos`):
79.37% named right, 0.58% wrong, Bicycle photos named as another card 9.90% without copies; 79.65%,
0.33% and 9.69% with them (1 photo per card: 46.40% right, 3.48% wrong to 48.47% and 0.61%; 5:
84.47% and 0.23% to 84.53% and 0.24%). Floor tiles (1 round): 99.36% right to 99.47%; Piatnik (3
rounds): 99.21% as before; SET crops (3 rounds): 95.71% right and 0.25% wrong to 96.11% and 0.15%,
SET screenshots named as another card 3.47% to 3.41%.

Tried and left: the copies' strays from the card's mean instead (webcam hearts 79.37% right,
0.45% wrong; floor tiles 98.08%); the copies also as views a crop is matched against (webcam
hearts 80.75% and 0.30%, but floor tiles 99.25%; as views alone 80.30% and 0.51%); a milder
copy (light, white balance, blur, noise, JPEG and a slightly other cut only: webcam hearts
78.35% and 0.99%); copies in the raw gate's input, which lowers the gate (copies are less
alike than two photos: webcam hearts 86.64% right, but 30% of the Bicycle photos named), so
the gate stays made of the photos."""
LAYOUT_SIZE = (10, 15)
"""Columns and rows of the ink layout (:func:`ink_layout`): a pip of a playing card spans
about one cell, so a 6 and a 7 of one suit differ in a few cells."""
LAYOUT_CELLS = LAYOUT_SIZE[0] * LAYOUT_SIZE[1]
COLOUR_COLUMNS = slice(LAYOUT_CELLS, LAYOUT_CELLS + 2)
SHADE_COLUMN = LAYOUT_CELLS + 2
"""Where a stored ink layout's row keeps the ink's colour and its shapes' shading."""
INK_UNLIKE = 8.0
"""Least unlikeness to the paper (OpenCV's 0-255 Lab) of a pixel counted as ink when its
colour is measured (:func:`ink_colour`); half the 90th percentile's where that is more."""
MIN_CHROMA = 3.0
COLOUR_WINDOW = 0.20
COLOUR_WEIGHT = 0.5
COLOUR_TOLERANCE = 0.3
"""The ink's colour look: where a crop's ink and a card's enrolled inks both have a hue
(:func:`ink_colour` at least ``MIN_CHROMA`` from grey), each card within ``COLOUR_WINDOW`` of the
best (after whitening) loses ``COLOUR_WEIGHT`` times how much less alike (cosine) its ink's hue
is than the most alike such card's, past ``COLOUR_TOLERANCE`` (about 45 degrees), before the
crop is named. SET crops, 2 photos per card, 3 rounds: 68.59% right and 1.93% wrong without it
(green and purple cards taken for each other); 92.64% and 0.16% with no tolerance, but then the
black ink of a Piatnik deck's clubs, which photographs yellowish in some lights, parted a 10
from itself (99.21% right to 98.61%; 98.81% with a tolerance of 0.2). With this tolerance SET
names 92.28% right and 0.29% wrong (`bench photos`; 0.3 for the weight: 91.96% and 0.32%, a least chroma of 6
and no tolerance: 91.61% and 0.31%)."""
SHAPE_MARGIN = 4
SHAPE_INK = 0.4
SHAPE_BAND = 2
"""Where :func:`ink_shading` looks for shapes and how: on the upright crop at 60 x 90 less a
``SHAPE_MARGIN`` px band at its edge (6 px, as the ink's colour, leaves a wide shape's ends out:
SET's open and striped cards got a shading in 93% and 98% of the crops, against 98% and 99.8%
with 4), as ink at least ``SHAPE_INK`` as unlike the paper as the crop's strongest (its 99th
percentile; 0.5 breaks a faint outline into pieces: open cards shaded in 93%), the outline's
band ``SHAPE_BAND`` px wide."""
SHADE_SHAPES = 3
SHADE_AREA = (0.03, 0.25)
SHADE_ALIKE = 1.6
SHAPE_EDGE = 4
"""What counts as printed shapes whose filling can be measured: at most ``SHADE_SHAPES``
closed outlines (specks under a quarter of the least area left aside), each filling a
``SHADE_AREA`` share of the region looked at, none ``SHADE_ALIKE`` times the area of another,
together touching its edge in at most ``SHAPE_EDGE`` px (a diamond's tips may; a shadow or the
table does not). SET's one to three ovals, diamonds and squiggles are such shapes (99% of its
crops); no crop of the Piatnik deck, the webcam hearts or Dobble is (pips too many or unlike in
size, a court card's frame too large, Dobble's six to eleven symbols unlike), and they name
exactly as without the look."""
SHADE_WINDOW = 0.30
SHADE_WEIGHT = 1.0
SHADE_TOLERANCE = 0.1
"""The shading look, as the colour look: where a crop's shapes and a card's enrolled shapes
both have a shading (:func:`ink_shading`), each card within ``SHADE_WINDOW`` of the best (after
the colour look) loses ``SHADE_WEIGHT`` times how much farther its nearest enrolled view's
shading is from the crop's than the nearest such card's, past ``SHADE_TOLERANCE`` (SET's
crops, 1st to 99th percentile: solid 0.92-1, striped 0.23-0.46, open 0.01-0.10; the photos of
one striped card scatter by 0.03-0.09, standard deviation). SET crops, 2 photos per card, 3
rounds (`bench photos`): 92.28% right, 0.29% wrong without it, 95.71% and 0.25% with it; a
weight of 0.5 and window of 0.2: 95.16% and 0.25%; weight 2: 95.66% and 0.26%; tolerance 0.05:
95.50% and 0.29%."""
FILL_COLUMN = SHADE_COLUMN + 1
"""Where a stored ink layout's row keeps its marks' fill (:func:`ink_fill`)."""
MARK_MARGIN = 4
MARK_AREA = (0.006, 0.05)
"""Where :func:`ink_fill` looks for a card's marks: on the upright crop at 60 x 90 (as the ink
layout) less a ``MARK_MARGIN`` px band; a mark is a piece of ink covering a ``MARK_AREA`` share
of it (a playing card's pips and its index's suit; a court card's picture is mostly larger or
smaller)."""
MARK_SPREAD = 0.12
"""Most by which the fills of one crop's marks may differ for them to count as pips: a court
card's picture breaks into pieces of any shape (a Bicycle king's: 0.53-0.72), which tell
nothing of its suit. A dim webcam's pips, at 60 x 90, differ by more than 0.08 often: 0.08
named 82.39% of the webcam hearts right (2 photos per card, 5 rounds), 0.12 83.34%, with
another printing's cards named as a heart 19 of 245 either way."""
FILL_TOLERANCE = 0.06
"""How far a crop's marks' fill may be from the median fill of a card's enrolled views for the
marks to count as the card's (:meth:`PhotoDeck.match`). A Bicycle deck's pips fill their box:
hearts 0.62-0.68 (webcam hearts, dim and blurred, the same), diamonds 0.48-0.50, spades
0.53-0.56, clubs 0.52-0.54. The median, not the nearest view: one webcam photo of a 7 of hearts
measured 0.54, near enough to let a Bicycle 7 of diamonds (0.50) pass."""
SECOND_LOOK_GAP = 0.10
"""When the best card is less than this ahead of the next (after whitening), the two are
looked at again by their ink layouts, and a crop whose layout is closer to the runner-up's is
answered ``unknown``. Webcam hearts, 2 photos per card, 20 rounds: the 6 and 7 of hearts (the
7's one middle pip apart) were named for each other 57 times in 9,380; with the second look
wrong fell from 1.68% to 0.44%, right from 64.6% to 64.5%."""
INDEX_CONFIDENCE = 0.9
ENROLLED_INDEX_CONFIDENCE = 0.8
"""How sure the index reader (:mod:`ducktable.vision.card_index`) must be of a crop's index for it
to count, and of an enrolment photo's. Webcam hearts, 2 photos per card: 0.7 for a crop named
about as many right and more wrong."""
INDEX_RAW_MARGIN = 0.03
"""How far past the deck's raw gate a card must be for the index to name a crop in doubt for it.
The index tells a card's rank, not its printing or suit. Webcam hearts (gate 0.84), 2 photos per
card, against a Bicycle deck's photos (`bench photos`, 20 rounds): without the index 13.5% of
the Bicycle photos were named as another card, with it 10.0%, while the hearts' own photos went
from 81.1% right and 0.28% wrong to 81.6% and 0.18%. At the gate itself (no margin) the index
named as many Bicycle photos as another card as before, 0.02 past it a few less."""
INDEX_BELOW_GATE = 0.05
"""How far below the deck's raw gate a card may be for the index to name a crop in doubt for it,
where the crop's marks are the card's too (the ink's hue and the fill of its pips: :func:`ink_fill`):
the gate is set by how alike two enrolled photos of one card are, and on a dim webcam other
photos of that card fall below it (2 photos per card, 5 rounds: the right card nearest, below
the gate and its index read on 9% of the crops), but so do another printing's cards of the
same rank and colour (a Bicycle deck's diamonds against enrolled hearts), which only the shape
of their pips tells apart. Webcam hearts, 2 photos per card, 20 rounds (`bench photos`): 79.65%
right, 0.33% wrong before, 85.00% and 0.33% with it; the Bicycle photos named as another card
9.69% before and after. With an earlier fill check (any mark, the nearest view's fill) 0.03
and 0.08 named 82.58% and 86.84% right in 5 rounds, but 29 and 32 of 245 Bicycle photos as
another card against 19."""
MIN_INDEXED = 0.3
"""Share of a deck's cards whose index must be read on two of its enrolled views for the deck to
take the index's second look at all (a deck that prints none, like SET, never does)."""
REBUILD_HINT = ("run `python -m ducktable.training.features` (the `train` extra) to rebuild it, "
                "or restore the file from the repository")


def default_model_path() -> Path:
    return shipped(FEATURES_FILE)


def portrait(crop: np.ndarray) -> np.ndarray:
    """The crop stood upright: a card photographed or cut lying on its side is turned a
    quarter."""
    return np.ascontiguousarray(np.rot90(crop)) if crop.shape[1] > crop.shape[0] else crop


def balanced(crop: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    """The crop (and ``others``, parts of it) with the light's colour and level taken out, as
    measured on the whole crop: grey-world white balance, then the 1st-99th percentile
    stretched to 0-255. Photos of one card under a warm lamp and in daylight should look alike
    to the network, and a corner must keep the card's colours (a yellow digit on white paper
    would turn grey if the corner were balanced by itself).

    Worked out from the crop's three 256-level histograms and applied as one lookup table, which
    gives the same pixels as doing it per pixel (:func:`balanced_per_pixel`) in a fifth of the
    time."""
    hist = np.stack([np.bincount(crop[..., c].ravel(), minlength=256) for c in range(3)])
    pixels = float(hist[0].sum())
    levels = np.arange(256, dtype=np.float32)
    means = (hist.astype(np.float64) @ levels / pixels).astype(np.float32)
    gains = means.mean() / np.maximum(means, np.float32(1e-3))
    values = (gains[:, None] * levels[None, :]).ravel()  # every level of every channel, balanced
    order = np.argsort(values, kind="stable")
    ranked, counts = values[order].astype(np.float64), np.cumsum(hist.ravel()[order])
    low, high = (_percentile(ranked, counts, q) for q in (1, 99))
    width = max(high - low, 1.0)
    table = np.clip(levels[:, None] * (gains * (255.0 / width))[None, :]  # float32, then
                    - np.float64(low) * 255.0 / width, 0, 255)            # float64, as per pixel
    table = table.astype(np.uint8).reshape(256, 1, 3)
    return [cv2.LUT(image, table) for image in (crop, *others)]


def _percentile(ranked: np.ndarray, counts: np.ndarray, q: float) -> float:
    """``np.percentile`` (linear) of the values ``ranked`` (sorted) each held ``counts`` times
    (cumulative)."""
    position = q / 100 * (float(counts[-1]) - 1)
    below = int(np.floor(position))
    first = ranked[np.searchsorted(counts, below, side="right")]
    second = ranked[np.searchsorted(counts, below + 1, side="right")]
    return float(first + (second - first) * (position - below))


def balanced_per_pixel(crop: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
    """:func:`balanced` worked out pixel by pixel: the reference it is tested against."""
    pixels = crop.reshape(-1, 3).astype(np.float32)
    means = pixels.mean(axis=0)
    gains = means.mean() / np.maximum(means, 1e-3)
    low, high = np.percentile(pixels * gains, (1, 99))
    scale = gains * (255.0 / max(float(high - low), 1.0))
    return [np.clip(image.astype(np.float32) * scale - low * 255.0 / max(float(high - low), 1.0),
                    0, 255).astype(np.uint8) for image in (crop, *others)]


def ink_layout(crop: np.ndarray) -> np.ndarray:
    """Where the crop is printed: each cell of a :data:`LAYOUT_SIZE` grid over the upright card
    (a band at its edge left out) holds how unlike the card's paper it is, as a unit vector
    about its mean. The features network pools a card into six regions and can take two cards
    of one design that differ in a pip for each other; their layouts differ where the pip is."""
    return _ink_layout(_unlike_paper(crop)[0])


def ink_colour(crop: np.ndarray) -> np.ndarray:
    """The colour of the crop's ink, in the a*b* plane (OpenCV's Lab, less its neutral 128) of
    the crop white-balanced on its paper (each channel scaled so that the paper is grey; the
    ink's pixels weighted by how unlike the paper they are). So the light's colour drops out,
    and black ink stays black: SET's green, purple and red inks lie at hues 40 degrees and more
    apart in every photo, where the features network, after grey-world balance, takes green
    and purple cards for each other."""
    unlike, upright = _unlike_paper(crop)
    return _ink_colour(upright, unlike)


def _ink_colour(upright: np.ndarray, unlike: np.ndarray) -> np.ndarray:
    inner = unlike[6:-6, 6:-6]
    ink = inner > max(INK_UNLIKE, 0.5 * float(np.percentile(inner, 90)))
    if not np.any(ink):
        return np.zeros(2, np.float32)
    pixels = upright[6:-6, 6:-6]
    paper = np.median(pixels[~ink], axis=0) if np.any(~ink) else np.full(3, 255.0)
    gains = (paper.mean() / np.maximum(paper, 1.0)).astype(np.float32)
    balanced = np.clip(pixels[ink].astype(np.float32) * gains, 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(balanced[:, None, :], cv2.COLOR_BGR2LAB)[:, 0, 1:].astype(np.float32)
    return np.average(lab - 128.0, axis=0, weights=inner[ink]).astype(np.float32)


NO_SHADING = -1.0
""":func:`ink_shading` of a crop that prints no shapes whose filling can be measured."""


def ink_shading(crop: np.ndarray) -> float:
    """How the crop's printed shapes are filled: the ink inside them (their outline's band left
    out) as a share of their outline's, about 1 for a solid shape, 0 for an open one and
    between for a striped one (at this size the stripes blur into a pale fill); ``NO_SHADING``
    where the crop prints no such shapes (:data:`SHADE_SHAPES`). SET's cards differ in it
    where the features network, which sees blurred stripes as a pale solid or an open shape,
    takes them for each other."""
    return _ink_shading(_unlike_paper(crop)[0])


def _ink_shading(unlike: np.ndarray) -> float:
    inner = unlike[SHAPE_MARGIN:-SHAPE_MARGIN, SHAPE_MARGIN:-SHAPE_MARGIN]
    shapes = _shapes(inner > max(INK_UNLIKE, SHAPE_INK * float(np.percentile(inner, 99))))
    if shapes is None:
        return NO_SHADING
    core = cv2.erode(shapes, np.ones((3, 3), np.uint8), iterations=SHAPE_BAND)
    if not np.any(core):
        return NO_SHADING
    outline = float(np.percentile(inner[shapes > 0], 90))  # the outline's ink, or a solid's
    return float(np.clip(np.median(inner[core > 0]) / max(outline, 1e-6), 0.0, 1.0))


def _shapes(ink: np.ndarray) -> np.ndarray | None:
    """The closed outlines of ``ink`` (a mask) filled in, where they are shapes whose filling
    can be measured (:data:`SHADE_SHAPES`); None where they are not."""
    closed = cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    areas = np.array([cv2.contourArea(c) for c in contours]) / ink.size
    kept = areas >= SHADE_AREA[0] / 4
    if not 0 < kept.sum() <= SHADE_SHAPES:
        return None
    least, most = float(areas[kept].min()), float(areas[kept].max())
    if least < SHADE_AREA[0] or most > SHADE_AREA[1] or most > SHADE_ALIKE * least:
        return None
    filled = np.zeros_like(closed)
    cv2.drawContours(filled, [c for c, k in zip(contours, kept, strict=True) if k], -1, 1,
                     thickness=cv2.FILLED)
    edge = np.concatenate([filled[0], filled[-1], filled[1:-1, 0], filled[1:-1, -1]])
    return None if int(edge.sum()) > SHAPE_EDGE else filled


def _unlike_paper(crop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How unlike the card's paper each pixel of the upright crop (at 60 x 90) is; and that
    upright crop."""
    upright = cv2.resize(portrait(crop), (60, 90), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(upright, cv2.COLOR_BGR2LAB).astype(np.float32)
    inner = lab[6:-6, 6:-6]
    lightness = inner[..., 0]
    paper = np.median(inner[lightness >= np.median(lightness)], axis=0)
    darker = np.maximum(paper[0] - lab[..., 0], 0.0)
    return np.hypot(0.5 * darker, np.hypot(lab[..., 1] - paper[1], lab[..., 2] - paper[2])), upright


NO_FILL = -1.0
""":func:`ink_fill` of a crop with no marks of a pip's size."""


def ink_fill(crop: np.ndarray) -> float:
    """How much of its bounding box each of the crop's pip-sized marks fills (the median of
    them; :data:`MARK_AREA`), or ``NO_FILL``: a heart fills about two thirds of its box, a
    diamond half, a spade or club a little more. Another printing's diamonds look to the
    features network as much like the enrolled hearts of their rank as a dim webcam's own
    photos of those hearts do; their pips do not."""
    return _ink_fill(_unlike_paper(crop)[0])


def _ink_fill(unlike: np.ndarray) -> float:
    inner = unlike[MARK_MARGIN:-MARK_MARGIN, MARK_MARGIN:-MARK_MARGIN]
    ink = (inner > max(INK_UNLIKE, 0.5 * float(np.percentile(inner, 99)))).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink)
    areas = stats[1:count, cv2.CC_STAT_AREA]
    boxes = stats[1:count, cv2.CC_STAT_WIDTH] * stats[1:count, cv2.CC_STAT_HEIGHT]
    marks = (areas >= MARK_AREA[0] * ink.size) & (areas <= MARK_AREA[1] * ink.size)
    fills = areas[marks] / boxes[marks]
    if not len(fills) or float(np.ptp(fills)) > MARK_SPREAD:
        return NO_FILL
    return float(np.median(fills))


def _ink_layout(unlike: np.ndarray) -> np.ndarray:
    cells = cv2.resize(unlike[4:-4, 4:-4], LAYOUT_SIZE, interpolation=cv2.INTER_AREA).ravel()
    cells = cells - cells.mean()
    return (cells / max(float(np.linalg.norm(cells)), 1e-9)).astype(np.float32)


def ink_layouts(crops: Sequence[np.ndarray]) -> np.ndarray:
    """What the second look compares, one row per crop: its :func:`ink_layout`
    (:data:`LAYOUT_CELLS` numbers), its :func:`ink_colour` (2), its :func:`ink_shading`
    (1; :data:`SHADE_COLUMN`), then its :func:`ink_fill` (1; :data:`FILL_COLUMN`)."""
    if not crops:
        return np.zeros((0, FILL_COLUMN + 1), np.float32)
    rows = []
    for crop in crops:
        unlike, upright = _unlike_paper(crop)
        rows.append(np.concatenate([_ink_layout(unlike), _ink_colour(upright, unlike),
                                    [_ink_shading(unlike), _ink_fill(unlike)]]).astype(np.float32))
    return np.stack(rows)


class CardFeatures:
    """The features network: BGR crops in, unit-length embeddings out (the whole card's 6
    regions and its index corner's, 112 numbers each)."""

    def __init__(self, session: object, dim: int = 2 * 112 * GRID[0] * GRID[1]) -> None:
        self._session = session
        self.dim = dim

    @classmethod
    def load(cls, model_path: str | Path | None = None, *, threads: int = 1) -> CardFeatures:
        path = Path(model_path) if model_path else default_model_path()
        sha = str(read_manifest(path, "card features", REBUILD_HINT)["sha256"])
        return cls(checked_session(path, sha, threads, "card features model", REBUILD_HINT))

    def embed(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """The whole card's regions and its index corner's, one unit-length row per crop."""
        if not crops:
            return np.zeros((0, self.dim), np.float32)
        wholes, corners = [], []
        for crop in crops:
            small, corner = self.network_inputs(crop)
            wholes.append(small)
            corners.append(corner)
        return _unit(np.hstack([self._regions(wholes), CORNER_WEIGHT * self._regions(corners)]))

    def _regions(self, images: Sequence[np.ndarray]) -> np.ndarray:
        return _unit(grid_pool(self.feature_maps(images), GRID))

    def feature_maps(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """The network's maps (n, channels, h, w) of BGR images of one size, as they are."""
        batch = np.stack([image.transpose(2, 0, 1).astype(np.float32) for image in images])
        return np.asarray(self._session.run(None, {"image": batch})[0],  # type: ignore[attr-defined]
                          np.float32)

    @staticmethod
    def network_inputs(crop: np.ndarray, balance: Callable[..., list[np.ndarray]] | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
        """The whole card and its index corner as the network is fed them: upright, resized,
        the light taken out by ``balance`` (:func:`balanced` unless told)."""
        upright = portrait(crop)
        small = cv2.resize(upright, INPUT_SIZE, interpolation=cv2.INTER_AREA)
        h, w = upright.shape[:2]
        corner = cv2.resize(upright[: max(1, int(CORNER[1] * h)), : max(1, int(CORNER[0] * w))],
                            CORNER_SIZE, interpolation=cv2.INTER_AREA)
        small, corner = (balance or balanced)(small, corner)
        return small, corner


def grid_pool(maps: np.ndarray, grid: tuple[int, int]) -> np.ndarray:
    """Average feature maps (n, channels, h, w) over ``grid`` rows x columns of regions (as even
    as the size allows), flattened region by region: (n, channels * rows * columns). One
    matrix product with the regions' averaging weights (:func:`pooling_weights`)."""
    n, channels, h, w = maps.shape
    pooled = maps.reshape(n, channels, h * w) @ pooling_weights(h, w, grid)
    return np.ascontiguousarray(pooled, np.float32).reshape(n, -1)


@functools.lru_cache(maxsize=16)
def pooling_weights(h: int, w: int, grid: tuple[int, int]) -> np.ndarray:
    """(h * w, regions): column r holds 1 / size over the cells of region r, the regions cut
    as ``np.array_split`` cuts the rows and the columns."""
    rows = np.array_split(np.arange(h), grid[0])
    cols = np.array_split(np.arange(w), grid[1])
    weights = np.zeros((h, w, len(rows) * len(cols)), np.float32)
    for i, (r, c) in enumerate((r, c) for r in rows for c in cols):
        weights[r[0]:r[-1] + 1, c[0]:c[-1] + 1, i] = 1.0 / (len(r) * len(c))
    return weights.reshape(h * w, -1)


def grid_pool_by_slices(maps: np.ndarray, grid: tuple[int, int]) -> np.ndarray:
    """:func:`grid_pool` region by region: the reference it is tested against."""
    rows = np.array_split(np.arange(maps.shape[2]), grid[0])
    cols = np.array_split(np.arange(maps.shape[3]), grid[1])
    parts = [maps[:, :, r[0]:r[-1] + 1, c[0]:c[-1] + 1].mean(axis=(2, 3)) for r in rows for c in cols]
    return np.stack(parts, axis=2).reshape(len(maps), -1)


@dataclass(frozen=True)
class Match:
    """What an enrolled deck makes of one crop. ``label`` is ``unknown`` when nothing is close
    enough or two cards are nearly as close; ``nearest`` is the closest card all the same."""

    label: str
    similarity: float
    gap: float
    nearest: str
    raw: float


Reads = Sequence[Sequence[tuple[str, float]]]
"""Index reads of one card's enrolled views: per view, one (text, confidence) per box tried."""


@dataclass(frozen=True)
class DeckIndex:
    """Which index each enrolled card prints, as the reader reads it in the deck's best box.

    The second look it gives (:meth:`look`) never names a crop whose picture is not close enough
    to the card: it only chooses among the cards the pictures leave close, or refuses them all.
    It looks a little below the picture's gate only where the crop's pips are the card's
    (:data:`INDEX_BELOW_GATE`): with the index alone that named a Bicycle deck's spades and
    diamonds as the enrolled hearts of their rank."""

    box: int
    texts: Mapping[str, str]

    @classmethod
    def fit(cls, reads: Mapping[str, Reads]) -> DeckIndex | None:
        """The box in which the most cards read one index on two of their views (most distinct
        indices breaking ties), and what each card reads there; None where too few cards read
        one (:data:`MIN_INDEXED`)."""
        boxes = min((len(views[0]) for views in reads.values() if len(views)), default=0)
        best: tuple[float, int, dict[str, str]] | None = None
        for box in range(boxes):
            texts = {label: text for label, views in reads.items()
                     if (text := _agreed([view[box] for view in views]))}
            score = len(texts) + 0.5 * len(set(texts.values()))
            if best is None or score > best[0]:
                best = (score, box, texts)
        if best is None or len(best[2]) < max(2, MIN_INDEXED * len(reads)):
            return None
        return cls(best[1], best[2])

    def look(self, seen: frozenset[str], nearest: str, near: Sequence[str],
             sure: Collection[str]) -> str | None:
        """What the index read on a crop (``seen``: the texts read surely, either way up) makes
        of the cards ``near`` it (labels, best first by similarity after whitening, the
        pictures' ``nearest`` first of all), of which those in ``sure`` pass the pictures' gate
        by :data:`INDEX_RAW_MARGIN`. The one near card that prints it is named where sure.
        ``unknown`` when no near card prints it but the nearest prints another index (not a
        part of it, nor one it is a part of: "0" and "10" are one index cut two ways), when the
        only one that does is not sure (the index tells a card's rank, not its printing or
        suit), or when several do and the nearest is not one of them. None when
        the read says nothing (nothing read, no index this deck prints) or only that the
        nearest card's index is right while other near cards print it too (an ace of hearts
        and of diamonds: the pictures and the ink layout part them, as without the index)."""
        if not seen & set(self.texts.values()):
            return None
        agree = [label for label in near if self.texts.get(label) in seen]
        if not agree:
            printed = self.texts.get(nearest)
            if printed is None or any(printed in text or text in printed for text in seen):
                return None  # a box that cuts the index's first figure off reads "0" for a 10
            return UNKNOWN
        if len(agree) > 1:
            return None if agree[0] == nearest else UNKNOWN
        return agree[0] if agree[0] in sure else UNKNOWN

    @staticmethod
    def seen(reads: Sequence[tuple[str, float]]) -> frozenset[str]:
        """The texts of ``reads`` (a crop's, either way up) the reader is sure of."""
        return frozenset(text for text, confidence in reads if text and confidence >= INDEX_CONFIDENCE)


def _agreed(views: Sequence[tuple[str, float]]) -> str | None:
    """The text read surely on at least two of a card's views (the most often, if several)."""
    counts = Counter(text for text, confidence in views if text and confidence >= ENROLLED_INDEX_CONFIDENCE)
    if not counts:
        return None
    text, times = counts.most_common(1)[0]
    return text if times >= 2 else None


@dataclass(frozen=True)
class PhotoDeck:
    """A deck's enrolled views in whitened feature space, and their ink layouts where known
    (:func:`ink_layout`, one row per view; decks enrolled before have none)."""

    labels: np.ndarray
    vectors: np.ndarray
    projection: np.ndarray
    centre: np.ndarray
    raw: np.ndarray
    layouts: np.ndarray | None = None
    min_raw: float = MIN_RAW
    """How similar (before whitening) a crop's closest view must be: :func:`raw_gate` of the
    enrolment; decks enrolled before keep :data:`MIN_RAW`."""
    index: DeckIndex | None = None
    """The cards' printed indices where the deck prints them (decks enrolled before: None)."""

    @classmethod
    def fit(cls, views: Mapping[str, np.ndarray],
            layouts: Mapping[str, np.ndarray] | None = None,
            index_reads: Mapping[str, Reads] | None = None,
            retakes: Mapping[str, np.ndarray] | None = None) -> PhotoDeck:
        """Whiten by the scatter of each card's views about their mean; ``views`` maps a label
        to the embeddings of its photos (each photo and the photo turned half way), ``layouts``
        to their ink layouts in the same order, ``index_reads`` to their index reads
        (:meth:`~ducktable.vision.card_index.IndexReader.corner_reads`, every box).

        ``retakes`` maps a label to the embeddings of re-photographed copies of each of its
        views (:func:`enrolment_retakes`: views x copies x features): how far each copy strays
        from the view it was made of counts in the scatter too (:data:`RETAKES`). The copies
        are not views: what is matched, the raw gate (:func:`raw_gate`) and the whitening's
        centre stay made of the photos."""
        labels = [label for label, rows in views.items() for _ in range(len(rows))]
        if not labels:
            raise ValueError("no enrolled views to fit")
        raw = np.vstack([np.asarray(rows, np.float32) for rows in views.values()])
        centred = [np.asarray(rows, np.float32) - np.mean(rows, axis=0) for rows in views.values()]
        for label, copies in (retakes or {}).items():
            own = np.asarray(views[label], np.float32)
            copies = np.asarray(copies, np.float32)
            if copies.ndim != 3 or len(copies) != len(own):
                raise ValueError("the retakes are needed as views x copies x features")
            centred.append((copies - own[:, None, :]).reshape(-1, raw.shape[1]))
        scattered = np.vstack(centred)
        scatter = scattered.T @ scattered / len(scattered) + WHITENING * np.eye(raw.shape[1])
        values, vectors = np.linalg.eigh(scatter)
        projection = (vectors / np.sqrt(values)).astype(np.float32)
        centre = raw.mean(axis=0)
        inks = None
        if layouts is not None:
            inks = np.vstack([np.asarray(layouts[label], np.float32) for label in views])
            if len(inks) != len(labels):
                raise ValueError("one ink layout per enrolled view is needed")
        index = DeckIndex.fit(index_reads) if index_reads else None
        return cls(np.array(labels), _unit((raw - centre) @ projection), projection, centre,
                   _unit(raw), inks, raw_gate(views), index)

    def match(self, embeddings: np.ndarray, *, min_raw: float | None = None,
              min_gap: float = MIN_GAP, layouts: np.ndarray | None = None,
              read_index: Callable[[int], Sequence[tuple[str, float]]] | None = None) -> list[Match]:
        """The card each embedding is of, or ``unknown``: named when the closest view is
        ``min_raw`` similar (the deck's own gate unless told). A crop not named so, or whose best
        card is not :data:`SECOND_LOOK_GAP` ahead of the next, is looked at again: by its
        printed index where the deck has one and ``read_index(i)`` (crop i's reads in the
        deck's box, either way up; only asked for such crops) reads one it prints
        (:meth:`DeckIndex.look`); otherwise, given the crops' ink ``layouts`` (and a deck that
        has them), a named crop stays named only when its layout is closer to the best card's
        than to the next's."""
        if not len(embeddings):
            return []
        crops = np.asarray(embeddings, np.float32)
        sims = _unit((crops - self.centre) @ self.projection) @ self.vectors.T
        raws = _unit(crops) @ self.raw.T
        names = np.unique(self.labels)
        columns = [self.labels == n for n in names]
        per_card = np.stack([sims[:, c].max(axis=1) for c in columns], axis=1)
        raw_card = np.stack([raws[:, c].max(axis=1) for c in columns], axis=1)
        looked = layouts is not None and self.layouts is not None
        if looked:
            per_card = self._coloured(per_card, np.asarray(layouts), columns)
            per_card = self._shaded(per_card, np.asarray(layouts), columns)
        min_raw = self.min_raw if min_raw is None else min_raw
        found = []
        for i, (row, raw_row) in enumerate(zip(per_card, raw_card, strict=True)):
            ranks = np.argsort(-row)
            best = float(row[ranks[0]])
            gap = best - float(row[ranks[1]]) if len(ranks) > 1 else best
            raw = float(raw_row[ranks[0]])
            name = str(names[ranks[0]])
            named = raw >= min_raw and gap >= min_gap
            if self.index is not None and read_index is not None and (not named or gap < SECOND_LOOK_GAP):
                near = [j for j in ranks if row[j] >= best - SECOND_LOOK_GAP]
                sure = {str(names[j]) for j in near if raw_row[j] >= min_raw + INDEX_RAW_MARGIN
                        or (raw_row[j] >= min_raw - INDEX_BELOW_GATE and looked
                            and self._marked_alike(np.asarray(layouts)[i], columns[j]))}
                said = self.index.look(DeckIndex.seen(read_index(i)), name,
                                       [str(names[j]) for j in near], sure)
                if said is not None:
                    j = ranks[0] if said == UNKNOWN else int(np.flatnonzero(names == said)[0])
                    found.append(Match(said, float(row[j]), gap, name, float(raw_row[j])))
                    continue
            if named and looked and gap < SECOND_LOOK_GAP:
                ink = np.asarray(layouts)[i, :LAYOUT_CELLS] @ np.asarray(self.layouts)[:, :LAYOUT_CELLS].T
                named = ink[columns[ranks[0]]].max() >= ink[columns[ranks[1]]].max()
            found.append(Match(name if named else UNKNOWN, best, gap, name, raw))
        return found

    def _marked_alike(self, crop: np.ndarray, column: np.ndarray) -> bool:
        """Whether the crop's marks (one :func:`ink_layouts` row) are those of the card whose
        enrolled views are ``column``: ink of its hue (or as grey as it) and pips that fill
        their box as its views' do (their median, :data:`FILL_TOLERANCE`); False where either does not
        say (no marks measured, a deck enrolled before the fills were stored)."""
        assert self.layouts is not None
        if self.layouts.shape[1] <= FILL_COLUMN or len(crop) <= FILL_COLUMN or crop[FILL_COLUMN] == NO_FILL:
            return False
        enrolled = self.layouts[column]
        fills = enrolled[enrolled[:, FILL_COLUMN] != NO_FILL, FILL_COLUMN]
        if not len(fills) or abs(float(np.median(fills)) - float(crop[FILL_COLUMN])) > FILL_TOLERANCE:
            return False
        inks, ink = enrolled[:, COLOUR_COLUMNS], crop[None, COLOUR_COLUMNS]
        if bool(_hued(ink)[0]) != bool(_hued(inks).any()):
            return False
        return not _hued(ink)[0] or float((_hues(ink) @ _hues(inks).T).max()) >= 1 - COLOUR_TOLERANCE

    def _coloured(self, per_card: np.ndarray, inks: np.ndarray, columns: list[np.ndarray]) -> np.ndarray:
        """``per_card`` (crops x cards, after whitening) less the ink's colour look's
        (:data:`COLOUR_WEIGHT`) where the crop's ink and the card's have a hue; as it is for a
        deck enrolled before the inks' colours were stored."""
        assert self.layouts is not None
        if self.layouts.shape[1] <= LAYOUT_CELLS or inks.shape[1] <= LAYOUT_CELLS:
            return per_card
        enrolled, seen = self.layouts[:, COLOUR_COLUMNS], inks[:, COLOUR_COLUMNS]
        alike = _hues(seen) @ _hues(enrolled).T  # cosine; 0 where either has no hue
        hued = _hued(seen)[:, None] & np.array([_hued(enrolled[c]).any() for c in columns])[None, :]
        card = np.stack([np.where(_hued(enrolled[c]), alike[:, c], -1.0).max(axis=1) for c in columns], axis=1)
        return _behind_the_nearest(per_card, -card, hued, COLOUR_WINDOW, COLOUR_WEIGHT, COLOUR_TOLERANCE)

    def _shaded(self, per_card: np.ndarray, inks: np.ndarray, columns: list[np.ndarray]) -> np.ndarray:
        """``per_card`` less the shading look's (:data:`SHADE_WEIGHT`) where the crop's shapes
        and the card's enrolled shapes have a shading; as it is for a deck enrolled before the
        shadings were stored."""
        assert self.layouts is not None
        if self.layouts.shape[1] <= SHADE_COLUMN or inks.shape[1] <= SHADE_COLUMN:
            return per_card
        enrolled, seen = self.layouts[:, SHADE_COLUMN], inks[:, SHADE_COLUMN]
        far = np.abs(seen[:, None] - enrolled[None, :])  # shadings lie in 0-1: 2 is farther than any
        shaded = (seen != NO_SHADING)[:, None] & np.array([np.any(enrolled[c] != NO_SHADING) for c in columns])[None, :]
        card = np.stack([np.where(enrolled[c] != NO_SHADING, far[:, c], 2.0).min(axis=1) for c in columns], axis=1)
        return _behind_the_nearest(per_card, card, shaded, SHADE_WINDOW, SHADE_WEIGHT, SHADE_TOLERANCE)

    def save(self, path: Path) -> None:
        arrays: dict[str, Any] = {"labels": self.labels.astype(str), "vectors": self.vectors,
                  "projection": self.projection, "centre": self.centre, "raw": self.raw}
        if self.layouts is not None:
            arrays["layouts"] = self.layouts
        if self.index is not None:
            arrays["index_box"] = np.int32(self.index.box)
            arrays["index_labels"] = np.array(list(self.index.texts), dtype=str)
            arrays["index_texts"] = np.array(list(self.index.texts.values()), dtype=str)
        np.savez_compressed(path, min_raw=np.float32(self.min_raw), **arrays)

    @classmethod
    def read(cls, path: Path) -> PhotoDeck:
        with np.load(path, allow_pickle=False) as data:
            layouts = data["layouts"] if "layouts" in data.files else None
            min_raw = float(data["min_raw"]) if "min_raw" in data.files else MIN_RAW
            index = None
            if "index_box" in data.files:
                index = DeckIndex(int(data["index_box"]), dict(zip(data["index_labels"].tolist(),
                                                                   data["index_texts"].tolist(), strict=True)))
            return cls(data["labels"], data["vectors"], data["projection"], data["centre"],
                       data["raw"], layouts, min_raw, index)


def raw_gate(views: Mapping[str, np.ndarray]) -> float:
    """The deck's gate on a crop's similarity before whitening: how alike its enrolment photos
    of one card are (each pair of photos of a card, either way up; ``views`` as
    :func:`enrolment_views` orders them, the photos then their half-turned twins), as
    :data:`LOWEST_RAW` says. :data:`MIN_RAW` where no card has two photos."""
    pairs: list[float] = []
    for rows in views.values():
        unit = _unit(np.asarray(rows, np.float32))
        photos = len(unit) // 2
        if photos < 2 or len(unit) % 2:
            continue
        sims = unit[:photos] @ unit.T
        pairs += [max(float(sims[p, q]), float(sims[p, q + photos]))
                  for p in range(photos) for q in range(p + 1, photos)]
    if not pairs:
        return MIN_RAW
    return float(np.clip(np.percentile(pairs, RAW_QUANTILE) - RAW_MARGIN, LOWEST_RAW, MIN_RAW))


def enrolment_views(features: CardFeatures, crops_by_label: Mapping[str, Sequence[np.ndarray]]
                    ) -> dict[str, np.ndarray]:
    """Each photo's embedding and its half-turned twin's, per label: a card on the table lies
    either way up."""
    views = {}
    for label, crops in crops_by_label.items():
        both = [*crops, *(cv2.rotate(c, cv2.ROTATE_180) for c in crops)]
        views[label] = features.embed(both)
    return views


def retaken(crop: np.ndarray, rng: np.random.Generator, copies: int = RETAKES) -> list[np.ndarray]:
    """``copies`` copies of ``crop`` as the camera might take it again (cut, light, blur, noise:
    :func:`~ducktable.vision.augment.augment_card` on the upright crop, at its size), then
    each copy turned half way, in that order."""
    upright = portrait(crop)
    size = (upright.shape[1], upright.shape[0])
    again = [augment.augment_card(upright, rng, size=size) for _ in range(copies)]
    return [*again, *(cv2.rotate(c, cv2.ROTATE_180) for c in again)]


def enrolment_retakes(features: CardFeatures, crops_by_label: Mapping[str, Sequence[np.ndarray]],
                      seed: int = 0, copies: int = RETAKES) -> dict[str, np.ndarray]:
    """The embeddings of :func:`retaken` copies of every view of :func:`enrolment_views`, per
    label (views x copies x features: a photo's copies, then their half-turned twins for the
    photo's twin), for :meth:`PhotoDeck.fit`; seeded, so one set of photos gives one deck."""
    rng = np.random.default_rng(seed)
    embedded = {}
    for label, crops in crops_by_label.items():
        made = np.stack([features.embed(retaken(crop, rng, copies)).reshape(2, copies, -1)
                         for crop in crops]) if crops else np.zeros((0, 2, copies, features.dim))
        embedded[label] = np.concatenate([made[:, 0], made[:, 1]]).astype(np.float32)
    return embedded


def enrolment_layouts(crops_by_label: Mapping[str, Sequence[np.ndarray]]
                      ) -> dict[str, np.ndarray]:
    """The ink layouts of :func:`enrolment_views`' views, in the same order."""
    return {label: ink_layouts([*crops, *(cv2.rotate(c, cv2.ROTATE_180) for c in crops)])
            for label, crops in crops_by_label.items()}


def _behind_the_nearest(per_card: np.ndarray, far: np.ndarray, looked: np.ndarray, window: float,
                        weight: float, tolerance: float) -> np.ndarray:
    """``per_card`` (crops x cards) where each card ``looked`` at and within ``window`` of the
    crop's best loses ``weight`` times how much farther it is (``far``, crops x cards) than the
    nearest such card, past ``tolerance``: what the colour and shading looks share."""
    judged = looked & (per_card >= per_card.max(axis=1, keepdims=True) - window)
    nearest = np.where(judged, far, np.inf).min(axis=1, keepdims=True)
    farther = np.maximum(far - nearest - tolerance, 0.0)
    return np.where(judged, per_card - weight * farther, per_card)


def _hued(colours: np.ndarray) -> np.ndarray:
    """Which ink colours (:func:`ink_colour`, one a row) have a hue: black ink has none."""
    return np.asarray(np.linalg.norm(colours, axis=1) >= MIN_CHROMA)


def _hues(colours: np.ndarray) -> np.ndarray:
    """The ink colours' hues as unit vectors, zero where they have none."""
    return np.where(_hued(colours)[:, None], _unit(colours), 0.0)


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
