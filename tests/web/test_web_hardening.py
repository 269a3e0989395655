"""Bad input on the phone: clear messages, same-site redirects, no 500s."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest
from ducktable.rules import make_game
from ducktable.web import forms

from ducktable.device.store import MatchStore

from .conftest import PIN, Phone, new_duck


def test_grey_drakes_can_be_typed_in_any_case() -> None:
    game = make_game("grey")
    state = game.new_state(["Ann", "Bob", "Cy"], observer=True)
    spec = game.event_spec("play")
    assert spec is not None
    event = forms.parse_event(spec, state, {"cards": "grey-D, yellow-D", "_seat": "0"})
    assert list(event.data["cards"]) == ["grey-D", "yellow-D"]
    event = forms.parse_event(spec, state, {"cards": "GREY-d Yellow-5", "_seat": "0"})
    assert list(event.data["cards"]) == ["grey-D", "yellow-5"]


@pytest.mark.parametrize("nxt", ["/\t/evil.example/", "/%09/evil.example/", "/\\evil.example",
                                 "\\/evil.example", "/\n/evil.example", "//evil.example",
                                 "https://evil.example/", "/ /evil.example"])
def test_unlock_only_sends_back_to_same_site_paths(phone: Phone, nxt: str) -> None:
    phone.get("/unlock")
    response = phone.post("/unlock?next=" + quote(nxt, safe=""), {"pin": PIN})
    assert response.status_code == 303
    location = response.headers["Location"]
    assert urlsplit(location).netloc in ("", "localhost")
    assert location.startswith("/")
    cleaned = "".join(c for c in location if c > " ").replace("\\", "/")
    assert not cleaned.startswith("//")
    assert "evil.example" not in location


def test_unlock_keeps_a_plain_local_next(phone: Phone) -> None:
    phone.get("/unlock")
    response = phone.post("/unlock?next=/history", {"pin": PIN})
    assert response.headers["Location"] == "/history"


def test_a_lone_surrogate_in_the_dispute_json_is_a_400(phone: Phone, store: MatchStore) -> None:
    info = new_duck(store)
    phone.get(f"/match/{info.id}/dispute")
    response = phone.post(f"/match/{info.id}/dispute",
                          {"event_json": '{"type":"\\ud800","seat":0}'})
    assert response.status_code == 400
    assert "lone surrogate" in response.get_data(as_text=True)
