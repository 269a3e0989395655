"""A refused event traced back to the camera misread that explains it (rules/misread.py), and the
follower that asks about it or mends it itself (rules/infer_base.py), with misreads injected
into true bot games of DUCK and Grey Duck."""

from __future__ import annotations

from dataclasses import replace

import pytest
from ducktable.rules import make_game
from ducktable.rules.core import Event, State, Verdict
from ducktable.rules.infer_base import MAX_MENDS_ASKED, Inference, Inferrer, TableFollower
from ducktable.rules.misread import find_mends, relabel, same_suspect
from ducktable.rules.snapshot import CardRead, TableSnapshot, ZoneRead, seat_zone
from ducktable.rules.stability import StabilityTracker
from ducktable.sim import table_video
from ducktable.sim.table_video_grey import grey_bot_game


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
