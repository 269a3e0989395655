"""Real-browser checks on a phone-sized screen: Playwright driving Debian's chromium.

One appliance runs for the module (the real server, store and mock-pin cues) with the demo's
bots playing DUCK. The tests set up a DUCK match by tapping, watch the demo's scoreboard
update live, correct a misread card, run a dispute check, and save a screenshot of the
scoreboard to test-artifacts/scoreboard.png. Every wait is for an element or a text.

At arm's length: every page's text is 16 px or more (chart labels 12 px or more), the turn line
24 px and bold, nav links, buttons, inputs and menus 44 px tall or more; dark mode follows the
phone; the screen is kept awake during a game; a finished game offers Play again. Screenshots
of each go to test-artifacts/phone-*.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from ducktable.device.cues import CueBoard, Cues
from ducktable.device.demo import DemoTable
from ducktable.device.runloop import Appliance
from ducktable.device.store import MatchStore
from ducktable.rules.catalogue import rule_texts
from gpiozero.pins.mock import MockFactory
from playwright.sync_api import Page, expect

from .conftest import ARTIFACTS, PIN, OpenPhone, every_part_problems, measured

pytestmark = pytest.mark.browser

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


def pick(form: Any, card: str) -> None:
    form.locator(f'button.pick[data-card="{card}"]').click()


def start_manual_match(page: Page, table: Table, names: list[str]) -> int:
    page.goto(f"{table.url}/setup")
    expect(page.locator('input[name="game"][value="duck"]')).to_be_checked()
    for seat in range(5):  # DUCK's seats; the page comes filled in with the last match's names
        page.fill(f'input[name="player_{seat}"]', names[seat] if seat < len(names) else "")
    page.fill('input[name="pin"]', PIN)
    page.click("text=Start the match")
    page.wait_for_url(re.compile(r"/match/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def test_scoreboard_screenshot(page: Page, table: Table) -> None:
    """Taken first, while the demo's match is the newest one (a clean picture for the README)."""
    page.goto(f"{table.url}/match/{table.demo_match}")
    expect(page.locator("#live-state")).to_have_attribute("data-state", "live")
    expect(page.locator("svg.chart polyline")).to_have_count(4)
    expect(page.locator('svg.cardsvg[aria-label*="lifebelt"]').first).to_be_visible()
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
    expect(page.locator(".seatbox")).to_have_count(3)
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
    expect(page.locator(".flash.ok")).to_contain_text("Recorded #1 Deal a new round")

    expect(page.locator("#form-play")).to_have_attribute("open", "")  # a move is due now
    play = page.locator("#form-play form")
    expect(play.locator('select[name="_seat"]')).to_have_value("1")  # Eli is to move
    pick(play, "blue-3")
    play.locator("button[type=submit]").click()
    expect(page.locator(".flash.ok")).to_contain_text("Recorded #2 Play cards")

    page.click("text=correct #2")  # the pages count events from 1
    fix = page.locator("form.event-form")
    expect(fix.locator('input[name="cards"]')).to_have_value("blue-3")
    fix.locator("button.pick-back").click()
    pick(fix, "blue-5")
    fix.locator('input[name="_reason"]').fill("the camera misread it")
    fix.locator("button[type=submit]").click()
    expect(page.locator(".flash.ok")).to_contain_text("event #2 corrected")
    assert table.store.events(match)[1].data == {"cards": ["blue-5"]}

    page.goto(f"{table.url}/match/{match}")
    expect(page.locator('.seatbox svg.cardsvg[aria-label="blue 5"]')).to_be_visible()


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
    # the form that was checked stays open, filled in as it was sent, the answer inside it
    checked = page.locator("#dispute-play")
    expect(checked).to_have_attribute("open", "")
    expect(checked.locator("#verdict")).to_have_count(1)
    expect(checked.locator('input[name="cards"]')).to_have_value(re.compile(r"yellow-4.*yellow-5"))
    assert page.locator("details.event[open]").count() == 1


# --------------------------------------------------------------------------------------------
# The phone at arm's length
# --------------------------------------------------------------------------------------------

def shoot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"phone-{name}.png"), full_page=True)


def test_every_page_is_readable_and_tappable_at_arms_length(open_phone: OpenPhone,
                                                           table: Table) -> None:
    page = open_phone(axe=True)
    match = table.demo_match
    pages = {"board": f"/match/{match}", "setup": "/setup", "entry": f"/match/{match}/entry",
             "dispute": f"/match/{match}/dispute", "history": "/history", "unlock": "/unlock",
             "party": "/party", "join": "/join", "again": f"/match/{match}/again"}
    for name, url in pages.items():
        page.goto(table.url + url)
        if name == "board":
            expect(page.locator("svg.chart polyline").first).to_be_visible()
        sizes = measured(page)
        assert every_part_problems(page, name) == []
        assert sizes["navHidden"] <= 1, (name, sizes["navHidden"])  # every link on the screen
        if name == "board":
            assert sizes["axes"] and min(sizes["axes"]) >= 12, sizes["axes"]
            assert sizes["turnPx"] >= 24 and sizes["turnWeight"] >= 700, sizes
        if name == "unlock":
            box = page.locator('input[name="pin"]')
            assert (box.bounding_box() or {"height": 0})["height"] >= 44
            assert float(box.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 16
        shoot(page, name)


def test_dark_mode_follows_the_phone(open_phone: OpenPhone, table: Table) -> None:
    colours = {}
    for scheme in ("light", "dark"):
        tab = open_phone(color_scheme=scheme)
        tab.goto(f"{table.url}/match/{table.demo_match}")
        expect(tab.locator("#turn")).to_be_visible()
        colours[scheme] = tab.evaluate(
            "() => [getComputedStyle(document.body).backgroundColor,"
            " getComputedStyle(document.body).color]")
        shoot(tab, f"board-{scheme}")
    assert colours["light"][0] == "rgb(251, 250, 246)"
    assert colours["dark"][0] == "rgb(20, 20, 19)"  # a dark ground with light text
    assert colours["dark"][1] == "rgb(236, 235, 230)"


FAKE_WAKE_LOCK = """
window.__wakeRequests = 0;
window.__wakeSentinels = [];
Object.defineProperty(navigator, "wakeLock", { configurable: true, value: {
  request: async (kind) => {
    window.__wakeRequests += 1;
    const sentinel = new EventTarget();
    sentinel.released = false;
    sentinel.release = async () => { sentinel.released = true; sentinel.dispatchEvent(new Event("release")); };
    window.__wakeSentinels.push(sentinel);
    return sentinel;
  } } });
"""


def game_under_way(store: MatchStore) -> int:
    """A match that stays unfinished however long the suite runs (the demo's first match ends
    after a while)."""
    return store.create_match("duck", ["Ann", "Ben", "Cat"], {}, observer=True).id


def test_the_screen_is_kept_awake_during_a_game(page: Page, table: Table) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(FAKE_WAKE_LOCK)
    page.goto(f"{table.url}/match/{game_under_way(table.store)}")
    page.wait_for_function("() => window.__wakeRequests >= 1")
    # the browser lets the lock go when the page is hidden; it is asked for again on return
    page.evaluate("window.__wakeSentinels[0].release()")
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_function("() => window.__wakeRequests >= 2")
    assert errors == []


def test_a_finished_game_lets_the_screen_sleep(page: Page, table: Table) -> None:
    from tests.web.test_web_phone import finished_grey

    match = finished_grey(table.store)
    page.add_init_script(FAKE_WAKE_LOCK)
    page.goto(f"{table.url}/match/{match}")
    expect(page.locator("#live-state")).to_be_visible()  # the live board's script has run
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    assert page.evaluate("window.__wakeRequests") == 0
    page.goto(f"{table.url}/match/{game_under_way(table.store)}")  # a game under way asks, as a check
    page.wait_for_function("() => window.__wakeRequests >= 1")


def test_no_wake_lock_is_no_error(page: Page, table: Table) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script("Object.defineProperty(navigator, 'wakeLock', "
                         "{ configurable: true, get: () => undefined }); delete Navigator.prototype.wakeLock;")
    page.goto(f"{table.url}/match/{table.demo_match}")
    expect(page.locator("#live-state")).to_have_attribute("data-state", "live")
    assert errors == []


def test_a_finished_game_has_a_banner_and_play_again(page: Page, table: Table) -> None:
    from tests.web.test_web_phone import finished_grey

    match = finished_grey(table.store)
    page.goto(f"{table.url}/match/{match}")
    banner = page.locator("#result .banner")
    expect(banner).to_contain_text(re.compile(r"wins!|share the win!"))
    assert float(banner.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 24
    shoot(page, "finished")
    page.click("#play-again")
    expect(page.locator("#again")).to_contain_text("Ann")
    page.fill('input[name="pin"]', PIN)
    page.click("text=Start the new match")
    page.wait_for_url(re.compile(r"/match/\d+$"))
    again = int(page.url.rsplit("/", 1)[1])
    assert again != match
    info = table.store.match(again)
    assert (info.game, info.players, info.options.get("hands")) == ("grey", ["Ann", "Ben", "Cat"], 1)
