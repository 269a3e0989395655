"""Duck Duck Bruce bot games: thousands of seeded matches with invariants, observer agreement,
replay and JSON round trips (BRUCE-C1, BRUCE-C2, BRUCE-R2, BRUCE-G1)."""

from __future__ import annotations

from collections import Counter

import pytest
from ducktable.rules import Bot, Event, RandomBot, make_game, replay
from ducktable.rules.bruce import DECK_COUNTS, BruceState, GameEnd, GreedyBot

from tests.sizes import reduced_or_full

from .engine_helpers import mixed_bots, play_to_end
from .test_bruce_rules import highest_per_suit

GAMES = 2000
ENDS = ("points:77", "rounds:1", "rounds:2", "points:30", "minutes:4")


def bots_for(seed: int, n: int) -> list[Bot]:
    return mixed_bots(seed, n, GreedyBot, RandomBot, spread=11)


def cards_everywhere(state: BruceState) -> Counter[str]:
    """Every card of the round: still to draw, in the row, discarded or in a nest."""
    total: Counter[str] = Counter(state.row) + Counter(state.discard)
    for nest in state.nests:
        total.update(nest)
    if state.order is not None:
        total.update(state.order[state.drawn:])
        assert Counter(state.order[state.drawn:]) == +state.unseen
    else:
        total.update(state.unseen.elements())
    return total


def check_invariants(state: BruceState) -> None:
    if state.round_no == 0:
        return
    assert cards_everywhere(state) == DECK_COUNTS
    assert state.pile_size == sum(state.unseen.values())
    totals = [sum(r[i] for r in state.round_scores) for i in range(state.num_players)]
    assert state.scores() == totals
    if state.phase in ("shuffle", "over"):  # a round was just scored from these nests
        assert state.round_scores[-1] == [highest_per_suit(nest) for nest in state.nests]


def one_second_apart(event: Event, index: int) -> Event:
    """Timestamps one second per event, as a table might go (for the minutes:N end)."""
    return Event(event.type, event.seat, event.data, ts=index * 1000, source="bot")


def play(seed: int, *, every_event: bool = False, observer: bool = False,
         twin: bool = False) -> BruceState:
    """One seeded bot game. ``twin``: an observer fed each event's public form keeps pace,
    and its public view must equal the full-information one (checked every 10 events)."""
    n = 2 + seed % 4
    end = ENDS[seed % len(ENDS)]
    state = make_game("bruce", {"end": end, "first": seed % n}).new_state(
        [f"P{i}" for i in range(n)], observer=observer)
    assert isinstance(state, BruceState)
    play_to_end(state, bots_for(seed, n), seed, check=check_invariants, every_event=every_event, twin=twin,
                view_every=10, stamp=one_second_apart if end.startswith("minutes") else None)
    return state


def check_game_end(state: BruceState) -> None:
    """BRUCE-G1: the match ended exactly when its end condition first held."""
    end: GameEnd = state.game.end
    rounds = len(state.round_scores)
    if end.kind == "rounds":
        assert rounds == end.amount
    elif end.kind == "points":
        running = [0] * state.num_players
        for k, scores in enumerate(state.round_scores, 1):
            running = [a + b for a, b in zip(running, scores, strict=True)]
            assert (max(running) >= end.amount) == (k == rounds)
    else:
        assert state.elapsed_ms() is not None
        assert state.elapsed_ms() >= end.amount * 60_000


@pytest.mark.parametrize("seed", range(30))
def test_BRUCE_C1_every_card_accounted_for_after_every_event(seed):
    play(seed, every_event=True, observer=seed % 3 == 0)


@reduced_or_full(GAMES // 5, GAMES)
def test_BRUCE_R2_G1_thousands_of_bot_games_score_from_nests_and_end_on_time(size):
    events = 0
    winners: Counter[int] = Counter()
    for seed in range(size):
        state = play(seed)
        check_game_end(state)
        assert state.winners() and all(
            state.scores()[w] == max(state.scores()) for w in state.winners())
        winners[len(state.winners())] += 1
        events += len(state.history)
    assert events > 100 * size
    assert winners[1] > size // 2  # ties exist but are rare


def test_BRUCE_C2_observer_fed_public_events_agrees_with_full_information():
    for seed in range(200):
        play(seed, twin=True)


def test_BRUCE_G1_replay_and_json_round_trip_reproduce_every_game():
    for seed in range(100):
        state = play(seed)
        log = [Event.from_json(e.dumps()) for e in state.history]
        assert log == state.history
        again = replay(state.game, state.players, log)
        assert again.public_view() == state.public_view()
        assert again.nests == state.nests and again.round_scores == state.round_scores
