"""The card locator network: its targets and decoding agree, its files are checked, and the
shipped one finds the cards of fresh tables (no torch needed: CI has no `train` extra)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from ducktable.bench.cards import match
from ducktable.sim.scene import render_scene
from ducktable.training.locator import (
    FIRST_SEED,
    VIDEO_FIRST_SEED,
    _seen_cards,
    output_grid,
    rendered_example,
    targets,
    varied,
    video_examples,
)
from ducktable.vision.classify import ModelCorruptError, ModelMissingError
from ducktable.vision.detect import detect_cards, quad_iou
from ducktable.vision.locator import SHRINK, CardLocator, decode, default_locator_path, load_locator, network_input

SEED = 31337  # not a seed the locator was trained on, nor one the bench reads


@pytest.fixture(scope="module")
def locator() -> CardLocator:
    return CardLocator.load()


def test_the_targets_decode_back_to_every_card() -> None:
    """What training asks of the network is what the runtime reads back: the exact corners."""
    small, quads = rendered_example(FIRST_SEED + 1)
    assert len(quads) >= 4
    rows, cols = output_grid(small.shape[:2])
    heat, corners, _ = targets(quads, rows, cols)
    logit = np.log(np.clip(heat, 1e-6, 1 - 1e-6) / np.clip(1 - heat, 1e-6, 1))
    output = np.concatenate([logit[None], corners])[None]
    found = decode(output, threshold=0.99)
    assert len(found) == len(quads)
    for quad in quads:
        nearest = min(np.abs(corners_ - quad).max() for corners_, _ in found)
        assert nearest < 1e-3


def test_table_video_frames_come_as_the_locator_sees_them() -> None:
    """Frames of a training video: shrunk 1280 x 720 views whatever the capture size, cards on
    them inside the frame and clockwise, the same for the same seed."""
    seed = VIDEO_FIRST_SEED + 1  # a DUCK game
    made = video_examples(seed, frames=2)
    again = video_examples(seed, frames=2)
    assert len(made) == 2
    assert sum(len(quads) for _, quads in made) >= 2
    for (small, quads), (small2, quads2) in zip(made, again, strict=True):
        assert small.shape == (180, 320, 3) and small.dtype == np.uint8
        assert quads.shape[1:] == (4, 2) and quads.dtype == np.float32
        assert np.array_equal(small, small2) and np.array_equal(quads, quads2)
        for quad in quads:
            assert (quad >= -1).all() and (quad[:, 0] <= 321).all() and (quad[:, 1] <= 181).all()
            assert cv2.contourArea(quad, oriented=True) > 20  # clockwise on screen, card-sized


def test_a_pile_is_its_top_card_and_a_hand_hides_what_it_covers() -> None:
    card = np.array([[100, 100], [150, 100], [150, 175], [100, 175]], np.float32)
    askew = card + np.float32([3, -2])
    apart = card + np.float32([200, 0])
    hands = np.zeros((400, 500), np.uint8)
    cv2.rectangle(hands, (290, 90), (360, 170), 255, -1)  # over most of the card apart
    kept = _seen_cards([card, askew, apart], hands)
    assert len(kept) == 1 and np.array_equal(kept[0], askew)
    assert len(_seen_cards([card, apart], np.zeros_like(hands))) == 2


@pytest.mark.parametrize("seed", range(6))
def test_a_varied_table_keeps_its_corners_on_its_cards(seed: int) -> None:
    image = np.full((180, 320, 3), 40, np.uint8)
    quad = np.array([[100, 40], [160, 50], [150, 140], [90, 130]], np.float32)  # clockwise
    cv2.fillConvexPoly(image, quad.astype(np.int32), (230, 230, 230))
    pixels, moved = varied(image, quad[None], np.random.default_rng(seed))
    bright = pixels.mean(axis=2) > pixels.mean()
    drawn = np.zeros(bright.shape, np.uint8)
    cv2.fillConvexPoly(drawn, moved[0].astype(np.int32), 1)
    overlap = (bright & (drawn > 0)).sum() / (bright | (drawn > 0)).sum()
    assert overlap > 0.95
    assert cv2.contourArea(moved[0], oriented=True) > 0  # still clockwise on screen


def test_the_network_answers_for_any_frame_size(locator: CardLocator) -> None:
    for h, w in ((720, 1280), (301, 517), (64, 48)):
        x = network_input(np.zeros((h, w, 3), np.uint8))
        output = locator.session.run(None, {"image": x})[0]
        assert output.shape[2:] == output_grid(x.shape[2:])
        assert output.shape[1] == 9


def test_the_shipped_locator_finds_the_cards_of_fresh_tables(locator: CardLocator) -> None:
    """Measured 2026-11-24: all 255 cards found, no false one; the bounds leave five."""
    cards = matched = detections = 0
    for seed in range(SEED, SEED + 20):
        scene = render_scene(seed)
        found = detect_cards(scene.image, locator=locator)
        pairs, _ = match(scene.cards, [d.quad for d in found])
        cards += len(scene.cards)
        matched += len(pairs)
        detections += len(found)
        for qi, ti in pairs.items():
            assert quad_iou(found[qi].quad, scene.cards[ti].quad) >= 0.7
            assert found[qi].crop.shape == (150, 100, 3)
    assert matched >= 0.98 * cards
    assert matched >= 0.98 * detections


def test_rough_corners_come_in_frame_pixels(locator: CardLocator) -> None:
    scene = render_scene(SEED)
    rough = locator.locate(scene.image)
    assert rough, "the shipped locator found nothing on a table of cards"
    scores = [score for _, score in rough]
    assert scores == sorted(scores, reverse=True)
    best = [max(quad_iou(corners, card.quad) for corners, _ in rough) for card in scene.cards]
    assert np.median(best) > 0.7  # before any fit to edges (measured: 0.97)


def _copy_model(tmp_path: Path) -> Path:
    source = default_locator_path()
    target = tmp_path / source.name
    shutil.copy(source, target)
    shutil.copy(source.with_suffix(".json"), target.with_suffix(".json"))
    return target


def test_a_changed_model_file_is_refused(tmp_path: Path) -> None:
    model = _copy_model(tmp_path)
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    with pytest.raises(ModelCorruptError, match="does not match its manifest.*make locator"):
        CardLocator.load(model)


def test_a_missing_manifest_is_named(tmp_path: Path) -> None:
    model = _copy_model(tmp_path)
    model.with_suffix(".json").unlink()
    with pytest.raises(ModelMissingError, match="manifest .* is missing"):
        CardLocator.load(model)


def test_a_manifest_for_other_sizes_is_refused(tmp_path: Path) -> None:
    model = _copy_model(tmp_path)
    manifest = json.loads(model.with_suffix(".json").read_text())
    manifest["shrink"] = SHRINK * 2
    model.with_suffix(".json").write_text(json.dumps(manifest))
    with pytest.raises(ModelCorruptError, match="other input sizes"):
        CardLocator.load(model)


@pytest.mark.parametrize("text", ["{", "[]", '{"sha256": "x"}'])
def test_an_unreadable_manifest_is_refused(tmp_path: Path, text: str) -> None:
    model = _copy_model(tmp_path)
    model.with_suffix(".json").write_text(text)
    with pytest.raises(ModelCorruptError, match="make locator"):
        CardLocator.load(model)


def test_detectors_are_named() -> None:
    assert load_locator("edges") is None
    assert isinstance(load_locator("network"), CardLocator)
    with pytest.raises(ValueError, match="network, edges"):
        load_locator("magic")


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    model = _copy_model(tmp_path)
    model.unlink()
    with pytest.raises(ModelMissingError, match="card locator model .* is missing"):
        CardLocator.load(model)


def test_outlines_seen_in_sensor_noise_are_named_nothing(locator: CardLocator) -> None:
    """The network sees cards in pure noise (no such frame was in training, and noise has
    edges everywhere, so the outlines fit); the classifier must refuse every one of them."""
    from ducktable.vision.classify import CardClassifier
    from ducktable.vision.pipeline import CardReader

    reader = CardReader(CardClassifier.load(), locator=locator)
    rng = np.random.default_rng(7)
    for _ in range(5):
        reading = reader.read(rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8))
        assert reading.cards == []
