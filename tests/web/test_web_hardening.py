"""Bad input on the phone: clear messages, same-site redirects, no 500s."""

from __future__ import annotations

from ducktable.rules import make_game
from ducktable.web import forms


def test_grey_drakes_can_be_typed_in_any_case() -> None:
    game = make_game("grey")
    state = game.new_state(["Ann", "Bob", "Cy"], observer=True)
    spec = game.event_spec("play")
    assert spec is not None
    event = forms.parse_event(spec, state, {"cards": "grey-D, yellow-D", "_seat": "0"})
    assert list(event.data["cards"]) == ["grey-D", "yellow-D"]
    event = forms.parse_event(spec, state, {"cards": "GREY-d Yellow-5", "_seat": "0"})
    assert list(event.data["cards"]) == ["grey-D", "yellow-5"]
