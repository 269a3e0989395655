"""One frame in, the cards seen out: the detector, then the classifier, each timed.

Why this module exists: ``ducktable identify``, the benchmark and the table reader all need the
same two steps with the same bookkeeping (which crop came from where, how long each step took),
and the classifier must stay swappable - a test double, the shipped model, a model with enrolled
decks - so anything with a ``classify(crops)`` method will do.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from ducktable.rules.decks import UNKNOWN
from ducktable.vision.detect import Detection, detect_cards


class Classifies(Protocol):
    """Anything that labels card crops; each result has ``label`` and ``confidence``."""

    def classify(self, crops: Sequence[np.ndarray]) -> Sequence[Any]: ...


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

    ``detect_options`` go to :func:`ducktable.vision.detect.detect_cards` (e.g.
    ``min_area_frac`` for a camera far above the table).
    """

    def __init__(self, classifier: Classifies, **detect_options: Any) -> None:
        self.classifier = classifier
        self.detect_options = detect_options

    def read(self, frame: np.ndarray, *, detail: np.ndarray | None = None) -> Reading:
        """The cards in ``frame``; with ``detail`` (the same picture with more pixels) their
        crops are cut from it (see :func:`~ducktable.vision.detect.detect_cards`)."""
        start = time.perf_counter()
        detections = detect_cards(frame, detail=detail, **self.detect_options)
        found = time.perf_counter()
        results = list(self.classifier.classify([d.crop for d in detections])) if detections \
            else []
        done = time.perf_counter()
        if len(results) != len(detections):
            raise ValueError(f"the classifier answered {len(results)} times for "
                             f"{len(detections)} crops")
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
