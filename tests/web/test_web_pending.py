"""The camera's questions on the phones (web/camera.py): "camera unsure - is this it?" with
Confirm and Reject, the camera's problems on the scoreboard, PIN and CSRF on both answers."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from ducktable.device.runloop import CameraStatus
from ducktable.device.store import MatchStore
from ducktable.rules.core import Event
from ducktable.web import create_app
from flask import Flask

from .conftest import PIN, Phone, new_duck
from .test_web_garbage import garbage_form
from .test_web_pages import read_board_messages

DEAL = Event("deal", None, {"face_up": ["blue-3", None, None]}, 1000, "camera")


@dataclass
class Guess:
    """What a table reader keeps as pending: the event and why it is unsure."""

    event: Event
    why: str = "the cards in seat0.discard were read with low confidence (0.30)"


@pytest.fixture
def camera() -> CameraStatus:
    return CameraStatus()


@pytest.fixture
def app(store: MatchStore, tmp_path: Path, camera: CameraStatus) -> Flask:
    return create_app({
        "TESTING": True, "STORE": store, "TABLE_PIN": PIN, "SECRET_KEY": "test-secret-" + "x" * 32,
        "INSTANCE_PATH": str(tmp_path), "PIN_FILE": str(tmp_path / "table-pin"),
        "PARTY_FILE": str(tmp_path / "party.json"), "LIVE_WAIT_S": 0.05, "CAMERA": camera,
    })


def ask(camera: CameraStatus, match_id: int, event: Event = DEAL, position: int = 0) -> int:
    camera.report(match_id, position, Guess(event), None)
    notice = camera.notice()
    assert notice is not None
    return notice.id


def test_a_pending_camera_event_is_shown_with_confirm_reject_and_the_entry_form(
        unlocked: Phone, store: MatchStore, camera: CameraStatus) -> None:
    info = new_duck(store)
    notice = ask(camera, info.id)
    page = unlocked.get(f"/match/{info.id}").get_data(as_text=True)
    assert "Camera unsure" in page and "low confidence" in page
    assert f'action="/match/{info.id}/camera/{notice}/confirm"' in page
    assert f'action="/match/{info.id}/camera/{notice}/reject"' in page
    assert f'href="/match/{info.id}/entry"' in page and 'title="blue-3"' in page
    view = unlocked.client.get(f"/match/{info.id}/view.json").get_json()
    assert view["camera"]["notice"]["event"]["type"] == "deal"
    other = new_duck(store)  # another match's board does not show it
    assert "Camera unsure" not in unlocked.get(f"/match/{other.id}").get_data(as_text=True)


def test_confirm_records_the_camera_event_and_the_question_goes(
        unlocked: Phone, store: MatchStore, camera: CameraStatus) -> None:
    info = new_duck(store)
    notice = ask(camera, info.id)
    response = unlocked.post(f"/match/{info.id}/camera/{notice}/confirm")
    assert response.status_code == 303 and response.location.endswith(f"/match/{info.id}")
    assert [e.dumps() for e in store.events(info.id)] == [DEAL.dumps()]
    assert camera.notice() is None
    camera.report(info.id, 0, Guess(DEAL), None)  # a reader that has not caught up yet
    assert camera.notice() is None
    again = unlocked.post(f"/match/{info.id}/camera/{notice}/confirm")
    assert again.status_code == 409 and "answered" in again.get_data(as_text=True)
    assert len(store.events(info.id)) == 1


def test_confirm_and_reject_need_the_pin_and_the_csrf_token(
        app: Flask, store: MatchStore, camera: CameraStatus) -> None:
    info = new_duck(store)
    notice = ask(camera, info.id)
    locked = Phone(app.test_client())
    locked.get(f"/match/{info.id}")
    for answer in ("confirm", "reject"):
        url = f"/match/{info.id}/camera/{notice}/{answer}"
        assert locked.post(url).status_code == 403
        assert locked.post(url, {"pin": "0000"}).status_code == 403
        assert locked.post(url, {"pin": PIN}, token=False).status_code == 400
    assert store.events(info.id) == [] and camera.notice() is not None
    assert locked.post(f"/match/{info.id}/camera/{notice}/confirm", {"pin": PIN}).status_code == 303
    assert len(store.events(info.id)) == 1


def test_reject_tells_the_camera_and_leads_to_the_entry_form(
        unlocked: Phone, store: MatchStore, camera: CameraStatus) -> None:
    info = new_duck(store)
    notice = ask(camera, info.id)
    response = unlocked.post(f"/match/{info.id}/camera/{notice}/reject")
    assert response.status_code == 303 and response.location.endswith(f"/match/{info.id}/entry")
    assert [e.dumps() for e in camera.take_rejections()] == [DEAL.dumps()]
    assert camera.take_rejections() == [] and camera.notice() is None
    camera.report(info.id, 0, Guess(DEAL), None)
    assert camera.notice() is None  # not asked again
    assert store.events(info.id) == []


def test_a_question_the_game_moved_past_is_not_recorded(
        unlocked: Phone, store: MatchStore, camera: CameraStatus) -> None:
    info = new_duck(store)
    notice = ask(camera, info.id)
    assert store.submit(info.id, Event("deal", None, {"face_up": ["red-1", None, None]})).ok
    response = unlocked.post(f"/match/{info.id}/camera/{notice}/confirm")
    assert response.status_code == 409 and "moved on" in response.get_data(as_text=True)
    assert [e.data["face_up"][0] for e in store.events(info.id)] == ["red-1"]


def test_DUCK_A1_a_guess_the_rules_refuse_is_shown_with_the_verdict_not_recorded(
        unlocked: Phone, store: MatchStore, camera: CameraStatus) -> None:
    info = new_duck(store)
    notice = ask(camera, info.id, Event("play", 1, {"cards": ["blue-3"]}, 5, "camera"))
    response = unlocked.post(f"/match/{info.id}/camera/{notice}/confirm")
    assert response.status_code == 422 and 'class="verdict' in response.get_data(as_text=True)
    assert store.events(info.id) == []


def test_the_camera_problem_is_on_the_scoreboard_and_in_the_live_stream(
        app: Flask, store: MatchStore, camera: CameraStatus) -> None:
    info = new_duck(store)
    camera.set_problem("no table calibration at /x.json; run `ducktable calibrate` first")
    page = app.test_client().get(f"/match/{info.id}").get_data(as_text=True)
    assert "run `ducktable calibrate` first" in page
    response = app.test_client().get(f"/match/{info.id}/live", buffered=False)
    first = read_board_messages(response, 1)[0]
    assert "ducktable calibrate" in first["camera"]
    camera.report(info.id, 0, Guess(DEAL), None)  # the problem is gone, a question came
    second = read_board_messages(response, 1)[0]
    assert "Camera unsure" in second["camera"] and "calibrate" not in second["camera"]
    response.close()


def test_garbage_to_the_camera_routes_never_gives_a_500(
        unlocked: Phone, app: Flask, store: MatchStore, camera: CameraStatus) -> None:
    info = new_duck(store)
    notice = ask(camera, info.id)
    rng = random.Random(5)
    for match_id in (info.id, 0, 2**70):
        for notice_id in (notice, 0, 10**12):
            for answer in ("confirm", "reject"):
                url = f"/match/{match_id}/camera/{notice_id}/{answer}"
                for _ in range(3):
                    response = unlocked.post(url, garbage_form(rng))
                    assert response.status_code < 500, url
                    if response.status_code >= 400:
                        assert 'class="problem"' in response.get_data(as_text=True)
                assert unlocked.client.get(url).status_code == 405
    without = create_app({**app.config, "CAMERA": None})
    phone = Phone(without.test_client())
    phone.unlock()
    response = phone.post(f"/match/{info.id}/camera/1/confirm")
    assert response.status_code == 404 and "no camera" in response.get_data(as_text=True)
