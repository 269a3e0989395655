"""Ducky Ducky events inferred from hand-made table snapshots (river, fishing, gifts).

Each test lays the board and cards as players would (the convention in ``rules/infer_ducky.py``),
feeds a few identical frames through the tracker and checks what the follower applied or holds
for a person. The board is the default layout: white pads on cells 3, 7, 13, 17; log ``k`` faces
cell ``2k + 1``; the start logs are 0, 2, 5 and 7.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pytest
from ducktable.rules import Event, make_game
from ducktable.rules.ducky import DuckyState
from ducktable.rules.infer_base import TableFollower
from ducktable.rules.infer_ducky import (
    SPARE_ZONE,
    DuckyInferrer,
    card_labels,
    expected_zones,
    gifts_zone,
    log_zone,
    pad_labels,
    pawn_label,
    pile_zone,
    river_zone,
)
from ducktable.rules.snapshot import HIDDEN, TableSnapshot, ZoneRead

COLOURED = ("yellow", "green", "blue", "pink")
WHITE_CELLS = (3, 7, 13, 17)
RIVER = []
for _cell in range(20):
    if _cell in WHITE_CELLS:
        RIVER.append("white")
    else:
        RIVER.append(COLOURED[len([c for c in range(_cell) if c not in WHITE_CELLS]) % 4])
# cells: 0 yellow, 1 green, 2 blue, 4 pink, 5 yellow, ... 18 blue, 19 pink
P0_CARDS = ["card-blue-pink", "card-yellow-blue"]
P1_CARDS = ["card-green-green", "card-yellow-yellow"]


class Table:
    """The physical table of a 2-player Ducky Ducky match and a follower watching it."""

    def __init__(self) -> None:
        state = make_game("ducky").new_state(["Ann", "Ben"], observer=True)
        assert isinstance(state, DuckyState)
        self.follower = TableFollower(state, DuckyInferrer())
        self.zones: dict[str, list[str]] = {k: list(v) for k, v in expected_zones(state).items()}
        self.unsure: set[str] = set()  # zones the camera reads with low confidence
        self.ts = 0

    @property
    def state(self) -> DuckyState:
        assert isinstance(self.follower.state, DuckyState)
        return self.follower.state

    def _frame(self, covered: Iterable[str] = ()) -> list[Event]:
        self.ts += 66
        reads = {k: HIDDEN if k in covered else ZoneRead.of(v, 0.3 if k in self.unsure else 1.0)
                 for k, v in self.zones.items()}
        return [i.event for i in self.follower.feed(TableSnapshot(self.ts, reads)).applied]

    def lay(self, zones: Mapping[str, Sequence[str]], frames: int = 5) -> list[Event]:
        """A hand reaches over ``zones``, lays their new contents and leaves; then the table is
        shown for ``frames`` frames."""
        applied = self._frame(zones) + self._frame(zones)
        for name, labels in zones.items():
            self.zones[name] = list(labels)
        for _ in range(frames):
            applied += self._frame()
        return applied

    def kinds(self) -> list[tuple[str, int | None, dict]]:
        return [(i.event.type, i.event.seat, dict(i.event.data)) for i in self.follower.log]


def board(river: list[str] = RIVER, ducks: bool = True) -> dict[str, tuple[str, ...]]:
    zones = {river_zone(c): pad_labels(colour, ducks and colour != "white") for c, colour in enumerate(river)}
    zones[SPARE_ZONE] = pad_labels("white", False)
    return zones


def set_up() -> Table:
    table = Table()
    table.lay({**board(), log_zone(0): (pawn_label(0),), log_zone(2): (pawn_label(1),),
               pile_zone(0, 0): (P0_CARDS[0],), pile_zone(0, 1): (P0_CARDS[1],),
               pile_zone(1, 0): (P1_CARDS[0],), pile_zone(1, 1): (P1_CARDS[1],)})
    return table


def flowed() -> dict[str, tuple[str, ...]]:
    """The river after one flow from set-up: the white spare in at the entrance, cell 19's pink
    pad (its duck falling) out as the new spare."""
    zones = board(["white", *RIVER[:-1]])
    zones[river_zone(0)] = pad_labels("white", False)
    zones[SPARE_ZONE] = pad_labels("pink", True)
    return zones


def moved() -> Table:
    """Ann moved to log 1 (facing cell 3) and the river flowed: the pink duck that fell is hers."""
    table = set_up()
    table.lay({log_zone(0): (), log_zone(1): (pawn_label(0),)})
    table.lay(flowed())
    return table


def test_DUCKY_S1_setup_is_read_from_the_board_the_pawns_and_the_top_cards():
    table = set_up()
    assert table.kinds() == [("setup", None, {"river": RIVER, "pawns": [0, 2],
                                              "visible": [P0_CARDS, P1_CARDS]})]
    assert table.state.phase == "move" and table.follower.log[0].event.source == "camera"


def test_DUCKY_S1_no_setup_while_a_coloured_pad_still_lacks_its_duck():
    table = Table()
    zones = board()
    zones[river_zone(0)] = pad_labels("yellow", False)
    applied = table.lay({**zones, log_zone(0): (pawn_label(0),), log_zone(2): (pawn_label(1),),
                         pile_zone(0, 0): (P0_CARDS[0],), pile_zone(0, 1): (P0_CARDS[1],),
                         pile_zone(1, 0): (P1_CARDS[0],), pile_zone(1, 1): (P1_CARDS[1],)})
    assert applied == [] and table.state.phase == "setup"


def test_DUCKY_T1_T2_a_move_waits_for_the_river_to_flow():
    table = set_up()
    assert table.lay({log_zone(0): (), log_zone(1): (pawn_label(0),)}) == []  # pawn moved, pads not yet
    applied = table.lay(flowed())
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [("move", 0, {"log": 1})]
    assert table.state.pad_colour == ["white", *RIVER[:-1]]  # DUCKY-T2
    assert table.state.phase == "offer" and table.state.falling == "pink"  # DUCKY-T3: Ann can use it


def test_DUCKY_T2_a_river_that_did_not_flow_by_one_cell_is_held_for_a_person():
    table = set_up()
    table.lay({log_zone(0): (), log_zone(1): (pawn_label(0),)})
    wrong = flowed()
    wrong[river_zone(5)] = pad_labels("green", True)  # a pad misread, or laid wrongly
    assert table.lay(wrong, frames=4) == [] and table.follower.pending is None  # hands just left
    table.lay({}, frames=6)  # no hand over the river for more than FLOW_SETTLE_MS: judged as it is
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "move" and "flowing" in pending.why


def test_DUCKY_T2_a_river_half_slid_under_a_hand_waits_without_asking_anyone():
    """A hand slides the pads along cell by cell; the half-flowed river it leaves behind is not
    a wrong flow to ask a person about, only one not finished yet."""
    table = set_up()
    table.lay({log_zone(0): (), log_zone(1): (pawn_label(0),)})
    after = flowed()
    for done in (*range(0, 20, 3), 20):  # the hand is over the next three cells, then the spare
        ahead = [river_zone(c) for c in range(done, min(done + 3, 20))] or [SPARE_ZONE]
        for c in range(done):
            table.zones[river_zone(c)] = list(after[river_zone(c)])
        for _ in range(3):
            assert table._frame(ahead) == [] and table.follower.pending is None
    table.zones[SPARE_ZONE] = list(after[SPARE_ZONE])
    applied = []
    for _ in range(8):
        applied += table._frame()
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [("move", 0, {"log": 1})]
    assert table.follower.pending is None


def test_DUCKY_T3_the_fallen_duck_is_taken_onto_the_card_that_shows_it():
    table = moved()
    applied = table.lay({SPARE_ZONE: pad_labels("pink", False),
                         pile_zone(0, 0): card_labels(P0_CARDS[0], [False, True])})
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [("take", 0, {"pile": 0})]
    assert table.state.phase == "fish"


def take() -> Table:
    table = moved()
    table.lay({SPARE_ZONE: pad_labels("pink", False), pile_zone(0, 0): card_labels(P0_CARDS[0], [False, True])})
    return table


def test_DUCKY_T4_fishing_goes_onto_the_pile_whose_card_shows_the_duck():
    table = take()  # Ann faces cell 3, now the blue pad with its duck; both her cards want blue
    applied = table.lay({river_zone(3): pad_labels("blue", False),
                         pile_zone(0, 1): card_labels(P0_CARDS[1], [False, True])})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("fish", 0, {"pile": 1})]
    assert table.state.turns == 1 and table.state.active == 1  # nobody else could fish: next turn


def test_DUCKY_T4_a_fisher_has_passed_once_the_next_player_moves():
    table = take()
    assert table.lay({}) == []  # fishing leaves no mark: nothing is inferred from waiting
    applied = table.lay({log_zone(2): (), log_zone(3): (pawn_label(1),)})
    assert [(e.type, e.seat) for e in applied] == [("pass", 0)]
    assert table.state.phase == "move" and table.state.active == 1


def test_DUCKY_T4_no_pass_while_the_fishers_cards_are_read_unsure():
    """"Ann left the duck" says it is on none of her cards, so they must read clearly: a duck
    token on a slot of its own colour read unsure (rendered model-mode game, ducky seed 1)
    holds the pass for a person instead of applying it."""
    table = take()
    table.unsure.add(pile_zone(0, 1))
    assert table.lay({log_zone(2): (), log_zone(3): (pawn_label(1),)}) == []
    assert table.follower.pending is not None and table.follower.pending.event.type == "pass"
    assert "low confidence" in table.follower.pending.why


@pytest.mark.parametrize("fished", [
    {pile_zone(0, 1): card_labels(P0_CARDS[1], [False, True])},
    {pile_zone(0, 0): ("back",), gifts_zone(0): ("gift",)},  # the card completed: a gift now
    {pile_zone(0, 0): ("card-green-pink",)},  # the next card shown, the gift not yet read
], ids=["on-the-card", "card-completed", "next-card-shown"])
def test_DUCKY_T4_a_duck_read_on_a_card_only_after_the_next_move_is_asked(fished):
    """Fishing late and a reading that lagged the hands look the same to the camera (model mode,
    ducky seed 12: a card completed, turned into a gift and the next card shown were read only
    after the next player moved, and a pass was recorded where the player had fished): neither
    a fishing nor a pass is recorded; a person says which."""
    table = take()
    table.lay({log_zone(2): (), log_zone(3): (pawn_label(1),)}, frames=2)
    assert table.lay({river_zone(3): pad_labels("blue", False), **fished}) == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "pass"
    assert "in time" in pending.why or "did Ann fish" in pending.why, pending.why
    assert table.state.phase == "fish"


def test_DUCKY_T4_a_duck_read_on_the_card_only_after_the_next_move_is_asked_not_taken_for_a_pass():
    """Model mode, seed 8: the fisher's duck went onto the card under a hand, but the token (on
    a slot of its own colour) read unsure until after the next player had moved; the pass was
    applied. With no clear read of the card without the duck after the move, a person says."""
    table = take()
    table.unsure.add(pile_zone(0, 1))
    table.lay({river_zone(3): pad_labels("blue", False), pile_zone(0, 1): (P0_CARDS[1],)})
    # Ben moves and the river flows on: cell 3 shows another pad (no "the duck is gone" doubt)
    table.lay({log_zone(2): (), log_zone(3): (pawn_label(1),), river_zone(3): pad_labels("white", False)},
              frames=3)
    table.unsure.discard(pile_zone(0, 1))
    table.zones[pile_zone(0, 1)] = list(card_labels(P0_CARDS[1], [False, True]))
    assert [table._frame() for _ in range(6)] == [[]] * 6
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "pass" and "in time" in pending.why


def test_DUCKY_T5_a_completed_card_becomes_a_gift_then_the_next_card_and_the_ducks_come_back():
    table = take()
    applied = table.lay({river_zone(3): pad_labels("blue", False),
                         pile_zone(0, 0): ("back",), gifts_zone(0): ("gift",)})
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [("fish", 0, {"pile": 0})]
    assert table.state.gifts[0] == [P0_CARDS[0]]
    applied = table.lay({pile_zone(0, 0): ("card-green-pink",)})
    assert [(e.type, dict(e.data)) for e in applied] == [("uncover", {"card": "card-green-pink"})]
    applied = table.lay({river_zone(3): pad_labels("blue", True), SPARE_ZONE: pad_labels("pink", True)})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][0] == ("return", 0, {"pads": [3, "spare"]})


def test_DUCKY_T5_a_completed_card_still_face_up_is_not_taken_for_the_next_card():
    table = take()
    table.lay({river_zone(3): pad_labels("blue", False), pile_zone(0, 0): card_labels(P0_CARDS[0], [True, True])})
    assert table.kinds()[-1][0] == "fish"
    assert table.lay({pile_zone(0, 0): (P0_CARDS[0],)}) == []  # ducks off, card not yet turned


def test_DUCKY_W1_the_last_pass_of_a_game_is_held_for_a_person():
    table = take()
    table.state.gifts[0] = ["card-green-green"] * 6  # Ann already holds six gifts
    assert table.lay({}) == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "pass" and "game ends" in pending.why
    assert table.follower.confirm().ok and table.state.is_over()


def test_DUCKY_T3_a_duck_appearing_on_a_card_with_no_hand_seen_is_held_for_a_person():
    table = moved()
    table.zones[pile_zone(0, 0)] = list(card_labels(P0_CARDS[0], [False, True]))  # no hand: a misread?
    table.zones[SPARE_ZONE] = list(pad_labels("pink", False))
    assert [e for _ in range(6) for e in table._frame()] == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "take" and "no hand" in pending.why


def test_DUCKY_T4_a_table_behind_moves_entered_by_hand_shows_no_move_and_no_pass():
    """Moves entered by hand before the table shows them (or after the camera stopped: ducky
    seed 12, a replay cut short, where the person entered the rest of the game) leave each pawn
    on the log it stood on before: that old reading is no move of the next player, so no pass
    is inferred for the fisher, who has not acted yet."""
    table = set_up()
    for event in (Event("move", 0, {"log": 1}), Event("take", 0, {"pile": 0}), Event("pass", 0),
                  Event("move", 1, {"log": 3}), Event("take", 0, {"pile": 1})):
        assert table.follower.manual(Event(event.type, event.seat, event.data, table.ts, "manual")).ok
    state = table.state
    assert state.phase == "fish" and state.active == 1 and state.could_fish(1).ok  # Ben faces a yellow duck
    assert state.pawns == [1, 3] and table.zones[log_zone(0)] == [pawn_label(0)]  # the table lags
    assert table.lay({}, frames=8) == []
    assert [i.event.type for i in table.follower.log if i.event.source == "camera"] == ["setup"]
    assert table.follower.pending is None and state.phase == "fish"


def test_DUCKY_T1_a_pawn_moved_before_the_setup_was_confirmed_by_hand_still_moved():
    """A move entered (or confirmed) by hand is stamped when the person entered it, later than
    the table showed it: a pawn read on its new log before then has moved all the same (ducky
    seed 13: the set-up, held for a person, was confirmed after the first pawn had moved)."""
    table = Table()
    table.unsure.add(pile_zone(1, 1))
    table.lay({**board(), log_zone(0): (pawn_label(0),), log_zone(2): (pawn_label(1),),
               pile_zone(0, 0): (P0_CARDS[0],), pile_zone(0, 1): (P0_CARDS[1],),
               pile_zone(1, 0): (P1_CARDS[0],), pile_zone(1, 1): (P1_CARDS[1],)})
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "setup"
    table.lay({log_zone(0): (), log_zone(1): (pawn_label(0),)})
    setup = Event("setup", None, pending.event.data, table.ts, "manual")
    assert table.follower.confirm(setup).ok and table.follower.log[-1].event.ts == table.ts
    applied = table.lay(flowed())
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [("move", 0, {"log": 1})]


def set_up_under_a_hand_but_one_card() -> Table:
    """A hand lays the whole set-up over two frames, then leaves: every zone reads its cards but
    Ben's second pile, which reads empty."""
    table = Table()
    zones = {**board(), log_zone(0): (pawn_label(0),), log_zone(2): (pawn_label(1),),
             pile_zone(0, 0): (P0_CARDS[0],), pile_zone(0, 1): (P0_CARDS[1],),
             pile_zone(1, 0): (P1_CARDS[0],), pile_zone(1, 1): (P1_CARDS[1],)}
    table._frame(zones)
    table._frame(zones)
    for name, labels in zones.items():
        if name != pile_zone(1, 1):
            table.zones[name] = list(labels)
    return table


def test_DUCKY_S1_a_card_read_missing_once_as_the_hand_leaves_was_still_laid_by_that_hand():
    """The hand laying the set-up leaves; in the next frame its fingers still hide one pile's
    card (the frame is not marked covered there: the pile reads empty), then the card reads.
    That hand laid the card (ducky seed 13: the set-up was held as a change no hand made, and
    the first move came before anyone confirmed it)."""
    table = set_up_under_a_hand_but_one_card()
    table._frame()  # the hand has gone, but pile 1 of Ben still reads empty
    table.zones[pile_zone(1, 1)] = [P1_CARDS[1]]
    for _ in range(5):
        table._frame()
    assert table.follower.pending is None
    assert [kind for kind, _, _ in table.kinds()] == ["setup"]


def test_DUCKY_S1_a_card_appearing_long_after_the_last_hand_there_is_still_held():
    """Only a hand just before the change counts: a card read where a hand was a second ago
    and nothing since is a change no hand made."""
    table = set_up_under_a_hand_but_one_card()
    for _ in range(12):  # 0.8 s of the pile read empty with no hand
        table._frame()
    table.zones[pile_zone(1, 1)] = [P1_CARDS[1]]
    for _ in range(5):
        table._frame()
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "setup" and "no hand" in pending.why


def test_DUCKY_T3_a_take_the_table_moved_past_unseen_is_asked_and_the_rest_is_caught_up():
    """Model mode, seed 17: the taker laid the fallen duck on a card and at once fished the
    duck that completed it, while the camera read that pile as covered (a wooden table passing
    for skin); it next saw the card turned into a gift. The take is not applied from that, but
    a person is asked which card took the duck (the camera used to fall silent for the rest of
    the game, nothing pending); once they say, the fishing is read from the table."""
    table = moved()
    table.lay({SPARE_ZONE: pad_labels("pink", False), river_zone(3): pad_labels("blue", False),
               pile_zone(0, 0): ("back",), gifts_zone(0): ("gift",)})
    assert table.kinds()[-1][0] == "move"  # nothing applied from the jump
    pending = table.follower.pending
    assert pending is not None and not pending.certain
    assert (pending.event.type, pending.event.seat, dict(pending.event.data)) == ("take", 0, {"pile": 0})
    assert "which card took it" in pending.why
    assert table.follower.confirm().ok
    assert table.kinds()[-2:] == [("take", 0, {"pile": 0}), ("fish", 0, {"pile": 0})]
    assert table.follower.log[-1].why != "confirmed by hand" and table.state.gifts[0] == [P0_CARDS[0]]


def test_DUCKY_T3_no_take_is_asked_while_the_taker_s_card_is_still_under_a_hand():
    """The duck gone from the spare pad while the hand is still over the card is a take under
    way: nothing to ask yet."""
    table = moved()
    table.zones[SPARE_ZONE] = list(pad_labels("pink", False))
    for _ in range(6):
        assert table._frame([pile_zone(0, 0)]) == []
    assert table.follower.pending is None
