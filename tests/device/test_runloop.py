"""The one process (device/runloop.py): producers -> store -> web and cues; clean shutdown."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ducktable.device.cues import CueBoard, Cues
from ducktable.device.demo import DemoTable
from ducktable.device.runloop import (
    Appliance,
    ButtonActions,
    CameraProducer,
    CameraStatus,
    CueWatcher,
    TableLink,
    public_url,
)
from ducktable.device.store import MatchStore, StoreError
from ducktable.rules.core import Event
from gpiozero.pins.mock import MockFactory

ROOT = Path(__file__).resolve().parents[2]
DEAL = Event("deal", None, {"face_up": ["blue-5", None, None]})


class RecordingCues:
    """Stands in for device.cues.Cues and remembers what it was asked to show."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.board = None

    def whose_turn(self, seat: int | None) -> None:
        self.calls.append(("turn", seat))

    def illegal(self) -> None:
        self.calls.append(("illegal", None))

    def round_scored(self) -> None:
        self.calls.append(("round_scored", None))

    def race_open(self, is_open: bool) -> None:
        self.calls.append(("race", is_open))

    def race_won(self, seat: int) -> None:
        self.calls.append(("race_won", seat))

    def snapshot(self) -> dict[str, Any]:
        return {"pattern": "idle", "seats": [], "status": "off", "buzzer": False, "seq": 0}

    def close(self) -> None:
        self.calls.append(("close", None))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MatchStore]:
    s = MatchStore(tmp_path / "matches.sqlite3")
    yield s
    s.close()


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def get_json(port: int, path: str) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_camera_events_that_are_refused_flash_the_illegal_cue(store: MatchStore) -> None:
    cues = RecordingCues()
    table = TableLink(store, threading.Event(), cues)
    assert not table.submit(DEAL).ok  # no match yet: refused with a reason
    info = store.create_match("duck", ["A", "B", "C"], observer=True)
    assert table.current_match() == store.match(info.id)
    assert table.submit(Event("play", 2, {"cards": ["red-1"]}, source="manual")).ok is False
    assert cues.calls == []  # a phone's mistake is shown on the phone, not by the lights
    assert table.submit(Event("play", 2, {"cards": ["red-1"]}, source="camera")).ok is False
    assert cues.calls == [("illegal", None)]
    assert table.submit(DEAL).ok and len(store.events(info.id)) == 1


def test_camera_producer_reads_frames_into_events(store: MatchStore) -> None:
    info = store.create_match("duck", ["A", "B", "C"], observer=True)

    class Frames:
        def __init__(self) -> None:
            self.left = 3
            self.closed = False

        def read(self) -> Any:
            self.left -= 1
            return None if self.left < 0 else f"frame{self.left}"

        def __enter__(self) -> Frames:
            return self

        def __exit__(self, *exc: object) -> None:
            self.closed = True

    class Reader:
        def __init__(self) -> None:
            self.seen: list[Any] = []

        def events(self, state: Any, frame: Any) -> list[Event]:
            self.seen.append(frame)
            if state.history:
                return [Event("play", 1, {"cards": ["blue-5"]}, source="camera")]
            return [Event("deal", None, DEAL.data, source="camera")]

    frames, reader = Frames(), Reader()
    CameraProducer(lambda: frames, reader).run(TableLink(store, threading.Event()))
    assert reader.seen == ["frame2", "frame1", "frame0"] and frames.closed
    events = store.events(info.id)
    assert [e.type for e in events] == ["deal", "play"]  # the third frame's play is refused
    assert events[1].source == "camera"


def test_cue_watcher_follows_the_match(store: MatchStore) -> None:
    cues = RecordingCues()
    stop = threading.Event()
    table = TableLink(store, stop, cues)
    info = store.create_match("duck", ["A", "B", "C"], observer=True)
    watcher = threading.Thread(target=CueWatcher(cues).run, args=(table,))
    watcher.start()
    try:
        assert wait_for(lambda: ("turn", None) in cues.calls)  # waiting for the deal
        assert store.submit(info.id, DEAL).ok
        assert wait_for(lambda: ("turn", 1) in cues.calls)  # DUCK-S2: left of the dealer
    finally:
        stop.set()
        watcher.join(5)
    assert not watcher.is_alive()


def test_quack_buttons_report_a_pass_for_their_seat(store: MatchStore) -> None:
    """GREY-T3: a seat's Quack button passes for that seat; DUCK has no pass to report."""
    factory = MockFactory()
    board = CueBoard((5, 6, 13, 19), 20, 21, quack_buttons=(17, 27, 22, 23), pin_factory=factory)
    cues = Cues(board)
    try:
        table = TableLink(store, threading.Event(), cues)
        actions = ButtonActions(table, board)
        actions.attach()
        store.create_match("duck", ["A", "B", "C"], observer=True)
        refused = actions.quack(1)
        assert not refused.ok and "has no quack" in refused.reason
        grey = store.create_match("grey", ["A", "B", "C", "D"], observer=True)
        verdict = actions.quack(2)
        assert not verdict.ok and "no quack" not in verdict.reason  # the engine judged it
        factory.pin(22).drive_low()  # press seat 2's Quack
        assert store.events(grey.id) == []  # refused before the deal, and nothing recorded
    finally:
        cues.close()


def test_public_url_is_the_lan_address_unless_configured() -> None:
    assert public_url("127.0.0.1", 8000) == "http://127.0.0.1:8000/"
    assert public_url("0.0.0.0", 8000, "http://table.local/") == "http://table.local/"
    url = public_url("0.0.0.0", 8123)
    assert url.startswith("http://") and url.endswith(":8123/") and "0.0.0.0" not in url


def test_demo_appliance_plays_a_match_while_serving_the_scoreboard(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "matches.sqlite3")
    cues = RecordingCues()
    demo = DemoTable("duck", pace=0.0, seed=5, matches=1, pause_between=0)
    appliance = Appliance(store, {"INSTANCE_PATH": str(tmp_path), "TABLE_PIN": "1234"},
                          host="127.0.0.1", port=0, threads=8, producers=[demo], cues=cues)
    appliance.start()
    try:
        assert wait_for(lambda: bool(demo.match_ids))
        status, view = get_json(appliance.server.port, f"/match/{demo.match_ids[0]}/view.json")
        assert status == 200 and view["match"]["players"] == ["Ada", "Bruno", "Chloé", "Dev"]
        assert appliance.stop_event.wait(120), "the demo match did not finish"
    finally:
        appliance.stop()
    appliance.stop()  # idempotent
    assert ("round_scored", None) in cues.calls and cues.calls[-1] == ("close", None)
    with pytest.raises(StoreError):
        store.list_matches()  # closed by the appliance
    reopened = MatchStore(tmp_path / "matches.sqlite3")
    try:
        info = reopened.match(demo.match_ids[0])
        assert info.finished and all(e.source == "bot" for e in reopened.events(info.id))
    finally:
        reopened.close()


def test_the_web_server_ends_open_streams_and_frees_its_port_when_stopped(tmp_path: Path) -> None:
    store = MatchStore(tmp_path / "matches.sqlite3")
    info = store.create_match("duck", ["Ann", "Ben", "Cat"])
    appliance = Appliance(store, {"INSTANCE_PATH": str(tmp_path), "TABLE_PIN": "4821"}, port=0)
    appliance.start()
    port = appliance.server.port
    watcher = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    watcher.request("GET", f"/match/{info.id}/live")
    stream = watcher.getresponse()
    assert stream.getheader("Content-Type", "").startswith("text/event-stream")
    assert stream.readline() == b"retry: 1000\n"
    appliance.stop()
    rest = stream.read()  # the stream ends instead of waiting for the next event
    assert b"keep-alive" not in rest
    watcher.close()
    assert not appliance.server._thread.is_alive()
    appliance.stop()  # idempotent
    with socket.socket() as again:
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", port))  # the port is free again


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_sigterm_stops_the_process_cleanly_with_a_phone_watching(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "ducktable.device.cli", "--data-dir", str(tmp_path), "demo",
         "--port", str(port), "--pace", "0.05", "--seed", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )
    try:
        banner = process.stdout.readline()  # type: ignore[union-attr]
        assert "ducktable demo" in banner
        assert f"http://127.0.0.1:{port}/" in process.stdout.readline()  # type: ignore[union-attr]
        assert wait_for(lambda: get_json(port, "/match/1/view.json")[1]["seq"] > 3)
        watcher = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        watcher.request("GET", "/match/1/live")
        stream = watcher.getresponse()
        assert stream.readline() == b"retry: 1000\n"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        assert "stopped in" in process.stderr.read()  # type: ignore[union-attr]
        watcher.close()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    store = MatchStore(tmp_path / "matches.sqlite3")  # the log is intact and replays
    try:
        assert store.state(1).history and store.list_matches()[0].event_count > 3
    finally:
        store.close()


class Guess:
    def __init__(self, event: Event, why: str = "unsure") -> None:
        self.event = event
        self.why = why


def test_camera_status_keeps_one_notice_per_question_and_counts_changes() -> None:
    status = CameraStatus()
    start = status.snapshot()["version"]
    status.report(1, 0, Guess(DEAL), None)
    first = status.notice()
    assert first is not None and first.event == DEAL and first.position == 0
    status.report(1, 0, Guess(DEAL), None)  # the same question: same notice, nothing new
    assert status.notice() == first and status.snapshot()["version"] == start + 1
    status.report(1, 0, Guess(DEAL, "now for another reason"), None)
    again = status.notice(first.id)
    assert again is not None and again.why == "now for another reason"
    other = Event("deal", None, {"face_up": ["red-2", None, None]})
    status.report(1, 0, Guess(other), "the camera seems to have moved")
    second = status.notice()
    assert second is not None and second.id != first.id and status.notice(first.id) is None
    assert status.snapshot()["problem"] == "the camera seems to have moved"
    assert status.answered(first.id) is None  # an old question cannot be answered
    assert status.answered(second.id) == second and status.notice() is None
    status.report(1, 0, None, None)
    assert status.snapshot() == {"version": start + 5, "problem": None, "notice": None, "seen": None}


def test_camera_status_shows_the_cards_seen_before_their_event_and_wakes_the_scoreboards() -> None:
    status = CameraStatus()
    woken: list[int] = []
    status.on_change = lambda: woken.append(status.snapshot()["version"])
    status.report(1, 0, None, None, [("seat1.reveal", ["blue-3", "red-3"])])
    assert status.snapshot()["seen"] == {"match_id": 1, "zones": [{"zone": "seat1.reveal",
                                                                   "cards": ["blue-3", "red-3"]}]}
    status.report(1, 0, None, None, [("seat1.reveal", ("blue-3", "red-3"))])  # nothing new
    assert len(woken) == 1
    status.report(1, 1, None, None, ())  # the play was recorded
    assert status.snapshot()["seen"] is None and len(woken) == 2
    status.report(None, 0, None, None, [("seat1.reveal", ["blue-3"])])  # no match followed
    assert status.snapshot()["seen"] is None and len(woken) == 2
    status.set_problem("the camera seems to have moved")
    assert len(woken) == 3 and woken[-1] == status.snapshot()["version"]


def test_the_camera_producer_reports_what_its_reader_sees(store: MatchStore) -> None:
    store.create_match("duck", ["A", "B", "C"], observer=True)

    class Reader:
        pending = None
        problem = None
        news = (("seat1.reveal", ("blue-3",)),)

        def events(self, state: Any, frame: Any) -> list[Event]:
            return []

    frames = iter(["frame", None])

    class Frames:
        def read(self) -> Any:
            return next(frames)

        def __enter__(self) -> Frames:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    status = CameraStatus()
    CameraProducer(lambda: Frames(), Reader(), status).run(TableLink(store, threading.Event()))
    seen = status.snapshot()["seen"]
    assert seen is not None and seen["zones"] == [{"zone": "seat1.reveal", "cards": ["blue-3"]}]


def test_the_appliance_gives_the_camera_status_to_the_web_app(store: MatchStore, tmp_path: Path) -> None:
    status = CameraStatus()
    appliance = Appliance(store, {"INSTANCE_PATH": str(tmp_path), "TABLE_PIN": "1234"},
                          host="127.0.0.1", port=0, threads=2, camera=status)
    appliance.start()
    try:
        assert appliance.app.config["CAMERA"] is status
        assert status.on_change == store.wake_waiters  # the live scoreboards redraw at once
        status.set_problem("no table calibration; run `ducktable calibrate`")
        code, view = get_json(appliance.server.port, "/match/1/view.json")
        assert code == 404
        info = store.create_match("duck", ["A", "B", "C"], observer=True)
        code, view = get_json(appliance.server.port, f"/match/{info.id}/view.json")
        assert code == 200 and "ducktable calibrate" in view["camera"]["problem"]
    finally:
        appliance.stop()


def test_the_camera_follows_only_the_newest_match_and_only_while_it_is_unfinished(
        store: MatchStore) -> None:
    from tests.web.conftest import play_bots

    table = TableLink(store, threading.Event())
    old = store.create_match("duck", ["A", "B", "C"], observer=True)  # left unfinished
    assert table.current_match() == store.match(old.id)
    newest = store.create_match("duck", ["A", "B", "C"], observer=False)
    assert table.current_match() == store.match(newest.id)
    play_bots(store, newest.id, 100_000)
    assert store.match(newest.id).finished
    assert table.current_match() is None  # not last week's match: nothing to report to
