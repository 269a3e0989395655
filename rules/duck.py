"""DUCK (Johannes Krenner): play sets or runs, draw, go out or duck; 5 rounds of lifebelts.

The engine follows the ``DUCK-*`` rules of the project's catalogue (``RULE_TEXTS`` below).
Seats sit clockwise in index order, so the *left* neighbour of seat ``s`` is ``s + 1`` and the
*right* neighbour is ``s - 1`` (play passes to the left, DUCK-S2).

A round is a sequence of events: ``deal`` (chance) -> turns of ``play`` + ``draw`` or a
``duck`` -> ``reveal`` (chance: every hand shown face up) which scores the round.

Observer mode (a camera at a real table) never sees hands or the draw pile. It still knows
every public card (discard piles, the face-up start card, revealed hands) and which cards a
player took from a neighbour's pile, and checks those claims when the hands are revealed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .core import Bot, Event, EventSpec, Field, Game, OptionSpec, RulesError, State, Verdict
from .decks import DUCK_COLOURS, deck

RULE_TEXTS = {
    "DUCK-C1": "69 duck cards: yellow, blue and red; each colour has one 0, one 8 and three each of 1 to 7.",
    "DUCK-C2": "Five lifebelts worth 6 to 10, green side plus, red side minus; round r hands out the one worth 5+r.",
    "DUCK-C3": "Each player has a beach towel; cards tucked under it are that player's points.",
    "DUCK-S1": (
        "The dealer deals 7 cards to everyone and turns 1 card face up to start their own discard pile "
        "(option: everyone gets one)."
    ),
    "DUCK-S2": (
        "The player left of the dealer starts and play goes clockwise; the deal then moves one seat left each"
        " round."
    ),
    "DUCK-A1": "On your turn you may play one or more cards that all show the same number, colours mixed.",
    "DUCK-A2": (
        "Or you may play a run: three or more consecutive numbers of one colour, no number twice, laid up or "
        "down."
    ),
    "DUCK-A3": (
        "Played cards go onto your own discard pile; only its top card shows, and you choose which card ends "
        "on top."
    ),
    "DUCK-A4": (
        "If you still hold cards you must draw one: from the draw pile or from the top of your left or right "
        "neighbour's pile."
    ),
    "DUCK-A5": "Playing your last card ends the round at once and earns the current lifebelt, green side up.",
    "DUCK-B1": (
        "Instead of playing you may duck when your hand adds up to the limit (10) or less; all hands are "
        "shown and the round ends."
    ),
    "DUCK-B2": (
        "A duck is right when your sum is within the limit and lower than everyone else's: green lifebelt "
        "plus your highest card under your towel."
    ),
    "DUCK-B3": (
        "A duck is wrong when your sum is over the limit or someone else has the same or less: red lifebelt "
        "and no card for you."
    ),
    "DUCK-E1": (
        "At round end the highest hand among the other players is discarded entirely (everyone tied for "
        "highest discards)."
    ),
    "DUCK-E2": "Every other player tucks their single highest hand card under their towel.",
    "DUCK-E3": "Everything not under a towel is shuffled for the next round.",
    "DUCK-F1": (
        "After five rounds the score is towel cards plus green lifebelts minus red ones; the highest score "
        "wins, ties share."
    ),
}

ROUNDS = 5
HAND_SIZE = 7
LIFEBELT_BASE = 5  # round r (1-based) hands out the lifebelt worth LIFEBELT_BASE + r


# --------------------------------------------------------------------------------------------
# Cards
# --------------------------------------------------------------------------------------------

DUCK_DECK = deck("duck")
DUCK_CARDS: Counter[str] = Counter(
    {c.label: c.count for c in DUCK_DECK.cards if c.attrs.get("kind") == "duck"}
)


def _card_list(cards: Counter[str]) -> str:
    """Every card of ``cards``, a copy count after repeated ones: ``blue-1, red-3 ×2``."""
    return ", ".join(f"{c} ×{n}" if n > 1 else c for c, n in sorted(cards.items()) if n > 0)


def card_value(label: str) -> int:
    return int(label.rsplit("-", 1)[1])


def card_colour(label: str) -> str:
    return label.rsplit("-", 1)[0]


def hand_sum(cards: Iterable[str]) -> int:
    return sum(card_value(c) for c in cards)


def highest_card(cards: Iterable[str]) -> str:
    """The card tucked under a towel: highest value; among equal values, deck colour order."""
    return max(cards, key=lambda c: (card_value(c), -DUCK_COLOURS.index(card_colour(c))))


def play_form(cards: Sequence[str]) -> tuple[str | None, Verdict]:
    """Classify a play as "set" (DUCK-A1) or "run" (DUCK-A2), or say why it is neither."""
    if not cards:
        return None, Verdict.illegal("a play needs at least one card", "DUCK-A1")
    values = [card_value(c) for c in cards]
    if len(set(values)) == 1:
        return "set", Verdict.legal(f"a set of {len(cards)} x {values[0]}", "DUCK-A1", "DUCK-A3")
    colours = {card_colour(c) for c in cards}
    if len(cards) < 3:
        return None, Verdict.illegal(
            "two cards must show the same number; a run needs at least three cards",
            "DUCK-A1", "DUCK-A2",
        )
    if len(colours) != 1:
        return None, Verdict.illegal(
            f"a run must be one colour, these are {', '.join(sorted(colours))}", "DUCK-A2"
        )
    steps = {b - a for a, b in zip(values, values[1:], strict=False)}
    if steps == {1} or steps == {-1}:
        direction = "ascending" if steps == {1} else "descending"
        return "run", Verdict.legal(
            f"an {direction} run {values[0]}..{values[-1]}", "DUCK-A2", "DUCK-A3"
        )
    return None, Verdict.illegal(
        f"{'-'.join(map(str, values))} is not a run: a run is consecutive numbers laid in "
        "order, up or down, with no number twice",
        "DUCK-A2", "DUCK-A3",
    )


# --------------------------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------------------------


class DuckGame(Game):
    name = "duck"
    title = "DUCK"
    min_players = 3
    max_players = 5
    options_spec = (
        OptionSpec("starting_face_up", "dealer", ("dealer", "everyone"),
                   "who gets a face-up card to start their discard pile", "DUCK-S1"),
        OptionSpec("duck_limit", 10, (), "the highest hand sum allowed to duck", "DUCK-B1"),
        OptionSpec("highest_tie", "all_tied_discard", ("all_tied_discard", "none_discard"),
                   "what happens when several players tie for the highest sum", "DUCK-E1"),
        OptionSpec("first_dealer", 0, (), "seat of the first round's dealer", "DUCK-S2"),
    )
    event_specs = (
        EventSpec(
            "deal",
            (
                Field("face_up", "any", help="per seat: the face-up start card or null"),
                Field("hands", "any", hidden=True, help="per seat: the 7 hand cards"),
                Field("draw_pile", "cards", hidden=True, required=False,
                      help="the draw pile, top card first (with rest_seed: only its top cards)"),
                Field("rest_seed", "int", hidden=True, required=False,
                      help="the cards not listed go under the draw pile, shuffled with this "
                           "seed (a position set up by hand)"),
            ),
            chance=True,
            help="the dealer deals a new round",
        ),
        EventSpec("play", (Field("cards", "cards", help="the cards in the order laid; the last is on top"),),
                  help="play a set or a run onto your discard pile"),
        EventSpec("draw", (Field("pile", "choice", choices=("deck", "left", "right"),
                                 help="deck, or the left or right neighbour's discard pile"),),
                  help="draw one card: the draw pile or a neighbour's discard pile"),
        EventSpec("duck", (), help="duck: claim the lowest hand sum, within the limit"),
        EventSpec(
            "reveal",
            (Field("hands", "any", help="per seat: the hand cards shown face up"),),
            chance=True,
            help="every hand is shown at the end of the round",
        ),
    )

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        super().__init__(options)
        if self.options["duck_limit"] < 0:
            raise RulesError("option 'duck_limit' must be 0 or more")

    def new_state(self, players: Sequence[str], *, observer: bool = False) -> DuckState:
        state = DuckState(self, players, observer)
        if not 0 <= self.options["first_dealer"] < len(players):
            raise RulesError(f"option 'first_dealer' must be a seat 0..{len(players) - 1}")
        return state


@dataclass
class RoundResult:
    """How one round ended and what each seat gained (kept for the scoreboard)."""

    round: int
    ender: int
    how: str  # "out", "ducked_right", "ducked_wrong"
    sums: list[int]
    discarded: list[int]
    towel_cards: list[str | None]
    lifebelt: int
    points: list[int]

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Seat:
    towel: list[str] = field(default_factory=list)
    lifebelts: list[tuple[int, str]] = field(default_factory=list)  # (value, "green"/"red")
    pile: list[str] = field(default_factory=list)  # bottom .. top
    hand: Counter[str] = field(default_factory=Counter)  # full info: the hand; observer: known part
    hand_count: int = 0

    def score(self) -> int:
        belts = sum(v if side == "green" else -v for v, side in self.lifebelts)
        return hand_sum(self.towel) + belts


class DuckState(State):
    """A DUCK match in progress."""

    game: DuckGame

    def __init__(self, game: DuckGame, players: Sequence[str], observer: bool) -> None:
        super().__init__(game, players, observer)
        self.seats = [Seat() for _ in players]
        self.round = 0  # rounds completed
        self.phase = "deal"  # deal -> play <-> draw -> reveal -> deal ...
        self.turn = 0
        self.ender: int | None = None
        self.ended_by = ""  # "out" or "duck"
        self.draw_pile: list[str] = []  # full information only, top first
        self.draw_count = 0
        self.results: list[RoundResult] = []

    # -- small API -----------------------------------------------------------------------
    @property
    def dealer(self) -> int:
        return (self.game.options["first_dealer"] + self.round) % self.num_players

    @property
    def lifebelt(self) -> int:
        return LIFEBELT_BASE + self.round + 1

    def left(self, seat: int) -> int:
        return (seat + 1) % self.num_players

    def right(self, seat: int) -> int:
        return (seat - 1) % self.num_players

    def to_move(self) -> int | None:
        return self.turn if self.phase in ("play", "draw") else None

    def is_over(self) -> bool:
        return self.round >= ROUNDS

    def scores(self) -> list[int]:
        return [s.score() for s in self.seats]

    def turn_rules(self) -> tuple[str, ...]:
        return ("DUCK-S2",)

    def next_rules(self) -> tuple[str, ...]:
        return {"deal": ("DUCK-S1",), "play": ("DUCK-S2",), "draw": ("DUCK-A4",),
                "reveal": ("DUCK-A5", "DUCK-B1")}.get(self.phase, ("DUCK-F1",))

    def game_over_rules(self) -> tuple[str, ...]:
        return ("DUCK-F1",)

    def describe_next(self) -> str:
        if self.is_over():
            return "the game is over"
        name = self.players[self.turn]
        return {
            "deal": f"round {self.round + 1} must be dealt by {self.players[self.dealer]}",
            "play": f"{name} (seat {self.turn}) must play cards or duck",
            "draw": f"{name} (seat {self.turn}) must draw a card",
            "reveal": "the round is over: every hand must be shown (reveal)",
        }[self.phase]

    def is_card_label(self, label: str) -> bool:
        return label in DUCK_CARDS

    def possible_cards(self, event_type: str, field: str) -> Mapping[str, int] | None:
        """A play names cards not on any pile nor under a towel (a card known to be in a hand
        stays possible: it is that hand's to play)."""
        if event_type != "play":
            return None
        left = self._pool()
        for s in self.seats:
            left.subtract(s.pile)
        return +left

    # -- card bookkeeping ----------------------------------------------------------------
    def _pool(self) -> Counter[str]:
        """Every duck card still in play this round (not under a towel)."""
        pool = Counter(DUCK_CARDS)
        for s in self.seats:
            pool.subtract(s.towel)
        return pool

    def _unseen(self, except_seat: int | None = None) -> Counter[str]:
        """Copies not visible anywhere public and not known to be in another hand."""
        pool = self._pool()
        for i, s in enumerate(self.seats):
            pool.subtract(s.pile)
            if i != except_seat:
                pool.subtract(s.hand if self.observer else Counter())
        return pool

    # -- checks --------------------------------------------------------------------------
    def _check_deal(self, event: Event) -> Verdict:
        if self.phase != "deal":
            return Verdict.illegal(f"cards cannot be dealt now; {self.describe_next()}", "DUCK-S1")
        n = self.num_players
        face_up = event.data["face_up"]
        if not isinstance(face_up, list) or len(face_up) != n:
            return Verdict.illegal(f"'face_up' must list one entry per seat ({n})", "DUCK-S1")
        want = [
            (i == self.dealer or self.game.options["starting_face_up"] == "everyone")
            for i in range(n)
        ]
        for seat, (card, needed) in enumerate(zip(face_up, want, strict=True)):
            if needed and card is None:
                return Verdict.illegal(f"seat {seat} must get a face-up start card", "DUCK-S1")
            if not needed and card is not None:
                return Verdict.illegal(
                    f"only the dealer (seat {self.dealer}) starts with a face-up card", "DUCK-S1"
                )
            if card is not None and card not in DUCK_CARDS:
                return Verdict.illegal(f"{card!r} is not a DUCK card", "DUCK-C1")
        shown = Counter(c for c in face_up if c is not None)
        pool = self._pool()
        if shown - pool:
            return Verdict.illegal(
                f"more copies of {sorted(shown - pool)} than the deck holds", "DUCK-C1"
            )
        hands = event.data.get("hands")
        pile = event.data.get("draw_pile")
        if self.observer and hands is None and pile is None:
            needed_cards = sum(shown.values()) + HAND_SIZE * n
            if needed_cards > sum(pool.values()):
                return Verdict.illegal("not enough cards left to deal", "DUCK-S1")
            return Verdict.legal(f"round {self.round + 1} dealt", "DUCK-S1")
        if not isinstance(hands, list) or len(hands) != n or not all(
            isinstance(h, list) and len(h) == HAND_SIZE for h in hands
        ):
            return Verdict.illegal(f"'hands' must be {n} lists of {HAND_SIZE} cards", "DUCK-S1")
        seeded = event.data.get("rest_seed") is not None
        if pile is None and not seeded:
            return Verdict.illegal(
                "'draw_pile' must list the remaining cards, top first; or give 'rest_seed' to "
                "have them shuffled with that seed", "DUCK-S1")
        everything = Counter(pile or []) + shown
        for h in hands:
            everything.update(h)
        missing, extra = pool - everything, everything - pool
        if extra or (missing and not seeded):
            parts = []
            if missing:
                parts.append(f"missing {sum(missing.values())} cards: {_card_list(missing)}")
            if extra:
                parts.append(f"{sum(extra.values())} more than the deck holds: "
                             f"{_card_list(extra)}")
            hint = "" if seeded else (
                "; to leave the draw pile out, give 'rest_seed' (the cards not listed are "
                "shuffled with that seed)")
            return Verdict.illegal(
                f"the deal must use exactly the cards not under a towel ({'; '.join(parts)})"
                f"{hint}", "DUCK-S1", "DUCK-E3",
            )
        return Verdict.legal(f"round {self.round + 1} dealt", "DUCK-S1")

    def _check_play(self, event: Event) -> Verdict:
        if self.phase != "play":
            return Verdict.illegal(f"not time to play; {self.describe_next()}", "DUCK-A4")
        cards = list(event.data["cards"])
        form, verdict = play_form(cards)
        if form is None:
            return verdict
        seat = self.seats[event.seat]  # type: ignore[index]
        if len(cards) > seat.hand_count:
            return Verdict.illegal(
                f"{self.players[event.seat]} holds only {seat.hand_count} cards",  # type: ignore[index]
                "DUCK-A1",
            )
        wanted = Counter(cards)
        if not self.observer:
            lacking = wanted - seat.hand
            if lacking:
                return Verdict.illegal(
                    f"{self.players[event.seat]} does not hold {', '.join(sorted(lacking.elements()))}",  # type: ignore[index]
                    "DUCK-A1", "DUCK-A2",
                )
        else:
            not_known = sum((wanted - seat.hand).values())
            if not_known > seat.hand_count - sum(seat.hand.values()):
                known = ", ".join(sorted(seat.hand.elements()))
                return Verdict.illegal(
                    f"{self.players[event.seat]}'s hand is known to be {known} plus "  # type: ignore[index]
                    f"{seat.hand_count - sum(seat.hand.values())} unknown card(s)",
                    "DUCK-A4",
                )
            unseen = self._unseen(except_seat=event.seat)
            gone = wanted - unseen
            if gone:
                return Verdict.illegal(
                    f"every copy of {', '.join(sorted(set(gone)))} is already visible elsewhere",
                    "DUCK-C1",
                )
        return verdict

    def _check_draw(self, event: Event) -> Verdict:
        if self.phase != "draw":
            return Verdict.illegal(f"not time to draw; {self.describe_next()}", "DUCK-A4")
        source = event.data["pile"]
        if source == "deck":
            if self._draw_pile_size() == 0:
                return Verdict.illegal(
                    "the draw pile is empty; draw from a neighbour's discard pile", "DUCK-A4"
                )
            return Verdict.legal("draws the top card of the draw pile", "DUCK-A4")
        neighbour = self.left(self.turn) if source == "left" else self.right(self.turn)
        pile = self.seats[neighbour].pile
        if not pile:
            return Verdict.illegal(
                f"{self.players[neighbour]}'s discard pile ({source}) is empty", "DUCK-A4"
            )
        return Verdict.legal(
            f"takes {pile[-1]} from {self.players[neighbour]}'s discard pile", "DUCK-A4"
        )

    def _check_duck(self, event: Event) -> Verdict:
        if self.phase != "play":
            return Verdict.illegal(f"cannot duck now; {self.describe_next()}", "DUCK-B1")
        limit = self.game.options["duck_limit"]
        if not self.observer:
            total = hand_sum(self.seats[self.turn].hand.elements())
            if total > limit:
                return Verdict.legal(
                    f"may duck, but the hand adds up to {total}, over the limit of {limit}: "
                    "it will count as ducked wrong",
                    "DUCK-B1", "DUCK-B3",
                )
        return Verdict.legal("ducks; every hand is shown and the round ends", "DUCK-B1")

    def _check_reveal(self, event: Event) -> Verdict:
        if self.phase != "reveal":
            return Verdict.illegal(f"hands are shown only at round end; {self.describe_next()}",
                                   "DUCK-B1", "DUCK-A5")
        hands = event.data["hands"]
        n = self.num_players
        if not isinstance(hands, list) or len(hands) != n or not all(
            isinstance(h, list) for h in hands
        ):
            return Verdict.illegal(f"'hands' must be {n} lists of cards, one per seat")
        for h in hands:
            for card in h:
                if card not in DUCK_CARDS:
                    return Verdict.illegal(f"{card!r} is not a DUCK card", "DUCK-C1")
        shown: Counter[str] = Counter()
        for seat_no, (seat, h) in enumerate(zip(self.seats, hands, strict=True)):
            name = self.players[seat_no]
            if len(h) != seat.hand_count:
                return Verdict.illegal(
                    f"{name} must show {seat.hand_count} cards, not {len(h)}", "DUCK-A4"
                )
            if self.observer:
                lacking = seat.hand - Counter(h)
                if lacking:
                    return Verdict.illegal(
                        f"{name}'s hand must still hold {', '.join(sorted(lacking.elements()))}, "
                        "taken from a neighbour's pile and never played",
                        "DUCK-A4",
                    )
            elif Counter(h) != seat.hand:
                return Verdict.illegal(f"{name}'s shown cards differ from the cards held", "DUCK-A4")
            shown.update(h)
        unseen = self._unseen()
        if self.observer:
            for s in self.seats:
                unseen.update(s.hand)
        too_many = shown - unseen
        if too_many:
            return Verdict.illegal(
                f"more copies of {', '.join(sorted(set(too_many)))} than can exist", "DUCK-C1"
            )
        return Verdict.legal("hands shown; the round is scored", "DUCK-E1", "DUCK-E2")

    # -- applying ------------------------------------------------------------------------
    def _apply_deal(self, event: Event) -> None:
        face_up = event.data["face_up"]
        hands = event.data.get("hands")
        for i, seat in enumerate(self.seats):
            seat.pile = [face_up[i]] if face_up[i] is not None else []
            seat.hand = Counter(hands[i]) if hands is not None else Counter()
            seat.hand_count = HAND_SIZE
        pile = event.data.get("draw_pile")
        self.draw_pile = list(pile) if pile is not None else []
        seed = event.data.get("rest_seed")
        if seed is not None and hands is not None:  # the cards not listed, shuffled
            rest = self._pool()
            rest.subtract(self.draw_pile)
            rest.subtract(c for c in face_up if c is not None)
            for hand in hands:
                rest.subtract(hand)
            shuffled = sorted((+rest).elements())
            random.Random(seed).shuffle(shuffled)
            self.draw_pile += shuffled
        dealt = HAND_SIZE * self.num_players + sum(1 for c in face_up if c is not None)
        self.draw_count = sum(self._pool().values()) - dealt
        self.phase = "play"
        self.turn = self.left(self.dealer)
        self.ender = None
        self.ended_by = ""

    def _apply_play(self, event: Event) -> None:
        seat = self.seats[self.turn]
        cards = list(event.data["cards"])
        for card in cards:
            if seat.hand[card] > 0:
                seat.hand[card] -= 1
        seat.hand += Counter()  # drop zero counts
        seat.hand_count -= len(cards)
        seat.pile.extend(cards)
        if seat.hand_count == 0:
            self._end_round("out")
        elif self._can_draw():
            self.phase = "draw"
        else:
            self._next_turn()

    def _apply_draw(self, event: Event) -> None:
        seat = self.seats[self.turn]
        source = event.data["pile"]
        if source == "deck":
            self.draw_count -= 1
            if not self.observer:
                seat.hand[self.draw_pile.pop(0)] += 1
        else:
            neighbour = self.left(self.turn) if source == "left" else self.right(self.turn)
            seat.hand[self.seats[neighbour].pile.pop()] += 1
        seat.hand_count += 1
        self._next_turn()

    def _apply_duck(self, event: Event) -> None:
        self._end_round("duck")

    def _apply_reveal(self, event: Event) -> None:
        hands = [list(h) for h in event.data["hands"]]
        n = self.num_players
        ender = self.ender
        assert ender is not None
        sums = [hand_sum(h) for h in hands]
        towel_cards: list[str | None] = [None] * n
        points = [0] * n
        belt = self.lifebelt
        if self.ended_by == "out":
            how, side = "out", "green"
        else:
            others = [sums[i] for i in range(n) if i != ender]
            right = sums[ender] <= self.game.options["duck_limit"] and sums[ender] < min(others)
            how, side = ("ducked_right", "green") if right else ("ducked_wrong", "red")
            if right and hands[ender]:
                towel_cards[ender] = highest_card(hands[ender])
        self.seats[ender].lifebelts.append((belt, side))
        points[ender] += belt if side == "green" else -belt
        others_idx = [i for i in range(n) if i != ender]
        top = max(sums[i] for i in others_idx)
        discarded = [i for i in others_idx if sums[i] == top]
        if self.game.options["highest_tie"] == "none_discard" and len(discarded) > 1:
            discarded = []
        for i in others_idx:
            if i not in discarded and hands[i]:
                towel_cards[i] = highest_card(hands[i])
        for i, card in enumerate(towel_cards):
            if card is not None:
                self.seats[i].towel.append(card)
                points[i] += card_value(card)
        self.results.append(
            RoundResult(self.round + 1, ender, how, sums, discarded, towel_cards, belt, points)
        )
        for seat in self.seats:
            seat.pile, seat.hand, seat.hand_count = [], Counter(), 0
        self.draw_pile, self.draw_count = [], 0
        self.round += 1
        self.phase = "deal"

    def _end_round(self, how: str) -> None:
        self.ender = self.turn
        self.ended_by = how
        self.phase = "reveal"

    def _next_turn(self) -> None:
        self.turn = self.left(self.turn)
        self.phase = "play"

    def _draw_pile_size(self) -> int:
        return self.draw_count

    def _can_draw(self) -> bool:
        t = self.turn
        return (
            self._draw_pile_size() > 0
            or bool(self.seats[self.left(t)].pile)
            or bool(self.seats[self.right(t)].pile)
        )

    # -- chance and bots -----------------------------------------------------------------
    def chance_event(self, rng: random.Random) -> Event:
        if self.observer:
            raise RulesError("an observer cannot invent hidden cards; feed it the real events")
        if self.phase == "deal":
            cards = sorted(self._pool().elements())
            rng.shuffle(cards)
            n = self.num_players
            face_up: list[str | None] = []
            for i in range(n):
                gets = i == self.dealer or self.game.options["starting_face_up"] == "everyone"
                face_up.append(cards.pop() if gets else None)
            hands = [[cards.pop() for _ in range(HAND_SIZE)] for _ in range(n)]
            return Event("deal", None, {"face_up": face_up, "hands": hands, "draw_pile": cards},
                         source="bot")
        if self.phase == "reveal":
            hands = [sorted(s.hand.elements()) for s in self.seats]
            return Event("reveal", None, {"hands": hands}, source="bot")
        raise RulesError(f"no chance event now; {self.describe_next()}")

    def legal_events(self, seat: int | None = None) -> list[Event]:
        seat = self.to_move() if seat is None else seat
        if seat is None or seat != self.to_move() or self.observer:
            return []
        if self.phase == "draw":
            return [
                e for e in (Event("draw", seat, {"pile": s}, source="bot")
                            for s in ("deck", "left", "right"))
                if self.check(e).ok
            ]
        hand = self.seats[seat].hand
        events = [Event("play", seat, {"cards": cards}, source="bot")
                  for cards in possible_plays(hand)]
        if hand_sum(hand.elements()) <= self.game.options["duck_limit"]:
            events.append(Event("duck", seat, source="bot"))
        return events

    # -- views -----------------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        seats = []
        for i, s in enumerate(self.seats):
            seats.append({
                "seat": i,
                "name": self.players[i],
                "hand_count": s.hand_count,
                "known_in_hand": sorted(s.hand.elements()) if self.observer else None,
                "pile_top": s.pile[-1] if s.pile else None,
                "pile_size": len(s.pile),
                "towel": list(s.towel),
                "towel_points": hand_sum(s.towel),
                "lifebelts": [{"value": v, "side": side} for v, side in s.lifebelts],
                "score": s.score(),
            })
        return {
            "game": "duck",
            "round": min(self.round + 1, ROUNDS),
            "rounds": ROUNDS,
            "phase": "over" if self.is_over() else self.phase,
            "dealer": self.dealer if not self.is_over() else None,
            "to_move": self.to_move(),
            "next": self.describe_next(),
            "draw_pile": self.draw_count,
            "lifebelt": None if self.is_over() else {"value": self.lifebelt},
            "seats": seats,
            "scores": self.scores(),
            "round_points": [r.points for r in self.results],
            "results": [r.to_json() for r in self.results],
            "winners": self.winners(),
        }

    def player_view(self, seat: int) -> dict[str, Any]:
        view = self.public_view()
        view["hand"] = sorted(self.seats[seat].hand.elements()) if not self.observer else None
        return view


def possible_plays(hand: Counter[str]) -> list[list[str]]:
    """Every distinct play from ``hand``: sets with each possible top colour, runs both ways."""
    plays: list[list[str]] = []
    by_value: dict[int, list[str]] = {}
    for card in sorted(hand.elements()):
        by_value.setdefault(card_value(card), []).append(card)
    for cards in by_value.values():
        seen: set[tuple[str, ...]] = set()
        for size in range(1, len(cards) + 1):
            for combo in _combinations(cards, size):
                for top in sorted(set(combo)):
                    rest = list(combo)
                    rest.remove(top)
                    key = (*sorted(rest), top)
                    if key not in seen:
                        seen.add(key)
                        plays.append([*sorted(rest), top])
    for colour in DUCK_COLOURS:
        values = sorted({card_value(c) for c in hand if card_colour(c) == colour and hand[c] > 0})
        for start in values:
            length = 1
            while start + length in values:
                length += 1
                if length >= 3:
                    run = [f"{colour}-{v}" for v in range(start, start + length)]
                    plays.append(run)
                    plays.append(run[::-1])
    return plays


def _combinations(cards: list[str], size: int) -> Iterable[tuple[str, ...]]:
    from itertools import combinations

    return set(combinations(cards, size))


class GreedyBot(Bot):
    """Sheds the most points it can; ducks when its sum is small enough to be likely lowest."""

    def __init__(self, rng: random.Random, duck_at: int = 5) -> None:
        self.rng = rng
        self.duck_at = duck_at

    def choose(self, state: State, seat: int) -> Event:
        options = self.options(state, seat)
        ducks = [e for e in options if e.type == "duck"]
        assert isinstance(state, DuckState)
        if ducks and hand_sum(state.seats[seat].hand.elements()) <= self.duck_at:
            return ducks[0]
        plays = [e for e in options if e.type == "play"]
        if plays:
            best = max(hand_sum(e.data["cards"]) + len(e.data["cards"]) for e in plays)
            return self.rng.choice(
                [e for e in plays if hand_sum(e.data["cards"]) + len(e.data["cards"]) == best]
            )
        draws = [e for e in options if e.type == "draw"]
        low = [e for e in draws if e.data["pile"] != "deck" and _top_value(state, seat, e) <= 2]
        return self.rng.choice(low or draws)


def _top_value(state: DuckState, seat: int, event: Event) -> int:
    neighbour = state.left(seat) if event.data["pile"] == "left" else state.right(seat)
    return card_value(state.seats[neighbour].pile[-1])
