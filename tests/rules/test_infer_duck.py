"""DUCK events inferred from hand-made table snapshots.

Each test lays cards as players would (the convention in ``rules/infer_duck.py``), feeds a few
identical frames through the tracker and checks what the follower applied or holds pending.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from ducktable.rules import Event, make_game
from ducktable.rules.decks import UNKNOWN
from ducktable.rules.duck import DuckState
from ducktable.rules.infer_base import Inference, TableFollower
from ducktable.rules.infer_duck import DEAL_READS, DuckInferrer
from ducktable.rules.snapshot import TableSnapshot, ZoneRead, middle_zone, seat_zone, snapshot_of


class Table:
    """The physical table of a 3-player DUCK match and a follower watching it."""

    def __init__(self, players: int = 3, **options: object) -> None:
        state = make_game("duck", dict(options)).new_state(["Ann", "Ben", "Cat", "Dan"][:players],
                                                           observer=True)
        assert isinstance(state, DuckState)
        self.follower = TableFollower(state, DuckInferrer())
        self.zones: dict[str, list[str] | None] = {
            seat_zone(s, k): [] for s in range(players) for k in ("discard", "reveal")
        }
        self.ts = 0
        self.confidence = 1.0  # of every card read in the frames to come

    @property
    def state(self) -> DuckState:
        assert isinstance(self.follower.state, DuckState)
        return self.follower.state

    def lay(self, frames: int = 5, hand: bool = True, **zones: list[str] | None) -> list[Event]:
        """A hand changes some zones (``s1_reveal=[...]``): it covers them for a frame (unless
        ``hand`` is False: the camera missed it), then the table shows for ``frames`` frames."""
        return self.lay_zones(zones, frames, hand)

    def lay_zones(self, zones: Mapping[str, list[str] | None], frames: int = 5, hand: bool = True) -> list[Event]:
        applied = []
        changed: dict[str, list[str] | None] = {}
        for key, labels in zones.items():
            seat, kind = key[1:].split("_")
            name = seat_zone(int(seat), kind)
            if self.zones[name] != labels:
                changed[key] = None
            self.zones[name] = labels
        if changed and hand:
            applied += self.glimpse(changed)
        for _ in range(frames):
            self.ts += 66
            snapshot = snapshot_of(self.ts, self.zones, 0, self.confidence)
            applied += [i.event for i in self.follower.feed(snapshot).applied]
        return applied

    def glimpse(self, *frames: Mapping[str, list[str] | None]) -> list[Event]:
        """Show one frame per dict: the table with those zones read differently (a hand over
        them: None, a misread card) in that frame only; the table itself does not change."""
        applied = []
        for overrides in frames:
            zones = dict(self.zones)
            for key, labels in overrides.items():
                zones[zone_named(key)] = labels
            self.ts += 66
            applied += [i.event for i in self.follower.feed(snapshot_of(self.ts, zones, 0, self.confidence)).applied]
        return applied

    def kinds(self) -> list[tuple[str, int | None, dict]]:
        return [(i.event.type, i.event.seat, dict(i.event.data)) for i in self.follower.log]


def zone_named(key: str) -> str:
    """``s1_reveal`` -> seat 1's reveal area; ``middle_draw`` -> the draw pile."""
    where, kind = key.split("_")
    return middle_zone(kind) if where == "middle" else seat_zone(int(where[1:]), kind)


SEVENS = ["red-7"] * 3 + ["blue-7"] * 3 + ["yellow-7"]
ONES = ["blue-1"] * 3 + ["red-1"] * 3 + ["yellow-1"]


def dealt() -> Table:
    table = Table()
    table.lay(s0_discard=["red-5"], frames=DEAL_READS)
    return table


def test_DUCK_S1_deal_is_read_from_the_dealers_face_up_card():
    table = dealt()
    assert table.kinds() == [("deal", None, {"face_up": ["red-5", None, None]})]
    event = table.follower.log[0].event
    assert event.source == "camera" and event.ts == 2 * 66  # the first frame after the hand
    assert table.state.turn == 1  # DUCK-S2: left of the dealer starts


def test_DUCK_S1_a_start_card_read_one_way_and_then_another_is_no_deal_yet():
    """Model-mode DUCK seed 16: the start card read yellow-8 at 0.99 for 7 frames after the
    dealer's hand, then yellow-0 (right) from then on; the deal waits for DEAL_READS reads in
    a row of one card (the change came with no hand, so a person confirms the card)."""
    table = Table()
    table.glimpse({"s0_discard": None})
    table.zones[seat_zone(0, "discard")] = ["yellow-8"]
    assert table.lay_zones({}, frames=DEAL_READS - 1, hand=False) == []
    table.zones[seat_zone(0, "discard")] = ["yellow-0"]
    assert table.lay_zones({}, frames=DEAL_READS + 3, hand=False) == []
    pending = table.follower.pending
    assert pending is not None and dict(pending.event.data) == {"face_up": ["yellow-0", None, None]}


def test_DUCK_S1_a_lone_card_on_the_dealers_pile_after_the_game_went_on_is_no_sure_deal():
    """Oracle DUCK seed 33 (3 players, 5% misreads): the start card was taken within a few
    frames (under DEAL_READS), play went on, and a later card alone on the dealer's pile looked
    like a fresh deal. Another pile had held a card since the table was cleared: asked."""
    table = Table()
    table.lay(s2_discard=["blue-7"])  # the next player's play: the start card went unseen
    table.lay(s2_discard=[])
    assert table.lay(s0_discard=["red-5"], frames=DEAL_READS + 2) == []
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "deal" and "may have been taken" in pending.why


def test_DUCK_S1_no_deal_while_a_non_dealer_pile_holds_a_card():
    table = Table()
    assert table.lay(s0_discard=["red-5"], s2_discard=["blue-1"]) == []


def test_DUCK_A1_A3_set_shown_then_stacked_puts_the_pushed_top_last():
    table = dealt()
    table.lay(s1_reveal=["blue-3", "red-3", "yellow-3"])
    assert table.state.phase == "play"  # shown, not yet stacked
    applied = table.lay(s1_reveal=[], s1_discard=["red-3"])
    assert [(e.type, e.data["cards"]) for e in applied] == [("play", ["blue-3", "yellow-3", "red-3"])]
    assert table.state.phase == "draw"


def test_DUCK_A2_run_is_ordered_so_the_visible_top_is_its_end():
    table = dealt()
    table.lay(s1_reveal=["yellow-4", "yellow-2", "yellow-3"])
    applied = table.lay(s1_reveal=[], s1_discard=["yellow-2"])
    assert applied[0].data["cards"] == ["yellow-4", "yellow-3", "yellow-2"]


def test_DUCK_A2_run_top_in_the_middle_is_held_for_a_person():
    table = dealt()
    table.lay(s1_reveal=["yellow-4", "yellow-2", "yellow-3"])
    assert table.lay(s1_reveal=[], s1_discard=["yellow-3"]) == []
    pending = table.follower.pending
    assert pending is not None and not pending.certain and "middle of the run" in pending.why


def test_DUCK_A2_a_runs_card_the_classifier_cannot_name_is_the_one_its_ends_leave():
    """Model-mode DUCK seeds 10 and 11: the middle card of a shown run read as unknown. Only one
    card makes [yellow-1, ?, yellow-3] a run, so the play is recorded with it."""
    table = dealt()
    table.lay(s1_reveal=["yellow-1", UNKNOWN, "yellow-3"])
    applied = table.lay(s1_reveal=[], s1_discard=["yellow-3"])
    assert [(e.type, e.data["cards"]) for e in applied] == [("play", ["yellow-1", "yellow-2", "yellow-3"])]


def test_DUCK_A2_a_runs_unnamed_end_is_told_by_the_top_the_pile_shows():
    table = dealt()
    table.lay(s1_reveal=[UNKNOWN, "blue-5", "blue-6"])
    applied = table.lay(s1_reveal=[], s1_discard=["blue-5"])  # an end: 5-6-7, not 4-5-6
    assert [(e.type, e.data["cards"]) for e in applied] == [("play", ["blue-7", "blue-6", "blue-5"])]


def test_DUCK_A1_a_sets_unnamed_card_is_held_unless_it_is_the_top_shown():
    """Any colour of the set's number fits an unnamed card under the top: a person says which.
    Laid last, the pile shows it."""
    table = dealt()
    table.lay(s1_reveal=[UNKNOWN, "red-3"])
    assert table.lay(s1_reveal=[], s1_discard=["red-3"]) == []
    pending = table.follower.pending
    assert pending is not None and "unknown is not a DUCK card" in pending.why
    other = dealt()
    other.lay(s1_reveal=[UNKNOWN, "red-3"])
    applied = other.lay(s1_reveal=[], s1_discard=["yellow-3"])
    assert [(e.type, e.data["cards"]) for e in applied] == [("play", ["red-3", "yellow-3"])]


def test_DUCK_A1_single_card_straight_onto_the_pile():
    table = dealt()
    applied = table.lay(s1_discard=["blue-7"])
    assert [(e.type, e.seat, e.data["cards"]) for e in applied] == [("play", 1, ["blue-7"])]


def test_DUCK_A1_a_top_card_alone_is_not_a_certain_play_when_the_reveal_area_was_hidden_during_the_draw():
    """Cat shows her cards under a hand while Ben still draws; then only her pile's new top is
    seen. More cards may have been shown than that one (model-mode game, duck seed 14: three
    cards played, one applied), so the play waits for a person."""
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    table.glimpse({"s2_reveal": None}, {"s2_reveal": None})
    assert [e.type for e in table.lay(s0_discard=[])] == ["draw"]
    assert table.lay(s2_discard=["yellow-5"]) == []
    pending = table.follower.pending
    assert pending is not None and "a hand was over the reveal area" in pending.why


def test_DUCK_A1_a_play_over_a_card_the_camera_was_unsure_of_is_not_certain():
    """Ben's pile shows a card read too unsurely to apply, and before anyone confirms it the
    cards he shows next go onto it: the unsure card was a play of its own (model-mode game,
    duck seed 0 with a higher confidence bar: the later play was applied in its place)."""
    table = dealt()
    table.confidence = 0.3
    assert table.lay(s1_discard=["yellow-5"]) == []
    table.confidence = 1.0
    table.lay(s1_reveal=["blue-8"])
    assert table.lay(s1_reveal=[], s1_discard=["blue-8"]) == []
    pending = table.follower.pending
    assert pending is not None and not pending.certain
    assert "showed yellow-5 before these cards" in pending.why


def test_DUCK_A1_a_play_read_with_the_confidence_of_a_typical_yellow_misread_is_asked():
    """Wrong reads of yellow cards came with a median confidence of 0.82 in model-mode games,
    right ones with 0.98: a play read at 0.85 waits for a person, one at 0.95 is applied."""
    table = dealt()
    table.confidence = 0.85
    assert table.lay(s1_discard=["yellow-8"]) == []
    pending = table.follower.pending
    assert pending is not None and "low confidence (0.85)" in pending.why
    table.confidence = 0.95
    applied = table.lay(s1_discard=["yellow-8"], frames=6)
    assert [(e.type, e.data["cards"]) for e in applied] == [("play", ["yellow-8"])]


def test_DUCK_A1_a_card_read_again_the_same_after_an_unsure_read_still_makes_the_play():
    """The unsure read and the play are one card: nothing is missing, the play is applied."""
    table = dealt()
    table.confidence = 0.3
    assert table.lay(s1_discard=["yellow-5"]) == []
    table.confidence = 1.0
    applied = table.lay(s1_discard=["yellow-5"], frames=6)
    assert [(e.type, e.data["cards"]) for e in applied] == [("play", ["yellow-5"])]


def test_DUCK_A4_taking_a_neighbours_top_card_is_a_draw_from_that_side():
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    applied = table.lay(s0_discard=[])  # seat 1 takes red-5 from seat 0 (its right, DUCK-S2)
    assert [(e.type, e.data) for e in applied] == [("draw", {"pile": "right"})]
    assert table.state.seats[1].hand["red-5"] == 1  # known to be in that hand now


def test_DUCK_A4_deck_draw_is_inferred_when_the_next_player_starts():
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    applied = table.lay(s2_reveal=["red-2", "blue-2"])
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [("draw", 1, {"pile": "deck"})]
    applied = table.lay(s2_reveal=[], s2_discard=["blue-2"])
    assert [(e.type, e.seat) for e in applied] == [("play", 2)]


def test_DUCK_A4_next_pile_changing_without_a_show_is_held_when_it_could_be_a_take():
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    table.lay(s2_reveal=["red-2"])  # deck draw by seat 1 (applied), seat 2 shows a card
    table.lay(s2_reveal=[], s2_discard=["red-2"])
    assert table.lay(s0_discard=["blue-1"]) == []  # seat 0 (left of 2) lays onto its own pile
    pending = table.follower.pending
    assert pending is not None and pending.event.data == {"pile": "deck"}
    assert "may have taken" in pending.why


def test_DUCK_B1_duck_is_seen_when_the_others_show_their_hands():
    table = dealt()
    table.lay(s1_reveal=["blue-1", "red-1", "yellow-1", "red-0", "blue-2", "red-2", "yellow-2"])
    assert table.state.phase == "play"  # shown alone: could still become a play
    assert table.state.phase == "play"
    applied = table.lay(s0_reveal=SEVENS, s2_reveal=["blue-6"] * 3 + ["red-6"] * 3 + ["yellow-6"])
    assert [e.type for e in applied] == ["duck", "reveal"]
    result = table.state.results[0]
    assert result.how == "ducked_right" and result.towel_cards[1] == "yellow-2"  # DUCK-B2, E2


def test_DUCK_A5_going_out_then_reveal_scores_the_round():
    table = dealt()
    table.state.seats[1].hand_count = 3  # a hand worn down to three cards (observer bookkeeping)
    table.lay(s1_reveal=["blue-4", "red-4", "yellow-4"])
    table.lay(s1_reveal=[], s1_discard=["red-4"])
    assert table.state.phase == "reveal"
    applied = table.lay(s0_reveal=SEVENS, s2_reveal=ONES)
    assert [e.type for e in applied] == ["reveal"]
    assert table.state.results[0].how == "out" and table.state.phase == "deal"


def test_DUCK_E3_next_deal_waits_until_the_table_was_cleared():
    table = dealt()
    table.state.seats[1].hand_count = 1
    table.lay(s1_discard=["blue-4"])
    table.lay(s0_reveal=SEVENS, s2_reveal=ONES)
    assert table.state.round == 1
    assert table.lay(s0_reveal=[], s2_reveal=[]) == []  # piles still lying there
    assert table.lay(s0_discard=[], s1_discard=[]) == []
    applied = table.lay(s1_discard=["yellow-6"], frames=DEAL_READS)  # round 2: seat 1 deals (DUCK-S2)
    assert [(e.type, dict(e.data)) for e in applied] == [("deal", {"face_up": [None, "yellow-6", None]})]


def test_unrecognised_card_is_held_not_applied():
    table = dealt()
    for _ in range(5):
        table.ts += 66
        zones = {n: ZoneRead.of(v or []) for n, v in table.zones.items()}
        zones[seat_zone(1, "discard")] = ZoneRead.of([UNKNOWN], 0.2)
        table.follower.feed(TableSnapshot(table.ts, zones))
    assert table.state.phase == "play"
    assert table.follower.pending is not None and "could not be recognised" in table.follower.pending.why


def test_rules_refusal_is_held_with_the_reason():
    """A play the rules refuse (DUCK-A2: not a run) is never applied; the reason is kept."""
    table = dealt()
    table.lay(s1_reveal=["yellow-4", "blue-2"])
    assert table.lay(s1_reveal=[], s1_discard=["blue-2"]) == []
    assert "rules refuse" in table.follower.pending.why


def test_confirming_a_pending_event_applies_it_and_following_continues():
    table = dealt()
    table.lay(s1_reveal=["yellow-4", "yellow-2", "yellow-3"])
    table.lay(s1_reveal=[], s1_discard=["yellow-3"])
    verdict = table.follower.confirm(Event("play", 1, {"cards": ["yellow-2", "yellow-4", "yellow-3"]}))
    assert not verdict.ok  # still not a run in that order: nothing applied
    assert table.follower.confirm(Event("play", 1, {"cards": ["yellow-2", "yellow-3", "yellow-4"]})).ok
    assert table.state.phase == "draw"


def test_duck_called_by_hand_is_accepted():
    table = dealt()
    assert table.follower.manual(Event("duck", 1)).ok
    assert table.state.phase == "reveal"



def stack(table: Table, seat: int, top: str) -> list[Event]:
    """A hand pushes the shown cards of ``seat`` onto its pile (covering both for two frames)."""
    hand: dict[str, list[str] | None] = {f"s{seat}_reveal": None, f"s{seat}_discard": None}
    return table.glimpse(hand, hand) + table.lay_zones({f"s{seat}_reveal": [], f"s{seat}_discard": [top]})


def round_trip() -> Table:
    """Two turns around the table (deck draws inferred when the next player shows cards):
    seat 2's pile ends with two red-2 on top, and seat 0 has just played blue-3."""
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    for seat, card in ((2, "red-2"), (0, "yellow-3"), (1, "yellow-1"), (2, "red-2"), (0, "blue-3")):
        table.lay_zones({f"s{seat}_reveal": [card]})  # the previous player drew from the deck
        stack(table, seat, card)
    assert [e.type for e in (i.event for i in table.follower.log)].count("play") == 6
    assert table.state.phase == "draw" and table.state.turn == 0
    return table


def test_DUCK_A3_look_alike_play_waits_until_the_pile_is_read_again_after_the_hand():
    """A pile still read as before the hand came must not pass for "the top looks the same":
    seat 1 shows yellow-1 and red-1 on a yellow-1 pile and stacks them with red-1 on top, and
    the first reads after the hand are unsure (oracle replay, 4 players, seed 8 applied such a
    play with the wrong card on top)."""
    table = round_trip()
    table.lay(s1_reveal=["yellow-1", "red-1"])  # seat 1 shows a set
    assert table.follower.confirm(Event("draw", 0, {"pile": "deck"})).ok  # look-alike: by hand
    hand: dict[str, list[str] | None] = {"s1_reveal": None, "s1_discard": None}
    applied = table.glimpse(hand, hand, *({"s1_reveal": [], "s1_discard": [c]}
                                          for c in ("red-1", "blue-1", "red-1", "red-1", "red-1")))
    assert [(e.type, e.seat, e.data["cards"]) for e in applied] == [("play", 1, ["yellow-1", "red-1"])]


def test_DUCK_A4_take_is_held_when_the_next_player_had_shown_the_card_now_on_top():
    """Seat 1 (next after 0) shows yellow-1 while seat 0's draw is unsure, then stacks it on
    its pile, whose card under the top is also yellow-1: that looks exactly like seat 0 taking
    seat 1's top card, so it is held, not applied (oracle replay, 4 players, seed 73)."""
    table = round_trip()
    table.lay(s1_reveal=[UNKNOWN])  # an unreadable card: seat 0's deck draw waits for a person
    assert table.follower.pending is not None and table.state.phase == "draw"
    table.lay(s1_reveal=["blue-7"])
    assert table.lay(s1_reveal=[], s1_discard=["blue-7"]) == []  # blue-7 was under yellow-1
    pending = table.follower.pending
    assert pending is not None and pending.event.data == {"pile": "left"}
    assert "already started" in pending.why


def test_waiting_event_stays_pending_when_its_evidence_goes_away():
    table = round_trip()
    table.lay(s1_reveal=["yellow-1"])  # seat 2's pile shows red-2 on red-2: deck or take?
    pending = table.follower.pending
    assert pending is not None and "two equal cards" in pending.why
    hand: dict[str, list[str] | None] = {"s1_reveal": None, "s1_discard": None}
    table.glimpse(hand, hand)
    table.lay(s1_reveal=[])  # stacked onto the yellow-1 already on top: nothing to see
    assert table.follower.pending == pending


def test_confirmed_event_lets_the_follower_replay_what_the_table_did_meanwhile():
    """While seat 0's draw waits for a person, seat 1 plays and takes seat 0's top card, and
    seat 2 starts. Read from the final table alone, that take is unsure (seat 2 had already
    started); walking the kept moments, it is seen before seat 2 started (DUCK-A4)."""
    table = round_trip()
    table.lay(s1_reveal=["blue-1"])
    assert table.follower.pending is not None  # look-alike pile: seat 0's draw is unsure
    table.lay(s1_reveal=[], s1_discard=["blue-1"])
    table.lay(s0_discard=["yellow-3"])  # seat 1 takes blue-3 from seat 0 (its right)
    table.lay(s2_reveal=["red-3"])
    assert len(table.follower.log) == 12  # still waiting at seat 0's draw
    assert table.follower.confirm(Event("draw", 0, {"pile": "deck"})).ok
    assert table.kinds()[13:] == [("play", 1, {"cards": ["blue-1"]}), ("draw", 1, {"pile": "right"})]
    assert table.follower.pending is None and table.state.turn == 2


def test_DUCK_A1_a_card_that_changed_with_no_hand_seen_is_held_as_a_likely_misread():
    """Cards do not move by themselves: a classifier that starts reading a 3 as a 2 must not
    make a play (rendered frames, model labels)."""
    table = round_trip()
    assert table.kinds()[-1:] == [("play", 0, {"cards": ["blue-3"]})]
    table.lay(s1_discard=["blue-7"])  # seat 0 takes yellow-1 from seat 1 (its left)
    assert table.kinds()[-1:] == [("draw", 0, {"pile": "left"})]
    assert table.lay(s1_discard=["blue-1"], hand=False) == []  # blue-7 now read as blue-1
    pending = table.follower.pending
    assert pending is not None and "no hand seen" in pending.why
    applied = table.lay(s1_discard=["red-4"])  # a hand lays red-4: that is a play
    assert [(e.type, e.seat, e.data) for e in applied] == [("play", 1, {"cards": ["red-4"]})]


def test_DUCK_A4_deck_draw_is_held_while_another_pile_shows_what_no_event_explains():
    """Seat 0's pile reads blue-5 where red-5 lies: the reads the draw rests on may be as
    wrong, so it waits for a person (rendered frames, model labels)."""
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    table.lay(s0_discard=["blue-5"], s2_reveal=["red-2"])
    assert [e.type for e in (i.event for i in table.follower.log)] == ["deal", "play"]
    pending = table.follower.pending
    assert pending is not None and pending.event.data == {"pile": "deck"}
    assert "seat 1's pile shows blue-5 where red-5 should lie" in pending.why


def test_cards_shown_before_a_play_entered_by_hand_are_not_taken_for_a_later_play():
    """The follower walks table moments again after a person enters an event; cards it sees
    shown there belong to the play just entered, not to the seat's next one."""
    table = round_trip()
    table.lay(s1_reveal=["yellow-1"])  # seat 0's draw is unsure (seat 2's red-2 on red-2)
    assert table.follower.confirm(Event("draw", 0, {"pile": "deck"})).ok
    table.lay(s1_reveal=[], hand=False)  # stacked onto the yellow-1 on top, the hand unseen
    assert table.state.phase == "play" and table.state.turn == 1  # nothing to see
    assert table.follower.manual(Event("play", 1, {"cards": ["yellow-1"]})).ok
    assert 1 not in table.follower.inferrer._staged  # (private) nothing kept for seat 1's next turn


class Scripted(DuckInferrer):
    """Proposes what the test says, to check the follower's own rules."""

    def __init__(self) -> None:
        super().__init__()
        self.next: Inference | None = None

    def propose(self, state, table):
        return self.next


def test_a_sure_event_contradicting_the_one_waiting_waits_too():
    """A take seen late waits for a person; when the next player's play then hides it, the
    camera's sure "deck" must not overrule it (rendered frames, model labels, seed 3)."""
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    follower = TableFollower(table.state, Scripted(), table.follower.tracker)
    take = Event("draw", 1, {"pile": "right"}, 10, "camera")
    follower.inferrer.next = Inference(take, False, "seen late")
    follower.advance()
    follower.inferrer.next = Inference(Event("draw", 1, {"pile": "deck"}, 20, "camera"), True, "")
    step = follower.advance()
    assert step.applied == [] and step.pending is not None and not step.pending.certain
    assert "first saw signs of a draw by seat 2 (pile right)" in step.pending.why
    follower.inferrer.next = Inference(take, True, "now clear")  # the same take, now sure
    assert [i.event for i in follower.advance().applied] == [take]


def test_DUCK_A5_reveal_read_unsurely_waits_for_a_person():
    """The reveal scores the round at once, so its cards must be read surely (rendered
    frames, model labels: a 3 read as a 2 with confidence 0.65-0.77 scored a round wrong)."""
    table = dealt()
    table.state.seats[1].hand_count = 1
    table.lay(s1_discard=["blue-4"])
    assert table.state.phase == "reveal"
    table.lay(s0_reveal=SEVENS, s2_reveal=ONES, frames=1)
    for _ in range(5):
        table.ts += 66
        zones = {n: ZoneRead.of(v or []) for n, v in table.zones.items()}
        zones[seat_zone(2, "reveal")] = ZoneRead.of(ONES, 0.7)
        table.follower.feed(TableSnapshot(table.ts, zones))
    pending = table.follower.pending
    assert table.state.phase == "reveal" and pending is not None and pending.event.type == "reveal"
    assert "below the 0.90 a scored reveal needs" in pending.why
    table.lay(s2_reveal=ONES, frames=6)  # read surely again: scored
    assert table.state.phase == "deal"


def test_DUCK_A4_a_take_whose_uncovered_card_is_misread_is_not_a_deck_draw():
    """Seat 1 takes blue-5 from seat 2's pile and the yellow-5 beneath is read as yellow-8,
    every frame; seat 2 then shows its next card. Nothing explains a yellow-8 on that pile, so
    the draw waits for a person instead of becoming a draw from the deck (rendered frames,
    model labels, DUCK seed 5)."""
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    table.lay(s2_reveal=["yellow-5", "blue-5"])  # seat 1 drew from the deck
    stack(table, 2, "blue-5")
    for seat, card in ((0, "red-2"), (1, "red-4")):
        table.lay_zones({f"s{seat}_reveal": [card]})
        stack(table, seat, card)
    assert table.state.phase == "draw" and table.state.turn == 1
    assert table.lay(s2_discard=["yellow-8"]) == []  # the take, misread
    assert table.lay(s2_reveal=["yellow-7"]) == []  # seat 2 starts its turn
    pending = table.follower.pending
    assert pending is not None and pending.event.type == "draw"
    assert "seat 3's pile shows yellow-8, which neither a take" in pending.why


def test_DUCK_A3_cards_shown_while_the_pile_top_is_misread_still_make_the_play():
    """Seat 1 lays red-4 and blue-4 out and from then on its pile's red-6 is read as red-8
    (the light changed with the new cards); when the two go onto the pile, the play is both
    cards, not blue-4 alone (rendered frames, model labels, DUCK seed 7)."""
    table = dealt()
    table.lay(s1_discard=["red-6"])
    table.lay(s2_reveal=["red-1"])  # seat 1 drew from the deck
    stack(table, 2, "red-1")
    table.lay(s0_reveal=["red-2"])  # seat 2 drew from the deck
    stack(table, 0, "red-2")
    table.lay(s2_discard=[])  # seat 0 takes red-1 from its right
    assert table.kinds()[-1] == ("draw", 0, {"pile": "right"})
    table.lay(s1_reveal=["red-4", "blue-4"], s1_discard=["red-8"])
    stack(table, 1, "blue-4")
    assert table.kinds()[-1] == ("play", 1, {"cards": ["red-4", "blue-4"]})


def test_DUCK_A4_something_unrecognised_in_the_next_reveal_area_starts_no_deck_draw():
    """A thing read as unknown in the next player's reveal area (an arm's edge) is no sign
    that they started: the deck draw waits for a person (rendered frames, model labels, DUCK
    seed 4: the mover had really taken from a neighbour, a moment later)."""
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    assert table.lay(s2_reveal=[UNKNOWN]) == []
    pending = table.follower.pending
    assert pending is not None and pending.event.data == {"pile": "deck"}
    assert "could not be recognised" in pending.why


def test_DUCK_A5_reveal_read_one_way_then_another_waits_for_a_person():
    """A card of a revealed hand read as red-2 and then, as surely, as red-3 (rendered frames
    at 1920 x 1080, DUCK seed 1: six reads of nine, at 0.94-0.99): the round is not scored on
    either reading until a person says which."""
    table = dealt()
    table.state.seats[1].hand_count = 1
    table.lay(s1_discard=["blue-4"])
    assert table.state.phase == "reveal"
    table.lay(s0_reveal=SEVENS, frames=1)
    misread = [*ONES[:-1], "yellow-4"]
    for k in range(9):
        table.ts += 66
        zones = {n: ZoneRead.of(v or []) for n, v in table.zones.items()}
        zones[seat_zone(0, "reveal")] = ZoneRead.of(SEVENS, 0.99)
        zones[seat_zone(2, "reveal")] = ZoneRead.of(ONES if k % 3 == 0 else misread, 0.97)
        table.follower.feed(TableSnapshot(table.ts, zones))
    pending = table.follower.pending
    assert table.state.phase == "reveal" and pending is not None and pending.event.type == "reveal"
    assert "which cards are they?" in pending.why
    table.lay(s2_reveal=ONES, frames=6)  # laid again under a hand, read one way: scored
    assert table.state.phase == "deal"


def test_DUCK_A4_a_pile_the_next_player_did_not_touch_does_not_hold_their_start():
    """Model-mode DUCK seed 10: the next player's pile had last changed with no hand seen (a
    card entered by hand), and their shown cards were doubted for it; only the zones that say
    they started (here their reveal area) must have changed under a hand."""
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    table.lay(s2_reveal=["red-2"])  # seat 1 drew from the deck
    assert table.lay(s2_reveal=[], s2_discard=["red-2"], hand=False) == []  # no hand seen: held
    table.follower.confirm(Event("play", 2, {"cards": ["red-2"]}))
    table.lay(s0_reveal=["blue-1"])
    table.lay(s0_reveal=[], s0_discard=["blue-1"])
    table.lay(s1_reveal=["red-3"])
    table.lay(s1_reveal=[], s1_discard=["red-3"])
    assert [e.type for e in (i.event for i in table.follower.log)][-1] == "play"
    applied = table.lay(s2_reveal=["yellow-4"])  # seat 2 starts: seat 1 drew from the deck
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [("draw", 1, {"pile": "deck"})]


def a_round_played() -> Table:
    """Every seat has played once and seat 1 has just played again: seat 1 draws next."""
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    table.lay(s2_reveal=["red-2"])
    table.lay(s2_reveal=[], s2_discard=["red-2"])
    table.lay(s0_reveal=["blue-1"])
    table.lay(s0_reveal=[], s0_discard=["blue-1"])
    table.lay(s1_reveal=["red-3"])
    table.lay(s1_reveal=[], s1_discard=["red-3"])
    assert len(table.follower.log) == 8 and table.follower.pending is None
    return table


def test_DUCK_A4_next_pile_changing_to_a_card_shown_before_is_a_deck_draw():
    """Model-mode DUCK seeds 10, 11, 17, 18, 19: the next player's shown card was read unsurely,
    then pushed onto their pile. Shown while the old top still lay there, it says the mover had
    drawn by then and took nothing from that pile: the draw is not held as a possible take."""
    table = a_round_played()
    table.confidence = 0.5
    assert table.lay(s2_reveal=["yellow-4"]) == []  # read too unsurely to start the turn
    table.confidence = 1.0
    applied = table.lay(s2_reveal=[], s2_discard=["yellow-4"])
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [
        ("draw", 1, {"pile": "deck"}), ("play", 2, {"cards": ["yellow-4"]})]


def test_DUCK_A4_next_pile_changing_to_a_card_never_shown_is_still_held():
    """The same table with the card laid straight onto the pile: a take of the old top and a
    new card laid under one hand cannot be told from a deck draw."""
    table = a_round_played()
    assert table.lay(s2_discard=["yellow-4"]) == []
    pending = table.follower.pending
    assert pending is not None and pending.event.data == {"pile": "deck"} and "may have taken" in pending.why


def test_DUCK_A1_another_piles_top_read_as_another_digit_of_its_colour_holds_no_play():
    """Model-mode DUCK seeds 13 and 17: a yellow 5 on a pile read as a yellow 8, then a 4, then
    a 5 again, with no hand near it, held every play meanwhile. Cards do not change by
    themselves and the classifier mixes up digits of one colour: such a pile holds nothing."""
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    table.lay(s2_reveal=["red-2"])  # seat 1 drew from the deck
    table.lay(s0_discard=["red-8"], hand=False)  # the start card red-5 read as red-8
    applied = table.lay(s2_reveal=[], s2_discard=["red-2"])
    assert [(e.type, e.seat) for e in applied] == [("play", 2)]


def test_DUCK_A1_another_piles_top_read_as_another_colour_still_holds_a_play():
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    table.lay(s2_reveal=["red-2"])
    table.lay(s0_discard=["blue-5"], hand=False)
    assert table.lay(s2_reveal=[], s2_discard=["red-2"]) == []
    pending = table.follower.pending
    assert pending is not None and "pile shows blue-5 where red-5 should lie" in pending.why


def test_DUCK_A4_the_next_piles_top_read_as_another_digit_does_not_start_their_turn():
    """Model-mode DUCK seed 11: the next player's yellow 8 read as a 4 for a while, with no
    hand near it, looked like a card they laid; and once read right again, the pile was doubted
    as a change no hand made. No hand was over it since the mover's play: nothing was taken."""
    table = a_round_played()
    assert table.lay(s2_discard=["red-8"], hand=False) == []
    assert table.follower.pending is None  # the next player did not start
    table.lay(s2_discard=["red-2"], hand=False)
    applied = table.lay(s2_reveal=["yellow-4"])
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [("draw", 1, {"pile": "deck"})]


def test_DUCK_A3_a_top_misread_since_its_play_was_entered_holds_nothing_and_makes_no_play():
    """Model-mode DUCK seed 17: a yellow 5 laid on top read as a yellow 8 from the start. Once
    a person entered the play, the pile reading so since held every later event (it is the
    same card); and it must never look like a new card laid when that seat's turn comes."""
    table = dealt()
    table.lay(s1_reveal=["blue-5", "yellow-5"])
    assert table.lay(s1_reveal=[], s1_discard=["yellow-8"]) == []
    table.follower.confirm(Event("play", 1, {"cards": ["blue-5", "yellow-5"]}))
    applied = table.lay(s0_discard=[])  # seat 1 takes the start card from its right
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [("draw", 1, {"pile": "right"})]
    table.lay(s2_reveal=["red-2"])
    table.lay(s2_reveal=[], s2_discard=["red-2"])
    table.lay(s0_reveal=["blue-1"])
    table.lay(s0_reveal=[], s0_discard=["blue-1"])
    assert [e.type for e in (i.event for i in table.follower.log)][-1] == "play"
    assert table.lay_zones({}) == [] and table.follower.pending is None  # nothing says seat 1 started
    table.follower.confirm(Event("draw", 0, {"pile": "deck"}))
    assert table.lay_zones({}) == [] and table.state.turn == 1  # seat 1 has laid nothing yet


def test_DUCK_A3_shown_cards_pushed_on_by_a_hand_seen_over_them_just_before_make_the_play():
    """Model-mode DUCK seed 18: the hand left the reveal area a frame before its cards were seen
    gone (it still covered the pile), so the emptied area looked like a change no hand made.
    A hand over the area since the cards lay there, and the pile's top one of them, is a play."""
    table = dealt()
    table.lay(s1_reveal=["blue-5", "yellow-5"])
    table.glimpse({"s1_reveal": None, "s1_discard": None})
    table.glimpse({"s1_discard": None})  # the cards still show; the hand is over the pile
    table.zones[seat_zone(1, "reveal")] = []
    table.zones[seat_zone(1, "discard")] = ["yellow-5"]
    table.glimpse({"s1_discard": None})
    applied = table.lay_zones({}, hand=False)
    assert [(e.type, e.data["cards"]) for e in applied] == [("play", ["blue-5", "yellow-5"])]


@pytest.mark.parametrize("card, certain", [("red-6", False), ("blue-6", True)])
def test_DUCK_A1_a_card_straight_onto_the_pile_in_the_colour_of_its_top_is_asked(card, certain):
    """`ducktable bench reader`, DUCK seed 7 (card locator): a pile's known top, read as another
    number of its colour after a hand was over it, was recorded as a card laid straight onto the
    pile. The classifier mixes up the numbers of one colour: such a card is asked, not recorded;
    a card of another colour is a play as before."""
    table = a_round_played()
    applied = table.lay(s0_discard=["red-5"])  # seat 1 takes blue-1 from seat 0 (its right)
    assert [(e.type, e.data) for e in applied] == [("draw", {"pile": "right"})]
    applied = table.lay(s2_discard=[card])  # seat 2's top is red-2 by the game
    pending = table.follower.pending
    if certain:
        assert [(e.type, e.data) for e in applied] == [("play", {"cards": [card]})]
    else:
        assert applied == [] and pending is not None and pending.event.data == {"cards": [card]}
        assert "where the game has red-2" in pending.why


def test_DUCK_A4_a_hand_over_the_deck_after_the_next_play_is_the_next_players_draw():
    """Model-mode DUCK seed 10: seat 0 took from a pile with two equal cards on top, and the
    next player's cards were read unsurely until after their own draw from the deck. That hand
    over the deck came after their play reached their pile: it is their draw, and says nothing
    against the take seen before."""
    table = round_trip()  # seat 2's pile (seat 0's right) shows red-2 on red-2
    hand: dict[str, list[str] | None] = {"s2_discard": None}
    table.glimpse(hand, hand)  # seat 0 takes the top red-2
    table.lay()
    table.confidence = 0.5  # seat 1's cards are read unsurely: the take waits
    table.lay(s1_reveal=["red-1"])
    stack(table, 1, "red-1")
    deck: dict[str, list[str] | None] = {"middle_draw": None}
    table.glimpse(deck, deck)  # seat 1 draws from the deck after its play
    assert table.follower.pending is not None and table.state.turn == 0
    table.confidence = 1.0
    applied = table.lay()
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [
        ("draw", 0, {"pile": "right"}), ("play", 1, {"cards": ["red-1"]})]


def test_DUCK_A4_a_look_alike_pile_read_as_another_digit_and_back_still_shows_the_take():
    """Model-mode DUCK seed 10: after the take from a pile with two equal cards on top, its top
    was read as another number of its colour (a hand passed over it) and then right again with
    no hand seen. The top reads what the game puts there, so the hand over the pile decides."""
    table = round_trip()
    hand: dict[str, list[str] | None] = {"s2_discard": None}
    table.glimpse(hand, hand)  # seat 0 takes the top red-2
    table.lay(s2_discard=["red-3"])  # misread while a hand passed by
    table.lay(s2_discard=["red-2"], hand=False)  # read right again
    applied = table.lay(s1_reveal=["red-1"])  # seat 1 starts
    assert [(e.type, e.seat, dict(e.data)) for e in applied] == [("draw", 0, {"pile": "right"})]


def test_DUCK_A4_hands_over_a_look_alike_pile_and_the_deck_before_the_next_play_are_asked():
    """The bound above is the next player's play: a hand over the deck before it may be the
    mover's draw, so with a hand over the look-alike pile too the draw still waits."""
    table = round_trip()
    hand: dict[str, list[str] | None] = {"s2_discard": None}
    table.glimpse(hand, hand)
    deck: dict[str, list[str] | None] = {"middle_draw": None}
    table.glimpse(deck, deck)
    table.lay(s1_reveal=["red-1"])
    assert stack(table, 1, "red-1") == []
    pending = table.follower.pending
    assert pending is not None and "two equal cards" in pending.why and table.state.turn == 0


@pytest.mark.parametrize("rested, crossed, pile", [("s2_discard", "middle_draw", "right"),
                                                    ("middle_draw", "s2_discard", "deck")])
def test_DUCK_A4_a_hand_resting_over_one_source_and_crossing_the_other_decides_a_look_alike_draw(
        rested, crossed, pile):
    """Model-mode DUCK seeds 10-19: a hand that takes a card rests over its pile for frames (the
    hand watch may miss it in one between); a hand on its way to the deck crosses a neighbour's
    pile in one frame. When any frame with a hand over a source counted, 11 such draws in 10
    games were asked."""
    table = round_trip()  # seat 2's pile (seat 0's right) shows red-2 on red-2
    table.glimpse({crossed: None})
    table.glimpse({rested: None}, {}, {rested: None})  # missed by the hand watch in the frame between
    table.lay(s1_reveal=["red-1"])
    stack(table, 1, "red-1")
    assert table.follower.pending is None
    assert table.kinds()[-2:] == [("draw", 0, {"pile": pile}), ("play", 1, {"cards": ["red-1"]})]


def test_DUCK_A4_a_look_alike_draw_after_a_play_a_person_entered_counts_hands_from_the_pile_read():
    """Model-mode DUCK seeds 11, 12, 17, 18: the mover's play was entered by the person (no
    camera time), and every hand since the deal counted for the draw after it, the deck's too.
    The hands that count are those after the mover's pile was first read with its new top."""
    table = dealt()
    table.lay(s1_discard=["blue-7"])
    for seat, card in ((2, "red-2"), (0, "yellow-3"), (1, "yellow-1"), (2, "red-2")):
        table.lay_zones({f"s{seat}_reveal": [card]})
        stack(table, seat, card)
    deck: dict[str, list[str] | None] = {"middle_draw": None}
    table.glimpse(deck, deck)  # seat 2 draws from the deck
    assert table.follower.confirm(Event("draw", 2, {"pile": "deck"})).ok  # entered by the person,
    assert table.follower.confirm(Event("play", 0, {"cards": ["blue-3"]})).ok  # ... and the play
    table.lay(s0_discard=["blue-3"])
    hand: dict[str, list[str] | None] = {"s2_discard": None}
    table.glimpse(hand, hand)  # seat 0 takes the top red-2 of seat 2's pile (its right)
    table.lay(s1_reveal=["red-1"])
    stack(table, 1, "red-1")
    assert table.follower.pending is None
    assert table.kinds()[-2:] == [("draw", 0, {"pile": "right"}), ("play", 1, {"cards": ["red-1"]})]


@pytest.mark.parametrize("shown, play", [
    ([], ["yellow-3"]),
    (["yellow-1", "yellow-2", UNKNOWN], ["yellow-1", "yellow-2", "yellow-3"]),
])
def test_DUCK_A1_a_new_top_read_two_ways_since_the_hand_left_is_asked(shown, play):
    """Model-mode DUCK (4 players): a yellow 5 laid on a pile was read as a yellow 5 twice after
    the hand left, then as a yellow 3 at 0.98-0.99; the vote settled the 3 and the play was
    recorded as a yellow 3, which the rules allow. No hand changed the card between those
    reads: a play that only the pile names (laid straight, or the pile naming the shown card
    the classifier could not) is asked about."""
    table = a_round_played()
    applied = table.lay(s0_discard=["red-5"])  # seat 1 takes blue-1 from seat 0 (its right)
    assert [(e.type, e.data) for e in applied] == [("draw", {"pile": "right"})]
    if shown:
        table.lay(s2_reveal=shown)
    table.zones[seat_zone(2, "reveal")] = []
    table.zones[seat_zone(2, "discard")] = ["yellow-3"]
    table.glimpse({"s2_reveal": None, "s2_discard": None} if shown else {"s2_discard": None})
    table.glimpse({"s2_discard": ["yellow-5"]}, {"s2_discard": ["yellow-5"]})
    assert table.lay_zones({}, frames=4, hand=False) == []  # four of six reads settle the 3
    pending = table.follower.pending
    assert pending is not None and pending.event.data == {"cards": play}
    assert "2 of 6 reads" in pending.why and "named another card than yellow-3" in pending.why


def test_DUCK_A3_a_shown_card_the_pile_names_again_needs_no_agreeing_pile_reads():
    """The shown card itself names the top: reads of the pile naming another card now and
    then hold nothing."""
    table = a_round_played()
    table.lay(s0_discard=["red-5"])
    table.lay(s2_reveal=["yellow-5"])
    table.zones[seat_zone(2, "reveal")] = []
    table.zones[seat_zone(2, "discard")] = ["yellow-5"]
    table.glimpse({"s2_reveal": None, "s2_discard": None})
    table.glimpse({"s2_discard": ["yellow-8"]}, {"s2_discard": ["yellow-8"]})
    applied = table.lay_zones({}, frames=4, hand=False)
    assert [(e.type, e.data) for e in applied] == [("play", {"cards": ["yellow-5"]})]


def test_DUCK_A1_a_show_read_as_one_unknown_card_is_no_sure_play_of_the_top_alone():
    """Model-mode DUCK (5 players): a yellow 3 and a red 3 shown together were read as one
    unknown outline in every frame (the reader reads cards laid edge to edge so), and the play
    was recorded as the red 3 the pile then showed. How many cards were shown is not known."""
    table = dealt()
    table.lay(s1_reveal=[UNKNOWN])
    assert table.lay(s1_reveal=[], s1_discard=["red-3"]) == []
    pending = table.follower.pending
    assert pending is not None and pending.event.data == {"cards": ["red-3"]}
    assert "may have been several cards" in pending.why
