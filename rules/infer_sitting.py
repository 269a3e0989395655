"""Sitting Ducks events from the settled table: the line, its targets and the action card shown.

Why this module exists: a Sitting Ducks turn is one action card whose effect shows in the line,
so each event is recognised by checking the line's change against the card shown, through the
engine's own rules (:class:`~ducktable.rules.sitting.Gallery`). The zones, read by the line
reader (:mod:`ducktable.vision.boards`) and the card reader, are:

- ``line.<p>`` for positions 1 (front) to 6: the card there, then ``"covered"`` when a duck hides
  under it, ``"action-bottoms-up"`` when a Bottoms Up card lies on it, and ``"target"`` when a
  target lies on the position (targets lie in a row above the line, on empty places too);
- ``middle.played``: the top of the pile of played action cards.

From that (SIT-S1, T1, T2, A1..A15):

- shuffles and draws show nothing; each is the only event the rules allow at its moment, so it
  is applied as soon as it is due (an observer never knows the order or the card);
- reveal: the places the line must refill show their new cards, front to back (a card like
  the one that lay there before counts once that place read otherwise after the line last
  read as before the turn);
- an action: the line changed and a new card was laid on the played pile this turn (its top
  changed, or a hand was over it: then the card looks like the one below, which is weaker
  evidence). Every legal play of that card is tried on the engine's line; when the read line is
  what exactly one of them leaves (plays with the same effect count as one), it is applied. The
  card may be laid before or after the line changes. The changed part of the line must have
  been free of hands for ``quiet_ms`` first, so a rearrangement in progress is not taken for a
  Duck Shuffle;
- Bottoms Up lies on its duck instead of the pile: a new Bottoms Up card in an otherwise
  unchanged line, laid by a hand, is that play; an expired one still lying there (SIT-A15) is
  not;
- discard: a new card on the pile, the line unchanged and that card has no legal play here.

A line that fits a play of another card than the one laid, several different plays of that
card, any play while no new card was laid, or two cards laid since the last turn seen (a turn
may have gone unseen: the next player's play must not be taken for the missing one) is held for
a person; the first and the third wait instead when a changed place had no hand over it (a
misread). A play guessed while no card was seen is no contradiction of the laid card's play
with the same change. A card like the top (a hand over the pile) is the turn's card once the
second for laying a card after the change is over and the top still the same. A hand over the
pile only while hands were over the line too, its top unchanged, is an arm crossing it on the
way to the line (the pile lies beside it), not a card laid; so is one that left the top as it
was once the line showed this turn's whole change, when the top's card cannot make that change
(the turn's own card is laid after it). A frame that reads no card on the pile while cards lie
there had a hand over it that the hand watch missed: cards leave the pile only when the deck is
remade. After an event entered by hand, table moments from before it was entered are not read,
a card of that turn laid late is not taken for the next turn's, and nothing is sure until the
line shows what the event left.

Pure: stdlib only.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .core import Event, State
from .decks import SIT_COLOURS
from .infer_base import Inference, Inferrer
from .sitting import (
    ACTION_BY_CARD,
    ACTION_BY_TYPE,
    ACTIONS,
    BOTTOMS_UP_CARD,
    LINE_LENGTH,
    POSITIONS,
    WATER,
    Gallery,
    Outcome,
    SittingDucksState,
    Spot,
    duck_label,
)
from .snapshot import middle_zone
from .stability import StabilityTracker

TARGET = "target"
COVERED = "covered"
PLAYED_ZONE = middle_zone("played")
LINE_CARDS = frozenset([WATER, *(duck_label(c) for c in SIT_COLOURS)])
DEFAULT_QUIET_MS = 400
"""How long the line must be free of hands before its change is taken as a finished play."""
LINGER_GAP_MS = 250
"""Two frames with a hand over the pile this close together show a hand that stayed there."""
CARD_AFTER_MS = 1000
"""A player who makes a play's change before laying its card lays it within this long of
taking their hand off the line."""
MIN_CONFIDENCE = 0.7
"""Settled reads less sure than this never become an event alone: two like misreads can win a
vote of three, but they are read with less confidence than the truth."""

Labels = tuple[str, ...]


def line_zone(position: int) -> str:
    return f"line.{position}"


LINE_ZONES = tuple(line_zone(p) for p in POSITIONS)


def spot_labels(spot: Spot | None, target: bool) -> Labels:
    """One position as read: its card, a hidden duck, a Bottoms Up card, then a target."""
    out: list[str] = []
    if spot is not None:
        out.append(spot.card)
        if spot.covered is not None:
            out.append(COVERED)
        if spot.bottoms_up is not None:
            out.append(BOTTOMS_UP_CARD)
    if target:
        out.append(TARGET)
    return tuple(out)


def line_labels(gallery: Gallery) -> dict[int, Labels]:
    return {p: spot_labels(gallery.spot(p), p in gallery.targets) for p in POSITIONS}


def expected_zones(state: SittingDucksState) -> dict[str, Labels]:
    """What every zone shows when the table agrees with ``state``."""
    zones = {line_zone(p): labels for p, labels in line_labels(state.gallery).items()}
    top = state.discard[-1] if state.actions_dealt and state.discard else None
    zones[PLAYED_ZONE] = (top,) if top is not None else ()
    return zones


def _body(labels: Labels) -> Labels:
    return tuple(label for label in labels if label != TARGET)


def fits(read: Mapping[int, Labels], outcome: Outcome, refill: int) -> bool:
    """Whether the read line is what ``outcome`` leaves, allowing up to ``refill`` new pond
    cards laid behind it already."""
    length = len(outcome.spots)
    for p in POSITIONS:
        labels = read[p]
        if (TARGET in labels) != (p in outcome.targets):
            return False
        body = _body(labels)
        if p <= length:
            if body != spot_labels(outcome.spots[p - 1], False):
                return False
        elif body and not (p <= length + refill and len(body) == 1 and body[0] in LINE_CARDS):
            return False
    return True


def _signature(outcome: Outcome) -> tuple[Any, ...]:
    """Two plays with equal signatures leave the same public table (e.g. Ricochet through either
    target onto the same duck, or a shuffle swapping two water cards)."""
    return (outcome.spots, outcome.targets, tuple(sorted(outcome.shot)),
            tuple(sorted(outcome.under_pond)), tuple(sorted(outcome.into_pond)),
            outcome.freed_bottoms_up, outcome.card_stays)


NEVER = 1 << 62
"""A timestamp later than any frame's."""


@dataclass(frozen=True)
class Laying:
    """A card seen laid on the played pile: its label, whether only a hand over the pile told
    it (it looks like the card it covers), and whether it may be the late card of a turn entered
    by hand (one like it was taken for that card on a hand's visit alone)."""

    card: str
    look_alike: bool
    late: bool = False
    line: tuple[tuple[int, Labels], ...] = ()
    """The line as read when the card was seen laid."""


class SittingInferrer(Inferrer):
    """Proposes the next Sitting Ducks event. Watches the played pile for the cards laid on it
    since the last turn (one per turn, Bottoms Up aside: two mean a turn may have gone unseen)."""

    def __init__(self, min_confidence: float = MIN_CONFIDENCE, quiet_ms: int = DEFAULT_QUIET_MS,
                 needs_hands: bool = True) -> None:
        super().__init__(min_confidence, needs_hands=needs_hands)
        self.quiet_ms = quiet_ms
        self._now_ts = 0  # the moment being read
        self._mark_ts = -1  # when the last turn was applied
        self._shown_ts = -1  # when the line last read as the engine had it before the last turn
        self._by_hand = False  # the last turn was entered by hand
        self._hand_ts = -1  # when the last event entered by hand was entered
        self._unsynced = False  # an event entered by hand that the table may not show yet
        self._fresh_after = -1  # a card on the pile counts as new only if it came after this
        self._pile_top: str | None = None  # the pile's top when last seen without a hand
        self._pile_seen_ts = -1  # ... and when
        self._layings: list[Laying] = []  # cards laid since the last turn, oldest first
        self._owed: list[str] = []  # cards of turns entered by hand, maybe not yet on the pile
        self._first_look = False  # the pile not looked at since an event was entered by hand
        self._guessed: set[str] = set()  # owed cards taken as laid on a hand's visit alone
        self._bottoms_up: set[int] = set()  # positions with a Bottoms Up card, as the engine has it
        self._leftover: set[int] = set()  # expired ones the table may still show (SIT-A15)
        self._line_before: dict[int, Labels] = {}  # the line as the engine had it
        self._emptied: dict[int, Labels] = {}  # what lay at the places the last turn emptied
        self._cardless: set[str] = set()  # the plays the line fitted while no card was seen

    # -- reading helpers --------------------------------------------------------------------
    def _line(self, table: StabilityTracker) -> dict[int, Labels]:
        """The read line, without the expired Bottoms Up cards still lying on it (those taken
        off are forgotten)."""
        read = {p: table.labels(line_zone(p)) for p in POSITIONS}
        for p in sorted(self._leftover):
            if BOTTOMS_UP_CARD in read[p]:
                read[p] = tuple(label for label in read[p] if label != BOTTOMS_UP_CARD)
            else:
                self._leftover.discard(p)
        return read

    def _watch_pile(self, table: StabilityTracker, line: Mapping[int, Labels]) -> None:
        """Note a card laid on the played pile: its top changed, or a hand was over it (a card
        like the one below). An emptied pile (the deck is remade) or a Bottoms Up card (expired,
        or gone with its duck) is no play. A turn entered by hand owes its card: one already on
        top at the first look afterwards, or one that turns up later, is that card."""
        if not table.fresh(PLAYED_ZONE) or table.blank(PLAYED_ZONE):
            return  # a hand is (or just was) there: the top read is still the old card
        played = table.labels(PLAYED_ZONE)
        top = played[-1] if played else None
        if top is not None and top not in ACTION_BY_CARD:
            return  # a card not made out: wait for a clear reading
        changed = top != self._pile_top
        visited = _pile_covers(table, self._pile_seen_ts) != ()
        earlier = table.last_ts < self._hand_ts  # a moment from before the last entry by hand
        first_look = self._first_look and not earlier
        self._first_look = self._first_look and earlier
        since = self._pile_seen_ts
        self._pile_top, self._pile_seen_ts = top, table.last_ts
        if top is None:  # a hand over a card like the top says nothing once that card is gone
            self._layings = [lay for lay in self._layings if not lay.look_alike]
        if top is None or top == BOTTOMS_UP_CARD or not (visited or first_look):
            return  # the pile was emptied, a Bottoms Up card put there, or a misread went away
        if top in self._owed and (changed or first_look or visited):
            if not changed:
                self._guessed.add(top)
            del self._owed[:self._owed.index(top) + 1]
            self._layings = [lay for lay in self._layings if not lay.look_alike]
            if not first_look or changed or not table.covered_since(PLAYED_ZONE, self._hand_ts):
                return
            # not seen laid, and a hand was there since the entry: a card like it may lie on it
        if not (changed or visited):
            return
        if changed and table.settled(PLAYED_ZONE).first_seen_ts <= self._fresh_after:
            return  # it lay there before the table showed the last event entered by hand
        if changed:
            self._owed.clear()
        elif self._layings and self._layings[-1].look_alike and self._layings[-1].card == top:
            return  # hands passing the pile again (an arm on its way to the line): still one laying
        elif not _lingered(table, since):
            return  # a hand seen over the pile in one frame only passed by: laying a card takes longer
        elif _reaching_for_line(table, since):
            return  # an arm crossing the pile on its way to the line: a card laid there would
            # show a moment with the pile alone under the hand
        self._layings.append(Laying(top, not changed, top in self._guessed, tuple(sorted(line.items()))))

    @staticmethod
    def _turn_card(layings: Sequence[Laying]) -> Laying | None:
        """The card this turn laid: the first new label, else a look-alike."""
        return next((lay for lay in layings if not lay.look_alike), layings[0] if layings else None)

    def _quiet(self, table: StabilityTracker, read: Mapping[int, Labels],
               now: Mapping[int, Labels]) -> bool:
        """No hand over the changed part of the line for ``quiet_ms``: the change is finished."""
        since = table.last_ts - self.quiet_ms
        return not any(table.covered_since(line_zone(p), since) for p in POSITIONS if read[p] != now[p])

    @staticmethod
    def _agrees(state: SittingDucksState, read: Mapping[int, Labels]) -> bool:
        """Whether the read line is the engine's (cards laid behind it from the pond aside)."""
        return fits(read, Outcome(state.gallery.spots, state.gallery.targets),
                    min(LINE_LENGTH - len(state.gallery.spots), state.pond_size))

    def _inference(self, table: StabilityTracker, event: Event, zones: Sequence[str], why: str,
                   doubt: str = "") -> Inference:
        sure, problem = self.sure(table, zones)
        ts = max((table.settled(z).first_seen_ts for z in zones), default=table.last_ts)
        stamped = Event(event.type, event.seat, event.data, ts, "camera")
        if doubt or not sure:
            return Inference(stamped, False, doubt or problem)
        return Inference(stamped, True, why)

    # -- the protocol ------------------------------------------------------------------------
    def applied(self, state: State, event: Event) -> None:
        assert isinstance(state, SittingDucksState)
        now = {p for p, spot in enumerate(state.gallery.spots, start=1) if spot.bottoms_up is not None}
        by_hand = event.source != "camera"
        if event.type == "discard" or event.type in ACTION_BY_TYPE:
            self._turn_applied(state, event, by_hand)
        else:  # a turn began: its player's Bottoms Up cards expired, but still lie on the line
            self._leftover |= self._bottoms_up - now
            self._shown_ts = max(self._shown_ts, self._now_ts)
        if by_hand and event.type not in ("shuffle", "draw"):
            self._unsynced, self._first_look = True, True
            if event.ts is not None:  # the table before that moment cannot show it
                self._hand_ts = max(self._hand_ts, event.ts)
            else:  # no time given: trust no card on the pile until the table shows the event
                self._fresh_after = NEVER
        self._bottoms_up = now
        self._line_before = line_labels(state.gallery)
        self._cardless.clear()

    def conflicts(self, waiting: Event, proposal: Event) -> bool:
        """A play guessed from the line's change before its card was seen is answered by a
        play of the card laid after it that makes the same change: the guess named one of the
        cards that could."""
        if waiting.content_key() in self._cardless and proposal.content_key() in self._cardless:
            return False
        return super().conflicts(waiting, proposal)

    def _turn_applied(self, state: SittingDucksState, event: Event, by_hand: bool) -> None:
        """Use up the turn's card (Bottoms Up lies on the line instead of the pile)."""
        self._mark_ts, self._by_hand = self._now_ts, by_hand
        card = ACTION_BY_TYPE[event.data["action"]].card if event.type == "discard" else (
            None if event.type == "bottoms_up" else ACTION_BY_TYPE[event.type].card)
        if card is not None:
            used = next((lay for lay in self._layings if lay.card == card and not lay.look_alike),
                        next((lay for lay in self._layings if lay.card == card), None))
            if used is not None:  # cards noted before it are stale (misreads, or hands only)
                del self._layings[:self._layings.index(used) + 1]
            elif by_hand:
                self._owed.append(card)
            else:
                self._layings.clear()
        self._layings = [lay for lay in self._layings if not lay.look_alike]
        if not by_hand:
            self._guessed.clear()
        self._leftover.clear()
        length = len(state.gallery.spots)
        self._emptied = {p: _body(self._line_before.get(p, ())) for p in POSITIONS if p > length}

    def propose(self, state: State, table: StabilityTracker) -> Inference | None:
        assert isinstance(state, SittingDucksState)
        if state.is_over():
            return None
        self._now_ts = table.last_ts
        self._watch_pile(table, self._line(table))  # also before an entry by hand: its card may be laid there
        if table.last_ts < self._hand_ts:  # a moment from before an event entered by hand
            return self._chance(state, table, forced_only=True) if state.needs_chance() else None
        if self._unsynced and self._agrees(state, self._line(table)):
            self._unsynced = False
            if self._fresh_after == NEVER:
                self._fresh_after = table.last_ts
        inference = self._chance(state, table) if state.needs_chance() else self._turn(state, table)
        if (inference is not None and inference.certain and self._unsynced
                and inference.event.type not in ("shuffle", "draw")):
            return Inference(inference.event, False, "the table does not show yet the event entered "
                                                     f"by hand, so this is not sure: {inference.why}")
        return inference

    # -- chance events ---------------------------------------------------------------------------
    def _chance(self, state: SittingDucksState, table: StabilityTracker,
                forced_only: bool = False) -> Inference | None:
        """Shuffles and draws as soon as they are due; a refill once the line shows it."""
        forced = Event("shuffle", None, {"pile": "pond"})
        if state.check(forced).ok:
            return self._forced(table, forced, "the pond is shuffled")
        need = min(LINE_LENGTH - len(state.gallery.spots), state.pond_size)
        if need > 0:
            return None if forced_only else self._reveal(state, table, need)
        forced = Event("shuffle", None, {"pile": "actions"})
        if state.check(forced).ok:
            return self._forced(table, forced, "the played action cards are shuffled into a deck")
        if state.draw_queue:
            forced = Event("draw", state.draw_queue[0])
            if state.check(forced).ok:
                return self._forced(table, forced, "the player draws back up to three cards")
        return None

    @staticmethod
    def _forced(table: StabilityTracker, event: Event, why: str) -> Inference:
        return Inference(Event(event.type, event.seat, event.data, table.last_ts, "camera"), True, why)

    def _reveal(self, state: SittingDucksState, table: StabilityTracker, need: int) -> Inference | None:
        read = self._line(table)
        length = len(state.gallery.spots)
        for p in range(1, length + 1):
            if _body(read[p]) != spot_labels(state.gallery.spot(p), False):
                return None  # the line is still being closed up
        cards: list[str] = []
        for p in range(length + 1, length + need + 1):
            body = _body(read[p])
            if len(body) != 1 or body[0] not in LINE_CARDS:
                return None
            cards.append(body[0])
        zones = [line_zone(p) for p in range(length + 1, length + need + 1)]
        if not all(table.fresh(zone) for zone in zones):
            return None  # a hand is (or just was) there: the cards read are still the old ones
        since = max(self._mark_ts, self._hand_ts) if self._by_hand else self._shown_ts
        stale = [p for p in range(length + 1, length + need + 1)
                 if self._emptied.get(p) == _body(read[p])
                 and (self._by_hand or table.settled(line_zone(p)).first_seen_ts <= since)]
        targets = {p for p in POSITIONS if TARGET in read[p]}
        doubt = ""
        if stale:
            doubt = (f"position {stale[0]} shows the card that lay there before the last turn; it "
                     "may not have been refilled yet")
        elif targets != state.gallery.targets:
            doubt = "the targets are not where the last turn left them"
        return self._inference(table, Event("reveal", None, {"cards": cards}), zones,
                               "the line is refilled from the pond", doubt)

    # -- a turn ------------------------------------------------------------------------------------
    def _turn(self, state: SittingDucksState, table: StabilityTracker) -> Inference | None:
        seat = state.to_move()
        assert seat is not None
        read = self._line(table)
        now = line_labels(state.gallery)
        if read == now:
            self._shown_ts = table.last_ts
        if read != now and not self._quiet(table, read, now):
            return None
        layings = self._layings
        if read != now and len(layings) > 1:
            kinds = {etype for etype, _, _ in self._plays(state, seat, read)}
            layings = [lay for lay in layings if not _passing_hand(lay, read, kinds)]
        laid = self._turn_card(layings)
        doubt = ""
        if len(layings) > 1:
            doubt = (f"{len(layings)} cards were laid on the pile since the last turn the "
                     "camera saw; a turn may have gone unseen")
        elif laid is not None and laid.late:
            doubt = (f"the {laid.card} on the pile may be the card of a turn entered by hand, laid "
                     "late")
        if read == now:
            return self._unchanged_line(state, table, seat, laid, doubt)
        zones = [*LINE_ZONES, PLAYED_ZONE]
        position = self._new_bottoms_up(state, read)
        if position is not None and table.covered_since(line_zone(position), self._mark_ts):
            if not table.fresh(PLAYED_ZONE):
                return None  # a card may have gone onto the pile under the hand over it
            if laid is not None and not laid.look_alike:
                doubt = doubt or (f"a Bottoms Up card seems to lie on the duck at position {position}, but "
                                  f"{laid.card} was laid on the pile this turn, and a turn plays one card")
            return self._inference(table, Event("bottoms_up", seat, {"position": position}), zones,
                                   f"a Bottoms Up card lies on the duck at position {position}", doubt)
        plays = self._plays(state, seat, read)
        if not plays:
            return None  # the line is between two readings of a play
        kinds = {etype for etype, _, _ in plays}
        if laid is not None:
            kind = ACTION_BY_CARD[laid.card]
            own = [(data, sig) for etype, data, sig in plays if etype == kind.etype]
            if own:
                if len({sig for _, sig in own}) > 1:
                    doubt = f"the line fits more than one play of {kind.title}"
                elif (laid.look_alike and len(kinds) > 1
                      and not self._laid_with_the_change(
                          state, table, laid, state.gallery.play(kind.action, seat, own[0][0]), read, now)):
                    doubt = (f"the card on the pile looks like the one under it ({kind.title}), "
                             "and another card could have made this change")
                return self._inference(table, Event(kind.etype, seat, own[0][0]), zones,
                                       f"the line changed as {kind.title} does", doubt)
            if _unhanded(table, read, now):
                return None  # a misread: wait for the card's own change
            etype, data, _ = plays[0]
            return Inference(Event(etype, seat, data, table.last_ts, "camera"), False,
                             f"the line changed as a '{etype}' would, but the card laid is {laid.card}")
        if _unhanded(table, read, now):
            return None  # a misread: wait for a change made by hand
        self._cardless = {Event(e, seat, d).content_key() for e, d, _ in plays}
        etype, data, _ = plays[0]
        why = "the line changed, but no new action card was seen on the pile"
        if len({(e, sig) for e, _, sig in plays}) > 1:
            why = "the line changed in a way several cards could make, and no new card was seen"
        return Inference(Event(etype, seat, data, table.last_ts, "camera"), False, why)

    def _laid_with_the_change(self, state: SittingDucksState, table: StabilityTracker,
                              laid: Laying, play: Outcome, read: Mapping[int, Labels],
                              now: Mapping[int, Labels]) -> bool:
        """Whether a hand over the pile whose top stayed the same laid this turn's card, once
        the :data:`CARD_AFTER_MS` since the hands left ``play``'s change (pond cards laid behind
        the line are no part of it) are over and the top is still the same: a card laid after
        the change would be on the pile by now, and one like the top is the top's card.

        A hand that came while the line still lay as the last turn left it laid the card first
        only if no hand has reached to the pile alone since the change (not on its way to the
        line). One that came once the line showed ``play``'s change is the change's own card,
        laid after it, or a hand that laid nothing after a card like it laid unseen before."""
        laid_first = self._agrees(state, dict(laid.line))
        if not (laid_first or _shows(state, play, dict(laid.line))) or not table.fresh(PLAYED_ZONE):
            return False
        last = -1
        for p in POSITIONS:
            refilled = p > len(play.spots) and _body(read[p])
            if read[p] != now[p] and not refilled:
                covers = table.covers_since(line_zone(p), self._mark_ts)
                if covers is None:
                    return False
                last = max(last, *covers, -1)
        if last < 0 or table.last_ts - last < CARD_AFTER_MS:
            return False
        return (not laid_first or _pile_covers(table, last) == ()
                or _reaching_for_line(table, last))

    def _unchanged_line(self, state: SittingDucksState, table: StabilityTracker, seat: int,
                        laid: Laying | None, doubt: str) -> Inference | None:
        """A new card on the pile and no change in the line: a discard, or a play still to come."""
        if laid is None:
            return None
        kind = ACTION_BY_CARD[laid.card]
        if kind.action == "duck-shuffle":  # a shuffle may leave the line as it was
            data = {"arrangement": list(range(1, len(state.gallery.spots) + 1))}
            return Inference(Event(kind.etype, seat, data, table.last_ts, "camera"), False,
                             "Duck Shuffle was played and the line looks the same so far; "
                             "confirm once the player has finished")
        if state.gallery.playable(kind.action, seat) is not None:
            return None  # the card's effect is still to come
        if laid.look_alike:
            doubt = (f"the card on the pile looks like the one under it ({kind.title}); a hand "
                     "passed over it, but no new card may have been laid")
        return self._inference(table, Event("discard", seat, {"action": kind.etype}), [PLAYED_ZONE],
                               f"{laid.card} went to the pile with no effect: it cannot be played", doubt)

    @staticmethod
    def _new_bottoms_up(state: SittingDucksState, read: Mapping[int, Labels]) -> int | None:
        """The position of a Bottoms Up card newly laid on an otherwise unchanged line."""
        now = line_labels(state.gallery)
        new = [p for p in POSITIONS
               if BOTTOMS_UP_CARD in read[p] and BOTTOMS_UP_CARD not in now[p]]
        if len(new) != 1:
            return None
        p = new[0]
        rest = {q: (tuple(label for label in read[q] if label != BOTTOMS_UP_CARD) if q == p else read[q])
                for q in POSITIONS}
        return p if rest == now else None

    def _plays(self, state: SittingDucksState, seat: int,
               read: Mapping[int, Labels]) -> list[tuple[str, dict[str, Any], tuple[Any, ...]]]:
        """Every legal play of every card in this match's deck that leaves the read line."""
        gallery = state.gallery
        found: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = []
        for info in ACTIONS:
            if state.game.action_cards[info.card] == 0 or info.action == "bottoms-up":
                continue
            if info.action == "duck-shuffle":
                arrangement = _arrangement(gallery, read)
                options = [] if arrangement is None else [{"arrangement": arrangement}]
            else:
                options = gallery.options(info.action, seat)
            for data in options:
                outcome = gallery.play(info.action, seat, data)
                if _shows(state, outcome, read):
                    found.append((info.etype, data, _signature(outcome)))
        return found


def _shows(state: SittingDucksState, outcome: Outcome, read: Mapping[int, Labels]) -> bool:
    """Whether the read line is what ``outcome`` leaves, the pond's cards laid behind it or not."""
    pond = state.pond_size + len(outcome.under_pond) + len(outcome.into_pond)
    return fits(read, outcome, min(LINE_LENGTH - len(outcome.spots), pond))


def _unhanded(table: StabilityTracker, read: Mapping[int, Labels], now: Mapping[int, Labels]) -> bool:
    """Whether some place of the line changed with no hand seen over it while it did: cards do
    not move by themselves, so a change no card laid explains is taken for a misread."""
    return any(not table.settled(line_zone(p)).handled for p in POSITIONS if read[p] != now[p])


def _passing_hand(laying: Laying, read: Mapping[int, Labels], kinds: set[str]) -> bool:
    """Whether a hand over the pile that left its top as it was (a card like the top laid, or
    no card) is no card of a turn: the line already read as it does now, changed from what the
    last turn left, and no play of that card makes this change. A turn unseen before this one
    laid its card before this turn changed the line (or made this change itself, which its
    card's plays would show); the next player's card comes only after this turn's own card,
    which is then laid later."""
    return (laying.look_alike and dict(laying.line) == dict(read)
            and ACTION_BY_CARD[laying.card].etype not in kinds)


def _lingered(table: StabilityTracker, since: int) -> bool:
    """Whether a hand stayed over the pile alone for two frames in a row after ``since`` (frames
    at most :data:`LINGER_GAP_MS` apart): a hand laying a card stays a moment; one seen in a
    single frame was passing, or was a shadow taken for a hand. Frames with a hand over the line
    too show an arm crossing the pile, so one of them next to a passing hand is no stay."""
    covers = _pile_alone(table, since)
    if covers is None:
        return True
    return any(later - earlier <= LINGER_GAP_MS for earlier, later in itertools.pairwise(covers))


def _pile_alone(table: StabilityTracker, since: int) -> tuple[int, ...] | None:
    """The frames after ``since`` with a hand over the pile and none over the line; None when
    the covers kept may not go back that far."""
    covers = _pile_covers(table, since)
    if covers is None:
        return None
    line_covers: set[int] = set()
    for zone in LINE_ZONES:
        seen = table.covers_since(zone, since)
        if seen is None:
            return None
        line_covers.update(seen)
    return tuple(ts for ts in covers if ts not in line_covers)


def _reaching_for_line(table: StabilityTracker, since: int) -> bool:
    """Whether in every frame after ``since`` in which a hand covered the pile, a hand covered
    some place of the line too: the pile lies beside the line, and an arm reaching there
    crosses it. A hand laying a card is over the pile alone for a moment."""
    return bool(_pile_covers(table, since)) and _pile_alone(table, since) == ()


def _pile_covers(table: StabilityTracker, since: int) -> tuple[int, ...] | None:
    """The frames after ``since`` with a hand over the played pile: those the hand watch saw,
    and, while cards lie on the pile, those that read none there (they leave it only when the
    deck is remade; a hand the hand watch missed, of a colour it does not take for skin, hid
    them). None when the frames kept may not go back that far."""
    covers = table.covers_since(PLAYED_ZONE, since)
    reads = table.reads_since(PLAYED_ZONE, since)
    if covers is None or reads is None:
        return None
    if not table.labels(PLAYED_ZONE):
        return covers
    return tuple(sorted({*covers, *(ts for ts, labels in reads if not labels)}))


def _arrangement(gallery: Gallery, read: Mapping[int, Labels]) -> list[int] | None:
    """The Duck Shuffle arrangement (old positions in their new order) that gives the read
    line, equal cards kept in their old order; None when the read line is no rearrangement."""
    n = len(gallery.spots)
    if any(_body(read[p]) for p in range(n + 1, LINE_LENGTH + 1)):
        return None
    unused = list(range(1, n + 1))
    arrangement: list[int] = []
    for p in range(1, n + 1):
        body = _body(read[p])
        match = next((q for q in unused if spot_labels(gallery.spot(q), False) == body), None)
        if match is None:
            return None
        unused.remove(match)
        arrangement.append(match)
    return arrangement
