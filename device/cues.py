"""Light and sound cues at the table: a LED per seat, a status LED, a buzzer, optional buttons.

Why this module exists: players should not have to look at a phone to know whose turn it is,
that the camera spotted an illegal move, that a round was scored, or that a Grey Duck race is
open and who won it. The hardware is a :class:`CueBoard`, composed from gpiozero devices the
way gpiozero's own boards are (``TrafficHat`` = lights + buzzer + button); every device goes
through one pin factory, so off a Raspberry Pi the same code runs on gpiozero's
``MockFactory``, and tests assert the recorded pin states and timings.

:class:`Cues` plays the patterns. Steady patterns (whose turn, race open) stay on; a transient
one (illegal move, round scored, race won) runs in the cue thread and then the steady display
comes back. ``snapshot()`` describes the lights as the web page's virtual LEDs show them.
:func:`signals_between` decides which patterns a change of the game calls for.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ducktable.rules.core import Event, State
from gpiozero import LED as GpioLED
from gpiozero import ButtonBoard, Buzzer, CompositeDevice, Device, LEDBoard
from gpiozero.exc import GPIOZeroError
from gpiozero.pins.mock import MockFactory

log = logging.getLogger(__name__)

PinSpec = int | str


@dataclass(frozen=True)
class Timing:
    """Seconds for each pattern (kept together so tests and the README can quote them)."""

    illegal_blink: float = 0.1  # status LED: 3 fast flashes
    illegal_flashes: int = 3
    illegal_beep: float = 0.1  # buzzer: 2 short beeps
    illegal_beeps: int = 2
    round_blink: float = 0.3  # every seat LED: 2 slow flashes together
    round_flashes: int = 2
    round_beep: float = 0.3  # buzzer: 1 beep
    race_blink: float = 0.25  # status LED blinks as long as the race is open
    won_blink: float = 0.1  # winner's seat LED: 4 fast flashes
    won_flashes: int = 4
    won_beep: float = 0.5  # buzzer: 1 long beep


TIMING = Timing()


class CueError(GPIOZeroError, ValueError):
    """The cue board cannot be built from the configured pins; the message says which."""


def is_raspberry_pi() -> bool:
    try:
        return "raspberry pi" in Path("/proc/device-tree/model").read_text(errors="ignore").lower()
    except OSError:
        return False


def choose_pin_factory(setting: str = "auto") -> Any:
    """The pin factory for ``setting``: "auto" (real pins on a Pi, mock elsewhere), "mock",
    or "pi" (gpiozero's default factory). None means gpiozero's default.
    """
    if setting == "mock":
        return MockFactory()
    if setting == "pi":
        return None
    if setting != "auto":
        raise CueError(f"pin_factory must be 'auto', 'mock' or 'pi', not {setting!r}")
    if os.environ.get("GPIOZERO_PIN_FACTORY") or is_raspberry_pi():
        return None
    return MockFactory()


class CueBoard(CompositeDevice):
    """The table's cue hardware: ``seats`` (LEDBoard), ``status`` (LED), ``buzzer``, and
    optionally ``quack`` (ButtonBoard, one per seat).
    """

    def __init__(
        self,
        seat_leds: Sequence[PinSpec],
        status_led: PinSpec,
        buzzer: PinSpec,
        *,
        quack_buttons: Sequence[PinSpec] = (),
        pin_factory: Any = None,
    ) -> None:
        if not seat_leds:
            raise CueError("the cue board needs at least one seat LED pin")
        made: list[Device] = []

        def make(factory: Callable[..., Device], *args: Any) -> Device:
            device = factory(*args, pin_factory=pin_factory)
            made.append(device)
            return device

        try:
            parts: dict[str, Device] = {
                "seats": make(LEDBoard, *seat_leds),
                "status": make(GpioLED, status_led),
                "buzzer": make(Buzzer, buzzer),
            }
            if quack_buttons:
                parts["quack"] = make(ButtonBoard, *quack_buttons)
        except (GPIOZeroError, ValueError, TypeError) as exc:
            for device in made:
                device.close()
            raise CueError(f"cannot set up the cue board's pins: {exc}") from None
        except ImportError as exc:  # the pin library GPIOZERO_PIN_FACTORY names is missing
            for device in made:
                device.close()
            raise CueError(
                f"cannot drive the pins: {exc} (GPIOZERO_PIN_FACTORY is "
                f"{os.environ.get('GPIOZERO_PIN_FACTORY') or 'unset'}); install that library "
                "(on a Pi: sudo apt install python3-lgpio, in a venv made with "
                "--system-site-packages)") from None
        super().__init__(_order=list(parts), pin_factory=pin_factory, **parts)

    @property
    def seat_count(self) -> int:
        return len(self.seats)


class Cues:
    """Plays cue patterns on a :class:`CueBoard` from one worker thread, in order.

    Calls never block the caller (the run loop); :meth:`wait_idle` lets tests wait for the
    queued patterns to finish. Closing stops the worker and closes the board (idempotent).
    """

    def __init__(self, board: CueBoard, timing: Timing = TIMING) -> None:
        self.board = board
        self.timing = timing
        self._turn: int | None = None
        self._race_open = False
        self._status_blinking = False
        self._pattern = "idle"
        self._transient: dict[str, Any] | None = None
        self._seq = 0
        self._lock = threading.Lock()
        self._queue: queue.Queue[tuple[str, Any] | None] = queue.Queue()
        self._closed = False
        self._worker = threading.Thread(target=self._work, name="cues", daemon=True)
        self._worker.start()

    # -- what the run loop calls ---------------------------------------------------------
    def whose_turn(self, seat: int | None) -> None:
        """Light the LED of the seat to move (none when nobody is to move)."""
        self._queue.put(("turn", seat))

    def illegal(self) -> None:
        """The camera saw a move the rules refuse: status LED flashes fast, two short beeps."""
        self._queue.put(("illegal", None))

    def round_scored(self) -> None:
        """A round (hand) was scored: every seat LED flashes twice, one beep."""
        self._queue.put(("round_scored", None))

    def race_open(self, is_open: bool) -> None:
        """A Grey Duck race is open (a grey card could still join the last play): the status
        LED blinks until it closes."""
        self._queue.put(("race", bool(is_open)))

    def race_won(self, seat: int) -> None:
        """Someone won a Grey Duck race: a long beep and the winner's LED flashes."""
        self._queue.put(("race_won", seat))

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until every queued pattern has played; False if ``timeout`` ran out first."""
        done = threading.Event()
        self._queue.put(("mark", done))
        return done.wait(timeout)

    def snapshot(self) -> dict[str, Any]:
        """The lights as the web page shows them: per-seat and status modes, the buzzer."""
        with self._lock:
            seats = ["on" if i == self._turn else "off" for i in range(self.board.seat_count)]
            status = "blink" if self._race_open else "off"
            buzzer = False
            pattern = self._pattern
            if self._transient is not None:
                seats = self._transient.get("seats", seats)
                status = self._transient.get("status", status)
                buzzer = self._transient.get("buzzer", False)
            return {
                "pattern": pattern,
                "seats": list(seats),
                "status": status,
                "buzzer": buzzer,
                "seq": self._seq,
            }

    def close(self) -> None:
        """Drop the patterns not yet played, stop the worker, close the board (idempotent)."""
        if self._closed:
            return
        self._closed = True
        with self._queue.mutex:
            for item in self._queue.queue:
                if item is not None and item[0] == "mark":
                    item[1].set()
            self._queue.queue.clear()
        self._queue.put(None)
        self._worker.join(timeout=5)
        self.board.close()

    # -- the worker ------------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            kind, arg = item
            if kind == "turn" and self._turn_queued():
                continue  # a later turn change is waiting: showing this one would only lag
            try:
                if kind == "mark":
                    arg.set()
                else:
                    getattr(self, f"_play_{kind}")(arg)
            except Exception:  # a broken LED must never stop the table
                log.exception("cue pattern %s failed", kind)

    def _turn_queued(self) -> bool:
        with self._queue.mutex:
            return any(item is not None and item[0] == "turn" for item in self._queue.queue)

    def _set(self, pattern: str, transient: dict[str, Any] | None = None) -> None:
        with self._lock:
            self._pattern = pattern
            self._transient = transient
            self._seq += 1

    def _steady(self) -> None:
        """Show the lasting state: the turn LED, and the status LED blinking during a race."""
        seats = self.board.seats
        for i, led in enumerate(seats):
            if i == self._turn:
                led.on()
            else:
                led.off()
        if self._race_open:
            if not self._status_blinking:
                self.board.status.blink(on_time=self.timing.race_blink, off_time=self.timing.race_blink)
                self._status_blinking = True
        else:
            self.board.status.off()
            self._status_blinking = False
        self.board.buzzer.off()
        self._set("race-open" if self._race_open else "whose-turn" if self._turn is not None
                  else "idle")

    def _play_turn(self, seat: int | None) -> None:
        self._turn = seat if seat is not None and 0 <= seat < self.board.seat_count else None
        self._steady()

    def _play_race(self, is_open: bool) -> None:
        if is_open != self._race_open:
            self._race_open = is_open
            self._steady()

    def _play_illegal(self, _: Any) -> None:
        t = self.timing
        seats = ["on" if i == self._turn else "off" for i in range(self.board.seat_count)]
        self._set("illegal", {"seats": seats, "status": "fast", "buzzer": True})
        self._status_blinking = False
        self.board.buzzer.beep(on_time=t.illegal_beep, off_time=t.illegal_beep, n=t.illegal_beeps,
                               background=True)
        self.board.status.blink(on_time=t.illegal_blink, off_time=t.illegal_blink,
                                n=t.illegal_flashes, background=False)
        self._steady()

    def _play_round_scored(self, _: Any) -> None:
        t = self.timing
        n = self.board.seat_count
        self._set("round-scored", {"seats": ["blink"] * n, "status": "off", "buzzer": True})
        self.board.status.off()
        self._status_blinking = False
        self.board.buzzer.beep(on_time=t.round_beep, off_time=t.round_beep, n=1, background=True)
        self.board.seats.blink(on_time=t.round_blink, off_time=t.round_blink, n=t.round_flashes,
                               background=False)
        self._steady()

    def _play_race_won(self, seat: int) -> None:
        t = self.timing
        n = self.board.seat_count
        if not 0 <= seat < n:
            return
        self._race_open = False
        modes = ["fast" if i == seat else "off" for i in range(n)]
        self._set("race-won", {"seats": modes, "status": "off", "buzzer": True})
        self.board.status.off()
        self._status_blinking = False
        for i, led in enumerate(self.board.seats):
            if i != seat:
                led.off()
        self.board.buzzer.beep(on_time=t.won_beep, off_time=t.won_beep, n=1, background=True)
        self.board.seats[seat].blink(on_time=t.won_blink, off_time=t.won_blink, n=t.won_flashes,
                                     background=False)
        self._steady()


# --------------------------------------------------------------------------------------------
# From game changes to cues
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableSignals:
    """The few facts of a position that cues react to."""

    to_move: int | None
    scores: tuple[int, ...]
    race_open: bool
    event_count: int

    @classmethod
    def of(cls, state: State) -> TableSignals:
        window = getattr(state, "race_window", None)
        try:
            race = bool(window()) if callable(window) else False
        except Exception:  # an engine's helper failing must not silence the other cues
            log.exception("race_window() failed")
            race = False
        return cls(
            state.to_move(),
            tuple(int(s) for s in state.scores()),
            race,
            len(state.history),
        )


@dataclass(frozen=True)
class Signal:
    kind: str  # "turn", "round_scored", "race", "race_won"
    value: Any = None


def signals_between(
    before: TableSignals | None, after: TableSignals, new_events: Sequence[Event] = ()
) -> list[Signal]:
    """The cues a change from ``before`` to ``after`` calls for, in the order to play them.

    A race is won when a race was open and the next event is a ``grey`` card or came from a
    seat other than the one whose turn it was (only a grey may be played out of turn, GREY-G1).
    """
    out: list[Signal] = []
    if before is None:
        return [Signal("race", after.race_open), Signal("turn", after.to_move)]
    grew = after.event_count == before.event_count + 1 and len(new_events) == 1
    if before.race_open and grew:
        seat = new_events[0].seat
        if seat is not None and (new_events[0].type == "grey" or seat != before.to_move):
            out.append(Signal("race_won", seat))
    if after.scores != before.scores and after.event_count > before.event_count:
        out.append(Signal("round_scored"))
    if after.race_open != before.race_open:
        out.append(Signal("race", after.race_open))
    out.append(Signal("turn", after.to_move))
    return out


def play(cues: Cues, signals: Sequence[Signal]) -> None:
    for signal in signals:
        if signal.kind == "turn":
            cues.whose_turn(signal.value)
        elif signal.kind == "round_scored":
            cues.round_scored()
        elif signal.kind == "race":
            cues.race_open(signal.value)
        elif signal.kind == "race_won":
            cues.race_won(signal.value)
