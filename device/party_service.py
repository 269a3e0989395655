"""Running this Pi's part of a party: host it, join it as a table, or both.

Why this module exists: the same party link runs in the foreground (``ducktable party host`` /
``ducktable party join``) and inside ``ducktable run``, where the phone page switches it on and
off by writing ``party-link.json`` (:class:`PartyLinkProducer` follows that file).

Settings (a dict, as kept in ``party-link.json``): ``role`` "host" or "join"; ``broker``
"HOST:PORT" ("" = the host starts its own mosquitto on ``broker_port``; a table finds the host by
mDNS, the host of party ``party`` when given); ``table`` the table this Pi plays (0-based; a host
may play one too); ``bots`` seconds between bot moves (None: people play); ``seed``; ``mdns``
whether the host advertises itself.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from .party_file import (
    LIVE_NAME,
    PARTY_NAME,
    PartyFile,
    PartyFileError,
    link_settings,
    write_json_atomic,
)
from .party_link import DEFAULT_PORT, LinkError, PartyHost, parse_broker
from .party_table import PartyTable
from .store import MatchStore

log = logging.getLogger("ducktable.party")

HOST_LINGER_S = 2.0
"""With ``--until-over``, how long the host stays up after the last result (its broker too),
so that every table hears the final state."""


class PartyService:
    """Starts and stops the pieces that ``settings`` asks for."""

    def __init__(self, data_dir: Path, store: MatchStore, settings: dict[str, Any],
                 *, web_port: int | None = None) -> None:
        self.data_dir = data_dir
        self.store = store
        self.settings = dict(settings)
        self.web_port = web_port
        self.broker_process: Any = None
        self.advertiser: Any = None
        self.host: PartyHost | None = None
        self.table: PartyTable | None = None

    def start(self) -> None:
        """Start everything; on a LinkError whatever was started is stopped again."""
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        settings = self.settings
        role = settings.get("role")
        broker_text = str(settings.get("broker") or "")
        if role == "host":
            if PartyFile(self.data_dir / PARTY_NAME).load() is None:
                raise LinkError(f"there is no party in {self.data_dir} to host; start one "
                                "(ducktable party host --players ..., or the phone's party page)")
            if broker_text:
                broker = parse_broker(broker_text)
            else:
                from .party_broker import Broker

                port = int(settings.get("broker_port") or DEFAULT_PORT)
                self.broker_process = Broker(self.data_dir / "party-broker", port)
                self.broker_process.start()
                broker = ("127.0.0.1", port)
            self.host = PartyHost(self.data_dir, broker)
            self.host.start()
            if settings.get("mdns", True):
                self._advertise(broker[1])
            table_broker = ("127.0.0.1", broker[1]) if not broker_text else broker
        elif role == "join":
            if broker_text:
                table_broker = parse_broker(broker_text)
            else:
                from .party_mdns import discover

                table_broker = discover(party_id=settings.get("party") or None)
                log.info("party: found the host at %s:%d", *table_broker)
        else:
            raise LinkError(f"the party link's role must be host or join, not {role!r}")
        table = settings.get("table")
        if table is not None:
            bots = settings.get("bots")
            self.table = PartyTable(self.store, self.data_dir, int(table), table_broker,
                                    bots=float(bots) if bots is not None else None,
                                    seed=int(settings.get("seed") or 0))
            self.table.start()

    def _advertise(self, broker_port: int) -> None:
        from .party_mdns import Advertiser
        from .runloop import lan_address

        try:
            state = self.host.state() if self.host is not None else None
            self.advertiser = Advertiser(broker_port, [lan_address()], web_port=self.web_port,
                                         party_id=str((state or {}).get("party_id", "")))
        except (OSError, ImportError, ValueError) as exc:  # no multicast: tables use --broker
            log.warning("party: cannot announce the host on the LAN (%s); tables must give "
                        "--broker", exc)

    def over(self) -> bool:
        source = self.host.state() if self.host is not None else (
            self.table.state() if self.table is not None else None)
        return bool(source and source.get("over"))

    def step(self) -> float:
        """Do what is due; how long to wait before the next step."""
        wait = 0.5
        if self.table is not None:
            wait = min(wait, self.table.step())
        return wait

    def stop(self) -> None:
        for part, close in ((self.table, "stop"), (self.advertiser, "close"),
                            (self.host, "stop"), (self.broker_process, "stop")):
            if part is not None:
                try:
                    getattr(part, close)()
                except Exception:  # stopping one part must not keep the others running
                    log.exception("party: stopping %s", type(part).__name__)
        self.table = self.advertiser = self.host = self.broker_process = None

    def run(self, stop: threading.Event, *, until_over: bool = False) -> None:
        self.start()
        try:
            while not stop.wait(self.step()):
                if until_over and self.over() and not self._results_waiting():
                    if self.host is not None:  # the final state reaches the other tables
                        stop.wait(HOST_LINGER_S)
                    break
        finally:
            self.stop()

    def _results_waiting(self) -> bool:
        return self.table is not None and bool(self.table.outbox.queued())


class PartyLinkProducer:
    """Inside ``ducktable run``: hosts or joins the party the phone asked for, and stops when
    the phone says so (it follows ``party-link.json``, checked every second)."""

    name = "party link"

    def __init__(self, data_dir: Path, web_port: int | None = None) -> None:
        self.data_dir = data_dir
        self.web_port = web_port

    def run(self, table: Any) -> None:
        service: PartyService | None = None
        running: dict[str, Any] | None = None
        try:
            while not table.stop.is_set():
                wanted = link_settings(self.data_dir)
                if wanted != running:
                    if service is not None:
                        service.stop()
                        service = None
                    running = wanted
                    if wanted is not None:
                        service = self._start(table.store, wanted)
                wait = service.step() if service is not None else 1.0
                table.stop.wait(min(wait, 1.0))
        finally:
            if service is not None:
                service.stop()

    def _start(self, store: MatchStore, settings: dict[str, Any]) -> PartyService | None:
        service = PartyService(self.data_dir, store, settings, web_port=self.web_port)
        try:
            service.start()
        except (LinkError, PartyFileError, ValueError, TypeError) as exc:
            log.warning("party: %s", exc)
            write_json_atomic(self.data_dir / LIVE_NAME,
                              {"role": settings.get("role"), "problem": str(exc)})
            return None
        return service
