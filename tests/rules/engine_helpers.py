"""Shared by the engine tests: ok/refused checks that a refusal leaves the state untouched,
and a driver for seeded bot games (invariants, an observer twin on public events alone)."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence

from ducktable.rules import Bot, Event, State

MAX_EVENTS = 20_000


def ok(state: State, event: Event) -> None:
    verdict = state.apply(event)
    assert verdict.ok, (event, verdict)


def state_copy(state: State) -> dict[str, object]:
    """A deep copy of everything the state holds except the (shared, immutable) game."""
    return copy.deepcopy({k: v for k, v in vars(state).items() if k != "game"})


def refused(state: State, event: Event, *, reason: str = "", rule: str = "") -> None:
    """The event is refused with that text/rule and the state does not change at all."""
    before = state_copy(state)
    verdict = state.apply(event)
    assert not verdict.ok, (event, verdict)
    assert reason in verdict.reason, verdict
    if rule:
        assert rule in verdict.rules, verdict
    assert state_copy(state) == before


def mixed_bots(seed: int, n: int, greedy: Callable[[random.Random], Bot], random_bot: Callable[[random.Random], Bot],
               spread: int) -> list[Bot]:
    """Greedy and random bots alternating by seat, each with its own seeded generator."""
    return [greedy(random.Random(seed * spread + i)) if (seed + i) % 2 == 0
            else random_bot(random.Random(seed * spread + i)) for i in range(n)]


def play_to_end(state: State, bots: Sequence[Bot], seed: int, *, check: Callable[[State], None],
                every_event: bool = False, twin: bool = False, view_every: int = 10,
                stamp: Callable[[Event, int], Event] | None = None) -> State:
    """Play ``state`` to its end. ``check`` runs at the end (and after every event when
    ``every_event``); ``twin`` feeds each event's public form to an observer whose public
    view must equal the full-information one (every ``view_every`` events and at the end);
    ``stamp`` may rewrite each event before it is applied (e.g. to give it a timestamp)."""
    watcher = state.game.new_state(state.players, observer=True) if twin else None
    rng = random.Random(seed)
    for index in range(MAX_EVENTS):
        if state.is_over():
            break
        seat = state.to_move()
        event = state.chance_event(rng) if seat is None else bots[seat].choose(state, seat)
        if stamp is not None:
            event = stamp(event, index)
        state.apply_or_raise(event)
        if every_event:
            check(state)
        if watcher is not None:
            verdict = watcher.apply(state.game.public_event(event))
            assert verdict.ok, (seed, index, event, verdict)
            if index % view_every == 0:
                assert watcher.public_view() == state.public_view(), (seed, index)
    assert state.is_over(), f"seed {seed} did not end"
    check(state)
    if watcher is not None:
        assert watcher.public_view() == state.public_view()
        assert watcher.scores() == state.scores() and watcher.winners() == state.winners()
    return state
