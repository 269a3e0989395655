"""TableSnapshot data and the stability tracker: votes, occlusion, timestamps."""

from __future__ import annotations

import pytest
from ducktable.rules.decks import UNKNOWN
from ducktable.rules.snapshot import (
    HIDDEN,
    CardRead,
    TableSnapshot,
    ZoneRead,
    middle_zone,
    parse_zone,
    seat_zone,
    snapshot_of,
)
from ducktable.rules.stability import StabilityTracker


def test_zone_names_round_trip():
    assert seat_zone(3, "discard") == "seat3.discard"
    assert parse_zone("seat3.discard") == (3, "discard")
    assert parse_zone(middle_zone("draw")) == (None, "middle.draw")
    assert parse_zone("river.7") == (None, "river.7")


def test_zone_read_confidence_is_the_least_sure_card():
    read = ZoneRead((CardRead("red-1", 0.9), CardRead(UNKNOWN, 0.3)))
    assert read.confidence == 0.3 and read.has_unknown
    assert ZoneRead().confidence == 1.0 and read.labels == ("red-1", UNKNOWN)


def test_snapshot_json_round_trip_keeps_cards_positions_and_cover():
    snap = TableSnapshot(1234, {"seat0.discard": ZoneRead((CardRead("red-1", 0.75, (10.0, 20.5)),)),
                                "seat1.reveal": HIDDEN}, frame=7)
    back = TableSnapshot.from_json(snap.dumps())
    assert back == snap
    assert back.labels("seat1.reveal") == () and back.zone("seat9.x") is None


@pytest.mark.parametrize("bad, words", [
    ("{", "not valid JSON"),
    ('{"ts": 1}', "'zones'"),
    ('{"ts": "x", "zones": {}}', "whole milliseconds"),
    ('{"ts": 1, "zones": {"a": {"cards": [{"confidence": 1}]}}}', "'label'"),
    ('{"v": 9, "ts": 1, "zones": {}}', "version"),
])
def test_bad_snapshot_json_is_explained(bad, words):
    with pytest.raises(ValueError, match=words):
        TableSnapshot.from_json(bad)


def feed(tracker, zones, frames, start=0, step=66):
    changes = []
    for i in range(frames):
        changes += tracker.update(snapshot_of(start + i * step, zones, frame=i))
    return changes


def test_a_change_counts_only_after_enough_agreeing_frames():
    tracker = StabilityTracker(window=6, needed=4)
    assert feed(tracker, {"z": ["red-1"]}, 3) == []
    assert tracker.labels("z") == ()
    changes = feed(tracker, {"z": ["red-1"]}, 1, start=3 * 66)
    assert [(c.zone, c.before, c.after) for c in changes] == [("z", (), ("red-1",))]
    assert changes[0].first_seen_ts == 0 and changes[0].settled_ts == 198


def test_single_misreads_do_not_change_the_settled_content():
    tracker = StabilityTracker(window=6, needed=4)
    feed(tracker, {"z": ["red-1"]}, 6)
    reads = ["red-7", "red-1", "blue-1", "red-1", "red-1", "red-7", "red-1"]
    for i, label in enumerate(reads):
        assert tracker.update(snapshot_of(1000 + i, {"z": [label]})) == []
    assert tracker.labels("z") == ("red-1",)


def test_covered_frames_neither_confirm_nor_break_a_change():
    tracker = StabilityTracker(window=6, needed=4)
    feed(tracker, {"z": ["red-1"]}, 2)
    feed(tracker, {"z": None}, 10, start=200)  # an arm over the zone for ten frames
    assert tracker.labels("z") == ()
    changes = feed(tracker, {"z": ["red-1"]}, 2, start=2000)
    assert len(changes) == 1 and changes[0].first_seen_ts == 0  # first appearance kept


def test_first_seen_timestamp_is_the_first_agreeing_frame():
    """Grey races are decided on when a card first appeared, not when it settled (GREY-G1)."""
    tracker = StabilityTracker(window=5, needed=3)
    tracker.update(snapshot_of(100, {"trick": ["grey-3"]}))
    tracker.update(snapshot_of(133, {"trick": []}))
    tracker.update(snapshot_of(166, {"trick": ["grey-3"]}))
    (change,) = tracker.update(snapshot_of(200, {"trick": ["grey-3"]}))
    assert change.first_seen_ts == 100 and change.settled_ts == 200


def test_zones_missing_from_a_frame_are_not_emptied():
    tracker = StabilityTracker(window=3, needed=2, initial={"a": ["red-1"]})
    feed(tracker, {"b": ["blue-2"]}, 3)
    assert tracker.labels("a") == ("red-1",) and tracker.labels("b") == ("blue-2",)


def test_confidence_is_the_mean_of_the_agreeing_reads():
    tracker = StabilityTracker(window=3, needed=2)
    tracker.update(snapshot_of(0, {"z": ["red-1"]}, confidence=0.4))
    tracker.update(snapshot_of(1, {"z": ["red-1"]}, confidence=0.8))
    assert tracker.settled("z").confidence == pytest.approx(0.6)


@pytest.mark.parametrize("window, needed", [(6, 3), (4, 5), (3, 0)])
def test_tracker_refuses_votes_that_could_tie(window, needed):
    with pytest.raises(ValueError, match="more than half"):
        StabilityTracker(window=window, needed=needed)


def test_a_new_card_count_with_a_disputed_card_settles_that_card_as_unknown():
    """Three cards clearly appeared but the first is read three ways: "three cards, one
    unclear" must not look like "nothing changed" (an oracle replay with 5% misreads read a
    shown set as nothing shown, then the stacked set as a single card)."""
    tracker = StabilityTracker(window=5, needed=3)
    for i, first in enumerate(["yellow-5", "red-0", "red-7", "yellow-5", UNKNOWN]):
        tracker.update(snapshot_of(i, {"z": [first, "yellow-5", "red-5"]}))
    assert tracker.labels("z") == (UNKNOWN, "yellow-5", "red-5")
    assert tracker.settled("z").confidence == 0.0
    feed(tracker, {"z": ["yellow-5", "yellow-5", "red-5"]}, 2, start=400)
    assert tracker.labels("z") == ("yellow-5", "yellow-5", "red-5")  # 3 of 5 now agree


def test_a_disputed_card_keeps_the_old_content_while_the_count_is_the_same():
    tracker = StabilityTracker(window=5, needed=3, initial={"z": ["red-1"]})
    for i, label in enumerate(["red-2", "blue-2", "yellow-2", "red-2", "blue-3"]):
        tracker.update(snapshot_of(i, {"z": [label]}))
    assert tracker.labels("z") == ("red-1",)


def test_a_zone_is_fresh_only_once_read_again_after_a_hand_left_it():
    """Right after a hand, the settled content is what lay there before the hand came."""
    tracker = StabilityTracker(window=5, needed=3)
    feed(tracker, {"z": ["red-1"]}, 5)
    assert tracker.fresh("z")
    feed(tracker, {"z": None}, 2, start=400)
    assert not tracker.fresh("z") and tracker.labels("z") == ("red-1",)
    tracker.update(snapshot_of(600, {"z": ["red-2"]}))
    tracker.update(snapshot_of(666, {"z": ["red-1"]}))
    tracker.update(snapshot_of(733, {"z": ["red-2"]}))
    assert not tracker.fresh("z")  # read since, but not yet agreeing with the settled content
    tracker.update(snapshot_of(800, {"z": ["red-2"]}))
    assert tracker.labels("z") == ("red-2",) and tracker.fresh("z")


def test_a_copy_keeps_the_moment_and_the_signature_tells_moments_apart():
    tracker = StabilityTracker(window=3, needed=2)
    feed(tracker, {"z": ["red-1"]}, 3)
    moment = tracker.copy()
    same = tracker.signature()
    feed(tracker, {"z": ["red-1"]}, 2, start=300)
    assert tracker.signature() == same  # nothing a reader could ask about changed
    feed(tracker, {"z": ["blue-4"]}, 2, start=500)
    assert tracker.signature() != same
    assert moment.labels("z") == ("red-1",) and tracker.labels("z") == ("blue-4",)
    assert moment.signature() == same


def test_each_card_keeps_its_own_confidence():
    """One unsure card in a spread does not make its neighbours unsure."""
    tracker = StabilityTracker(window=3, needed=2)
    for ts, second in ((0, 0.9), (1, 0.3)):
        tracker.update(TableSnapshot(ts, {"z": ZoneRead((CardRead("red-1", 0.9), CardRead("red-2", second)))}))
    assert tracker.settled("z").confidence == pytest.approx(0.6)  # red-2's (0.9 + 0.3) / 2
    tracker.update(TableSnapshot(2, {"z": ZoneRead((CardRead("red-1", 0.9), CardRead("red-2", 0.9)))}))
    assert tracker.settled("z").confidence == pytest.approx(0.7)  # it follows the recent reads


def test_a_change_made_under_a_hand_is_handled_and_one_without_is_not():
    """Cards do not move by themselves: a change no hand was seen making is likely a misread."""
    tracker = StabilityTracker(window=3, needed=2)
    feed(tracker, {"pile": ["red-1"], "other": ["blue-1"]}, 3)
    feed(tracker, {"pile": None, "other": ["blue-1"]}, 1, start=300)
    feed(tracker, {"pile": ["red-2"], "other": ["blue-7"]}, 2, start=400)
    assert tracker.labels("pile") == ("red-2",) and tracker.settled("pile").handled
    assert tracker.labels("other") == ("blue-7",) and not tracker.settled("other").handled


def test_making_out_an_unclear_card_is_not_a_change_of_its_own():
    tracker = StabilityTracker(window=3, needed=2)
    tracker.update(snapshot_of(50, {"z": None}))  # the hand that lays three cards
    for ts, first in ((100, "red-1"), (166, "blue-1")):
        tracker.update(snapshot_of(ts, {"z": [first, "red-2", "red-3"]}))
    assert tracker.labels("z") == (UNKNOWN, "red-2", "red-3") and tracker.settled("z").handled
    tracker.update(snapshot_of(233, {"z": ["red-1", "red-2", "red-3"]}))
    tracker.update(snapshot_of(300, {"z": ["red-1", "red-2", "red-3"]}))
    assert tracker.labels("z") == ("red-1", "red-2", "red-3") and tracker.settled("z").handled


@pytest.mark.parametrize("laid, misread, other", [
    (["red-1", "yellow-2"], ["red-1", UNKNOWN], ["red-1", "yellow-3"]),  # DUCK seed 11: a yellow 2 read unknown
    (["red-1", "yellow-2"], ["red-1", "yellow-8"], ["red-1", "yellow-3"]),  # seed 10: a 0 read as an 8 a while
    (["red-1", UNKNOWN], [UNKNOWN, UNKNOWN], ["blue-1", "yellow-2"]),  # seed 11: a duck's hand, one card unclear
])
def test_a_zone_read_as_a_hand_laid_it_after_changes_no_hand_made_is_handled(laid, misread, other):
    """Cards laid under a hand, then read otherwise with no hand near, then as laid (an unclear
    card of them made out): nothing moved, so the hand that laid them still counts (and their
    first read); read as other cards, the change stays one no hand made."""
    tracker = StabilityTracker(window=5, needed=3)
    tracker.update(snapshot_of(50, {"z": None}))  # the hand that lays the cards
    feed(tracker, {"z": laid}, 3, start=100)
    first = tracker.settled("z")
    assert first.handled
    feed(tracker, {"z": misread}, 3, start=400)
    assert tracker.labels("z") == tuple(misread) and not tracker.settled("z").handled
    twin = tracker.copy()
    feed(tracker, {"z": ["red-1", "yellow-2"]}, 3, start=700)
    assert tracker.labels("z") == ("red-1", "yellow-2") and tracker.settled("z").handled
    assert tracker.settled("z").first_seen_ts == first.first_seen_ts
    feed(twin, {"z": other}, 3, start=700)
    assert twin.labels("z") == tuple(other) and not twin.settled("z").handled


def test_a_card_made_out_and_then_read_as_another_with_no_hand_is_no_hand_change():
    tracker = StabilityTracker(window=5, needed=3)
    tracker.update(snapshot_of(50, {"z": None}))
    feed(tracker, {"z": ["red-1", UNKNOWN]}, 3, start=100)
    feed(tracker, {"z": ["red-1", "yellow-2"]}, 3, start=400)  # made out: laid by the hand
    assert tracker.settled("z").handled
    feed(tracker, {"z": ["red-1", "yellow-3"]}, 3, start=700)
    assert tracker.labels("z") == ("red-1", "yellow-3") and not tracker.settled("z").handled
    feed(tracker, {"z": ["red-1", "yellow-2"]}, 3, start=1000)
    assert tracker.settled("z").handled


def test_an_unclear_card_made_out_after_a_hand_passed_counts_as_handled():
    """The hand may have changed the card behind the unclear read: what is made out after it
    was laid by a hand, whatever the unclear read's own hand was."""
    tracker = StabilityTracker(window=3, needed=2)
    feed(tracker, {"z": []}, 3)
    for ts, label in ((300, "red-1"), (366, "blue-1")):  # no hand: a card appears, unclear
        tracker.update(snapshot_of(ts, {"z": [label]}))
    assert tracker.labels("z") == (UNKNOWN,) and not tracker.settled("z").handled
    tracker.update(snapshot_of(400, {"z": None}))
    feed(tracker, {"z": ["blue-5"]}, 2, start=466)
    assert tracker.labels("z") == ("blue-5",) and tracker.settled("z").handled


def test_each_card_needs_the_needed_number_of_agreeing_reads():
    """Two reads of five naming a card are not enough when three are needed: the count of
    cards is clear, so the card settles as unclear until a third read names it."""
    tracker = StabilityTracker(window=5, needed=3)
    for ts, label in ((100, "red-1"), (166, "red-1"), (233, "blue-4")):
        tracker.update(snapshot_of(ts, {"z": [label]}))
    assert tracker.labels("z") == (UNKNOWN,)
    tracker.update(snapshot_of(300, {"z": ["red-1"]}))
    assert tracker.labels("z") == ("red-1",) and tracker.settled("z").first_seen_ts == 100


def test_a_change_held_back_by_misreads_is_dated_by_its_first_read():
    """Grey races (GREY-G1) are decided on when a card first appeared: misreads that delay
    the vote until the first read of the new card has left the window must not make the
    card look laid later."""
    tracker = StabilityTracker(window=5, needed=3, initial={"z": ["red-9"]})
    reads = ["red-1", "blue-1", "green-1", "red-1", "yellow-1", "red-1", "red-1"]
    for k, label in enumerate(reads):
        tracker.update(snapshot_of(100 + 66 * k, {"z": [label]}))
    assert tracker.labels("z") == ("red-1",) and tracker.settled("z").first_seen_ts == 100


def test_a_read_of_only_unclear_cards_does_not_date_a_change():
    tracker = StabilityTracker(window=5, needed=3, initial={"z": ["red-9"]})
    for k, label in enumerate([UNKNOWN, "red-1", "red-1", "red-1"]):
        tracker.update(snapshot_of(100 + 66 * k, {"z": [label]}))
    assert tracker.labels("z") == ("red-1",) and tracker.settled("z").first_seen_ts == 166


def test_a_card_missed_under_a_hovering_hand_keeps_its_first_read():
    """Grey seed 18 (model mode): a grey read clearly for two frames, then missed in the
    frames between covered ones while the hand hovered, was dated by its read after the hand
    left and lost a race it had won (GREY-G1). Reads of an empty zone taken while a hand
    hovers about it do not reset the date; the same empty reads with no hand around do."""
    def first_seen(reads) -> int:
        tracker = StabilityTracker(window=5, needed=3)
        feed(tracker, {"z": []}, 5)
        for k, cards in enumerate(reads):
            tracker.update(snapshot_of(1000 + 66 * k, {"z": cards}))
        assert tracker.labels("z") == ("grey-6",)
        return tracker.settled("z").first_seen_ts

    laid, missed, back = [None, ["grey-6"], ["grey-6"]], [[], None, [], []], [None] + [["grey-6"]] * 3
    assert first_seen(laid + missed + back) == 1066
    # taken back for a while (the empty reads span more than a hand's hover) and laid again
    assert first_seen(laid + [[]] * 8 + back) == 1000 + 66 * 12


def test_a_count_that_comes_and_goes_after_settling_is_wavering():
    """Fewer cards right after the hand left is a card still settling; fewer once all were
    read means the detector loses cards in this zone (the Grey Duck reader then waits longer)."""
    tracker = StabilityTracker(window=5, needed=3)
    tracker.update(snapshot_of(0, {"z": None}))
    feed(tracker, {"z": ["red-1"]}, 2, start=66)
    feed(tracker, {"z": ["red-1", "red-2"]}, 4, start=200)
    assert tracker.labels("z") == ("red-1", "red-2") and not tracker.wavered("z")
    feed(tracker, {"z": ["red-1"]}, 1, start=500)
    feed(tracker, {"z": ["red-1", "red-2"]}, 1, start=566)
    assert tracker.wavered("z")
    tracker.update(snapshot_of(700, {"z": None}))  # a hand again: the count is read afresh
    feed(tracker, {"z": ["red-1", "red-2"]}, 3, start=766)
    assert not tracker.wavered("z")


def test_a_zone_with_odd_digits_is_no_seat_zone() -> None:
    from ducktable.rules.snapshot import parse_zone

    assert parse_zone("seat².hand") == (None, "seat².hand")


def test_covers_since_lists_the_frames_a_hand_covered_a_zone_and_says_when_it_cannot_tell():
    from ducktable.rules.stability import COVERS_KEPT

    tracker = StabilityTracker(window=5, needed=3)
    for ts in range(1, 7):
        tracker.update(snapshot_of(ts * 100, {"middle.played": None if ts in (2, 3, 5) else []}))
    assert tracker.covers_since("middle.played", 200) == (300, 500)
    assert tracker.covers_since("line.1", 0) == ()  # never covered
    for ts in range(7, 8 + COVERS_KEPT):
        tracker.update(snapshot_of(ts * 100, {"middle.played": None}))
    assert tracker.covers_since("middle.played", 200) is None  # older covers were let go
    assert tracker.covers_since("middle.played", (6 + COVERS_KEPT) * 100) == ((7 + COVERS_KEPT) * 100,)


@pytest.mark.parametrize("covered, rested", [
    ((2,), False),  # a hand crossing the zone
    ((2, 5), False),  # crossing it twice, apart
    ((2, 3), True),  # resting over it
    ((2, 5, 8), False),
    ((3, 5), True),  # resting, missed by the hand watch in the frame between
])
def test_rested_since_tells_a_hand_resting_over_a_zone_from_one_crossing_it(covered, rested):
    from ducktable.rules.stability import COVERS_KEPT

    tracker = StabilityTracker(window=5, needed=3)
    for ts in range(1, 11):
        tracker.update(snapshot_of(ts * 100, {"z": None if ts in covered else ["red-1"]}))
    assert tracker.rested_since("z", 100) is rested
    assert tracker.rested_since("z", 100, until=covered[-1] * 100) is False  # the second frame is not before it
    assert tracker.copy().rested_since("z", 100) is rested
    for ts in range(11, 12 + COVERS_KEPT):
        tracker.update(snapshot_of(ts * 100, {"z": None}))
    assert tracker.rested_since("z", 100) is None  # older frames were let go
    assert tracker.rested_since("z", (9 + COVERS_KEPT) * 100) is True


def test_reads_since_and_a_blank_read_of_a_zone_that_holds_cards():
    """A frame that reads no card where cards settled is told apart from one that reads them,
    and from a covered one; the signature tells such moments apart too."""
    from ducktable.rules.stability import READS_KEPT

    tracker = StabilityTracker(window=5, needed=3)
    feed(tracker, {"middle.played": ["action-fire"]}, 4)
    assert not tracker.blank("middle.played")
    same = tracker.signature()
    tracker.update(snapshot_of(400, {"middle.played": []}))
    assert tracker.blank("middle.played") and tracker.signature() != same
    tracker.update(snapshot_of(466, {"middle.played": None}))
    assert not tracker.blank("middle.played")  # covered: not read at all
    assert tracker.reads_since("middle.played", 100) == ((132, ("action-fire",)), (198, ("action-fire",)),
                                                         (400, ()))
    for ts in range(READS_KEPT):
        tracker.update(snapshot_of(500 + ts * 66, {"middle.played": ["action-fire"]}))
    assert tracker.reads_since("middle.played", 100) is None  # older reads were let go
    assert tracker.reads_since("line.1", 0) == ()  # never read


def test_more_cards_read_after_the_hand_left_than_settled_is_a_card_lost():
    """Three cards read once after the hand left, then two for four reads: the tracker settles
    two, which is not wavering (that count came first), but a card was seen and then lost."""
    tracker = StabilityTracker(window=5, needed=3)
    tracker.update(snapshot_of(0, {"z": None}))
    feed(tracker, {"z": ["red-1", "red-1", "red-1"]}, 1, start=66)
    feed(tracker, {"z": ["red-1", "red-1"]}, 4, start=133)
    assert tracker.labels("z") == ("red-1", "red-1") and not tracker.wavered("z")
    assert tracker.lost_since_hand("z")
    tracker.update(snapshot_of(500, {"z": None}))  # a hand again: the count is read afresh
    feed(tracker, {"z": ["red-1", "red-1"]}, 3, start=566)
    assert not tracker.lost_since_hand("z")
