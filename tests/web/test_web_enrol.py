"""The enrolment page end to end with the Flask test client: pick a game, see where the cards
go, upload rendered photos of a layout (sim/), see them read, refuse bad uploads with a
message, store the deck behind the PIN."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest
from ducktable.device.enrolment import LayoutEnrolment
from ducktable.device.store import MatchStore
from ducktable.sim.layout_photos import layout_photo
from ducktable.vision.layout_plan import plan_layouts
from ducktable.web import create_app
from flask import Flask

from .conftest import PIN, Phone


@pytest.fixture
def enrol_app(store: MatchStore, tmp_path: Path) -> Flask:
    return create_app({
        "TESTING": True, "STORE": store, "TABLE_PIN": PIN, "SECRET_KEY": "test-secret-" + "x" * 32,
        "INSTANCE_PATH": str(tmp_path), "PIN_FILE": str(tmp_path / "table-pin"),
        "ENROLMENT": LayoutEnrolment(tmp_path),
    })


@pytest.fixture
def phone(enrol_app: Flask) -> Phone:
    return Phone(enrol_app.test_client())


def jpeg(round_: int, seed: int, labels: list[str | None] | None = None) -> bytes:
    layout = plan_layouts("grey")[0]
    image = layout_photo(layout, round_, seed, labels=labels).image
    return cv2.imencode(".jpg", image)[1].tobytes()


def upload(phone: Phone, url: str, data: bytes, name: str = "layout.jpg") -> object:
    phone.get(url)
    return phone.post(url, {"photo": (io.BytesIO(data), name)},
                      content_type="multipart/form-data", follow_redirects=True)


def test_the_game_and_its_layouts_are_shown(phone: Phone) -> None:
    page = phone.get("/enrol/").get_data(as_text=True)
    assert "Grey Duck" in page and 'href="/enrol/duck"' in page
    page = phone.get("/enrol/duck").get_data(as_text=True)
    assert page.count(", round 2</a>") == 3 and "no photo yet" in page
    page = phone.get("/enrol/duck/1/1").get_data(as_text=True)
    assert "lifebelt-6-green" in page and 'capture="environment"' in page
    assert page.count('class="enrol-place empty"') == 2
    assert "lifebelt-10-green" in phone.get("/enrol/duck/1/2").get_data(as_text=True)


def test_an_unknown_game_or_layout_gets_a_message(phone: Phone) -> None:
    page = phone.get("/enrol/chess", follow_redirects=True).get_data(as_text=True)
    assert "no game called &#39;chess&#39;" in page
    page = phone.get("/enrol/duck/9/1", follow_redirects=True).get_data(as_text=True)
    assert "layout 9 does not exist" in page
    page = phone.get("/enrol/duck/1/3", follow_redirects=True).get_data(as_text=True)
    assert "round 3 does not exist" in page


def test_a_photo_needs_the_pin(phone: Phone) -> None:
    response = upload(phone, "/enrol/grey/1/1", jpeg(1, 5))
    assert response.status_code == 403  # type: ignore[attr-defined]
    assert phone.client.get("/enrol/grey/1/1/photo.jpg").status_code == 404


def test_bad_uploads_get_a_clear_message_never_a_500(phone: Phone) -> None:
    phone.unlock()
    cases = [(b"", "No photo was sent"), (b"not a picture at all", "not a photo that can be read"),
             (jpeg(1, 5)[:2000], "not a photo that can be read"),
             (cv2.imencode(".png", np.zeros((1, 1, 3), np.uint8))[1].tobytes(), "only 1 x 1 pixels")]
    for data, message in cases:
        response = upload(phone, "/enrol/grey/1/1", data, "x.jpg" if data else "")
        assert response.status_code == 200, message  # type: ignore[attr-defined]
        assert message in response.get_data(as_text=True)  # type: ignore[attr-defined]
    bomb = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + (30000).to_bytes(4, "big") * 2 + b"\x00" * 64
    page = upload(phone, "/enrol/grey/1/1", bomb, "big.png").get_data(as_text=True)  # type: ignore[attr-defined]
    assert "too many" in page
    huge = upload(phone, "/enrol/grey/1/1", b"\xff" * (17 * 1024 * 1024))
    assert huge.status_code == 413  # type: ignore[attr-defined]
    assert "larger than 16 MB" in huge.get_data(as_text=True)  # type: ignore[attr-defined]


def test_photos_read_shown_and_the_deck_stored(phone: Phone, tmp_path: Path) -> None:
    phone.unlock()
    page = upload(phone, "/enrol/grey/1/1", jpeg(1, 5)).get_data(as_text=True)  # type: ignore[attr-defined]
    assert "All 9 cards read" in page and "Every card was read at its place" in page
    picture = phone.client.get("/enrol/grey/1/1/photo.jpg")
    image = cv2.imdecode(np.frombuffer(picture.get_data(), np.uint8), cv2.IMREAD_COLOR)
    assert picture.mimetype == "image/jpeg" and image is not None
    layout = plan_layouts("grey")[0]
    missing = list(layout.labels(2))
    gone, missing[2] = missing[2], None
    page = upload(phone, "/enrol/grey/1/2", jpeg(2, 6, missing)).get_data(as_text=True)  # type: ignore[attr-defined]
    assert "8 of 9 cards read" in page and f"row 1 place 3 ({gone}): no card found" in page
    page = phone.get("/enrol/grey").get_data(as_text=True)
    assert "all 9 read" in page and "8 read, 1 to lay again" in page
    phone.get("/enrol/grey")
    page = phone.post("/enrol/grey/store").get_data(as_text=True)
    assert "Grey Duck enrolled" in page and "9 cards" in page
    assert "Not photographed yet: " in page and "grey-1" in page
    assert f"{gone}: only one usable photo" in page or "cannot be checked" in page
    assert (tmp_path / "decks" / "grey" / "photo_deck.npz").is_file()


def test_without_the_appliance_the_page_says_where_to_enrol(client: object) -> None:
    page = client.get("/enrol/").get_data(as_text=True)  # type: ignore[attr-defined]
    assert "ducktable enroll-layout" in page
