"""A table's side of a party across Pis: play each hand here, send its result until counted.

Why this module exists: a table's Pi must never lose a finished hand, whatever drops out. The
result goes first into a durable outbox (``party-outbox.sqlite3`` in the data folder), then to
the broker with QoS 1; it stays in the outbox until the host's retained state shows it counted,
and is sent again after every reconnect and every few seconds until then. The match each hand
is played in is remembered there too, so a Pi that lost power carries on with the same match.

Each round the table learns its seating from the host's state, starts that hand's one-hand Grey
Duck match in its own store (the camera and the phones play it as any match), and when the
match is over sends the finishing order. With ``bots`` the link plays the hands itself (demo,
tests).
"""

from __future__ import annotations

import json
import logging
import random
import secrets
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from ducktable.rules.grey import GreedyGreyBot, GreyDuckState
from ducktable.rules.grey_party import TableHand

from .party_file import LIVE_NAME, write_json_atomic
from .party_link import (
    KEEPALIVE_S,
    RESULT_TOPIC,
    STATE_TOPIC,
    STATUS_TOPIC,
    HandResult,
    LinkError,
    counted,
    make_client,
)
from .store import MatchStore, StoreError

log = logging.getLogger("ducktable.party")

OUTBOX_NAME = "party-outbox.sqlite3"
RESEND_S = 2.0
"""Seconds between two sends of a result the host has not shown counted yet."""
STATUS_EVERY_S = 0.5
"""A table reports its live status (cards left, players out) at most this often."""


class Outbox:
    """The table's durable record: results not yet counted, and each hand's match."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.executescript(
            "CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, payload TEXT NOT NULL,"
            " status TEXT NOT NULL DEFAULT 'queued', note TEXT NOT NULL DEFAULT '',"
            " sends INTEGER NOT NULL DEFAULT 0, last_sent REAL NOT NULL DEFAULT 0);"
            "CREATE TABLE IF NOT EXISTS hands (key TEXT PRIMARY KEY, match_id INTEGER NOT NULL);"
            "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);")

    def close(self) -> None:
        self.conn.close()

    def client_id(self) -> str:
        """This Pi's own MQTT client id, kept so that the broker keeps its session."""
        with self._lock:
            row = self.conn.execute("SELECT value FROM meta WHERE name = 'client_id'").fetchone()
            if row:
                return str(row[0])
            value = "ducktable-table-" + secrets.token_hex(4)
            self.conn.execute("INSERT INTO meta VALUES ('client_id', ?)", (value,))
            return value

    def match_for(self, key: str) -> int | None:
        with self._lock:
            row = self.conn.execute("SELECT match_id FROM hands WHERE key = ?", (key,)).fetchone()
        return int(row[0]) if row else None

    def remember_match(self, key: str, match_id: int) -> None:
        with self._lock:
            self.conn.execute("INSERT OR REPLACE INTO hands VALUES (?, ?)", (key, match_id))

    def add(self, result: HandResult) -> bool:
        """Keep ``result`` (durably, before it is sent); False if it was already kept."""
        with self._lock:
            cursor = self.conn.execute("INSERT OR IGNORE INTO results (key, payload) VALUES (?, ?)",
                                       (result.key, json.dumps(result.to_json())))
        return cursor.rowcount == 1

    def has(self, key: str) -> bool:
        with self._lock:
            return self.conn.execute("SELECT 1 FROM results WHERE key = ?", (key,)).fetchone() \
                is not None

    def queued(self) -> list[tuple[str, str, float]]:
        """(key, payload, last sent) of every result not yet shown counted."""
        with self._lock:
            return self.conn.execute("SELECT key, payload, last_sent FROM results "
                                     "WHERE status = 'queued' ORDER BY rowid").fetchall()

    def sent(self, key: str) -> None:
        with self._lock:
            self.conn.execute("UPDATE results SET sends = sends + 1, last_sent = ? WHERE key = ?",
                              (time.time(), key))

    def settle(self, key: str, status: str, note: str = "") -> None:
        with self._lock:
            self.conn.execute("UPDATE results SET status = ?, note = ? WHERE key = ?",
                              (status, note, key))

    def rows(self) -> list[dict[str, Any]]:
        with self._lock:
            found = self.conn.execute(
                "SELECT key, status, note, sends FROM results ORDER BY rowid").fetchall()
        return [{"key": k, "status": s, "note": n, "sends": c} for k, s, n, c in found]


class PartyTable:
    """One table of a party: follows the host's state, plays each hand, sends each result."""

    def __init__(self, store: MatchStore, data_dir: Path, table: int, broker: tuple[str, int],
                 *, bots: float | None = None, seed: int = 0) -> None:
        self.store = store
        self.data_dir = data_dir
        self.table = table
        self.broker = broker
        self.bots = bots
        self.seed = seed
        self.outbox = Outbox(data_dir / OUTBOX_NAME)
        self.connected = threading.Event()
        self._state: dict[str, Any] | None = None
        self._state_lock = threading.Lock()
        self._last_status = ""
        self._status_at = 0.0
        self._stopping = False
        self._warned_table = False
        will = json.dumps({"table": table, "connected": False}).encode()
        self.client = make_client(self.outbox.client_id(),
                                  will=(STATUS_TOPIC.format(table=table), will))
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    # -- MQTT callbacks ------------------------------------------------------------------------
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            log.warning("party: the broker refused table %d (%s)", self.table + 1, reason)
            return
        client.subscribe(STATE_TOPIC, qos=1)
        self.connected.set()
        self._last_status = ""  # say again where this table stands
        log.info("party: table %d connected to the broker at %s:%d", self.table + 1, *self.broker)
        for key, payload, _ in self.outbox.queued():  # catch up: whatever may have been lost
            self._send(key, payload)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       props: Any) -> None:
        if self.connected.is_set() and not self._stopping:
            log.warning("party: table %d lost the broker; playing on, results wait in the "
                        "outbox", self.table + 1)
        self.connected.clear()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        if message.topic != STATE_TOPIC or not message.payload:
            return
        try:
            self._hear_state(message.payload)
        except Exception:  # a bad message must not stop the table's link
            log.exception("party: could not use the party state heard")

    def _hear_state(self, payload: bytes) -> None:
        try:
            state = json.loads(payload.decode("utf-8"))
            if not isinstance(state, dict):
                raise ValueError("not an object")
            TableHand(**_seating(state, self.table, 0))  # the shape this table relies on
        except (ValueError, UnicodeDecodeError, KeyError, TypeError, IndexError):
            log.warning("party: ignored a party state that is not one this ducktable can read")
            return
        with self._state_lock:
            self._state = state
        write_json_atomic(self.data_dir / LIVE_NAME,
                          {**state, "role": "join", "table": self.table,
                           "broker": "{}:{}".format(*self.broker)}, durable=False)
        for key, _, _ in self.outbox.queued():
            if not key.startswith(f"{state.get('party_id')}/"):  # the host started a new party
                self.outbox.settle(key, "stale", f"the host now runs party {state.get('party_id')}")
            elif counted(state, key):
                self.outbox.settle(key, "counted")
            elif key in (state.get("rejected") or {}):
                self.outbox.settle(key, "rejected", str(state["rejected"][key]))
                log.warning("party: the host refused %s: %s", key, state["rejected"][key])

    # -- sending -------------------------------------------------------------------------------
    def _send(self, key: str, payload: str) -> None:
        table = json.loads(payload)["table"]
        self.client.publish(RESULT_TOPIC.format(table=table), payload, qos=1)
        self.outbox.sent(key)

    def _resend_due(self) -> None:
        if not self.connected.is_set():
            return
        now = time.time()
        for key, payload, last in self.outbox.queued():
            if now - last >= RESEND_S:
                self._send(key, payload)

    # -- playing -------------------------------------------------------------------------------
    def state(self) -> dict[str, Any] | None:
        with self._state_lock:
            return self._state

    def current_hand(self) -> tuple[str, int, TableHand] | None:
        """(party id, hand number, this table's seating) while this table has a hand to play."""
        state = self.state()
        if state is None or state.get("over"):
            return None
        rounds = state["party"]["rounds"]
        if self.table >= len(rounds[-1]):
            if not self._warned_table:
                log.warning("party: the party has %d tables; this Pi was asked to play table %d",
                            len(rounds[-1]), self.table + 1)
                self._warned_table = True
            return None
        return str(state["party_id"]), len(rounds), TableHand(**_seating(state, self.table))

    def step(self) -> float:
        """Do what is due; returns how long to wait before the next step."""
        self._resend_due()
        found = self.current_hand()
        match_id: int | None = None
        wait = 0.2
        if found is not None:
            party_id, number, hand = found
            key = f"{party_id}/{number}/{self.table}"
            if hand.order is None and not self.outbox.has(key):
                match_id = self._match(key, party_id, hand)
                if match_id is not None:
                    wait = self._advance(key, party_id, number, hand, match_id)
        self._publish_status(found, match_id)
        return wait

    def _match(self, key: str, party_id: str, hand: TableHand) -> int | None:
        match_id = self.outbox.match_for(key)
        if match_id is not None:
            return match_id
        names = (self.state() or {}).get("party", {}).get("names", "classic")
        title = f"party {party_id} hand {hand.round} table {self.table + 1}"
        try:
            # Started just before a power cut, before the outbox noted it: carry on with it.
            started = [m for m in self.store.list_matches() if m.name == title]
            info = started[-1] if started else self.store.create_match(
                "grey", list(hand.players), hand.match_options(names),
                observer=self.bots is None, name=title)
        except StoreError as exc:
            log.warning("party: table %d cannot start its match: %s", self.table + 1, exc)
            return None
        self.outbox.remember_match(key, info.id)
        log.info("party: table %d plays hand %d as match %d", self.table + 1, hand.round, info.id)
        return info.id

    def _advance(self, key: str, party_id: str, number: int, hand: TableHand,
                 match_id: int) -> float:
        """Send the finished match's result, or let the bots make one move."""
        try:
            state = self.store.state(match_id)
        except StoreError as exc:
            log.warning("party: table %d cannot read match %d: %s", self.table + 1, match_id, exc)
            return 1.0
        if not isinstance(state, GreyDuckState):
            return 1.0
        if state.results:
            order = tuple(state.players[s] for s in state.results[-1])
            result = HandResult(party_id, number, self.table, order, time.time())
            if self.outbox.add(result):  # durable before it leaves this Pi
                log.info("party: table %d finished hand %d: %s", self.table + 1, number,
                         ", ".join(order))
            for queued_key, payload, _ in self.outbox.queued():
                if queued_key == key:
                    self._send(key, payload)
            return 0.05
        if self.bots is None:
            return 0.2
        rng = random.Random(f"{self.seed}/{key}/{len(state.history)}")
        if state.needs_chance():
            event = state.chance_event(rng)
        else:
            seat = state.to_move()
            if seat is None:
                return 0.2
            event = GreedyGreyBot().choose(state, seat)
        self.store.submit(match_id, event)
        return self.bots

    def _publish_status(self, found: tuple[str, int, TableHand] | None,
                        match_id: int | None) -> None:
        if not self.connected.is_set() or found is None:
            return
        party_id, number, hand = found
        status: dict[str, Any] = {"party_id": party_id, "table": self.table, "connected": True,
                                  "hand": number, "match_id": match_id,
                                  "queued": len(self.outbox.queued())}
        if match_id is not None:
            try:
                state = self.store.state(match_id)
            except StoreError:
                state = None
            if isinstance(state, GreyDuckState):
                status.update(events=len(state.history), phase=state.phase,
                              out=[state.players[s] for s in state.out],
                              cards=dict(zip(state.players, state.counts, strict=True)))
        text = json.dumps(status, sort_keys=True)
        now = time.monotonic()
        if text != self._last_status and (not self._last_status
                                          or now - self._status_at >= STATUS_EVERY_S):
            self._last_status, self._status_at = text, now
            self.client.publish(STATUS_TOPIC.format(table=self.table), text, qos=1, retain=True)

    # -- running -------------------------------------------------------------------------------
    def start(self) -> None:
        try:
            self.client.connect_async(*self.broker, keepalive=KEEPALIVE_S)
        except (OSError, ValueError) as exc:
            raise LinkError(f"cannot reach the broker at {self.broker[0]}:{self.broker[1]} "
                            f"({exc})") from None
        self.client.loop_start()

    def stop(self) -> None:
        self._stopping = True
        if self.connected.is_set():
            self.client.publish(STATUS_TOPIC.format(table=self.table),
                                json.dumps({"table": self.table, "connected": False}),
                                qos=1, retain=True)
        self.client.disconnect()
        self.client.loop_stop()
        self.outbox.close()

    def run(self, stop: threading.Event) -> None:
        self.start()
        try:
            while not stop.wait(self.step()):
                continue  # step() says how long to wait before the next one
        finally:
            self.stop()


def _seating(state: dict[str, Any], table: int, fallback: int | None = None) -> dict[str, Any]:
    """This table's seating in the current round of a host's state, as TableHand's fields.
    KeyError/TypeError/IndexError/ValueError for a state not shaped as the host makes them;
    ``fallback`` stands in for a table the party does not have (the shape is still checked)."""
    if not isinstance(state["party_id"], str):
        raise TypeError("party_id")
    rounds = state["party"]["rounds"]
    current = rounds[-1]
    saved = current[table] if table < len(current) or fallback is None else current[fallback]
    players = tuple(saved["players"])
    if not all(isinstance(p, str) for p in players) or not isinstance(saved["dealer"], int):
        raise TypeError("seating")
    order = saved.get("order")
    return {"round": len(rounds), "table": table, "players": players, "dealer": saved["dealer"],
            "captain": saved.get("captain"), "duckling": saved.get("duckling"),
            "order": tuple(order) if order else None}
