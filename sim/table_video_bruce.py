"""Synthetic table videos of Duck Duck Bruce bot games, replayed through the camera path.

Why this module exists: a whole bot game, filmed, must become the game's true
event log. This module lays out a Bruce table (:func:`bruce_layout`), turns a bot game into what
a camera sees and what a person presses (:func:`bruce_script`, following the table convention of
:mod:`ducktable.rules.infer_bruce`: the row grows card by card, kept rows go to a nest, double
ducks and Bruces go to the discard pile, a raid's cards are shown; the Bruce declaration and the
die roll are told by hand), and replays it from oracle snapshots or rendered frames.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from ducktable.rules import Event, make_game, simulate
from ducktable.rules.bruce import DECK_COUNTS, BruceState, GreedyBot
from ducktable.rules.decks import BACK
from ducktable.rules.infer_bruce import DISCARD, DRAW, ROW, STEAL, BruceInferrer, nest_zone
from ducktable.rules.stability import StabilityTracker
from ducktable.sim.table_script import ScriptResult, Stage, TableScript, replay_script
from ducktable.sim.table_video import BotGame, CameraFrames, oracle_snapshots, reads_cache
from ducktable.vision.game_layouts import bruce_layout


def bruce_bot_game(seed: int, players: int = 3, options: Mapping[str, Any] | None = None) -> BotGame:
    """A whole game of greedy bots (full information), reproducible from ``seed``."""
    g = make_game("bruce", dict(options or {}))
    names = tuple(f"P{i + 1}" for i in range(players))
    state = g.new_state(names)
    simulate(state, [GreedyBot(random.Random(seed * 100 + i)) for i in range(players)], random.Random(seed))
    return BotGame("bruce", names, dict(g.options), tuple(state.history), tuple(state.scores()))


def bruce_script(game: BotGame, rng: random.Random, *, hold: int = 5, cover: int = 2,
                 stray_hands: float = 0.05) -> TableScript:
    """The frames and presses of a Bruce game played by the table convention."""
    state = make_game("bruce", game.options).new_state(game.players)
    assert isinstance(state, BruceState)
    nests = [nest_zone(s) for s in range(state.num_players)]
    names = [DRAW, ROW, DISCARD, STEAL, *nests]
    stage = Stage(names, rng, hold=hold, cover=cover, stray_hands=stray_hands)
    z = stage.zones

    def happen(event: Event) -> None:
        state.apply_or_raise(event)
        stage.unseen()

    def show_nests(*seats: int) -> None:
        for s in seats:
            z[nests[s]] = [BACK] if state.nests[s] else []

    stage.settle()
    for event in game.events:
        seat = state.current
        if event.type == "shuffle":
            def lay_pile(e: Event = event) -> None:
                happen(e)
                z[DRAW] = [BACK]

            stage.change([DRAW], lay_pile)
        elif event.type == "continue":
            happen(event)  # seen only as the next card turned over
        elif event.type == "reveal":
            card = event.data["card"]

            def flip(e: Event = event, c: str = card) -> None:
                happen(e)
                z[ROW].append(c)
                if state.pile_size == 0:
                    z[DRAW] = []

            stage.change([DRAW, ROW], flip)
            if not state.row:  # a double duck or a Bruce: the row goes, the flipped card on top
                def clear(c: str = card, s: int = seat) -> None:
                    z[ROW] = []
                    z[DISCARD] = [c]
                    show_nests(s)

                stage.change([ROW, DISCARD, nests[seat]], clear)
        elif event.type == "stop":
            def keep(e: Event = event, s: int = seat) -> None:
                happen(e)
                z[ROW] = []
                show_nests(s)

            stage.change([ROW, nests[seat]], keep)
        elif event.type in ("declare", "roll"):
            stage.press(event)
            state.apply_or_raise(event)
        elif event.type == "steal":
            source, taker = state.steal_from, state.steal_to
            assert source is not None and taker is not None
            shown = list(event.data["cards"])
            rng.shuffle(shown)

            def show(e: Event = event, cards: list[str] = shown, s: int = source) -> None:
                happen(e)
                z[STEAL] = cards
                show_nests(s)

            stage.change([nests[source], STEAL], show)

            def stash(t: int = taker) -> None:
                z[STEAL] = []
                show_nests(t)

            stage.change([STEAL, nests[taker]], stash)
        else:
            raise ValueError(f"the Bruce script does not know the event {event.type!r}")
        if state.phase in ("shuffle", "over") and event.type != "shuffle" and any(z[n] for n in names):
            def gather() -> None:
                for name in names:
                    z[name] = []

            stage.change(names, gather)
    return TableScript(game, stage.shots, stage.presses)


def oracle_replay(seed: int, *, players: int = 3, misread: float = 0.02,
                  options: Mapping[str, Any] | None = None, hold: int = 5) -> ScriptResult:
    """One Bruce bot game replayed from oracle snapshots (true labels, a few misreads, no pixels)."""
    game = bruce_bot_game(seed, players, options)
    script = bruce_script(game, random.Random(seed), hold=hold)
    snaps = oracle_snapshots(script.shots, sorted(DECK_COUNTS), misread=misread, seed=seed)
    return replay_script(script, snaps, BruceInferrer(), StabilityTracker(window=5, needed=3), seed=seed)


def camera_replay(seed: int, *, players: int = 3, labels: str = "truth", tilt_deg: float = 4.0,
                  max_frames: int | None = None, frames_dir: str | None = None,
                  options: Mapping[str, Any] | None = None, hold: int = 5,
                  snapshots_dir: str | None = None, capture_size: tuple[int, int] | None = None,
                  camera_like: bool = True, reader: str = "replay") -> ScriptResult:
    """One Bruce bot game rendered frame by frame and read back by detector (and classifier
    with ``labels="model"``), zones and tracker."""
    game = bruce_bot_game(seed, players, options)
    script = bruce_script(game, random.Random(seed), hold=hold)
    cache = None if snapshots_dir is None else reads_cache(
        "bruce", snapshots_dir, players=players, seed=seed, hold=hold, tilt_deg=tilt_deg, labels=labels,
        options=options, capture_size=capture_size, camera_like=camera_like, reader=reader)
    snaps = CameraFrames(script.game.game, script.shots, bruce_layout(players), seed=seed, labels=labels,
                         tilt_deg=tilt_deg, max_frames=max_frames, frames_dir=frames_dir, cache=cache,
                         capture_size=capture_size, camera_like=camera_like, reader=reader, players=players,
                         options=options)
    result = replay_script(script, snaps, BruceInferrer(), StabilityTracker(window=5, needed=3), seed=seed)
    result.seconds.update(snaps.seconds)
    return result
