"""Sitting Ducks events inferred from hand-made table snapshots (line changes checked
against the action card shown).

Each test lays cards as players would (the convention in ``rules/infer_sitting.py``): a hand
reaches over what changes, lays it, and leaves; then the table is shown for a while. Three
players (blue, green, orange); the first line is water, blue, green, water, orange, water, so
seat 0 (blue) starts (SIT-S2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ducktable.rules import Event, make_game
from ducktable.rules.infer_base import TableFollower
from ducktable.rules.infer_sitting import PLAYED_ZONE, SittingInferrer, expected_zones, line_zone
from ducktable.rules.sitting import SittingDucksState
from ducktable.rules.snapshot import snapshot_of

FIRST_LINE = ["water", "duck-blue", "duck-green", "water", "duck-orange", "water"]


class Table:
    """The physical table of a 3-player Sitting Ducks match and a follower watching it."""

    def __init__(self) -> None:
        state = make_game("sitting").new_state(["Ann", "Ben", "Cat"], observer=True)
        assert isinstance(state, SittingDucksState)
        self.follower = TableFollower(state, SittingInferrer())
        self.zones: dict[str, list[str] | None] = {k: list(v) for k, v in expected_zones(state).items()}
        self.ts = 0

    @property
    def state(self) -> SittingDucksState:
        assert isinstance(self.follower.state, SittingDucksState)
        return self.follower.state

    def _frame(self, covered: Iterable[str] = ()) -> list[Event]:
        self.ts += 66
        zones = {k: (None if k in covered else v) for k, v in self.zones.items()}
        return [i.event for i in self.follower.feed(snapshot_of(self.ts, zones)).applied]

    def _blank_frame(self, blank: Iterable[str]) -> list[Event]:
        """A frame in which ``blank`` read no card: a hand the hand watch missed hid them."""
        self.ts += 66
        zones = {k: ([] if k in blank else v) for k, v in self.zones.items()}
        return [i.event for i in self.follower.feed(snapshot_of(self.ts, zones)).applied]

    def lay(self, zones: Mapping[str, Iterable[str]], frames: int = 12, unseen_hand: bool = False) -> list[Event]:
        """A hand reaches over ``zones``, lays their new contents, leaves; then ``frames`` frames.
        ``unseen_hand``: the hand watch misses it in its first frames (a hand of a colour it does
        not take for skin), which read those zones empty instead of covered."""
        applied = []
        for _ in range(2):
            applied += self._blank_frame(zones) if unseen_hand else self._frame(zones)
        for name, labels in zones.items():
            self.zones[name] = list(labels)
        applied += self._frame(zones)
        for _ in range(frames):
            applied += self._frame()
        return applied

    def wait(self, frames: int = 12) -> list[Event]:
        return [e for _ in range(frames) for e in self._frame()]

    def kinds(self) -> list[tuple[str, int | None, dict]]:
        return [(i.event.type, i.event.seat, dict(i.event.data)) for i in self.follower.log]


def line(*cards: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Line zones from each position's labels, front first (missing positions are empty)."""
    return {line_zone(p): cards[p - 1] if p <= len(cards) else () for p in range(1, 7)}


def dealt() -> Table:
    table = Table()
    table.lay(line(*[(c,) for c in FIRST_LINE]))
    return table


def test_SIT_S1_shuffles_and_draws_are_applied_when_due_and_the_first_line_is_read():
    table = dealt()
    kinds = [k for k, _, _ in table.kinds()]
    assert kinds[:3] == ["shuffle", "reveal", "shuffle"] and kinds[3:] == ["draw"] * 9
    assert table.kinds()[1][2] == {"cards": FIRST_LINE}
    assert table.state.to_move() == 0  # SIT-S2: blue lies frontmost


def test_SIT_A1_aim_is_read_from_the_card_on_the_pile_and_the_new_target():
    table = dealt()
    assert table.lay({PLAYED_ZONE: ["action-aim"]}) == []  # the card first: its effect is to come
    applied = table.lay({line_zone(3): ["duck-green", "target"]})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:2] == [("aim", 0, {"position": 3}), ("draw", 0, {})]


def aimed() -> Table:
    table = dealt()
    table.lay({PLAYED_ZONE: ["action-aim"]})
    table.lay({line_zone(3): ["duck-green", "target"]})
    return table


def test_SIT_A4_billy_the_duck_and_fire_leave_the_same_line_so_the_card_decides():
    table = aimed()
    table.lay({PLAYED_ZONE: ["action-billy-the-duck"]})
    applied = table.lay(line(("water",), ("duck-blue",), ("water",), ("duck-orange",), ("water",), ()))
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [("billy_the_duck", 1, {"position": 3})]
    assert table.state.shot == [0, 1, 0]  # SIT-T2: the green duck went to its owner
    applied = table.lay({line_zone(6): ["duck-blue"]})  # the pond refills the last place
    assert [(e.type, dict(e.data)) for e in applied][:1] == [("reveal", {"cards": ["duck-blue"]})]


def test_SIT_A2_fire_may_be_laid_after_its_change_in_the_line():
    table = aimed()
    assert table.lay(line(("water",), ("duck-blue",), ("water",), ("duck-orange",), ("water",), ())) == []
    applied = table.lay({PLAYED_ZONE: ["action-fire"]})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("fire", 1, {"position": 3})]


def test_SIT_T1_a_line_change_without_a_new_card_is_held_for_a_person():
    table = dealt()
    assert table.lay({line_zone(3): ["duck-green", "target"]}) == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "aim" and "no new action card" in pending.why


def test_SIT_T1_a_change_the_card_shown_cannot_make_is_held_for_a_person():
    table = dealt()
    table.lay({PLAYED_ZONE: ["action-duck-march"]})
    assert table.lay({line_zone(3): ["duck-green", "target"]}) == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "aim" and "action-duck-march" in pending.why


def test_SIT_T1_a_card_with_no_legal_play_and_no_change_is_a_discard():
    table = dealt()
    applied = table.lay({PLAYED_ZONE: ["action-fire"]})  # no target anywhere: Fire cannot be played
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("discard", 0, {"action": "fire"})]


def test_SIT_T1_a_hand_over_a_pile_whose_top_looks_the_same_is_held_for_a_person():
    table = dealt()
    table.lay({PLAYED_ZONE: ["action-fire"]})
    assert table.lay({PLAYED_ZONE: ["action-fire"]}) == []  # Ben's Fire on Ann's, or just a hand?
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "discard" and "looks like" in pending.why


def test_SIT_T1_a_hand_over_a_pile_that_is_then_emptied_counts_for_nothing():
    """Model mode, seed 19: a hand over the pile (maybe a card like the top) was still counted
    after the pile was gathered into a new deck; with the next Fire that made two cards for one
    turn, and once a person entered that turn the Fire counted for the next player's turn."""
    table = dealt()
    table.lay({PLAYED_ZONE: ["action-fire"]})  # Ann cannot play Fire: a discard
    assert table.lay({PLAYED_ZONE: ["action-fire"]}) == []  # a hand, or Ben's Fire on Ann's?
    table.follower.reject()
    table.lay({PLAYED_ZONE: []})  # the pile is gathered up
    applied = table.lay({PLAYED_ZONE: ["action-fire"]})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("discard", 1, {"action": "fire"})]


def test_SIT_T1_a_change_is_taken_only_once_the_line_is_free_of_hands():
    table = dealt()
    table.lay({PLAYED_ZONE: ["action-aim"]})
    assert table.lay({line_zone(3): ["duck-green", "target"]}, frames=5) == []  # read, but a hand just left
    assert [e.type for e in table.wait(8)][:1] == ["aim"]


def test_SIT_A15_bottoms_up_lies_on_its_duck_instead_of_the_pile():
    table = dealt()
    applied = table.lay({line_zone(2): ["duck-blue", "action-bottoms-up"]})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("bottoms_up", 0, {"position": 2})]
    assert table.state.gallery.spot(2).bottoms_up == 0


def test_SIT_A15_a_bottoms_up_read_on_the_line_in_a_turn_that_laid_a_card_on_the_pile_is_asked():
    """Model mode, seed 9: Ann discarded Two at One Blow while the line reader took a duck for
    one with a Bottoms Up card on it; the Bottoms Up was applied. A turn plays one card: a new
    card on the pile and a Bottoms Up on the line cannot both be this turn's."""
    table = dealt()
    applied = table.lay({PLAYED_ZONE: ["action-fire"], line_zone(2): ["duck-blue", "action-bottoms-up"]})
    assert applied == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "bottoms_up" and "one card" in pending.why


def test_SIT_A15_no_bottoms_up_is_taken_while_the_pile_is_still_under_a_hand():
    """The same game: the card Ann laid was under a hand (the skin test on a warm table) until
    after the Bottoms Up settled on the line, so nothing on the pile said a card was laid."""
    table = dealt()
    table.zones[PLAYED_ZONE] = ["action-fire"]
    table.zones[line_zone(2)] = ["duck-blue", "action-bottoms-up"]
    for _ in range(3):
        table._frame({PLAYED_ZONE, line_zone(2)})
    assert [e for _ in range(12) for e in table._frame({PLAYED_ZONE})] == []
    assert table.wait() == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "bottoms_up" and "one card" in pending.why


def test_SIT_A15_an_expired_bottoms_up_still_lying_on_the_line_is_no_new_play():
    table = dealt()
    table.lay({line_zone(2): ["duck-blue", "action-bottoms-up"]})
    table.lay({PLAYED_ZONE: ["action-aim"]})
    assert [e.type for e in table.lay({line_zone(4): ["water", "target"]})][:1] == ["aim"]  # Ben
    table.lay({PLAYED_ZONE: ["action-move-right"]})
    applied = table.lay({line_zone(4): ["water"], line_zone(5): ["duck-orange", "target"]})  # Cat
    assert [e.type for e in applied][:1] == ["move_right"]
    assert table.state.to_move() == 0 and table.state.gallery.spot(2).bottoms_up is None  # expired
    assert table.wait() == []  # the card still lies on the duck: not a new Bottoms Up
    table.lay({line_zone(2): ["duck-blue"], PLAYED_ZONE: ["action-bottoms-up"]})  # taken off
    table.lay({PLAYED_ZONE: ["action-aim"]})
    applied = table.lay({line_zone(1): ["water", "target"]})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("aim", 0, {"position": 1})]


def test_SIT_A12_a_duck_shuffle_that_leaves_the_line_as_it_was_is_held_for_a_person():
    table = dealt()
    assert table.lay({PLAYED_ZONE: ["action-duck-shuffle"]}) == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "duck_shuffle"
    assert table.follower.confirm().ok and table.state.to_move() == 1


def test_SIT_A12_a_duck_shuffle_is_read_as_the_arrangement_shown():
    table = dealt()
    table.lay({PLAYED_ZONE: ["action-duck-shuffle"]})
    applied = table.lay(line(("duck-orange",), ("duck-blue",), ("duck-green",), ("water",), ("water",), ("water",)))
    assert [(e.type, dict(e.data)) for e in applied][:1] == [("duck_shuffle", {"arrangement": [5, 2, 3, 1, 4, 6]})]


def test_SIT_A13_duck_dance_empties_the_line_then_the_pond_is_shuffled_and_a_new_line_dealt():
    table = dealt()
    table.lay({PLAYED_ZONE: ["action-duck-dance"]})
    applied = table.lay(line())
    assert [e.type for e in applied][:2] == ["duck_dance", "shuffle"]
    new = ["duck-green", "water", "duck-blue", "duck-blue", "water", "duck-orange"]
    applied = table.lay(line(*[(c,) for c in new]))
    assert [(e.type, dict(e.data)) for e in applied][:1] == [("reveal", {"cards": new})]


def test_SIT_T1_a_line_change_no_hand_was_seen_making_is_held_for_a_person():
    table = dealt()
    table.lay({PLAYED_ZONE: ["action-aim"]})
    table.zones[line_zone(3)] = ["duck-green", "target"]  # read so, yet nobody reached there
    assert table.wait() == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "aim" and "no hand" in pending.why


def test_SIT_T1_hands_passing_over_a_pile_whose_top_stays_the_same_count_as_one_card_laid():
    """Rendered games: an arm on its way to the line passes over the pile now and then, and an
    Aim laid on an Aim (the commonest cards) was counted as three cards laid and held for a
    person, as if a turn had gone unseen."""
    table = aimed()
    for _ in range(3):
        assert table.lay({PLAYED_ZONE: ["action-aim"]}, frames=4) == []  # the top looks the same
    applied = table.lay({line_zone(5): ["duck-orange", "target"]})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("aim", 1, {"position": 5})]


AFTER_FIRE_ON_3 = line(("water",), ("duck-blue",), ("water",), ("duck-orange",), ("water",), ())
"""The line once the green duck aimed at in position 3 is shot (the pond's card not yet laid)."""


def test_SIT_A2_an_arm_crossing_the_pile_on_its_way_to_the_line_lays_no_second_card():
    """Rendered games: the pile lies beside the line's back end, and the arm that shoots there
    passes over it; the top still read Fire, so one Fire counted as two cards laid and the turn
    was asked as if one had gone unseen."""
    table = aimed()
    table.lay({PLAYED_ZONE: ["action-fire"]})  # Ben's card first
    applied = table.lay({PLAYED_ZONE: ["action-fire"], **AFTER_FIRE_ON_3})  # the arm over pile and line
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("fire", 1, {"position": 3})]


def test_SIT_A2_an_arm_crossing_the_pile_before_its_card_is_laid_is_no_card_either():
    """The card laid after the change: the arm that made it crossed the pile, whose top (Ann's
    Aim) stayed; that was taken for a second card, and Ben's Fire then for one of two."""
    table = aimed()
    assert table.lay({PLAYED_ZONE: ["action-aim"], **AFTER_FIRE_ON_3}) == []  # no new card yet
    applied = table.lay({PLAYED_ZONE: ["action-fire"]})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("fire", 1, {"position": 3})]


def test_SIT_T1_a_hand_over_the_pile_alone_after_the_turns_card_may_be_a_second_card():
    """Only a reach that covered the line as well is taken for an arm on its way there: a hand
    over the pile alone may have laid the next player's card, like the top, and is asked."""
    table = aimed()
    table.lay({PLAYED_ZONE: ["action-fire"]})
    table.lay({PLAYED_ZONE: ["action-fire"]})  # Cat's Fire on Ben's, or a hand?
    assert table.lay(AFTER_FIRE_ON_3) == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "fire" and "2 cards" in pending.why


def test_SIT_A2_a_hand_over_the_pile_after_the_line_changed_is_no_second_card_when_its_card_cannot_make_that_change():
    """Sitting seed 14: the line changed first (the card to be laid after), a hand passed over
    the pile alone, its top unchanged, then the turn's card was laid. A turn unseen before this
    one would have laid its card before this change, and the top's card cannot make it: one
    card was laid this turn, not two."""
    table = aimed()
    assert table.lay(AFTER_FIRE_ON_3) == []  # the change first: no card yet
    assert table.lay({PLAYED_ZONE: ["action-aim"]}, frames=4) == []  # a hand; the top still reads Aim
    applied = table.lay({PLAYED_ZONE: ["action-fire"]})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("fire", 1, {"position": 3})]


def test_SIT_A2_a_hand_over_the_pile_while_the_line_was_still_changing_is_still_a_second_card():
    """Only a hand seen once the line read as it does at the end counts as passing: one seen
    while the line was half changed may have laid a card of a turn unseen, and is asked."""
    table = aimed()
    half = line(("water",), ("duck-blue",), (), ("water",), ("duck-orange",), ("water",))
    assert table.lay(half) == []  # the green duck taken off, the line not yet closed up
    assert table.lay({PLAYED_ZONE: ["action-aim"]}, frames=4) == []  # a hand; the top still reads Aim
    assert table.lay(AFTER_FIRE_ON_3) == []
    assert table.lay({PLAYED_ZONE: ["action-fire"]}) == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "fire" and "2 cards" in pending.why


def fire_on_the_pile_and_green_aimed_at() -> Table:
    """Ann aimed at the green duck (3), Ben at the orange (5), Cat shot the orange: a Fire
    tops the pile and Ann is to play, the green duck still aimed at."""
    table = aimed()
    table.lay({PLAYED_ZONE: ["action-aim"]})
    table.lay({line_zone(5): ["duck-orange", "target"]})
    table.lay({PLAYED_ZONE: ["action-fire"]})
    assert [e.type for e in table.lay({line_zone(5): ["water"], line_zone(6): []})][:1] == ["fire"]
    table.lay({line_zone(6): ["duck-blue"]})  # the pond refills the last place
    assert table.state.to_move() == 0
    return table


GREEN_SHOT = {line_zone(3): ["water"], line_zone(5): ["duck-blue"], line_zone(6): []}
"""The line once the green duck in position 3 is shot or taken off (Fire or Billy the Duck)."""


def test_SIT_A2_a_fire_laid_on_a_fire_before_its_change_is_taken_once_the_pile_is_left_alone():
    """Sitting seeds 10 and 16 (whole games): a Fire laid on a Fire, then its duck shot, was
    asked every time, since Billy the Duck leaves the same line and the hand over the pile
    might have laid nothing. A player who makes the change first lays its card at once; with
    the pile untouched for a second after the change, the hand laid this turn's card."""
    table = fire_on_the_pile_and_green_aimed_at()
    table.lay({PLAYED_ZONE: ["action-fire"]})  # Ann's Fire on Cat's: the top looks the same
    assert table.lay(GREEN_SHOT, frames=7) == []  # too soon: a card laid after may still come
    pending = table.follower.pending
    assert pending is not None and "looks like the one under it" in pending.why
    applied = table.wait(10)
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("fire", 0, {"position": 3})]


def test_SIT_A4_a_hand_over_the_pile_then_a_change_whose_card_comes_after_is_no_fire():
    """The same table, but the hand over the pile laid nothing, and the change's card (Billy
    the Duck) is laid just after the change: never taken for a Fire."""
    table = fire_on_the_pile_and_green_aimed_at()
    table.lay({PLAYED_ZONE: ["action-fire"]})  # a hand over the pile; no card
    assert table.lay(GREEN_SHOT, frames=7) == []
    assert table.lay({PLAYED_ZONE: ["action-billy-the-duck"]}) == []
    assert table.follower.pending is not None  # asked


def test_SIT_T1_a_hand_seen_over_the_pile_in_one_frame_lays_no_card():
    """Sitting seed 10 (whole game): a hand (or a shadow read as one) over the pile in a single
    frame, its top unchanged, counted as a card laid; with the turn's Fire that made two cards,
    and the Fire was asked as if a turn had gone unseen. Laying a card takes several frames."""
    table = aimed()
    table._frame({PLAYED_ZONE})
    assert table.wait(6) == []
    table.lay({PLAYED_ZONE: ["action-fire"]})
    applied = table.lay(AFTER_FIRE_ON_3)
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("fire", 1, {"position": 3})]


def test_SIT_A2_the_pond_card_laid_behind_the_line_is_no_part_of_the_change_it_waits_for():
    """Sitting seed 10: the pond's new card laid at the line's back end, beside the pile, by an
    arm over both, is no reach for the pile and no part of the play's change."""
    table = fire_on_the_pile_and_green_aimed_at()
    table.lay({PLAYED_ZONE: ["action-fire"]})
    table.lay(GREEN_SHOT, frames=5)
    applied = table.lay({line_zone(6): ["duck-green"], PLAYED_ZONE: ["action-fire"]}, frames=8)
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("fire", 0, {"position": 3})]


def test_SIT_A2_a_passing_hand_next_to_an_arm_crossing_the_pile_lays_no_second_card():
    """Sitting seed 14 (whole game): the arm that shot crossed the pile, and a hand passed over
    the pile alone in the next frame; the two frames were taken for a hand that stayed there,
    so a second card, and the turn was asked. A hand laying a card is over the pile alone for
    two frames in a row."""
    table = aimed()
    table.lay({PLAYED_ZONE: ["action-fire"]})  # Ben's card first
    assert table.lay({PLAYED_ZONE: ["action-fire"], **AFTER_FIRE_ON_3}, frames=0) == []  # the arm over both
    applied = table._frame({PLAYED_ZONE}) + table.wait()  # a hand passes the pile once
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("fire", 1, {"position": 3})]


def test_SIT_A2_a_fire_laid_on_a_fire_after_its_change_is_taken_once_the_pile_is_left_alone():
    """Sitting seed 14 (whole game): the duck shot first, then a Fire laid on a Fire; asked
    every time, since Billy the Duck leaves the same line. A card laid after the change lies on
    the pile within a second: with the top still a Fire then, the turn's card is a Fire."""
    table = fire_on_the_pile_and_green_aimed_at()
    assert table.lay(GREEN_SHOT, frames=4) == []  # the change first: no card yet
    assert table.lay({PLAYED_ZONE: ["action-fire"]}, frames=4) == []  # the top looks the same
    applied = table.wait(10)
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("fire", 0, {"position": 3})]


def test_SIT_A4_a_hand_over_the_pile_after_a_change_then_another_card_laid_is_no_fire():
    """The same table, but the hand over the pile laid nothing: the change's card (Billy the
    Duck) comes within the second, and is the turn's card."""
    table = fire_on_the_pile_and_green_aimed_at()
    table.lay(GREEN_SHOT, frames=2)
    table.lay({PLAYED_ZONE: ["action-fire"]}, frames=2)  # a hand; the top still reads Fire
    applied = table.lay({PLAYED_ZONE: ["action-billy-the-duck"]})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("billy_the_duck", 0, {"position": 3})]


def test_SIT_A4_a_change_guessed_before_its_card_is_seen_is_taken_as_the_card_laid_after_says():
    """Sitting seed 15 (whole game): a Duck March made before its card was laid was held as a
    guess (Billy the Duck on the front duck leaves the same line); the Duck March then laid was
    taken for a contradiction of that guess and asked."""
    table = aimed()
    assert table.lay(AFTER_FIRE_ON_3) == []  # Fire or Billy the Duck: no card yet
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "fire"  # the first card that fits
    applied = table.lay({PLAYED_ZONE: ["action-billy-the-duck"]})
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:1] == [("billy_the_duck", 1, {"position": 3})]


def test_SIT_T2_a_refill_like_the_card_that_lay_there_is_taken_when_the_place_was_seen_empty():
    """Sitting seed 12 (whole game): a Fire on a Fire was taken once the pile had been left
    alone; by then the pond's card, an orange duck like the one that had moved up from the
    last place, lay there, and the refill was asked as if that place might never have been
    emptied, though it had been read empty since the line last read as before the turn."""
    table = fire_on_the_pile_and_green_aimed_at()
    assert table.zones[line_zone(6)] == ["duck-blue"]
    table.lay({PLAYED_ZONE: ["action-fire"]})
    table.lay(GREEN_SHOT, frames=5)  # the blue duck behind moves up: the last place is empty
    applied = table.lay({line_zone(6): ["duck-blue"]})  # the pond's card, like the one that left
    assert [(e.type, e.seat, dict(e.data)) for e in applied][:2] == [
        ("fire", 0, {"position": 3}), ("reveal", None, {"cards": ["duck-blue"]})]


def test_SIT_T2_a_card_read_at_the_back_all_along_is_not_taken_for_the_refill():
    """The card behind moved up, but the last place never read empty: it may be the card that
    lay there before, not yet moved, so the refill is asked."""
    table = fire_on_the_pile_and_green_aimed_at()
    table.lay({PLAYED_ZONE: ["action-billy-the-duck"]})
    applied = table.lay({line_zone(3): ["water"], line_zone(5): ["duck-blue"]})  # the back untouched
    assert [e.type for e in applied] == ["billy_the_duck"]
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "reveal" and "before the last turn" in pending.why


def test_SIT_T1_a_change_no_hand_made_that_the_card_laid_cannot_make_is_a_misread_and_waits():
    """Sitting seeds 13 and 15 (whole games): a duck misread as water, with no hand there, left
    a line that a play of another card than the one laid could leave (here Billy the Duck, a
    Duck Dance laid); it was held as a guess, and the laid card's own change, made next, was
    taken for a contradiction of that guess and asked."""
    table = dealt()
    table.lay({line_zone(2): ["duck-blue", "action-bottoms-up"]})  # no new line could show it
    table.lay({PLAYED_ZONE: ["action-duck-dance"]})
    table.zones[line_zone(5)] = ["water"]  # the orange duck misread, no hand near it
    assert table.wait() == [] and table.follower.pending is None
    applied = table.lay(line())
    assert [e.type for e in applied][:2] == ["duck_dance", "shuffle"]


def test_SIT_T1_a_card_laid_on_a_like_one_under_a_hand_the_hand_watch_missed_is_still_a_card_laid():
    """Sitting seed 19 (whole game): a Fire laid on a Fire under a hand the hand watch missed in
    two of its three frames (the pile read empty) was taken for a hand passing by; the next
    player's No Time, which the missed player's duck could not make, was then recorded as that
    player's discard. A played pile keeps its cards: a frame that reads it empty hid its card."""
    table = dealt()
    table.lay({PLAYED_ZONE: ["action-duck-shuffle"]})
    table.lay(line(("duck-orange",), ("duck-blue",), ("duck-green",), ("water",), ("water",), ("water",)))
    table.lay({PLAYED_ZONE: ["action-fire"]})  # Ben: no target anywhere, a discard
    assert [k for k, _, _ in table.kinds()].count("discard") == 1
    table.lay({PLAYED_ZONE: ["action-fire"]}, unseen_hand=True)  # Cat's Fire on Ben's
    pending = table.follower.pending
    assert pending is not None and (pending.event.type, pending.event.seat) == ("discard", 2)
    table.lay({PLAYED_ZONE: ["action-turbo-duck"]})  # Ann's; Cat's orange duck is at the front
    assert ("discard", 2, {"action": "turbo_duck"}) not in table.kinds()
