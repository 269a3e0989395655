"""DUCK engine: one or more tests per rule ID of the DUCK-* catalogue, and the rulebook's situations."""

from __future__ import annotations

from collections import Counter

import pytest
from ducktable.rules import Event, RulesError, make_game, replay
from ducktable.rules.catalogue import rule_texts
from ducktable.rules.duck import DUCK_CARDS, DuckState, play_form, possible_plays

from .duck_helpers import deal, hands_of, new_match, reveal

# Hands used by several tests (3 players, dealer seat 0, so seat 1 starts).
LOW = ["yellow-0", "blue-1", "red-1", "yellow-2", "blue-2", "red-2", "yellow-1"]  # sum 9
MID = ["yellow-3", "blue-3", "red-3", "yellow-4", "blue-4", "red-4", "yellow-5"]  # sum 26
HIGH = ["yellow-7", "blue-7", "red-7", "yellow-6", "blue-6", "red-6", "red-8"]  # sum 47


def started(hands, players=3, **opts) -> DuckState:
    state = new_match(players, **opts)
    assert state.apply(deal(state, hands)).ok
    return state


# ---- components -------------------------------------------------------------------------


def test_DUCK_C1_deck_has_69_cards_23_per_colour():
    assert sum(DUCK_CARDS.values()) == 69
    for colour in ("yellow", "blue", "red"):
        per = {v: DUCK_CARDS[f"{colour}-{v}"] for v in range(9)}
        assert per[0] == per[8] == 1
        assert all(per[v] == 3 for v in range(1, 8))
        assert sum(per.values()) == 23


def test_DUCK_C1_a_fourth_copy_is_refused_in_observer_mode():
    game = make_game("duck")
    obs = game.new_state(["A", "B", "C"], observer=True)
    assert obs.apply(Event("deal", None, {"face_up": ["yellow-5", None, None]})).ok  # DUCK-S1
    assert obs.apply(Event("play", 1, {"cards": ["yellow-5", "yellow-5"]})).ok
    assert obs.apply(Event("draw", 1, {"pile": "deck"})).ok
    verdict = obs.check(Event("play", 2, {"cards": ["yellow-5"]}))
    assert not verdict.ok and "DUCK-C1" in verdict.rules
    assert "yellow-5" in verdict.reason


def test_DUCK_C2_lifebelts_6_to_10_one_per_round_in_order():
    state = new_match(3)
    seen = []
    import random

    from ducktable.rules import RandomBot, simulate

    simulate(state, [RandomBot(random.Random(i)) for i in range(3)], random.Random(7))
    for result in state.results:
        seen.append(result.lifebelt)
    assert seen == [6, 7, 8, 9, 10]
    belts = sorted(v for s in state.seats for v, _ in s.lifebelts)
    assert belts == [6, 7, 8, 9, 10]


def test_DUCK_C3_towel_cards_are_points_and_leave_the_game():
    state = started([LOW, MID, HIGH])
    assert state.apply(Event("play", 1, {"cards": ["yellow-3", "yellow-4", "yellow-5"]})).ok
    assert state.apply(Event("draw", 1, {"pile": "deck"})).ok
    assert state.apply(Event("duck", 2)).ok  # wrong: 47
    assert state.apply(reveal(state)).ok
    towels = [list(s.towel) for s in state.seats]
    assert towels[0] == ["yellow-2"]  # highest of LOW (yellow before blue/red on equal value)
    pool = state._pool()
    assert pool["yellow-2"] == DUCK_CARDS["yellow-2"] - 1


# ---- set-up and turn order --------------------------------------------------------------


def test_DUCK_S1_dealer_gets_the_face_up_card_and_7_cards_each():
    state = started([LOW, MID, HIGH])
    assert [s.hand_count for s in state.seats] == [7, 7, 7]
    assert state.seats[0].pile == ["red-5"] and state.seats[1].pile == []
    assert state.draw_count == 69 - 21 - 1


def test_DUCK_S1_option_everyone_gets_a_face_up_card():
    state = new_match(3, starting_face_up="everyone")
    event = deal(state, [LOW, MID, HIGH], face_up=["blue-0", "red-0", "red-5"])
    assert state.apply(event).ok
    assert [s.pile for s in state.seats] == [["blue-0"], ["red-0"], ["red-5"]]
    wrong = new_match(3)
    verdict = wrong.check(deal(wrong, [LOW, MID, HIGH], face_up=["blue-0", "red-0", "red-5"]))
    assert not verdict.ok and "DUCK-S1" in verdict.rules


def test_DUCK_S1_a_deal_with_missing_cards_is_refused():
    state = new_match(3)
    event = deal(state, [LOW, MID, HIGH])
    broken = event.with_data(draw_pile=event.data["draw_pile"][1:])
    verdict = state.check(broken)
    assert not verdict.ok and "missing" in verdict.reason


def test_DUCK_S2_left_of_dealer_starts_and_play_is_clockwise():
    state = started([LOW, MID, HIGH])
    assert state.dealer == 0 and state.to_move() == 1
    out_of_turn = state.check(Event("play", 2, {"cards": ["red-8"]}))
    assert not out_of_turn.ok and "DUCK-S2" in out_of_turn.rules
    assert "Ben" in out_of_turn.reason
    assert state.apply(Event("play", 1, {"cards": ["yellow-5"]})).ok
    assert state.apply(Event("draw", 1, {"pile": "deck"})).ok
    assert state.to_move() == 2


def test_DUCK_S2_dealer_rotates_left_each_round():
    import random

    from ducktable.rules import RandomBot

    state = new_match(4)
    rng = random.Random(3)
    bots = [RandomBot(random.Random(i)) for i in range(4)]
    dealers = []
    while not state.is_over():
        if state.phase == "deal":
            dealers.append(state.dealer)
        event = state.chance_event(rng) if state.needs_chance() else bots[state.turn].choose(state, state.turn)
        state.apply_or_raise(event)
    assert dealers == [0, 1, 2, 3, 0]


# ---- A) play and draw ---------------------------------------------------------------------


def test_DUCK_A1_any_number_of_same_value_colours_mixed():
    assert play_form(["yellow-3", "blue-3", "red-3", "red-3"])[0] == "set"
    assert play_form(["red-6"])[0] == "set"
    form, verdict = play_form(["red-6", "blue-7"])
    assert form is None and "DUCK-A1" in verdict.rules


def test_DUCK_A2_runs_of_one_colour_three_or_more():
    assert play_form(["blue-2", "blue-3", "blue-4"])[0] == "run"
    assert play_form(["blue-6", "blue-5", "blue-4", "blue-3"])[0] == "run"  # descending
    for bad in (["blue-2", "red-3", "blue-4"], ["blue-2", "blue-4", "blue-5"],
                ["blue-2", "blue-3", "blue-3", "blue-4"], ["blue-3", "blue-2", "blue-4"]):
        form, verdict = play_form(bad)
        assert form is None and "DUCK-A2" in verdict.rules, bad


def test_DUCK_A2_a_run_laid_descending_puts_the_lowest_on_top():
    state = started([LOW, MID, HIGH])
    assert state.apply(Event("play", 1, {"cards": ["yellow-5", "yellow-4", "yellow-3"]})).ok
    assert state.seats[1].pile[-1] == "yellow-3"


def test_DUCK_A3_the_player_chooses_the_top_colour_of_a_set():
    state = started([LOW, MID, HIGH])
    assert state.apply(Event("play", 1, {"cards": ["red-3", "yellow-3", "blue-3"]})).ok
    assert state.public_view()["seats"][1]["pile_top"] == "blue-3"
    plays = possible_plays(Counter(["red-3", "yellow-3"]))
    assert ["red-3", "yellow-3"] in plays and ["yellow-3", "red-3"] in plays


def test_DUCK_A1_cannot_play_cards_not_held():
    state = started([LOW, MID, HIGH])
    before = state.public_view()
    verdict = state.apply(Event("play", 1, {"cards": ["red-8"]}))
    assert not verdict.ok and "does not hold red-8" in verdict.reason
    assert state.public_view() == before


def test_DUCK_A4_draw_from_the_left_and_the_right_neighbour():
    state = started([LOW, MID, HIGH])
    # Seat 1: right neighbour is seat 0 (the dealer, face-up red-5), left is seat 2 (empty).
    assert state.apply(Event("play", 1, {"cards": ["yellow-5"]})).ok
    empty_left = state.check(Event("draw", 1, {"pile": "left"}))
    assert not empty_left.ok and "DUCK-A4" in empty_left.rules and "empty" in empty_left.reason
    assert state.apply(Event("draw", 1, {"pile": "right"})).ok
    assert state.seats[1].hand["red-5"] == 1 and state.seats[0].pile == []
    # Seat 2 takes the yellow-5 from its right neighbour, seat 1.
    assert state.apply(Event("play", 2, {"cards": ["red-8"]})).ok
    assert state.apply(Event("draw", 2, {"pile": "right"})).ok
    assert state.seats[2].hand["yellow-5"] == 1
    # Seat 0 takes the red-8 from its left neighbour... no: its left is seat 1 (now empty),
    # its right is seat 2 (red-8 on top).
    assert state.apply(Event("play", 0, {"cards": ["yellow-0"]})).ok
    assert not state.check(Event("draw", 0, {"pile": "left"})).ok
    assert state.apply(Event("draw", 0, {"pile": "right"})).ok
    assert state.seats[0].hand["red-8"] == 1 and state.seats[0].hand_count == 7


def test_DUCK_A4_must_draw_after_playing_and_only_one_card():
    state = started([LOW, MID, HIGH])
    assert state.apply(Event("play", 1, {"cards": ["yellow-5"]})).ok
    assert state.to_move() == 1 and state.phase == "draw"
    assert not state.check(Event("play", 1, {"cards": ["yellow-4"]})).ok
    assert state.apply(Event("draw", 1, {"pile": "deck"})).ok
    assert not state.check(Event("draw", 1, {"pile": "deck"})).ok  # seat 2's turn now


def test_DUCK_A4_empty_draw_pile_leaves_only_neighbours_piles():
    state = started([LOW, MID, HIGH])
    state.draw_count = 0
    state.draw_pile = []
    assert state.apply(Event("play", 1, {"cards": ["yellow-5"]})).ok
    verdict = state.check(Event("draw", 1, {"pile": "deck"}))
    assert not verdict.ok and "empty" in verdict.reason and "DUCK-A4" in verdict.rules
    assert state.check(Event("draw", 1, {"pile": "right"})).ok


def test_DUCK_A4_nothing_to_draw_skips_the_draw():
    state = started([LOW, MID, HIGH])
    state.draw_count = 0
    state.draw_pile = []
    state.seats[0].pile = []
    assert state.apply(Event("play", 1, {"cards": ["yellow-5"]})).ok
    # Neighbours' piles (seat 0 and seat 2) are empty and so is the deck: turn passes on.
    assert state.to_move() == 2 and state.phase == "play"


def test_DUCK_A5_going_out_ends_the_round_with_a_green_lifebelt():
    short = ["blue-5", "blue-6", "blue-7"]
    state = started([LOW, MID, HIGH])
    state.seats[1].hand = Counter(short)
    state.seats[1].hand_count = 3
    assert state.apply(Event("play", 1, {"cards": short})).ok
    assert state.phase == "reveal" and state.to_move() is None
    verdict = state.apply(reveal(state))
    assert verdict.ok
    result = state.results[0]
    assert result.how == "out" and result.ender == 1
    assert state.seats[1].lifebelts == [(6, "green")]
    # DUCK-E1/E2: seat 2 (47) discards; seat 0 (LOW) tucks its highest card.
    assert result.discarded == [2] and result.towel_cards == ["yellow-2", None, None]


# ---- B) ducking --------------------------------------------------------------------------


def test_DUCK_B2_ducked_right_at_the_limit_of_10():
    at_limit = ["yellow-0", "blue-1", "red-1", "yellow-2", "blue-2", "red-2", "yellow-2"]  # 10
    state = started([MID, at_limit, HIGH])
    verdict = state.apply(Event("duck", 1))
    assert verdict.ok and "DUCK-B1" in verdict.rules
    assert state.apply(reveal(state)).ok
    result = state.results[0]
    assert result.how == "ducked_right"
    assert state.seats[1].lifebelts == [(6, "green")]
    assert state.seats[1].towel == ["yellow-2"]
    assert state.scores()[1] == 6 + 2


def test_DUCK_B1_option_duck_limit():
    nine = ["yellow-0", "blue-1", "red-1", "yellow-2", "blue-2", "red-2", "yellow-2"]  # 10
    state = started([MID, nine, HIGH], duck_limit=9)
    verdict = state.check(Event("duck", 1))
    assert verdict.ok and "DUCK-B3" in verdict.rules and "over the limit of 9" in verdict.reason
    state.apply(Event("duck", 1))
    state.apply(reveal(state))
    assert state.results[0].how == "ducked_wrong"


def test_DUCK_B3_ducked_wrong_over_the_limit():
    eleven = ["yellow-0", "blue-1", "red-1", "yellow-2", "blue-2", "red-2", "yellow-3"]
    state = started([MID, eleven, HIGH])
    assert state.apply(Event("duck", 1)).ok
    assert state.apply(reveal(state)).ok
    assert state.results[0].how == "ducked_wrong"
    assert state.seats[1].lifebelts == [(6, "red")] and state.seats[1].towel == []
    assert state.scores()[1] == -6


def test_DUCK_B3_ducked_wrong_on_a_tie_for_lowest():
    a = ["yellow-0", "blue-1", "red-1", "yellow-2", "blue-2", "red-2", "yellow-1"]  # 9
    b = ["blue-0", "blue-1", "red-1", "yellow-2", "blue-2", "red-2", "yellow-1"]  # 9
    state = started([MID, a, b])
    state.apply(Event("duck", 1))
    state.apply(reveal(state))
    result = state.results[0]
    assert result.how == "ducked_wrong"
    assert result.discarded == [0]  # MID is the highest of the others (DUCK-E1)
    assert state.seats[2].towel == ["yellow-2"]  # DUCK-E2


# ---- round end --------------------------------------------------------------------------


def test_DUCK_E1_all_tied_for_highest_discard():
    twin = list(HIGH)
    twin2 = ["yellow-7", "blue-7", "red-7", "yellow-6", "blue-6", "red-6", "blue-8"]  # also 47
    state = started([twin, LOW, twin2])
    state.apply(Event("duck", 1))
    state.apply(reveal(state))
    assert state.results[0].discarded == [0, 2]
    assert state.seats[0].towel == [] and state.seats[2].towel == []


def test_DUCK_E1_option_none_discard_on_a_tie():
    twin2 = ["yellow-7", "blue-7", "red-7", "yellow-6", "blue-6", "red-6", "blue-8"]
    state = started([HIGH, LOW, twin2], highest_tie="none_discard")
    state.apply(Event("duck", 1))
    state.apply(reveal(state))
    assert state.results[0].discarded == []
    assert state.seats[0].towel == ["red-8"] and state.seats[2].towel == ["blue-8"]


def test_DUCK_E1_wrong_ducker_with_the_highest_sum_simply_gets_nothing():
    state = started([MID, HIGH, LOW])
    state.apply(Event("duck", 1))  # 47: wrong
    state.apply(reveal(state))
    result = state.results[0]
    assert result.how == "ducked_wrong"
    assert result.discarded == [0]  # MID is highest among the others
    assert state.seats[1].towel == [] and state.seats[2].towel == ["yellow-2"]


def test_DUCK_E2_others_tuck_their_single_highest_card():
    state = started([MID, LOW, HIGH])
    state.apply(Event("duck", 1))
    state.apply(reveal(state))
    assert state.seats[0].towel == ["yellow-5"]
    assert state.seats[2].towel == []  # highest, discarded


def test_DUCK_E3_next_deal_uses_every_card_not_under_a_towel():
    state = started([MID, LOW, HIGH])
    state.apply(Event("duck", 1))
    state.apply(reveal(state))
    assert state.phase == "deal" and state.dealer == 1
    import random

    event = state.chance_event(random.Random(1))
    dealt = Counter(event.data["draw_pile"])
    for hand in event.data["hands"]:
        dealt.update(hand)
    dealt.update(c for c in event.data["face_up"] if c)
    towels = Counter(c for s in state.seats for c in s.towel)
    assert dealt + towels == DUCK_CARDS


def test_DUCK_F1_final_score_winner_and_shared_ties():
    state = new_match(3)
    for seat, (towel, belts) in enumerate([(["red-8", "blue-7"], [(6, "green"), (7, "red")]),
                                           (["red-7", "blue-7"], [(9, "green")]),
                                           (["yellow-8"], [(8, "green"), (10, "green")])]):
        state.seats[seat].towel = towel
        state.seats[seat].lifebelts = belts
    state.round = 5
    assert state.scores() == [8 + 7 + 6 - 7, 7 + 7 + 9, 8 + 8 + 10]
    assert state.winners() == [2]
    state.seats[1].towel = ["red-8", "red-7", "blue-3"]  # 18 + 9 = 27... make a tie at 26
    state.seats[1].towel = ["red-8", "red-7", "blue-2"]
    assert state.scores()[1] == 26 and state.winners() == [1, 2]
    verdict = state.check(Event("duck", 0))
    assert not verdict.ok and "DUCK-F1" in verdict.rules and "over" in verdict.reason


def test_every_DUCK_rule_id_has_a_summary_and_a_test():
    import pathlib
    import re

    ids = set(rule_texts("duck"))
    expected = {f"DUCK-{x}" for x in
                ["C1", "C2", "C3", "S1", "S2", "A1", "A2", "A3", "A4", "A5", "B1", "B2", "B3", "E1", "E2", "E3", "F1"]}
    assert ids == expected
    source = pathlib.Path(__file__).read_text()
    tested = {m.replace("_", "-") for m in re.findall(r"def test_(DUCK_[A-Z]\d)", source)}
    assert expected <= tested


# ---- observer mode: hidden claims ---------------------------------------------------------


def test_observer_revealed_hand_must_hold_the_card_taken_from_a_neighbour():
    game = make_game("duck")
    full = game.new_state(["A", "B", "C"])
    full.apply_or_raise(deal(full, [LOW, MID, HIGH]))
    obs = game.new_state(["A", "B", "C"], observer=True)
    obs.apply_or_raise(game.public_event(full.history[0]))
    for event in (Event("play", 1, {"cards": ["yellow-5"]}), Event("draw", 1, {"pile": "right"}),
                  Event("duck", 2)):
        full.apply_or_raise(event)
        obs.apply_or_raise(event)
    assert obs.public_view()["seats"][1]["known_in_hand"] == ["red-5"]
    honest = reveal(full)
    assert obs.check(honest).ok
    lie = [list(h) for h in honest.data["hands"]]
    lie[1] = [c for c in lie[1] if c != "red-5"] + ["blue-5"]
    verdict = obs.check(Event("reveal", None, {"hands": lie}))
    assert not verdict.ok and "red-5" in verdict.reason and "DUCK-A4" in verdict.rules
    obs.apply_or_raise(honest)
    full.apply_or_raise(honest)
    assert obs.scores() == full.scores()


def test_observer_hand_count_is_checked_at_reveal():
    game = make_game("duck")
    obs = game.new_state(["A", "B", "C"], observer=True)
    obs.apply_or_raise(Event("deal", None, {"face_up": ["red-0", None, None]}))
    obs.apply_or_raise(Event("duck", 1))
    hands = [LOW, MID[:6], HIGH]
    verdict = obs.check(Event("reveal", None, {"hands": hands}))
    assert not verdict.ok and "must show 7 cards" in verdict.reason


def test_state_is_untouched_by_refused_events_and_replay_matches():
    state = started([LOW, MID, HIGH])
    snapshot = state.public_view()
    for bad in (Event("play", 1, {"cards": ["purple-3"]}), Event("play", 7, {"cards": ["yellow-5"]}),
                Event("draw", 1, {"pile": "up"}), Event("fly", 1), Event("play", 1, {}),
                Event("play", 1, {"cards": "yellow-5"}), Event("reveal", None, {"hands": []})):
        verdict = state.apply(bad)
        assert not verdict.ok and verdict.reason
        assert state.public_view() == snapshot
    again = replay(state.game, state.players, state.history)
    assert again.public_view() == snapshot and hands_of(again) == hands_of(state)


def test_options_are_validated_with_clear_messages():
    with pytest.raises(RulesError, match="starting_face_up"):
        make_game("duck", {"starting_face_up": "nobody"})
    with pytest.raises(RulesError, match="unknown option"):
        make_game("duck", {"jokers": True})
    with pytest.raises(RulesError, match="3 to 5 players"):
        make_game("duck").new_state(["A", "B"])


def test_DUCK_S1_a_deal_missing_cards_lists_every_one():
    state = new_match(3)
    event = deal(state, [LOW, MID, HIGH])
    pile = event.data["draw_pile"]
    gone = pile[:9]
    verdict = state.check(event.with_data(draw_pile=pile[9:]))
    assert not verdict.ok and "missing 9 cards" in verdict.reason
    for card in set(gone):
        assert card in verdict.reason
    assert "rest_seed" in verdict.reason  # says how to leave the listing out


def test_DUCK_S1_the_rest_of_the_deck_may_be_shuffled_with_a_seed():
    state = new_match(3)
    event = deal(state, [LOW, MID, HIGH])
    pile = list(event.data["draw_pile"])
    seeded = event.without("draw_pile").with_data(rest_seed=11)
    verdict = state.apply(seeded)
    assert verdict.ok, verdict
    assert sorted(state.draw_pile) == sorted(pile) and state.draw_pile != sorted(pile)
    again = new_match(3)
    again.apply_or_raise(seeded)
    assert again.draw_pile == state.draw_pile  # the same seed, the same order
    top = new_match(3)
    top.apply_or_raise(event.with_data(draw_pile=[pile[5], pile[0]], rest_seed=3))
    assert top.draw_pile[:2] == [pile[5], pile[0]] and sorted(top.draw_pile) == sorted(pile)
    assert "rest_seed" not in state.game.public_event(seeded).data  # hidden like the pile
