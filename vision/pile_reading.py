"""Reading the cards beside a board game's board: Ducky Ducky's piles and gifts (with the duck
tokens on the top cards), Sitting Ducks' played pile.

Why this module exists: the board readers (vision/boards.py) read the board from its colours;
the cards next to it need the card path instead (detector, classifier) plus, for Ducky Ducky,
the duck tokens a card's slots hold. :class:`CardZones` does the card path for just those zones
(the layouts are vision/pile_layouts.py's); :func:`ducky_pile_card` and :func:`sitting_card` say
what a card stands for in its zone.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
from ducktable.rules.decks import BACK, DUCKY_COLOURS, UNKNOWN
from ducktable.rules.ducky import CARD_SLOTS
from ducktable.rules.infer_ducky import DUCK, GIFT
from ducktable.rules.snapshot import CardRead, ZoneRead

from .boards import DUCK_COLOURS, skin_mask
from .detect import DetectorSettings, detect_cards
from .layout import TableLayout, cards_in_area
from .pipeline import Classify

SLOT_DISC = 0.2
"""A card slot's middle, a disc of this share of the card's width: the duck printed in the slot
fills 30-50 % of it in its colour, a duck token laid there over 70 %."""
SLOT_SHARE = 0.62
"""A slot holds a duck token when this share of its middle is the slot's colour."""
SLOT_SURE = 0.1
"""A share this far from :data:`SLOT_SHARE` is a sure read (token or none)."""
SLOT_MIN, SLOT_CLEAR = 0.2, 0.15
"""A slot's colour covers at least this share of its middle, and this much more than any other
duck colour for a sure read."""
SLOT_CHROMA = 20.0
"""Pixels less colourful than this (Lab chroma) are paper or ink."""
COVER_REACH = 12.0
"""Table units around a pile that a hand must stay out of for the pile to be read."""
SEARCH_MARGIN_PX = 24
"""Frame pixels around the card zones searched for cards too (a card's outline must be whole)."""
COVER_SKIN = 0.04
"""Share of skin-coloured pixels around a pile that counts as a hand over it (as the board
reader's OCCLUDED_SKIN)."""
WHOLE_CARD = (0.8, 1.25)
"""A card found is whole when its area on the table is within these shares of a card's."""

NameCard = Callable[[Any, str, float, np.ndarray, tuple[float, float]], tuple[Any, ...]]
"""(zone, label without its game, confidence, the card's upright crop, where it lies) -> the
reads it stands for in that zone."""


class CardZones:
    """Reads the zones of a board game's table that hold cards beside the board (Ducky Ducky's
    piles and gifts, Sitting Ducks' played pile; the board itself is the board reader's): the
    detector finds the cards, the classifier names them, ``name_card`` says what each stands for
    in its zone (:func:`ducky_pile_card`, :func:`sitting_card`). A pile zone shows its most
    confident card's reads, a spread all of them in reading order. Zones a hand covers are
    reported so (:meth:`covered`). ``whole_tops``: a pile whose top card is found whole is read
    whatever skin lies around it (Sitting Ducks' played pile, named by the card alone; Ducky
    Ducky's duck tokens, read from the slots' colours, are not sure enough for that)."""

    def __init__(self, layout: TableLayout, names: Collection[str], frame_size: tuple[int, int],
                 classify: Classify, name_card: NameCard, whole_tops: bool = False) -> None:
        self.layout = replace(layout, zones=tuple(z for z in layout.zones if z.name in names))
        self.classify = classify
        self.name_card = name_card
        self.whole_tops = whole_tops
        self._areas: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        width, height = frame_size
        boxes: list[tuple[int, int, int, int]] = []
        for zone in self.layout.zones:
            mask = np.zeros((height, width), np.uint8)
            grown = zone.corners() + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * COVER_REACH
            outline = np.round(self.layout.to_frame(grown)).astype(np.int32)
            cv2.fillConvexPoly(mask, outline, 1)
            ys, xs = np.nonzero(mask)
            self._areas[zone.name] = (ys, xs)
            if len(xs):
                boxes.append((int(xs.min()) - SEARCH_MARGIN_PX, int(ys.min()) - SEARCH_MARGIN_PX,
                              int(xs.max()) + SEARCH_MARGIN_PX, int(ys.max()) + SEARCH_MARGIN_PX))
        self._boxes = [(max(0, x0), max(0, y0), min(width, x1), min(height, y1)) for x0, y0, x1, y1 in _merged(boxes)]
        self._min_area = DetectorSettings().min_area_frac * width * height  # as in a whole frame

    def covered(self, frame: np.ndarray, card_quads: Sequence[np.ndarray] = ()) -> set[str]:
        """Zones with a hand over them or near: skin-coloured blobs (thin warm strokes of card
        art are no hand), as the board readers see hands (the light on a board table changes
        too much for a comparison with the empty table). A blob wholly inside one of the cards
        found (``card_quads``, frame pixels) is that card's print, such as Aim's red crosshair
        blurred by the camera: a hand over a card always crosses its edge. So with
        ``whole_tops`` a pile whose top card is found whole (a card's size, its outline
        unbroken) is read whatever skin lies around it: a table of wood or tan cloth passes for
        skin under some exposures."""
        skin = _without_card_print(skin_mask(cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)), card_quads)
        whole = [quad for quad in (card_quads if self.whole_tops else ())
                 if WHOLE_CARD[0] <= cards_in_area(self.layout, quad) <= WHOLE_CARD[1]]
        seen = {zone.name for quad in whole
                if (zone := self.layout.zone_at(self.layout.to_table(quad.mean(axis=0, keepdims=True))[0]))
                is not None and zone.kind == "pile"}
        return {name for name, (ys, xs) in self._areas.items()
                if len(ys) and name not in seen and skin[ys, xs].mean() > COVER_SKIN}

    def read(self, frame: np.ndarray, detail: np.ndarray | None = None) -> dict[str, Any]:
        """The zones' reads; ``detail`` as :meth:`FrameReader.read
        <ducktable.vision.frame_reader.FrameReader.read>` has it (cards are cut from it)."""
        found = []
        sx, sy = (1.0, 1.0) if detail is None else (detail.shape[1] / frame.shape[1],
                                                      detail.shape[0] / frame.shape[0])
        for x0, y0, x1, y1 in self._boxes:  # only where the zones are: a fraction of the frame
            window = None if detail is None else detail[round(y0 * sy):round(y1 * sy),
                                                        round(x0 * sx):round(x1 * sx)]
            for detection in detect_cards(frame[y0:y1, x0:x1], detail=window,
                                          min_area_frac=min(0.5, self._min_area / ((x1 - x0) * (y1 - y0)))):
                found.append(replace(detection, quad=detection.quad + np.array([x0, y0], np.float32)))
        placed = []
        for detection in found:
            centre = self.layout.to_table(detection.quad.mean(axis=0, keepdims=True))[0]
            zone = self.layout.zone_at(centre)
            if zone is not None:
                placed.append((zone, (float(centre[0]), float(centre[1])), detection))
        labels = self.classify([d for _, _, d in placed]) if placed else []
        covered = self.covered(frame, [d.quad for d in found])
        reads: dict[str, list[tuple[tuple[int, float], tuple[Any, ...]]]] = {z.name: [] for z in self.layout.zones}
        for (zone, xy, detection), (qualified, confidence) in zip(placed, labels, strict=True):
            label = qualified.split("/", 1)[1] if "/" in qualified else qualified
            reads[zone.name].append((zone.reading_key(xy), self.name_card(zone, label, confidence, detection.crop, xy)))
        out: dict[str, Any] = {}
        for zone in self.layout.zones:
            if zone.name in covered:
                out[zone.name] = ZoneRead(occluded=True)
                continue
            items = reads[zone.name]
            if zone.kind == "pile":
                items = [max(items, key=lambda kv: kv[1][0].confidence)] if items else []
            out[zone.name] = ZoneRead(tuple(card for _, cards in sorted(items, key=lambda kv: kv[0])
                                            for card in cards))
        return out


def _without_card_print(skin: np.ndarray, card_quads: Sequence[np.ndarray]) -> np.ndarray:
    """The skin mask less its blobs that lie wholly inside a card's outline."""
    if not len(card_quads) or not skin.any():
        return skin
    inside = np.zeros(skin.shape, np.uint8)
    for quad in card_quads:
        cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 1)
    _, labels = cv2.connectedComponents(skin.astype(np.uint8), connectivity=8)
    reaching_out = np.unique(labels[skin & (inside == 0)])
    return np.isin(labels, reaching_out[reaching_out > 0])


def _merged(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) that overlap joined into one, until none overlap."""
    merged = list(boxes)
    joined = True
    while joined:
        joined = False
        for i in range(len(merged)):
            for j in range(i + 1, len(merged)):
                a, b = merged[i], merged[j]
                if a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]:
                    merged[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del merged[j]
                    joined = True
                    break
            if joined:
                break
    return merged


def ducky_pile_card(zone: Any, label: str, confidence: float, crop: np.ndarray,
                    xy: tuple[float, float]) -> tuple[Any, ...]:
    """A card on a Ducky Ducky seat's piles or gifts as read: a pile shows its top card and the
    ducks on it in slot order (:func:`ducky_card`), ``back`` when the card there shows its gift
    side (a face-down card: every card's back is its gift side); the gifts zone one ``gift`` per
    card (whichever side the classifier saw, unless it recognised nothing)."""
    if zone.kind == "spread":
        return (CardRead(GIFT if label != UNKNOWN else UNKNOWN, confidence, xy),)
    if label in (GIFT, BACK):
        return (CardRead(BACK, confidence, xy),)
    return ducky_card(crop, label, confidence, xy)


def sitting_card(zone: Any, label: str, confidence: float, crop: np.ndarray,
                 xy: tuple[float, float]) -> tuple[Any, ...]:
    """A card on Sitting Ducks' played pile as read: the classifier's label."""
    return (CardRead(label, confidence, xy),)


def ducky_card(crop: np.ndarray, label: str, confidence: float,
               xy: tuple[float, float] | None = None) -> tuple[Any, ...]:
    """A face-up Ducky Ducky card (its upright crop, the classifier's label and confidence) as
    read: the card, then a ``duck-<colour>`` read for each duck token on it, in slot order
    (:func:`~ducktable.rules.infer_ducky.card_labels`).

    The card's two slots lie at 0.3 and 0.7 of its height (which end is up does not matter),
    each printed in its colour with a duck of that colour in it, which fills about a third of
    the slot's middle; a token laid there fills most of it. So the slots' colours name the card
    even where a token hides its print from the classifier: they decide when the classifier
    cannot; a clear classifier read the colours contradict is held as unsure. The tokens are read
    from the slots whatever the classifier says: a token hiding its slot's print is what most
    often makes the classifier name another card, and a read that dropped the token then would
    make the card's ducks come and go from frame to frame. The card's white paper sets the
    colour balance."""
    slots = [_slot_colour(crop, 0.3), _slot_colour(crop, 0.7)]
    colours = sorted((colour for colour, _, _ in slots), key=DUCKY_COLOURS.index)
    by_colour = f"card-{colours[0]}-{colours[1]}"
    colour_sure = min(sure for _, _, sure in slots)
    if by_colour not in CARD_SLOTS or colour_sure <= 0.0:
        return (CardRead(label if label in CARD_SLOTS else UNKNOWN, min(confidence, colour_sure), xy),)
    card_sure = confidence if label == by_colour else colour_sure
    if label in CARD_SLOTS and label != by_colour:
        card_sure = min(colour_sure, 0.3)  # the two disagree: a person looks
    ducks: list[tuple[int, Any]] = []
    free = list(enumerate(CARD_SLOTS[by_colour]))
    token_sure = min(min(1.0, abs(share - SLOT_SHARE) / SLOT_SURE) for _, share, _ in slots)
    for colour, share, _ in slots:
        slot = next((s for s in free if s[1] == colour), None)
        if share >= SLOT_SHARE and slot is not None:
            free.remove(slot)
            ducks.append((slot[0], CardRead(DUCK + colour, token_sure)))
    return (CardRead(by_colour, card_sure, xy), *(read for _, read in sorted(ducks, key=lambda d: d[0])))


def _slot_colour(crop: np.ndarray, at: float) -> tuple[str, float, float]:
    """The colour of the card slot at ``at`` of the crop's height, the share of the slot's
    middle in that colour (a duck token there when over :data:`SLOT_SHARE`) and how sure the
    colour is (0: no clear colour)."""
    h, w = crop.shape[:2]
    y0, y1 = max(0, round(at * h - SLOT_DISC * w)), min(h, round(at * h + SLOT_DISC * w) + 1)
    x0, x1 = max(0, round(w / 2 - SLOT_DISC * w)), min(w, round(w / 2 + SLOT_DISC * w) + 1)
    paper = np.percentile(crop.reshape(-1, 3), 90, axis=0).astype(np.float32)
    part = crop[y0:y1, x0:x1].astype(np.float32) * (255.0 / np.maximum(paper, 24.0))
    lab = cv2.cvtColor(np.clip(part, 0, 255).astype(np.uint8), cv2.COLOR_BGR2LAB).astype(np.float32)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    pixels = lab[(xx - w / 2) ** 2 + (yy - at * h) ** 2 <= (SLOT_DISC * w) ** 2]
    names = list(DUCK_COLOURS)
    refs = cv2.cvtColor(np.array([[DUCK_COLOURS[n] for n in names]], np.uint8), cv2.COLOR_BGR2LAB)[0]
    diff = pixels[:, None, :] - refs[None].astype(np.float32)
    dist = np.sqrt((diff[..., 0] * 0.5) ** 2 + diff[..., 1] ** 2 + diff[..., 2] ** 2)
    coloured = np.hypot(pixels[:, 1] - 128, pixels[:, 2] - 128) > SLOT_CHROMA
    shares = np.bincount(dist.argmin(axis=1)[coloured], minlength=len(names)) / max(1, len(pixels))
    order = np.argsort(shares)[::-1]
    best, second = float(shares[order[0]]), float(shares[order[1]])
    sure = min(1.0, (best - second) / SLOT_CLEAR) if best >= SLOT_MIN else 0.0
    return names[int(order[0])], best, max(0.0, sure)
