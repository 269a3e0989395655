"""A card lying still is named from the mean of its crops; a new card, a moved card or a hand
starts a new mean (vision/still_crops.py)."""

from __future__ import annotations

import cv2
import numpy as np
from ducktable.sim.render import render_card
from ducktable.vision.detect import CROP_SIZE, Detection
from ducktable.vision.still_crops import STILL_FRAMES, StillCrops

QUAD = np.array([[100, 100], [150, 100], [150, 175], [100, 175]], np.float32)


def card(name: str) -> np.ndarray:
    return cv2.resize(render_card("duck", name), CROP_SIZE, interpolation=cv2.INTER_AREA)


def seen(crop: np.ndarray, rng: np.random.Generator, quad: np.ndarray = QUAD, sigma: float = 6.0) -> Detection:
    noisy = np.clip(crop.astype(np.float32) + rng.normal(0, sigma, crop.shape), 0, 255).astype(np.uint8)
    return Detection(quad.copy(), noisy, 1.0, 3750.0)


def error(crop: np.ndarray, truth: np.ndarray) -> float:
    return float(np.abs(crop.astype(np.float32) - truth.astype(np.float32)).mean())


def test_a_card_lying_still_is_read_from_less_noisy_crops_frame_after_frame():
    rng = np.random.default_rng(0)
    truth = card("yellow-2")
    still = StillCrops()
    errors = []
    for _ in range(6):
        (steady,) = still.steady([seen(truth, rng)])
        errors.append(error(steady.crop, truth))
    single = error(seen(truth, rng).crop, truth)
    assert errors[0] > 0.8 * single  # the first frame has nothing to average with
    assert errors[STILL_FRAMES - 1] < 0.65 * single and errors[-1] < 0.65 * single


def test_another_card_laid_on_the_same_spot_starts_a_new_mean():
    """yellow-3 on yellow-2, exactly where it lay: the digits differ in a few blocks only, and that
    is enough: the crop is the new card's own."""
    rng = np.random.default_rng(1)
    still = StillCrops()
    for _ in range(4):
        still.steady([seen(card("yellow-2"), rng)])
    new = seen(card("yellow-3"), rng)
    (steady,) = still.steady([new])
    assert np.array_equal(steady.crop, new.crop)
    (after,) = still.steady([seen(card("yellow-3"), rng)])
    assert error(after.crop, card("yellow-3")) < error(new.crop, card("yellow-3"))


def test_a_moved_card_or_a_hand_over_it_starts_a_new_mean():
    rng = np.random.default_rng(2)
    truth = card("red-5")
    still = StillCrops()
    for _ in range(3):
        still.steady([seen(truth, rng)])
    moved = seen(truth, rng, QUAD + np.float32(4))
    assert np.array_equal(still.steady([moved])[0].crop, moved.crop)
    covered = truth.copy()
    covered[40:90, 20:80] = (90, 120, 170)  # skin over the middle
    hand = seen(covered, rng, QUAD + np.float32(4))
    assert np.array_equal(still.steady([hand])[0].crop, hand.crop)
