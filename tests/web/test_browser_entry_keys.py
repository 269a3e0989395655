"""In a real browser (Debian's chromium): the page script gives every POST form an entry key,
so a form sent twice records its entry once, and the live board's camera forms get the
phone's own CSRF token."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from ducktable.device.runloop import Appliance, CameraStatus
from ducktable.device.store import MatchStore
from ducktable.rules.core import Event
from playwright.sync_api import Page, expect

from .conftest import PIN

pytestmark = pytest.mark.browser

DEAL = Event("deal", None, {"face_up": ["blue-3", None, None]})


class Guess:
    """What a table reader reports when it is unsure (see device/runloop.py CameraStatus)."""

    def __init__(self, event: Event) -> None:
        self.event = event
        self.why = "unsure"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, MatchStore, CameraStatus]]:
    data = tmp_path_factory.mktemp("keys")
    store = MatchStore(data / "matches.sqlite3")
    camera = CameraStatus()
    appliance = Appliance(store, {"INSTANCE_PATH": str(data), "TABLE_PIN": PIN}, port=0,
                          camera=camera)
    appliance.start()
    try:
        yield f"http://127.0.0.1:{appliance.server.port}", store, camera
    finally:
        appliance.stop()


def unlock(page: Page, url: str) -> None:
    page.goto(f"{url}/unlock")
    page.fill('input[name="pin"]', PIN)
    page.locator('input[name="pin"]').press("Enter")
    page.wait_for_load_state()


def test_every_post_form_has_its_own_key_and_a_form_sent_twice_records_once(
        page: Page, served: tuple[str, MatchStore, CameraStatus]) -> None:
    url, store, _ = served
    info = store.create_match("duck", ["Ann", "Ben", "Cat"], observer=True)
    assert store.submit(info.id, DEAL).ok
    unlock(page, url)
    page.goto(f"{url}/match/{info.id}/entry")
    keys = page.eval_on_selector_all(
        'form[method="post"]', "forms => forms.map(f => f.querySelector('input[name=idempotency_key]')?.value)")
    assert keys and all(k and re.fullmatch(r"[0-9a-f]{32}", k) for k in keys)
    assert len(set(keys)) == len(keys)
    statuses = page.evaluate("""async () => {
      const form = [...document.querySelectorAll("form.event-form")]
        .find((f) => f.querySelector("input[name=_type]")?.value === "play");
      form.querySelector("[name=_seat]").value = "1";
      form.querySelector("[name=cards]").value = "blue-3";
      const body = new FormData(form);
      const sent = body.get("idempotency_key");
      const first = await fetch(form.action, { method: "POST", body, redirect: "manual" });
      const again = await fetch(form.action, { method: "POST", body, redirect: "manual" });
      const renewed = form.querySelector("input[name=idempotency_key]").value !== sent;
      return [first.type, again.type, renewed];
    }""")
    # both answered with the redirect, recorded once; the form's next use is a new entry
    assert statuses == ["opaqueredirect", "opaqueredirect", True]
    assert [e.type for e in store.events(info.id)] == ["deal", "play"]


def test_the_live_camera_question_carries_this_phones_token(
        page: Page, served: tuple[str, MatchStore, CameraStatus]) -> None:
    url, store, camera = served
    info = store.create_match("duck", ["Ann", "Ben", "Cat"], observer=True)
    unlock(page, url)
    page.goto(f"{url}/match/{info.id}")
    expect(page.locator("#live-state")).to_have_attribute("data-state", "live")
    camera.report(info.id, 0, Guess(DEAL), None)  # asked after the page loaded: by the stream
    confirm = page.locator("#camera form").first
    expect(confirm).to_be_visible()
    token = confirm.locator("input[name=csrf_token]").get_attribute("value")
    assert token and token == page.locator("#live").get_attribute("data-csrf")
    confirm.locator("button, input[type=submit]").first.click()
    page.wait_for_load_state()
    assert [e.type for e in store.events(info.id)] == ["deal"]
