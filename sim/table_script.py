"""Game-neutral parts of the synthetic table videos: hands that change the table (several at
once), button presses, and replaying a script through tracker -> inference -> engine.

Why this module exists: :mod:`ducktable.sim.table_video` scripts DUCK, where every event is a
table change made by one hand at a time. Grey Duck and Duck Duck Bruce also have events nobody
lays on the table (a Quack, a die roll: a person presses a button or taps the phone) and hands
that act at the same moment (a grey slapped down while the next player lays cards, decided by
which appeared first). This module adds both, keeping :class:`~ducktable.sim.table_video.Shot`
as the frame truth, and replays such a script with a simulated person who presses the buttons
when their event happens and enters what the camera left undecided, counting per event type
what the camera got right alone.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ducktable.rules import Event, State, make_game
from ducktable.rules.core import Verdict
from ducktable.rules.infer_base import Inference, Inferrer, TableFollower
from ducktable.rules.misread import Mend
from ducktable.rules.snapshot import TableSnapshot
from ducktable.rules.stability import StabilityTracker
from ducktable.sim.table_video import (
    FRAME_MS,
    BotGame,
    Shot,
    mend_problem,
    tapped_mend,
    true_mend,
)

CONFIRMED = "confirmed by hand"
ENTERED = "entered by hand"


# ---- the script --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Press:
    """A person enters ``event`` (true event number ``index``) at frame ``frame``: a button or
    the phone, for what the camera cannot see."""

    frame: int
    index: int
    event: Event


@dataclass(frozen=True)
class Hand:
    """One hand's part in a moment at the table: it reaches over ``reach`` from frame ``start``
    (counted from the moment's first frame), covers it for ``before`` frames, changes the table
    (``act``), covers it ``after`` frames more and leaves. With ``back_for`` it comes back over
    the same zones ``back_after`` frames later, for ``back_for`` frames (a hand lingering)."""

    reach: tuple[str, ...]
    act: Callable[[], None]
    start: int = 0
    before: int = 2
    after: int = 1
    back_after: int = 0
    back_for: int = 0

    @property
    def lays_at(self) -> int:
        return self.start + self.before

    def covers(self, frame: int) -> bool:
        if self.start <= frame < self.lays_at + self.after:
            return True
        back = self.lays_at + self.after + self.back_after
        return self.back_for > 0 and back <= frame < back + self.back_for

    @property
    def end(self) -> int:
        end = self.lays_at + self.after
        return end + self.back_after + self.back_for if self.back_for else end


class Stage:
    """The table as a script changes it, frame by frame: ``zones`` holds each zone's cards in
    reading order; every emitted frame becomes a :class:`Shot`; presses are collected."""

    def __init__(self, zone_names: Sequence[str], rng: random.Random, *, hold: int = 5, cover: int = 2,
                 stray_hands: float = 0.05) -> None:
        self.zone_names = list(zone_names)
        self.rng = rng
        self.hold = hold
        self.cover = cover
        self.stray_hands = stray_hands
        self.zones: dict[str, list[str]] = {name: [] for name in self.zone_names}
        self.shots: list[Shot] = []
        self.presses: list[Press] = []
        self.event_index = 0

    @property
    def frame(self) -> int:
        """The number of the next frame to be emitted."""
        return len(self.shots)

    def _shot(self, covered: Iterable[str]) -> None:
        view = tuple((name, tuple(self.zones[name])) for name in self.zone_names)
        self.shots.append(Shot(view, frozenset(covered), round(self.frame * FRAME_MS), self.event_index))

    def settle(self, frames: int | None = None) -> None:
        """Frames where nobody acts, now and then a stray hand passing over some zone."""
        for _ in range(self.hold if frames is None else frames):
            stray = [self.rng.choice(self.zone_names)] if self.rng.random() < self.stray_hands else []
            self._shot(stray)

    def change(self, reach: Sequence[str], act: Callable[[], None]) -> None:
        """One hand changes the table, then the table settles."""
        self.moment([Hand(tuple(reach), act, before=self.cover, after=max(1, self.cover // 2))])

    def moment(self, hands: Sequence[Hand]) -> None:
        """Several hands acting at once; each acts in its frame, in the order given."""
        span = max(max(h.end, h.lays_at + 1) for h in hands)
        for frame in range(span):
            for hand in hands:
                if hand.lays_at == frame:
                    hand.act()
            self._shot({zone for h in hands if h.covers(frame) for zone in h.reach})
        self.settle()

    def press(self, event: Event) -> None:
        """A person enters the next true event now (it leaves nothing on the table)."""
        self.presses.append(Press(self.frame, self.event_index, event))
        self.event_index += 1

    def unseen(self) -> None:
        """The next true event happened with nothing to see or press (a deal, a decision the
        next card will show)."""
        self.event_index += 1


@dataclass(frozen=True)
class TableScript:
    """A bot game and what a camera and a person at its table see and press, frame by frame."""

    game: BotGame
    shots: list[Shot]
    presses: list[Press]


# ---- replay ------------------------------------------------------------------------------------

@dataclass
class EventTally:
    """How the true events of one type reached the engine."""

    true: int = 0
    camera: int = 0  # the camera applied it alone, right
    pressed: int = 0  # entered by button or phone, as the table convention says
    confirmed: int = 0  # the camera was unsure or missed it: a person confirmed or entered it
    wrong: int = 0  # the camera applied something else

    def to_json(self) -> dict[str, int]:
        return dict(vars(self))


@dataclass
class ScriptResult:
    """How one replayed game compares with its truth (``withdrawn``: camera events the engine
    itself took back, a grey with an earlier timestamp settling after the play it beat)."""

    game: str
    seed: int
    true_events: int
    camera_right: int = 0
    pressed: int = 0
    confirmed: int = 0
    wrong_applied: int = 0
    withdrawn: int = 0
    pending_episodes: int = 0
    exact_scores: bool = False
    true_scores: tuple[int, ...] = ()
    seen_scores: tuple[int, ...] = ()
    frames: int = 0
    cells_read: int = 0
    cells_right: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    by_type: dict[str, EventTally] = field(default_factory=dict)
    first_problem: str = ""
    camera_in_video: int = 0  # camera_right when the frames ran out (before a person entered the rest)
    hand_in_video: int = 0  # confirmed, likewise
    mended: int = 0  # wrong camera events mended later (by the camera itself or a person's one tap)
    mended_by_hand: int = 0  # of them, by a person answering the camera's question

    def summary(self) -> dict[str, Any]:
        out = {k: v for k, v in vars(self).items() if k not in ("by_type", "seconds")}
        out["by_type"] = {k: t.to_json() for k, t in sorted(self.by_type.items())}
        out["seconds"] = {k: round(v, 3) for k, v in self.seconds.items()}
        return out


def same_event(a: Event, b: Event) -> bool:
    """Type, seat and data agree; lists of cards compare as multisets (the order cards lie in on
    the table says nothing for Grey Duck plays or Bruce steals)."""
    if a.type != b.type or a.seat != b.seat or set(a.data) != set(b.data):
        return False
    for key, value in a.data.items():
        other = b.data[key]
        if isinstance(value, list) and isinstance(other, list):
            if sorted(map(str, value)) != sorted(map(str, other)):
                return False
        elif value != other:
            return False
    return True


class _Judge:
    """Keeps the follower's log in step with the truth. The last applied event stays tentative
    until another follows, since only the very next event may withdraw it (GREY-G1)."""

    def __init__(self, truth: list[Event], follower: TableFollower, result: ScriptResult,
                 pressed: set[int], withdrawn: Callable[[], Sequence[int]],
                 same: Callable[[Event, Event], bool]) -> None:
        self.truth = truth
        self.follower = follower
        self.result = result
        self.pressed = pressed
        self.withdrawn = withdrawn
        self.same = same
        self.kept: list[tuple[int, Inference]] = []  # (log index, inference), the effective log
        self.seen = 0
        self.final = 0  # how many of ``kept`` are judged

    @property
    def progress(self) -> int:
        return len(self.kept)

    def catch_up(self) -> bool:
        """Judge what the follower applied since the last call; False at the first wrong event
        that puts the log out of step with the truth (another type or seat: the events after it
        no longer line up). A wrong event of the right type and seat (cards misread or
        miscounted) is counted and the game goes on, as at a table: the rules may refuse a later
        true event because of it, and the camera's question then mends it."""
        log = self.follower.log
        gone = set(self.withdrawn())
        for k in range(self.seen, len(log)):
            if k - 1 in gone and self.kept and self.kept[-1][0] == k - 1:
                self.kept.pop()
                self.result.withdrawn += 1
            elif not self._judge_tentative():
                return False
            self.kept.append((k, log[k]))
        self.seen = len(log)
        return True

    def finish(self) -> bool:
        return self._judge_tentative()

    def position(self, log_index: int) -> int | None:
        """The true event number of the follower's log entry ``log_index`` (None: withdrawn)."""
        return next((p for p, (k, _) in enumerate(self.kept) if k == log_index), None)

    def left_wrong(self) -> bool:
        """Whether the follower's log, as it stands (mends included), still differs from the
        truth at some event it kept."""
        log = self.follower.log
        return any(p >= len(self.truth) or not self.same(log[k].event, self.truth[p])
                   for p, (k, _) in enumerate(self.kept) if k < len(log))

    def as_it_stands(self) -> tuple[int, int]:
        """Events right by the camera alone and confirmed by a person so far, the last applied
        one included as it stands: when the frames run out the camera has applied it, though
        it stays tentative (only a later grey could withdraw it, GREY-G1)."""
        camera, confirmed = self.result.camera_right, self.result.confirmed
        if self.final == len(self.kept):
            return camera, confirmed
        position = len(self.kept) - 1
        inference = self.kept[position][1]
        truth = self.truth[position] if position < len(self.truth) else None
        if inference.why == CONFIRMED or (inference.why == ENTERED and position not in self.pressed):
            return camera, confirmed + 1
        if inference.why != ENTERED and truth is not None and self.same(inference.event, truth):
            return camera + 1, confirmed
        return camera, confirmed

    def _judge_tentative(self) -> bool:
        if self.final == len(self.kept):
            return True
        position = len(self.kept) - 1
        _, inference = self.kept[position]
        self.final = len(self.kept)
        truth = self.truth[position] if position < len(self.truth) else None
        tally = self.result.by_type.setdefault(truth.type if truth else inference.event.type, EventTally())
        if inference.why == CONFIRMED:
            self.result.confirmed += 1
            tally.confirmed += 1
            return True
        if inference.why == ENTERED:
            kind = "pressed" if position in self.pressed else "confirmed"
            setattr(self.result, kind, getattr(self.result, kind) + 1)
            setattr(tally, kind, getattr(tally, kind) + 1)
            return True
        if truth is not None and self.same(inference.event, truth):
            self.result.camera_right += 1
            tally.camera += 1
            return True
        self.result.wrong_applied += 1
        tally.wrong += 1
        expected = truth.dumps() if truth is not None else "nothing"
        self.result.first_problem = self.result.first_problem or (
            f"event #{position}: applied {inference.event.dumps()} but the truth is {expected}")
        return truth is not None and (inference.event.type, inference.event.seat) == (truth.type, truth.seat)


class _PressesFirst(Inferrer):
    """Wraps a game's inferrer so that the camera never applies an event it saw after a button
    press still waiting to be applied (the press cannot be applied before the scoreboard shows
    everything before it; the camera must not overtake it meanwhile)."""

    def __init__(self, inner: Inferrer) -> None:
        super().__init__(inner.min_confidence)
        self.inner = inner
        self.waiting: list[int] = []  # timestamps of presses made and not yet applied

    def propose(self, state: State, table: StabilityTracker) -> Inference | None:
        proposal = self.inner.propose(state, table)
        if proposal is not None and self.waiting and (proposal.event.ts or 0) > min(self.waiting):
            return None
        return proposal

    def applied(self, state: State, event: Event) -> None:
        self.inner.applied(state, event)

    def conflicts(self, waiting: Event, proposal: Event) -> bool:
        return self.inner.conflicts(waiting, proposal)

    def stamp(self, state: State, event: Event, table: StabilityTracker) -> Event:
        return self.inner.stamp(state, event, table)

    def remember(self) -> dict[str, Any]:
        return self.inner.remember()

    def recall(self, memory: dict[str, Any]) -> None:
        self.inner.recall(memory)


def replay_script(script: TableScript, snapshots: Iterable[TableSnapshot], inferrer: Inferrer,
                  tracker: StabilityTracker, *, seed: int = 0, patience_frames: int = 15,
                  withdrawn: Callable[[], Sequence[int]] = tuple,
                  same: Callable[[Event, Event], bool] = same_event) -> ScriptResult:
    """Feed snapshots to a follower on an observer state. A simulated person presses each
    button in its frame; a press is applied once the scoreboard shows everything before it,
    and the camera applies nothing it saw after a press still waiting. When the camera has
    lagged behind the table for ``patience_frames`` frames without progress, not counting
    frames where a hand is over the table unless the camera asks something, the person enters
    every true event the table is ahead by (accepting the camera's pending guess where it is
    right); and at the end whatever is left."""
    game = script.game
    g = make_game(game.game, game.options)
    truth = [g.public_event(e) for e in game.events]
    state = g.new_state(game.players, observer=True)
    gate = _PressesFirst(inferrer)
    follower = TableFollower(state, gate, tracker)
    result = ScriptResult(game.game, seed, len(truth), true_scores=game.scores)
    for event in truth:
        result.by_type.setdefault(event.type, EventTally()).true += 1
    presses = {p.index: p for p in script.presses}
    press_ts = {k: script.shots[p.frame].ts if p.frame < len(script.shots) else 0 for k, p in presses.items()}
    judge = _Judge(truth, follower, result, set(presses), withdrawn, same)
    by_frame = sorted(script.presses, key=lambda p: (p.frame, p.index))
    next_press = 0
    made: list[int] = []  # presses made, in order, not yet applied
    stuck = 0
    was_pending = False

    def enter(k: int, ts: int) -> bool:
        """The person enters true event ``k``: a button press if it is one, else by accepting
        the camera's pending guess when right (keeping its timestamp) or by hand at ``ts``."""
        event = truth[k]
        pending = follower.pending
        settle = follower.confirm
        if k in presses:
            if press_ts[k] in gate.waiting:
                gate.waiting.remove(press_ts[k])
            entered, settle = Event(event.type, event.seat, event.data, press_ts[k], "button"), follower.manual
        elif pending is not None and same(pending.event, event):
            entered = pending.event
        else:
            entered = Event(event.type, event.seat, event.data, ts)
        verdict = settle(entered)
        if not verdict.ok and tap_mend(follower.dated(entered), verdict):
            verdict = settle(entered)  # entered again once the earlier event is mended
        if not verdict.ok:
            result.first_problem = result.first_problem or f"event #{k}: the true event was refused: {verdict}"
        return verdict.ok and judge.catch_up()

    def tap_mend(event: Event, verdict: Verdict) -> bool:
        """The rules refused the true ``event`` (as entered, dated): the person answers the camera's question about
        the earlier camera event that explains it (one tap on the choice the truth has), if it
        asks one that offers it; whether the log was mended."""
        mend = tapped_mend(follower, event, verdict.reason, truth_at, same)
        if mend is None or not follower.mend(mend):
            return False
        result.mended += 1
        result.mended_by_hand += 1
        return True

    def mended_itself(mends: Sequence[Mend]) -> None:
        """Count the camera's own mends: a right one mends a wrong event, a wrong one is one."""
        for mend in mends:
            if true_mend(mend, truth_at, same):
                result.mended += 1
                continue
            result.wrong_applied += 1
            result.by_type.setdefault(mend.mended.type, EventTally()).wrong += 1
            result.first_problem = result.first_problem or mend_problem(mend)

    def truth_at(index: int) -> Event | None:
        """The true event at the follower's log entry ``index`` (None: withdrawn, or past the truth)."""
        at = judge.position(index)
        return truth[at] if at is not None and at < len(truth) else None

    def press_what_is_due() -> bool:
        while made and made[0] <= judge.progress:
            k = made.pop(0)
            if k == judge.progress and not enter(k, press_ts[k]):
                return False
        return True

    ok = True
    for index, snapshot in enumerate(snapshots):
        shot = script.shots[index]
        result.frames += 1
        _count_cells(result, snapshot, shot)
        before = judge.progress
        while next_press < len(by_frame) and by_frame[next_press].frame <= index:
            made.append(by_frame[next_press].index)  # a button pressed in this frame
            gate.waiting.append(press_ts[made[-1]])
            next_press += 1
        t0 = time.perf_counter()
        step = follower.feed(snapshot)
        result.seconds["follow"] = result.seconds.get("follow", 0.0) + time.perf_counter() - t0
        mended_itself(step.mended)
        if step.pending is not None and not was_pending:
            result.pending_episodes += 1
        was_pending = step.pending is not None
        ok = judge.catch_up() and press_what_is_due()
        if not ok:
            break
        if shot.event_index <= judge.progress or judge.progress != before:
            stuck = 0
        elif not shot.covered or follower.pending is not None:
            stuck += 1  # a hand over the table is a move still being made; a question is answered
        if stuck >= patience_frames:  # the person brings the scoreboard up to the table
            stuck = 0
            while ok and judge.progress < min(shot.event_index, len(truth)):
                ok = enter(judge.progress, shot.ts) and press_what_is_due()
            if not ok:
                break
    result.camera_in_video, result.hand_in_video = judge.as_it_stands()
    if ok:  # the video is over: a person enters whatever the camera did not settle
        last_ts = script.shots[-1].ts if script.shots else 0
        while not follower.state.is_over() and judge.progress < len(truth):
            if not enter(judge.progress, last_ts):
                ok = False
                break
    ok = judge.finish() and ok  # judge the last event even when a refusal stopped the replay
    state = follower.state  # (a mend replays the log into a new state)
    result.seen_scores = tuple(state.scores()) if state.is_over() else ()
    result.exact_scores = ok and result.seen_scores == game.scores and not judge.left_wrong()
    return result


def _count_cells(result: ScriptResult, snapshot: TableSnapshot, shot: Shot) -> None:
    """Zone reads that match the script, over zones no hand covers (read accuracy)."""
    for name, cards in shot.zones:
        if name in shot.covered:
            continue
        read = snapshot.zone(name)
        if read is not None and not read.occluded:
            result.cells_read += 1
            result.cells_right += read.labels == cards


def tally_games(results: Sequence[ScriptResult]) -> dict[str, Any]:
    """The figures over many replayed games: exact games, per-event-type counts and rates."""
    by_type: dict[str, EventTally] = {}
    for r in results:
        for kind, t in r.by_type.items():
            total = by_type.setdefault(kind, EventTally())
            for name, value in vars(t).items():
                setattr(total, name, getattr(total, name) + value)
    games = len(results)
    true_events = sum(r.true_events for r in results)
    visible = sum(t.true - t.pressed for t in by_type.values())
    return {
        "games": games,
        "exact_scores": sum(r.exact_scores for r in results),
        "exact_rate": round(sum(r.exact_scores for r in results) / max(1, games), 4),
        "true_events": true_events,
        "camera_right": sum(r.camera_right for r in results),
        "pressed": sum(r.pressed for r in results),
        "confirmed": sum(r.confirmed for r in results),
        "wrong_applied": sum(r.wrong_applied for r in results),
        "withdrawn_by_engine": sum(r.withdrawn for r in results),
        "pending_episodes": sum(r.pending_episodes for r in results),
        "camera_accuracy_on_visible_events": round(sum(r.camera_right for r in results) / max(1, visible), 4),
        "zone_read_accuracy": round(sum(r.cells_right for r in results)
                                    / max(1, sum(r.cells_read for r in results)), 4),
        "per_event": {
            kind: {**t.to_json(), "camera_rate": round(t.camera / max(1, t.true - t.pressed), 4)}
            for kind, t in sorted(by_type.items())
        },
    }
