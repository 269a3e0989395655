"""Finding the camera event that a refusal points back to, and how to mend it.

Why this module exists: a camera that misreads a card (DUCK's yellow 8 taken for a 0) and
records it does not fail there: it fails later, when the true event that follows is refused
("every copy of yellow-8 is already visible elsewhere"). Without help the game then stops until
someone finds the old event by hand. This module looks back from a refused event for the
nearest event the camera recorded that, with one card read as another, lets the whole log
replay and the refused event in. The match stays event-sourced: a mend is "event #i replaced",
the store's correction (the old event stays in the audit trail), so nothing recorded is lost.

Pure: stdlib only. The search replays the log from the suspect on for each candidate card, so
it is bounded: only camera events, at most :data:`LOOK_BACK` of them, and a card replaced only
by another of its kind (colour): the camera mistakes digits, hardly ever colours.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .core import Event, State
from .decks import DECKS, UNKNOWN

LOOK_BACK = 40
"""How many recorded events back a refusal is traced (a few minutes of play)."""


@dataclass(frozen=True)
class Mend:
    """Event ``index`` of the log, recorded by the camera, read ``was`` where the card was
    probably ``now``: ``mended`` replaces ``recorded`` and the refused event then fits."""

    index: int
    recorded: Event
    mended: Event
    was: str
    now: str

    def question(self) -> str:
        """The question for the phones, counting events from 1 as people do."""
        return f"the camera read {self.was} at event {self.index + 1}: was it {self.now}?"

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "was": self.was, "now": self.now, "mended": self.mended.to_json()}


def relabel(event: Event, was: str, now: str) -> Event:
    """``event`` with card ``was`` read as ``now`` wherever it names it (same time, same source)."""
    return Event(event.type, event.seat, _swap(event.data, was, now), event.ts, event.source)


def _swap(value: Any, was: str, now: str) -> Any:
    if isinstance(value, str):
        return now if value == was else value
    if isinstance(value, list | tuple):
        return [_swap(v, was, now) for v in value]
    if isinstance(value, dict):
        return {k: _swap(v, was, now) for k, v in value.items()}
    return value


def cards_named(value: Any, vocabulary: frozenset[str]) -> list[str]:
    """The card labels ``value`` (an event's data) names, in order, each once."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop(0)
        if isinstance(item, str):
            if item in vocabulary and item not in found:
                found.append(item)
        elif isinstance(item, list | tuple):
            stack[0:0] = list(item)
        elif isinstance(item, dict):
            stack[0:0] = list(item.values())
    return found


def kind_of(label: str) -> str:
    """A card's kind for misreads: what comes before its last dash (its colour: ``yellow`` of
    ``yellow-8``); the camera mistakes a digit far more often than a colour."""
    return label.rsplit("-", 1)[0] if "-" in label else label


def find_mends(state: State, refused: Event, *, reason: str = "", vocabulary: Sequence[str] | None = None,
               seen: Iterable[str] = (), look_back: int = LOOK_BACK) -> list[Mend]:
    """The ways to mend a camera event so that ``refused`` (refused by ``state`` with
    ``reason``) fits: each replaces one card of one camera event with another of its kind
    (colour), keeps every later event legal and lets ``refused`` in. Most likely first: a mend
    whose cards the refused event or the refusal names, then one whose new card is read plainly
    on the table now (``seen``), then the nearest. Empty when no camera misread explains it."""
    history = list(state.history)
    cards = frozenset(vocabulary if vocabulary is not None else _deck(state)) - {UNKNOWN}
    start = max(0, len(history) - look_back)
    if not cards or not any(e.source == "camera" for e in history[start:]):
        return []
    before = state.game.new_state(state.players, observer=state.observer)
    for event in history[:start]:
        if not before.apply(event).ok:
            return []
    prefixes: list[State] = []
    for event in history[start:]:
        prefixes.append(before.clone())
        if not before.apply(event).ok:
            return []
    named = set(cards_named(refused.data, cards)) | {c for c in cards if _says(reason, c)}
    plain = {c for c in seen if c in cards}
    for pass_named in (True, False):  # first only swaps the refusal names (quick), then any
        found: list[tuple[tuple[int, int], Mend]] = []
        for index in range(len(history) - 1, start - 1, -1):
            recorded = history[index]
            if recorded.source != "camera":
                continue
            for was in cards_named(recorded.data, cards):
                for now in sorted(c for c in cards if c != was and kind_of(c) == kind_of(was)):
                    if bool({was, now} & named) != pass_named:
                        continue
                    mended = relabel(recorded, was, now)
                    if _fits(prefixes[index - start], history, index, mended, refused):
                        rank = (0 if now in plain else 1, len(history) - index)
                        found.append((rank, Mend(index, recorded, mended, was, now)))
        if found:
            return [mend for _, mend in sorted(found, key=lambda item: item[0])]
    return []


def _says(reason: str, card: str) -> bool:
    """Whether the refusal's words name ``card`` (not only a longer label that starts with it)."""
    at = reason.find(card)
    while at >= 0:
        end = at + len(card)
        if (at == 0 or not reason[at - 1].isalnum()) and (end == len(reason) or not reason[end].isalnum()):
            return True
        at = reason.find(card, end)
    return False


def same_suspect(mends: Sequence[Mend]) -> list[Mend]:
    """The mends of the most likely suspect (the first mend's event and card): the choices to
    offer for it, most likely first."""
    if not mends:
        return []
    first = mends[0]
    return [m for m in mends if (m.index, m.was) == (first.index, first.was)]


def _deck(state: State) -> tuple[str, ...]:
    deck = DECKS.get(state.game.name)
    return deck.labels if deck is not None else ()


def _fits(prefix: State, history: list[Event], index: int, mended: Event, refused: Event) -> bool:
    """Whether the log with event ``index`` read as ``mended`` replays, and ``refused`` then fits."""
    state = prefix.clone()
    if not state.apply(mended).ok:
        return False
    return all(state.apply(later).ok for later in history[index + 1:]) and state.check(refused).ok
