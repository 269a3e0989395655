"""Grey Duck bot games: thousands of seeded hands with racing greys (GREY-G1, S1, C1), the
observer mirror, replay and JSON round-trips. Seeded loops, no clock: reproducible."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable

from ducktable.rules import Bot, Event, RandomBot, Verdict, replay, simulate
from ducktable.rules.grey import (
    GreedyGreyBot,
    GreyDuckGame,
    GreyDuckState,
    hand_points,
    simulate_grey,
)

from tests.sizes import reduced_or_full

from .grey_helpers import conserved

RACING_MATCHES = 170  # x 12 hands = 2040 hands with greedy racing bots
RANDOM_MATCHES = 40  # x 12 hands = 480 hands with random/greedy bots through core.simulate


def players(seed: int) -> list[str]:
    return [f"P{i}" for i in range(3 + seed % 3)]


def mixed_bots(seed: int, n: int) -> list[Bot]:
    return [GreedyGreyBot() if (seed + i) % 2 else RandomBot(random.Random(seed * 11 + i))
            for i in range(n)]


def check_hand_scores(state: GreyDuckState) -> None:
    """GREY-S1: every finished hand hands out each place's points once."""
    n = state.num_players
    for number, order in enumerate(state.results):
        assert sorted(order) == list(range(n))
        got = sorted(state.points[seat][number] for seat in range(n))
        assert got == sorted(hand_points(n))
    assert state.scores() == [sum(p) for p in state.points]


@reduced_or_full(RACING_MATCHES // 4, RACING_MATCHES)
def test_grey_S1_G1_thousands_of_racing_bot_hands(size):
    hands = won = late = lost = 0
    for seed in range(size):
        run = simulate_grey(seed, players(seed))
        state = run.state
        assert state.is_over() and len(state.results) == 12
        check_hand_scores(state)
        hands += len(state.results)
        won += run.races_won
        late += run.races_won_late
        lost += len(run.lost_races)
        for event, verdict in run.lost_races:
            assert event.type == "grey" and "GREY-G1" in verdict.rules
            assert ("came first by" in verdict.reason or "same millisecond" in verdict.reason
                    or "too late" in verdict.reason), verdict
    assert hands == 12 * size
    # The seeded clock must produce every kind of race outcome.
    assert won > late > 0 and lost > 0
    print(f"{hands} racing hands: {won} greys won ({late} late), {lost} lost")


def test_grey_C1_cards_are_conserved_after_every_event():
    def conserve(state: GreyDuckState, event: Event, verdict: Verdict) -> None:
        assert conserved(state), (event, verdict)
        if state.phase == "play":
            assert state.counts == [sum(h.values()) for h in state.hands or []]

    for seed in range(30):
        simulate_grey(seed, players(seed), on_event=conserve,
                      bots=mixed_bots(seed, len(players(seed))))


def test_grey_W1_random_bots_through_core_simulate_reach_every_event_type():
    seen: Counter[str] = Counter()
    for seed in range(RANDOM_MATCHES):
        names = players(seed)
        state = GreyDuckGame().new_state(names)
        simulate(state, mixed_bots(seed, len(names)), random.Random(seed))
        assert isinstance(state, GreyDuckState) and state.is_over()
        check_hand_scores(state)
        seen.update(e.type for e in state.history)
    expected = {"deal", "swap_pass", "drake_request", "cannot_comply", "swap_return",
                "lame_duck", "lucky_duck", "play", "quack", "grey"}
    assert expected <= set(seen), expected - set(seen)


def test_grey_T2_every_legal_event_offered_is_legal():
    rng = random.Random(4)
    for seed in range(6):
        names = players(seed)
        state = GreyDuckGame().new_state(names)
        bots = mixed_bots(seed, len(names))
        steps = 0
        while not state.is_over():
            if state.needs_chance():
                state.apply_or_raise(state.chance_event(rng))
                continue
            if steps % 5 == 0:
                for seat in range(len(names)):
                    for event in state.legal_events(seat):
                        assert state.check(event).ok, (event, state.check(event))
            seat = state.to_move()
            assert seat is not None
            state.apply_or_raise(bots[seat].choose(state, seat))
            steps += 1


def test_grey_G1_observer_mirror_agrees_on_every_view_verdict_and_score():
    """An observer fed Game.public_event of every event (refused ones too) agrees with full
    information on every public view, every verdict and the scores."""
    for seed in range(24):
        names = players(seed)
        game = GreyDuckGame()
        observer = game.new_state(names, observer=True)
        run = simulate_grey(seed, names, on_event=mirror_into(observer),
                            bots=mixed_bots(seed, len(names)))
        assert observer.scores() == run.state.scores() and observer.is_over()
        deal = next(e for e in run.state.history if e.type == "deal")
        assert "hands" not in game.public_event(deal).data


def mirror_into(observer: GreyDuckState) -> Callable[[GreyDuckState, Event, Verdict], None]:
    """An ``on_event`` hook feeding the observer what a camera would see, and comparing."""

    def mirror(state: GreyDuckState, event: Event, verdict: Verdict) -> None:
        seen = observer.apply(observer.game.public_event(event))
        assert seen.ok == verdict.ok, (event, verdict, seen)
        if verdict.ok:
            assert observer.public_view() == state.public_view(), event

    return mirror


def test_grey_replay_and_json_round_trip_reproduce_the_match():
    for seed in range(20):
        names = players(seed)
        run = simulate_grey(seed, names)
        state = run.state
        game = state.game
        texts = [event.dumps() for event in state.history]
        events = [Event.from_json(json.loads(text)) for text in texts]
        assert events == state.history
        again = replay(game, names, events)
        assert isinstance(again, GreyDuckState)
        assert again.public_view() == state.public_view()
        assert again.hands == state.hands and again.race_log == state.race_log
        assert all(len(text) < 1000 for text in texts)  # one deal is the biggest event
