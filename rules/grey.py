"""Grey Duck (greyduck.dmagy.com): a climbing trick game with out-of-turn grey ducks (GREY-*).

One game, one file, as OpenSpiel's games: the rule texts, the game, its state (swaps, tricks and
the grey races) and the bots read top to bottom as one rulebook, in the order every engine keeps.

The engine follows the ``GREY-*`` rules of the project's catalogue (``RULE_TEXTS`` below).
Seats sit clockwise in index order: seat ``s + 1`` sits at seat ``s``'s left, so play passes
``s -> s + 1``. A hand is: ``deal`` (chance) -> the swap (from hand 2: ``swap_pass``,
``drake_request`` / ``cannot_comply``, ``swap_return``, or ``lame_duck`` / ``lucky_duck``) ->
tricks of ``play`` / ``quack`` with out-of-turn ``grey`` events -> the hand ends when one player
still holds cards.

Grey races (GREY-G1), as decided for this project:

* A *race window* opens with every Lone Duck or Flock of rank r (the grey r may join it) and
  every Flight whose top rank is h below the Drake (the grey h+1 may join it), unless that grey
  has already been played this hand. It stays open through Quacks (they lay no cards) and
  closes when the next in-turn event lays cards, ends the trick (the last Quack) or ends the hand.
* Events reach the engine in arrival order. A ``grey`` arriving while its window is open wins,
  whatever the clocks say, unless its timestamp is before the play it would join (it cannot join
  what was not on the table yet).
* Camera latency: a ``grey`` may arrive just after the in-turn event that closed its window.
  While that closing event is still the last event applied, the grey is judged by timestamps:
  strictly earlier -> the grey wins, the closing event is withdrawn (its cards go back to hand,
  a withdrawn Quack is simply forgotten) and the grey joins the position before it; the same
  millisecond or later -> refused, "X's play came first by N ms". A tie goes to the in-turn
  event. Without timestamps on both events, arrival order decides and the grey is refused.
* The mirror case: an in-turn ``play`` or ``quack`` may arrive just after a grey that won its
  window. While that grey is still the last event applied, an in-turn event refused in the
  position after the grey is judged in the position before it: stamped the same millisecond
  as the grey or earlier, and legal there -> it stands, the grey is taken back (its card goes
  back to hand, its race is struck from ``race_log``) and is judged again after it: a Quack
  that leaves the trick open lets the grey join again, a play or the trick-ending Quack beats
  it. Stamped later -> refused, "X's grey came first by N ms".
* After any further event the old window is gone for good: the grey is refused as too late.
  Refused greys change nothing (the core's rule for every refusal); the verdict carries the
  margin, and ``race_log`` records every grey that won.

Observer mode (camera at a real table): hands are unknown; the deal gives the hand sizes, the
swap reveals the cards passed face up, and every play is checked for form, following, race
order, card conservation against everything public, and who is out when their count hits 0.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .core import Bot, Event, EventSpec, Field, Game, OptionSpec, RulesError, State, Verdict
from .decks import GREY_RANKS, deck

RULE_TEXTS = {
    "GREY-C1": (
        "54 cards ranked 1 up to 8 and then the Drake (D): 45 yellow ones in a pyramid (nine 1s, "
        "eight 2s ... one Drake) plus one grey of every rank, so there are exactly two Drakes."
    ),
    "GREY-D1": (
        "Three players get 13 cards each and the rest stays face down, unseen; with four or five "
        "the whole deck is dealt one card at a time from the dealer's left, so the seats served "
        "last (the dealer among them) may hold one card fewer."
    ),
    "GREY-D2": (
        "The oldest player deals the first hand and whoever holds the grey 1 leads it with any "
        "play (if nobody holds it, three players, the dealer's left leads); every later hand is "
        "dealt by the previous Duckling."
    ),
    "GREY-D3": (
        "Decided here (the rulebook only says some may hold one card fewer): with four or five a "
        "deal started at any seat counts, so any seats, the dealer's too, may hold the larger "
        "hands as long as the whole deck is dealt and no hand is more than one card larger than "
        "another. An observer's deal may give the counts; else dealing from the dealer's left is "
        "assumed, and a 'counts' event corrects it during the hand."
    ),
    "GREY-W1": (
        "From the second hand the Duckling passes their highest card face up to the Captain, who "
        "returns any card face up; a Duckling passing a Drake may ask for a rank of 5 or lower, "
        "which the Captain must give if they can, else the Duckling may name another rank or "
        "none. The Duckling then leads."
    ),
    "GREY-W2": (
        "Lame Duck: the Captain may refuse the passed card; it goes back to the Duckling, nothing "
        "is returned and the Captain leads."
    ),
    "GREY-W3": (
        "Lucky Duck: a Duckling holding both Drakes shows them, passes nothing and leads."
    ),
    "GREY-W4": (
        "Decided here: the card passed face up is the Captain's, so 'any card' includes it; the "
        "Captain may hand the very card back (unless a rank was asked for), and the Duckling "
        "leads as after any swap. Refusing it is the Lame Duck instead, after which the Captain "
        "leads."
    ),
    "GREY-T1": (
        "A play is a Lone Duck (one card), a Flock (two or more cards of one rank) or a Flight "
        "(three or more consecutive ranks, one card each, the Drake after the 8); colours mix "
        "freely."
    ),
    "GREY-T2": (
        "To follow, play the same form with the same number of cards: a higher rank for a Lone "
        "Duck or Flock, a higher lowest card for a Flight."
    ),
    "GREY-T3": (
        "Instead of following you may Quack (pass); it only covers this turn, so you may still "
        "play later in the same trick. The leader of a trick must play."
    ),
    "GREY-T4": (
        "A trick is won by the player whose play every other player still holding cards has "
        "Quacked since; the winner leads next, or the player to their left if they have gone out."
    ),
    "GREY-G1": (
        "Out of turn, anyone may add the grey of the same rank to the last Lone Duck or Flock, or "
        "the grey one above the top of the last Flight, before the next player in turn lays "
        "cards; play then goes on left of the grey player. Races are judged by timestamps, "
        "whichever report arrives first; a tie goes to the in-turn play. A report is weighed "
        "against the one event just before it: a grey reported late wins only if it is earlier "
        "than the single in-turn event that followed it, and an in-turn event reported after a "
        "grey wins only if it is no later than that grey."
    ),
    "GREY-H1": (
        "A player who has laid all their cards is out; the hand ends as soon as only one player "
        "holds cards. The first out is the Captain, the last one left is the Duckling."
    ),
    "GREY-S1": (
        "Each hand scores 4 for the first out, 3 for the second, 2 for every other player out and "
        "1 for the Duckling; with three players 4, 3 and 1."
    ),
    "GREY-S2": "A match is twelve hands (option); the highest total wins and ties share the win.",
    "GREY-V1": (
        "Minnesota names (a display option): greys are Geese, players Honk instead of Quack and "
        "the last out is the Gosling; the rules do not change."
    ),
    "GREY-V2": (
        "Party of six or more: tables of three to five as even as possible, one deck each; after "
        "every hand each table's Duckling carries the results to the next table and deals there; "
        "one party scoreboard adds up every table."
    ),
}

GREY_DECK = deck("grey")
DECK_COUNTS: Counter[str] = Counter({c.label: c.count for c in GREY_DECK.cards})
FULL_DECK: tuple[str, ...] = tuple(GREY_DECK.full())
RANK_OF: dict[str, int] = {
    c.label: GREY_RANKS.index(c.attrs["rank"]) + 1 for c in GREY_DECK.cards
}
"""Label -> rank number: 1..8, and 9 for the Drake (so a Flight may run 7 8 D, GREY-T1)."""

DRAKE = 9
DRAKES = ("yellow-D", "grey-D")
GREY_ONE = "grey-1"
THREE_PLAYER_HAND = 13
MAX_REQUEST = 5
HANDS_DEFAULT = 12

FORM_NAMES = {"lone": "Lone Duck", "flock": "Flock", "flight": "Flight"}

TERMS: dict[str, dict[str, str]] = {
    "classic": {"grey": "grey", "greys": "grey ducks", "quack": "quack", "quacked": "quacked",
                "captain": "Captain", "duckling": "Duckling"},
    "minnesota": {"grey": "goose", "greys": "geese", "quack": "honk", "quacked": "honked",
                  "captain": "Captain", "duckling": "Gosling"},
}
"""Display words (GREY-V1). Event types and card labels stay the same in every variant."""


# --------------------------------------------------------------------------------------------
# Cards, forms and points (pure helpers)
# --------------------------------------------------------------------------------------------


def is_grey(label: str) -> bool:
    return label.startswith("grey-")


YELLOW_OF = {rank: f"yellow-{name}" for rank, name in enumerate(GREY_RANKS, start=1)}
GREY_OF = {rank: f"grey-{name}" for rank, name in enumerate(GREY_RANKS, start=1)}


def card_order(label: str) -> tuple[int, bool]:
    """Sort key: by rank, yellow before grey."""
    return RANK_OF[label], is_grey(label)


def rank_name(rank: int) -> str:
    return "Drake" if rank == DRAKE else str(rank)


def show_cards(cards: Iterable[str], terms: Mapping[str, str] = TERMS["classic"]) -> str:
    """Cards as people say them: ``5 5 grey-5``, ``goose-D`` in the Minnesota variant."""
    words = []
    for c in sorted(cards, key=card_order):
        rank = GREY_RANKS[RANK_OF[c] - 1]
        words.append(f"{terms['grey']}-{rank}" if is_grey(c) else rank)
    return " ".join(words)


@dataclass(frozen=True)
class Form:
    """The shape of a play (GREY-T1): kind, number of cards, lowest and highest rank."""

    kind: str  # "lone" | "flock" | "flight"
    size: int
    low: int
    high: int

    def describe(self) -> str:
        if self.kind == "lone":
            return f"a Lone Duck {rank_name(self.low)}"
        if self.kind == "flock":
            return f"a Flock of {self.size} x {rank_name(self.low)}"
        return f"a Flight of {self.size} ({rank_name(self.low)} to {rank_name(self.high)})"


def classify(cards: Sequence[str]) -> Form | str:
    """The form of a play (GREY-T1), or a sentence saying why it is none."""
    if not cards:
        return "a play needs at least one card; to pass, quack"
    ranks = sorted(RANK_OF[c] for c in cards)
    if len(ranks) == 1:
        return Form("lone", 1, ranks[0], ranks[0])
    if ranks[0] == ranks[-1]:
        return Form("flock", len(ranks), ranks[0], ranks[0])
    shown = show_cards(cards)
    if len(ranks) == 2:
        return (f"{shown} is no form: two cards must be one rank (a Flock); a Flight needs at "
                "least 3 cards")
    if all(b == a + 1 for a, b in zip(ranks, ranks[1:], strict=False)):
        return Form("flight", len(ranks), ranks[0], ranks[-1])
    return (f"{shown} is no form: a Flock is all one rank, a Flight is 3 or more consecutive "
            "ranks with one card each")


def follow_problem(form: Form, top: Form) -> str | None:
    """Why ``form`` does not follow ``top`` (GREY-T2), or None when it does."""
    if form.kind != top.kind or form.size != top.size:
        what = FORM_NAMES[top.kind]
        if top.kind != "lone":
            what += f" of {top.size}"
        return f"the trick needs a {what} to follow {top.describe()}, not {form.describe()}"
    if form.low <= top.low:
        if top.kind == "flight":
            return (f"a Flight must start higher than {rank_name(top.low)}, this one starts at "
                    f"{rank_name(form.low)}")
        return f"{form.describe()} does not beat {top.describe()}: it needs a higher rank"
    return None


def hand_points(num_players: int) -> tuple[int, ...]:
    """Points by finishing place (GREY-S1): 4, 3, 2 for every other player out, 1 for last."""
    if num_players == 3:
        return (4, 3, 1)
    return (4, 3) + (2,) * (num_players - 3) + (1,)


def deal_sizes(num_players: int, dealer: int) -> list[int]:
    """Cards per seat (GREY-D1): dealt one at a time from the dealer's left."""
    if num_players == 3:
        return [THREE_PLAYER_HAND] * 3
    base, extra = divmod(len(FULL_DECK), num_players)
    sizes = [base] * num_players
    for i in range(extra):
        sizes[(dealer + 1 + i) % num_players] += 1
    return sizes


def candidate_plays(
    hand: Counter[str], top: Form | None, *, variants: bool = True
) -> list[tuple[str, ...]]:
    """Every play from ``hand`` that may lead (``top`` None) or follow ``top`` (GREY-T1/T2).

    With ``variants`` False only one colour choice per shape is given (yellow before grey),
    which is what a bot needs and much shorter.
    """
    floor = top.low if top is not None else 0
    want = top.kind if top is not None else None
    held: dict[int, list[str]] = {}  # rank -> labels held, yellow first; only ranks above floor
    for rank in range(floor + 1, DRAKE + 1):
        labels = [label for label in (YELLOW_OF[rank], GREY_OF[rank]) if hand.get(label, 0) > 0]
        if labels:
            held[rank] = labels
    out: list[tuple[str, ...]] = []
    if want in (None, "lone", "flock"):
        for rank in held:
            yellow_label, grey_label = YELLOW_OF[rank], GREY_OF[rank]
            yellow, grey = hand.get(yellow_label, 0), hand.get(grey_label, 0)
            sizes: Iterable[int] = range(1, yellow + grey + 1) if top is None else [top.size]
            for k in sizes:
                if k <= yellow:
                    out.append((yellow_label,) * k)
                if grey and k - 1 <= yellow and (variants or k > yellow):
                    out.append((yellow_label,) * (k - 1) + (grey_label,))
    if want in (None, "flight"):
        lengths = [top.size] if top is not None else range(3, DRAKE + 1)
        for start in held:
            for length in lengths:
                end = start + length - 1
                if end > DRAKE or any(r not in held for r in range(start + 1, end + 1)):
                    continue
                ranks = range(start, end + 1)
                choices = [held[r] if variants else held[r][:1] for r in ranks]
                out.extend(itertools.product(*choices))
    return out


# --------------------------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------------------------


class GreyDuckGame(Game):
    name = "grey"
    title = "Grey Duck"
    min_players = 3
    max_players = 5
    options_spec = (
        OptionSpec("hands", HANDS_DEFAULT, (), "number of hands in a match", "GREY-S2"),
        OptionSpec("names", "classic", ("classic", "minnesota"),
                   "display names: classic (grey, quack, Duckling) or minnesota (goose, honk, "
                   "Gosling)", "GREY-V1"),
        OptionSpec("first_dealer", 0, (), "seat of the first hand's dealer (the oldest player)",
                   "GREY-D2"),
        OptionSpec("swap_captain", -1, (),
                   "a Captain carried over from another table: the first hand starts with a swap "
                   "(-1: none)", "GREY-V2"),
        OptionSpec("swap_duckling", -1, (),
                   "the Duckling carried over from another table, who deals the first hand "
                   "(-1: none)", "GREY-V2"),
    )
    event_specs = (
        EventSpec(
            "deal",
            (
                Field("hands", "any", hidden=True,
                      help="per seat: the cards dealt (13 each for 3 players, else all)"),
                Field("leader", "seat", required=False,
                      help="first hand only: who holds the grey 1 and leads"),
                Field("counts", "any", required=False,
                      help="how many cards each seat got, e.g. [14, 13, 14, 13]; left out: "
                           "dealt one at a time from the dealer's left", shape="seat_counts"),
            ),
            chance=True,
            help="the dealer deals a new hand",
        ),
        EventSpec("counts", (
            Field("counts", "any",
                  help="how many cards each seat was really dealt this hand, e.g. "
                       "[14, 13, 14, 13]", shape="seat_counts"),
        ), chance=True, help="correct the number of cards each seat was dealt (observer)",
            rules=("GREY-D3",)),
        EventSpec("swap_pass", (
            Field("card", "card", help="the Duckling's highest card, passed face up"),
            Field("request", "int", required=False,
                  help="with a Drake: the rank (1-5) the Duckling asks for"),
        ), help="the Duckling passes their highest card to the Captain"),
        EventSpec("drake_request", (
            Field("rank", "int", required=False,
                  help="another rank 1-5 to ask for, or empty for any card"),
        ), help="the Duckling names another rank after the Captain had none"),
        EventSpec("cannot_comply", (), help="the Captain holds no card of the requested rank"),
        EventSpec("swap_return", (Field("card", "card", help="the card returned face up"),),
                  help="the Captain returns a card to the Duckling"),
        EventSpec("lame_duck", (), help="the Captain refuses the passed card and will lead"),
        EventSpec("lucky_duck", (), help="the Duckling shows both Drakes, passes nothing, leads"),
        EventSpec("play", (Field("cards", "cards", help="the cards laid"),),
                  help="lead or follow with a Lone Duck, Flock or Flight"),
        EventSpec("quack", (), help="pass this turn"),
        EventSpec("grey", (Field("card", "card", help="the grey duck added"),), turn_bound=False,
                  help="add a grey duck to the last play, out of turn (a race)"),
    )

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        if self.options["hands"] < 1:
            raise RulesError("option 'hands' must be 1 or more")
        captain, duckling = self.options["swap_captain"], self.options["swap_duckling"]
        if (captain < 0) != (duckling < 0):
            raise RulesError(
                "options 'swap_captain' and 'swap_duckling' go together: set both or neither")
        if captain >= 0 and captain == duckling:
            raise RulesError("the carried-over Captain and Duckling must be different seats")

    def public_event(self, event: Event) -> Event:
        """Hidden hands removed; a 4-5 player deal not dealt from the dealer's left keeps how
        many cards each seat got, which an observer at the table sees (GREY-D3)."""
        public = super().public_event(event)
        hands = event.data.get("hands") if event.type == "deal" else None
        if (isinstance(hands, list) and len(hands) in (4, 5) and "counts" not in public.data
                and all(isinstance(h, list) for h in hands)):
            counts = [len(h) for h in hands]
            n = len(hands)
            dealers = [event.seat] if isinstance(event.seat, int) and 0 <= event.seat < n \
                else list(range(n))
            if all(counts != deal_sizes(n, d) for d in dealers):  # not the usual order
                public = public.with_data(counts=counts)
        return public

    def new_state(self, players: Sequence[str], *, observer: bool = False) -> GreyDuckState:
        state = GreyDuckState(self, players, observer)
        for name in ("first_dealer", "swap_captain", "swap_duckling"):
            value = self.options[name]
            if value >= len(players) or (name == "first_dealer" and value < 0):
                raise RulesError(
                    f"option {name!r} must be a seat 0..{len(players) - 1}, got {value}")
        return state


# --------------------------------------------------------------------------------------------
# Records kept by the state (immutable, JSON-able)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Play:
    """The play on top of the trick: who owns it now, its cards and form, when it landed."""

    seat: int
    cards: tuple[str, ...]
    form: Form
    ts: int | None

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "cards": list(self.cards), "form": self.form.kind,
                "size": self.form.size}


@dataclass(frozen=True)
class TrickEntry:
    seat: int
    action: str  # "play" | "grey" | "quack"
    cards: tuple[str, ...] = ()
    ts: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "action": self.action}
        if self.cards:
            out["cards"] = list(self.cards)
        if self.ts is not None:
            out["ts"] = self.ts
        return out


@dataclass(frozen=True)
class RaceWindow:
    """An open grey race (GREY-G1): which grey may join which play, and since when.

    This drives the LED/buzzer cue: light up while a window is open.
    """

    grey: str
    seat: int
    cards: tuple[str, ...]
    form: str
    opened_at: int | None

    def to_json(self) -> dict[str, Any]:
        return {"grey": self.grey, "seat": self.seat, "cards": list(self.cards),
                "form": self.form, "opened_at": self.opened_at}


@dataclass(frozen=True)
class RaceOutcome:
    """A grey that won its race; ``overturned`` names the in-turn event it beat when it
    arrived late (with ``margin_ms`` by which its timestamp was earlier)."""

    hand: int
    grey: str
    seat: int
    ts: int | None
    joined_seat: int
    opened_at: int | None
    overturned: int | None = None
    overturned_action: str | None = None
    margin_ms: int | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"hand": self.hand, "grey": self.grey, "seat": self.seat, "ts": self.ts,
               "joined_seat": self.joined_seat, "opened_at": self.opened_at}
        if self.overturned is not None:
            out.update(overturned=self.overturned, overturned_action=self.overturned_action,
                       margin_ms=self.margin_ms)
        return out


@dataclass(frozen=True)
class Closure:
    """The in-turn event that closed a race window (kept to judge greys that arrive late)."""

    window: RaceWindow
    seat: int
    action: str  # "play" | "quack"
    cards: tuple[str, ...]
    ts: int | None


@dataclass(frozen=True)
class Swap:
    """The swap of one hand (GREY-W1..W3), all of it public: cards pass face up."""

    duckling: int
    captain: int
    step: str = "pass"  # pass -> return (-> request -> return ...) -> done
    passed: str | None = None
    request: int | None = None
    no_card_of: tuple[int, ...] = ()
    returned: str | None = None
    outcome: str | None = None  # "swapped" | "lame_duck" | "lucky_duck"

    def to_json(self) -> dict[str, Any]:
        return {"duckling": self.duckling, "captain": self.captain, "step": self.step,
                "passed": self.passed, "request": self.request,
                "no_card_of": list(self.no_card_of), "returned": self.returned,
                "outcome": self.outcome}


class _Pending:
    """The closing event of a race window while it is still the last event applied:
    the window, who closed it, and the position before it (for a late grey to restore)."""

    def __init__(self, closure: Closure, before: dict[str, Any] | None) -> None:
        self.closure = closure
        self.before = before


class _LastGrey:
    """A grey that won its window while it is still the last event applied, and the position
    before it (for an in-turn event stamped earlier, reported later, to restore)."""

    def __init__(self, event: Event, before: dict[str, Any]) -> None:
        self.event = event
        self.before = before


_NOT_SNAPSHOTTED = frozenset({"game", "players", "observer", "history", "terms", "_pending",
                              "_last_grey"})


def _copy_value(value: Any) -> Any:
    """Copy the mutable containers of a state field (their items are immutable records)."""
    if isinstance(value, Counter):
        return Counter(value)
    if isinstance(value, list):
        return [_copy_value(v) for v in value]
    if isinstance(value, set):
        return set(value)
    if isinstance(value, dict):
        return {k: _copy_value(v) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------


class GreyDuckState(State):
    """A Grey Duck match in progress (one table)."""

    game: GreyDuckGame

    def __init__(self, game: GreyDuckGame, players: Sequence[str], observer: bool) -> None:
        super().__init__(game, players, observer)
        n = len(players)
        opts = game.options
        self.terms = TERMS[opts["names"]]
        self.phase = "deal"  # deal -> [swap] -> play -> deal ... -> over
        self.hand_no = 0
        carried = opts["swap_duckling"] >= 0
        self.dealer: int = opts["swap_duckling"] if carried else opts["first_dealer"]
        self.captain: int | None = opts["swap_captain"] if carried else None
        self.duckling: int | None = opts["swap_duckling"] if carried else None
        self.results: list[tuple[int, ...]] = []  # finishing order of each finished hand
        self.points: list[list[int]] = [[] for _ in range(n)]
        self.race_log: list[RaceOutcome] = []
        # the hand in play
        self.hands: list[Counter[str]] | None = None  # full information only
        self.set_aside: Counter[str] = Counter()  # full information, 3 players: the unseen rest
        self.counts: list[int] = [0] * n
        self.dealt_counts: list[int] = [0] * n  # as dealt (or assumed) at the start of the hand
        self.known: list[Counter[str]] = [Counter() for _ in range(n)]  # public: shown cards
        self.played: Counter[str] = Counter()  # cards laid this hand
        self.out: list[int] = []
        self.swap: Swap | None = None
        self.leader: int | None = None
        self.turn: int | None = None
        self.turn_rule = "GREY-D2"  # the rule that made it this seat's turn
        self.trick: list[TrickEntry] = []
        self.top: Play | None = None
        self.quacked: set[int] = set()
        self.last_trick: dict[str, int] | None = None
        self.closure: Closure | None = None
        self._pending: _Pending | None = None
        self._last_grey: _LastGrey | None = None

    # -- the small API -------------------------------------------------------------------
    def left(self, seat: int) -> int:
        return (seat + 1) % self.num_players

    def to_move(self) -> int | None:
        if self.phase == "swap" and self.swap is not None:
            duckling_acts = self.swap.step in ("pass", "request")
            return self.swap.duckling if duckling_acts else self.swap.captain
        if self.phase == "play":
            return self.turn
        return None

    def needs_chance(self) -> bool:
        return self.phase == "deal"

    def is_over(self) -> bool:
        return self.phase == "over"

    def scores(self) -> list[int]:
        return [sum(p) for p in self.points]

    def turn_rules(self) -> tuple[str, ...]:
        """The one rule that made it this seat's turn: who leads a hand (D2, or W1 to W3 after
        a swap), who leads a trick (T4), who follows a play (T2), a Quack (T3) or a grey (G1)."""
        return ("GREY-W1",) if self.phase == "swap" else (self.turn_rule,)

    def game_over_rules(self) -> tuple[str, ...]:
        return ("GREY-S2",)

    def _chance_allowed(self, spec: EventSpec) -> bool:
        return spec.type == "counts" and self.phase in ("swap", "play")

    def _check_counts(self, event: Event) -> Verdict:
        counts = event.data["counts"]
        if self.phase not in ("swap", "play"):
            return Verdict.illegal(f"the counts are given during a hand; {self.describe_next()}",
                                   "GREY-D3")
        problem = self._counts_problem(counts)
        if problem:
            return Verdict.illegal(problem, "GREY-D3")
        if self.hands is not None and counts != self.dealt_counts:
            return Verdict.illegal("the deal named every hand: the counts are known",
                                   "GREY-D3")
        now = [c + have - dealt
               for c, have, dealt in zip(counts, self.counts, self.dealt_counts, strict=True)]
        for seat, left in enumerate(now):
            name = self.players[seat]
            if left < 0:
                return Verdict.illegal(
                    f"{name} has already laid {self.dealt_counts[seat] - self.counts[seat]} "
                    f"cards, more than {counts[seat]}", "GREY-D3")
            if left == 0 and seat not in self.out:
                return Verdict.illegal(
                    f"with these counts {name} would have gone out unnoticed; undo back to "
                    f"{name}'s last card and send the counts before it", "GREY-D3")
            known = sum(self.known[seat].values())
            if left < known:
                return Verdict.illegal(f"{name} is known to hold {known} cards, more than "
                                       f"{left}", "GREY-D3")
        back = [self.players[s] for s in self.out if now[s] > 0]
        more = f"; {', '.join(back)} still hold{'s' if len(back) == 1 else ''} cards" \
            if back else ""
        return Verdict.legal(f"cards dealt this hand: {counts}{more}", "GREY-D3")

    def _apply_counts(self, event: Event) -> None:
        counts = list(event.data["counts"])
        self.counts = [c + have - dealt
                       for c, have, dealt in zip(counts, self.counts, self.dealt_counts, strict=True)]
        self.dealt_counts = counts
        self.out = [s for s in self.out if self.counts[s] == 0]

    def next_rules(self) -> tuple[str, ...]:
        if self.phase == "deal":
            return ("GREY-D2",)
        return self.game_over_rules() if self.phase == "over" else self.turn_rules()

    def is_card_label(self, label: str) -> bool:
        return label in DECK_COUNTS

    def possible_cards(self, event_type: str, field: str) -> Mapping[str, int] | None:
        """A play or a Grey Duck names cards not yet laid this hand (each copy is laid once)."""
        if event_type not in ("play", "grey"):
            return None
        left = Counter(DECK_COUNTS)
        left.subtract(self.played)
        return +left

    def describe_next(self) -> str:
        if self.phase == "over":
            return "the game is over"
        if self.phase == "deal":
            return f"hand {self.hand_no + 1} must be dealt by {self.players[self.dealer]}"
        mover = self.to_move()
        name = self.players[mover] if mover is not None else "?"
        if self.phase == "swap" and self.swap is not None:
            return {
                "pass": f"{name} ({self.terms['duckling']}) must pass their highest card",
                "return": f"{name} ({self.terms['captain']}) must return a card or refuse",
                "request": f"{name} ({self.terms['duckling']}) may name another rank or none",
            }[self.swap.step]
        if self.top is None:
            return f"{name} (seat {mover}) leads the trick"
        return (f"{name} (seat {mover}) must follow {self.top.form.describe()} or "
                f"{self.terms['quack']}")

    def race_window(self) -> RaceWindow | None:
        """The open grey race, if any (GREY-G1): which grey may join which play, since when."""
        top = self.top
        if self.phase != "play" or top is None:
            return None
        if top.form.kind == "flight":
            if top.form.high >= DRAKE:
                return None
            label = GREY_OF[top.form.high + 1]
        else:
            label = GREY_OF[top.form.low]
        if self.played[label]:
            return None
        return RaceWindow(label, top.seat, top.cards, top.form.kind, top.ts)

    # -- checking: overrides of the framework ----------------------------------------------
    def check(self, event: Event) -> Verdict:
        verdict = self._check_in_order(event)
        if verdict.ok or event.type not in ("play", "quack") or self._last_grey is None:
            return verdict
        judged = self._judge_before_grey(event, self._last_grey)
        return judged if judged is not None else verdict  # (an illegal Verdict is falsy)

    def _check_in_order(self, event: Event) -> Verdict:
        """The verdict in the position as it stands (no reordering by timestamps)."""
        seat = event.seat
        if (event.type in ("play", "quack", "grey") and self.phase == "play"
                and isinstance(seat, int) and not isinstance(seat, bool)
                and 0 <= seat < self.num_players and self.counts[seat] == 0):
            hint = ""
            if self.observer:
                hint = ("; if they still hold cards, this hand was not dealt as assumed: send a "
                        "'counts' event with the cards each seat was really dealt")
            return Verdict.illegal(
                f"{self.players[seat]} has gone out (no cards left) and takes no further part "
                f"in this hand{hint}", "GREY-H1", *(("GREY-D3",) if hint else ()))
        if self.phase == "over" and event.type == "grey" and self._pending is not None:
            # The hand-ending play may still be overturned by a grey that was earlier (GREY-G1).
            spec = self.game.event_spec("grey")
            assert spec is not None
            problem = self._check_fields(spec, event)
            return Verdict.illegal(problem) if problem else self._check_grey(event)
        return super().check(event)

    def apply(self, event: Event) -> Verdict:
        pending, last_grey = self._pending, self._last_grey
        verdict = super().apply(event)
        if verdict.ok and self._pending is pending:
            self._pending = None  # another event followed: late greys can no longer overturn
        if verdict.ok and self._last_grey is last_grey:
            self._last_grey = None  # nor can late in-turn events take back the grey
        return verdict

    # -- holding checks ---------------------------------------------------------------------
    def _holding_problem(self, seat: int, cards: Sequence[str]) -> str | None:
        """Why ``seat`` cannot be holding ``cards`` (full hand, or all that is public)."""
        name = self.players[seat]
        need = Counter(cards)
        if self.hands is not None:
            missing = need - self.hands[seat]
            if missing:
                return f"{name} does not hold {show_cards(missing.elements(), self.terms)}"
            return None
        if len(cards) > self.counts[seat]:
            return f"{name} holds only {self.counts[seat]} card(s), not {len(cards)}"
        unknown_slots = self.counts[seat] - sum(self.known[seat].values())
        from_unknown = 0
        for label, m in need.items():
            extra = m - min(m, self.known[seat][label])
            if not extra:
                continue
            seen = self.played[label] + sum(k[label] for k in self.known)
            if self.swap is not None and self.swap.step != "done" and self.swap.passed == label:
                seen += 1
            if seen + extra > DECK_COUNTS[label]:
                return (f"all {DECK_COUNTS[label]} {label} are already accounted for (played or "
                        f"known to be in another hand), so {name} cannot hold it")
            from_unknown += extra
        if from_unknown > unknown_slots:
            shown = show_cards(self.known[seat].elements(), self.terms)
            return f"{name}'s cards are known to include {shown}, which leaves too few others"
        return None

    # -- deal (GREY-C1, D1, D2) ------------------------------------------------------------
    def _swap_roles(self) -> tuple[int, int] | None:
        """(Captain, Duckling) for the next hand's swap, or None for a first hand."""
        if self.captain is None or self.duckling is None:
            return None
        return self.captain, self.duckling

    def _first_leader(self, hands: Sequence[Iterable[str]]) -> int:
        for seat, hand in enumerate(hands):
            if GREY_ONE in hand:
                return seat
        return self.left(self.dealer)  # three players, grey 1 set aside: the dealer's left

    def _check_deal(self, event: Event) -> Verdict:
        if event.seat is not None and event.seat != self.dealer:
            return Verdict.illegal(
                f"{self.players[self.dealer]} deals this hand, not {self.players[event.seat]}",
                "GREY-D2")
        leader = event.data.get("leader")
        swapping = self._swap_roles() is not None
        if swapping and leader is not None:
            return Verdict.illegal(
                "'leader' is only for a first hand; after a swap the "
                f"{self.terms['duckling']} (or the Captain, after a Lame Duck) leads", "GREY-W1")
        counts = event.data.get("counts")
        if counts is not None:
            problem = self._counts_problem(counts)
            if problem:
                return Verdict.illegal(problem, "GREY-D3")
        if self.observer:
            if not swapping and leader is None:
                return Verdict.illegal(
                    "an observer cannot see who holds the grey 1: give the deal's 'leader' "
                    "(the seat that leads the first trick)", "GREY-D2")
            return Verdict.legal(f"hand {self.hand_no + 1} dealt", "GREY-D1",
                                 *(("GREY-D3",) if counts is not None else ()))
        hands = event.data["hands"]
        n = self.num_players
        if (not isinstance(hands, list) or len(hands) != n
                or not all(isinstance(h, list) for h in hands)):
            return Verdict.illegal(f"'hands' must be a list of {n} lists of cards, one per seat",
                                   "GREY-D1")
        sizes = deal_sizes(n, self.dealer)
        dealt: Counter[str] = Counter()
        for seat, (hand, size) in enumerate(zip(hands, sizes, strict=True)):
            for label in hand:
                if not isinstance(label, str) or label not in DECK_COUNTS:
                    return Verdict.illegal(f"{label!r} is not a card of Grey Duck", "GREY-C1")
            if n == 3 and len(hand) != size:
                return Verdict.illegal(
                    f"{self.players[seat]} must get {size} cards, not {len(hand)} (three "
                    "players get 13 each)", "GREY-D1")
            dealt.update(hand)
        if counts is not None and counts != [len(h) for h in hands]:
            return Verdict.illegal("the deal's 'counts' must match its hands", "GREY-D3")
        if n != 3:
            problem = self._counts_problem([len(h) for h in hands])
            if problem:
                return Verdict.illegal(problem, "GREY-D3")
        too_many = dealt - DECK_COUNTS
        if too_many:
            label = next(iter(too_many))
            return Verdict.illegal(
                f"the deck has {DECK_COUNTS[label]} {label}, the deal gives out {dealt[label]}",
                "GREY-C1")
        first = self._first_leader(hands)
        if leader is not None and leader != first:
            why = ("they hold the grey 1" if any(GREY_ONE in h for h in hands)
                   else "nobody holds the grey 1, so the dealer's left leads")
            return Verdict.illegal(f"{self.players[first]} leads: {why}", "GREY-D2")
        rules = ("GREY-D3",) if n != 3 and [len(h) for h in hands] != sizes else ()
        return Verdict.legal(f"hand {self.hand_no + 1} dealt", "GREY-D1", "GREY-C1", *rules)

    def _counts_problem(self, counts: Any) -> str | None:
        """Why ``counts`` cannot be the cards dealt per seat this hand (GREY-D1, D3)."""
        n = self.num_players
        if (not isinstance(counts, list) or len(counts) != n or not all(
                isinstance(c, int) and not isinstance(c, bool) for c in counts)):
            return f"'counts' must be a list of {n} whole numbers, one per seat, e.g. " + str(
                deal_sizes(n, self.dealer))
        if n == 3:
            return None if counts == [THREE_PLAYER_HAND] * 3 else (
                f"three players get {THREE_PLAYER_HAND} cards each, not {counts}")
        if sum(counts) != len(FULL_DECK) or max(counts) - min(counts) > 1:
            return (f"the whole deck of {len(FULL_DECK)} is dealt and no hand is more than one "
                    f"card larger than another, so {counts} cannot be the counts (e.g. "
                    f"{deal_sizes(n, self.dealer)})")
        return None

    def _apply_deal(self, event: Event) -> None:
        n = self.num_players
        self.hand_no += 1
        given = event.data.get("counts")
        if not self.observer:
            given = [len(h) for h in event.data["hands"]]
        self.counts = list(given) if given is not None else deal_sizes(n, self.dealer)
        self.dealt_counts = list(self.counts)
        self.known = [Counter() for _ in range(n)]
        self.played = Counter()
        self.out = []
        self.trick, self.top, self.quacked, self.last_trick = [], None, set(), None
        self.closure = None
        if self.observer:
            self.hands = None
        else:
            hands = event.data["hands"]
            self.hands = [Counter(h) for h in hands]
            rest = Counter(DECK_COUNTS)
            for h in self.hands:
                rest.subtract(h)
            self.set_aside = +rest
        roles = self._swap_roles()
        if roles is None:
            leader = event.data.get("leader")
            if leader is None:
                assert self.hands is not None
                leader = self._first_leader([set(h) for h in self.hands])
            self.swap = None
            self._start_play(leader, "GREY-D2")
        else:
            self.swap = Swap(duckling=roles[1], captain=roles[0])
            self.phase = "swap"
            self.leader = self.turn = None

    def _start_play(self, leader: int, rule: str) -> None:
        self.phase = "play"
        self.leader = self.turn = leader
        self.turn_rule = rule

    def chance_event(self, rng: random.Random) -> Event:
        """Shuffle and deal one card at a time from the dealer's left (GREY-D1)."""
        cards = list(FULL_DECK)
        rng.shuffle(cards)
        n = self.num_players
        sizes = deal_sizes(n, self.dealer)
        hands: list[list[str]] = [[] for _ in range(n)]
        seat = self.left(self.dealer)
        for card in cards[: sum(sizes)]:
            while len(hands[seat]) >= sizes[seat]:
                seat = self.left(seat)
            hands[seat].append(card)
            seat = self.left(seat)
        data: dict[str, Any] = {"hands": [sorted(h, key=card_order) for h in hands]}
        if self._swap_roles() is None:
            data["leader"] = self._first_leader(hands)
        return Event("deal", self.dealer, data)

    def arranged_deal(self, fixed: Mapping[int, Iterable[str]]) -> Event:
        """A deal giving chosen cards to some seats; every other place is filled from the rest
        of the deck, yellow low ranks first and greys last (for tests, demos and tutorials)."""
        n = self.num_players
        sizes = deal_sizes(n, self.dealer)
        hands = [list(fixed.get(seat, ())) for seat in range(n)]
        rest = Counter(DECK_COUNTS)
        for seat, hand in enumerate(hands):
            if len(hand) > sizes[seat]:
                raise RulesError(f"seat {seat} gets {sizes[seat]} cards, {len(hand)} were fixed")
            rest.subtract(hand)
        if -rest:
            raise RulesError(f"more copies than the deck holds: {dict(-rest)}")
        pool = sorted((+rest).elements(), key=lambda c: (is_grey(c), RANK_OF[c]))
        for seat in range(n):
            take = sizes[seat] - len(hands[seat])
            hands[seat] += pool[:take]
            pool = pool[take:]
        data: dict[str, Any] = {"hands": [sorted(h, key=card_order) for h in hands]}
        if self._swap_roles() is None:
            data["leader"] = self._first_leader(hands)
        return Event("deal", self.dealer, data)

    # -- swap (GREY-W1, W2, W3) ---------------------------------------------------------------
    def _swap_step_problem(self, *steps: str) -> Verdict | None:
        if self.phase != "swap" or self.swap is None or self.swap.step not in steps:
            return Verdict.illegal(f"not now: {self.describe_next()}", "GREY-W1")
        return None

    def _holds_both_drakes(self, seat: int) -> bool:
        return self.hands is not None and all(self.hands[seat][d] for d in DRAKES)

    def _check_swap_pass(self, event: Event) -> Verdict:
        problem = self._swap_step_problem("pass")
        if problem is not None:
            return problem
        assert self.swap is not None
        card, request = event.data["card"], event.data.get("request")
        seat = self.swap.duckling
        name = self.players[seat]
        if self._holds_both_drakes(seat):
            return Verdict.illegal(
                f"{name} holds both Drakes: that is a Lucky Duck, pass nothing (lucky_duck)",
                "GREY-W3")
        holding = self._holding_problem(seat, [card])
        if holding:
            return Verdict.illegal(holding, "GREY-W1")
        owned = self.hands[seat] if self.hands is not None else self.known[seat]
        best = max((RANK_OF[c] for c in owned if owned[c]), default=0)
        if RANK_OF[card] < best:
            return Verdict.illegal(
                f"the {self.terms['duckling']} must pass their highest card: {name} holds a "
                f"{rank_name(best)}", "GREY-W1")
        if request is not None:
            if RANK_OF[card] != DRAKE:
                return Verdict.illegal(
                    "a rank may be asked for only in return for a Drake", "GREY-W1")
            if not 1 <= request <= MAX_REQUEST:
                return Verdict.illegal(
                    f"the rank asked for must be 1 to {MAX_REQUEST}, not {request}", "GREY-W1")
        return Verdict.legal(f"{name} passes {show_cards([card], self.terms)}", "GREY-W1")

    def _apply_swap_pass(self, event: Event) -> None:
        assert self.swap is not None
        card = event.data["card"]
        self._take(self.swap.duckling, [card])
        request = event.data.get("request")
        self.swap = replace(self.swap, step="return", passed=card, request=request)

    def _check_drake_request(self, event: Event) -> Verdict:
        problem = self._swap_step_problem("request")
        if problem is not None:
            return problem
        assert self.swap is not None
        rank = event.data.get("rank")
        if rank is None:
            return Verdict.legal("no rank asked for: the Captain returns any card", "GREY-W1")
        if not 1 <= rank <= MAX_REQUEST:
            return Verdict.illegal(
                f"the rank asked for must be 1 to {MAX_REQUEST}, not {rank}", "GREY-W1")
        if rank in self.swap.no_card_of:
            return Verdict.illegal(
                f"the {self.terms['captain']} already said they hold no {rank}; name another "
                "rank or none", "GREY-W1")
        return Verdict.legal(f"the {self.terms['duckling']} asks for a {rank}", "GREY-W1")

    def _apply_drake_request(self, event: Event) -> None:
        assert self.swap is not None
        self.swap = replace(self.swap, step="return", request=event.data.get("rank"))

    def _check_cannot_comply(self, event: Event) -> Verdict:
        problem = self._swap_step_problem("return")
        if problem is not None:
            return problem
        assert self.swap is not None
        rank = self.swap.request
        if rank is None:
            return Verdict.illegal("no rank was asked for: return any card", "GREY-W1")
        seat = self.swap.captain
        owned = self.hands[seat] if self.hands is not None else self.known[seat]
        has = sorted((c for c in owned if owned[c] and RANK_OF[c] == rank), key=card_order)
        if has:
            return Verdict.illegal(
                f"{self.players[seat]} holds {show_cards(has[:1], self.terms)} and must return it",
                "GREY-W1")
        return Verdict.legal(f"{self.players[seat]} has no {rank}", "GREY-W1")

    def _apply_cannot_comply(self, event: Event) -> None:
        assert self.swap is not None and self.swap.request is not None
        self.swap = replace(self.swap, step="request", request=None,
                            no_card_of=self.swap.no_card_of + (self.swap.request,))

    def _check_swap_return(self, event: Event) -> Verdict:
        problem = self._swap_step_problem("return")
        if problem is not None:
            return problem
        assert self.swap is not None
        card = event.data["card"]
        rank = self.swap.request
        if rank is not None and RANK_OF[card] != rank:
            return Verdict.illegal(
                f"the {self.terms['duckling']} asked for a {rank}: return a {rank}, or say you "
                "have none (cannot_comply)", "GREY-W1")
        if card == self.swap.passed:  # handed to the Captain face up a moment ago
            return Verdict.legal(
                f"{self.players[self.swap.captain]} hands back {show_cards([card], self.terms)}; "
                f"{self.players[self.swap.duckling]} leads", "GREY-W1", "GREY-W4")
        holding = self._holding_problem(self.swap.captain, [card])
        if holding:
            return Verdict.illegal(holding, "GREY-W1")
        return Verdict.legal(
            f"{self.players[self.swap.captain]} returns {show_cards([card], self.terms)}; "
            f"{self.players[self.swap.duckling]} leads", "GREY-W1")

    def _apply_swap_return(self, event: Event) -> None:
        assert self.swap is not None and self.swap.passed is not None
        card, captain, duckling = event.data["card"], self.swap.captain, self.swap.duckling
        self._give(captain, self.swap.passed)
        self._take(captain, [card])
        self._give(duckling, card)
        self.swap = replace(self.swap, step="done", returned=card, outcome="swapped")
        self._start_play(duckling, "GREY-W1")

    def _check_lame_duck(self, event: Event) -> Verdict:
        problem = self._swap_step_problem("return")
        if problem is not None:
            return problem
        assert self.swap is not None
        return Verdict.legal(
            f"Lame Duck: {self.players[self.swap.captain]} refuses the card and leads", "GREY-W2")

    def _apply_lame_duck(self, event: Event) -> None:
        assert self.swap is not None and self.swap.passed is not None
        self._give(self.swap.duckling, self.swap.passed)
        self.swap = replace(self.swap, step="done", outcome="lame_duck")
        self._start_play(self.swap.captain, "GREY-W2")

    def _check_lucky_duck(self, event: Event) -> Verdict:
        problem = self._swap_step_problem("pass")
        if problem is not None:
            return problem
        assert self.swap is not None
        seat = self.swap.duckling
        if self.hands is not None and not self._holds_both_drakes(seat):
            return Verdict.illegal(
                f"{self.players[seat]} does not hold both Drakes, so no Lucky Duck", "GREY-W3")
        holding = self._holding_problem(seat, list(DRAKES))
        if holding:
            return Verdict.illegal(holding, "GREY-W3")
        return Verdict.legal(
            f"Lucky Duck: {self.players[seat]} passes nothing and leads", "GREY-W3")

    def _apply_lucky_duck(self, event: Event) -> None:
        assert self.swap is not None
        seat = self.swap.duckling
        for drake in DRAKES:
            if self.known[seat][drake] == 0:
                self.known[seat][drake] = 1
        self.swap = replace(self.swap, step="done", outcome="lucky_duck")
        self._start_play(seat, "GREY-W3")

    def _take(self, seat: int, cards: Sequence[str]) -> None:
        """Cards leave ``seat``'s hand (played or passed)."""
        if self.hands is not None:
            hand = self.hands[seat]
            for c in cards:
                hand[c] -= 1
                if not hand[c]:
                    del hand[c]
        known = self.known[seat]
        for c in cards:
            if known[c]:
                known[c] -= 1
                if not known[c]:
                    del known[c]
        self.counts[seat] -= len(cards)

    def _give(self, seat: int, card: str) -> None:
        """A card shown face up goes into ``seat``'s hand: everyone knows it is there."""
        if self.hands is not None:
            self.hands[seat][card] += 1
        self.known[seat][card] += 1
        self.counts[seat] += 1

    # -- tricks (GREY-T1..T4, H1) -------------------------------------------------------------
    def _play_phase_problem(self) -> Verdict | None:
        if self.phase != "play":
            return Verdict.illegal(f"not now: {self.describe_next()}", "GREY-W1")
        return None

    def _check_play(self, event: Event) -> Verdict:
        problem = self._play_phase_problem()
        if problem is not None:
            return problem
        seat = event.seat
        assert seat is not None
        cards = event.data["cards"]
        form = classify(cards)
        if isinstance(form, str):
            return Verdict.illegal(form, "GREY-T1")
        holding = self._holding_problem(seat, cards)
        if holding:
            return Verdict.illegal(holding, "GREY-T1")
        name = self.players[seat]
        if self.top is not None:
            why = follow_problem(form, self.top.form)
            if why:
                window = self.race_window()
                hint = ""
                if window is not None and list(cards) == [window.grey]:
                    hint = (f"; to add the {show_cards(cards, self.terms)} to the last play, "
                            "send it as a 'grey' event")
                return Verdict.illegal(f"{why}{hint}", "GREY-T2")
            return Verdict.legal(f"{name} follows with {form.describe()}", "GREY-T2")
        return Verdict.legal(f"{name} leads {form.describe()}", "GREY-T1")

    def _apply_play(self, event: Event) -> None:
        seat = event.seat
        assert seat is not None
        cards = tuple(event.data["cards"])
        form = classify(cards)
        assert isinstance(form, Form)
        withdrawn = self._withdraw_later_grey(event)
        self._note_closure(seat, "play", cards, event.ts)
        self._take(seat, cards)
        self.played.update(cards)
        self.trick.append(TrickEntry(seat, "play", cards, event.ts))
        self.top = Play(seat, cards, form, event.ts)
        self.quacked = set()
        self._after_cards_laid(seat)
        self._rejoin(withdrawn)

    def _check_quack(self, event: Event) -> Verdict:
        problem = self._play_phase_problem()
        if problem is not None:
            return problem
        name = self.players[event.seat or 0]
        if self.top is None:
            return Verdict.illegal(
                f"{name} leads this trick and must play; a {self.terms['quack']} only passes on a "
                "play to follow", "GREY-T3")
        return Verdict.legal(f"{name} {self.terms['quacked']}", "GREY-T3")

    def _apply_quack(self, event: Event) -> None:
        withdrawn = self._withdraw_later_grey(event)
        self._quack(event)
        self._rejoin(withdrawn)

    def _quack(self, event: Event) -> None:
        seat = event.seat
        assert seat is not None and self.top is not None
        if self._trick_won_with(seat):
            self._note_closure(seat, "quack", (), event.ts)
        self.trick.append(TrickEntry(seat, "quack", (), event.ts))
        self.quacked.add(seat)
        if self._trick_won_with(seat):
            self._gather()
        else:
            self.turn = self._next_holder(seat)
            self.turn_rule = "GREY-T3"

    def _trick_won_with(self, quacker: int) -> bool:
        """Whether the top play has been quacked by everyone else holding cards (GREY-T4)."""
        assert self.top is not None
        owner = self.top.seat
        return all(s in (owner, quacker) or s in self.quacked
                   for s in range(self.num_players) if self.counts[s] > 0)

    def _gather(self) -> None:
        assert self.top is not None
        winner = self.top.seat
        cards = sum(len(e.cards) for e in self.trick)
        self.last_trick = {"winner": winner, "cards": cards}
        self.trick, self.top, self.quacked = [], None, set()
        lead = winner if self.counts[winner] > 0 else self._next_holder(winner)
        self.leader = self.turn = lead
        self.turn_rule = "GREY-T4"

    def _next_holder(self, seat: int) -> int | None:
        """The first seat to the left of ``seat`` that still holds cards."""
        for step in range(1, self.num_players + 1):
            s = (seat + step) % self.num_players
            if self.counts[s] > 0:
                return s
        return None

    def _after_cards_laid(self, seat: int, rule: str = "GREY-T2") -> None:
        if self.counts[seat] == 0:
            self.out.append(seat)
        holding = [s for s in range(self.num_players) if self.counts[s] > 0]
        if len(holding) <= 1:
            self._end_hand(holding)
        else:
            self.turn = self._next_holder(seat)
            self.turn_rule = rule

    def _end_hand(self, holding: list[int]) -> None:
        """Score the hand (GREY-H1, S1) and pass the deal to the Duckling (GREY-D2)."""
        order = tuple(self.out + holding)
        points = hand_points(self.num_players)
        for place, seat in enumerate(order):
            self.points[seat].append(points[place])
        self.results.append(order)
        self.captain, self.duckling = order[0], order[-1]
        self.dealer = order[-1]
        self.trick, self.top, self.quacked, self.turn, self.leader = [], None, set(), None, None
        self.phase = "over" if len(self.results) >= self.game.options["hands"] else "deal"

    # -- grey races (GREY-G1) ---------------------------------------------------------------
    def _note_closure(self, seat: int, action: str, cards: tuple[str, ...], ts: int | None) -> None:
        """Before an in-turn event lays cards or ends the trick: remember the window it closes."""
        window = self.race_window()
        if window is None:
            return
        live = self.hands is None or any(h[window.grey] for h in self.hands)
        before = self._snapshot() if live else None
        self.closure = Closure(window, seat, action, cards, ts)
        self._pending = _Pending(self.closure, before)

    def _snapshot(self) -> dict[str, Any]:
        """The position, to go back to when a race is decided after the fact."""
        return {k: _copy_value(v) for k, v in vars(self).items() if k not in _NOT_SNAPSHOTTED}

    def _position(self, before: dict[str, Any]) -> GreyDuckState:
        """A scratch copy of an earlier position (a :meth:`_snapshot`; shares nothing mutable),
        to judge an event there."""
        trial = copy.copy(self)
        vars(trial).update(_copy_value(before))
        trial._pending = trial._last_grey = None
        return trial

    def _restore(self, before: dict[str, Any]) -> None:
        """Go back to an earlier position (a :meth:`_snapshot`): a race decided after the fact."""
        vars(self).update(_copy_value(before))

    def _judge_before_grey(self, event: Event, last: _LastGrey) -> Verdict | None:
        """An in-turn event refused after the grey that won its window, judged by timestamps
        (see the module doc); None when the position before the grey refuses it too."""
        earlier = self._position(last.before)
        verdict = earlier._check_in_order(event)
        if not verdict.ok:
            return None
        grey_event = last.event
        grey_seat = grey_event.seat or 0
        grey_word = show_cards([grey_event.data["card"]], self.terms)
        what = "play" if event.type == "play" else self.terms["quack"]
        mover = self.players[event.seat or 0]
        if event.ts is None or grey_event.ts is None:
            return Verdict.illegal(
                f"too late: {self.players[grey_seat]}'s {grey_word} came first, and without "
                "timestamps on both the order of arrival decides", "GREY-G1")
        if event.ts > grey_event.ts:
            return Verdict.illegal(
                f"too late: {self.players[grey_seat]}'s {grey_word} came first by "
                f"{event.ts - grey_event.ts} ms, before {mover}'s {what}; "
                f"{self.describe_next()}", "GREY-G1")
        getattr(earlier, f"_apply_{event.type}")(event)
        again = earlier._check_in_order(grey_event)
        after = (f"{self.players[grey_seat]}'s {grey_word} still joins, after it" if again.ok
                 else f"{self.players[grey_seat]} takes back the {grey_word}")
        margin = grey_event.ts - event.ts
        first = (f"came first by {margin} ms" if margin
                 else "came in the same millisecond (a tie goes to the in-turn play)")
        return Verdict.legal(
            f"{mover}'s {what} {first} although reported after {self.players[grey_seat]}'s "
            f"{grey_word}: {after}; {verdict.reason}", *verdict.rules, "GREY-G1")

    def _withdraw_later_grey(self, event: Event) -> Event | None:
        """When ``event`` stands only because it came before the last grey: go back to the
        position before that grey and return the grey, to judge again after ``event``."""
        last = self._last_grey
        if last is None or self._check_in_order(event).ok:
            return None
        self._restore(last.before)
        self._last_grey = None
        return last.event

    def _rejoin(self, grey_event: Event | None) -> None:
        """A grey taken back joins again when it still may (after a Quack that left the trick
        open); otherwise it stays in its player's hand."""
        if grey_event is not None and self._check_in_order(grey_event).ok:
            self._apply_grey(grey_event)

    def _check_grey(self, event: Event) -> Verdict:
        seat, card = event.seat, event.data["card"]
        if seat is None:
            return Verdict.illegal("a 'grey' needs the seat that plays it")
        if not is_grey(card):
            return Verdict.illegal(
                f"only a {self.terms['grey']} duck may be played out of turn; {card} is yellow",
                "GREY-G1")
        pending = self._pending
        if pending is not None and pending.closure.window.grey == card:
            return self._judge_late(event, pending)
        problem = self._play_phase_problem()
        if problem is not None:
            return problem
        window = self.race_window()
        if window is not None and window.grey == card:
            return self._judge_in_window(event, window)
        grey_word = show_cards([card], self.terms)
        closure = self.closure
        if closure is not None and closure.window.grey == card:
            return Verdict.illegal(
                f"too late: the window for the {grey_word} closed when "
                f"{self._closure_words(closure)}, and play has moved on", "GREY-G1")
        if window is None:
            return Verdict.illegal(
                f"the {grey_word} has nothing to join: no Lone Duck, Flock or Flight is waiting "
                "for a grey", "GREY-G1")
        return Verdict.illegal(
            f"the {grey_word} does not fit {self.players[window.seat]}'s "
            f"{show_cards(window.cards, self.terms)}: only the "
            f"{show_cards([window.grey], self.terms)} may join it", "GREY-G1")

    def _closure_words(self, closure: Closure) -> str:
        name = self.players[closure.seat]
        if closure.action == "quack":
            return f"{name} {self.terms['quacked']}"
        return f"{name} played {show_cards(closure.cards, self.terms)}"

    def _judge_in_window(self, event: Event, window: RaceWindow) -> Verdict:
        seat = event.seat
        assert seat is not None
        grey_word = show_cards([window.grey], self.terms)
        owner = self.players[window.seat]
        if event.ts is not None and window.opened_at is not None and event.ts < window.opened_at:
            return Verdict.illegal(
                f"the {grey_word} is {window.opened_at - event.ts} ms older than {owner}'s "
                f"{show_cards(window.cards, self.terms)}: a grey can only join a play already on "
                "the table", "GREY-G1")
        holding = self._holding_problem(seat, [window.grey])
        if holding:
            return Verdict.illegal(holding, "GREY-G1")
        form = classify(window.cards + (window.grey,))
        assert isinstance(form, Form)
        nxt = self._next_holder(seat)
        after = self.players[nxt] if nxt is not None else "nobody"
        return Verdict.legal(
            f"{self.players[seat]}'s {grey_word} joins {owner}'s "
            f"{show_cards(window.cards, self.terms)}: now {form.describe()}; {after} plays next",
            "GREY-G1")

    def _judge_late(self, event: Event, pending: _Pending) -> Verdict:
        closure = pending.closure
        grey_word = show_cards([closure.window.grey], self.terms)
        what = self._closure_words(closure)
        if event.ts is None or closure.ts is None:
            return Verdict.illegal(
                f"too late: {what} first, and without timestamps on both the order of arrival "
                "decides", "GREY-G1")
        if event.ts >= closure.ts:
            margin = event.ts - closure.ts
            if margin == 0:
                return Verdict.illegal(
                    f"too late: {what} in the same millisecond as the {grey_word}; a tie goes "
                    "to the in-turn play", "GREY-G1")
            verb = "'s play" if closure.action == "play" else f"'s {self.terms['quack']}"
            return Verdict.illegal(
                f"too late: {self.players[closure.seat]}{verb} came first by {margin} ms "
                f"({what})", "GREY-G1")
        if pending.before is None:  # full information: nobody holds that grey
            return Verdict.illegal(
                self._holding_problem(event.seat or 0, [closure.window.grey]) or "no such grey",
                "GREY-G1")
        verdict = self._position(pending.before)._judge_in_window(event, closure.window)
        if not verdict.ok:
            return verdict
        taker = self.players[closure.seat]
        back = (f"{taker} takes back {show_cards(closure.cards, self.terms)}"
                if closure.action == "play" else f"{taker}'s {self.terms['quack']} is undone")
        return Verdict.legal(
            f"{self.players[event.seat or 0]}'s {grey_word} came first by "
            f"{closure.ts - event.ts} ms although reported after {what}: {back}; {verdict.reason}",
            "GREY-G1")

    def _apply_grey(self, event: Event) -> None:
        seat, card = event.seat, event.data["card"]
        assert seat is not None
        pending = self._pending
        overturned: Closure | None = None
        if pending is not None and pending.closure.window.grey == card:
            assert pending.before is not None
            overturned = pending.closure
            self._restore(pending.before)
            self._pending = None
        else:  # won in its window: an in-turn event stamped earlier may still take it back
            self._last_grey = _LastGrey(event, self._snapshot())
        window = self.race_window()
        assert window is not None and window.grey == card
        cards = window.cards + (card,)
        form = classify(cards)
        assert isinstance(form, Form)
        self._take(seat, [card])
        self.played[card] += 1
        self.trick.append(TrickEntry(seat, "grey", (card,), event.ts))
        self.top = Play(seat, cards, form, event.ts)
        self.quacked = set()
        margin = None
        if overturned is not None and overturned.ts is not None and event.ts is not None:
            margin = overturned.ts - event.ts
        self.race_log.append(RaceOutcome(
            hand=self.hand_no, grey=card, seat=seat, ts=event.ts, joined_seat=window.seat,
            opened_at=window.opened_at,
            overturned=overturned.seat if overturned else None,
            overturned_action=overturned.action if overturned else None,
            margin_ms=margin))
        self._after_cards_laid(seat, "GREY-G1")

    # -- bots' view: legal events -------------------------------------------------------------
    def legal_events(self, seat: int | None = None) -> list[Event]:
        """Every legal event for ``seat`` (default: the seat to move), with full information.

        A seat not to move gets its racing greys while a window is open (GREY-G1). Observer
        states know no hands: they offer only a Quack where one is allowed.
        """
        mover = self.to_move()
        if seat is None:
            seat = mover
        if seat is None or self.phase in ("deal", "over"):
            return []
        if self.phase == "swap":
            return self._legal_swap(seat) if seat == mover else []
        events: list[Event] = []
        if self.counts[seat] == 0:
            return events
        if seat == mover:
            if self.hands is not None:
                top = self.top.form if self.top is not None else None
                events += [Event("play", seat, {"cards": list(p)})
                           for p in candidate_plays(self.hands[seat], top)]
            if self.top is not None:
                events.append(Event("quack", seat))
        window = self.race_window()
        if window is not None and self.hands is not None and self.hands[seat][window.grey]:
            events.append(Event("grey", seat, {"card": window.grey}))
        return events

    def due_types(self) -> list[str]:
        """What an observer's phone should enter next (its legal events know no hands)."""
        if self.hands is not None:
            return []  # full information: legal_events lists the moves themselves
        if self.phase == "play":
            return ["play", "quack"] if self.top is not None else ["play"]
        if self.phase == "swap" and self.swap is not None:
            return {"pass": ["swap_pass", "lucky_duck"], "request": ["drake_request"]}.get(
                self.swap.step, ["swap_return", "cannot_comply", "lame_duck"])
        return []

    def _legal_swap(self, seat: int) -> list[Event]:
        swap = self.swap
        if swap is None or self.hands is None:
            return []
        hand = self.hands[seat]
        if swap.step == "pass":
            if self._holds_both_drakes(seat):
                return [Event("lucky_duck", seat)]
            best = max(RANK_OF[c] for c in hand)
            events = []
            for label in sorted(c for c in hand if RANK_OF[c] == best):
                events.append(Event("swap_pass", seat, {"card": label}))
                if best == DRAKE:
                    events += [Event("swap_pass", seat, {"card": label, "request": r})
                               for r in range(1, MAX_REQUEST + 1)]
            return events
        if swap.step == "request":
            return [Event("drake_request", seat, {})] + [
                Event("drake_request", seat, {"rank": r}) for r in range(1, MAX_REQUEST + 1)
                if r not in swap.no_card_of]
        events = [Event("lame_duck", seat)]
        labels = sorted(c for c in hand if swap.request is None or RANK_OF[c] == swap.request)
        if swap.request is not None and not labels:
            events.append(Event("cannot_comply", seat))
        events += [Event("swap_return", seat, {"card": c}) for c in labels]
        return events

    # -- views --------------------------------------------------------------------------------
    def places(self) -> list[int | None]:
        """Each seat's finishing place this hand (1 = Captain), None while still holding cards."""
        out: list[int | None] = [None] * self.num_players
        order = list(self.out)
        if self.phase in ("deal", "over") and self.results:
            order = list(self.results[-1])
        for place, seat in enumerate(order):
            out[seat] = place + 1
        return out

    def public_view(self) -> dict[str, Any]:
        """The scoreboard: seats with cards left, place this hand, points per hand and totals;
        whose turn; the trick; the race window and log. The same in observer mode."""
        window = self.race_window()
        places = self.places()
        totals = self.scores()
        n = self.num_players
        return {
            "game": self.game.name,
            "names": self.game.options["names"],
            "terms": dict(self.terms),
            "hand": self.hand_no,
            "hands": self.game.options["hands"],
            "phase": self.phase,
            "dealer": self.dealer,
            "to_move": self.to_move(),
            "leader": self.leader,
            "captain": self.captain,
            "duckling": self.duckling,
            "seats": [
                {"seat": s, "name": self.players[s], "cards": self.counts[s],
                 "known": sorted(self.known[s].elements(), key=card_order),
                 "place": places[s], "points": list(self.points[s]), "total": totals[s]}
                for s in range(n)
            ],
            "unseen": len(FULL_DECK) - sum(deal_sizes(n, self.dealer)),
            "out": list(self.out),
            "swap": self.swap.to_json() if self.swap is not None else None,
            "trick": {
                "leader": self.leader,
                "plays": [e.to_json() for e in self.trick],
                "top": self.top.to_json() if self.top is not None else None,
                "quacked": sorted(self.quacked),
            },
            "last_trick": dict(self.last_trick) if self.last_trick else None,
            "race_window": window.to_json() if window is not None else None,
            "races": [r.to_json() for r in self.race_log],
            "results": [list(r) for r in self.results],
            "over": self.is_over(),
            "winners": self.winners(),
        }

    def player_view(self, seat: int) -> dict[str, Any]:
        view = self.public_view()
        hand = self.hands[seat] if self.hands is not None else self.known[seat]
        view["seat"] = seat
        view["hand"] = sorted(hand.elements(), key=card_order)
        view["hand_complete"] = self.hands is not None
        return view

    def summary(self) -> str:
        """A few lines of plain text for logs and the CLI."""
        hands = self.game.options["hands"]
        lines = [f"Grey Duck, hand {self.hand_no} of {hands}: {self.describe_next()}"]
        places = self.places()
        for s, name in enumerate(self.players):
            place = f"#{places[s]}" if places[s] else "  "
            pts = " ".join(str(p) for p in self.points[s])
            total = sum(self.points[s])
            lines.append(f"  {name:<12} {self.counts[s]:>2} cards {place:<3} [{pts}] total {total}")
        if self.top is not None:
            lines.append(f"  on the table: {self.players[self.top.seat]}'s "
                         f"{show_cards(self.top.cards, self.terms)}")
        window = self.race_window()
        if window is not None:
            lines.append(f"  race open for the {show_cards([window.grey], self.terms)}")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Bots and the race-aware simulator
# --------------------------------------------------------------------------------------------


def _play_key(cards: tuple[str, ...]) -> tuple[int, int, int]:
    """Greedy order: lowest rank first, greys kept back, then as many cards as possible."""
    return min(RANK_OF[c] for c in cards), sum(is_grey(c) for c in cards), -len(cards)


class GreedyGreyBot(Bot):
    """Plays the lowest legal play, quacks when it cannot follow, grabs every grey race.

    Swap: passes a yellow before a grey of the same rank, asks for the rank it holds most of
    (<= 5) when passing a Drake, returns its lowest card as Captain and never refuses.
    """

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng  # unused: the greedy choice is deterministic; kept for a uniform bot API

    def choose(self, state: State, seat: int) -> Event:
        assert isinstance(state, GreyDuckState) and state.hands is not None
        hand = state.hands[seat]
        window = state.race_window()
        if state.phase == "play" and window is not None and hand[window.grey]:
            return Event("grey", seat, {"card": window.grey})
        if seat != state.to_move():
            raise RulesError(f"seat {seat} has nothing to do: {state.describe_next()}")
        if state.phase == "swap":
            return self._swap(state, seat, hand)
        top = state.top.form if state.top is not None else None
        plays = candidate_plays(hand, top, variants=False)
        if not plays:
            return Event("quack", seat)
        best: tuple[str, ...] = min(plays, key=_play_key)
        return Event("play", seat, {"cards": list(best)})

    def _swap(self, state: GreyDuckState, seat: int, hand: Counter[str]) -> Event:
        swap = state.swap
        assert swap is not None
        if swap.step == "pass":
            if state._holds_both_drakes(seat):
                return Event("lucky_duck", seat)
            card = max(hand, key=lambda c: (RANK_OF[c], not is_grey(c)))
            data: dict[str, Any] = {"card": card}
            if RANK_OF[card] == DRAKE:
                low = Counter(RANK_OF[c] for c in hand.elements() if RANK_OF[c] <= MAX_REQUEST)
                if low:
                    data["request"] = max(sorted(low), key=lambda r: low[r])
            return Event("swap_pass", seat, data)
        if swap.step == "request":
            return Event("drake_request", seat, {})
        wanted = [c for c in hand if swap.request is None or RANK_OF[c] == swap.request]
        if not wanted:
            return Event("cannot_comply", seat)
        return Event("swap_return", seat, {"card": min(wanted, key=card_order)})


@dataclass
class GreyRun:
    """What :func:`simulate_grey` played: the final state and the refused greys (lost races)."""

    state: GreyDuckState
    lost_races: list[tuple[Event, Verdict]] = field(default_factory=list)
    withdrawn_moves: int = 0
    """In-turn moves dropped because a grey changed the trick before they landed."""

    @property
    def races_won(self) -> int:
        return len(self.state.race_log)

    @property
    def races_won_late(self) -> int:
        return sum(r.overturned is not None for r in self.state.race_log)


THINK_MS = (300, 2500)
"""How long a simulated player takes for an in-turn move (ms, uniform)."""
REACT_MS = (150, 2000)
"""How long a simulated player takes to slap down a racing grey (ms, uniform)."""
LATENCY_MS = (0, 400)
"""Delay between an event happening and reaching the engine (camera, phone), ms."""


def _stamped(event: Event, ts: int) -> Event:
    return Event(event.type, event.seat, event.data, ts, "bot")


def simulate_grey(
    seed: int,
    players: Sequence[str],
    *,
    options: Mapping[str, Any] | None = None,
    bots: Sequence[Bot] | None = None,
    max_steps: int = 100_000,
    on_event: Callable[[GreyDuckState, Event, Verdict], None] | None = None,
) -> GreyRun:
    """Play a match with racing greys, timed by a seeded clock (never a real one).

    Each step the player to move thinks for a while; every other player holding the grey of an
    open window races for it. Events are stamped with when they happened and applied in the
    order they arrive (stamp + a random latency), so greys sometimes win in their window,
    sometimes arrive after the play that beat them and win on timestamps, and sometimes lose.
    ``on_event(state, event, verdict)`` is called after every event tried, refused or not.
    """
    rng = random.Random(seed)
    state = GreyDuckGame(options).new_state(players)
    chosen: list[Bot] = list(bots) if bots is not None else [GreedyGreyBot() for _ in players]
    run = GreyRun(state)
    clock = 0
    for _ in range(max_steps):
        if state.is_over():
            return run
        if state.needs_chance():
            deal = _stamped(state.chance_event(rng), clock)
            dealt = state.apply_or_raise(deal)
            if on_event is not None:
                on_event(state, deal, dealt)
            clock += rng.randint(2000, 5000)
            continue
        mover = state.to_move()
        assert mover is not None
        ts = clock + rng.randint(*THINK_MS)
        move = _stamped(chosen[mover].choose(state, mover), ts)
        arrivals = [(ts + rng.randint(*LATENCY_MS), 0, move)]
        for seat in range(state.num_players):
            if seat != mover and state.legal_events(seat):
                grey_ts = clock + rng.randint(*REACT_MS)
                grey = chosen[seat].choose(state, seat)
                arrivals.append((grey_ts + rng.randint(*LATENCY_MS), 1, _stamped(grey, grey_ts)))
        arrivals.sort(key=lambda a: (a[0], a[1]))
        for _, _, event in arrivals:
            verdict = state.apply(event)
            if on_event is not None:
                on_event(state, event, verdict)
            if not verdict.ok:
                if event.type == "grey" and event.seat != mover:
                    run.lost_races.append((event, verdict))
                else:
                    run.withdrawn_moves += 1
        clock = max(e.ts or 0 for _, _, e in arrivals)
    raise RulesError(f"the simulated match did not end within {max_steps} steps")
