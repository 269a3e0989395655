"""The photo deck's second look: two cards of one design that differ in a pip are told apart by
where their ink is, and a crop whose layout says the runner-up is answered unknown."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from ducktable.rules.decks import UNKNOWN
from ducktable.vision.classify import Classification, PhotoDecks
from ducktable.vision.features import (
    LOWEST_RAW,
    MIN_RAW,
    SECOND_LOOK_GAP,
    PhotoDeck,
    ink_layout,
    ink_layouts,
)

from .look_decks import nearer_to

PIPS_6 = [(60, 70), (140, 70), (60, 150), (140, 150), (60, 230), (140, 230)]
PIPS_7 = [*PIPS_6, (100, 110)]


def pip_card(pips: list[tuple[int, int]], light: float = 1.0, shift: int = 0) -> np.ndarray:
    """A white card (200 x 300) with red pips, under ``light``, cut ``shift`` px off."""
    card = np.full((300, 200, 3), 235, np.uint8)
    for x, y in pips:
        cv2.circle(card, (x, y), 16, (40, 40, 200), -1)
    card = np.clip(card.astype(np.float32) * light, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(card[shift:300 - shift // 2, shift // 2:200 - shift])


def test_a_seven_is_laid_out_closer_to_a_seven_than_to_a_six_in_another_light() -> None:
    six, seven = ink_layout(pip_card(PIPS_6)), ink_layout(pip_card(PIPS_7))
    photo = ink_layout(pip_card(PIPS_7, light=0.6, shift=4))
    assert float(photo @ seven) > float(photo @ six) + 0.05
    assert abs(float(np.linalg.norm(photo)) - 1.0) < 1e-5


def twin_deck(layouts: bool, spread: float = 0.02) -> tuple[PhotoDeck, dict[str, np.ndarray]]:
    """A deck whose 6 and 7 have nearly the same embedding (what the features network sees of
    two cards of one design), and a far-off ace; and its views."""
    rng = np.random.default_rng(3)
    base = rng.normal(size=(3, 32)).astype(np.float32)
    base[1] = base[0] + spread * rng.normal(size=32).astype(np.float32)
    views = {label: base[i] + 0.01 * rng.normal(size=(4, 32)).astype(np.float32)
             for i, label in enumerate(("6", "7", "A"))}
    cards = {"6": PIPS_6, "7": PIPS_7, "A": [(100, 150)]}
    inks = {label: ink_layouts([pip_card(cards[label], light=0.9 + 0.05 * i) for i in range(4)])
            for label in views}
    return PhotoDeck.fit(views, inks if layouts else None), views


def test_a_six_taken_for_a_seven_by_a_hair_is_answered_unknown_when_its_layout_is_a_six() -> None:
    deck, views = twin_deck(layouts=True)
    embedding = nearer_to(views, "7", "6")
    without = deck.match(embedding, min_raw=0.0, min_gap=0.0)[0]
    assert without.nearest == "7" and without.gap < SECOND_LOOK_GAP
    assert without.label == "7"  # no layout given: the embedding alone names it
    six = ink_layouts([pip_card(PIPS_6, light=0.7, shift=3)])
    assert deck.match(embedding, min_raw=0.0, min_gap=0.0, layouts=six)[0].label == UNKNOWN
    seven = ink_layouts([pip_card(PIPS_7, light=0.7, shift=3)])
    assert deck.match(embedding, min_raw=0.0, min_gap=0.0, layouts=seven)[0].label == "7"


def test_a_deck_without_layouts_names_as_before_and_layouts_survive_saving(tmp_path: Path) -> None:
    old, views = twin_deck(layouts=False)
    embedding = nearer_to(views, "7", "6")
    six = ink_layouts([pip_card(PIPS_6)])
    assert old.match(embedding, min_raw=0.0, min_gap=0.0, layouts=six)[0].label == "7"
    deck, _ = twin_deck(layouts=True)
    deck.save(tmp_path / "deck.npz")
    again = PhotoDeck.read(tmp_path / "deck.npz")
    assert again.layouts is not None and np.allclose(again.layouts, deck.layouts)
    assert again.match(embedding, min_raw=0.0, min_gap=0.0, layouts=six)[0].label == UNKNOWN


class _Features:
    """The features network's stand-in: every crop embeds as ``embedding``."""

    def __init__(self, embedding: np.ndarray) -> None:
        self.embedding = embedding

    def embed(self, crops: list[np.ndarray]) -> np.ndarray:
        return np.repeat(self.embedding, len(crops), axis=0)


def test_the_live_naming_looks_again_at_a_near_tie_of_a_deck_enrolled_with_layouts() -> None:
    deck, views = twin_deck(layouts=True, spread=0.2)  # a gap the live thresholds name
    embedding = nearer_to(views, "7", "6")
    alone = deck.match(embedding)[0]
    assert alone.label == "7" and alone.gap < SECOND_LOOK_GAP  # the embedding alone names it
    found = [Classification(UNKNOWN, 0.0, np.zeros(64, np.float32))]
    six, seven = pip_card(PIPS_6, light=0.7, shift=3), pip_card(PIPS_7, light=0.7, shift=3)
    decks = PhotoDecks(_Features(embedding), {"cards": deck})
    assert decks.rename([six], found, None, ())[0].label == UNKNOWN
    assert decks.rename([seven], found, None, ())[0].label == "cards/7"


def deck_of_photos(spread: float) -> PhotoDeck:
    """Four cards, two photos each (and their twins), the photos of a card ``spread`` apart."""
    rng = np.random.default_rng(5)
    views = {}
    for label in "ABCD":
        card = rng.normal(size=64).astype(np.float32)
        photos = [card + spread * rng.normal(size=64).astype(np.float32) for _ in range(2)]
        views[label] = np.stack([*photos, *photos])
    return PhotoDeck.fit(views)


def test_a_deck_whose_photos_of_a_card_differ_gets_a_lower_raw_gate_never_below_the_floor(
        tmp_path: Path) -> None:
    sharp, dim = deck_of_photos(0.05), deck_of_photos(0.5)
    assert sharp.min_raw == MIN_RAW
    assert LOWEST_RAW <= dim.min_raw < MIN_RAW
    assert deck_of_photos(2.0).min_raw == LOWEST_RAW
    dim.save(tmp_path / "deck.npz")
    assert abs(PhotoDeck.read(tmp_path / "deck.npz").min_raw - dim.min_raw) < 1e-6

