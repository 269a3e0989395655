"""Builders for hand-made Grey Duck positions used by the GREY tests.

Seats follow the rulebook's examples: Erin (0), Connor (1), Amy (2), Matt (3), Sam (4); play
passes 0 -> 1 -> 2 -> 3 (-> 4) -> 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ducktable.rules import Event, Verdict, make_game
from ducktable.rules.grey import DECK_COUNTS, GreedyGreyBot, GreyDuckState

NAMES = ["Erin", "Connor", "Amy", "Matt", "Sam"]
ERIN, CONNOR, AMY, MATT, SAM = range(5)


def new_match(players: int = 4, *, observer: bool = False, **options: Any) -> GreyDuckState:
    state = make_game("grey", dict(options)).new_state(NAMES[:players], observer=observer)
    assert isinstance(state, GreyDuckState)
    return state


def dealt(fixed: Mapping[int, Sequence[str]], players: int = 4, **options: Any) -> GreyDuckState:
    """A match whose first hand gives the ``fixed`` cards to those seats (the rest filled in)."""
    state = new_match(players, **options)
    state.apply_or_raise(state.arranged_deal(fixed))
    return state


def y(*ranks: str | int) -> list[str]:
    return [f"yellow-{r}" for r in ranks]


def g(*ranks: str | int) -> list[str]:
    return [f"grey-{r}" for r in ranks]


def play(state: GreyDuckState, seat: int, cards: Sequence[str], ts: int | None = None) -> Verdict:
    return state.apply_or_raise(Event("play", seat, {"cards": list(cards)}, ts))


def quack(state: GreyDuckState, seat: int, ts: int | None = None) -> Verdict:
    return state.apply_or_raise(Event("quack", seat, ts=ts))


def grey(state: GreyDuckState, seat: int, card: str, ts: int | None = None) -> Verdict:
    """Apply a grey race event; returns the verdict whether it won or not."""
    return state.apply(Event("grey", seat, {"card": card}, ts))


def fingerprint(state: GreyDuckState) -> tuple[Any, ...]:
    """Everything an illegal event must leave untouched."""
    hands = [dict(h) for h in state.hands] if state.hands is not None else None
    return (state.public_view(), hands, len(state.history), state.closure,
            state._pending is None)


def all_cards(state: GreyDuckState) -> Counter[str]:
    """Every card wherever it is (full information): hands, laid this hand, set aside, in transit."""
    assert state.hands is not None
    total: Counter[str] = Counter(state.set_aside)
    for hand in state.hands:
        total.update(hand)
    total.update(state.played)
    swap = state.swap
    if swap is not None and swap.step in ("return", "request") and swap.passed is not None:
        total[swap.passed] += 1
    return total


def conserved(state: GreyDuckState) -> bool:
    return all_cards(state) == DECK_COUNTS


def finish_hand(state: GreyDuckState) -> None:
    """Let greedy bots play the current hand to its end (no races: one event at a time)."""
    bot = GreedyGreyBot()
    hands = len(state.results)
    while len(state.results) == hands:
        seat = state.to_move()
        assert seat is not None, state.describe_next()
        state.apply_or_raise(bot.choose(state, seat))
