"""Ducky Ducky engine: one or more named tests per DUCKY-* rule on the default board.

Default board (rules/ducky_board.py): 20 cells, log i faces cell 2i + 1, white stars on logs
1, 3, 6, 8 (cells 3, 7, 13, 17), blue stars on logs 0, 2, 5, 7 (cells 1, 5, 11, 15).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence

import pytest
from ducktable.rules import Event, RulesError, make_game, replay
from ducktable.rules.catalogue import rule_texts
from ducktable.rules.ducky import (
    CARD_COUNTS,
    RULE_TEXTS,
    DuckyState,
    GreedyBot,
    InPlayCard,
)

from .engine_helpers import ok, refused
from .test_ducky_board import small_layout

NAMES = ["Ann", "Ben", "Cat", "Dan"]
COLOURS = ("yellow", "green", "blue", "pink")
WHITE_CELLS = (3, 7, 13, 17)

# Cards of the main scenario: Ann can use yellow twice, Ben green; nobody else yellow.
ANN = ["card-yellow-yellow", "card-blue-pink"]
BEN = ["card-green-pink", "card-blue-blue"]


# ---- helpers ------------------------------------------------------------------------------


def new_match(players: int = 2, *, observer: bool = False, **options: object) -> DuckyState:
    state = make_game("ducky", dict(options)).new_state(NAMES[:players], observer=observer)
    assert isinstance(state, DuckyState)
    return state


def river_with(fixed: Mapping[int, str] | None = None) -> list[str]:
    """A legal river with the given cells' colours; the other pads in colour order."""
    fixed = dict(fixed or {})
    pool = Counter({c: 4 for c in COLOURS}) - Counter(fixed.values())
    rest = [c for c in COLOURS for _ in range(pool[c])]
    return ["white" if cell in WHITE_CELLS else fixed[cell] if cell in fixed else rest.pop(0)
            for cell in range(20)]


def setup(visible: Sequence[Sequence[str]], *, river: Sequence[str] | None = None,
          pawns: Sequence[int] | None = None, observer: bool = False) -> Event:
    """A setup event; each seat's covered cards are the remaining deck in label order."""
    n = len(visible)
    data: dict = {
        "river": list(river or river_with()),
        "pawns": list(pawns if pawns is not None else [0, 2, 5, 7][:n]),
        "visible": [list(v) for v in visible],
    }
    if not observer:
        rest = sorted((CARD_COUNTS - Counter(c for v in visible for c in v)).elements())
        data["covered"] = [[rest[4 * s: 4 * s + 2], rest[4 * s + 2: 4 * s + 4]] for s in range(n)]
    return Event("setup", None, data)


def scenario(observer: bool = False) -> DuckyState:
    """Ann to move; a yellow duck rides the waterfall cell 19; cell 8 yellow, cell 4 green."""
    state = new_match(2, observer=observer)
    ok(state, setup([ANN, BEN], river=river_with({19: "yellow", 8: "yellow", 4: "green"}),
                    observer=observer))
    return state


def ducks_by_colour(state: DuckyState) -> Counter[str]:
    """Every duck wherever it is: on river pads, on the spare, on cards, or falling."""
    total: Counter[str] = Counter(c for c, d in zip(state.pad_colour, state.duck, strict=True) if d)
    if state.spare_duck:
        total[state.spare_colour] += 1
    for piles in state.visible:
        for card in piles:
            if card is not None:
                total.update(s for s, f in zip(card.slots, card.filled, strict=True) if f)
    if state.falling:
        total[state.falling] += 1
    for owed in state.pending:  # a completed card's ducks, until they are put back
        total.update(owed.ducks)
    return total


# ---- components and set-up ----------------------------------------------------------------


def test_DUCKY_C2_a_duck_on_every_coloured_pad_4_white_pads_in_the_river_1_spare():
    state = new_match(4)
    ok(state, state.chance_event(random.Random(1)))
    assert Counter(state.pad_colour)["white"] == 4 and state.spare_colour == "white"
    assert Counter(state.pad_colour) == Counter({"white": 4, **{c: 4 for c in COLOURS}})
    assert ducks_by_colour(state) == Counter({c: 4 for c in COLOURS})


def test_DUCKY_C3_24_cards_each_asking_for_two_ducks_all_dealt_to_four_players():
    assert sum(CARD_COUNTS.values()) == 24
    assert all(len(InPlayCard(label).slots) == 2 for label in CARD_COUNTS)
    assert all(set(InPlayCard(label).slots) <= set(COLOURS) for label in CARD_COUNTS)
    state = new_match(4)
    ok(state, state.chance_event(random.Random(2)))
    assert state._known_cards() == CARD_COUNTS


def test_DUCKY_S1_random_setup_follows_the_rules():
    for seed in range(20):
        state = new_match(2 + seed % 3)
        event = state.chance_event(random.Random(seed))
        assert state.check(event).ok
        ok(state, event)
        assert [c for c in range(20) if state.pad_colour[c] == "white"] == list(WHITE_CELLS)
        assert all(state.duck[c] == (state.pad_colour[c] != "white") for c in range(20))
        assert len(set(state.pawns)) == state.num_players
        assert set(state.pawns) <= {0, 2, 5, 7}
        assert all(card is not None for piles in state.visible for card in piles)
        assert state.covered_count == [[2, 2]] * state.num_players
        assert state.phase == "move" and state.to_move() == 0


@pytest.mark.parametrize("change, message", [
    ({"river": river_with()[:-1]}, "all 20 cells"),
    ({"river": ["white"] + river_with()[1:]}, "white pads go exactly"),
    ({"river": ["red"] + river_with()[1:]}, "not a pad colour"),
    ({"river": ["green"] + river_with()[1:]}, "needs 4 yellow pads"),
    ({"pawns": [0, 1]}, "blue-star logs"),
    ({"pawns": [2, 2]}, "its own log"),
    ({"pawns": [0]}, "one start log number per seat"),
    ({"visible": [["card-yellow-yellow"], BEN]}, "two top cards"),
    ({"visible": [["card-red-red", "card-blue-pink"], BEN]}, "not a Ducky Ducky card"),
    ({"visible": [["card-blue-pink", "card-blue-pink"], ["card-blue-pink", "card-blue-blue"]]},
     "does not hold that many"),
    ({"covered": [[["card-pink-pink"], []], [[], []]]}, "two piles of 2 cards"),
])
def test_DUCKY_S1_bad_setups_are_refused_and_change_nothing(change, message):
    state = new_match(2)
    event = setup([ANN, BEN])
    refused(state, event.with_data(**change), reason=message, rule="DUCKY-S1")


def test_DUCKY_S1_observer_sets_up_without_the_covered_cards_and_first_option_starts():
    state = new_match(3, observer=True, first=2)
    ok(state, setup([ANN, BEN, ["card-pink-pink", "card-green-green"]], observer=True))
    assert state.covered is None and state.covered_count == [[2, 2]] * 3
    assert state.to_move() == 2
    full = new_match(2)
    refused(full, setup([ANN, BEN], observer=True), reason="needs the field 'covered'")
    with pytest.raises(RulesError, match="seats are 0..1"):
        new_match(2, first=2)


def test_DUCKY_S1_a_second_setup_is_refused():
    state = scenario()
    refused(state, setup([ANN, BEN]), reason="'setup' is not expected")


# ---- a turn -------------------------------------------------------------------------------


def test_DUCKY_T1_the_pawn_must_move_to_a_free_log():
    state = scenario()
    refused(state, Event("move", 0, {"log": 0}), reason="must move", rule="DUCKY-T1")
    refused(state, Event("move", 0, {"log": 2}), reason="taken by Ben's pawn", rule="DUCKY-T1")
    refused(state, Event("move", 0, {"log": 10}), reason="logs are 0..9", rule="DUCKY-C1")
    refused(state, Event("move", 1, {"log": 4}), reason="it is Ann's turn", rule="DUCKY-T1")
    assert sorted(e.data["log"] for e in state.legal_events()) == [1, 3, 4, 5, 6, 7, 8, 9]
    ok(state, Event("move", 0, {"log": 4}))
    assert state.pawns == [4, 2] and state.faced_cell(0) == 9


def test_DUCKY_T2_the_river_flows_one_cell_and_the_last_pad_becomes_the_spare():
    state = scenario()
    before_colours, before_ducks = list(state.pad_colour), list(state.duck)
    ok(state, Event("move", 0, {"log": 4}))
    assert state.pad_colour == ["white", *before_colours[:-1]]
    assert state.duck[1:] == before_ducks[:-1] and state.duck[0] is False
    assert state.spare_colour == before_colours[-1] == "yellow"


def test_DUCKY_T3_the_active_player_takes_a_falling_duck_they_can_use():
    state = scenario()
    verdict = state.check(Event("move", 0, {"log": 4}))
    assert "yellow duck goes over the waterfall" in verdict.reason
    assert verdict.rules == ("DUCKY-T1", "DUCKY-T2", "DUCKY-T3")
    ok(state, Event("move", 0, {"log": 4}))
    assert state.phase == "offer" and state.falling == "yellow" and state.to_move() == 0
    assert state.legal_events() == [Event("take", 0, {"pile": 0}, source="bot")]
    refused(state, Event("take", 0, {"pile": 1}), reason="no open yellow slot", rule="DUCKY-T3")
    refused(state, Event("fish", 0, {"pile": 0}), reason="fishing comes after", rule="DUCKY-T4")
    ok(state, Event("take", 0, {"pile": 0}))
    assert state.visible[0][0].filled == [True, False] and state.falling is None
    assert state.spare_duck is False


def test_DUCKY_T3_a_duck_nobody_can_use_is_offered_on_and_else_rides_back_in():
    # Ben is the first who can use pink; with no pink slot anywhere the duck stays on its pad.
    state = new_match(2)
    ok(state, setup([["card-yellow-yellow", "card-green-green"], BEN],
                    river=river_with({19: "pink"})))
    ok(state, Event("move", 0, {"log": 4}))
    assert state.falling == "pink" and state.to_move() == 1
    refused(state, Event("take", 0, {"pile": 0}),
            reason="the fallen pink duck is Ben's, not Ann's: Ann has no open pink slot on a "
                   "top card, and Ben is the first from Ann round the table who has one",
            rule="DUCKY-T3")
    ok(state, Event("take", 1, {"pile": 0}))
    assert state.visible[1][0].filled == [False, True]

    state = new_match(2)
    ok(state, setup([["card-yellow-yellow", "card-green-green"], ["card-blue-blue", "card-green-blue"]],
                    river=river_with({19: "pink", 18: "blue"})))
    ok(state, Event("move", 0, {"log": 4}))
    assert state.falling is None and state.phase in ("fish", "move")
    assert state.spare_colour == "pink" and state.spare_duck is True
    while state.phase != "move":
        seat = state.to_move()
        ok(state, Event("pass", seat))
    assert state.to_move() == 1
    ok(state, Event("move", 1, {"log": 3}))
    assert state.pad_colour[0] == "pink" and state.duck[0] is True  # re-entered the river


def test_DUCKY_T3_with_two_fitting_cards_the_taker_chooses_the_pile():
    state = new_match(2)
    ok(state, setup([["card-yellow-pink", "card-yellow-yellow"], BEN],
                    river=river_with({19: "yellow"})))
    ok(state, Event("move", 0, {"log": 4}))
    assert sorted(e.data["pile"] for e in state.legal_events()) == [0, 1]
    ok(state, Event("take", 0, {"pile": 1}))
    assert state.visible[0][1].filled == [True, False] and state.visible[0][0].filled == [False, False]


def test_DUCKY_T4_every_player_facing_a_fitting_duck_may_fish_once():
    state = scenario()
    ok(state, Event("move", 0, {"log": 4}))
    ok(state, Event("take", 0, {"pile": 0}))
    assert state.phase == "fish"
    assert state.pad_colour[9] == "yellow" and state.pad_colour[5] == "green"
    assert state.could_fish(0).ok and state.could_fish(1).ok
    assert state.to_move() == 0  # the active player is asked first; the others may go ahead
    ok(state, Event("fish", 1, {"pile": 0}))
    assert state.visible[1][0].filled == [True, False] and state.duck[5] is False
    refused(state, Event("fish", 1, {"pile": 0}), reason="already fished or passed",
            rule="DUCKY-T4")
    refused(state, Event("pass", 1), reason="nothing to pass")
    assert state.to_move() == 0


def test_DUCKY_T4_could_fish_answers_with_a_verdict_and_rule_ids():
    state = scenario()
    before = state.could_fish(1)
    assert not before.ok and "after the move" in before.reason and "DUCKY-T4" in before.rules
    ok(state, Event("move", 0, {"log": 4}))
    pending = state.could_fish(1)
    assert not pending.ok and "fishing comes after" in pending.reason  # the fallen duck first
    ok(state, Event("take", 0, {"pile": 0}))
    yes = state.could_fish(0)
    assert yes.ok and "yellow duck at cell 9" in yes.reason and "completes it" in yes.reason
    assert yes.rules == ("DUCKY-T4",)
    wrong_cell = state.could_fish(0, cell=8)
    assert not wrong_cell.ok and "faces cell 9, not cell 8" in wrong_cell.reason
    wrong_pile = state.could_fish(0, pile=1)
    assert not wrong_pile.ok and "card-blue-pink" in wrong_pile.reason
    assert not state.could_fish(5).ok and "does not exist" in state.could_fish(5).reason
    ok(state, Event("pass", 1))
    assert "already fished or passed" in state.could_fish(1).reason


def test_DUCKY_T4_no_open_slot_or_no_duck_means_no_fishing():
    state = new_match(2)
    ok(state, setup([ANN, BEN],
                    river=river_with({19: "green", 18: "green", 8: "green", 4: "blue", 5: "blue"})))
    ok(state, Event("move", 0, {"log": 4}))  # the green duck falls: Ben is first to use it
    ok(state, Event("take", 1, {"pile": 0}))
    no_slot = state.could_fish(0)
    assert not no_slot.ok and "none of Ann's top cards has an open green slot" in no_slot.reason
    refused(state, Event("fish", 0, {"pile": 0}), reason="open green slot", rule="DUCKY-T4")
    ok(state, Event("pass", 1))  # Ben leaves his blue duck: the turn ends
    assert state.phase == "move" and state.to_move() == 1
    ok(state, Event("move", 1, {"log": 3}))  # the white pad of cell 7 is now in front of Ann
    assert state.pad_colour[9] == "white" and state.could_fish(1).ok
    no_duck = state.could_fish(0)
    assert not no_duck.ok and "cell 9) has no duck" in no_duck.reason


def test_DUCKY_T4_fish_and_pass_need_a_seat_and_the_right_moment():
    state = scenario()
    refused(state, Event("fish", None, {"pile": 0}), reason="needs the seat")
    refused(state, Event("pass", None), reason="needs the seat")
    refused(state, Event("pass", 1), reason="nothing to pass", rule="DUCKY-T4")


def test_DUCKY_T5_a_full_card_becomes_a_gift_the_next_shows_and_ducks_go_back():
    state = scenario()
    ok(state, Event("move", 0, {"log": 4}))
    ok(state, Event("take", 0, {"pile": 0}))
    ok(state, Event("fish", 0, {"pile": 0}))
    assert state.gifts[0] == ["card-yellow-yellow"] and state.visible[0][0] is None
    assert state.to_move() is None and state.needs_chance()  # the next card of pile 0
    next_card = state.covered[0][0][0]
    refused(state, Event("uncover", None, {"card": "card-pink-pink"}),
            reason=f"next card of that pile is {next_card!r}", rule="DUCKY-T5")
    refused(state, Event("fish", 1, {"pile": 0}), reason="first the next card", rule="DUCKY-T5")
    ok(state, Event("uncover", None, {"card": next_card}))
    assert state.visible[0][0] == InPlayCard(next_card) and state.covered_count[0] == [1, 2]
    assert state.to_move() == 0 and state.pending[0].ducks == ("yellow", "yellow")
    empty_yellow = [c for c in range(20) if state.pad_colour[c] == "yellow" and not state.duck[c]]
    assert empty_yellow == [9] and state.spare_colour == "yellow" and not state.spare_duck
    refused(state, Event("return", 0, {"pads": [9]}), reason="one place per duck")
    refused(state, Event("return", 0, {"pads": [9, 9]}), reason="its own pad")
    refused(state, Event("return", 0, {"pads": [9, 5]}), reason="must go on a yellow pad")
    occupied = next(c for c in range(20) if state.pad_colour[c] == "yellow" and state.duck[c])
    refused(state, Event("return", 0, {"pads": [9, occupied]}), reason="already carries")
    refused(state, Event("return", 0, {"pads": [9, "pond"]}), reason="is not a pad")
    refused(state, Event("return", 1, {"pads": [9, "spare"]}), reason="it is Ann's turn")
    assert sorted(map(str, state.legal_events()[0].data["pads"])) == ["9", "spare"]
    ok(state, Event("return", 0, {"pads": [9, "spare"]}))
    assert state.duck[9] and state.spare_duck and ducks_by_colour(state)["yellow"] == 4
    assert state.to_move() == 1  # Ben may still fish his green duck
    ok(state, Event("fish", 1, {"pile": 0}))
    assert state.phase == "move" and state.to_move() == 1 and state.turns == 1


def test_DUCKY_T5_observer_checks_uncovered_cards_against_the_deck():
    state = scenario(observer=True)
    ok(state, Event("move", 0, {"log": 4}))
    ok(state, Event("take", 0, {"pile": 0}))
    ok(state, Event("fish", 0, {"pile": 0}))
    # card-blue-pink: 2 copies, one on Ann's pile 1, one under Ben's? unknown -> allowed once more
    assert state.check(Event("uncover", None, {"card": "card-blue-pink"})).ok
    # card-yellow-yellow: 3 copies; one is a gift now; two more unknown -> allowed
    assert state.check(Event("uncover", None, {"card": "card-yellow-yellow"})).ok
    # card-green-pink: 2 copies; Ben shows one. Use a 2-copy card both of whose copies are known.
    obs = new_match(2, observer=True)
    ok(obs, setup([["card-yellow-green", "card-yellow-yellow"], ["card-yellow-green", BEN[1]]],
                  river=river_with({19: "yellow", 8: "yellow"}), observer=True))
    ok(obs, Event("move", 0, {"log": 4}))
    ok(obs, Event("take", 0, {"pile": 1}))
    ok(obs, Event("fish", 0, {"pile": 1}))
    refused(obs, Event("uncover", None, {"card": "card-yellow-green"}),
            reason="every copy of 'card-yellow-green'", rule="DUCKY-C3")
    refused(obs, Event("uncover", 1, {"card": "card-pink-pink"}), reason="Ann's")
    ok(obs, Event("uncover", None, {"card": "card-pink-pink"}))


def test_DUCKY_T5_the_spare_pad_can_take_a_returned_duck_and_ducks_are_conserved():
    state = scenario()
    ok(state, Event("move", 0, {"log": 4}))
    for _ in range(3):
        assert ducks_by_colour(state) == Counter({c: 4 for c in COLOURS})
        seat = state.to_move()
        if seat is None:
            ok(state, state.chance_event(random.Random(0)))
        else:
            ok(state, state.legal_events(seat)[0])
    assert ducks_by_colour(state) == Counter({c: 4 for c in COLOURS})


# ---- winning ------------------------------------------------------------------------------


def near_the_end(tie: bool) -> DuckyState:
    """Both players hold 5 gifts and one last card missing one duck, which this turn brings.

    Built by editing a fresh position (reaching it by play would take dozens of events); the
    ducks already on the last cards are taken off river pads so every duck stays accounted for.
    """
    state = new_match(2)
    ok(state, setup([["card-yellow-yellow", "card-green-green"], ["card-green-pink", "card-blue-blue"]],
                    river=river_with({19: "yellow", 8: "yellow", 4: "green"})))
    gifts = sorted((CARD_COUNTS - Counter(["card-yellow-yellow", "card-green-pink"])).elements())
    state.gifts = [gifts[:5], gifts[5:10]]
    state.covered = [[[], []], [[], []]]
    state.covered_count = [[0, 0], [0, 0]]
    state.visible = [[InPlayCard("card-yellow-yellow", [True, False]), None], [None, None]]
    state.duck[state.pad_colour.index("yellow")] = False
    if tie:
        state.visible[1][0] = InPlayCard("card-green-pink", [False, True])
        state.duck[state.pad_colour.index("pink")] = False
    assert ducks_by_colour(state) == Counter({c: 4 for c in COLOURS})
    return state


def test_DUCKY_W1_six_gifts_win_at_the_end_of_the_turn():
    state = near_the_end(tie=False)
    ok(state, Event("move", 0, {"log": 4}))
    ok(state, Event("take", 0, {"pile": 0}))  # the falling yellow completes Ann's 6th card
    assert len(state.gifts[0]) == 6
    assert not state.is_over()  # the ducks go back first: the turn is not over yet
    ok(state, state.legal_events()[0])
    assert state.is_over() and state.winners() == [0] and state.scores() == [6, 5]
    refused(state, Event("move", 1, {"log": 3}), reason="game is over", rule="DUCKY-W1")


def test_DUCKY_W1_players_tied_at_six_share_the_win():
    state = near_the_end(tie=True)
    ok(state, Event("move", 0, {"log": 4}))
    ok(state, Event("take", 0, {"pile": 0}))
    ok(state, state.legal_events()[0])  # Ann's ducks go back
    assert not state.is_over() and state.to_move() == 1  # Ben can still fish his green duck
    ok(state, Event("fish", 1, {"pile": 0}))
    ok(state, state.legal_events()[0])
    assert state.is_over() and state.winners() == [0, 1] and state.scores() == [6, 6]


def test_DUCKY_W1_a_stuck_game_ends_and_the_most_gifts_win():
    """Engine decision: when every duck an open slot asks for sits on a card, nothing can change."""
    state = new_match(2, layout=small_layout())
    river = ["yellow", "green", "blue", "white", "pink", "yellow", "green", "blue", "white", "pink"]
    ok(state, Event("setup", None, {
        "river": river, "pawns": [0, 2], "visible": [ANN, BEN],
        "covered": [[["card-pink-pink", "card-blue-blue"], ["card-yellow-green", "card-yellow-blue"]],
                    [["card-blue-pink", "card-green-blue"], ["card-yellow-pink", "card-green-pink"]]],
    }))
    # Edit the position: Ann and Ben each hold one green on a green-green card, nothing else
    # in play; both green ducks are off the river. Ann has one gift more.
    state.visible = [[InPlayCard("card-green-green", [True, False]), None],
                     [InPlayCard("card-green-green", [True, False]), None]]
    state.covered = [[[], []], [[], []]]
    state.covered_count = [[0, 0], [0, 0]]
    state.gifts = [["card-yellow-yellow"] * 3, ["card-blue-blue"] * 2]
    state.duck[1] = state.duck[6] = False
    assert state.is_stuck() and not state.is_over()
    ok(state, Event("move", 0, {"log": 1}))
    assert state.is_over() and state.stuck and state.winners() == [0]
    assert "stuck" in state.describe_next() and state.public_view()["stuck"] is True


def test_DUCKY_W1_public_view_is_a_phone_scoreboard_without_the_covered_cards():
    state = scenario()
    ok(state, Event("move", 0, {"log": 4}))
    ok(state, Event("take", 0, {"pile": 0}))
    view = state.public_view()
    json.dumps(view)  # plain JSON data
    ann, ben = view["seats"]
    assert ann["name"] == "Ann" and ann["score"] == 0 and ann["gifts"] == []
    assert ann["pawn"] == 4 and ann["faces"] == 9 and ann["covered"] == [2, 2]
    assert ann["cards"][0] == {"label": "card-yellow-yellow", "slots": ["yellow", "yellow"],
                               "filled": [True, False]}
    assert ann["can_fish"] and ben["can_fish"]
    assert view["turn"] == 0 and view["to_move"] == 0 and "Ann, Ben may fish" in view["next"]
    assert len(view["board"]["river"]) == 20 and view["board"]["spare"] == {"pad": "yellow",
                                                                             "duck": False}
    assert view["history"][0]["type"] == "setup"
    assert "covered" not in view["history"][0]["data"]


# ---- framework duties ---------------------------------------------------------------------


def test_DUCKY_T1_bad_input_is_a_clear_verdict_and_changes_nothing():
    state = scenario()
    cases = [
        (Event("swim", 0), "not an event of Ducky Ducky"),
        (Event("move", 0, {"log": "four"}), "must be a whole number"),
        (Event("move", 0, {}), "needs the field 'log'"),
        (Event("move", 0, {"log": 4, "cell": 9}), "has no field"),
        (Event("take", 0, {"pile": 2}), "must be one of"),
        (Event("uncover", None, {"card": "duck-yellow"}), "not a card of Ducky Ducky"),
        (Event("uncover", None, {"card": "card-pink-pink"}), "not expected"),
        (Event("return", 0, {"pads": [1, 2]}), "no ducks are due back"),
        (Event("move", 6, {"log": 4}), "seat 6 does not exist"),
    ]
    for event, reason in cases:
        refused(state, event, reason=reason)


def test_DUCKY_S1_replay_json_round_trip_and_observer_views_agree():
    game = make_game("ducky")
    full = game.new_state(NAMES[:3])
    obs = game.new_state(NAMES[:3], observer=True)
    rng = random.Random(4)
    bots = [GreedyBot(random.Random(i)) for i in range(3)]
    while not full.is_over():
        seat = full.to_move()
        event = full.chance_event(rng) if seat is None else bots[seat].choose(full, seat)
        full.apply_or_raise(event)
        public = game.public_event(event)
        assert "covered" not in public.data
        obs.apply_or_raise(public)
        assert obs.public_view() == full.public_view()
    log = [Event.from_json(e.dumps()) for e in full.history]
    assert log == full.history
    again = replay(game, full.players, log)
    assert again.public_view() == full.public_view() and again.covered == full.covered


def test_every_DUCKY_rule_has_our_own_text_in_the_catalogue_and_a_named_test():
    assert rule_texts("ducky") == RULE_TEXTS
    expected = {"DUCKY-C1", "DUCKY-C2", "DUCKY-C3", "DUCKY-S1", "DUCKY-T1", "DUCKY-T2",
                "DUCKY-T3", "DUCKY-T4", "DUCKY-T5", "DUCKY-W1"}
    assert set(RULE_TEXTS) == expected
    from . import test_ducky_board

    names = [n for n in globals() if n.startswith("test_")]
    names += [n for n in vars(test_ducky_board) if n.startswith("test_")]
    for rule in expected:
        assert any(rule.replace("-", "_") in name for name in names), f"no test for {rule}"
