"""The photo deck's colour look: two cards that differ only in the colour of their ink (SET's
green and purple) are told apart by the ink's hue measured against the paper, in any light."""

from __future__ import annotations

import cv2
import numpy as np
from ducktable.vision.features import COLOUR_COLUMNS, LAYOUT_CELLS, PhotoDeck, ink_colour, ink_layouts

from .look_decks import nearer_to, twin_deck

GREEN = (60, 140, 30)
PURPLE = (120, 30, 100)
BLACK = (30, 30, 30)
WARM = (0.75, 0.95, 1.1)
"""Gains on blue, green and red: a lamp's yellow light."""
COLD = (1.15, 1.0, 0.8)


def shape_card(ink: tuple[int, int, int], light: tuple[float, float, float] = (1.0, 1.0, 1.0),
               shift: int = 0) -> np.ndarray:
    """A white card (200 x 300) with two ovals of ``ink``, under ``light``, cut ``shift`` px off."""
    card = np.full((300, 200, 3), 235, np.uint8)
    for y in (110, 190):
        cv2.ellipse(card, (100, y), (60, 25), 0, 0, 360, ink, -1)
    card = np.clip(card.astype(np.float32) * np.float32(light), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(card[shift:300 - shift // 2, shift // 2:200 - shift])


def hue(colour: np.ndarray) -> np.ndarray:
    return colour / np.linalg.norm(colour)


def test_green_ink_under_a_warm_lamp_has_green_inks_hue_in_cold_light_not_purples() -> None:
    green, purple = ink_colour(shape_card(GREEN, COLD)), ink_colour(shape_card(PURPLE, COLD))
    photo = ink_colour(shape_card(GREEN, WARM, shift=4))
    assert float(hue(photo) @ hue(green)) > 0.9
    assert float(hue(photo) @ hue(purple)) < 0.0


def colour_deck(inks: dict[str, tuple[int, int, int]], colours: bool = True
                ) -> tuple[PhotoDeck, dict[str, np.ndarray]]:
    """A deck whose two cards ``inks`` have nearly the same embedding (what the features
    network sees of cards that differ only in their ink's colour), and a far-off black one;
    its views."""
    crops = {label: [shape_card(ink, light) for light in (WARM, COLD, WARM, COLD)]
             for label, ink in {**inks, "far": BLACK}.items()}
    # without colours: a deck enrolled before the inks' colours were stored
    return twin_deck(crops, seed=3, columns=None if colours else LAYOUT_CELLS)


def test_a_green_card_nearer_a_purple_one_in_the_features_is_named_green_by_its_ink() -> None:
    deck, views = colour_deck({"green": GREEN, "purple": PURPLE})
    embedding = nearer_to(views, "purple", "green")
    assert deck.match(embedding, min_raw=0.0, min_gap=0.0)[0].label == "purple"  # no inks given
    green = ink_layouts([shape_card(GREEN, COLD, shift=3)])
    assert deck.match(embedding, min_raw=0.0, layouts=green)[0].label == "green"
    purple = ink_layouts([shape_card(PURPLE, WARM, shift=3)])
    assert deck.match(embedding, min_raw=0.0, layouts=purple)[0].label == "purple"


def test_a_deck_enrolled_before_the_inks_colours_names_as_before() -> None:
    old, views = colour_deck({"green": GREEN, "purple": PURPLE}, colours=False)
    embedding = nearer_to(views, "purple", "green")
    green = ink_layouts([shape_card(GREEN, COLD, shift=3)])
    plain = old.match(embedding, min_raw=0.0)[0]
    looked = old.match(embedding, min_raw=0.0, layouts=green)[0]
    assert looked.nearest == plain.nearest == "purple" and looked.similarity == plain.similarity


def test_black_ink_has_no_hue_to_tell_cards_by() -> None:
    deck, views = colour_deck({"black": BLACK, "purple": PURPLE})
    embedding = nearer_to(views, "purple", "black")
    black = ink_layouts([shape_card(BLACK, WARM, shift=3)])
    assert np.linalg.norm(black[0, COLOUR_COLUMNS]) < 3.0
    plain = deck.match(embedding, min_raw=0.0)[0]
    looked = deck.match(embedding, min_raw=0.0, layouts=black)[0]
    assert looked.similarity == plain.similarity and looked.nearest == plain.nearest == "purple"
