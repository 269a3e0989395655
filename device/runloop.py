"""The one process of the appliance: events in, match log, scoreboard and cues out.

Why this module exists: on the Pi a single process (``ducktable run``, managed by systemd)
reads the camera, referees, records, serves the phones and drives the lights; ``ducktable
demo`` is the same process with bots at a synthetic table instead of a camera. Everything
that produces events is an *event producer*: an object with ``name`` and ``run(table)`` that
reports events through a :class:`TableLink` until ``table.stop`` is set. The camera loop is
one (:class:`CameraProducer`: frames -> a table reader -> events), the demo's bots another;
the phone's manual entry goes through the web app to the same store.

Threads: one per producer, one watching the store for cue changes, the web server's event loop
(live streams) and its pool of workers (pages), the live hub (web/live.py).
SIGTERM or SIGINT sets one stop event; then producers finish, live streams end, the server,
the cues and finally the store close, in that order.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import signal
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any, Protocol

from ducktable.rules.core import Event, State, Verdict

from .store import MatchInfo, MatchStore, StoreError

log = logging.getLogger(__name__)

JOIN_TIMEOUT_S = 5.0
CUE_WAIT_S = 0.25


class TableLink:
    """What an event producer may do: find the match being played, read it, report events.

    A refused event is returned with its verdict (nothing is recorded) and, when it came from
    the camera or a button, flashes the "illegal move" cue.
    """

    def __init__(self, store: MatchStore, stop: threading.Event, cues: Any = None) -> None:
        self.store = store
        self.stop = stop
        self.cues = cues

    def current_match(self) -> MatchInfo | None:
        """The newest match while it is unfinished, else None (the camera has nothing to report
        to: an older match left unfinished is not the one on the table)."""
        newest = self.store.newest_match()
        return newest if newest is not None and not newest.finished else None

    def state(self, match_id: int) -> State:
        return self.store.state(match_id)

    def correct(self, match_id: int, index: int, event: Event, reason: str) -> Verdict:
        """Replace event ``index`` of the match (the store checks that the whole log still
        replays and keeps the old event in the audit trail)."""
        try:
            return self.store.correct(match_id, index, event, reason)
        except StoreError as exc:
            return Verdict.illegal(str(exc))

    def submit(self, event: Event, match_id: int | None = None) -> Verdict:
        if match_id is None:
            info = self.current_match()
            if info is None:
                return Verdict.illegal("no match is being played; start one on the setup page")
            match_id = info.id
        try:
            verdict = self.store.submit(match_id, event)
        except StoreError as exc:
            return Verdict.illegal(str(exc))
        if not verdict.ok and event.source in ("camera", "button") and self.cues is not None:
            self.cues.illegal()
        return verdict


class EventProducer(Protocol):
    """Anything that reports table events: the camera loop, the demo's bots, a test feeder."""

    name: str

    def run(self, table: TableLink) -> None:
        """Report events through ``table`` until ``table.stop`` is set (or nothing is left)."""


class TableReader(Protocol):
    """Turns one camera frame into the events it shows, given the current position.

    Built by the vision/table-reading side (``[camera] reader`` in the configuration names
    the factory): frame -> read_table -> snapshot -> stability -> inferred events. A reader
    may also keep ``pending`` (an event it is unsure of, with ``event`` and ``why``) and
    ``problem`` (a sentence: why it cannot read, what to do) after each call, take a
    person's ``reject(event)`` (the camera loop passes those to and from the phones through
    :class:`CameraStatus`), be told ``new_match()`` when another match is played, and hand over
    ``take_mends()``: earlier camera events it mended itself (each with ``index``, ``mended``,
    ``was``, ``now``), recorded as corrections before the frame's events.
    """

    def events(self, state: State, frame: Any) -> Sequence[Event]: ...


@dataclass(frozen=True)
class CameraNotice:
    """An event the camera is unsure of, put to the phones: "camera unsure - is this it?".

    ``position`` is how many events the match had when it was asked: a confirmation is only
    good while the match is still there."""

    id: int
    match_id: int
    position: int
    event: Event
    why: str
    mends: tuple[Any, ...] = ()
    """When the rules refuse ``event`` because of a card the camera recorded earlier: the ways to
    mend that event (rules.misread.Mend: ``index``, ``was``, ``now``, ``mended``), one tap each."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "match_id": self.match_id, "position": self.position,
                "event": self.event.to_json(), "why": self.why,
                "mends": [mend.to_json() for mend in self.mends]}


class CameraStatus:
    """What the camera wants the phones to know, shared by the camera thread and the web app
    (``CAMERA`` in its configuration): a problem to show on the scoreboard and the event it
    waits for a person to confirm or reject. Thread-safe; ``version`` grows on every change
    so live scoreboards know when to redraw."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._problem: str | None = None
        self._notice: CameraNotice | None = None
        self._seen: tuple[int, tuple[tuple[str, tuple[str, ...]], ...]] | None = None
        self._version = 0
        self.on_change: Callable[[], None] | None = None
        """Called (outside the lock) after every change, so live scoreboards redraw at once
        rather than at their next look."""
        self._next_id = 1
        self._rejected: list[Event] = []
        self._answered: set[tuple[int, int, str]] = set()  # (match, position, event) said no to

    @staticmethod
    def _key(match_id: int, position: int, event: Event) -> tuple[int, int, str]:
        return match_id, position, event.content_key()

    def report(self, match_id: int | None, position: int, pending: Any, problem: str | None,
               seen: Sequence[tuple[str, Sequence[str]]] = ()) -> None:
        """The camera thread's news after a frame: what it waits for (``pending``: anything
        with ``event`` and ``why``, or None), what stops it (``problem``) and the cards it sees
        that no recorded event explains yet (``seen``: zone and cards, as
        ``TableFollower.news``)."""
        shown = None if match_id is None or not seen else (
            match_id, tuple((zone, tuple(cards)) for zone, cards in seen))
        with self._lock:
            changed = problem != self._problem or shown != self._seen
            self._seen = shown
            self._problem = problem
            notice = self._notice
            if pending is None or match_id is None:
                changed |= notice is not None
                self._notice = None
            else:
                key = self._key(match_id, position, pending.event)
                self._answered = {k for k in self._answered if k[:2] == key[:2]}
                if key in self._answered:
                    changed |= notice is not None
                    self._notice = None
                elif notice is None or self._key(notice.match_id, notice.position, notice.event) != key:
                    self._notice = CameraNotice(self._next_id, match_id, position, pending.event,
                                                str(pending.why), tuple(getattr(pending, "mends", ())))
                    self._next_id += 1
                    changed = True
                elif notice.why != pending.why:
                    self._notice = CameraNotice(notice.id, match_id, position, pending.event,
                                                str(pending.why), tuple(getattr(pending, "mends", ())))
                    changed = True
            if changed:
                self._version += 1
        if changed:
            self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def set_problem(self, problem: str | None) -> None:
        with self._lock:
            changed = problem != self._problem
            if changed:
                self._problem = problem
                self._version += 1
        if changed:
            self._changed()

    @property
    def problem(self) -> str | None:
        with self._lock:
            return self._problem

    def notice(self, notice_id: int | None = None) -> CameraNotice | None:
        """The current notice (with ``notice_id``: only if it is still that one)."""
        with self._lock:
            notice = self._notice
        if notice is None or (notice_id is not None and notice.id != notice_id):
            return None
        return notice

    def answered(self, notice_id: int) -> CameraNotice | None:
        """A person settled the notice (confirmed it, or entered the right event): hide it."""
        return self._settle(notice_id, reject=False)

    def reject(self, notice_id: int) -> CameraNotice | None:
        """A person said the camera's guess is wrong: hide it and tell the camera."""
        return self._settle(notice_id, reject=True)

    def _settle(self, notice_id: int, *, reject: bool) -> CameraNotice | None:
        with self._lock:
            notice = self._notice
            if notice is None or notice.id != notice_id:
                return None
            self._answered.add(self._key(notice.match_id, notice.position, notice.event))
            if reject:
                self._rejected.append(notice.event)
            self._notice = None
            self._version += 1
        self._changed()
        return notice

    def take_rejections(self) -> list[Event]:
        """The events people rejected since the last call (for the camera thread)."""
        with self._lock:
            taken, self._rejected = self._rejected, []
            return taken

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            seen = None if self._seen is None else {
                "match_id": self._seen[0], "zones": [{"zone": z, "cards": list(c)} for z, c in self._seen[1]]}
            return {"version": self._version, "problem": self._problem,
                    "notice": None if self._notice is None else self._notice.to_json(), "seen": seen}


REOPEN_PAUSES_S = (2.0, 5.0, 10.0, 30.0)
"""Pauses before opening a lost or missing camera again (the last one repeats, for ever)."""
NO_MATCH_WAIT_S = 0.5
"""How often the camera looks for a match to follow while none is being played."""


class CameraProducer:
    """Frames from a camera source, read into events and reported for the current match.

    What the reader is unsure of and what stops it go to ``status`` for the phones; a frame
    the reader fails on is skipped with a log line (the camera keeps going). A camera that
    cannot be opened, or is lost for good by its source's own retries (a pulled cable), is
    opened again after :data:`REOPEN_PAUSES_S` for as long as ducktable runs, the scoreboard
    saying so meanwhile; a folder of pictures or a video file that simply ends is not."""

    name = "camera"

    def __init__(self, open_source: Callable[[], Any], reader: TableReader,
                 status: CameraStatus | None = None,
                 reopen_pauses_s: Sequence[float] = REOPEN_PAUSES_S) -> None:
        self.open_source = open_source
        self.reader = reader
        self.status = status
        self.reopen_pauses_s = tuple(reopen_pauses_s)
        self.failures = 0
        self.reopened = 0
        self._match_id: int | None = None

    def run(self, table: TableLink) -> None:
        tries = 0
        while not table.stop.is_set():
            problem: str | None
            try:
                source_cm = self.open_source()
            except OSError as exc:
                problem = f"the camera cannot be opened: {exc}"
            else:
                self._tell(None)  # opened: whatever was wrong before is over
                with source_cm as source:
                    if hasattr(source, "on_trouble"):
                        source.on_trouble = self._tell
                    problem, delivered = self._read_frames(table, source)
                if problem is None:
                    return  # stopped, or the pictures ran out (said so)
                tries = 0 if delivered else tries
            pause = self.reopen_pauses_s[min(tries, len(self.reopen_pauses_s) - 1)]
            tries += 1
            log.error("%s; trying again in %.0f s", problem, pause)
            self._tell(f"{problem}; trying again in {pause:.0f} s (check the camera and the "
                       "[camera] settings; enter events on the phone meanwhile)")
            if table.stop.wait(pause):
                return
            self.reopened += 1

    def _read_frames(self, table: TableLink, source: Any) -> tuple[str | None, bool]:
        """Read until stopped or the source ends: what went wrong (None when that is the end;
        otherwise the camera is opened again), and whether any picture came."""
        delivered = False
        while not table.stop.is_set():
            info = table.current_match()
            if info is None:  # nothing to follow: leave the pictures (a folder's) for later
                table.stop.wait(NO_MATCH_WAIT_S)
                continue
            frame = source.read()
            if frame is None:
                lost = getattr(source, "last_error", None)
                if lost:
                    return str(lost), delivered
                log.warning("the pictures have run out; camera reading ends")
                self._tell("the camera's pictures have run out (a folder or video file); "
                           "camera reading has stopped: enter events on the phone")
                return None, delivered
            if not delivered:
                delivered = True
                self._tell(None)  # whatever was wrong before, frames come again
            self._read(table, info, frame)
        return None, delivered

    def _read(self, table: TableLink, info: MatchInfo, frame: Any) -> None:
        if info.id != self._match_id:  # another match: what the reader knew is of no use
            self._match_id = info.id
            new_match = getattr(self.reader, "new_match", None)
            if callable(new_match):
                new_match()
        reject = getattr(self.reader, "reject", None)
        if self.status is not None and callable(reject):
            for event in self.status.take_rejections():
                reject(event)
        state = table.state(info.id)
        try:
            events = list(self.reader.events(state, frame))
        except Exception:  # a reader that fails on one frame must not stop the camera
            self.failures += 1
            log.exception("camera: skipped a frame the table reader failed on")
            return
        take_mends = getattr(self.reader, "take_mends", None)
        for mend in take_mends() if callable(take_mends) else ():
            verdict = table.correct(info.id, mend.index, mend.mended, f"the camera mended its own misread: "
                                    f"it read {mend.was}, and the table showed {mend.now} plainly since")
            log.info("camera mended event #%d (%s -> %s): %s", mend.index + 1, mend.was, mend.now, verdict)
        position = len(state.history)
        for event in events:
            verdict = table.submit(event, info.id)
            if verdict.ok:
                position += 1
            else:
                log.info("camera event refused: %s", verdict)
        if self.status is not None:
            self.status.report(info.id, position, getattr(self.reader, "pending", None),
                               getattr(self.reader, "problem", None), getattr(self.reader, "news", ()))

    def _tell(self, problem: str | None) -> None:
        if self.status is not None:
            self.status.set_problem(problem)


class CueWatcher:
    """Watches the match being played and turns its changes into cues (device/cues.py)."""

    name = "cue-watcher"

    def __init__(self, cues: Any) -> None:
        self.cues = cues

    def run(self, table: TableLink) -> None:
        from .cues import TableSignals, play, signals_between

        watched: int | None = None
        seq = -1
        before: TableSignals | None = None
        while not table.stop.is_set():
            try:
                info = table.current_match()
                if info is None:
                    table.stop.wait(CUE_WAIT_S)
                    continue
                if info.id != watched:
                    watched, seq, before = info.id, -1, None
                new_seq = table.store.wait_for_change(info.id, seq, CUE_WAIT_S)
                if new_seq == seq:
                    continue
                seq = new_seq
                state = table.state(info.id)
                after = TableSignals.of(state)
                new_events = state.history[-1:] if before is not None else []
                play(self.cues, signals_between(before, after, new_events))
                before = after
            except StoreError as exc:
                log.warning("cue watcher: %s", exc)
                table.stop.wait(1.0)


QUACK_EVENT_TYPES = ("quack", "pass")
"""Event types a seat's "Quack" button reports, first one the game declares (GREY-T3)."""


class ButtonActions:
    """The cue board's optional buttons: a seat's "Quack" reports that seat's pass."""

    def __init__(self, table: TableLink, board: Any) -> None:
        self.table = table
        self.board = board

    def attach(self) -> None:
        quack = getattr(self.board, "quack", None)
        if quack is not None:
            for seat, button in enumerate(quack):
                button.when_pressed = functools.partial(self.quack, seat)

    def quack(self, seat: int) -> Verdict:
        info = self.table.current_match()
        if info is None:
            return Verdict.illegal("no match is being played")
        game = self.table.state(info.id).game
        etype = next((t for t in QUACK_EVENT_TYPES if game.event_spec(t) is not None), None)
        if etype is None:
            if self.table.cues is not None:
                self.table.cues.illegal()
            return Verdict.illegal(f"{game.title} has no quack (pass) event")
        event = Event(etype, seat, {}, int(time.time() * 1000), "button")
        return self.table.submit(event, info.id)


class WebServer:
    """The web app served by uvicorn on its own event loop in a background thread, stoppable
    from outside. Live streams hold no thread (web/asgi.py); pages and entries run on a pool of
    ``threads`` worker threads. The socket is bound here, so a port in use is told at once."""

    def __init__(self, app: Any, host: str, port: int, threads: int = 48) -> None:
        import uvicorn
        from ducktable.web.asgi import TableApp

        self.app = app
        self._socket = _listening_socket(host, port)
        self.asgi = TableApp(app, workers=threads)
        config = uvicorn.Config(
            self.asgi, lifespan="off", log_config=None, log_level="warning", access_log=False,
            http=_timely_protocol(), limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=KEEP_ALIVE_S,
            timeout_graceful_shutdown=int(JOIN_TIMEOUT_S), server_header=False,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name="web", daemon=True)

    @property
    def port(self) -> int:
        return int(self._socket.getsockname()[1])

    @property
    def host(self) -> str:
        return str(self._socket.getsockname()[0])

    def start(self) -> None:
        self._thread.start()

    def _serve(self) -> None:
        try:
            asyncio.run(self._server.serve(sockets=[self._socket]))
        finally:
            self._socket.close()

    def stop(self) -> None:
        """End live streams (they watch STOP_EVENT), let running requests finish, then close
        every connection and the socket (idempotent)."""
        self.app.config["STOP_EVENT"].set()
        self.asgi.close()
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=2 * JOIN_TIMEOUT_S)
        else:
            self._socket.close()


MAX_CONNECTIONS = 900
"""Open connections beyond which new requests get a 503 (a Pi's usual limit is 1,024 files)."""

KEEP_ALIVE_S = 5
"""Seconds an idle kept-alive connection stays open between two requests."""


HEADER_TIMEOUT_S = 20.0
"""A new connection whose request has not fully arrived by then is closed (idle or trickling)."""


def _timely_protocol() -> type:
    """uvicorn's HTTP/1.1 protocol, closing a connection that sends no whole request within
    ``HEADER_TIMEOUT_S`` of opening: uvicorn times out only idle connections between requests,
    and every open socket costs a file (a Pi allows 1,024)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TimelyH11Protocol(H11Protocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._late = self.loop.call_later(HEADER_TIMEOUT_S, self._close_if_no_request)

        def _close_if_no_request(self) -> None:
            if self.cycle is None and not self.transport.is_closing():
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._late.cancel()
            super().connection_lost(exc)

    return TimelyH11Protocol


def _listening_socket(host: str, port: int) -> socket.socket:
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise OSError(f"cannot serve on {host}:{port} ({exc}); check the host address") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise OSError(
            f"cannot serve on {host}:{port} ({exc.strerror}); is another ducktable "
            "running? choose another port with --port"
        ) from None
    sock.set_inheritable(True)
    return sock


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent), or 127.0.0.1."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 1))
        return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def http_url(host: str, port: int) -> str:
    """``http://host:port/``, without the port when it is the web's own (80), so that a phone
    can be told plainly ``http://ducktable.local/``."""
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}/" if port == 80 else f"http://{host}:{port}/"


def public_url(host: str, port: int, configured: str = "") -> str:
    """The scoreboard address phones should open."""
    if configured:
        return configured
    return http_url(lan_address() if host in ("0.0.0.0", "::", "") else host, port)


class Appliance:
    """Producers + cue watcher + web server around one store, started and stopped together."""

    def __init__(
        self,
        store: MatchStore,
        web_config: dict[str, Any],
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        threads: int = 48,
        producers: Sequence[EventProducer] = (),
        cues: Any = None,
        public: str = "",
        camera: CameraStatus | None = None,
    ) -> None:
        from ducktable.web import create_app

        self.store = store
        self.stop_event = threading.Event()
        self.cues = cues
        self.table = TableLink(store, self.stop_event, cues)
        config = dict(web_config)
        config.update(STORE=store, CUES=cues, STOP_EVENT=self.stop_event, CAMERA=camera)
        self.camera = camera
        if camera is not None:
            camera.on_change = store.wake_waiters
        self.app = create_app(config)
        self.server = WebServer(self.app, host, port, threads)
        self.url = public_url(host, self.server.port, public)
        self.app.config["PUBLIC_URL"] = self.url
        self.local_url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{self.server.port}/"
        self.producers = list(producers)
        if cues is not None:
            self.producers.append(CueWatcher(cues))
        self._threads: list[threading.Thread] = []
        self._stopped = False

    @property
    def pin(self) -> str:
        from ducktable.web.auth import table_pin

        return table_pin(self.app).value

    def start(self) -> None:
        if self.cues is not None and getattr(self.cues, "board", None) is not None:
            ButtonActions(self.table, self.cues.board).attach()
        self.server.start()
        for producer in self.producers:
            thread = threading.Thread(
                target=self._run_producer, args=(producer,), name=producer.name, daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def _run_producer(self, producer: EventProducer) -> None:
        try:
            producer.run(self.table)
        except Exception:
            log.exception("the %s stopped with an error; the scoreboard keeps running",
                          producer.name)

    def stop(self) -> None:
        """Shut everything down in order (idempotent)."""
        if self._stopped:
            return
        self._stopped = True
        self.stop_event.set()
        for thread in self._threads:
            thread.join(timeout=JOIN_TIMEOUT_S)
        self.server.stop()
        if self.cues is not None:
            self.cues.close()
        self.store.close()

    def run_until_signal(self, on_started: Callable[[], None] | None = None) -> int:
        """Start, wait for SIGTERM/SIGINT, stop cleanly. Returns the exit status (0)."""
        received: list[int] = []

        def handler(signum: int, frame: FrameType | None) -> None:
            received.append(signum)
            self.stop_event.set()

        previous = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            self.start()
            if on_started is not None:
                on_started()
            while not self.stop_event.wait(0.5):
                pass
        finally:
            for signum, old in previous.items():
                signal.signal(signum, old)
            started = time.monotonic()
            self.stop()
            log.info("stopped in %.1f s", time.monotonic() - started)
        return 0
