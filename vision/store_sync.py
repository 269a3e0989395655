"""The camera's copy of a match, kept in step with the store's log.

Why this module exists: the store is the truth; the camera's :class:`TableFollower` keeps only
a copy, and the copy drifts whenever a person acts: an event entered or confirmed by hand, an
undo, a correction, a guess rejected. :class:`StoreSync` brings the copy to the store's log
before every frame (walking in events entered by hand with the store's time, rebuilding after
an undo or a correction) and remembers what people took back or rejected, so that the camera
never applies such an event again at that point of the game (it may still *suggest* one taken
back). The camera reader (vision/reader.py) owns one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from ducktable.rules.core import Event, State
from ducktable.rules.infer_base import Inference, Inferrer, TableFollower
from ducktable.rules.stability import StabilityTracker

log = logging.getLogger(__name__)

TRACKER_WINDOW, TRACKER_NEEDED = 5, 3
"""Stability voting as measured on the synthetic videos (15 frames a second)."""


def event_key(event: Event) -> str:
    """What an event says, without when or by whom it was reported (a store round trip and
    a camera copy of the same move compare equal)."""
    return event.content_key()


def match_key(state: State) -> str:
    """What makes a match the one the camera knows: game, options, players, observer."""
    return json.dumps([state.game.name, dict(state.game.options), list(state.players), state.observer],
                      sort_keys=True, default=str)


class StoreSync:
    """The camera's :class:`TableFollower` (:attr:`follower`), brought to the store's log by
    :meth:`follow` before each frame. Points of the game are ``len(history)``; what people took
    back or rejected there outlives rebuilt followers and is forgotten once the game is past
    that point (or with :meth:`forget`, when another match is played)."""

    def __init__(self) -> None:
        self.follower: TableFollower | None = None
        self._key: str | None = None
        self._taken_back: set[tuple[int, str]] = set()
        self._rejected: set[tuple[int, str]] = set()

    @property
    def history(self) -> list[Event]:
        """The match's events as the copy holds them."""
        return [] if self.follower is None else list(self.follower.state.history)

    def reject(self, event: Event) -> None:
        """A person said the pending ``event`` is not what happened: drop it and do not suggest
        it again at this point of the game."""
        follower = self.follower
        if follower is None:
            return
        point = (len(follower.state.history), event_key(event))
        self._rejected.add(point)
        if follower.pending is not None and event_key(follower.pending.event) == point[1]:
            follower.reject()

    def forget(self) -> None:
        """Another match is being played (two matches of the same players look alike): forget
        the follower, what people took back and what they rejected."""
        self.follower = self._key = None
        self._taken_back.clear()
        self._rejected.clear()

    def follow(self, state: State, inferrer: Callable[[], Inferrer]) -> TableFollower:
        """The follower, brought to the store's log (``state``, the truth) before a frame;
        ``inferrer`` makes a fresh inferrer of the game when the follower must be rebuilt."""
        key = match_key(state)
        follower = self.follower
        if follower is None or key != self._key:
            self._taken_back.clear()
            self._rejected.clear()
            return self._rebuild(state, inferrer, None)
        mine = [event_key(e) for e in follower.state.history]
        theirs = [event_key(e) for e in state.history]
        if theirs[:len(mine)] == mine:
            entered = state.history[len(mine):]  # entered or confirmed by hand
            for k, event in enumerate(entered):
                settle = follower.confirm if (follower.pending is not None and event_key(
                    follower.pending.event) == event_key(event)) else follower.manual
                # only after the last of them does the table's meanwhile say what came next
                if not settle(event, catch_up=k == len(entered) - 1).ok:
                    return self._rebuild(state, inferrer, follower.tracker)
            self._forget_before(len(theirs))
            return follower
        if mine[:len(theirs)] == theirs:  # undone (or a camera event the store refused)
            self._taken_back.add((len(theirs), mine[len(theirs)]))
            log.info("camera: the log went back to event %d; the camera follows it", len(theirs))
        else:
            log.info("camera: an earlier event was corrected; the camera follows the corrected log")
        return self._rebuild(state, inferrer, follower.tracker)

    def _rebuild(self, state: State, inferrer: Callable[[], Inferrer],
                 tracker: StabilityTracker | None) -> TableFollower:
        """A follower at the store's position, its inferrer told about every event so far; the
        table as already seen (``tracker``) is kept."""
        fresh = state.game.new_state(state.players, observer=state.observer)
        vetoed = _Vetoed(inferrer(), self._taken_back, self._rejected)
        # the log is walked in with a blank table, so that no event is re-timed by what the
        # camera sees now; then the table as seen so far takes its place
        follower = TableFollower(fresh, vetoed, StabilityTracker(TRACKER_WINDOW, TRACKER_NEEDED))
        for event in state.history:
            verdict = follower.manual(event, catch_up=False)
            if not verdict.ok:  # the store replays this log, so this means a bug: say so, go on
                log.error("camera: cannot follow the match log at %s (%s)", event.type, verdict.reason)
                follower.state = state.clone()
                break
        if tracker is not None:
            follower.tracker = tracker
        self.follower, self._key = follower, match_key(state)
        return follower

    def _forget_before(self, point: int) -> None:
        for kept in (self._taken_back, self._rejected):
            for item in [item for item in kept if item[0] < point]:
                kept.discard(item)


class _Vetoed(Inferrer):
    """Wraps a game's inferrer so that the camera never applies, at a given point of the game,
    an event a person took back there (it may still suggest it), nor suggests one a person
    rejected there. Points are ``len(history)``; the sets belong to :class:`StoreSync` and
    outlive rebuilt followers."""

    def __init__(self, inner: Inferrer, taken_back: set[tuple[int, str]],
                 rejected: set[tuple[int, str]]) -> None:
        super().__init__(inner.min_confidence, inner.min_agreement, inner.needs_hands)
        self.inner = inner
        self.taken_back = taken_back
        self.rejected = rejected

    def propose(self, state: State, table: StabilityTracker) -> Inference | None:
        proposal = self.inner.propose(state, table)
        if proposal is None:
            return None
        point = (len(state.history), event_key(proposal.event))
        if point in self.rejected:
            return None
        if point in self.taken_back:  # the most telling reason, whatever else the camera doubts
            return Inference(proposal.event, False, "a person took this event back, but the camera "
                                                    "still sees it on the table")
        return proposal

    def applied(self, state: State, event: Event) -> None:
        self.inner.applied(state, event)

    def stamp(self, state: State, event: Event, table: StabilityTracker) -> Event:
        """An event settled by hand keeps the time the store recorded it with. The store is the
        truth and the follower its copy: a copy dated otherwise would judge Grey Duck's races
        (GREY-G1) differently from the store, which would then refuse what the camera applies.
        The camera's own time reaches the store when a person confirms its guess or types that
        very event on the phone (the guess carries the time the cards first showed)."""
        return event

    def conflicts(self, waiting: Event, proposal: Event) -> bool:
        return self.inner.conflicts(waiting, proposal)

    def remember(self) -> dict[str, Any]:
        return self.inner.remember()

    def recall(self, memory: dict[str, Any]) -> None:
        self.inner.recall(memory)
