"""Turns a noisy stream of snapshots into settled zone contents and the changes between them.

Why this module exists: a single frame lies (a misread corner, glare, a card half laid, an arm
over the pile). A zone's content counts as changed only when the new content has been read in
``needed`` of the last ``window`` frames in which the zone was visible; frames where a hand
covers the zone are skipped, neither confirming nor breaking a run. Each change keeps the
timestamp of the frame where the new content *first* appeared, which is what Grey Duck's
out-of-turn races are decided on.

Pure: stdlib only; time comes from the snapshots.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .snapshot import TableSnapshot

Labels = tuple[str, ...]


@dataclass(frozen=True)
class SettledZone:
    """A zone's agreed content, how sure the reads were, and when it appeared and settled."""

    labels: Labels
    confidence: float
    first_seen_ts: int
    settled_ts: int


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


@dataclass(frozen=True)
class _Read:
    labels: Labels
    confidence: float
    ts: int


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

    def update(self, snapshot: TableSnapshot) -> list[ZoneChange]:
        """Take one frame's reads; return the zones whose settled content changed with it."""
        self.last_ts = snapshot.ts
        self.frames += 1
        changes: list[ZoneChange] = []
        for name, read in snapshot.zones.items():
            if read.occluded:
                continue
            reads = self._reads.setdefault(name, deque(maxlen=self.window))
            reads.append(_Read(read.labels, read.confidence, snapshot.ts))
            change = self._settle(name, reads)
            if change is not None:
                changes.append(change)
        return changes

    def _settle(self, name: str, reads: deque[_Read]) -> ZoneChange | None:
        votes = Counter(r.labels for r in reads)
        labels, count = votes.most_common(1)[0]
        current = self._settled.get(name, EMPTY)
        if count < self.needed or labels == current.labels:
            return None
        agreeing = [r for r in reads if r.labels == labels]
        confidence = sum(r.confidence for r in agreeing) / len(agreeing)
        settled = SettledZone(labels, confidence, agreeing[0].ts, agreeing[-1].ts)
        self._settled[name] = settled
        return ZoneChange(name, current.labels, labels, settled.first_seen_ts,
                          settled.settled_ts, confidence)

    def settled(self, name: str) -> SettledZone:
        """The zone's agreed content (empty if never settled)."""
        return self._settled.get(name, EMPTY)

    def labels(self, name: str) -> Labels:
        return self.settled(name).labels

    def view(self) -> dict[str, SettledZone]:
        """Every zone's settled content (a copy, safe to keep)."""
        return dict(self._settled)
