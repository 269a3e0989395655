"""Setting up a match: the game, the seats and names, the rule options, the table PIN.

The option inputs are generated from each engine's declared ``options_spec`` (a choice list
becomes a menu, a number a number box, a flag a tick box), so a new option needs no change
here. The table PIN can be changed here too; every phone then has to unlock again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ducktable.device.store import StoreError
from ducktable.rules.core import Game, JSONTextError, OptionSpec, RulesError, read_json
from ducktable.rules.registry import game_class, game_names
from flask import Blueprint, flash, redirect, render_template, request, url_for

from .auth import PinError, check_pin_format, pin_required, table_pin, try_unlock
from .db import get_store

bp = Blueprint("setup", __name__)

MAX_NAME = 24
MAX_MATCH_NAME = 60


class SetupError(ValueError):
    """A setup form that cannot start a match; the message says what to change."""


@dataclass(frozen=True)
class GameChoice:
    name: str
    title: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...]


def game_choices() -> list[GameChoice]:
    choices = []
    for name in game_names():
        cls = game_class(name)
        choices.append(
            GameChoice(name, cls.title or name, cls.min_players, cls.max_players, cls.options_spec)
        )
    return choices


def option_kind(spec: OptionSpec) -> str:
    if spec.choices:
        return "choice"
    if isinstance(spec.default, dict):
        return "mapping"
    if isinstance(spec.default, bool):
        return "bool"
    if isinstance(spec.default, int):
        return "int"
    if isinstance(spec.default, float):
        return "float"
    return "str"


def option_text(spec: OptionSpec) -> str:
    """The default as the page shows it in the option's box: a mapping as JSON (what
    :func:`parse_options` reads back), anything else as itself."""
    if isinstance(spec.default, dict):
        return json.dumps(spec.default)
    return str(spec.default)


@bp.get("/setup")
def new_match() -> Any:
    return _page(request.args.get("game", "duck"), {}, None)


@bp.post("/setup")
@pin_required
def create() -> Any:
    form = request.form
    try:
        game, players, options, observer, name = parse_setup(form)
        new_pin = (form.get("new_pin") or "").strip()
        if new_pin:
            try:
                new_pin = check_pin_format(new_pin, table_pin().digits)
            except PinError as exc:
                raise SetupError(f"New PIN: {exc}") from None
        info = get_store().create_match(game, players, options, observer=observer, name=name)
    except (SetupError, StoreError) as exc:
        return _page(form.get("game", ""), form, str(exc)), 400
    flash(f"Match {info.id} started: {', '.join(info.players)}.", "ok")
    if new_pin:
        try:
            table_pin().set(new_pin)
        except OSError as exc:
            flash(f"The match started, but the new PIN could not be saved ({exc}).", "error")
        else:
            try_unlock(new_pin)
            flash("The table PIN was changed; other phones must unlock again.", "ok")
    return redirect(url_for("scoreboard.board", match_id=info.id), code=303)


def _page(selected: str, form: Mapping[str, str], problem: str | None) -> str:
    choices = game_choices()
    if selected not in {c.name for c in choices} and choices:
        selected = choices[0].name
    max_seats = max((c.max_players for c in choices), default=5)
    return render_template(
        "setup.html",
        choices=choices,
        selected=selected,
        form=form,
        problem=problem,
        max_seats=max_seats,
        option_kind=option_kind,
        option_text=option_text,
        pin_digits=table_pin().digits,
    )


def parse_setup(
    form: Mapping[str, str],
) -> tuple[str, list[str], dict[str, Any], bool, str]:
    """(game, players, options, observer, name) from the setup form, or :class:`SetupError`."""
    game_name = (form.get("game") or "").strip()
    known = game_names()
    if game_name not in known:
        raise SetupError(f"Choose a game from the list ({', '.join(known)}).")
    cls = game_class(game_name)
    players = []
    for key in sorted((k for k in form if k.startswith("player_")), key=_seat_order):
        name = (form.get(key) or "").strip()
        if not name:
            continue
        if len(name) > MAX_NAME:
            raise SetupError(f"The name {name[:MAX_NAME]!r}... is too long (at most {MAX_NAME}).")
        players.append(name)
    title = cls.title or game_name
    if not cls.min_players <= len(players) <= cls.max_players:
        raise SetupError(
            f"{title} is for {cls.min_players} to {cls.max_players} players; "
            f"{len(players)} name(s) were given. Fill in one name per seat."
        )
    if len({p.casefold() for p in players}) != len(players):
        raise SetupError("Two seats have the same name; give every player a different name.")
    options = parse_options(cls, form)
    observer = form.get("mode", "observer") != "full"
    name = (form.get("name") or "").strip()[:MAX_MATCH_NAME]
    return game_name, players, options, observer, name


def _mapping(raw: str, label: str, spec: OptionSpec) -> dict[str, Any]:
    """A mapping option's box read as JSON; the engine then checks its keys and values."""
    example = json.dumps(dict(list(spec.default.items())[:2]))
    try:
        value = read_json(raw)
    except JSONTextError:
        value = None
    if not isinstance(value, dict):
        raise SetupError(f"Option '{label}' must be written like {example} (each name with its "
                         "number, in curly brackets); empty the box for the default.")
    return value


def _seat_order(key: str) -> int:
    try:
        return int(key.removeprefix("player_"))
    except ValueError:
        return 10_000


def parse_options(cls: type[Game], form: Mapping[str, str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for spec in cls.options_spec:
        key = f"opt.{cls.name}.{spec.name}"
        raw = (form.get(key) or "").strip()
        kind = option_kind(spec)
        label = spec.name.replace("_", " ")
        if kind == "bool":
            options[spec.name] = raw in ("on", "true", "1", "yes")
            continue
        if not raw:
            continue  # the default
        if kind == "choice":
            matching = [c for c in spec.choices if str(c) == raw]
            if not matching:
                allowed = ", ".join(str(c) for c in spec.choices)
                raise SetupError(f"Option '{label}' must be one of: {allowed}.")
            options[spec.name] = matching[0]
            continue
        if kind == "mapping":
            options[spec.name] = _mapping(raw, label, spec)
            continue
        try:
            if kind == "int":
                options[spec.name] = int(raw)
            elif kind == "float":
                options[spec.name] = float(raw)
            else:
                options[spec.name] = raw
        except ValueError:
            raise SetupError(f"Option '{label}' must be a number, not {raw!r}.") from None
    try:
        cls.resolve_options(options)
    except RulesError as exc:
        raise SetupError(f"Option problem: {exc}.") from None
    return options
