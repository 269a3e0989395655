"""Every refusal of a well-formed event names the rule it rests on.

Bots play each game; at each position the events other seats could make, events from earlier
in the game, and out-of-range choices are checked, and every illegal verdict must cite at least
one rule ID (a referee's "no" without a rule cannot be looked up)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from ducktable.rules import Event, make_game
from ducktable.rules.core import RandomBot, State
from ducktable.rules.registry import game_class

GAMES = ("duck", "grey", "bruce", "ducky", "sitting")


def _next(state: State, bots: list[RandomBot], rng: random.Random) -> Event:
    if state.needs_chance():
        return state.chance_event(rng)
    seat = state.to_move()
    assert seat is not None
    return bots[seat].choose(state, seat)


def _out_of_range(state: State, pool: list[Event]) -> list[Event]:
    """Each choice field of an event seen so far given a value outside its choices (e.g.
    Bruce's declare of 4 or a roll of 0), the other fields as they were."""
    samples = {e.type: e for e in pool}
    found = []
    for spec in state.game.event_specs:
        sample = samples.get(spec.type)
        for f in spec.fields:
            if sample is not None and f.kind == "choice" and all(
                    isinstance(c, int) for c in f.choices):
                for bad in (max(f.choices) + 1, min(f.choices) - 1, 0):
                    if bad not in f.choices:
                        found.append(sample.with_data(**{f.name: bad}))
    return found


@pytest.mark.parametrize("name", GAMES)
def test_every_refusal_names_a_rule(name: str) -> None:
    cls = game_class(name)
    players = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"][:min(4, cls.max_players)]
    missing: dict[tuple[str, str], str] = {}
    for seed in range(3):
        rng = random.Random(seed)
        state = make_game(name).new_state(players)
        bots = [RandomBot(random.Random(seed * 10 + i)) for i in range(len(players))]
        pool: list[Event] = []
        for step in range(600):
            if state.is_over():
                break
            if step % 3 == 0:
                candidates = list(pool[-25:])
                for seat in range(len(players)):
                    candidates += state.legal_events(seat)[:4]
                candidates += [Event(e.type, s, e.data) for e in list(candidates)
                               for s in range(len(players))]
                candidates += _out_of_range(state, pool)
                for event in candidates:
                    verdict = state.check(event)
                    if not verdict.ok and not verdict.rules:
                        missing.setdefault((event.type, verdict.reason[:60]), event.dumps())
            event = _next(state, bots, rng)
            state.apply_or_raise(event)
            pool.append(event)
        over = state.clone()
        for event in pool[-30:]:
            verdict = over.check(event)
            if not verdict.ok and not verdict.rules:
                missing.setdefault((event.type, verdict.reason[:60]), event.dumps())
    assert not missing, "\n".join(f"{k}: {v[:150]}" for k, v in list(missing.items())[:30])


def _play_until(name: str, wanted: Callable[[Any], Any], seed: int = 1,
                players: int = 3) -> State:
    rng = random.Random(seed)
    state = make_game(name).new_state(["Ann", "Ben", "Cat", "Dan"][:players])
    bots = [RandomBot(random.Random(seed + i)) for i in range(players)]
    for _ in range(5000):
        if wanted(state):
            return state
        state.apply_or_raise(_next(state, bots, rng))
    raise AssertionError("position not reached")


def test_duck_draw_or_play_after_the_round_ended_cites_the_round_end() -> None:
    state = _play_until("duck", lambda s: s.phase == "reveal")
    for event in (Event("draw", 0, {"pile": "deck"}), Event("play", 1, {"cards": ["red-1"]})):
        verdict = state.check(event)
        assert not verdict.ok and {"DUCK-A5", "DUCK-B1"} & set(verdict.rules), verdict


def test_bruce_stop_after_a_double_duck_cites_BRUCE_T3() -> None:
    # a turned card that ends the turn without Bruce is a double duck
    state = _play_until("bruce", lambda s: s.phase == "reveal" and s.history
                        and s.history[-1].type == "reveal"
                        and s.history[-1].data["card"] != "bruce")
    verdict = state.check(Event("stop", state.current))
    assert not verdict.ok and verdict.rules == ("BRUCE-T3",), verdict


def test_bruce_declare_of_4_and_roll_of_0_cite_BRUCE_T4() -> None:
    state = _play_until("bruce", lambda s: s.phase == "declare")
    other = (state.current + 1) % state.num_players
    verdict = state.check(Event("declare", state.current, {"opponent": other, "n": 4}))
    assert not verdict.ok and "BRUCE-T4" in verdict.rules
    state.apply_or_raise(Event("declare", state.current, {"opponent": other, "n": 1}))
    verdict = state.check(Event("roll", None, {"face": 0}))
    assert not verdict.ok and "BRUCE-T4" in verdict.rules
