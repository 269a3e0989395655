"""The table PIN: reading is open to the local network, every change needs the PIN.

A phone unlocks once (the PIN typed into any change form, or on the unlock page) and stays
unlocked for its session, at most ``UNLOCK_MAX_AGE_S`` (a setting). The session keeps a keyed
fingerprint of the PIN, not the PIN, so choosing a new PIN at setup locks every phone again.
Wrong guesses are slowed down per address and, since a phone can change its address, for the
whole table too: a four-digit PIN cannot be tried through in an evening, and a longer PIN
(``PIN_DIGITS``, up to 12) can be required.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import logging
import os
import re
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

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
from werkzeug.wrappers import Response

log = logging.getLogger(__name__)
bp = Blueprint("auth", __name__)

PIN_DIGITS = (4, 12)
MAX_FAILURES = 5
LOCKOUT_S = 30.0
GLOBAL_MAX_FAILURES = 10
"""Wrong PINs from all addresses together within ``GLOBAL_WINDOW_S`` before every guess waits:
at most 40 guesses an hour, so a 4-digit PIN takes days on average, a 6-digit one years."""
GLOBAL_WINDOW_S = 900.0
UNLOCK_MAX_AGE_S = 6 * 3600
"""How long an unlocked phone stays unlocked (an evening's play); then it asks again."""
_EXT = "ducktable.pin"
_SESSION_KEY = "pin_fp"
_SESSION_SINCE = "pin_since"

F = TypeVar("F", bound=Callable[..., Any])


class PinError(ValueError):
    """A PIN that does not have the required form; the message says what is allowed."""


def check_pin_format(pin: str, min_digits: int = PIN_DIGITS[0]) -> str:
    pin = pin.strip()
    low, high = max(PIN_DIGITS[0], min_digits), PIN_DIGITS[1]
    if not (pin.isascii() and pin.isdigit() and low <= len(pin) <= high):
        example = "482135791"[:low] if low <= 9 else "4821357913"
        raise PinError(f"A table PIN is {low} to {high} digits (0-9), e.g. {example}.")
    return pin


class TablePin:
    """The current PIN, kept in a file (when given) so that it survives restarts.

    Which PIN: one chosen on the setup page > the configured one > a random one chosen on
    first start. The file says which of these it holds (``4821 setup`` / ``4821 random``), so
    a PIN written into the settings later still replaces a random one.
    """

    def __init__(self, initial: str | None, path: str | os.PathLike[str] | None,
                 digits: int = PIN_DIGITS[0]) -> None:
        self._lock = threading.Lock()
        self.digits = digits
        """The fewest digits a PIN may have (the length of a random one)."""
        self.path = Path(path) if path else None
        stored, origin = self._read_file()
        self.origin = origin
        """Where the PIN came from: "setup" (chosen on a phone), "config" or "random"."""
        if stored is not None and (origin == "setup" or not initial):
            self._pin = stored
        elif initial:
            self._pin = check_pin_format(str(initial))
            self.origin = "config"
        else:
            self.origin = "random"
            self._pin = f"{secrets.randbelow(10 ** digits):0{digits}d}"
            log.warning("no table PIN configured; chose %s (change it on the setup page)",
                        self._pin)
            try:
                self._write(self._pin, "random")  # a restart must not lock every phone out
            except OSError as exc:
                log.warning("the chosen PIN could not be saved (%s); it lasts until a restart",
                            exc)

    @property
    def value(self) -> str:
        return self._pin

    def set(self, pin: str) -> None:
        """Replace the PIN (from the setup page); kept across restarts."""
        pin = check_pin_format(pin, self.digits)
        with self._lock:
            self._write(pin, "setup")
            self._pin = pin
            self.origin = "setup"

    @property
    def chosen(self) -> bool:
        """Whether a person chose this PIN (in the settings or on a phone), not the device."""
        return self.origin != "random"

    def _write(self, pin: str, origin: str) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(f"{pin} {origin}\n")

    def matches(self, candidate: str) -> bool:
        return hmac.compare_digest(candidate.strip().encode(), self._pin.encode())

    def fingerprint(self, secret: str) -> str:
        return hmac.new(secret.encode(), self._pin.encode(), hashlib.sha256).hexdigest()

    def _read_file(self) -> tuple[str | None, str]:
        if self.path is None:
            return None, ""
        try:
            pin, _, origin = self.path.read_text(encoding="ascii").strip().partition(" ")
            pin = check_pin_format(pin)
            if origin == "random" and len(pin) < self.digits:
                return None, ""  # a longer PIN is now asked for: choose a new random one
            return pin, origin or "setup"
        except (OSError, UnicodeDecodeError, PinError):
            return None, ""


class Guard:
    """Counts wrong PINs per client address and for all addresses together, and refuses
    guesses for a while after too many."""

    def __init__(self, max_failures: int = MAX_FAILURES, lockout_s: float = LOCKOUT_S,
                 global_max: int = GLOBAL_MAX_FAILURES,
                 global_window_s: float = GLOBAL_WINDOW_S) -> None:
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self.global_max = global_max
        self.global_window_s = global_window_s
        self._failures: dict[str, tuple[int, float]] = {}
        self._recent: list[float] = []  # times of the wrong PINs from anyone, oldest first
        self._lock = threading.Lock()

    def table_wait_left(self) -> float:
        """Seconds until any guess is judged again, when too many wrong PINs came lately."""
        with self._lock:
            now = time.monotonic()
            self._recent = [t for t in self._recent if now - t < self.global_window_s]
            if len(self._recent) < self.global_max:
                return 0.0
            return self.global_window_s - (now - self._recent[-self.global_max])

    def wait_left(self, who: str) -> float:
        with self._lock:
            count, since = self._failures.get(who, (0, 0.0))
            if count < self.max_failures:
                return 0.0
            left = self.lockout_s - (time.monotonic() - since)
            if left <= 0:
                del self._failures[who]
                return 0.0
            return left

    def failed(self, who: str) -> None:
        with self._lock:
            count, _ = self._failures.get(who, (0, 0.0))
            self._failures[who] = (count + 1, time.monotonic())
            self._recent.append(time.monotonic())
            if len(self._failures) > 10_000:  # addresses are free to make up: forget old ones
                oldest = sorted(self._failures, key=lambda k: self._failures[k][1])
                for key in oldest[:5_000]:
                    del self._failures[key]

    def succeeded(self, who: str) -> None:
        with self._lock:
            self._failures.pop(who, None)


def init_app(app: Flask) -> None:
    app.config.setdefault("PIN_DIGITS", PIN_DIGITS[0])
    app.config.setdefault("UNLOCK_MAX_AGE_S", UNLOCK_MAX_AGE_S)
    app.extensions[_EXT] = TablePin(app.config["TABLE_PIN"], app.config["PIN_FILE"],
                                    int(app.config["PIN_DIGITS"]))
    app.extensions[_EXT + ".guard"] = Guard()
    app.jinja_env.globals["is_unlocked"] = is_unlocked


def table_pin(app: Flask | None = None) -> TablePin:
    return (app or current_app).extensions[_EXT]


def is_unlocked() -> bool:
    fp = session.get(_SESSION_KEY)
    expected = table_pin().fingerprint(current_app.config["SECRET_KEY"])
    if not (isinstance(fp, str) and hmac.compare_digest(fp, expected)):
        return False
    since = session.get(_SESSION_SINCE)
    age = time.time() - since if isinstance(since, int | float) else float("inf")
    if not 0 <= age <= float(current_app.config["UNLOCK_MAX_AGE_S"]):
        lock()  # unlocked too long ago (or before this rule): ask for the PIN again
        return False
    return True


def try_unlock(candidate: object) -> str | None:
    """Unlock this session with ``candidate``; returns the problem, or None on success."""
    guard: Guard = current_app.extensions[_EXT + ".guard"]
    who = request.remote_addr or "?"
    wait = guard.wait_left(who)
    if wait > 0:
        return f"Too many wrong PINs from this phone. Wait {int(wait) + 1} seconds and try again."
    wait = guard.table_wait_left()
    if wait > 0:
        return (f"Too many wrong PINs on this table lately (someone may be guessing). Wait "
                f"{int(wait) + 1} seconds and try again; phones already unlocked still work.")
    if not isinstance(candidate, str) or not candidate.strip():
        return "This change needs the table PIN (shown on the device's console)."
    if not table_pin().matches(candidate):
        guard.failed(who)
        return "That PIN is not the table PIN. Look at the device's console and try again."
    guard.succeeded(who)
    session[_SESSION_KEY] = table_pin().fingerprint(current_app.config["SECRET_KEY"])
    session[_SESSION_SINCE] = int(time.time())
    return None


def lock() -> None:
    session.pop(_SESSION_KEY, None)
    session.pop(_SESSION_SINCE, None)


def pin_required(view: F) -> F:
    """Let the view run only for an unlocked session or a request carrying the right PIN."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not is_unlocked():
            problem = try_unlock(request.form.get("pin"))
            if problem is not None:
                status = 429 if problem.startswith("Too many") else 403
                if request.method == "GET":  # a page that needs the PIN to look: back to it
                    query = request.query_string.decode("latin-1")
                    back = request.path + (f"?{query}" if query else "")
                else:
                    back = _local_path(request.referrer) or url_for("scoreboard.home")
                return render_template("unlock.html", problem=problem, next=back,
                                       carry=_carried_form(), resubmit=request.path), status
        return view(*args, **kwargs)

    return wrapped  # type: ignore[return-value]


def _carried_form() -> list[tuple[str, str]] | None:
    """The refused form's fields, to send again with the PIN (what was typed is not lost);
    None when there is nothing to carry (no form, or a file chosen, which cannot be)."""
    if request.method != "POST" or not request.form \
            or any(f.filename for f in request.files.values()):
        return None
    return [(k, v) for k, v in request.form.items(multi=True) if k not in ("pin", "csrf_token")]


_SAME_SITE = re.compile(r"/(?:[A-Za-z0-9_\-][A-Za-z0-9_\-./]*)?(?:\?[A-Za-z0-9_\-.=&%+]*)?")


def safe_next(nxt: str | None) -> str | None:
    """``nxt`` when it is a plain path of this site, else None.

    Browsers drop tabs and newlines from a URL and read a backslash as a slash, so
    ``/\t/evil.example`` or ``/\\evil.example`` would leave the site; only letters, digits
    and ``_-./`` are let through in the path (and a plain query), starting with one slash."""
    if not nxt or not _SAME_SITE.fullmatch(nxt) or nxt.startswith("//"):
        return None
    return nxt


def _local_path(url: str | None) -> str | None:
    """The path of ``url`` when it points at this site (where to go back after unlocking)."""
    if not url or not url.startswith(request.host_url):
        return None
    parts = urlsplit(url)
    return safe_next(parts.path + (f"?{parts.query}" if parts.query else ""))


@bp.route("/unlock", methods=["GET", "POST"])
def unlock() -> Any:
    nxt = safe_next(request.values.get("next", "")) or url_for("scoreboard.home")
    if request.method == "GET":
        return render_template("unlock.html", problem=None, next=nxt)
    problem = try_unlock(request.form.get("pin"))
    if problem is not None:
        status = 429 if problem.startswith("Too many") else 403
        return render_template("unlock.html", problem=problem, next=nxt), status
    flash("Unlocked: this phone may now change the game.", "ok")
    return redirect(nxt, code=303)


@bp.post("/lock")
def relock() -> Response:
    lock()
    flash("Locked: changes need the PIN again.", "ok")
    return redirect(url_for("scoreboard.home"), code=303)
