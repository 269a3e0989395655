"""Turns a noisy stream of snapshots into settled zone contents and the changes between them.

Why this module exists: a single frame lies (a misread corner, glare, a card half laid, an arm
over the pile). A zone's content counts as changed only when the new content has been read in
``needed`` of the last ``window`` frames in which the zone was visible (the number of cards
by frames, then each card by a majority of those frames); frames where a hand
covers the zone are skipped, neither confirming nor breaking a run. Each change keeps the
timestamp of the frame where the new content *first* appeared (a card missed in the frames
between two visits of a hovering hand keeps its first read), which is what Grey Duck's
out-of-turn races are decided on, and notes whether a hand was seen over the zone while it
changed (cards do not move by themselves). When the number of cards clearly changed but a card
is still disputed, that card settles as ``UNKNOWN`` rather than nothing changing.

Pure: stdlib only; time comes from the snapshots.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from .decks import UNKNOWN
from .snapshot import TableSnapshot

Labels = tuple[str, ...]


@dataclass(frozen=True)
class SettledZone:
    """A zone's agreed content, how sure the reads were, and when it appeared and settled.

    ``agreement`` is, for the least agreed card, the share of the reads since it was first
    read that named it (1.0: every read agreed): a classifier that keeps changing its mind
    about a card is not to be trusted even when each read claims to be sure.
    """

    labels: Labels
    confidence: float
    first_seen_ts: int
    settled_ts: int
    agreement: float = 1.0
    handled: bool = True
    """Whether a hand was seen over the zone while its content changed to this, or this is what
    a hand last laid there read again after changes no hand made (read otherwise for a while):
    cards do not change by themselves, so a change no hand made is likely a misread."""


@dataclass(frozen=True)
class ZoneChange:
    """A zone whose settled content changed from ``before`` to ``after``."""

    zone: str
    before: Labels
    after: Labels
    first_seen_ts: int
    settled_ts: int
    confidence: float


EMPTY = SettledZone((), 1.0, 0, 0)
COVERS_KEPT = 64
"""Covered frames remembered per zone, to tell whether a hand made a change."""
READS_KEPT = 32
"""Visible reads remembered per zone (beyond the voting window), to date a change by its
first read even when misreads held the vote back until that read left the window."""
HAND_SPELL_MS = 500
"""A visible read between two covered frames at most this far apart was taken while a hand
hovered about the zone (the hand watch saw it in the frames around): fingers at the zone's
edge may hide a card there without covering enough of the zone to mark the frame covered."""


@dataclass(frozen=True)
class _Read:
    labels: Labels
    confidence: float  # the least sure card's (1.0 for an empty zone)
    ts: int
    card_confidences: tuple[float, ...] = ()  # each card's own


@dataclass(frozen=True)
class _Vote:
    labels: Labels
    confidence: float
    agreement: float
    reads: list[_Read]


class StabilityTracker:
    """Per-zone voting over the last ``window`` visible reads; ``needed`` of them must agree.

    ``needed`` must be more than half of ``window`` so that two contents can never both win.
    Zones start empty (an empty table) unless ``initial`` says otherwise.
    """

    def __init__(self, window: int = 6, needed: int = 4,
                 initial: Mapping[str, Iterable[str]] | None = None) -> None:
        if not 0 < needed <= window or needed * 2 <= window:
            raise ValueError(
                f"needed ({needed}) must be more than half of window ({window}) and at most window"
            )
        self.window = window
        self.needed = needed
        self._reads: dict[str, deque[_Read]] = {}
        self._settled: dict[str, SettledZone] = {
            name: SettledZone(tuple(labels), 1.0, 0, 0) for name, labels in (initial or {}).items()
        }
        self.last_ts = 0
        self.frames = 0
        self._covered_ts: dict[str, int] = {}
        self._covers: dict[str, deque[int]] = {}  # recent frames in which a hand covered the zone
        self._rests: dict[str, deque[int]] = {}  # ... of them, those with another of the two frames before
        self._recent: dict[str, deque[bool]] = {}  # whether each of the zone's last two frames covered it
        self._kept: dict[str, deque[_Read]] = {}  # the last READS_KEPT visible reads of each zone
        self._laid: dict[str, SettledZone] = {}  # what a hand last changed each zone to

    def update(self, snapshot: TableSnapshot) -> list[ZoneChange]:
        """Take one frame's reads; return the zones whose settled content changed with it."""
        self.last_ts = snapshot.ts
        self.frames += 1
        changes: list[ZoneChange] = []
        for name, read in snapshot.zones.items():
            if read.occluded:
                self._covered_ts[name] = snapshot.ts
                self._covers.setdefault(name, deque(maxlen=COVERS_KEPT)).append(snapshot.ts)
                recent = self._recent.setdefault(name, deque(maxlen=2))
                if any(recent):
                    self._rests.setdefault(name, deque(maxlen=COVERS_KEPT)).append(snapshot.ts)
                recent.append(True)
                continue
            self._recent.setdefault(name, deque(maxlen=2)).append(False)
            reads = self._reads.setdefault(name, deque(maxlen=self.window))
            reads.append(_Read(read.labels, read.confidence, snapshot.ts,
                               tuple(c.confidence for c in read.cards)))
            self._kept.setdefault(name, deque(maxlen=READS_KEPT)).append(reads[-1])
            change = self._settle(name, reads)
            if change is not None:
                changes.append(change)
        return changes

    def _vote(self, reads: Iterable[_Read], unclear: bool = False) -> _Vote | None:
        """Vote on the number of cards first, then card by card among reads of that length,
        so one misread card in a spread of seven does not throw the whole read away.
        ``needed`` reads must name the count, and each card. A card named by fewer makes the
        vote fail, or with ``unclear`` counts as ``UNKNOWN``."""
        pool = list(reads)
        if not pool:
            return None
        length, count = Counter(len(r.labels) for r in pool).most_common(1)[0]
        if count < self.needed:
            return None
        same_length = [r for r in pool if len(r.labels) == length]
        labels_list: list[str] = []
        confidence = agreement = 1.0
        for position in range(length):
            label, votes = Counter(r.labels[position] for r in same_length).most_common(1)[0]
            if votes < self.needed:  # (more than half of the window, so never a tie)
                if not unclear:
                    return None  # not yet named by enough reads
                labels_list.append(UNKNOWN)
                confidence = agreement = 0.0
                continue
            labels_list.append(label)
            agreeing = [r.card_confidences[position] if r.card_confidences else r.confidence
                        for r in same_length if r.labels[position] == label]  # that card's own
            confidence = min(confidence, sum(agreeing) / len(agreeing))
            since = next(k for k, r in enumerate(same_length) if r.labels[position] == label)
            # reads of what was there before do not count
            agreement = min(agreement, votes / (len(same_length) - since))
        if not length:
            confidence = sum(r.confidence for r in same_length) / len(same_length)
        return _Vote(tuple(labels_list), confidence, agreement, same_length)

    def _settle(self, name: str, reads: deque[_Read]) -> ZoneChange | None:
        """Settle the zone on the vote. When the number of cards clearly changed but some card
        is still disputed, that card settles as ``UNKNOWN``: "three cards, one unclear" must
        not look like "nothing changed" to whoever reads the zone."""
        current = self._settled.get(name, EMPTY)
        vote = self._vote(reads)
        if vote is None:
            vote = self._vote(reads, unclear=True)
            if vote is None or len(vote.labels) == len(current.labels):
                return None
        if vote.labels == current.labels:
            if vote.agreement != current.agreement or vote.confidence != current.confidence:
                self._settled[name] = replace(current, confidence=vote.confidence, agreement=vote.agreement)
            return None
        exact = [r for r in vote.reads if r.labels == vote.labels] or vote.reads
        first = self._first_read(name, current, vote.labels, exact[0].ts)
        before = [r.ts for r in reads if r.labels == current.labels and r.ts < first]
        last_old = before[-1] if before else current.settled_ts
        by_hand = handled = any(last_old < ts <= vote.reads[-1].ts for ts in self._covers.get(name, ()))
        if UNKNOWN in current.labels and _fits(current.labels, vote.labels):
            handled = handled or current.handled  # an unclear card made out, not a change
            first = min(first, current.first_seen_ts)
        laid = self._laid.get(name)
        if not handled and laid is not None and _fits(laid.labels, vote.labels):
            handled = True  # what a hand last laid there, read again (its unclear cards made out)
            first = min(first, laid.first_seen_ts)
        settled = SettledZone(vote.labels, vote.confidence, first, vote.reads[-1].ts, vote.agreement,
                              handled)
        self._settled[name] = settled
        if by_hand or (handled and laid is not None and _fits(laid.labels, vote.labels)):
            self._laid[name] = settled  # (an unclear card of it made out pins that card)
        return ZoneChange(name, current.labels, vote.labels, settled.first_seen_ts,
                          settled.settled_ts, vote.confidence)

    def _first_read(self, name: str, current: SettledZone, labels: Labels, fallback: int) -> int:
        """When the new content was first read: the earliest read since the old content was
        last read that names every card of it (an unclear card may stand for any), but not
        one that named none (any card could stand behind a read of only unclear cards). A read
        of the old content taken while a hand hovered about the zone does not count: a card
        just laid there, read clearly, then missed under the fingers of the hand coming back,
        was still laid when it was first read (a grey race is decided on that time)."""
        kept = list(self._kept.get(name, ()))
        start = max((k + 1 for k, r in enumerate(kept)
                     if r.labels == current.labels and not self._in_hand_spell(name, r.ts)), default=0)
        for r in kept[start:]:
            if r.ts > current.settled_ts and _fits(r.labels, labels, either=True) and (
                    not labels or any(label != UNKNOWN for label in r.labels)):
                return min(r.ts, fallback)
        return fallback

    def _in_hand_spell(self, name: str, ts: int) -> bool:
        """Whether the read at ``ts`` lies between two covered frames of the zone at most
        :data:`HAND_SPELL_MS` apart."""
        covers = self._covers.get(name, ())
        before = max((c for c in covers if c < ts), default=None)
        after = min((c for c in covers if c > ts), default=None)
        return before is not None and after is not None and after - before <= HAND_SPELL_MS

    def steady(self, name: str, reads: int) -> bool:
        """Whether the last ``reads`` reads of the zone since a hand was last over it all name
        as many cards as it settled on. Right after a hand leaves, a card it laid may still be
        missed for a frame or three (half under another, caught in glare) and three agreeing
        reads settle the rest; cards do not go on appearing once several more reads agree."""
        count = len(self.labels(name))
        since = self._last_reads_since_hand(name, reads)
        return len(since) >= reads and all(len(r.labels) == count for r in since)

    def unchanged(self, name: str, reads: int) -> bool:
        """Whether the last ``reads`` reads of the zone since a hand was last over it all name
        exactly what it settled on (a card that reads one way and then another is no sure read,
        however sure each read was)."""
        labels = self.labels(name)
        since = self._last_reads_since_hand(name, reads)
        return len(since) >= reads and all(r.labels == labels for r in since)

    def wavered(self, name: str) -> bool:
        """Whether, since a hand was last over the zone, a read named another number of cards
        than it settled on *after* a read had named that number. Fewer cards before that is a
        card still settling under the hand's shadow; a count that comes and goes after it means
        the detector loses (or invents) cards in this zone now and then: one more card may be
        lost there for good (a white card on a cream cloth)."""
        count = len(self.labels(name))
        since = self._last_reads_since_hand(name, READS_KEPT)
        full = next((k for k, r in enumerate(since) if len(r.labels) == count), None)
        return full is not None and any(len(r.labels) != count for r in since[full:])

    def lost_since_hand(self, name: str) -> bool:
        """Whether a read of the zone since a hand was last over it (among the last
        :data:`READS_KEPT`) named more cards than it settled on. Cards do not leave a zone by
        themselves: a card read once the hand had gone and then not is one the detector lost
        (half under another, in glare), which it may go on losing for several reads, not one
        taken away. Unlike :meth:`wavered`, this counts more cards read *before* the settled
        number too (three of three read, then two for four reads, settle as two)."""
        count = len(self.labels(name))
        return any(len(r.labels) > count for r in self._last_reads_since_hand(name, READS_KEPT))

    def rival_since_hand(self, name: str) -> tuple[int, int]:
        """The reads of the zone since a hand was last over it (among the last
        :data:`READS_KEPT`) that name as many cards as it settled on, every one made out, and
        how many of them name, at one place, the same other card than the settled one (the
        most for any place and card). A card that reads one way and then another is no sure
        read, however sure each read was (a red 2 in a revealed hand read as a red 3 in six
        frames of eleven, at 0.94-0.99); one odd misread is no rival."""
        labels = self.labels(name)
        reads = [r.labels for r in self._last_reads_since_hand(name, READS_KEPT)
                 if len(r.labels) == len(labels) and UNKNOWN not in r.labels]
        rival = 0
        for k, label in enumerate(labels):
            others = Counter(r[k] for r in reads if r[k] != label)
            rival = max(rival, max(others.values(), default=0))
        return len(reads), rival

    def _last_reads_since_hand(self, name: str, reads: int) -> list[_Read]:
        covered = self._covered_ts.get(name, -1)
        return [r for r in self._kept.get(name, ()) if r.ts > covered][-reads:]

    def settled(self, name: str) -> SettledZone:
        """The zone's agreed content (empty if never settled)."""
        return self._settled.get(name, EMPTY)

    def labels(self, name: str) -> Labels:
        return self.settled(name).labels

    def covered_since(self, name: str, ts: int) -> bool:
        """Whether a hand covered the zone in some frame after ``ts`` (someone reached there)."""
        return self._covered_ts.get(name, -1) > ts

    def covers_since(self, name: str, ts: int) -> tuple[int, ...] | None:
        """The times of the frames after ``ts`` in which a hand covered the zone; None when
        they may go back further than the :data:`COVERS_KEPT` kept."""
        covers = self._covers.get(name)
        if covers is None:
            return ()
        if len(covers) == COVERS_KEPT and covers[0] > ts:
            return None
        return tuple(c for c in covers if c > ts)

    def rested_since(self, name: str, ts: int, until: int | None = None) -> bool | None:
        """Whether a hand covered the zone in two of three frames in a row after ``ts`` (the
        second of them before ``until``): a hand that takes or lays a card there rests over it
        (the hand watch may miss it in a frame between), one crossing it on its way elsewhere
        covers it in one frame. None when such frames may go back further than the
        :data:`COVERS_KEPT` kept."""
        rests = self._rests.get(name)
        if rests is None:
            return False
        if len(rests) == COVERS_KEPT and rests[0] > ts:
            return None
        return any(ts < r and (until is None or r < until) for r in rests)

    def reads_since(self, name: str, ts: int) -> tuple[tuple[int, Labels], ...] | None:
        """The times and labels of the zone's visible reads after ``ts``; None when they may go
        back further than the :data:`READS_KEPT` kept."""
        kept = self._kept.get(name)
        if kept is None:
            return ()
        if len(kept) == READS_KEPT and kept[0].ts > ts:
            return None
        return tuple((r.ts, r.labels) for r in kept if r.ts > ts)

    def blank(self, name: str) -> bool:
        """Whether this frame read no card in the zone while it settled on some: something
        hid them (a hand the hand watch missed), or they were taken away."""
        kept = self._kept.get(name)
        return bool(kept and kept[-1].ts == self.last_ts and not kept[-1].labels and self.labels(name))

    def fresh(self, name: str) -> bool:
        """Whether the zone's settled content was read again since a hand last covered it.

        Right after a hand leaves, the settled content is still what lay there *before* the
        hand came; whoever reasons from "this zone did not change" must wait until it is fresh.
        """
        covered = self._covered_ts.get(name)
        if covered is None:
            return True
        after = [r for r in self._reads.get(name, ()) if r.ts > covered]
        vote = self._vote(after)
        return vote is not None and vote.labels == self.labels(name)

    def copy(self) -> StabilityTracker:
        """An independent copy: the table as it stood at this frame, for reasoning over later
        (a follower that fell behind walks such copies to catch up)."""
        twin = StabilityTracker.__new__(StabilityTracker)
        twin.window, twin.needed = self.window, self.needed
        twin._reads = {name: deque(reads, maxlen=self.window) for name, reads in self._reads.items()}
        twin._settled = dict(self._settled)
        twin._covered_ts = dict(self._covered_ts)
        twin._covers = {name: deque(covers, maxlen=COVERS_KEPT) for name, covers in self._covers.items()}
        twin._rests = {name: deque(rests, maxlen=COVERS_KEPT) for name, rests in self._rests.items()}
        twin._recent = {name: deque(recent, maxlen=2) for name, recent in self._recent.items()}
        twin._kept = {name: deque(kept, maxlen=READS_KEPT) for name, kept in self._kept.items()}
        twin._laid = dict(self._laid)
        twin.last_ts, twin.frames = self.last_ts, self.frames
        return twin

    def signature(self) -> tuple[object, ...]:
        """What the reading methods can tell: two moments with equal signatures answer every
        question alike, so a follower need keep only one of them."""
        names = sorted(set(self._settled) | set(self._covered_ts))
        out = []
        for name in names:
            z = self.settled(name)
            out.append((name, z.labels, z.first_seen_ts, z.settled_ts, round(z.confidence, 1),
                        round(z.agreement, 1), z.handled, self._covered_ts.get(name), self.fresh(name),
                        self.blank(name)))
        return tuple(out)

    def view(self) -> dict[str, SettledZone]:
        """Every zone's settled content (a copy, safe to keep)."""
        return dict(self._settled)


def _fits(read: Labels, labels: Labels, either: bool = False) -> bool:
    """Whether ``read`` names ``labels`` card by card, an unclear card in ``read`` (with
    ``either``, in both) standing for any."""
    return len(read) == len(labels) and all(
        r in (UNKNOWN, label) or (either and label == UNKNOWN) for r, label in zip(read, labels, strict=True))
