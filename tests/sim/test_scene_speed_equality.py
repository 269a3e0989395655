"""The in-place camera effects of scene composition give the very same pixels as the plain
whole-frame arithmetic they replace (kept here as the reference): bitwise, not approximately."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from ducktable.sim import scene


def _reference_camera_effects(frame: np.ndarray, rng: np.random.Generator) -> None:
    """The straightforward version: each whole-frame step makes fresh temporaries."""
    h, w = frame.shape[:2]
    if rng.random() < 0.5:
        sw, sh = w // 8, h // 8
        spot = np.zeros((sh, sw), np.float32)
        cv2.circle(spot, (int(rng.uniform(0, sw)), int(rng.uniform(0, sh))), 1, 1.0, -1)
        soft = cv2.GaussianBlur(spot, (0, 0), rng.uniform(2, 10))
        peak = np.float32(max(float(soft.max()), 1e-6))
        glare = cv2.resize(np.divide(soft, peak, dtype=np.float32), (w, h),
                           interpolation=cv2.INTER_LINEAR)
        frame += rng.uniform(30, 110) * glare[..., None]
    if rng.random() < 0.15:
        length = int(rng.integers(3, 6))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        streak = cv2.warpAffine(kernel, turn, (length, length))
        total = np.float32(max(float(streak.sum()), 1e-6))
        cv2.filter2D(frame, -1, np.divide(streak, total, dtype=np.float32), dst=frame)
    else:
        sigma = rng.uniform(0.0, 1.2)
        if sigma > 0.3:
            cv2.GaussianBlur(frame, (0, 0), sigma, dst=frame)
    noise_sigma = rng.uniform(1.0, 6.0)
    noise = rng.standard_normal((h, w, 1), dtype=np.float32) * noise_sigma
    frame += noise * (0.5 + frame / 255.0)


@pytest.mark.parametrize("seed", range(12))  # covers glare / no glare, streak / focus blur
def test_camera_effects_are_bitwise_the_reference(seed: int) -> None:
    picture = np.random.default_rng(seed).uniform(0, 255, (180, 320, 3)).astype(np.float32)
    fast, slow = picture.copy(), picture.copy()
    rng_fast, rng_slow = np.random.default_rng([seed, 7]), np.random.default_rng([seed, 7])
    scene._camera_effects(fast, rng_fast)
    _reference_camera_effects(slow, rng_slow)
    assert fast.dtype == slow.dtype == np.float32
    assert not np.array_equal(fast, picture)  # the effects did something
    assert np.array_equal(fast, slow)
    assert rng_fast.random() == rng_slow.random()  # same draws consumed, so later frames agree


def test_composed_scenes_equal_those_made_with_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = scene.render_scene(5, size=(640, 360))
    monkeypatch.setattr(scene, "_camera_effects", _reference_camera_effects)
    slow = scene.render_scene(5, size=(640, 360))
    assert fast.image.dtype == np.uint8 and np.array_equal(fast.image, slow.image)
