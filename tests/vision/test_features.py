"""Naming enrolled cards by pretrained features: the network file, the whitened deck, the check."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from ducktable.sim import render
from ducktable.vision import augment
from ducktable.vision.classify import ModelCorruptError, ModelMissingError
from ducktable.vision.enroll import check_views, detector_finder
from ducktable.vision.features import (
    FEATURES_FILE,
    CardFeatures,
    PhotoDeck,
    balanced,
    balanced_per_pixel,
    default_model_path,
    enrolment_views,
    grid_pool,
    grid_pool_by_slices,
    portrait,
)

LABELS = ("yellow-7", "blue-1", "red-8", "lifebelt-8-green", "towel")
"""Cards of one game that differ in colour or design. (Cards that differ only in a small digit,
DUCK's yellow 1 and 7, are the hard case: `ducktable bench photos` measures them.)"""


@pytest.fixture(scope="module")
def features() -> CardFeatures:
    return CardFeatures.load()


def photos_of(label: str, n: int, seed: int, game: str = "duck") -> list[np.ndarray]:
    """The cards cut from ``n`` photos of a rendered card, lying on a surface or held, at any
    angle, in any light (the capture model of :func:`augment.photo_of_card`)."""
    card = render.render_card(game, label, width=200, height=300)
    rng = np.random.default_rng([seed, len(label), sum(map(ord, label))])
    find = detector_finder()
    crops: list[np.ndarray] = []
    while len(crops) < n:
        found = find(augment.photo_of_card(card, rng, held=len(crops) % 2 == 1))
        crops += found[:1] if len(found) == 1 else []
    return crops


def test_embeddings_are_unit_length_and_either_way_up_of_a_crop_is_fed_upright(
        features: CardFeatures) -> None:
    crop = photos_of("yellow-7", 1, seed=1)[0]
    lying = np.ascontiguousarray(np.rot90(crop, -1))
    assert portrait(lying).shape == crop.shape
    emb = features.embed([crop, crop])
    assert emb.shape == (2, features.dim)
    assert np.allclose(np.linalg.norm(emb, axis=1), 1, atol=1e-4)
    assert features.embed([]).shape == (0, features.dim)


def test_balancing_takes_out_the_colour_of_the_light() -> None:
    crop = photos_of("blue-1", 1, seed=2)[0]
    warm = np.clip(crop.astype(np.float32) * (0.6, 0.8, 1.0), 0, 255).astype(np.uint8)
    diff_before = np.abs(crop.astype(int) - warm.astype(int)).mean()
    diff_after = np.abs(balanced(crop)[0].astype(int) - balanced(warm)[0].astype(int)).mean()
    assert diff_after < diff_before / 2


def test_a_deck_whitened_by_its_photos_names_other_photos_right(features: CardFeatures) -> None:
    enrolled = {label: photos_of(label, 2, seed=10) for label in LABELS}
    deck = PhotoDeck.fit(enrolment_views(features, enrolled))
    queries = [(label, crop) for label in LABELS for crop in photos_of(label, 3, seed=20)]
    matches = deck.match(features.embed([crop for _, crop in queries]))
    right = sum(m.label == label for (label, _), m in zip(queries, matches, strict=True))
    wrong = sum(m.label not in (label, "unknown")
                for (label, _), m in zip(queries, matches, strict=True))
    assert right >= 11 and wrong == 0  # of 15


def test_cards_of_another_game_are_not_named(features: CardFeatures) -> None:
    enrolled = {label: photos_of(label, 2, seed=10) for label in LABELS}
    deck = PhotoDeck.fit(enrolment_views(features, enrolled))
    strangers = [crop for i, label in enumerate(render.card_labels("standard52")[::9])
                 for crop in photos_of(label, 1, seed=i, game="standard52")]
    assert [m.label for m in deck.match(features.embed(strangers))] == ["unknown"] * len(strangers)


def test_a_deck_survives_saving_and_reading(tmp_path: Path, features: CardFeatures) -> None:
    enrolled = {label: photos_of(label, 2, seed=10) for label in LABELS[:3]}
    deck = PhotoDeck.fit(enrolment_views(features, enrolled))
    deck.save(tmp_path / "deck.npz")
    again = PhotoDeck.read(tmp_path / "deck.npz")
    query = features.embed(photos_of("yellow-7", 1, seed=30))
    assert deck.match(query) == again.match(query)


def test_the_check_names_a_photo_filed_under_the_wrong_card(features: CardFeatures) -> None:
    enrolled = {label: photos_of(label, 3, seed=10) for label in LABELS}
    assert check_views(enrolment_views(features, enrolled)) == []
    enrolled["yellow-7"][1] = photos_of("red-8", 1, seed=40)[0]
    enrolled["towel"] = enrolled["towel"][:1]
    lines = check_views(enrolment_views(features, enrolled))
    assert any(line.startswith("yellow-7: photo 2") for line in lines)
    assert any(line.startswith("towel: only one usable photo") for line in lines)
    assert not any(line.startswith(("blue-1", "lifebelt")) for line in lines)


def test_a_damaged_or_missing_features_model_is_named(tmp_path: Path) -> None:
    model = tmp_path / FEATURES_FILE
    shutil.copy(default_model_path(), model)
    with pytest.raises(ModelMissingError, match="manifest"):
        CardFeatures.load(model)
    shutil.copy(default_model_path().with_suffix(".json"), model.with_suffix(".json"))
    assert CardFeatures.load(model).embed(photos_of("towel", 1, seed=1)).shape[0] == 1
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    with pytest.raises(ModelCorruptError, match="training.features"):
        CardFeatures.load(model)


def test_in_a_game_the_card_model_learnt_a_photo_deck_names_what_it_leaves_unknown(
        tmp_path: Path) -> None:
    from ducktable.vision.classify import CardClassifier
    from ducktable.vision.enroll import enroll_crops

    classifier = CardClassifier.load()
    enrolled = {label: photos_of(label, 2, seed=10) for label in LABELS}
    enroll_crops(enrolled, tmp_path, "duck", classifier)
    assert (tmp_path / "duck" / "photo_deck.npz").is_file()
    assert len(list((tmp_path / "duck" / "crops").glob("*.png"))) == 2 * len(LABELS)
    with_deck = CardClassifier.load(prototypes_dir=tmp_path)
    assert with_deck.photo_decks is not None
    queries = [(label, crop) for label in LABELS for crop in photos_of(label, 2, seed=50)]
    got = [r.label for r in with_deck.classify([c for _, c in queries], games={"duck"})]
    assert sum(g == f"duck/{label}" for (label, _), g in zip(queries, got, strict=True)) >= 8
    assert all(g in (f"duck/{label}", "unknown") for (label, _), g in zip(queries, got,
                                                                           strict=True))
    # the cards of another game are still the card model's to name
    cv2.setRNGSeed(0)
    bruce = render.render_card("bruce", render.card_labels("bruce")[0], width=100, height=150)
    assert with_deck.classify([bruce])[0].label == classifier.classify([bruce])[0].label


def test_an_unreadable_features_manifest_is_named(tmp_path: Path) -> None:
    model = tmp_path / FEATURES_FILE
    shutil.copy(default_model_path(), model)
    model.with_suffix(".json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelCorruptError, match="manifest .* cannot be read"):
        CardFeatures.load(model)


def test_a_custom_decks_photo_deck_answers_for_it(tmp_path: Path) -> None:
    from ducktable.vision.classify import CardClassifier
    from ducktable.vision.enroll import enroll_crops

    labels = ("A-clubs", "7-hearts", "K-spades", "10-diamonds", "Q-hearts")
    enrolled = {label: photos_of(label, 2, seed=10, game="standard52") for label in labels}
    enroll_crops(enrolled, tmp_path, "cards", CardClassifier.load())
    with_deck = CardClassifier.load(prototypes_dir=tmp_path)
    queries = [(label, crop) for label in labels
               for crop in photos_of(label, 2, seed=60, game="standard52")]
    got = [r.label for r in with_deck.classify([c for _, c in queries])]
    assert sum(g == f"cards/{label}" for (label, _), g in zip(queries, got, strict=True)) >= 8
    assert all(g in (f"cards/{label}", "unknown") for (label, _), g in zip(queries, got,
                                                                            strict=True))
    # with the photo deck's files gone, the enrolled prototypes of the card model answer alone
    (tmp_path / "cards" / "photo_deck.npz").unlink()
    assert CardClassifier.load(prototypes_dir=tmp_path).photo_decks is None


def test_the_balance_by_histogram_gives_the_pixels_of_the_balance_pixel_by_pixel() -> None:
    rng = np.random.default_rng(3)
    crops = photos_of("yellow-7", 3, seed=4) + [
        rng.integers(0, 256, (150, 100, 3), dtype=np.uint8),   # every level
        np.full((150, 100, 3), (40, 200, 90), np.uint8),       # one colour: no spread
        (rng.integers(0, 2, (150, 100, 3)) * 255).astype(np.uint8)]
    for crop in crops:
        corner = crop[:40, :30].copy()
        for fast, slow in zip(balanced(crop, corner), balanced_per_pixel(crop, corner), strict=True):
            assert fast.dtype == np.uint8 and np.array_equal(fast, slow)


def test_regions_are_averaged_as_region_by_region() -> None:
    rng = np.random.default_rng(5)
    for shape in [(1, 112, 9, 6), (2, 112, 4, 4), (3, 8, 7, 5)]:
        maps = rng.random(shape, dtype=np.float32)
        pooled = grid_pool(maps, (3, 2))
        assert pooled.shape == (shape[0], shape[1] * 6)
        assert np.allclose(pooled, grid_pool_by_slices(maps, (3, 2)), atol=1e-6)
