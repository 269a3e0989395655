"""What the party tests share: a real mosquitto on loopback, ducktable processes, checks.

The broker is Debian's mosquitto, as on the host Pi; a machine without it fails the tests with
the command that installs it (``make test`` and ``.ci/run`` install it).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ducktable.device.party_broker import mosquitto_path, wait_for_port
from ducktable.device.party_link import LinkError
from ducktable.device.store import MatchStore
from ducktable.rules.grey import hand_points
from ducktable.rules.grey_party import Party

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(condition: Callable[[], Any], timeout_s: float = 30.0, every_s: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(every_s)
    return condition()


class Mosquitto:
    """mosquitto on 127.0.0.1:port with persistence in ``folder``; kill() and start() again."""

    def __init__(self, folder: Path) -> None:
        try:
            self.program = mosquitto_path()
        except LinkError:
            pytest.fail("the party tests need the Mosquitto broker: apt-get install mosquitto "
                        "(`make test` installs it as root)")
        self.folder = folder
        self.port = free_port()
        folder.mkdir(parents=True, exist_ok=True)
        self.config = folder / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
            f"persistence_location {folder}/\nautosave_interval 1\n", encoding="utf-8")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = subprocess.Popen([self.program, "-c", str(self.config)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert wait_for_port("127.0.0.1", self.port), "mosquitto did not start listening"

    def kill(self) -> None:
        """As a power cut would: no goodbye, no last save."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Ducktable:
    """A ``ducktable`` command running as its own process (a table's or the host's Pi)."""

    def __init__(self, data_dir: Path, *args: str) -> None:
        self.data_dir = data_dir
        self.args = args
        self.process: subprocess.Popen[str] | None = None
        self.logs: list[str] = []

    def start(self) -> Ducktable:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        log = self.data_dir / f"log-{len(list(self.data_dir.glob('log-*.txt')))}.txt"
        self.logs.append(str(log))
        with log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "ducktable.device.cli", "--data-dir", str(self.data_dir),
                 *self.args], stdout=out, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
        return self

    def output(self) -> str:
        return "".join(Path(p).read_text() for p in self.logs)

    def kill(self) -> None:
        """SIGKILL: what a pulled plug does to the process."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def wait(self, timeout_s: float = 60) -> int:
        assert self.process is not None
        try:
            return self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"{self.args} did not end:\n{self.output()[-3000:]}") from None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def saved_party(data_dir: Path) -> Party | None:
    try:
        return Party.from_json(json.loads((data_dir / "party.json").read_text()))
    except (OSError, ValueError):
        return None


def outbox_rows(data_dir: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(data_dir / "party-outbox.sqlite3") as conn:
        return conn.execute("SELECT key, status, sends FROM results ORDER BY rowid").fetchall()


def assert_every_hand_counted_once(host_dir: Path, table_dirs: list[Path]) -> Party:
    """The host's party holds each table's every hand once, equal to what the table played."""
    party = saved_party(host_dir)
    assert party is not None and party.is_over()
    party_id = json.loads((host_dir / "party.json").read_text())["id"]
    for number, rnd in enumerate(party.rounds, start=1):
        for hand in rnd:
            assert hand.order is not None, f"hand {number} of table {hand.table + 1} is missing"
    rows = party.standings()
    assert all(len(row["hands"]) == party.hands for row in rows), "a player's hand is missing " \
        "or counted twice"
    expected = sum(sum(hand_points(len(t.players))) for rnd in party.rounds for t in rnd)
    assert sum(row["total"] for row in rows) == expected
    for table, folder in enumerate(table_dirs):
        played = outbox_rows(folder)
        assert [key for key, _, _ in played] == [
            f"{party_id}/{n}/{table}" for n in range(1, party.hands + 1)]
        assert all(status == "counted" for _, status, _ in played), played
        with sqlite3.connect(folder / "party-outbox.sqlite3") as conn:
            matches = dict(conn.execute("SELECT key, match_id FROM hands").fetchall())
        store = MatchStore(folder / "matches.sqlite3")
        try:
            for number in range(1, party.hands + 1):
                state = store.state(matches[f"{party_id}/{number}/{table}"])
                finished = tuple(state.players[s] for s in state.results[-1])
                assert party.rounds[number - 1][table].order == finished
        finally:
            store.close()
    return party
