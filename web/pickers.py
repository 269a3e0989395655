"""Tap pickers for the list-valued event fields: nothing on the phone is typed as JSON.

Why this module exists: some events carry a list (Sitting Ducks' two positions of a Double
Barrel, the line's new order after a Duck Shuffle, Ducky Ducky's river and set-up, the pads the
ducks of a completed card go back to, Grey Duck's cards per seat). An engine names the shape of
such a field (``Field.shape``); here each shape becomes a set of small inputs (tick boxes drawn
as the line's slots, menus with the choices the position allows, card boxes filled by the card
picker), and the submitted inputs become the field's value again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ducktable.rules.core import Field, State
from ducktable.rules.ducky import DUCKY_COLOURS, PILES, SPARE, WHITE, DuckyState
from ducktable.rules.sitting import ACTION_BY_TYPE, HAND_SIZE, SittingDucksState

from .words import card_words

SHAPES = ("positions", "arrangement", "action_list", "seat_counts", "river", "pawns",
          "seat_tops", "seat_piles", "pads")
HINTS = {
    "positions": "tap the position (or the two neighbouring positions) on the line",
    "arrangement": "for each new place, from front to back, choose the card that goes there",
    "action_list": "the other cards in the hand, shown to prove none can be played",
    "seat_counts": "how many cards each person got",
    "river": "the pad colour of each cell, from the entrance to the waterfall",
    "pawns": "the blue-star log each pawn starts on",
    "seat_tops": "tap a box, then the card on top of that pile",
    "seat_piles": "tap a box, then the cards beneath the top card, next to show first",
    "pads": "the empty pad each duck goes back on",
}
"""What to tap, said on the form in place of the engine's JSON help."""
MAX_DEALT = 20
"""The largest number of cards a Grey Duck seat can be dealt that the count menus offer."""


class PickError(ValueError):
    """What the tapped inputs do not say; the message says what to tap."""


@dataclass
class Item:
    """One input of a picker: a menu (``select``), a tick box (``check``) or a card box."""

    name: str
    label: str
    kind: str  # select, check, card, cards
    options: list[tuple[str, str]] = field(default_factory=list)
    value: str = ""
    group: str = ""
    """A heading the item sits under (a seat's name), or empty."""

    @property
    def uses_cards(self) -> bool:
        return self.kind in ("card", "cards")


def items_for(f: Field, state: State, value: Any = None) -> list[Item]:
    """The inputs for field ``f`` in ``state``, showing ``value`` (a correction's) if given."""
    make = _BUILDERS.get(f.shape)
    return make(f, state, value) if make is not None else []


def parse_items(f: Field, state: State, form: Mapping[str, str]) -> Any:
    """The value the submitted inputs of ``f`` describe, None when nothing was tapped."""
    read = _READERS[f.shape]
    return read(f, state, form)


# -- Sitting Ducks ---------------------------------------------------------------------------

def _line(state: State) -> list[str]:
    if isinstance(state, SittingDucksState):
        return [spot.card for spot in state.gallery.spots]
    return []


def _slot_words(state: State, position: int) -> str:
    line = _line(state)
    card = card_words(state.game.name, line[position - 1]) if position <= len(line) else "empty"
    target = " ⌖" if isinstance(state, SittingDucksState) and position in state.gallery.targets else ""
    return f"{position}: {card}{target}"


def _positions(f: Field, state: State, value: Any) -> list[Item]:
    chosen = {value} if isinstance(value, int) else set(value or ())
    return [Item(f"{f.name}.{p}", _slot_words(state, p), "check", value="on" if p in chosen else "")
            for p in range(1, 7)]


def _read_positions(f: Field, state: State, form: Mapping[str, str]) -> Any:
    picked = [p for p in range(1, 7) if form.get(f"{f.name}.{p}")]
    return picked or None


def _arrangement(f: Field, state: State, value: Any) -> list[Item]:
    n = len(value) if isinstance(value, list) else len(_line(state))
    options = [(str(p), _slot_words(state, p)) for p in range(1, n + 1)]
    items = []
    for place in range(1, n + 1):
        now = value[place - 1] if isinstance(value, list) else place
        items.append(Item(f"{f.name}.{place}", f"new place {place}", "select", options, str(now)))
    return items


def _read_arrangement(f: Field, state: State, form: Mapping[str, str]) -> Any:
    order = []
    for place in range(1, 7):
        raw = form.get(f"{f.name}.{place}")
        if raw is None:
            break
        order.append(_number(raw, f"new place {place}"))
    if not order:
        return None
    doubled = next((p for p in order if order.count(p) > 1), None)
    if doubled is not None:
        raise PickError(f"The card from position {doubled} is put in two places; each card "
                        "goes in exactly one new place.")
    return order


def _action_list(f: Field, state: State, value: Any) -> list[Item]:
    options = [("", "—")] + [(a, info.title) for a, info in ACTION_BY_TYPE.items()]
    shown = list(value) if isinstance(value, list) else []
    return [Item(f"{f.name}.{i}", f"other card {i + 1}", "select", options,
                 shown[i] if i < len(shown) else "")
            for i in range(HAND_SIZE - 1)]


def _read_action_list(f: Field, state: State, form: Mapping[str, str]) -> Any:
    picked = [form.get(f"{f.name}.{i}", "").strip() for i in range(HAND_SIZE - 1)]
    picked = [a for a in picked if a]
    unknown = [a for a in picked if a not in ACTION_BY_TYPE]
    if unknown:
        raise PickError(f"{unknown[0]!r} is not an action card; choose one from the menu.")
    return picked or None


# -- Grey Duck ---------------------------------------------------------------------------------

def _seat_counts(f: Field, state: State, value: Any) -> list[Item]:
    options = [("", "—")] + [(str(n), str(n)) for n in range(MAX_DEALT + 1)]
    counts = list(value) if isinstance(value, list) else []
    return [Item(f"{f.name}.{seat}", name, "select", options,
                 str(counts[seat]) if seat < len(counts) else "")
            for seat, name in enumerate(state.players)]


def _read_seat_counts(f: Field, state: State, form: Mapping[str, str]) -> Any:
    raw = [form.get(f"{f.name}.{seat}", "").strip() for seat in range(state.num_players)]
    if not any(raw):
        return None
    missing = [state.players[s] for s, r in enumerate(raw) if not r]
    if missing:
        raise PickError(f"Choose how many cards {missing[0]} got too: every seat needs a number.")
    return [_number(r, f"cards of {state.players[s]}") for s, r in enumerate(raw)]


# -- Ducky Ducky ---------------------------------------------------------------------------------

def _river(f: Field, state: State, value: Any) -> list[Item]:
    if not isinstance(state, DuckyState):
        return []
    layout = state.layout
    white = set(layout.white_cells)
    given = list(value) if isinstance(value, list) else []
    items = []
    for cell in range(layout.cells):
        if cell in white:
            options = [(WHITE, "white (star log)")]
            now = WHITE
        else:
            options = [("", "—")] + [(c, c) for c in DUCKY_COLOURS]
            now = given[cell] if cell < len(given) else ""
        where = " (entrance)" if cell == 0 else " (waterfall)" if cell == layout.cells - 1 else ""
        items.append(Item(f"{f.name}.{cell}", f"cell {cell}{where}", "select", options, str(now)))
    return items


def _read_river(f: Field, state: State, form: Mapping[str, str]) -> Any:
    if not isinstance(state, DuckyState):
        return None
    river = [form.get(f"{f.name}.{cell}", "").strip() for cell in range(state.layout.cells)]
    if not any(c and c != WHITE for c in river):
        return None
    empty = next((cell for cell, c in enumerate(river) if not c), None)
    if empty is not None:
        raise PickError(f"Choose the pad colour of cell {empty}: every cell of the river needs one.")
    return river


def _pawns(f: Field, state: State, value: Any) -> list[Item]:
    if not isinstance(state, DuckyState):
        return []
    options = [("", "—")] + [(str(log), f"log {log}") for log in state.layout.start_logs]
    given = list(value) if isinstance(value, list) else []
    return [Item(f"{f.name}.{seat}", name, "select", options,
                 str(given[seat]) if seat < len(given) else "")
            for seat, name in enumerate(state.players)]


def _read_pawns(f: Field, state: State, form: Mapping[str, str]) -> Any:
    raw = [form.get(f"{f.name}.{seat}", "").strip() for seat in range(state.num_players)]
    if not any(raw):
        return None
    missing = [state.players[s] for s, r in enumerate(raw) if not r]
    if missing:
        raise PickError(f"Choose the start log of {missing[0]}'s pawn too.")
    return [_number(r, f"start log of {state.players[s]}") for s, r in enumerate(raw)]


def _pile_words(pile: int) -> str:
    return "first pile" if pile == 0 else "second pile"


def _seat_tops(f: Field, state: State, value: Any) -> list[Item]:
    given = list(value) if isinstance(value, list) else []
    items = []
    for seat, name in enumerate(state.players):
        tops = given[seat] if seat < len(given) and isinstance(given[seat], list) else []
        for pile in range(PILES):
            now = str(tops[pile]) if pile < len(tops) else ""
            items.append(Item(f"{f.name}.{seat}.{pile}", f"{_pile_words(pile)}: top card", "card",
                              value=now, group=name))
    return items


def _read_seat_tops(f: Field, state: State, form: Mapping[str, str]) -> Any:
    raw = [[form.get(f"{f.name}.{seat}.{pile}", "").strip() for pile in range(PILES)]
           for seat in range(state.num_players)]
    if not any(c for tops in raw for c in tops):
        return None
    for seat, tops in enumerate(raw):
        for pile, card in enumerate(tops):
            if not card:
                raise PickError(f"Tap the top card of {state.players[seat]}'s {_pile_words(pile)} "
                                "too: every seat shows two cards.")
    return raw


def _seat_piles(f: Field, state: State, value: Any) -> list[Item]:
    given = list(value) if isinstance(value, list) else []
    items = []
    for seat, name in enumerate(state.players):
        piles = given[seat] if seat < len(given) and isinstance(given[seat], list) else []
        for pile in range(PILES):
            now = ", ".join(map(str, piles[pile])) if pile < len(piles) else ""
            items.append(Item(f"{f.name}.{seat}.{pile}", f"{_pile_words(pile)}: cards beneath",
                              "cards", value=now, group=name))
    return items


def _read_seat_piles(f: Field, state: State, form: Mapping[str, str]) -> Any:
    raw = [[_tokens(form.get(f"{f.name}.{seat}.{pile}", "")) for pile in range(PILES)]
           for seat in range(state.num_players)]
    if not any(raw_pile for piles in raw for raw_pile in piles):
        return None
    return raw


def _due_ducks(state: State) -> tuple[str, ...]:
    if isinstance(state, DuckyState) and state.pending and state.pending[0].kind == "return":
        return tuple(state.pending[0].ducks)
    return ()


def _pads(f: Field, state: State, value: Any) -> list[Item]:
    if not isinstance(state, DuckyState):
        return []
    given = list(value) if isinstance(value, list) else []
    items = []
    for i, colour in enumerate(_due_ducks(state)):
        options = [(str(cell), f"cell {cell}") for cell, pad in enumerate(state.pad_colour)
                   if pad == colour and not state.duck[cell]]
        if state.spare_colour == colour and not state.spare_duck:
            options.append((SPARE, "the spare pad"))
        now = str(given[i]) if i < len(given) else options[0][0] if len(options) == 1 else ""
        items.append(Item(f"{f.name}.{i}", f"the {colour} duck goes on", "select",
                          [("", "—"), *options], now))
    return items


def _read_pads(f: Field, state: State, form: Mapping[str, str]) -> Any:
    ducks = _due_ducks(state)
    raw = [form.get(f"{f.name}.{i}", "").strip() for i in range(len(ducks))]
    if not any(raw):
        return None
    places: list[Any] = []
    for colour, place in zip(ducks, raw, strict=True):
        if not place:
            raise PickError(f"Choose the pad the {colour} duck goes back on.")
        places.append(place if place == SPARE else _number(place, f"pad of the {colour} duck"))
    return places


# -- helpers ----------------------------------------------------------------------------------

def _number(raw: str, what: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise PickError(f"'{what}' must be chosen from its menu, not {raw!r}.") from None


def _tokens(raw: str) -> list[str]:
    return [t for t in raw.replace(";", ",").replace(",", " ").split() if t]


_BUILDERS = {
    "positions": _positions, "arrangement": _arrangement, "action_list": _action_list,
    "seat_counts": _seat_counts, "river": _river, "pawns": _pawns, "seat_tops": _seat_tops,
    "seat_piles": _seat_piles, "pads": _pads,
}
_READERS = {
    "positions": _read_positions, "arrangement": _read_arrangement,
    "action_list": _read_action_list, "seat_counts": _read_seat_counts, "river": _read_river,
    "pawns": _read_pawns, "seat_tops": _read_seat_tops, "seat_piles": _read_seat_piles,
    "pads": _read_pads,
}


def card_items(items: Sequence[Item]) -> bool:
    """Whether any input of a picker takes cards (the card picker is then drawn)."""
    return any(item.uses_cards for item in items)
