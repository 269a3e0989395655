"""Duck Duck Bruce engine: one or more named tests per BRUCE-* rule, and the rulebook's examples."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from ducktable.rules import Event, RulesError, make_game, replay
from ducktable.rules.bruce import (
    DECK_COUNTS,
    DIE_FACES,
    RULE_TEXTS,
    BruceGame,
    BruceState,
    GameEnd,
    GreedyBot,
    nest_highs,
    nest_score,
)
from ducktable.rules.catalogue import rule_texts
from ducktable.rules.decks import BRUCE_SUITS

from .engine_helpers import ok, refused

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve"]


# ---- helpers ------------------------------------------------------------------------------


def new_match(players: int = 3, *, observer: bool = False, **options: object) -> BruceState:
    state = make_game("bruce", dict(options)).new_state(NAMES[:players], observer=observer)
    assert isinstance(state, BruceState)
    return state


def shuffle(top: Sequence[str] = ()) -> Event:
    """A full-information shuffle whose draw pile starts with ``top``, the rest in label order."""
    assert not Counter(top) - DECK_COUNTS, "the top cards must come from the deck"
    rest = DECK_COUNTS - Counter(top)
    return Event("shuffle", None, {"order": list(top) + sorted(rest.elements())})


def started(top: Sequence[str] = (), players: int = 3, **options: object) -> BruceState:
    state = new_match(players, observer=False, **options)
    ok(state, shuffle(top))
    return state


def reveal(state: BruceState, *cards: str) -> None:
    for card in cards:
        ok(state, Event("reveal", state.current, {"card": card}))


def drive(state: BruceState, until_pile: int = 0, seed: int = 0) -> None:
    """Play on (reveals from the pile, stop at once, Bruce raids for 1) until the pile is that low."""
    rng = random.Random(seed)
    while state.pile_size > until_pile or state.phase in ("choose", "declare", "roll", "steal"):
        if state.is_over() or state.phase == "shuffle":
            return
        if state.needs_chance():
            state.apply_or_raise(state.chance_event(rng))
        elif state.phase == "choose":
            ok(state, Event("stop", state.current))
        else:
            ok(state, Event("declare", state.current,
                            {"opponent": state.left(state.current), "n": 1}))


def highest_per_suit(cards: Sequence[str]) -> int:
    """An independent recomputation of BRUCE-R2 for the tests."""
    best: dict[str, int] = {}
    for label in cards:
        if label != "bruce":
            suit, value = label.rsplit("-", 1)
            best[suit] = max(best.get(suit, 0), int(value))
    return sum(best.values())


# ---- components ---------------------------------------------------------------------------


def test_BRUCE_C1_sixty_ducks_in_ten_suits_of_1_1_2_2_3_4():
    ducks = {label: n for label, n in DECK_COUNTS.items() if label != "bruce"}
    assert sum(ducks.values()) == 60
    assert len(BRUCE_SUITS) == 10
    for suit in BRUCE_SUITS:
        values = sorted(int(lbl.rsplit("-", 1)[1]) for lbl, n in ducks.items()
                        if lbl.startswith(f"{suit}-") for _ in range(n))
        assert values == [1, 1, 2, 2, 3, 4]


def test_BRUCE_C1_observer_refuses_a_third_copy_of_a_card():
    state = new_match(3, observer=True)
    ok(state, Event("shuffle"))
    reveal(state, "red-1")
    ok(state, Event("stop", 0))
    reveal(state, "red-1")
    ok(state, Event("stop", 1))
    refused(state, Event("reveal", 2, {"card": "red-1"}), reason="every copy", rule="BRUCE-C1")


def test_BRUCE_C2_six_bruce_cards_and_a_full_shuffle_of_66():
    assert DECK_COUNTS["bruce"] == 6
    assert DECK_COUNTS.total() == 66
    state = new_match(2)
    short = shuffle().data["order"][:-1]
    refused(state, Event("shuffle", None, {"order": short}), reason="66 cards", rule="BRUCE-C2")
    doubled = shuffle().data["order"][:-1] + ["bruce"]
    refused(state, Event("shuffle", None, {"order": doubled}), rule="BRUCE-C1")


def test_BRUCE_C3_die_faces_and_rolls_outside_them_refused():
    assert sorted(DIE_FACES) == [-1, 1, 1, 2, 3, 3]
    state = started(["bruce"], 2)
    reveal(state, "bruce")
    ok(state, Event("declare", 0, {"opponent": 1, "n": 2}))
    for face in (0, 4, 6, "3"):
        refused(state, Event("roll", 0, {"face": face}), reason="must be one of")
    rolls: Counter[int] = Counter()
    rng = random.Random(3)
    for _ in range(600):
        rolls[state.chance_event(rng).data["face"]] += 1
    assert set(rolls) == {-1, 1, 2, 3}
    assert rolls[1] > rolls[-1] and rolls[3] > rolls[2]


# ---- a turn -------------------------------------------------------------------------------


def test_BRUCE_T1_reveal_puts_the_top_card_at_the_end_of_the_row():
    state = started(["red-4", "blue-2"])
    reveal(state, "red-4")
    assert state.row == ["red-4"] and state.pile_size == 65
    refused(state, Event("reveal", 0, {"card": "green-1"}), reason="top of the draw pile",
            rule="BRUCE-T1")
    reveal(state, "blue-2")
    assert state.row == ["red-4", "blue-2"]


def test_BRUCE_T1_reveal_refused_before_the_shuffle_and_for_another_seat():
    state = new_match(3)
    refused(state, Event("reveal", 0, {"card": "red-4"}), reason="turned over", rule="BRUCE-T1")
    ok(state, shuffle(["red-4"]))
    refused(state, Event("reveal", 1, {"card": "red-4"}), reason="belongs to Ann")


def test_BRUCE_T2_stop_puts_the_whole_row_in_the_nest():
    state = started(["red-4", "blue-2", "green-3"])
    reveal(state, "red-4", "blue-2", "green-3")
    assert state.to_move() == 0 and state.phase == "choose"
    ok(state, Event("stop", 0))
    assert state.nests[0] == ["red-4", "blue-2", "green-3"]
    assert state.row == [] and state.current == 1 and state.phase == "reveal"


def test_BRUCE_T2_continue_or_a_further_reveal_both_mean_go_on():
    state = started(["red-4", "blue-2", "green-3"])
    reveal(state, "red-4")
    ok(state, Event("continue", 0))
    refused(state, Event("stop", 0), reason="nobody may 'stop' now; Ann turns over the next card")
    reveal(state, "blue-2")
    reveal(state, "green-3")  # implicit continue: the camera just sees the next card
    assert state.row == ["red-4", "blue-2", "green-3"]


def test_BRUCE_T2_choices_before_any_card_are_refused():
    state = started(["red-4"])
    refused(state, Event("stop", 0), reason="nobody may 'stop' now")
    refused(state, Event("continue", 0), reason="nobody may 'continue' now")


def test_BRUCE_T3_rulebook_double_duck_example_ABCD_with_D_matching_B():
    a, b, c, d = "red-2", "blue-1", "green-4", "blue-3"
    state = started([a, b, c, d])
    reveal(state, a, b, c)
    verdict = state.check(Event("reveal", 0, {"card": d}))
    assert verdict.ok and "BRUCE-T3" in verdict.rules and "3 card(s) discarded, 1 kept" in verdict.reason
    reveal(state, d)
    assert state.nests[0] == [a]
    assert state.discard == [b, c, d]
    assert state.row == [] and state.current == 1  # the turn ended by itself


def test_BRUCE_T3_number_is_irrelevant_and_a_match_on_the_first_card_keeps_nothing():
    state = started(["teal-4", "pink-1", "teal-1"])
    reveal(state, "teal-4", "pink-1", "teal-1")
    assert state.nests[0] == [] and state.discard == ["teal-4", "pink-1", "teal-1"]


def test_BRUCE_T4_bruce_discards_the_row_and_a_high_roll_wins_n_cards():
    state = started(["red-4", "blue-2", "green-3", "lime-1", "bruce"], 2)
    reveal(state, "red-4", "blue-2")
    ok(state, Event("stop", 0))
    reveal(state, "green-3", "lime-1", "bruce")
    assert state.discard == ["green-3", "lime-1", "bruce"] and state.row == []
    assert state.to_move() == 1 and state.phase == "declare"
    refused(state, Event("reveal", 1, {"card": "red-1"}), reason="'reveal' is not expected")
    refused(state, Event("declare", 1, {"opponent": 1, "n": 2}), reason="opponent",
            rule="BRUCE-T4")
    refused(state, Event("declare", 1, {"opponent": 0, "n": 4}), reason="must be one of")
    ok(state, Event("declare", 1, {"opponent": 0, "n": 2}))
    ok(state, Event("roll", 1, {"face": 2}))
    assert state.phase == "steal" and state.steal_count == 2
    refused(state, Event("steal", None, {"cards": ["red-4"]}), reason="exactly 2",
            rule="BRUCE-T4")
    refused(state, Event("steal", None, {"cards": ["red-4", "green-3"]}), reason="does not hold")
    ok(state, Event("steal", None, {"cards": ["blue-2", "red-4"]}))
    assert state.nests == [[], ["blue-2", "red-4"]]
    assert state.current == 0 and state.phase == "reveal"


def test_BRUCE_T4_fewer_cards_than_declared_takes_them_all():
    state = started(["red-4", "bruce"], 2)
    reveal(state, "red-4")
    ok(state, Event("stop", 0))
    reveal(state, "bruce")
    ok(state, Event("declare", 1, {"opponent": 0, "n": 3}))
    ok(state, Event("roll", 1, {"face": 3}))
    assert state.steal_count == 1
    ok(state, Event("steal", 1, {"cards": ["red-4"]}))
    assert state.nests == [[], ["red-4"]]


def test_BRUCE_T4_a_low_roll_wins_nothing_and_an_empty_nest_gives_nothing():
    state = started(["red-4", "bruce", "bruce"], 2)
    reveal(state, "red-4")
    ok(state, Event("stop", 0))
    reveal(state, "bruce")
    ok(state, Event("declare", 1, {"opponent": 0, "n": 3}))
    ok(state, Event("roll", 1, {"face": 2}))
    assert state.nests == [["red-4"], []] and state.current == 0 and state.phase == "reveal"
    reveal(state, "bruce")
    ok(state, Event("declare", 0, {"opponent": 1, "n": 1}))
    ok(state, Event("roll", 0, {"face": 3}))  # Ben's nest is empty: nothing to take
    assert state.nests == [["red-4"], []] and state.phase == "reveal" and state.current == 1


def test_BRUCE_T4_minus_one_gives_the_opponent_one_blind_card_of_the_roller():
    state = started(["red-4", "blue-1", "bruce"], 2)
    reveal(state, "red-4")
    ok(state, Event("stop", 0))
    reveal(state, "blue-1")
    ok(state, Event("stop", 1))
    reveal(state, "bruce")
    ok(state, Event("declare", 0, {"opponent": 1, "n": 1}))
    ok(state, Event("roll", 0, {"face": -1}))
    assert state.steal_from == 0 and state.steal_to == 1 and state.steal_count == 1
    refused(state, Event("steal", 0, {"cards": ["red-4"]}), reason="belongs to Ben")
    ok(state, Event("steal", 1, {"cards": ["red-4"]}))
    assert state.nests == [[], ["blue-1", "red-4"]]


def test_BRUCE_T4_minus_one_with_an_empty_nest_costs_nothing():
    state = started(["bruce"], 2)
    reveal(state, "bruce")
    ok(state, Event("declare", 0, {"opponent": 1, "n": 2}))
    ok(state, Event("roll", 0, {"face": -1}))
    assert state.phase == "reveal" and state.current == 1


def test_BRUCE_T5_play_passes_left_and_out_of_turn_is_refused():
    state = started(["red-1", "blue-1", "green-1", "pink-1"], 3)
    for seat, card in enumerate(["red-1", "blue-1", "green-1"]):
        assert state.current == seat
        reveal(state, card)
        if seat == 0:
            refused(state, Event("stop", 2), reason="it is Ann's turn", rule="BRUCE-T5")
        ok(state, Event("stop", seat))
    assert state.current == 0


def test_BRUCE_T5_first_option_picks_the_starting_seat():
    state = started(["red-1"], 3, first=2)
    assert state.current == 2 and state.to_move() is None
    reveal(state, "red-1")
    assert state.to_move() == 2
    with pytest.raises(RulesError, match="seats are 0..2"):
        new_match(3, first=3)


# ---- round and game end -------------------------------------------------------------------


def test_BRUCE_R1_the_round_ends_when_the_last_card_is_revealed_and_the_turn_done():
    state = started(players=2, end="rounds:2")
    drive(state, until_pile=1)
    last = state.order[-1]
    assert last == "yellow-4" and state.pile_size == 1 and state.row == []
    roller = state.current
    ok(state, Event("reveal", roller, {"card": last}))
    assert state.phase == "choose" and not state.is_over() and state.round_scores == []
    # A new colour came last: nothing is left to flip, so the row must be kept.
    assert [e.type for e in state.legal_events()] == ["stop"]
    refused(state, Event("continue", roller), reason="draw pile is empty", rule="BRUCE-R1")
    refused(state, Event("reveal", roller, {"card": last}), rule="BRUCE-R1")
    ok(state, Event("stop", roller))
    assert "yellow-4" in state.nests[roller]
    assert state.phase == "shuffle" and len(state.round_scores) == 1


def test_BRUCE_R1_a_bruce_as_last_card_is_still_resolved_before_the_round_ends():
    top = sorted((DECK_COUNTS - Counter(["bruce"])).elements()) + ["bruce"]
    state = new_match(2, end="rounds:1")
    ok(state, Event("shuffle", None, {"order": top}))
    drive(state, until_pile=1)
    ok(state, Event("reveal", state.current, {"card": "bruce"}))
    assert state.phase == "declare" and not state.is_over()
    roller = state.current
    ok(state, Event("declare", roller, {"opponent": 1 - roller, "n": 1}))
    ok(state, Event("roll", roller, {"face": 1}))
    assert state.phase == "steal"
    ok(state, state.chance_event(random.Random(0)))
    assert state.is_over() and state.round_scores == [[nest_score(n) for n in state.nests]]


def test_BRUCE_R2_rulebook_scoring_example_sums_to_17():
    # The example sorts a nest by colour and adds the highest card of each suit: 17. Ours:
    # red 4 (and a 1), orange 3 (and a 2), yellow 2 twice (a tie counts once), lime 1, green 4,
    # teal 3 -> 4 + 3 + 2 + 1 + 4 + 3 = 17.
    nest = ["red-1", "yellow-2", "red-4", "orange-2", "teal-3", "yellow-2", "lime-1",
            "orange-3", "green-4"]
    assert nest_highs(nest) == {"red": 4, "orange": 3, "yellow": 2, "lime": 1, "green": 4,
                                "teal": 3}
    assert nest_score(nest) == 17 == highest_per_suit(nest)


def test_BRUCE_R2_round_scores_are_the_nests_per_suit_highs_and_the_lowest_starts():
    state = started(players=3, end="rounds:3")
    drive(state, seed=5)
    assert state.phase == "shuffle"
    scores = [highest_per_suit(nest) for nest in state.nests]
    assert state.round_scores == [scores] and state.scores() == scores
    lowest = min(scores)
    assert scores[state.starter] == lowest
    view = state.public_view()
    assert [s["nest_score"] for s in view["seats"]] == scores
    ok(state, shuffle())
    assert state.current == state.starter and all(n == [] for n in state.nests)


def test_BRUCE_R2_a_tie_for_lowest_goes_to_the_first_tied_seat_after_the_last_player():
    state = new_match(4)
    state.current = 2  # the player who revealed the last card
    assert state._next_starter([5, 9, 5, 7]) == 0
    assert state._next_starter([9, 5, 5, 7]) == 1
    state.current = 0
    assert state._next_starter([5, 9, 5, 7]) == 2
    assert state._next_starter([5, 9, 6, 7]) == 0


def test_BRUCE_G1_end_option_parses_and_refuses_nonsense():
    assert GameEnd.parse("points:77") == GameEnd("points", 77)
    assert BruceGame().end == GameEnd("points", 77)
    assert str(BruceGame({"end": "rounds:3"}).end) == "rounds:3"
    for bad in ("points", "laps:3", "rounds:0", "minutes:-5", "points:ten", "points:\u00b2"):
        with pytest.raises(RulesError, match="'rounds:N', 'minutes:N' or 'points:N'"):
            BruceGame({"end": bad})
    with pytest.raises(RulesError, match="must be str"):
        BruceGame({"end": 77})


def test_BRUCE_G1_rounds_end_after_n_rounds_with_the_highest_total_winning():
    state = started(players=2, end="rounds:2")
    drive(state, seed=1)
    ok(state, shuffle())
    drive(state, seed=2)
    assert state.is_over() and len(state.round_scores) == 2
    totals = [sum(r[i] for r in state.round_scores) for i in range(2)]
    assert state.scores() == totals
    assert state.winners() == [i for i in range(2) if totals[i] == max(totals)]
    refused(state, shuffle(), reason="game is over", rule="BRUCE-G1")


def test_BRUCE_G1_points_end_at_the_end_of_the_round_reaching_the_target():
    state = started(players=2, end="points:20")
    drive(state, seed=4)
    reached = max(state.scores()) >= 20
    assert state.is_over() == reached
    while not state.is_over():
        ok(state, shuffle())
        drive(state, seed=len(state.round_scores))
    assert max(state.scores()) >= 20
    assert all(max(sum(r[i] for r in state.round_scores[:k]) for i in range(2)) < 20
               for k in range(1, len(state.round_scores)))


def test_BRUCE_G1_minutes_use_event_timestamps_and_finish_the_round():
    state = new_match(2, end="minutes:30")
    ok(state, Event("shuffle", None, shuffle().data, ts=0))
    drive(state)  # events without ts do not move the clock
    assert state.phase == "shuffle" and state.elapsed_ms() == 0
    ok(state, Event("shuffle", None, shuffle().data, ts=29 * 60_000))
    drive(state)
    assert state.phase == "shuffle", "29 minutes are not 30"
    ok(state, Event("shuffle", None, shuffle().data, ts=31 * 60_000))
    assert not state.is_over(), "time is only checked when a round ends"
    drive(state)
    assert state.is_over() and state.elapsed_ms() == 31 * 60_000
    assert state.public_view()["elapsed_ms"] == 31 * 60_000


def test_BRUCE_R2_public_view_is_a_phone_scoreboard_without_the_draw_order():
    state = started(["red-4", "red-1", "blue-2", "bruce"], 2)
    reveal(state, "red-4")
    ok(state, Event("stop", 0))
    reveal(state, "red-1", "blue-2")
    view = state.public_view()
    json.dumps(view)  # plain JSON data
    ann, ben = view["seats"]
    assert ann["name"] == "Ann" and ann["score"] == 0 and ann["round_scores"] == []
    assert ann["nest"] == ["red-4"] and ann["nest_highs"] == {"red": 4} and ann["nest_score"] == 4
    assert ben["nest_size"] == 0 and ben["nest_highs"] == {}
    assert view["turn"] == view["to_move"] == 1 and view["draw_pile"] == 63
    assert view["board"]["row"] == ["red-1", "blue-2"] and view["board"]["bruce"] is None
    assert [e["type"] for e in view["history"]] == ["shuffle", "reveal", "stop", "reveal",
                                                      "reveal"]
    assert "data" not in view["history"][0]  # the hidden draw order is left out
    reveal(state, "bruce")
    ok(state, Event("declare", 1, {"opponent": 0, "n": 1}))
    assert state.public_view()["board"]["bruce"] == {"target": 0, "declared": 1, "rolled": None}


# ---- framework duties ---------------------------------------------------------------------


def test_BRUCE_T1_bad_input_is_a_clear_verdict_and_changes_nothing():
    state = started(["red-4", "red-1"], 3)
    reveal(state, "red-4")
    cases = [
        (Event("dance", 0), "not an event of Duck Duck Bruce"),
        (Event("stop", 7), "seat 7 does not exist"),
        (Event("stop", None), "needs the seat"),
        (Event("stop", 0, {"cards": ["red-4"]}), "has no field"),
        (Event("reveal", 0, {"card": "purple-9"}), "not a card of Duck Duck Bruce"),
        (Event("reveal", 0, {}), "needs the field 'card'"),
        (Event("declare", 0, {"opponent": 1, "n": 1}), "only a Bruce"),
        (Event("roll", 0, {"face": 1}), "not expected"),
        (Event("steal", 0, {"cards": []}), "not expected"),
        (Event("shuffle", None, shuffle().data), "not expected"),
    ]
    for event, reason in cases:
        refused(state, event, reason=reason)


def test_BRUCE_G1_replay_rebuilds_the_state_and_events_round_trip_as_json():
    state = new_match(3, end="rounds:1")
    rng = random.Random(11)
    bots = [GreedyBot(random.Random(i)) for i in range(3)]
    while not state.is_over():
        seat = state.to_move()
        event = state.chance_event(rng) if seat is None else bots[seat].choose(state, seat)
        event = Event(event.type, event.seat, event.data, ts=len(state.history) * 1000)
        state.apply_or_raise(event)
    again = replay(state.game, state.players, [Event.from_json(e.dumps()) for e in state.history])
    assert again.public_view() == state.public_view()
    assert again.nests == state.nests and again.order == state.order


def test_BRUCE_C2_observer_sees_no_draw_order_but_the_same_scoreboard():
    game = make_game("bruce", {"end": "rounds:1"})
    full = game.new_state(NAMES[:2])
    obs = game.new_state(NAMES[:2], observer=True)
    rng = random.Random(2)
    bots = [GreedyBot(random.Random(0)), GreedyBot(random.Random(1))]
    while not full.is_over():
        seat = full.to_move()
        event = full.chance_event(rng) if seat is None else bots[seat].choose(full, seat)
        full.apply_or_raise(event)
        public = game.public_event(event)
        assert "order" not in public.data
        obs.apply_or_raise(public)
        assert obs.public_view() == full.public_view()
    assert obs.scores() == full.scores()
    assert obs.order is None


def test_every_BRUCE_rule_has_our_own_text_in_the_catalogue_and_a_named_test():
    assert rule_texts("bruce") == RULE_TEXTS
    expected = {"BRUCE-C1", "BRUCE-C2", "BRUCE-C3", "BRUCE-T1", "BRUCE-T2", "BRUCE-T3",
                "BRUCE-T4", "BRUCE-T5", "BRUCE-R1", "BRUCE-R2", "BRUCE-G1"}
    assert set(RULE_TEXTS) == expected
    assert all(len(text) > 30 for text in RULE_TEXTS.values())
    names = [name for name in globals() if name.startswith("test_")]
    for rule in expected:
        tag = rule.replace("-", "_")
        assert any(tag in name for name in names), f"no test named after {rule}"
