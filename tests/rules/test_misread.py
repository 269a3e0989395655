"""A refused event traced back to the camera misread that explains it (rules/misread.py), and the
follower that asks about it or mends it itself (rules/infer_base.py), with misreads injected
into true bot games of DUCK and Grey Duck."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from ducktable.rules import make_game
from ducktable.rules.core import Event, State, Verdict
from ducktable.rules.infer_base import MAX_MENDS_ASKED, Inference, Inferrer, TableFollower
from ducktable.rules.infer_grey import GreyInferrer
from ducktable.rules.misread import ask, find_mends, relabel, same_suspect
from ducktable.rules.snapshot import CardRead, TableSnapshot, ZoneRead, seat_zone
from ducktable.rules.stability import StabilityTracker
from ducktable.sim import table_video
from ducktable.sim.table_script import replay_script
from ducktable.sim.table_video_grey import DECK_COUNTS, grey_bot_game, grey_script


def camera_log(game: str, seed: int) -> tuple[State, list[Event]]:
    """A fresh observer state and the true public log of a bot game, as if the camera saw it all."""
    if game == "grey":
        bot, _ = grey_bot_game(seed, 3)
    else:
        bot = table_video.bot_game(game, seed, 3)
    g = make_game(game, bot.options)
    return g.new_state(bot.players, observer=True), [replace(g.public_event(e), source="camera") for e in bot.events]


def misread_until_refused(state: State, truth: list[Event], index: int, was: str, now: str
                          ) -> tuple[State, Event, Verdict]:
    """Apply the log with card ``was`` of event ``index`` read as ``now``, up to the first true
    event the rules refuse: the state then, that event and the refusal."""
    log = [relabel(e, was, now) if k == index else e for k, e in enumerate(truth)]
    for k, event in enumerate(log):
        verdict = state.check(event)
        if not verdict.ok:
            assert k > index, "the misread itself must be legal, or the camera would not record it"
            return state, event, verdict
        state.apply_or_raise(event)
    raise AssertionError("the misread was never noticed")


# (game, seed, event, card played, card read) -- the refusal comes later, as in a real game
CASES = [
    ("duck", 0, 11, "blue-7", "blue-8"),  # "every copy of blue-8 is already visible elsewhere"
    ("duck", 0, 19, "red-3", "red-1"),  # "P1's hand is known to be red-1, red-5 ..."
    ("duck", 0, 21, "blue-8", "blue-3"),
    ("grey", 0, 3, "yellow-2", "yellow-5"),  # "the grey-2 does not fit P2's 5 5 5 5"
    ("grey", 0, 7, "yellow-1", "yellow-6"),  # "a Lone Duck 3 does not beat a Lone Duck 6"
]


@pytest.mark.parametrize("game, seed, index, played, read", CASES)
def test_a_refusal_leads_back_to_the_misread_camera_event_and_its_mend_lets_the_game_go_on(
        game, seed, index, played, read):
    state, truth = camera_log(game, seed)
    state, refused, verdict = misread_until_refused(state, truth, index, played, read)
    offered = same_suspect(find_mends(state, refused, reason=verdict.reason))[:MAX_MENDS_ASKED]
    right = [m for m in offered if m.index == index and m.now == played]
    assert right, [(m.index, m.was, m.now) for m in offered]
    mend = right[0]
    assert mend.was == read and mend.recorded.content_key() != mend.mended.content_key()
    assert mend.mended.content_key() == truth[index].content_key() and mend.mended.ts == truth[index].ts
    assert f"event {index + 1}" in mend.question() and played in mend.question()
    follower = TableFollower(state, Inferrer())
    assert follower.mend(mend)
    assert follower.state.history[index].content_key() == truth[index].content_key()
    assert follower.state.check(refused).ok


def test_nothing_is_blamed_on_the_camera_when_it_recorded_nothing_or_the_refusal_is_no_misread():
    state, truth = camera_log("duck", 0)
    by_hand = [replace(e, source="manual") for e in truth]
    state, refused, verdict = misread_until_refused(state, by_hand, 11, "blue-7", "blue-8")
    assert find_mends(state, refused, reason=verdict.reason) == []  # people typed it: not the camera's
    fresh, truth = camera_log("duck", 0)
    for event in truth[:12]:
        fresh.apply_or_raise(event)
    out_of_turn = Event("draw", (truth[12].seat or 0) + 1, {"pile": "deck"}, source="camera")
    verdict = fresh.check(out_of_turn)
    assert not verdict.ok
    assert find_mends(fresh, out_of_turn, reason=verdict.reason) == []  # no card read otherwise helps


class Replays(Inferrer):
    """Proposes the given events in turn, each once, as certain (a camera reading plainly)."""

    def __init__(self, events: list[Event]) -> None:
        super().__init__()
        self.events = list(events)

    def propose(self, state: State, table: StabilityTracker) -> Inference | None:
        k = len(state.history)
        return Inference(self.events[k], True, "seen") if k < len(self.events) else None


def seen(zone: str, card: str, ts: int) -> TableSnapshot:
    return TableSnapshot(ts, {zone: ZoneRead((CardRead(card, 0.97),))}, ts)


def test_the_follower_asks_which_card_it_was_and_mends_by_itself_once_the_table_shows_it_plainly():
    state, truth = camera_log("duck", 0)
    misread = [relabel(e, "blue-7", "blue-8") if k == 11 else e for k, e in enumerate(truth)]
    follower = TableFollower(state, Replays(misread[:14]), StabilityTracker(window=5, needed=3))
    zone = seat_zone(0, "discard")
    for ts in range(3):  # the pile shows the misread card: the camera cannot know better
        step = follower.feed(seen(zone, "blue-8", ts))
    assert len(follower.state.history) == 13 and step.pending is not None
    asked = step.pending
    assert "every copy of blue-8" in asked.why and "at event 12" in asked.why
    assert [m.now for m in asked.mends][:1] and all(m.index == 11 for m in asked.mends)
    assert "blue-7" in [m.now for m in asked.mends]
    for ts in range(3, 8):  # now it shows the true card plainly, frame after frame
        step = follower.feed(seen(zone, "blue-7", ts))
        if step.mended:
            break
    assert [(m.index, m.was, m.now) for m in step.mended] == [(11, "blue-8", "blue-7")]
    assert follower.state.history[11].content_key() == truth[11].content_key()
    assert len(follower.state.history) == 14 and follower.pending is None


def replay_misread(played: str, read: str, events: range) -> table_video.ReplayResult:
    """DUCK seed 0 replayed from oracle snapshots whose ``played`` card reads as ``read`` while
    the true events ``events`` happen."""
    game = table_video.bot_game("duck", 0, 3)
    shots = table_video.script_for(game, 0)
    snaps = table_video.oracle_snapshots(shots, ["yellow-1"], misread=0.0, seed=0)

    def injected():
        for snap, shot in zip(snaps, shots, strict=True):
            if shot.event_index in events:
                snap = TableSnapshot(snap.ts, {name: ZoneRead(tuple(
                    CardRead(read if r.label == played else r.label, r.confidence) for r in z.cards), z.occluded)
                    for name, z in snap.zones.items()}, snap.frame)
            yield snap

    return table_video.replay(game, zip(injected(), shots, strict=True), seed=0)


def test_the_replay_goes_on_after_an_injected_misread_a_person_mends_with_one_tap():
    """The blue 7 of event 12 read as a blue 5 while it is played: the camera records it wrong,
    a later true event is refused, the simulated person taps the card the camera's question
    offers, and the game ends with the true scores. (Read as a blue 8, the card seat 2 plays
    next, the camera now mends it itself: the pile's blue 7, another digit of the recorded
    card's colour, no longer holds the events in between.)"""
    result = replay_misread("blue-7", "blue-5", range(10, 14))
    assert result.wrong_applied == 1 and result.mended == 1 and result.mended_by_hand == 1
    assert result.exact_scores, result.first_problem


def test_the_replay_goes_on_after_an_injected_misread_the_camera_mends_when_it_sees_the_card_plainly():
    """The red 3s of event 20 read as red 1s while they are played: recorded wrong; once the
    rules refuse what follows and the table shows the red 3 plainly, the camera mends it itself."""
    result = replay_misread("red-3", "red-1", range(18, 22))
    assert result.wrong_applied == 1 and result.mended == 1 and result.mended_by_hand == 0
    assert result.exact_scores, result.first_problem


def miscounted_until_refused(state: State, truth: list[Event], index: int, cards: list[str]
                             ) -> tuple[State, Event, Verdict]:
    """Apply the log with play ``index`` recorded as ``cards`` (a card missed or one too many),
    up to the first true event the rules refuse: the state then, that event and the refusal."""
    wrong = replace(truth[index], data={**truth[index].data, "cards": cards})
    return misread_until_refused(state, [wrong if k == index else e for k, e in enumerate(truth)], -1, "", "")


# (game, seed, play, what the camera recorded: "missed" the last card, or one "extra")
COUNT_CASES = [
    ("grey", 1, 12, "missed"),  # a flock of two 1s as a lone 1: "a Lone Duck to follow a Lone Duck 1"
    ("grey", 1, 17, "extra"),  # three 1s as four: "a Flock of 4 to follow a Flock of 4 x 1"
    ("grey", 0, 7, "extra"),  # a lone 1 as two: "a Flock of 2 to follow ... not a Lone Duck 3"
    ("grey", 0, 20, "missed"),  # found only at a grey race several events later
    ("duck", 1, 1, "missed"),  # a DUCK set's second card, another colour of the same digit
]


@pytest.mark.parametrize("game, seed, index, how", COUNT_CASES)
def test_a_refusal_leads_back_to_a_camera_event_with_a_card_missed_or_one_too_many(game, seed, index, how):
    state, truth = camera_log(game, seed)
    played = list(truth[index].data["cards"])
    recorded = played[:-1] if how == "missed" else [*played, played[0]]
    state, refused, verdict = miscounted_until_refused(state, truth, index, recorded)
    assert find_mends(state, refused, reason=verdict.reason)[0].count  # no misread face explains it
    offered = same_suspect(find_mends(state, refused, reason=verdict.reason))[:MAX_MENDS_ASKED]
    assert all(m.count and m.index == index and m.was == " ".join(recorded) for m in offered)
    right = [m for m in offered if m.mended.content_key() == truth[index].content_key()]
    assert right, [(m.index, m.was, m.now) for m in offered]
    assert right[0].now == " ".join(played) and right[0].mended.ts == truth[index].ts
    question = ask(offered)
    assert question.startswith(f"the camera saw {len(recorded)} card")
    assert f"at event {index + 1} ({' '.join(recorded)}): were there " in question
    assert f"{len(played)} ({' '.join(played)})" in question
    follower = TableFollower(state, Inferrer())
    assert follower.mend(right[0])
    assert follower.state.history[index].content_key() == truth[index].content_key()
    assert follower.state.check(refused).ok


def test_a_face_misread_that_explains_a_refusal_comes_before_any_count():
    """The same refusal as a blue 7 read as a blue 8 is asked about as that, not as a count."""
    state, truth = camera_log("duck", 0)
    state, refused, verdict = misread_until_refused(state, truth, 11, "blue-7", "blue-8")
    assert not any(m.count for m in find_mends(state, refused, reason=verdict.reason))


def test_the_follower_asks_about_a_card_too_many_and_never_mends_a_count_by_itself():
    """A Grey lone 1 recorded as two 1s: the next play (a lone 3) is refused; the follower asks
    whether there was one card, even while the table plainly shows a yellow 1 (the card a count
    mend leaves), since a card on the table says nothing of how many lay there before."""
    state, truth = camera_log("grey", 0)
    wrong = replace(truth[7], data={"cards": ["yellow-1", "yellow-1"]})
    log = [wrong if k == 7 else e for k, e in enumerate(truth)]
    follower = TableFollower(state, Replays(log[:9]), StabilityTracker(window=5, needed=3))
    zone = seat_zone(truth[7].seat or 0, "trick")
    for ts in range(8):
        step = follower.feed(seen(zone, "yellow-1", ts))
        assert not step.mended
    assert len(follower.state.history) == 8 and step.pending is not None
    asked = step.pending
    assert "at event 8 (yellow-1 yellow-1): were there 1 (yellow-1)?" in asked.why, asked.why
    assert [(m.index, m.count, m.now) for m in asked.mends] == [(7, True, "yellow-1")]
    assert follower.mend(asked.mends[0])
    assert follower.state.history[7].content_key() == truth[7].content_key()


def test_a_grey_replay_goes_on_after_a_card_missed_in_a_flock_a_person_mends_with_one_tap():
    """Grey seed 1: the third yellow 1 of a flock (event 18) unseen while it lies there; the camera
    records a flock of two, the next flock of three is refused, the simulated person taps the
    count the camera's question offers, and the game ends with the true scores. (The frames are
    cut a few events later: the person enters the rest.)"""
    game, happenings = grey_bot_game(1, 3)
    script = grey_script(game, happenings, random.Random(1))
    snaps = table_video.oracle_snapshots(script.shots, sorted(DECK_COUNTS), misread=0.0, seed=1)
    zone = seat_zone(0, "trick")

    def injected():
        for snap, shot in zip(snaps, script.shots, strict=True):
            if shot.event_index > 26:
                return
            read = snap.zones.get(zone)
            if shot.event_index == 18 and read is not None and len(read.cards) == 3:
                missed = ZoneRead(read.cards[:-1], read.occluded)
                snap = TableSnapshot(snap.ts, {**snap.zones, zone: missed}, snap.frame)
            yield snap

    inferrer = GreyInferrer()
    result = replay_script(script, injected(), inferrer, StabilityTracker(window=5, needed=3), seed=1,
                           withdrawn=lambda: inferrer.withdrawn)
    assert result.wrong_applied == 1 and result.mended == 1 and result.mended_by_hand == 1
    assert "event #17: applied" in result.first_problem and result.exact_scores
