"""Ducky Ducky (Olivier Grégoire & Geoffroy Simon): fish the ducks your cards ask for.

One game, one file, as OpenSpiel's games: the rule texts, the game, its state and the bots read
top to bottom as one rulebook (the board's geometry is data, in :mod:`.ducky_board`).

The engine follows the ``DUCKY-*`` rules of the project's catalogue (``RULE_TEXTS`` below) on a
board described as data (:mod:`.ducky_board`, the ``layout`` option). Seats sit clockwise in
index order, so the next player is ``s + 1``.

Events: ``setup`` (chance: pad order, pawn logs, the two visible cards of each player and, as a
hidden field, the cards beneath them) -> turns of ``move`` (the river then flows by itself),
``take`` (the falling duck, by the first player in turn order who can use it), ``fish`` or
``pass`` (each player whose pawn faces a duck they can use, in any order), ``uncover`` (chance:
the card that shows after a gift) and ``return`` (where the completed card's ducks go).

Everything on the table is public except the cards under each pile's top card, so the engine
can referee every claim; :meth:`DuckyState.could_fish` answers "could I fish that duck?".

Decisions this engine makes where the rulebook is silent:

* Round 1's first player is the ``first`` option (the rulebook: the youngest); default seat 0.
* The falling duck must be taken by the first player in turn order (active player first) who
  can use it; fishing is optional (``pass``) and each player fishes at most once a turn.
* A player whose visible cards both have an open slot of that colour chooses the card (pile).
* Returned ducks may go on any empty pad of their colour, the spare pad included.
* A turn ends by itself once no pending choice is left and nobody who could still fish has yet
  fished or passed; the 6-gift win is checked then.
* A stuck game ends too: when, at the end of a turn, no colour that any open slot asks for has
  a duck on a pad (every such duck sits on some card waiting for another colour), nothing can
  ever change again, so the game ends and the most gifts win (shared on a tie). The rulebook
  does not foresee this; with 4 ducks per colour it needs four players whose eight top cards
  are exactly the eight cards of two colours, but boards with fewer pads per colour reach it
  easily.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .core import Bot, Event, EventSpec, Field, Game, OptionSpec, RulesError, State, Verdict
from .decks import DUCKY_COLOURS, deck
from .ducky_board import BoardLayout, dumps_layout, resolve_layout

RULE_TEXTS = {
    "DUCKY-C1": (
        "The river is a row of cells from the entrance to the waterfall; fisher pawns stand on "
        "logs beside it, each log facing one cell; some logs carry a white star, the start logs a "
        "blue star (the exact board is a layout option: 20 cells, 10 logs by default)."
    ),
    "DUCKY-C2": (
        "21 lily pads, 5 white and 4 of each duck colour (yellow, green, blue, pink), and one duck "
        "for each coloured pad."
    ),
    "DUCKY-C3": "24 two-sided cards: the front asks for two ducks of given colours, the back is a gift.",
    "DUCKY-S1": (
        "Set-up: white pads opposite the white-star logs, the coloured pads shuffled into the other "
        "cells with their duck on each, the last white pad beside the river as the spare; pawns on "
        "different blue-star logs; six cards each in two piles of three, only the top of each "
        "pile in play; the 'first' seat (the youngest) starts and play goes clockwise."
    ),
    "DUCKY-T1": "The active player must move their pawn to another log that no pawn stands on.",
    "DUCKY-T2": (
        "Then the spare pad is pushed in at the entrance, every pad moves one cell on, and the pad "
        "at the waterfall drops out to become the next spare."
    ),
    "DUCKY-T3": (
        "A duck riding the dropped pad goes to the first player, from the active one round the "
        "table, who has an open slot of its colour on a top card; if nobody can use it, it stays "
        "on that pad and re-enters the river with it."
    ),
    "DUCKY-T4": (
        "After the flow every player whose pawn faces a duck that fits an open slot of one of their "
        "top cards may fish it onto that card, once a turn."
    ),
    "DUCKY-T5": (
        "A card with both slots filled turns into a gift; the next card of that pile comes into "
        "play and the owner puts its two ducks back on empty pads of their colours."
    ),
    "DUCKY-W1": "Whoever holds 6 gifts at the end of a turn wins; everyone tied at 6 wins together.",
}

WHITE = "white"
SPARE = "spare"
PILES = 2
CARDS_PER_PILE = 3
GIFTS_TO_WIN = PILES * CARDS_PER_PILE
RECENT_EVENTS = 8

DUCKY_DECK = deck("ducky")
CARD_COUNTS: Counter[str] = Counter(DUCKY_DECK.full(["card"]))
CARD_SLOTS: dict[str, tuple[str, str]] = {
    c.label: (c.attrs["slots"][0], c.attrs["slots"][1])
    for c in DUCKY_DECK.cards if c.attrs.get("kind") == "card"
}


@dataclass
class InPlayCard:
    """A pile's top card: which duck colours it asks for and which slots are already filled."""

    label: str
    filled: list[bool] = field(default_factory=lambda: [False, False])

    @property
    def slots(self) -> tuple[str, str]:
        return CARD_SLOTS[self.label]

    def open_slot(self, colour: str) -> int | None:
        for index, (wanted, done) in enumerate(zip(self.slots, self.filled, strict=True)):
            if wanted == colour and not done:
                return index
        return None

    def complete(self) -> bool:
        return all(self.filled)

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "slots": list(self.slots), "filled": list(self.filled)}


@dataclass(frozen=True)
class Pending:
    """A step a completed card still owes: show the next card, or put its ducks back."""

    kind: str  # "uncover" or "return"
    seat: int
    pile: int
    ducks: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------------------------


class DuckyGame(Game):
    name = "ducky"
    title = "Ducky Ducky"
    min_players = 2
    max_players = 4
    options_spec = (
        OptionSpec("layout", "default",
                   help="'default' or a board layout as JSON (cells, logs, pads_per_colour)",
                   rule="DUCKY-C1"),
        OptionSpec("first", 0, help="seat that plays first (the youngest player)",
                   rule="DUCKY-S1"),
    )
    event_specs = (
        EventSpec("setup", (
            Field("river", "any", help="pad colour of every cell, entrance first", shape="river"),
            Field("pawns", "any", help="the start log of each seat's pawn", shape="pawns"),
            Field("visible", "any", help="each seat's two top cards, pile 0 then pile 1",
                  shape="seat_tops"),
            Field("covered", "any", hidden=True,
                  help="each seat's two piles beneath the top card, next to show first",
                  shape="seat_piles"),
        ), chance=True, help="the board and cards at the start"),
        EventSpec("move", (Field("log", "int", help="the free log the pawn moves to"),),
                  help="move your pawn; the river then flows by one cell"),
        EventSpec("take", (Field("pile", "choice", choices=(0, 1)),),
                  help="put the duck that fell down the waterfall on one of your cards",
                  rules=("DUCKY-S1", "DUCKY-T3")),
        EventSpec("fish", (Field("pile", "choice", choices=(0, 1)),), turn_bound=False,
                  help="fish the duck facing your pawn onto one of your cards",
                  rules=("DUCKY-S1", "DUCKY-T4")),
        EventSpec("pass", turn_bound=False, help="do not fish the duck facing your pawn"),
        EventSpec("uncover", (Field("card", "card", help="the card now on top of the pile"),),
                  chance=True, help="the next card of a pile comes into play"),
        EventSpec("return", (Field("pads", "any",
                                   help="for each duck of the completed card: a cell or 'spare'",
                                   shape="pads"),),
                  help="put the completed card's ducks back on empty pads of their colour"),
    )

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.layout: BoardLayout = resolve_layout(self.options["layout"])

    @classmethod
    def resolve_options(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        """As the base, but a layout given as a dict is kept as its canonical JSON text."""
        given = dict(given)
        if isinstance(given.get("layout"), Mapping):
            given["layout"] = dumps_layout(resolve_layout(given["layout"]))
        return super().resolve_options(given)

    def new_state(self, players: Sequence[str], *, observer: bool = False) -> DuckyState:
        return DuckyState(self, players, observer)


# --------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------


class DuckyState(State):
    """One match. Phases: setup, move, offer (a fallen duck), fish, over.

    Pads are two parallel lists (colour, has-a-duck) indexed by cell; a duck always sits on a
    pad of its own colour, so its colour is the pad's. An observer ignores a hidden ``covered``
    field even when one is given.
    """

    game: DuckyGame

    def __init__(self, game: DuckyGame, players: Sequence[str], observer: bool) -> None:
        super().__init__(game, players, observer)
        self.layout = game.layout
        n = len(players)
        if n > self.layout.max_players():
            raise RulesError(
                f"board layout {self.layout.name!r} seats at most {self.layout.max_players()} "
                f"players (one blue-star log each and a free log to move to), got {n}")
        first = game.options["first"]
        if not 0 <= first < n:
            raise RulesError(f"option 'first' names seat {first}, but seats are 0..{n - 1}")
        self.phase = "setup"
        self.active = first
        self.pad_colour: list[str] = [WHITE] * self.layout.cells
        self.duck: list[bool] = [False] * self.layout.cells
        self.spare_colour = WHITE
        self.spare_duck = False
        self.pawns: list[int] = [-1] * n
        self.visible: list[list[InPlayCard | None]] = [[None] * PILES for _ in range(n)]
        self.covered: list[list[list[str]]] | None = None  # full information only
        self.covered_count: list[list[int]] = [[0] * PILES for _ in range(n)]
        self.gifts: list[list[str]] = [[] for _ in range(n)]
        self.falling: str | None = None
        self.taker: int | None = None
        self.pending: list[Pending] = []
        self.decided: set[int] = set()
        self.turns = 0
        self.stuck = False

    # -- the small API ------------------------------------------------------------------
    def seats_from(self, seat: int) -> list[int]:
        """Every seat in turn order, starting with ``seat``."""
        return [(seat + k) % self.num_players for k in range(self.num_players)]

    def to_move(self) -> int | None:
        if self.phase in ("setup", "over"):
            return None
        if self.pending:
            head = self.pending[0]
            return None if head.kind == "uncover" else head.seat
        if self.phase == "move":
            return self.active
        if self.phase == "offer":
            return self.taker
        return next((s for s in self.seats_from(self.active) if self._fish_piles(s)), self.active)

    def is_over(self) -> bool:
        return self.phase == "over"

    def scores(self) -> list[int]:
        return [len(g) for g in self.gifts]

    def turn_rules(self) -> tuple[str, ...]:
        if self.phase == "offer" and self.falling is not None:
            return ("DUCKY-T3",)  # who takes the fallen duck, not whose turn it is
        return ("DUCKY-T1", "DUCKY-S1")

    def out_of_turn(self, spec: EventSpec, event: Event, mover: int) -> Verdict:
        """A fallen duck goes to a seat by DUCKY-T3, not by turn: say whose it is and why."""
        if self.phase != "offer" or self.falling is None or self.pending or event.seat is None:
            return super().out_of_turn(spec, event, mover)
        colour, seat = self.falling, event.seat
        taker, active = self.players[mover], self.players[self.active]
        order = self.seats_from(self.active)
        if order.index(seat) < order.index(mover):
            why = (f"{self.players[seat]} has no open {colour} slot on a top card, and {taker} "
                   f"is the first from {active} round the table who has one")
        else:
            why = (f"{taker} comes before {self.players[seat]} from {active} round the table "
                   f"and has an open {colour} slot on a top card")
        return Verdict.illegal(
            f"the fallen {colour} duck is {taker}'s, not {self.players[seat]}'s: {why}",
            "DUCKY-T3")

    def next_rules(self) -> tuple[str, ...]:
        if self.phase == "setup":
            return ("DUCKY-S1",)
        if self.pending:
            return ("DUCKY-T5",)
        return {"move": ("DUCKY-T1",), "offer": ("DUCKY-T3",), "over": ("DUCKY-W1",)
                }.get(self.phase, ("DUCKY-T4",))

    def game_over_rules(self) -> tuple[str, ...]:
        return ("DUCKY-W1",)

    def is_card_label(self, label: str) -> bool:
        return label in CARD_COUNTS

    def faced_cell(self, seat: int) -> int | None:
        log = self.pawns[seat]
        return None if log < 0 else self.layout.logs[log].faces

    def describe_next(self) -> str:
        if self.phase == "over":
            if self.stuck:
                return ("the game is over: it was stuck, as every duck still needed sits on a "
                        "card; the most gifts win")
            return "the game is over"
        if self.phase == "setup":
            return "set up the board and deal the cards"
        if self.pending:
            head = self.pending[0]
            who = self.players[head.seat]
            if head.kind == "uncover":
                return f"the next card of {who}'s pile {head.pile} comes into play"
            return f"{who} puts the {' and '.join(head.ducks)} ducks back on empty pads"
        if self.phase == "move":
            return f"{self.players[self.active]} moves their pawn to a free log"
        if self.phase == "offer":
            assert self.taker is not None
            return f"{self.players[self.taker]} puts the fallen {self.falling} duck on a card"
        fishers = [self.players[s] for s in self.seats_from(self.active) if self._fish_piles(s)]
        return f"{', '.join(fishers)} may fish or pass"

    # -- the referee's query --------------------------------------------------------------
    def could_fish(self, seat: int, pile: int | None = None, cell: int | None = None) -> Verdict:
        """Could ``seat`` fish now (onto ``pile``; the duck at ``cell``)? A verdict with rule IDs.

        Changes nothing; the same verdict decides a ``fish`` event.
        """
        if not 0 <= seat < self.num_players:
            return Verdict.illegal(f"seat {seat} does not exist; seats are "
                                   f"0..{self.num_players - 1}")
        name = self.players[seat]
        if self.is_over():
            return Verdict.illegal("the game is over", "DUCKY-W1")
        if self.phase != "fish":
            return Verdict.illegal(
                f"fishing comes after the move and the river's flow; now {self.describe_next()}",
                "DUCKY-T4", "DUCKY-T2")
        if self.pending:
            return Verdict.illegal(f"first {self.describe_next()}", "DUCKY-T5")
        if seat in self.decided:
            return Verdict.illegal(f"{name} has already fished or passed this turn", "DUCKY-T4")
        faced = self.faced_cell(seat)
        assert faced is not None
        if cell is not None and cell != faced:
            return Verdict.illegal(
                f"{name}'s pawn faces cell {faced}, not cell {cell}: only the duck facing your "
                "pawn can be fished", "DUCKY-T4", "DUCKY-C1")
        if not self.duck[faced]:
            return Verdict.illegal(f"the pad facing {name}'s pawn (cell {faced}) has no duck",
                                   "DUCKY-T4")
        colour = self.pad_colour[faced]
        return self._placement(seat, colour, pile, f"fish the {colour} duck at cell {faced}",
                               "DUCKY-T4")

    def _placement(self, seat: int, colour: str, pile: int | None, what: str,
                   rule: str) -> Verdict:
        name = self.players[seat]
        fits = self._open_piles(seat, colour)
        if not fits:
            return Verdict.illegal(
                f"none of {name}'s top cards has an open {colour} slot, so {name} cannot {what}",
                rule)
        if pile is not None and pile not in fits:
            card = self.visible[seat][pile]
            on_pile = f"the top card of pile {pile} ({card.label})" if card else f"pile {pile}"
            return Verdict.illegal(
                f"{on_pile} has no open {colour} slot; {name} can {what} onto pile "
                f"{' or '.join(map(str, fits))}", rule)
        target = fits[0] if pile is None else pile
        card = self.visible[seat][target]
        assert card is not None
        gift = " and completes it" if card.filled.count(False) == 1 else ""
        return Verdict.legal(f"{name} may {what} onto {card.label}{gift}", rule)

    def _open_piles(self, seat: int, colour: str) -> list[int]:
        return [p for p, card in enumerate(self.visible[seat])
                if card is not None and card.open_slot(colour) is not None]

    def _fish_piles(self, seat: int) -> list[int]:
        """Piles ``seat`` could fish onto right now (empty when it cannot fish)."""
        if self.phase != "fish" or self.pending or seat in self.decided:
            return []
        faced = self.faced_cell(seat)
        if faced is None or not self.duck[faced]:
            return []
        return self._open_piles(seat, self.pad_colour[faced])

    # -- checks ---------------------------------------------------------------------------
    def _check_setup(self, event: Event) -> Verdict:
        if self.phase != "setup":
            return Verdict.illegal("the game is already set up", "DUCKY-S1")
        problem = (self._river_problem(event.data["river"])
                   or self._pawns_problem(event.data["pawns"])
                   or self._cards_problem(event.data["visible"], event.data.get("covered")))
        if problem:
            return Verdict.illegal(problem, "DUCKY-S1")
        return Verdict.legal("the board is set up", "DUCKY-S1", "DUCKY-C1", "DUCKY-C2",
                             "DUCKY-C3")

    def _river_problem(self, river: Any) -> str | None:
        cells = self.layout.cells
        if not isinstance(river, list) or len(river) != cells:
            return f"'river' must list the pad colour of all {cells} cells, entrance first"
        white = set(self.layout.white_cells)
        for cell, colour in enumerate(river):
            if colour not in (WHITE, *DUCKY_COLOURS):
                return (f"cell {cell}: {colour!r} is not a pad colour; use one of "
                        f"{[WHITE, *DUCKY_COLOURS]}")
            if (colour == WHITE) != (cell in white):
                return (f"white pads go exactly on the cells facing white-star logs "
                        f"{sorted(white)}; cell {cell} has {colour!r}")
        counts = Counter(river)
        for colour in DUCKY_COLOURS:
            if counts[colour] != self.layout.pads_per_colour:
                return (f"the river needs {self.layout.pads_per_colour} {colour} pads, "
                        f"got {counts[colour]}")
        return None

    def _pawns_problem(self, pawns: Any) -> str | None:
        starts = self.layout.start_logs
        if (not isinstance(pawns, list) or len(pawns) != self.num_players
                or not all(isinstance(p, int) and not isinstance(p, bool) for p in pawns)):
            return f"'pawns' must give one start log number per seat ({self.num_players})"
        if any(p not in starts for p in pawns):
            return f"pawns start on blue-star logs {list(starts)}, got {pawns}"
        if len(set(pawns)) != len(pawns):
            return f"each pawn needs its own log, got {pawns}"
        return None

    def _cards_problem(self, visible: Any, covered: Any) -> str | None:
        n = self.num_players
        if (not isinstance(visible, list) or len(visible) != n
                or not all(isinstance(v, list) and len(v) == PILES for v in visible)):
            return f"'visible' must give two top cards for each of the {n} seats"
        dealt = [c for v in visible for c in v]
        if not self.observer:
            below = CARDS_PER_PILE - 1
            if (not isinstance(covered, list) or len(covered) != n
                    or not all(isinstance(piles, list) and len(piles) == PILES
                               and all(isinstance(p, list) and len(p) == below for p in piles)
                               for piles in covered)):
                return (f"'covered' must give, for each of the {n} seats, two piles of {below} "
                        "cards beneath the top card")
            dealt += [c for piles in covered for p in piles for c in p]
        unknown = [c for c in dealt if c not in CARD_COUNTS]
        if unknown:
            return f"{unknown[0]!r} is not a Ducky Ducky card; cards look like 'card-yellow-blue'"
        extra = Counter(dealt) - CARD_COUNTS
        if extra:
            return f"the deck does not hold that many of {sorted(extra)}"
        return None

    def _check_move(self, event: Event) -> Verdict:
        if self.phase != "move" or self.pending:
            return Verdict.illegal(f"no pawn moves now; {self.describe_next()}", "DUCKY-T1")
        log = event.data["log"]
        logs = len(self.layout.logs)
        if not 0 <= log < logs:
            return Verdict.illegal(f"log {log} does not exist; logs are 0..{logs - 1}",
                                   "DUCKY-C1")
        if log == self.pawns[_actor(event)]:
            return Verdict.illegal("the pawn must move: choose a different free log", "DUCKY-T1")
        if log in self.pawns:
            owner = self.players[self.pawns.index(log)]
            return Verdict.illegal(f"log {log} is taken by {owner}'s pawn; one pawn per log",
                                   "DUCKY-T1")
        falls = self.pad_colour[-1] if self.duck[-1] else None
        outcome = f"; a {falls} duck goes over the waterfall" if falls else ""
        rules = ("DUCKY-T1", "DUCKY-T2") + (("DUCKY-T3",) if falls else ())
        return Verdict.legal(f"pawn to log {log}, the river flows{outcome}", *rules)

    def _check_take(self, event: Event) -> Verdict:
        if self.phase != "offer" or self.pending or self.falling is None:
            return Verdict.illegal(f"no fallen duck is waiting; {self.describe_next()}",
                                   "DUCKY-T3")
        return self._placement(_actor(event), self.falling, event.data["pile"],
                               f"take the fallen {self.falling} duck", "DUCKY-T3")

    def _check_fish(self, event: Event) -> Verdict:
        if event.seat is None:
            return Verdict.illegal("a 'fish' needs the seat of the player who fishes",
                                   "DUCKY-T4")
        return self.could_fish(event.seat, event.data["pile"])

    def _check_pass(self, event: Event) -> Verdict:
        if event.seat is None:
            return Verdict.illegal("a 'pass' needs the seat of the player who passes",
                                   "DUCKY-T4")
        verdict = self.could_fish(event.seat)
        if not verdict.ok:
            return Verdict.illegal(f"nothing to pass: {verdict.reason}", *verdict.rules)
        return Verdict.legal(f"{self.players[event.seat]} leaves the duck", "DUCKY-T4")

    def _check_uncover(self, event: Event) -> Verdict:
        if not self.pending or self.pending[0].kind != "uncover":
            return Verdict.illegal(f"no card is due to come into play; {self.describe_next()}",
                                   "DUCKY-T5")
        head = self.pending[0]
        if event.seat is not None and event.seat != head.seat:
            return Verdict.illegal(
                f"the card to show is {self.players[head.seat]}'s (seat {head.seat})", "DUCKY-T5")
        card = event.data["card"]
        if self.covered is not None:
            expected = self.covered[head.seat][head.pile][0]
            if card != expected:
                return Verdict.illegal(f"the next card of that pile is {expected!r}, not {card!r}",
                                       "DUCKY-T5")
        elif self._known_cards()[card] >= CARD_COUNTS[card]:
            return Verdict.illegal(f"every copy of {card!r} is already in play or given",
                                   "DUCKY-C3")
        return Verdict.legal(f"{card} comes into play", "DUCKY-T5")

    def _check_return(self, event: Event) -> Verdict:
        if not self.pending or self.pending[0].kind != "return":
            return Verdict.illegal(f"no ducks are due back; {self.describe_next()}", "DUCKY-T5")
        ducks = self.pending[0].ducks
        pads = event.data["pads"]
        if not isinstance(pads, list) or len(pads) != len(ducks):
            return Verdict.illegal(
                f"'pads' must list one place per duck ({' then '.join(ducks)}): a cell number "
                f"or {SPARE!r}", "DUCKY-T5")
        if len(set(map(str, pads))) != len(pads):
            return Verdict.illegal("each duck needs its own pad", "DUCKY-T5")
        for colour, place in zip(ducks, pads, strict=True):
            problem = self._pad_problem(colour, place)
            if problem:
                return Verdict.illegal(problem, "DUCKY-T5")
        return Verdict.legal("the ducks are back on the water", "DUCKY-T5")

    def _pad_problem(self, colour: str, place: Any) -> str | None:
        if place == SPARE:
            pad, taken = self.spare_colour, self.spare_duck
        elif isinstance(place, int) and not isinstance(place, bool) and 0 <= place < len(self.duck):
            pad, taken = self.pad_colour[place], self.duck[place]
        else:
            return (f"{place!r} is not a pad: give a cell 0..{len(self.duck) - 1} or "
                    f"{SPARE!r}")
        if pad != colour:
            return f"the {colour} duck must go on a {colour} pad; {place} is {pad}"
        if taken:
            return f"the pad at {place} already carries a duck"
        return None

    # -- applying -------------------------------------------------------------------------
    def _apply_setup(self, event: Event) -> None:
        self.pad_colour = list(event.data["river"])
        self.duck = [colour != WHITE for colour in self.pad_colour]
        self.spare_colour, self.spare_duck = WHITE, False
        self.pawns = list(event.data["pawns"])
        self.visible = [[InPlayCard(label) for label in tops] for tops in event.data["visible"]]
        covered = event.data.get("covered")
        self.covered = None if self.observer or covered is None else [
            [list(p) for p in piles] for piles in covered]
        self.covered_count = [[CARDS_PER_PILE - 1] * PILES for _ in self.players]
        self.phase = "move"

    def _apply_move(self, event: Event) -> None:
        self.pawns[_actor(event)] = event.data["log"]
        self._flow()
        if self.falling is not None:
            self.taker = next((s for s in self.seats_from(self.active)
                               if self._open_piles(s, self.falling)), None)
            if self.taker is None:  # nobody can use it: back on its pad (DUCKY-T3)
                self.spare_duck = True
                self.falling = None
        self.phase = "fish" if self.falling is None else "offer"
        self._advance()

    def _flow(self) -> None:
        """DUCKY-T2: spare in at the entrance, every pad one cell on, the last one drops out."""
        fell_colour, fell_duck = self.pad_colour[-1], self.duck[-1]
        self.pad_colour = [self.spare_colour, *self.pad_colour[:-1]]
        self.duck = [self.spare_duck, *self.duck[:-1]]
        self.spare_colour, self.spare_duck = fell_colour, False
        self.falling = fell_colour if fell_duck else None

    def _apply_take(self, event: Event) -> None:
        assert self.falling is not None
        colour, self.falling, self.taker = self.falling, None, None
        self.phase = "fish"
        self._place(_actor(event), event.data["pile"], colour)
        self._advance()

    def _apply_fish(self, event: Event) -> None:
        seat = _actor(event)
        cell = self.faced_cell(seat)
        assert cell is not None
        self.duck[cell] = False
        self.decided.add(seat)
        self._place(seat, event.data["pile"], self.pad_colour[cell])
        self._advance()

    def _apply_pass(self, event: Event) -> None:
        self.decided.add(_actor(event))
        self._advance()

    def _apply_uncover(self, event: Event) -> None:
        head = self.pending.pop(0)
        self.visible[head.seat][head.pile] = InPlayCard(event.data["card"])
        self.covered_count[head.seat][head.pile] -= 1
        if self.covered is not None:
            self.covered[head.seat][head.pile].pop(0)
        self._advance()

    def _apply_return(self, event: Event) -> None:
        self.pending.pop(0)
        for place in event.data["pads"]:
            if place == SPARE:
                self.spare_duck = True
            else:
                self.duck[place] = True
        self._advance()

    def _place(self, seat: int, pile: int, colour: str) -> None:
        card = self.visible[seat][pile]
        assert card is not None
        slot = card.open_slot(colour)
        assert slot is not None
        card.filled[slot] = True
        if card.complete():  # DUCKY-T5
            self.gifts[seat].append(card.label)
            self.visible[seat][pile] = None
            if self.covered_count[seat][pile] > 0:
                self.pending.append(Pending("uncover", seat, pile))
            self.pending.append(Pending("return", seat, pile, card.slots))

    def _advance(self) -> None:
        """End the turn once nothing is owed and nobody may still fish (DUCKY-W1 then)."""
        if self.pending or self.phase != "fish":
            return
        if any(self._fish_piles(s) for s in range(self.num_players)):
            return
        self.turns += 1
        self.decided.clear()
        if max(self.scores()) >= GIFTS_TO_WIN:
            self.phase = "over"
            return
        if self.is_stuck():
            self.stuck = True
            self.phase = "over"
            return
        self.active = (self.active + 1) % self.num_players
        self.phase = "move"

    def is_stuck(self) -> bool:
        """True when no open slot's colour has a duck on any pad: no duck can ever be placed
        again, so no card completes and no duck comes back."""
        free = {c for c, d in zip(self.pad_colour, self.duck, strict=True) if d}
        if self.spare_duck:
            free.add(self.spare_colour)
        if self.falling is not None:
            free.add(self.falling)
        needed = {slot for piles in self.visible for card in piles if card is not None
                  for slot, done in zip(card.slots, card.filled, strict=True) if not done}
        return not needed & free

    def _known_cards(self) -> Counter[str]:
        known: Counter[str] = Counter()
        for seat in range(self.num_players):
            known.update(self.gifts[seat])
            known.update(c.label for c in self.visible[seat] if c is not None)
            if self.covered is not None:
                known.update(c for pile in self.covered[seat] for c in pile)
        return known

    # -- chance and choices ---------------------------------------------------------------
    def chance_event(self, rng: random.Random) -> Event:
        if self.phase == "setup":
            return self._random_setup(rng)
        if self.pending and self.pending[0].kind == "uncover":
            head = self.pending[0]
            if self.covered is not None:
                card = self.covered[head.seat][head.pile][0]
            else:
                card = rng.choice(sorted((CARD_COUNTS - self._known_cards()).elements()))
            return Event("uncover", head.seat, {"card": card}, source="bot")
        raise RulesError(f"no chance event is due; {self.describe_next()}")

    def _random_setup(self, rng: random.Random) -> Event:
        coloured = [c for c in DUCKY_COLOURS for _ in range(self.layout.pads_per_colour)]
        rng.shuffle(coloured)
        white = set(self.layout.white_cells)
        river = [WHITE if cell in white else coloured.pop() for cell in range(self.layout.cells)]
        pawns = rng.sample(list(self.layout.start_logs), self.num_players)
        cards = sorted(CARD_COUNTS.elements())
        rng.shuffle(cards)
        hands = [cards[i * GIFTS_TO_WIN:(i + 1) * GIFTS_TO_WIN] for i in range(self.num_players)]
        piles = [[hand[p * CARDS_PER_PILE:(p + 1) * CARDS_PER_PILE] for p in range(PILES)]
                 for hand in hands]
        data: dict[str, Any] = {
            "river": river,
            "pawns": pawns,
            "visible": [[pile[0] for pile in seat] for seat in piles],
        }
        if not self.observer:
            data["covered"] = [[pile[1:] for pile in seat] for seat in piles]
        return Event("setup", None, data, source="bot")

    def legal_events(self, seat: int | None = None) -> list[Event]:
        if seat is None:
            seat = self.to_move()
        if seat is None or self.phase in ("setup", "over"):
            return []
        if self.pending:
            head = self.pending[0]
            if head.kind != "return" or head.seat != seat:
                return []
            return [Event("return", seat, {"pads": list(places)}, source="bot")
                    for places in self._return_choices(head.ducks)]
        if self.phase == "move":
            if seat != self.active:
                return []
            return [Event("move", seat, {"log": log}, source="bot")
                    for log in range(len(self.layout.logs)) if log not in self.pawns]
        if self.phase == "offer":
            if seat != self.taker or self.falling is None:
                return []
            return [Event("take", seat, {"pile": p}, source="bot")
                    for p in self._open_piles(seat, self.falling)]
        piles = self._fish_piles(seat)
        if not piles:
            return []
        return [*(Event("fish", seat, {"pile": p}, source="bot") for p in piles),
                Event("pass", seat, source="bot")]

    def _empty_pads(self, colour: str) -> list[int | str]:
        places: list[int | str] = [cell for cell, (pad, duck) in
                                   enumerate(zip(self.pad_colour, self.duck, strict=True))
                                   if pad == colour and not duck]
        if self.spare_colour == colour and not self.spare_duck:
            places.append(SPARE)
        return places

    def _return_choices(self, ducks: tuple[str, ...]) -> list[tuple[int | str, ...]]:
        options = itertools.product(*(self._empty_pads(colour) for colour in ducks))
        return [places for places in options if len(set(places)) == len(places)]

    # -- views ----------------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        """The scoreboard: per seat the gifts (the score), the pawn's log and cell, the two top
        cards with their filled slots and how many cards lie beneath; whose turn; the river, the
        spare pad and what is owed; the last few events (``history``, public form)."""
        seats = []
        for i, name in enumerate(self.players):
            seats.append({
                "seat": i,
                "name": name,
                "score": len(self.gifts[i]),
                "gifts": list(self.gifts[i]),
                "pawn": self.pawns[i] if self.pawns[i] >= 0 else None,
                "faces": self.faced_cell(i),
                "cards": [c.to_json() if c else None for c in self.visible[i]],
                "covered": list(self.covered_count[i]),
                "can_fish": bool(self._fish_piles(i)),
            })
        recent = self.history[-RECENT_EVENTS:]
        return {
            "game": "ducky",
            "layout": self.layout.name,
            "phase": self.phase,
            "turn": None if self.is_over() else self.active,
            "turns_played": self.turns,
            "to_move": self.to_move(),
            "next": self.describe_next(),
            "falling": self.falling,
            "stuck": self.stuck,
            # Table-wide lists sit under "board" so a generic scoreboard never mistakes one
            # whose length happens to equal the number of players for a per-seat column.
            "board": {
                "river": [{"pad": pad, "duck": duck}
                          for pad, duck in zip(self.pad_colour, self.duck, strict=True)],
                "spare": {"pad": self.spare_colour, "duck": self.spare_duck},
                "pending": [{"kind": p.kind, "seat": p.seat, "pile": p.pile,
                             "ducks": list(p.ducks)} for p in self.pending],
            },
            "seats": seats,
            "scores": self.scores(),
            "winners": self.winners(),
            "history": [self.game.public_event(e).to_json() for e in recent],
        }

# --------------------------------------------------------------------------------------------
# Bots
# --------------------------------------------------------------------------------------------


class GreedyBot(Bot):
    """Moves to the log that will face a duck it can use after the flow, always fishes, and
    prefers the card a duck completes. Ties and where ducks go back are chosen at random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: State, seat: int) -> Event:
        options = self.options(state, seat)
        assert isinstance(state, DuckyState)
        kind = options[0].type
        if kind == "move":
            values = [self._after_flow_value(state, seat, e.data["log"]) for e in options]
            best = max(values)
            return self.rng.choice([e for e, v in zip(options, values, strict=True) if v == best])
        if kind in ("take", "fish"):
            placing = [e for e in options if e.type == kind]
            return max(placing, key=lambda e: _filled(state, seat, e.data["pile"]))
        return self.rng.choice(options)

    @staticmethod
    def _after_flow_value(state: DuckyState, seat: int, log: int) -> int:
        """2 if the cell this log faces will hold a duck completing a card, 1 if usable, else 0."""
        cell = state.layout.logs[log].faces
        if cell == 0:
            colour, duck = state.spare_colour, state.spare_duck
        else:
            colour, duck = state.pad_colour[cell - 1], state.duck[cell - 1]
        if not duck:
            return 0
        piles = state._open_piles(seat, colour)
        if not piles:
            return 0
        return 1 + max(_filled(state, seat, p) for p in piles)


def _actor(event: Event) -> int:
    """The acting seat of an event already checked to have one."""
    assert event.seat is not None
    return event.seat


def _filled(state: DuckyState, seat: int, pile: int) -> int:
    card = state.visible[seat][pile]
    return 0 if card is None else card.filled.count(True)
