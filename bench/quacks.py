"""How many Grey Duck Quacks a phone must be told, before and after inferring them.

Why this module exists: a Quack leaves nothing on the table, so without buttons every one
was entered on the phone. rules/grey_quacks.py infers those that follow from who plays next;
this benchmark plays bot matches and counts the Quacks, and those still to be entered.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ducktable.rules.core import Event, simulate
from ducktable.rules.grey_quacks import entries_needed
from ducktable.rules.registry import make_bot, make_game

NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve")


@dataclass(frozen=True)
class QuackCount:
    seed: int
    events: int
    quacks: int
    to_enter: int


def count_match(seed: int, players: int = 4, bot: str = "greedy") -> QuackCount:
    """One whole bot match (12 hands, GREY-S2): its events, Quacks and Quacks left to enter."""
    game = make_game("grey")
    state = game.new_state(list(NAMES[:players]), observer=False)
    rng = random.Random(seed)
    bots = [make_bot("grey", bot, random.Random(seed * 10 + i)) for i in range(players)]
    log: list[Event] = []
    simulate(state, bots, rng, on_event=lambda _, event: log.append(event))
    quacks, to_enter = entries_needed(game.new_state(list(NAMES[:players]), observer=False), log)
    return QuackCount(seed, len(log), quacks, to_enter)
