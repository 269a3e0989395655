"""Reading is open, changing needs the table PIN; every form carries a CSRF token."""

from __future__ import annotations

import html
import io
import os
import re
from pathlib import Path

import pytest
from ducktable.device.store import MatchStore
from ducktable.rules.core import Event
from ducktable.web import create_app
from flask import Flask

from .conftest import PIN, PLAYERS, Phone, new_duck

DEAL = {"_type": "deal", "face_up.0": "blue-3"}


def writes(match_id: int) -> list[tuple[str, dict[str, str]]]:
    """Every route that changes something, with a form that would succeed given the PIN."""
    return [
        ("/setup", {"game": "duck", "player_0": "A", "player_1": "B", "player_2": "C"}),
        (f"/match/{match_id}/events", DEAL),
        (f"/match/{match_id}/undo", {}),
        (f"/match/{match_id}/events/0/correct", {"_type": "deal", "face_up.0": "red-3"}),
        ("/party/new", {"players": "\n".join("ABCDEF"), "hands": "2"}),
        ("/party/load", {"party_json": "{}"}),
        ("/party/table/0/start", {}),
        ("/party/table/0/record", {"place_0": "A"}),
    ]


@pytest.fixture
def match(store: MatchStore) -> int:
    info = new_duck(store)
    assert store.submit(info.id, Event("deal", None, {"face_up": ["blue-5", None, None]})).ok
    return info.id


def snapshot(store: MatchStore, match_id: int) -> tuple[int, int]:
    return store.seq(match_id), len(store.list_matches())


def test_every_change_needs_the_pin_and_changes_nothing_without_it(
    phone: Phone, store: MatchStore, match: int, app: Flask
) -> None:
    before = snapshot(store, match)
    for url, form in writes(match):
        response = phone.post(url, form)
        assert response.status_code == 403, url
        assert "needs the table PIN" in response.get_data(as_text=True), url
    assert snapshot(store, match) == before
    assert not os.path.exists(app.config["PARTY_FILE"])


def test_a_wrong_pin_is_refused_with_a_message(phone: Phone, store: MatchStore, match: int) -> None:
    response = phone.post(f"/match/{match}/undo", {"pin": "0000"})
    assert response.status_code == 403
    assert "not the table PIN" in response.get_data(as_text=True)
    assert len(store.events(match)) == 1


def test_the_pin_in_a_form_unlocks_the_phone(phone: Phone, store: MatchStore, match: int) -> None:
    response = phone.post(f"/match/{match}/undo", {"pin": PIN})
    assert response.status_code == 303 and store.events(match) == []
    assert phone.post(f"/match/{match}/events", DEAL).status_code == 303  # no PIN needed now
    assert "unlocked" in phone.get("/history").get_data(as_text=True)


def test_a_refused_form_is_kept_and_sent_again_with_the_pin(phone: Phone,
                                                           store: MatchStore) -> None:
    """A new phone's first try comes without the PIN: what was typed must not be lost."""
    form = {"game": "duck", "player_0": "Ann", "player_1": "Ben & Co", "player_2": "Cat",
            "opt.duck.duck_limit": "12", "name": 'the "big" one'}
    refused = phone.post("/setup", form)
    page = refused.get_data(as_text=True)
    assert refused.status_code == 403 and "What you entered is kept" in page
    assert '<form method="post" action="/setup">' in page
    assert 'name="player_1" value="Ben &amp; Co"' in page
    assert 'name="name" value="the &#34;big&#34; one"' in page
    carried = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    assert "pin" not in carried and carried["opt.duck.duck_limit"] == "12"
    phone.token = carried.pop("csrf_token")
    again = phone.post("/setup", {**{k: html.unescape(v) for k, v in carried.items()},
                                  "pin": PIN})
    assert again.status_code == 303
    info = store.list_matches()[0]
    assert info.players == ["Ann", "Ben & Co", "Cat"] and info.options["duck_limit"] == 12
    assert info.name == 'the "big" one'


def test_correction_page_needs_the_pin_even_to_look(phone: Phone, match: int) -> None:
    """The correction form is prefilled with the event, hidden cards included."""
    refused = phone.get(f"/match/{match}/events/0/correct",
                        headers={"Referer": f"http://localhost/match/{match}/entry"})
    assert refused.status_code == 403
    # unlocking goes back to the correction asked for, not to the page the link was on
    assert f'name="next" value="/match/{match}/events/0/correct"' in refused.get_data(as_text=True)


def test_unlock_page_and_lock(phone: Phone) -> None:
    assert phone.unlock("9999").status_code == 403
    response = phone.unlock()
    assert response.status_code == 303 and response.location == "/history"
    phone.get("/history")
    assert phone.post("/lock").status_code == 303
    assert "unlock-link" in phone.get("/history").get_data(as_text=True)  # locked: the Unlock link


def test_unlock_only_redirects_within_the_site(phone: Phone) -> None:
    phone.get("/unlock")
    response = phone.post("/unlock", {"pin": PIN, "next": "//evil.example/"})
    assert response.location == "/"


def test_too_many_wrong_pins_lock_out_the_phone(phone: Phone, match: int) -> None:
    for _ in range(5):
        assert phone.unlock("1111").status_code == 403
    response = phone.unlock(PIN)
    assert response.status_code == 429 and "Wait" in response.get_data(as_text=True)


def test_a_new_pin_at_setup_locks_every_other_phone(app: Flask, unlocked: Phone) -> None:
    other = Phone(app.test_client())
    assert other.unlock().status_code == 303
    unlocked.get("/setup")
    response = unlocked.post("/setup", {"game": "duck", "player_0": "A", "player_1": "B",
                                        "player_2": "C", "new_pin": "2468"})
    assert response.status_code == 303
    assert "unlocked" in unlocked.get("/history").get_data(as_text=True)  # the one who set it
    other.get("/history")
    assert other.post("/match/1/undo").status_code == 403
    assert other.unlock("2468").status_code == 303
    assert Path(app.config["PIN_FILE"]).read_text().split() == ["2468", "setup"]  # kept


def test_unlocked_phone_may_download_the_full_log(unlocked: Phone, store: MatchStore) -> None:
    from .conftest import play_bots

    info = new_duck(store, observer=False)
    play_bots(store, info.id, 1)
    text = unlocked.get(f"/match/{info.id}/export.jsonl?full=1").get_data(as_text=True)
    assert '"hands"' in text


# -- CSRF ----------------------------------------------------------------------------------


def every_post(match_id: int) -> list[str]:
    return [url for url, _ in writes(match_id)] + [
        "/unlock", "/lock", f"/match/{match_id}/dispute",
    ]


def test_every_form_without_its_token_is_refused(unlocked: Phone, store: MatchStore,
                                                 match: int) -> None:
    before = snapshot(store, match)
    for url in every_post(match):
        response = unlocked.post(url, {"pin": PIN}, token=False)
        assert response.status_code == 400, url
        assert "security token" in response.get_data(as_text=True), url
    assert snapshot(store, match) == before


def test_a_forged_token_is_refused(unlocked: Phone, match: int) -> None:
    response = unlocked.post(f"/match/{match}/undo", {"csrf_token": "forged.token.value"})
    assert response.status_code == 400 and "not valid" in response.get_data(as_text=True)


def test_a_token_from_another_session_is_refused(app: Flask, unlocked: Phone, match: int) -> None:
    stranger = Phone(app.test_client())
    stranger.get("/setup")
    response = unlocked.post(f"/match/{match}/undo", {"csrf_token": stranger.token})
    assert response.status_code == 400 and "another browser session" in response.get_data(
        as_text=True
    )


def test_an_old_token_is_refused(app: Flask, unlocked: Phone, match: int) -> None:
    app.config["CSRF_MAX_AGE_S"] = -1
    response = unlocked.post(f"/match/{match}/undo")
    assert response.status_code == 400 and "too old" in response.get_data(as_text=True)


def test_the_token_may_come_as_a_header(unlocked: Phone, store: MatchStore, match: int) -> None:
    response = unlocked.client.post(f"/match/{match}/undo",
                                    headers={"X-CSRF-Token": unlocked.token})
    assert response.status_code == 303 and store.events(match) == []


def test_reading_needs_neither_pin_nor_token(phone: Phone, match: int) -> None:
    for url in ("/", f"/match/{match}", f"/match/{match}/entry", f"/match/{match}/dispute",
                "/history", "/party", "/join", f"/match/{match}/view.json"):
        assert phone.client.get(url).status_code in (200, 302), url
    assert PLAYERS[0] in phone.client.get(f"/match/{match}").get_data(as_text=True)


def test_which_pin_applies_after_a_restart(tmp_path: Path) -> None:
    """Setup's PIN > the configured PIN > a random PIN chosen once and kept."""
    from ducktable.web.auth import TablePin

    path = tmp_path / "table-pin"
    first = TablePin(None, path).value
    assert TablePin(None, path).value == first  # the random PIN is kept
    assert TablePin("1357", path).value == "1357"  # a configured PIN replaces a random one
    TablePin("1357", path).set("8642")
    assert TablePin("1357", path).value == "8642"  # the setup page's choice wins
    path.write_text("garbage")
    assert TablePin("1357", path).value == "1357"


def test_pasted_text_is_kept_though_its_form_also_offers_a_file(phone: Phone) -> None:
    """The party page's load form has a file field besides the paste box: with no file
    chosen, the pasted text is carried over the PIN page like any form."""
    phone.get("/party")
    refused = phone.client.post("/party/load", data={
        "csrf_token": phone.token, "party_json": '{"v": 1}',
        "party_file": (io.BytesIO(b""), "")}, content_type="multipart/form-data")
    page = refused.get_data(as_text=True)
    assert refused.status_code == 403 and "What you entered is kept" in page
    assert 'name="party_json" value="{&#34;v&#34;: 1}"' in page
    chosen = phone.client.post("/party/load", data={
        "csrf_token": phone.token, "party_file": (io.BytesIO(b"{}"), "party.json")},
        content_type="multipart/form-data")
    assert "What you entered is kept" not in chosen.get_data(as_text=True)  # a file cannot be


def test_pin_guessing_is_limited_across_all_addresses(app: Flask) -> None:
    from ducktable.web.auth import GLOBAL_MAX_FAILURES

    judged = 0
    for n in range(50):
        p = Phone(app.test_client())
        p.client.environ_base["REMOTE_ADDR"] = f"10.0.{n // 250}.{n % 250 + 1}"
        for guess in range(6):
            response = p.unlock(f"{1000 + n * 6 + guess:04d}")
            if response.status_code == 403:
                judged += 1
            else:
                assert response.status_code == 429
    assert judged <= GLOBAL_MAX_FAILURES
    late = Phone(app.test_client())
    late.client.environ_base["REMOTE_ADDR"] = "10.9.9.9"
    response = late.unlock(PIN)  # even the right PIN waits: guesses are not judged now
    assert response.status_code == 429
    assert "wrong PINs on this table" in response.get_data(as_text=True)


def test_an_unlocked_phone_locks_again_after_the_set_time(
        app: Flask, unlocked: Phone, match: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import time as real_time

    from ducktable.web import auth

    assert app.config["UNLOCK_MAX_AGE_S"] == auth.UNLOCK_MAX_AGE_S >= 3600
    assert unlocked.client.get(f"/match/{match}/events/0/correct").status_code == 200
    later = real_time.time() + app.config["UNLOCK_MAX_AGE_S"] + 1
    monkeypatch.setattr(auth.time, "time", lambda: later)
    response = unlocked.client.get(f"/match/{match}/events/0/correct")
    assert response.status_code == 403 and "PIN" in response.get_data(as_text=True)


def test_a_longer_pin_may_be_set_and_required(tmp_path: Path) -> None:
    from ducktable.web.auth import PinError, TablePin, check_pin_format

    assert check_pin_format("123456789012") == "123456789012"
    with pytest.raises(PinError, match="6 to 12 digits"):
        check_pin_format("4821", min_digits=6)
    made = TablePin(None, tmp_path / "pin", digits=8).value
    assert len(made) == 8 and made.isdigit()
    app = create_app({"TESTING": True, "TABLE_PIN": "48213579", "PIN_DIGITS": 8,
                      "SECRET_KEY": "s" * 40, "INSTANCE_PATH": str(tmp_path),
                      "PIN_FILE": str(tmp_path / "p2"), "DATABASE": str(tmp_path / "m.sqlite3")})
    p = Phone(app.test_client())
    assert p.unlock("48213579").status_code == 303
