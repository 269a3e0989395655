"""Where to lay each card when a whole deck is enrolled from a few photos of card grids.

Why this module exists: two photos of each of 38 faces, one card at a time, is a chore nobody
finishes. Laid out in a grid whose places are known, the cards of one photo are labelled by
where they lie, the way chesscog learns a new chess set from the starting position. This module
plans the grids (which face goes where, in which order) and draws the sheet that shows them;
:mod:`ducktable.vision.layout_reading` reads a photo of one.

The plan's rules:

* a grid of ``rows`` x ``cols`` places, filled row by row, left to right; its **last place
  (bottom right) always stays empty**, so a photo tells which way up it was taken;
* two faces of one card (DUCK's lifebelts, green and red) go into different layouts at the same
  place: the card is simply turned over between the two photos;
* every layout is laid twice. Round 2 lays the same cards with each row's cards in the reverse
  order, so every face is photographed twice, at two places: each photo is then named from the other
  (:func:`ducktable.vision.enroll.check_views`), which finds a card laid at the wrong place.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from ducktable.rules import decks
from ducktable.vision import pdf_pages, printing

ROUNDS = 2
DEFAULT_GRID = (3, 5)
"""Rows and columns: 14 cards in a landscape photo (DUCK's 38 faces in 3 layouts, Duck Duck
Bruce's 41 in 3, Grey Duck's 18 in 2)."""
MAX_PLACES = 42
A4_LANDSCAPE_MM = (297.0, 210.0)
SHEET_DPI = 150


class LayoutPlanError(ValueError):
    """No plan can be made (unknown game, grid too small or too large)."""


@dataclass(frozen=True)
class Layout:
    """One grid to lay: ``faces`` row by row (round 1), None where a place stays empty."""

    game: str
    number: int
    """1-based."""
    count: int
    """How many layouts the game's plan has."""
    rows: int
    cols: int
    faces: tuple[str | None, ...]

    def labels(self, round_: int = 1) -> tuple[str | None, ...]:
        """The face at each place (row by row) in ``round_``: round 2 lays each row's cards in
        the reverse order, from its first place (the empty places stay at the row's end)."""
        check_round(round_)
        if round_ == 1:
            return self.faces
        out: list[str | None] = []
        for r in range(self.rows):
            row = self.faces[r * self.cols:(r + 1) * self.cols]
            cards = [face for face in row if face is not None][::-1]
            out += cards + [None] * (self.cols - len(cards))
        return tuple(out)

    def grid(self, round_: int = 1) -> list[list[str | None]]:
        flat = self.labels(round_)
        return [list(flat[r * self.cols:(r + 1) * self.cols]) for r in range(self.rows)]

    @property
    def cards(self) -> list[str]:
        return [face for face in self.faces if face is not None]

    def title(self, round_: int = 1) -> str:
        name = decks.deck(self.game).title if self.game in decks.DECKS else self.game
        return f"{name} layout {self.number} of {self.count}, round {round_}"


def check_round(round_: int) -> int:
    if round_ not in range(1, ROUNDS + 1):
        raise LayoutPlanError(f"round {round_} does not exist: each layout is laid in rounds "
                              f"1 and {ROUNDS}")
    return round_


def enrolable_faces(game: str) -> list[str]:
    """Every face of ``game`` that can be photographed, in deck order."""
    if game not in printing.DRAWABLE_DECKS:
        raise LayoutPlanError(f"no deck called {game!r}; choose one of "
                              f"{', '.join(printing.DRAWABLE_DECKS)}")
    return printing.card_labels(game)


def same_card_faces(game: str) -> list[tuple[str, ...]]:
    """Faces printed on one card (its sides): the cards whose attributes differ only in
    ``side``, e.g. DUCK's ``lifebelt-6-green`` and ``lifebelt-6-red``."""
    groups: dict[tuple[tuple[str, object], ...], list[str]] = {}
    for card in decks.deck(game).cards:
        if "side" in card.attrs:
            key = tuple(sorted((k, v) for k, v in card.attrs.items() if k != "side"))
            groups.setdefault(key, []).append(card.label)
    return [tuple(faces) for faces in groups.values() if len(faces) > 1]


def plan_layouts(game: str, rows: int = DEFAULT_GRID[0], cols: int = DEFAULT_GRID[1]
                 ) -> list[Layout]:
    """The fewest layouts of ``rows`` x ``cols`` holding every face of ``game`` once, about
    equally full; the sides of one card at the same place of different layouts."""
    return plan_faces(game, enrolable_faces(game), same_card_faces(game), rows, cols)


def plan_faces(deck: str, faces: Sequence[str], sides: Sequence[tuple[str, ...]] = (),
               rows: int = DEFAULT_GRID[0], cols: int = DEFAULT_GRID[1]) -> list[Layout]:
    """:func:`plan_layouts` for any deck: its ``faces`` and the groups of faces printed on one
    card (``sides``)."""
    if rows < 2 or cols < 2 or rows * cols > MAX_PLACES:
        raise LayoutPlanError(f"a {rows} x {cols} grid will not work: use 2 or more rows and "
                              f"columns, at most {MAX_PLACES} places (e.g. 3 x 5)")
    if not faces:
        raise LayoutPlanError(f"deck {deck!r} has no faces to lay out")
    paired = [face for group in sides for face in group]
    order = paired + [face for face in faces if face not in paired]
    room = rows * cols - 1  # the last place stays empty
    count = math.ceil(len(order) / room)
    while True:
        placed = _fill(order, sides, count, math.ceil(len(order) / count))
        if placed is not None:
            break
        count += 1
    out = []
    for number, members in enumerate(placed, 1):
        grid: list[str | None] = [None] * (rows * cols)
        grid[:len(members)] = members
        out.append(Layout(deck, number, len(placed), rows, cols, tuple(grid)))
    return out


def _fill(order: Sequence[str], sides: Sequence[tuple[str, ...]], count: int, room: int
          ) -> list[list[str]] | None:
    """Each face into the first layout with room that holds no other side of its card."""
    sibling = {face: set(group) - {face} for group in sides for face in group}
    layouts: list[list[str]] = [[] for _ in range(count)]
    for face in order:
        for members in layouts:
            if len(members) < room and not sibling.get(face, set()) & set(members):
                members.append(face)
                break
        else:
            return None
    return layouts


def find_layout(game: str, number: int, rows: int = DEFAULT_GRID[0],
                cols: int = DEFAULT_GRID[1]) -> Layout:
    plan = plan_layouts(game, rows, cols)
    if not 1 <= number <= len(plan):
        raise LayoutPlanError(f"{decks.deck(game).title} has layouts 1 to {len(plan)}, "
                              f"not {number}")
    return plan[number - 1]


# ---- the printed sheet -----------------------------------------------------------------------

def sheet_page(layout: Layout, round_: int = 1, dpi: int = SHEET_DPI) -> np.ndarray:
    """An A4 landscape page (grey image) showing where each card of ``layout`` goes."""
    px = dpi / 25.4
    page_w, page_h = (round(v * px) for v in A4_LANDSCAPE_MM)
    page = np.full((page_h, page_w), 255, np.uint8)
    scale = dpi / 150
    line = max(1, round(scale * 2))

    def text(s: str, x: float, y: float, size: float, weight: int = 1) -> None:
        cv2.putText(page, s, (round(x), round(y)), cv2.FONT_HERSHEY_SIMPLEX, size * scale, 0,
                    max(1, round(weight * scale)), cv2.LINE_AA)

    margin = 12 * px
    text(f"ducktable: {layout.title(round_)}", margin, margin, 0.9, 2)
    how = ("lay the cards row by row, left to right, face up and upright; leave the grey places "
           "empty" if round_ == 1 else
           "the same cards again, each row's cards in the reverse order; leave the grey places empty")
    text(how, margin, margin + 9 * px, 0.55)
    text("then photograph the whole grid from above, row 1 at the top of the picture",
         margin, margin + 15 * px, 0.55)
    top = margin + 22 * px
    cell_w = (page_w - 2 * margin) / layout.cols
    cell_h = (page_h - top - margin) / layout.rows
    card_h = min(cell_h * 0.9, cell_w * 0.9 * 1.5)
    card_w = card_h / 1.5
    order = 0
    for r, row in enumerate(layout.grid(round_)):
        for c, face in enumerate(row):
            cx, cy = margin + (c + 0.5) * cell_w, top + (r + 0.5) * cell_h
            x0, y0 = round(cx - card_w / 2), round(cy - card_h / 2)
            x1, y1 = round(cx + card_w / 2), round(cy + card_h / 2)
            if face is None:
                cv2.rectangle(page, (x0, y0), (x1, y1), 215, -1)
                continue
            order += 1
            cv2.rectangle(page, (x0, y0), (x1, y1), 0, line)
            text(f"{order}", x0 + 3 * px, y0 + 7 * px, 0.6, 2)
            for k, part in enumerate(_name_lines(face)):
                text(part, x0 + 3 * px, cy + k * 7 * px, 0.75, 2)
    return page


def _name_lines(face: str, width: int = 10) -> list[str]:
    """A face label split at hyphens into lines of about ``width`` characters."""
    lines: list[str] = []
    for part in face.split("-"):
        if lines and len(lines[-1]) + 1 + len(part) <= width:
            lines[-1] += "-" + part
        else:
            lines.append(part)
    return lines


def sheet_pages(game: str, rows: int = DEFAULT_GRID[0], cols: int = DEFAULT_GRID[1],
                dpi: int = SHEET_DPI) -> list[np.ndarray]:
    """Every layout of ``game`` in both rounds, one page each (layout 1 round 1 first)."""
    return [sheet_page(layout, round_, dpi) for layout in plan_layouts(game, rows, cols)
            for round_ in range(1, ROUNDS + 1)]


def pages_pdf(pages: Sequence[np.ndarray], page_mm: tuple[float, float] = A4_LANDSCAPE_MM
              ) -> bytes:
    """The layout sheets as one PDF, a page each (A4 landscape unless told)."""
    return pdf_pages.pages_pdf(pages, page_mm)
