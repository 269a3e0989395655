"""Card vocabularies of the five games, as data (ARCHITECTURE: "decks are data").

Every physical card the camera must know has one *label*, a short lower-case string such as
``yellow-5`` or ``lifebelt-7-red``. Events carry these labels, the vision classifier's class
list is built from them, and the renderer draws a card from its ``attrs``. Labels are unique
within a game; a game-qualified label (``duck/yellow-5``) is unique across games.

The counts follow RULES.md (the IDs are given beside each deck). Where a count is not
published (Sitting Ducks' action mix, Ducky Ducky's card faces) the numbers are defaults that
a game option may replace.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

BACK = "back"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class CardType:
    """One distinct card face: its label, how many copies a deck has, and its attributes."""

    label: str
    count: int
    attrs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Deck:
    """A game's card vocabulary (a manifest): every card face and its number of copies."""

    game: str
    title: str
    cards: tuple[CardType, ...]

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(c.label for c in self.cards)

    def card(self, label: str) -> CardType:
        for c in self.cards:
            if c.label == label:
                return c
        raise KeyError(f"{label!r} is not a card of {self.title}")

    def __contains__(self, label: object) -> bool:
        return any(c.label == label for c in self.cards)

    def full(self, kinds: Iterable[str] | None = None) -> list[str]:
        """Every physical copy, as labels (optionally only cards whose ``kind`` attr matches)."""
        wanted = set(kinds) if kinds is not None else None
        out: list[str] = []
        for c in self.cards:
            if wanted is None or c.attrs.get("kind") in wanted:
                out.extend([c.label] * c.count)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "title": self.title,
            "cards": [{"label": c.label, "count": c.count, **dict(c.attrs)} for c in self.cards],
        }


# ---- DUCK (DUCK-C1..C3) ----------------------------------------------------------------------
DUCK_COLOURS = ("yellow", "blue", "red")


def _duck_deck() -> Deck:
    cards = [
        CardType(f"{colour}-{value}", 1 if value in (0, 8) else 3,
                 {"kind": "duck", "colour": colour, "value": value})
        for colour in DUCK_COLOURS
        for value in range(9)
    ]
    cards += [
        CardType(f"lifebelt-{value}-{side}", 1 if side == "green" else 0,
                 {"kind": "lifebelt", "value": value, "side": side})
        for value in range(6, 11)
        for side in ("green", "red")
    ]
    cards.append(CardType("towel", 5, {"kind": "towel"}))
    return Deck("duck", "DUCK", tuple(cards))


# ---- Duck Duck Bruce (BRUCE-C1, C2) ----------------------------------------------------------
BRUCE_SUITS = ("red", "orange", "yellow", "lime", "green", "teal", "blue", "purple", "pink", "brown")
BRUCE_VALUE_COUNTS = {1: 2, 2: 2, 3: 1, 4: 1}


def _bruce_deck() -> Deck:
    cards = [
        CardType(f"{suit}-{value}", n, {"kind": "duck", "suit": suit, "value": value})
        for suit in BRUCE_SUITS
        for value, n in BRUCE_VALUE_COUNTS.items()
    ]
    cards.append(CardType("bruce", 6, {"kind": "bruce"}))
    return Deck("bruce", "Duck Duck Bruce", tuple(cards))


# ---- Grey Duck (GREY-C1) ---------------------------------------------------------------------
GREY_RANKS = ("1", "2", "3", "4", "5", "6", "7", "8", "D")
GREY_YELLOW_COUNTS = dict(zip(GREY_RANKS, (9, 8, 7, 6, 5, 4, 3, 2, 1), strict=True))


def _grey_deck() -> Deck:
    cards = [
        CardType(f"yellow-{rank}", GREY_YELLOW_COUNTS[rank],
                 {"kind": "duck", "colour": "yellow", "rank": rank})
        for rank in GREY_RANKS
    ]
    cards += [
        CardType(f"grey-{rank}", 1, {"kind": "duck", "colour": "grey", "rank": rank})
        for rank in GREY_RANKS
    ]
    return Deck("grey", "Grey Duck", tuple(cards))


# ---- Sitting Ducks (SIT-C1) ------------------------------------------------------------------
SIT_COLOURS = ("blue", "green", "orange", "yellow", "purple", "pink")
SIT_ACTIONS = (
    "aim", "fire", "double-barrel", "billy-the-duck", "ricochet", "two-at-one-blow",
    "move-left", "move-right", "duck-march", "slow-down", "no-time", "turbo-duck",
    "duck-shuffle", "duck-dance", "cover", "bottoms-up",
)
"""Action card types (SIT-A1..A15; A7 has two faces, Move Left and Move Right)."""

SIT_DEFAULT_ACTION_MIX = {
    "aim": 10, "fire": 12, "double-barrel": 2, "billy-the-duck": 2, "ricochet": 2,
    "two-at-one-blow": 2, "move-left": 3, "move-right": 3, "duck-march": 5, "slow-down": 2,
    "no-time": 2, "turbo-duck": 1, "duck-shuffle": 1, "duck-dance": 1, "cover": 2,
    "bottoms-up": 2,
}
"""52 action cards. The publisher does not give the per-type counts; this mix is a default."""


def _sitting_deck(action_mix: Mapping[str, int] | None = None) -> Deck:
    mix = dict(action_mix or SIT_DEFAULT_ACTION_MIX)
    cards = [CardType(f"duck-{c}", 6, {"kind": "duck", "colour": c}) for c in SIT_COLOURS]
    cards.append(CardType("water", 5, {"kind": "water"}))
    cards += [CardType(f"sky-{p}", 1, {"kind": "sky", "position": p}) for p in range(1, 7)]
    cards.append(CardType("target", 6, {"kind": "target"}))
    cards += [CardType(f"action-{a}", mix.get(a, 0), {"kind": "action", "action": a})
              for a in SIT_ACTIONS]
    return Deck("sitting", "Sitting Ducks", tuple(cards))


# ---- Ducky Ducky (DUCKY-C2, C3) ---------------------------------------------------------------
DUCKY_COLOURS = ("yellow", "green", "blue", "pink")


def _ducky_deck() -> Deck:
    """24 double-sided cards: 4 same-colour pairs x 3 and 6 mixed pairs x 2 (a default)."""
    cards: list[CardType] = []
    for i, a in enumerate(DUCKY_COLOURS):
        for b in DUCKY_COLOURS[i:]:
            n = 3 if a == b else 2
            cards.append(CardType(f"card-{a}-{b}", n, {"kind": "card", "slots": (a, b)}))
    cards.append(CardType("gift", 0, {"kind": "gift"}))  # the back side of every card
    cards += [CardType(f"duck-{c}", 4, {"kind": "duck-token", "colour": c}) for c in DUCKY_COLOURS]
    cards.append(CardType("pad-white", 5, {"kind": "pad", "colour": "white"}))
    cards += [CardType(f"pad-{c}", 4, {"kind": "pad", "colour": c}) for c in DUCKY_COLOURS]
    return Deck("ducky", "Ducky Ducky", tuple(cards))


# ---- A standard 52-card deck, for testing enrolment on public photos of real cards -----------
STANDARD_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
STANDARD_SUITS = ("clubs", "diamonds", "hearts", "spades")


def _standard_deck() -> Deck:
    cards = tuple(
        CardType(f"{rank}-{suit}", 1, {"kind": "playing", "rank": rank, "suit": suit})
        for suit in STANDARD_SUITS
        for rank in STANDARD_RANKS
    )
    return Deck("standard52", "Standard 52-card deck", cards)


DECKS: dict[str, Deck] = {
    d.game: d
    for d in (_duck_deck(), _bruce_deck(), _grey_deck(), _sitting_deck(), _ducky_deck(),
              _standard_deck())
}


def deck(game: str) -> Deck:
    try:
        return DECKS[game]
    except KeyError:
        raise KeyError(f"no deck called {game!r}; known decks: {sorted(DECKS)}") from None


def sitting_deck(action_mix: Mapping[str, int] | None = None) -> Deck:
    """Sitting Ducks' deck with a custom action mix (SIT-C1 says the mix is configuration)."""
    return _sitting_deck(action_mix)
