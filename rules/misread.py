"""Finding the camera event that a refusal points back to, and how to mend it.

Why this module exists: a camera that misreads a card (DUCK's yellow 8 taken for a 0) and
records it does not fail there: it fails later, when the true event that follows is refused
("every copy of yellow-8 is already visible elsewhere"). Without help the game then stops until
someone finds the old event by hand. This module looks back from a refused event for the
nearest event the camera recorded that, with one card read as another, lets the whole log
replay and the refused event in. The camera also miscounts: a card of a play hidden under
another for a moment (a Grey Duck flock of three yellow 1s recorded as two) is refused only
when the next play must match its size; so when no misread face explains a refusal, the search
tries each recent camera event with one card fewer or one more in a list of cards (a *count*
mend). The match stays event-sourced: a mend is "event #i replaced", the store's correction
(the old event stays in the audit trail), so nothing recorded is lost.

Pure: stdlib only. The search replays the log from the suspect on for each candidate, so it is
bounded: only camera events, at most :data:`LOOK_BACK` of them; a card replaced only by another
of its kind (colour): the camera mistakes digits, hardly ever colours; and a card added to a
list only of a kind or a value the list already holds (plays are sets of one rank or one
colour), beside its like (one card dropped is any of them).
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
    count: bool = False
    """A card missed or an extra one: ``was`` and ``now`` then list the event's cards before and
    after (labels separated by spaces), which differ in number."""

    def question(self) -> str:
        """The question for the phones, counting events from 1 as people do."""
        return ask([self])

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "was": self.was, "now": self.now, "count": self.count,
                "mended": self.mended.to_json()}


def ask(mends: Sequence[Mend]) -> str:
    """One question for the mends of one suspect (see :func:`same_suspect`), the choices in order:
    "the camera read blue-8 at event 12: was it blue-7 or blue-5?", or for a count "the camera
    saw 2 cards at event 12 (yellow-1 yellow-1): were there 3 (yellow-1 yellow-1 yellow-1)?"."""
    if not mends:
        return ""
    first = mends[0]
    if not first.count:
        return f"the camera read {first.was} at event {first.index + 1}: was it {' or '.join(m.now for m in mends)}?"
    options = " or ".join(f"{_cards_word(m.now, bare=True)} ({m.now})" for m in mends)
    return (f"the camera saw {_cards_word(first.was)} at event {first.index + 1} ({first.was}): "
            f"were there {options}?")


def _cards_word(cards: str, bare: bool = False) -> str:
    n = len(cards.split())
    return str(n) if bare else f"{n} card" + ("" if n == 1 else "s")


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


def value_of(label: str) -> str:
    """A card's value: what comes after its last dash (``8`` of ``yellow-8``), "" if none."""
    return label.rsplit("-", 1)[1] if "-" in label else ""


def find_mends(state: State, refused: Event, *, reason: str = "", vocabulary: Sequence[str] | None = None,
               seen: Iterable[str] = (), look_back: int = LOOK_BACK) -> list[Mend]:
    """The ways to mend a camera event so that ``refused`` (refused by ``state`` with
    ``reason``) fits: each replaces one card of one camera event with another of its kind
    (colour), keeps every later event legal and lets ``refused`` in. Most likely first: a mend
    whose cards the refused event or the refusal names, then one whose new card is read plainly
    on the table now (``seen``), then the nearest. When no such misread explains it, the count
    mends (:func:`_count_mends`): one card fewer or one more in a camera event's list of cards.
    Empty when neither explains it."""
    history = list(state.history)
    labels = vocabulary if vocabulary is not None else _deck(state)
    cards = frozenset(labels) - {UNKNOWN}
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
    return _count_mends(prefixes, history, start, refused, [c for c in dict.fromkeys(labels) if c in cards])


def _count_mends(prefixes: Sequence[State], history: list[Event], start: int, refused: Event,
                 deck_order: Sequence[str]) -> list[Mend]:
    """The count mends that let the log replay and ``refused`` in, nearest event first; for one
    event a card missed before a card too many, each in the list's order. Only the nearest
    event that has any is kept: one suspect, its choices."""
    for index in range(len(history) - 1, start - 1, -1):
        recorded = history[index]
        if recorded.source != "camera":
            continue
        found: list[Mend] = []
        for was, now, mended in _recounts(recorded, frozenset(deck_order), deck_order):
            if _fits(prefixes[index - start], history, index, mended, refused):
                found.append(Mend(index, recorded, mended, " ".join(was), " ".join(now), count=True))
        if found:
            return found
    return []


def _recounts(event: Event, cards: frozenset[str], deck_order: Sequence[str]
              ) -> list[tuple[list[str], list[str], Event]]:
    """Each way to read one of ``event``'s lists of cards (a field or a list in one) with one
    card more or one fewer: (the list read, the list mended, the event mended). A card added is
    of a kind or a value the list holds (a flock's rank, a DUCK set's digit), put after its
    like, or where ``deck_order`` puts it when the list follows that order; each distinct card
    is dropped once."""
    order = {label: k for k, label in enumerate(deck_order)}
    out: list[tuple[list[str], list[str], Event]] = []
    for path, listed in _card_lists(event.data, cards):
        kinds = {kind_of(c) for c in listed}
        values = {value_of(c) for c in listed} - {""}
        for added in (c for c in deck_order if kind_of(c) in kinds or value_of(c) in values):
            now = _insert(listed, added, order)
            out.append((listed, now, _replace_at(event, path, now)))
        for dropped in dict.fromkeys(listed):
            now = list(listed)
            now.remove(dropped)
            if now:
                out.append((listed, now, _replace_at(event, path, now)))
    return out


def _insert(listed: list[str], added: str, order: dict[str, int]) -> list[str]:
    """``listed`` with ``added`` after the last card like it, else where ``order`` puts it if the
    list follows that order, else at the end."""
    if added in listed:
        at = len(listed) - listed[::-1].index(added)
    elif all(order.get(a, -1) <= order.get(b, -1) for a, b in zip(listed, listed[1:], strict=False)):
        at = next((k for k, c in enumerate(listed) if order.get(c, -1) > order[added]), len(listed))
    else:
        at = len(listed)
    return [*listed[:at], added, *listed[at:]]


def _card_lists(value: Any, cards: frozenset[str], path: tuple[Any, ...] = ()
                ) -> list[tuple[tuple[Any, ...], list[str]]]:
    """The lists of card labels in an event's data (every item a card), with where each lies."""
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, str) and v in cards for v in value):
            return [(path, list(value))]
        return [found for k, v in enumerate(value) for found in _card_lists(v, cards, (*path, k))]
    if isinstance(value, dict):
        return [found for k, v in value.items() for found in _card_lists(v, cards, (*path, k))]
    return []


def _replace_at(event: Event, path: tuple[Any, ...], new: list[str]) -> Event:
    """``event`` with the value at ``path`` in its data replaced by ``new`` (same time, same source)."""
    def put(value: Any, rest: tuple[Any, ...]) -> Any:
        if not rest:
            return list(new)
        head, tail = rest[0], rest[1:]
        if isinstance(value, dict):
            return {k: put(v, tail) if k == head else v for k, v in value.items()}
        return [put(v, tail) if k == head else v for k, v in enumerate(value)]
    return Event(event.type, event.seat, put(dict(event.data), path), event.ts, event.source)


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
    """The mends of the most likely suspect (the first mend's event and card, or the event's
    cards for a count): the choices to offer for it, most likely first."""
    if not mends:
        return []
    first = mends[0]
    return [m for m in mends if (m.index, m.was, m.count) == (first.index, first.was, first.count)]


def _deck(state: State) -> tuple[str, ...]:
    deck = DECKS.get(state.game.name)
    return deck.labels if deck is not None else ()


def _fits(prefix: State, history: list[Event], index: int, mended: Event, refused: Event) -> bool:
    """Whether the log with event ``index`` read as ``mended`` replays, and ``refused`` then fits."""
    state = prefix.clone()
    if not state.apply(mended).ok:
        return False
    return all(state.apply(later).ok for later in history[index + 1:]) and state.check(refused).ok
