"""DUCK events from the settled table: deals, plays, draws, ducks and the round-end reveal.

Why this module exists: the camera sees only public cards, so each DUCK event is recognised
from what it leaves on the table, following this table convention (told to the players):

- ``seat<N>.discard``: the seat's discard pile; only its top card is read.
- ``seat<N>.reveal``: the seat's reveal area. A play of several cards is laid out here first,
  in the order it will be stacked (the card meant to end on top last), then pushed onto the
  discard pile. A single card may go straight onto the pile. At round end every player spreads
  their hand here.

From that (DUCK-A1..A5, B1, S1):

- deal: the table was cleared after the last reveal, and now the dealer's pile (or everyone's,
  option ``starting_face_up``) shows one card and nothing else lies in the seat zones, read
  the same for ``DEAL_READS`` reads in a row;
- play: the mover's pile top changes to a card shown in their reveal area (or, with nothing
  shown, to a single new card); the shown cards are the play, the new top is laid last;
- draw from a neighbour: that neighbour's top card disappears and the card below shows;
- draw from the deck: the next player starts their turn (shows cards or changes their pile)
  while the mover took nothing from a neighbour; when a neighbour's pile has two equal cards
  on top (a take would not show), the zone a hand reached over (``middle.draw`` or that pile)
  before the next player's play reached their pile decides;
- duck: others start spreading their hands while the mover's whole hand lies in their reveal
  area and their pile did not change (a duck called by hand works too);
- reveal: every seat's reveal area shows as many cards as that seat holds; scored at once,
  so its cards must be read with confidence ``REVEAL_CONFIDENCE``, at least ``REVEAL_READS``
  times since a hand was last over them, with no other card read in their place in
  ``REVEAL_RIVAL_SHARE`` of those reads.

What keeps a misread from becoming an event (each measured on replays that once went wrong):
cards change only under a hand, so a card that changed with no hand seen is held; a play or
draw waits while another pile shows a top the game does not explain; "the pile looks the same"
counts only once the pile was read again after the hand left it; a take first seen after the
next player started is held.

What keeps the classifier's slips with yellow digits from holding every event (measured on
model-mode replays): a pile top read as another number of its colour with no hand near it, or
ever since its play was recorded, is that card misread, not a card that moved; a shown play
with one card read as unknown is completed when the rules leave a single card it can be (a
run's middle card); a show read as one unknown card is not (it may be several cards read as
one outline). A card read as another is never changed to make a play legal, and a play that
only the pile's top names is asked about when the pile also read as another card since the hand
left it.

Pure: stdlib only.
"""

from __future__ import annotations

from typing import Any

from .core import Event, State
from .decks import UNKNOWN
from .duck import DUCK_CARDS, DuckState, card_colour, card_value, play_form
from .infer_base import Inference, Inferrer
from .snapshot import middle_zone, seat_zone
from .stability import StabilityTracker

DISCARD = "discard"
REVEAL = "reveal"
ZONE_KINDS = (DISCARD, REVEAL)
MIN_AGREEMENT = 0.0
"""Share of the recent reads of a card that must name it before an event rests on it (no
bar: measured on rendered games, the rule that a change needs a hand holds what this would)."""
DEAL_READS = 8
"""Reads in a row since the dealer's hand left that must name the start card before the deal
is read (about half a second). Nothing happens before the first play, and a start card read
one way and then another (yellow-0 read as yellow-8 at 0.99 for 7 frames, then right) was the
last kind of wrong DUCK event in model-mode games: with 8, 37 of 37 games were exact (32 with
3); with 10 or 12 too, since the tracker keeps a card's first read under a hovering hand (see
docs/benchmarks.md)."""
MIN_CONFIDENCE = 0.9
"""How sure the reads of every card an event rests on must be. DUCK's yellow indices are the
classifier's weakest at a table camera's card size: over 16 model-mode games, its wrong reads
naming a yellow card had a median confidence of 0.82, its right ones 0.98. With 0.9 instead of
0.5, 14 of those games ended exact instead of 12, and more events came from the camera alone
(a person is asked sooner, and fewer replays end at a wrong event)."""
REVEAL_READS = 3
"""Reads since a hand was last over a revealed hand that must name its cards: a hand passing
over a hand read two ways leaves no read to doubt it by (DUCK seed 1 at 1920 x 1080 scored a
red 2 as a red 3 so)."""
REVEAL_RIVAL_SHARE = 0.25
"""Share of those reads (and at least two) naming one other card at some place of a revealed
hand that makes the hand asked about: a card read two ways (that red 2: 5 reads of 11 against
6) is, one odd misread is not. With these two rules 40 oracle DUCK games (3 players) leave
186 of 200 reveals to the camera at 5% misreads a card (194 without), 194 at 2% (200); none
wrong either way."""
TOP_RIVAL_SHARE = REVEAL_RIVAL_SHARE
"""Share of the reads of a pile since a hand left it (and at least two) naming one other top
card that makes a play resting on that top asked about: a yellow 5 read so twice, then as a
yellow 3 at 0.98-0.99 three times, settled as the 3 on the vote of five reads and the play
was recorded as a yellow 3, a play the rules allow."""
REVEAL_CONFIDENCE = MIN_CONFIDENCE
"""How sure the reads of the round-end hands must be: the reveal scores the round at once
(the classifier's wrong reads of hand cards came with 0.65-0.77 in rendered games); its doubt
names the reveal."""


class DuckInferrer(Inferrer):
    """Proposes the next DUCK event; remembers cards shown in a reveal area before a play."""

    def __init__(self, min_confidence: float = MIN_CONFIDENCE, min_agreement: float = MIN_AGREEMENT,
                 needs_hands: bool = True, reveal_confidence: float = REVEAL_CONFIDENCE) -> None:
        super().__init__(min_confidence, min_agreement, needs_hands)
        self.reveal_confidence = reveal_confidence
        self._staged: dict[int, tuple[str, ...]] = {}
        self._staged_ts: dict[int, int] = {}
        self._staged_seen: dict[int, int] = {}  # when the staged cards were first read
        self._cleared = True  # the table starts empty
        self._deal_missed = False  # since the table was cleared, a pile the deal leaves empty had a card
        self._played_ts = -1  # when the mover's play reached their pile (draws come after)
        self._now = -1  # the moment of the table last looked at
        self._played_at: dict[int, int] = {}  # the moment each seat's last play was applied
        self._laid_ts: dict[int, int] = {}  # the time stamp of each seat's last play
        self._tops_seen: dict[int, set[str]] = {}  # new tops of the mover's pile in their turn

    # -- reading helpers --------------------------------------------------------------------
    @staticmethod
    def _top(table: StabilityTracker, seat: int) -> str | None:
        labels = table.labels(seat_zone(seat, DISCARD))
        return labels[-1] if labels else None

    @staticmethod
    def _shown(table: StabilityTracker, seat: int) -> tuple[str, ...]:
        return table.labels(seat_zone(seat, REVEAL))

    @staticmethod
    def _ts(table: StabilityTracker, *zones: str) -> int:
        return max(table.settled(z).first_seen_ts for z in zones)

    def _inference(self, table: StabilityTracker, event: Event, zones: list[str], why: str,
                   doubt: str = "", read: list[str] | None = None) -> Inference:
        """An event seen in ``zones`` (stamped when they first showed it), certain when no
        ``doubt`` and the cards it rests on (``read``, by default ``zones``) were read well."""
        sure, problem = self.sure(table, zones if read is None else read)
        ts = self._ts(table, *zones)
        stamped = Event(event.type, event.seat, event.data, ts, "camera")
        if doubt or not sure:
            return Inference(stamped, False, doubt or problem)
        return Inference(stamped, True, why)

    # -- the protocol ------------------------------------------------------------------------
    def applied(self, state: State, event: Event) -> None:
        if event.type == "play" and event.seat is not None:
            self._staged.pop(event.seat, None)
            self._tops_seen.pop(event.seat, None)
            self._played_at[event.seat] = self._now
            self._laid_ts[event.seat] = event.ts if event.ts is not None else self._now  # (by hand: now)
            self._played_ts = event.ts if event.ts is not None else -1
        if event.type in ("deal", "reveal"):
            self._staged.clear()
            self._laid_ts.clear()
            self._tops_seen.clear()
        if event.type == "reveal":
            self._cleared = False

    def conflicts(self, waiting: Event, proposal: Event) -> bool:
        """A draw from one place contradicts a draw from another (a take seen earlier may be
        covered by the next player's play by now)."""
        return super().conflicts(waiting, proposal) or (
            waiting.type == "draw" and waiting.data.get("pile") != proposal.data.get("pile"))

    def recall(self, memory: dict[str, Any]) -> None:
        """Go back to an earlier memory, but keep the latest moment looked at: an event a
        person enters now is stamped with it (so cards shown before it count as its own)."""
        now = self._now
        super().recall(memory)
        self._now = now

    def _remember_shown(self, state: DuckState, table: StabilityTracker) -> None:
        """Keep what each seat lays out before it reaches their pile (a play may be shown
        while the previous player's draw is still being worked out). Cards shown before the
        seat's last play are that play's (a follower catching up walks such moments again). A
        pile top misread as another card while the cards are shown does not hide them."""
        for s, seat in enumerate(state.seats):
            shown = self._shown(table, s)
            fresh_show = table.settled(seat_zone(s, REVEAL)).first_seen_ts > self._played_at.get(s, -1)
            top = self._top(table, s)
            # the shown cards are not on the pile yet: its top is the old one, or (misread) at
            # least none of them
            if shown and fresh_show and (top == (seat.pile[-1] if seat.pile else None) or top not in shown):
                self._staged[s] = shown
                self._staged_ts[s] = table.settled(seat_zone(s, REVEAL)).settled_ts
                self._staged_seen[s] = table.settled(seat_zone(s, REVEAL)).first_seen_ts

    def propose(self, state: State, table: StabilityTracker) -> Inference | None:
        assert isinstance(state, DuckState)
        self._now = table.last_ts
        if state.is_over():
            return None
        if state.phase in ("play", "draw"):
            self._remember_shown(state, table)
        if state.phase == "play":
            self._note_new_top(state, table)
        if state.phase == "deal":
            return self._deal(state, table)
        if state.phase == "play":
            return self._unexplained(state, table, self._play_or_duck(state, table))
        if state.phase == "draw":
            return self._unexplained(state, table, self._draw(state, table))
        return self._reveal(state, table)

    def _unexplained(self, state: DuckState, table: StabilityTracker,
                     proposal: Inference | None) -> Inference | None:
        """Hold a play or draw while another pile shows what the game does not explain.

        A pile whose top changed although no event of the turn touches it means a misread
        (a classifier mistaking one card for another every frame) or a change the camera
        missed; either way the reads the proposal rests on may be wrong too.
        """
        if proposal is None or not proposal.certain:
            return proposal
        event, t = proposal.event, state.turn
        touched = {t} if event.type in ("play", "duck") else {state.left(t)}
        if event.type == "draw" and event.data.get("pile") != "deck":
            touched.add(state.left(t) if event.data["pile"] == "left" else state.right(t))
        for s, seat in enumerate(state.seats):
            expected = seat.pile[-1] if seat.pile else None
            if s not in touched and self._top(table, s) != expected and not self._digit_misread(table, s, expected):
                return Inference(event, False, f"seat {s + 1}'s pile shows {self._top(table, s) or 'nothing'} "
                                               f"where {expected or 'nothing'} should lie on top")
        return proposal

    # -- one method per event ------------------------------------------------------------------
    def _deal(self, state: DuckState, table: StabilityTracker) -> Inference | None:
        seats = range(state.num_players)
        if not self._cleared:
            if any(self._top(table, s) or self._shown(table, s) for s in seats):
                return None
            self._cleared, self._deal_missed = True, False
        everyone = state.game.options["starting_face_up"] == "everyone"
        wanted = [everyone or s == state.dealer for s in seats]
        tops = [self._top(table, s) for s in seats]
        if any(self._shown(table, s) or (tops[s] is not None and not wanted[s]) for s in seats):
            self._deal_missed = True  # the game went on: the start card was not seen long enough
            dealer = state.dealer
            if everyone or tops[dealer] is None:
                return None
            guess = [tops[dealer] if s == dealer else None for s in seats]
            zone = seat_zone(dealer, DISCARD)
            _, problem = self.sure(table, [zone])  # a problem with the card itself comes first
            doubt = problem or f"play went on before the start card was read steadily: is it {tops[dealer]}?"
            return self._inference(table, Event("deal", None, {"face_up": guess}), [zone], "", doubt)
        face_up: list[str | None] = []
        for s in seats:
            if (tops[s] is None) == wanted[s] or len(table.labels(seat_zone(s, DISCARD))) > 1:
                return None
            face_up.append(tops[s])
        zones = [seat_zone(s, DISCARD) for s in seats if face_up[s] is not None]
        if not all(table.unchanged(z, DEAL_READS) for z in zones):
            return None  # nothing happens before the first play: read the start card a while
        doubt = ("other piles or hands showed cards since the table was cleared, so the start card "
                 "may have been taken and this card laid later") if self._deal_missed else ""
        return self._inference(table, Event("deal", None, {"face_up": face_up}), zones,
                               "the start card is on the dealer's pile", doubt)

    def _play_or_duck(self, state: DuckState, table: StabilityTracker) -> Inference | None:
        t = state.turn
        seat = state.seats[t]
        shown = self._shown(table, t)
        expected = seat.pile[-1] if seat.pile else None
        # a top misread since this seat's last play is that play's card, not a new one
        top = expected if self._digit_misread(table, t, expected, since_play=True) else self._top(table, t)
        pile_zone, reveal_zone = seat_zone(t, DISCARD), seat_zone(t, REVEAL)
        staged = self._staged.get(t)
        if top != expected and top is not None and not shown:
            if staged is None:
                doubt = self._missed_play(seat.pile, (top,), t) or self._read_two_ways(table, pile_zone)
                # since the last play (not the last event): cards may be shown while the
                # previous player still draws
                if table.covered_since(reveal_zone, self._played_ts):
                    doubt = (f"{top} appeared on the pile, but a hand was over the reveal area, so "
                             "more cards may have been shown there unseen")
                elif (not doubt and expected is not None and top in DUCK_CARDS
                      and card_colour(top) == card_colour(expected) and table.settled(pile_zone).handled):
                    doubt = (f"{top} appeared on the pile where the game has {expected}: the camera "
                             "can take one number of a colour for another, so is it a new card?")
                return self._inference(table, Event("play", t, {"cards": [top]}), [pile_zone],
                                       f"{top} went straight onto the pile", doubt)
            cards, doubt = _stack_order(staged, top)
            # the reveal area emptied by itself only if no hand was over it since the cards lay
            # there (a hand may leave it a frame before the cards are seen gone)
            moved = table.covered_since(reveal_zone, self._staged_ts[t])
            return self._inference(table, Event("play", t, {"cards": cards}),
                                   [pile_zone, reveal_zone], "the shown cards went onto the pile",
                                   doubt or self._missed_play(seat.pile, tuple(cards), t)
                                   or ("" if top in staged else self._read_two_ways(table, pile_zone)),
                                   [pile_zone] if moved else [pile_zone, reveal_zone])
        if (top == expected and top is not None and not shown and staged and top in staged
                and table.covered_since(pile_zone, self._staged_ts[t]) and table.fresh(pile_zone)):
            # the play ended with a card equal to the old top: the pile looks the same, but the
            # shown cards left the reveal area and a hand reached over the pile
            cards, doubt = _stack_order(staged, top)
            return self._inference(table, Event("play", t, {"cards": cards}),
                                   [pile_zone, reveal_zone],
                                   "the shown cards went onto a pile whose top looks the same", doubt)
        others_show = any(self._shown(table, s) for s in range(state.num_players) if s != t)
        if others_show and shown and top == expected and len(shown) == seat.hand_count:
            return self._inference(table, Event("duck", t), [reveal_zone],
                                   "the whole hand is shown and the others show theirs")
        return None

    def _note_new_top(self, state: DuckState, table: StabilityTracker) -> None:
        """Keep a new top of the mover's pile laid by a hand with nothing shown: a play of its
        own (a top that changed with no hand, or while cards are shown, may be a misread, which
        other rules judge)."""
        t = state.turn
        top, pile = self._top(table, t), state.seats[t].pile
        if top is not None and top != (pile[-1] if pile else None) and not self._shown(table, t) \
                and table.settled(seat_zone(t, DISCARD)).handled:
            self._tops_seen.setdefault(t, set()).add(top)

    def _missed_play(self, pile: list[str], cards: tuple[str, ...], seat: int) -> str:
        """A doubt when the pile showed, since its last play, a top that neither the pile
        (a take uncovers the card below) nor this play explains: a play not yet entered (one the
        camera was unsure of) lies under this one, which then is not the turn's play."""
        odd = sorted(self._tops_seen.get(seat, set()) - set(pile) - set(cards))
        if not odd:
            return ""
        return (f"seat {seat + 1}'s pile showed {', '.join(odd)} before these cards: a play may be "
                "missing in between")

    def _draw(self, state: DuckState, table: StabilityTracker) -> Inference | None:
        t = state.turn
        taken: list[tuple[str, int]] = []
        look_alike: list[str] = []
        for source, neighbour in (("left", state.left(t)), ("right", state.right(t))):
            pile = state.seats[neighbour].pile
            if not pile:
                continue
            below = pile[-2] if len(pile) > 1 else None
            if below == pile[-1]:
                look_alike.append(source)
            if self._top(table, neighbour) != pile[-1] and self._top(table, neighbour) == below:
                taken.append((source, neighbour))
        following = state.left(t)
        nxt = state.seats[following]
        shows = bool(self._shown(table, following))
        next_top = self._top(table, following)
        pile_changed = next_top != (nxt.pile[-1] if nxt.pile else None) and not self._digit_misread(
            table, following, nxt.pile[-1] if nxt.pile else None)
        if len(taken) == 1:
            source, neighbour = taken[0]
            late = self._started_before(table, following, pile_changed and neighbour != following,
                                        seat_zone(neighbour, DISCARD))
            doubt = ("the next player had already started when this pile top went, so it may "
                     "have been taken later by someone else") if late else ""
            return self._inference(table, Event("draw", t, {"pile": source}),
                                   [seat_zone(neighbour, DISCARD)],
                                   f"the top of the {source} neighbour's pile was taken", doubt)
        if len(taken) > 1:
            zones = [seat_zone(n, DISCARD) for _, n in taken]
            return self._inference(table, Event("draw", t, {"pile": taken[0][0]}), zones, "",
                                   "both neighbours' piles changed at once")
        if not (shows or pile_changed):
            return None
        beside = [n for n in {state.left(t), state.right(t)} if state.seats[n].pile]
        neighbours = [seat_zone(n, DISCARD) for n in beside]
        if not all(table.fresh(z) for z in neighbours):
            return None  # a hand was just over a neighbour's pile: wait to see whether it took
        zones = [seat_zone(following, REVEAL), seat_zone(following, DISCARD)]
        # what says the next player started must itself be read well: a thing in their reveal
        # area that is no card of the game (an arm's edge, read as unknown) starts nothing
        evidence = [z for z, seen in zip(zones, (shows, pile_changed), strict=True) if seen]
        # ... and have been changed by a hand (a zone that did not change says nothing)
        unseen = [z for z in evidence if not table.settled(z).handled]
        standing = [seat_zone(n, DISCARD) for n in beside if self._stood(state, table, n)]
        read = [z for z in neighbours + evidence if z not in standing]
        if look_alike:
            next_played = table.settled(seat_zone(following, DISCARD)).first_seen_ts if pile_changed else None
            return self._look_alike_draw(state, table, look_alike, zones, read, next_played)
        doubt = self._unclear(table, standing)
        if doubt:
            pass  # the piles that show no take must be read plainly
        elif unseen:
            doubt = (f"the next player's cards appeared in {unseen[0]} with no hand seen there, "
                     "so they may be a misread")
        elif pile_changed and not shows and nxt.pile and next_top not in self._staged.get(following, ()):
            doubt = ("the next player's pile changed without cards shown first: the mover may "
                     "have taken its top before the next player laid a card on it")
        elif pile_changed and next_top is not None and next_top not in self._shown(table, following) \
                and next_top not in self._staged.get(following, ()):
            doubt = (f"seat {following + 1}'s pile shows {next_top}, which neither a take from it nor "
                     "a card they showed explains: it may be misread")
        elif state.draw_count == 0:
            doubt = "the draw pile is empty, yet no neighbour's top card was seen taken"
        return self._inference(table, Event("draw", t, {"pile": "deck"}), zones,
                               "the next player started and no pile top was taken", doubt, read)

    def _started_before(self, table: StabilityTracker, following: int, pile_changed: bool,
                        taken: str) -> bool:
        """Whether the next player showed cards (or changed their pile) before the top of
        ``taken`` was first seen gone: then they, drawing after their play, may have taken it.
        Seen gone first, it was the mover's draw (the next player plays before drawing)."""
        gone = table.settled(taken).first_seen_ts
        starts = [table.settled(seat_zone(following, DISCARD)).first_seen_ts] if pile_changed else []
        if self._shown(table, following):
            starts.append(table.settled(seat_zone(following, REVEAL)).first_seen_ts)
        if following in self._staged:
            starts.append(self._staged_seen[following])
        return any(start <= gone for start in starts)

    def _digit_misread(self, table: StabilityTracker, seat: int, expected: str | None, *,
                       since_play: bool = False) -> bool:
        """Whether ``seat``'s pile top reads as another number of the colour the game puts
        there, and the pile has read so since its last play was recorded or (unless
        ``since_play``) no hand made that change: the classifier's usual slip (a yellow 5 read
        as a yellow 8 for a while), not a card that moved. Another colour, or a change a hand
        made since, still holds the events that rest on the table."""
        settled = table.settled(seat_zone(seat, DISCARD))
        top = settled.labels[-1] if settled.labels else None
        return (expected is not None and top is not None and top in DUCK_CARDS
                and card_colour(top) == card_colour(expected)
                and (settled.first_seen_ts <= self._laid_ts.get(seat, -1)
                     or not (since_play or settled.handled)))

    def _read_two_ways(self, table: StabilityTracker, pile: str) -> str:
        """A doubt when the reads of a pile since a hand last left it name another top than
        the settled one often enough (:data:`TOP_RIVAL_SHARE`, and at least two): no hand
        changed the card between those reads, so the camera read one card two ways, and the
        play would record for good whichever way won the vote (the rules may allow either).
        A problem of the reads themselves (no hand seen, low confidence) is told first."""
        reads, rival = table.rival_since_hand(pile)
        if rival < max(2, TOP_RIVAL_SHARE * reads) or not self.sure(table, [pile])[0]:
            return ""
        return (f"{rival} of {reads} reads of the pile in {pile} since a hand left it named another card "
                f"than {', '.join(table.labels(pile))}: which card is it?")

    def _stood(self, state: DuckState, table: StabilityTracker, seat: int) -> bool:
        """Whether ``seat``'s pile shows the top the game puts there, settled before the
        mover's play or with no hand over it since: nothing was taken from it while the mover
        could draw, so whether a hand made its last change (a card a person entered, a digit
        read one way and then back) says nothing about this draw."""
        pile = state.seats[seat].pile
        settled = table.settled(seat_zone(seat, DISCARD))
        return bool(pile) and settled.labels[-1:] == (pile[-1],) and (
            settled.first_seen_ts < self._played_ts
            or not table.covered_since(seat_zone(seat, DISCARD), self._played_ts))

    def _unclear(self, table: StabilityTracker, zones: list[str]) -> str:
        """Why the reads of ``zones`` are too unsure to rest an event on (their hands aside)."""
        for zone in zones:
            settled = table.settled(zone)
            if UNKNOWN in settled.labels:
                return f"a card in {zone} could not be recognised"
            if settled.confidence < self.min_confidence:
                return f"the cards in {zone} were read with low confidence ({settled.confidence:.2f})"
        return ""

    def _look_alike_draw(self, state: DuckState, table: StabilityTracker, look_alike: list[str],
                         zones: list[str], read: list[str], next_played: int | None = None) -> Inference:
        """A neighbour's pile with two equal cards on top looks the same after a take, so the
        hand decides: which of that pile and the draw pile did a hand reach over after the play
        (for a play a person entered, after the mover's pile was first read with its top), and
        before the next player's play reached their pile (``next_played``: a reach after that is
        their own draw)? Such a pile that reads as its top card rests on no change, so
        whether a hand made its last change (a digit read one way and then back) says nothing."""
        t = state.turn
        seats = {source: state.left(t) if source == "left" else state.right(t) for source in look_alike}
        piles = {source: seat_zone(n, DISCARD) for source, n in seats.items()}
        played = self._played_ts if self._played_ts >= 0 else table.settled(seat_zone(t, DISCARD)).first_seen_ts
        reached = [source for source in look_alike if self._reached(table, piles[source], played, next_played)]
        deck_reached = self._reached(table, middle_zone("draw"), played, next_played)
        same = [piles[source] for source, n in seats.items() if self._top(table, n) == state.seats[n].pile[-1]]
        read = [zone for zone in read if zone not in same]
        unclear = self._unclear(table, same)
        if len(reached) == 1 and not deck_reached:
            return self._inference(table, Event("draw", t, {"pile": reached[0]}), zones,
                                   f"a hand reached over the {reached[0]} pile, whose top looks the same after a take",
                                   unclear, read=read)
        doubt = (f"the {' and '.join(look_alike)} pile has two equal cards on top, so a draw from it "
                 "cannot be told from a draw from the deck")
        if not reached and deck_reached and state.draw_count > 0:
            doubt = unclear
        return self._inference(table, Event("draw", t, {"pile": "deck"}), zones,
                               "a hand reached over the draw pile only", doubt, read)

    @staticmethod
    def _reached(table: StabilityTracker, zone: str, since: int, until: int | None) -> bool:
        """Whether a hand rested over ``zone`` (two frames of three in a row, see
        :meth:`~ducktable.rules.stability.StabilityTracker.rested_since`) after ``since`` and
        before ``until``; where those frames are not all kept, whether it covered it at all."""
        rested = table.rested_since(zone, since, until)
        return table.covered_since(zone, since) if rested is None else rested

    def _reveal(self, state: DuckState, table: StabilityTracker) -> Inference | None:
        hands: list[list[str]] = []
        for s, seat in enumerate(state.seats):
            shown = list(self._shown(table, s))
            if len(shown) != seat.hand_count:
                return None
            hands.append(shown)
        zones = [seat_zone(s, REVEAL) for s in range(state.num_players) if hands[s]]
        doubt = ""
        unsure = [z for z in zones if table.settled(z).confidence < self.reveal_confidence]
        if unsure:  # the hands decide the round's score at once: read them surely
            doubt = (f"the hand in {unsure[0]} was read with confidence {table.settled(unsure[0]).confidence:.2f}, "
                     f"below the {self.reveal_confidence:.2f} a scored reveal needs")
        for z in zones:  # ... and the same way since a hand was last over them
            if doubt:
                break
            reads, rival = table.rival_since_hand(z)
            if rival >= max(2, REVEAL_RIVAL_SHARE * reads):
                doubt = (f"{rival} of {reads} reads of the hand in {z} since a hand was over it named "
                         f"another card than {', '.join(table.labels(z))}: which cards are they?")
            elif reads < REVEAL_READS:
                doubt = f"the hand in {z} was read only {reads} times since a hand was last over it"
        return self._inference(table, Event("reveal", None, {"hands": hands}), zones,
                               "every hand is shown", doubt)


def _stack_order(shown: tuple[str, ...], top: str) -> tuple[list[str], str]:
    """The play's cards in laying order with ``top`` last, and a doubt if that is not possible.

    A set keeps the shown order with the top moved last (DUCK-A3); a run is laid ascending or
    descending so that its top is an end (DUCK-A2). A show read as a single unknown card is no
    play of one card: the table reader reads two cards laid edge to edge as one outline it
    cannot name (a yellow 3 and a red 3 shown together were read so in every frame, and the
    play was recorded as the red 3 the pile showed), so the top alone is only a guess.
    """
    cards = list(shown)
    strange = [c for c in cards if c not in DUCK_CARDS]
    if cards == [UNKNOWN]:  # nothing tells how many cards the outline is
        return [top], ("what was shown could not be made out and may have been several cards (cards "
                       f"laid edge to edge are read as one unknown outline): was {top} played alone?")
    if strange == [UNKNOWN]:
        cards = _completed(cards, top) or cards
        strange = [c for c in cards if c not in DUCK_CARDS]
    if strange:
        return cards, f"{', '.join(strange)} is not a DUCK card that could be played"
    if top not in cards:
        return cards, f"the new top card {top} was not among the cards shown ({', '.join(cards)})"
    ordered = sorted(cards, key=card_value)
    form, _ = play_form(ordered)
    if form == "run":
        if top == ordered[-1]:
            return ordered, ""
        if top == ordered[0]:
            return ordered[::-1], ""
        return cards, f"{top} lies in the middle of the run, so it cannot be on top"
    del cards[len(cards) - 1 - cards[::-1].index(top)]  # the last copy shown is the one on top
    return [*cards, top], ""


def _completed(cards: list[str], top: str) -> list[str] | None:
    """``cards`` with its one unrecognised card named, when the rules leave a single card it
    can be: a run's middle card read as unknown is the one its ends leave ([yellow-1, ?,
    yellow-3]); a set's is not (any colour of its number fits), unless it is the top the pile
    shows. Cards read as another card are never changed to make a play legal: a play the rules
    refuse may be the player's mistake, which the table must be told of."""
    at = cards.index(UNKNOWN)
    return _only_play([[*cards[:at], card, *cards[at + 1:]] for card in DUCK_CARDS], top)


def _only_play(plays: list[list[str]], top: str) -> list[str] | None:
    """The one of ``plays`` that the rules allow with ``top`` on top (a set, or a run with
    ``top`` at an end: DUCK-A1..A3), or None when none or several are."""
    fits = []
    for play in plays:
        if top not in play:
            continue
        values = [card_value(c) for c in play]
        form, _ = play_form(sorted(play, key=card_value))
        if form == "set" or (form == "run" and card_value(top) in (min(values), max(values))):
            fits.append(play)
    return fits[0] if len(fits) == 1 else None
