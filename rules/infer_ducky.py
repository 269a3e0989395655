"""Ducky Ducky events from the settled table: set-up, moves, the fallen duck, fishing, passes,
new cards and ducks put back.

Why this module exists: the camera sees the board (pads, ducks, pawns) and each player's two
piles, and every Ducky Ducky event leaves a mark there. The zones, read by the board reader
(:mod:`ducktable.vision.boards`) and the card reader, are:

- ``river.<cell>``: the pad on that cell and a duck riding it, e.g. ``("pad-green", "duck-green")``
  or ``("pad-white",)``; ``()`` while the pad is lifted. ``river.spare``: the spare pad beside
  the river (a fallen duck rides it until someone takes it).
- ``log.<k>``: the pawn standing on log ``k``, ``("pawn-2",)`` for seat 2's pawn, or ``()``.
- ``seat<N>.pile0`` / ``pile1``: the pile's top card followed by the ducks on it in slot order,
  e.g. ``("card-yellow-blue", "duck-blue")``; ``("back",)`` when only face-down cards are left
  (a completed card was just put away); ``()`` when the pile is used up.
- ``seat<N>.gifts``: one ``"gift"`` per completed card turned to its gift side.

From that (DUCKY-S1, T1..T5, W1):

- setup: every cell holds a pad, every coloured pad its duck, each pawn stands on a log and every
  pile shows a card;
- move: the active pawn stands on another log *and* the river shows the flow (the spare pad in
  at the entrance, every pad one cell on); until the pads have moved, nothing is proposed;
- take: the fallen duck shows on one of the taker's cards (or that card, now complete, is a gift);
- fish: a fisher's card gains the colour of the duck facing their pawn, and that duck has left
  its cell (a fisher whose two cards could both take it is told apart by which one changed);
- pass: fishing leaves no mark, so a player who could fish has passed once the next player moves
  their pawn (at the game's last turn nobody moves again: then the pass waits for a person);
- uncover: after a completed card became a gift, the pile shows its next card;
- return: the completed card's ducks appear on empty pads of their colours.

Pure: stdlib only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .core import Event, State
from .decks import BACK
from .ducky import CARD_SLOTS, GIFTS_TO_WIN, PILES, SPARE, WHITE, DuckyState, InPlayCard
from .infer_base import Inference, Inferrer
from .snapshot import seat_zone
from .stability import StabilityTracker

PAD = "pad-"
DUCK = "duck-"
PAWN = "pawn-"
GIFT = "gift"
SPARE_ZONE = "river.spare"

Labels = tuple[str, ...]


def river_zone(cell: int) -> str:
    return f"river.{cell}"


def log_zone(log: int) -> str:
    return f"log.{log}"


def pile_zone(seat: int, pile: int) -> str:
    return seat_zone(seat, f"pile{pile}")


def gifts_zone(seat: int) -> str:
    return seat_zone(seat, "gifts")


def pawn_label(seat: int) -> str:
    return f"{PAWN}{seat}"


def pad_labels(colour: str | None, duck: bool) -> Labels:
    """A river cell or the spare pad as read: its pad, then the duck riding it."""
    if colour is None:
        return ()
    return (PAD + colour, DUCK + colour) if duck else (PAD + colour,)


def card_labels(label: str, filled: Sequence[bool]) -> Labels:
    """A top card as read: the card, then a duck on each filled slot, in slot order."""
    slots = CARD_SLOTS[label]
    return (label, *(DUCK + colour for colour, done in zip(slots, filled, strict=True) if done))


def pile_labels(card: InPlayCard | None, face_down: int) -> Labels:
    if card is not None:
        return card_labels(card.label, card.filled)
    return (BACK,) if face_down else ()


def expected_zones(state: DuckyState) -> dict[str, Labels]:
    """What every zone shows when the table agrees with ``state`` (the fallen duck, while it
    waits for its taker, rides the spare pad)."""
    zones: dict[str, Labels] = {}
    setup = state.phase == "setup"
    for cell in range(state.layout.cells):
        zones[river_zone(cell)] = () if setup else pad_labels(state.pad_colour[cell], state.duck[cell])
    riding = state.spare_duck or state.falling is not None
    zones[SPARE_ZONE] = () if setup else pad_labels(state.spare_colour, riding)
    for log in range(len(state.layout.logs)):
        zones[log_zone(log)] = tuple(pawn_label(s) for s, at in enumerate(state.pawns) if at == log)
    for seat in range(state.num_players):
        for pile in range(PILES):
            zones[pile_zone(seat, pile)] = pile_labels(state.visible[seat][pile],
                                                       state.covered_count[seat][pile])
        zones[gifts_zone(seat)] = (GIFT,) * len(state.gifts[seat])
    return zones


def _pad(labels: Labels) -> str | None:
    return next((label[len(PAD):] for label in labels if label.startswith(PAD)), None)


def _has_duck(labels: Labels) -> bool:
    return any(label.startswith(DUCK) for label in labels)


def _left_since(state: DuckyState, seat: int, log: int, since: int) -> bool:
    """Whether the log had ``seat``'s pawn on ``log`` and moved it away at ``since`` or later
    (or at no known time): a pawn read there since then may simply not have been moved on the
    table yet."""
    at = None
    for event in state.history:
        if event.type == "setup":
            at = event.data["pawns"][seat]
        elif event.type == "move" and event.seat == seat:
            if at == log and (event.ts is None or event.ts >= since):
                return True
            at = event.data["log"]
    return False


FLOW_SETTLE_MS = 500
"""How long after the last hand over the river a pattern that is not yet the flowed one is
taken as it is: while a hand slides the pads along (DUCKY-T2), the river is half flowed."""


HAND_NEAR_MS = 500
"""A hand over a zone at most this long before its new content was first read laid it: as the
hand leaves, its fingers at the zone's edge (or its shadow) can hide what it laid without the
frame being marked covered, so the old content is read once or twice more after it."""


def _laid_by_hand(table: StabilityTracker, zone: str) -> bool:
    """Whether a hand was seen over ``zone`` while it changed to what it shows, or just before
    the new content was first read (see :data:`HAND_NEAR_MS`)."""
    settled = table.settled(zone)
    if settled.handled:
        return True
    covers = table.covers_since(zone, settled.first_seen_ts - HAND_NEAR_MS)
    if not covers:
        return False
    return min(covers) <= settled.first_seen_ts


class DuckyInferrer(Inferrer):
    """Proposes the next Ducky Ducky event from the board and the piles (no memory needed:
    every event leaves its mark on the table). A change no hand was seen making is not sure."""

    def __init__(self, min_confidence: float = 0.5, needs_hands: bool = True) -> None:
        super().__init__(min_confidence, needs_hands=needs_hands)

    def laid_by_hand(self, table: StabilityTracker, zone: str) -> bool:
        """A hand just before the zone's change was first read counts too (see
        :func:`_laid_by_hand`)."""
        return _laid_by_hand(table, zone)

    # -- reading helpers --------------------------------------------------------------------
    @staticmethod
    def _pawn_logs(state: DuckyState, table: StabilityTracker, seat: int) -> list[int]:
        label = pawn_label(seat)
        return [log for log in range(len(state.layout.logs)) if label in table.labels(log_zone(log))]

    def _moved(self, state: DuckyState, table: StabilityTracker, seat: int) -> int | None:
        """The log ``seat``'s pawn now stands on, when it is a different one (else None).

        A pawn still read on a log the log moved it away from since that reading began is
        the table lagging the log (a move entered by hand that the table does not show yet, or
        the camera stopped while a person entered the rest of the game), not a new move. (The
        time a move was entered by hand is later than when the pawn moved, so it bounds
        nothing else: a pawn read on a new log before the set-up was confirmed has moved.)"""
        logs = self._pawn_logs(state, table, seat)
        if len(logs) != 1 or logs[0] == state.pawns[seat]:
            return None
        if _left_since(state, seat, logs[0], table.settled(log_zone(logs[0])).first_seen_ts):
            return None
        return logs[0]

    def _inference(self, table: StabilityTracker, event: Event, zones: Sequence[str], why: str,
                   doubt: str = "") -> Inference:
        sure, problem = self.sure(table, zones)
        ts = max((table.settled(z).first_seen_ts for z in zones), default=table.last_ts)
        stamped = Event(event.type, event.seat, event.data, ts, "camera")
        if doubt or not sure:
            return Inference(stamped, False, doubt or problem)
        return Inference(stamped, True, why)

    def _progress(self, state: DuckyState, table: StabilityTracker, seat: int, pile: int,
                  colour: str) -> bool:
        """Whether ``seat``'s pile shows a ``colour`` duck added to its top card: on the card,
        or the card already complete and turned into a gift (DUCKY-T5)."""
        card = state.visible[seat][pile]
        if card is None:
            return False
        slot = card.open_slot(colour)
        if slot is None:
            return False
        filled = list(card.filled)
        filled[slot] = True
        read = table.labels(pile_zone(seat, pile))
        if read == card_labels(card.label, filled):
            return True
        if not all(filled):
            return False
        if len(table.labels(gifts_zone(seat))) != len(state.gifts[seat]) + 1:
            return False
        left = state.covered_count[seat][pile]
        if read == ((BACK,) if left else ()):
            return True
        return left > 0 and len(read) == 1 and read[0] in CARD_SLOTS  # next card already shown

    # -- the protocol ------------------------------------------------------------------------
    def propose(self, state: State, table: StabilityTracker) -> Inference | None:
        assert isinstance(state, DuckyState)
        if state.is_over():
            return None
        if state.phase == "setup":
            return self._setup(state, table)
        if state.pending:
            if state.pending[0].kind == "uncover":
                return self._uncover(state, table)
            return self._return(state, table)
        if state.phase == "move":
            return self._move(state, table)
        if state.phase == "offer":
            return self._take(state, table)
        return self._fish_or_pass(state, table)

    # -- one method per event ------------------------------------------------------------------
    def _setup(self, state: DuckyState, table: StabilityTracker) -> Inference | None:
        river: list[str] = []
        for cell in range(state.layout.cells):
            labels = table.labels(river_zone(cell))
            pad = _pad(labels)
            if pad is None or _has_duck(labels) != (pad != WHITE):
                return None  # pads or ducks still being laid out
            river.append(pad)
        pawns: list[int] = []
        for seat in range(state.num_players):
            logs = self._pawn_logs(state, table, seat)
            if len(logs) != 1:
                return None
            pawns.append(logs[0])
        visible: list[list[str]] = []
        for seat in range(state.num_players):
            tops = [table.labels(pile_zone(seat, pile)) for pile in range(PILES)]
            if any(len(top) != 1 or top[0] not in CARD_SLOTS for top in tops):
                return None
            visible.append([top[0] for top in tops])
        zones = [river_zone(c) for c in range(state.layout.cells)] + [log_zone(p) for p in pawns]
        zones += [pile_zone(s, p) for s in range(state.num_players) for p in range(PILES)]
        event = Event("setup", None, {"river": river, "pawns": pawns, "visible": visible})
        return self._inference(table, event, zones, "the board is laid out and every pile shows a card")

    def _move(self, state: DuckyState, table: StabilityTracker) -> Inference | None:
        seat = state.active
        log = self._moved(state, table, seat)
        if log is None:
            return None
        cells = range(state.layout.cells)
        read = [_pad(table.labels(river_zone(c))) for c in cells]
        if read == state.pad_colour or None in read:
            return None  # the river has not flowed yet, or its pads are being pushed on
        flowed = [state.spare_colour, *state.pad_colour[:-1]]
        if read != flowed and any(table.covered_since(river_zone(c), table.last_ts - FLOW_SETTLE_MS) for c in cells):
            return None  # a hand is still sliding the river along: judge it once the hands are gone
        doubt = "" if read == flowed else (
            f"{state.players[seat]}'s pawn moved to log {log}, but the pads do not show the river "
            "flowing by one cell")
        zones = [log_zone(log), *(river_zone(c) for c in cells)]
        return self._inference(table, Event("move", seat, {"log": log}), zones,
                               f"the pawn moved to log {log} and the river flowed", doubt)

    def _take(self, state: DuckyState, table: StabilityTracker) -> Inference | None:
        seat, colour = state.taker, state.falling
        assert seat is not None and colour is not None
        piles = [p for p in range(PILES) if self._progress(state, table, seat, p, colour)]
        if not piles:
            return self._take_unseen(state, table, seat, colour)
        doubt = ""
        if len(piles) > 1:
            doubt = f"both of {state.players[seat]}'s cards seem to hold the fallen {colour} duck"
        elif _has_duck(table.labels(SPARE_ZONE)):
            doubt = f"the fallen {colour} duck still seems to ride the spare pad"
        zones = [pile_zone(seat, piles[0]), SPARE_ZONE]
        return self._inference(table, Event("take", seat, {"pile": piles[0]}), zones,
                               f"the fallen {colour} duck is on a card", doubt)

    def _take_unseen(self, state: DuckyState, table: StabilityTracker, seat: int,
                     colour: str) -> Inference | None:
        """The fallen duck has left the spare pad and a card of the taker's that could hold it
        reads neither as it was nor with the duck: the table moved past the take before the
        camera saw it (the same card filled up by fishing at once, turned into a gift, the next
        card shown). No later event can be read before the take, so a person says which card
        took it rather than the camera falling silent for the rest of the game."""
        spare = table.labels(SPARE_ZONE)
        if _pad(spare) is None or _has_duck(spare) or not table.fresh(SPARE_ZONE):
            return None  # the duck still rides the spare pad, or a hand is there now
        changed = []
        for pile in range(PILES):
            card = state.visible[seat][pile]
            zone = pile_zone(seat, pile)
            if card is None or card.open_slot(colour) is None or not table.fresh(zone):
                continue
            if table.labels(zone) != card_labels(card.label, list(card.filled)):
                changed.append(pile)
        if not changed:
            return None
        event = Event("take", seat, {"pile": changed[0]}, table.settled(SPARE_ZONE).first_seen_ts, "camera")
        return Inference(event, False, (
            f"the fallen {colour} duck left the spare pad, but the camera never saw it on a card of "
            f"{state.players[seat]}'s: which card took it?"))

    def _fish_or_pass(self, state: DuckyState, table: StabilityTracker) -> Inference | None:
        fishers = [s for s in state.seats_from(state.active) if state.could_fish(s).ok]
        if not fishers:
            return None
        following = (state.active + 1) % state.num_players
        log = self._moved(state, table, following)
        moved_at = table.settled(log_zone(log)).first_seen_ts if log is not None else None
        for seat in fishers:
            cell = state.faced_cell(seat)
            assert cell is not None
            colour = state.pad_colour[cell]
            piles = [p for p in range(PILES)
                     if state.could_fish(seat, p).ok and self._progress(state, table, seat, p, colour)
                     and (moved_at is None  # a card filled after the next move is no fishing
                          or table.settled(pile_zone(seat, p)).first_seen_ts < moved_at)]
            if not piles:
                continue
            doubt = ""
            if len(piles) > 1:
                doubt = f"both of {state.players[seat]}'s cards seem to hold the {colour} duck"
            elif _has_duck(table.labels(river_zone(cell))):
                doubt = f"a card shows the {colour} duck, but it still seems to sit on cell {cell}"
            zones = [pile_zone(seat, piles[0]), river_zone(cell)]
            return self._inference(table, Event("fish", seat, {"pile": piles[0]}), zones,
                                   f"the {colour} duck from cell {cell} is on a card", doubt)
        seat = fishers[0]
        cell = state.faced_cell(seat)
        assert cell is not None
        name = state.players[seat]
        if log is not None:
            read = table.labels(river_zone(cell))
            gone = _pad(read) == state.pad_colour[cell] and not _has_duck(read)  # (not flowed on)
            doubt = (f"the duck facing {name}'s pawn is gone from cell {cell} but on none of their "
                     "cards") if gone else ""
            colour = state.pad_colour[cell]
            for p in range(PILES):
                card = state.visible[seat][p]
                if card is not None and table.labels(pile_zone(seat, p)) != card_labels(
                        card.label, list(card.filled)):
                    # a pass leaves the fisher's cards as they were: a pile that reads otherwise
                    # (a card turned into a gift, the next card shown) was changed by someone
                    doubt = (f"{name}'s cards no longer show what they did before the next "
                             f"player moved: did {name} fish the {colour} duck?")
                if card is None or not self._progress(state, table, seat, p, colour):
                    continue
                # the duck is on one of their cards (or that card is already a gift), read there
                # only after the next player moved: a reading held while hands cover the pile
                # lags the table, so it may have been fished in time; a person says which
                doubt = (f"{name}'s card shows the {colour} duck, but it was read there only "
                         f"after the next player moved: did {name} fish it in time?")
            # "left the duck" says the duck is on none of their cards: those must read clearly,
            # and again since a hand was last over them (a hand there may be fishing right now)
            cards = [pile_zone(seat, p) for p in range(PILES) if state.could_fish(seat, p).ok]
            if not all(table.fresh(zone) for zone in [river_zone(cell), *cards]):
                return None
            return self._inference(table, Event("pass", seat), [log_zone(log), river_zone(cell), *cards],
                                   f"the next player moved on, so {name} left the duck", doubt)
        if max(state.scores()) >= GIFTS_TO_WIN:
            event = Event("pass", seat, {}, table.last_ts, "camera")
            return Inference(event, False, f"the game ends once {name} has passed on the duck "
                                           f"at cell {cell} (nobody moves again to show it)")
        return None

    def _uncover(self, state: DuckyState, table: StabilityTracker) -> Inference | None:
        head = state.pending[0]
        read = table.labels(pile_zone(head.seat, head.pile))
        if len(read) != 1 or read[0] not in CARD_SLOTS:
            return None
        if len(table.labels(gifts_zone(head.seat))) != len(state.gifts[head.seat]):
            return None  # the completed card is not yet a gift: this may still be that card
        return self._inference(table, Event("uncover", head.seat, {"card": read[0]}),
                               [pile_zone(head.seat, head.pile)], "the pile's next card is turned up")

    def _return(self, state: DuckyState, table: StabilityTracker) -> Inference | None:
        head = state.pending[0]
        places: list[tuple[int | str, str, str, bool]] = [
            (cell, river_zone(cell), state.pad_colour[cell], state.duck[cell])
            for cell in range(state.layout.cells)]
        places.append((SPARE, SPARE_ZONE, state.spare_colour, state.spare_duck))
        gained: list[tuple[int | str, str]] = []
        lost: list[int | str] = []
        for place, zone, colour, has in places:
            labels = table.labels(zone)
            if _has_duck(labels) and not has:
                gained.append((place, colour))
            elif has and not _has_duck(labels):
                lost.append(place)
        need = Counter(head.ducks)
        got = Counter(colour for _, colour in gained)
        if not gained or (need - got and not got - need):
            return None  # the ducks are still being put back
        pads: list[int | str] = []
        free = list(gained)
        for colour in head.ducks:
            match = next((g for g in free if g[1] == colour), None)
            if match is not None:
                free.remove(match)
                pads.append(match[0])
        faced = {state.faced_cell(s) for s in range(state.num_players)}
        doubt = ""
        if got != need:
            doubt = (f"the {' and '.join(head.ducks)} ducks were due back, but ducks appeared on "
                     f"{', '.join(sorted(f'{c} pad {p}' for p, c in gained))}")
        elif any(place not in faced for place in lost):
            doubt = "a duck seems to have left a pad that no pawn faces"
        zones = [river_zone(p) if isinstance(p, int) else SPARE_ZONE for p, _ in gained]
        if len(pads) != len(head.ducks):
            pads = [p for p, _ in gained[:len(head.ducks)]]
        return self._inference(table, Event("return", head.seat, {"pads": pads}), zones,
                               "the completed card's ducks are back on the water", doubt)
