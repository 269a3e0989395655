"""A Grey Duck party across several Pis (GREY-V2): the MQTT topics, messages and the host.

Why this module exists: every table needs its own camera, so a real party has one Pi per table.
Each table's Pi plays its own one-hand match per round (device/party_table.py) and sends the
result to the host Pi over an MQTT broker (Mosquitto); the host keeps the party (``party.json``)
and publishes its state, retained, for every table and phone. docs/party.md describes the
topics, the keys and what happens when a Pi, the Wi-Fi or the broker drops out.

Exactly once: a result is keyed by (party id, hand, table). The host counts a key only while
the party's current hand has no result for that table, and saves the party before it publishes
the new state, so a result sent twice (a table re-sending after a reconnect, the broker
re-delivering after a restart) is recognised and ignored. A table keeps its result in a durable
outbox until the host's state shows it counted.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ducktable.rules.grey_party import Party, PartyError

from .cli import UserError
from .party_file import LIVE_NAME, PARTY_NAME, PartyFile, PartyFileError, write_json_atomic

log = logging.getLogger("ducktable.party")

PREFIX = "ducktable/party"
STATE_TOPIC = f"{PREFIX}/state"
"""Retained, host -> everyone: the whole party state (:func:`party_state`)."""
RESULT_TOPIC = PREFIX + "/result/{table}"
"""QoS 1, table -> host: one hand's finishing order, keyed (:class:`HandResult`)."""
STATUS_TOPIC = PREFIX + "/table/{table}/status"
"""Retained, table -> host: the table's live status; the broker publishes the table's will
(``connected: false``) here when the table drops off without saying goodbye."""

STATE_VERSION = 1
DEFAULT_PORT = 1883
PUBLISH_EVERY_S = 0.5
"""The host republishes the state for tables' status changes at most this often."""
KEEPALIVE_S = 5
"""MQTT keep-alive: a silent table is declared gone after 1.5 times this."""


class LinkError(UserError):
    """A party link that cannot start (bad broker address, no paho); the message says why."""


def parse_broker(text: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``HOST`` (port 1883) -> (host, port); a clear error otherwise."""
    text = text.strip()
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = text, str(DEFAULT_PORT)
    host = host.strip("[]")
    if not host or not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise LinkError(f"the broker address {text!r:.60} is not HOST:PORT (e.g. "
                        f"ducktable.local:{DEFAULT_PORT} or 192.168.1.20:{DEFAULT_PORT})")
    return host, int(port_text)


def result_key(party_id: str, hand: int, table: int) -> str:
    """The key that makes a result count once: party, hand (1-based), table (0-based)."""
    return f"{party_id}/{hand}/{table}"


@dataclass(frozen=True)
class HandResult:
    """One table's finishing order of one hand, as sent to the host."""

    party_id: str
    hand: int
    table: int
    order: tuple[str, ...]
    finished: float = 0.0
    """When the table's match ended (Unix time, the table's clock); kept in the outbox, so
    every copy sent carries the same one. Shown and measured, never used to decide."""

    @property
    def key(self) -> str:
        return result_key(self.party_id, self.hand, self.table)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "party_id": self.party_id, "hand": self.hand,
                "table": self.table, "order": list(self.order), "finished": self.finished}

    @classmethod
    def from_payload(cls, payload: bytes) -> HandResult:
        """Parse a result message; ValueError with the reason for anything malformed."""
        obj = json.loads(payload.decode("utf-8"))
        if not isinstance(obj, dict):
            raise ValueError("a result is a JSON object")
        party_id, hand, table, order = (obj.get(k) for k in ("party_id", "hand", "table", "order"))
        if not isinstance(party_id, str) or not isinstance(hand, int) or not isinstance(table, int) \
                or not isinstance(order, list) or not all(isinstance(n, str) for n in order):
            raise ValueError("a result needs party_id, hand, table and order (names)")
        finished = obj.get("finished")
        return cls(party_id, hand, table, tuple(order),
                   float(finished) if isinstance(finished, int | float) else 0.0)


def make_client(client_id: str, *, will: tuple[str, bytes] | None = None) -> Any:
    """A paho MQTT client with a persistent session (the broker keeps its subscriptions and
    unacknowledged QoS 1 messages while it is away) that reconnects by itself."""
    try:
        import paho.mqtt.client as mqtt
    except ImportError:
        raise LinkError("the party link needs paho-mqtt: .venv/bin/pip install paho-mqtt") from None
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                         clean_session=False, protocol=mqtt.MQTTv311)
    client.reconnect_delay_set(min_delay=1, max_delay=2)
    client.max_queued_messages_set(0)  # unlimited: the outbox bounds what is re-sent anyway
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    return client


def pending_moves(party: Party) -> list[dict[str, Any]]:
    """Who moves where next: each reported table's Duckling goes to the next table once every
    table has reported (GREY-V2); a table still playing shows its Duckling as unknown."""
    if party.is_over():
        return []
    tables = party.tables()
    return [{"from": t.table, "to": (t.table + 1) % len(tables),
             "player": t.order[-1] if t.order is not None else None} for t in tables]


def party_state(party: Party, party_id: str, live: dict[int, dict[str, Any]],
                rejected: dict[str, str]) -> dict[str, Any]:
    """The retained state message: everything a table or phone needs to show the party."""
    return {
        "v": STATE_VERSION,
        "party_id": party_id,
        "party": {**party.to_json(), "id": party_id},
        "hand": party.round,
        "hands": party.hands,
        "over": party.is_over(),
        "standings": party.standings(),
        "tables": [{**t.to_json(), "live": live.get(t.table)} for t in party.tables()],
        "moves": pending_moves(party),
        "rejected": rejected,
        "sent": time.time(),
    }


def counted(state: dict[str, Any], key: str) -> bool:
    """Whether the host's state shows the result ``key`` counted."""
    party_id, _, rest = key.partition("/")
    hand_text, _, table_text = rest.partition("/")
    if state.get("party_id") != party_id:
        return False
    rounds = (state.get("party") or {}).get("rounds") or []
    hand, table = int(hand_text), int(table_text)
    if not 1 <= hand <= len(rounds) or not 0 <= table < len(rounds[hand - 1]):
        return False
    return rounds[hand - 1][table].get("order") is not None


class PartyHost:
    """The host's side: counts each table's results once, keeps the party, publishes its state.

    Runs paho's network thread and a publisher thread, which also republishes when the party
    file changed (a result typed on the phone, a new party).
    """

    def __init__(self, data_dir: Path, broker: tuple[str, int],
                 on_count: Callable[[HandResult, str], None] | None = None) -> None:
        self.data_dir = data_dir
        self.broker = broker
        self.file = PartyFile(data_dir / PARTY_NAME)
        self.live: dict[int, dict[str, Any]] = {}
        self.rejected: dict[str, str] = {}
        self.counts = {"counted": 0, "duplicate": 0, "rejected": 0}
        self.on_count = on_count
        self.connected = threading.Event()
        self._lock = threading.Lock()
        self._seen_mtime: float | None = None
        self._stopping = False
        self._dirty = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self.client = make_client("ducktable-party-host")
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message

    # -- MQTT callbacks (paho's thread) --------------------------------------------------------
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            log.warning("party: the broker refused the host (%s)", reason)
            return
        client.subscribe([(RESULT_TOPIC.format(table="+"), 1), (STATUS_TOPIC.format(table="+"), 1)])
        log.info("party: host connected to the broker at %s:%d", *self.broker)
        self.publish()

    def _on_subscribe(self, client: Any, userdata: Any, mid: Any, reasons: Any,
                      props: Any) -> None:
        self.connected.set()  # from now on the broker keeps every result for the host

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       props: Any) -> None:
        if self.connected.is_set() and not self._stopping:
            log.warning("party: lost the broker at %s:%d; trying again", *self.broker)
        self.connected.clear()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        try:
            if message.topic.startswith(f"{PREFIX}/result/"):
                self.receive_result(message.payload)
            elif message.topic.startswith(f"{PREFIX}/table/"):
                self._receive_status(message.topic, message.payload)
        except Exception:  # a bad message must not stop the host
            log.exception("party: could not handle a message on %s", message.topic)

    # -- results -------------------------------------------------------------------------------
    def receive_result(self, payload: bytes) -> str:
        """Count a result once: "counted", "duplicate", "rejected" or "other party"."""
        try:
            result = HandResult.from_payload(payload)
        except (ValueError, UnicodeDecodeError) as exc:
            log.warning("party: ignored a malformed result (%s)", exc)
            return "rejected"
        with self._lock:
            outcome = self._count(result)
        if outcome != "other party":
            self.counts[outcome] += 1
        if self.on_count is not None:
            self.on_count(result, outcome)
        self.publish()
        return outcome

    def _count(self, result: HandResult) -> str:
        with self.file.update() as held:
            party, party_id = held
            if party is None or result.party_id != party_id:
                log.info("party: ignored result %s of another party", result.key)
                return "other party"
            rounds = party.rounds
            if not 1 <= result.hand <= len(rounds) or not 0 <= result.table < len(rounds[-1]):
                return self._reject(result, f"there is no hand {result.hand} at table "
                                    f"{result.table + 1} yet")
            earlier = rounds[result.hand - 1][result.table].order
            if earlier is not None:
                if earlier != result.order:
                    log.warning("party: table %d sent hand %d again with another order; the "
                                "first one counts", result.table + 1, result.hand)
                log.info("party: duplicate of %s ignored", result.key)
                return "duplicate"
            try:
                party.record_hand(result.table, result.order)
            except PartyError as exc:
                return self._reject(result, str(exc))
        log.info("party: counted table %d hand %d: %s", result.table + 1, result.hand,
                 ", ".join(result.order))
        return "counted"

    def _reject(self, result: HandResult, why: str) -> str:
        log.warning("party: refused %s: %s", result.key, why)
        self.rejected[result.key] = why
        return "rejected"

    def _receive_status(self, topic: str, payload: bytes) -> None:
        try:
            table = int(topic.split("/")[-2])
            status = json.loads(payload.decode("utf-8")) if payload else None
        except (ValueError, UnicodeDecodeError):
            return
        if status is not None and not isinstance(status, dict):
            return
        with self._lock:
            if status is None:
                self.live.pop(table, None)
            elif status.get("connected") is False:  # a will or a goodbye: keep what was known
                self.live[table] = {**self.live.get(table, {}), **status, "heard": time.time()}
            else:
                self.live[table] = {**status, "heard": time.time()}
        self._dirty.set()  # published by the publisher thread, at most every PUBLISH_EVERY_S

    # -- state ---------------------------------------------------------------------------------
    def state(self) -> dict[str, Any] | None:
        try:
            loaded = self.file.load()
        except PartyFileError as exc:
            log.warning("party: %s", exc)
            return None
        if loaded is None:
            return None
        party, party_id = loaded
        with self._lock:
            live = {k: v for k, v in self.live.items()
                    if v.get("party_id") in (party_id, None)}
            return party_state(party, party_id, live, dict(self.rejected))

    def publish(self) -> None:
        """Publish the party's state, retained, and keep it for this Pi's phones."""
        state = self.state()
        if state is None:
            return
        write_json_atomic(self.data_dir / LIVE_NAME, {**state, "role": "host",
                                                     "broker": "{}:{}".format(*self.broker)}, durable=False)
        self.client.publish(STATE_TOPIC, json.dumps(state), qos=1, retain=True)

    def changed_on_disk(self) -> bool:
        """Whether the party file changed since the last call (by this host or the phone)."""
        try:
            mtime = self.file.path.stat().st_mtime
        except OSError:
            mtime = None
        changed = mtime != self._seen_mtime
        self._seen_mtime = mtime
        return changed

    # -- running -------------------------------------------------------------------------------
    def _publisher(self) -> None:
        """Republish when a table's status changed or the party file did (the phone), at most
        every PUBLISH_EVERY_S: tables report every move, and results must not queue behind
        those reports (a result is published at once, in :meth:`receive_result`)."""
        while not self._stopped.is_set():
            self._dirty.wait(PUBLISH_EVERY_S)
            if self._stopped.is_set():
                return
            if self._dirty.is_set() or self.changed_on_disk():
                self._dirty.clear()
                try:
                    self.publish()
                except OSError as exc:
                    log.warning("party: cannot keep the party state for the phones (%s)", exc)
            self._stopped.wait(PUBLISH_EVERY_S)

    def start(self) -> None:
        self.changed_on_disk()
        self.client.connect_async(*self.broker, keepalive=KEEPALIVE_S)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._publisher, name="party host", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping = True
        self._stopped.set()
        self._dirty.set()
        if self._thread is not None:
            self._thread.join(5)
        self.client.disconnect()
        self.client.loop_stop()
