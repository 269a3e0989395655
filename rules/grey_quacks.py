"""Grey Duck Quacks that follow from who plays next, so nobody has to enter them.

Why this module exists: at a real table a Quack leaves nothing on the table, so the camera
cannot see it and a phone would have to be told every one (about 166 in a match). But turns go
round in order (GREY-T3: a Quack only passes the turn to the next player holding cards), so
when the next thing entered is a play by someone whose turn it is not, everyone between the
player to move and that player must have quacked, in turn order: after GREY-T4 gathered the
trick the winner leads, and after a grey out of turn play continues left of it (GREY-G1).
The same holds for the player to move whose play cannot follow the top play: it is a new lead
only after everyone else quacked, which happens when the trick's winner has just gone out and
the lead passed to that player (GREY-T4). Those Quacks are determined; this module lists them.
A play that is legal as it stands gets none (a follow, never a guessed round of Quacks), and
one that no run of Quacks makes legal gets none either, and is refused as before.

Pure: stdlib only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .core import Event, State

QUACK = "quack"
FOLLOWS_QUACKS = ("play", QUACK)
"""Events that can only come on a player's turn, so a turn that reached them passed by Quacks."""


def quacks_before(state: State, event: Event) -> list[Event]:
    """The Quacks that must come before ``event`` for it to be on its seat's turn, in order
    (GREY-T3, GREY-T4); empty when the event needs none, or when Quacks cannot bring the turn
    to its seat (e.g. the trick was led and nobody quacked yet and it is the leader again).
    Each Quack carries the event's time and source."""
    if state.game.name != "grey" or event.type not in FOLLOWS_QUACKS or event.seat is None:
        return []
    if state.to_move() is None or state.check(event).ok:
        return []
    trial = state.clone()
    quacks: list[Event] = []
    for _ in range(2 * state.num_players):  # once round the table, and once more after a gather
        mover = trial.to_move()
        if mover is None:
            return []
        if mover == event.seat and quacks and trial.check(event).ok:
            return quacks
        quack = Event(QUACK, mover, {}, event.ts, event.source)
        if not trial.apply(quack).ok:
            return []
        quacks.append(quack)
    return []


def recorded_with_last(events: Sequence[Event], state_before: Callable[[int], State]) -> int:
    """How many events at the end of ``events`` were recorded by one entry: the last event
    and the Quacks inferred for it (they carry its time and source, and are exactly what
    :func:`quacks_before` gives for it); 1 when it came alone, 0 for an empty log.
    ``state_before(i)`` is the match before event ``i``."""
    if not events:
        return 0
    last = events[-1]
    start = len(events) - 1
    while (start > 0 and last.ts is not None and events[start - 1].type == QUACK
           and events[start - 1].ts == last.ts and events[start - 1].source == last.source):
        start -= 1
    if start == len(events) - 1:
        return 1
    trial = state_before(start)
    for i in range(start, len(events) - 1):  # the inferred run may start after a tapped Quack
        if quacks_before(trial, last) == list(events[i:-1]):
            return len(events) - i
        if not trial.apply(events[i]).ok:
            return 1
    return 1


def entries_needed(state: State, events: Sequence[Event]) -> tuple[int, int]:
    """(Quacks in ``events``, Quacks among them someone must still enter), replaying ``events``
    from ``state`` (a copy is used): a run of Quacks is inferred when it is exactly what
    :func:`quacks_before` gives for the event after it."""
    trial = state.clone()
    total = needed = 0
    i = 0
    while i < len(events):
        run_end = i
        while run_end < len(events) and events[run_end].type == QUACK:
            run_end += 1
        run = list(events[i:run_end])
        if run:
            total += len(run)
            after = events[run_end] if run_end < len(events) else None
            inferred = after is not None and [
                q.seat for q in quacks_before(trial, after)] == [q.seat for q in run]
            if not inferred:
                needed += len(run)
        for event in events[i:run_end + 1]:
            trial.apply_or_raise(event)
        i = run_end + 1
    return total, needed
