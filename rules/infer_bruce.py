"""Duck Duck Bruce events from the settled table: shuffles, flips, stops and shown steals.

Why this module exists: the camera sees the face-up row grow card by card, the row leave the
table, the discard pile and the cards a Bruce raid moves, and nothing else. Each Bruce event is
recognised from what it leaves on the table, following this table convention (told to the
players):

- ``middle.draw``: the face-down draw pile (read as ``back`` while it holds cards).
- ``middle.row``: the face-up row, flipped cards laid left to right in flipping order.
- ``middle.discard``: the discard pile; a double duck or a Bruce ends with the flipped card on top.
- ``middle.steal``: cards a Bruce roll moves from one nest to another are shown here, face up,
  before they go into the taker's nest.
- ``seat<N>.nest``: each seat's face-down nest (not needed to infer events).
- Whatever leaves the row (to a nest or the discard pile) is cleared before the next card is
  flipped; at a round's end every card is gathered before the new draw pile is laid down.

From that (BRUCE-T1..T5, R1, R2):

- shuffle: the table is clear and a draw pile appears where none was;
- reveal: the row shows one card more than before, the earlier ones unchanged; while the mover
  is still to choose this is first a ``continue`` (the camera sees only the next card). When a
  hand reached over the draw pile more often since the row last lay still than the row gained
  cards, a card was turned over and taken away unseen (a card the camera did not make out, kept
  by a stop): the new card may be the next player's, so a person confirms;
- stop: the row leaves the table while the discard pile stays as it was (a double duck or a
  Bruce would have put the flipped card on the discard pile) and no hand reached over the draw
  pile since the row was last read (a card flipped and swept away too fast to read; "reached"
  means covered in at least ``DRAW_REACH_FRAMES`` frames, not an arm passing over once);
- steal: as many cards as the roll moves are shown in the steal area.

What the camera cannot see comes by hand (:meth:`~ducktable.rules.infer_base.TableFollower.manual`):
the opponent and number named after a Bruce (``declare``) and the die roll (``roll``).

Pure: stdlib only.
"""

from __future__ import annotations

from .bruce import BruceState, is_bruce, suit_of
from .core import Event, State
from .decks import UNKNOWN
from .infer_base import Inference, Inferrer
from .snapshot import middle_zone, seat_zone
from .stability import HAND_SPELL_MS, StabilityTracker

DRAW = middle_zone("draw")
ROW = middle_zone("row")
DISCARD = middle_zone("discard")
STEAL = middle_zone("steal")
NEST = "nest"

DRAW_REACH_FRAMES = 2
"""Frames a hand must stay over the draw pile to count as turning a card over (an arm merely
passing over it is shorter)."""
MIDDLE_ZONES = (DRAW, ROW, DISCARD, STEAL)


def nest_zone(seat: int) -> str:
    return seat_zone(seat, NEST)


class BruceInferrer(Inferrer):
    """Proposes the next Bruce event; remembers what the row and the steal area should show.

    ``_row`` is the row the camera has accounted for, or None until the table shows the row the
    engine holds: after a row left play (kept, doubled or Bruced: until it is seen cleared
    away) and after a person entered a flip the camera may not have seen (until the table and
    the scoreboard agree again). ``_steal`` likewise, for shown cards.
    """

    def __init__(self, min_confidence: float = 0.5) -> None:
        super().__init__(min_confidence)
        self._row: tuple[str, ...] | None = ()
        self._steal: tuple[str, ...] | None = ()
        self._discard_mark: tuple[str, ...] = ()  # the discard pile while the row was in play
        self._row_settled_ts = 0  # when the row last settled to what the camera accounts for
        self._row_settled_len = 0  # how many cards it held then
        self._draw_reached: list[int] = []  # recent frames with a hand over the draw pile
        self._draw_gone = True  # the draw pile was seen empty since the last shuffle
        self._told_ts = -1  # when a person last entered an event: older table moments are history

    # -- the protocol ------------------------------------------------------------------------
    def applied(self, state: State, event: Event) -> None:
        assert isinstance(state, BruceState)
        if event.source != "camera" and event.ts is not None:
            self._told_ts = max(self._told_ts, event.ts)
        if event.type == "shuffle":
            self._draw_gone = False
        elif event.type == "reveal":
            card = event.data["card"]
            # a new colour stays in the row; a double duck or a Bruce empties it (state.row)
            kept = bool(state.row) and state.row[-1] == card
            self._row = tuple(state.row) if kept and event.source == "camera" else None
        elif event.type == "stop":
            self._row = None
        elif event.type == "steal":
            self._steal = None

    def propose(self, state: State, table: StabilityTracker) -> Inference | None:
        assert isinstance(state, BruceState)
        if table.last_ts < self._told_ts:
            return None  # the table as it was before a person told what happened since
        self._notice_clearing(state, table)
        if table.covered_since(DRAW, table.last_ts - 1) and self._draw_reached[-1:] != [table.last_ts]:
            self._draw_reached = [*self._draw_reached[-(DRAW_REACH_FRAMES * 4):], table.last_ts]
        if state.phase == "shuffle":
            return self._shuffle(state, table)
        if state.phase in ("reveal", "choose"):
            return self._flip_or_stop(state, table)
        if state.phase == "steal":
            return self._shown_steal(state, table)
        return None  # declare and roll are told by hand

    def _notice_clearing(self, state: BruceState, table: StabilityTracker) -> None:
        if not table.labels(DRAW):
            self._draw_gone = True
        if self._row is None and table.labels(ROW) == tuple(state.row):
            self._row = tuple(state.row)
        if self._steal is None and not table.labels(STEAL):
            self._steal = ()

    def _inference(self, table: StabilityTracker, event: Event, zones: list[str], ts: int, why: str,
                   doubt: str = "") -> Inference:
        sure, problem = self.sure(table, zones)
        stamped = Event(event.type, event.seat, event.data, ts, "camera")
        if doubt or not sure:
            return Inference(stamped, False, doubt or problem)
        return Inference(stamped, True, why)

    # -- one method per event ------------------------------------------------------------------
    def _shuffle(self, state: BruceState, table: StabilityTracker) -> Inference | None:
        if not (self._draw_gone and table.labels(DRAW)):
            return None
        if any(table.labels(z) for z in (ROW, DISCARD, STEAL)):
            return None  # last round's cards are still being gathered
        return self._inference(table, Event("shuffle"), [], table.settled(DRAW).first_seen_ts,
                               f"a new draw pile lies ready for round {state.round_no + 1}")

    def _flip_or_stop(self, state: BruceState, table: StabilityTracker) -> Inference | None:
        if self._row is None:
            return None  # the last row has not been cleared away yet
        seen = table.labels(ROW)
        seat = state.current
        if seen == self._row:
            self._discard_mark = table.labels(DISCARD)
            self._row_settled_ts = table.settled(ROW).settled_ts
            self._row_settled_len = len(seen)
            return None
        ts = table.settled(ROW).first_seen_ts
        if len(seen) == len(self._row) + 1 or self._grown_by_several(seen):
            card = seen[len(self._row)]
            doubt = ""
            if seen[:len(self._row)] != self._row:
                doubt = (f"the row reads {', '.join(seen[:len(self._row)])} before the new card, but "
                         f"{', '.join(self._row) or 'nothing'} lay there")
            else:
                doubt = self._unseen_flip(table, len(seen) - self._row_settled_len)
            if state.phase == "choose":
                return self._inference(table, Event("continue", seat), [ROW], ts,
                                       "another card was turned over", doubt)
            return self._inference(table, Event("reveal", seat, {"card": card}), [ROW], ts,
                                   f"{card} was turned over onto the row", doubt)
        if not seen and state.phase == "choose":
            doubt = ""
            if table.labels(DISCARD) != self._discard_mark:
                doubt = ("the row left the table and the discard pile changed: a card may have "
                         "been turned over unseen (a double duck or a Bruce)")
            elif sum(ts > self._row_settled_ts for ts in self._draw_reached) >= DRAW_REACH_FRAMES:
                doubt = ("the row left the table after a hand reached over the draw pile: a card "
                         "may have been turned over unseen")
            return self._inference(table, Event("stop", seat), [ROW, DISCARD], ts,
                                   "the row went into the nest", doubt)
        return None

    def _unseen_flip(self, table: StabilityTracker, gained: int) -> str:
        """Why a card may have been turned over unseen before the row gained ``gained`` cards,
        or "": a hand reached over the draw pile more often than that since the row last lay
        still and the pile was last laid down (laying it is a reach too). Each reach is a
        spell of at least ``DRAW_REACH_FRAMES`` covered frames, spells more than
        ``HAND_SPELL_MS`` apart. A card the camera never made out, then kept by a stop, leaves
        the row as it was; without this the next player's first card would be taken for the
        mover's."""
        since = max(self._row_settled_ts, table.settled(DRAW).settled_ts)
        covers = table.covers_since(DRAW, since)
        if covers is None:
            reaches = gained + 1  # more covered frames than the tracker keeps: many reaches
        else:
            spells: list[int] = []
            for k, ts in enumerate(covers):
                if k and ts - covers[k - 1] <= HAND_SPELL_MS:
                    spells[-1] += 1
                else:
                    spells.append(1)
            reaches = sum(frames >= DRAW_REACH_FRAMES for frames in spells)
        if reaches <= gained:
            return ""
        return (f"a hand reached over the draw pile {reaches} times since the row last lay still, "
                f"but the row shows {gained} new card{'s' if gained != 1 else ''}: a card may have "
                "been turned over and kept unseen")

    def _grown_by_several(self, seen: tuple[str, ...]) -> bool:
        """Whether the row shows the accounted row and then two or more new cards, those
        before the last each of a colour not yet in the row: flipped in that order, with the
        turn going on after each (a double duck or a Bruce would have ended it and taken the
        row away, BRUCE-T2..T4). The camera missed the moments between (a card not made out
        until the next one was turned over) and catches up one flip at a time."""
        assert self._row is not None
        row = len(self._row)
        if len(seen) < row + 2 or seen[:row] != self._row:
            return False
        if UNKNOWN in seen or any(is_bruce(card) for card in seen[:-1]):
            return False
        suits = [suit_of(card) for card in seen[:-1]]
        return len(set(suits)) == len(suits)

    def _shown_steal(self, state: BruceState, table: StabilityTracker) -> Inference | None:
        if self._steal is None:
            return None
        shown = table.labels(STEAL)
        if not shown or shown == self._steal or len(shown) < state.steal_count:
            return None  # nothing shown yet, or still being laid out
        doubt = ""
        if len(shown) > state.steal_count:
            doubt = (f"{len(shown)} cards are shown, but the roll moves {state.steal_count}")
        return self._inference(table, Event("steal", state.steal_to, {"cards": list(shown)}), [STEAL],
                               table.settled(STEAL).first_seen_ts, "the moved cards are shown", doubt)
