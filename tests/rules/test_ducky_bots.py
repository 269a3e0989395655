"""Ducky Ducky bot games: thousands of seeded matches with invariants, observer agreement,
replay and JSON round trips (DUCKY-C2, DUCKY-C3, DUCKY-T2, DUCKY-W1)."""

from __future__ import annotations

from collections import Counter

import pytest
from ducktable.rules import Bot, Event, RandomBot, make_game, replay
from ducktable.rules.ducky import CARD_COUNTS, GIFTS_TO_WIN, DuckyState, GreedyBot

from .engine_helpers import mixed_bots, play_to_end
from .test_ducky_board import small_layout
from .test_ducky_rules import ducks_by_colour

GAMES = 2000


def bots_for(seed: int, n: int) -> list[Bot]:
    return mixed_bots(seed, n, GreedyBot, RandomBot, spread=13)


def check_invariants(state: DuckyState) -> None:
    if state.phase == "setup":
        return
    layout = state.layout
    per_colour = layout.pads_per_colour
    # DUCKY-C2: every pad is in the river or is the spare; ducks are on pads, cards or falling.
    pads = Counter(state.pad_colour) + Counter([state.spare_colour])
    assert pads == Counter({"white": layout.white_pads, "yellow": per_colour, "green": per_colour,
                            "blue": per_colour, "pink": per_colour})
    assert ducks_by_colour(state) == Counter({c: per_colour for c in ("yellow", "green", "blue",
                                                                       "pink")})
    assert not any(d and c == "white" for c, d in zip(state.pad_colour, state.duck, strict=True))
    assert not (state.spare_duck and state.spare_colour == "white")
    # DUCKY-C3: six cards per player, in gifts, on top of a pile or beneath.
    for seat in range(state.num_players):
        tops = sum(card is not None for card in state.visible[seat])
        assert len(state.gifts[seat]) + tops + sum(state.covered_count[seat]) == GIFTS_TO_WIN
    assert not state._known_cards() - CARD_COUNTS
    # DUCKY-T1: one pawn per log.
    assert len(set(state.pawns)) == state.num_players
    assert state.scores() == [len(g) for g in state.gifts]


def play(seed: int, *, every_event: bool = False, observer: bool = False,
         twin: bool = False) -> DuckyState:
    """One seeded bot game. ``twin``: an observer fed each event's public form keeps pace,
    and its public view must equal the full-information one (checked every 3 events)."""
    small = seed % 10 == 9
    n = 2 if small else 2 + seed % 3
    options = {"first": seed % n, **({"layout": small_layout()} if small else {})}
    state = make_game("ducky", options).new_state([f"P{i}" for i in range(n)], observer=observer)
    assert isinstance(state, DuckyState)
    play_to_end(state, bots_for(seed, n), seed, check=check_invariants, every_event=every_event, twin=twin,
                view_every=3)
    return state


@pytest.mark.parametrize("seed", range(40))
def test_DUCKY_C2_ducks_pads_and_cards_conserved_after_every_event(seed):
    play(seed, every_event=True, observer=seed % 4 == 1)


def test_DUCKY_W1_thousands_of_bot_games_end_with_six_gifts_at_a_turn_end():
    turns = []
    shared = stuck = 0
    for seed in range(GAMES):
        state = play(seed, observer=seed % 2 == 1)
        assert not state.pending and state.phase == "over"
        winners = state.winners()
        gifts = [len(g) for g in state.gifts]
        if state.stuck:  # only the 2-pads-per-colour board gets stuck (see rules/ducky.py)
            assert state.layout.pads_per_colour == 2 and state.is_stuck()
            assert max(gifts) < GIFTS_TO_WIN
            assert winners == [s for s, g in enumerate(gifts) if g == max(gifts)]
            stuck += 1
            continue
        assert winners == [s for s, g in enumerate(gifts) if g >= GIFTS_TO_WIN]
        assert all(g == GIFTS_TO_WIN for s, g in enumerate(gifts) if s in winners)
        shared += len(winners) > 1
        turns.append(state.turns)
    assert min(turns) >= GIFTS_TO_WIN // 2  # 12 ducks need several turns even for a lucky seat
    assert 0 < shared < GAMES // 2
    assert 0 < stuck < GAMES // 10


def test_DUCKY_T2_observer_fed_public_events_agrees_with_full_information():
    for seed in range(400):
        play(seed, twin=True)


def test_DUCKY_S1_replay_and_json_round_trip_reproduce_every_game():
    for seed in range(200):
        state = play(seed)
        log = [Event.from_json(e.dumps()) for e in state.history]
        assert log == state.history
        again = replay(state.game, state.players, log)
        assert again.public_view() == state.public_view()
        assert again.covered == state.covered and again.gifts == state.gifts
