"""Grey Duck rules, one named test (or more) per rule ID: deck, deal, swap, tricks, scoring,
names; the rulebook's worked examples; bad input refused with clear verdicts."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest
from ducktable.rules import Event, RulesError, make_game
from ducktable.rules.catalogue import rule_texts
from ducktable.rules.grey import (
    DECK_COUNTS,
    DRAKES,
    RULE_TEXTS,
    Form,
    GreyDuckGame,
    GreyDuckState,
    classify,
    deal_sizes,
    hand_points,
)

from .grey_helpers import (
    AMY,
    CONNOR,
    ERIN,
    MATT,
    NAMES,
    dealt,
    fingerprint,
    finish_hand,
    g,
    grey,
    new_match,
    play,
    quack,
    y,
)

# --------------------------------------------------------------------------------------------
# The catalogue
# --------------------------------------------------------------------------------------------

GREY_IDS = ["C1", "D1", "D2", "D3", "W1", "W2", "W3", "W4", "T1", "T2", "T3", "T4", "G1", "H1",
            "S1", "S2", "V1", "V2"]


def test_grey_rule_texts_cover_every_rule_and_reach_the_catalogue():
    assert sorted(RULE_TEXTS) == sorted(f"GREY-{i}" for i in GREY_IDS)
    assert all(len(text) > 40 for text in RULE_TEXTS.values())
    assert rule_texts("grey") == RULE_TEXTS


def test_grey_every_rule_id_has_a_named_test():
    names = set()
    for path in Path(__file__).parent.glob("test_grey*.py"):
        names |= set(re.findall(r"def test_grey_([A-Z]\d)_", path.read_text()))
    assert names >= set(GREY_IDS), sorted(set(GREY_IDS) - names)


# --------------------------------------------------------------------------------------------
# GREY-C1 deck, GREY-D1 deal sizes, GREY-D2 dealer and first lead
# --------------------------------------------------------------------------------------------


def test_grey_C1_deck_is_the_yellow_pyramid_plus_nine_greys():
    assert sum(DECK_COUNTS.values()) == 54
    assert [DECK_COUNTS[f"yellow-{r}"] for r in "12345678D"] == [9, 8, 7, 6, 5, 4, 3, 2, 1]
    assert all(DECK_COUNTS[f"grey-{r}"] == 1 for r in "12345678D")
    drakes = [label for label, n in DECK_COUNTS.items() for _ in range(n) if label.endswith("-D")]
    assert sorted(drakes) == sorted(DRAKES)


def test_grey_C1_a_deal_with_more_copies_than_the_deck_is_refused():
    state = new_match(4)
    event = state.arranged_deal({})
    hands = [list(h) for h in event.data["hands"]]
    hands[0][0] = "yellow-D"  # a second yellow Drake
    verdict = state.check(event.with_data(hands=hands))
    assert not verdict.ok and "GREY-C1" in verdict.rules and "yellow-D" in verdict.reason


@pytest.mark.parametrize("players, dealer, sizes", [
    (3, 0, [13, 13, 13]),
    (4, 0, [13, 14, 14, 13]),
    (4, 2, [14, 13, 13, 14]),
    (5, 0, [10, 11, 11, 11, 11]),
    (5, 3, [11, 11, 11, 10, 11]),
])
def test_grey_D1_hand_sizes_follow_dealing_order(players, dealer, sizes):
    assert deal_sizes(players, dealer) == sizes
    state = new_match(players, first_dealer=dealer)
    event = state.chance_event(random.Random(players * 10 + dealer))
    assert [len(h) for h in event.data["hands"]] == sizes
    state.apply_or_raise(event)
    assert [s["cards"] for s in state.public_view()["seats"]] == sizes


def test_grey_D1_three_players_leave_fifteen_cards_unseen():
    state = new_match(3)
    state.apply_or_raise(state.chance_event(random.Random(3)))
    assert sum(state.set_aside.values()) == 15
    assert state.public_view()["unseen"] == 15


def test_grey_D1_a_deal_with_wrong_sizes_is_refused():
    state = new_match(4)
    event = state.arranged_deal({})
    hands = [list(h) for h in event.data["hands"]]
    hands[0].append(hands[1].pop())
    hands[0].append(hands[1].pop())  # Erin 15, Connor 12: one hand two cards larger
    verdict = state.check(event.with_data(hands=hands))
    assert not verdict.ok and "GREY-D3" in verdict.rules and "15" in verdict.reason
    three = new_match(3)
    event = three.arranged_deal({})
    hands = [list(h) for h in event.data["hands"]]
    hands[0].append(hands[1].pop())
    verdict = three.check(event.with_data(hands=hands))
    assert not verdict.ok and "GREY-D1" in verdict.rules and "must get 13" in verdict.reason


def test_grey_D3_the_dealer_may_hold_a_larger_hand_when_the_deal_started_elsewhere():
    state = new_match(4)
    event = state.arranged_deal({})
    hands = [list(h) for h in event.data["hands"]]
    hands[0].append(hands[1].pop())  # Erin (the dealer) 14, Connor 13
    verdict = state.apply(event.with_data(hands=hands))
    assert verdict.ok and "GREY-D3" in verdict.rules, verdict
    assert [s["cards"] for s in state.public_view()["seats"]] == [14, 13, 14, 13]


def test_grey_D3_an_observer_deal_may_give_the_counts():
    observer = new_match(4, observer=True)
    bad = observer.check(Event("deal", 0, {"leader": MATT, "counts": [15, 13, 13, 13]}))
    assert not bad.ok and "GREY-D3" in bad.rules
    observer.apply_or_raise(Event("deal", 0, {"leader": MATT, "counts": [14, 13, 14, 13]}))
    assert [s["cards"] for s in observer.public_view()["seats"]] == [14, 13, 14, 13]


def test_grey_D3_a_later_counts_event_corrects_the_assumed_counts():
    observer = new_match(4, observer=True)
    observer.apply_or_raise(Event("deal", 0, {"leader": ERIN}))
    assert [s["cards"] for s in observer.public_view()["seats"]] == [13, 14, 14, 13]
    play(observer, ERIN, y(5))
    play(observer, CONNOR, y(6))
    verdict = observer.apply(Event("counts", None, {"counts": [14, 13, 14, 13]}))
    assert verdict.ok and "GREY-D3" in verdict.rules, verdict
    assert [s["cards"] for s in observer.public_view()["seats"]] == [13, 12, 14, 13]
    assert observer.to_move() == AMY  # play goes on
    wrong = observer.check(Event("counts", None, {"counts": [14, 14, 14, 14]}))
    assert not wrong.ok and "54" in wrong.reason and "GREY-D3" in wrong.rules


def test_grey_D3_a_player_out_too_early_can_come_back_with_the_real_counts():
    observer = new_match(4, observer=True)
    observer.apply_or_raise(Event("deal", 0, {"leader": ERIN}))
    observer.counts[ERIN] = 1  # as if Erin had laid 12 of the 13 cards assumed
    play(observer, ERIN, y(5))
    assert ERIN in observer.out
    refused = observer.check(Event("play", ERIN, {"cards": y(6)}))
    assert not refused.ok and "'counts'" in refused.reason  # says how to put it right
    observer.apply_or_raise(Event("counts", None, {"counts": [14, 13, 14, 13]}))
    assert ERIN not in observer.out and observer.counts[ERIN] == 1


def test_grey_W4_the_captain_may_hand_back_the_drake_just_passed():
    for observer in (False, True):
        state = swap_table(SWAP_A, observer=observer)
        state.apply_or_raise(Event("swap_pass", MATT, {"card": "yellow-D"}))
        verdict = state.apply(Event("swap_return", CONNOR, {"card": "yellow-D"}))
        assert verdict.ok and "GREY-W4" in verdict.rules, verdict
        assert state.to_move() == MATT and state.phase == "play"  # the Duckling leads
        assert state.public_view()["seats"][MATT]["known"] == ["yellow-D"]
        assert state.public_view()["seats"][CONNOR]["known"] == []
        if state.hands is not None:
            assert state.hands[MATT]["yellow-D"] == 1 and state.hands[CONNOR]["yellow-D"] == 0
    state = swap_table(SWAP_A)
    state.apply_or_raise(Event("swap_pass", MATT, {"card": "yellow-D", "request": 3}))
    verdict = state.check(Event("swap_return", CONNOR, {"card": "yellow-D"}))
    assert not verdict.ok and "asked for a 3" in verdict.reason


def test_grey_D2_the_holder_of_the_grey_one_leads_the_first_hand():
    state = dealt({AMY: g(1)})
    assert state.to_move() == AMY and state.phase == "play"
    verdict = state.check(Event("quack", AMY))
    assert not verdict.ok and "must play" in verdict.reason  # any cards, but play
    play(state, AMY, y(5))  # Amy may lead any card, not only the grey 1


def test_grey_D2_a_wrong_leader_in_the_deal_is_refused():
    state = new_match(4)
    event = state.arranged_deal({CONNOR: g(1)})
    verdict = state.check(event.with_data(leader=ERIN))
    assert not verdict.ok and "Connor leads" in verdict.reason and "GREY-D2" in verdict.rules


def test_grey_D2_three_players_grey_one_set_aside_dealers_left_leads():
    state = new_match(3, first_dealer=2)
    state.apply_or_raise(state.arranged_deal({}))  # greys are filled last: all set aside
    assert state.set_aside["grey-1"] == 1
    assert state.to_move() == ERIN  # the left of seat 2


def test_grey_D2_later_hands_are_dealt_by_the_duckling():
    state = new_match(4, first_dealer=CONNOR)
    state.apply_or_raise(state.chance_event(random.Random(5)))
    finish_hand(state)
    duckling = state.results[0][-1]
    assert state.phase == "deal" and state.dealer == duckling == state.duckling
    deal = state.chance_event(random.Random(6))
    assert deal.seat == duckling
    verdict = state.check(Event("deal", (duckling + 1) % 4, deal.data))
    assert not verdict.ok and "GREY-D2" in verdict.rules
    state.apply_or_raise(deal)
    assert state.phase == "swap" and state.to_move() == duckling
    assert state.swap is not None and state.swap.captain == state.results[0][0]


def test_grey_D2_observer_needs_to_be_told_who_leads_the_first_hand():
    observer = new_match(4, observer=True)
    verdict = observer.check(Event("deal", 0, {}))
    assert not verdict.ok and "leader" in verdict.reason
    observer.apply_or_raise(Event("deal", 0, {"leader": MATT}))
    assert observer.to_move() == MATT
    assert [s["cards"] for s in observer.public_view()["seats"]] == [13, 14, 14, 13]


# --------------------------------------------------------------------------------------------
# GREY-W1 swap, GREY-W2 Lame Duck, GREY-W3 Lucky Duck
# --------------------------------------------------------------------------------------------


def swap_table(fixed, observer: bool = False) -> GreyDuckState:
    """Connor was Captain and Matt Duckling at another table: Matt deals, then they swap."""
    return dealt(fixed, swap_captain=CONNOR, swap_duckling=MATT) if not observer else _obs(fixed)


def _obs(fixed) -> GreyDuckState:
    full = dealt(fixed, swap_captain=CONNOR, swap_duckling=MATT)
    observer = new_match(4, observer=True, swap_captain=CONNOR, swap_duckling=MATT)
    observer.apply_or_raise(full.game.public_event(full.history[0]))
    return observer


SWAP_A = {MATT: y("D"), ERIN: g("D"), CONNOR: y(3, 4)}


def test_grey_W1_duckling_must_pass_the_highest_card():
    state = swap_table(SWAP_A)
    assert state.dealer == MATT and state.phase == "swap" and state.to_move() == MATT
    before = fingerprint(state)
    verdict = state.check(Event("swap_pass", MATT, {"card": "yellow-8"}))
    assert not verdict.ok and "highest card" in verdict.reason and "Drake" in verdict.reason
    assert state.apply(Event("swap_pass", CONNOR, {"card": "yellow-3"})).ok is False
    assert fingerprint(state) == before


def test_grey_W1_drake_request_must_be_met_and_the_duckling_leads():
    state = swap_table(SWAP_A)
    bad = state.check(Event("swap_pass", MATT, {"card": "yellow-D", "request": 6}))
    assert not bad.ok and "1 to 5" in bad.reason
    state.apply_or_raise(Event("swap_pass", MATT, {"card": "yellow-D", "request": 3}))
    assert state.to_move() == CONNOR and state.public_view()["seats"][MATT]["cards"] == 12
    wrong = state.check(Event("swap_return", CONNOR, {"card": "yellow-4"}))
    assert not wrong.ok and "asked for a 3" in wrong.reason
    dodge = state.check(Event("cannot_comply", CONNOR))
    assert not dodge.ok and "must return it" in dodge.reason
    state.apply_or_raise(Event("swap_return", CONNOR, {"card": "yellow-3"}))
    assert state.hands is not None
    assert state.hands[CONNOR]["yellow-D"] == 1 and state.hands[MATT]["yellow-3"] >= 1
    view = state.public_view()
    assert view["seats"][CONNOR]["known"] == ["yellow-D"]
    assert view["seats"][MATT]["known"] == ["yellow-3"]
    assert [s["cards"] for s in view["seats"]] == [14, 14, 13, 13]
    assert state.phase == "play" and state.to_move() == MATT  # the Duckling leads
    assert view["swap"]["outcome"] == "swapped"


def test_grey_W1_captain_without_the_rank_lets_the_duckling_ask_again():
    state = swap_table({MATT: y("D"), ERIN: g("D") + y(3, 3, 3, 3, 3, 3, 3) + g(3),
                        CONNOR: y(2, 4)})
    state.apply_or_raise(Event("swap_pass", MATT, {"card": "yellow-D", "request": 3}))
    state.apply_or_raise(Event("cannot_comply", CONNOR))
    assert state.to_move() == MATT and state.swap is not None and state.swap.no_card_of == (3,)
    again = state.check(Event("drake_request", MATT, {"rank": 3}))
    assert not again.ok and "already said" in again.reason
    assert not state.check(Event("drake_request", MATT, {"rank": 7})).ok
    state.apply_or_raise(Event("drake_request", MATT, {"rank": 2}))
    assert not state.check(Event("swap_return", CONNOR, {"card": "yellow-4"})).ok
    state.apply_or_raise(Event("swap_return", CONNOR, {"card": "yellow-2"}))
    assert state.to_move() == MATT


def test_grey_W1_no_rank_asked_means_any_card_and_requests_need_a_drake():
    state = swap_table({MATT: y("D"), ERIN: g("D") + y(3, 3, 3, 3, 3, 3, 3) + g(3),
                        CONNOR: y(2, 4)})
    state.apply_or_raise(Event("swap_pass", MATT, {"card": "yellow-D", "request": 3}))
    state.apply_or_raise(Event("cannot_comply", CONNOR))
    state.apply_or_raise(Event("drake_request", MATT, {}))
    state.apply_or_raise(Event("swap_return", CONNOR, {"card": "yellow-4"}))
    no_drake = swap_table({ERIN: y("D"), CONNOR: g("D")})
    verdict = no_drake.check(Event("swap_pass", MATT, {"card": "yellow-8", "request": 2}))
    assert not verdict.ok and "Drake" in verdict.reason


def test_grey_W1_hand_two_swaps_between_last_hands_duckling_and_captain():
    state = new_match(4)
    state.apply_or_raise(state.chance_event(random.Random(11)))
    finish_hand(state)
    state.apply_or_raise(state.chance_event(random.Random(12)))
    captain, duckling = state.results[0][0], state.results[0][-1]
    assert state.swap is not None and (state.swap.captain, state.swap.duckling) == (captain, duckling)
    assert state.check(Event("play", duckling, {"cards": ["yellow-1"]})).ok is False


def test_grey_W1_observer_knows_the_swapped_cards_and_checks_them():
    observer = swap_table(SWAP_A, observer=True)
    observer.apply_or_raise(Event("swap_pass", MATT, {"card": "yellow-D", "request": 3}))
    observer.apply_or_raise(Event("swap_return", CONNOR, {"card": "yellow-3"}))
    assert observer.public_view()["seats"][CONNOR]["known"] == ["yellow-D"]
    play(observer, MATT, y(3))
    verdict = observer.check(Event("play", ERIN, {"cards": ["yellow-D"]}))
    assert not verdict.ok and "accounted for" in verdict.reason


def test_grey_W2_lame_duck_captain_refuses_and_leads():
    state = swap_table(SWAP_A)
    state.apply_or_raise(Event("swap_pass", MATT, {"card": "yellow-D"}))
    assert not state.check(Event("lame_duck", MATT)).ok  # only the Captain may refuse
    verdict = state.apply_or_raise(Event("lame_duck", CONNOR))
    assert "GREY-W2" in verdict.rules
    assert state.hands is not None and state.hands[MATT]["yellow-D"] == 1
    view = state.public_view()
    assert view["swap"]["outcome"] == "lame_duck" and view["swap"]["returned"] is None
    assert view["seats"][MATT]["known"] == ["yellow-D"] and view["seats"][MATT]["cards"] == 13
    assert state.to_move() == CONNOR and state.phase == "play"


def test_grey_W3_lucky_duck_passes_nothing_and_leads():
    state = swap_table({MATT: y("D") + g("D")})
    refused = state.check(Event("swap_pass", MATT, {"card": "yellow-D"}))
    assert not refused.ok and "GREY-W3" in refused.rules and "Lucky Duck" in refused.reason
    state.apply_or_raise(Event("lucky_duck", MATT))
    assert state.to_move() == MATT and state.phase == "play"
    assert state.public_view()["seats"][MATT]["known"] == ["yellow-D", "grey-D"]
    not_lucky = swap_table(SWAP_A)
    assert not not_lucky.check(Event("lucky_duck", MATT)).ok


# --------------------------------------------------------------------------------------------
# GREY-T1..T4, H1 and the rulebook's examples
# --------------------------------------------------------------------------------------------


def test_grey_T1_forms():
    assert classify(y(5)) == Form("lone", 1, 5, 5)
    assert classify(y(5, 5) + g(5)) == Form("flock", 3, 5, 5)
    assert classify(y(3, 4) + g(5)) == Form("flight", 3, 3, 5)
    assert classify(y(7, 8, "D")) == Form("flight", 3, 7, 9)  # the Drake follows the 8
    for bad in (y(3, 4), y(5, 5, 6), y(3, 5, 6), y(1, 1, 2, 2, 3, 3)):
        reason = classify(bad)
        assert isinstance(reason, str) and "no form" in reason


def test_grey_T2_rulebook_erin_5_connor_8():
    state = dealt({ERIN: g(1) + y(5), CONNOR: y(4, 8)})
    play(state, ERIN, y(5))
    lower = state.check(Event("play", CONNOR, {"cards": ["yellow-4"]}))
    assert not lower.ok and "higher rank" in lower.reason and "GREY-T2" in lower.rules
    assert play(state, CONNOR, y(8)).ok


def test_grey_T2_rulebook_connor_2222_amy_5555():
    state = dealt({CONNOR: g(1) + y(2, 2, 2, 2), AMY: y(5, 5, 5, 5)})
    play(state, CONNOR, y(2, 2, 2, 2))
    fewer = state.check(Event("play", AMY, {"cards": y(5, 5, 5)}))
    assert not fewer.ok and "Flock of 4" in fewer.reason
    assert play(state, AMY, y(5, 5, 5, 5)).ok


def test_grey_T2_rulebook_amy_345_matt_456():
    state = dealt({AMY: g(1) + y(3, 4, 5), MATT: y(3, 4, 5, 6)})
    play(state, AMY, y(3, 4, 5))
    same = state.check(Event("play", MATT, {"cards": y(3, 4, 5)}))
    assert not same.ok and "start higher" in same.reason
    flock = state.check(Event("play", MATT, {"cards": y(3, 4, 5, 6)}))
    assert not flock.ok and "Flight of 3" in flock.reason
    assert play(state, MATT, y(4, 5, 6)).ok


def test_grey_T3_quack_then_play_later_in_the_same_trick():
    state = dealt({ERIN: g(1) + y(3), CONNOR: y(7), AMY: y(5)})
    play(state, ERIN, y(3))
    quack(state, CONNOR)
    play(state, AMY, y(5))
    quack(state, MATT)
    quack(state, ERIN)
    assert state.to_move() == CONNOR
    assert play(state, CONNOR, y(7)).ok  # Connor quacked before, and plays now


def test_grey_T4_trick_goes_to_the_play_everyone_quacked_after():
    state = dealt({ERIN: g(1) + y(3)})
    play(state, ERIN, y(3), ts=100)
    for seat in (CONNOR, AMY, MATT):
        quack(state, seat)
    view = state.public_view()
    assert view["last_trick"] == {"winner": ERIN, "cards": 1}
    assert view["trick"]["plays"] == [] and state.to_move() == ERIN
    assert view["race_window"] is None


def going_out_table() -> GreyDuckState:
    """Three players; Erin holds a Flight of 9 and four 2s, so she is out in two plays."""
    state = dealt({ERIN: g(1) + y(2, 3, 4, 5, 6, 7, 8, "D") + y(2, 2, 2, 2)}, players=3)
    play(state, ERIN, g(1) + y(2, 3, 4, 5, 6, 7, 8, "D"))
    quack(state, CONNOR)
    quack(state, AMY)
    play(state, ERIN, y(2, 2, 2, 2))
    return state


def test_grey_T4_winner_gone_out_passes_the_lead_left():
    state = going_out_table()
    assert state.public_view()["seats"][ERIN]["cards"] == 0 and state.out == [ERIN]
    quack(state, CONNOR)
    quack(state, AMY)
    assert state.public_view()["last_trick"] == {"winner": ERIN, "cards": 4}
    assert state.to_move() == CONNOR


def test_grey_H1_a_player_who_is_out_cannot_act():
    state = going_out_table()
    before = fingerprint(state)
    for event in (Event("play", ERIN, {"cards": ["yellow-5"]}), Event("quack", ERIN),
                  Event("grey", ERIN, {"card": "grey-2"})):
        verdict = state.apply(event)
        assert not verdict.ok and "gone out" in verdict.reason and "GREY-H1" in verdict.rules
    assert fingerprint(state) == before


def test_grey_H1_hand_ends_when_one_player_holds_cards():
    state = going_out_table()
    finish_hand(state)
    order = state.results[0]
    assert order[0] == ERIN and sorted(order) == [0, 1, 2]
    assert [state.counts[s] > 0 for s in order] == [False, False, True]
    assert state.captain == ERIN and state.duckling == order[-1] and state.phase == "deal"
    assert state.places() == [order.index(s) + 1 for s in range(3)]


def test_grey_H1_observer_sees_a_player_go_out_when_their_count_reaches_zero():
    full = dealt({ERIN: g(1) + y(2, 3, 4, 5, 6, 7, 8, "D") + y(2, 2, 2, 2)}, players=3)
    observer = new_match(3, observer=True)
    observer.apply_or_raise(full.game.public_event(full.history[0]))
    play(observer, ERIN, g(1) + y(2, 3, 4, 5, 6, 7, 8, "D"))
    quack(observer, CONNOR)
    quack(observer, AMY)
    too_many = observer.check(Event("play", ERIN, {"cards": y(2, 2, 2, 2, 2)}))
    assert not too_many.ok and "holds only 4" in too_many.reason
    play(observer, ERIN, y(2, 2, 2, 2))
    assert observer.out == [ERIN]
    assert "gone out" in observer.check(Event("quack", ERIN)).reason


# --------------------------------------------------------------------------------------------
# GREY-S1, S2 scoring; GREY-V1 names
# --------------------------------------------------------------------------------------------


def test_grey_S1_points_by_place():
    assert hand_points(3) == (4, 3, 1)
    assert hand_points(4) == (4, 3, 2, 1)
    assert hand_points(5) == (4, 3, 2, 2, 1)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_grey_S1_a_finished_hand_scores_each_place(players):
    state = new_match(players)
    state.apply_or_raise(state.chance_event(random.Random(players)))
    finish_hand(state)
    order = state.results[0]
    for place, seat in enumerate(order):
        assert state.points[seat] == [hand_points(players)[place]]
    assert [s["place"] for s in state.public_view()["seats"]] == state.places()


def test_grey_S2_twelve_hands_then_the_highest_total_wins():
    assert GreyDuckGame().options["hands"] == 12
    state = new_match(4, hands=2)
    for seed in (1, 2):
        state.apply_or_raise(state.chance_event(random.Random(seed)))
        while state.phase == "swap":
            seat = state.to_move()
            assert seat is not None
            state.apply_or_raise(state.legal_events(seat)[0])
        finish_hand(state)
    assert state.is_over() and len(state.results) == 2
    assert sum(state.scores()) == 2 * 10
    best = max(state.scores())
    assert state.winners() == [s for s in range(4) if state.scores()[s] == best]
    verdict = state.check(Event("quack", 0))
    assert not verdict.ok and "GREY-S2" in verdict.rules
    with pytest.raises(RulesError, match="1 or more"):
        make_game("grey", {"hands": 0})


def test_grey_V1_minnesota_names_change_words_not_rules():
    state = dealt({ERIN: g(1) + y(3)}, names="minnesota")
    play(state, ERIN, y(3))
    verdict = quack(state, CONNOR)
    assert "honked" in verdict.reason
    view = state.public_view()
    assert view["terms"]["duckling"] == "Gosling" and view["terms"]["grey"] == "goose"
    assert "honk" in state.describe_next()
    classic = dealt({ERIN: g(1) + y(3)})
    play(classic, ERIN, y(3))
    assert "quacked" in quack(classic, CONNOR).reason


# --------------------------------------------------------------------------------------------
# Bad input: clear verdicts, no state change
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("event, words", [
    (Event("play", ERIN, {"cards": y(3, 4)}), "Flight needs at least 3"),
    (Event("play", ERIN, {"cards": y(5, 5, 6)}), "all one rank"),
    (Event("play", ERIN, {"cards": []}), "at least one card"),
    (Event("play", ERIN, {"cards": ["yellow-9"]}), "not a card of Grey Duck"),
    (Event("play", ERIN, {"cards": ["red-5"]}), "not a card of Grey Duck"),
    (Event("play", ERIN, {"cards": [5]}), "card label"),
    (Event("play", ERIN, {"cards": "yellow-5"}), "list of cards"),
    (Event("play", CONNOR, {"cards": ["yellow-8"]}), "Erin's turn"),
    (Event("play", 7, {"cards": ["yellow-8"]}), "seat 7 does not exist"),
    (Event("play", None, {"cards": ["yellow-8"]}), "needs the seat"),
    (Event("play", ERIN, {"cards": ["yellow-D"]}), "does not hold"),
    (Event("quack", ERIN), "must play"),
    (Event("grey", MATT, {"card": "grey-6"}), "nothing to join"),
    (Event("grey", MATT, {"card": "yellow-6"}), "is yellow"),
    (Event("grey", None, {"card": "grey-6"}), "needs the seat"),
    (Event("swap_pass", ERIN, {"card": "yellow-5"}), "not now"),
    (Event("shuffle", ERIN), "not an event of Grey Duck"),
    (Event("play", ERIN, {"cards": ["yellow-5"], "colour": "red"}), "has no field"),
    (Event("deal", 0, {"hands": []}), "not expected now"),
])
def test_grey_bad_input_is_refused_without_changing_anything(event, words):
    state = dealt({ERIN: g(1) + y(3, 4, 5, 5, 6)})
    before = fingerprint(state)
    verdict = state.apply(event)
    assert not verdict.ok and words in verdict.reason, verdict
    assert fingerprint(state) == before


def test_grey_bad_grey_that_does_not_fit_names_the_one_that_would():
    state = dealt({ERIN: g(1) + y(4, 4, 4), MATT: g(6)})
    play(state, ERIN, y(4, 4, 4))
    before = fingerprint(state)
    verdict = state.apply(Event("grey", MATT, {"card": "grey-6"}))
    assert not verdict.ok and "only the grey-4 may join" in verdict.reason
    assert "GREY-G1" in verdict.rules and fingerprint(state) == before


def test_grey_bad_options_and_players_are_clear_errors():
    with pytest.raises(RulesError, match="3 to 5 players"):
        make_game("grey").new_state(NAMES[:2])
    with pytest.raises(RulesError, match="first_dealer"):
        make_game("grey", {"first_dealer": 4}).new_state(NAMES[:4])
    with pytest.raises(RulesError, match="go together"):
        make_game("grey", {"swap_captain": 1})
    with pytest.raises(RulesError, match="names"):
        make_game("grey", {"names": "texas"})


def test_grey_summary_and_player_view_show_the_scoreboard():
    state = dealt({ERIN: g(1) + y(3)})
    play(state, ERIN, y(3), ts=50)
    text = state.summary()
    assert "hand 1 of 12" in text and "Erin" in text and "on the table" in text
    view = state.player_view(ERIN)
    assert view["hand_complete"] and len(view["hand"]) == 12
    assert Counter(view["hand"])["grey-1"] == 1
    assert view["seats"][ERIN]["cards"] == 12 and view["to_move"] == CONNOR


def _out_of_turn_rules(state: GreyDuckState, seat: int) -> tuple[str, ...]:
    verdict = state.check(Event("quack" if state.top is not None else "play", seat,
                                {} if state.top is not None else {"cards": y(1)}))
    assert not verdict.ok and "turn" in verdict.reason, verdict
    return verdict.rules


def test_grey_D2_out_of_turn_before_the_grey_one_holder_leads_cites_who_leads():
    state = dealt({AMY: g(1), ERIN: y(1)})
    assert _out_of_turn_rules(state, ERIN) == ("GREY-D2",)


def test_grey_W1_out_of_turn_before_the_duckling_leads_cites_the_swap():
    state = swap_table(SWAP_A)
    state.apply_or_raise(Event("swap_pass", MATT, {"card": "yellow-D"}))
    state.apply_or_raise(Event("swap_return", CONNOR, {"card": "yellow-3"}))
    assert state.to_move() == MATT
    assert _out_of_turn_rules(state, CONNOR) == ("GREY-W1",)


def test_grey_W2_out_of_turn_before_the_captain_leads_after_a_lame_duck():
    state = swap_table(SWAP_A)
    state.apply_or_raise(Event("swap_pass", MATT, {"card": "yellow-D"}))
    state.apply_or_raise(Event("lame_duck", CONNOR))
    assert _out_of_turn_rules(state, MATT) == ("GREY-W2",)


def test_grey_T4_out_of_turn_before_the_trick_winner_leads():
    state = dealt({ERIN: g(1) + y(8), CONNOR: y(2), AMY: y(3), MATT: y(4)})
    play(state, ERIN, y(8))
    for seat in (CONNOR, AMY, MATT):
        quack(state, seat)
    assert state.to_move() == ERIN and state.top is None
    assert _out_of_turn_rules(state, CONNOR) == ("GREY-T4",)


def test_grey_T3_out_of_turn_inside_a_trick_and_after_a_grey():
    state = dealt({ERIN: g(1) + y(5), CONNOR: y(6), AMY: g(6) + y(7), MATT: y(8)})
    play(state, ERIN, y(5))
    assert _out_of_turn_rules(state, AMY) == ("GREY-T2",)  # Connor follows Erin
    quack(state, CONNOR)
    assert _out_of_turn_rules(state, ERIN) == ("GREY-T3",)  # Connor's quack passed to Amy
    play(state, AMY, y(7))
    play(state, MATT, y(8))
    state = dealt({ERIN: g(1) + y(6), CONNOR: y(6), AMY: g(6), MATT: y(8)})
    play(state, ERIN, y(6))
    assert grey(state, AMY, "grey-6").ok
    assert state.to_move() == MATT
    assert _out_of_turn_rules(state, ERIN) == ("GREY-G1",)  # play goes on left of the grey


def test_grey_D3_a_public_log_keeps_the_counts_of_a_deal_started_elsewhere():
    state = new_match(4)
    event = state.arranged_deal({})
    hands = [list(h) for h in event.data["hands"]]
    hands[0].append(hands[1].pop())
    public = state.game.public_event(event.with_data(hands=hands))
    assert "hands" not in public.data and public.data["counts"] == [14, 13, 14, 13]
    observer = new_match(4, observer=True)
    observer.apply_or_raise(public)
    assert [s["cards"] for s in observer.public_view()["seats"]] == [14, 13, 14, 13]
