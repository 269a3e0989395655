"""The enrolment page in a real browser on a phone-sized screen (Playwright, Debian's chromium):
unlock, open a Grey Duck layout, choose a rendered photo of it (sim/), see it read with every
card outlined; the screenshot goes to test-artifacts/phone-enrol.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2
import pytest
from ducktable.device.enrolment import LayoutEnrolment
from ducktable.device.runloop import Appliance
from ducktable.device.store import MatchStore
from ducktable.sim.layout_photos import layout_photo
from ducktable.vision.layout_plan import plan_layouts
from playwright.sync_api import Page, expect

from .conftest import ARTIFACTS, PIN, OpenPhone, every_part_problems

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("enrol-browser")
    store = MatchStore(data / "matches.sqlite3")
    appliance = Appliance(store, {"INSTANCE_PATH": str(data), "TABLE_PIN": PIN,
                                  "ENROLMENT": LayoutEnrolment(data)},
                          host="127.0.0.1", port=0, threads=4)
    appliance.start()
    try:
        yield f"http://127.0.0.1:{appliance.server.port}"
    finally:
        appliance.stop()
        store.close()


@pytest.fixture
def page(open_phone: OpenPhone) -> Page:
    return open_phone(timeout_ms=60_000, axe=True)  # reading the photo on a busy machine


def test_a_layout_photographed_and_read_on_a_phone(page: Page, url: str, tmp_path: Path) -> None:
    photo = tmp_path / "layout.jpg"
    cv2.imwrite(str(photo), layout_photo(plan_layouts("grey")[0], 1, 5).image)
    page.goto(f"{url}/enrol/")
    assert every_part_problems(page, "enrol games") == []
    page.click("text=Grey Duck")
    page.wait_for_url("**/enrol/grey")
    page.wait_for_load_state()  # measured once its style sheet is in
    assert every_part_problems(page, "enrol layouts") == []
    page.click("text=Layout 1, round 1")
    expect(page.locator("td.enrol-place").first).to_have_text("yellow-1")
    page.fill('input[name="pin"]', PIN)
    page.set_input_files('input[name="photo"]', str(photo))
    page.click("text=Read the photo")
    expect(page.locator("text=Every card was read at its place")).to_be_visible()
    image = page.locator("img.enrol-photo")
    expect(image).to_be_visible()
    assert image.evaluate("i => i.complete && i.naturalWidth") > 0
    assert every_part_problems(page, "enrol") == []
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "phone-enrol.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
