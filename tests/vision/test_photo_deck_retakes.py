"""Re-photographed copies of the enrolment photos: what the photo deck learns from them, and what
they must leave alone (the views matched against, the raw gate)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ducktable.vision.features import CardFeatures, PhotoDeck, enrolment_retakes, retaken

DIM = 32


def nuisance_deck(seed: int = 3) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], np.ndarray]:
    """Two cards whose photos (two each, and their twins) hardly vary, the second a step along a
    direction the camera varies a lot in (the light) and a small step along one it does not
    (the print); each view's re-photographed copies (views x copies x features), spread along
    the light's direction; and a photo of the first card in another light, farther along that
    direction than the second card is."""
    rng = np.random.default_rng(seed)
    base = 3.0 * rng.normal(size=DIM).astype(np.float32)
    light, printed = np.eye(DIM, dtype=np.float32)[:2]
    means = {"A": base, "B": base + 0.6 * light + 0.25 * printed}
    views, retakes = {}, {}
    for label, mean in means.items():
        views[label] = mean + 0.01 * rng.normal(size=(4, DIM)).astype(np.float32)
        spread = rng.normal(size=(4, 8, 1)).astype(np.float32)
        retakes[label] = (views[label][:, None, :] + spread * light
                          + 0.01 * rng.normal(size=(4, 8, DIM)).astype(np.float32))
    return views, retakes, (base + 0.9 * light)[None, :]


def test_copies_in_another_light_teach_the_deck_that_light_does_not_tell_cards_apart() -> None:
    views, retakes, photo = nuisance_deck()
    plain = PhotoDeck.fit(views)
    with_copies = PhotoDeck.fit(views, retakes=retakes)
    assert plain.match(photo, min_raw=0.0)[0].nearest == "B"
    assert with_copies.match(photo, min_raw=0.0)[0].label == "A"
    assert not np.allclose(plain.projection, with_copies.projection)


def test_the_copies_are_not_views_and_leave_the_raw_gate_and_the_centre_alone() -> None:
    """Copies less alike than the photos (a strong capture model) must not lower the gate,
    nor be what a crop is matched against."""
    views, retakes, _ = nuisance_deck()
    far = {label: rows + 2.0 * np.random.default_rng(1).normal(size=rows.shape).astype(np.float32)
           for label, rows in retakes.items()}
    plain, with_copies = PhotoDeck.fit(views), PhotoDeck.fit(views, retakes=far)
    assert with_copies.min_raw == plain.min_raw
    assert np.array_equal(with_copies.labels, plain.labels)
    assert np.array_equal(with_copies.raw, plain.raw)
    assert np.allclose(with_copies.centre, plain.centre)


def test_copies_are_needed_per_view(tmp_path: Path) -> None:
    views, retakes, photo = nuisance_deck()
    flat = {label: rows.reshape(-1, DIM) for label, rows in retakes.items()}
    with pytest.raises(ValueError, match="views x copies"):
        PhotoDeck.fit(views, retakes=flat)
    with pytest.raises(ValueError, match="views x copies"):
        PhotoDeck.fit(views, retakes={label: rows[:2] for label, rows in retakes.items()})
    deck = PhotoDeck.fit(views, retakes=retakes)
    deck.save(tmp_path / "deck.npz")
    assert PhotoDeck.read(tmp_path / "deck.npz").match(photo, min_raw=0.0)[0].label == "A"


def test_retakes_are_seeded_copies_either_way_up() -> None:
    crop = np.full((150, 100, 3), 230, np.uint8)
    crop[10:40, 8:30] = (40, 40, 200)
    lying = np.ascontiguousarray(np.rot90(crop))
    copies = retaken(lying, np.random.default_rng(0), 3)
    assert len(copies) == 6 and all(c.shape == crop.shape for c in copies)
    assert all(np.array_equal(np.rot90(c, 2), t) for c, t in zip(copies[:3], copies[3:], strict=True))
    again = retaken(lying, np.random.default_rng(0), 3)
    assert all(np.array_equal(a, b) for a, b in zip(copies, again, strict=True))


def test_enrolment_retakes_are_the_copies_of_each_view_and_one_seed_gives_one_deck() -> None:
    features = CardFeatures.load()
    crop = np.full((150, 100, 3), 230, np.uint8)
    crop[10:40, 8:30] = (40, 40, 200)
    crops = {"A": [crop, crop[::-1].copy()]}
    made = enrolment_retakes(features, crops, seed=4, copies=2)["A"]
    assert made.shape == (4, 2, features.dim)  # two photos, then their twins
    assert np.array_equal(made, enrolment_retakes(features, crops, seed=4, copies=2)["A"])
    first = retaken(crop, np.random.default_rng(4), 2)
    assert np.allclose(made[0], features.embed(first[:2]), atol=1e-6)
    assert np.allclose(made[2], features.embed(first[2:]), atol=1e-6)


def test_the_enrolment_check_learns_from_the_copies_as_the_deck_does() -> None:
    """A photo of card A in another light: the plain check says to take it again (from the
    other photos it looks like B); with the copies, as enrolment fits the deck, it does not."""
    from ducktable.vision.enroll import check_views

    views, retakes, photo = nuisance_deck()
    rng = np.random.default_rng(5)
    photos = np.vstack([views["A"][:2], photo])  # two photos and one in other light
    views["A"] = np.vstack([photos, photos])  # each photo's half-turned twin reads the same
    spread = rng.normal(size=(6, 8, 1)).astype(np.float32)
    light = np.eye(DIM, dtype=np.float32)[0]
    retakes["A"] = views["A"][:, None, :] + spread * light
    assert any(line.startswith("A: photo 3 is taken for B") for line in check_views(views))
    assert check_views(views, retakes=retakes) == []
