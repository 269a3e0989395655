"""ducktable.rules: the five game engines, card vocabularies, events, verdicts and bots.

Pure Python (stdlib only): no I/O, no clock, randomness only from a ``random.Random`` passed in.
"""

from .core import (
    EVENT_FORMAT_VERSION,
    BadEvent,
    Bot,
    Event,
    EventSpec,
    Field,
    Game,
    IllegalEvent,
    OptionSpec,
    RandomBot,
    RulesError,
    State,
    Verdict,
    replay,
    simulate,
)
from .registry import game_class, game_names, make_game

__all__ = [
    "EVENT_FORMAT_VERSION", "BadEvent", "Bot", "Event", "EventSpec", "Field", "Game",
    "IllegalEvent", "OptionSpec", "RandomBot", "RulesError", "State", "Verdict", "replay",
    "simulate", "game_class", "game_names", "make_game",
]
