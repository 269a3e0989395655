"""The camera wired into the appliance: frames -> vision/reader.py -> the match store, the
camera's doubts and problems -> CameraStatus -> the phones, and ``ducktable run`` with a folder
of frames as its camera.

Frames are rendered DUCK table pictures (tests/vision/test_reader.py makes and caches them).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from ducktable.device import paths
from ducktable.device.camera import SyntheticSource
from ducktable.device.runloop import CameraProducer, CameraStatus, TableLink
from ducktable.device.store import MatchStore
from ducktable.rules.core import Event
from ducktable.vision import reader as table_reader
from ducktable.vision.reader import CameraTableReader, calibration_path
from ducktable.vision.store_sync import event_key
from ducktable.web import create_app

from tests.vision.test_reader import calibrate, classifier, video

ROOT = Path(__file__).resolve().parents[2]
PIN = "4821"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MatchStore]:
    s = MatchStore(tmp_path / paths.DATABASE_NAME)
    yield s
    s.close()


def new_match(store: MatchStore) -> int:
    return store.create_match("duck", ["P1", "P2", "P3"], observer=True).id


def producer_for(data_dir: Path, frames: int, status: CameraStatus,
                 at_frame: Callable[[int], None] = lambda index: None) -> CameraProducer:
    """The camera loop on the rendered game's first ``frames`` frames; ``at_frame(i)`` runs just
    before frame ``i`` is handed over (what people do at the table meanwhile)."""

    def render(index: int) -> np.ndarray:
        at_frame(index)
        return video().frame(index)

    reader = CameraTableReader(calibration_path(data_dir), classifier=classifier())
    return CameraProducer(lambda: SyntheticSource(frames=frames, interval_ms=66.0, render=render),
                          reader, status)


def test_the_reader_uses_the_data_folder_names_of_device_paths() -> None:
    assert table_reader.CALIBRATION_FOLDER == paths.CALIBRATION_NAME
    assert table_reader.DECKS_FOLDER == paths.DECKS_NAME


def test_DUCK_camera_loop_records_the_true_events_in_the_store(tmp_path: Path, store: MatchStore) -> None:
    calibrate(tmp_path)
    match_id = new_match(store)
    status = CameraStatus()
    v = video()
    producer_for(tmp_path, v.first_frame_of_event(3) + 12, status).run(TableLink(store, threading.Event()))
    events = store.events(match_id)
    assert [event_key(e) for e in events] == [event_key(t) for t in v.truth[:3]]
    assert all(e.source == "camera" for e in events)
    snap = status.snapshot()
    assert snap["notice"] is None
    assert "pictures have run out" in snap["problem"]  # the synthetic video ended


def test_DUCK_undo_on_the_phone_then_confirm_of_the_camera_question_and_the_camera_goes_on(
        tmp_path: Path, store: MatchStore) -> None:
    """The phone undoes the camera's deal; the camera does not record it again but asks; the
    phone confirms through the web route; the camera follows and records the next play."""
    calibrate(tmp_path)
    match_id = new_match(store)
    status = CameraStatus()
    app = create_app({"TESTING": True, "STORE": store, "TABLE_PIN": PIN, "CAMERA": status,
                      "SECRET_KEY": "s" * 40, "INSTANCE_PATH": str(tmp_path)})
    phone = app.test_client()
    v = video()
    undo_at = v.first_frame_of_event(1) + 12  # the deal is read at + 10 (8 reads of its card)
    confirm_at = undo_at + 4
    seen: dict[str, Any] = {}

    def people(index: int) -> None:
        if index == undo_at:
            assert [e.type for e in store.events(match_id)] == ["deal"]
            assert store.undo(match_id, "wrong, says a player") is not None
        if index == confirm_at:
            notice = status.notice()
            assert notice is not None and notice.event.type == "deal"
            seen["why"] = notice.why
            assert store.events(match_id) == []  # not recorded again meanwhile
            page = phone.get(f"/match/{match_id}").get_data(as_text=True)
            assert "Camera unsure" in page
            token = page.split('name="csrf_token" value="')[1].split('"')[0]
            response = phone.post(f"/match/{match_id}/camera/{notice.id}/confirm",
                                  data={"csrf_token": token, "pin": PIN})
            assert response.status_code == 303

    producer = producer_for(tmp_path, v.first_frame_of_event(2) + 14, status, people)
    producer.run(TableLink(store, threading.Event()))
    assert "took this event back" in seen["why"]
    events = store.events(match_id)
    assert len(events) >= 2  # the confirmed deal, then the play (and maybe the draw) seen alone
    assert [event_key(e) for e in events] == [event_key(t) for t in v.truth[:len(events)]]
    assert [a["action"] for a in store.audit(match_id)][:5] == ["create", "submit", "undo", "submit", "submit"]


def test_DUCK_a_new_match_of_the_same_players_is_followed_afresh(tmp_path: Path, store: MatchStore) -> None:
    """A new match looks like the old one undone to the end; the camera must not treat it so.
    The table still shows the old match's start card, which no hand was seen laying in the new
    match: the camera asks about it (it is not "taken back", and not recorded by itself)."""
    calibrate(tmp_path)
    first = new_match(store)
    v = video()
    second: list[int] = []

    def start_again(index: int) -> None:
        if index == v.first_frame_of_event(1) + 12:  # the deal is read at + 10
            assert [e.type for e in store.events(first)] == ["deal"]
            second.append(new_match(store))

    status = CameraStatus()
    producer_for(tmp_path, v.first_frame_of_event(1) + 22, status, start_again).run(
        TableLink(store, threading.Event()))
    assert store.events(second[0]) == [] and len(store.events(first)) == 1
    notice = status.notice()
    assert notice is not None and notice.match_id == second[0]
    assert event_key(notice.event) == event_key(v.truth[0]) and "no hand seen" in notice.why


def test_a_rejected_question_reaches_the_reader(tmp_path: Path, store: MatchStore) -> None:
    calibrate(tmp_path)
    match_id = new_match(store)
    status = CameraStatus()
    deal = Event("deal", None, {"face_up": ["blue-1", None, None]}, 5, "camera")
    rejected: list[Event] = []

    class Reader:
        pending: Any = None
        problem = None

        def events(self, state: Any, frame: Any) -> list[Event]:
            self.pending = None if rejected else type("Guess", (), {"event": deal, "why": "unsure"})()
            return []

        def reject(self, event: Event) -> None:
            rejected.append(event)

    def answer(index: int) -> np.ndarray:
        if index == 2:
            notice = status.notice()
            assert notice is not None and notice.match_id == match_id
            assert status.reject(notice.id) is not None
        return np.zeros((8, 8, 3), np.uint8)

    source = SyntheticSource(frames=4, render=answer)
    CameraProducer(lambda: source, Reader(), status).run(TableLink(store, threading.Event()))
    assert rejected == [deal] and status.notice() is None


def test_missing_calibration_is_told_on_the_scoreboard_not_raised(tmp_path: Path, store: MatchStore) -> None:
    new_match(store)
    status = CameraStatus()
    seen: list[str | None] = []

    def look(index: int) -> None:
        if index == 3:
            seen.append(status.problem)

    producer_for(tmp_path, 4, status, look).run(TableLink(store, threading.Event()))
    assert seen[0] is not None and "ducktable calibrate" in seen[0]


def test_garbage_frames_and_a_failing_reader_do_not_stop_the_camera(tmp_path: Path, store: MatchStore) -> None:
    calibrate(tmp_path)
    new_match(store)
    status = CameraStatus()
    garbage: list[Any] = ["text", np.zeros((3, 3)), np.zeros((720, 1280, 3), np.float64), object()]

    class Source:
        def __init__(self) -> None:
            self.items = list(garbage)

        def read(self) -> Any:
            return self.items.pop(0) if self.items else None

        def __enter__(self) -> Source:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    reader = CameraTableReader(calibration_path(tmp_path), classifier=classifier())
    CameraProducer(Source, reader, status).run(TableLink(store, threading.Event()))
    assert reader.skipped == len(garbage)

    class Broken:
        def events(self, state: Any, frame: Any) -> list[Event]:
            raise RuntimeError("boom")

    broken = CameraProducer(Source, Broken(), status)
    broken.run(TableLink(store, threading.Event()))
    assert broken.failures == len(garbage)


def test_a_camera_that_cannot_be_opened_is_a_problem_line_and_tried_again(
        store: MatchStore) -> None:
    new_match(store)
    status = CameraStatus()
    stop = threading.Event()
    tries: list[float] = []

    def no_camera() -> Any:
        tries.append(time.monotonic())
        if len(tries) == 3:
            stop.set()
        raise OSError("no camera, file or folder called 'nothing'")

    producer = CameraProducer(no_camera, CameraTableReader(Path("/nonexistent.json")), status,
                              reopen_pauses_s=(0.01,))
    producer.run(TableLink(store, stop))
    assert len(tries) == 3 and producer.reopened == 2
    assert status.problem is not None and "cannot be opened" in status.problem
    assert "trying again in 0 s" in status.problem and "[camera] settings" in status.problem


class Lost:
    """A camera source that gives ``frames`` pictures, then is lost (``last_error``)."""

    def __init__(self, frames: int, lost: bool = True) -> None:
        self.left, self.lost = frames, lost
        self.last_error: str | None = None

    def read(self) -> Any:
        if self.left == 0:
            self.last_error = "camera 0 stopped delivering frames; gave up" if self.lost else None
            return None
        self.left -= 1
        return np.zeros((8, 8, 3), np.uint8)

    def __enter__(self) -> Lost:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def test_a_camera_lost_for_good_is_opened_again_and_the_scoreboard_follows(
        store: MatchStore) -> None:
    """A pulled cable: the source gives up; ducktable opens it again later, however long it
    takes, and the problem line goes once pictures come again."""
    new_match(store)
    status = CameraStatus()
    opens: list[Any] = [Lost(2), OSError("cannot open camera 0"), Lost(3, lost=False)]
    problems: list[str | None] = []

    def camera() -> Any:
        problems.append(status.problem)
        item = opens.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    class Reader:
        frames = 0

        def events(self, state: Any, frame: Any) -> list[Event]:
            Reader.frames += 1
            return []

    producer = CameraProducer(camera, Reader(), status, reopen_pauses_s=(0.01, 0.02))
    producer.run(TableLink(store, threading.Event()))
    assert Reader.frames == 5 and producer.reopened == 2
    assert problems[0] is None
    assert problems[1] is not None and "gave up; trying again" in problems[1]
    assert problems[2] is not None and "cannot be opened" in problems[2]
    assert status.problem is not None and "pictures have run out" in status.problem


def test_pictures_wait_for_a_match_instead_of_being_used_up(store: MatchStore) -> None:
    status = CameraStatus()
    seen: list[int] = []

    class Reader:
        def events(self, state: Any, frame: Any) -> list[Event]:
            seen.append(len(seen))
            return []

    source = SyntheticSource(frames=3, render=lambda i: np.zeros((8, 8, 3), np.uint8))
    stop = threading.Event()
    thread = threading.Thread(target=CameraProducer(lambda: source, Reader(), status).run,
                              args=(TableLink(store, stop),))
    thread.start()
    time.sleep(0.3)  # no match yet: the pictures are left alone
    assert seen == [] and thread.is_alive()
    new_match(store)
    thread.join(10)
    stop.set()
    assert seen == [0, 1, 2] and not thread.is_alive()


# ---- ducktable run, with a folder of frames as the camera --------------------------------------

def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get_json(port: int, path: str) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def test_DUCK_ducktable_run_reads_a_folder_of_frames_into_the_match(tmp_path: Path) -> None:
    data = tmp_path / "data"
    calibrate(data)
    frames = tmp_path / "frames"
    frames.mkdir()
    v = video()
    count = v.first_frame_of_event(2) + 12
    for index in range(count):
        cv2.imwrite(str(frames / f"frame-{index:04d}.png"), v.frame(index), [cv2.IMWRITE_PNG_COMPRESSION, 1])
    setup = MatchStore(data / paths.DATABASE_NAME)
    match_id = new_match(setup)
    setup.close()
    config = tmp_path / "ducktable.toml"
    config.write_text(f'[cues]\nenabled = false\n[table]\npin = "{PIN}"\n'
                      f'[camera]\nsource = "{frames}"\noptions = {{ interval_ms = 66 }}\n')
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "ducktable.device.cli", "--data-dir", str(data), "run", "--config",
         str(config), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"},
    )
    try:
        assert f"http://127.0.0.1:{port}/" in process.stdout.readline()  # type: ignore[union-attr]
        deadline = time.monotonic() + 90
        view: Any = {}
        while time.monotonic() < deadline:
            view = get_json(port, f"/match/{match_id}/view.json")
            if view["camera"] and "stopped" in (view["camera"]["problem"] or ""):
                break  # every frame was read
            time.sleep(0.3)
        assert view["camera"]["problem"] and "pictures have run out" in view["camera"]["problem"]
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    store = MatchStore(data / paths.DATABASE_NAME)
    try:
        events = store.events(match_id)
    finally:
        store.close()
    assert [event_key(e) for e in events] == [event_key(t) for t in v.truth[:2]]
