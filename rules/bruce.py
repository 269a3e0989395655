"""Duck Duck Bruce (Peter Neugebauer): push your luck along a face-up row, Bruce steals.

The engine follows the ``BRUCE-*`` rules of the project's catalogue (``RULE_TEXTS`` below).
Seats sit clockwise in index order, so play passing *left* means seat ``s`` -> ``s + 1``.

A round is a sequence of events: ``shuffle`` (chance: the whole deck, its order a hidden field)
-> turns made of ``reveal`` (chance: the top card, public) followed by ``stop`` or ``continue``
after each new colour, or by ``declare`` -> ``roll`` (chance) -> ``steal`` (chance) after a
Bruce. A ``reveal`` while the player is still to choose counts as ``continue``: at a real table
the camera only sees the next card being turned over.

Observer mode (a camera at a real table) never knows the draw order, but every card that goes
into a nest was face up in the row or shown when stolen, so nests and scores stay fully known;
a revealed card is checked against the copies not yet seen this round.

Decisions this engine makes where the rulebook is silent (documented in ``RULE_TEXTS`` too):

* Round 1 is started by the seat named in the ``first`` option (the rulebook: the last person
  to have fed a live duck); default seat 0.
* "The lowest scorer starts the next round" uses the round's own score. On a tie for lowest,
  the tied seat that comes first in turn order after the player who ended the round starts.
* A player whose turn reveals the last card and leaves a new colour in the row must stop: there
  is nothing left to continue with (BRUCE-R1).
* ``minutes:N`` ends the game at the end of the first round that finishes at least N minutes
  after the first timestamped event; elapsed time comes only from ``Event.ts``. Rounds always
  finish, since nests are only scored at a round's end.
* ``points:N`` ends the game at the end of the round in which some total reaches N.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .core import Bot, Event, EventSpec, Field, Game, OptionSpec, RulesError, State, Verdict
from .decks import BRUCE_SUITS, deck

RULE_TEXTS = {
    "BRUCE-C1": "60 duck cards in ten colour suits; every suit holds the values 1, 1, 2, 2, 3 and 4.",
    "BRUCE-C2": "Six Bruce (dog) cards are shuffled in with the ducks: 66 cards in all.",
    "BRUCE-C3": "The die's six faces read -1, 1, 1, 2, 3 and 3.",
    "BRUCE-T1": "A turn flips the top card of the face-down pile onto the end of the face-up row.",
    "BRUCE-T2": (
        "After each flipped duck of a colour not yet in the row the player either stops, putting "
        "the whole row face down in their nest, or flips another card."
    ),
    "BRUCE-T3": (
        "A flipped duck whose colour is already in the row ends the turn: the earlier duck of that "
        "colour, the new one and every card between them are discarded; the cards before the "
        "earlier duck go to the nest."
    ),
    "BRUCE-T4": (
        "A flipped Bruce ends the turn and discards the whole row with him. The player names an "
        "opponent and a number n from 1 to 3 and rolls: n or more wins n blind cards from that "
        "nest (all if fewer), less wins nothing, -1 gives the opponent one blind card from the "
        "roller's nest."
    ),
    "BRUCE-T5": (
        "Play passes left (seat numbers upward). Round 1 is started by the seat chosen in the "
        "'first' option."
    ),
    "BRUCE-R1": (
        "The round ends once the last pile card is flipped and that turn is finished; a new colour "
        "flipped last must be kept, as nothing is left to flip."
    ),
    "BRUCE-R2": (
        "At a round's end each nest scores the highest value of each colour it holds, added up. "
        "The lowest round score starts the next round (on a tie, the first of them in turn order "
        "after the player who ended the round), with the whole deck reshuffled."
    ),
    "BRUCE-G1": (
        "The game ends after N rounds, after N minutes (checked at a round's end, from event "
        "timestamps) or at the end of the round in which a total reaches N points (default 77); "
        "the highest total wins, ties share."
    ),
}

BRUCE = "bruce"
DIE_FACES = (-1, 1, 1, 2, 3, 3)
DECLARE_CHOICES = (1, 2, 3)
DEFAULT_END = "points:77"
END_KINDS = ("rounds", "minutes", "points")
RECENT_EVENTS = 8
MS_PER_MINUTE = 60_000

BRUCE_DECK = deck("bruce")
FULL_DECK: tuple[str, ...] = tuple(BRUCE_DECK.full())
DECK_COUNTS: Counter[str] = Counter(FULL_DECK)
_SUIT_VALUE: dict[str, tuple[str, int]] = {
    c.label: (c.attrs["suit"], c.attrs["value"]) for c in BRUCE_DECK.cards if c.attrs["kind"] == "duck"
}
_SUIT_LABELS: dict[str, tuple[str, ...]] = {
    suit: tuple(label for label, (s, _) in _SUIT_VALUE.items() if s == suit) for suit in BRUCE_SUITS
}


# --------------------------------------------------------------------------------------------
# Cards and scoring
# --------------------------------------------------------------------------------------------


def is_bruce(label: str) -> bool:
    return label == BRUCE


def suit_of(label: str) -> str:
    return _SUIT_VALUE[label][0]


def value_of(label: str) -> int:
    return _SUIT_VALUE[label][1]


def nest_highs(cards: Iterable[str]) -> dict[str, int]:
    """Suit -> highest value held (BRUCE-R2), in the deck's suit order."""
    highs: dict[str, int] = {}
    for label in cards:
        if label in _SUIT_VALUE:
            suit, value = _SUIT_VALUE[label]
            highs[suit] = max(highs.get(suit, 0), value)
    return {suit: highs[suit] for suit in BRUCE_SUITS if suit in highs}


def nest_score(cards: Iterable[str]) -> int:
    """A nest's round score: the sum of its highest value per suit (BRUCE-R2)."""
    return sum(nest_highs(cards).values())


@dataclass(frozen=True)
class GameEnd:
    """The ``end`` option parsed: ``rounds:N``, ``minutes:N`` or ``points:N`` (BRUCE-G1)."""

    kind: str
    amount: int

    @classmethod
    def parse(cls, text: str) -> GameEnd:
        kind, sep, amount = text.partition(":")
        # ASCII digits only: a superscript passes isdigit() but int() refuses it.
        if not sep or kind not in END_KINDS or not (amount.isascii() and amount.isdigit()) \
                or int(amount) < 1:
            raise RulesError(
                f"option 'end' must be 'rounds:N', 'minutes:N' or 'points:N' with N a whole "
                f"number of at least 1, got {text!r} (default {DEFAULT_END!r})"
            )
        return cls(kind, int(amount))

    def __str__(self) -> str:
        return f"{self.kind}:{self.amount}"


# --------------------------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------------------------


class BruceGame(Game):
    name = "bruce"
    title = "Duck Duck Bruce"
    min_players = 2
    max_players = 5
    options_spec = (
        OptionSpec("end", DEFAULT_END, help="'rounds:N', 'minutes:N' or 'points:N'",
                   rule="BRUCE-G1"),
        OptionSpec("first", 0, help="seat that starts round 1 (the last to have fed a live duck)",
                   rule="BRUCE-T5"),
    )
    event_specs = (
        EventSpec("shuffle", (Field("order", "cards", hidden=True,
                                    help="all 66 cards, top of the draw pile first"),),
                  chance=True, help="the whole deck is shuffled to start a round"),
        EventSpec("reveal", (Field("card", "card", help="the card turned over"),), chance=True,
                  help="the top draw card is turned over onto the row"),
        EventSpec("stop", help="keep the row: it goes face down into your nest"),
        EventSpec("continue", help="turn over another card"),
        EventSpec("declare", (Field("opponent", "seat", help="whose nest Bruce raids"),
                              Field("n", "choice", choices=DECLARE_CHOICES,
                                    help="how many cards you try to win")),
                  help="after Bruce: name an opponent and a number from 1 to 3",
                  rules=("BRUCE-T4",)),
        EventSpec("roll", (Field("face", "choice", choices=tuple(sorted(set(DIE_FACES)))),),
                  chance=True, help="the die roll after Bruce", rules=("BRUCE-C3", "BRUCE-T4")),
        EventSpec("steal", (Field("cards", "cards", help="the blind-drawn cards, as shown"),),
                  chance=True, help="the cards Bruce's roll moves from one nest to another"),
    )

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        super().__init__(options)
        self.end = GameEnd.parse(self.options["end"])

    def new_state(self, players: Sequence[str], *, observer: bool = False) -> BruceState:
        return BruceState(self, players, observer)


# --------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------


class BruceState(State):
    """One match. Phases: shuffle, reveal, choose, declare, roll, steal, over.

    An observer ignores a hidden ``order`` even when one is given: it checks reveals only
    against the copies not yet seen, as a camera would.
    """

    game: BruceGame

    def __init__(self, game: BruceGame, players: Sequence[str], observer: bool) -> None:
        super().__init__(game, players, observer)
        first = game.options["first"]
        if not 0 <= first < len(players):
            raise RulesError(
                f"option 'first' names seat {first}, but seats are 0..{len(players) - 1}"
            )
        n = len(players)
        self.phase = "shuffle"
        self.round_no = 0
        self.starter = first
        self.current = first
        self.totals = [0] * n
        self.round_scores: list[list[int]] = []
        self.order: list[str] | None = None  # full information only: the draw pile, top first
        self.drawn = 0
        self.unseen: Counter[str] = Counter(DECK_COUNTS)
        self.row: list[str] = []
        self.discard: list[str] = []
        self.nests: list[list[str]] = [[] for _ in range(n)]
        self.target: int | None = None
        self.declared = 0
        self.rolled: int | None = None
        self.steal_from: int | None = None
        self.steal_to: int | None = None
        self.steal_count = 0
        self.first_ts: int | None = None
        self.last_ts: int | None = None

    # -- the small API ------------------------------------------------------------------
    @property
    def pile_size(self) -> int:
        return len(FULL_DECK) - self.drawn

    def to_move(self) -> int | None:
        return self.current if self.phase in ("choose", "declare") else None

    def is_over(self) -> bool:
        return self.phase == "over"

    def scores(self) -> list[int]:
        return list(self.totals)

    def turn_rules(self) -> tuple[str, ...]:
        return ("BRUCE-T5",)

    def next_rules(self) -> tuple[str, ...]:
        if self.phase == "reveal" and self.history and self.history[-1].type == "reveal" \
                and not is_bruce(str(self.history[-1].data.get("card"))):
            return ("BRUCE-T3",)  # the card just turned was a double duck: the turn is over
        return {"shuffle": ("BRUCE-R2",), "reveal": ("BRUCE-T1",), "choose": ("BRUCE-T2",),
                "over": ("BRUCE-G1",)}.get(self.phase, ("BRUCE-T4",))

    def game_over_rules(self) -> tuple[str, ...]:
        return ("BRUCE-G1",)

    def is_card_label(self, label: str) -> bool:
        return label in DECK_COUNTS

    def possible_cards(self, event_type: str, field: str) -> Mapping[str, int] | None:
        """A turned card is the known top of the pile, else a copy not yet turned this round."""
        if event_type != "reveal":
            return None
        if self.order is not None and self.drawn < len(self.order):
            return {self.order[self.drawn]: 1}
        return +self.unseen

    def left(self, seat: int) -> int:
        return (seat + 1) % self.num_players

    def elapsed_ms(self) -> int | None:
        if self.first_ts is None or self.last_ts is None:
            return None
        return self.last_ts - self.first_ts

    def describe_next(self) -> str:
        who = self.players[self.current]
        if self.phase == "over":
            return "the game is over"
        if self.phase == "shuffle":
            return f"shuffle all 66 cards to start round {self.round_no + 1}"
        if self.phase == "reveal":
            return f"{who} turns over the next card"
        if self.phase == "choose":
            if self.pile_size == 0:
                return f"{who} must stop: the draw pile is empty"
            return f"{who} stops (keeps the row) or continues"
        if self.phase == "declare":
            return f"{who} names an opponent and a number from 1 to 3 for Bruce"
        if self.phase == "roll":
            return f"{who} rolls the die"
        assert self.steal_to is not None and self.steal_from is not None
        return (f"{self.players[self.steal_to]} takes {self.steal_count} blind card(s) from "
                f"{self.players[self.steal_from]}'s nest")

    # -- checks ---------------------------------------------------------------------------
    def _chance_allowed(self, spec: EventSpec) -> bool:
        # Turning over the next card while still to choose is an implicit "continue".
        return spec.type == "reveal" and self.phase == "choose"

    def _wrong_seat(self, event: Event, seat: int, rule: str) -> Verdict | None:
        if event.seat is not None and event.seat != seat:
            return Verdict.illegal(
                f"this '{event.type}' belongs to {self.players[seat]} (seat {seat}), not seat "
                f"{event.seat}", rule)
        return None

    def _check_shuffle(self, event: Event) -> Verdict:
        if self.phase != "shuffle":
            return Verdict.illegal(
                f"the deck is shuffled only at the start of a round; now {self.describe_next()}",
                "BRUCE-R2")
        order = event.data.get("order")
        if self.observer or order is None:
            return Verdict.legal(f"round {self.round_no + 1} begins", "BRUCE-R2")
        diff = (Counter(order) - DECK_COUNTS) + (DECK_COUNTS - Counter(order))
        if diff:
            return Verdict.illegal(
                f"the shuffled deck must hold all 66 cards exactly once each; these differ: "
                f"{dict(sorted(diff.items()))}", "BRUCE-C1", "BRUCE-C2")
        return Verdict.legal(f"round {self.round_no + 1} begins", "BRUCE-R2")

    def _check_reveal(self, event: Event) -> Verdict:
        if self.phase not in ("reveal", "choose"):
            return Verdict.illegal(f"no card may be turned over now; {self.describe_next()}",
                                   "BRUCE-T1")
        wrong = self._wrong_seat(event, self.current, "BRUCE-T5")
        if wrong is not None:
            return wrong
        if self.pile_size == 0:
            return Verdict.illegal("the draw pile is empty: the row must be kept (stop)",
                                   "BRUCE-R1")
        card = event.data["card"]
        if self.order is not None:
            expected = self.order[self.drawn]
            if card != expected:
                return Verdict.illegal(
                    f"the top of the draw pile is {expected!r}, not {card!r}", "BRUCE-T1")
        elif self.unseen[card] <= 0:
            return Verdict.illegal(
                f"every copy of {card!r} has already been turned over this round", "BRUCE-C1",
                "BRUCE-C2")
        return Verdict.legal(self._reveal_outcome(card), *self._reveal_rules(card))

    def _reveal_outcome(self, card: str) -> str:
        if is_bruce(card):
            return "Bruce! the row is lost; name an opponent and a number"
        suits = [suit_of(c) for c in self.row]
        if suit_of(card) in suits:
            kept = suits.index(suit_of(card))
            return f"double duck: {len(self.row) - kept + 1} card(s) discarded, {kept} kept"
        return f"Duck! {card} joins the row"

    def _reveal_rules(self, card: str) -> tuple[str, ...]:
        if is_bruce(card):
            return ("BRUCE-T1", "BRUCE-T4")
        if suit_of(card) in {suit_of(c) for c in self.row}:
            return ("BRUCE-T1", "BRUCE-T3")
        return ("BRUCE-T1", "BRUCE-T2")

    def _check_stop(self, event: Event) -> Verdict:
        if self.phase != "choose":
            return Verdict.illegal(f"there is no row to keep now; {self.describe_next()}",
                                   "BRUCE-T2")
        return Verdict.legal(f"{len(self.row)} card(s) go to the nest", "BRUCE-T2")

    def _check_continue(self, event: Event) -> Verdict:
        if self.phase != "choose":
            return Verdict.illegal(f"nothing to continue now; {self.describe_next()}", "BRUCE-T2")
        if self.pile_size == 0:
            return Verdict.illegal(
                "the draw pile is empty, so the row must be kept: send 'stop'", "BRUCE-R1")
        return Verdict.legal("turn over another card", "BRUCE-T2")

    def _check_declare(self, event: Event) -> Verdict:
        if self.phase != "declare":
            return Verdict.illegal(f"only a Bruce lets you declare; {self.describe_next()}",
                                   "BRUCE-T4")
        opponent = event.data["opponent"]
        if opponent == event.seat:
            return Verdict.illegal("Bruce raids an opponent's nest, not your own: name another seat",
                                   "BRUCE-T4")
        return Verdict.legal(
            f"{self.players[opponent]}'s nest ({len(self.nests[opponent])} cards), "
            f"{event.data['n']} declared", "BRUCE-T4")

    def _check_roll(self, event: Event) -> Verdict:
        if self.phase != "roll":
            return Verdict.illegal(f"the die is rolled only after a Bruce declaration; "
                                   f"{self.describe_next()}", "BRUCE-T4")
        wrong = self._wrong_seat(event, self.current, "BRUCE-T4")
        if wrong is not None:
            return wrong
        return Verdict.legal(f"rolled {event.data['face']}", "BRUCE-T4", "BRUCE-C3")

    def _check_steal(self, event: Event) -> Verdict:
        if self.phase != "steal":
            return Verdict.illegal(f"no cards change nests now; {self.describe_next()}", "BRUCE-T4")
        assert self.steal_from is not None and self.steal_to is not None
        wrong = self._wrong_seat(event, self.steal_to, "BRUCE-T4")
        if wrong is not None:
            return wrong
        cards = event.data["cards"]
        if len(cards) != self.steal_count:
            return Verdict.illegal(
                f"{self.players[self.steal_to]} takes exactly {self.steal_count} card(s) from "
                f"{self.players[self.steal_from]}'s nest, got {len(cards)}", "BRUCE-T4")
        missing = Counter(cards) - Counter(self.nests[self.steal_from])
        if missing:
            return Verdict.illegal(
                f"{self.players[self.steal_from]}'s nest does not hold {sorted(missing.elements())}",
                "BRUCE-T4")
        return Verdict.legal(f"{len(cards)} card(s) change nests", "BRUCE-T4")

    # -- applying -------------------------------------------------------------------------
    def _note_time(self, event: Event) -> None:
        if event.ts is None:
            return
        if self.first_ts is None:
            self.first_ts = event.ts
        self.last_ts = event.ts if self.last_ts is None else max(self.last_ts, event.ts)

    def _apply_shuffle(self, event: Event) -> None:
        self._note_time(event)
        order = event.data.get("order")
        self.order = None if self.observer or order is None else list(order)
        self.round_no += 1
        self.drawn = 0
        self.unseen = Counter(DECK_COUNTS)
        self.row = []
        self.discard = []
        self.nests = [[] for _ in self.players]
        self.current = self.starter
        self.phase = "reveal"

    def _apply_reveal(self, event: Event) -> None:
        self._note_time(event)
        card = event.data["card"]
        self.drawn += 1
        self.unseen[card] -= 1
        if is_bruce(card):
            self.discard.extend(self.row)
            self.discard.append(card)
            self.row = []
            self.phase = "declare"
            return
        suits = [suit_of(c) for c in self.row]
        if suit_of(card) in suits:
            kept = suits.index(suit_of(card))
            self.nests[self.current].extend(self.row[:kept])
            self.discard.extend(self.row[kept:])
            self.discard.append(card)
            self.row = []
            self._end_turn()
            return
        self.row.append(card)
        self.phase = "choose"

    def _apply_stop(self, event: Event) -> None:
        self._note_time(event)
        self.nests[self.current].extend(self.row)
        self.row = []
        self._end_turn()

    def _apply_continue(self, event: Event) -> None:
        self._note_time(event)
        self.phase = "reveal"

    def _apply_declare(self, event: Event) -> None:
        self._note_time(event)
        self.target = event.data["opponent"]
        self.declared = event.data["n"]
        self.phase = "roll"

    def _apply_roll(self, event: Event) -> None:
        self._note_time(event)
        assert self.target is not None
        face = event.data["face"]
        self.rolled = face
        if face == -1:
            source, taker, count = self.current, self.target, 1
        elif face >= self.declared:
            source, taker, count = self.target, self.current, self.declared
        else:
            self._end_turn()
            return
        count = min(count, len(self.nests[source]))
        if count == 0:
            self._end_turn()
            return
        self.steal_from, self.steal_to, self.steal_count = source, taker, count
        self.phase = "steal"

    def _apply_steal(self, event: Event) -> None:
        self._note_time(event)
        assert self.steal_from is not None and self.steal_to is not None
        source = self.nests[self.steal_from]
        for card in event.data["cards"]:
            source.remove(card)
            self.nests[self.steal_to].append(card)
        self._end_turn()

    def _end_turn(self) -> None:
        self.target = None
        self.declared = 0
        self.rolled = None
        self.steal_from = self.steal_to = None
        self.steal_count = 0
        if self.pile_size == 0:
            self._end_round()
            return
        self.current = self.left(self.current)
        self.phase = "reveal"

    def _end_round(self) -> None:
        round_scores = [nest_score(nest) for nest in self.nests]
        self.round_scores.append(round_scores)
        self.totals = [t + s for t, s in zip(self.totals, round_scores, strict=True)]
        if self._game_ends():
            self.phase = "over"
            return
        self.starter = self._next_starter(round_scores)
        self.current = self.starter
        self.phase = "shuffle"

    def _game_ends(self) -> bool:
        end = self.game.end
        if end.kind == "rounds":
            return len(self.round_scores) >= end.amount
        if end.kind == "points":
            return max(self.totals) >= end.amount
        elapsed = self.elapsed_ms()
        return elapsed is not None and elapsed >= end.amount * MS_PER_MINUTE

    def _next_starter(self, round_scores: list[int]) -> int:
        """Lowest round score; on a tie the first of them after the player who ended the round."""
        lowest = min(round_scores)
        seat = self.current
        for _ in range(self.num_players):
            seat = self.left(seat)
            if round_scores[seat] == lowest:
                return seat
        raise AssertionError("unreachable: some seat has the lowest score")

    # -- chance and choices ---------------------------------------------------------------
    def chance_event(self, rng: random.Random) -> Event:
        if self.phase == "shuffle":
            if self.observer:
                return Event("shuffle", source="bot")
            order = list(FULL_DECK)
            rng.shuffle(order)
            return Event("shuffle", None, {"order": order}, source="bot")
        if self.phase in ("reveal", "choose"):
            card = self._next_card(rng)
            return Event("reveal", self.current, {"card": card}, source="bot")
        if self.phase == "roll":
            return Event("roll", self.current, {"face": rng.choice(DIE_FACES)}, source="bot")
        if self.phase == "steal":
            assert self.steal_from is not None
            cards = rng.sample(self.nests[self.steal_from], self.steal_count)
            return Event("steal", self.steal_to, {"cards": cards}, source="bot")
        raise RulesError(f"no chance event is due; {self.describe_next()}")

    def _next_card(self, rng: random.Random) -> str:
        """The top card when the order is known, else a uniformly drawn unseen copy."""
        if self.order is not None:
            return self.order[self.drawn]
        return rng.choice(sorted(self.unseen.elements()))

    def legal_events(self, seat: int | None = None) -> list[Event]:
        mover = self.to_move()
        if seat is None:
            seat = mover
        if seat is None or seat != mover:
            return []
        if self.phase == "choose":
            events = [Event("stop", seat, source="bot")]
            if self.pile_size > 0:
                events.append(Event("continue", seat, source="bot"))
            return events
        return [Event("declare", seat, {"opponent": other, "n": n}, source="bot")
                for other in range(self.num_players) if other != seat for n in DECLARE_CHOICES]

    # -- views ----------------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        """The scoreboard: per seat the total, each round's score and the nest's highs per suit;
        whose turn; the row, the discards and a Bruce raid in progress; the last few events
        (``history``, public form); ``round_points`` lists every round's scores by seat."""
        seats = []
        for i, name in enumerate(self.players):
            nest = self.nests[i]
            seats.append({
                "seat": i,
                "name": name,
                "score": self.totals[i],
                "round_scores": [r[i] for r in self.round_scores],
                "nest": list(nest),
                "nest_size": len(nest),
                "nest_highs": nest_highs(nest),
                "nest_score": nest_score(nest),
            })
        bruce = None
        if self.phase in ("declare", "roll", "steal"):
            bruce = {"target": self.target, "declared": self.declared or None,
                     "rolled": self.rolled if self.phase == "steal" else None}
        recent = self.history[-RECENT_EVENTS:]
        return {
            "game": "bruce",
            "end": str(self.game.end),
            "round": self.round_no,
            "phase": self.phase,
            "turn": None if self.is_over() else self.current,
            "to_move": self.to_move(),
            "next": self.describe_next(),
            "draw_pile": self.pile_size,
            "elapsed_ms": self.elapsed_ms(),
            # Table-wide lists sit under "board" so a generic scoreboard never mistakes one
            # whose length happens to equal the number of players for a per-seat column.
            "board": {"row": list(self.row), "discard": list(self.discard), "bruce": bruce},
            "seats": seats,
            "scores": self.scores(),
            "winners": self.winners(),
            "round_points": [list(r) for r in self.round_scores],
            "history": [self.game.public_event(e).to_json() for e in recent],
        }

# --------------------------------------------------------------------------------------------
# Bots
# --------------------------------------------------------------------------------------------


class GreedyBot(Bot):
    """Keeps flipping while the risk of a double duck or Bruce stays small; raids with n = 2.

    The risk is counted from public information only (cards not yet turned over this round),
    so the bot plays the same in observer mode. n = 2 wins the most cards on average with this
    die (5/6 x 1, 3/6 x 2, 2/6 x 3), and it raids the opponent whose nest scores highest.
    """

    def __init__(self, rng: random.Random, max_risk: float = 0.25) -> None:
        self.rng = rng
        self.max_risk = max_risk

    def choose(self, state: State, seat: int) -> Event:
        options = self.options(state, seat)
        assert isinstance(state, BruceState)
        if state.phase == "choose":
            go_on = [e for e in options if e.type == "continue"]
            if go_on and self.risk(state) <= self.max_risk:
                return go_on[0]
            return next(e for e in options if e.type == "stop")
        best = max(nest_score(state.nests[e.data["opponent"]]) for e in options)
        raids = [e for e in options if e.data["n"] == 2
                 and nest_score(state.nests[e.data["opponent"]]) == best]
        return self.rng.choice(raids)

    @staticmethod
    def risk(state: BruceState) -> float:
        """Chance that the next card ends the turn badly (a Bruce or a repeated colour)."""
        if state.pile_size == 0:
            return 1.0
        unseen = state.unseen
        bad = unseen[BRUCE] + sum(unseen[label] for suit in {suit_of(c) for c in state.row}
                                  for label in _SUIT_LABELS[suit])
        return bad / state.pile_size
