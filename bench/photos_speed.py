"""Naming speed on one core, the way the table names a card (one crop per call), paired:
``ducktable bench photos DIR --speed N``.

The features network runs twice per card (the whole card and its index corner); around it,
the crop is resized, its light taken out and the network's maps averaged into regions. Those
steps are timed as shipped and as first written (the light worked out pixel by pixel, the
regions averaged slice by slice; both give the same embedding), in turn on the same crops in
one process, so a busy machine slows both alike and the ratio stands. It asserts nothing.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from ducktable.vision.features import (
    CORNER_WEIGHT,
    GRID,
    CardFeatures,
    balanced_per_pixel,
    grid_pool_by_slices,
)


@dataclass(frozen=True)
class Speed:
    cards: int
    shipped_ms: float
    first_ms: float
    network_ms: float
    largest_difference: float
    """Largest difference between the two ways' embeddings (0: the same numbers)."""

    @property
    def ratio(self) -> float:
        return self.first_ms / self.shipped_ms if self.shipped_ms else 0.0


def embed_as_first_written(features: CardFeatures, crop: np.ndarray) -> np.ndarray:
    """One crop's embedding the way it was first worked out (the reference of the pairing)."""
    small, corner = features.network_inputs(crop, balance=balanced_per_pixel)
    whole = _unit(grid_pool_by_slices(features.feature_maps([small]), GRID))
    index = _unit(grid_pool_by_slices(features.feature_maps([corner]), GRID))
    return _unit(np.hstack([whole, CORNER_WEIGHT * index]))


def measure(features: CardFeatures, crops: Sequence[np.ndarray], rounds: int = 3) -> Speed:
    """Median ms per card, shipped against first written, alternating card by card; and the
    network's own share (its two runs on the shipped inputs)."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        shipped: list[float] = []
        first: list[float] = []
        network: list[float] = []
        difference = 0.0
        for _ in range(rounds):
            for crop in crops:
                started = time.perf_counter()
                new = features.embed([crop])
                shipped.append(1000 * (time.perf_counter() - started))
                started = time.perf_counter()
                old = embed_as_first_written(features, crop)
                first.append(1000 * (time.perf_counter() - started))
                small, corner = features.network_inputs(crop)
                started = time.perf_counter()
                features.feature_maps([small])
                features.feature_maps([corner])
                network.append(1000 * (time.perf_counter() - started))
                difference = max(difference, float(np.abs(new - old).max()))
    finally:
        cv2.setNumThreads(threads)
    return Speed(len(crops), statistics.median(shipped), statistics.median(first),
                 statistics.median(network), difference)


def report(speed: Speed) -> str:
    return (f"  naming speed, one core, one crop per call, median of {speed.cards} crops: "
            f"{speed.shipped_ms:.2f} ms per card (target <= 5 ms; the network's two runs "
            f"{speed.network_ms:.2f} ms of it), as first written {speed.first_ms:.2f} ms: "
            f"{speed.ratio:.2f}x faster, the same embedding (largest difference "
            f"{speed.largest_difference:.1e})")


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
