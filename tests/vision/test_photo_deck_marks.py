"""The photo deck's pips look: a crop a little below the deck's raw gate is named by the index it
prints only where its pips are the card's. A dim webcam's own hearts fall below the gate its two
enrolled photos set; so do another printing's diamonds of the same rank, whose pips fill their
box otherwise."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
from ducktable.rules.decks import UNKNOWN
from ducktable.vision.card_index import Read
from ducktable.vision.features import (
    FILL_COLUMN,
    FILL_TOLERANCE,
    INDEX_BELOW_GATE,
    NO_FILL,
    DeckIndex,
    PhotoDeck,
    ink_fill,
    ink_layouts,
)

RED = (40, 40, 200)
PIPS = [(60, 70), (140, 70), (60, 150), (140, 150), (60, 230), (140, 230)]


def heart(card: np.ndarray, x: int, y: int, colour: tuple[int, int, int]) -> None:
    """A heart about 36 px wide: two lobes over a point."""
    for dx in (-9, 9):
        cv2.circle(card, (x + dx, y - 6), 10, colour, -1)
    cv2.fillConvexPoly(card, np.array([(x - 18, y - 3), (x + 18, y - 3), (x, y + 20)], np.int32), colour)


def diamond(card: np.ndarray, x: int, y: int, colour: tuple[int, int, int]) -> None:
    cv2.fillConvexPoly(card, np.array([(x, y - 20), (x + 15, y), (x, y + 20), (x - 15, y)], np.int32), colour)


def six(pip: str = "heart", light: float = 1.0, blur: int = 0, colour: tuple[int, int, int] = RED) -> np.ndarray:
    """A white card (200 x 300) printing six pips of one suit, under ``light``, blurred."""
    card = np.full((300, 200, 3), 235, np.uint8)
    for x, y in PIPS:
        (heart if pip == "heart" else diamond)(card, x, y, colour)
    card = np.clip(card.astype(np.float32) * light, 0, 255).astype(np.uint8)
    return cv2.blur(card, (blur, blur)) if blur else card


def test_hearts_fill_their_box_more_than_diamonds_in_any_light_and_a_picture_has_no_fill() -> None:
    hearts = [ink_fill(six("heart", light, blur)) for light, blur in ((1.0, 0), (0.6, 3))]
    diamonds = [ink_fill(six("diamond", light, blur)) for light, blur in ((1.0, 0), (0.6, 3))]
    assert min(hearts) > max(diamonds) + FILL_TOLERANCE
    assert ink_fill(np.full((300, 200, 3), 235, np.uint8)) == NO_FILL
    picture = np.full((300, 200, 3), 235, np.uint8)  # a court card's pieces: unlike shapes
    cv2.rectangle(picture, (40, 40), (80, 80), RED, -1)
    diamond(picture, 140, 150, RED)
    cv2.ellipse(picture, (100, 240), (30, 10), 30, 0, 360, RED, -1)
    assert ink_fill(picture) == NO_FILL


def below_the_gate() -> tuple[PhotoDeck, np.ndarray]:
    """A deck of a six and an ace of hearts enrolled from clean photos, and an embedding of the
    six less alike than the deck's gate by half the margin the pips may make up."""
    rng = np.random.default_rng(11)
    base = rng.normal(size=(2, 32)).astype(np.float32)
    views = {label: base[i] + 0.01 * rng.normal(size=(4, 32)).astype(np.float32)
             for i, label in enumerate(("6H", "AH"))}
    layouts = {"6H": ink_layouts([six(light=0.9 + 0.05 * i) for i in range(4)]),
               "AH": ink_layouts([np.full((300, 200, 3), 235, np.uint8)] * 4)}
    crop = (base[0] + 0.25 * rng.normal(size=32).astype(np.float32))[None, :]
    deck = PhotoDeck.fit(views, layouts)
    raw = float(np.max(deck.raw[deck.labels == "6H"] @ (crop[0] / np.linalg.norm(crop[0]))))
    deck = dataclasses.replace(deck, min_raw=raw + INDEX_BELOW_GATE / 2,
                               index=DeckIndex(0, {"6H": "6", "AH": "A"}))
    return deck, crop


def reads_six(i: int) -> list[Read]:
    return [Read("6", 0.97), Read("", 0.0)]


def test_a_six_below_the_gate_is_named_by_its_index_only_where_its_pips_are_hearts() -> None:
    deck, crop = below_the_gate()
    dim = ink_layouts([six(light=0.6, blur=3)])
    assert dim[0, FILL_COLUMN] != NO_FILL
    assert deck.match(crop, read_index=reads_six)[0].label == UNKNOWN  # no layout: the gate holds
    assert deck.match(crop, layouts=dim, read_index=reads_six)[0].label == "6H"
    diamonds = ink_layouts([six("diamond", light=0.6, blur=3)])
    assert deck.match(crop, layouts=diamonds, read_index=reads_six)[0].label == UNKNOWN
    black = ink_layouts([six(light=0.6, blur=3, colour=(30, 30, 30))])
    assert deck.match(crop, layouts=black, read_index=reads_six)[0].label == UNKNOWN
    far = dataclasses.replace(deck, min_raw=deck.min_raw + INDEX_BELOW_GATE)
    assert far.match(crop, layouts=dim, read_index=reads_six)[0].label == UNKNOWN


def test_a_deck_enrolled_before_the_fills_were_stored_keeps_its_gate() -> None:
    deck, crop = below_the_gate()
    assert deck.layouts is not None
    before = dataclasses.replace(deck, layouts=deck.layouts[:, :FILL_COLUMN])
    dim = ink_layouts([six(light=0.6, blur=3)])
    assert before.match(crop, layouts=dim, read_index=reads_six)[0].label == UNKNOWN
