"""The appliance's TOML settings (device/config.py): defaults, the shipped example, mistakes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from ducktable.device import config as config_module
from ducktable.device.config import Config, ConfigError, config_path, load_config

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ducktable.toml"
    path.write_text(text)
    return path


def test_no_file_means_the_defaults() -> None:
    config = load_config(None)
    assert config == Config()
    assert config.server.port == 8000 and config.cues.pin_factory == "auto"


def test_the_shipped_example_is_valid_and_says_the_defaults() -> None:
    example = load_config(ROOT / "systemd" / "ducktable.toml")
    assert example.cues == Config().cues
    # the service serves on the web's own port (its unit may bind it); the rest are defaults
    assert example.server.port == 80
    assert replace(example.server, port=Config().server.port) == Config().server


def test_settings_are_read(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, """
[server]
port = 8080
public_url = "http://table.local:8080/"
[table]
pin = "2468"
[cues]
pin_factory = "mock"
seat_leds = [5, "GPIO6", 13]
quack_buttons = [17, 27, 22]
[camera]
source = "0"
options = { width = 1280 }
detector = "edges"
"""))
    assert config.camera.detector == "edges" and Config().camera.detector == "network"
    assert config.server.port == 8080 and config.table.pin == "2468"
    assert config.cues.seat_leds == (5, "GPIO6", 13) and config.cues.quack_buttons == (17, 27, 22)
    assert config.camera.options == {"width": 1280}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[sever]\nport = 1", r"unknown section\(s\) \['sever'\]"),
        ("[server]\nprot = 1", r"\[server\] has unknown setting\(s\) \['prot'\]"),
        ("[server]\nport = \"80\"", r"\[server\] port must be a whole number, got '80'"),
        ("[server]\nport = 70000", r"port must be 1 to 65535"),
        ("[table]\npin = 1234", r"\[table\] pin must be text in quotes"),
        ("[table]\npin = \"12a4\"", r"pin must be 4 to 12 digits"),
        ("[cues]\nseat_leds = 5", r"seat_leds must be a list of GPIO pins"),
        ("[cues]\nbuzzer = true", r"buzzer must be a GPIO pin"),
        ("[cues]\nenabled = \"yes\"", r"enabled must be true or false"),
        ("[cues]\npin_factory = \"gpio\"", r"pin_factory must be"),
        ("[camera]\nreader = \"nocolon\"", r"reader must look like"),
        ("[camera]\ndetector = \"yolo\"", r"\[camera\] detector must be \"network\" or \"edges\""),
        ("[server\nport = 1", r"is not valid TOML"),
    ],
)
def test_mistakes_name_the_file_and_the_setting(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=message) as caught:
        load_config(path)
    assert str(path) in str(caught.value)


def test_a_missing_file_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist; create it"):
        load_config(tmp_path / "nope.toml")


def test_which_file_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(config_module.ENV_VAR, raising=False)
    monkeypatch.setattr(config_module, "SYSTEM_PATH", tmp_path / "etc.toml")
    assert config_path(None, tmp_path) is None
    write(tmp_path, "")
    assert config_path(None, tmp_path) == tmp_path / "ducktable.toml"
    (tmp_path / "etc.toml").write_text("")
    assert config_path(None, tmp_path) == tmp_path / "etc.toml"
    monkeypatch.setenv(config_module.ENV_VAR, str(tmp_path / "env.toml"))
    assert config_path(None, tmp_path) == tmp_path / "env.toml"
    assert config_path("given.toml", tmp_path) == Path("given.toml")


def test_a_longer_pin_and_the_unlock_time_are_settings(tmp_path: Path) -> None:
    path = tmp_path / "ducktable.toml"
    path.write_text('[table]\npin = "48213579"\npin_digits = 8\nunlock_hours = 2.5\n')
    config = load_config(path)
    assert (config.table.pin_digits, config.table.unlock_hours) == (8, 2.5)
    from ducktable.device.cli_run import web_settings

    settings = web_settings(config, tmp_path)
    assert settings["PIN_DIGITS"] == 8 and settings["UNLOCK_MAX_AGE_S"] == 9000
    path.write_text('[table]\npin = "4821"\npin_digits = 6\n')
    with pytest.raises(ConfigError, match="pin must be 6 to 12 digits"):
        load_config(path)
