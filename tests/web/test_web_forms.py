"""Forms generated from event declarations (web/forms.py): every Field kind, in and out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from ducktable.rules import make_game
from ducktable.rules.core import Event, EventSpec, Field, Game, State
from ducktable.web import forms

CARDS = ("red-1", "red-2", "blue-1")


class KindsGame(Game):
    """A game whose one event uses every field kind, to test the generic forms."""

    name = "kinds"
    title = "Kinds"
    min_players = 2
    max_players = 3
    event_specs = (
        EventSpec(
            "everything",
            (
                Field("count", "int"),
                Field("note", "str", required=False),
                Field("flag", "bool", required=False),
                Field("card", "card"),
                Field("cards", "cards", required=False),
                Field("target", "seat"),
                Field("mode", "choice", choices=("up", "down")),
                Field("extra", "any", required=False, help="anything as JSON"),
                Field("face_up", "any", required=False, help="per seat: one card or null"),
                Field("hands", "any", required=False, help="per seat: the hand cards"),
                Field("secret", "cards", required=False, hidden=True),
            ),
        ),
        EventSpec("deal", (), chance=True),
    )

    def new_state(self, players: Sequence[str], *, observer: bool = False) -> State:
        return KindsState(self, players, observer)


class KindsState(State):
    def to_move(self) -> int | None:
        return 1

    def is_over(self) -> bool:
        return False

    def scores(self) -> list[int]:
        return [0] * self.num_players

    def is_card_label(self, label: str) -> bool:
        return label in CARDS


def state(observer: bool = False) -> State:
    return KindsGame().new_state(["Ann", "Ben", "Cat"], observer=observer)


SPEC = KindsGame.event_specs[0]
GOOD = {
    "_seat": "1", "count": "3", "note": "hi", "flag": "on", "card": "RED-1",
    "cards": "red-1, red-2 blue-1", "target": "2", "mode": "down", "extra": '{"a": [1]}',
    "face_up.0": "red-1", "face_up.1": "", "face_up.2": "blue-1",
    "hands.0": "red-1,red-2", "hands.1": "", "hands.2": "blue-1", "secret": "red-2",
}


def kinds(form: forms.EventForm) -> dict[str, str]:
    return {w.name: w.kind for w in form.widgets}


def test_every_field_kind_gets_a_widget() -> None:
    form = forms.build_form(SPEC, state())
    assert kinds(form) == {
        "count": "int", "note": "str", "flag": "bool", "card": "card", "cards": "cards",
        "target": "seat", "mode": "choice", "extra": "json", "face_up": "seat_card",
        "hands": "seat_cards", "secret": "cards",
    }
    assert form.seat_mode == "required" and form.seat_value == "1"  # the seat to move
    assert form.uses_cards


def test_hidden_fields_are_not_asked_in_observer_mode() -> None:
    assert "secret" not in kinds(forms.build_form(SPEC, state(observer=True)))


def test_chance_events_have_an_optional_seat() -> None:
    form = forms.build_form(KindsGame.event_specs[1], state())
    assert form.seat_mode == "optional" and form.seat_value == ""


def test_a_filled_form_becomes_the_event() -> None:
    event = forms.parse_event(SPEC, state(), GOOD, ts=5)
    assert event == Event("everything", 1, {
        "count": 3, "note": "hi", "flag": True, "card": "red-1",
        "cards": ["red-1", "red-2", "blue-1"], "target": 2, "mode": "down",
        "extra": {"a": [1]}, "face_up": ["red-1", None, "blue-1"],
        "hands": [["red-1", "red-2"], [], ["blue-1"]], "secret": ["red-2"],
    }, 5, "manual")


def test_prefill_round_trips_through_the_form() -> None:
    event = forms.parse_event(SPEC, state(), GOOD)
    form = forms.build_form(SPEC, state(), event)
    values: dict[str, Any] = {"_seat": form.seat_value}
    for w in form.widgets:
        if w.seat_values:
            values.update({f"{w.name}.{i}": v for i, v in enumerate(w.seat_values)})
        else:
            values[w.name] = w.value
    assert forms.parse_event(SPEC, state(), values) == event


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"count": "three"}, "'count' must be a whole number, not 'three'"),
        ({"count": ""}, "Fill in 'count'"),
        ({"card": "green-9"}, "'green-9' is not a card of Kinds"),
        ({"cards": "red-1, nope"}, "'nope' is not a card of Kinds"),
        ({"target": "7"}, "there is no seat 7"),
        ({"target": "x"}, "'target' must be a seat number"),
        ({"mode": "sideways"}, "'mode' must be one of: up, down"),
        ({"extra": "{oops"}, "'extra' must be JSON"),
        ({"flag": "maybe"}, "'flag' must be ticked or not"),
        ({"_seat": ""}, "Choose who makes the 'everything'"),
        ({"_seat": "9"}, "There is no seat 9"),
        ({"face_up.1": "pink-3"}, "'face up of Ben': 'pink-3' is not a card"),
    ],
)
def test_bad_input_gets_a_message_saying_what_to_fix(change: dict[str, str], message: str) -> None:
    with pytest.raises(forms.FormError, match=message.replace("(", r"\(")):
        forms.parse_event(SPEC, state(), {**GOOD, **change})


def test_duck_forms_use_per_seat_widgets_for_the_deal_and_reveal() -> None:
    duck = make_game("duck")
    observer = duck.new_state(["A", "B", "C"], observer=True)
    deal = forms.build_form(duck.event_spec("deal"), observer)
    assert kinds(deal) == {"face_up": "seat_card"}  # hands and pile are hidden (DUCK-S1)
    reveal = forms.build_form(duck.event_spec("reveal"), observer)
    assert kinds(reveal) == {"hands": "seat_cards"}
    labels = forms.picker_cards(duck, observer, ("yellow-5", "towel", "lifebelt-6-green"))
    assert labels == ["yellow-5"]  # DUCK-C2/C3: lifebelts and towels are not played
