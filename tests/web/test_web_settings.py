"""First run and settings on the phone (web/settings.py, device/config.py ``save_settings``):
the PIN chosen without the console, the TOML file written whole or not at all, an Unlock link
on every page."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import pytest
from ducktable.device.config import ConfigError, load_config, save_settings
from ducktable.device.store import MatchStore
from ducktable.web import create_app
from ducktable.web.auth import table_pin
from flask import Flask

from .conftest import PIN, Phone

FORM = {"new_pin": "135791", "new_pin_again": "135791", "name": "Kitchen table",
        "cues": "on", "seat_leds": "5, 6, 13", "status_led": "20", "buzzer": "21",
        "quack_buttons": ""}


@pytest.fixture
def fresh(store: MatchStore, tmp_path: Path) -> Flask:
    """A table started with no PIN in its settings: the device chose one at random."""
    return create_app({"TESTING": True, "STORE": store, "SECRET_KEY": "s" * 40,
                       "INSTANCE_PATH": str(tmp_path), "PIN_FILE": str(tmp_path / "table-pin"),
                       "PARTY_FILE": str(tmp_path / "party.json"), "LIVE_WAIT_S": 0.05})


def test_the_first_phone_is_led_to_choose_the_pin_and_settings(fresh: Flask,
                                                                tmp_path: Path) -> None:
    phone = Phone(fresh.test_client())
    console_pin = table_pin(fresh).value
    home = phone.get("/")
    assert home.status_code == 303 and home.headers["Location"].endswith("/welcome")
    page = phone.get("/welcome").get_data(as_text=True)
    assert 'name="new_pin"' in page and "Choose the table PIN" in page
    response = phone.post("/welcome", FORM)
    assert response.status_code == 303
    saved = tomllib.loads((tmp_path / "ducktable.toml").read_text())
    assert saved["table"] == {"name": "Kitchen table", "pin": "135791"}
    assert saved["camera"] == {"enabled": False}
    assert saved["cues"]["seat_leds"] == [5, 6, 13] and saved["cues"]["buzzer"] == 21
    assert stat.S_IMODE((tmp_path / "ducktable.toml").stat().st_mode) == 0o600
    assert load_config(tmp_path / "ducktable.toml").table.name == "Kitchen table"
    assert table_pin(fresh).value == "135791" and table_pin(fresh).value != console_pin
    after = phone.get("/history").get_data(as_text=True)
    assert "Kitchen table" in after and ">unlocked<" in after and "no PIN of its own" not in after
    assert phone.get("/welcome").headers["Location"].endswith("/settings")  # closed now
    other = Phone(fresh.test_client())
    assert "/welcome" not in other.get("/").headers.get("Location", "")  # nobody is led there


def test_a_welcome_with_different_pins_says_so_and_writes_nothing(fresh: Flask,
                                                                  tmp_path: Path) -> None:
    phone = Phone(fresh.test_client())
    phone.get("/welcome")
    response = phone.post("/welcome", {**FORM, "new_pin_again": "135790"})
    assert response.status_code == 400
    assert "The two PINs differ" in response.get_data(as_text=True)
    assert not (tmp_path / "ducktable.toml").exists()
    response = phone.post("/welcome", {**FORM, "buzzer": "40"})
    assert response.status_code == 400, response.get_data(as_text=True)
    assert "is not a GPIO pin" in response.get_data(as_text=True), response.get_data(as_text=True)[-900:]
    assert table_pin(fresh).chosen is False


def test_the_console_pin_still_unlocks_until_one_is_chosen(fresh: Flask) -> None:
    phone = Phone(fresh.test_client())
    assert phone.unlock(table_pin(fresh).value).status_code == 303
    assert ">unlocked<" in phone.get("/history").get_data(as_text=True)


def test_skipping_the_welcome_lets_a_phone_watch(fresh: Flask) -> None:
    phone = Phone(fresh.test_client())
    assert phone.get("/welcome?skip=1").status_code == 303
    assert "/welcome" not in phone.get("/").headers.get("Location", "")
    page = phone.get("/history")
    assert "Choose the PIN and settings" in page.get_data(as_text=True)  # the banner stays


def test_settings_need_the_pin_and_keep_other_settings(app: Flask, tmp_path: Path) -> None:
    (tmp_path / "ducktable.toml").write_text('[server]\nport = 8123\n\n[table]\nunlock_hours = 2.0\n')
    phone = Phone(app.test_client())
    locked = phone.get("/settings")
    assert locked.status_code == 303 and "/unlock" in locked.headers["Location"]
    phone.unlock()
    page = phone.get("/settings").get_data(as_text=True)
    assert "leave empty to keep the PIN" in page
    response = phone.post("/settings", {**FORM, "new_pin": "", "new_pin_again": "",
                                        "camera": "on"})
    assert response.status_code == 303
    saved = load_config(tmp_path / "ducktable.toml")
    assert saved.server.port == 8123 and saved.table.unlock_hours == 2.0
    assert saved.camera.enabled and saved.table.name == "Kitchen table"
    assert table_pin(app).value == PIN  # unchanged


def test_save_settings_checks_the_whole_file_before_replacing_it(tmp_path: Path) -> None:
    path = tmp_path / "ducktable.toml"
    path.write_text("[server]\nport = 8000\n")
    path.chmod(0o640)
    with pytest.raises(ConfigError, match="port must be 1 to 65535"):
        save_settings(path, {"server": {"port": 70000}})
    assert path.read_text() == "[server]\nport = 8000\n"
    save_settings(path, {"table": {"name": 'Ann\'s "big" table'}})
    assert load_config(path).table.name == 'Ann\'s "big" table'
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["ducktable.toml"]  # no temporary left


@pytest.mark.parametrize("url", ["/history", "/setup", "/party", "/join", "/unlock"])
def test_every_page_has_an_unlock_link_while_locked(phone: Phone, url: str) -> None:
    page = phone.get(url).get_data(as_text=True)
    assert 'class="lock unlock-link"' in page and "/unlock?next=" in page
