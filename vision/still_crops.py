"""A card lying still is read from the mean of its last few crops, not from one frame's.

Why this module exists: a table camera's frames differ by sensor noise, JPEG blocks and
exposure flicker while the cards lie still, and DUCK's pale yellow digits are only a few
pixels high in a card's crop: one frame's noise is enough to turn a 2 into an 8. The mean of
the same card's crops over the frames it lay still keeps the card and loses most of the noise
(four frames halve it). A crop joins the mean only when its card lies where the last frame's did
(every corner within :data:`STILL_PX`) and looks the same in every part (no block of the crop
differs by more than :data:`SAME_CARD_LEVELS`): a card laid on the same spot, a hand or its
shadow start a new mean.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .detect import Detection

STILL_FRAMES = 4
"""At most this many frames go into a card's mean (the newest weighs as much as each earlier one)."""
STILL_PX = 2.0
"""Every corner of the outline within this many frame pixels of the last frame's: the card did not move."""
SAME_CARD_LEVELS = 12.0
"""The largest difference (grey levels, in any colour) allowed in any block of the crop against
the mean: noise and 2% flicker stay well below it, a different digit lies far above."""
BLOCKS = (10, 15)
"""The crop is compared in this many blocks across and down (a DUCK digit spans one or two)."""


@dataclass
class _Kept:
    quad: np.ndarray
    mean: np.ndarray  # float32, the crop's shape
    frames: int


class StillCrops:
    """The crops of one table's cards, frame after frame; :meth:`steady` gives each detection its
    crop averaged over the frames the card lay still (the detection itself when it just came)."""

    def __init__(self) -> None:
        self._kept: list[_Kept] = []

    def steady(self, detections: list[Detection]) -> list[Detection]:
        kept, out = [], []
        for detection in detections:
            crop = detection.crop.astype(np.float32)
            before = self._same_card(detection, crop)
            if before is None:
                kept.append(_Kept(detection.quad.copy(), crop, 1))
                out.append(detection)
                continue
            weight = min(before.frames, STILL_FRAMES - 1)
            mean = (before.mean * weight + crop) / (weight + 1)
            kept.append(_Kept(detection.quad.copy(), mean, weight + 1))
            out.append(_with_crop(detection, np.clip(mean + 0.5, 0, 255).astype(np.uint8)))
        self._kept = kept
        return out

    def _same_card(self, detection: Detection, crop: np.ndarray) -> _Kept | None:
        for before in self._kept:
            if before.mean.shape != crop.shape:
                continue
            if float(np.abs(before.quad - detection.quad).max()) > STILL_PX:
                continue
            if block_difference(before.mean, crop) <= SAME_CARD_LEVELS:
                return before
        return None


def block_difference(a: np.ndarray, b: np.ndarray) -> float:
    """The largest mean difference between ``a`` and ``b`` over any block and colour."""
    diff = np.abs(a - b)
    blocks = cv2.resize(diff, BLOCKS, interpolation=cv2.INTER_AREA)
    return float(blocks.max())


def _with_crop(detection: Detection, crop: np.ndarray) -> Detection:
    return replace(detection, crop=crop)
