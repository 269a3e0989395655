"""Bot games of Ducky Ducky and Sitting Ducks filmed as scripts of table contents and followed
through the table-reading path.

Why this module exists: a bot game gives the true event log; this turns it into what the camera
would see frame by frame (:func:`ducky_script`, :func:`sitting_script`), reads those frames
either straight from the script (:func:`oracle_follow`) or from rendered pictures through the
board readers and the card path (:func:`camera_follow`), follows them with
:mod:`ducktable.rules.infer_ducky` / :mod:`ducktable.rules.infer_sitting` and compares what was
applied with the true log.
"""

from __future__ import annotations

import bisect
import random
import time
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from ducktable.rules import infer_ducky, infer_sitting, make_game, simulate
from ducktable.rules.core import Bot, Event, State
from ducktable.rules.decks import DUCKY_COLOURS, SIT_COLOURS, UNKNOWN
from ducktable.rules.ducky import CARD_SLOTS, DuckyState
from ducktable.rules.ducky import GreedyBot as DuckyBot
from ducktable.rules.ducky_board import resolve_layout
from ducktable.rules.infer_base import TableFollower
from ducktable.rules.sitting import (
    ACTION_BY_CARD,
    ACTION_BY_TYPE,
    SittingDucksState,
)
from ducktable.rules.sitting import WATER as WATER_CARD
from ducktable.rules.sitting import GreedyBot as SittingBot
from ducktable.rules.snapshot import HIDDEN, CardRead, TableSnapshot, ZoneRead
from ducktable.rules.stability import StabilityTracker
from ducktable.sim.board_pictures import (
    PILES_FRAME,
    LineContent,
    RiverContent,
    draw_ducky_piles,
    draw_line,
    draw_river,
    photograph,
    piles_view,
    random_view,
    view_of,
)
from ducktable.sim.table_video import FrameProgress, frames_shown
from ducktable.vision.boards import Labels, LineBoard, LineReader, RiverBoard, RiverReader, _middle, inferrer_for
from ducktable.vision.calibrate import calibrate_from_markers
from ducktable.vision.detect import Detection
from ducktable.vision.layout import TableLayout
from ducktable.vision.pile_layouts import ducky_table_layout, sitting_table_layout
from ducktable.vision.pipeline import Classify

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
    hands: tuple[tuple[str, ...], ...] | None = None
    """Where hands are: each over the middle of the zones it names; None: one over every
    covered zone. A hand sliding the river lies across two pads at once."""

    def hand_zones(self) -> tuple[tuple[str, ...], ...]:
        """The zones each hand is drawn over (see ``hands``)."""
        if self.hands is not None:
            return self.hands
        return tuple((name,) for name in sorted(self.covered))

    def contents(self) -> dict[str, Labels]:
        return dict(self.zones)


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

    def _shot(self, covered: Iterable[str], hands: tuple[tuple[str, ...], ...] | None = None) -> None:
        view = tuple((name, self.contents[name]) for name in self.names)
        self.shots.append(BoardShot(view, frozenset(covered), round(len(self.shots) * FRAME_MS),
                                    self.event_index, hands))

    def settle(self) -> None:
        for _ in range(self.hold):
            stray = [self.rng.choice(self.names)] if self.rng.random() < self.stray else []
            self._shot(stray)

    def change(self, contents: Mapping[str, Labels], only: Iterable[str] | None = None,
               touch: Iterable[str] = (), along: Sequence[Sequence[str]] = ()) -> None:
        """Lay ``contents`` (all zones, or ``only`` those) with a hand over what changes and
        over ``touch`` (a card laid on an equal one changes nothing the camera can see).
        ``along``: stretches of zones in a row (a river's pads); when more than
        ``SWEEP_FROM`` of them change, one or two hands slide along them instead (see
        :meth:`sweep`), after the other zones are laid."""
        names = self.names if only is None else list(only)
        reach = sorted({n for n in names if self.contents[n] != contents[n]} | set(touch))
        if not reach:
            return
        in_row = {n for stretch in along for n in stretch}
        if len(in_row.intersection(reach)) > SWEEP_FROM:
            rest = [n for n in reach if n not in in_row]
            if rest:
                self.change(contents, only=rest)
            self.sweep(contents, along)
            return
        for _ in range(self.cover):
            self._shot(reach)
        for name in reach:
            self.contents[name] = contents[name]
        for _ in range(max(1, self.cover // 2)):
            self._shot(reach)
        self.settle()

    def sweep(self, contents: Mapping[str, Labels], along: Sequence[Sequence[str]]) -> None:
        """Change the zones ``along`` the way a person slides a river: one or two hands move
        along it, each lying across two neighbouring pads a frame, and every pad changes while
        a hand is over it (never all pads at once under a hand each)."""
        stops = [tuple(stretch[k:k + 2]) for stretch in along for k in range(0, len(stretch), 2)
                 if any(self.contents[n] != contents[n] for n in stretch)]
        if not stops:
            return
        if self.rng.random() < 0.5:
            stops.reverse()
        paths = [stops]
        if self.rng.random() < 0.5 and len(stops) > 1:  # two hands, one on each half
            half = (len(stops) + 1) // 2
            paths = [stops[:half], stops[half:]]
        for k in range(max(len(path) for path in paths)):
            hands = tuple(path[min(k, len(path) - 1)] for path in paths)
            for names in hands:
                for name in names:
                    self.contents[name] = contents[name]
            self._shot({n for names in hands for n in names}, hands)
        for _ in range(max(1, self.cover // 2)):  # the hands leave the last pads
            self._shot({n for names in hands for n in names}, hands)
        self.settle()


SWEEP_FROM = 3
"""More river zones than this changing at once are slid along by hand, not laid one by one."""


def ducky_script(state: DuckyState, events: Sequence[Event], rng: random.Random, *, hold: int = 6,
                 cover: int = 2, stray: float = 0.03, pawn_first: float = 0.7,
                 card_before_gift: float = 0.7) -> list[BoardShot]:
    """The frames of a Ducky Ducky game played by the convention of
    :mod:`ducktable.rules.infer_ducky`; ``state`` is a fresh full-information state."""
    script = _Script(infer_ducky.expected_zones(state), rng, hold=hold, cover=cover, stray=stray)
    river = _river_stretches(state.layout.cells)
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
        script.change(infer_ducky.expected_zones(state), along=river)
        if event.type == "pass":
            script.settle()
    return script.shots


def _river_stretches(cells: int) -> list[list[str]]:
    """The river's zones in rows a hand can slide along (see :class:`RiverBoard`): the spare
    pad, the top row and the bottom row."""
    top = (cells + 1) // 2
    return [[infer_ducky.SPARE_ZONE], [infer_ducky.river_zone(c) for c in range(top)],
            [infer_ducky.river_zone(c) for c in range(top, cells)]]


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
        card: str | None = ACTION_BY_TYPE[event.data["action"]].card if event.type == "discard" else (
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
        return [f"duck-{c}" for c in SIT_COLOURS if f"duck-{c}" != label] + [WATER_CARD]
    if label == WATER_CARD:
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


def default_players(game: str, seed: int) -> int:
    """How many play the seeded game when nobody says: every count the game allows, in turn."""
    low, high = (2, 4) if game == "ducky" else (3, 6)
    return low + seed % (high - low + 1)


def bot_game(game: str, seed: int, players: int | None = None) -> TrueGame:
    """A seeded greedy-bot game of Ducky Ducky (2-4 players) or Sitting Ducks (3-6)."""
    if game not in GAMES:
        raise ValueError(f"board games are {list(GAMES)}, not {game!r}")
    n = players if players is not None else default_players(game, seed)
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


def script_for(game: TrueGame, seed: int, *, hold: int | None = None) -> list[BoardShot]:
    """The game's frames; ``hold`` (frames the table stays still after a change) None keeps
    each script's own default."""
    state = make_game(game.game).new_state(game.players)
    rng = random.Random(seed)
    held = {} if hold is None else {"hold": hold}
    if isinstance(state, DuckyState):
        return ducky_script(state, game.events, rng, **held)
    assert isinstance(state, SittingDucksState)
    return sitting_script(state, game.events, rng, **held)


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
    camera_in_video: int = 0  # camera_right when the frames ran out (before a person entered the rest)
    hand_in_video: int = 0  # confirmed, likewise
    pending_episodes: int = 0  # times the camera held an event for a person
    cells_read: int = 0  # zone reads compared with the script (zones no hand covers)
    cells_right: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    by_type: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per true event type: ``true``, ``camera`` (applied alone, right), ``confirmed`` (by a
    person) and ``wrong`` (the camera applied something the truth does not have)."""

    def tally(self, event_type: str, outcome: str) -> None:
        counts = self.by_type.setdefault(event_type, {"true": 0, "camera": 0, "confirmed": 0, "wrong": 0})
        counts[outcome] += 1


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
           patience_frames: int = 15, lag_frames: int = 90) -> FollowResult:
    """Feed snapshots to a follower on an observer state, each with how many true events had
    happened at the table by then. A simulated person looks at what stays pending for
    ``patience_frames`` frames: if the next true event has already happened they enter it
    (confirming or correcting the camera), otherwise they reject the suggestion. When the
    scoreboard lags the table with nothing pending (a true event happened ``lag_frames``
    frames ago or more and is still not settled) they enter that event too; at the end they
    enter whatever the camera did not settle.

    Each applied event must be one of the true events still open (see :func:`_open_window`), or
    have the same effect on the table; anything else counts as wrong and ends the game."""
    g = make_game(game.game)
    remaining = list(enumerate(g.public_event(e) for e in game.events))
    state = g.new_state(game.players, observer=True)
    mirror = g.new_state(game.players, observer=True)  # the follower's state one event behind
    follower = TableFollower(state, inferrer_for(game.game), StabilityTracker(window=5, needed=3))
    result = FollowResult(game.game, seed, len(remaining))
    for _, event in remaining:
        result.tally(event.type, "true")

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
                result.tally(inference.event.type, "wrong")
                expected = " or ".join(e.dumps() for _, e in window) or "nothing"
                result.first_problem = result.first_problem or (
                    f"event #{k}: applied {inference.event.dumps()} ({inference.why}) but the "
                    f"truth is {expected}")
                return False
            by_camera = inference.why not in ("confirmed by hand", "entered by hand")
            result.camera_right += by_camera
            result.tally(window[j][1].type, "camera" if by_camera else "confirmed")
            mirror.apply_or_raise(inference.event)
            del remaining[j]
        return True

    def enter(happened: int, now: int, camera_on: bool = True) -> bool | None:
        """The person enters the next true event if it has happened (None: nothing to enter),
        stamped with the time they entered it, as the phone does. Once the video is over
        (``camera_on`` False) the camera's last picture says nothing of what comes next, so the
        follower does not catch up from it."""
        true = next((e for k, e in open_events() if k < happened and state.check(e).ok), None)
        if true is None:
            return None
        result.confirmed += 1
        start = len(follower.log)
        follower.confirm(Event(true.type, true.seat, true.data, now, "manual"), catch_up=camera_on)
        return check_new(start)

    waited = 0
    happened_at: list[int] = []  # the frame each true event happened in, in order
    ok = True
    for snapshot, happened in frames:
        result.frames += 1
        before = len(follower.log)
        t0 = time.perf_counter()
        step = follower.feed(snapshot)
        result.seconds["follow"] = result.seconds.get("follow", 0.0) + time.perf_counter() - t0
        if not check_new(before):
            ok = False
            break
        result.pending_episodes += step.pending is not None and not waited
        waited = waited + 1 if step.pending is not None else 0
        happened_at += [result.frames] * (happened - len(happened_at))
        if waited >= patience_frames:
            waited = 0
            entered = enter(happened, snapshot.ts)
            if entered is None:
                follower.reject()
            elif not entered:
                ok = False
                break
        # the scoreboard lags the table with nothing to show: the person enters every event
        # that happened lag_frames frames ago or more (the camera may settle the rest meanwhile)
        overdue = bisect.bisect_right(happened_at, result.frames - lag_frames)
        while follower.pending is None and (entered := enter(overdue, snapshot.ts)) is not None:
            if not entered:
                ok = False
                break
        if not ok:
            break
    result.camera_in_video, result.hand_in_video = result.camera_right, result.confirmed
    while ok and not state.is_over() and remaining:
        entered = enter(len(game.events), follower.tracker.last_ts, camera_on=False)
        if not entered:
            result.first_problem = result.first_problem or (
                f"after event #{len(follower.log)}: no open true event is legal now")
            ok = False
    result.exact = (ok and not result.wrong_applied and state.is_over()
                    and tuple(state.scores()) == game.scores and tuple(state.winners()) == game.winners)
    return result


def oracle_follow(game: str, seed: int, *, misread: float = 0.02, players: int | None = None,
                  hold: int | None = None) -> FollowResult:
    """One bot game followed from oracle snapshots (no pixels); ``players`` None lets the seed
    choose, ``hold`` None keeps the script's own."""
    true = bot_game(game, seed, players)
    shots = script_for(true, seed, hold=hold)
    counted = _CellCount(shots)
    snapshots = counted.wrap(oracle_snapshots(shots, misread=misread, seed=seed))
    result = follow(true, zip(snapshots, (shot.event_index for shot in shots), strict=True), seed=seed)
    counted.into(result)
    return result


class _CellCount:
    """Counts zone reads that match the script, over zones no hand covers (and, if given, only
    ``zones``): the read accuracy of a followed game."""

    def __init__(self, shots: Sequence[BoardShot], zones: Iterable[str] | None = None) -> None:
        self.shots = shots
        self.zones = None if zones is None else set(zones)
        self.read = self.right = 0

    def wrap(self, snapshots: Iterable[TableSnapshot]) -> Iterator[TableSnapshot]:
        for shot, snapshot in zip(self.shots, snapshots, strict=False):
            for name, labels in shot.zones:
                if name in shot.covered or (self.zones is not None and name not in self.zones):
                    continue
                read = snapshot.zone(name)
                if read is not None and not read.occluded:
                    self.read += 1
                    self.right += read.labels == labels
            yield snapshot

    def into(self, result: FollowResult) -> None:
        result.cells_read, result.cells_right = self.read, self.right


# ---- following a game through rendered board frames ------------------------------------------------

def camera_snapshots(game: TrueGame, shots: Sequence[BoardShot], seed: int, *,
                     misread: float = 0.02, seconds: dict[str, float] | None = None,
                     piles: str = "script", capture_size: tuple[int, int] | None = None,
                     frames_dir: str | None = None) -> Iterator[TableSnapshot]:
    """Snapshots whose board zones (river and logs, or the line) are read from rendered frames by
    the board reader (a fixed camera calibrated from its markers, hands drawn where a script
    frame puts them, fresh noise every frame). ``piles`` says how the cards beside the board are
    read: "script" takes them from the script as :func:`oracle_snapshots` gives them; "truth"
    and "model" draw them where the camera reader expects them (:mod:`.pile_layouts`; Ducky
    Ducky's in a wider 1080p view) and read them as it does (:class:`.pile_reading.CardZones`),
    naming the cards found by their true labels or with the shipped classifier. Ducky Ducky's
    piles are drawn in "model" mode only (see :func:`_piles_drawn`). ``capture_size``: the
    pictures are taken at this size (the same table and view, more or fewer pixels) and read as
    ``ducktable run`` reads them: calibrated and read at :func:`~.reader.calibration_view`'s
    size, the cards cut from the whole picture. ``frames_dir``: the pictures are also written
    there as JPEGs."""
    from ducktable.vision.reader import calibration_view, reading_view

    rng = np.random.default_rng([seed, 0xCA3E])
    river = RiverBoard.of(resolve_layout(None)) if game.game == "ducky" else None
    line = LineBoard()
    pile = _piles_drawn(game.game, piles)
    size = PILES_FRAME if pile and river is not None else (1280, 720)
    homography = piles_view(rng) if size == PILES_FRAME else random_view(rng)
    if capture_size is not None:
        homography = np.diag([capture_size[0] / size[0], capture_size[1] / size[1], 1.0]) @ homography
        size = capture_size
    layout = _pixel_layout(game.game, len(game.players), pile)
    pixel_zones = {z.name for z in layout.zones}
    played = infer_sitting.PLAYED_ZONE
    pile_at = layout.zone(played).centre if pile and river is None else (0.0, 0.0)
    views: dict[Any, np.ndarray] = {}

    def view_for(zones: Mapping[str, Labels]) -> np.ndarray:
        """The camera's view of the table drawn with this content (kept a while)."""
        content: RiverContent | LineContent = (
            RiverContent.from_zones(zones, river.board) if river is not None else LineContent.from_zones(zones))
        top = _top(zones, played) if pile and river is None else None
        seats = tuple(sorted((k, v) for k, v in zones.items() if k.startswith("seat"))) if pile else ()
        key = (content, top, seats)
        if key not in views:
            if len(views) >= 8:  # a view is 11-25 MB: keep only the recent few
                del views[next(iter(views))]
            draw_rng = np.random.default_rng([seed, zlib.crc32(repr(key).encode())])
            if isinstance(content, RiverContent):
                assert river is not None
                plane = draw_river(content, river, draw_rng)
                if pile:
                    draw_ducky_piles(plane, layout, zones, draw_rng)
            else:
                plane = draw_line(content, line, draw_rng, played=None if top is None else (top, pile_at))
            views[key] = view_of(plane, homography, size)
        return views[key]

    bare = {**shots[0].contents(), played: ()}  # the empty table: no action card played yet
    first, _ = photograph(None, homography, rng, seen=view_for(bare), size=size)
    first = calibration_view(first, game.game)  # as `ducktable calibrate` measures it
    read_size = (first.shape[1], first.shape[0])
    calibrated = calibrate_from_markers(layout, first).layout
    reader: RiverReader | LineReader = (RiverReader(river, calibrated) if river is not None
                                        else LineReader(line, calibrated))
    shown: list[str | None] = [None]  # the true top card of the frame being read

    def true_labels(detections: list[Detection]) -> list[tuple[str, float]]:
        top = shown[0]
        return [(top, 0.95) if top is not None else (UNKNOWN, 0.1) for _ in detections]

    cards = _pile_reader(game.game, calibrated, read_size, true_labels, piles) if pile else None
    if frames_dir is not None:
        Path(frames_dir).mkdir(parents=True, exist_ok=True)
    others = oracle_snapshots(shots, misread=misread, seed=seed)
    progress = FrameProgress(f"{game.game} seed {seed}", len(shots))
    for index, (shot, oracle) in enumerate(zip(shots, others, strict=True)):
        progress.tick(index)
        zones = shot.contents()
        hands = [_middle([layout.zone(z).centre for z in names]) for names in shot.hand_zones()
                 if all(z in pixel_zones for z in names)]
        t0 = time.perf_counter()
        picture, _ = photograph(None, homography, np.random.default_rng([seed, index]), hands=hands,
                                seen=view_for(zones), size=size)
        t1 = time.perf_counter()
        if frames_dir is not None:
            cv2.imwrite(f"{frames_dir}/frame-{index:05d}.jpg", picture)
        image, detail = reading_view(picture, read_size)
        reads = reader.read(image)
        if cards is not None:
            shown[0] = _top(zones, played)
            reads.update(cards.read(image, detail))
        if seconds is not None:
            seconds["render"] = seconds.get("render", 0.0) + t1 - t0
            seconds["read"] = seconds.get("read", 0.0) + time.perf_counter() - t1
        merged = {name: read for name, read in oracle.zones.items() if name not in pixel_zones}
        merged.update(reads)
        yield TableSnapshot(shot.ts, merged, index)


def _top(zones: Mapping[str, Labels], name: str) -> str | None:
    labels = zones.get(name, ())
    return labels[-1] if labels else None


def _piles_drawn(game: str, piles: str) -> bool:
    """Whether the cards beside the board are drawn and read from the frames: Sitting Ducks'
    played pile in truth and model modes (a pile's true label is its top card), Ducky Ducky's
    piles and gifts in model mode only (their true labels would need the reader's zone for
    each crop: truth mode takes them from the script)."""
    return piles == "model" or (game == "sitting" and piles == "truth")


def _pixel_layout(game: str, players: int, pile: bool) -> TableLayout:
    """The zones read from the frames: the board's, and with ``pile`` the cards' beside it
    where the camera reader has them (:mod:`ducktable.vision.pile_layouts`)."""
    board = resolve_layout(None)
    if not pile:
        return RiverBoard.of(board).layout() if game == "ducky" else LineBoard().layout()
    return ducky_table_layout(players, board) if game == "ducky" else sitting_table_layout()


def _pile_reader(game: str, calibrated: TableLayout, frame_size: tuple[int, int],
                 true_labels: Classify, piles: str) -> Any:
    """The camera reader's reader of the cards beside the board, naming them with the shipped
    classifier (``piles`` "model") or, for Sitting Ducks' played pile, with the true label of
    its top card ("truth")."""
    from ducktable.vision.frame_reader import model_classifier
    from ducktable.vision.pile_reading import CardZones, ducky_pile_card, sitting_card

    classify = model_classifier(game) if piles == "model" else true_labels
    if game == "ducky":
        seats = {z.name for z in calibrated.zones if z.name.startswith("seat")}
        return CardZones(calibrated, seats, frame_size, classify, ducky_pile_card)
    return CardZones(calibrated, {infer_sitting.PLAYED_ZONE}, frame_size, classify, sitting_card, whole_tops=True)


def camera_follow(game: str, seed: int, *, misread: float = 0.02, players: int | None = None,
                  hold: int | None = None, max_frames: int | None = None, piles: str = "truth",
                  capture_size: tuple[int, int] | None = None, frames_dir: str | None = None
                  ) -> FollowResult:
    """One bot game followed with its board read from rendered frames (slow: a frame ~0.1 s);
    ``piles``, ``capture_size`` and ``frames_dir``: see :func:`camera_snapshots`. The cell
    figures count the zones read from pixels only (the others come from the script)."""
    true = bot_game(game, seed, players)
    shots = script_for(true, seed, hold=hold)
    shots = shots[:frames_shown(shots, max_frames)]
    seconds: dict[str, float] = {}
    snapshots = camera_snapshots(true, shots, seed, misread=misread, seconds=seconds, piles=piles,
                                 capture_size=capture_size, frames_dir=frames_dir)
    counted = _CellCount(shots, pixel_zones(game, piles, len(true.players)))
    result = follow(true, zip(counted.wrap(snapshots), (shot.event_index for shot in shots), strict=True),
                    seed=seed)
    counted.into(result)
    result.seconds.update(seconds)
    return result


def pixel_zones(game: str, piles: str = "script", players: int = 3) -> set[str]:
    """The zones of ``game`` read from rendered frames: its board's (by the board reader) and
    the cards' beside it that ``piles`` has drawn (by the card reader, see :func:`_piles_drawn`)."""
    return {zone.name for zone in _pixel_layout(game, players, _piles_drawn(game, piles)).zones}
