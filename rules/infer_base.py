"""The shared part of turning settled table contents into game events, for every game.

Why this module exists: each game has its own ``infer_<game>.py`` that looks at the engine's
state and the :class:`~ducktable.rules.stability.StabilityTracker` and proposes the *next*
event. Everything around that is the same for all games and lives here once: an event goes
through the engine's own ``check``/``apply`` exactly like a manual entry; an event the camera
is not sure of (a low-confidence read, an ambiguous sight, or one the rules refuse) is never
applied but held as *pending* for a person to confirm or correct; events the camera cannot see
(a die roll, a Quack, a duck call) come in by hand through :meth:`TableFollower.manual`.

The rule above all: the camera never applies an event the game did not have. When in doubt it
waits, and a person settles it; after that the follower catches up on what the table did in
the meantime, reading the table moments it kept in order (see :class:`TableFollower`).

Pure: stdlib only; time comes from the snapshots.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .core import Event, State, Verdict
from .decks import UNKNOWN
from .misread import Mend, ask, find_mends, same_suspect
from .snapshot import TableSnapshot
from .stability import StabilityTracker

DEFAULT_MIN_CONFIDENCE = 0.5
"""Reads less sure than this never become an event on their own."""

PLAIN_CONFIDENCE = 0.9
"""A card read at least this sure, in a zone whose reads agree on it (:data:`PLAIN_AGREEMENT`),
is read *plainly*: enough for the camera to mend its own earlier misread of it."""
PLAIN_AGREEMENT = 0.8
MAX_MENDS_ASKED = 10
"""How many ways to mend an earlier camera event the phones offer at once (a DUCK colour has 9
other digits)."""

MAX_EVENTS_PER_FRAME = 16
"""A safety bound: one frame can settle several events (a play and the draw before it)."""


@dataclass(frozen=True)
class Inference:
    """An event the camera proposes, whether it is sure enough to apply, and why. ``mends``:
    when the rules refuse it because of a card the camera recorded earlier, the ways to mend
    that event, most likely first (:mod:`.misread`), for a person to choose from."""

    event: Event
    certain: bool
    why: str
    mends: tuple[Mend, ...] = ()


class Inferrer:
    """Proposes the next event of one game from the state and the settled table.

    Subclasses implement :meth:`propose`; :meth:`applied` lets them forget what an applied
    event has used up (e.g. cards seen staged for a play).
    """

    def __init__(self, min_confidence: float = DEFAULT_MIN_CONFIDENCE, min_agreement: float = 0.0,
                 needs_hands: bool = False) -> None:
        self.min_confidence = min_confidence
        self.min_agreement = min_agreement
        self.needs_hands = needs_hands  # a change no hand was seen making is not acted on

    def propose(self, state: State, table: StabilityTracker) -> Inference | None:
        raise NotImplementedError  # every game's inferrer overrides this

    def applied(self, state: State, event: Event) -> None:
        """Called after ``event`` was applied to ``state`` (camera, confirmed or manual)."""

    def stamp(self, state: State, event: Event, table: StabilityTracker) -> Event:
        """The event a person enters, with the time the camera saw it happen on ``table`` (one
        of the table moments kept since the last applied event) where that is earlier than the
        time it came with, and later than the last event applied. By default it is kept as
        entered; games whose rules compare times (Grey Duck's races) override this, since a
        person confirming at the scoreboard a few seconds later is a worse clock than the
        camera."""
        return event

    def conflicts(self, waiting: Event, proposal: Event) -> bool:
        """Whether a sure ``proposal`` contradicts the event already ``waiting`` for a person
        (then it waits too: the table moved on, and what is seen now may hide what was seen
        before). By default, another event type or seat contradicts; a clearer read of the
        same move does not."""
        return waiting.type != proposal.type or waiting.seat != proposal.seat

    def remember(self) -> dict[str, Any]:
        """A copy of what this inferrer has noted so far (its attributes), to go back to."""
        return copy.deepcopy(self.__dict__)

    def recall(self, memory: dict[str, Any]) -> None:
        """Go back to what :meth:`remember` returned (a follower catching up re-reads the
        table moments from there)."""
        self.__dict__.update(copy.deepcopy(memory))

    def sure(self, table: StabilityTracker, zones: Sequence[str]) -> tuple[bool, str]:
        """Whether the reads of ``zones`` are good enough to act on alone, and if not, why."""
        for name in zones:
            settled = table.settled(name)
            if UNKNOWN in settled.labels:
                return False, f"a card in {name} could not be recognised"
            if settled.confidence < self.min_confidence:
                return False, f"the cards in {name} were read with low confidence ({settled.confidence:.2f})"
            if self.needs_hands and not self.laid_by_hand(table, name):
                return False, (f"{name} changed to {', '.join(settled.labels) or 'nothing'} with no hand "
                               "seen near it: cards do not move by themselves, so it may be a misread")
            if settled.agreement < self.min_agreement:
                return False, (f"the reads of {name} disagree (only {settled.agreement:.0%} of them name "
                               "the same card)")
        return True, ""

    def laid_by_hand(self, table: StabilityTracker, zone: str) -> bool:
        """Whether a hand was seen over ``zone`` while it changed to what it shows."""
        return table.settled(zone).handled


@dataclass
class FollowStep:
    """What one frame changed: events applied, and the event now waiting for a person."""

    applied: list[Inference] = field(default_factory=list)
    pending: Inference | None = None
    mended: list[Mend] = field(default_factory=list)
    """Earlier camera events the follower mended by itself this frame (before ``applied``):
    whoever records the events elsewhere replaces them too."""


MAX_VIEWS_BEHIND = 3000
"""How many distinct table moments a follower keeps since its last applied event (minutes of
play at a busy table); past that it catches up from the live table alone."""


class TableFollower:
    """Feeds frames through the tracker and an inferrer into a state (observer mode).

    Certain proposals that the rules accept are applied; anything else becomes ``pending``
    until :meth:`confirm`, :meth:`manual` or :meth:`reject` settles it. A pending event stays
    until the camera proposes another one (better evidence), even if the table moves on and
    its evidence goes away.

    While the follower waits (an event pending, or a change it could not read at all), the
    table does not: players keep playing. So the follower keeps every distinct settled moment
    of the table since its last applied event (copies of the tracker) and the inferrer's memory
    from then; once a person settles the event, it walks those moments in order, as if it had
    known all along, instead of reading the now much later table in one go (where a pile top
    taken and covered again, or a play shown and stacked meanwhile, would be misread).
    """

    def __init__(self, state: State, inferrer: Inferrer, tracker: StabilityTracker | None = None) -> None:
        self.state = state
        self.inferrer = inferrer
        self.tracker = tracker or StabilityTracker()
        self.pending: Inference | None = None
        self.log: list[Inference] = []
        self._behind: list[StabilityTracker] = []  # table moments since the last applied event
        self._memory: dict[str, Any] | None = None  # the inferrer's memory at the first of them
        self._signature: tuple[object, ...] | None = None
        self._mends_for: tuple[int, str, tuple[str, ...]] | None = None
        self._mends: list[Mend] = []
        self._news_base: dict[str, tuple[str, ...]] = {}
        self._news_kept: dict[str, tuple[str, ...]] = {}
        self._news_events = -1  # the log's length when the base was read

    @property
    def behind(self) -> int:
        """How many table moments an event settled by hand would make the follower walk."""
        return len(self._behind)

    def feed(self, snapshot: TableSnapshot) -> FollowStep:
        self.tracker.update(snapshot)
        return self._step(self.tracker, live=True)

    def advance(self) -> FollowStep:
        """Apply every event the settled table now supports, in order."""
        return self._step(self.tracker, live=True)

    def _step(self, table: StabilityTracker, live: bool) -> FollowStep:
        waiting = self.pending is not None
        step = self._advance(table)
        if step.applied or self._memory is None or (self.pending is not None and not waiting):
            # what came before is explained, or is the evidence of the event now pending:
            # the walk after a person settles it starts here
            self._memory = self.inferrer.remember()
            self._behind, self._signature = [], None
        signature = table.signature()
        if signature != self._signature and len(self._behind) < MAX_VIEWS_BEHIND:
            self._behind.append(table.copy() if live else table)
            self._signature = signature
        if live and len(self.state.history) != self._news_events:
            self._rebase_news(table)
        return step

    def _rebase_news(self, table: StabilityTracker) -> None:
        """The events just recorded explain the table as it is now, except the cards that were
        news and that no event just recorded names: those stay news until the next event (DUCK
        records a draw from the deck when the next player lays out their play)."""
        kept: dict[str, tuple[str, ...]] = {}
        if self._news_events >= 0:
            named = _labels_named(self.state.history[self._news_events:])
            for name, cards in self._news(kept=False):
                left = []
                for card in cards:
                    if named[card] > 0:
                        named[card] -= 1
                    else:
                        left.append(card)
                if left:
                    kept[name] = tuple(left)
        self._news_base = {name: z.labels for name, z in table.view().items()}
        self._news_kept = kept
        self._news_events = len(self.state.history)

    def news(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The cards the table shows plainly now that it did not show when the match's last
        event was recorded (or that were news then and that event does not name), zone by zone
        (sorted): what the phones can show at once, before the event they belong to is recorded
        (a play laid out is no play until it reaches the pile). A card under a hand, or not yet
        read again since one left, is not news."""
        return self._news(kept=True)

    def _news(self, kept: bool) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The news, with or without the cards kept from before the last event: a card kept
        once is not kept again, so a card no event names (DUCK's lifebelt, laid before the
        deal) leaves the phones at the next event rather than staying there all round."""
        out = []
        for name, zone in sorted(self.tracker.view().items()):
            if (not zone.labels or zone.confidence < PLAIN_CONFIDENCE or zone.agreement < PLAIN_AGREEMENT
                    or not self.tracker.fresh(name)):
                continue
            unseen = Counter(zone.labels)
            unseen.subtract(self._news_base.get(name, ()))
            if kept:
                unseen.update(self._news_kept.get(name, ()))
            cards = []
            for label in zone.labels:
                if label != UNKNOWN and unseen[label] > 0:
                    cards.append(label)
                    unseen[label] -= 1
            if cards:
                out.append((name, tuple(cards)))
        return tuple(out)

    def _advance(self, table: StabilityTracker) -> FollowStep:
        step = FollowStep()
        for _ in range(MAX_EVENTS_PER_FRAME):
            if self.state.is_over():
                self.pending = None
                break
            proposal = self.inferrer.propose(self.state, table)
            if proposal is None:
                break  # nothing new: an event already waiting keeps waiting
            if not proposal.certain:
                self.pending = proposal
                break
            if self.pending is not None and self.inferrer.conflicts(self.pending.event, proposal.event):
                self.pending = Inference(self.pending.event, False, (
                    f"the camera first saw signs of {_describe(self.pending.event)}, then of "
                    f"{_describe(proposal.event)}"))
                break
            verdict = self.state.check(proposal.event)
            if not verdict.ok:
                mend = self._own_mend(proposal, verdict, table)
                if mend is not None:
                    step.mended.append(mend)
                    verdict = self.state.check(proposal.event)
            if not verdict.ok:
                self.pending = self._refused(proposal, verdict, table)
                break
            self._apply(proposal)
            self.pending = None
            step.applied.append(proposal)
        step.pending = self.pending
        return step

    # -- an earlier camera misread --------------------------------------------------------
    def mends_for(self, event: Event, reason: str, table: StabilityTracker | None = None) -> list[Mend]:
        """The ways to mend an earlier camera event so that ``event``, refused for ``reason``,
        fits (see :func:`~.misread.find_mends`); cards read plainly on ``table`` (default: the
        live one) count as seen. Kept until the log or what is seen changes."""
        seen = plain_cards(table or self.tracker)
        key = (len(self.state.history), event.content_key() + reason, seen)
        if key != self._mends_for:
            self._mends_for = key
            self._mends = find_mends(self.state, event, reason=reason, seen=seen)
        return self._mends

    def _refused(self, proposal: Inference, verdict: Verdict, table: StabilityTracker) -> Inference:
        """The refused proposal, pending; with the question that mends an earlier camera event
        when one explains the refusal."""
        mends = tuple(same_suspect(self.mends_for(proposal.event, verdict.reason, table))[:MAX_MENDS_ASKED])
        why = f"the rules refuse it: {verdict.reason}"
        if mends:
            why += f"; {ask(mends)}"
        return Inference(proposal.event, False, why, mends)

    def _own_mend(self, proposal: Inference, verdict: Verdict, table: StabilityTracker) -> Mend | None:
        """Mend an earlier camera event by itself, when the refused ``proposal`` is read surely
        and exactly one way to mend it names a card the table shows plainly now; the mend made,
        or None. Never a count mend: a card on the table now says which face a card had, not how
        many cards an earlier play had (that is a person's to say)."""
        if not proposal.certain:
            return None
        mends = self.mends_for(proposal.event, verdict.reason, table)
        seen = plain_cards(table)
        plain = [m for m in mends if not m.count and m.now in seen]
        if len(plain) != 1 or not self.mend(plain[0]):
            return None
        return plain[0]

    def mend(self, mend: Mend) -> bool:
        """Replace event ``mend.index`` of the log by ``mend.mended`` (a person chose it, or the
        table shows it plainly) and replay; False, changing nothing, if the log then does not
        replay."""
        history = list(self.state.history)
        if not 0 <= mend.index < len(history) or history[mend.index].content_key() != mend.recorded.content_key():
            return False
        fresh = self.state.game.new_state(self.state.players, observer=self.state.observer)
        for k, event in enumerate(history):
            if not fresh.apply(mend.mended if k == mend.index else event).ok:
                return False
        self.state = fresh
        at = mend.index - (len(history) - len(self.log))
        if 0 <= at < len(self.log):
            kept = self.log[at]
            self.log[at] = Inference(mend.mended, kept.certain, kept.why)
        self._mends_for = None
        return True

    def confirm(self, event: Event | None = None, *, catch_up: bool = True) -> Verdict:
        """A person accepts the pending event, or gives the right one instead; then the
        follower catches up with what the table did meanwhile (``catch_up`` False: the camera
        has stopped, and its last picture of the table says nothing about what comes next)."""
        chosen = event if event is not None else (self.pending.event if self.pending else None)
        if chosen is None:
            return Verdict.illegal("there is no camera event waiting to be confirmed")
        return self._settle_by_hand(Inference(chosen, True, "confirmed by hand"), catch_up)

    def manual(self, event: Event, *, catch_up: bool = True) -> Verdict:
        """An event the camera cannot see (die roll, Quack, duck call), entered by hand; then
        the follower catches up with what the table did meanwhile (see :meth:`confirm`)."""
        return self._settle_by_hand(Inference(event, True, "entered by hand"), catch_up)

    def dated(self, event: Event) -> Event:
        """``event`` (about to be settled by hand) with the time the camera first saw it on
        the table, where the inferrer can tell (see :meth:`Inferrer.stamp`): every table moment
        kept since the last applied event is asked, since the cards may be covered by now.
        Whoever records the event elsewhere (a match store) should record it so dated."""
        for view in (*self._behind, self.tracker):
            event = self.inferrer.stamp(self.state, event, view)
        return event

    def reject(self) -> None:
        self.pending = None

    def _settle_by_hand(self, inference: Inference, catch_up: bool) -> Verdict:
        inference = Inference(self.dated(inference.event), True, inference.why)
        verdict = self.state.check(inference.event)
        if not verdict.ok:
            return verdict
        if self._memory is not None:
            self.inferrer.recall(self._memory)  # as it was at the first kept moment
        self.pending = None
        self._apply(inference)
        self._memory = self.inferrer.remember()
        views, self._behind, self._signature = self._behind, [], None
        if catch_up:
            for view in views:
                self._step(view, live=False)
            self._step(self.tracker, live=True)
        return verdict

    def _apply(self, inference: Inference) -> None:
        self.state.apply_or_raise(inference.event)
        self.inferrer.applied(self.state, inference.event)
        self.log.append(inference)


def plain_cards(table: StabilityTracker) -> tuple[str, ...]:
    """The cards the settled table shows plainly (see :data:`PLAIN_CONFIDENCE`), sorted."""
    cards: set[str] = set()
    for settled in table.view().values():
        if settled.confidence >= PLAIN_CONFIDENCE and settled.agreement >= PLAIN_AGREEMENT:
            cards.update(label for label in settled.labels if label != UNKNOWN)
    return tuple(sorted(cards))


def _labels_named(events: Sequence[Event]) -> Counter[str]:
    """Every text the events' data holds (card labels among them), counted."""
    named: Counter[str] = Counter()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            named[value] += 1
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    for event in events:
        walk(event.data)
    return named


def _describe(event: Event) -> str:
    who = "" if event.seat is None else f" by seat {event.seat + 1}"
    details = ", ".join(f"{k} {v}" for k, v in sorted(event.data.items()) if not isinstance(v, list | dict))
    return f"a {event.type}{who}" + (f" ({details})" if details else "")
