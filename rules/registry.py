"""Which games exist, found by name. Engines are imported only when first asked for."""

from __future__ import annotations

import importlib
import importlib.util

from .core import Game, RulesError

_GAMES: dict[str, tuple[str, str]] = {
    "duck": ("ducktable.rules.duck", "DuckGame"),
    "grey": ("ducktable.rules.grey", "GreyDuckGame"),
    "bruce": ("ducktable.rules.bruce", "BruceGame"),
    "ducky": ("ducktable.rules.ducky", "DuckyGame"),
    "sitting": ("ducktable.rules.sitting", "SittingDucksGame"),
}


def game_names() -> list[str]:
    """Names of the games whose engine is installed, in a stable order."""
    names = []
    for name, (module, _) in _GAMES.items():
        if importlib.util.find_spec(module) is not None:
            names.append(name)
    return names


def game_class(name: str) -> type[Game]:
    try:
        module, cls = _GAMES[name]
    except KeyError:
        raise RulesError(f"unknown game {name!r}; choose one of {game_names()}") from None
    if importlib.util.find_spec(module) is None:
        raise RulesError(f"the {name!r} engine is not part of this installation yet")
    game: type[Game] = getattr(importlib.import_module(module), cls)
    return game


def make_game(name: str, options: dict | None = None) -> Game:
    """A configured game: ``make_game("duck", {"duck_limit": 9})``."""
    return game_class(name)(options)
