"""The party link's parts against a real mosquitto on loopback: the host counting keyed results
once, a table's outbox across a broker outage, a table's will, mDNS, the host's own broker,
the link inside ``ducktable run``, and the commands' one-line errors."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from ducktable.bench.party import report, run_party_bench
from ducktable.device.cli import main
from ducktable.device.party_broker import Broker, wait_for_port
from ducktable.device.party_file import PartyFile, live_state, save_link_settings
from ducktable.device.party_link import (
    RESULT_TOPIC,
    STATE_TOPIC,
    HandResult,
    LinkError,
    PartyHost,
    parse_broker,
    party_state,
)
from ducktable.device.party_mdns import Advertiser, discover
from ducktable.device.party_service import PartyLinkProducer
from ducktable.device.party_table import Outbox, PartyTable
from ducktable.device.store import MatchStore
from ducktable.rules.grey_party import Party
from zeroconf import AddressResolverIPv4, Zeroconf

from .party_helpers import PLAYERS, Ducktable, Mosquitto, free_port, wait_for

PARTY_ID = "abc123"


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    running = Mosquitto(tmp_path / "broker")
    running.start()
    yield running
    running.kill()


def new_party(folder: Path, hands: int = 2) -> Party:
    party = Party(PLAYERS, hands=hands)
    PartyFile(folder / "party.json").save(party, PARTY_ID)
    return party


def saved(folder: Path) -> Party:
    loaded = PartyFile(folder / "party.json").load()
    assert loaded is not None
    return loaded[0]


@pytest.fixture
def host(tmp_path: Path, broker: Mosquitto) -> Iterator[PartyHost]:
    folder = tmp_path / "host"
    folder.mkdir()
    new_party(folder)
    running = PartyHost(folder, parse_broker(broker.address))
    running.start()
    assert running.connected.wait(10)
    yield running
    running.stop()


def plain_client(broker: Mosquitto, on_message: Any = None) -> Any:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="", clean_session=True)
    client.on_message = on_message
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    return client


def test_broker_addresses_are_read_or_refused_in_one_line() -> None:
    assert parse_broker("ducktable.local") == ("ducktable.local", 1883)
    assert parse_broker("192.168.1.20:1884") == ("192.168.1.20", 1884)
    for bad in ("", ":1883", "pi:port", "pi:70000"):
        with pytest.raises(LinkError, match="is not HOST:PORT"):
            parse_broker(bad)


def test_a_result_sent_twice_counts_once_and_the_state_is_retained(
        host: PartyHost, broker: Mosquitto) -> None:
    table0 = saved(host.data_dir).tables()[0]
    order = tuple(reversed(table0.players))
    good = HandResult(PARTY_ID, 1, 0, order)
    sender = plain_client(broker)
    try:
        for result in (good, good, HandResult("otherparty", 1, 0, order),
                       HandResult(PARTY_ID, 1, 1, ("Ann", "Ben", "Cat"))):
            sender.publish(RESULT_TOPIC.format(table=result.table),
                           json.dumps(result.to_json()), qos=1).wait_for_publish(5)
        assert wait_for(lambda: host.counts == {"counted": 1, "duplicate": 1, "rejected": 1},
                        timeout_s=10), host.counts
    finally:
        sender.loop_stop()
        sender.disconnect()
    party = saved(host.data_dir)
    assert party.tables()[0].order == order and party.tables()[1].order is None
    totals = {row["name"]: row["total"] for row in party.standings()}
    assert totals[order[0]] == 4 and totals[order[-1]] == 1 and sum(totals.values()) == 10
    # A phone or table connecting later gets the state at once: it is retained.
    heard: list[dict[str, Any]] = []
    late = plain_client(broker, lambda c, u, m: heard.append(json.loads(m.payload)))
    late.subscribe(STATE_TOPIC, qos=1)
    try:
        assert wait_for(lambda: heard and heard[-1]["tables"][0]["order"], timeout_s=10)
    finally:
        late.loop_stop()
        late.disconnect()
    state = heard[-1]
    assert state["party_id"] == PARTY_ID and state["hand"] == 1
    assert state["moves"] == [{"from": 0, "to": 1, "player": order[-1]},
                              {"from": 1, "to": 0, "player": None}]
    assert f"{PARTY_ID}/1/1" in state["rejected"]
    assert live_state(host.data_dir)["standings"] == state["standings"]


def test_a_table_keeps_its_result_while_the_broker_is_away_and_sends_it_when_back(
        tmp_path: Path, host: PartyHost, broker: Mosquitto) -> None:
    folder = tmp_path / "table2"
    folder.mkdir()
    store = MatchStore(folder / "matches.sqlite3")
    table = PartyTable(store, folder, 1, parse_broker(broker.address), bots=0.0, seed=3)
    table.start()
    try:
        assert wait_for(lambda: table.state() is not None, timeout_s=10)
        broker.kill()
        assert wait_for(lambda: not table.connected.is_set(), timeout_s=10)
        for _ in range(500):  # the bots play the whole hand with no broker
            table.step()
            if table.outbox.queued():
                break
        assert [key for key, _, _ in table.outbox.queued()] == [f"{PARTY_ID}/1/1"]
        assert saved(host.data_dir).tables()[1].order is None
        broker.start()

        def counted_at_host() -> bool:
            table.step()
            return not table.outbox.queued() and saved(host.data_dir).tables()[1].order is not None

        assert wait_for(counted_at_host, timeout_s=20)
        assert host.counts["counted"] == 1
        assert table.outbox.rows()[0]["status"] == "counted"
        match = store.list_matches()[0]
        finished = store.state(match.id)
        assert saved(host.data_dir).tables()[1].order == tuple(
            finished.players[s] for s in finished.results[-1])
    finally:
        table.stop()
        store.close()


def test_the_outbox_survives_a_restart_and_keeps_one_copy_per_key(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox.sqlite3")
    result = HandResult(PARTY_ID, 2, 1, ("Ann", "Ben", "Cat"))
    assert outbox.add(result) and not outbox.add(result)
    outbox.remember_match(result.key, 7)
    client = outbox.client_id()
    outbox.close()
    again = Outbox(tmp_path / "outbox.sqlite3")
    try:
        assert [k for k, _, _ in again.queued()] == [result.key]
        assert again.match_for(result.key) == 7 and again.client_id() == client
    finally:
        again.close()


def test_a_table_that_drops_off_shows_as_not_connected(tmp_path: Path, host: PartyHost,
                                                       broker: Mosquitto) -> None:
    """The table's will: when its Pi dies, the broker tells the host, and the phones see it."""
    table = Ducktable(tmp_path / "table1", "party", "join", "--table", "1", "--broker",
                      broker.address, "--bots", "5").start()
    try:
        assert wait_for(lambda: host.live.get(0, {}).get("connected"), timeout_s=20), \
            table.output()
        assert host.live[0]["hand"] == 1 and host.live[0]["party_id"] == PARTY_ID
        table.kill()
        def shown_to_phones() -> dict[str, Any]:
            tables = (live_state(host.data_dir) or {}).get("tables") or [{}]
            return tables[0].get("live") or {}

        assert wait_for(lambda: shown_to_phones().get("connected") is False, timeout_s=20)
        assert host.live[0]["hand"] == 1  # what was known of the table stays shown
    finally:
        table.stop()


def test_mdns_finds_the_host_and_says_when_there_is_none() -> None:
    """Multicast works on this machine's loopback, so the real zeroconf exchange is tested."""
    with pytest.raises(LinkError, match="no party host of party nobody answered"):
        discover(0.5, interfaces=["127.0.0.1"], party_id="nobody")
    port = free_port()
    advertiser = Advertiser(port, ["127.0.0.1"], party_id=PARTY_ID, interfaces=["127.0.0.1"])
    try:
        assert discover(5, interfaces=["127.0.0.1"], party_id=PARTY_ID) == ("127.0.0.1", port)
        with pytest.raises(LinkError, match="no party host of party other1 answered"):
            discover(1, interfaces=["127.0.0.1"], party_id="other1")
        resolver = AddressResolverIPv4("ducktable.local.")  # what a phone asks for the name
        asking = Zeroconf(interfaces=["127.0.0.1"])
        try:
            assert resolver.request(asking, 3000) and resolver.parsed_addresses() == ["127.0.0.1"]
        finally:
            asking.close()
    finally:
        advertiser.close()


def test_the_hosts_own_mosquitto_is_started_again_when_it_stops(tmp_path: Path) -> None:
    port = free_port()
    own = Broker(tmp_path / "party-broker", port, bind="127.0.0.1")
    own.start()
    try:
        first = own.process
        assert first is not None
        first.kill()
        first.wait()
        assert wait_for(lambda: own.process is not first and own.process.poll() is None,
                        timeout_s=10)
        assert wait_for_port("127.0.0.1", port)
    finally:
        own.stop()
    assert "persistence true" in (tmp_path / "party-broker" / "mosquitto.conf").read_text()


def test_inside_ducktable_run_the_link_follows_what_the_phone_asked(
        tmp_path: Path, host: PartyHost, broker: Mosquitto) -> None:
    folder = tmp_path / "table2"
    folder.mkdir()
    store = MatchStore(folder / "matches.sqlite3")
    run = SimpleNamespace(store=store, stop=threading.Event())
    producer = PartyLinkProducer(folder)
    thread = threading.Thread(target=producer.run, args=(run,), daemon=True)
    thread.start()
    try:
        time.sleep(0.3)
        assert host.live == {}  # nothing asked yet: no link
        save_link_settings(folder, {"role": "join", "broker": broker.address, "table": 1,
                                    "bots": 0.0, "seed": 1})
        assert wait_for(lambda: saved(host.data_dir).tables()[1].order is not None,
                        timeout_s=20)
        assert live_state(folder)["role"] == "join"
        save_link_settings(folder, None)  # the phone left the party
        assert wait_for(lambda: host.live.get(1, {}).get("connected") is False, timeout_s=10)
    finally:
        run.stop.set()
        thread.join(10)
        store.close()


@pytest.mark.parametrize(("argv", "message"), [
    (["party", "join", "--table", "0", "--broker", "127.0.0.1:1"], "counts from 1"),
    (["party", "join", "--table", "1", "--broker", "pi:port"], "is not HOST:PORT"),
    (["party", "host", "--broker", "127.0.0.1:1"], "there is no party"),
    (["party", "host", "--players", "Ann", "Ben"], "at least 6 players"),
    (["party", "status"], "there is no party"),
])
def test_party_commands_say_what_is_wrong_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["--data-dir", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_a_party_under_way_is_not_replaced_without_new(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new_party(tmp_path)
    assert main(["--data-dir", str(tmp_path), "party", "host", "--players", *PLAYERS[:6],
                 "--broker", "127.0.0.1:1"]) == 2
    assert "add --new to replace it" in capsys.readouterr().err
    assert saved(tmp_path).players == tuple(PLAYERS)  # the old party is untouched
    assert main(["--data-dir", str(tmp_path), "party", "status"]) == 0
    out = capsys.readouterr().out
    assert f"party {PARTY_ID}: hand 1 of 2" in out and "Ann" in out


def test_a_table_settles_its_outbox_from_the_state_it_hears(tmp_path: Path) -> None:
    """Counted, refused, of an earlier party, or still waiting: the host's state says which."""
    party = Party(PLAYERS, hands=3)
    party.record_hand(0, ["Dan", "Cat", "Ben", "Ann"])
    store = MatchStore(tmp_path / "matches.sqlite3")
    table = PartyTable(store, tmp_path, 0, ("127.0.0.1", free_port()))
    try:
        results = {
            "counted": HandResult(PARTY_ID, 1, 0, ("Dan", "Cat", "Ben", "Ann")),
            "rejected": HandResult(PARTY_ID, 1, 1, ("Ann", "Ben", "Cat")),
            "stale": HandResult("oldparty", 5, 0, ("Ann", "Ben", "Cat", "Dan")),
            "queued": HandResult(PARTY_ID, 2, 1, ("Eve", "Fay", "Gus")),
        }
        for result in results.values():
            table.outbox.add(result)
        state = party_state(party, PARTY_ID, {}, {results["rejected"].key: "wrong players"})
        table._on_message(None, None, SimpleNamespace(topic=STATE_TOPIC,
                                                      payload=json.dumps(state).encode()))
        assert {row["key"]: row["status"] for row in table.outbox.rows()} == {
            result.key: status for status, result in results.items()}
        assert table.current_hand() is not None and live_state(tmp_path)["role"] == "join"
        found = table.current_hand()
        assert found is not None and found[2].order == ("Dan", "Cat", "Ben", "Ann")
    finally:
        table.outbox.close()
        store.close()


def test_make_test_installs_mosquitto_when_it_is_missing(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    plan = subprocess.run(["make", "-n", "test", f"VENV={tmp_path / '.venv'}"], cwd=root,
                          check=True, capture_output=True, text=True, timeout=60).stdout
    assert "apt-get install -y -qq mosquitto" in plan
    assert "sudo apt-get install mosquitto" in plan  # what a user without root is told


class Wifi:
    """A TCP relay between one table and the broker that the test can cut, as a Wi-Fi drop
    would: open connections die at once, new ones are dropped until it comes back."""

    def __init__(self, broker: Mosquitto) -> None:
        self.broker_port = broker.port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.up = True
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                near, _ = self.server.accept()
            except OSError:
                return
            if not self.up:
                near.close()
                continue
            far = socket.create_connection(("127.0.0.1", self.broker_port))
            self.open += [near, far]
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def drop(self) -> None:
        self.up = False
        for sock in self.open:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self.open.clear()

    def close(self) -> None:
        self.drop()
        self.server.close()


def test_a_table_whose_wifi_drops_mid_hand_plays_on_and_its_result_counts_once(
        tmp_path: Path, host: PartyHost, broker: Mosquitto) -> None:
    wifi = Wifi(broker)
    folder = tmp_path / "table1"
    folder.mkdir()
    store = MatchStore(folder / "matches.sqlite3")
    table = PartyTable(store, folder, 0, ("127.0.0.1", wifi.port), bots=0.0, seed=5)
    table.start()
    try:
        assert wait_for(lambda: table.state() is not None, timeout_s=10)
        for _ in range(10):  # a few moves of the hand while connected
            table.step()
        assert wait_for(lambda: host.live.get(0, {}).get("connected"), timeout_s=10)
        wifi.drop()
        # The host hears the table's will; the table plays the rest of the hand offline.
        assert wait_for(lambda: host.live.get(0, {}).get("connected") is False, timeout_s=10)
        for _ in range(500):
            table.step()
            if table.outbox.queued():
                break
        assert table.outbox.queued() and saved(host.data_dir).tables()[0].order is None
        wifi.up = True

        def counted_at_host() -> bool:
            table.step()
            return not table.outbox.queued() and saved(host.data_dir).tables()[0].order is not None

        assert wait_for(counted_at_host, timeout_s=20)
        assert host.counts["counted"] == 1
        assert wait_for(lambda: host.live.get(0, {}).get("connected"), timeout_s=10)
    finally:
        table.stop()
        store.close()
        wifi.close()


def test_a_garbled_party_state_is_ignored_and_the_next_good_one_followed(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = MatchStore(tmp_path / "matches.sqlite3")
    table = PartyTable(store, tmp_path, 1, ("127.0.0.1", free_port()))
    good = party_state(Party(PLAYERS, hands=2), PARTY_ID, {}, {})
    try:
        for payload in (b"\xff", b"[1]", b'{"party": {}}',
                        json.dumps({**good, "party": {"rounds": [[{"players": 5}]]}}).encode(),
                        json.dumps({**good, "party_id": 7}).encode()):
            table._on_message(None, None, SimpleNamespace(topic=STATE_TOPIC, payload=payload))
            assert table.state() is None and table.step() > 0  # nothing to play, no crash
        assert caplog.text.count("is not one this ducktable can read") == 5
        table._on_message(None, None, SimpleNamespace(topic=STATE_TOPIC,
                                                      payload=json.dumps(good).encode()))
        found = table.current_hand()
        assert found is not None and found[2].players == ("Eve", "Fay", "Gus")
    finally:
        table.outbox.close()
        store.close()


def test_the_party_benchmark_counts_every_result_and_prints_its_figures() -> None:
    figures = run_party_bench(hands=2, tables=2, outage=False, timeout_s=60)
    assert figures["results"] == figures["expected"] == 4
    assert 0 < figures["median_ms"] <= figures["max_ms"]
    printed = report(figures)
    assert "results counted               4 of 4" in printed and "broker killed" not in printed
