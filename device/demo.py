"""The synthetic table: bots play a chosen game through the store at a watchable pace.

Why this module exists: ``ducktable demo`` (the README's first command) must show the whole
appliance working with no camera and no cards: a match is created, its chance events (deals,
reveals) come from ``state.chance_event`` and its moves from bots, one event every ``pace``
seconds, each submitted to the store exactly like a camera event, so the scoreboard, the
cues and the phone pages behave as at a real table. A finished match is followed by a new
one. A person may still correct or undo events from a phone; the bots carry on from the
store's current position.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence

from ducktable.rules.core import Bot, Event, RulesError, State, Verdict
from ducktable.rules.registry import game_class, make_bot

from .runloop import TableLink
from .store import MatchInfo

log = logging.getLogger(__name__)

DEFAULT_GAME = "duck"
DEFAULT_PLAYERS = ("Ada", "Bruno", "Chloé", "Dev", "Emil", "Fay")
DEFAULT_PACE_S = 1.0
PAUSE_BETWEEN_MATCHES_S = 5.0

EventHook = Callable[[MatchInfo, State, Event, Verdict], None]


def demo_players(game: str, count: int | None = None) -> list[str]:
    """Names for the bots: ``count`` of them, or 4 clipped to the game's player range."""
    cls = game_class(game)
    wanted = count if count is not None else min(max(4, cls.min_players), cls.max_players)
    if not cls.min_players <= wanted <= cls.max_players:
        raise RulesError(
            f"{cls.title or game} is for {cls.min_players} to {cls.max_players} players, "
            f"not {wanted}"
        )
    return list(DEFAULT_PLAYERS[:wanted])


def next_event(state: State, bots: Sequence[Bot], rng: random.Random) -> Event:
    """One step of a simulated table: the chance outcome when one is due, else a bot's move."""
    if state.needs_chance():
        event = state.chance_event(rng)
    else:
        seat = state.to_move()
        if seat is None:
            raise RulesError(f"nobody can move and no chance event is due; {state.describe_next()}")
        event = bots[seat].choose(state, seat)
    return Event(event.type, event.seat, event.data, int(time.time() * 1000), "bot")


class DemoTable:
    """An event producer (device/runloop.py) of bots playing ``game`` match after match."""

    name = "demo"

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        *,
        players: Sequence[str] | None = None,
        options: dict | None = None,
        pace: float = DEFAULT_PACE_S,
        seed: int | None = None,
        matches: int = 0,
        pause_between: float = PAUSE_BETWEEN_MATCHES_S,
        on_event: EventHook | None = None,
    ) -> None:
        self.game = game
        self.players = list(players) if players is not None else demo_players(game)
        self.options = dict(options or {})
        self.pace = pace
        self.rng = random.Random(seed)
        self.matches = matches
        self.pause_between = pause_between
        self.on_event = on_event
        self.match_ids: list[int] = []

    def run(self, table: TableLink) -> None:
        played = 0
        while not table.stop.is_set():
            info = table.store.create_match(
                self.game, self.players, self.options, observer=False, name="demo"
            )
            self.match_ids.append(info.id)
            log.info("demo match %d: %s", info.id, ", ".join(info.players))
            self.play(table, info)
            played += 1
            if self.matches and played >= self.matches:
                table.stop.set()  # the demo asked for a fixed number of matches: end the run
                return
            table.stop.wait(self.pause_between)

    def play(self, table: TableLink, info: MatchInfo) -> None:
        # A mixed table: greedy players (shorter, more sensible games) beside random ones.
        bots = [
            make_bot(info.game, "greedy" if seat % 2 == 0 else "random", random.Random(self.rng.random()))
            for seat in range(len(info.players))
        ]
        while not table.stop.is_set():
            state = table.state(info.id)
            if state.is_over():
                return
            event = next_event(state, bots, self.rng)
            verdict = table.submit(event, info.id)
            if not verdict.ok:
                # someone changed the match from a phone between our read and our submit
                log.info("demo move refused (%s); trying again from the new position", verdict)
            elif self.on_event is not None:
                self.on_event(info, table.state(info.id), event, verdict)
            table.stop.wait(self.pace)
