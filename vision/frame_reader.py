"""One frame of a card game's table in, its snapshot out: the cards found, named and put in zones.

Why this module exists: the camera reader (:mod:`.table_views`) reads DUCK, Grey Duck and Duck
Duck Bruce tables this way, and the synthetic videos (:mod:`ducktable.sim.table_video`) replay
their frames through the same reader. :class:`FrameReader` runs the detector, names the cards
(with a classifier, or from the truth a replay knows), assigns them to the layout's zones and
notes the zones a hand covers; :func:`model_classifier` is the shipped model for one game.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from ducktable.rules.decks import UNKNOWN
from ducktable.rules.snapshot import TableSnapshot

from .layout import CoverWatch, SeenCard, TableLayout, zone_reads
from .pipeline import Classify, game_namer


class ShowsContents(Protocol):
    """What a replay knows of a frame: the true cards of each zone (a synthetic video's shot)."""

    def contents(self) -> Mapping[str, Sequence[str]]: ...


class FrameReader:
    """Frame -> TableSnapshot: detector, labels (classifier or truth), zones, covered zones."""

    def __init__(self, layout: TableLayout, empty_table: np.ndarray, game: str,
                 classify: Classify | None = None) -> None:
        self.layout = layout
        self.game = game
        self.classify = classify
        self.cover = CoverWatch(layout, empty_table)
        self.seconds = {"detect": 0.0, "classify": 0.0, "zones": 0.0}

    def read(self, frame: np.ndarray, ts: int, index: int, truth: ShowsContents | None = None, *,
             detail: np.ndarray | None = None) -> TableSnapshot:
        """``detail``: the camera's full-resolution picture when ``frame`` is its reading view
        (cards are cut from it, see :func:`~ducktable.vision.detect.detect_cards`)."""
        from .detect import detect_cards

        t0 = time.perf_counter()
        found = detect_cards(frame, detail=detail)
        t1 = time.perf_counter()
        if self.classify is not None:
            labels = self.classify(found)
        else:
            assert truth is not None, "without a classifier the true shot gives the labels"
            labels = [self._true_label(d.quad, truth) for d in found]
        t2 = time.perf_counter()
        seen = [SeenCard(d.quad, lab, conf) for d, (lab, conf) in zip(found, labels, strict=True)]
        covered = self.cover.covered(frame, [d.quad for d in found])
        zones = zone_reads(self.layout, seen, covered)
        t3 = time.perf_counter()
        self.seconds["detect"] += t1 - t0
        self.seconds["classify"] += t2 - t1
        self.seconds["zones"] += t3 - t2
        return TableSnapshot(ts, zones, index)

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


def model_classifier(game: str) -> Classify:
    """The shipped classifier, limited to ``game``'s deck, as a detections -> (label, conf)
    function (with the second look of :func:`~.pipeline.name_detections`)."""
    return game_namer(shipped_model(), game)


@functools.lru_cache(maxsize=1)
def shipped_model() -> Any:
    """Loaded once per process: every replayed game reads with the same model."""
    from .classify import CardClassifier

    return CardClassifier.load()
