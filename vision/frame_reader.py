"""One frame of a card game's table in, its snapshot out: the cards found, named and put in zones.

Why this module exists: the camera reader (:mod:`.table_views`) reads DUCK, Grey Duck and Duck
Duck Bruce tables this way, and the synthetic videos (:mod:`ducktable.sim.table_video`) replay
their frames through the same reader. :class:`FrameReader` runs the detector, names the cards
(with a classifier, or from the truth a replay knows), assigns them to the layout's zones and
notes the zones a hand covers; with the card locator it skips the work a still table does not
need (see the class). :func:`model_classifier` is the shipped model for one game.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np
from ducktable.rules.decks import UNKNOWN
from ducktable.rules.snapshot import TableSnapshot, ZoneRead

from .detect import Detection, LocatesCards
from .layout import CoverWatch, SeenCard, TableLayout, zone_reads
from .pipeline import Classify, game_namer
from .still_gate import StillGate


class ShowsContents(Protocol):
    """What a replay knows of a frame: the true cards of each zone (a synthetic video's shot)."""

    def contents(self) -> Mapping[str, Sequence[str]]: ...


class FrameReader:
    """Frame -> TableSnapshot: detector, labels (classifier or truth), zones, covered zones.

    Two ways to find the cards. Without a ``locator``, the edge-map search reads every frame in
    full. With one (``ducktable run``'s way), a frame where nothing moved since the last one
    read in full (:class:`~.still_gate.StillGate`) keeps that reading's cards and covered
    zones; a moved one is searched by the card locator, and only the cards whose place changed
    are classified again (the rest keep their names).

    The stability tracking downstream trusts a card once several frames agree on it, so a
    repeated reading must never stand in for those frames: a card keeps its name without a new
    look only once :data:`SETTLED` readings of it in a row, each classified afresh, agreed
    surely (:data:`SURE`); on a still frame the cards not yet settled are cut from it and
    classified afresh. Every :data:`FULL_EVERY` frames the frame is searched and every card
    classified afresh (a misread can then be mended by what later frames show). Where the
    locator's reading is in doubt - a zone said covered where no hand is (a patch no card it
    found explains: a card it missed) - the frame is searched again by the edge-map search, and
    that reading stands; a settled card found so stays in later readings while nothing changes
    around it. A card the locator found but nothing names, lying still with no hand near, is cut
    again by the edge-map search, and only the named cards cut over it stand in for it. The
    snapshots go to the same stability tracking and rules engine either way: this only spares
    work, it never makes an event.
    """

    REUSE_PX = 3.0
    """A card found within this many frame pixels of a card of the last full reading, with
    nothing changed around it, keeps that card's name."""
    FULL_EVERY = 15
    """A still table is read and every card classified afresh after this many frames (a second
    at 15 fps): a change too faint for the gate is not missed for long, a misread not kept."""
    SETTLED = 5
    """Fresh readings of a card in a row that must agree before its name is kept without a
    look (the stability tracker's window is 5 frames, of which 3 must agree)."""
    SURE = 0.9
    """A reading less sure than this does not count toward :data:`SETTLED`: a card named
    unsurely frame after frame is looked at afresh in every frame, never repeated. (At 1280 x
    720 a DUCK start card yellow 1, named a 6 five times unsurely and then once at 0.96, was
    repeated at 0.96 for eight frames, and the deal recorded as a 6.)"""
    RECUT_IOU = 0.3
    """How much an edge-map card must overlap an unnamed card of the locator's to stand for it
    (an outline that took a side of the neighbour still covers most of its own card)."""

    def __init__(self, layout: TableLayout, empty_table: np.ndarray, game: str,
                 classify: Classify | None = None, *, locator: LocatesCards | None = None) -> None:
        self.layout = layout
        self.game = game
        self.classify = classify
        self.locator = locator
        self.cover = CoverWatch(layout, empty_table)
        self.seconds = {"detect": 0.0, "classify": 0.0, "zones": 0.0}
        self.counts = {"frames": 0, "still": 0, "fallback": 0, "recut": 0, "classified": 0, "kept": 0}
        """Frames read; of them repeated (still), searched again by edges (fallback), searched
        by edges for an unnamed card only (recut); cards classified, and cards that kept their
        name from the last full reading."""
        self._gate = StillGate()
        self._last: _Reading | None = None
        self._since_full = 0

    def read(self, frame: np.ndarray, ts: int, index: int, truth: ShowsContents | None = None, *,
             detail: np.ndarray | None = None) -> TableSnapshot:
        """``detail``: the camera's full-resolution picture when ``frame`` is its reading view
        (cards are cut from it, see :func:`~ducktable.vision.detect.detect_cards`)."""
        self.counts["frames"] += 1
        if self.locator is None or self.classify is None:
            return TableSnapshot(ts, self._read_by_edges(frame, detail, truth).zones, index)
        small = self._gate.small(frame)
        still = self._gate.look(small)
        self._since_full += 1
        refresh = self._since_full >= self.FULL_EVERY
        if still and not refresh and self._last is not None:
            self.counts["still"] += 1
            if not self._last.settled(self.SETTLED):
                self._last = self._look_again(frame, detail, self._last, self.classify)
            return TableSnapshot(ts, self._last.zones, index)
        if refresh:
            self._since_full = 0
        reading = self._read_by_locator(frame, detail, self.locator, self.classify, fresh_all=refresh)
        if reading.doubtful():
            self.counts["fallback"] += 1
            reading = self._read_by_edges(frame, detail, None)
        else:
            reading = self._recut_unnamed(frame, detail, reading, self.classify)
        self._gate.keep(small)
        self._last = reading
        return TableSnapshot(ts, reading.zones, index)

    def _read_by_edges(self, frame: np.ndarray, detail: np.ndarray | None,
                       truth: ShowsContents | None) -> _Reading:
        from .detect import detect_cards

        t0 = time.perf_counter()
        found = detect_cards(frame, detail=detail)
        t1 = time.perf_counter()
        if self.classify is not None:
            labels = self.classify(found)
            self.counts["classified"] += len(found)
        else:
            assert truth is not None, "without a classifier the true shot gives the labels"
            labels = [self._true_label(d.quad, truth) for d in found]
        t2 = time.perf_counter()
        cards = [_Named(d.quad, d.area, name, conf, _agreed(self._same_card(d), name, conf, fresh=True))
                 for d, (name, conf) in zip(found, labels, strict=True)]
        reading = self._zoned(frame, cards)
        self.seconds["detect"] += t1 - t0
        self.seconds["classify"] += t2 - t1
        self.seconds["zones"] += time.perf_counter() - t2
        return reading

    def _read_by_locator(self, frame: np.ndarray, detail: np.ndarray | None,
                         locator: LocatesCards, classify: Classify, *, fresh_all: bool) -> _Reading:
        from .detect import detect_cards

        t0 = time.perf_counter()
        found = detect_cards(frame, detail=detail, locator=locator)
        t1 = time.perf_counter()
        before = [self._same_card(d) for d in found]
        labels: list[tuple[str, float] | None] = [
            (card.label, card.confidence) if card is not None and not fresh_all
            and card.agreed >= self.SETTLED else None for card in before]
        fresh = [i for i, label in enumerate(labels) if label is None]
        if fresh:
            asked = [found[i] for i in fresh]
            for i, d, label in zip(fresh, asked, classify(asked), strict=True):
                found[i], labels[i] = d, label  # (a second look may cut the card anew)
        t2 = time.perf_counter()
        asked_now = set(fresh)
        cards = [_Named(d.quad, d.area, label[0], label[1], _agreed(card, label[0], label[1], fresh=i in asked_now))
                 for i, (d, card, label) in enumerate(zip(found, before, labels, strict=True))
                 if label is not None]  # (every one by now)
        carried = [] if fresh_all else self._carried(cards)
        self.counts["classified"] += len(fresh)
        self.counts["kept"] += len(found) - len(fresh) + len(carried)
        reading = self._zoned(frame, cards + carried)
        self.seconds["detect"] += t1 - t0
        self.seconds["classify"] += t2 - t1
        self.seconds["zones"] += time.perf_counter() - t2
        return reading

    def _recut_unnamed(self, frame: np.ndarray, detail: np.ndarray | None, reading: _Reading,
                       classify: Classify) -> _Reading:
        """Cards laid almost edge to edge (a row laid card by card) can get an outline from the
        locator that takes a side of the neighbour's: a crop nothing names, frame after frame,
        where the edge-map search cuts the card true. A card the locator found but nothing
        named, lying still where no hand is, is replaced by the named cards the edge-map search
        cuts over it (or by the one the last reading settled there); nothing else in the
        reading changes, so a doubtful edge-map reading elsewhere never stands."""
        from .detect import detect_cards, quad_iou

        named = [card for card in reading.cards if card.label != UNKNOWN]
        stuck: list[_Named] = []
        unnamed_elsewhere: list[_Named] = []
        for card in reading.cards:
            if card.label == UNKNOWN:
                (stuck if self._lies_still(card.quad) else unnamed_elsewhere).append(card)
        if not stuck:
            return reading
        settled = [card for card in (self._last.cards if self._last is not None else [])
                   if card.label != UNKNOWN and card.agreed >= self.SETTLED]
        replaced: list[_Named] = []
        to_search = []
        for card in stuck:
            carried = [c for c in settled if quad_iou(c.quad, card.quad) >= self.RECUT_IOU
                       and all(quad_iou(c.quad, other.quad) < 0.5 for other in named)]
            if carried:
                replaced += carried
                self.counts["kept"] += len(carried)
            else:
                to_search.append(card)
        if to_search:
            t0 = time.perf_counter()
            found = [d for d in detect_cards(frame, detail=detail)
                     if any(quad_iou(d.quad, card.quad) >= self.RECUT_IOU for card in to_search)
                     and all(quad_iou(d.quad, other.quad) < 0.5 for other in named)]
            t1 = time.perf_counter()
            self.counts["recut"] += 1
            self.counts["classified"] += len(found)
            for d, (name, conf) in zip(found, classify(found), strict=True):
                if name != UNKNOWN:
                    agreed = _agreed(self._same_card(d), name, conf, fresh=True)
                    replaced.append(_Named(d.quad, d.area, name, conf, agreed))
            self.seconds["detect"] += t1 - t0
            self.seconds["classify"] += time.perf_counter() - t1
        if not replaced:
            return reading
        still_unnamed = [card for card in stuck
                         if all(quad_iou(card.quad, new.quad) < self.RECUT_IOU for new in replaced)]
        return self._with_cards(reading, [*named, *unnamed_elsewhere, *still_unnamed, *replaced])

    def _lies_still(self, quad: np.ndarray) -> bool:
        """Nothing changed around ``quad`` since the last full reading, and no hand is near it."""
        if self._last is None or self._gate.changed_at(quad):
            return False
        scale = self.cover.SCALE
        inside = np.zeros(self.cover.hand_mask.shape, np.uint8)
        cv2.fillConvexPoly(inside, np.round(quad * scale).astype(np.int32), 1)
        near = cv2.dilate(inside, np.ones((9, 9), np.uint8)).astype(bool)
        return not bool(self.cover.hand_mask[near].any())

    def _look_again(self, frame: np.ndarray, detail: np.ndarray | None, last: _Reading,
                    classify: Classify) -> _Reading:
        """Nothing moved since ``last``: the cards lie where they lay and the same zones are
        covered, but each card not yet settled is cut from this frame and classified afresh
        (its own new reading for the stability tracker, never a copy of the last one)."""
        from .detect import crop_card

        t0 = time.perf_counter()
        source = frame if detail is None else detail
        to_source = np.float32(source.shape[1] / frame.shape[1])
        unsettled = [i for i, card in enumerate(last.cards) if card.agreed < self.SETTLED]
        asked = []
        for i in unsettled:
            quad = last.cards[i].quad
            in_source = quad * to_source
            asked.append(Detection(quad, crop_card(source, in_source), 1.0, last.cards[i].area, source, in_source))
        cards = list(last.cards)
        for i, d, (name, conf) in zip(unsettled, asked, classify(asked), strict=True):
            cards[i] = _Named(d.quad, d.area, name, conf, _agreed(last.cards[i], name, conf, fresh=True))
        self.counts["classified"] += len(asked)
        self.counts["kept"] += len(cards) - len(asked)
        self.seconds["classify"] += time.perf_counter() - t0
        return self._with_cards(last, cards)

    def _with_cards(self, reading: _Reading, cards: list[_Named]) -> _Reading:
        """``reading`` with ``cards`` in place of its own, the same zones covered."""
        seen = [SeenCard(c.quad, c.label, c.confidence) for c in cards]
        return _Reading(zone_reads(self.layout, seen, reading.covered), cards, reading.covered, reading.hands)

    def _same_card(self, detection: Detection) -> _Named | None:
        """The card of the last full reading this one is: same place, same size, nothing
        changed around it since; None when there is none."""
        if self._last is None or self._gate.changed_at(detection.quad):
            return None
        centre = detection.quad.mean(axis=0)
        for card in self._last.cards:
            if (float(np.hypot(*(centre - card.quad.mean(axis=0)))) <= self.REUSE_PX
                    and abs(detection.area / max(card.area, 1e-9) - 1) <= 0.05):
                return card
        return None

    def _carried(self, found: Sequence[_Named]) -> list[_Named]:
        """Settled cards of the last reading that the locator did not find now (a card the
        edge-map search found for it), where nothing changed: they lie there still. Without
        them the locator would miss the same card frame after frame, each time a fallback."""
        from .detect import quad_iou

        if self._last is None:
            return []
        return [card for card in self._last.cards
                if card.agreed >= self.SETTLED and not self._gate.changed_at(card.quad)
                and all(quad_iou(card.quad, other.quad) < 0.2 for other in found)]

    def _zoned(self, frame: np.ndarray, cards: Sequence[_Named]) -> _Reading:
        seen = [SeenCard(c.quad, c.label, c.confidence) for c in cards]
        covered = self.cover.covered(frame, [c.quad for c in cards])
        near_hand = cv2.dilate(self.cover.hand_mask.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
        hands = {name for name in covered if near_hand[self.cover.masks[name]].any()}
        zones = zone_reads(self.layout, seen, covered)
        return _Reading(zones, list(cards), frozenset(covered), frozenset(hands))

    def _true_label(self, quad: np.ndarray, truth: ShowsContents) -> tuple[str, float]:
        centre = self.layout.to_table(quad.mean(axis=0, keepdims=True))[0]
        zone = self.layout.zone_at(centre)
        if zone is None:
            return UNKNOWN, 0.1
        cards = truth.contents().get(zone.name, ())
        if not cards:
            return UNKNOWN, 0.1
        if zone.kind == "pile":
            return cards[-1], 0.95
        spots = zone.slot_centres()
        dist = [math.hypot(centre[0] - x, centre[1] - y) for x, y in spots[:len(cards)]]
        k = int(np.argmin(dist))
        return (cards[k], 0.95) if dist[k] < 30 else (UNKNOWN, 0.1)


def _agreed(before: _Named | None, label: str, confidence: float, *, fresh: bool) -> int:
    """Fresh readings in a row that named the card ``label``: one more than ``before`` had
    when it is the same card, named the same, looked at afresh now, and surely
    (:attr:`FrameReader.SURE`; an unknown card's agreement counts as it is)."""
    if before is None or before.label != label:
        return 1
    return before.agreed + (fresh and (label == UNKNOWN or confidence >= FrameReader.SURE))


@dataclass(frozen=True)
class _Named:
    quad: np.ndarray
    area: float
    label: str
    confidence: float
    agreed: int
    """Readings in a row, each classified afresh, that gave this card this name."""


@dataclass(frozen=True)
class _Reading:
    """One frame read in full: its zones, the cards named, the zones covered and those a hand
    was seen in."""

    zones: dict[str, ZoneRead]
    cards: list[_Named]
    covered: frozenset[str]
    hands: frozenset[str]

    def settled(self, needed: int) -> bool:
        """Every card's name agreed ``needed`` fresh readings in a row."""
        return all(card.agreed >= needed for card in self.cards)

    def doubtful(self) -> bool:
        """A zone said covered with no hand in or near it: a patch no card found explains,
        most likely a card the locator missed (a card it found but the classifier cannot name
        is no doubt of the locator's: the edge-map search would cut the same card)."""
        return bool(self.covered - self.hands)


def model_classifier(game: str) -> Classify:
    """The shipped classifier, limited to ``game``'s deck, as a detections -> (label, conf)
    function (with the second look of :func:`~.pipeline.name_detections`)."""
    return game_namer(shipped_model(), game)


@functools.lru_cache(maxsize=1)
def shipped_model() -> Any:
    """Loaded once per process: every replayed game reads with the same model."""
    from .classify import CardClassifier

    return CardClassifier.load()
