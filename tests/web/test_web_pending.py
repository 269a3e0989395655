"""The camera's questions on the phones (web/camera.py): "camera unsure - is this it?" with
Confirm and Reject, the camera's problems on the scoreboard, PIN and CSRF on both answers; and
the question's event typed on the Enter page instead (web/entry.py), which is recorded with the
camera's time, when the cards first showed, not the phone's later clock."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ducktable.device.runloop import CameraStatus
from ducktable.device.store import MatchStore
from ducktable.rules import make_game
from ducktable.rules.core import Event
from ducktable.rules.grey import GreyDuckState
from ducktable.web import create_app
from flask import Flask

from tests.rules.grey_helpers import AMY, CONNOR, MATT, NAMES, g, y

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


# ---- the question's event typed on the Enter page ------------------------------------------

GREY_4 = Event("grey", MATT, {"card": "grey-4"}, 1300, "camera")
"""Matt's grey 4, seen by the camera 200 ms before Amy laid her 7 7 7."""


def grey_race(store: MatchStore) -> int:
    """The rulebook's race: Connor plays 4 4 4 (1000 ms), Matt holds the grey 4, and Amy's 7 7 7
    (1500 ms) reached the store first. Returns the match id."""
    info = store.create_match("grey", NAMES[:4])
    fresh = make_game("grey").new_state(NAMES[:4])
    assert isinstance(fresh, GreyDuckState)
    deal = fresh.arranged_deal({CONNOR: g(1) + y(4, 4, 4), AMY: y(7, 7, 7), MATT: g(4)})
    for event in (deal, Event("play", CONNOR, {"cards": y(4, 4, 4)}, 1000),
                  Event("play", AMY, {"cards": y(7, 7, 7)}, 1500)):
        assert store.submit(info.id, event).ok
    return info.id


def type_grey(phone: Phone, match_id: int) -> Any:
    phone.get(f"/match/{match_id}/entry")
    return phone.post(f"/match/{match_id}/events", {"_type": "grey", "_seat": str(MATT), "card": "grey-4"})


def test_GREY_G1_a_typed_grey_the_camera_asked_about_races_on_the_camera_time(
        unlocked: Phone, store: MatchStore, camera: CameraStatus) -> None:
    """Typed after Amy's play, Matt's grey still wins: the camera saw it 200 ms earlier."""
    match = grey_race(store)
    camera.report(match, 3, Guess(GREY_4, "the grey 4 was read with low confidence"), None)
    response = type_grey(unlocked, match)
    assert response.status_code == 303
    events = store.events(match)
    last = events[-1]
    assert (last.type, last.seat, last.data, last.ts, last.source) == (
        "grey", MATT, {"card": "grey-4"}, 1300, "manual")
    assert len(events) == 4
    page = unlocked.get(f"/match/{match}/entry").get_data(as_text=True)
    assert "came first by 200 ms" in page and "Amy takes back" in page
    assert camera.notice() is None  # the question is settled
    camera.report(match, 3, Guess(GREY_4), None)  # a reader that has not caught up yet
    assert camera.notice() is None


def test_GREY_G1_without_the_camera_question_the_phone_clock_loses_the_race(
        unlocked: Phone, store: MatchStore) -> None:
    match = grey_race(store)
    response = type_grey(unlocked, match)
    assert response.status_code == 422 and "too late" in response.get_data(as_text=True)
    assert [e.type for e in store.events(match)] == ["deal", "play", "play"]


@pytest.mark.parametrize("asked, position, other_match", [
    (Event("grey", AMY, {"card": "grey-4"}, 1300, "camera"), 3, False),  # another seat
    (Event("grey", MATT, {"card": "grey-5"}, 1300, "camera"), 3, False),  # another card
    (GREY_4, 2, False),  # asked before Amy's play: another place in the log
    (GREY_4, 3, True),  # another match's question
])
def test_GREY_G1_a_typed_event_the_camera_did_not_ask_about_keeps_the_phone_time(
        unlocked: Phone, store: MatchStore, camera: CameraStatus, asked: Event, position: int,
        other_match: bool) -> None:
    match = grey_race(store)
    camera.report(grey_race(store) if other_match else match, position, Guess(asked), None)
    question = camera.notice()
    response = type_grey(unlocked, match)
    assert response.status_code == 422 and "too late" in response.get_data(as_text=True)
    assert len(store.events(match)) == 3
    assert camera.notice() == question  # still asked


def test_DUCK_S1_a_typed_deal_the_camera_asked_about_gets_its_time_and_stays_the_phones(
        unlocked: Phone, store: MatchStore, camera: CameraStatus) -> None:
    """The deal (DUCK-S1) is recorded as typed (source manual), dated by the camera."""
    info = new_duck(store)
    camera.report(info.id, 0, Guess(DEAL), None)
    unlocked.get(f"/match/{info.id}/entry")
    response = unlocked.post(f"/match/{info.id}/events", {"_type": "deal", "face_up.0": "blue-3"})
    assert response.status_code == 303
    [deal] = store.events(info.id)
    assert (deal.data, deal.ts, deal.source) == (DEAL.data, DEAL.ts, "manual")
    assert camera.notice() is None


def test_a_camera_status_that_fails_does_not_stop_an_entry(
        unlocked: Phone, store: MatchStore, camera: CameraStatus, monkeypatch: pytest.MonkeyPatch) -> None:
    info = new_duck(store)

    def broken() -> None:
        raise RuntimeError("camera thread gone")

    monkeypatch.setattr(camera, "snapshot", broken)
    unlocked.get(f"/match/{info.id}/entry")
    response = unlocked.post(f"/match/{info.id}/events", {"_type": "deal", "face_up.0": "blue-3"})
    assert response.status_code == 303
    [deal] = store.events(info.id)
    assert deal.data == DEAL.data and deal.ts is not None and deal.ts > DEAL.ts


def test_cards_the_camera_sees_before_their_event_show_on_the_board_and_live(
        unlocked: Phone, app: Flask, store: MatchStore, camera: CameraStatus) -> None:
    info = new_duck(store)
    response = app.test_client().get(f"/match/{info.id}/live", buffered=False)
    assert "On the table now" not in read_board_messages(response, 1)[0]["camera"]
    camera.report(info.id, 0, None, None, [("seat1.reveal", ["blue-3", "red-3"])])
    page = unlocked.get(f"/match/{info.id}").get_data(as_text=True)
    assert "On the table now" in page and f"{info.players[1]}&#39;s hand shown" in page
    assert 'title="blue-3"' in page and 'title="red-3"' in page
    live = read_board_messages(response, 1)[0]["camera"]
    assert "On the table now" in live and 'title="red-3"' in live
    other = new_duck(store)  # another match's board does not show them
    assert "On the table now" not in unlocked.get(f"/match/{other.id}").get_data(as_text=True)
    camera.report(info.id, 1, None, None, ())
    assert "On the table now" not in unlocked.get(f"/match/{info.id}").get_data(as_text=True)
