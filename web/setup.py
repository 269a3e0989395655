"""Setting up a match: the game, the seats and names, the rule options, the table PIN.

The option inputs are generated from each engine's declared ``options_spec`` (a choice list
becomes a menu, a number a number box, a flag a tick box, a mapping or a board the menus of
web/option_pickers.py), so a new option needs no change here. The table PIN can be changed
here too; every phone then has to unlock again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ducktable.device.store import MatchInfo, StoreError
from ducktable.rules.core import Game, OptionSpec, RulesError
from ducktable.rules.registry import game_class, game_names
from flask import Blueprint, flash, redirect, render_template, request, url_for

from .auth import PinError, check_pin_format, pin_required, table_pin, try_unlock
from .db import current_match, get_store, match_or_404
from .option_pickers import board_words, form_fields, has_picker, picker_for, read_option
from .pickers import PickError
from .words import SEAT_OPTIONS, option_value_words, seat_choices

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
    if isinstance(spec.default, bool):
        return "bool"
    if isinstance(spec.default, int):
        return "int"
    if isinstance(spec.default, float):
        return "float"
    return "str"


@bp.get("/setup")
def new_match() -> Any:
    """The setup page, filled in like the table's last match (the same family plays again)
    or like match ``?from=``; ``?game=`` picks another game, keeping the names."""
    chosen = request.args.get("from", "")
    last = _match_or_none(int(chosen)) if chosen.isdigit() else None
    form = setup_form(last) if last is not None and not last.damaged else {}
    if last is None and (last := current_match()) is not None and not last.damaged:
        # the names and rules of the table's last match, but a real table unless asked:
        # the last match may have been the demo's bots with every card known
        form = {k: v for k, v in setup_form(last).items() if k != "mode"}
    if last is not None and "game" in request.args and request.args["game"] != last.game:
        form = {k: v for k, v in form.items() if k.startswith("player_") or k == "mode"}
    selected = request.args.get("game") or form.get("game") or "duck"
    return _page(selected, form, None)


def _match_or_none(match_id: int) -> MatchInfo | None:
    try:
        return get_store().match(match_id)
    except StoreError:
        return None


def setup_form(info: MatchInfo) -> dict[str, str]:
    """The setup form that starts a match like ``info``: its game, names, options and mode,
    written as the page's fields (what :func:`parse_setup` reads back)."""
    form = {"game": info.game, "mode": "observer" if info.observer else "full"}
    for seat, name in enumerate(info.players):
        form[f"player_{seat}"] = name
    try:
        cls = game_class(info.game)
        options = cls.resolve_options(info.options)
    except RulesError:
        return form
    for spec in cls.options_spec:
        value = options.get(spec.name, spec.default)
        key = f"opt.{info.game}.{spec.name}"
        if has_picker(info.game, spec):
            form.update(form_fields(info.game, spec, value))
        elif isinstance(value, bool):
            if value:
                form[key] = "on"
        else:
            form[key] = str(value)
    return form


@bp.post("/setup")
@pin_required
def create() -> Any:
    form = request.form
    try:
        new_pin = (form.get("new_pin") or "").strip()
        if new_pin:
            try:
                new_pin = check_pin_format(new_pin, table_pin().digits)
            except PinError as exc:
                raise SetupError(f"New PIN: {exc}") from None
        info = start_match(form)
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


def start_match(form: Mapping[str, str]) -> MatchInfo:
    """Check a setup form and start its match; :class:`SetupError` or ``StoreError`` if not."""
    game, players, options, observer, name = parse_setup(form)
    return get_store().create_match(game, players, options, observer=observer, name=name)


@bp.get("/match/<int:match_id>/again")
def rematch(match_id: int) -> Any:
    """Play again: the same game, names and options as a finished match, one tap away."""
    info = match_or_404(match_id)
    return render_template("again.html", info=info, title=_title(info.game),
                           options=_option_words(info)), 200


@bp.post("/match/<int:match_id>/again")
@pin_required
def start_again(match_id: int) -> Any:
    info = match_or_404(match_id)
    try:
        new = start_match(setup_form(info))
    except (SetupError, StoreError) as exc:
        flash(f"The new match could not start: {exc}", "error")
        return redirect(url_for("setup.rematch", match_id=match_id), code=303)
    flash(f"Match {new.id} started: {', '.join(new.players)}. Good luck!", "ok")
    return redirect(url_for("scoreboard.board", match_id=new.id), code=303)


def _title(game: str) -> str:
    try:
        return game_class(game).title or game
    except RulesError:
        return game


def _option_words(info: MatchInfo) -> list[tuple[str, str]]:
    """The match's options as (name, value) in words, for the Play again page."""
    try:
        cls = game_class(info.game)
        options = cls.resolve_options(info.options)
    except RulesError:
        return []
    shown = []
    for spec in cls.options_spec:
        value = options.get(spec.name, spec.default)
        if isinstance(value, dict):
            text = ", ".join(f"{k} {v}" for k, v in value.items())
        elif (info.game, spec.name) == ("ducky", "layout") and value != "default":
            text = board_words(value)
        elif isinstance(value, bool):
            text = "yes" if value else "no"
        else:
            text = option_value_words(info.game, spec.name, value)
        shown.append((spec.name.replace("_", " ").capitalize(), text or "—"))
    return shown


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
        has_picker=has_picker,
        option_picker=picker_for,
        pin_digits=table_pin().digits,
        seat_choices=seat_choices,
        seat_options=SEAT_OPTIONS,
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
        if has_picker(cls.name, spec):
            try:
                picked = read_option(cls.name, spec, form)
            except PickError as exc:
                raise SetupError(f"Option '{label}': {exc}") from None
            if picked is not None:
                options[spec.name] = picked
            continue
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
