"""The photo deck's shading look: SET cards that differ only in how their shapes are filled
(solid, striped, open) are told apart by the ink inside the shapes against their outline's,
where the features network sees blurred stripes as a pale solid or an open shape."""

from __future__ import annotations

import cv2
import numpy as np
from ducktable.vision.features import NO_SHADING, SHADE_COLUMN, PhotoDeck, ink_layouts, ink_shading

from .look_decks import nearer_to, twin_deck

GREEN = (60, 140, 30)
RED = (40, 40, 200)
WARM = (0.75, 0.95, 1.1)
"""Gains on blue, green and red: a lamp's yellow light."""


def set_card(fill: str, ink: tuple[int, int, int] = GREEN, shapes: int = 2,
             light: tuple[float, float, float] = (1.0, 1.0, 1.0), shift: int = 0,
             blur: int = 0) -> np.ndarray:
    """A white card (200 x 300) with ``shapes`` ovals of ``ink`` ``fill``ed solid, striped
    (upright lines 2 px wide every 6 px) or open, under ``light``, cut ``shift`` px off and
    blurred by a ``blur`` px box."""
    card = np.full((300, 200, 3), 235, np.uint8)
    for y in np.linspace(150 - 45 * (shapes - 1), 150 + 45 * (shapes - 1), shapes).astype(int):
        if fill == "solid":
            cv2.ellipse(card, (100, int(y)), (60, 25), 0, 0, 360, ink, -1)
        elif fill == "striped":
            inside = np.zeros((300, 200), np.uint8)
            cv2.ellipse(inside, (100, int(y)), (60, 25), 0, 0, 360, 1, -1)
            stripes = np.zeros_like(inside)
            stripes[:, ::6] = stripes[:, 1::6] = 1
            card[(inside & stripes) > 0] = ink
        cv2.ellipse(card, (100, int(y)), (60, 25), 0, 0, 360, ink, 4)
    card = np.clip(card.astype(np.float32) * np.float32(light), 0, 255).astype(np.uint8)
    if blur:
        card = cv2.blur(card, (blur, blur))
    return np.ascontiguousarray(card[shift:300 - shift // 2, shift // 2:200 - shift])


def pip_card() -> np.ndarray:
    """A playing card's eight: pips in two columns, no shapes whose filling tells cards apart."""
    card = np.full((300, 200, 3), 235, np.uint8)
    for x in (65, 135):
        for y in (70, 123, 177, 230):
            cv2.circle(card, (x, y), 14, RED, -1)
    return card


def test_solid_striped_and_open_shapes_are_filled_apart_in_any_light_and_blur() -> None:
    for light, shift, blur in (((1.0, 1.0, 1.0), 0, 0), (WARM, 4, 3)):
        solid, striped, empty = (ink_shading(set_card(fill, light=light, shift=shift, blur=blur))
                                 for fill in ("solid", "striped", "open"))
        assert solid > 0.8 and 0.15 < striped < 0.6 and 0 <= empty < 0.1


def test_one_to_three_shapes_have_a_shading_pips_and_blank_paper_none() -> None:
    assert all(ink_shading(set_card("striped", shapes=n)) != NO_SHADING for n in (1, 2, 3))
    assert ink_shading(pip_card()) == NO_SHADING
    assert ink_shading(np.full((300, 200, 3), 235, np.uint8)) == NO_SHADING


def shading_deck(shaded: bool = True) -> tuple[PhotoDeck, dict[str, np.ndarray]]:
    """A deck whose striped and open cards have nearly the same embedding (what the features
    network sees of blurred stripes), and a far-off solid one; its views."""
    fills = {"striped": "striped", "open": "open", "far": "solid"}
    crops = {label: [set_card(fill, light=light) for light in (WARM, (1.0, 1.0, 1.0)) * 2]
             for label, fill in fills.items()}
    # not shaded: a deck enrolled before the shapes' shadings were stored
    return twin_deck(crops, seed=5, columns=None if shaded else SHADE_COLUMN)


def test_a_striped_card_nearer_an_open_one_in_the_features_is_named_striped_by_its_shading() -> None:
    deck, views = shading_deck()
    embedding = nearer_to(views, "open", "striped")
    assert deck.match(embedding, min_raw=0.0, min_gap=0.0)[0].label == "open"  # no layouts given
    striped = ink_layouts([set_card("striped", shift=3, blur=3)])
    assert deck.match(embedding, min_raw=0.0, layouts=striped)[0].label == "striped"
    empty = ink_layouts([set_card("open", light=WARM, shift=3)])
    assert deck.match(embedding, min_raw=0.0, layouts=empty)[0].label == "open"


def test_a_deck_enrolled_before_the_shadings_names_as_before() -> None:
    old, views = shading_deck(shaded=False)
    embedding = nearer_to(views, "open", "striped")
    striped = ink_layouts([set_card("striped", shift=3)])
    plain = old.match(embedding, min_raw=0.0, layouts=striped[:, :SHADE_COLUMN])[0]
    looked = old.match(embedding, min_raw=0.0, layouts=striped)[0]
    assert looked.nearest == plain.nearest == "open" and looked.similarity == plain.similarity


def test_cards_without_shapes_name_as_without_the_shading() -> None:
    deck, views = shading_deck()
    embedding = nearer_to(views, "open", "striped")
    pips = ink_layouts([pip_card()])
    assert pips[0, SHADE_COLUMN] == NO_SHADING
    plain = deck.match(embedding, min_raw=0.0, layouts=pips[:, :SHADE_COLUMN])[0]
    looked = deck.match(embedding, min_raw=0.0, layouts=pips)[0]
    assert looked.similarity == plain.similarity and looked.nearest == plain.nearest
