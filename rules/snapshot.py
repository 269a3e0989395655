"""What the camera saw in one frame, as plain data: zone name -> the cards read there.

Why this module exists: vision turns a frame into a :class:`TableSnapshot` and the rules side
(stability tracking, event inference) reads only that, so the two never share anything but
this small vocabulary. A zone is named ``seat<N>.<kind>`` (a seat's discard pile, reveal area,
towel...) or ``<area>.<kind>`` for the middle of the table (``middle.draw``, ``river.7``,
``line.3``). Cards in a zone are listed in reading order (for a pile: the visible top last; for
a spread: row by row, left to right as the seat sees it).

Pure data, stdlib only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .core import JSONTextError, read_json
from .decks import UNKNOWN

SNAPSHOT_FORMAT_VERSION = 1

MIDDLE = "middle"
"""Prefix of zones in the middle of the table (draw pile, lifebelts, trick area, Bruce row)."""


def seat_zone(seat: int, kind: str) -> str:
    """The name of one seat's zone, e.g. ``seat_zone(2, "discard") == "seat2.discard"``."""
    return f"seat{seat}.{kind}"


def middle_zone(kind: str) -> str:
    return f"{MIDDLE}.{kind}"


def parse_zone(name: str) -> tuple[int | None, str]:
    """``"seat2.discard"`` -> ``(2, "discard")``; ``"middle.draw"`` -> ``(None, "middle.draw")``."""
    head, _, kind = name.partition(".")
    if head.startswith("seat") and head[4:].isascii() and head[4:].isdigit() and kind:
        return int(head[4:]), kind
    return None, name


@dataclass(frozen=True)
class CardRead:
    """One card the classifier read: its label (``UNKNOWN`` when unsure, ``back`` face down),
    how sure it was (0..1) and where it lay on the table plane (table units), if known."""

    label: str
    confidence: float = 1.0
    xy: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"label": self.label, "confidence": round(self.confidence, 4)}
        if self.xy is not None:
            out["xy"] = [round(self.xy[0], 1), round(self.xy[1], 1)]
        return out


@dataclass(frozen=True)
class ZoneRead:
    """The cards read in one zone, or ``occluded`` when a hand or arm hid it in this frame
    (then ``cards`` means nothing and the tracker ignores the frame for this zone)."""

    cards: tuple[CardRead, ...] = ()
    occluded: bool = False

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(c.label for c in self.cards)

    @property
    def confidence(self) -> float:
        """The least sure card decides (1.0 for an empty zone: "nothing here" is a reading)."""
        return min((c.confidence for c in self.cards), default=1.0)

    @property
    def has_unknown(self) -> bool:
        return any(c.label == UNKNOWN for c in self.cards)

    @classmethod
    def of(cls, labels: Iterable[str], confidence: float = 1.0) -> ZoneRead:
        """A reading from labels alone (hand-made snapshots in tests, oracle replays)."""
        return cls(tuple(CardRead(label, confidence) for label in labels))


HIDDEN = ZoneRead(occluded=True)
"""A zone covered by a hand in this frame."""


@dataclass(frozen=True)
class TableSnapshot:
    """Every zone's reading in one frame, with the frame's timestamp (ms) and number."""

    ts: int
    zones: Mapping[str, ZoneRead] = field(default_factory=dict)
    frame: int = 0

    def zone(self, name: str) -> ZoneRead | None:
        """The reading of ``name``; None when this frame did not look at that zone at all."""
        return self.zones.get(name)

    def labels(self, name: str) -> tuple[str, ...]:
        read = self.zones.get(name)
        return read.labels if read is not None and not read.occluded else ()

    def to_json(self) -> dict[str, Any]:
        return {
            "v": SNAPSHOT_FORMAT_VERSION,
            "ts": self.ts,
            "frame": self.frame,
            "zones": {
                name: ({"occluded": True} if z.occluded else {"cards": [c.to_json() for c in z.cards]})
                for name, z in sorted(self.zones.items())
            },
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, obj: Any) -> TableSnapshot:
        """Read a snapshot back; a malformed one raises ``ValueError`` saying what is wrong."""
        if isinstance(obj, str | bytes):
            try:
                obj = read_json(obj)
            except JSONTextError as exc:
                raise ValueError(f"snapshot is not valid JSON ({exc})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("zones"), dict):
            raise ValueError("a snapshot must be a JSON object with 'ts' and 'zones'")
        if obj.get("v", SNAPSHOT_FORMAT_VERSION) != SNAPSHOT_FORMAT_VERSION:
            raise ValueError(f"snapshot format version {obj.get('v')!r} is not supported")
        ts = obj.get("ts")
        if not isinstance(ts, int) or isinstance(ts, bool):
            raise ValueError(f"snapshot 'ts' must be whole milliseconds, got {ts!r}")
        zones: dict[str, ZoneRead] = {}
        for name, z in obj["zones"].items():
            if not isinstance(z, dict):
                raise ValueError(f"zone {name!r} must be an object")
            if z.get("occluded"):
                zones[name] = HIDDEN
                continue
            cards = []
            for c in z.get("cards", []):
                if not isinstance(c, dict) or not isinstance(c.get("label"), str):
                    raise ValueError(f"zone {name!r}: every card needs a 'label'")
                xy = c.get("xy")
                cards.append(CardRead(c["label"], float(c.get("confidence", 1.0)),
                                      (float(xy[0]), float(xy[1])) if xy else None))
            zones[name] = ZoneRead(tuple(cards))
        return cls(ts=ts, zones=zones, frame=int(obj.get("frame", 0)))


def snapshot_of(ts: int, zones: Mapping[str, Iterable[str] | None], frame: int = 0,
                confidence: float = 1.0) -> TableSnapshot:
    """Build a snapshot from ``{zone: labels}``; a ``None`` value marks the zone as covered."""
    return TableSnapshot(
        ts,
        {name: HIDDEN if labels is None else ZoneRead.of(labels, confidence)
         for name, labels in zones.items()},
        frame,
    )
