"""Sitting Ducks bot games: invariants over thousands of seeded matches, observer mode agreeing
with full information, replay, JSON round trips, legal_events agreeing with check, and the bots.

Invariants (SIT-C1, SIT-T2, SIT-T3, SIT-W1): every physical card is somewhere exactly once;
the line never holds more than six cards and is full whenever the pond can fill it; every game
ends with a winner; a player without ducks never wins, except the documented shared win when a
single Two at One Blow takes the last ducks of the last two players.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from ducktable.rules import Bot, Event, RandomBot, make_game, replay, simulate
from ducktable.rules.sitting import (
    _CANDIDATES,
    ACTIONS,
    BOTTOMS_UP_CARD,
    DUCKS_PER_COLOUR,
    LINE_LENGTH,
    Gallery,
    GreedyBot,
    SittingDucksState,
    Spot,
    duck_label,
)

from tests.sizes import reduced_or_full

GAMES = 1200  # end-of-game invariants
EVERY_EVENT_GAMES = 120  # invariants after every single event
OBSERVER_GAMES = 40
REPLAY_GAMES = 60


def bots_for(seed: int, n: int) -> list[Bot]:
    """Mostly random players; every third seed seats one greedy bot."""
    return [GreedyBot(random.Random(seed * 11 + i)) if seed % 3 == 0 and i == seed % n
            else RandomBot(random.Random(seed * 11 + i)) for i in range(n)]


def options_for(seed: int) -> dict[str, Any]:
    if seed % 7 == 3:  # a small custom mix: the deck runs out and is reshuffled often
        return {"action_mix": {"aim": 8, "fire": 6, "double-barrel": 2, "duck-march": 3,
                               "cover": 3, "bottoms-up": 2, "two-at-one-blow": 2,
                               "move-left": 1, "move-right": 1}}
    if seed % 7 == 5:
        return {"colours": "pink,purple,yellow"}
    return {}


def new_state(seed: int) -> SittingDucksState:
    options = options_for(seed)
    n = 3 if "colours" in options else 3 + seed % 4
    state = make_game("sitting", options).new_state([f"P{i}" for i in range(n)])
    assert isinstance(state, SittingDucksState)
    return state


def all_cards(state: SittingDucksState) -> Counter[str]:
    """Every duck, water and action card wherever it is (full information)."""
    total: Counter[str] = Counter()
    assert state.pond_order is not None or state.pond_needs_shuffle
    total.update(state.pond_counts if state.pond_order is None else state.pond_order)
    for spot in state.gallery.spots:
        total.update(spot.cards())
        if spot.bottoms_up is not None:
            total[BOTTOMS_UP_CARD] += 1
    for seat, colour in enumerate(state.colours):
        total[duck_label(colour)] += 1 + state.shot[seat]  # in front of its player
    for colour in set(c.attrs["colour"] for c in state.game.deck.cards
                      if c.attrs["kind"] == "duck") - set(state.colours):
        total[duck_label(colour)] += DUCKS_PER_COLOUR  # back in the box
    assert state.hands is not None
    for hand in state.hands:
        total.update(hand)
    total.update(state.deck_order or [])
    total.update(state.discard)
    return +total


def expected_cards(state: SittingDucksState) -> Counter[str]:
    return Counter({c.label: c.count for c in state.game.deck.cards
                    if c.attrs["kind"] in ("duck", "water", "action") and c.count})


def check_invariants(state: SittingDucksState, event: Event | None = None) -> None:
    where = f"after {event}" if event else "at the end"
    assert all_cards(state) == expected_cards(state), f"cards lost or doubled {where}"
    spots = state.gallery.spots
    assert len(spots) <= LINE_LENGTH, f"line over six {where}"
    assert len(state.gallery.targets) <= LINE_LENGTH
    assert all(1 <= p <= LINE_LENGTH for p in state.gallery.targets)
    if state.to_move() is not None:
        assert len(spots) == LINE_LENGTH or state.pond_size == 0, f"line not refilled {where}"
        assert all(size == 3 for size in state.hand_sizes), f"hand not refilled {where}"
    assert state.deck_size == len(state.deck_order or [])
    assert state.pond_size == sum(state.pond_counts.values())
    assert sum(state.hand_sizes) == sum(len(h) for h in state.hands or [])
    for spot in spots:
        assert spot.covered is None or spot.card.startswith("duck-")
        assert not (spot.covered or "").startswith("water")


def play(seed: int, *, every_event: bool = False) -> SittingDucksState:
    state = new_state(seed)
    hook = (lambda s, e: check_invariants(s, e)) if every_event else None
    simulate(state, bots_for(seed, state.num_players), random.Random(seed), on_event=hook)
    return state


def shared_knockout(state: SittingDucksState) -> bool:
    """The documented SIT-W1 tie: one Two at One Blow took the last ducks of the last two."""
    last = state.history[-1]
    return (last.type == "two_at_one_blow" and len(state.winners()) == 2
            and all(state.ducks_left(s) == 0 for s in range(state.num_players)))


def check_result(state: SittingDucksState, seed: int) -> None:
    assert state.is_over(), seed
    winners = state.winners()
    assert winners, f"seed {seed}: no winner"
    alive = [s for s in range(state.num_players) if state.ducks_left(s) > 0]
    if shared_knockout(state):
        assert alive == []
    else:  # SIT-T3 / SIT-W1: exactly the one player with ducks left wins
        assert winners == alive and len(winners) == 1, seed


@reduced_or_full(GAMES // 4, GAMES)
def test_SIT_W1_thousands_of_bot_games_end_with_a_rightful_winner(size):
    wins: Counter[int] = Counter()
    events = shared = 0
    for seed in range(size):
        state = play(seed)
        check_result(state, seed)
        check_invariants(state)
        wins.update(state.winners())
        events += len(state.history)
        shared += shared_knockout(state)
    assert len(wins) >= 3  # every seat number 0..2 wins some games
    print(f"\n{size} games, {events} events, {shared} shared wins (double knock-out)")


@pytest.mark.parametrize("chunk", range(3))
def test_SIT_C1_every_card_accounted_for_and_line_never_over_six_after_every_event(chunk):
    size = EVERY_EVENT_GAMES // 3
    for seed in range(10_000 + chunk * size, 10_000 + (chunk + 1) * size):
        state = play(seed, every_event=True)
        check_result(state, seed)


def test_SIT_T3_eliminated_players_keep_taking_turns():
    turns_after_elimination = 0
    for seed in range(20_000, 20_060):
        state = new_state(seed)
        rng, bots = random.Random(seed), bots_for(seed, state.num_players)
        out: set[int] = set()
        while not state.is_over():
            if state.needs_chance():
                state.apply_or_raise(state.chance_event(rng))
                continue
            seat = state.to_move()
            assert seat is not None
            turns_after_elimination += seat in out
            state.apply_or_raise(bots[seat].choose(state, seat))
            out = {i for i in range(state.num_players) if state.ducks_left(i) == 0}
        assert not set(state.winners()) & out or shared_knockout(state)
    assert turns_after_elimination > 100


def test_observer_fed_public_events_sees_the_same_views_and_winner():
    for seed in range(30_000, 30_000 + OBSERVER_GAMES):
        state = play(seed)
        game = state.game
        full = game.new_state(state.players)
        observer = game.new_state(state.players, observer=True)
        for event in state.history:
            public = game.public_event(event)
            assert "order" not in public.data  # hidden orders and drawn cards are stripped
            assert event.type != "draw" or "card" not in public.data
            full.apply_or_raise(event)
            verdict = observer.apply(public)
            assert verdict.ok, (seed, event, verdict)
            assert observer.public_view() == full.public_view(), (seed, event)
        assert observer.winners() == state.winners() and observer.scores() == state.scores()


def test_replay_reproduces_the_state():
    for seed in range(40_000, 40_000 + REPLAY_GAMES):
        state = play(seed)
        again = replay(state.game, state.players, state.history)
        assert isinstance(again, SittingDucksState)
        assert again.public_view() == state.public_view()
        assert again.hands == state.hands and again.deck_order == state.deck_order
        assert again.pond_order == state.pond_order and again.discard == state.discard
        assert again.winners() == state.winners()
        half = replay(state.game, state.players, state.history[: len(state.history) // 2])
        assert not half.is_over() and half.history == state.history[: len(state.history) // 2]


def test_events_round_trip_through_json():
    for seed in range(50_000, 50_020):
        state = play(seed)
        back = [Event.from_json(e.dumps()) for e in state.history]
        assert [e.to_json() for e in back] == [e.to_json() for e in state.history]
        assert back == state.history
        again = replay(state.game, state.players, back)
        assert again.public_view() == state.public_view()


def test_same_seeds_give_the_same_game():
    a, b = play(60_001), play(60_001)
    assert [e.dumps() for e in a.history] == [e.dumps() for e in b.history]


def candidates(state: SittingDucksState, seat: int) -> list[Event]:
    out = [Event(info.etype, seat, dict(data)) for info in ACTIONS if info.action != "duck-shuffle"
           for data in _CANDIDATES[info.action]]
    out += [Event("discard", seat, {"action": info.etype}) for info in ACTIONS]
    return out


def test_legal_events_agree_with_check():
    checked = 0
    for seed in range(70_000, 70_015):
        state = new_state(seed)
        rng = random.Random(seed)
        bots = bots_for(seed, state.num_players)
        while not state.is_over():
            if state.needs_chance():
                state.apply_or_raise(state.chance_event(rng))
                continue
            seat = state.to_move()
            assert seat is not None
            legal = state.legal_events(seat)
            assert legal and all(state.check(e).ok for e in legal)
            listed = [(e.type, e.data) for e in legal]
            for event in candidates(state, seat):
                assert state.check(event).ok == ((event.type, event.data) in listed), event
                checked += 1
            others = [s for s in range(state.num_players) if s != seat]
            assert all(state.legal_events(s) == [] for s in others)
            state.apply_or_raise(bots[seat].choose(state, seat))
    assert checked > 5_000


def test_an_observer_can_sample_chance_and_play_on_public_information():
    for seed in range(80_000, 80_002):
        game = make_game("sitting")
        state = game.new_state(["A", "B", "C"], observer=True)
        simulate(state, [RandomBot(random.Random(seed + i)) for i in range(3)],
                 random.Random(seed))
        assert state.is_over() and state.winners()
        assert state.hands is None and state.pond_order is None and state.deck_order is None


# ---- the greedy bot ---------------------------------------------------------------------------


def test_greedy_bot_beats_random_bots():
    greedy_wins = games = 0
    for seed in range(90_000, 90_150):
        state = make_game("sitting").new_state(["A", "B", "C"])
        seat = seed % 3
        bots: list[Bot] = [RandomBot(random.Random(seed * 3 + i)) for i in range(3)]
        bots[seat] = GreedyBot(random.Random(seed))
        simulate(state, bots, random.Random(seed))
        games += 1
        greedy_wins += seat in state.winners()
    print(f"\ngreedy bot won {greedy_wins} of {games} three-player games against random bots")
    assert greedy_wins > games * 0.6  # a random seat would win about a third


def greedy_table(hand: list[str], line: list[str], targets: list[int]) -> SittingDucksState:
    """Seat to move holds ``hand``; ``line`` names cards as "own", "other" or "water"."""
    mix = {a: 4 for a in ("aim", "fire", "bottoms-up", "cover")}
    state = make_game("sitting", {"action_mix": mix}).new_state(["A", "B", "C"])
    assert isinstance(state, SittingDucksState)
    rng = random.Random(0)
    while state.needs_chance():
        state.apply_or_raise(state.chance_event(rng))
    seat = state.to_move()
    assert seat is not None and state.hands is not None
    names = {"own": duck_label(state.colours[seat]), "water": "water",
             "other": duck_label(state.colours[(seat + 1) % 3])}
    # Set directly: a chosen hand and line.
    state.hands[seat] = [f"action-{c}" for c in hand]
    state.gallery = Gallery([Spot(names[c]) for c in line], targets, state.colours)
    return state


def greedy_choice(state: SittingDucksState) -> tuple[str, Any]:
    seat = state.to_move()
    assert seat is not None
    choice = GreedyBot(random.Random(0)).choose(state, seat)
    return choice.type, choice.data


def test_greedy_bot_shoots_others_rather_than_its_own():
    line = ["own", "other", "water", "own", "other", "water"]
    state = greedy_table(["fire", "aim", "aim"], line, [1, 2])
    assert greedy_choice(state) == ("fire", {"position": 2})


def test_greedy_bot_protects_its_own_targeted_duck():
    line = ["other", "own", "water", "other", "water", "water"]
    state = greedy_table(["bottoms-up", "aim", "aim"], line, [2])
    assert greedy_choice(state) == ("bottoms_up", {"position": 2})
