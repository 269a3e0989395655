"""Tap pickers for the setup page's structured rule options: nothing there is typed as JSON.

Why this module exists: two options are not a single word or number. Sitting Ducks'
``action_mix`` says how many cards of each action kind the deck holds (a mapping), and Ducky
Ducky's ``layout`` is a whole board (river cells, pads per colour, the logs and their stars).
Here each becomes menus and tick boxes drawn like the entry pickers (:class:`pickers.Item`,
the ``picker_items`` macro), and the submitted inputs become the value the engine always took:
a ``{kind: count}`` mapping, and ``"default"`` or a layout's canonical JSON text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ducktable.rules.core import OptionSpec, RulesError, read_json
from ducktable.rules.ducky_board import (
    DEFAULT_LAYOUT,
    BoardLayout,
    LayoutError,
    dumps_layout,
    layout_from_json,
    resolve_layout,
)
from ducktable.rules.sitting import ACTIONS, MAX_ACTION_COUNT

from .pickers import Item, PickError

LAYOUT = ("ducky", "layout")
MAX_CELLS = 40
"""The longest river the board menus offer (the default board has 20 cells)."""
MAX_PADS = 10
"""The most pads of one colour the menus offer (the default board has 4)."""
MAX_LOGS = 16
"""How many log rows the board picker shows (the default board has 10 logs)."""
COUNT_CHOICES = 20
"""Counts 0..20 in an action-mix menu (a box holds at most 12 of a kind; more stays possible
when an earlier match used it)."""
CUSTOM = "custom"

_ACTION_TITLES = {a.action: a.title for a in ACTIONS}


@dataclass
class OptionPicker:
    """What the ``picker_items`` macro draws for one option."""

    name: str
    label: str
    help: str
    items: list[Item] = field(default_factory=list)
    shape: str = "option"
    required: bool = True


def has_picker(game: str, spec: OptionSpec) -> bool:
    """Whether option ``spec`` of ``game`` is entered with a picker rather than one box."""
    return isinstance(spec.default, dict) or (game, spec.name) == LAYOUT


def picker_for(game: str, spec: OptionSpec, form: Mapping[str, str]) -> OptionPicker:
    """The inputs of the option, showing what ``form`` (the page's fields) holds, else the
    default."""
    key = f"opt.{game}.{spec.name}"
    label = spec.name.replace("_", " ").capitalize() + (f" (rule {spec.rule})" if spec.rule else "")
    if (game, spec.name) == LAYOUT:
        return OptionPicker(key, label, "Choose the standard board, or set up your own: the "
                            "river's cells, the pads of each colour and the log beside each cell.",
                            _layout_items(key, form))
    return OptionPicker(key, label, spec.help, _mapping_items(game, key, spec, form))


def read_option(game: str, spec: OptionSpec, form: Mapping[str, str]) -> Any:
    """The option's value from the submitted inputs; None when none were sent (the default).
    :class:`PickError` says what to change."""
    key = f"opt.{game}.{spec.name}"
    if (game, spec.name) == LAYOUT:
        return _read_layout(key, form)
    return _read_mapping(key, spec, form)


def form_fields(game: str, spec: OptionSpec, value: Any) -> dict[str, str]:
    """The page's fields that show ``value`` (to start a match like an earlier one)."""
    key = f"opt.{game}.{spec.name}"
    if (game, spec.name) == LAYOUT:
        try:
            layout = resolve_layout(value)
        except (LayoutError, TypeError):
            return {}
        if layout == DEFAULT_LAYOUT and (value is None or str(value).strip() in ("", "default")):
            return {key: "default"}
        return {key: CUSTOM, **_layout_fields(key, layout)}
    if isinstance(value, Mapping):
        return {f"{key}.{kind}": str(count) for kind, count in value.items()}
    return {}


def board_words(value: Any) -> str:
    """A board layout option in words, for the Play again page."""
    try:
        layout = resolve_layout(value)
    except (LayoutError, TypeError):
        return "a board that cannot be read"
    return (f"a board of its own: {layout.cells} cells, {len(layout.logs)} logs, "
            f"{layout.pads_per_colour} pads of each colour")


# -- a mapping of counts (Sitting Ducks' action mix) --------------------------------------------

def _mapping_items(game: str, key: str, spec: OptionSpec, form: Mapping[str, str]) -> list[Item]:
    items = []
    for kind, default in spec.default.items():
        now = form.get(f"{key}.{kind}") or str(default)
        counts = [str(n) for n in range(COUNT_CHOICES + 1)]
        if now not in counts and now.isdigit():
            counts.append(now)
        items.append(Item(f"{key}.{kind}", _ACTION_TITLES.get(kind, kind.replace("-", " ")),
                          "select", [(c, c) for c in counts], now))
    return items


def _read_mapping(key: str, spec: OptionSpec, form: Mapping[str, str]) -> dict[str, int] | None:
    given = {kind: (form.get(f"{key}.{kind}") or "").strip() for kind in spec.default}
    if not any(given.values()):
        return None
    counts = {}
    for kind, raw in given.items():
        words = _ACTION_TITLES.get(kind, kind)
        count = _small_number(raw)
        if count is None or count > MAX_ACTION_COUNT:
            raise PickError(f"Choose how many '{words}' cards the deck holds from its menu "
                            f"(0 to {MAX_ACTION_COUNT}).")
        counts[kind] = count
    return counts


# -- a board (Ducky Ducky's layout) ---------------------------------------------------------------

def _layout_fields(key: str, layout: BoardLayout) -> dict[str, str]:
    fields = {f"{key}.cells": str(layout.cells), f"{key}.pads": str(layout.pads_per_colour)}
    for i, log in enumerate(layout.logs):
        fields[f"{key}.log{i}.faces"] = str(log.faces)
        if log.white_star:
            fields[f"{key}.log{i}.white"] = "on"
        if log.blue_star:
            fields[f"{key}.log{i}.blue"] = "on"
    return fields


def _layout_items(key: str, form: Mapping[str, str]) -> list[Item]:
    shown = dict(_layout_fields(key, DEFAULT_LAYOUT))  # a board of one's own starts as the standard
    if form.get(key) == CUSTOM:
        shown = {k: v for k, v in form.items() if k.startswith(f"{key}.")}
    choice = form.get(key) or "default"
    items = [
        Item(key, "Board", "select", [("default", "The standard board (20 cells, 10 logs)"),
                                      (CUSTOM, "A board of our own (set up below)")],
             choice if choice in ("default", CUSTOM) else "default"),
        Item(f"{key}.cells", "Cells in the river", "select",
             [(str(n), str(n)) for n in range(2, MAX_CELLS + 1)], shown.get(f"{key}.cells", "")),
        Item(f"{key}.pads", "Pads of each colour", "select",
             [(str(n), str(n)) for n in range(2, MAX_PADS + 1)], shown.get(f"{key}.pads", "")),
    ]
    cells = [("", "— (no log)")] + [
        (str(c), f"cell {c}" + (" (entrance)" if c == 0 else "")) for c in range(MAX_CELLS)]
    for i in range(MAX_LOGS):
        group = f"Log {i + 1}"
        items.append(Item(f"{key}.log{i}.faces", "faces", "select", cells,
                          shown.get(f"{key}.log{i}.faces", ""), group))
        items.append(Item(f"{key}.log{i}.white", "white star", "check",
                          value=shown.get(f"{key}.log{i}.white", ""), group=group))
        items.append(Item(f"{key}.log{i}.blue", "blue star (a start log)", "check",
                          value=shown.get(f"{key}.log{i}.blue", ""), group=group))
    return items


def _read_layout(key: str, form: Mapping[str, str]) -> str | None:
    choice = (form.get(key) or "").strip()
    if choice in ("", "default"):
        return None
    if choice != CUSTOM:  # a layout's JSON text, as kept in an earlier match's options
        try:
            return dumps_layout(layout_from_json(read_json(choice)))
        except RulesError as exc:
            raise PickError(f"The board cannot be used: {exc}.") from None
    cells = _small_number(form.get(f"{key}.cells", ""))
    pads = _small_number(form.get(f"{key}.pads", ""))
    if cells is None or pads is None:
        raise PickError("Choose the number of cells and of pads of each colour from their menus.")
    logs = []
    for i in range(MAX_LOGS):
        raw = (form.get(f"{key}.log{i}.faces") or "").strip()
        if not raw:
            continue
        faces = _small_number(raw)
        if faces is None:
            raise PickError(f"Choose the cell log {i + 1} faces from its menu.")
        logs.append({"faces": faces, "white_star": bool(form.get(f"{key}.log{i}.white")),
                     "blue_star": bool(form.get(f"{key}.log{i}.blue"))})
    if not logs:
        raise PickError("Choose the cell each log faces: the board needs its logs.")
    try:
        layout = layout_from_json({"cells": cells, "pads_per_colour": pads, "logs": logs})
    except LayoutError as exc:
        raise PickError(f"That board cannot be played: {exc}.") from None
    return dumps_layout(layout)


def _small_number(raw: str) -> int | None:
    """A menu's whole number (at most 3 digits), or None for anything else sent."""
    raw = raw.strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 3 else None
