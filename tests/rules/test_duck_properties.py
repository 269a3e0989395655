"""DUCK bot games: invariants over many seeded matches (DUCK-C1, DUCK-C2, DUCK-F1, DUCK-E3)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from ducktable.rules import Bot, Event, RandomBot, make_game, replay, simulate
from ducktable.rules.duck import DUCK_CARDS, DuckState, GreedyBot, card_value

from tests.sizes import reduced_or_full

GAMES = 1000


def bots_for(seed: int, n: int) -> list[Bot]:
    return [GreedyBot(random.Random(seed * 7 + i)) if (seed + i) % 3 == 0
            else RandomBot(random.Random(seed * 7 + i)) for i in range(n)]


def all_cards(state: DuckState) -> Counter[str]:
    """Every duck card wherever it is: hands, piles, draw pile, towels."""
    total: Counter[str] = Counter(state.draw_pile)
    for seat in state.seats:
        total.update(seat.hand)
        total.update(seat.pile)
        total.update(seat.towel)
    return total


def play(seed: int, *, check_each_event: bool = False) -> DuckState:
    n = 3 + seed % 3
    game = make_game("duck", {"starting_face_up": "everyone"} if seed % 5 == 0 else {})
    state = game.new_state([f"P{i}" for i in range(n)])
    assert isinstance(state, DuckState)

    def conserve(s, _event: Event) -> None:
        if s.phase != "deal":
            assert all_cards(s) == DUCK_CARDS, f"seed {seed}: cards lost after {_event}"

    simulate(state, bots_for(seed, n), random.Random(seed),
             on_event=conserve if check_each_event else None)
    return state


@pytest.mark.parametrize("seed", range(40))
def test_DUCK_C1_all_69_cards_accounted_for_after_every_event(seed):
    play(seed, check_each_event=True)


@reduced_or_full(GAMES // 4, GAMES)
def test_DUCK_F1_many_bot_games_invariants_replay_and_observer_agree(size):
    for seed in range(size):
        state = play(seed)
        game = state.game
        # DUCK-C2: lifebelts 6..10 each given exactly once.
        belts = sorted(v for s in state.seats for v, _ in s.lifebelts)
        assert belts == [6, 7, 8, 9, 10], seed
        # DUCK-F1: the score is a recomputation from towels and lifebelts.
        for s, score in zip(state.seats, state.scores(), strict=True):
            towel = sum(card_value(c) for c in s.towel)
            belt = sum(v if side == "green" else -v for v, side in s.lifebelts)
            assert score == towel + belt
        # Round points add up to the final score.
        per_seat = [sum(r.points[i] for r in state.results) for i in range(state.num_players)]
        assert per_seat == state.scores()
        # DUCK-E3: towel cards never come back; at most one per seat per round, at most 5.
        assert all(len(s.towel) <= 5 for s in state.seats)
        if seed % 10 == 0:
            assert replay(game, state.players, state.history).scores() == state.scores()
            public = [game.public_event(e) for e in state.history]
            observer = replay(game, state.players, public, observer=True)
            assert observer.scores() == state.scores(), seed
            assert observer.winners() == state.winners()


def test_observer_views_match_full_information_at_every_step():
    for seed in range(30):
        state = play(seed)
        game = state.game
        observer = game.new_state(state.players, observer=True)
        full = game.new_state(state.players)
        for event in state.history:
            full.apply_or_raise(event)
            observer.apply_or_raise(game.public_event(event))
            fv, ov = full.public_view(), observer.public_view()
            for seat in fv["seats"] + ov["seats"]:
                seat.pop("known_in_hand")
            assert fv == ov


def test_events_round_trip_through_json():
    state = play(3)
    for event in state.history:
        again = Event.from_json(event.dumps())
        assert again.to_json() == event.to_json()
    again = replay(state.game, state.players, [Event.from_json(e.dumps()) for e in state.history])
    assert again.scores() == state.scores()
