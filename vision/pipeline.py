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
    classifier that takes it). The ``unknown`` ones closest to a known card, at most
    ``second_looks`` and none ``memory`` skips, are looked at again: along moved outlines
    (``Detection.recuts``), then, where that names nothing, at the size of the named cards
    nearest them (:func:`look_at_size`; with no card named in this batch, those ``memory`` kept
    from earlier ones). A card named the second way replaces its detection in ``detections``
    (its outline was wrong; the new one is the card's)."""
    crops = [d.crop for d in detections]
    if not crops:
        return []
    results = list(classifier.classify(crops) if games is None
                   else classifier.classify(crops, games=games))  # type: ignore[call-arg]
    if len(results) != len(detections):
        raise ValueError(f"the classifier answered {len(results)} times for "
                         f"{len(detections)} crops")
    look_again = getattr(classifier, "classify_recuts", None)
    if look_again is None or second_looks <= 0:
        return results
    none_named = all(str(r.label) == UNKNOWN for r in results)
    unknown = [i for i, r in enumerate(results) if str(r.label) == UNKNOWN]
    unknown.sort(key=lambda i: -float(getattr(results[i], "similarity", 0.0)))
    skipped = [i for i in unknown if memory is not None and memory.skips(detections[i])]
    fruitless = []
    for i in [i for i in unknown if i not in skipped][:second_looks]:
        recuts = detections[i].recuts()
        second = look_again(recuts, games=games) if recuts else None
        if second is None:
            known = memory.named_apart(detections[i]) if memory is not None and none_named else ()
            found = look_at_size(i, detections, results, look_again, games, known)
            if found is not None:
                second, detections[i] = found
        if second is None:
            fruitless.append(i)
        else:
            results[i] = second
    if memory is not None:
        memory.keep([detections[i] for i in fruitless], [detections[i] for i in skipped])
        memory.keep_named([d for d, r in zip(detections, results, strict=True) if str(r.label) != UNKNOWN])
    return results


def look_at_size(index: int, detections: Sequence[Detection], results: Sequence[Any],
                 look_again: Callable[..., Any], games: Collection[str] | None = None,
                 known: Sequence[Detection] = ()) -> tuple[Any, Detection] | None:
    """Detection ``index`` cut again at the size of the (up to 3) named cards nearest it, laid
    at each of its corners (``Detection.laid_at_size``), and what that names with the outline
    that named it; None when nothing is named, no card is named near it, or the outline found
    is a named card's own (a sliver of a card already read is no second card). ``known``:
    cards named in earlier frames, taken when none of ``detections`` is named."""
    here = detections[index]
    if here.picture_quad is None:
        return None
    named = [d for d, r in zip(detections, results, strict=True) if str(r.label) != UNKNOWN] or list(known)
    measured = [d.picture_quad for d in named if d.picture_quad is not None]
    if not measured:
        return None
    centre = here.picture_quad.mean(axis=0)
    measured.sort(key=lambda q: float(np.hypot(*(q.mean(axis=0) - centre))))
    size = np.mean([sides_of(q) for q in measured[:NEIGHBOURS]], axis=0)
    if float(size.min()) < 8:  # no card is that small: nothing to cut
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
