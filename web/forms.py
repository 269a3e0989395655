"""Manual-entry forms generated from a game's declared events, and their parsing.

Why this module exists: every event the camera could produce must also be enterable by
tapping, for every game, without a hand-written form per game. An engine declares each event
type (``EventSpec``) and its fields (``Field`` kinds: int, str, bool, card, cards, seat,
choice, any); this module turns those declarations into widgets, and a submitted form back
into an :class:`Event`, with one clear message for the first thing that is wrong.

Convention for ``any`` fields: a help text that starts with "per seat" asks for one value per
seat (one card per seat when it speaks of a single card, a list of cards otherwise), as DUCK's
deal and reveal do. An ``any`` field with a ``shape`` gets tap pickers (web/pickers.py). Only
an ``any`` field with neither would take JSON; no engine declares one (a test keeps it so).
A whole number the due events settle (a free log, a rank) is a menu of those numbers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ducktable.rules.core import Event, EventSpec, Field, Game, JSONTextError, State, read_json

from . import pickers

SEAT_FIELD = "_seat"
TYPE_FIELD = "_type"
REASON_FIELD = "_reason"
_SPLIT = re.compile(r"[\s,;]+")
_ENGINE_NAME = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")


def help_words(text: str) -> str:
    """An engine's field help as a person reads it: its field and value names (``rest_seed``,
    ``double_barrel``) in plain words."""
    return _ENGINE_NAME.sub(lambda m: m.group(0).replace("_", " "), text)


class FormError(ValueError):
    """A submitted form that does not describe an event; the message says what to fix."""


@dataclass
class Widget:
    """One input of an event form: what to draw and what is already filled in."""

    name: str
    label: str
    kind: str  # card, cards, int, str, bool, seat, choice, json, seat_card, seat_cards, items
    required: bool
    help: str = ""
    choices: tuple[str, ...] = ()
    value: str = ""
    seat_values: list[str] = field(default_factory=list)
    example: str = ""
    """For a JSON box: a value of the right shape (from a sample of the event), as a hint."""
    items: list[pickers.Item] = field(default_factory=list)
    """For a field with a shape: its tap inputs (web/pickers.py)."""
    shape: str = ""

    @property
    def uses_cards(self) -> bool:
        return (self.kind in ("card", "cards", "seat_card", "seat_cards")
                or pickers.card_items(self.items))


@dataclass
class EventForm:
    """The form for one event type: its widgets and whether it names the acting seat."""

    spec: EventSpec
    widgets: list[Widget]
    seat_mode: str  # "required" (a seat acts), "optional" (chance events)
    seat_value: str = ""
    cards: list[str] | None = None
    """The card picker's cards for this form (:func:`form_cards`); None: the page's own."""

    @property
    def uses_cards(self) -> bool:
        return any(w.uses_cards for w in self.widgets)


def widget_kind(f: Field) -> str:
    if f.shape in pickers.SHAPES:
        return "items"
    if f.kind == "any":
        text = f.help.lower()
        if text.startswith("per seat"):
            return "seat_cards" if "cards" in text else "seat_card"
        return "json"
    return f.kind if f.kind in ("card", "cards", "int", "str", "bool", "seat", "choice") else "json"


def shown_fields(spec: EventSpec, observer: bool) -> list[Field]:
    """The fields worth asking for: hidden information is left out when nobody can see it."""
    return [f for f in spec.fields if not (f.hidden and observer)]


def manual_specs(game: Game) -> list[EventSpec]:
    return [s for s in game.event_specs if s.manual]


EXAMPLE_CHARS = 160
"""The longest example shown in a JSON box (a Ducky Ducky river is 20 colours)."""


def build_form(spec: EventSpec, state: State, event: Event | None = None,
               sample: Event | None = None, due: Sequence[Event] = ()) -> EventForm:
    """The form for ``spec``, prefilled from ``event`` (corrections) when given; from
    ``sample`` (an event of that type the engine made: what is due), its choices, and its
    values as examples in JSON boxes; from ``due`` (the legal events), the whole numbers a
    menu offers."""
    data = dict(event.data) if event is not None else {}
    widgets = []
    for f in shown_fields(spec, state.observer):
        kind = widget_kind(f)
        w = Widget(
            name=f.name,
            label=f.name.replace("_", " "),
            kind=kind,
            required=f.required,
            help=help_words(pickers.HINTS.get(f.shape, f.help) if kind == "items" else f.help),
            choices=tuple(str(c) for c in f.choices),
            shape=f.shape,
        )
        if kind == "items":
            w.items = pickers.items_for(f, state, data.get(f.name))
            widgets.append(w)
            continue
        if kind == "int":
            w.choices = _legal_numbers(spec, f, due)
            if w.choices and sample is not None and f.name in sample.data and len(w.choices) == 1:
                w.value = w.choices[0]
        if kind == "json" and sample is not None and f.name in sample.data:
            text = json.dumps(sample.data[f.name])
            w.example = text if len(text) <= EXAMPLE_CHARS else text[:EXAMPLE_CHARS - 1] + "…"
        if kind == "choice" and sample is not None and f.name in sample.data:
            w.value = str(sample.data[f.name])  # e.g. which pile is due to be shuffled
        if f.name in data:
            _prefill(w, data[f.name], state.num_players)
        elif kind in ("seat_card", "seat_cards"):
            w.seat_values = [""] * state.num_players
        widgets.append(w)
    seat_mode = "optional" if spec.chance else "required"
    if event is not None and event.seat is not None:
        seat_value = str(event.seat)
    else:
        mover = state.to_move()
        seat_value = "" if mover is None or spec.chance else str(mover)
    return EventForm(spec, widgets, seat_mode, seat_value)


def _legal_numbers(spec: EventSpec, f: Field, due: Sequence[Event]) -> tuple[str, ...]:
    """The values of a whole-number field among the legal events (a menu instead of typing);
    the field's declared choices when none is due."""
    seen = {e.data[f.name] for e in due if e.type == spec.type and isinstance(e.data.get(f.name), int)}
    if not seen:
        return tuple(str(c) for c in f.choices)
    return tuple(str(v) for v in sorted(seen))


def _prefill(w: Widget, value: Any, num_players: int) -> None:
    if w.kind in ("seat_card", "seat_cards") and isinstance(value, list):
        shown = []
        for item in value[:num_players]:
            if item is None:
                shown.append("")
            elif isinstance(item, list):
                shown.append(", ".join(str(c) for c in item))
            else:
                shown.append(str(item))
        w.seat_values = shown + [""] * (num_players - len(shown))
    elif w.kind == "cards" and isinstance(value, list):
        w.value = ", ".join(str(c) for c in value)
    elif w.kind == "bool":
        w.value = "on" if value else ""
    elif w.kind == "json" or isinstance(value, list | dict):
        w.value = json.dumps(value)
    else:
        w.value = "" if value is None else str(value)


def parse_event(
    spec: EventSpec,
    state: State,
    form: Mapping[str, str],
    *,
    source: str = "manual",
    ts: int | None = None,
) -> Event:
    """The event a submitted form describes; :class:`FormError` names the first problem."""
    game_title = state.game.title or state.game.name
    data: dict[str, Any] = {}
    for f in shown_fields(spec, state.observer):
        kind = widget_kind(f)
        if kind == "items":
            try:
                value: Any = pickers.parse_items(f, state, form)
            except pickers.PickError as exc:
                raise FormError(str(exc)) from None
            if value is None:
                if f.required:
                    raise FormError(f"Fill in '{f.name.replace('_', ' ')}': "
                                    + pickers.HINTS.get(f.shape, f.help))
                continue
        elif kind in ("seat_card", "seat_cards"):
            value = _parse_per_seat(f, kind, form, state, game_title)
        else:
            raw = (form.get(f.name) or "").strip()
            if kind == "bool":
                value = _parse_bool(f, raw)
            elif not raw:
                if f.required:
                    raise FormError(f"Fill in '{f.name.replace('_', ' ')}'" + _help(f))
                continue
            else:
                value = _parse_value(f, kind, raw, state, game_title)
        data[f.name] = value
    seat = _parse_seat(spec, form.get(SEAT_FIELD, ""), state)
    return Event(spec.type, seat, data, ts, source)


def _help(f: Field) -> str:
    return f" ({f.help})." if f.help else "."


def _parse_seat(spec: EventSpec, raw: str, state: State) -> int | None:
    raw = (raw or "").strip()
    if not raw:
        if spec.chance:
            return None
        raise FormError(f"Choose who makes the '{spec.type}' (the seat).")
    try:
        seat = int(raw)
    except ValueError:
        raise FormError(f"The seat must be a seat number, not {raw!r}.") from None
    if not 0 <= seat < state.num_players:
        raise FormError(f"There is no seat {seat}; seats are 0 to {state.num_players - 1}.")
    return seat


def _parse_bool(f: Field, raw: str) -> bool:
    low = raw.lower()
    if low in ("", "off", "false", "no", "0"):
        return False
    if low in ("on", "true", "yes", "1"):
        return True
    raise FormError(f"'{f.name}' must be ticked or not, not {raw!r}.")


def _parse_value(f: Field, kind: str, raw: str, state: State, title: str) -> Any:
    label = f.name.replace("_", " ")
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise FormError(f"'{label}' must be a whole number, not {raw!r}.") from None
    if kind == "str":
        return raw
    if kind == "seat":
        try:
            seat = int(raw)
        except ValueError:
            raise FormError(f"'{label}' must be a seat number, not {raw!r}.") from None
        if not 0 <= seat < state.num_players:
            raise FormError(f"'{label}': there is no seat {seat}.")
        return seat
    if kind == "choice":
        for choice in f.choices:
            if str(choice) == raw:
                return choice
        options = ", ".join(str(c) for c in f.choices)
        raise FormError(f"'{label}' must be one of: {options}; not {raw!r}.")
    if kind == "card":
        return _card(raw, label, state, title)
    if kind == "cards":
        return _cards(raw, label, state, title)
    try:
        return read_json(raw)
    except JSONTextError as exc:
        raise FormError(f"'{label}' must be JSON, written like the example in its box; {exc}."
                        ) from None


def _card(raw: str, label: str, state: State, title: str) -> str:
    card = _known_spelling(raw.strip(), state)
    if card is None:
        raise FormError(
            f"'{label}': {raw!r} is not a card of {title}; tap a card in the picker "
            "or type a label such as yellow-5."
        )
    return card


def _known_spelling(text: str, state: State) -> str | None:
    """``text`` as the deck spells it: typed as is, all lower case, or with a lower-case
    colour and an upper-case rank (Grey Duck's Drakes are ``grey-D`` and ``yellow-D``)."""
    colour, dash, rank = text.rpartition("-")
    for candidate in (text, text.lower(), f"{colour.lower()}{dash}{rank.upper()}"):
        if candidate and state.is_card_label(candidate):
            return candidate
    return None


def _cards(raw: str, label: str, state: State, title: str) -> list[str]:
    return [_card(token, label, state, title) for token in _SPLIT.split(raw) if token]


def _parse_per_seat(
    f: Field, kind: str, form: Mapping[str, str], state: State, title: str
) -> list[Any]:
    values: list[Any] = []
    for seat in range(state.num_players):
        raw = (form.get(f"{f.name}.{seat}") or "").strip()
        where = f"{f.name.replace('_', ' ')} of {state.players[seat]}"
        if kind == "seat_card":
            values.append(_card(raw, where, state, title) if raw else None)
        else:
            values.append(_cards(raw, where, state, title))
    if f.required and kind == "seat_card" and all(v is None for v in values):
        raise FormError(f"Fill in '{f.name.replace('_', ' ')}' for at least one seat" + _help(f))
    return values


def picker_cards(game: Game, state: State, deck_labels: Sequence[str]) -> list[str]:
    """The deck's labels that are cards of this game's events (e.g. no DUCK lifebelts)."""
    return [label for label in deck_labels if state.is_card_label(label)]


def form_cards(form: EventForm, state: State, deck_labels: Sequence[str]) -> list[str]:
    """The cards the picker offers for ``form``: those its card fields could still name, as
    the engine knows (``State.possible_cards``); every card of the game when it does not
    narrow a field down."""
    offered = picker_cards(state.game, state, deck_labels)
    possible: set[str] = set()
    for w in form.widgets:
        if not w.uses_cards:
            continue
        left = state.possible_cards(form.spec.type, w.name)
        if left is None:
            return offered
        possible.update(label for label, n in left.items() if n > 0)
    return [label for label in offered if label in possible]
