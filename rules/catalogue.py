"""The project's own rule catalogue: every rule ID (as in RULES.md) with a summary in our words.

Each engine module keeps a ``RULE_TEXTS`` dict for its game; this module gathers them so the
dispute checker, the web page and the tests can look any cited ID up.
"""

from __future__ import annotations

import importlib

from .registry import _GAMES, game_names


def rule_texts(game: str | None = None) -> dict[str, str]:
    """Rule ID -> summary, for one game or all installed games."""
    out: dict[str, str] = {}
    for name in game_names():
        if game is not None and name != game:
            continue
        module = importlib.import_module(_GAMES[name][0])
        out.update(getattr(module, "RULE_TEXTS", {}))
    return out


def explain(rule_id: str) -> str:
    """The summary of one rule, or a clear message when the ID is unknown."""
    return rule_texts().get(rule_id, f"{rule_id}: no such rule in the catalogue")
