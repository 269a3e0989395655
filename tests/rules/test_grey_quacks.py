"""Quacks that follow from who plays next (rules/grey_quacks.py), by rule ID: GREY-T3 (a Quack
passes the turn to the next player holding cards), GREY-T4 (the trick's winner leads),
GREY-G1 (play continues left of a grey laid out of turn)."""

from __future__ import annotations

import random

from ducktable.device.demo import next_event
from ducktable.rules import Event, make_game
from ducktable.rules.core import RandomBot
from ducktable.rules.grey_quacks import entries_needed, quacks_before

from .grey_helpers import AMY, CONNOR, ERIN, MATT, NAMES, dealt, g, play, quack, y


def seats(events: list[Event]) -> list[int | None]:
    return [e.seat for e in events]


def test_grey_T3_a_play_two_seats_on_means_the_two_before_quacked() -> None:
    state = dealt({AMY: g(1) + y(5, 6, 7), ERIN: y(8), MATT: y(7, 8), CONNOR: y(6)})
    play(state, AMY, y(5))
    later = Event("play", ERIN, {"cards": y(8)}, ts=123)
    assert not state.check(later).ok  # Matt is to move
    quacks = quacks_before(state, later)
    assert seats(quacks) == [MATT] and all(q.type == "quack" and q.ts == 123 for q in quacks)
    for q in quacks:
        state.apply_or_raise(q)
    assert state.check(later).ok


def test_grey_T3_the_player_to_move_needs_no_quack() -> None:
    state = dealt({AMY: g(1) + y(5), MATT: y(7)})
    play(state, AMY, y(5))
    assert quacks_before(state, Event("play", MATT, {"cards": y(7)})) == []


def test_grey_T4_the_winner_leading_again_means_everyone_else_quacked() -> None:
    state = dealt({AMY: g(1) + y(5, 6), MATT: y(7)})
    play(state, AMY, y(5))
    lead = Event("play", AMY, {"cards": y(6)})
    assert seats(quacks_before(state, lead)) == [MATT, ERIN, CONNOR]
    quack(state, MATT)
    assert seats(quacks_before(state, lead)) == [ERIN, CONNOR]


def test_grey_T3_a_leader_cannot_quack_so_no_run_reaches_back_round() -> None:
    """The lead of a trick must play (GREY-T3): a play by another seat before it is not
    explained by Quacks and gets none (it is refused as out of turn, as before)."""
    state = dealt({AMY: g(1) + y(5), MATT: y(7)})
    assert quacks_before(state, Event("play", MATT, {"cards": y(7)})) == []


def test_grey_G1_play_continues_left_of_the_grey_player() -> None:
    state = dealt({AMY: g(1) + y(3, 6), CONNOR: g(3), ERIN: y(8, 8), MATT: y(4)})
    play(state, AMY, y(3))
    state.apply_or_raise(Event("grey", CONNOR, {"card": "grey-3"}))
    assert state.to_move() == AMY  # left of Connor
    assert seats(quacks_before(state, Event("play", ERIN, {"cards": y(8, 8)}))) == [AMY, MATT]


def test_grey_T4_the_lead_passed_left_of_a_winner_gone_out_follows_a_round_of_quacks() -> None:
    """Amy goes out on her play; everyone quacks; the lead passes to Matt on her left. Matt's
    lead, which cannot follow Amy's play, means Matt, Erin and Connor quacked (GREY-T4)."""
    state = dealt({AMY: g(1) + y(5), MATT: y(2, 2, 7), ERIN: y(8), CONNOR: y(6)}, players=4)
    for card in [c for c in state.hands[AMY] if c != "yellow-5"]:
        state.hands[AMY][card] = 0
    state.hands[AMY] = +state.hands[AMY]
    state.counts[AMY] = 1
    play(state, AMY, y(5))
    lead = Event("play", MATT, {"cards": y(2, 2)})
    assert not state.check(lead).ok  # a flock cannot follow a Lone Duck
    assert seats(quacks_before(state, lead)) == [MATT, ERIN, CONNOR]
    single = Event("play", MATT, {"cards": y(7)})
    assert state.check(single).ok and quacks_before(state, single) == []  # a follow, as it stands


def test_only_grey_duck_infers_quacks() -> None:
    duck = make_game("duck").new_state(NAMES[:3], observer=False)
    assert quacks_before(duck, Event("play", 1, {"cards": ["yellow-1"]})) == []


def test_a_bot_match_rebuilt_from_its_log_without_the_inferred_quacks_is_the_same() -> None:
    """Replay a bot match: drop each run of Quacks that :func:`entries_needed` counts as
    inferred, put back what :func:`quacks_before` gives, and the log is unchanged; the
    count of Quacks left to enter is what was not dropped."""
    game = make_game("grey", {"hands": 2})
    state = game.new_state(NAMES[:4], observer=False)
    rng, bots = random.Random(4), [RandomBot(random.Random(i)) for i in range(4)]
    log: list[Event] = []
    while not state.is_over():
        event = next_event(state, bots, rng)
        state.apply_or_raise(event)
        log.append(event)
    start = game.new_state(NAMES[:4], observer=False)
    total, needed = entries_needed(start, log)
    assert total == sum(e.type == "quack" for e in log) and 0 < needed < total
    rebuilt, entered, trial = [], 0, game.new_state(NAMES[:4], observer=False)
    pending: list[Event] = []
    for event in log:
        if event.type == "quack":
            pending.append(event)
            continue
        implied = quacks_before(trial, event)
        if pending and seats(implied) == seats(pending):
            pending = implied  # what the phone would record in their place
        else:
            entered += len(pending)
        for e in [*pending, event]:
            trial.apply_or_raise(e)
            rebuilt.append(e)
        pending = []
    entered += len(pending)
    assert [(e.type, e.seat) for e in rebuilt] == [(e.type, e.seat) for e in log[:len(rebuilt)]]
    assert entered == needed
