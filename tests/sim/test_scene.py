"""Synthetic table scenes: seeded and deterministic, truthful about every card they show."""

from __future__ import annotations

import numpy as np
import pytest
from ducktable.sim import render
from ducktable.sim.scene import (
    CARD_ASPECT,
    Placement,
    card_quad,
    compose_scene,
    compose_table,
    render_scene,
)


def test_same_seed_same_pixels_and_truth() -> None:
    a, b = render_scene(11), render_scene(11)
    assert np.array_equal(a.image, b.image)
    assert [c.label for c in a.cards] == [c.label for c in b.cards]
    assert all(np.array_equal(x.quad, y.quad) for x, y in zip(a.cards, b.cards, strict=True))
    assert not np.array_equal(a.image, render_scene(12).image)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_truth_cards_lie_inside_the_frame_and_are_drawable(seed: int) -> None:
    scene = render_scene(seed, size=(640, 360), n_cards=(4, 10))
    h, w = scene.image.shape[:2]
    assert (w, h) == (640, 360) and scene.image.dtype == np.uint8
    assert 1 <= len(scene.cards) <= 10
    for card in scene.cards:
        assert card.quad.shape == (4, 2) and card.quad.dtype == np.float32
        assert (card.quad >= 0).all() and (card.quad[:, 0] < w).all() and (card.quad[:, 1] < h).all()
        if card.label != "back":
            game, _, label = card.label.partition("/")
            assert label in render.card_labels(game)


def test_quads_run_clockwise_from_the_top_left_of_the_upright_card() -> None:
    for card in render_scene(3).cards:
        q = card.quad.astype(np.float64)
        signed = np.dot(q[:, 0], np.roll(q[:, 1], -1)) - np.dot(np.roll(q[:, 0], -1), q[:, 1])
        assert signed > 0  # clockwise on screen
        top = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])
        left = np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])
        assert top < left  # the first side is a short one: portrait


def test_game_and_count_are_respected() -> None:
    scene = render_scene(5, game="grey", n_cards=6)
    assert len(scene.cards) == 6
    assert all(c.label == "back" or c.label.startswith("grey/") for c in scene.cards)


def test_empty_table_has_no_cards() -> None:
    assert render_scene(9, empty=True).cards == []


def test_cards_do_not_overlap_beyond_touching() -> None:
    import cv2

    for seed in range(4):
        cards = render_scene(seed, n_cards=20).cards
        for i, a in enumerate(cards):
            for b in cards[i + 1:]:
                inter, _ = cv2.intersectConvexConvex(a.quad, b.quad)
                assert inter < 2 * np.linalg.norm(a.quad[1] - a.quad[0])


def test_compose_places_cards_where_asked_when_the_camera_looks_straight_down() -> None:
    placements = [Placement("duck/yellow-5", (300, 200), 0.0, 1.0),
                  Placement("duck/back", (600, 400), 30.0, 1.2)]
    scene = compose_scene(4, placements, 0)
    assert [c.label for c in scene.cards] == ["duck/yellow-5", "back"]
    for placement, card in zip(placements, scene.cards, strict=True):
        assert np.allclose(card.quad, card_quad(placement, (1280, 720)), atol=1e-3)
    first = card_quad(placements[0], (1280, 720))
    assert np.allclose(first[0], (260, 140)) and np.isclose(
        np.linalg.norm(first[3] - first[0]), 80 * CARD_ASPECT)
    # Its light border is drawn where the quad says: inside the left edge, not outside it.
    assert scene.image[200, 262].mean() > scene.image[200, 250].mean() + 20


def test_compose_keeps_the_table_and_varies_only_camera_effects() -> None:
    placements = [Placement("grey/yellow-3", (640, 360), 10.0, 1.0)]
    a = compose_table(2, placements, 0).astype(np.float32)
    b = compose_table(2, placements, 1).astype(np.float32)
    other_table = compose_table(3, placements, 0).astype(np.float32)
    assert np.array_equal(a, compose_table(2, placements, 0))
    assert 0 < np.abs(a - b).mean() < np.abs(a - other_table).mean()


def test_tilted_camera_keeps_placed_cards_in_view() -> None:
    placements = [Placement("bruce/red-1", (60, 60), 0.0, 1.0),
                  Placement("bruce/red-2", (1220, 660), 0.0, 1.0)]
    scene = compose_scene(1, placements, 0, tilt_deg=25.0)
    assert len(scene.cards) == 2  # the tilted view still shows the whole table area
    straight = [card_quad(p, (1280, 720)) for p in placements]
    assert not np.allclose(scene.cards[0].quad, straight[0], atol=2.0)
