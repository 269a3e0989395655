"""Read a photo of one laid-out grid (:mod:`ducktable.vision.layout_plan`): each card's place,
hence its label, and the places to lay again.

Why this module exists: the cards of a layout photo are named by where they lie, so the photo
must be turned into grid places whatever the camera did: a phone held a little crooked or on
its side, a table camera looking in at an angle. The cards are found with the project's
detector; the grid is then fitted to their centres:

1. the cards lie upright, so their long sides give the grid's "down" (up to a half turn);
2. centres along "down" fall into rows (a gap of half a card's length parts two rows), and the
   spacing of neighbours in a row gives the column pitch: a first place for each card;
3. a homography from grid places to centres, fitted to those places, absorbs perspective; each
   card moves to the place it lands nearest, twice over;
4. the grid found is slid over the plan's grid, both ways up, to where most cards lie on places
   the plan fills. The plan always leaves the last place empty, so a photo taken upside down
   still reads right (unless the card missing is the one at the mirror place of the hole).

A place the plan fills where no card or two were found is looked at again on its own; a place
with still no card is ``empty``; a card on a place the plan leaves empty, two
cards on one place, or a card much smaller or larger than the others is ``extra`` or
``doubtful`` and not enrolled; a blurred card is ``doubtful`` too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from ducktable.vision.enroll import (
    EnrolmentError,
    EnrolmentReport,
    PhotoProblem,
    enroll_photos,
    sharpness,
)
from ducktable.vision.layout_plan import ROUNDS, Layout, check_round

Found = tuple[np.ndarray, np.ndarray]
"""A card found in the photo: its quad (4 x 2, TL, TR, BR, BL of the upright card) and crop."""
CardSearch = Callable[[np.ndarray], list[Found]]

OK, EMPTY, EXTRA, DOUBTFUL = "ok", "empty", "extra", "doubtful"
MIN_PHOTO_SIDE = 64
"""A picture smaller than this each way holds no card that can be read (nor searched)."""
SIZE_RANGE = (0.45, 2.0)
"""A card's area over the median card's outside which it is not one of the laid cards."""


LOOK_AGAIN_HALF = 0.8
"""Half the side of the window a place is looked at again in, in card lengths: the card and a
little table around it, not its neighbours (the plan's places lie about 1.4 card lengths apart)."""
LOOK_AGAIN_SIZE = (0.7, 1.4)
"""A card found on a second look has about the others' area (not two cards taken as one)."""
LOOK_AGAIN_OFF = 0.3
"""... and its centre this many card lengths or less from the place's."""

MIN_SHARPNESS = 2.0
"""Below this sharpness (:func:`ducktable.vision.enroll.sharpness`) a card is ``doubtful``. Lower
than for a photo of one card: a card in a grid photo has fewer pixels, and plain faces (DUCK's
lifebelts) measure 2.4-2.6 in rendered grids with a little camera blur; what is too poor to be
named is found by the leave-one-out check anyway."""


def detector_search() -> CardSearch:
    """The project's card detector as a :data:`CardSearch`: the card locator network's outlines
    fitted to edges, and where it finds nothing the edge-map search. The edge-map search alone
    takes the gap between two cards of a grid for a card now and then (its sides are the cards'
    edges); the locator knows what a card looks like."""
    from ducktable.vision import detect
    from ducktable.vision.locator import load_locator

    locator = load_locator("network")

    def search(image: np.ndarray) -> list[Found]:
        found = detect.detect_cards(image, locator=locator) or detect.detect_cards(image)
        return [(d.quad, np.asarray(d.crop)) for d in found]

    return search


@dataclass(frozen=True)
class Place:
    """One grid place as read: what the plan lays there, the card found on it (quad in the
    photo's pixels) and whether it can be enrolled. ``row`` and ``col`` are 0-based; a card
    found off the grid has row and col -1."""

    row: int
    col: int
    label: str | None
    status: str
    quad: np.ndarray | None = None
    message: str = ""

    @property
    def name(self) -> str:
        return f"row {self.row + 1} place {self.col + 1}"


@dataclass
class LayoutReading:
    """What one photo of a layout gave: its places and the crop of each card to enrol."""

    layout: Layout
    round: int
    places: list[Place]
    crops: dict[str, np.ndarray] = field(default_factory=dict)
    centres: np.ndarray | None = None
    """Where each grid place lies in the photo (rows x cols x 2), when a grid was fitted."""
    ms: float = 0.0

    @property
    def named(self) -> int:
        return sum(1 for p in self.places if p.status == OK)

    @property
    def retake(self) -> list[str]:
        """One line per place to lay or photograph again."""
        return [p.message for p in self.places if p.status != OK]


def read_layout(image: np.ndarray, layout: Layout, round_: int = 1, *,
                search: CardSearch | None = None, min_sharpness: float | None = None
                ) -> LayoutReading:
    """The places of ``layout`` (laid in ``round_``) found in ``image`` (BGR)."""
    check_round(round_)
    start = time.perf_counter()
    labels = layout.labels(round_)
    found = (search or detector_search())(image) if min(image.shape[:2]) >= MIN_PHOTO_SIDE \
        else []
    if not found:
        places = [Place(i // layout.cols, i % layout.cols, label, EMPTY, None,
                        f"row {i // layout.cols + 1} place {i % layout.cols + 1} ({label}): no "
                        f"card found - is the whole grid in view and lit?")
                  for i, label in enumerate(labels) if label is not None]
        return LayoutReading(layout, round_, places, ms=(time.perf_counter() - start) * 1000)
    areas = np.array([abs(cv2.contourArea(np.asarray(q, np.float32))) for q, _ in found])
    median = float(np.median(areas))
    card_sized = (areas >= SIZE_RANGE[0] * median) & (areas <= SIZE_RANGE[1] * median)
    places = [Place(-1, -1, None, EXTRA, quad, _off_grid(quad, "is not the size of the others"))
              for (quad, _), keep in zip(found, card_sized, strict=True) if not keep]
    laid = [f for f, keep in zip(found, card_sized, strict=True) if keep]
    cells, centres = fit_grid([q for q, _ in laid], layout.rows, layout.cols, labels)
    if centres is not None:
        laid, cells = _looked_again(image, laid, cells, centres, labels, layout.cols, median)
    more, crops = _places(laid, cells, labels, layout.cols,
                          MIN_SHARPNESS if min_sharpness is None else min_sharpness, sharpness)
    return LayoutReading(layout, round_, places + more, crops, centres,
                         (time.perf_counter() - start) * 1000)


def _looked_again(image: np.ndarray, laid: list[Found], cells: list[tuple[int, int] | None],
                  centres: np.ndarray, labels: Sequence[str | None], cols: int, area: float
                  ) -> tuple[list[Found], list[tuple[int, int] | None]]:
    """The cards found, with a second look at each place the plan fills where the search
    found no card or two: the photo finder (edges, else the card's silhouette) on that place
    alone, where a card of the others' size lying on the place replaces what was there. A
    grey card on a brown table can show too little edge for the whole-photo search, and the
    locator can cut one card in two; a place the person really left empty stays empty."""
    from ducktable.vision.photo_finder import find_photo_cards

    long_side = _card_length([q for q, _ in laid])
    on: dict[int, list[int]] = {}
    for k, cell in enumerate(cells):
        if cell is not None:
            on.setdefault(cell[0] * cols + cell[1], []).append(k)
    laid, cells = list(laid), list(cells)
    dropped: set[int] = set()
    for index, label in enumerate(labels):
        here = on.get(index, [])
        if label is None or len(here) == 1:
            continue
        row, col = divmod(index, cols)
        centre = centres[row, col]
        half = LOOK_AGAIN_HALF * long_side
        x0, y0 = (max(0, int(v - half)) for v in centre)
        window = image[y0:int(centre[1] + half), x0:int(centre[0] + half)]
        if min(window.shape[:2]) < MIN_PHOTO_SIDE:
            continue
        near = []
        for card in find_photo_cards(window):
            quad = np.asarray(card.quad, np.float64) + (x0, y0)
            size = abs(cv2.contourArea(quad.astype(np.float32))) / area
            if (LOOK_AGAIN_SIZE[0] <= size <= LOOK_AGAIN_SIZE[1]
                    and np.linalg.norm(quad.mean(axis=0) - centre) <= LOOK_AGAIN_OFF * long_side):
                near.append((quad, np.asarray(card.crop)))
        if len(near) == 1:
            dropped.update(here)
            laid.append(near[0])
            cells.append((row, col))
    keep = [k for k in range(len(laid)) if k not in dropped]
    return [laid[k] for k in keep], [cells[k] for k in keep]


def _off_grid(quad: np.ndarray, why: str) -> str:
    x, y = np.asarray(quad, np.float32).mean(axis=0)
    return f"a card at ({x:.0f}, {y:.0f}) {why}: take away what is not a card of the layout"


def _places(found: Sequence[Found], cells: Sequence[tuple[int, int] | None],
            labels: Sequence[str | None], cols: int, min_sharpness: float,
            sharpness: Callable[[np.ndarray], float]
            ) -> tuple[list[Place], dict[str, np.ndarray]]:
    """Every place the plan fills and every card where the plan lays none, with the crop of
    each card that can be enrolled, by label."""
    on: dict[int, list[int]] = {}
    places = []
    crops = {}
    for k, cell in enumerate(cells):
        if cell is None:
            places.append(Place(-1, -1, None, EXTRA, found[k][0],
                                _off_grid(found[k][0], "lies off the grid")))
        else:
            on.setdefault(cell[0] * cols + cell[1], []).append(k)
    for index, label in enumerate(labels):
        row, col = divmod(index, cols)
        here = on.get(index, [])
        where = f"row {row + 1} place {col + 1}"
        if label is None:
            places += [Place(row, col, None, EXTRA, found[k][0],
                             f"{where} should stay empty but has a card: take it away")
                       for k in here]
        elif not here:
            places.append(Place(row, col, label, EMPTY, None,
                                f"{where} ({label}): no card found - lay {label} there"))
        elif len(here) > 1:
            places += [Place(row, col, label, DOUBTFUL, found[k][0],
                             f"{where} ({label}): {len(here)} cards found there - lay one card "
                             f"per place, apart from its neighbours") for k in here]
        else:
            quad, crop = found[here[0]]
            sharp = sharpness(crop)
            if sharp < min_sharpness:
                places.append(Place(row, col, label, DOUBTFUL, quad,
                                    f"{where} ({label}): blurred (sharpness {sharp:.1f}) - hold "
                                    f"the camera still and photograph the layout again"))
            else:
                places.append(Place(row, col, label, OK, quad))
                crops[label] = crop
    return places, crops


def enroll_layouts(readings: Sequence[LayoutReading], prototypes_dir: str | Path | None, *,
                   classifier: Any = None, seed: int = 0) -> EnrolmentReport:
    """Enrol the cards of the layout photos read, each labelled by its place, the same way as
    a folder of photos (:func:`ducktable.vision.enroll.enroll_photos`: the same photo deck,
    crops and leave-one-out check). The places to lay again are the report's ``problems``.
    Cards photographed once cannot be checked: one line says which round to lay for them."""
    if not readings:
        raise EnrolmentError("no layout photo to enrol: photograph at least one layout")
    game = readings[0].layout.game
    if any(r.layout.game != game for r in readings):
        raise EnrolmentError("the layout photos are of different games: enrol one game at a time")
    crops: dict[str, list[np.ndarray]] = {}
    problems = []
    for reading in sorted(readings, key=lambda r: (r.round, r.layout.number)):
        tag = f"layout {reading.layout.number} round {reading.round}"
        for label, crop in reading.crops.items():
            crops.setdefault(label, []).append(crop)
        problems += [PhotoProblem(Path(tag), f"{tag}: {line}") for line in reading.retake]
    report = enroll_photos(game, crops, problems, prototypes_dir, classifier=classifier,
                           seed=seed, source=f"{len(readings)} layout photo(s)")
    once = [label for label, got in crops.items() if len(got) == 1]
    if once:
        rounds = {r.round for r in readings}
        missing = [n for n in range(1, ROUNDS + 1) if n not in rounds]
        todo = (f"photograph their layouts in round {missing[0]} too" if missing else
                "each was not read in one round: lay it again as listed and retake that photo")
        lines = [line for line in report.retake if line.split(":")[0] not in once]
        lines.append(f"{len(once)} card(s) photographed once ({', '.join(sorted(once)[:4])}"
                     f"{', ...' if len(once) > 4 else ''}) cannot be checked: {todo}")
        report = replace(report, retake=lines)
    return report


# ---- fitting the grid ------------------------------------------------------------------------

def fit_grid(quads: Sequence[np.ndarray], rows: int, cols: int,
             labels: Sequence[str | None]) -> tuple[list[tuple[int, int] | None], np.ndarray | None]:
    """Each card's (row, col) in the plan's grid (None: off the grid) and where every place lies
    in the photo (rows x cols x 2; None when fewer than 4 cards fix it)."""
    if not quads:
        return [], None
    pts = np.array([np.asarray(q, np.float64).mean(axis=0) for q in quads])
    down = _down(quads)
    long_side = _card_length(quads)
    short_side = float(np.median([np.linalg.norm((q[1] - q[0] + q[2] - q[3]) / 2) for q in quads]))
    relative, to_photo = _relative_cells(pts, down, long_side, short_side)
    occupied = {i for i, label in enumerate(labels) if label is not None}
    span_r = max(r for r, _ in relative) + 1
    span_c = max(c for _, c in relative) + 1
    choices = [(turned, dr, dc) for turned in (0, 1)
               for dr in range(max(0, rows - span_r) + 1)
               for dc in range(max(0, cols - span_c) + 1)]

    def fits(choice: tuple[int, int, int]) -> tuple[int, int, int, int]:
        cells = [_placed(cell, *choice, span_r, span_c) for cell in relative]
        on_plan = sum(1 for r, c in cells if 0 <= r < rows and 0 <= c < cols
                      and r * cols + c in occupied)
        return on_plan, -choice[0], -choice[1], -choice[2]

    turned, dr, dc = max(choices, key=fits)
    cells_out: list[tuple[int, int] | None] = []
    for cell in relative:
        r, c = _placed(cell, turned, dr, dc, span_r, span_c)
        cells_out.append((r, c) if 0 <= r < rows and 0 <= c < cols else None)
    centres = None
    if to_photo is not None:
        grid = np.array([[_unplaced((r, c), turned, dr, dc, span_r, span_c)
                          for c in range(cols)] for r in range(rows)], np.float64)
        flat = cv2.perspectiveTransform(grid[:, :, ::-1].reshape(-1, 1, 2), to_photo)
        centres = flat.reshape(rows, cols, 2)
    return cells_out, centres


def _card_length(quads: Sequence[np.ndarray]) -> float:
    """The median card's long side, in the photo's pixels."""
    return float(np.median([np.linalg.norm((np.asarray(q, np.float64)[3] - q[0] + q[2] - q[1]) / 2)
                            for q in quads]))


def _placed(cell: tuple[int, int], turned: int, dr: int, dc: int, span_r: int, span_c: int
            ) -> tuple[int, int]:
    """A cell counted from the top-left card found, as a place of the plan's grid."""
    r, c = cell
    if turned:
        r, c = span_r - 1 - r, span_c - 1 - c
    return r + dr, c + dc


def _unplaced(cell: tuple[int, int], turned: int, dr: int, dc: int, span_r: int, span_c: int
              ) -> tuple[float, float]:
    """The inverse of :func:`_placed`."""
    r, c = cell[0] - dr, cell[1] - dc
    if turned:
        r, c = span_r - 1 - r, span_c - 1 - c
    return float(r), float(c)


def _down(quads: Sequence[np.ndarray]) -> np.ndarray:
    """The grid's "down" in the photo: the cards' long axis (averaged as an undirected angle),
    pointing down the picture (or right when the cards lie across it)."""
    doubled = 0j
    for q in quads:
        axis = (np.asarray(q[3], np.float64) - q[0] + q[2] - q[1]) / 2
        doubled += np.exp(2j * np.arctan2(axis[1], axis[0]))
    angle = np.angle(doubled) / 2 if abs(doubled) > 1e-9 else np.pi / 2
    down = np.array([np.cos(angle), np.sin(angle)])
    if down[1] < -1e-6 or (abs(down[1]) <= 1e-6 and down[0] < 0):
        down = -down
    return down


def _relative_cells(pts: np.ndarray, down: np.ndarray, long_side: float, short_side: float
                    ) -> tuple[list[tuple[int, int]], np.ndarray | None]:
    """Grid cells counted from the top-left card found, and the homography from (col, row) to
    the photo when four or more cards spread over two rows and columns fix one."""
    across = np.array([down[1], -down[0]])
    u, v = pts @ across, pts @ down
    order = np.argsort(v)
    row_of = np.zeros(len(pts), int)
    row = 0
    for prev, k in zip(order[:-1], order[1:], strict=True):
        if v[k] - v[prev] > 0.5 * long_side:
            row += 1
        row_of[k] = row
    gaps = []
    for r in range(row + 1):
        us = np.sort(u[row_of == r])
        gaps += list(np.diff(us))
    steps = np.array([g for g in gaps if g > 0.8 * short_side])
    pitch = float(np.median(steps[steps < 1.5 * steps.min()])) if len(steps) else 1.5 * short_side
    col_of = np.round((u - u.min()) / pitch).astype(int)
    cells = list(zip(row_of.tolist(), col_of.tolist(), strict=True))
    to_photo = None
    for _ in range(3):
        fitted = _homography(cells, pts)
        if fitted is None:
            break
        to_photo = fitted
        back = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(to_photo)).reshape(-1, 2)
        cells = [(int(round(y)), int(round(x))) for x, y in back]
    if to_photo is None:
        cells = [(int(r), int(round((uu - u.min()) / pitch))) for r, uu in
                 zip(row_of, u, strict=True)]
    low_r = min(r for r, _ in cells)
    low_c = min(c for _, c in cells)
    cells = [(r - low_r, c - low_c) for r, c in cells]
    if to_photo is not None:
        shift = np.array([[1, 0, low_c], [0, 1, low_r], [0, 0, 1]], np.float64)
        to_photo = to_photo @ shift
    return cells, to_photo


def _homography(cells: Sequence[tuple[int, int]], pts: np.ndarray) -> np.ndarray | None:
    """(col, row) -> photo, by least squares over distinct places; None when the cards do not
    span two rows and two columns or are too few."""
    seen: dict[tuple[int, int], int] = {}
    for k, cell in enumerate(cells):
        seen.setdefault(cell, k)
    if len(seen) < 4 or len({r for r, _ in seen}) < 2 or len({c for _, c in seen}) < 2:
        return None
    grid = np.array([[c, r] for r, c in seen], np.float64)
    photo = pts[list(seen.values())]
    h, _ = cv2.findHomography(grid, photo, 0)
    if h is None or not np.isfinite(h).all() or abs(np.linalg.det(h)) < 1e-12:
        return None
    return np.asarray(h, np.float64)


# ---- showing what was read -------------------------------------------------------------------

COLOURS = {OK: (60, 190, 60), EMPTY: (0, 150, 255), EXTRA: (40, 40, 230), DOUBTFUL: (40, 40, 230)}


def annotate(image: np.ndarray, reading: LayoutReading, max_side: int = 1280) -> np.ndarray:
    """A copy of ``image`` (at most ``max_side`` wide or high) with each card outlined and named
    (green), the places to lay again in orange (empty) or red (doubtful, extra)."""
    factor = min(1.0, max_side / max(image.shape[:2]))
    out = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA) \
        if factor < 1 else image.copy()
    scale = max(0.45, min(out.shape[:2]) / 900)
    for place in reading.places:
        colour = COLOURS[place.status]
        if place.quad is not None:
            quad = np.round(np.asarray(place.quad) * factor).astype(np.int32)
            cv2.polylines(out, [quad], True, colour, max(2, round(3 * scale)), cv2.LINE_AA)
            anchor = quad.mean(axis=0)
        elif reading.centres is not None and place.row >= 0:
            anchor = reading.centres[place.row, place.col] * factor
            size = round(25 * scale)
            x, y = (int(v) for v in anchor)
            cv2.line(out, (x - size, y - size), (x + size, y + size), colour, max(2, round(3 * scale)))
            cv2.line(out, (x - size, y + size), (x + size, y - size), colour, max(2, round(3 * scale)))
        else:
            continue
        text = place.label or "?"
        if place.status != OK:
            text = f"{text} ({place.status})"
        _label(out, text, anchor, scale, colour)
    return out


def _label(out: np.ndarray, text: str, anchor: np.ndarray, scale: float,
           colour: tuple[int, int, int]) -> None:
    size = 0.5 * scale
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, size, max(1, round(scale)))
    x = int(np.clip(anchor[0] - w / 2, 2, max(2, out.shape[1] - w - 2)))
    y = int(np.clip(anchor[1] + h / 2, h + 2, out.shape[0] - 4))
    cv2.rectangle(out, (x - 3, y - h - 4), (x + w + 3, y + 5), (255, 255, 255), -1)
    cv2.putText(out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, size, colour,
                max(1, round(scale)), cv2.LINE_AA)
