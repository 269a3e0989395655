"""The camera's question about an earlier misread (web/camera.py): "the camera read blue-8 at
event 12: was it ...?" with one button per card; one tap corrects that event in the store (the
old one stays in the audit trail) and records the event the rules refused because of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from ducktable.device.runloop import CameraStatus
from ducktable.device.store import MatchStore
from ducktable.rules import make_game
from ducktable.rules.core import Event
from ducktable.rules.infer_base import MAX_MENDS_ASKED
from ducktable.rules.misread import Mend, ask, find_mends, relabel, same_suspect
from ducktable.sim import table_video
from ducktable.sim.table_video_grey import grey_bot_game
from ducktable.web import create_app
from flask import Flask

from .conftest import PIN, Phone


@dataclass
class Refused:
    """What the camera reader keeps pending when the rules refuse what it sees."""

    event: Event
    why: str
    mends: tuple[Mend, ...]


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


def camera_match(store: MatchStore, kind: str, game: Any, upto: int,
                 slip: Callable[[int, Event], Event]) -> tuple[int, list[Event], str, tuple[Mend, ...]]:
    """A camera-only match of the bot ``game`` whose first ``upto`` true events were recorded
    through ``slip`` (the camera's mistake on one of them); the rules' reason for refusing the
    true event that follows, and the camera's choices for the suspect it points back to."""
    g = make_game(kind, game.options)
    truth = [replace(g.public_event(e), source="camera") for e in game.events]
    info = store.create_match(kind, list(game.players), dict(game.options), observer=True)
    for k, event in enumerate(truth[:upto]):
        assert store.submit(info.id, slip(k, event)).ok
    state = store.state(info.id)
    verdict = state.check(truth[upto])
    assert not verdict.ok
    mends = tuple(same_suspect(find_mends(state, truth[upto], reason=verdict.reason))[:MAX_MENDS_ASKED])
    return info.id, truth, verdict.reason, mends


def misread_match(store: MatchStore) -> tuple[int, list[Event], Refused]:
    """A DUCK match whose camera recorded event 12 (a blue 7 played) as a blue 8, up to the true
    event the rules then refuse, with the camera's question about it."""
    match_id, truth, reason, mends = camera_match(
        store, "duck", table_video.bot_game("duck", 0, 3), 13,
        lambda k, event: relabel(event, "blue-7", "blue-8") if k == 11 else event)
    assert "blue-8" in reason
    return match_id, truth, Refused(truth[13], f"the rules refuse it: {reason}; {mends[0].question()}", mends)


def asked(camera: CameraStatus, match_id: int, at: int, refused: Refused) -> Any:
    """The notice the phones show once the camera reader reports ``refused`` at event ``at``."""
    camera.report(match_id, at, refused, None)
    notice = camera.notice()
    assert notice is not None
    return notice


def test_the_question_offers_one_button_per_card_and_one_tap_mends_the_earlier_event(
        unlocked: Phone, store: MatchStore, camera: CameraStatus) -> None:
    match_id, truth, refused = misread_match(store)
    notice = asked(camera, match_id, 13, refused)
    assert notice.mends == refused.mends
    page = unlocked.get(f"/match/{match_id}").get_data(as_text=True)
    assert "Event 12: the camera read <strong>blue-8</strong>" in page
    choice = [m.now for m in refused.mends].index("blue-7")
    assert f'action="/match/{match_id}/camera/{notice.id}/mend/{choice}"' in page
    assert f'href="/match/{match_id}/events/11/correct"' in page  # another card: the correction form
    view = unlocked.client.get(f"/match/{match_id}/view.json").get_json()
    assert view["camera"]["notice"]["mends"][choice]["now"] == "blue-7"

    response = unlocked.post(f"/match/{match_id}/camera/{notice.id}/mend/{choice}")
    assert response.status_code == 303 and response.location.endswith(f"/match/{match_id}")
    events = store.events(match_id)
    assert [e.content_key() for e in events] == [e.content_key() for e in truth[:14]]
    corrected = [a for a in store.audit(match_id) if a["action"] == "correct"]
    assert len(corrected) == 1 and corrected[0]["index"] == 11
    assert corrected[0]["previous"]["data"]["cards"] == ["blue-8"] and "blue-7" in corrected[0]["reason"]
    assert camera.notice() is None


def test_a_mend_needs_the_pin_and_a_card_offered_and_the_game_where_it_was_asked(
        app: Flask, unlocked: Phone, store: MatchStore, camera: CameraStatus) -> None:
    match_id, truth, refused = misread_match(store)
    notice = asked(camera, match_id, 13, refused)
    locked = Phone(app.test_client())
    locked.get(f"/match/{match_id}")
    assert locked.post(f"/match/{match_id}/camera/{notice.id}/mend/0").status_code == 403
    assert unlocked.post(f"/match/{match_id}/camera/{notice.id}/mend/{len(refused.mends)}").status_code == 404
    assert store.undo(match_id) is not None  # the game is no longer where the camera asked
    response = unlocked.post(f"/match/{match_id}/camera/{notice.id}/mend/0")
    assert response.status_code == 409 and "moved on" in response.get_data(as_text=True)
    assert store.events(match_id)[11].data["cards"] == ["blue-8"]  # nothing changed
    assert not [a for a in store.audit(match_id) if a["action"] == "correct"]


def miscounted_match(store: MatchStore) -> tuple[int, list[Event], Refused]:
    """A Grey Duck match whose camera recorded event 8 (a lone yellow 1) as two yellow 1s, up to
    the true event the rules then refuse (a lone 3), with the camera's question about it."""
    match_id, truth, reason, mends = camera_match(
        store, "grey", grey_bot_game(0, 3)[0], 8,
        lambda k, event: replace(event, data={"cards": ["yellow-1", "yellow-1"]}) if k == 7 else event)
    assert "Flock of 2" in reason
    assert [m.count for m in mends] == [True]
    return match_id, truth, Refused(truth[8], f"the rules refuse it: {reason}; {ask(mends)}", mends)


def test_a_card_too_many_is_asked_as_a_count_and_one_tap_mends_it(
        unlocked: Phone, store: MatchStore, camera: CameraStatus) -> None:
    match_id, truth, refused = miscounted_match(store)
    notice = asked(camera, match_id, 8, refused)
    page = unlocked.get(f"/match/{match_id}").get_data(as_text=True)
    assert "Event 8: the camera saw <strong>2 cards</strong>" in page and "Were there" in page
    assert f'action="/match/{match_id}/camera/{notice.id}/mend/0"' in page
    assert 'title="event 8 showed yellow-1, not yellow-1 yellow-1">1: ' in page
    assert "other cards: correct event 8" in page
    view = unlocked.client.get(f"/match/{match_id}/view.json").get_json()
    assert view["camera"]["notice"]["mends"][0]["count"] is True

    response = unlocked.post(f"/match/{match_id}/camera/{notice.id}/mend/0")
    assert response.status_code == 303 and response.location.endswith(f"/match/{match_id}")
    assert [e.content_key() for e in store.events(match_id)] == [e.content_key() for e in truth[:9]]
    corrected = [a for a in store.audit(match_id) if a["action"] == "correct"]
    assert len(corrected) == 1 and corrected[0]["index"] == 7
    assert corrected[0]["previous"]["data"]["cards"] == ["yellow-1", "yellow-1"]
    assert "saw 2 card(s)" in corrected[0]["reason"] and "there were 1, yellow-1" in corrected[0]["reason"]
