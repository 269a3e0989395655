"""The appliance's settings, read from a TOML file: server, table PIN, cue pins, camera.

Why this module exists: the Pi is set up once by editing one small file
(``/etc/ducktable/ducktable.toml`` when installed with systemd/install.sh), and every mistake
in it must be reported as one line naming the file, the setting and what is allowed, never as
a traceback. Every setting has a default, so no file at all is a valid configuration.

Which file: ``--config``, else ``$DUCKTABLE_CONFIG``, else ``/etc/ducktable/ducktable.toml``,
else ``ducktable.toml`` in the data folder; the first that is given or exists wins.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .cli import UserError

ENV_VAR = "DUCKTABLE_CONFIG"
SYSTEM_PATH = Path("/etc/ducktable/ducktable.toml")
FILE_NAME = "ducktable.toml"


class ConfigError(UserError):
    """A configuration file that cannot be used; the message names the file and setting."""


@dataclass(frozen=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = 8000
    threads: int = 48
    """Worker threads for pages and entries (live scoreboards hold none: web/asgi.py)."""
    public_url: str = ""
    """The scoreboard address for the QR code; empty = worked out from the network address."""


@dataclass(frozen=True)
class TableConfig:
    pin: str = ""
    """The table PIN (4-12 digits); empty = a random PIN chosen on first start and kept; it is
    shown on the console. A PIN chosen on the setup page takes precedence."""
    pin_digits: int = 4
    """The fewest digits a PIN may have, and the length of a random one (4-12); 6 or more
    makes guessing through the scoreboard's network hopeless."""
    unlock_hours: float = 6.0
    """How long a phone stays unlocked after the PIN was typed (then it asks again)."""
    game: str = "duck"
    name: str = ""
    """The table's name, shown on the phones' pages (e.g. "Kitchen table"); empty: none."""


@dataclass(frozen=True)
class CueConfig:
    enabled: bool = True
    pin_factory: str = "auto"  # auto | mock | pi
    seat_leds: tuple[int | str, ...] = (5, 6, 13, 19, 26, 12)
    status_led: int | str = 20
    buzzer: int | str = 21
    quack_buttons: tuple[int | str, ...] = ()


@dataclass(frozen=True)
class CameraConfig:
    enabled: bool = True
    source: str = "picamera"
    reader: str = "ducktable.vision.reader:make_table_reader"
    """``module:function`` building the frame -> events reader (see device/runloop.py); it is
    called with this section and the data folder."""
    options: dict[str, Any] = field(default_factory=dict)
    """Settings of the camera source itself (e.g. ``interval_ms`` of a folder of pictures)."""
    table: str = "default"
    """Which calibration to use: ``ducktable calibrate --table NAME`` (data folder's
    calibration/NAME.json)."""
    model: str = ""
    """A card classifier .onnx to use instead of the shipped one (empty: the shipped one)."""
    drift_every: int = 30
    """Frames between two checks that the camera has not been moved since calibration."""
    detector: str = "network"
    """How the card games' cards are found: "network" (the card locator, the edge-map search
    where it is in doubt) or "edges" (the edge-map search on every frame, about 3 times the CPU)."""


@dataclass(frozen=True)
class Config:
    server: ServerConfig = field(default_factory=ServerConfig)
    table: TableConfig = field(default_factory=TableConfig)
    cues: CueConfig = field(default_factory=CueConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    path: Path | None = None
    """The file it was read from (None: built-in defaults)."""


def config_path(explicit: str | os.PathLike[str] | None, data_dir: Path | None) -> Path | None:
    """The configuration file to read, or None for the built-in defaults."""
    if explicit:
        return Path(explicit)
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    if SYSTEM_PATH.is_file():
        return SYSTEM_PATH
    if data_dir is not None and (data_dir / FILE_NAME).is_file():
        return data_dir / FILE_NAME
    return None


def load_config(path: str | os.PathLike[str] | None) -> Config:
    """Read ``path`` (None: defaults); :class:`ConfigError` says what is wrong and where."""
    if path is None:
        return Config()
    path = Path(path)
    try:
        with path.open("rb") as handle:
            raw = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(
            f"the configuration file {path} does not exist; create it (see "
            "systemd/ducktable.toml for an example) or leave --config out for the defaults"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the configuration file {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    return parse_config(raw, path)


def parse_config(raw: Mapping[str, Any], path: Path | None = None) -> Config:
    where = str(path) if path is not None else "the configuration"
    sections = {"server": ServerConfig, "table": TableConfig, "cues": CueConfig,
                "camera": CameraConfig}
    unknown = set(raw) - set(sections)
    if unknown:
        raise ConfigError(
            f"{where}: unknown section(s) {sorted(unknown)}; allowed: {sorted(sections)}"
        )
    built: dict[str, Any] = {}
    for name, cls in sections.items():
        table = raw.get(name, {})
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where}: [{name}] must be a table of settings")
        built[name] = _section(cls, name, table, where)
    config = Config(**built, path=path)
    _check(config, where)
    return config


def _section(cls: type, name: str, table: Mapping[str, Any], where: str) -> Any:
    known = {f.name: f for f in fields(cls)}
    unknown = set(table) - set(known)
    if unknown:
        raise ConfigError(
            f"{where}: [{name}] has unknown setting(s) {sorted(unknown)}; "
            f"allowed: {sorted(known)}"
        )
    values: dict[str, Any] = {}
    defaults = cls()
    for key, value in table.items():
        default = getattr(defaults, key)
        values[key] = _coerce(f"[{name}] {key}", value, default, where)
    return cls(**values)


def _coerce(what: str, value: Any, default: Any, where: str) -> Any:
    def bad(expected: str) -> ConfigError:
        return ConfigError(f"{where}: {what} must be {expected}, got {value!r}")

    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(_is_pin(v) for v in value):
            raise bad("a list of GPIO pins (numbers such as 17, or names such as \"GPIO17\")")
        return tuple(value)
    if isinstance(default, dict):
        if not isinstance(value, dict):
            raise bad("a table of settings")
        return dict(value)
    if what.endswith(("status_led", "buzzer")):
        if not _is_pin(value):
            raise bad("a GPIO pin (a number such as 17, or a name such as \"GPIO17\")")
        return value
    if isinstance(default, int):
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad("a whole number")
        return value
    if isinstance(default, float):
        if not isinstance(value, int | float) or isinstance(value, bool) or value != value:
            raise bad("a number")
        return float(value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise bad("text in quotes")
        return value
    return value


def _is_pin(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool) and value >= 0) or (
        isinstance(value, str) and bool(value.strip())
    )


def _check(config: Config, where: str) -> None:
    if not 1 <= config.server.port <= 65535:
        raise ConfigError(f"{where}: [server] port must be 1 to 65535, got {config.server.port}")
    if not 1 <= config.server.threads <= 512:
        raise ConfigError(f"{where}: [server] threads must be 1 to 512")
    pin = config.table.pin
    digits = config.table.pin_digits
    if not 4 <= digits <= 12:
        raise ConfigError(f"{where}: [table] pin_digits must be 4 to 12, got {digits}")
    if pin and not (pin.isascii() and pin.isdigit() and digits <= len(pin) <= 12):
        raise ConfigError(f"{where}: [table] pin must be {digits} to 12 digits in quotes, "
                          f"e.g. \"{'482135791357'[:digits]}\"")
    if not 0 < config.table.unlock_hours <= 24 * 365:
        raise ConfigError(f"{where}: [table] unlock_hours must be more than 0, e.g. 6")
    if config.cues.pin_factory not in ("auto", "mock", "pi"):
        raise ConfigError(f"{where}: [cues] pin_factory must be \"auto\", \"mock\" or \"pi\"")
    if not config.cues.seat_leds:
        raise ConfigError(f"{where}: [cues] seat_leds needs at least one pin")
    table = config.camera.table
    if not table or any(c in table for c in "/\\") or table.startswith("."):
        raise ConfigError(f"{where}: [camera] table must be a plain name such as \"kitchen\", "
                          f"got {table!r}")
    if not 1 <= config.camera.drift_every <= 100_000:
        raise ConfigError(f"{where}: [camera] drift_every must be 1 to 100000 frames")
    if config.camera.detector not in ("network", "edges"):
        raise ConfigError(f"{where}: [camera] detector must be \"network\" or \"edges\", "
                          f"got {config.camera.detector!r}")
    if ":" not in config.camera.reader:
        raise ConfigError(f"{where}: [camera] reader must look like \"package.module:function\"")


# -- writing settings (the phones' first-run and settings pages) ------------------------------

def save_settings(path: str | os.PathLike[str], changes: Mapping[str, Mapping[str, Any]]) -> Config:
    """Write ``changes`` ({section: {setting: value}}) into the TOML file at ``path``, keeping
    every other setting in it (its comments are not kept). The whole result is checked like a
    file read at start before anything is written, and the file is replaced in one step (a
    temporary file beside it, then a rename), so a wrong value or a power cut never leaves a
    broken file. A new file is readable by its owner only (it holds the PIN)."""
    path = Path(path)
    raw: dict[str, Any] = {}
    if path.is_file():
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read the settings in {path} to change them: {exc}") from None
    for section, values in changes.items():
        table = raw.setdefault(section, {})
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [{section}] must be a table of settings")
        table.update(values)
    config = parse_config(raw, path)
    text = dump_toml(raw)
    if tomllib.loads(text) != raw:  # what is written must read back as given
        raise ConfigError(f"the settings for {path} cannot be written as TOML")
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ConfigError(f"cannot save the settings to {path}: {exc.strerror}; the user "
                          "running ducktable needs to be allowed to write it") from None
    return config


def dump_toml(raw: Mapping[str, Any]) -> str:
    """Settings (sections of scalars, lists and one level of sub-tables) as TOML text."""
    lines: list[str] = []
    for section, table in raw.items():
        if not isinstance(table, Mapping):
            raise ConfigError(f"[{section}] must be a table of settings")
        lines.append(f"[{section}]")
        nested = {k: v for k, v in table.items() if isinstance(v, Mapping)}
        for key, value in table.items():
            if key not in nested:
                lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
        for key, sub in nested.items():
            lines.append("")
            lines.append(f"[{section}.{_toml_key(key)}]")
            lines.extend(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in sub.items())
        lines.append("")
    return "\n".join(lines)


def _toml_key(key: str) -> str:
    return key if key and all(c.isalnum() or c in "_-" for c in key) else _toml_string(key)


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c >= " " and c != "\x7f" else f"\\u{ord(c):04x}" for c in escaped) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(f"a setting must be a finite number, got {value!r}")
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise ConfigError(f"a setting cannot be {value!r}")
