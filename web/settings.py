"""First run and settings on the phone: the table set up without a keyboard on the Pi.

Why this module exists: a family with a headless Pi has no console to read a PIN from and no
editor for the settings file. Until someone chooses a PIN, the home page leads the first phone
to a welcome page where the PIN, the table's name, the camera and the cue pins are chosen;
afterwards the same form is the Settings page, behind the PIN. Everything is written into the
TOML settings file (device/config.py ``save_settings``: checked first, replaced in one step);
the PIN takes effect at once, the camera and pins at the next start. The PIN on the console
stays valid until a new one is chosen, as a fallback.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ducktable.device.config import FILE_NAME, Config, ConfigError, load_config, save_settings
from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from .auth import PinError, check_pin_format, is_unlocked, table_pin, try_unlock

bp = Blueprint("settings", __name__)

_SKIPPED = "welcome_skipped"


def init_app(app: Flask) -> None:
    if not app.config.get("CONFIG_FILE"):
        app.config["CONFIG_FILE"] = str(Path(app.instance_path) / FILE_NAME)
    app.config.setdefault("TABLE_NAME", "")
    app.register_blueprint(bp)
    app.jinja_env.globals["first_run"] = first_run
    app.jinja_env.globals["table_name"] = lambda: current_app.config.get("TABLE_NAME") or ""
    app.before_request(_welcome_first)


def first_run() -> bool:
    """No person has chosen the table's PIN yet (the device chose one at random)."""
    return not table_pin().chosen


def _welcome_first() -> Any:
    """The home page leads to the welcome page while nobody has chosen a PIN."""
    if (request.method == "GET" and request.endpoint == "scoreboard.home" and first_run()
            and not session.get(_SKIPPED)):
        return redirect(url_for("settings.welcome"), code=303)
    return None


def _config_file() -> Path | None:
    given = current_app.config.get("CONFIG_FILE")
    return Path(given) if given else None


def _current() -> Config:
    path = _config_file()
    try:
        return load_config(path if path is not None and path.is_file() else None)
    except ConfigError:
        return Config()


class SettingsError(ValueError):
    """A settings form that cannot be saved; the message says what to change."""


def _pins(raw: str, what: str, *, many: bool) -> Any:
    items = [t for t in raw.replace(",", " ").split() if t]
    if not many and len(items) != 1:
        raise SettingsError(f"{what}: give one GPIO pin number, e.g. 21.")
    pins: list[int] = []
    for item in items:
        if not item.isdigit() or not 0 <= int(item) <= 27:
            raise SettingsError(f"{what}: {item!r} is not a GPIO pin; use numbers 0 to 27, "
                                "e.g. 5, 6, 13.")
        pins.append(int(item))
    return pins if many else pins[0]


def read_form(form: Mapping[str, str], *, need_pin: bool, digits: int) -> tuple[str, dict[str, Any]]:
    """(new PIN or "", {section: {setting: value}}) from the settings form."""
    pin = (form.get("new_pin") or "").strip()
    again = (form.get("new_pin_again") or "").strip()
    if pin or need_pin:
        try:
            pin = check_pin_format(pin, digits)
        except PinError as exc:
            raise SettingsError(str(exc)) from None
        if pin != again:
            raise SettingsError("The two PINs differ; type the same PIN in both boxes.")
    name = (form.get("name") or "").strip()
    if len(name) > 40:
        raise SettingsError("The table's name is at most 40 letters.")
    seat_leds = _pins(form.get("seat_leds", ""), "Seat lights", many=True)
    if not seat_leds:
        raise SettingsError("Seat lights: give at least one GPIO pin, e.g. 5, 6, 13.")
    changes: dict[str, dict[str, Any]] = {
        "table": {"name": name},
        "camera": {"enabled": form.get("camera") == "on"},
        "cues": {
            "enabled": form.get("cues") == "on",
            "seat_leds": seat_leds,
            "status_led": _pins(form.get("status_led", ""), "Status light", many=False),
            "buzzer": _pins(form.get("buzzer", ""), "Buzzer", many=False),
            "quack_buttons": _pins(form.get("quack_buttons", ""), "Quack buttons", many=True),
        },
    }
    if pin:
        changes["table"]["pin"] = pin
    return pin, changes


def _save(form: Mapping[str, str], *, need_pin: bool) -> str | None:
    """Save the form; the problem in one line, or None when saved."""
    try:
        pin, changes = read_form(form, need_pin=need_pin, digits=table_pin().digits)
    except SettingsError as exc:
        return str(exc)
    path = _config_file()
    assert path is not None  # init_app gives one
    try:
        save_settings(path, changes)
    except ConfigError as exc:
        return str(exc)
    if pin:
        try:
            table_pin().set(pin)
        except OSError as exc:
            return f"The settings are saved, but the PIN could not be kept: {exc.strerror}."
        try_unlock(pin)  # whoever chose it may change the game from this phone
    current_app.config["TABLE_NAME"] = changes["table"]["name"]
    return None


def _page(template: str, form: Mapping[str, str] | None, problem: str | None, status: int) -> Any:
    config = _current()
    shown = dict(form) if form is not None else {
        "name": config.table.name or current_app.config.get("TABLE_NAME") or "",
        "camera": "on" if config.camera.enabled else "",
        "cues": "on" if config.cues.enabled else "",
        "seat_leds": ", ".join(map(str, config.cues.seat_leds)),
        "status_led": str(config.cues.status_led),
        "buzzer": str(config.cues.buzzer),
        "quack_buttons": ", ".join(map(str, config.cues.quack_buttons)),
    }
    return render_template(template, form=shown, problem=problem, digits=table_pin().digits,
                           config_file=_config_file()), status


@bp.route("/welcome", methods=["GET", "POST"])
def welcome() -> Any:
    """The first phone chooses the PIN and settings; open only while no PIN was chosen."""
    if not first_run():
        return redirect(url_for("settings.edit"), code=303)
    if request.method == "GET":
        if request.args.get("skip"):
            session[_SKIPPED] = True
            return redirect(url_for("scoreboard.home"), code=303)
        return _page("welcome.html", None, None, 200)
    problem = _save(request.form, need_pin=True)
    if problem is not None:
        return _page("welcome.html", request.form, problem, 400)
    flash("Saved. This phone is unlocked; others unlock with the new PIN. The camera and "
          "light settings take effect when the table restarts.", "ok")
    return redirect(url_for("scoreboard.home"), code=303)


@bp.route("/settings", methods=["GET", "POST"])
def edit() -> Any:
    """The same settings later, for a phone unlocked with the PIN."""
    if not is_unlocked():
        if request.method == "POST":
            problem = try_unlock(request.form.get("pin"))
            if problem is not None:
                return render_template("unlock.html", problem=problem,
                                       next=url_for("settings.edit")), 403
        else:
            return redirect(url_for("auth.unlock", next=url_for("settings.edit")), code=303)
    if request.method == "GET":
        return _page("settings.html", None, None, 200)
    problem = _save(request.form, need_pin=False)
    if problem is not None:
        return _page("settings.html", request.form, problem, 400)
    flash("Settings saved. The camera and light settings take effect when the table restarts.",
          "ok")
    return redirect(url_for("settings.edit"), code=303)
