"""The training data generator and augmentations (no torch needed: CI has no `train` extra)."""

from __future__ import annotations

import copy

import cv2
import numpy as np
import pytest
from ducktable.sim import render
from ducktable.training.classifier import INPUT_H, INPUT_W, TrainingData, class_labels
from ducktable.vision import augment
from ducktable.vision.detect import detect_cards


@pytest.fixture(scope="module")
def data() -> TrainingData:
    return TrainingData(seed=5, families=range(4), members=3, printings=range(2))


def test_classes_are_every_face_of_the_five_games_then_back_and_unknown() -> None:
    labels = class_labels()
    assert len(labels) == len(set(labels)) == 38 + 41 + 18 + 30 + 11 + 2
    assert labels[-2:] == ["back", "unknown"]
    assert "duck/lifebelt-10-red" in labels and "sitting/action-bottoms-up" in labels
    assert not any(lab.startswith("standard52/") for lab in labels)  # held out for rejection


def test_the_stream_is_reproducible_from_its_seed(data: TrainingData) -> None:
    a = next(data.batches(16))
    b = next(data.batches(16))
    c = next(data.batches(16, worker=1))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_batches_hold_model_inputs_and_every_kind_of_target(data: TrainingData) -> None:
    x, y = next(data.batches(200))
    assert x.shape == (200, 3, INPUT_H, INPUT_W) and x.dtype == np.float32
    assert y.min() >= 0 and y.max() < data.n_classes
    assert data.n_classes == len(class_labels()) + 4 * 3
    assert (y >= len(data.labels)).any()  # invented cards
    assert (y == data.unknown_index).any()
    assert (y < data.back_index).sum() > 80  # mostly our own faces
    rng = np.random.default_rng(0)
    assert any(data.sample(rng)[1] == data.back_index for _ in range(1500))


def test_our_cards_are_also_learned_in_invented_printings(data: TrainingData) -> None:
    """Domain randomisation: every face also comes in each invented printing (other index
    font, inks, paper, margins), so the network cannot lean on one typeface."""
    assert len(data.variants) == len(data.faces)
    assert all(len(v) == 2 for v in data.variants)
    for face, variants in zip(data.faces, data.variants, strict=True):
        assert all(v.shape == face.shape for v in variants)
        assert all(np.abs(v.astype(int) - face).mean() > 2 for v in variants)


def test_invented_decks_are_fixed_and_their_cards_differ() -> None:
    a = augment.foreign_card(7, 1)
    assert np.array_equal(a, augment.foreign_card(7, 1))
    members = [augment.foreign_card(7, m).astype(int) for m in range(6)]
    # members can differ in one small index only, as yellow-5 and yellow-6 do
    assert all(np.abs(members[i] - members[j]).mean() > 0.02
               for i in range(6) for j in range(i + 1, 6))


def test_invented_decks_never_use_the_alternate_editions_fonts() -> None:
    alternate = render.STYLES["alternate"]
    fonts = {alternate.index_font & ~cv2.FONT_ITALIC, alternate.title_font}
    assert fonts.isdisjoint(augment.FOREIGN_FONTS)
    assert not alternate.index_font & cv2.FONT_ITALIC or all(
        not f & cv2.FONT_ITALIC for f in augment.FOREIGN_FONTS)


def test_augmented_views_vary_but_keep_size_and_type() -> None:
    card = render.render_card("bruce", "teal-2", width=120, height=180)
    rng = np.random.default_rng(0)
    views = [augment.augment_card(card, rng, size=(100, 150)) for _ in range(8)]
    assert all(v.shape == (150, 100, 3) and v.dtype == np.uint8 for v in views)
    assert len({v.tobytes() for v in views}) == 8
    clean = cv2.resize(card, (100, 150), interpolation=cv2.INTER_AREA).astype(int)
    assert np.mean([np.abs(v - clean).mean() for v in views]) > 8  # strong augmentation


def test_a_crop_without_jitter_is_the_card_itself() -> None:
    card = render.render_card("grey", "yellow-7", width=100, height=150)
    crop = augment.detector_crop(card, np.random.default_rng(0), size=(100, 150), jitter=0)
    assert np.abs(crop.astype(int) - card).mean() < 1


def test_clutter_is_not_a_whole_card_and_has_the_crop_size() -> None:
    rng = np.random.default_rng(1)
    cards = [render.render_card("duck", "towel", width=120, height=180)]
    for _ in range(5):
        assert augment.clutter(rng, cards, size=(64, 96)).shape == (96, 64, 3)


def test_photos_show_one_card_that_the_detector_finds() -> None:
    rng = np.random.default_rng(2)
    found = 0
    for k, label in enumerate(render.card_labels("grey")[:10]):
        card = render.render_card("grey", label, edition="alternate")
        photo = augment.photo_of_card(card, rng, held=k % 2 == 0)
        assert photo.shape == (480, 640, 3)
        found += len(detect_cards(photo)) == 1
    assert found >= 8


def test_duck_yellow_faces_are_drawn_more_often_than_the_others(data: TrainingData) -> None:
    """DUCK's yellow digits are the faces a table camera blurs most: drawn hard_weight times as
    often as any other face, and the rest of the faces all equally often."""
    odds = dict(zip([lab for lab in data.labels if "/" in lab] + ["back"], data.face_odds,
                    strict=True))
    assert sum(data.face_odds) == pytest.approx(1.0)
    assert odds["duck/yellow-5"] == pytest.approx(3 * odds["duck/blue-5"])
    assert odds["duck/blue-5"] == pytest.approx(odds["grey/yellow-7"]) == pytest.approx(odds["back"])
    flat = TrainingData(seed=5, families=range(1), members=1, printings=(), hard_weight=1.0)
    assert np.ptp(flat.face_odds) == 0


def test_table_camera_crops_lose_a_yellow_index_in_the_colour_jpeg_keeps_coarse() -> None:
    """The table camera's crop is smaller, blurred and twice JPEG'd with the colour at half
    resolution: the fine colour detail of a yellow index (its blue-yellow difference, Cb) is
    mostly gone, more than in the ordinary training view of the same card."""
    card = render.render_card("duck", "yellow-5", width=120, height=180)
    rng = np.random.default_rng(4)

    def colour_detail(img: np.ndarray) -> float:
        cb = cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb)[..., 2].astype(np.float32)
        return float(np.abs(cv2.Laplacian(cb, cv2.CV_32F)).mean())

    camera = [augment.table_camera_crop(card, rng, size=(100, 150)) for _ in range(12)]
    assert all(c.shape == (150, 100, 3) and c.dtype == np.uint8 for c in camera)
    assert len({c.tobytes() for c in camera}) == 12
    again = augment.table_camera_crop(card, np.random.default_rng(4), size=(100, 150))
    assert np.array_equal(again, camera[0])
    clean = colour_detail(cv2.resize(card, (100, 150), interpolation=cv2.INTER_AREA))
    assert np.mean([colour_detail(c) for c in camera]) < 0.5 * clean


def test_some_of_our_faces_are_cut_as_from_a_table_camera() -> None:
    """camera_share 0 keeps the ordinary views only; 1 gives the table camera's crops only."""
    ordinary = TrainingData(seed=5, families=range(1), members=1, printings=(), camera_share=0.0)
    camera = copy.copy(ordinary)
    camera.camera_share = 1.0
    face = ordinary.faces[0]
    for data, view in ((ordinary, augment.augment_card), (camera, augment.table_camera_crop)):
        rng = np.random.default_rng(9)
        rng.random()  # the draw that chooses the kind of view
        assert np.array_equal(data._photographed(face, np.random.default_rng(9)),
                              view(face, rng, size=(INPUT_W, INPUT_H)))
