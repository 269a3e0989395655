"""Grey races (GREY-G1): windows, the rulebook's two examples, ties, near-ties, late arrivals.

Timestamps are milliseconds from the camera or phone. Events reach the engine in arrival order;
a grey reported just after the in-turn event that closed its window is judged on timestamps.
"""

from __future__ import annotations

from ducktable.rules import Event, replay

from .grey_helpers import (
    AMY,
    CONNOR,
    ERIN,
    MATT,
    dealt,
    fingerprint,
    g,
    grey,
    new_match,
    play,
    quack,
    y,
)


def grey_four_table(observer: bool = False):
    """Rulebook: Connor plays 4 4 4, Amy holds 7 7 7, Matt the grey 4, Erin 5 5 5 5 and 6 6 6."""
    state = dealt({CONNOR: g(1) + y(4, 4, 4), AMY: y(7, 7, 7), MATT: g(4),
                   ERIN: y(5, 5, 5, 5) + y(6, 6, 6)})
    if observer:
        obs = new_match(4, observer=True)
        obs.apply_or_raise(state.game.public_event(state.history[0]))
        state = obs
    play(state, CONNOR, y(4, 4, 4), ts=1000)
    return state


def grey_eight_table():
    """Rulebook: Matt plays 4 5 6 7; Erin holds the grey 8, Connor 5 6 7 8, Amy 6 7 8 D."""
    state = dealt({MATT: g(1) + y(4, 5, 6, 7), CONNOR: y(5, 6, 7, 8), ERIN: g(8),
                   AMY: y(6, 7, 8, "D")})
    play(state, MATT, y(4, 5, 6, 7), ts=1000)
    return state


# --------------------------------------------------------------------------------------------
# Windows
# --------------------------------------------------------------------------------------------


def test_grey_G1_window_after_a_flock_names_the_grey_and_when_it_opened():
    state = grey_four_table()
    window = state.race_window()
    assert window is not None
    assert (window.grey, window.seat, window.cards, window.form, window.opened_at) == (
        "grey-4", CONNOR, tuple(y(4, 4, 4)), "flock", 1000)
    assert state.public_view()["race_window"] == window.to_json()


def test_grey_G1_window_after_a_flight_is_one_above_its_top():
    state = grey_eight_table()
    window = state.race_window()
    assert window is not None and window.grey == "grey-8" and window.form == "flight"


def test_grey_G1_window_stays_open_through_quacks_and_closes_with_the_trick():
    state = dealt({ERIN: g(1) + y(3)})
    play(state, ERIN, y(3), ts=10)
    quack(state, CONNOR, ts=20)
    window = state.race_window()
    assert window is not None and window.grey == "grey-3"
    quack(state, AMY, ts=30)
    quack(state, MATT, ts=40)
    assert state.race_window() is None  # the trick was gathered


def test_grey_G1_no_window_above_a_drake_flight_or_for_a_played_grey():
    state = dealt({AMY: g(1) + y(6, 7, 8, "D"), ERIN: g(5) + y(5)})
    play(state, AMY, y(6, 7, 8, "D"))
    assert state.race_window() is None
    for seat in (MATT, ERIN, CONNOR):
        quack(state, seat)
    play(state, AMY, g(1))
    assert state.race_window() is None  # a Lone grey: there is no second grey 1


def test_grey_G1_non_moving_seat_is_offered_its_racing_grey():
    state = grey_four_table()
    assert state.legal_events(MATT) == [Event("grey", MATT, {"card": "grey-4"})]
    assert state.legal_events(ERIN) == []


# --------------------------------------------------------------------------------------------
# Winning in the window; the rulebook's grey 4 example
# --------------------------------------------------------------------------------------------


def test_grey_G1_rulebook_grey_four_makes_erin_need_five_five_five_five():
    state = grey_four_table()
    verdict = grey(state, MATT, "grey-4", ts=1300)
    assert verdict.ok and "GREY-G1" in verdict.rules and "Flock of 4" in verdict.reason
    assert state.to_move() == ERIN  # play goes on left of Matt
    amy = state.check(Event("play", AMY, {"cards": y(7, 7, 7)}, ts=1500))
    assert not amy.ok and "Matt's grey-4 came first by 200 ms" in amy.reason
    assert "Erin (seat 0) must follow" in amy.reason
    fewer = state.check(Event("play", ERIN, {"cards": y(6, 6, 6)}))
    assert not fewer.ok and "Flock of 4" in fewer.reason
    assert play(state, ERIN, y(5, 5, 5, 5)).ok
    race = state.race_log[-1]
    assert (race.grey, race.seat, race.joined_seat, race.overturned) == ("grey-4", MATT, CONNOR, None)
    assert state.public_view()["races"][-1]["grey"] == "grey-4"


def test_grey_G1_lone_duck_becomes_a_flock_of_two():
    state = dealt({ERIN: g(1) + y(5), MATT: g(5), CONNOR: y(7, 7, 8)})
    play(state, ERIN, y(5), ts=100)
    assert grey(state, MATT, "grey-5", ts=200).ok
    assert state.top is not None and state.top.form.kind == "flock" and state.top.form.size == 2
    assert state.to_move() == ERIN
    quack(state, ERIN)
    assert not state.check(Event("play", CONNOR, {"cards": y(8)})).ok
    assert play(state, CONNOR, y(7, 7)).ok


def test_grey_G1_flight_greys_can_chain():
    state = dealt({MATT: g(1) + y(5, 6, 7), ERIN: g(8), AMY: g("D")})
    play(state, MATT, y(5, 6, 7), ts=100)
    assert grey(state, ERIN, "grey-8", ts=200).ok
    window = state.race_window()
    assert window is not None and window.grey == "grey-D" and window.seat == ERIN
    assert grey(state, AMY, "grey-D", ts=300).ok
    assert state.top is not None and state.top.form.size == 5 and state.race_window() is None
    assert state.to_move() == MATT


def test_grey_G1_the_player_to_move_may_add_the_grey_too():
    state = dealt({CONNOR: g(1) + y(4, 4, 4), AMY: g(4)})
    play(state, CONNOR, y(4, 4, 4), ts=100)
    assert grey(state, AMY, "grey-4", ts=150).ok
    assert state.to_move() == MATT


def test_grey_G1_grey_older_than_the_play_it_joins_is_refused():
    state = grey_four_table()
    before = fingerprint(state)
    verdict = grey(state, MATT, "grey-4", ts=900)
    assert not verdict.ok and "100 ms older" in verdict.reason
    assert fingerprint(state) == before


def test_grey_G1_grey_not_held_is_refused():
    state = grey_four_table()
    verdict = grey(state, AMY, "grey-4", ts=1200)
    assert not verdict.ok and "Amy does not hold" in verdict.reason


# --------------------------------------------------------------------------------------------
# The race lost; the rulebook's grey 8 example
# --------------------------------------------------------------------------------------------


def test_grey_G1_rulebook_grey_eight_race_lost_to_connors_flight():
    state = grey_eight_table()
    quack(state, ERIN, ts=1200)  # Erin is next in turn and passes, then tries the grey 8
    play(state, CONNOR, y(5, 6, 7, 8), ts=2000)
    before = fingerprint(state)
    verdict = grey(state, ERIN, "grey-8", ts=2100)
    assert not verdict.ok
    assert "Connor's play came first by 100 ms" in verdict.reason and "GREY-G1" in verdict.rules
    assert fingerprint(state) == before
    assert play(state, AMY, y(6, 7, 8, "D")).ok  # Amy now needs 6 7 8 9 (the Drake)


def test_grey_G1_grey_eight_in_time_makes_a_flight_of_five():
    state = grey_eight_table()
    assert grey(state, ERIN, "grey-8", ts=1500).ok
    assert state.to_move() == CONNOR
    verdict = state.check(Event("play", CONNOR, {"cards": y(5, 6, 7, 8)}, ts=2000))
    assert not verdict.ok and "Flight of 5" in verdict.reason


# --------------------------------------------------------------------------------------------
# Late arrivals, ties and near-ties
# --------------------------------------------------------------------------------------------


def test_grey_G1_late_grey_with_an_earlier_timestamp_overturns_the_play():
    state = grey_four_table()
    play(state, AMY, y(7, 7, 7), ts=1500)  # arrives first ...
    verdict = grey(state, MATT, "grey-4", ts=1300)  # ... but Matt was 200 ms earlier
    assert verdict.ok and "came first by 200 ms" in verdict.reason
    assert "Amy takes back 7 7 7" in verdict.reason
    assert state.hands is not None and state.hands[AMY]["yellow-7"] == 3
    assert state.played["yellow-7"] == 0 and state.to_move() == ERIN
    assert [e.action for e in state.trick] == ["play", "grey"]
    race = state.race_log[-1]
    assert (race.overturned, race.overturned_action, race.margin_ms) == (AMY, "play", 200)
    assert play(state, ERIN, y(5, 5, 5, 5)).ok


def test_grey_G1_same_millisecond_goes_to_the_in_turn_play():
    state = grey_four_table()
    play(state, AMY, y(7, 7, 7), ts=1500)
    before = fingerprint(state)
    verdict = grey(state, MATT, "grey-4", ts=1500)
    assert not verdict.ok and "same millisecond" in verdict.reason
    assert "tie goes to the in-turn play" in verdict.reason
    assert fingerprint(state) == before


def test_grey_G1_near_ties_one_millisecond_either_way():
    early = grey_four_table()
    play(early, AMY, y(7, 7, 7), ts=1500)
    won = grey(early, MATT, "grey-4", ts=1499)
    assert won.ok and "by 1 ms" in won.reason
    late = grey_four_table()
    play(late, AMY, y(7, 7, 7), ts=1500)
    lost = grey(late, MATT, "grey-4", ts=1501)
    assert not lost.ok and "Amy's play came first by 1 ms" in lost.reason


def test_grey_G1_late_grey_after_play_moved_on_is_too_late():
    state = grey_four_table()
    play(state, AMY, y(7, 7, 7), ts=1500)
    quack(state, MATT, ts=1800)
    verdict = grey(state, MATT, "grey-4", ts=1300)
    assert not verdict.ok and "too late" in verdict.reason and "moved on" in verdict.reason


def test_grey_G1_without_timestamps_arrival_order_decides():
    state = grey_four_table()
    play(state, AMY, y(7, 7, 7))
    verdict = grey(state, MATT, "grey-4")
    assert not verdict.ok and "without timestamps" in verdict.reason
    in_window = grey_four_table()
    assert grey(in_window, MATT, "grey-4").ok  # in its window a grey needs no timestamp


def test_grey_G1_late_grey_can_undo_the_quack_that_ended_the_trick():
    state = dealt({ERIN: g(1) + y(3), AMY: g(3)})
    play(state, ERIN, y(3), ts=100)
    quack(state, CONNOR, ts=200)
    quack(state, AMY, ts=300)
    quack(state, MATT, ts=400)  # the trick is gathered ...
    assert state.top is None
    verdict = grey(state, AMY, "grey-3", ts=350)  # ... but Amy's grey was 50 ms earlier
    assert verdict.ok and "Matt's quack is undone" in verdict.reason
    assert state.top is not None and state.top.seat == AMY and state.to_move() == MATT


def last_play_of_the_match():
    """Three players, one hand: Erin goes out first; Amy's 6 6 6 then ends the hand (and the
    match) on Connor's 3 3 3, whose grey 3 Connor still holds."""
    state = dealt({ERIN: g(1) + y(2, 3, 4, 5, 6, 7, 8, "D") + y(2, 2, 2, 2),
                   CONNOR: y(1, 1, 1, 1, 1, 1, 1) + y(7, 7) + y(3, 3, 3) + g(3),
                   AMY: y(4, 4, 4, 4, 4) + y(5, 5, 5, 5) + y(6, 6, 6) + y(8)},
                  players=3, hands=1)
    moves = [(ERIN, g(1) + y(2, 3, 4, 5, 6, 7, 8, "D")), (CONNOR, None), (AMY, None),
             (ERIN, y(2, 2, 2, 2)), (CONNOR, None), (AMY, None),
             (CONNOR, y(1, 1, 1)), (AMY, y(4, 4, 4)), (CONNOR, None),
             (AMY, y(5, 5, 5, 5)), (CONNOR, None), (AMY, y(8)), (CONNOR, None),
             (AMY, y(4, 4)), (CONNOR, y(7, 7)), (AMY, None), (CONNOR, y(3, 3, 3))]
    for ts, (seat, cards) in enumerate(moves):
        if cards is None:
            quack(state, seat, ts=100 * ts)
        else:
            play(state, seat, cards, ts=100 * ts)
    play(state, AMY, y(6, 6, 6), ts=2000)
    assert state.is_over() and state.results == [(ERIN, AMY, CONNOR)]
    return state


def test_grey_G1_late_grey_can_undo_the_play_that_ended_the_match():
    state = last_play_of_the_match()
    tie = grey(state, CONNOR, "grey-3", ts=2000)
    assert not tie.ok and "same millisecond" in tie.reason and state.is_over()
    verdict = grey(state, CONNOR, "grey-3", ts=1950)
    assert verdict.ok and "Amy takes back 6 6 6" in verdict.reason
    assert not state.is_over() and state.results == [] and state.points == [[], [], []]
    assert state.counts[AMY] == 3 and state.to_move() == AMY
    assert state.top is not None and state.top.form.size == 4


def test_grey_G1_observer_judges_races_the_same_way():
    full, observer = grey_four_table(), grey_four_table(observer=True)
    for state in (full, observer):
        play(state, AMY, y(7, 7, 7), ts=1500)
        assert grey(state, MATT, "grey-4", ts=1300).ok
    assert full.public_view() == observer.public_view()
    for state in (full, observer):
        assert not grey(state, MATT, "grey-4", ts=1300).ok  # the grey 4 is on the table now


def test_grey_G1_replay_reproduces_an_overturn():
    state = grey_four_table()
    play(state, AMY, y(7, 7, 7), ts=1500)
    grey(state, MATT, "grey-4", ts=1300)
    again = replay(state.game, state.players, state.history)
    assert again.public_view() == state.public_view() and again.hands == state.hands


# --------------------------------------------------------------------------------------------
# The mirror case: the in-turn event was first but is reported after the grey
# --------------------------------------------------------------------------------------------


def test_grey_G1_an_earlier_play_reported_after_the_grey_takes_the_grey_back():
    state = grey_four_table()
    assert grey(state, MATT, "grey-4", ts=1500).ok  # arrives first, in its window ...
    verdict = play(state, AMY, y(7, 7, 7), ts=1300)  # ... but Amy laid her 7s 200 ms earlier
    assert "Amy's play came first by 200 ms although reported after Matt's grey 4" \
        in verdict.reason.replace("grey-4", "grey 4")
    assert "Matt takes back the grey" in verdict.reason and "GREY-G1" in verdict.rules
    assert state.hands is not None and state.hands[MATT]["grey-4"] == 1
    assert state.race_log == [] and state.played["grey-4"] == 0
    assert state.top is not None and state.top.seat == AMY and state.to_move() == MATT
    assert [e.action for e in state.trick] == ["play", "play"]
    late = grey(state, MATT, "grey-4", ts=1500)  # sent again: the 7s closed its window
    assert not late.ok


def test_grey_G1_a_tie_reported_after_the_grey_goes_to_the_in_turn_play():
    state = grey_four_table()
    assert grey(state, MATT, "grey-4", ts=1500).ok
    verdict = play(state, AMY, y(7, 7, 7), ts=1500)
    assert "same millisecond (a tie goes to the in-turn play)" in verdict.reason
    assert state.race_log == [] and state.top is not None and state.top.seat == AMY


def test_grey_G1_a_later_play_reported_after_the_grey_is_refused_as_too_late():
    state = grey_four_table()
    assert grey(state, MATT, "grey-4", ts=1500).ok
    before = fingerprint(state)
    verdict = state.apply(Event("play", AMY, {"cards": y(7, 7, 7)}, 1600))
    assert not verdict.ok and verdict.rules == ("GREY-G1",)
    assert "Matt's grey" in verdict.reason and "came first by 100 ms, before Amy's play" \
        in verdict.reason
    assert fingerprint(state) == before
    untimed = state.apply(Event("play", AMY, {"cards": y(7, 7, 7)}))
    assert not untimed.ok and "without timestamps" in untimed.reason


def test_grey_G1_an_earlier_quack_reported_after_the_grey_lets_the_grey_join_again():
    state = grey_four_table()
    assert grey(state, MATT, "grey-4", ts=1500).ok
    verdict = quack(state, AMY, ts=1200)  # Amy passed first; the trick stayed open
    assert "Matt's grey" in verdict.reason.replace("grey-4", "grey") \
        and "still joins, after it" in verdict.reason
    assert [e.action for e in state.trick] == ["play", "quack", "grey"]
    assert len(state.race_log) == 1 and state.hands is not None
    assert state.hands[MATT]["grey-4"] == 0 and state.to_move() == ERIN


def test_grey_G1_after_a_further_event_the_grey_stands():
    state = grey_four_table()
    assert grey(state, MATT, "grey-4", ts=1500).ok
    quack(state, ERIN, ts=1700)
    verdict = state.apply(Event("play", AMY, {"cards": y(7, 7, 7)}, 1300))
    assert not verdict.ok and "turn" in verdict.reason and len(state.race_log) == 1


def test_grey_G1_observer_and_replay_take_the_grey_back_the_same_way():
    full, observer = grey_four_table(), grey_four_table(observer=True)
    for state in (full, observer):
        assert grey(state, MATT, "grey-4", ts=1500).ok
        play(state, AMY, y(7, 7, 7), ts=1300)
    assert full.public_view() == observer.public_view()
    again = replay(full.game, full.players, full.history)
    assert again.public_view() == full.public_view() and again.hands == full.hands
