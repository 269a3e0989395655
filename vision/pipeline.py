"""One frame in, the cards seen out: the detector, then the classifier, each timed.

Why this module exists: ``ducktable identify``, the benchmark and the table reader all need the
same two steps with the same bookkeeping (which crop came from where, how long each step took)
and the same second look at cards the classifier could not name (:func:`name_detections`), and
the classifier must stay swappable - a test double, the shipped model, a model with enrolled
decks - so anything with a ``classify(crops)`` method will do.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from ducktable.rules.decks import UNKNOWN
from ducktable.vision.detect import Detection, detect_cards, quad_iou, sides_of

SECOND_LOOKS = 4
"""At most this many cards a frame get a second look: 20 recuts (about 10 ms a card on one core
here), then, beside named cards, 24 cuts at their size (12 ms). A table of cards from a deck the
classifier does not know costs at most ~90 ms more a frame, until :class:`LookMemory` rests
them (then about a fifth of that)."""
NEIGHBOURS = 3
"""A look at a card's size takes the size of this many named cards nearest it."""
SAME_CARD_IOU = 0.5
"""An outline overlapping a named card's this much (intersection over union) is that card."""
STILL_PX = 3.0
"""A card that moved less than this (frame pixels) between frames lies where it lay."""
MISSES_TO_REST, LOOK_EVERY = 3, 5
"""A card lying still whose last 3 second looks named nothing is looked at again only every
5 frames (:class:`LookMemory`)."""
UNSURE, OVERSIZE = 0.9, 1.06
"""A card named less surely than 0.9 whose outline is 1.06 times as wide or tall as the cards
named beside it gets a second look too (after the unknown ones): an outline that took in the
edge of another card may name another digit of the same colour. On DUCK seed 10's replay such
outlines (1.10-1.11 times their neighbours' width) read a yellow 5 as a yellow 3 at 0.54-0.79
and a yellow 5 at 0.91-0.99 at their neighbours' size; without the size test a yellow 2 read at
0.87 (0.89 times their width, 1.01 their height) became a yellow 3 at 0.99."""
NAMED_KEPT = 32
"""Named cards a :class:`LookMemory` keeps, newest first, for a card asked about alone."""


Classify = Callable[[list[Detection]], list[tuple[str, float]]]
"""Detected cards -> (label, confidence) each: how a game's table reader names cards, limited to
that game's decks (:func:`game_namer`; a test's true labels slot in the same place)."""


class Classifies(Protocol):
    """Anything that labels card crops; each result has ``label`` and ``confidence``.

    A classifier that also has ``classify_recuts`` (:class:`~.classify.CardClassifier`) gives
    the cards it cannot name a second look (:func:`name_detections`)."""

    def classify(self, crops: Sequence[np.ndarray]) -> Sequence[Any]: ...


class LookMemory:
    """Where the previous frames of the same table had cards a second look could not name.

    A card still lying there (centre within :data:`STILL_PX`, area within 5%) whose last
    :data:`MISSES_TO_REST` second looks named nothing is then looked at only every
    :data:`LOOK_EVERY` frames: a thing that stays unknown on the table costs a fifth of a second
    look a frame, while a card the second look names now and then (noise, a hand's shadow
    passing) is looked at every frame. ``ducktable run`` and the replays keep one per game;
    single pictures need none. A place is forgotten once nothing unknown lies there.

    It also keeps the cards named lately (:data:`NAMED_KEPT`, one per place): ``ducktable run``'s
    reader asks only about the cards whose place changed, so a card asked about alone has no
    named card beside it in its batch to take the size of (:func:`look_at_size`); those of
    earlier frames stand in (DUCK seed 10, frames 136-140: a yellow 3 cut with part of the red 3
    beside it, unknown in every frame, named at the red 3's size)."""

    def __init__(self) -> None:
        self._places: list[_Place] = []
        self._named: list[Detection] = []

    def named_apart(self, detection: Detection) -> list[Detection]:
        """The cards named lately that are not this one (no outline overlapping it by
        :data:`SAME_CARD_IOU`: a card named here before may be this card, or one taken away)."""
        return [d for d in self._named if quad_iou(d.quad, detection.quad) < SAME_CARD_IOU]

    def keep_named(self, named: Sequence[Detection]) -> None:
        """This batch's named cards, each in place of one kept at its place."""
        older = [d for d in self._named if all(quad_iou(d.quad, n.quad) < SAME_CARD_IOU for n in named)]
        self._named = [*named, *older][:NAMED_KEPT]

    def skips(self, detection: Detection) -> bool:
        place = self._place(detection)
        return (place is not None and place.misses >= MISSES_TO_REST
                and place.since + 1 < LOOK_EVERY)

    def keep(self, looked: Sequence[Detection], skipped: Sequence[Detection]) -> None:
        """This frame's fruitless second looks and the cards skipped for one."""
        places = []
        for d in looked:
            before = self._place(d)
            places.append(_Place(d.quad.mean(axis=0), d.area, (before.misses if before else 0) + 1, 0))
        for d in skipped:  # each is remembered: that is why it was skipped
            before = self._place(d)
            if before is not None:
                places.append(_Place(before.centre, before.area, before.misses, before.since + 1))
        self._places = places

    def _place(self, detection: Detection) -> _Place | None:
        centre = detection.quad.mean(axis=0)
        for place in self._places:
            if (float(np.hypot(*(centre - place.centre))) <= STILL_PX
                    and abs(detection.area / max(place.area, 1e-9) - 1) <= 0.05):
                return place
        return None


@dataclass(frozen=True)
class _Place:
    centre: np.ndarray
    area: float
    misses: int  # second looks in a row that named nothing
    since: int  # frames since the last one


def name_detections(detections: list[Detection], classifier: Classifies, *,
                    games: Collection[str] | None = None, second_looks: int = SECOND_LOOKS,
                    memory: LookMemory | None = None) -> list[Any]:
    """The classifier's answer for every detection's crop (``games`` limits the decks, for a
    classifier that takes it). The ``unknown`` ones closest to a known card (none ``memory``
    skips), then those named unsurely with an outline too large (:data:`UNSURE`), at most
    ``second_looks`` in all, are looked at again: along moved outlines (``Detection.recuts``),
    then, where that names nothing, at the size of the named cards nearest them (:func:`look_at_size`; with no other
    card named in this batch, those ``memory`` kept from earlier ones). A card named the second
    way replaces its detection in ``detections`` (its outline was wrong; the new one is the
    card's); an unsure card's name is replaced only by a surer one. Last, a classifier with
    ``settle_digits`` (:meth:`~.classify.CardClassifier.settle_digits`) checks the digit of
    the DUCK yellow number cards named, on their final crops."""
    crops = [d.crop for d in detections]
    if not crops:
        return []
    results = list(classifier.classify(crops) if games is None
                   else classifier.classify(crops, games=games))  # type: ignore[call-arg]
    if len(results) != len(detections):
        raise ValueError(f"the classifier answered {len(results)} times for "
                         f"{len(detections)} crops")
    look_again = getattr(classifier, "classify_recuts", None)
    if look_again is not None and second_looks > 0:
        _look_again(detections, results, look_again, games, second_looks, memory)
    settle = getattr(classifier, "settle_digits", None)
    if settle is not None:
        results = settle([d.crop for d in detections], results)
    if memory is not None:
        memory.keep_named([d for d, r in zip(detections, results, strict=True) if str(r.label) != UNKNOWN])
    return results


def _look_again(detections: list[Detection], results: list[Any], look_again: Callable[..., Any],
                games: Collection[str] | None, second_looks: int, memory: LookMemory | None) -> None:
    """The second looks of :func:`name_detections`, in place: a card named by one replaces its
    result and detection; ``memory`` keeps the unknown cards it looked at in vain or skipped."""
    unknown = [i for i, r in enumerate(results) if str(r.label) == UNKNOWN]
    unknown.sort(key=lambda i: -float(getattr(results[i], "similarity", 0.0)))
    skipped = [i for i in unknown if memory is not None and memory.skips(detections[i])]
    unsure = [i for i, r in enumerate(results) if str(r.label) != UNKNOWN and float(r.confidence) < UNSURE
              and _oversized(detections[i], _named_beside(i, detections, results, memory))]
    fruitless = []
    for i in ([i for i in unknown if i not in skipped] + unsure)[:second_looks]:
        found = _second_look(detections[i], _named_beside(i, detections, results, memory), look_again, games)
        if found is not None and (i in unknown or found[0].confidence > results[i].confidence):
            results[i], detections[i] = found
        elif i in unknown:
            fruitless.append(i)
    if memory is not None:
        memory.keep([detections[i] for i in fruitless], [detections[i] for i in skipped])


def _named_beside(index: int, detections: Sequence[Detection], results: Sequence[Any],
                  memory: LookMemory | None) -> list[Detection]:
    """The other cards of the batch that are named, or with none, those ``memory`` kept from
    earlier batches (not at this card's place)."""
    named = [d for k, (d, r) in enumerate(zip(detections, results, strict=True))
             if k != index and str(r.label) != UNKNOWN]
    if named or memory is None:
        return named
    return memory.named_apart(detections[index])


def _oversized(here: Detection, beside: Sequence[Detection]) -> bool:
    """Whether ``here``'s outline is wider or taller than the cards named beside it by
    :data:`OVERSIZE` (it took in part of another card)."""
    size = neighbours_size(here, beside)
    return size is not None and here.picture_quad is not None and bool(
        (sides_of(here.picture_quad) >= size * OVERSIZE).any())


def _second_look(here: Detection, beside: Sequence[Detection], look_again: Callable[..., Any],
                 games: Collection[str] | None) -> tuple[Any, Detection] | None:
    """What ``here`` is named along moved outlines (its own outline kept), or else at the size
    of the cards named ``beside`` it (:func:`look_at_size`, with the outline that named it);
    None when neither names it."""
    recuts = here.recuts()
    answer = look_again(recuts, games=games) if recuts else None
    if answer is not None:
        return answer, here
    return look_at_size(here, beside, look_again, games)


def neighbours_size(here: Detection, named: Sequence[Detection]) -> np.ndarray | None:
    """The mean sides (picture pixels) of the (up to :data:`NEIGHBOURS`) cards of ``named``
    nearest ``here``; None without any, or when that is too small for a card."""
    measured = [d.picture_quad for d in named if d.picture_quad is not None]
    if here.picture_quad is None or not measured:
        return None
    centre = here.picture_quad.mean(axis=0)
    measured.sort(key=lambda q: float(np.hypot(*(q.mean(axis=0) - centre))))
    size = np.mean([sides_of(q) for q in measured[:NEIGHBOURS]], axis=0)
    return None if float(size.min()) < 8 else size  # no card is that small: nothing to cut


def look_at_size(here: Detection, named: Sequence[Detection], look_again: Callable[..., Any],
                 games: Collection[str] | None = None) -> tuple[Any, Detection] | None:
    """``here`` cut again at the size of the (up to 3) cards of ``named`` nearest it, laid at
    each of its corners (``Detection.laid_at_size``), and what that names with the outline
    that named it; None when nothing is named, no card is named near it, or the outline found
    is a named card's own (a sliver of a card already read is no second card)."""
    size = neighbours_size(here, named)
    if size is None:
        return None
    laid = here.laid_at_size((float(size[0]), float(size[1])))
    answer = look_again([d.crop for d in laid], games=games) if laid else None
    if answer is None:
        return None
    which = getattr(answer, "recut", -1)
    if not 0 <= which < len(laid):
        return None
    outline = laid[which]
    if any(quad_iou(outline.quad, d.quad) >= SAME_CARD_IOU for d in named):
        return None
    return answer, outline


def game_namer(classifier: Classifies, game: str) -> Classify:
    """How a game's table reader names the cards of frame after frame: (label, confidence)
    for each detection, limited to ``game``'s decks (a classifier without the ``games`` filter
    is asked without it), with a :class:`LookMemory` of its own."""
    memory = LookMemory()
    games = {game} if "games" in inspect.signature(classifier.classify).parameters else None

    def name(detections: list[Detection]) -> list[tuple[str, float]]:
        results = name_detections(detections, classifier, games=games, memory=memory)
        return [(str(r.label), float(r.confidence)) for r in results]

    return name


@dataclass(frozen=True, eq=False)
class SeenCard:
    """A card in the frame: the classifier's label and confidence, where it lies, its crop."""

    label: str
    confidence: float
    quad: np.ndarray
    detection_score: float
    crop: np.ndarray

    @property
    def centre(self) -> tuple[float, float]:
        x, y = self.quad.mean(axis=0)
        return float(x), float(y)


@dataclass(frozen=True)
class Reading:
    """Everything read from one frame, with the time each step took (milliseconds).

    ``cards`` holds what the classifier recognised; ``unknown`` the card-shaped things it
    could not name (kept apart: a wrong label is worse than none).
    """

    cards: list[SeenCard]
    unknown: list[SeenCard] = field(default_factory=list)
    detect_ms: float = 0.0
    classify_ms: float = 0.0

    @property
    def total_ms(self) -> float:
        return self.detect_ms + self.classify_ms


class CardReader:
    """Detector + classifier, configured once and applied to many frames.

    ``games`` limits the classifier to those games' decks (None: all it knows);
    ``detect_options`` go to :func:`ducktable.vision.detect.detect_cards` (e.g.
    ``min_area_frac`` for a camera far above the table, or ``locator``, the card locator
    network that ``ducktable identify`` and the bench use).
    """

    def __init__(self, classifier: Classifies, *, games: Collection[str] | None = None,
                 **detect_options: Any) -> None:
        self.classifier = classifier
        self.games = set(games) if games else None
        self.detect_options = detect_options

    def read(self, frame: np.ndarray, *, detail: np.ndarray | None = None) -> Reading:
        """The cards in ``frame``; with ``detail`` (the same picture with more pixels) their
        crops are cut from it (see :func:`~ducktable.vision.detect.detect_cards`)."""
        start = time.perf_counter()
        detections = detect_cards(frame, detail=detail, **self.detect_options)
        found = time.perf_counter()
        results = name_detections(detections, self.classifier, games=self.games)
        done = time.perf_counter()
        cards: list[SeenCard] = []
        unknown: list[SeenCard] = []
        for detection, result in zip(detections, results, strict=True):
            seen = _seen(detection, str(result.label), float(result.confidence))
            (unknown if seen.label == UNKNOWN else cards).append(seen)
        return Reading(cards, unknown, (found - start) * 1000, (done - found) * 1000)

    __call__ = read


def read_cards(frame: np.ndarray, classifier: Classifies, **detect_options: Any) -> Reading:
    """One-off :meth:`CardReader.read`."""
    return CardReader(classifier, **detect_options).read(frame)


def _seen(detection: Detection, label: str, confidence: float) -> SeenCard:
    return SeenCard(label=label, confidence=confidence, quad=detection.quad,
                    detection_score=detection.score, crop=detection.crop)
