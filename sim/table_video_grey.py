"""Synthetic table videos of Grey Duck bot games, grey races included, replayed through the
camera path.

Why this module exists: a whole bot game, filmed, must become the game's true
event log, with Grey Duck's races decided from the frames' timestamps. This module lays out a
Grey Duck table (:func:`grey_layout`), plays a bot game with racing greys on a seeded clock
(:func:`grey_bot_game`), turns it into what a camera sees and a person presses
(:func:`grey_script`, by the table convention of :mod:`ducktable.rules.infer_grey`) and replays
it from oracle snapshots or rendered frames.

The true log of a filmed game is the one a camera can know: events reach the engine in the
order they happened on the table (no network latency), so every race is decided by who laid
their card first. :func:`ducktable.rules.grey.simulate_grey` adds random latency on purpose
(it tests the engine's late-grey rule); here the same players and clock run without it. Greys
that lost their race and in-turn cards laid after a grey changed the trick are shown on the
table too, and taken back a moment later, as at a real table.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from ducktable.rules import Event
from ducktable.rules.grey import (
    DECK_COUNTS,
    DRAKE,
    DRAKES,
    RANK_OF,
    REACT_MS,
    THINK_MS,
    GreedyGreyBot,
    GreyDuckGame,
    GreyDuckState,
)
from ducktable.rules.infer_grey import ZONE_KINDS, GreyInferrer, grey_zone, trick_zone
from ducktable.rules.snapshot import seat_zone
from ducktable.rules.stability import StabilityTracker
from ducktable.sim.table_script import Hand, ScriptResult, Stage, TableScript, replay_script
from ducktable.sim.table_video import FRAME_MS, BotGame, CameraFrames, oracle_snapshots, reads_cache
from ducktable.vision.game_layouts import grey_layout

MAX_GAP_FRAMES = 6
"""Moments of one step further apart than this are brought closer (the video stays short)."""
RACE_GAP_FRAMES = 2
"""Two cards laid at different times appear at least this many frames apart: one misread
frame must not turn a race around."""


# ---- bot games with races ---------------------------------------------------------------------

@dataclass(frozen=True)
class Happening:
    """Something a player did at the table, stamped on the game's clock (ms), and whether the
    engine accepted it; ``step`` groups a mover's move with the greys racing it."""

    event: Event
    accepted: bool
    step: int


def grey_bot_game(seed: int, players: int = 3, options: Mapping[str, Any] | None = None,
                  ) -> tuple[BotGame, list[Happening]]:
    """A whole match of greedy bots racing for greys, on a seeded clock, events applied in the
    order they happened. Returns the game (true log = accepted events) and every happening."""
    rng = random.Random(seed)
    g = GreyDuckGame(dict(options or {}))
    names = tuple(f"P{i + 1}" for i in range(players))
    state = g.new_state(names)
    bots = [GreedyGreyBot() for _ in names]
    happenings: list[Happening] = []
    clock = 0
    step = 0
    while not state.is_over():
        step += 1
        if state.needs_chance():
            deal = _at(state.chance_event(rng), clock)
            state.apply_or_raise(deal)
            happenings.append(Happening(deal, True, step))
            clock += rng.randint(2000, 5000)
            continue
        mover = state.to_move()
        assert mover is not None
        ts = clock + rng.randint(*THINK_MS)
        arrivals = [(ts, 0, _at(bots[mover].choose(state, mover), ts))]
        for seat in range(state.num_players):
            if seat != mover and state.legal_events(seat):
                grey_ts = clock + rng.randint(*REACT_MS)
                arrivals.append((grey_ts, 1, _at(bots[seat].choose(state, seat), grey_ts)))
        arrivals.sort(key=lambda a: (a[0], a[1]))
        for _, _, event in arrivals:
            happenings.append(Happening(event, state.apply(event).ok, step))
        clock = max(a[0] for a in arrivals)
    return BotGame("grey", names, dict(g.options), tuple(state.history), tuple(state.scores())), happenings


def _at(event: Event, ts: int) -> Event:
    return Event(event.type, event.seat, event.data, ts, "bot")


# ---- the script ------------------------------------------------------------------------------

SPOKEN = ("quack", "drake_request", "cannot_comply", "lame_duck")
"""Events nobody lays on the table: a button or the phone tells them (a Drake passed in the swap
shows, but the rank asked for with it is told on the phone too)."""


def grey_script(game: BotGame, happenings: Sequence[Happening], rng: random.Random, *, hold: int = 5,
                cover: int = 2, stray_hands: float = 0.05, linger: float = 0.3) -> TableScript:
    """The frames and presses of a Grey Duck game played by the table convention.

    Within a step, cards appear in the order and roughly with the spacing they were laid; with
    probability ``linger`` a grey player's hand comes back over their grey pile just after
    laying it, so that the grey settles after a play laid later (its first-seen time still wins).
    """
    state = GreyDuckGame(game.options).new_state(game.players)
    n = state.num_players
    names = [seat_zone(s, k) for s in range(n) for k in ZONE_KINDS]
    stage = Stage(names, rng, hold=hold, cover=cover, stray_hands=stray_hands)
    z = stage.zones
    after = max(1, cover // 2)

    def happen(event: Event) -> None:
        state.apply_or_raise(event)
        stage.unseen()

    def lay(zone: str, cards: Sequence[str], event: Event | None) -> Callable[[], None]:
        def act() -> None:
            if event is not None:
                happen(event)
            z[zone] = list(cards)
        return act

    def sweep() -> None:
        for name in names:
            z[name] = []

    stage.settle()
    for _, group_iter in groupby(happenings, key=lambda h: h.step):
        group = list(group_iter)
        first = group[0].event
        if first.type == "deal":
            happen(first)
            stage.settle()
            continue
        if state.phase == "swap":
            _swap_moment(stage, state, first, lay)
            continue
        hands: list[Hand] = []
        offset = 0
        for k, h in enumerate(group):
            if k:
                gap_ms = (h.event.ts or 0) - (group[k - 1].event.ts or 0)
                if gap_ms > 0:
                    offset += min(MAX_GAP_FRAMES, max(RACE_GAP_FRAMES, round(gap_ms / FRAME_MS)))
            hands += _step_hands(h, offset, state, z, rng, cover=cover, after=after, hold=hold,
                                 linger=linger, lay=lay, press=stage.press)
        stage.moment(hands)
        if state.phase == "play" and state.top is None and any(z[name] for name in names):
            stage.change(names, sweep)  # the trick was won: its winner gathers it
        elif state.phase in ("deal", "over"):
            stage.change(names, sweep)  # the hand is over
    return TableScript(game, stage.shots, stage.presses)


def _step_hands(h: Happening, offset: int, state: GreyDuckState, z: dict[str, list[str]],
                rng: random.Random, *, cover: int, after: int, hold: int, linger: float,
                lay: Callable[[str, Sequence[str], Event | None], Callable[[], None]],
                press: Callable[[Event], None]) -> list[Hand]:
    """The hands of one happening of a play step: laying cards (and taking them back if the
    engine refused them) or pressing the Quack button."""
    event, seat = h.event, h.event.seat
    assert seat is not None
    if event.type == "quack":
        if not h.accepted:
            return []  # a Quack that came too late is simply not pressed

        def quack(e: Event = event) -> None:
            press(e)
            state.apply_or_raise(e)
        return [Hand((), quack, offset, cover, 0)]
    if event.type == "play":
        zone, cards = trick_zone(seat), list(event.data["cards"])
    else:
        zone, cards = grey_zone(seat), [event.data["card"]]
    if h.accepted:
        back_after, back_for = (2, rng.randint(3, 5)) if event.type == "grey" and rng.random() < linger else (0, 0)
        return [Hand((zone,), lay(zone, cards, event), offset, cover, after, back_after, back_for)]
    kept: list[str] = []  # what lay in the spot before: it shows again once the cards are taken back

    def put() -> None:
        kept[:] = z[zone]
        z[zone] = list(cards)

    def take_back() -> None:
        z[zone] = list(kept)

    back = offset + cover + after + hold + rng.randint(0, 4)
    return [Hand((zone,), put, offset, cover, after), Hand((zone,), take_back, back, cover, after)]


def _swap_moment(stage: Stage, state: GreyDuckState, event: Event,
                 lay: Callable[[str, Sequence[str], Event | None], Callable[[], None]]) -> None:
    """The swap (GREY-W1..W3): passed and returned cards shown face up in the other's spot."""
    swap = state.swap
    assert swap is not None
    captain, duckling = trick_zone(swap.captain), trick_zone(swap.duckling)
    if event.type in SPOKEN:
        stage.press(event)
        state.apply_or_raise(event)
        if event.type == "lame_duck":
            stage.change([captain], lay(captain, [], None))  # the card goes back to the Duckling
    elif event.type == "swap_pass" and RANK_OF.get(event.data["card"]) == DRAKE:
        # the Duckling says which rank they ask for: the card shows, the phone tells the rest
        stage.change([captain], lay(captain, [event.data["card"]], None))
        stage.press(event)
        state.apply_or_raise(event)
    elif event.type == "swap_pass":
        stage.change([captain], lay(captain, [event.data["card"]], event))
    elif event.type == "swap_return":
        stage.change([duckling], lay(duckling, [event.data["card"]], event))

        def pick_up() -> None:
            stage.zones[captain] = []
            stage.zones[duckling] = []

        stage.change([captain, duckling], pick_up)
    elif event.type == "lucky_duck":
        stage.change([duckling], lay(duckling, list(DRAKES), event))
        stage.change([duckling], lay(duckling, [], None))
    else:
        raise ValueError(f"the Grey Duck script does not know the swap event {event.type!r}")


# ---- replays ------------------------------------------------------------------------------------

def oracle_replay(seed: int, *, players: int = 3, misread: float = 0.02,
                  options: Mapping[str, Any] | None = None, hold: int = 5) -> ScriptResult:
    """One Grey Duck bot game replayed from oracle snapshots (true labels, a few misreads)."""
    game, happenings = grey_bot_game(seed, players, options)
    script = grey_script(game, happenings, random.Random(seed), hold=hold)
    snaps = oracle_snapshots(script.shots, sorted(DECK_COUNTS), misread=misread, seed=seed)
    inferrer = GreyInferrer()
    return replay_script(script, snaps, inferrer, StabilityTracker(window=5, needed=3), seed=seed,
                         withdrawn=lambda: inferrer.withdrawn)


def camera_replay(seed: int, *, players: int = 3, labels: str = "truth", tilt_deg: float = 4.0,
                  max_frames: int | None = None, frames_dir: str | None = None,
                  options: Mapping[str, Any] | None = None, hold: int = 5,
                  snapshots_dir: str | None = None, capture_size: tuple[int, int] | None = None,
                  camera_like: bool = True, reader: str = "replay") -> ScriptResult:
    """One Grey Duck bot game rendered frame by frame and read back through the camera path."""
    game, happenings = grey_bot_game(seed, players, options)
    script = grey_script(game, happenings, random.Random(seed), hold=hold)
    cache = None if snapshots_dir is None else reads_cache(
        "grey", snapshots_dir, players=players, seed=seed, hold=hold, tilt_deg=tilt_deg, labels=labels,
        options=options, capture_size=capture_size, camera_like=camera_like, reader=reader)
    snaps = CameraFrames(script.game.game, script.shots, grey_layout(players), seed=seed, labels=labels,
                         tilt_deg=tilt_deg, max_frames=max_frames, frames_dir=frames_dir, cache=cache,
                         capture_size=capture_size, camera_like=camera_like, reader=reader, players=players,
                         options=options)
    inferrer = GreyInferrer()
    result = replay_script(script, snaps, inferrer, StabilityTracker(window=5, needed=3), seed=seed,
                           withdrawn=lambda: inferrer.withdrawn)
    result.seconds.update(snaps.seconds)
    return result
