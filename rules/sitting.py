"""Sitting Ducks (Keith Meyers, AMIGO 2006): a shooting-gallery line of six cards fed from a
face-down pond, target cards lying on the six positions, and fifteen kinds of action card.

One game, one file, as OpenSpiel's games: fifteen action cards make a long rulebook, but it is one
rulebook, and its rule texts, gallery, state and bots read top to bottom in the engine order.

The engine follows the ``SIT-*`` rules of the project's catalogue (``RULE_TEXTS`` below). The
file keeps the usual engine order: constants and rule texts, the public table picture
(:class:`Gallery`: immutable, so a bot can try an action without copying the whole state),
the game, its state, then the bots.

Events. Set-up and refills are chance events: ``shuffle`` (pond or action deck; the new order
is a hidden field), ``reveal`` (pond cards turned face up into the line; public) and ``draw``
(one action card to one seat; the card is hidden). A turn is one action event named after its
card (``aim``, ``fire``, ``double_barrel`` ... ``bottoms_up``) or a ``discard``; the refills and
draws it causes follow as chance events before the next player may act.

Observer mode (the camera) sees every public field: the line, the targets, every played card,
and the pond's contents as a multiset (cards only ever enter the pond face up), but never the
pond or deck order nor the hands. It checks everything that public information allows; a
discard can be checked only when the player shows the rest of the hand (``shown``).

Decisions on points the rulebook leaves open (also stated in ``RULE_TEXTS``):

- Targets lie on positions, not on cards: they stay put when cards move, including Duck
  Shuffle and Duck Dance. Positions exist even when the line is short, so a target may lie on,
  or move onto, an empty position; Fire there only removes the target.
- A duck hides under at most one other duck, and a duck that hides another cannot itself go
  under cover. A duck wearing Bottoms Up may act as cover but cannot slip under one (the card
  lies on it). Any player's duck may take cover, under any neighbouring duck.
- When a cover is shot, its hidden duck takes the cover's place at once: nothing moves up and
  nothing is refilled. A Duck March that sends a cover under the pond sends its hidden duck
  with it, at the very bottom.
- Bottoms Up: one per duck. Billy the Duck and Ricochet cannot pick a Bottoms-Up duck; Fire and
  Two at One Blow on it only remove the target. The card is discarded when its player's next
  turn begins (after the previous player has drawn), or at once if its duck leaves the line
  (Duck March, Duck Dance).
- Duck Dance puts the line's cards (hidden ducks too) into the pond and reshuffles the whole
  pond before a new line is dealt.
- Turbo Duck, Slow Down and No Time must really move the duck (Turbo not from position 1; Slow
  Down needs a card behind it). Duck Shuffle may leave the order as it was.
- Ricochet names the targeted neighbour it uses (``via``) when both neighbours are targeted.
- The game ends as soon as at most one player has ducks in the line or the pond. If one Two at
  One Blow takes the last ducks of the last two players together, nobody is left: those two
  share the win (the only case where a player without ducks wins).
- Colours are an option (default: seat order); action cards are dealt one at a time from seat
  0; the action mix is an option and must hold at least 3 per player plus the Bottoms Up cards,
  so every draw can refill a hand to three.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, partialmethod
from typing import Any

from .core import Bot, Event, EventSpec, Field, Game, OptionSpec, RulesError, State, Verdict
from .decks import SIT_ACTIONS, SIT_COLOURS, SIT_DEFAULT_ACTION_MIX, Deck, sitting_deck

RULE_TEXTS = {
    "SIT-C1": (
        "Six colours of six ducks, five water cards, six sky cards naming positions 1 (front) to "
        "6, six targets and 52 action cards whose mix per kind is a match option."
    ),
    "SIT-S1": (
        "Each player takes a colour and sets one of its ducks before them; the other ducks of "
        "those colours and the water form the shuffled pond, whose top six cards fill the line "
        "from the front; everyone gets three action cards, the rest is the action deck."
    ),
    "SIT-S2": (
        "The owner of the duck nearest the front of the first line starts; turns go clockwise."
    ),
    "SIT-T1": (
        "On your turn play one action card, then draw back up to three (shuffling the played "
        "cards into a new deck when it runs out); you may discard instead only when none of "
        "your cards can be played."
    ),
    "SIT-T2": (
        "A shot duck goes to its owner; the cards behind it move up one place and the pond's "
        "top card fills the last place (left empty once the pond is empty)."
    ),
    "SIT-T3": (
        "A player with none of their ducks left in the line or pond can no longer win but keeps "
        "taking turns."
    ),
    "SIT-W1": (
        "The last player with a duck in the line or the pond wins; two players losing their last "
        "ducks to the same Two at One Blow share the win."
    ),
    "SIT-A1": "Aim: lay a target on any position without one, water or even an empty place.",
    "SIT-A2": (
        "Fire: pick a targeted position; the target goes and so does the duck there, unless it "
        "is water, empty or under Bottoms Up."
    ),
    "SIT-A3": (
        "Double Barrel: target two neighbouring untargeted positions; only when no such pair "
        "exists may a single target be laid."
    ),
    "SIT-A4": (
        "Billy the Duck: shoot any duck in the line, targeted or not (not one under Bottoms Up); "
        "a target on it is removed."
    ),
    "SIT-A5": (
        "Ricochet: shoot a duck beside a targeted position and remove that target; a target on "
        "the shot duck's own place stays."
    ),
    "SIT-A6": (
        "Two at One Blow: two neighbouring positions must both be targeted; both targets go and "
        "so do the ducks on them. Not playable otherwise."
    ),
    "SIT-A7": (
        "Move Left / Move Right: slide one target one position towards the front or back, never "
        "off the six positions and never onto another target."
    ),
    "SIT-A8": (
        "Duck March: the front card (with any duck hidden under it) goes under the pond, the line "
        "moves up and the pond's top card fills the last place."
    ),
    "SIT-A9": "Slow Down: swap one of your ducks with the card right behind it.",
    "SIT-A10": "No Time: swap one of your ducks with the card right in front of it.",
    "SIT-A11": (
        "Turbo Duck: move one of your ducks (not already at the front) to position 1; the cards "
        "it passes move back one place."
    ),
    "SIT-A12": "Duck Shuffle: put the line's cards in any order you like; targets stay put.",
    "SIT-A13": (
        "Duck Dance: the whole line goes into the pond, the pond is shuffled and a new line of "
        "six is laid; targets stay put."
    ),
    "SIT-A14": (
        "Cover: slip a duck under a neighbouring duck (never water; one hidden duck each); the "
        "line closes up and refills; the hidden duck moves with its cover, cannot be shot, and "
        "takes the cover's place when the cover is shot."
    ),
    "SIT-A15": (
        "Bottoms Up: lay the card on a duck in the line; until your next turn it cannot be shot "
        "(a Fire on it only removes the target) but moves with the line."
    ),
}

POSITIONS = (1, 2, 3, 4, 5, 6)
LINE_LENGTH = len(POSITIONS)
HAND_SIZE = 3
DUCKS_PER_COLOUR = 6
POND_DUCKS_PER_PLAYER = DUCKS_PER_COLOUR - 1  # one duck stays in front of its player
WATER = "water"
ACTION_PREFIX = "action-"
BOTTOMS_UP_CARD = "action-bottoms-up"
LAST_EVENTS = 6  # how many recent events the scoreboard shows

_VOCABULARY = frozenset(sitting_deck().labels)


def event_type(action: str) -> str:
    """The event type of an action card face: ``double-barrel`` -> ``double_barrel``."""
    return action.replace("-", "_")


def action_card(action: str) -> str:
    return ACTION_PREFIX + action


def duck_label(colour: str) -> str:
    return f"duck-{colour}"


def colour_of(card: str | None) -> str | None:
    """The colour of a duck card, None for water or an empty place."""
    return card[5:] if card is not None and card.startswith("duck-") else None


def is_duck(card: str | None) -> bool:
    return colour_of(card) is not None


# --------------------------------------------------------------------------------------------
# The public table picture: the line and the targets
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Spot:
    """One occupied position: the visible card, a duck hidden under it, a Bottoms-Up owner."""

    card: str
    covered: str | None = None
    bottoms_up: int | None = None

    def cards(self) -> list[str]:
        return [self.card] if self.covered is None else [self.card, self.covered]


@dataclass(frozen=True)
class Outcome:
    """What one action did: the new line and targets, and where cards went."""

    spots: tuple[Spot, ...]
    targets: frozenset[int]
    shot: tuple[str, ...] = ()
    under_pond: tuple[str, ...] = ()
    into_pond: tuple[str, ...] = ()
    freed_bottoms_up: int = 0
    """Bottoms Up cards whose duck left the line; they go to the discard pile."""
    card_stays: bool = False
    """True for Bottoms Up: the played card lies on the duck, not on the discard pile."""


@dataclass(frozen=True)
class ActionInfo:
    """One action card face: its name, title, rule ID, event fields and one-line help."""

    action: str
    title: str
    rule: str
    fields: tuple[Field, ...]
    help: str

    @cached_property
    def etype(self) -> str:
        return event_type(self.action)

    @cached_property
    def card(self) -> str:
        return action_card(self.action)


_POSITION = Field("position", "choice", choices=POSITIONS, help="1 (front) to 6")
_OWN_DUCK = Field("position", "choice", choices=POSITIONS, help="where your duck is (1 to 6)")

ACTIONS: tuple[ActionInfo, ...] = (
    ActionInfo("aim", "Aim", "SIT-A1", (_POSITION,), "lay a target on a position"),
    ActionInfo("fire", "Fire", "SIT-A2", (_POSITION,), "fire at a targeted position"),
    ActionInfo("double-barrel", "Double Barrel", "SIT-A3",
               (Field("position", "any",
                      help="two neighbouring positions, e.g. [2, 3] (one, e.g. 4, when no free "
                           "pair is left)", shape="positions"),),
               "lay targets on two neighbouring positions"),
    ActionInfo("billy-the-duck", "Billy the Duck", "SIT-A4",
               (Field("position", "choice", choices=POSITIONS, help="the duck to shoot"),),
               "shoot any duck"),
    ActionInfo("ricochet", "Ricochet", "SIT-A5",
               (Field("position", "choice", choices=POSITIONS, help="the duck to shoot"),
                Field("via", "choice", required=False, choices=POSITIONS,
                      help="the targeted neighbour used (needed when both are targeted)")),
               "shoot a duck beside a target"),
    ActionInfo("two-at-one-blow", "Two at One Blow", "SIT-A6",
               (Field("position", "any", help="two neighbouring targeted positions, e.g. [4, 5]",
                      shape="positions"),),
               "shoot two neighbouring targeted positions"),
    ActionInfo("move-left", "Move Left", "SIT-A7",
               (Field("position", "choice", choices=POSITIONS, help="where the target lies"),),
               "move a target one place towards the front"),
    ActionInfo("move-right", "Move Right", "SIT-A7",
               (Field("position", "choice", choices=POSITIONS, help="where the target lies"),),
               "move a target one place towards the back"),
    ActionInfo("duck-march", "Duck March", "SIT-A8", (), "the front card goes under the pond"),
    ActionInfo("slow-down", "Slow Down", "SIT-A9", (_OWN_DUCK,),
               "swap your duck with the card behind it"),
    ActionInfo("no-time", "No Time", "SIT-A10", (_OWN_DUCK,),
               "swap your duck with the card in front of it"),
    ActionInfo("turbo-duck", "Turbo Duck", "SIT-A11", (_OWN_DUCK,),
               "move your duck to the front"),
    ActionInfo("duck-shuffle", "Duck Shuffle", "SIT-A12",
               (Field("arrangement", "any",
                      help="old positions in their new order, e.g. [3, 1, 2, 4, 5, 6]",
                      shape="arrangement"),),
               "rearrange the line"),
    ActionInfo("duck-dance", "Duck Dance", "SIT-A13", (), "shuffle the line into the pond"),
    ActionInfo("cover", "Cover", "SIT-A14",
               (Field("position", "choice", choices=POSITIONS, help="the duck that hides"),
                Field("behind", "choice", choices=POSITIONS,
                      help="the neighbouring duck it hides under")),
               "hide a duck under its neighbour"),
    ActionInfo("bottoms-up", "Bottoms Up", "SIT-A15", (_POSITION,),
               "protect a duck until your next turn"),
)
ACTION_BY_TYPE = {a.etype: a for a in ACTIONS}
ACTION_BY_CARD = {a.card: a for a in ACTIONS}
assert tuple(a.action for a in ACTIONS) == SIT_ACTIONS, "ACTIONS must follow decks.SIT_ACTIONS"


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Gallery:
    """The line (positions 1..6, front first) and the targets, with every action's rule.

    Immutable: :meth:`play` returns an :class:`Outcome` instead of changing anything, so the
    state applies it and a bot may preview it. ``colours[seat]`` tells whose ducks are whose.
    """

    __slots__ = ("spots", "targets", "colours")

    def __init__(self, spots: Iterable[Spot], targets: Iterable[int], colours: Sequence[str]):
        self.spots: tuple[Spot, ...] = tuple(spots)
        self.targets: frozenset[int] = frozenset(targets)
        self.colours: tuple[str, ...] = tuple(colours)

    # -- reading the line -----------------------------------------------------------------
    def spot(self, position: int) -> Spot | None:
        return self.spots[position - 1] if 1 <= position <= len(self.spots) else None

    def card_at(self, position: int) -> str | None:
        spot = self.spot(position)
        return spot.card if spot is not None else None

    def owner(self, card: str | None) -> int | None:
        colour = colour_of(card)
        return self.colours.index(colour) if colour in self.colours else None

    def describe(self, position: int) -> str:
        spot = self.spot(position)
        if spot is None:
            return f"position {position} is empty"
        return f"position {position} holds {spot.card}"

    def shootable(self, position: int) -> bool:
        spot = self.spot(position)
        return spot is not None and is_duck(spot.card) and spot.bottoms_up is None

    def is_own(self, position: int, seat: int) -> bool:
        return colour_of(self.card_at(position)) == self.colours[seat]

    def free_pairs(self) -> list[int]:
        """Front positions p of every neighbouring untargeted pair (p, p+1)."""
        return [p for p in POSITIONS[:-1] if p not in self.targets and p + 1 not in self.targets]

    # -- checking an action -----------------------------------------------------------------
    def check(self, action: str, seat: int, data: Mapping[str, Any]) -> Verdict:
        """Whether ``seat`` may play ``action`` with ``data`` on this line (hand not checked)."""
        info = _ACTION_BY_NAME[action]
        problem = self._problem(action, seat, data)
        if problem is not None:
            reason, *extra = problem if isinstance(problem, tuple) else (problem,)
            return Verdict.illegal(reason, info.rule, *extra)
        return Verdict.legal(f"{info.title}: {info.help}", info.rule)

    def _problem(self, action: str, seat: int, data: Mapping[str, Any]) -> Any:
        """None when legal; else the reason, or (reason, extra rule ID)."""
        return _PROBLEM[action](self, seat, data)

    def _own_duck_problem(self, seat: int, p: int) -> str | None:
        if not is_duck(self.card_at(p)):
            return f"{self.describe(p)}, not a duck"
        if not self.is_own(p, seat):
            return (f"{self.describe(p)}; you may move only your own "
                    f"{self.colours[seat]} ducks")
        return None

    def _problem_aim(self, seat: int, data: Mapping[str, Any]) -> str | None:
        p = data["position"]
        if p in self.targets:
            return f"position {p} already has a target; aim at a position without one"
        return None

    def _problem_fire(self, seat: int, data: Mapping[str, Any]) -> str | None:
        p = data["position"]
        if p not in self.targets:
            return f"position {p} has no target; Fire needs a targeted position (aim first)"
        return None

    def _pair(self, data: Mapping[str, Any], sizes: tuple[int, ...]) -> list[int] | str:
        raw = data["position"]
        if _int(raw) and 1 in sizes:
            raw = [raw]
        if (not isinstance(raw, list) or len(raw) not in sizes
                or not all(_int(p) and p in POSITIONS for p in raw)):
            many = " or ".join(str(s) for s in sizes)
            return f"'position' must list {many} positions from 1 to 6, got {raw!r}"
        ps = sorted(raw)
        if len(ps) == 2 and ps[1] - ps[0] != 1:
            return f"positions {ps[0]} and {ps[1]} are not neighbours"
        return ps

    def _problem_double_barrel(self, seat: int, data: Mapping[str, Any]) -> str | None:
        ps = self._pair(data, (1, 2))
        if isinstance(ps, str):
            return ps
        taken = [p for p in ps if p in self.targets]
        if taken:
            return f"position {taken[0]} already has a target"
        pairs = self.free_pairs()
        if len(ps) == 1 and pairs:
            return (f"positions {pairs[0]} and {pairs[0] + 1} are free neighbours, so Double "
                    "Barrel must lay two targets")
        return None

    def _problem_billy_the_duck(self, seat: int, data: Mapping[str, Any]) -> Any:
        p = data["position"]
        spot = self.spot(p)
        if spot is None or not is_duck(spot.card):
            return f"{self.describe(p)}; Billy the Duck shoots a duck"
        if spot.bottoms_up is not None:
            return (f"the duck at position {p} is under Bottoms Up and cannot be shot", "SIT-A15")
        return None

    def _problem_ricochet(self, seat: int, data: Mapping[str, Any]) -> Any:
        p = data["position"]
        spot = self.spot(p)
        if spot is None or not is_duck(spot.card):
            return f"{self.describe(p)}; Ricochet shoots a duck"
        if spot.bottoms_up is not None:
            return (f"the duck at position {p} is under Bottoms Up and cannot be shot", "SIT-A15")
        beside = [q for q in (p - 1, p + 1) if q in self.targets]
        via = data.get("via")
        if not beside:
            return f"neither neighbour of position {p} is targeted"
        if via is None:
            if len(beside) > 1:
                return (f"both neighbours ({beside[0]} and {beside[1]}) are targeted; "
                        "say which target is used with 'via'")
            return None
        if via not in (p - 1, p + 1):
            return f"'via' must be a neighbour of position {p}, got {via}"
        if via not in self.targets:
            return f"position {via} has no target"
        return None

    def _problem_two_at_one_blow(self, seat: int, data: Mapping[str, Any]) -> str | None:
        ps = self._pair(data, (2,))
        if isinstance(ps, str):
            return ps
        bare = [p for p in ps if p not in self.targets]
        if bare:
            return (f"position {bare[0]} has no target; Two at One Blow needs two neighbouring "
                    "targeted positions")
        return None

    def _problem_move_left(self, seat: int, data: Mapping[str, Any]) -> str | None:
        return self._move_problem(data["position"], -1, "Move Left")

    def _problem_move_right(self, seat: int, data: Mapping[str, Any]) -> str | None:
        return self._move_problem(data["position"], +1, "Move Right")

    def _move_problem(self, p: int, step: int, title: str) -> str | None:
        if p not in self.targets:
            return f"position {p} has no target to move"
        to = p + step
        if to not in POSITIONS:
            return f"{title} cannot move the target at position {p} off the line"
        if to in self.targets:
            return f"position {to} already has a target"
        return None

    def _problem_duck_march(self, seat: int, data: Mapping[str, Any]) -> str | None:
        return None if self.spots else "the line is empty"

    def _problem_slow_down(self, seat: int, data: Mapping[str, Any]) -> str | None:
        p = data["position"]
        problem = self._own_duck_problem(seat, p)
        if problem is None and self.spot(p + 1) is None:
            return f"there is no card behind position {p}"
        return problem

    def _problem_no_time(self, seat: int, data: Mapping[str, Any]) -> str | None:
        p = data["position"]
        problem = self._own_duck_problem(seat, p)
        if problem is None and p == 1:
            return "the duck at position 1 has no card in front of it"
        return problem

    def _problem_turbo_duck(self, seat: int, data: Mapping[str, Any]) -> str | None:
        p = data["position"]
        problem = self._own_duck_problem(seat, p)
        if problem is None and p == 1:
            return "the duck is already at the front"
        return problem

    def _problem_duck_shuffle(self, seat: int, data: Mapping[str, Any]) -> str | None:
        order = data["arrangement"]
        n = len(self.spots)
        if (not isinstance(order, list) or not all(_int(p) for p in order)
                or sorted(order) != list(range(1, n + 1))):
            return (f"'arrangement' must list each occupied position 1..{n} once, in the new "
                    f"order, got {order!r}")
        return None

    def _problem_duck_dance(self, seat: int, data: Mapping[str, Any]) -> str | None:
        return None

    def _problem_cover(self, seat: int, data: Mapping[str, Any]) -> Any:
        p, q = data["position"], data["behind"]
        mover, cover = self.spot(p), self.spot(q)
        if q not in (p - 1, p + 1):
            return f"positions {p} and {q} are not neighbours"
        if mover is None or not is_duck(mover.card):
            return f"{self.describe(p)}; only a duck can take cover"
        if cover is None or not is_duck(cover.card):
            what = "empty" if cover is None else "water"
            return f"position {q} is {what}; a duck can hide only under another duck"
        if mover.covered is not None:
            return f"the duck at position {p} already hides a duck and cannot go under cover"
        if mover.bottoms_up is not None:
            return (f"the duck at position {p} wears Bottoms Up and cannot go under cover",
                    "SIT-A15")
        if cover.covered is not None:
            return f"the duck at position {q} already hides a duck"
        return None

    def _problem_bottoms_up(self, seat: int, data: Mapping[str, Any]) -> str | None:
        p = data["position"]
        spot = self.spot(p)
        if spot is None or not is_duck(spot.card):
            return f"{self.describe(p)}; Bottoms Up goes on a duck"
        if spot.bottoms_up is not None:
            return f"the duck at position {p} already wears Bottoms Up"
        return None

    # -- playing an action (assumes check passed) -----------------------------------------
    def play(self, action: str, seat: int, data: Mapping[str, Any]) -> Outcome:
        return _PLAY[action](self, seat, data)

    def _shoot(self, spots: list[Spot], targets: set[int], p: int, shot: list[str]) -> None:
        """Shoot whatever is shootable at ``p``; the target there, if any, is removed."""
        targets.discard(p)
        spot = spots[p - 1] if p <= len(spots) else None
        if spot is None or not is_duck(spot.card) or spot.bottoms_up is not None:
            return
        shot.append(spot.card)
        if spot.covered is not None:
            spots[p - 1] = Spot(spot.covered)
        else:
            del spots[p - 1]

    def _shots(self, positions: Sequence[int], keep_targets: Iterable[int] = ()) -> Outcome:
        spots, targets = list(self.spots), set(self.targets)
        shot: list[str] = []
        for p in sorted(positions, reverse=True):  # back first, so front indices stay valid
            self._shoot(spots, targets, p, shot)
        targets.update(keep_targets)
        return Outcome(tuple(spots), frozenset(targets), shot=tuple(reversed(shot)))

    def _play_aim(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        return Outcome(self.spots, self.targets | {data["position"]})

    def _play_fire(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        return self._shots([data["position"]])

    def _play_double_barrel(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        ps = data["position"]
        return Outcome(self.spots, self.targets | (set(ps) if isinstance(ps, list) else {ps}))

    def _play_billy_the_duck(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        return self._shots([data["position"]])

    def _play_ricochet(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        p = data["position"]
        via = data.get("via")
        if via is None:
            via = next(q for q in (p - 1, p + 1) if q in self.targets)
        keep = [p] if p in self.targets else []
        out = self._shots([p], keep_targets=keep)
        return replace(out, targets=out.targets - {via})

    def _play_two_at_one_blow(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        return self._shots(data["position"])

    def _play_move_left(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        p = data["position"]
        return Outcome(self.spots, (self.targets - {p}) | {p - 1})

    def _play_move_right(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        p = data["position"]
        return Outcome(self.spots, (self.targets - {p}) | {p + 1})

    def _play_duck_march(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        front = self.spots[0]
        return Outcome(self.spots[1:], self.targets, under_pond=tuple(front.cards()),
                       freed_bottoms_up=int(front.bottoms_up is not None))

    def _swap(self, i: int, j: int) -> Outcome:
        spots = list(self.spots)
        spots[i], spots[j] = spots[j], spots[i]
        return Outcome(tuple(spots), self.targets)

    def _play_slow_down(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        p = data["position"]
        return self._swap(p - 1, p)

    def _play_no_time(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        p = data["position"]
        return self._swap(p - 2, p - 1)

    def _play_turbo_duck(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        spots = list(self.spots)
        spots.insert(0, spots.pop(data["position"] - 1))
        return Outcome(tuple(spots), self.targets)

    def _play_duck_shuffle(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        return Outcome(tuple(self.spots[p - 1] for p in data["arrangement"]), self.targets)

    def _play_duck_dance(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        cards = tuple(c for s in self.spots for c in s.cards())
        freed = sum(1 for s in self.spots if s.bottoms_up is not None)
        return Outcome((), self.targets, into_pond=cards, freed_bottoms_up=freed)

    def _play_cover(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        p, q = data["position"], data["behind"]
        spots = list(self.spots)
        spots[q - 1] = replace(spots[q - 1], covered=spots[p - 1].card)
        del spots[p - 1]
        return Outcome(tuple(spots), self.targets)

    def _play_bottoms_up(self, seat: int, data: Mapping[str, Any]) -> Outcome:
        p = data["position"]
        spots = list(self.spots)
        spots[p - 1] = replace(spots[p - 1], bottoms_up=seat)
        return Outcome(tuple(spots), self.targets, card_stays=True)

    # -- every legal way to play an action --------------------------------------------------
    def options(self, action: str, seat: int) -> list[dict[str, Any]]:
        """The data of every legal play of ``action`` by ``seat`` (one form per distinct play)."""
        if action == "duck-shuffle":
            return self._shuffle_options()
        return [d for d in self._likely(action, seat) if self._problem(action, seat, d) is None]

    def _likely(self, action: str, seat: int) -> list[dict[str, Any]]:
        """A quick superset of the legal data for ``action`` (each is still checked; a test
        compares the result with every well-formed candidate)."""
        t, occupied = self.targets, range(1, len(self.spots) + 1)
        if action == "aim":
            return [{"position": p} for p in POSITIONS if p not in t]
        if action in ("fire", "move-left", "move-right"):
            return [{"position": p} for p in sorted(t)]
        if action == "double-barrel":
            pairs = self.free_pairs()
            if pairs:
                return [{"position": [p, p + 1]} for p in pairs]
            return [{"position": [p]} for p in POSITIONS if p not in t]
        if action == "two-at-one-blow":
            return [{"position": [p, p + 1]} for p in sorted(t) if p + 1 in t]
        if action == "ricochet":
            return [{"position": p, "via": v} for p in occupied for v in (p - 1, p + 1) if v in t]
        if action in ("slow-down", "no-time", "turbo-duck"):
            own = duck_label(self.colours[seat])
            return [{"position": p} for p in occupied if self.spots[p - 1].card == own]
        if action == "cover":
            return [{"position": p, "behind": q} for p in occupied for q in (p - 1, p + 1)
                    if q in occupied]
        if action in ("billy-the-duck", "bottoms-up"):
            return [{"position": p} for p in occupied]
        return [{}]

    def _shuffle_options(self) -> list[dict[str, Any]]:
        """One arrangement per distinct resulting line (equal cards swapped count once)."""
        kinds: dict[Spot, list[int]] = {}
        for p, spot in enumerate(self.spots, start=1):
            kinds.setdefault(spot, []).append(p)
        groups = list(kinds.values())
        kind_of = [g for g, members in enumerate(groups) for _ in members]
        out: list[dict[str, Any]] = []
        for sequence in sorted(set(itertools.permutations(kind_of))):
            used = [0] * len(groups)
            arrangement = []
            for g in sequence:
                arrangement.append(groups[g][used[g]])
                used[g] += 1
            out.append({"arrangement": arrangement})
        return out

    def playable(self, action: str, seat: int) -> dict[str, Any] | None:
        """One legal play of ``action`` (its data), or None when the card cannot be played."""
        if action == "duck-shuffle":
            return {"arrangement": list(range(1, len(self.spots) + 1))}
        for data in self._likely(action, seat):
            if self._problem(action, seat, data) is None:
                return data
        return None


_ACTION_BY_NAME = {a.action: a for a in ACTIONS}
_PROBLEM: dict[str, Callable[[Gallery, int, Mapping[str, Any]], Any]] = {
    a.action: getattr(Gallery, "_problem_" + a.etype) for a in ACTIONS}
_PLAY: dict[str, Callable[[Gallery, int, Mapping[str, Any]], Outcome]] = {
    a.action: getattr(Gallery, "_play_" + a.etype) for a in ACTIONS}


def _candidates(action: str) -> list[dict[str, Any]]:
    """Every well-formed data for ``action``, legal or not (duck-shuffle excepted)."""
    fields = {f.name for f in _ACTION_BY_NAME[action].fields}
    if action == "ricochet":
        return [{"position": p, "via": v} for p in POSITIONS for v in (p - 1, p + 1)
                if v in POSITIONS]
    if action == "cover":
        return [{"position": p, "behind": q} for p in POSITIONS for q in (p - 1, p + 1)
                if q in POSITIONS]
    if action == "double-barrel":
        return ([{"position": [p, p + 1]} for p in POSITIONS[:-1]]
                + [{"position": [p]} for p in POSITIONS])
    if action == "two-at-one-blow":
        return [{"position": [p, p + 1]} for p in POSITIONS[:-1]]
    if "position" in fields:
        return [{"position": p} for p in POSITIONS]
    return [{}]


_CANDIDATES = {a.action: _candidates(a.action) for a in ACTIONS}


# --------------------------------------------------------------------------------------------
# The game
# --------------------------------------------------------------------------------------------


def _action_spec(info: ActionInfo) -> EventSpec:
    return EventSpec(info.etype, info.fields, help=f"{info.title}: {info.help} ({info.rule})",
                     rules=(info.rule,))


class SittingDucksGame(Game):
    """Sitting Ducks for 3 to 6 players; options: the action-card mix and the seats' colours."""

    name = "sitting"
    title = "Sitting Ducks"
    min_players = 3
    max_players = 6
    options_spec = (
        OptionSpec("action_mix", dict(SIT_DEFAULT_ACTION_MIX), (),
                   "how many action cards of each kind the deck holds (the publisher gives no "
                   "counts; kinds left out have none)", "SIT-C1"),
        OptionSpec("colours", "", (),
                   "comma-separated colour per seat, e.g. 'pink,blue,green' (empty: seat order "
                   + ", ".join(SIT_COLOURS) + ")", "SIT-S1"),
    )
    event_specs = (
        EventSpec("shuffle",
                  (Field("pile", "choice", choices=("pond", "actions"),
                         help="which face-down pile is shuffled"),
                   Field("order", "cards", hidden=True, help="the new order, top card first")),
                  turn_bound=False, chance=True,
                  help="the pond or the action deck is shuffled (SIT-S1, SIT-T1, SIT-A13)"),
        EventSpec("reveal",
                  (Field("cards", "cards",
                         help="pond cards turned face up into the line, front to back"),),
                  turn_bound=False, chance=True,
                  help="the line is filled from the pond (SIT-S1, SIT-T2)"),
        EventSpec("draw", (Field("card", "card", hidden=True, help="the action card drawn"),),
                  turn_bound=False, chance=True,
                  help="a player draws an action card (SIT-S1, SIT-T1)"),
        *(_action_spec(info) for info in ACTIONS),
        EventSpec("discard",
                  (Field("action", "choice", choices=tuple(a.etype for a in ACTIONS),
                         help="the action card thrown away, spelled as its play, e.g. "
                              "double_barrel"),
                   Field("shown", "any", required=False,
                         choices=tuple(a.etype for a in ACTIONS),
                         help="the other hand cards' actions, shown to prove none can be "
                              "played, e.g. [\"aim\", \"fire\"]", shape="action_list")),
                  help="throw away a card because none can be played (SIT-T1)"),
    )

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.options["action_mix"] = _checked_mix(self.options["action_mix"])
        self.deck: Deck = sitting_deck(self.options["action_mix"])
        self.action_cards: Counter[str] = Counter(
            {c.label: c.count for c in self.deck.cards if c.label.startswith(ACTION_PREFIX)}
        )

    def colours_for(self, players: int) -> tuple[str, ...]:
        text = self.options["colours"].strip()
        if not text:
            return SIT_COLOURS[:players]
        colours = tuple(c.strip().lower() for c in text.split(","))
        unknown = [c for c in colours if c not in SIT_COLOURS]
        if unknown:
            raise RulesError(f"option 'colours': {unknown[0]!r} is not a Sitting Ducks colour; "
                             f"choose from {', '.join(SIT_COLOURS)}")
        if len(set(colours)) != len(colours):
            raise RulesError("option 'colours': each player needs a different colour")
        if len(colours) != players:
            raise RulesError(f"option 'colours' names {len(colours)} colours for {players} "
                             "players; give one per seat")
        return colours

    def new_state(self, players: Sequence[str], *, observer: bool = False) -> SittingDucksState:
        return SittingDucksState(self, players, observer)


MAX_ACTION_COUNT = 100
"""The most copies of one action card a deck may hold (the box has at most 12): a mistyped
count of millions would make every position of the match slow to build and to show."""


def _checked_mix(mix: Mapping[str, Any]) -> dict[str, int]:
    unknown = sorted(set(mix) - set(SIT_ACTIONS))
    if unknown:
        raise RulesError(f"option 'action_mix': {unknown[0]!r} is not an action card; "
                         f"the kinds are {', '.join(SIT_ACTIONS)}")
    bad = [k for k, v in mix.items() if not _int(v) or not 0 <= v <= MAX_ACTION_COUNT]
    if bad:
        raise RulesError(f"option 'action_mix': the count of {bad[0]!r} must be a whole number "
                         f"from 0 to {MAX_ACTION_COUNT}, got {mix[bad[0]]!r}")
    return {a: int(mix.get(a, 0)) for a in SIT_ACTIONS}


# --------------------------------------------------------------------------------------------
# The state
# --------------------------------------------------------------------------------------------


class SittingDucksState(State):
    """A Sitting Ducks match in progress (full information, or an observer's public picture)."""

    game: SittingDucksGame

    def __init__(self, game: SittingDucksGame, players: Sequence[str], observer: bool) -> None:
        super().__init__(game, players, observer)
        n = len(players)
        self.colours = game.colours_for(n)
        mix = game.options["action_mix"]
        needed = HAND_SIZE * n + mix["bottoms-up"]
        if sum(mix.values()) < needed:
            raise RulesError(
                f"option 'action_mix' holds {sum(mix.values())} cards; {n} players need at "
                f"least {needed} (3 each plus the Bottoms Up cards) so hands can always refill"
            )
        self.gallery = Gallery((), (), self.colours)
        pond = [duck_label(c) for c in self.colours for _ in range(POND_DUCKS_PER_PLAYER)]
        self.pond_counts: Counter[str] = Counter(pond + [WATER] * game.deck.card(WATER).count)
        self.pond_size = len(pond) + game.deck.card(WATER).count
        self.pond_order: list[str] | None = None  # full information only, top card first
        self.pond_needs_shuffle = True
        self.line_rule = "SIT-S1"
        """The rule the next pond shuffle and line fill follow: the first line (SIT-S1), the
        line after a Duck Dance (SIT-A13) or a refill after a shot (SIT-T2); verdicts cite it."""
        # The action deck starts as one unshuffled pile in the discard place: the first draw
        # shuffles it, exactly like any later reshuffle of the played cards (SIT-S1, SIT-T1).
        self.discard: list[str] = sorted(game.action_cards.elements())
        self.deck_order: list[str] | None = None  # full information only, top card first
        self.deck_size = 0
        self.actions_dealt = False  # until then ``discard`` is the unshuffled deck
        self.hands: list[list[str]] | None = None if observer else [[] for _ in players]
        self.hand_sizes = [0] * n
        self.shot = [0] * n
        self.draw_queue: list[int] = [s for _ in range(HAND_SIZE) for s in range(n)]
        self.turn: int | None = None  # seat whose turn it is or comes next; None in set-up
        self.turn_begun = False
        self._winners: list[int] | None = None

    # -- the small API ------------------------------------------------------------------
    def to_move(self) -> int | None:
        if self.turn is None or self._winners is not None or self._pending() is not None:
            return None
        return self.turn

    def is_over(self) -> bool:
        return self._winners is not None

    def scores(self) -> list[int]:
        """Ducks each player still has in the line or the pond."""
        return [self.ducks_left(s) for s in range(self.num_players)]

    def winners(self) -> list[int]:
        return list(self._winners) if self._winners is not None else []

    def ducks_left(self, seat: int) -> int:
        return POND_DUCKS_PER_PLAYER - self.shot[seat]

    def turn_rules(self) -> tuple[str, ...]:
        return ("SIT-S2", "SIT-T1")

    def next_rules(self) -> tuple[str, ...]:
        pending = self._pending()
        if pending in ("shuffle-pond", "reveal"):
            return ("SIT-S1", "SIT-T2")
        if pending is not None:
            return ("SIT-T1",)
        return self.game_over_rules() if self.is_over() else self.turn_rules()

    def game_over_rules(self) -> tuple[str, ...]:
        return ("SIT-W1",)

    def is_card_label(self, label: str) -> bool:
        return label in _VOCABULARY

    def describe_next(self) -> str:
        if self.is_over():
            return "the game is over"
        pending = self._pending()
        if pending == "shuffle-pond":
            return "the pond must be shuffled next ('shuffle' of pile 'pond')"
        if pending == "reveal":
            return f"the line must be filled next: 'reveal' {self._refill_count()} pond card(s)"
        if pending == "shuffle-actions":
            return "the action cards must be shuffled into a deck next ('shuffle' of 'actions')"
        if pending == "draw":
            seat = self.draw_queue[0]
            return f"{self.players[seat]} (seat {seat}) must 'draw' an action card next"
        assert self.turn is not None
        return f"it is {self.players[self.turn]}'s turn (seat {self.turn})"

    # -- what chance event comes next -----------------------------------------------------
    def _refill_count(self) -> int:
        return min(LINE_LENGTH - len(self.gallery.spots), self.pond_size)

    def _pending(self) -> str | None:
        if self._winners is not None:
            return None
        if self.pond_needs_shuffle:
            return "shuffle-pond"
        if self._refill_count() > 0:
            return "reveal"
        if self.draw_queue:
            return "draw" if self.deck_size > 0 else "shuffle-actions"
        return None

    def _settle(self) -> None:
        """After every event: drop impossible draws; start the next turn once nothing is due."""
        if self.draw_queue and self.deck_size == 0 and not self.discard:
            self.draw_queue.clear()  # no card left anywhere to draw (cannot happen with a valid mix)
        if (self._winners is not None or self.turn is None or self.turn_begun
                or self._pending() is not None):
            return
        self.turn_begun = True
        self._expire_bottoms_up(self.turn)

    def _expire_bottoms_up(self, seat: int) -> None:
        """SIT-A15: a player's Bottoms Up cards are discarded when their next turn begins."""
        if all(spot.bottoms_up != seat for spot in self.gallery.spots):
            return
        spots = list(self.gallery.spots)
        for i, spot in enumerate(spots):
            if spot.bottoms_up == seat:
                spots[i] = replace(spot, bottoms_up=None)
                self.discard.append(BOTTOMS_UP_CARD)
        self.gallery = Gallery(spots, self.gallery.targets, self.colours)

    # -- chance events: checks --------------------------------------------------------------
    def _check_shuffle(self, event: Event) -> Verdict:
        pile = event.data["pile"]
        pending = self._pending()
        if pending != f"shuffle-{pile}":
            what = "the pond is" if pile == "pond" else "the action cards are"
            return Verdict.illegal(f"{what} not shuffled now; {self.describe_next()}",
                                   "SIT-S1", "SIT-T1")
        order = event.data.get("order")
        if order is not None:
            expected = self.pond_counts if pile == "pond" else Counter(self.discard)
            if Counter(order) != expected:
                what = "pond" if pile == "pond" else "played action cards"
                return Verdict.illegal(
                    f"the shuffled order must hold exactly the {sum(expected.values())} cards of "
                    f"the {what} (differences: {_difference(Counter(order), expected)})",
                    "SIT-S1", "SIT-T1")
        what = "the pond is" if pile == "pond" else "the action cards are"
        return Verdict.legal(f"{what} shuffled", self.line_rule if pile == "pond" else "SIT-T1")

    def _check_reveal(self, event: Event) -> Verdict:
        if self._pending() != "reveal":
            return Verdict.illegal(f"no card is turned from the pond now; {self.describe_next()}",
                                   "SIT-T2")
        cards = list(event.data["cards"])
        need = self._refill_count()
        if len(cards) != need:
            return Verdict.illegal(f"the line needs exactly {need} card(s) from the pond, "
                                   f"got {len(cards)}", "SIT-T2", "SIT-S1")
        if self.pond_order is not None:
            top = self.pond_order[:need]
            if cards != top:
                return Verdict.illegal(f"the pond's top card(s) are {top}, not {cards}",
                                       "SIT-T2")
        else:
            missing = Counter(cards) - self.pond_counts
            if missing:
                card = sorted(missing)[0]
                return Verdict.illegal(f"{card} cannot come from the pond: it holds "
                                       f"{self.pond_counts[card]} of them", "SIT-C1", "SIT-S1")
        return Verdict.legal(f"{', '.join(cards)} fill(s) the line", self.line_rule)

    def _check_draw(self, event: Event) -> Verdict:
        if self._pending() != "draw":
            return Verdict.illegal(f"nobody draws now; {self.describe_next()}", "SIT-T1")
        seat = self.draw_queue[0]
        if event.seat != seat:
            return Verdict.illegal(f"{self.players[seat]} (seat {seat}) draws next, "
                                   f"not seat {event.seat}", "SIT-T1")
        card = event.data.get("card")
        if card is not None and card not in self.game.action_cards:
            return Verdict.illegal(f"{card} is not an action card of this deck", "SIT-C1")
        if self.deck_order is not None and card != self.deck_order[0]:
            return Verdict.illegal(f"the top card of the action deck is {self.deck_order[0]}, "
                                   f"not {card}", "SIT-T1")
        return Verdict.legal(f"{self.players[seat]} draws an action card", "SIT-T1")

    # -- chance events: effects -------------------------------------------------------------
    def _apply_shuffle(self, event: Event) -> None:
        order = event.data.get("order")
        if event.data["pile"] == "pond":
            self.pond_needs_shuffle = False
            self.pond_order = list(order) if order is not None and not self.observer else None
        else:
            self.deck_size = len(self.discard)
            self.discard = []
            self.actions_dealt = True
            self.deck_order = list(order) if order is not None and not self.observer else None
        self._settle()

    def _apply_reveal(self, event: Event) -> None:
        cards = list(event.data["cards"])
        self.pond_counts.subtract(cards)
        self.pond_counts += Counter()  # drop zero counts
        self.pond_size -= len(cards)
        if self.pond_order is not None:
            del self.pond_order[: len(cards)]
        self.gallery = Gallery(self.gallery.spots + tuple(Spot(c) for c in cards),
                               self.gallery.targets, self.colours)
        self.line_rule = "SIT-T2"
        if self.turn is None:  # SIT-S2: the first line decides who starts
            self.turn = next(self.gallery.owner(s.card) for s in self.gallery.spots
                             if is_duck(s.card))
        self._settle()

    def _apply_draw(self, event: Event) -> None:
        seat = self.draw_queue.pop(0)
        self.deck_size -= 1
        self.hand_sizes[seat] += 1
        if self.deck_order is not None and self.hands is not None:
            self.hands[seat].append(self.deck_order.pop(0))
        self._settle()

    # -- turn events --------------------------------------------------------------------------
    def _holds(self, seat: int, card: str) -> Verdict | None:
        """None when ``seat`` may hold ``card``; otherwise why not."""
        if self.game.action_cards[card] == 0:
            return Verdict.illegal(f"this match's deck has no {card} cards (option action_mix)",
                                   "SIT-C1")
        if self.hand_sizes[seat] == 0:
            return Verdict.illegal(f"{self.players[seat]} holds no cards", "SIT-T1")
        if self.hands is not None and card not in self.hands[seat]:
            return Verdict.illegal(f"{self.players[seat]} does not hold {card}", "SIT-T1")
        seen = self._copies_in_sight(card)
        if seen >= self.game.action_cards[card]:  # a camera misread, with hands unknown
            return Verdict.illegal(
                f"every {card} card of this deck ({seen}) is already played, face up, so "
                f"{self.players[seat]} cannot hold one", "SIT-C1", "SIT-T1")
        return None

    def _copies_in_sight(self, card: str) -> int:
        """Copies of an action card no hand can hold: played onto the discard pile, or worn
        as Bottoms Up on the line (before the first deal the whole deck lies there unseen)."""
        if not self.actions_dealt:
            return 0
        worn = sum(1 for s in self.gallery.spots if s.bottoms_up is not None)
        return self.discard.count(card) + (worn if card == BOTTOMS_UP_CARD else 0)

    def _check_action(self, action: str, event: Event) -> Verdict:
        seat = event.seat
        assert seat is not None
        problem = self._holds(seat, action_card(action))
        if problem is not None:
            return problem
        data = event.data
        pairs = action in ("double-barrel", "two-at-one-blow")  # their 'position' is a list
        for name in ("position", "behind", "via"):
            if name in data and data[name] is not None and not _int(data[name]) \
                    and not (pairs and name == "position"):
                return Verdict.illegal(f"'{name}' must be a position number 1 to 6, "
                                       f"got {data[name]!r}", ACTION_BY_TYPE[event_type(action)].rule)
        return self.gallery.check(action, seat, data)

    def _apply_action(self, action: str, event: Event) -> None:
        seat = event.seat
        assert seat is not None
        out = self.gallery.play(action, seat, event.data)
        alive_before = self._alive()
        self.gallery = Gallery(out.spots, out.targets, self.colours)
        for duck in out.shot:  # SIT-T2: a shot duck goes to its owner
            owner = self.gallery.owner(duck)
            assert owner is not None
            self.shot[owner] += 1
        self.pond_size += len(out.under_pond) + len(out.into_pond)
        if out.under_pond:
            self.pond_counts.update(out.under_pond)
            if self.pond_order is not None:
                self.pond_order.extend(out.under_pond)
        if out.into_pond:
            self.pond_counts.update(out.into_pond)
            self.pond_order = None
            self.pond_needs_shuffle = True
            self.line_rule = "SIT-A13"
        self.discard.extend([BOTTOMS_UP_CARD] * out.freed_bottoms_up)
        card = action_card(action)
        self._take_from_hand(seat, card)
        if not out.card_stays:
            self.discard.append(card)
        if out.shot:
            self._check_for_winner(alive_before)
        self._end_turn(seat)

    def _alive(self) -> list[int]:
        return [s for s in range(self.num_players) if self.ducks_left(s) > 0]

    def _check_for_winner(self, alive_before: list[int]) -> None:
        """SIT-W1: the last player with ducks wins; a shared knock-out shares the win."""
        alive = self._alive()
        if len(alive) == 1:
            self._winners = alive
        elif not alive:
            self._winners = alive_before

    def _take_from_hand(self, seat: int, card: str) -> None:
        self.hand_sizes[seat] -= 1
        if self.hands is not None:
            self.hands[seat].remove(card)

    def _end_turn(self, seat: int) -> None:
        self.draw_queue = [seat] * (HAND_SIZE - self.hand_sizes[seat])
        self.turn = (seat + 1) % self.num_players
        self.turn_begun = False
        self._settle()

    def _check_discard(self, event: Event) -> Verdict:
        seat = event.seat
        assert seat is not None
        card = ACTION_BY_TYPE[event.data["action"]].card
        problem = self._holds(seat, card)
        if problem is not None:
            return problem
        shown = event.data.get("shown")
        if shown is not None:
            if not isinstance(shown, list) or not all(
                    isinstance(a, str) and a in ACTION_BY_TYPE for a in shown):
                return Verdict.illegal(
                    f"'shown' must list actions such as [\"aim\", \"fire\"], got {shown!r}",
                    "SIT-T1")
            shown = [ACTION_BY_TYPE[a].card for a in shown]
        if self.hands is not None:
            rest = Counter(self.hands[seat]) - Counter([card])
            if shown is not None and Counter(shown) != rest:
                return Verdict.illegal(f"the shown cards {sorted(shown)} are not the rest of "
                                       f"the hand {sorted(rest.elements())}", "SIT-T1")
            hand = list(self.hands[seat])
        elif shown is not None:
            if len(shown) != self.hand_sizes[seat] - 1:
                return Verdict.illegal(f"show all {self.hand_sizes[seat] - 1} other hand "
                                       f"cards, not {len(shown)}", "SIT-T1")
            hand = [card, *shown]
        else:
            return Verdict.legal("discard accepted unchecked: the other hand cards are hidden "
                                 "(show them with 'shown' to have the discard checked)", "SIT-T1")
        for held in hand:
            info = ACTION_BY_CARD.get(held)
            if info is None:
                return Verdict.illegal(f"{held} is not an action card", "SIT-T1")
            example = self.gallery.playable(info.action, seat)
            if example is not None:
                return Verdict.illegal(
                    f"a card may be discarded only when none can be played, and {info.title} "
                    f"can be played (e.g. '{info.etype}' {example})", "SIT-T1", info.rule)
        return Verdict.legal("no card can be played, so one is discarded", "SIT-T1")

    def _apply_discard(self, event: Event) -> None:
        seat = event.seat
        assert seat is not None
        card = ACTION_BY_TYPE[event.data["action"]].card
        self._take_from_hand(seat, card)
        self.discard.append(card)
        self._end_turn(seat)

    # -- chance sampling and bots ---------------------------------------------------------
    def chance_event(self, rng: random.Random) -> Event:
        """The next chance outcome. An observer samples one consistent with what it knows."""
        pending = self._pending()
        if pending in ("shuffle-pond", "shuffle-actions"):
            pile = "pond" if pending == "shuffle-pond" else "actions"
            if self.observer:
                return Event("shuffle", None, {"pile": pile}, source="bot")
            cards = sorted(self.pond_counts.elements() if pile == "pond" else self.discard)
            rng.shuffle(cards)
            return Event("shuffle", None, {"pile": pile, "order": cards}, source="bot")
        if pending == "reveal":
            need = self._refill_count()
            if self.pond_order is not None:
                cards = self.pond_order[:need]
            else:
                cards = rng.sample(sorted(self.pond_counts.elements()), need)
            return Event("reveal", None, {"cards": cards}, source="bot")
        if pending == "draw":
            seat = self.draw_queue[0]
            data = {"card": self.deck_order[0]} if self.deck_order is not None else {}
            return Event("draw", seat, data, source="bot")
        raise RulesError(f"no chance event is due; {self.describe_next()}")

    def legal_events(self, seat: int | None = None) -> list[Event]:
        """Every legal turn event for ``seat``. An observer lists the plays of every kind of
        card in the deck that a hand may still hold (the hand is unknown) and no discards."""
        mover = self.to_move()
        seat = mover if seat is None else seat
        if seat is None or seat != mover:
            return []
        if self.hands is None:
            held = [a.card for a in ACTIONS
                    if self._copies_in_sight(a.card) < self.game.action_cards[a.card]]
        else:
            held = sorted(set(self.hands[seat]))
        events = [
            Event(info.etype, seat, data, source="bot")
            for card in held
            for info in (ACTION_BY_CARD[card],)
            for data in self.gallery.options(info.action, seat)
        ]
        if events or self.hands is None:
            return events
        return [Event("discard", seat, {"action": ACTION_BY_CARD[card].etype}, source="bot")
                for card in held]

    # -- views -------------------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        """The scoreboard: the line, the pond, each seat's ducks and hand size, whose turn."""
        gallery = self.gallery
        line = []
        for p in POSITIONS:
            spot = gallery.spot(p)
            line.append({
                "position": p,
                "card": spot.card if spot else None,
                "owner": gallery.owner(spot.card) if spot else None,
                "target": p in gallery.targets,
                "bottoms_up": spot.bottoms_up if spot else None,
                "covered": spot.covered if spot else None,
            })
        in_line = Counter(c for s in gallery.spots for c in s.cards())
        seats = []
        for s, name in enumerate(self.players):
            duck = duck_label(self.colours[s])
            seats.append({
                "seat": s,
                "name": name,
                "colour": self.colours[s],
                "ducks_in_line": in_line[duck],
                "ducks_in_pond": self.pond_counts[duck],
                "ducks_left": self.ducks_left(s),
                "ducks_shot": self.shot[s],
                "in_front": self.shot[s] + 1,
                "eliminated": self.ducks_left(s) == 0,
                "hand_size": self.hand_sizes[s],
            })
        return {
            "game": self.game.name,
            "line": line,
            "targets_left": LINE_LENGTH - len(gallery.targets),
            "pond_size": self.pond_size,
            "action_deck_size": self.deck_size,
            "discard_size": len(self.discard) if self.actions_dealt else 0,
            "discard_top": self.discard[-1] if self.discard and self.actions_dealt else None,
            "seats": seats,
            "turn": self.turn,
            "to_move": self.to_move(),
            "next": self.describe_next(),
            "over": self.is_over(),
            "scores": self.scores(),
            "winners": self.winners(),
            "last_events": [self.game.public_event(e).to_json()
                            for e in self.history[-LAST_EVENTS:]],
        }

    def player_view(self, seat: int) -> dict[str, Any]:
        view = self.public_view()
        view["hand"] = sorted(self.hands[seat]) if self.hands is not None else None
        return view


# Each action card has its own event type; they all share one check and one apply.
for _info in ACTIONS:
    setattr(SittingDucksState, f"_check_{_info.etype}",
            partialmethod(SittingDucksState._check_action, _info.action))
    setattr(SittingDucksState, f"_apply_{_info.etype}",
            partialmethod(SittingDucksState._apply_action, _info.action))


def _difference(got: Counter[str], expected: Counter[str]) -> str:
    extra, missing = got - expected, expected - got
    parts = []
    if extra:
        parts.append(f"extra {sorted(extra.elements())}")
    if missing:
        parts.append(f"missing {sorted(missing.elements())}")
    return ", ".join(parts)


# --------------------------------------------------------------------------------------------
# Bots
# --------------------------------------------------------------------------------------------

SHOT_OTHER = 10.0
SHOT_OWN = -14.0


class GreedyBot(Bot):
    """Looks one action ahead on the public line: shoots others' ducks, keeps its own out of
    the crosshairs (Bottoms Up, cover, moving away, moving targets). Ties broken at random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: State, seat: int) -> Event:
        assert isinstance(state, SittingDucksState)
        options = self.options(state, seat)
        if options[0].type == "discard":
            return self.rng.choice(options)
        before = danger_balance(state.gallery, seat)
        scored = [(self.value(state, seat, e, before), self.rng.random(), i)
                  for i, e in enumerate(options)]
        return options[max(scored)[2]]

    def value(self, state: SittingDucksState, seat: int, event: Event, before: float) -> float:
        gallery = state.gallery
        out = gallery.play(ACTION_BY_TYPE[event.type].action, seat, event.data)
        own = duck_label(gallery.colours[seat])
        value = sum(SHOT_OWN if d == own else SHOT_OTHER for d in out.shot)
        after = Gallery(out.spots, out.targets, gallery.colours)
        if out.into_pond:
            return value - before  # a new line is unknown: worth zero
        return value + danger_balance(after, seat) - before


def danger_balance(gallery: Gallery, seat: int) -> float:
    """How exposed others' ducks are minus how exposed ours are (higher is better for us)."""
    total = 0.0
    targets = gallery.targets
    own = gallery.colours[seat]
    for p, spot in enumerate(gallery.spots, start=1):
        colour = colour_of(spot.card)
        if colour is None:
            continue
        if spot.bottoms_up is not None:
            danger = 0.0
        elif p in targets:
            danger = 1.0
        elif p - 1 in targets or p + 1 in targets:
            danger = 0.3
        else:
            danger = 0.1
        total += -4.0 * danger if colour == own else 2.0 * danger
        if colour_of(spot.covered) == own:
            total += 0.5
    return total
