"""Which games exist, found by name. Engines are imported only when first asked for."""

from __future__ import annotations

import importlib
import importlib.util
import random

from .core import Bot, Game, RandomBot, RulesError

# name -> (engine module, Game class, greedy bot class; each bot class takes a random.Random)
_GAMES: dict[str, tuple[str, str, str]] = {
    "duck": ("ducktable.rules.duck", "DuckGame", "GreedyBot"),
    "grey": ("ducktable.rules.grey", "GreyDuckGame", "GreedyGreyBot"),
    "bruce": ("ducktable.rules.bruce", "BruceGame", "GreedyBot"),
    "ducky": ("ducktable.rules.ducky", "DuckyGame", "GreedyBot"),
    "sitting": ("ducktable.rules.sitting", "SittingDucksGame", "GreedyBot"),
}
BOT_KINDS = ("random", "greedy")


def game_names() -> list[str]:
    """Names of the games whose engine is installed, in a stable order."""
    names = []
    for name, (module, _, _) in _GAMES.items():
        if importlib.util.find_spec(module) is not None:
            names.append(name)
    return names


def game_class(name: str) -> type[Game]:
    try:
        module, cls, _ = _GAMES[name]
    except KeyError:
        raise RulesError(f"unknown game {name!r}; choose one of {game_names()}") from None
    if importlib.util.find_spec(module) is None:
        raise RulesError(f"the {name!r} engine is not part of this installation yet")
    game: type[Game] = getattr(importlib.import_module(module), cls)
    return game


def make_game(name: str, options: dict | None = None) -> Game:
    """A configured game: ``make_game("duck", {"duck_limit": 9})``."""
    return game_class(name)(options)


def make_bot(name: str, kind: str, rng: random.Random) -> Bot:
    """A seeded bot for game ``name``: ``"random"`` (any legal move) or ``"greedy"``."""
    if kind == "random":
        return RandomBot(rng)
    if kind != "greedy":
        raise RulesError(f"unknown bot kind {kind!r}; choose one of {list(BOT_KINDS)}")
    game_class(name)  # clear error for unknown or missing engines
    module, _, bot = _GAMES[name]
    if not bot:
        raise RulesError(f"{name} has no greedy bot yet; use the random bot")
    bot_class = getattr(importlib.import_module(module), bot)
    made: Bot = bot_class(rng)
    return made
