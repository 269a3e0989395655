"""Real-browser checks on a phone-sized screen: Playwright driving Debian's chromium.

One appliance runs for the module (the real server, store and mock-pin cues) with the demo's
bots playing DUCK. The tests set up a DUCK match by tapping, watch the demo's scoreboard
update live, correct a misread card, run a dispute check, and save a screenshot of the
scoreboard to test-artifacts/scoreboard.png. Every wait is for an element or a text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ducktable.device.cues import CueBoard, Cues
from ducktable.device.demo import DemoTable
from ducktable.device.runloop import Appliance
from ducktable.device.store import MatchStore
from ducktable.rules.catalogue import rule_texts
from gpiozero.pins.mock import MockFactory
from playwright.sync_api import Browser, Page, ViewportSize, expect, sync_playwright

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
PHONE: ViewportSize = {"width": 390, "height": 844}
PIN = "4821"
WATCHABLE_PACE_S = 0.3


class Table:
    """The running appliance and what the tests need to know about it."""

    def __init__(self, appliance: Appliance, demo: DemoTable, store: MatchStore) -> None:
        self.appliance = appliance
        self.demo = demo
        self.store = store
        self.url = f"http://127.0.0.1:{appliance.server.port}"

    @property
    def demo_match(self) -> int:
        return self.demo.match_ids[0]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    data = tmp_path_factory.mktemp("browser")
    store = MatchStore(data / "matches.sqlite3")
    cues = Cues(CueBoard((5, 6, 13, 19, 26), 20, 21, pin_factory=MockFactory()))
    demo = DemoTable("duck", pace=0.0, seed=11)  # fast-forward to a scored round first
    appliance = Appliance(
        store, {"INSTANCE_PATH": str(data), "TABLE_PIN": PIN}, host="127.0.0.1", port=0,
        threads=16, producers=[demo], cues=cues,
    )
    appliance.start()
    running = Table(appliance, demo, store)
    try:
        tries = 2000  # 100 s at most
        while not demo.match_ids or store.state(running.demo_match).round < 2:
            assert appliance.stop_event.wait(0.05) is False
            tries -= 1
            assert tries > 0, "the demo did not score two rounds"
        demo.pace = WATCHABLE_PACE_S
        yield running
    finally:
        appliance.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True,
                                  has_touch=True)
    tab = context.new_page()
    tab.set_default_timeout(10_000)
    yield tab
    context.close()


def pick(form: Any, card: str) -> None:
    form.locator(f'button.pick[data-card="{card}"]').click()


def start_manual_match(page: Page, table: Table, names: list[str]) -> int:
    page.goto(f"{table.url}/setup")
    expect(page.locator('input[name="game"][value="duck"]')).to_be_checked()
    for seat, name in enumerate(names):
        page.fill(f'input[name="player_{seat}"]', name)
    page.fill('input[name="pin"]', PIN)
    page.click("text=Start the match")
    page.wait_for_url(re.compile(r"/match/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def test_scoreboard_screenshot(page: Page, table: Table) -> None:
    """Taken first, while the demo's match is the newest one (a clean picture for the README)."""
    page.goto(f"{table.url}/match/{table.demo_match}")
    expect(page.locator("#live-state")).to_have_attribute("data-state", "live")
    expect(page.locator("svg.chart polyline")).to_have_count(4)
    expect(page.locator(".belt").first).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "scoreboard.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


def test_setting_up_a_duck_game_by_tapping(page: Page, table: Table) -> None:
    page.goto(f"{table.url}/setup")
    expect(page.locator('input[name="player_5"]')).to_be_hidden()  # DUCK seats 3 to 5
    expect(page.locator('fieldset.options[data-game="grey"]')).to_be_hidden()
    match = start_manual_match(page, table, ["Ann", "Ben", "Cat"])
    expect(page.locator("#turn")).to_contain_text("round 1 must be dealt by Ann")
    expect(page.locator("th.seat")).to_have_count(3)
    info = table.store.match(match)
    assert info.players == ["Ann", "Ben", "Cat"] and info.observer


def test_scoreboard_updates_live_without_reloading(page: Page, table: Table) -> None:
    page.goto(f"{table.url}/match/{table.demo_match}")
    expect(page.locator("#live-state")).to_have_attribute("data-state", "live")
    page.evaluate("window.__stillTheSamePage = true")
    first = int(page.locator("#live").get_attribute("data-seq") or 0)
    page.wait_for_function(
        "first => Number(document.getElementById('live').dataset.seq) > first + 1", arg=first
    )
    shown = int(page.locator("#seq").get_attribute("data-seq") or 0)
    assert shown > first + 1  # the board itself was replaced, not just the counter
    assert page.evaluate("window.__stillTheSamePage") is True
    expect(page.locator(".leds .led.status")).to_have_count(1)  # the virtual LEDs
    expect(page.locator(".leds .led")).to_have_count(6)


def test_correcting_a_misread_card(page: Page, table: Table) -> None:
    """"That was a blue 5, not a blue 3" (DUCK-A1 plays), entered and fixed by tapping."""
    match = start_manual_match(page, table, ["Dee", "Eli", "Fox"])
    page.goto(f"{table.url}/match/{match}/entry")
    deal = page.locator("#form-deal form")
    deal.locator('input[name="face_up.0"]').click()
    pick(deal, "red-7")
    expect(deal.locator('input[name="face_up.0"]')).to_have_value("red-7")
    expect(deal.locator('input[name="pin"]')).to_have_count(0)  # unlocked at setup
    deal.locator("button[type=submit]").click()
    expect(page.locator(".flash.ok")).to_contain_text("Recorded #0 deal")

    expect(page.locator("#form-play")).to_have_attribute("open", "")  # a move is due now
    play = page.locator("#form-play form")
    expect(play.locator('select[name="_seat"]')).to_have_value("1")  # Eli is to move
    pick(play, "blue-3")
    play.locator("button[type=submit]").click()
    expect(page.locator(".flash.ok")).to_contain_text("Recorded #1 play")

    page.click("text=correct #1")
    fix = page.locator("form.event-form")
    expect(fix.locator('input[name="cards"]')).to_have_value("blue-3")
    fix.locator("button.pick-back").click()
    pick(fix, "blue-5")
    fix.locator('input[name="_reason"]').fill("the camera misread it")
    fix.locator("button[type=submit]").click()
    expect(page.locator(".flash.ok")).to_contain_text("event #1 corrected")
    assert table.store.events(match)[1].data == {"cards": ["blue-5"]}

    page.goto(f"{table.url}/match/{match}")
    expect(page.locator('table.seats span.card[title="blue-5"]')).to_be_visible()


def test_dispute_check_shows_the_verdict_and_rule_texts(page: Page, table: Table) -> None:
    """DUCK-A2: a run needs three or more consecutive cards of one colour."""
    match = start_manual_match(page, table, ["Gil", "Hal", "Ivy"])
    table.store.submit(match, {"type": "deal", "data": {"face_up": ["red-2", None, None]}})
    seq = table.store.seq(match)
    page.goto(f"{table.url}/match/{match}/dispute")
    expect(page.locator("#dispute-play")).to_have_attribute("open", "")  # the moves come first
    form = page.locator("#dispute-play form")
    pick(form, "yellow-4")
    pick(form, "yellow-5")
    form.locator("button[type=submit]").click()
    verdict = page.locator("#verdict")
    expect(verdict).to_have_class(re.compile("illegal"))
    expect(verdict.locator(".rules")).to_contain_text("DUCK-A2")
    expect(verdict.locator(".rules")).to_contain_text(rule_texts("duck")["DUCK-A2"])
    assert table.store.seq(match) == seq  # nothing changed
