"""The camera's side of ``ducktable run``: frames of a real table in, the game events they show out.

Why this module exists: the run loop (device/runloop.py) hands every camera frame, with the
match's current state from the store, to a *table reader* and records the events it returns.
This module builds that reader from what the rest of vision/ already does: the table layout and
homography saved by ``ducktable calibrate`` (:mod:`.layout`), a moved camera noticed
(:class:`~.calibrate.DriftWatch`), frame -> snapshot by the card path (detector, classifier with
enrolled decks, zones, hands: :class:`~.table_video.FrameReader`) or by the board readers
(:class:`~.boards.RiverReader`, :class:`~.boards.LineReader`; the cards beside the board, Ducky
Ducky's piles and Sitting Ducks' played pile, by :class:`CardZones`), then the stability
tracker and the game's inferrer inside a :class:`~ducktable.rules.infer_base.TableFollower`.

The store is the truth, the follower keeps only a copy: before every frame the follower is
brought to the store's log. Events added by hand (a phone, a button, a confirmed camera guess)
are walked in with :meth:`TableFollower.manual` (or ``confirm``) with the store's time, and
what the follower then catches up on from the frames it kept is reported like the frame's own
events; after an undo or a correction the follower is rebuilt from the log, and an event a
person took back or rejected is never applied again by the camera at that point of the game (it
may still be *suggested*). What the follower is unsure of is exposed as
:attr:`CameraTableReader.pending` for the phones to confirm or reject; what keeps the camera
from reading at all (no calibration, a moved camera, no model) as
:attr:`CameraTableReader.problem`, a sentence that says what to do. A bad frame is skipped with
a log line; nothing here raises into the run loop.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from ducktable.rules.core import Event, State
from ducktable.rules.ducky_board import BoardLayout
from ducktable.rules.infer_base import Inference, Inferrer, TableFollower
from ducktable.rules.snapshot import TableSnapshot
from ducktable.rules.stability import StabilityTracker

from .calibrate import DriftWatch
from .layout import LayoutError, TableLayout

log = logging.getLogger(__name__)

CALIBRATION_FOLDER = "calibration"
"""Where ``ducktable calibrate`` keeps layouts inside the data folder (device/paths.py's
CALIBRATION_NAME; vision may not import device, a test keeps the two equal)."""
DECKS_FOLDER = "decks"
"""Enrolled decks inside the data folder (device/paths.py's DECKS_NAME)."""
EMPTY_TABLE_SUFFIX = "-empty.png"
"""``<table>-empty.png`` beside ``<table>.json``: the picture of the empty table taken at
calibration, which hand detection and the moved-camera check compare frames with. Without it
the first good frame is used instead."""

CARD_GAMES = ("duck", "grey", "bruce")
BOARD_GAMES = ("ducky", "sitting")
TRACKER_WINDOW, TRACKER_NEEDED = 5, 3
"""Stability voting as measured on the synthetic videos (15 frames a second)."""
DRIFT_EVERY = 30
"""Frames between two checks that the camera has not moved (two seconds at 15 fps)."""
RECHECK_S = 2.0
"""How often a missing or changed calibration file is looked for again."""
MIN_SIDE = 64
FRAME_GAP_MS = 66
"""Timestamp step for frames that come without one (plain arrays)."""

Classify = Callable[[list[np.ndarray]], list[tuple[str, float]]]


def calibration_path(data_dir: str | Path, table: str = "default") -> Path:
    """The layout file ``ducktable calibrate --table TABLE`` writes."""
    return Path(data_dir) / CALIBRATION_FOLDER / f"{table}.json"


def empty_table_path(layout_path: Path) -> Path:
    return layout_path.with_name(layout_path.stem + EMPTY_TABLE_SUFFIX)


def event_key(event: Event) -> str:
    """What an event says, without when or by whom it was reported (a store round trip and
    a camera copy of the same move compare equal)."""
    return json.dumps([event.type, event.seat, event.data], sort_keys=True, default=str)


# ---- frames ---------------------------------------------------------------------------------

def frame_image(frame: Any) -> tuple[np.ndarray | None, float | None, str]:
    """The BGR picture of ``frame`` (a camera Frame with ``image`` and ``timestamp_ms``, or an
    array), its timestamp, and why it cannot be used ("" when it can)."""
    if frame is None:
        return None, None, "no picture (None)"
    image = getattr(frame, "image", frame)
    stamp = getattr(frame, "timestamp_ms", None)
    ts = float(stamp) if isinstance(stamp, int | float) and np.isfinite(stamp) else None
    if not isinstance(image, np.ndarray):
        return None, None, f"not a picture ({type(image).__name__})"
    if image.dtype != np.uint8:
        return None, None, f"pixels of type {image.dtype}, not 8-bit"
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif image.ndim != 3 or image.shape[2] != 3:
        return None, None, f"an array of shape {image.shape}, not a colour picture"
    if min(image.shape[:2]) < MIN_SIDE:
        return None, None, f"a picture of only {image.shape[1]}x{image.shape[0]} pixels"
    return np.ascontiguousarray(image), ts, ""


# ---- how each game's table is read ------------------------------------------------------------

@dataclass
class TableView:
    """One game's way of reading the calibrated table: its zones (calibrated layout), how a
    frame becomes a snapshot, and a fresh inferrer for it."""

    layout: TableLayout
    read: Callable[[np.ndarray, int, int], TableSnapshot]
    inferrer: Callable[[], Inferrer]


def game_layout(game: str, players: int, options: dict[str, Any]) -> TableLayout:
    """The default zones of ``game`` for ``players`` seats (table units, not calibrated)."""
    if game == "duck":
        from .layout import duck_layout

        return duck_layout(players)
    if game == "grey":
        from .table_video_grey import grey_layout

        return grey_layout(players)
    if game == "bruce":
        from .table_video_bruce import bruce_layout

        return bruce_layout(players)
    if game == "ducky":
        from ducktable.rules.ducky_board import resolve_layout

        return ducky_table_layout(players, resolve_layout(options.get("layout")))
    if game == "sitting":
        return sitting_table_layout()
    raise LayoutError(f"the camera cannot read a table of {game!r} yet")


def inferrer_for(game: str) -> Inferrer:
    """The game's inferrer (each game module has its own; this only picks)."""
    if game == "duck":
        from .table_video import inferrer_for as duck_inferrer

        return duck_inferrer(game)
    if game in BOARD_GAMES:
        from .boards import inferrer_for as board_inferrer

        return board_inferrer(game)
    if game == "grey":
        from ducktable.rules.infer_grey import GreyInferrer

        return GreyInferrer()
    if game == "bruce":
        from ducktable.rules.infer_bruce import BruceInferrer

        return BruceInferrer()
    raise ValueError(f"no camera inference for {game!r}")


def table_view(state: State, saved: TableLayout, empty: np.ndarray,
               classify: Callable[[str], Classify]) -> TableView:
    """How to read ``state``'s game on the table calibrated as ``saved``. The saved zones are
    used when they are this game's for this many players, else the game's default zones with
    the saved camera view. Raises LayoutError (uncalibrated, unknown game)."""
    game, n = state.game.name, state.num_players
    default = game_layout(game, n, dict(state.game.options))
    if saved.homography is None:
        raise LayoutError(f"the table layout {saved.name!r} is not calibrated; run `ducktable calibrate`")
    layout = saved if saved.name == default.name else default.with_homography(saved.homography)
    if game == "ducky":
        from ducktable.rules.ducky_board import resolve_layout

        from .boards import RiverBoard, RiverReader

        river = RiverReader(RiverBoard.of(resolve_layout(state.game.options.get("layout"))), layout)
        piles = CardZones(layout, {z.name for z in layout.zones if z.name.startswith("seat")},
                          (empty.shape[1], empty.shape[0]), classify(game), ducky_pile_card)

        def read_ducky(image: np.ndarray, ts: int, index: int) -> TableSnapshot:
            zones = river.read(image)
            zones.update(piles.read(image))
            return TableSnapshot(ts, zones, index)

        return TableView(layout, read_ducky, lambda: inferrer_for(game))
    if game == "sitting":
        from ducktable.rules.infer_sitting import PLAYED_ZONE

        from .boards import LineBoard, LineReader

        line = LineReader(LineBoard(), layout)
        played = CardZones(layout, {PLAYED_ZONE}, (empty.shape[1], empty.shape[0]), classify(game), sitting_card)

        def read_line(image: np.ndarray, ts: int, index: int) -> TableSnapshot:
            zones = line.read(image)
            zones.update(played.read(image))
            return TableSnapshot(ts, zones, index)

        return TableView(layout, read_line, lambda: inferrer_for(game))
    from .table_video import FrameReader

    cards = FrameReader(layout, empty, game, classify(game))

    def read_cards(image: np.ndarray, ts: int, index: int) -> TableSnapshot:
        return cards.read(image, ts, index)

    return TableView(layout, read_cards, lambda: inferrer_for(game))


# ---- cards beside a board: Ducky Ducky's piles, Sitting Ducks' played pile ----------------------

PILE_GAP = 8.0
"""Table units between a seat's two piles and its gifts."""
BAND_GAP = 15.0
"""Table units between the board's edge (the table area) and the seats' piles beyond it."""
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


def ducky_table_layout(players: int, board: BoardLayout) -> TableLayout:
    """The Ducky Ducky table: the board's zones (:meth:`~.boards.RiverBoard.layout`, its
    markers at the table area's corners) and, beyond its long edges, each seat's two piles and
    its gifts laid in a row (``seat<N>.pile0``, ``pile1``, ``gifts``, DUCKY-S1/T5). Seats go
    clockwise: below the board from right to left, then above it from left to right (as Duck
    Duck Bruce's nests). The camera must see those bands too (they lie outside the table area).

    boards.py has no such layout yet; this is the one the reader and its tests use."""
    from ducktable.rules.ducky import GIFTS_TO_WIN, PILES
    from ducktable.rules.infer_ducky import gifts_zone, pile_zone

    from .boards import RiverBoard
    from .layout import SLOT_H, SLOT_W, Zone

    base = RiverBoard.of(board).layout()
    w, h = base.size
    bottom = (players + 1) // 2
    top = players - bottom
    order = [("bottom", bottom - 1 - i, bottom) for i in range(bottom)] + [("top", i, top) for i in range(top)]
    group = PILES * (SLOT_W + PILE_GAP) + PILE_GAP + GIFTS_TO_WIN * SLOT_W
    zones = list(base.zones)
    for seat, (band, index, count) in enumerate(order):
        y = h + BAND_GAP if band == "bottom" else -BAND_GAP - SLOT_H
        gap = (w - count * group) / (count + 1)
        x = gap + index * (group + gap)
        for pile in range(PILES):
            zones.append(Zone(pile_zone(seat, pile), x + pile * (SLOT_W + PILE_GAP), y, SLOT_W, SLOT_H))
        gifts_x = x + PILES * (SLOT_W + PILE_GAP) + PILE_GAP
        zones.append(Zone(gifts_zone(seat), gifts_x, y, GIFTS_TO_WIN * SLOT_W, SLOT_H, "spread", GIFTS_TO_WIN, 1))
    return TableLayout(f"{base.name}-{players}p", tuple(zones), base.size, base.markers, base.marker_size,
                       base.homography)


NameCard = Callable[[Any, str, float, np.ndarray, tuple[float, float]], tuple[Any, ...]]
"""(zone, label without its game, confidence, the card's upright crop, where it lies) -> the
reads it stands for in that zone."""


class CardZones:
    """Reads the zones of a board game's table that hold cards beside the board (Ducky Ducky's
    piles and gifts, Sitting Ducks' played pile; the board itself is the board reader's): the
    detector finds the cards, the classifier names them, ``name_card`` says what each stands for
    in its zone (:func:`ducky_pile_card`, :func:`sitting_card`). A pile zone shows its most
    confident card's reads, a spread all of them in reading order. Zones a hand covers are
    reported so (:meth:`covered`)."""

    def __init__(self, layout: TableLayout, names: Collection[str], frame_size: tuple[int, int],
                 classify: Classify, name_card: NameCard) -> None:
        from .detect import DetectorSettings

        self.layout = replace(layout, zones=tuple(z for z in layout.zones if z.name in names))
        self.classify = classify
        self.name_card = name_card
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

    def covered(self, frame: np.ndarray) -> set[str]:
        """Zones with a hand over them or near: skin-coloured blobs (thin warm strokes of card
        art are no hand), as the board readers see hands (the light on a board table changes
        too much for a comparison with the empty table)."""
        hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
        warm = ((hsv[..., 0] <= 19) & (hsv[..., 1] >= 45) & (hsv[..., 1] <= 165) & (hsv[..., 2] >= 50))
        skin = cv2.morphologyEx(warm.astype(np.uint8), cv2.MORPH_OPEN, np.ones((7, 7), np.uint8))
        return {name for name, (ys, xs) in self._areas.items() if len(ys) and skin[ys, xs].mean() > COVER_SKIN}

    def read(self, frame: np.ndarray) -> dict[str, Any]:
        from ducktable.rules.snapshot import ZoneRead

        from .detect import detect_cards

        found = []
        for x0, y0, x1, y1 in self._boxes:  # only where the zones are: a fraction of the frame
            for detection in detect_cards(frame[y0:y1, x0:x1],
                                          min_area_frac=min(0.5, self._min_area / ((x1 - x0) * (y1 - y0)))):
                found.append(replace(detection, quad=detection.quad + np.array([x0, y0], np.float32)))
        placed = []
        for detection in found:
            centre = self.layout.to_table(detection.quad.mean(axis=0, keepdims=True))[0]
            zone = self.layout.zone_at(centre)
            if zone is not None:
                placed.append((zone, (float(centre[0]), float(centre[1])), detection))
        labels = self.classify([d.crop for _, _, d in placed]) if placed else []
        covered = self.covered(frame)
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
    from ducktable.rules.decks import BACK, UNKNOWN
    from ducktable.rules.infer_ducky import GIFT
    from ducktable.rules.snapshot import CardRead

    if zone.kind == "spread":
        return (CardRead(GIFT if label != UNKNOWN else UNKNOWN, confidence, xy),)
    if label in (GIFT, BACK):
        return (CardRead(BACK, confidence, xy),)
    return ducky_card(crop, label, confidence, xy)


def sitting_card(zone: Any, label: str, confidence: float, crop: np.ndarray,
                 xy: tuple[float, float]) -> tuple[Any, ...]:
    """A card on Sitting Ducks' played pile as read: the classifier's label."""
    from ducktable.rules.snapshot import CardRead

    return (CardRead(label, confidence, xy),)


def sitting_table_layout() -> TableLayout:
    """The Sitting Ducks table: the line's zones (:meth:`~.boards.LineBoard.layout`) and, right
    of the line, the pile of played action cards (``middle.played``, which
    :mod:`~ducktable.rules.infer_sitting` needs to tell which card was played). boards.py has
    no such zone yet; this is the one the reader and its tests use."""
    from ducktable.rules.infer_sitting import PLAYED_ZONE

    from .boards import LineBoard
    from .layout import SLOT_H, SLOT_W, Zone

    base = LineBoard().layout()
    w, h = base.size
    right = max(z.x + z.w for z in base.zones)
    played = Zone(PLAYED_ZONE, right + (w - right - SLOT_W) / 2, h / 2 - SLOT_H / 2, SLOT_W, SLOT_H)
    return replace(base, name=f"{base.name}-played", zones=(*base.zones, played))


def ducky_card(crop: np.ndarray, label: str, confidence: float,
               xy: tuple[float, float] | None = None) -> tuple[Any, ...]:
    """A face-up Ducky Ducky card (its upright crop, the classifier's label and confidence) as
    read: the card, then a ``duck-<colour>`` read for each duck token on it, in slot order
    (:func:`~ducktable.rules.infer_ducky.card_labels`).

    The card's two slots lie at 0.3 and 0.7 of its height (which end is up does not matter),
    each printed in its colour with a duck of that colour in it, which fills about a third of
    the slot's middle; a token laid there fills most of it. So the slots' colours name the card
    even where a token hides its print from the classifier: they decide when the classifier
    cannot; a clear classifier read the colours contradict is held as unsure. The card's white
    paper sets the colour balance."""
    from ducktable.rules.decks import DUCKY_COLOURS, UNKNOWN
    from ducktable.rules.ducky import CARD_SLOTS
    from ducktable.rules.infer_ducky import DUCK
    from ducktable.rules.snapshot import CardRead

    slots = [_slot_colour(crop, 0.3), _slot_colour(crop, 0.7)]
    colours = sorted((colour for colour, _, _ in slots), key=DUCKY_COLOURS.index)
    by_colour = f"card-{colours[0]}-{colours[1]}"
    colour_sure = min(sure for _, _, sure in slots)
    if by_colour not in CARD_SLOTS or colour_sure <= 0.0:
        return (CardRead(label if label in CARD_SLOTS else UNKNOWN, min(confidence, colour_sure), xy),)
    if label in CARD_SLOTS and label != by_colour:
        return (CardRead(by_colour, min(colour_sure, 0.3), xy),)  # the two disagree: a person looks
    card_sure = confidence if label == by_colour else colour_sure
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
    from .boards import DUCK_COLOURS

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


# ---- the follower, kept in step with the store --------------------------------------------------

class _Vetoed(Inferrer):
    """Wraps a game's inferrer so that the camera never applies, at a given point of the game,
    an event a person took back there (it may still suggest it), nor suggests one a person
    rejected there. Points are ``len(history)``; the sets belong to the reader and outlive
    rebuilt followers."""

    def __init__(self, inner: Inferrer, taken_back: set[tuple[int, str]],
                 rejected: set[tuple[int, str]]) -> None:
        super().__init__(inner.min_confidence, inner.min_agreement, inner.needs_hands)
        self.inner = inner
        self.taken_back = taken_back
        self.rejected = rejected

    def propose(self, state: State, table: StabilityTracker) -> Inference | None:
        proposal = self.inner.propose(state, table)
        if proposal is None:
            return None
        point = (len(state.history), event_key(proposal.event))
        if point in self.rejected:
            return None
        if proposal.certain and point in self.taken_back:
            return Inference(proposal.event, False, "a person took this event back, but the camera "
                                                    "still sees it on the table")
        return proposal

    def applied(self, state: State, event: Event) -> None:
        self.inner.applied(state, event)

    def stamp(self, state: State, event: Event, table: StabilityTracker) -> Event:
        """An event settled by hand keeps the time the store recorded it with. The store is the
        truth and the follower its copy: a copy dated otherwise would judge Grey Duck's races
        (GREY-G1) differently from the store, which would then refuse what the camera applies.
        The camera's own time reaches the store when a person confirms its guess (the guess
        carries the time the cards first showed)."""
        return event

    def conflicts(self, waiting: Event, proposal: Event) -> bool:
        return self.inner.conflicts(waiting, proposal)

    def remember(self) -> dict[str, Any]:
        return self.inner.remember()

    def recall(self, memory: dict[str, Any]) -> None:
        self.inner.recall(memory)


def _match_key(state: State) -> str:
    return json.dumps([state.game.name, dict(state.game.options), list(state.players), state.observer],
                      sort_keys=True, default=str)


# ---- the reader ------------------------------------------------------------------------------------

class CameraTableReader:
    """Frame + the store's state -> the events the camera is sure of (run loop's TableReader).

    After each call: :attr:`pending` is the event waiting for a person (or None), :attr:`problem`
    what stops the camera from reading (or None), :attr:`skipped` how many bad frames were
    skipped. :meth:`reject` tells it a person said no to the pending event.
    """

    def __init__(self, layout_path: Path, *, decks_dir: Path | None = None, model: str | None = None,
                 classifier: Any = None, drift_every: int = DRIFT_EVERY,
                 clock: Callable[[], float] = time.time, recheck_s: float = RECHECK_S) -> None:
        self.layout_path = Path(layout_path)
        self.decks_dir = decks_dir
        self.model = model or None
        self.drift_every = max(1, drift_every)
        self.clock = clock
        self.recheck_s = recheck_s
        self.pending: Inference | None = None
        self.problem: str | None = None
        self.skipped = 0
        self.frames = 0
        self.seconds: dict[str, float] = {"read": 0.0, "follow": 0.0, "drift": 0.0}
        self._classifier = classifier
        self._saved: TableLayout | None = None
        self._stamp: tuple[float, float] | None = None  # (layout, empty picture) mtimes read
        self._checked_at = -1e18
        self._empty: np.ndarray | None = None
        self._empty_saved = False
        self._drift: DriftWatch | None = None
        self._moved = False
        self._since_check: int | None = None
        self._view: TableView | None = None
        self._view_key: str | None = None
        self._follower: TableFollower | None = None
        self._follower_key: str | None = None
        self._taken_back: set[tuple[int, str]] = set()
        self._rejected: set[tuple[int, str]] = set()
        self._last_ts = -1
        self._offset_ms: float | None = None
        self._said: str | None = None

    # -- the run loop's protocol ------------------------------------------------------------
    def events(self, state: State, frame: Any) -> list[Event]:
        self.frames += 1
        image, stamp, bad = frame_image(frame)
        if image is None:
            self._skip(bad)
            return []
        try:
            return self._events(state, image, stamp)
        except Exception as exc:  # a frame the readers choke on must not stop the camera
            self._skip(f"it could not be read ({type(exc).__name__}: {exc})")
            log.debug("frame %d failed", self.frames, exc_info=True)
            return []

    @property
    def history(self) -> list[Event]:
        """The match's events as the camera's copy holds them (the store's log, once the next
        frame has brought the copy up to it)."""
        return [] if self._follower is None else list(self._follower.state.history)

    def reject(self, event: Event) -> None:
        """A person said the camera's pending ``event`` is not what happened: drop it and do
        not suggest it again at this point of the game."""
        follower = self._follower
        if follower is None:
            return
        point = (len(follower.state.history), event_key(event))
        self._rejected.add(point)
        if follower.pending is not None and event_key(follower.pending.event) == point[1]:
            follower.reject()
        self.pending = follower.pending

    def new_match(self) -> None:
        """Another match is being played (two matches of the same players look alike to the
        reader): forget the follower, what people took back and what they rejected."""
        self._follower = self._follower_key = None
        self._view = self._view_key = None
        self._taken_back.clear()
        self._rejected.clear()
        self.pending = None

    # -- one frame -------------------------------------------------------------------------------
    def _events(self, state: State, image: np.ndarray, stamp: float | None) -> list[Event]:
        if not self._calibration_ready():
            return self._stop()
        assert self._saved is not None
        if self._empty is None:
            self._empty = image.copy()
            self._drift = DriftWatch(self._saved, self._empty)
            log.warning("no picture of the empty table was saved with the calibration (%s); "
                        "the first camera frame stands in for it", empty_table_path(self.layout_path))
        if self._empty.shape != image.shape:
            return self._stop(
                f"the camera now gives {image.shape[1]}x{image.shape[0]} pictures but the table was "
                f"calibrated at {self._empty.shape[1]}x{self._empty.shape[0]}; set the camera back or "
                "run `ducktable calibrate` again")
        if not self._camera_in_place(image):
            return self._stop()
        view = self._table_view(state)
        if view is None:
            return self._stop()
        ts = self._timestamp(stamp)
        t0 = time.perf_counter()
        snapshot = view.read(image, ts, self.frames)
        t1 = time.perf_counter()
        follower = self._follow(state, view)
        # walking in an event settled by hand, the follower caught up with what the table did
        # meanwhile: what it applied then is the camera's to report, like this frame's events
        caught_up = follower.state.history[len(state.history):]
        step = follower.feed(snapshot)
        self.seconds["read"] += t1 - t0
        self.seconds["follow"] += time.perf_counter() - t1
        self.pending = follower.pending
        self._say(None)
        return [*caught_up, *(inference.event for inference in step.applied)]

    def _stop(self, problem: str | None = None) -> list[Event]:
        if problem is not None:
            self._say(problem)
        self.pending = None
        return []

    def _say(self, problem: str | None) -> None:
        """Keep ``problem`` for the scoreboard; log it once when it starts and when it ends."""
        if problem != self._said:
            if problem is not None:
                log.warning("camera: %s", problem)
            elif self._said is not None:
                log.warning("camera: reading the table again")
            self._said = problem
        self.problem = problem

    def _skip(self, why: str) -> None:
        self.skipped += 1
        if self.skipped <= 10 or self.skipped % 100 == 0:
            log.warning("camera: skipped frame %d: %s (%d skipped so far)", self.frames, why, self.skipped)

    def _timestamp(self, stamp: float | None) -> int:
        """Wall-clock milliseconds for this frame (phones stamp their events the same way),
        spaced as the camera spaced them, and always increasing."""
        if stamp is None:
            ts = self._last_ts + FRAME_GAP_MS if self._last_ts >= 0 else int(self.clock() * 1000)
        else:
            if self._offset_ms is None:
                self._offset_ms = self.clock() * 1000 - stamp
            ts = int(self._offset_ms + stamp)
        ts = max(ts, self._last_ts + 1)
        self._last_ts = ts
        return ts

    # -- calibration and a moved camera ---------------------------------------------------------
    def _calibration_ready(self) -> bool:
        """Load (or reload, when ``ducktable calibrate`` wrote it again) the calibration; False
        with :attr:`problem` set when there is none."""
        now = time.monotonic()
        if now - self._checked_at < self.recheck_s:
            return self._saved is not None
        self._checked_at = now
        empty_path = empty_table_path(self.layout_path)
        try:
            stamp = (self.layout_path.stat().st_mtime,
                     empty_path.stat().st_mtime if empty_path.is_file() else 0.0)
        except OSError:
            stamp = None
        if stamp is not None and stamp == self._stamp:
            return self._saved is not None
        self._stamp = stamp
        self._saved, self._view, self._view_key = None, None, None
        self._empty, self._drift, self._moved, self._since_check = None, None, False, None
        try:
            saved = TableLayout.load(self.layout_path)
            if saved.homography is None:
                raise LayoutError(f"{self.layout_path} holds no camera calibration; run `ducktable calibrate`")
        except LayoutError as exc:
            self._say(f"{exc} (the scoreboard works meanwhile: enter events on the phone)")
            return False
        self._saved = saved
        if empty_path.is_file():
            picture = cv2.imread(str(empty_path), cv2.IMREAD_COLOR)
            if picture is None:
                log.warning("camera: cannot read %s; the first camera frame stands in for it", empty_path)
            else:
                self._empty = picture
                self._drift = DriftWatch(saved, picture)
        log.info("camera: using the calibration %s", self.layout_path)
        return True

    def _camera_in_place(self, image: np.ndarray) -> bool:
        """Check on the first frame, then every ``drift_every`` frames (every frame once it
        moved), that the camera sees the table as calibrated; False with :attr:`problem` set
        when it does not."""
        assert self._drift is not None
        if self._since_check is not None and not self._moved:
            self._since_check += 1
            if self._since_check < self.drift_every:
                return True
        self._since_check = 0
        t0 = time.perf_counter()
        drift = self._drift.check(image)
        self.seconds["drift"] += time.perf_counter() - t0
        self._moved = drift.moved
        if drift.moved:
            self._say(drift.message)
            return False
        return True

    # -- the game's view and the follower -------------------------------------------------------
    def _table_view(self, state: State) -> TableView | None:
        key = _match_key(state)
        if self._view is not None and key == self._view_key:
            return self._view
        assert self._saved is not None and self._empty is not None
        try:
            self._view = table_view(state, self._saved, self._empty, self._classify_for)
        except LayoutError as exc:
            self._view = None
            self._say(f"{exc}; enter the events of {state.game.title or state.game.name} on the phone")
            return None
        except ValueError as exc:
            self._view = None
            self._say(f"the camera cannot follow {state.game.title or state.game.name} yet ({exc}); "
                      "enter its events on the phone")
            return None
        self._view_key = key
        return self._view

    def _classify_for(self, game: str) -> Classify:
        if self._classifier is None:
            from .classify import CardClassifier, ModelError

            decks = self.decks_dir if self.decks_dir is not None and self.decks_dir.is_dir() else None
            try:
                self._classifier = CardClassifier.load(self.model, prototypes_dir=decks, threads=1)
            except ModelError as exc:
                raise LayoutError(f"the card classifier cannot be loaded ({exc})") from None
        classifier = self._classifier

        def classify(crops: list[np.ndarray]) -> list[tuple[str, float]]:
            try:
                results = classifier.classify(crops, games={game})
            except TypeError:  # a classifier without the ``games`` filter
                results = classifier.classify(crops)
            return [(str(r.label), float(r.confidence)) for r in results]

        return classify

    def _follow(self, state: State, view: TableView) -> TableFollower:
        """The follower, brought to the store's log (the truth) before this frame."""
        key = _match_key(state)
        follower = self._follower
        if follower is None or key != self._follower_key:
            self._taken_back.clear()
            self._rejected.clear()
            return self._rebuild(state, view, None)
        mine = [event_key(e) for e in follower.state.history]
        theirs = [event_key(e) for e in state.history]
        if theirs[:len(mine)] == mine:
            entered = state.history[len(mine):]  # entered or confirmed by hand
            for k, event in enumerate(entered):
                settle = follower.confirm if (follower.pending is not None and event_key(
                    follower.pending.event) == event_key(event)) else follower.manual
                # only after the last of them does the table's meanwhile say what came next
                if not settle(event, catch_up=k == len(entered) - 1).ok:
                    return self._rebuild(state, view, follower.tracker)
            self._forget_before(len(theirs))
            return follower
        if mine[:len(theirs)] == theirs:  # undone (or a camera event the store refused)
            self._taken_back.add((len(theirs), mine[len(theirs)]))
            log.info("camera: the log went back to event %d; the camera follows it", len(theirs))
        else:
            log.info("camera: an earlier event was corrected; the camera follows the corrected log")
        return self._rebuild(state, view, follower.tracker)

    def _rebuild(self, state: State, view: TableView, tracker: StabilityTracker | None) -> TableFollower:
        """A follower at the store's position, its inferrer told about every event so far; the
        table as already seen (``tracker``) is kept."""
        fresh = state.game.new_state(state.players, observer=state.observer)
        inferrer = _Vetoed(view.inferrer(), self._taken_back, self._rejected)
        # the log is walked in with a blank table, so that no event is re-timed by what the
        # camera sees now; then the table as seen so far takes its place
        follower = TableFollower(fresh, inferrer, StabilityTracker(TRACKER_WINDOW, TRACKER_NEEDED))
        for event in state.history:
            verdict = follower.manual(event, catch_up=False)
            if not verdict.ok:  # the store replays this log, so this means a bug: say so, go on
                log.error("camera: cannot follow the match log at %s (%s)", event.type, verdict.reason)
                follower.state = state.clone()
                break
        if tracker is not None:
            follower.tracker = tracker
        self._follower, self._follower_key = follower, _match_key(state)
        return follower

    def _forget_before(self, point: int) -> None:
        for kept in (self._taken_back, self._rejected):
            for item in [item for item in kept if item[0] < point]:
                kept.discard(item)

def make_table_reader(camera: Any, data_dir: str | Path, *, classifier: Any = None) -> CameraTableReader:
    """The factory ``[camera] reader`` names (device/cli_run.py calls it with the camera
    settings and the data folder). Reads ``camera.table`` (which calibration, default
    "default"), ``camera.model`` (a classifier .onnx, default the shipped one) and
    ``camera.drift_every`` when present. Never fails for a missing calibration or model: the
    reader reports those as its :attr:`~CameraTableReader.problem`."""
    data = Path(data_dir)
    table = str(getattr(camera, "table", "") or "default")
    return CameraTableReader(
        calibration_path(data, table),
        decks_dir=data / DECKS_FOLDER,
        model=str(getattr(camera, "model", "") or "") or None,
        classifier=classifier,
        drift_every=int(getattr(camera, "drift_every", DRIFT_EVERY) or DRIFT_EVERY),
    )


def ms_per_frame(reader: CameraTableReader) -> dict[str, float]:
    """Where the reader's time went, per frame read (for benchmarks and logs)."""
    n = max(1, reader.frames - reader.skipped)
    return {k: round(v * 1000 / n, 2) for k, v in reader.seconds.items()}

