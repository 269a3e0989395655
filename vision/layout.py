"""Where things lie on the table: named zones on the table plane and the camera's view of it.

Why this module exists: the rules side reads a table as ``zone -> cards``. Which zone a card
belongs to is a question of geometry on the *table plane* (flat table units, seen straight
down), so a layout is a set of named rectangles in table units, the table positions of the
calibration markers, and a homography from table to camera frame found by calibration
(:mod:`ducktable.vision.calibrate`). It is saved per table as JSON in the data folder.

Default layouts put each seat's discard pile and reveal area (a grid of slots where played
cards and round-end hands are laid) around a middle strip (draw pile, lifebelts, trick area);
their table units match the synthetic camera (1280 x 720 untilted frame pixels).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from ducktable.rules.decks import UNKNOWN
from ducktable.rules.snapshot import CardRead, ZoneRead, middle_zone, seat_zone

LAYOUT_FORMAT_VERSION = 1
TABLE_SIZE = (1280.0, 720.0)
CARD_SCALE = 0.85
CARD_W = 80.0 * CARD_SCALE  # a card's width in table units (scene.py: 1/16 of 1280 at scale 1)
CARD_H = CARD_W * 1.5
SLOT_W, SLOT_H = CARD_W + 8.0, CARD_H + 8.0
MARKER_SIZE = 40.0
MARKER_IDS = (0, 1, 2, 3)
MERGED_AREA = 1.7
"""A card found this many times larger than a card (on the table plane) is two touching cards
the detector took for one: it is read as unknown, never as one card of the pair."""
GAP_SLOTS = 1.6
"""Neighbours in a row of a spread whose centres lie this many slot widths apart leave room
for a card between them: one the detector missed (the middle card of three laid edge to edge
is the one it misses, and the cover watch cannot see it, every pixel of it lying near a card
found). The zone is read as covered, the safe mistake, rather than with a card missing."""


class LayoutError(ValueError):
    """A layout file or layout request that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class Zone:
    """A named rectangle on the table plane. ``kind`` "pile" holds one visible card (a stack's
    top), "spread" holds cards laid side by side in ``cols`` x ``rows`` slots, read row by row."""

    name: str
    x: float
    y: float
    w: float
    h: float
    kind: str = "pile"
    cols: int = 1
    rows: int = 1

    def contains(self, point: Sequence[float]) -> bool:
        return self.x <= point[0] < self.x + self.w and self.y <= point[1] < self.y + self.h

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2

    def slot_centres(self) -> list[tuple[float, float]]:
        """Where the n-th card of a spread is laid (row by row), in table units."""
        sw, sh = self.w / self.cols, self.h / self.rows
        return [(self.x + sw * (c + 0.5), self.y + sh * (r + 0.5))
                for r in range(self.rows) for c in range(self.cols)]

    def corners(self) -> np.ndarray:
        return np.array([[self.x, self.y], [self.x + self.w, self.y],
                         [self.x + self.w, self.y + self.h], [self.x, self.y + self.h]], np.float64)

    def reading_key(self, point: Sequence[float]) -> tuple[int, float]:
        """Sort key putting cards in reading order: slot row first, then left to right."""
        row = min(self.rows - 1, max(0, int((point[1] - self.y) / (self.h / self.rows))))
        return row, float(point[0])


@dataclass(frozen=True)
class TableLayout:
    """Zones on the table plane, where the markers lie, and the camera's homography."""

    name: str
    zones: tuple[Zone, ...]
    size: tuple[float, float] = TABLE_SIZE
    markers: dict[int, tuple[float, float]] = field(default_factory=dict)
    marker_size: float = MARKER_SIZE
    homography: np.ndarray | None = None  # table -> frame, 3 x 3

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise LayoutError(f"the layout {self.name!r} has no zone {name!r}; it has "
                          f"{', '.join(z.name for z in self.zones)}")

    def zone_at(self, point: Sequence[float]) -> Zone | None:
        for z in self.zones:
            if z.contains(point):
                return z
        return None

    def with_homography(self, homography: np.ndarray) -> TableLayout:
        return replace(self, homography=np.asarray(homography, np.float64))

    def _h(self) -> np.ndarray:
        if self.homography is None:
            raise LayoutError(f"the layout {self.name!r} is not calibrated; run "
                              "`ducktable calibrate` with the markers in view")
        return self.homography

    def to_frame(self, points: np.ndarray) -> np.ndarray:
        return _apply(self._h(), points)

    def to_table(self, points: np.ndarray) -> np.ndarray:
        return _apply(np.linalg.inv(self._h()), points)

    def marker_corners(self, marker_id: int) -> np.ndarray:
        """The marker's four corners in table units (ArUco order: TL, TR, BR, BL)."""
        cx, cy = self.markers[marker_id]
        s = self.marker_size / 2
        return np.array([[cx - s, cy - s], [cx + s, cy - s], [cx + s, cy + s], [cx - s, cy + s]])

    # -- files ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "v": LAYOUT_FORMAT_VERSION,
            "name": self.name,
            "size": list(self.size),
            "marker_size": self.marker_size,
            "markers": {str(k): list(v) for k, v in sorted(self.markers.items())},
            "zones": [z.__dict__ for z in self.zones],
            "homography": None if self.homography is None else self.homography.tolist(),
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "layout") -> TableLayout:
        try:
            if data.get("v") != LAYOUT_FORMAT_VERSION:
                raise LayoutError(f"{source}: layout format {data.get('v')!r} is not supported "
                                  f"(this ducktable reads version {LAYOUT_FORMAT_VERSION})")
            h = data.get("homography")
            homography = None if h is None else np.array(h, np.float64).reshape(3, 3)
            return cls(
                name=str(data["name"]),
                zones=tuple(Zone(**z) for z in data["zones"]),
                size=(float(data["size"][0]), float(data["size"][1])),
                markers={int(k): (float(v[0]), float(v[1])) for k, v in data["markers"].items()},
                marker_size=float(data["marker_size"]),
                homography=homography,
            )
        except LayoutError:
            raise
        except (AttributeError, KeyError, TypeError, ValueError, IndexError) as exc:
            raise LayoutError(f"{source} is not a valid table layout ({exc!r}); recalibrate with "
                              "`ducktable calibrate` to write a new one") from None

    def save(self, path: str | Path) -> None:
        """Write atomically (a crash never leaves half a calibration behind)."""
        path = Path(path)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1))
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> TableLayout:
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise LayoutError(f"no table calibration at {path}; run `ducktable calibrate` first") from None
        except (OSError, json.JSONDecodeError) as exc:
            raise LayoutError(f"cannot read {path} ({exc}); run `ducktable calibrate` again") from None
        return cls.from_json(data, str(path))


def _apply(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, homography).reshape(-1, 2)


# ---- default layouts --------------------------------------------------------------------------

def corner_markers(size: tuple[float, float] = TABLE_SIZE,
                   marker_size: float = MARKER_SIZE) -> dict[int, tuple[float, float]]:
    """Marker centres near the four corners of the table area (ids 0..3, clockwise from TL)."""
    w, h = size
    m = marker_size / 2 + 6
    return {0: (m, m), 1: (w - m, m), 2: (w - m, h - m), 3: (m, h - m)}


def seat_layout(game: str, players: int, middle: Iterable[str] = ("draw",), *,
                reveal_cols: int = 4, reveal_rows: int = 2) -> TableLayout:
    """Seats in two rows around a middle strip: each has a discard pile and a reveal area.

    Seats are numbered clockwise seen from above: along the bottom row from right to left,
    then along the top row from left to right. ``middle`` names the zones of the middle strip.
    """
    if not 2 <= players <= 6:
        raise LayoutError(f"a seat layout is for 2 to 6 players, not {players}")
    w, h = TABLE_SIZE
    bottom = (players + 1) // 2
    top = players - bottom
    panel_w = SLOT_W * (reveal_cols + 1) + 12
    panel_h = SLOT_H * reveal_rows
    rows_y = {"top": MARKER_SIZE + 16, "bottom": h - MARKER_SIZE - 16 - panel_h}
    zones: list[Zone] = []
    order: list[tuple[str, int, int]] = [("bottom", bottom - 1 - i, bottom) for i in range(bottom)]
    order += [("top", i, top) for i in range(top)]
    for seat, (row, index, count) in enumerate(order):
        gap = (w - count * panel_w) / (count + 1)
        if gap < 0:
            raise LayoutError(f"{players} seats do not fit the table width")
        x0 = gap + index * (panel_w + gap)
        y0 = rows_y[row]
        zones.append(Zone(seat_zone(seat, "discard"), x0, y0 + (panel_h - SLOT_H) / 2, SLOT_W, SLOT_H))
        zones.append(Zone(seat_zone(seat, "reveal"), x0 + SLOT_W + 12, y0, SLOT_W * reveal_cols,
                          panel_h, "spread", reveal_cols, reveal_rows))
    mids = list(middle)
    mid_y = h / 2 - SLOT_H / 2
    for i, kind in enumerate(mids):
        x = w / 2 + (i - (len(mids) - 1) / 2) * (SLOT_W + 40) - SLOT_W / 2
        zones.append(Zone(middle_zone(kind), x, mid_y, SLOT_W, SLOT_H))
    return TableLayout(f"{game}-{players}", tuple(zones), TABLE_SIZE, corner_markers())


def duck_layout(players: int) -> TableLayout:
    """DUCK: discard pile + reveal area per seat; draw pile and lifebelt stack in the middle."""
    return seat_layout("duck", players, ("draw", "lifebelt"))


# ---- from detections to a snapshot ----------------------------------------------------------

@dataclass(frozen=True)
class SeenCard:
    """A card found in a frame: its quad (frame pixels) and what the classifier said."""

    quad: np.ndarray
    label: str
    confidence: float


def zone_reads(layout: TableLayout, cards: Sequence[SeenCard],
               occluded: Iterable[str] = ()) -> dict[str, ZoneRead]:
    """Put every card into the zone its centre lies in, in reading order.

    Labels lose their game prefix (``duck/yellow-5`` -> ``yellow-5``). A pile keeps one card,
    the most confident (the top of a stack; an edge of the card under it is not a card). Cards
    outside every zone are ignored. Zones named in ``occluded`` are reported as covered. A
    "card" larger than ``MERGED_AREA`` cards is read as unknown (Grey Duck's pair of sevens laid
    edge to edge must not become a single seven).
    """
    covered = set(occluded)
    found: dict[str, list[tuple[tuple[int, float], CardRead]]] = {z.name: [] for z in layout.zones}
    for card in cards:
        centre = layout.to_table(card.quad.mean(axis=0, keepdims=True))[0]
        zone = layout.zone_at(centre)
        if zone is None or zone.name in covered:
            continue
        label = card.label.split("/", 1)[1] if "/" in card.label else card.label
        confidence = card.confidence
        if cards_in_area(layout, card.quad) > MERGED_AREA:
            label, confidence = UNKNOWN, 0.0
        read = CardRead(label, confidence, (float(centre[0]), float(centre[1])))
        found[zone.name].append((zone.reading_key(centre), read))
    out: dict[str, ZoneRead] = {}
    for zone in layout.zones:
        if zone.name in covered:
            out[zone.name] = ZoneRead(occluded=True)
            continue
        items = sorted(found[zone.name], key=lambda kv: kv[0])
        if zone.kind == "pile" and len(items) > 1:
            items = [max(items, key=lambda kv: kv[1].confidence)]
        if _gap_between(items, GAP_SLOTS * SLOT_W):
            out[zone.name] = ZoneRead(occluded=True)
            continue
        out[zone.name] = ZoneRead(tuple(read for _, read in items))
    return out


def _gap_between(items: Sequence[tuple[tuple[int, float], CardRead]], gap: float) -> bool:
    """Whether two cards next to each other in one row of a spread lie ``gap`` or more apart."""
    return any(a[0][0] == b[0][0] and b[0][1] - a[0][1] >= gap for a, b in zip(items, items[1:], strict=False))


def cards_in_area(layout: TableLayout, quad: np.ndarray) -> float:
    """The area on the table of a quad found in the frame, in cards."""
    return float(abs(cv2.contourArea(layout.to_table(quad).astype(np.float32)))) / (CARD_W * CARD_H)


def _slot_corners(zone: Zone, centre: tuple[float, float]) -> np.ndarray:
    """One slot of a spread (a card's place), table units."""
    sw, sh = zone.w / zone.cols / 2, zone.h / zone.rows / 2
    x, y = centre
    return np.array([[x - sw, y - sh], [x + sw, y - sh], [x + sw, y + sh], [x - sw, y + sh]])



# ---- hands over the table ---------------------------------------------------------------------

class CoverWatch:
    """Notices zones hidden by a hand or arm, by comparing each frame with the empty table seen
    at calibration (a small blurred Lab picture) and with the frame before.

    Colour alone misses a skin-coloured hand on a skin-coloured cloth, and brightness alone
    takes every glare for a hand, so the cues are:

    - *shape*: a hand comes with an arm, so a changed patch that reaches the frame's edge is a
      hand when its colour (not only its brightness) differs from the table, or when it is only
      lighter or darker, or only slightly tinted (``tint``: skin on a skin-coloured cloth), but
      has a sharp outline or moved since the last frame (glare and soft shadows have soft edges
      and keep still). A hand grows into what differs from the table only a little but touches
      it (a pale palm on light wood, whose arm or sleeve was seen).
      Any zone a hand touches is covered, even by a fingertip (it spoils a card's read);
    - *colour*: a changed patch inside a zone that no found card explains (a hand whose arm was
      not seen, a card the detector missed) covers the zone when it fills ``fraction`` of it,
      or ``slot_fraction`` of one of its slots (one card the detector missed in a long spread:
      a pair of sevens read as a single seven). That is the safe mistake: the zone's frame is
      skipped instead of being read with a card missing.

    The empty table slowly follows light changes (glare, a lamp switched on) wherever no hand,
    card or colour change is seen.
    """

    SCALE = 0.25
    SHARP = 60.0
    """Median lightness gradient (Lab L per pixel at ``SCALE``, Sobel) along a patch's outline
    above which it is an object, not glare: measured on rendered tables, glare stays below 56."""
    MOVED = 0.2
    """Share of a patch whose lightness changed since the last frame that makes it a moving
    hand (glare keeps still)."""

    def __init__(self, layout: TableLayout, empty_table: np.ndarray, *, threshold: float = 10.0,
                 light: float = 25.0, fraction: float = 0.08, touch: float = 0.01,
                 follow: float = 0.05, tint: float = 5.0, slot_fraction: float = 0.3) -> None:
        self.layout = layout
        self.threshold = threshold  # colour distance (Lab a, b) that counts as changed
        self.tint = tint  # a smaller colour distance that may outline a hand (see _hands)
        self.light = light  # lightness change that counts as changed (Lab L)
        self.fraction = fraction
        self.touch = touch
        self.follow = follow
        self.slot_fraction = slot_fraction
        self.reference = self._lab(empty_table)
        h, w = self.reference.shape[:2]
        self.masks = {zone.name: self._mask(zone.corners(), (h, w)) for zone in layout.zones}
        self.slot_masks: dict[str, list[np.ndarray]] = {
            zone.name: [m for m in (self._mask(_slot_corners(zone, centre), (h, w)) for centre in zone.slot_centres())
                        if m.any()]
            for zone in layout.zones if zone.kind == "spread" and zone.cols * zone.rows > 1}
        self._previous = self.reference[..., 0].copy()
        self.hand_mask = np.zeros((h, w), bool)
        """Where the last frame showed a hand or arm (at ``SCALE``), for drawing and checks."""

    def _mask(self, table_corners: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
        """Where a rectangle of the table plane lies in the frame, at ``SCALE``."""
        mask = np.zeros(shape, np.uint8)
        poly = self.layout.to_frame(table_corners).astype(np.float32) * self.SCALE
        cv2.fillConvexPoly(mask, np.round(poly).astype(np.int32), 1)
        return mask.astype(bool)

    def _lab(self, frame: np.ndarray) -> np.ndarray:
        small = cv2.resize(frame, None, fx=self.SCALE, fy=self.SCALE, interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), 1.5)
        return cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)

    def covered(self, frame: np.ndarray, card_quads: Sequence[np.ndarray]) -> set[str]:
        lab = self._lab(frame)
        diff = lab - self.reference
        colour = np.hypot(diff[..., 1], diff[..., 2]) > self.threshold
        brightness = np.abs(diff[..., 0]) > self.light
        moved = np.abs(lab[..., 0] - self._previous) > self.light / 2
        self._previous = lab[..., 0]
        cards_u8 = np.zeros(colour.shape, np.uint8)
        for quad in card_quads:
            cv2.fillConvexPoly(cards_u8, np.round(quad * self.SCALE).astype(np.int32), 1)
        cards = cv2.dilate(cards_u8, np.ones((7, 7), np.uint8)).astype(bool)  # edges and shadows
        odd_colour = colour & ~cards
        tinted = colour | (np.hypot(diff[..., 1], diff[..., 2]) > self.tint)
        changed = ((tinted | brightness) & ~cards).astype(np.uint8)
        changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        hand = self._hands(changed, odd_colour, moved, diff[..., 0])
        if hand.any():  # grow into what differs only a little but touches a hand: a pale palm
            faint = (np.hypot(diff[..., 1], diff[..., 2]) > self.threshold / 2) | (
                diff[..., 0] > self.light / 2) | brightness  # not a hand's soft, slightly dark shadow
            _, labels = cv2.connectedComponents(((faint & ~cards) | hand).astype(np.uint8), connectivity=8)
            touched = np.unique(labels[hand])
            hand = np.isin(labels, touched[touched > 0])
        self.hand_mask = hand
        near_hand = cv2.dilate(hand.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
        found: set[str] = set()
        for name, mask in self.masks.items():
            if not mask.any():
                continue
            unexplained_slot = any(odd_colour[slot].mean() > self.slot_fraction
                                   for slot in self.slot_masks.get(name, ()))
            if near_hand[mask].mean() > self.touch or odd_colour[mask].mean() > self.fraction or unexplained_slot:
                found.add(name)
        free = ~near_hand & ~cards & ~odd_colour
        self.reference[free] += self.follow * (lab[free] - self.reference[free])
        return found

    def _hands(self, changed: np.ndarray, odd_colour: np.ndarray, moved: np.ndarray,
               lightness: np.ndarray) -> np.ndarray:
        """The changed patches that are hands (see the class notes)."""
        count, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        h, w = changed.shape
        hand = np.zeros(changed.shape, bool)
        gradient: np.ndarray | None = None
        ring = np.ones((3, 3), np.uint8)
        for k in range(1, count):
            x, y, bw, bh, area = stats[k]
            if area < 40 or not (x == 0 or y == 0 or x + bw >= w or y + bh >= h):
                continue
            patch = labels == k
            if odd_colour[patch].mean() < 0.1 and moved[patch].mean() < self.MOVED:
                if gradient is None:
                    gradient = np.hypot(cv2.Sobel(lightness, cv2.CV_32F, 1, 0, ksize=3),
                                        cv2.Sobel(lightness, cv2.CV_32F, 0, 1, ksize=3))
                u8 = patch.astype(np.uint8)
                outline = (cv2.dilate(u8, ring) - cv2.erode(u8, ring)).astype(bool)
                if np.median(gradient[outline]) < self.SHARP:
                    continue  # only lighter or darker, soft-edged and still: glare, a shadow
            hand |= patch
        return hand
