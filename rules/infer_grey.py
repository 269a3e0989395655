"""Grey Duck events from the settled table: deals, the swap, plays and racing greys.

Why this module exists: the camera sees only cards laid face up, so each Grey Duck event is
recognised from what it leaves on the table, following this table convention (told to the
players). The trick area has one spot per seat, in front of that seat:

- ``seat<N>.trick``: the seat's latest play of the current trick. A later play of the same
  trick is laid over the earlier one (it never has fewer cards, GREY-T2). During the swap the
  Duckling lays the passed card face up in the *Captain's* spot and the Captain lays the
  returned card in the *Duckling's* spot; a Lucky Duck shows both Drakes in the Duckling's spot.
  Swapped cards are picked up before the first lead.
- ``seat<N>.grey``: where the seat lays a grey duck, in turn or out of turn (a small pile).
- The trick's winner sweeps every spot clear before leading again; so is the table at a hand's
  end.

From that (GREY-D2, W1..W3, T1..T4, G1):

- deal: the first sign of a new hand: the first lead (hand 1: whoever leads holds the grey 1,
  so that seat is the deal's ``leader``) or the Duckling's passed card;
- swap_pass / swap_return / lucky_duck: the card(s) shown in the spots named above; a passed
  Drake is held for a person, who says which rank the Duckling asked for;
- play: the mover's spot shows new cards (cards it showed since before the last event are
  held for a person: laid out of turn and not yet taken back, they answer nothing);
- grey: a seat's grey pile shows a new grey. Every play and grey carries the timestamp of the
  frame where it *first* appeared (the tracker's first-seen time), and the engine's GREY-G1
  race rules judge from those, so a grey seen before the next player's cards wins even when it
  settled later. While a race is open, a play waits a moment while some grey pile has not
  been read clearly since a hand was over it (the tracker's ``fresh``), and a grey waits while
  the next player's spot has not: whichever was laid first is applied first;
- quack: told by button or by hand. Two sights suggest one, held for a person to confirm:
  another seat laying cards while it is the mover's turn, and the trick swept away while only
  the mover's Quack was missing to win it (the mover's last cards may also have been swept
  before the camera could read them). A Quack guessed from cards laid out of turn gives way
  to the mover's own play once those cards are gone (taken back: the mover did not quack).

What the camera cannot see comes by hand: Quacks, a Drake's requested rank
(``drake_request``, ``cannot_comply``) and a Lame Duck. A play or grey a person enters after
the camera saw its cards is dated when they first showed (:meth:`GreyInferrer.stamp`; a play
also when the camera misread or could not make out one of its cards), so a person confirming a
few seconds late does not change who won a race.

Pure: stdlib only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .core import Event, State
from .decks import UNKNOWN
from .grey import DRAKE, DRAKES, RANK_OF, GreyDuckState, card_order
from .infer_base import Inference, Inferrer
from .snapshot import seat_zone
from .stability import StabilityTracker

TRICK = "trick"
GREY = "grey"
ZONE_KINDS = (TRICK, GREY)

RACE_HOLD_MS = 1500
"""How long a play or a grey may wait while a rival spot is still settling (GREY-G1)."""

PLAY_STEADY_READS = 4
"""Reads since the hand left that must all show a play's number of cards before it is applied:
one more than the tracker needs to settle, because the detector can miss a card of a flock
for the first frames after the hand leaves (rendered games: three of three yellow-1s read as
two for three frames), and the play's size is the event."""
WAVERING_STEADY_READS = 8
"""The same, for a spot whose number of cards has wavered (the tracker's ``wavered``) at least
:data:`WAVERINGS` times this game: the detector loses cards there now and then (white cards on
a cream cloth), and one card of a flock may stay unseen for several reads after the others
showed (Grey seed 9 in model mode: a flock of three yellow 3s applied as two). Waiting longer
on every spot would cost a sixth of the events the camera applies alone (20 model-mode games:
54.9% of all events by the camera alone, 45.2% with 8 reads everywhere, 53.9% as it is)."""
WAVERINGS = 3
"""Times a spot's number of cards must waver before its plays wait :data:`WAVERING_STEADY_READS`
(a card in glare now and then on a good table should not slow every play). A play also waits
that long when, since the hand left, a read showed more cards than the spot settled on (the
tracker's ``lost_since_hand``): a card was seen and then lost, and the reads that lost it may be
the ones that settled the spot (three yellow 1s read as three once, then as two four times)."""

Labels = tuple[str, ...]


def trick_zone(seat: int) -> str:
    return seat_zone(seat, TRICK)


def grey_zone(seat: int) -> str:
    return seat_zone(seat, GREY)


def _key(labels: Iterable[str]) -> Labels:
    """Cards as a multiset (a play's order on the table does not matter)."""
    return tuple(sorted(labels, key=lambda c: card_order(c) if c in RANK_OF else (99, c)))


@dataclass(frozen=True)
class _Sight:
    """A spot whose cards differ from what the applied events account for."""

    seat: int
    kind: str
    zone: str
    labels: Labels
    ts: int


class GreyInferrer(Inferrer):
    """Proposes the next Grey Duck event from the seats' spots.

    ``_base`` holds, per spot, the cards (as a multiset) that applied events account for; a spot
    reading empty is accounted for too (cards taken back or swept). A follower catching up
    after a person entered an event walks older moments of the table, where the cards entered
    were not laid yet: moments older than the entry's timestamp are skipped, and for an entry
    without one the spot waits until those cards show (``_unseen``, until the trick ends).
    ``withdrawn`` lists the history indices of events a late, earlier-timestamped grey
    overturned (GREY-G1).
    """

    def __init__(self, min_confidence: float = 0.5, race_hold_ms: int = RACE_HOLD_MS) -> None:
        super().__init__(min_confidence)
        self.race_hold_ms = race_hold_ms
        self._base: dict[str, Labels] = {}
        self._base_ts: dict[str, int] = {}  # when the cards of a spot's base were laid (if known)
        self._unseen: set[str] = set()
        self._last_change: tuple[str, Labels, bool] | None = None  # the last applied event's spot, before
        self._races_seen = 0
        self._unclear_since: dict[str, int] = {}  # spots not read clearly since a hand was there
        self._last_unclear: dict[str, tuple[int, int]] = {}  # per spot: its last such spell, ended
        self._told_ts = -1  # when a person last entered an event: older table moments are history
        self._appeared: dict[str, tuple[Labels, int]] = {}  # per spot: cards shown and since when
        self._dated: set[tuple[str, int | None, int]] = set()  # entries by hand that stamp() dated
        self._waverings: dict[str, int] = {}  # per spot: times its number of cards wavered once settled
        self._wavering_now: set[str] = set()  # spots wavering in the current frame (counted once a spell)
        self._others_laid = False  # in the last look at a trick: cards in a spot not the mover's
        self._ahead_guess: tuple[int, int] | None = None  # (seat, ts) of a Quack guessed from such cards
        self._took_back: int | None = None  # in the last look at a trick: the mover, if their spot is clear
        self.withdrawn: list[int] = []

    # -- the protocol ------------------------------------------------------------------------
    def applied(self, state: State, event: Event) -> None:
        assert isinstance(state, GreyDuckState)
        if event.type == "grey" and len(state.race_log) > self._races_seen:
            outcome = state.race_log[-1]
            if outcome.overturned is not None:
                self.withdrawn.append(len(state.history) - 2)
                if self._last_change is not None:  # the withdrawn play's cards are not accounted for
                    zone, before, unseen = self._last_change
                    self._base[zone] = before
                    self._base_ts.pop(zone, None)
                    (self._unseen.add if unseen else self._unseen.discard)(zone)
        self._races_seen = len(state.race_log)
        told = event.source != "camera"
        if told and event.ts is not None:
            self._told_ts = max(self._told_ts, event.ts)
        if state.phase != "play" or state.top is None:
            self._unseen.clear()  # the trick is over: its cards are swept, seen or not
        change = _spot_change(state, event)
        if change is None:
            self._last_change = None
            return
        zone, cards = change
        self._last_change = (zone, self._base.get(zone, ()), zone in self._unseen)
        self._base[zone] = _key(cards)
        if event.ts is None:
            self._base_ts.pop(zone, None)
        else:
            self._base_ts[zone] = event.ts
        if told and (event.ts is None or (event.type, event.seat, event.ts) in self._dated):
            # no time given, or dated back to when the camera first saw the cards (moments
            # from before they settled are walked again): wait until those cards show
            self._unseen.add(zone)
        else:
            self._unseen.discard(zone)

    def stamp(self, state: State, event: Event, table: StabilityTracker) -> Event:
        """A play or grey a person enters is dated when the camera first saw exactly those
        cards in the seat's spot, if that is earlier (GREY-G1 races are decided on when cards
        reached the table: a play confirmed late must not lose to a grey laid after it). A play
        the camera never read exactly (a card of it unclear or misread, which is why a person
        enters it) is dated when the spot's new cards first showed, if they were as many and
        most of them alike (:meth:`_first_seen_alike`)."""
        assert isinstance(state, GreyDuckState)
        change = _spot_change(state, event)
        if change is None or event.ts is None:
            return event
        zone, cards = change
        seen = self._first_seen(table, zone, cards)
        if seen is None and event.type == "play":
            seen = self._first_seen_alike(table, zone, cards)
        last = _last_ts(state)
        if seen is None or seen >= event.ts or (last is not None and seen <= last):
            return event  # not seen, or seen at a time the log cannot have it
        self._dated.add((event.type, event.seat, seen))
        return Event(event.type, event.seat, event.data, seen, event.source)

    def conflicts(self, waiting: Event, proposal: Event) -> bool:
        """A Quack guessed from another seat's cards laid in the mover's turn is answered when
        those cards are gone: they were laid out of turn and taken back, and nothing is left
        that suggests a Quack (the mover's own play, or a grey, goes on). While they still lie
        there, the mover's cards may come a round later (a Quack, then the others' plays), so
        the guess keeps waiting. Likewise a play held for a person (refused by the rules, or a
        card not made out) is answered once the mover's spot is read clearly without those
        cards while the trick is still on the table: they were taken back (a play stays until
        the trick is gathered, GREY-T4)."""
        if (waiting.type == "quack" and (waiting.seat, waiting.ts) == self._ahead_guess
                and not self._others_laid):
            return False  # the cards that raised the guess are gone: nothing is left to ask
        if waiting.type == "play" and waiting.seat == self._took_back:
            return False  # the cards held were taken back while the trick goes on: no play
        return super().conflicts(waiting, proposal)

    def recall(self, memory: dict[str, Any]) -> None:
        """Go back to an earlier memory, keeping which entries by hand :meth:`stamp` dated
        (it dates an entry just before the follower goes back)."""
        dated = self._dated
        super().recall(memory)
        self._dated = dated

    def propose(self, state: State, table: StabilityTracker) -> Inference | None:
        assert isinstance(state, GreyDuckState)
        self._note_unclear(state, table)
        if table.last_ts < self._told_ts:
            return None  # the table as it was before a person told what happened since
        sights = self._sights(state, table)
        if state.phase == "deal":
            return self._deal(state, table, sights)
        if state.phase == "swap":
            return self._swap(state, table, sights)
        if state.phase == "play":
            return self._play(state, table, sights)
        return None

    # -- reading helpers --------------------------------------------------------------------
    def _sights(self, state: GreyDuckState, table: StabilityTracker) -> list[_Sight]:
        """Spots showing cards no applied event accounts for, earliest first (an in-turn play
        before a grey seen in the same frame: a tie goes to the in-turn play, GREY-G1)."""
        sights: list[_Sight] = []
        for seat in range(state.num_players):
            for kind in ZONE_KINDS:
                zone = seat_zone(seat, kind)
                labels = table.labels(zone)
                if zone in self._unseen:
                    if _key(labels) == self._base.get(zone, ()):
                        self._unseen.discard(zone)
                        continue
                    if not self._laid_over(table, zone, labels):
                        continue  # until the cards entered by hand show, older sights mean nothing
                    self._unseen.discard(zone)
                if not labels:
                    if self._not_yet_seen(state, table, zone):
                        continue
                    self._base[zone] = ()
                    self._base_ts.pop(zone, None)
                    self._appeared.pop(zone, None)
                    continue
                ts = self._appeared_ts(zone, labels, self._dated_after_base(table, zone))
                if _key(labels) != self._base.get(zone, ()) and self._touched(table, zone):
                    sights.append(_Sight(seat, kind, zone, labels, ts))
        return sorted(sights, key=lambda s: (s.ts, s.kind != TRICK or s.seat != state.turn))

    def _not_yet_seen(self, state: GreyDuckState, table: StabilityTracker, zone: str) -> bool:
        """Whether the spot reads empty only because the camera has not made out the cards the
        events account for yet: it has read empty since before they were laid (a person
        entered them while a hand still hid the spot), and their trick is still on. Such an
        empty read is no sign of cards taken back; counting it as one would make those cards
        look new once they settle (laid out of turn by a seat that already played)."""
        since = self._base_ts.get(zone)
        if not self._base.get(zone) or since is None or table.settled(zone).first_seen_ts >= since:
            return False
        return state.phase == "swap" or (state.phase == "play" and state.top is not None)

    def _touched(self, table: StabilityTracker, zone: str) -> bool:
        """Whether cards in ``zone`` may have changed: it held none the events account for, or a
        hand reached there since they were laid. Cards lying in a spot do not change by
        themselves, so a read flickering between look-alikes (a grey 2 in one frame, a grey 3
        in the next) must not become a new card (GREY-G1: a grey credited to the wrong seat).
        Cards appearing on an empty spot are not held to this: a grey slapped down in a race
        may land between two frames of the hand. (Not the tracker's ``handled``: a grey laid on
        a grey read as unknown counts there as the unknown card made out, hand or not.)"""
        since = self._base_ts.get(zone)
        return not self._base.get(zone) or since is None or table.covered_since(zone, since)

    def _note_unclear(self, state: GreyDuckState, table: StabilityTracker) -> None:
        """Note which spots are not read clearly since a hand was there, and each one's last
        such spell: races are judged against them (also on table moments a follower catching up
        after a person's entry walks without proposing anything); and which trick spots' number
        of cards has wavered (their plays wait longer, :data:`WAVERING_STEADY_READS`)."""
        for seat in range(state.num_players):
            for kind in ZONE_KINDS:
                zone = seat_zone(seat, kind)
                if not table.fresh(zone):
                    self._unclear_since.setdefault(zone, table.last_ts)
                elif zone in self._unclear_since:
                    self._last_unclear[zone] = (self._unclear_since.pop(zone), table.last_ts)
                if kind == TRICK:
                    if table.wavered(zone):
                        if zone not in self._wavering_now:
                            self._waverings[zone] = self._waverings.get(zone, 0) + 1
                        self._wavering_now.add(zone)
                    else:
                        self._wavering_now.discard(zone)

    def _dated_after_base(self, table: StabilityTracker, zone: str) -> int:
        """When the spot's cards appeared as the tracker dates them, but not before the cards
        the events account for were laid: cards laid on a card the camera read only as unknown
        count for the tracker as that card made out, and keep its older date. Those are dated
        from the hand that laid them instead (the spot's last spell under a hand)."""
        first_seen = table.settled(zone).first_seen_ts
        base_ts = self._base_ts.get(zone)
        if not self._base.get(zone) or base_ts is None or first_seen > base_ts:
            return first_seen
        spell = self._last_unclear.get(zone)
        return spell[0] if spell is not None and spell[0] > base_ts else base_ts + 1

    def _laid_over(self, table: StabilityTracker, zone: str, labels: Labels) -> bool:
        """Whether the spot, still awaited to show cards a person entered, shows other cards
        made out clearly after a hand was there since those were laid: new cards on them (a
        grey on the grey a person entered while the camera read it only as unknown)."""
        since = self._base_ts.get(zone)
        return (bool(labels) and UNKNOWN not in labels and since is not None
                and table.covered_since(zone, since))

    def _appeared_ts(self, zone: str, labels: Labels, first_seen: int) -> int:
        """When these cards appeared, as the tracker dates them (it keeps the time of a card
        first settled as unrecognised and then made out); noted for :meth:`stamp`. Not the time
        of an unrecognised card seen here earlier: the spot may have emptied in between, in a
        table moment a follower catching up does not read."""
        self._appeared[zone] = (labels, first_seen)
        return first_seen

    def _inference(self, table: StabilityTracker, event: Event, zones: list[str], ts: int, why: str,
                   doubt: str = "") -> Inference:
        sure, problem = self.sure(table, zones)
        stamped = Event(event.type, event.seat, event.data, ts, "camera")
        if doubt or not sure:
            return Inference(stamped, False, doubt or problem)
        return Inference(stamped, True, why)

    # -- one method per phase ------------------------------------------------------------------
    def _deal(self, state: GreyDuckState, table: StabilityTracker, sights: list[_Sight]) -> Inference | None:
        dealer = state.dealer
        leads = [s for s in sights if s.kind == TRICK]
        if state.captain is None or state.duckling is None:  # a first hand: the grey 1 leads
            if not leads:
                return None
            first = leads[0]
            doubt = ""
            if len({s.seat for s in leads}) > 1:
                doubt = "cards appeared in more than one seat's spot at the start of the hand"
            elif any(self._hidden_at(trick_zone(seat), first.ts) and trick_zone(seat) in self._unclear_since
                     for seat in range(state.num_players) if seat != first.seat):
                # once such a spot is read clearly again it shows what was laid there under the
                # hand (then more than one seat's spot shows cards), or nothing: whose cards stay
                # is who led (cards led out of turn are taken back)
                doubt = ("another seat's spot is under a hand and was when these cards appeared, so "
                         "cards laid there first may not have been seen: who led the hand is not certain")
            return self._inference(table, Event("deal", dealer, {"leader": first.seat}), [first.zone],
                                   first.ts, f"{state.players[first.seat]} leads the first trick", doubt)
        captain, duckling = state.captain, state.duckling
        for sight in leads:
            passed = sight.seat == captain and len(sight.labels) == 1
            lucky = sight.seat == duckling and _key(sight.labels) == _key(DRAKES)
            if passed or lucky:
                return self._inference(table, Event("deal", dealer), [sight.zone], sight.ts,
                                       "the swap of the new hand has begun")
        return None

    def _swap(self, state: GreyDuckState, table: StabilityTracker, sights: list[_Sight]) -> Inference | None:
        swap = state.swap
        assert swap is not None
        captain, duckling = swap.captain, swap.duckling
        for sight in sights:
            if sight.kind != TRICK:
                continue
            if swap.step == "pass" and sight.seat == duckling and _key(sight.labels) == _key(DRAKES):
                return self._inference(table, Event("lucky_duck", duckling), [sight.zone], sight.ts,
                                       "the Duckling shows both Drakes")
            if swap.step == "pass" and sight.seat == captain:
                card = sight.labels[-1]
                doubt = ""
                if len(sight.labels) != 1:
                    doubt = f"{len(sight.labels)} cards lie in the Captain's spot; the Duckling passes one"
                elif card in RANK_OF and RANK_OF[card] == DRAKE:
                    doubt = ("a Drake was passed: the Duckling may ask for a rank of 5 or lower; "
                             "confirm with the rank asked for, or none")
                return self._inference(table, Event("swap_pass", duckling, {"card": card}), [sight.zone],
                                       sight.ts, f"the Duckling passed {card}", doubt)
            if swap.step == "return" and sight.seat == duckling and len(sight.labels) == 1:
                card = sight.labels[0]
                return self._inference(table, Event("swap_return", captain, {"card": card}), [sight.zone],
                                       sight.ts, f"the Captain returned {card}")
            if swap.step == "return" and sight.seat == captain:
                return self._inference(table, Event("lame_duck", captain), [sight.zone], sight.ts, "",
                                       "the Captain lays cards without returning one: a Lame Duck "
                                       "(the Captain refuses the card and leads)?")
        return None

    def _play(self, state: GreyDuckState, table: StabilityTracker, sights: list[_Sight]) -> Inference | None:
        mover = state.turn
        window = state.race_window()
        self._others_laid = any(s.kind == TRICK and s.seat != mover for s in sights)
        self._took_back = mover if mover is not None and self._spot_clear(state, table, sights, mover) else None
        ahead: list[_Sight] = []
        for sight in sights:
            if sight.kind == GREY:
                card = sight.labels[-1]
                inference = self._inference(table, Event("grey", sight.seat, {"card": card}), [sight.zone],
                                            sight.ts, f"{state.players[sight.seat]} laid {card}")
                if not inference.certain and window is not None:
                    return inference  # it may be the racing grey: a person must look
                if inference.certain and not state.check(inference.event).ok:
                    joined = self._joined_under_hand(state, table, sight, inference)
                    if joined is not None and not joined.certain:
                        return joined
                    inference = joined or inference
                if inference.certain and state.check(inference.event).ok and not self._seen_after(
                        state, table, sight):
                    if mover is not None and self._unclear_before(state, table, [trick_zone(mover)], sight):
                        return None  # the next player's cards may have landed first
                    rival = self._rival_unseen(state, table, sights, sight)
                    if rival is not None:
                        return self._inference(
                            table, inference.event, [sight.zone], sight.ts, "",
                            f"{state.players[rival]}'s spot was under a hand when {card} appeared and "
                            "showed cards once it was clear: which came first cannot be seen")
                    return inference
                continue  # a grey that lost its race or fits nothing: it will be taken back
            if sight.seat != mover:
                ahead.append(sight)
                continue
            last = _last_ts(state)
            doubt = ""
            if last is not None and sight.ts < last:
                doubt = (f"{state.players[mover]}'s cards were there before the last event (seen "
                         f"{last - sight.ts} ms earlier), so they may be cards laid out of turn and "
                         "not yet taken back")
            inference = self._inference(table, Event("play", mover, {"cards": list(_key(sight.labels))}),
                                        [sight.zone], sight.ts, f"{state.players[mover]} laid cards", doubt)
            wavering = self._waverings.get(sight.zone, 0) >= WAVERINGS or table.lost_since_hand(sight.zone)
            reads = WAVERING_STEADY_READS if wavering else PLAY_STEADY_READS
            if inference.certain and not table.steady(sight.zone, reads):
                return None  # a card of the play may still be missed right after the hand left
            greys = [grey_zone(s) for s in range(state.num_players) if state.counts[s] > 0]
            if inference.certain and self._unclear_before(state, table, greys, sight):
                return None  # a grey laid first may still be under a hand
            return inference  # the follower holds it if uncertain or if the rules refuse it
        if mover is None:
            return None
        if state.top is not None and self._swept(state, table):
            zones = [seat_zone(s, k) for s in range(state.num_players) for k in ZONE_KINDS]
            ts = max(table.settled(z).first_seen_ts for z in zones)
            name = state.players[mover]
            doubt = (f"the trick was swept away: did {name} quack? (or were {name}'s last cards "
                     "swept before they could be read?)")
            if not _quack_wins_trick(state, mover):
                doubt = "the trick was swept away, but more than one player still had to quack"
            self._ahead_guess = None
            return self._inference(table, Event("quack", mover), [], ts, "", doubt)
        if ahead:
            first = ahead[0]
            self._ahead_guess = (mover, first.ts)
            return self._inference(table, Event("quack", mover), [first.zone], first.ts, "",
                                   f"{state.players[first.seat]} laid cards while it is "
                                   f"{state.players[mover]}'s turn: did {state.players[mover]} quack?")
        return None

    def _spot_clear(self, state: GreyDuckState, table: StabilityTracker, sights: list[_Sight],
                    seat: int) -> bool:
        """Whether ``seat``'s trick spot shows no cards beyond those the events account for,
        read clearly since a hand was last there, while cards of the trick still lie in other
        spots (it is not gathered)."""
        zone = trick_zone(seat)
        on_table = any(table.labels(seat_zone(s, k)) for s in range(state.num_players) for k in ZONE_KINDS
                       if seat_zone(s, k) != zone)
        return (state.top is not None and on_table and not any(s.zone == zone for s in sights)
                and zone not in self._unclear_since and table.fresh(zone))

    def _rival_unseen(self, state: GreyDuckState, table: StabilityTracker, sights: list[_Sight],
                      grey: _Sight) -> int | None:
        """The seat whose in-turn cards race ``grey`` but were under a hand when it appeared (new
        cards in the mover's spot, or the play that closed the grey's window), first seen after
        it: they may have been laid before it, out of sight (GREY-G1 races are judged on when
        cards reached the table, which the camera missed). None when there is no such seat."""
        rivals = [s.seat for s in sights if s.kind == TRICK and s.seat == state.turn and s.ts > grey.ts]
        closure = state.closure
        if closure is not None and closure.action == "play" and closure.window.grey == grey.labels[-1]:
            seen = self._first_seen(table, trick_zone(closure.seat), closure.cards)
            if seen is None or seen > grey.ts:
                rivals.append(closure.seat)
        return next((seat for seat in rivals if self._hidden_at(trick_zone(seat), grey.ts)), None)

    def _hidden_at(self, zone: str, ts: int) -> bool:
        """Whether ``zone`` was not read clearly at ``ts`` (it still is not, or in its last
        spell of being under a hand)."""
        since = self._unclear_since.get(zone)
        spell = self._last_unclear.get(zone)
        return (since is not None and since <= ts) or (spell is not None and spell[0] <= ts <= spell[1])

    def _joined_under_hand(self, state: GreyDuckState, table: StabilityTracker, sight: _Sight,
                           grey: Inference) -> Inference | None:
        """The grey dated at the play it joins, where it appeared while that play's spot still
        lay under the hand that laid it: the play's own time is then known only to lie within
        the hand's spell, so the camera cannot tell which landed first, and only the play first
        is legal (GREY-G1). Certain for the player's own grey (one hand laid both); asked for
        another seat's. None where the grey is refused for another reason."""
        window = state.race_window()
        if (window is None or window.opened_at is None or grey.event.ts is None
                or grey.event.ts >= window.opened_at):
            return None
        spell = self._last_unclear.get(trick_zone(window.seat))
        if spell is None or not spell[0] <= grey.event.ts < window.opened_at <= spell[1]:
            return None
        card = sight.labels[-1]
        if not state.check(Event("grey", sight.seat, {"card": card}, window.opened_at, "camera")).ok:
            return None
        doubt = "" if sight.seat == window.seat else (
            f"{card} appeared while {state.players[window.seat]}'s cards were still under a hand: "
            "which landed first cannot be seen")
        return self._inference(table, Event("grey", sight.seat, {"card": card}), [sight.zone],
                               window.opened_at, f"{state.players[sight.seat]} laid {card} with the "
                               "play under the hand", doubt)

    def _seen_after(self, state: GreyDuckState, table: StabilityTracker, sight: _Sight) -> bool:
        """Whether the grey would overturn the last event, a play a person entered (so dated by
        the person), although the camera saw that play's cards before the grey (GREY-G1: the
        grey lost its race and will be taken back)."""
        closure, last = state.closure, (state.history[-1] if state.history else None)
        if (closure is None or last is None or last.source == "camera" or closure.action != "play"
                or closure.window.grey != sight.labels[-1] or last.type != "play"
                or (last.seat, last.ts) != (closure.seat, closure.ts)):
            return False
        seen = self._first_seen(table, trick_zone(closure.seat), closure.cards)
        return seen is not None and seen <= sight.ts

    def _first_seen(self, table: StabilityTracker, zone: str, cards: Iterable[str]) -> int | None:
        """When the camera first saw exactly ``cards`` in ``zone`` (now, or as last noted
        there), or None if it did not."""
        wanted, times = _key(cards), []
        if table.labels(zone) and _key(table.labels(zone)) == wanted:
            times.append(table.settled(zone).first_seen_ts)
        appeared = self._appeared.get(zone)
        if appeared is not None and _key(appeared[0]) == wanted:
            times.append(appeared[1])
        return min(times, default=None)

    def _first_seen_alike(self, table: StabilityTracker, zone: str, cards: Iterable[str]) -> int | None:
        """When the cards the spot shows now first appeared, where they are new (not what the
        events account for), as many as ``cards`` and more than half of them the same cards
        (the rest unclear or misread); None otherwise."""
        wanted, labels = _key(cards), table.labels(zone)
        if not labels or len(labels) != len(wanted) or _key(labels) == self._base.get(zone, ()):
            return None
        alike = sum((Counter(labels) & Counter(wanted)).values())
        return table.settled(zone).first_seen_ts if alike * 2 > len(wanted) else None

    def _unclear_before(self, state: GreyDuckState, table: StabilityTracker, rivals: list[str],
                        sight: _Sight) -> bool:
        """Whether to hold a sight while a grey race is open because a rival spot has not been
        read clearly since a hand was over it from before the sight appeared: cards laid there
        first may still be settling (a hand that came later can only have laid cards that lost).
        Held at most ``race_hold_ms``; the engine's late-grey rule covers what is left."""
        if state.race_window() is None or table.last_ts - sight.ts > self.race_hold_ms:
            return False
        return any(self._unclear_since.get(zone, sight.ts + 1) <= sight.ts for zone in rivals)

    def _swept(self, state: GreyDuckState, table: StabilityTracker) -> bool:
        """Every spot is empty, and every spot holding part of this trick emptied after its
        cards were laid (not an older moment of the table)."""
        if any(table.labels(seat_zone(s, k)) for s in range(state.num_players) for k in ZONE_KINDS):
            return False
        for entry in state.trick:
            if entry.action == "quack":
                continue
            zone = trick_zone(entry.seat) if entry.action == "play" else grey_zone(entry.seat)
            if zone in self._unseen or table.settled(zone).first_seen_ts <= (entry.ts or -1):
                return False
        return True


def _last_ts(state: GreyDuckState) -> int | None:
    """The time of the latest applied event that has one."""
    return next((e.ts for e in reversed(state.history) if e.ts is not None), None)


def _quack_wins_trick(state: GreyDuckState, quacker: int) -> bool:
    """Whether ``quacker``'s Quack is the last one the top play needs to win the trick (GREY-T4)."""
    assert state.top is not None
    owner = state.top.seat
    return all(s in (owner, quacker) or s in state.quacked
               for s in range(state.num_players) if state.counts[s] > 0)


def _spot_change(state: GreyDuckState, event: Event) -> tuple[str, list[str]] | None:
    """The spot an applied event leaves cards in, and those cards (None: it leaves none)."""
    data: Mapping[str, Any] = event.data
    if event.type == "play" and event.seat is not None:
        return trick_zone(event.seat), list(data["cards"])
    if event.type == "grey" and event.seat is not None:
        return grey_zone(event.seat), [data["card"]]
    swap = state.swap
    if swap is None:
        return None
    if event.type == "swap_pass":
        return trick_zone(swap.captain), [data["card"]]
    if event.type == "swap_return":
        return trick_zone(swap.duckling), [data["card"]]
    if event.type == "lucky_duck":
        return trick_zone(swap.duckling), list(DRAKES)
    return None
