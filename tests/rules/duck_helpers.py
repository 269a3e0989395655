"""Builders for hand-made DUCK positions used by the DUCK tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ducktable.rules import Event, make_game
from ducktable.rules.duck import DuckState

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve"]


def new_match(players: int = 3, **options: object) -> DuckState:
    state = make_game("duck", dict(options)).new_state(NAMES[:players])
    assert isinstance(state, DuckState)
    return state


def deal(
    state: DuckState,
    hands: Sequence[Sequence[str]],
    face_up: str | Sequence[str | None] = "red-5",
    pile_top: Sequence[str] = (),
) -> Event:
    """A full-information deal event giving ``hands``; the draw pile starts with ``pile_top``."""
    n = state.num_players
    if isinstance(face_up, str):
        ups: list[str | None] = [None] * n
        ups[state.dealer] = face_up
    else:
        ups = list(face_up)
    rest = state._pool()
    for h in hands:
        rest.subtract(h)
    rest.subtract(c for c in ups if c is not None)
    rest.subtract(pile_top)
    assert not -rest, f"test deal uses cards that are not in the pool: {-rest}"
    pile = list(pile_top) + sorted((+rest).elements())
    return Event("deal", None, {"face_up": ups, "hands": [list(h) for h in hands],
                                "draw_pile": pile})


def hands_of(state: DuckState) -> list[list[str]]:
    return [sorted(s.hand.elements()) for s in state.seats]


def reveal(state: DuckState) -> Event:
    return Event("reveal", None, {"hands": hands_of(state)})


def counts(cards: Sequence[str]) -> Counter[str]:
    return Counter(cards)
