"""Bad input on the phone: clear messages, same-site redirects, no 500s."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest
from ducktable.device.store import MatchStore, StoreError
from ducktable.rules import make_game
from ducktable.web import forms

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


def test_the_backup_download_needs_the_pin(phone: Phone, unlocked: Phone,
                                           store: MatchStore) -> None:
    info = new_duck(store)
    locked = phone.client.get("/backup.sqlite3")
    assert locked.status_code == 403
    assert not locked.get_data().startswith(b"SQLite format 3")
    response = unlocked.client.get("/backup.sqlite3")
    assert response.status_code == 200
    assert response.get_data().startswith(b"SQLite format 3\x00")
    assert "attachment" in response.headers["Content-Disposition"]
    assert "/backup.sqlite3" in unlocked.client.get("/history").get_data(as_text=True)
    assert store.match(info.id).id == info.id


def test_a_disk_fault_is_not_called_a_missing_match(phone: Phone, store: MatchStore,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    info = new_duck(store)

    def failing(match_id: int) -> None:
        raise StoreError("the disk (SD card) holding the match database reported an I/O error")

    monkeypatch.setattr(store, "match", failing)
    response = phone.client.get(f"/match/{info.id}")
    text = response.get_data(as_text=True)
    assert "There is no match" not in text
    assert "I/O error" in text and response.status_code == 400


@pytest.mark.parametrize("game", ["grey", "duck", "sitting", "bruce", "ducky"])
def test_every_bot_event_can_be_typed_on_the_phone(game: str) -> None:
    """Each event of an observer match, prefilled into its form and sent back, is the same
    event (Grey Duck's Drakes once could not be typed)."""
    import random

    from ducktable.rules.core import RandomBot

    players = ["Ann", "Ben", "Cat"]
    full = make_game(game).new_state(players)
    rng = random.Random(4)
    bots = [RandomBot(random.Random(i)) for i in range(3)]
    observer = make_game(game).new_state(players, observer=True)
    for _ in range(300):
        if full.is_over():
            break
        seat = full.to_move()
        event = full.chance_event(rng) if full.needs_chance() else bots[seat or 0].choose(
            full, seat or 0)
        full.apply_or_raise(event)
        public = full.game.public_event(event)
        spec = observer.game.event_spec(public.type)
        assert spec is not None
        if spec.manual:
            form = forms.build_form(spec, observer, public)
            values: dict[str, str] = {"_seat": form.seat_value}
            for w in form.widgets:
                if w.items:  # tap pickers (web/pickers.py)
                    values.update({item.name: item.value for item in w.items if item.value})
                elif w.seat_values:
                    values.update({f"{w.name}.{i}": v for i, v in enumerate(w.seat_values)})
                else:
                    values[w.name] = w.value
            typed = forms.parse_event(spec, observer, values)
            assert (typed.type, typed.seat, dict(typed.data)) == (
                public.type, public.seat, dict(public.data)), public
        observer.apply_or_raise(public)
