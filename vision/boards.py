"""Ducky Ducky's river and Sitting Ducks' line: synthetic top views, their readers, and bot
games followed through the table-reading path.

Why this module exists: issue 5 asks the camera to read the Ducky Ducky board (for each river
cell the pad's colour and whether a duck rides it, the pawns on the logs) and the Sitting Ducks
line (for each position the card, a target, a Bottoms Up card, a duck hidden under it), and to
turn those readings into game events. This module draws seeded pictures of both boards (OpenCV,
with lighting, noise, blur and a tilted camera), reads them back with classical colour and shape
analysis, measures the reading (:func:`run_board_bench`), and plays bot games as a script of
table contents frame by frame, followed by :mod:`ducktable.rules.infer_ducky` /
:mod:`ducktable.rules.infer_sitting` and compared with the true log (:func:`run_game_bench`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ducktable.rules import infer_ducky, infer_sitting, make_game, simulate
from ducktable.rules.core import Bot, Event, State
from ducktable.rules.decks import DUCKY_COLOURS, SIT_COLOURS, UNKNOWN
from ducktable.rules.ducky import CARD_SLOTS, DuckyState
from ducktable.rules.ducky import GreedyBot as DuckyBot
from ducktable.rules.infer_base import Inferrer, TableFollower
from ducktable.rules.infer_ducky import DuckyInferrer
from ducktable.rules.infer_sitting import SittingInferrer
from ducktable.rules.sitting import ACTION_BY_CARD, ACTION_BY_TYPE, WATER, SittingDucksState
from ducktable.rules.sitting import GreedyBot as SittingBot
from ducktable.rules.snapshot import HIDDEN, CardRead, TableSnapshot, ZoneRead
from ducktable.rules.stability import StabilityTracker

Labels = tuple[str, ...]


# ---- bot games and their table scripts ----------------------------------------------------------

FPS = 15
FRAME_MS = 1000 / FPS
GAMES = ("ducky", "sitting")


@dataclass(frozen=True)
class BoardShot:
    """One frame's truth: every zone's labels and the zones a hand covers."""

    zones: tuple[tuple[str, Labels], ...]
    covered: frozenset[str]
    ts: int
    event_index: int  # how many true events have happened by this frame


class _Script:
    """The table as a game changes it; every change is made under a hand and then left alone
    for ``hold`` frames (now and then a stray hand passes over some zone)."""

    def __init__(self, contents: dict[str, Labels], rng: random.Random, *, hold: int, cover: int,
                 stray: float) -> None:
        self.names = sorted(contents)
        self.contents = dict(contents)
        self.rng, self.hold, self.cover, self.stray = rng, hold, cover, stray
        self.shots: list[BoardShot] = []
        self.event_index = 0

    def _shot(self, covered: Iterable[str]) -> None:
        view = tuple((name, self.contents[name]) for name in self.names)
        self.shots.append(BoardShot(view, frozenset(covered), round(len(self.shots) * FRAME_MS),
                                    self.event_index))

    def settle(self) -> None:
        for _ in range(self.hold):
            stray = [self.rng.choice(self.names)] if self.rng.random() < self.stray else []
            self._shot(stray)

    def change(self, contents: Mapping[str, Labels], only: Iterable[str] | None = None,
               touch: Iterable[str] = ()) -> None:
        """Lay ``contents`` (all zones, or ``only`` those) with a hand over what changes and
        over ``touch`` (a card laid on an equal one changes nothing the camera can see)."""
        names = self.names if only is None else list(only)
        reach = sorted({n for n in names if self.contents[n] != contents[n]} | set(touch))
        if not reach:
            return
        for _ in range(self.cover):
            self._shot(reach)
        for name in reach:
            self.contents[name] = contents[name]
        for _ in range(max(1, self.cover // 2)):
            self._shot(reach)
        self.settle()


def ducky_script(state: DuckyState, events: Sequence[Event], rng: random.Random, *, hold: int = 6,
                 cover: int = 2, stray: float = 0.03, pawn_first: float = 0.7,
                 card_before_gift: float = 0.7) -> list[BoardShot]:
    """The frames of a Ducky Ducky game played by the convention of
    :mod:`ducktable.rules.infer_ducky`; ``state`` is a fresh full-information state."""
    script = _Script(infer_ducky.expected_zones(state), rng, hold=hold, cover=cover, stray=stray)
    script.settle()
    for event in events:
        now = dict(script.contents)
        seat = event.seat
        if event.type == "move" and seat is not None and rng.random() < pawn_first:
            now[infer_ducky.log_zone(state.pawns[seat])] = ()
            now[infer_ducky.log_zone(event.data["log"])] = (infer_ducky.pawn_label(seat),)
            script.change(now)
        if event.type in ("take", "fish") and seat is not None and rng.random() < card_before_gift:
            _duck_on_full_card(state, event, script)
        state.apply_or_raise(event)
        script.event_index += 1
        script.change(infer_ducky.expected_zones(state))
        if event.type == "pass":
            script.settle()
    return script.shots


def _duck_on_full_card(state: DuckyState, event: Event, script: _Script) -> None:
    """Show the duck that completes a card lying on it before the card becomes a gift."""
    seat, pile = event.seat, event.data["pile"]
    assert seat is not None
    card = state.visible[seat][pile]
    if card is None or card.filled.count(False) != 1:
        return
    now = dict(script.contents)
    now[infer_ducky.pile_zone(seat, pile)] = infer_ducky.card_labels(card.label, [True, True])
    if event.type == "fish":
        cell = state.faced_cell(seat)
        assert cell is not None
        now[infer_ducky.river_zone(cell)] = infer_ducky.pad_labels(state.pad_colour[cell], False)
    else:
        now[infer_ducky.SPARE_ZONE] = infer_ducky.pad_labels(state.spare_colour, False)
    script.change(now)


def sitting_script(state: SittingDucksState, events: Sequence[Event], rng: random.Random, *,
                   hold: int = 8, cover: int = 2, stray: float = 0.03,
                   card_first: float = 0.7) -> list[BoardShot]:
    """The frames of a Sitting Ducks game played by the convention of
    :mod:`ducktable.rules.infer_sitting`: an action card goes on the played pile before (or,
    now and then, after) its change is made in the line."""
    script = _Script(infer_sitting.expected_zones(state), rng, hold=hold, cover=cover, stray=stray)
    script.settle()
    played = infer_sitting.PLAYED_ZONE
    for event in events:
        info = ACTION_BY_TYPE.get(event.type)
        card: str | None = event.data["card"] if event.type == "discard" else (
            info.card if info is not None and info.action != "bottoms-up" else None)
        first = card is not None and rng.random() < card_first
        if card is not None and first:
            script.change({**script.contents, played: (card,)}, [played], touch=[played])
        state.apply_or_raise(event)
        script.event_index += 1
        after = infer_sitting.expected_zones(state)
        script.change(after, [n for n in script.names if n != played or first])
        script.change(after, touch=[played] if card is not None and not first else ())
        if event.type in ("draw", "shuffle"):
            script.settle()
    return script.shots


# ---- oracle reads -----------------------------------------------------------------------------

def _alternatives(label: str) -> list[str]:
    """Labels a reader could mistake ``label`` for (same kind of thing, other colour or seat)."""
    for prefix, values in ((infer_ducky.PAD, ("white", *DUCKY_COLOURS)),
                           (infer_ducky.PAWN, ("0", "1", "2", "3"))):
        if label.startswith(prefix):
            return [prefix + v for v in values if prefix + v != label]
    if label.startswith("duck-"):
        return [f"duck-{c}" for c in SIT_COLOURS if f"duck-{c}" != label] + [WATER]
    if label == WATER:
        return [f"duck-{c}" for c in SIT_COLOURS]
    if label in CARD_SLOTS:
        return [c for c in CARD_SLOTS if c != label]
    if label in ACTION_BY_CARD:
        return [c for c in ACTION_BY_CARD if c != label]
    return [UNKNOWN]


def misread_labels(labels: Labels, rng: random.Random) -> tuple[CardRead, ...]:
    """One wrong reading of a zone: a label swapped for a look-alike, dropped, or unknown."""
    reads = [CardRead(label, 0.95) for label in labels]
    roll = rng.random()
    if reads and roll < 0.5:
        k = rng.randrange(len(reads))
        reads[k] = CardRead(rng.choice(_alternatives(labels[k])), 0.6)
    elif reads and roll < 0.7:
        del reads[rng.randrange(len(reads))]
    elif reads:
        k = rng.randrange(len(reads))
        reads[k] = CardRead(UNKNOWN, 0.3)
    else:
        reads.append(CardRead(rng.choice(["target", "pad-white", "duck-yellow", "pawn-0", "back"]), 0.6))
    return tuple(reads)


def oracle_snapshots(shots: Sequence[BoardShot], *, misread: float = 0.0,
                     seed: int = 0) -> Iterator[TableSnapshot]:
    """Snapshots straight from the script (true labels, covered zones marked), and with
    probability ``misread`` per zone and frame a wrong reading of it instead."""
    rng = random.Random(seed)
    for index, shot in enumerate(shots):
        zones: dict[str, ZoneRead] = {}
        for name, labels in shot.zones:
            if name in shot.covered:
                zones[name] = HIDDEN
            elif misread and rng.random() < misread:
                zones[name] = ZoneRead(misread_labels(labels, rng))
            else:
                zones[name] = ZoneRead(tuple(CardRead(label, 0.95) for label in labels))
        yield TableSnapshot(shot.ts, zones, index)


# ---- following a game and comparing with the truth ----------------------------------------------

class _SometimesPasses(Bot):
    """A greedy Ducky Ducky player who now and then leaves a duck it could fish (so passes,
    which the camera only sees by what follows, are tested too)."""

    def __init__(self, inner: Bot, rng: random.Random, chance: float) -> None:
        self.inner, self.rng, self.chance = inner, rng, chance

    def choose(self, state: State, seat: int) -> Event:
        passes = [e for e in state.legal_events(seat) if e.type == "pass"]
        if passes and self.rng.random() < self.chance:
            return passes[0]
        return self.inner.choose(state, seat)


@dataclass(frozen=True)
class TrueGame:
    """A finished full-information bot game: its players, true log and final scores."""

    game: str
    players: tuple[str, ...]
    events: tuple[Event, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]


def bot_game(game: str, seed: int, players: int | None = None) -> TrueGame:
    """A seeded greedy-bot game of Ducky Ducky (2-4 players) or Sitting Ducks (3-6)."""
    if game not in GAMES:
        raise ValueError(f"board games are {list(GAMES)}, not {game!r}")
    low, high = (2, 4) if game == "ducky" else (3, 6)
    n = players if players is not None else low + seed % (high - low + 1)
    names = tuple(f"P{i + 1}" for i in range(n))
    state = make_game(game).new_state(names)
    bots: list[Bot]
    if game == "ducky":
        bots = [_SometimesPasses(DuckyBot(random.Random(seed * 100 + i)), random.Random(seed * 7 + i), 0.2)
                for i in range(n)]
    else:
        bots = [SittingBot(random.Random(seed * 100 + i)) for i in range(n)]
    simulate(state, bots, random.Random(seed))
    return TrueGame(game, names, tuple(state.history), tuple(state.scores()), tuple(state.winners()))


def script_for(game: TrueGame, seed: int) -> list[BoardShot]:
    state = make_game(game.game).new_state(game.players)
    rng = random.Random(seed)
    if isinstance(state, DuckyState):
        return ducky_script(state, game.events, rng)
    assert isinstance(state, SittingDucksState)
    return sitting_script(state, game.events, rng)


def inferrer_for(game: str) -> Inferrer:
    if game == "ducky":
        return DuckyInferrer()
    if game == "sitting":
        return SittingInferrer()
    raise ValueError(f"no board inference for {game!r}")


@dataclass
class FollowResult:
    """How one followed game compares with its truth."""

    game: str
    seed: int
    true_events: int
    camera_right: int = 0  # true events the camera applied by itself (or one with the same effect)
    confirmed: int = 0  # events a person confirmed or entered
    wrong_applied: int = 0  # camera events whose effect the true log does not have
    exact: bool = False  # final scores and winners as in the truth, and nothing wrong applied
    frames: int = 0
    first_problem: str = ""


def _view(state: State) -> dict[str, Any]:
    view = dict(state.public_view())
    view.pop("history", None)
    view.pop("last_events", None)
    return view


def same_effect(before: State, seen: Event, true: Event) -> bool:
    """Whether ``seen`` is ``true`` or leaves the same public table (a Duck Shuffle swapping two
    equal cards, ducks put back on either of two pads of their colour...)."""
    if seen.type != true.type or seen.seat != true.seat:
        return False
    if dict(seen.data) == dict(true.data):
        return True
    a, b = before.clone(), before.clone()
    return a.apply(seen).ok and b.apply(true).ok and _view(a) == _view(b)


def _open_window(game: str, remaining: Sequence[Event]) -> int:
    """How many of the next true events the camera may meet first. Ducky Ducky's fishers fish
    or pass in any order, and a pass only shows once the next pawn moves, so within a turn the
    camera may see events in another order than the log; Sitting Ducks' order is fixed."""
    if game != "ducky":
        return min(1, len(remaining))
    return next((i for i, e in enumerate(remaining) if i > 0 and e.type == "move"), len(remaining))


def follow(game: TrueGame, frames: Iterable[tuple[TableSnapshot, int]], *, seed: int = 0,
           patience_frames: int = 15) -> FollowResult:
    """Feed snapshots to a follower on an observer state, each with how many true events had
    happened at the table by then. A simulated person looks at what stays pending for
    ``patience_frames`` frames: if the next true event has already happened they enter it
    (confirming or correcting the camera), otherwise they reject the suggestion; at the end they
    enter whatever the camera did not settle.

    Each applied event must be one of the true events still open (see :func:`_open_window`), or
    have the same effect on the table; anything else counts as wrong and ends the game."""
    g = make_game(game.game)
    remaining = list(enumerate(g.public_event(e) for e in game.events))
    state = g.new_state(game.players, observer=True)
    mirror = g.new_state(game.players, observer=True)  # the follower's state one event behind
    follower = TableFollower(state, inferrer_for(game.game), StabilityTracker(window=5, needed=3))
    result = FollowResult(game.game, seed, len(remaining))

    def open_events() -> list[tuple[int, Event]]:
        return remaining[:_open_window(game.game, [e for _, e in remaining])]

    def check_new(start: int) -> bool:
        for k in range(start, len(follower.log)):
            inference = follower.log[k]
            window = open_events()
            j = next((i for i, (_, true) in enumerate(window)
                      if inference.event is true or same_effect(mirror, inference.event, true)), None)
            if j is None:
                result.wrong_applied += 1
                expected = " or ".join(e.dumps() for _, e in window) or "nothing"
                result.first_problem = result.first_problem or (
                    f"event #{k}: applied {inference.event.dumps()} ({inference.why}) but the "
                    f"truth is {expected}")
                return False
            result.camera_right += inference.why not in ("confirmed by hand", "entered by hand")
            mirror.apply_or_raise(inference.event)
            del remaining[j]
        return True

    def enter(happened: int, now: int) -> bool | None:
        """The person enters the next true event if it has happened (None: nothing to enter),
        stamped with the time they entered it, as the phone does."""
        true = next((e for k, e in open_events() if k < happened and state.check(e).ok), None)
        if true is None:
            return None
        result.confirmed += 1
        start = len(follower.log)
        follower.confirm(Event(true.type, true.seat, true.data, now, "manual"))
        return check_new(start)

    waited = 0
    ok = True
    for snapshot, happened in frames:
        result.frames += 1
        before = len(follower.log)
        step = follower.feed(snapshot)
        if not check_new(before):
            ok = False
            break
        waited = waited + 1 if step.pending is not None else 0
        if waited >= patience_frames:
            waited = 0
            entered = enter(happened, snapshot.ts)
            if entered is None:
                follower.reject()
            elif not entered:
                ok = False
                break
    while ok and not state.is_over() and remaining:
        entered = enter(len(game.events), follower.tracker.last_ts)
        if not entered:
            result.first_problem = result.first_problem or (
                f"after event #{len(follower.log)}: no open true event is legal now")
            ok = False
    result.exact = (ok and not result.wrong_applied and state.is_over()
                    and tuple(state.scores()) == game.scores and tuple(state.winners()) == game.winners)
    return result


def oracle_follow(game: str, seed: int, *, misread: float = 0.02) -> FollowResult:
    """One bot game followed from oracle snapshots (no pixels)."""
    true = bot_game(game, seed)
    shots = script_for(true, seed)
    snapshots = oracle_snapshots(shots, misread=misread, seed=seed)
    return follow(true, zip(snapshots, (shot.event_index for shot in shots), strict=True), seed=seed)
