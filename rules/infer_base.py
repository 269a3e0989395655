"""The shared part of turning settled table contents into game events, for every game.

Why this module exists: each game has its own ``infer_<game>.py`` that looks at the engine's
state and the :class:`~ducktable.rules.stability.StabilityTracker` and proposes the *next*
event. Everything around that is the same for all games and lives here once: an event goes
through the engine's own ``check``/``apply`` exactly like a manual entry; an event the camera
is not sure of (a low-confidence read, an ambiguous sight, or one the rules refuse) is never
applied but held as *pending* for a person to confirm or correct; events the camera cannot see
(a die roll, a Quack, a duck call) come in by hand through :meth:`TableFollower.manual`.

Pure: stdlib only; time comes from the snapshots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .core import Event, State, Verdict
from .decks import UNKNOWN
from .snapshot import TableSnapshot
from .stability import StabilityTracker

DEFAULT_MIN_CONFIDENCE = 0.5
"""Reads less sure than this never become an event on their own."""

MAX_EVENTS_PER_FRAME = 16
"""A safety bound: one frame can settle several events (a play and the draw before it)."""


@dataclass(frozen=True)
class Inference:
    """An event the camera proposes, whether it is sure enough to apply, and why."""

    event: Event
    certain: bool
    why: str


class Inferrer:
    """Proposes the next event of one game from the state and the settled table.

    Subclasses implement :meth:`propose`; :meth:`applied` lets them forget what an applied
    event has used up (e.g. cards seen staged for a play).
    """

    def __init__(self, min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> None:
        self.min_confidence = min_confidence

    def propose(self, state: State, table: StabilityTracker) -> Inference | None:
        raise NotImplementedError  # every game's inferrer overrides this

    def applied(self, state: State, event: Event) -> None:
        """Called after ``event`` was applied to ``state`` (camera, confirmed or manual)."""

    def sure(self, table: StabilityTracker, zones: Sequence[str]) -> tuple[bool, str]:
        """Whether the reads of ``zones`` are good enough to act on alone, and if not, why."""
        for name in zones:
            settled = table.settled(name)
            if UNKNOWN in settled.labels:
                return False, f"a card in {name} could not be recognised"
            if settled.confidence < self.min_confidence:
                return False, f"the cards in {name} were read with low confidence ({settled.confidence:.2f})"
        return True, ""


@dataclass
class FollowStep:
    """What one frame changed: events applied, and the event now waiting for a person."""

    applied: list[Inference] = field(default_factory=list)
    pending: Inference | None = None


class TableFollower:
    """Feeds frames through the tracker and an inferrer into a state (observer mode).

    Certain proposals that the rules accept are applied; anything else becomes ``pending``
    (replaced as soon as the camera proposes something better) until :meth:`confirm`,
    :meth:`manual` or :meth:`reject` settles it.
    """

    def __init__(self, state: State, inferrer: Inferrer, tracker: StabilityTracker | None = None) -> None:
        self.state = state
        self.inferrer = inferrer
        self.tracker = tracker or StabilityTracker()
        self.pending: Inference | None = None
        self.log: list[Inference] = []

    def feed(self, snapshot: TableSnapshot) -> FollowStep:
        self.tracker.update(snapshot)
        return self.advance()

    def advance(self) -> FollowStep:
        """Apply every event the settled table now supports, in order."""
        step = FollowStep()
        self.pending = None
        for _ in range(MAX_EVENTS_PER_FRAME):
            if self.state.is_over():
                break
            proposal = self.inferrer.propose(self.state, self.tracker)
            if proposal is None:
                break
            if not proposal.certain:
                self.pending = proposal
                break
            verdict = self.state.check(proposal.event)
            if not verdict.ok:
                self.pending = Inference(proposal.event, False, f"the rules refuse it: {verdict.reason}")
                break
            self._apply(proposal)
            step.applied.append(proposal)
        step.pending = self.pending
        return step

    def confirm(self, event: Event | None = None) -> Verdict:
        """A person accepts the pending event, or gives the right one instead."""
        chosen = event if event is not None else (self.pending.event if self.pending else None)
        if chosen is None:
            return Verdict.illegal("there is no camera event waiting to be confirmed")
        verdict = self.state.check(chosen)
        if verdict.ok:
            self._apply(Inference(chosen, True, "confirmed by hand"))
            self.pending = None
        return verdict

    def manual(self, event: Event) -> Verdict:
        """An event the camera cannot see (die roll, Quack, duck call), entered by hand."""
        verdict = self.state.check(event)
        if verdict.ok:
            self._apply(Inference(event, True, "entered by hand"))
            self.pending = None
        return verdict

    def reject(self) -> None:
        self.pending = None

    def _apply(self, inference: Inference) -> None:
        self.state.apply_or_raise(inference.event)
        self.inferrer.applied(self.state, inference.event)
        self.log.append(inference)
