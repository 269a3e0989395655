"""What the printed cards are: each deck's drawable face labels and each edition's ink colours.

Why this module exists: the camera side needs a few facts about the printed cards that the
card renderer (:mod:`ducktable.sim.render`) draws with - which faces a deck has (enrolment
reports the ones not photographed) and the colours of Ducky Ducky's duck tokens and Sitting
Ducks' cards (the board readers tell them apart by colour). They live here, once, and the
renderer draws with them.
"""

from __future__ import annotations

from ducktable.rules import decks

EDITIONS = ("reference", "alternate")
GAMES = ("duck", "bruce", "grey", "sitting", "ducky")
"""The five games; ``standard52`` can be drawn too (it is the deck used to test rejection)."""

DRAWABLE_DECKS = (*GAMES, "standard52")

BGR = tuple[int, int, int]

# Colour names used by the decks, per edition. The alternate printing uses other shades.
PALETTES: dict[str, dict[str, BGR]] = {
    "reference": {
        "yellow": (20, 205, 250), "blue": (200, 110, 25), "red": (40, 40, 215),
        "orange": (20, 130, 250), "lime": (40, 215, 160), "green": (60, 160, 30),
        "teal": (150, 150, 0), "purple": (150, 40, 120), "pink": (170, 110, 245),
        "brown": (30, 70, 130), "grey": (128, 128, 128), "white": (250, 250, 250),
        "black": (25, 25, 25), "sky": (235, 205, 150),
    },
    "alternate": {
        "yellow": (90, 230, 250), "blue": (230, 140, 60), "red": (60, 30, 175),
        "orange": (40, 160, 255), "lime": (70, 230, 150), "green": (80, 140, 0),
        "teal": (140, 170, 20), "purple": (170, 60, 130), "pink": (200, 140, 250),
        "brown": (50, 90, 150), "grey": (150, 150, 150), "white": (235, 240, 240),
        "black": (50, 35, 30), "sky": (170, 190, 250),
    },
}


def card_labels(game: str) -> list[str]:
    """Face labels that can be drawn for ``game``, in deck order.

    Ducky Ducky's pads and duck tokens are not cards, so only its card faces and ``gift`` are
    listed. Zero-count entries that still have a face (DUCK's red lifebelt sides) are kept.
    """
    deck = decks.deck(game)
    if game == "ducky":
        return [c.label for c in deck.cards if c.attrs.get("kind") in ("card", "gift")]
    return list(deck.labels)
