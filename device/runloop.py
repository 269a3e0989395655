"""The one process of the appliance: events in, match log, scoreboard and cues out.

Why this module exists: on the Pi a single process (``ducktable run``, managed by systemd)
reads the camera, referees, records, serves the phones and drives the lights; ``ducktable
demo`` is the same process with bots at a synthetic table instead of a camera. Everything
that produces events is an *event producer*: an object with ``name`` and ``run(table)`` that
reports events through a :class:`TableLink` until ``table.stop`` is set. The camera loop is
one (:class:`CameraProducer`: frames -> a table reader -> events), the demo's bots another;
the phone's manual entry goes through the web app to the same store.

Threads: one per producer, one watching the store for cue changes, the WSGI server's pool.
SIGTERM or SIGINT sets one stop event; then producers finish, live streams end, the server,
the cues and finally the store close, in that order.
"""

from __future__ import annotations

import functools
import logging
import signal
import socket
import threading
import time
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any, Protocol

from ducktable.rules.core import Event, State, Verdict
from waitress import wasyncore
from waitress.server import create_server

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
        """The newest unfinished match, else None (the camera has nothing to report to)."""
        for info in self.store.list_matches():
            if not info.finished:
                return info
        return None

    def state(self, match_id: int) -> State:
        return self.store.state(match_id)

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
    the factory): frame -> read_table -> snapshot -> stability -> inferred events.
    """

    def events(self, state: State, frame: Any) -> Sequence[Event]: ...


class CameraProducer:
    """Frames from a camera source, read into events and reported for the current match."""

    name = "camera"

    def __init__(self, open_source: Callable[[], Any], reader: TableReader) -> None:
        self.open_source = open_source
        self.reader = reader

    def run(self, table: TableLink) -> None:
        with self.open_source() as source:
            while not table.stop.is_set():
                frame = source.read()
                if frame is None:
                    log.warning("the camera stopped delivering frames; camera reading ends")
                    return
                info = table.current_match()
                if info is None:
                    continue
                state = table.state(info.id)
                for event in self.reader.events(state, frame):
                    verdict = table.submit(event, info.id)
                    if not verdict.ok:
                        log.info("camera event refused: %s", verdict)


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
    """The cue board's optional buttons: a seat's "Quack" reports that seat's pass; "score
    now" asks every producer that can (``score_now()``) to read the table at once.
    """

    def __init__(self, table: TableLink, board: Any, producers: Sequence[Any]) -> None:
        self.table = table
        self.board = board
        self.producers = producers

    def attach(self) -> None:
        quack = getattr(self.board, "quack", None)
        if quack is not None:
            for seat, button in enumerate(quack):
                button.when_pressed = functools.partial(self.quack, seat)
        score = getattr(self.board, "score_now", None)
        if score is not None:
            score.when_pressed = self.score_now

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

    def score_now(self) -> None:
        for producer in self.producers:
            action = getattr(producer, "score_now", None)
            if callable(action):
                action()


class WebServer:
    """The WSGI app served by waitress in a background thread, stoppable from outside."""

    def __init__(self, app: Any, host: str, port: int, threads: int = 48) -> None:
        self.app = app
        try:
            self._server = create_server(
                app, host=host, port=port, threads=threads, ident="ducktable",
                channel_timeout=60, connection_limit=max(100, threads * 2),
            )
        except OSError as exc:
            raise OSError(
                f"cannot serve on {host}:{port} ({exc.strerror}); is another ducktable "
                "running? choose another port with --port"
            ) from None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="web", daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.effective_port)

    @property
    def host(self) -> str:
        return str(self._server.effective_host)

    def start(self) -> None:
        self._thread.start()

    def _serve(self) -> None:
        """waitress's own loop, one poll at a time so that stop() can end it between polls;
        the sockets are closed here, by the thread that polls them."""
        adj = self._server.adj
        try:
            while not self._stopping.is_set():
                wasyncore.loop(timeout=adj.asyncore_loop_timeout, map=self._server._map,
                               use_poll=adj.asyncore_use_poll, count=1)
        finally:
            wasyncore.close_all(self._server._map)

    def stop(self) -> None:
        """End live streams (they watch STOP_EVENT), let running requests finish (the loop
        still flushes their output), then end the loop, which closes every socket."""
        self.app.config["STOP_EVENT"].set()
        self._server.task_dispatcher.shutdown(timeout=JOIN_TIMEOUT_S)
        self._stopping.set()
        self._server.pull_trigger()
        self._thread.join(timeout=JOIN_TIMEOUT_S)


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


def public_url(host: str, port: int, configured: str = "") -> str:
    """The scoreboard address phones should open."""
    if configured:
        return configured
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


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
    ) -> None:
        from ducktable.web import create_app

        self.store = store
        self.stop_event = threading.Event()
        self.cues = cues
        self.table = TableLink(store, self.stop_event, cues)
        config = dict(web_config)
        config.update(STORE=store, CUES=cues, STOP_EVENT=self.stop_event)
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
            ButtonActions(self.table, self.cues.board, self.producers).attach()
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
